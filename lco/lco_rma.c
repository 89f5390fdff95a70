/*
 * lco/lco_rma.c: what the MPI layer's one-sided windows (compat/mpi_win_*.c,
 * compat/mpi_rma_*.c) need of the layers below, reached through an LCO.
 *
 * - Shared-memory segments: a memfd of this process, mapped here, that
 *   the other processes of the host map by (pid, descriptor number)
 *   through /proc/<pid>/fd, as the rings of slots/slot_shm.c are. Window
 *   memory and each window's control block live in them, so the
 *   processes of a host reach one another's windows with loads, stores
 *   and atomics, and the owner need not take part.
 * - The kernel's cross-memory copy (process_vm_readv/writev) into memory
 *   of another process of the host that is not in such a segment (the
 *   user's memory of MPI_Win_create): one system call, no owner either.
 * - UCX puts and gets between hosts (threads/thr_rma.c): memory
 *   registered here, its key unpacked on the connection from the LCO's
 *   endpoint to the endpoint where the peer's LCO of the same window
 *   lives, and a flush that waits like any wait of the library (sleeping,
 *   with the lock released).
 * - Keeping an LCO's endpoint progressed while nobody waits on it (its
 *   requests count as pending, and the progress thread runs), for
 *   operations that the owner's progress must carry out.
 */
#define _GNU_SOURCE
#include "config.h"

#include "lco/lco.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

/* ---- shared-memory segments ---------------------------------------------- */

struct gcm_lco_seg {
    int    fd;
    void  *base;
    size_t len;
};

gcm_status_t gcm_lco_seg_create(size_t len, gcm_lco_seg_t **seg_p)
{
    static const char *call = "gcm_lco_seg_create";
    gcm_lco_seg_t *seg;
    size_t maplen = (len > 0) ? len : 1;

    seg = calloc(1, sizeof(*seg));
    if (seg == NULL) {
        return gcm_fail(GCM_ERR_NO_MEMORY, call, "out of memory");
    }
    seg->fd = memfd_create("gencomm-win", MFD_CLOEXEC);
    if (seg->fd < 0) {
        free(seg);
        return gcm_fail((errno == ENOMEM) ? GCM_ERR_NO_MEMORY :
                        GCM_ERR_INTERNAL, call, "memfd_create: %s",
                        strerror(errno));
    }
    if (ftruncate(seg->fd, (off_t)maplen) != 0) {
        gcm_status_t status = gcm_fail(GCM_ERR_NO_MEMORY, call,
                                       "cannot size a segment of %zu bytes: "
                                       "%s", maplen, strerror(errno));
        close(seg->fd);
        free(seg);
        return status;
    }
    seg->base = mmap(NULL, maplen, PROT_READ | PROT_WRITE, MAP_SHARED,
                     seg->fd, 0);
    if (seg->base == MAP_FAILED) {
        gcm_status_t status = gcm_fail(GCM_ERR_NO_MEMORY, call,
                                       "cannot map %zu bytes: %s", maplen,
                                       strerror(errno));
        close(seg->fd);
        free(seg);
        return status;
    }
    seg->len = maplen;
    *seg_p = seg;
    return GCM_OK;
}

void *gcm_lco_seg_base(const gcm_lco_seg_t *seg)
{
    return seg->base;
}

int gcm_lco_seg_fd(const gcm_lco_seg_t *seg)
{
    return seg->fd;
}

size_t gcm_lco_seg_len(const gcm_lco_seg_t *seg)
{
    return seg->len;
}

void gcm_lco_seg_destroy(gcm_lco_seg_t *seg)
{
    if (seg == NULL) {
        return;
    }
    munmap(seg->base, seg->len);
    close(seg->fd);
    free(seg);
}

void *gcm_lco_seg_map(int pid, int fd, size_t len)
{
    char path[64];
    struct stat st;
    void *map;
    int mfd;

    if ((pid <= 0) || (fd < 0) || (len == 0)) {
        return NULL;
    }
    snprintf(path, sizeof(path), "/proc/%d/fd/%d", pid, fd);
    mfd = open(path, O_RDWR | O_CLOEXEC);
    if (mfd < 0) {
        gcm_debug("rma: cannot open %s: %s", path, strerror(errno));
        return NULL;
    }
    /* What the owner said must be what is there: a descriptor number
     * that was reused for something else has another size. */
    if ((fstat(mfd, &st) != 0) || !S_ISREG(st.st_mode) ||
        ((uint64_t)st.st_size != (uint64_t)len)) {
        close(mfd);
        return NULL;
    }
    map = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, mfd, 0);
    close(mfd);
    return (map == MAP_FAILED) ? NULL : map;
}

void gcm_lco_seg_unmap(void *base, size_t len)
{
    if (base != NULL) {
        munmap(base, len);
    }
}

/* ---- cross-memory copies ------------------------------------------------- */

gcm_status_t gcm_lco_cma(int pid, int write, void *buf,
                         const struct iovec *remote, size_t nremote)
{
    char *p = buf;
    size_t done = 0, n, want, i;
    struct iovec local;
    ssize_t got;

    /* The kernel takes at most IOV_MAX (1024) entries per side. A short
     * copy means part of the remote range is not mapped there. */
    while (done < nremote) {
        n = nremote - done;
        if (n > 1024) {
            n = 1024;
        }
        want = 0;
        for (i = 0; i < n; i++) {
            want += remote[done + i].iov_len;
        }
        local.iov_base = p;
        local.iov_len  = want;
        got = write ? process_vm_writev((pid_t)pid, &local, 1,
                                        remote + done, n, 0) :
                      process_vm_readv((pid_t)pid, &local, 1,
                                       remote + done, n, 0);
        if (got != (ssize_t)want) {
            return gcm_fail((errno == ESRCH) ? GCM_ERR_PEER_FAILED :
                            GCM_ERR_TRANSPORT, write ? "process_vm_writev" :
                            "process_vm_readv", "process %d: %s", pid,
                            (got < 0) ? strerror(errno) :
                            "part of the range is not mapped");
        }
        p += want;
        done += n;
    }
    return GCM_OK;
}

/* ---- UCX puts and gets --------------------------------------------------- */

struct gcm_lco_rmem {
    gcm_thr_rma_mem_t *mem;
};

struct gcm_lco_rkey {
    gcm_thr_rkey_t     *rkey;
    gcm_thr_endpoint_t *endpoint;
};

gcm_status_t gcm_lco_rmem_register(void *base, size_t len,
                                   gcm_lco_rmem_t **mem_p, void **key_p,
                                   size_t *keylen_p)
{
    gcm_lco_rmem_t *mem = calloc(1, sizeof(*mem));
    gcm_status_t status;

    if (mem == NULL) {
        return gcm_fail(GCM_ERR_NO_MEMORY, "gcm_lco_rmem_register",
                        "out of memory");
    }
    status = gcm_thr_rma_map(base, len, &mem->mem, key_p, keylen_p);
    if (status != GCM_OK) {
        free(mem);
        return status;
    }
    *mem_p = mem;
    return GCM_OK;
}

void gcm_lco_rmem_deregister(gcm_lco_rmem_t *mem)
{
    if (mem != NULL) {
        gcm_thr_rma_unmap(mem->mem);
        free(mem);
    }
}

/* The process and endpoint of the LCO send slot rank of lco reaches.
 * Lock held. */
static int gcm_lco_rma_where(gcm_lco_h lco, int rank, int *proc_p,
                             int *ep_p)
{
    gcm_port_t *port = lco->port;

    if (port->pattern) {
        *proc_p = gcm_slots_pattern_proc(port, rank);
        *ep_p   = gcm_slots_pattern_ep(port, *proc_p);
        return 0;
    }
    if ((rank < 0) || (rank >= port->nsend)) {
        return -1;
    }
    *proc_p = (int)port->edges[rank]->dest.proc;
    *ep_p   = (int)port->edges[rank]->dest.ep;
    return 0;
}

gcm_status_t gcm_lco_rkey_open(gcm_lco_h lco, int rank, const void *key,
                               size_t keylen, gcm_lco_rkey_t **rkey_p)
{
    gcm_thr_endpoint_t *endpoint = lco->port->endpoint;
    gcm_lco_rkey_t *rkey;
    gcm_status_t status;
    int proc, ep;

    rkey = calloc(1, sizeof(*rkey));
    if (rkey == NULL) {
        return gcm_fail(GCM_ERR_NO_MEMORY, "gcm_lco_rkey_open",
                        "out of memory");
    }
    gcm_thr_lock(endpoint);
    if (gcm_lco_rma_where(lco, rank, &proc, &ep) != 0) {
        gcm_thr_unlock(endpoint);
        free(rkey);
        return gcm_fail(GCM_ERR_NO_SUCH_SLOT, "gcm_lco_rkey_open",
                        "no send slot %d", rank);
    }
    status = gcm_thr_rma_rkey(endpoint, proc, ep, key, keylen, &rkey->rkey);
    gcm_thr_unlock(endpoint);
    if (status != GCM_OK) {
        free(rkey);
        return status;
    }
    rkey->endpoint = endpoint;
    *rkey_p = rkey;
    return GCM_OK;
}

void gcm_lco_rkey_close(gcm_lco_rkey_t *rkey)
{
    if (rkey == NULL) {
        return;
    }
    gcm_thr_lock(rkey->endpoint);
    gcm_thr_rma_rkey_free(rkey->rkey);
    gcm_thr_unlock(rkey->endpoint);
    free(rkey);
}

gcm_status_t gcm_lco_rput(gcm_lco_rkey_t *rkey, const void *buf, size_t len,
                          uint64_t raddr)
{
    gcm_status_t status;

    gcm_thr_lock(rkey->endpoint);
    status = gcm_thr_rma_put(rkey->rkey, buf, len, raddr);
    gcm_thr_unlock(rkey->endpoint);
    return status;
}

gcm_status_t gcm_lco_rget(gcm_lco_rkey_t *rkey, void *buf, size_t len,
                          uint64_t raddr)
{
    gcm_status_t status;

    gcm_thr_lock(rkey->endpoint);
    status = gcm_thr_rma_get(rkey->rkey, buf, len, raddr);
    gcm_thr_unlock(rkey->endpoint);
    return status;
}

static int gcm_lco_rflush_done(void *arg)
{
    gcm_thr_rma_flush_t *flush = arg;

    return atomic_load_explicit(&flush->done, memory_order_acquire);
}

gcm_status_t gcm_lco_rflush(gcm_lco_rkey_t *rkey)
{
    gcm_thr_rma_flush_t flush;
    gcm_status_t status;

    gcm_thr_lock(rkey->endpoint);
    status = gcm_thr_rma_flush_start(rkey->rkey, &flush);
    gcm_thr_unlock(rkey->endpoint);
    if (status != GCM_INPROGRESS) {
        return status;
    }
    /* The flush completes by this endpoint's progress (the target's for
     * emulated operations over TCP): counted as pending meanwhile, so
     * the waits of other endpoints and the progress thread advance it
     * too. */
    gcm_thr_pending_add(rkey->endpoint);
    gcm_lco_thr_wait(rkey->endpoint, gcm_lco_rflush_done, &flush);
    gcm_thr_pending_done(rkey->endpoint);
    gcm_thr_lock(rkey->endpoint);
    gcm_thr_rma_flush_end(&flush);
    gcm_thr_unlock(rkey->endpoint);
    return flush.status;
}

/* ---- progress of passive targets ----------------------------------------- */

void gcm_lco_wake(gcm_lco_h lco)
{
    gcm_thr_signal(lco->port->endpoint);
}

gcm_status_t gcm_lco_keep_progressed(gcm_lco_h lco, int on)
{
    gcm_thr_endpoint_t *endpoint = lco->port->endpoint;

    if (!on) {
        gcm_thr_pending_done(endpoint);
        return GCM_OK;
    }
    gcm_thr_pending_add(endpoint);
    return gcm_thr_pt_ensure();
}
