/*
 * threads/thr_fd.c: the descriptors UCX opens for us are close-on-exec.
 *
 * Every descriptor the library opens itself is made with O_CLOEXEC (or
 * SOCK_CLOEXEC, MFD_CLOEXEC, EFD_CLOEXEC), but UCX opens its own (pipes,
 * epoll and event descriptors, listening and connected sockets) without.
 * A program a rank starts with system() or fork and exec would inherit
 * them: a sleeping child would keep a dead rank's connections open, and
 * it could write to them. So the calls that make UCX open descriptors
 * (ucp_init and the workers at init, ucp_ep_create later) are bracketed:
 * what was open before is noted, and what is new after is marked
 * close-on-exec. At init the main thread is in gcm_init and nothing else
 * of the program opens descriptors meanwhile in the usual case; later,
 * only new sockets and anonymous kernel objects (UCX's connections and
 * its keepalive timerfd) are marked, so that a file, pipe or device
 * another thread of the program opens at that moment for a child of its
 * own is left alone.
 */
#include "config.h"

#include "threads/thr.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Calls fn(fd, arg) for each open descriptor of this process. */
static void gcm_thr_fd_each(void (*fn)(int fd, void *arg), void *arg)
{
    DIR *d = opendir("/proc/self/fd");
    struct dirent *e;

    if (d == NULL) {
        return;
    }
    while ((e = readdir(d)) != NULL) {
        int fd;

        if ((e->d_name[0] < '0') || (e->d_name[0] > '9')) {
            continue;
        }
        fd = atoi(e->d_name);
        if (fd != dirfd(d)) {
            fn(fd, arg);
        }
    }
    closedir(d);
}

static void gcm_thr_fd_note(int fd, void *arg)
{
    gcm_thr_fds_t *fds = arg;

    if (fd >= fds->cap) {
        int cap = (fds->cap > 0) ? fds->cap : 256;
        unsigned char *bits;

        while (cap <= fd) {
            cap *= 2;
        }
        bits = realloc(fds->bits, (size_t)cap / 8);
        if (bits == NULL) {
            return;    /* best effort: a descriptor not noted stays open */
        }
        memset(bits + fds->cap / 8, 0, (size_t)(cap - fds->cap) / 8);
        fds->bits = bits;
        fds->cap  = cap;
    }
    fds->bits[fd / 8] |= (unsigned char)(1u << (fd % 8));
}

void gcm_thr_fds_note(gcm_thr_fds_t *fds)
{
    memset(fds, 0, sizeof(*fds));
    gcm_thr_fd_each(gcm_thr_fd_note, fds);
}

typedef struct {
    const gcm_thr_fds_t *before;
    int                  ucx_kinds_only;
} gcm_thr_fd_mark_t;

/*
 * Whether fd is a socket or an anonymous kernel object (epoll, eventfd,
 * timerfd), the kinds UCX opens. It reads the descriptor's link in /proc
 * rather than calling fstat() on it: UCX's own threads create and close
 * descriptors meanwhile, and looking at the link touches no descriptor
 * of theirs.
 */
static int gcm_thr_fd_is_ucx_kind(int fd)
{
    char path[64];
    char link[64];
    ssize_t n;

    (void)snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
    n = readlink(path, link, sizeof(link) - 1);
    if (n <= 0) {
        return 0;
    }
    link[n] = '\0';
    return (strncmp(link, "socket:", 7) == 0) ||
           (strncmp(link, "anon_inode:", 11) == 0);
}

static void gcm_thr_fd_mark(int fd, void *arg)
{
    const gcm_thr_fd_mark_t *m = arg;
    int flags;

    if ((fd < m->before->cap) &&
        (m->before->bits[fd / 8] & (1u << (fd % 8)))) {
        return;
    }
    if (m->ucx_kinds_only && !gcm_thr_fd_is_ucx_kind(fd)) {
        return;
    }
    flags = fcntl(fd, F_GETFD);
    if ((flags >= 0) && !(flags & FD_CLOEXEC)) {
        (void)fcntl(fd, F_SETFD, flags | FD_CLOEXEC);
    }
}

void gcm_thr_fds_cloexec_new(gcm_thr_fds_t *before, int ucx_kinds_only)
{
    gcm_thr_fd_mark_t m = { before, ucx_kinds_only };

    gcm_thr_fd_each(gcm_thr_fd_mark, &m);
    free(before->bits);
    before->bits = NULL;
    before->cap  = 0;
}
