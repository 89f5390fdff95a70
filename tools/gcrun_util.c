/*
 * tools/gcrun_util.c: utilities of gcrun: clock, writing to our
 * own output, messages, allocation, descriptors, numbers, signal names,
 * and the byte buffers (FIFOs) of its connections and pipes.
 */
#include "tools/gcrun.h"

/* ------------------------------------------------------------------------ */
/* Utilities                                                                */
/* ------------------------------------------------------------------------ */

int gcrun_sig_pipe[2] = { -1, -1 };

/* Once writing to our stdout or stderr fails (e.g. EPIPE because the reader
 * went away) we stop trying, but keep draining the ranks' pipes so that
 * they do not block. */
static bool sink_broken[3];

int64_t gcrun_now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Writes all of data to fd (1 or 2). Blocks if the reader is slow: that
 * back-pressure is what a terminal or pipe expects from us. */
void gcrun_sink_write(int fd, const char *data, size_t len)
{
    while (len > 0 && !sink_broken[fd]) {
        ssize_t n = write(fd, data, len);

        if (n > 0) {
            data += n;
            len -= (size_t)n;
        } else if (n < 0 && errno == EINTR) {
            continue;
        } else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            /* Someone else made the descriptor non-blocking. */
            struct pollfd p = { .fd = fd, .events = POLLOUT };

            (void)poll(&p, 1, -1);
        } else {
            sink_broken[fd] = true;
        }
    }
}

/* Prints "gcrun: <message>\n" to stderr with a single write so that it
 * never lands in the middle of a forwarded line. */
void gcrun_msg(const char *fmt, ...)
{
    char line[1024];
    va_list ap;
    int len;

    len = snprintf(line, sizeof(line), "gcrun: ");
    va_start(ap, fmt);
    len += vsnprintf(line + len, sizeof(line) - (size_t)len - 1, fmt, ap);
    va_end(ap);
    if (len > (int)sizeof(line) - 2) {
        len = (int)sizeof(line) - 2;
    }
    line[len++] = '\n';
    gcrun_sink_write(STDERR_FILENO, line, (size_t)len);
}

void gcrun_out_of_memory(void)
{
    gcrun_msg("out of memory");
    exit(1);
}

void *gcrun_xmalloc(size_t size)
{
    void *p = malloc(size == 0 ? 1 : size);

    if (p == NULL) {
        gcrun_out_of_memory();
    }
    return p;
}

void *gcrun_xcalloc(size_t count, size_t size)
{
    void *p = calloc(count == 0 ? 1 : count, size == 0 ? 1 : size);

    if (p == NULL) {
        gcrun_out_of_memory();
    }
    return p;
}

void *gcrun_xrealloc(void *old, size_t size)
{
    void *p = realloc(old, size == 0 ? 1 : size);

    if (p == NULL) {
        gcrun_out_of_memory();
    }
    return p;
}

int gcrun_set_nonblock(int fd)
{
    int flags = fcntl(fd, F_GETFL);

    if (flags < 0) {
        return -1;
    }
    return fcntl(fd, F_SETFL, flags | O_NONBLOCK);
}

void gcrun_close_fd(int *fd)
{
    if (*fd >= 0) {
        close(*fd);
        *fd = -1;
    }
}

/* Parses a whole decimal string into a long; false on junk or overflow. */
bool gcrun_parse_long(const char *s, long *out)
{
    char *end;
    long v;

    if (s == NULL || *s == '\0') {
        return false;
    }
    errno = 0;
    v = strtol(s, &end, 10);
    if (errno != 0 || *end != '\0' || end == s) {
        return false;
    }
    *out = v;
    return true;
}

static const struct {
    int num;
    const char *name;
} signal_names[] = {
    { SIGHUP, "SIGHUP" },       { SIGINT, "SIGINT" },
    { SIGQUIT, "SIGQUIT" },     { SIGILL, "SIGILL" },
    { SIGTRAP, "SIGTRAP" },     { SIGABRT, "SIGABRT" },
    { SIGBUS, "SIGBUS" },       { SIGFPE, "SIGFPE" },
    { SIGKILL, "SIGKILL" },     { SIGUSR1, "SIGUSR1" },
    { SIGSEGV, "SIGSEGV" },     { SIGUSR2, "SIGUSR2" },
    { SIGPIPE, "SIGPIPE" },     { SIGALRM, "SIGALRM" },
    { SIGTERM, "SIGTERM" },     { SIGCHLD, "SIGCHLD" },
    { SIGCONT, "SIGCONT" },     { SIGSTOP, "SIGSTOP" },
    { SIGTSTP, "SIGTSTP" },     { SIGTTIN, "SIGTTIN" },
    { SIGTTOU, "SIGTTOU" },     { SIGURG, "SIGURG" },
    { SIGXCPU, "SIGXCPU" },     { SIGXFSZ, "SIGXFSZ" },
    { SIGVTALRM, "SIGVTALRM" }, { SIGPROF, "SIGPROF" },
    { SIGWINCH, "SIGWINCH" },   { SIGSYS, "SIGSYS" },
};

const char *gcrun_signal_name(int sig, char *buf, size_t size)
{
    size_t i;

    for (i = 0; i < sizeof(signal_names) / sizeof(signal_names[0]); i++) {
        if (signal_names[i].num == sig) {
            return signal_names[i].name;
        }
    }
#ifdef SIGRTMIN
    if (sig >= SIGRTMIN && sig <= SIGRTMAX) {
        snprintf(buf, size, "SIGRTMIN+%d", sig - SIGRTMIN);
        return buf;
    }
#endif
    snprintf(buf, size, "SIG%d", sig);
    return buf;
}

/* The shell convention: 127 when the program is not there, 126 when it is
 * there but cannot be run. */
int gcrun_exec_failure_status(int err)
{
    if (err == ENOENT || err == ENOTDIR || err == ENAMETOOLONG ||
        err == ELOOP) {
        return 127;
    }
    return 126;
}

/* Makes sure descriptors 0-2 are open, so the pipes and sockets we create
 * never end up on them and get mistaken for stdio. */
void gcrun_ensure_std_fds(void)
{
    int fd;

    for (fd = 0; fd <= 2; fd++) {
        if (fcntl(fd, F_GETFD) < 0 && errno == EBADF) {
            int nfd = open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY);

            if (nfd < 0) {
                exit(1);
            }
            if (nfd != fd) {
                dup2(nfd, fd);
                close(nfd);
            }
        }
    }
}

/* ------------------------------------------------------------------------ */
/* Byte buffers                                                             */
/* ------------------------------------------------------------------------ */

size_t gcrun_buf_len(const struct buf *b)
{
    return b->end - b->start;
}

char *gcrun_buf_head(struct buf *b)
{
    return b->data + b->start;
}

void gcrun_buf_append(struct buf *b, const void *p, size_t n)
{
    if (b->end + n > b->cap) {
        size_t len = gcrun_buf_len(b);

        /* Slide the content to the front first; grow only if that is not
         * enough. */
        if (b->start > 0) {
            memmove(b->data, b->data + b->start, len);
            b->start = 0;
            b->end = len;
        }
        if (len + n > b->cap) {
            size_t cap = b->cap == 0 ? 256 : b->cap;

            while (cap < len + n) {
                cap *= 2;
            }
            b->data = gcrun_xrealloc(b->data, cap);
            b->cap = cap;
        }
    }
    if (n == 0) {
        return; /* b->data may still be NULL: memcpy must not see it */
    }
    memcpy(b->data + b->end, p, n);
    b->end += n;
}

void gcrun_buf_consume(struct buf *b, size_t n)
{
    b->start += n;
    if (b->start >= b->end) {
        b->start = 0;
        b->end = 0;
    }
}

int gcrun_buf_drain(struct buf *b, int fd, bool sock)
{
    while (gcrun_buf_len(b) > 0) {
        ssize_t n = sock ? send(fd, gcrun_buf_head(b), gcrun_buf_len(b),
                                MSG_NOSIGNAL) :
                    write(fd, gcrun_buf_head(b), gcrun_buf_len(b));

        if (n > 0) {
            gcrun_buf_consume(b, (size_t)n);
        } else if (n < 0 && errno == EINTR) {
            continue;
        } else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            return 0;
        } else {
            return -1;
        }
    }
    return 0;
}

void gcrun_buf_free(struct buf *b)
{
    free(b->data);
    b->data = NULL;
    b->start = 0;
    b->end = 0;
    b->cap = 0;
}
