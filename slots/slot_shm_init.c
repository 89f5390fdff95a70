/*
 * slots/slot_shm_init.c: the same-host path's init and finalize: an
 * endpoint's segment and sockets, what a process publishes (slot_shm.c
 * says how the path works).
 */
#define _GNU_SOURCE
#include "config.h"

#include "slots/slot_shm_impl.h"

#include <sys/syscall.h>
#ifdef HAVE_LINUX_MEMBARRIER_H
#include <linux/membarrier.h>
#endif

/* ---- init and finalize --------------------------------------------------- */

static void gcm_shm_ep_close(gcm_shm_ep_t *sep)
{
    int i;

    if (sep->seg != NULL) {
        munmap(sep->seg, sep->seg_len);
    }
    if (sep->memfd >= 0) {
        close(sep->memfd);
    }
    if (sep->wake_fd >= 0) {
        close(sep->wake_fd);
    }
    if (sep->claim_fd >= 0) {
        close(sep->claim_fd);
    }
    for (i = 0; i < sep->nearly; i++) {
        close(sep->early[i].fd);
    }
    free(sep->rx);
    free(sep->active);
    free(sep->watch);
    free(sep);
}

static void gcm_shm_close_all(void)
{
    int i;

    for (i = 0; i < GCM_MAX_ENDPOINTS; i++) {
        if (gcm_slots_shm.eps[i] != NULL) {
            gcm_shm_ep_close(gcm_slots_shm.eps[i]);
            gcm_slots_shm.eps[i] = NULL;
        }
    }
    if (gcm_slots_shm.send_fd >= 0) {
        close(gcm_slots_shm.send_fd);
        gcm_slots_shm.send_fd = -1;
    }
    gcm_slots_shm.neps    = 0;
    gcm_slots_shm.enabled = 0;
}

/* Peers read our entry whatever our setting: "off" (no segments) rather
 * than no entry, which the launcher would report as an error. */
static void gcm_shm_publish_off(void)
{
    gcm_shm_info_head_t head;

    memset(&head, 0, sizeof(head));
    (void)gcm_boot_put(GCM_SHM_KEY, &head, sizeof(head));
}

/* Makes endpoint index's segment and sockets; *why_p names the step that
 * failed. */
static gcm_shm_ep_t *gcm_shm_ep_create(int index, const char **why_p)
{
    struct sockaddr_un addr;
    socklen_t addr_len;
    gcm_shm_ep_t *sep;
    char name[32];
    int one = 1;

    *why_p = "malloc";
    sep = calloc(1, sizeof(*sep));
    if (sep == NULL) {
        return NULL;
    }
    sep->index    = index;
    sep->memfd    = -1;
    sep->wake_fd  = -1;
    sep->claim_fd = -1;
    gcm_list_init(&sep->txs);
    atomic_init(&sep->check_now, 0);
    atomic_init(&sep->refused_claims, 0);
    atomic_init(&sep->refused_wakes, 0);
    sep->last_check = gcm_time_now();
    sep->seg_len = GCM_SLOTS_SHM_SEG_HDR +
                   (size_t)gcm_slots_shm.nrings * GCM_SLOTS_SHM_RING_BYTES;

    *why_p = "memfd_create";
    snprintf(name, sizeof(name), "gencomm-shm-%d", index);
    sep->memfd = memfd_create(name, MFD_CLOEXEC);
    if (sep->memfd < 0) {
        goto err;
    }
    *why_p = "ftruncate";
    if (ftruncate(sep->memfd, (off_t)sep->seg_len) != 0) {
        goto err;
    }
    *why_p = "mmap";
    sep->seg = mmap(NULL, sep->seg_len, PROT_READ | PROT_WRITE, MAP_SHARED,
                    sep->memfd, 0);
    if (sep->seg == MAP_FAILED) {
        sep->seg = NULL;
        goto err;
    }
    sep->seg->nrings     = (uint32_t)gcm_slots_shm.nrings;
    sep->seg->ncells     = GCM_SLOTS_SHM_NCELLS;
    sep->seg->ring_bytes = GCM_SLOTS_SHM_RING_BYTES;
    sep->seg->magic      = gcm_shm_magic(gcm_slots_shm.myproc, index);

    gcm_random_bytes(sep->sock_id, sizeof(sep->sock_id));
    *why_p = "socket";
    sep->wake_fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
                          0);
    if (sep->wake_fd < 0) {
        goto err;
    }
    /* The kernel names the sender of every wakeup. */
    *why_p = "setsockopt(SO_PASSCRED)";
    if (setsockopt(sep->wake_fd, SOL_SOCKET, SO_PASSCRED, &one,
                   sizeof(one)) != 0) {
        goto err;
    }
    *why_p = "bind";
    addr_len = gcm_slots_shm_sock_addr(sep->sock_id, 'w', &addr);
    if (bind(sep->wake_fd, (struct sockaddr *)&addr, addr_len) != 0) {
        goto err;
    }
    *why_p = "socket";
    sep->claim_fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK |
                           SOCK_CLOEXEC, 0);
    if (sep->claim_fd < 0) {
        goto err;
    }
    *why_p = "bind";
    addr_len = gcm_slots_shm_sock_addr(sep->sock_id, 'c', &addr);
    if (bind(sep->claim_fd, (struct sockaddr *)&addr, addr_len) != 0) {
        goto err;
    }
    /* Every sender of the host may claim at once (the first messages of
     * an all-to-all): connections wait in the backlog until we look. */
    *why_p = "listen";
    if (listen(sep->claim_fd, SOMAXCONN) != 0) {
        goto err;
    }
    *why_p = "malloc";
    sep->rx     = calloc((size_t)gcm_slots_shm.nrings, sizeof(*sep->rx));
    sep->active = calloc((size_t)gcm_slots_shm.nrings, sizeof(*sep->active));
    sep->watch  = calloc((size_t)gcm_slots_shm.nrings, sizeof(*sep->watch));
    if ((sep->rx == NULL) || (sep->active == NULL) || (sep->watch == NULL)) {
        goto err;
    }
    return sep;

err:
    gcm_shm_ep_close(sep);
    return NULL;
}

int gcm_slots_shm_membarrier(int cmd)
{
#ifdef HAVE_LINUX_MEMBARRIER_H
    static const int cmds[] = {
        [GCM_SHM_BARRIER_QUERY]    = MEMBARRIER_CMD_QUERY,
        [GCM_SHM_BARRIER_REGISTER] = MEMBARRIER_CMD_REGISTER_GLOBAL_EXPEDITED,
        [GCM_SHM_BARRIER_GLOBAL]   = MEMBARRIER_CMD_GLOBAL_EXPEDITED,
    };

    return (int)syscall(__NR_membarrier, cmds[cmd], 0, 0);
#else
    (void)cmd;
    errno = ENOSYS;
    return -1;
#endif
}

/*
 * Who fences (slots/README.md, "The publish fence"). With membarrier's
 * global expedited barrier our waiters issue it before a long sleep;
 * registered, our producers publish without a fence. A kernel without it
 * registers nobody on the host, so that every producer fences and a
 * waiter may sleep long without it.
 */
static void gcm_shm_barrier_init(void)
{
    int have = gcm_slots_shm_membarrier(GCM_SHM_BARRIER_QUERY);

    gcm_slots_shm.barrier = 0;
    gcm_slots_shm.nofence = 0;
#ifdef HAVE_LINUX_MEMBARRIER_H
    if ((have < 0) || !(have & MEMBARRIER_CMD_GLOBAL_EXPEDITED)) {
        return;
    }
    gcm_slots_shm.barrier = 1;
    if (gcm_slots_config.shm_membarrier &&
        (have & MEMBARRIER_CMD_REGISTER_GLOBAL_EXPEDITED) &&
        (gcm_slots_shm_membarrier(GCM_SHM_BARRIER_REGISTER) == 0)) {
        gcm_slots_shm.nofence = 1;
    }
#else
    (void)have;
#endif
}

gcm_status_t gcm_slots_shm_init(void)
{
    const char *jobid = gcm_boot_jobid();
    gcm_shm_info_t *info = NULL;
    const char *why;
    int neps = gcm_thr_num_endpoints();
    int i, saved;

    gcm_slots_shm.enabled = 0;
    if (gcm_boot_size() < 2) {
        return GCM_OK;
    }
    gcm_slots_shm.nprocs = gcm_boot_size();
    gcm_slots_shm.myproc = gcm_boot_rank();
    gcm_slots_shm.mypid  = (int)getpid();
    gcm_slots_shm.uid    = getuid();
    /* The table serves gcm_slots_shm_peer_dying whatever our setting. */
    gcm_slots_shm.pids = calloc((size_t)gcm_slots_shm.nprocs,
                                sizeof(*gcm_slots_shm.pids));
    if (!gcm_slots_config.shm || (neps < 1)) {
        gcm_shm_publish_off();
        return GCM_OK;
    }
    gcm_slots_shm.jobhash = gcm_hash64(jobid, strlen(jobid));
    atomic_init(&gcm_slots_shm.cma_logged, 0);

    /* A ring per endpoint of each process of the host (the launcher's
     * count, else the job's size; their endpoint counts taken to be
     * ours): pages nobody writes cost nothing. A sender that finds no
     * free ring goes over UCX. */
    gcm_slots_shm.nrings = gcm_thr_count_local() * neps;
    if (gcm_slots_shm.nrings < 1) {
        gcm_slots_shm.nrings = 1;
    }
    if (gcm_slots_shm.nrings > GCM_SLOTS_SHM_MAX_RINGS) {
        gcm_slots_shm.nrings = GCM_SLOTS_SHM_MAX_RINGS;
    }

    why = "malloc";
    info = calloc(1, sizeof(*info));
    if ((info == NULL) || (gcm_slots_shm.pids == NULL)) {
        goto err;
    }
    why = "socket";
    gcm_slots_shm.send_fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK |
                                   SOCK_CLOEXEC, 0);
    if (gcm_slots_shm.send_fd < 0) {
        goto err;
    }
    for (i = 0; i < neps; i++) {
        gcm_slots_shm.eps[i] = gcm_shm_ep_create(i, &why);
        if (gcm_slots_shm.eps[i] == NULL) {
            goto err;
        }
        info->seg[i].fd    = gcm_slots_shm.eps[i]->memfd;
        info->seg[i].size  = gcm_slots_shm.eps[i]->seg_len;
        info->seg[i].magic = gcm_slots_shm.eps[i]->seg->magic;
        memcpy(info->seg[i].sock, gcm_slots_shm.eps[i]->sock_id,
               sizeof(info->seg[i].sock));
    }
    gcm_slots_shm.neps = neps;
    snprintf(info->head.host, sizeof(info->head.host), "%s",
             gcm_boot_hostname());
    info->head.pid   = gcm_slots_shm.mypid;
    info->head.nseg  = (uint32_t)neps;
    info->head.probe = (uint64_t)(uintptr_t)gcm_slots_shm.eps[0]->seg;
    why = "publish";
    if (gcm_boot_put(GCM_SHM_KEY, info,
                     sizeof(info->head) +
                     (size_t)neps * sizeof(info->seg[0])) != GCM_OK) {
        goto err;
    }
    free(info);
    gcm_shm_barrier_init();
    gcm_slots_shm.enabled = 1;
    gcm_debug("shm: %d segments of %d rings of %d cells (%zu bytes each), "
              "publish %s", neps, gcm_slots_shm.nrings, GCM_SLOTS_SHM_NCELLS,
              gcm_slots_shm.eps[0]->seg_len,
              gcm_slots_shm.nofence ? "without a fence (membarrier)" :
                                      "with a fence");
    return GCM_OK;

err:
    saved = errno;
    gcm_warn("shared memory off (%s: %s): every message goes over UCX", why,
             strerror(saved));
    free(info);
    gcm_shm_close_all();
    gcm_shm_publish_off();
    return GCM_ERR_TRANSPORT;
}

void gcm_slots_shm_fail_pending(gcm_shm_ep_t *sep, gcm_shm_tx_t *tx,
                                gcm_status_t reason)
{
    while (!gcm_list_empty(&tx->pending)) {
        gcm_slots_shm_pend_t *pend =
            gcm_container_of(tx->pending.next, gcm_slots_shm_pend_t, elem);
        gcm_list_del(&pend->elem);
        sep->nqueued--;
        if (pend->req != NULL) {
            gcm_slots_send_part_done(pend->req, reason);
        } else {
            free(pend);
        }
    }
}

void gcm_slots_shm_finalize(void)
{
    double deadline = gcm_time_now() + 2.0;
    int i;

    if (!gcm_slots_shm.enabled) {
        goto out;
    }
    /* What waits for room (answers, notices) goes out if the peers are
     * still there to take it. */
    for (i = 0; i < gcm_slots_shm.neps; i++) {
        gcm_thr_endpoint_t *endpoint = gcm_thr_endpoint_get(i);
        while ((gcm_slots_shm.eps[i]->nqueued > 0) &&
               (gcm_time_now() < deadline)) {
            gcm_thr_progress(endpoint);
        }
    }
    for (i = 0; i < gcm_slots_shm.neps; i++) {
        gcm_thr_endpoint_t *endpoint = gcm_thr_endpoint_get(i);
        gcm_shm_ep_t *sep = gcm_slots_shm.eps[i];

        gcm_thr_lock(endpoint);
        while (!gcm_list_empty(&sep->txs)) {
            gcm_shm_tx_t *tx = gcm_container_of(sep->txs.next, gcm_shm_tx_t,
                                                elem);
            gcm_list_del(&tx->elem);
            gcm_slots_shm_fail_pending(sep, tx, GCM_ERR_CANCELED);
            munmap(tx->map, tx->map_len);
            free(tx);
        }
        if (sep->coop_copies > 0) {
            gcm_debug("shm endpoint %d: %llu cooperative copies to it, "
                      "%llu of their %llu chunks written by their senders",
                      i, (unsigned long long)sep->coop_copies,
                      (unsigned long long)sep->coop_helped,
                      (unsigned long long)sep->coop_chunks);
        }
        if (sep->coop_crowded > 0) {
            gcm_debug("shm endpoint %d: %llu large reads alone, with more "
                      "processes than cores", i,
                      (unsigned long long)sep->coop_crowded);
        }
        if ((sep->coop_skipped > 0) || (sep->fold_reads > 0)) {
            gcm_debug("shm endpoint %d: %llu large reads alone while their "
                      "sender had one of ours to read, %llu folded reads "
                      "in %llu pieces, %llu of those reads shared with "
                      "their senders", i,
                      (unsigned long long)sep->coop_skipped,
                      (unsigned long long)sep->fold_reads,
                      (unsigned long long)sep->fold_pieces,
                      (unsigned long long)sep->fold_shared);
        }
        gcm_thr_unlock(endpoint);
    }
    gcm_shm_close_all();
out:
    free(gcm_slots_shm.pids);
    gcm_slots_shm.pids   = NULL;
    gcm_slots_shm.nprocs = 0;
}
