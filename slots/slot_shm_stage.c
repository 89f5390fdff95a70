/*
 * slots/slot_shm_stage.c: the staging area of a pair of processes of one
 * host, for a large commutative reduction between the two
 * (coll/README.md, "The staged allreduce of 2 processes").
 *
 * Each process of the pair creates its own area (a memfd of
 * GCM_SLOTS_STAGE_BYTES, mapped read-write) and maps its partner's read
 * only, found as /proc/PID/fd/FD from an offer the partner sent it, PID
 * checked against the pid the partner published with its segments. A
 * process writes only into its own area and only reads its partner's, so
 * nothing the partner does to its area can touch this process's memory.
 *
 * A round reduces up to 2 x GCM_SLOTS_STAGE_HALF bytes: rank 0 keeps the
 * lower half of the elements, rank 1 the upper. Each copies the half it
 * gives into its area's `in` part, piece by piece (GCM_SLOTS_STAGE_PIECE
 * bytes), each piece's flag set to the round's number once written; each
 * combines the partner's pieces of the half it keeps, as their flags say
 * they are there, into its result and copies the reduced piece into its
 * `out` part (flagged the same way); last each copies the partner's reduced
 * pieces of the half it gave into its result and sets its `done` word to
 * the round. A round starts by waiting for the partner's `done` of the
 * round before: until then the partner may still read this area.
 *
 * What the partner's area says is not believed: every offset and length
 * comes from the call's own arguments, a flag is only compared with the
 * round's number, and the data is only combined or copied.
 */
#define _GNU_SOURCE
#include "config.h"

#include "slots/slot_shm_impl.h"

#include <sched.h>
#include <stdatomic.h>
#include <time.h>

/* A flag per cache line: the partner polls it. */
typedef struct {
    _Atomic uint64_t seq;
    char             pad[56];
} gcm_stage_flag_t;

typedef struct {
    uint64_t         magic;
    _Alignas(64) _Atomic uint64_t done;
    gcm_stage_flag_t in[GCM_SLOTS_STAGE_NPIECES];
    gcm_stage_flag_t out[GCM_SLOTS_STAGE_NPIECES];
} gcm_stage_hdr_t;

_Static_assert(sizeof(gcm_stage_hdr_t) <= GCM_SLOTS_STAGE_HDR,
               "the staging area's header fits its page");

struct gcm_slots_stage {
    gcm_stage_hdr_t       *mine;        /* my area, read-write */
    const gcm_stage_hdr_t *peer;        /* the partner's, read only */
    int                    fd;          /* my memfd until the partner maps it */
    pid_t                  peer_pid;
    uint64_t               seq;         /* rounds run */
};

#define GCM_STAGE_OFFER_MAGIC 0x6763737467303031ULL   /* "gcstg001" */

static char *gcm_stage_in(const gcm_stage_hdr_t *h)
{
    return (char *)h + GCM_SLOTS_STAGE_HDR;
}

static char *gcm_stage_out(const gcm_stage_hdr_t *h)
{
    return (char *)h + GCM_SLOTS_STAGE_HDR + GCM_SLOTS_STAGE_HALF;
}

gcm_slots_stage_t *gcm_slots_stage_create(int peer_proc,
                                          gcm_slots_stage_offer_t *offer)
{
    gcm_slots_stage_t *st;
    void *map;
    int pid = gcm_slots_shm_pid_of(peer_proc);

    memset(offer, 0, sizeof(*offer));
    if ((pid <= 0) || (pid == (int)getpid()) ||
        ((st = calloc(1, sizeof(*st))) == NULL)) {
        return NULL;
    }
    st->peer_pid = (pid_t)pid;
    st->fd = memfd_create("gencomm-stage", MFD_CLOEXEC);
    if ((st->fd < 0) || (ftruncate(st->fd, GCM_SLOTS_STAGE_BYTES) != 0)) {
        goto err;
    }
    map = mmap(NULL, GCM_SLOTS_STAGE_BYTES, PROT_READ | PROT_WRITE,
               MAP_SHARED, st->fd, 0);
    if (map == MAP_FAILED) {
        goto err;
    }
    st->mine = map;
    gcm_random_bytes(&st->mine->magic, sizeof(st->mine->magic));
    offer->magic      = GCM_STAGE_OFFER_MAGIC;
    offer->area_magic = st->mine->magic;
    offer->pid        = (int32_t)getpid();
    offer->fd         = st->fd;
    offer->bytes      = GCM_SLOTS_STAGE_BYTES;
    return st;

err:
    gcm_debug("shm stage: no area (%s)", strerror(errno));
    if (st->fd >= 0) {
        close(st->fd);
    }
    free(st);
    return NULL;
}

int gcm_slots_stage_attach(gcm_slots_stage_t *st,
                           const gcm_slots_stage_offer_t *offer)
{
    char path[64];
    struct stat sb;
    void *map;
    int fd;

    if ((offer->magic != GCM_STAGE_OFFER_MAGIC) ||
        (offer->bytes != GCM_SLOTS_STAGE_BYTES) ||
        (offer->pid != (int32_t)st->peer_pid) || (offer->fd < 0)) {
        return 0;
    }
    snprintf(path, sizeof(path), "/proc/%d/fd/%d", (int)offer->pid,
             (int)offer->fd);
    fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        gcm_debug("shm stage: cannot open %s (%s)", path, strerror(errno));
        return 0;
    }
    if ((fstat(fd, &sb) != 0) ||
        ((uint64_t)sb.st_size != GCM_SLOTS_STAGE_BYTES)) {
        close(fd);
        return 0;
    }
    map = mmap(NULL, GCM_SLOTS_STAGE_BYTES, PROT_READ, MAP_SHARED, fd, 0);
    close(fd);
    if (map == MAP_FAILED) {
        return 0;
    }
    if (((const gcm_stage_hdr_t *)map)->magic != offer->area_magic) {
        munmap(map, GCM_SLOTS_STAGE_BYTES);
        return 0;
    }
    st->peer = map;
    return 1;
}

void gcm_slots_stage_ready(gcm_slots_stage_t *st)
{
    if (st->fd >= 0) {
        close(st->fd);
        st->fd = -1;
    }
}

void gcm_slots_stage_free(gcm_slots_stage_t *st)
{
    if (st == NULL) {
        return;
    }
    gcm_slots_stage_ready(st);
    if (st->mine != NULL) {
        munmap(st->mine, GCM_SLOTS_STAGE_BYTES);
    }
    if (st->peer != NULL) {
        munmap((void *)st->peer, GCM_SLOTS_STAGE_BYTES);
    }
    free(st);
}

/* Waits until *w is want (ge: at least want). Spins a while, giving the
 * core away at every poll with more of the job's processes on the host
 * than cores (at every 64th otherwise); after 2 ms it sleeps 50 us between
 * polls. GCM_ERR_PEER_FAILED once the partner is gone or exiting (checked
 * every millisecond of waiting). */
static gcm_status_t gcm_stage_wait(const gcm_slots_stage_t *st,
                                   const _Atomic uint64_t *w, uint64_t want,
                                   int ge)
{
    uint64_t v, t0 = 0, now, checked = 0;
    unsigned spins = 0;
    int yield = gcm_thr_is_oversubscribed();

    for (;;) {
        v = atomic_load_explicit(w, memory_order_acquire);
        if (gcm_likely(ge ? (v >= want) : (v == want))) {
            return GCM_OK;
        }
        spins++;
        if (yield || ((spins & 63) == 0)) {
            sched_yield();
        }
        if ((spins & 63) != 0) {
            continue;
        }
        now = gcm_shm_now_ns();
        if (t0 == 0) {
            t0 = checked = now;
        }
        if (now - checked >= 1000000) {
            checked = now;
            if (gcm_slots_pid_dying(st->peer_pid)) {
                gcm_debug("shm stage: partner pid %d gone while waiting",
                          (int)st->peer_pid);
                return GCM_ERR_PEER_FAILED;
            }
        }
        if (now - t0 >= 2000000) {
            struct timespec ts = { 0, 50000 };

            nanosleep(&ts, NULL);
        }
    }
}

/* Copies len bytes from src into part (my area's in or out) piece by
 * piece, each piece's flag set to seq once it is there. */
static void gcm_stage_put(gcm_stage_flag_t *flags, char *part,
                          const char *src, size_t len, uint64_t seq)
{
    size_t off, n;

    for (off = 0; off < len; off += n) {
        n = (len - off < GCM_SLOTS_STAGE_PIECE) ? len - off :
            GCM_SLOTS_STAGE_PIECE;
        memcpy(part + off, src + off, n);
        atomic_store_explicit(&flags[off / GCM_SLOTS_STAGE_PIECE].seq, seq,
                              memory_order_release);
    }
}

/* One round: count elements (at most 2 x GCM_SLOTS_STAGE_HALF bytes) of
 * esize bytes, the module's comment says how. */
static gcm_status_t gcm_stage_round(gcm_slots_stage_t *st, int rank,
                                    const char *sbuf, char *rbuf,
                                    size_t count, size_t esize,
                                    gcm_slots_stage_combine_func_t *fn,
                                    void *ctx)
{
    size_t lo = count / 2;
    size_t keep = rank ? lo * esize : 0, give = rank ? 0 : lo * esize;
    size_t keep_len = (rank ? count - lo : lo) * esize;
    size_t give_len = count * esize - keep_len;
    uint64_t seq = ++st->seq;
    gcm_stage_hdr_t *mine = st->mine;
    const gcm_stage_hdr_t *peer = st->peer;
    gcm_status_t status;
    size_t off, n;

    status = gcm_stage_wait(st, &peer->done, seq - 1, 1);
    if (status != GCM_OK) {
        return status;
    }
    gcm_stage_put(mine->in, gcm_stage_in(mine), sbuf + give, give_len, seq);
    for (off = 0; off < keep_len; off += n) {
        size_t p = off / GCM_SLOTS_STAGE_PIECE;
        char *r = rbuf + keep + off;

        n = (keep_len - off < GCM_SLOTS_STAGE_PIECE) ? keep_len - off :
            GCM_SLOTS_STAGE_PIECE;
        status = gcm_stage_wait(st, &peer->in[p].seq, seq, 0);
        if (status != GCM_OK) {
            return status;
        }
        if (sbuf != rbuf) {
            memcpy(r, sbuf + keep + off, n);
        }
        fn(ctx, gcm_stage_in(peer) + off, r, n / esize);
        memcpy(gcm_stage_out(mine) + off, r, n);
        atomic_store_explicit(&mine->out[p].seq, seq, memory_order_release);
    }
    for (off = 0; off < give_len; off += n) {
        n = (give_len - off < GCM_SLOTS_STAGE_PIECE) ? give_len - off :
            GCM_SLOTS_STAGE_PIECE;
        status = gcm_stage_wait(st, &peer->out[off / GCM_SLOTS_STAGE_PIECE].seq,
                                seq, 0);
        if (status != GCM_OK) {
            return status;
        }
        memcpy(rbuf + give + off, gcm_stage_out(peer) + off, n);
    }
    atomic_store_explicit(&mine->done, seq, memory_order_release);
    return GCM_OK;
}

gcm_status_t gcm_slots_stage_allreduce(gcm_slots_stage_t *st, int rank,
                                       const void *sbuf, void *rbuf,
                                       size_t count, size_t esize,
                                       gcm_slots_stage_combine_func_t *fn,
                                       void *ctx)
{
    size_t per_round = 2 * GCM_SLOTS_STAGE_HALF / esize, done, n;
    gcm_status_t status = GCM_OK;

    for (done = 0; (done < count) && (status == GCM_OK); done += n) {
        n = (count - done < per_round) ? count - done : per_round;
        status = gcm_stage_round(st, rank, (const char *)sbuf + done * esize,
                                 (char *)rbuf + done * esize, n, esize, fn,
                                 ctx);
    }
    return status;
}
