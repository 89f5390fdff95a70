/*
 * compat/mpi_win.h: what the files of one-sided communication share: the
 * window object and its targets (mpi_win_*.c make them and run the
 * synchronization), and the operations with the active messages that
 * carry them where memory cannot be reached directly (mpi_rma_*.c).
 *
 * How an origin reaches a target, chosen per target when the window is
 * made (docs/mpi.md, "One-sided communication"):
 *
 * - DIRECT: the target's window memory is addressable here: the same
 *   process (MPI_COMM_SELF, thread LCOs), or a process of this host whose
 *   window memory is in a shared segment (MPI_Win_allocate,
 *   MPI_Win_allocate_shared, MPI_Win_create over MPI_Alloc_mem memory).
 *   Operations are loads, stores and copies; the target takes no part.
 * - CMA: a process of this host whose window memory is its own (the
 *   user's memory of MPI_Win_create, and dynamic windows): puts and gets
 *   by process_vm_writev/readv, accumulates the same under the target's
 *   accumulate lock. The target takes no part either.
 * - REMOTE: another host (or a peer whose control block cannot be
 *   mapped): contiguous puts and gets by UCX (registered memory, exchanged
 *   keys), everything else by active messages to the target's handler on
 *   the window's private communicator. The target's endpoint is kept
 *   progressed (the progress thread runs) so that it needs not call MPI.
 *
 * Every member has a control block in shared memory (its own memfd) that
 * DIRECT and CMA origins map: the passive-target lock word, the
 * accumulate lock, and for dynamic windows the table of attached regions.
 * Accumulates of every origin, through every path, apply under the
 * target's accumulate lock (the target's handler takes it for REMOTE
 * ones), so they are atomic with respect to one another whatever path
 * each took (MPI-3.1 11.7.1), as Open MPI's shared-memory component does.
 */
#ifndef GCM_MPI_WIN_H
#define GCM_MPI_WIN_H

#include "compat/mpi_impl.h"

#include <pthread.h>
#include <stdatomic.h>

#define GCM_MPI_MAGIC_WIN 0x57494e44u  /* "WIND" */

/* ---- the control block ---------------------------------------------------- */

#define GCM_WIN_CTL_MAGIC  UINT64_C(0x314c544357434347)  /* "GCCWCTL1" */
#define GCM_WIN_MAX_ATTACH 256
/* Lock word: this bit for an exclusive holder, the rest count shared
 * holders. */
#define GCM_WIN_LOCK_EXCL  0x80000000u

typedef struct gcm_win_ctl {
    uint64_t         magic;
    _Atomic uint32_t lock;     /* passive-target lock */
    _Atomic uint32_t acc;      /* accumulate lock: 0 free, else holder */
    _Atomic uint32_t rwait;    /* lock requests of REMOTE origins queued */
    _Atomic uint32_t nattach;  /* dynamic windows: attach[] in use */
    struct {
        _Atomic uint64_t base;
        _Atomic uint64_t len;  /* 0: a free entry */
    } attach[GCM_WIN_MAX_ATTACH];
} gcm_win_ctl_t;

/* Tries to take the passive-target lock of ctl (MPI_LOCK_SHARED or
 * MPI_LOCK_EXCLUSIVE); 1 if taken. */
static inline int gcm_win_lock_try(gcm_win_ctl_t *ctl, int type)
{
    uint32_t v = atomic_load_explicit(&ctl->lock, memory_order_relaxed);

    if (type == MPI_LOCK_EXCLUSIVE) {
        v = 0;
        return atomic_compare_exchange_strong_explicit(
            &ctl->lock, &v, GCM_WIN_LOCK_EXCL, memory_order_acquire,
            memory_order_relaxed);
    }
    while ((v & GCM_WIN_LOCK_EXCL) == 0) {
        if (atomic_compare_exchange_weak_explicit(&ctl->lock, &v, v + 1,
                                                  memory_order_acquire,
                                                  memory_order_relaxed)) {
            return 1;
        }
    }
    return 0;
}

static inline void gcm_win_lock_release(gcm_win_ctl_t *ctl, int type)
{
    if (type == MPI_LOCK_EXCLUSIVE) {
        atomic_store_explicit(&ctl->lock, 0, memory_order_release);
    } else {
        atomic_fetch_sub_explicit(&ctl->lock, 1, memory_order_release);
    }
}

/* ---- the window -------------------------------------------------------- */

enum { GCM_WIN_DIRECT = 1, GCM_WIN_CMA = 2, GCM_WIN_REMOTE = 3 };

/* What an origin knows of one target (rank of the window). */
typedef struct gcm_win_target {
    int              method;    /* GCM_WIN_DIRECT, _CMA, _REMOTE */
    char            *base;      /* DIRECT: here; else in the target */
    MPI_Aint         size;
    int              disp_unit;
    int              pid;
    int              proc;      /* world index */
    gcm_win_ctl_t   *ctl;       /* mapped here (DIRECT, CMA), else NULL */
    void            *map;       /* what we mapped of its memory, if any */
    size_t           maplen;
    void            *ctlmap;    /* its control block, if we mapped it */
    gcm_lco_rkey_t  *rkey;      /* REMOTE: UCX key of its memory, or NULL */
    /* This process's epoch towards it: the lock it holds (0, or
     * MPI_LOCK_*), operations by active message and by UCX since it was
     * last flushed. */
    int              lock;
    int              access_in;  /* in the access group of MPI_Win_start */
    atomic_int       nam;
    atomic_int       nucx;
    /* Messages of any kind sent to it but answers, since its last ACK:
     * MPI_Win_free makes sure they were handled there. */
    atomic_int       unacked;
    /* Set by the handler: POSTs of this rank not yet taken by a start,
     * COMPLETEs not yet taken by a wait, lock grants and flush
     * acknowledgements not yet taken by the waiting call. */
    atomic_int       posts;
    atomic_int       completes;
    atomic_int       grants;
    atomic_int       acks;
    atomic_int       ackerr;    /* error class the last ACK carried */
    /* As target: the first error an operation of this origin met since
     * its last flush (the next ACK carries it). */
    atomic_int       terr;
} gcm_win_target_t;

/* An operation waiting for its reply (REMOTE gets and fetching
 * accumulates), on the window's list. */
typedef struct gcm_win_op {
    gcm_list_t    elem;
    uint64_t      id;
    int           target;
    /* Where the reply's data goes: count elements of type at buf. */
    void         *buf;
    int           count;
    MPI_Datatype  type;
    size_t        nbytes;    /* data the reply must carry */
    atomic_int    done;
    int           err;       /* MPI error class of the reply */
    int           is_req;    /* a request's: its test frees it */
    int           detached;  /* the request is gone: free at the reply */
} gcm_win_op_t;

/* A send of the window not known to be complete, and what it holds. */
typedef struct gcm_win_send {
    gcm_request_h req;
    void         *tmp;
} gcm_win_send_t;

/* A lock request of a REMOTE origin that waits at its target. */
typedef struct gcm_win_lockreq {
    int origin;
    int type;
} gcm_win_lockreq_t;

/* An attached region of a dynamic window (this process's). */
typedef struct gcm_win_region {
    char    *base;
    MPI_Aint len;
} gcm_win_region_t;

struct gcm_mpi_win {
    uint32_t          magic;     /* GCM_MPI_MAGIC_WIN while alive */
    uint64_t          id;        /* handlers find the window by it */
    int               flavor;    /* MPI_WIN_FLAVOR_* */
    /* A private duplicate of the user's communicator: its LCO carries
     * the window's active messages, its collectives the window's
     * collective calls; errors go to the window, not to it. */
    MPI_Comm          comm;
    int               rank;      /* in comm (the LCO rank for LCOs) */
    int               size;
    /* This process's window memory. */
    void             *base;
    MPI_Aint          wsize;
    int               disp_unit;
    gcm_lco_seg_t    *seg;       /* allocate flavors: its segment */
    gcm_lco_seg_t    *ctlseg;
    gcm_win_ctl_t    *ctl;
    gcm_lco_rmem_t   *rmem;      /* registered for UCX, or NULL */
    void             *shmap;     /* allocate_shared: the node segment */
    size_t            shmaplen;
    gcm_win_target_t *t;         /* by rank */
    int               progressed; /* gcm_lco_keep_progressed on */
    /* Epochs (calling threads; MPI forbids concurrent synchronization
     * calls on one window). */
    int               fence;     /* a fence opened an access epoch */
    int               lock_all;
    int               nlocked;   /* targets locked with MPI_Win_lock */
    int              *access;    /* PSCW access group, as ranks */
    int               naccess;
    int               access_on;
    int              *expose;    /* PSCW exposure group */
    int               nexpose;
    int               expose_on;
    /* Shared with the handlers (mtx): operations awaiting replies, sends
     * to reap, lock requests queued here, and the handlers running. */
    pthread_mutex_t   mtx;
    gcm_list_t        ops;
    uint64_t          next_op;
    gcm_win_send_t   *sends;
    int               nsends;
    atomic_int        pending_sends;  /* nsends, read without the mutex */
    int               sends_cap;
    gcm_win_lockreq_t *lockq;
    int               nlockq;
    int               lockq_cap;
    int               lock_held;  /* as target: type held by a REMOTE
                                   * origin's grant, counted in ctl */
    atomic_int        hrefs;
    /* Bumped (release) by the handler after each operation it applied
     * here: the synchronization calls read it (acquire, gcm_win_observe),
     * so that what a handler wrote in another thread (the progress
     * thread) happens before what the program reads after them. The
     * other way too: every call on the window but the operations bumps
     * it (gcm_win_publish) and the handler reads it before it applies an
     * operation, so that what the program wrote before a synchronization
     * call happens before what a handler of another thread does after. */
    atomic_uint       applied;
    /* Dynamic windows: the regions attached here. */
    gcm_win_region_t *regions;
    int               nregions;
    /* What the user sees besides. */
    MPI_Errhandler    errh;
    MPI_Info          info;
    char              name[MPI_MAX_OBJECT_NAME];
    struct gcm_mpi_attr_list *attrs;
    MPI_Group         group;      /* made on first MPI_Win_get_group */
    /* The values of the predefined attributes (pointers to them are
     * what MPI_Win_get_attr returns). */
    MPI_Aint          attr_size;
    int               attr_disp_unit;
    int               attr_flavor;
    int               attr_model;
    gcm_list_t        elem;       /* the live windows (mpi_win_object.c) */
};

static inline void gcm_win_observe(struct gcm_mpi_win *win)
{
    (void)atomic_load_explicit(&win->applied, memory_order_acquire);
}

static inline void gcm_win_publish(struct gcm_mpi_win *win)
{
    atomic_fetch_add_explicit(&win->applied, 1, memory_order_release);
}

/* 0 if win is a live window, else raises MPI_ERR_WIN (on MPI_COMM_WORLD:
 * a dead handle has no handler) and returns it. gcm_mpi_win_check also
 * publishes what the program wrote before (gcm_win_publish): every call
 * on the window does but the operations themselves (put, get, the
 * accumulates), which order nothing and so stay off the atomic. */
int gcm_mpi_win_valid(MPI_Win win, const char *call) GCM_INTERNAL;
int gcm_mpi_win_check(MPI_Win win, const char *call) GCM_INTERNAL;
/* gcm_mpi_win_check, then MPI_ERR_ARG raised on win ("what is NULL") when
 * the pointer argument ptr is NULL. */
int gcm_mpi_win_check_ptr(MPI_Win win, const void *ptr, const char *what,
                          const char *call) GCM_INTERNAL;

/* The window of id, with a handler reference taken (NULL: freed); the
 * reference is dropped with gcm_mpi_win_unhold. MPI_Win_free waits for
 * the references to go. */
MPI_Win gcm_mpi_win_hold(uint64_t id) GCM_INTERNAL;
void gcm_mpi_win_unhold(MPI_Win win) GCM_INTERNAL;

/* Waits (progressing the window's endpoint and sleeping when nothing
 * moves) until done(arg). */
void gcm_mpi_win_wait(MPI_Win win, int (*done)(void *arg), void *arg)
    GCM_INTERNAL;
/* Waits for a lock word of shared memory, which no message announces:
 * tries, progresses, yields, then sleeps a little longer each round (up
 * to a millisecond), so that a wait never takes a core for long. */
void gcm_mpi_win_spin(MPI_Win win, int (*done)(void *arg), void *arg)
    GCM_INTERNAL;

/* ---- shared by the files of windows (mpi_win_*.c) ----------------------- */

/* The windows of the process (mpi_win_object.c): live ones, and dead
 * ones kept until MPI_Finalize. */
struct gcm_mpi_wins {
    pthread_mutex_t lock;
    int             init;
    gcm_list_t      live;
    gcm_list_t      dead;
    uint64_t        next_id;
};
extern struct gcm_mpi_wins gcm_mpi_wins GCM_INTERNAL;

/* With gcm_mpi_wins.lock held. */
void gcm_mpi_wins_init(void) GCM_INTERNAL;
/* The MPI_Alloc_mem segment holding [base, base + len), and base's offset
 * in it (NULL: none). */
gcm_lco_seg_t *gcm_mpi_win_allocmem_find(const void *base, size_t len,
                                         size_t *off_p) GCM_INTERNAL;
/* Releases what a made window holds (mpi_win_create.c). */
void gcm_mpi_win_release(MPI_Win win) GCM_INTERNAL;
/* Names the epochs still open (NULL: none). */
const char *gcm_mpi_win_open_epoch(MPI_Win win) GCM_INTERNAL;
/* The checks and the flush of the synchronization calls
 * (mpi_win_active.c). */
int gcm_mpi_win_check_rank(MPI_Win win, int rank, const char *call)
    GCM_INTERNAL;
int gcm_mpi_win_flush_all(MPI_Win win, const char *call) GCM_INTERNAL;
int gcm_mpi_win_check_assert(MPI_Win win, int assert, int allowed,
                             const char *what, const char *call)
    GCM_INTERNAL;

/* ---- the messages of REMOTE operations (mpi_rma_*.c) --------------------- */

/* The header of every window message; runs and data follow. */
typedef struct gcm_win_msg {
    uint32_t kind;
    int32_t  arg;        /* lock type, op id, or a reply's error class */
    uint64_t id;         /* operation id, returned in the reply */
    int64_t  disp;       /* byte offset in the window (dynamic: address) */
    uint64_t nbytes;     /* data bytes the operation moves */
    uint32_t nruns;      /* runs after the header (relative to disp) */
    uint32_t basic;      /* accumulates: the elements' basic kind */
} gcm_win_msg_t;

typedef struct gcm_win_run {
    int64_t off;
    int64_t len;
} gcm_win_run_t;

/* Runs of a target datatype: a few inline, more on the heap. */
typedef struct gcm_win_runs {
    gcm_win_run_t *run;
    int            n;
    int            cap;
    size_t         nbytes;
    gcm_win_run_t  inl[4];
} gcm_win_runs_t;

/* Reads the runs of an operation's message m (its header, copied out of
 * data, len bytes in all): 1 with them in *r (free r->run when it is not
 * r->inl), their total matching m->nbytes, and what follows them in
 * *rest, *restlen; 0 if malformed. The bytes are another process's: a
 * function of them alone (a fuzzer calls it). */
int gcm_mpi_win_msg_runs(const gcm_win_msg_t *m, const char *data,
                         size_t len, gcm_win_runs_t *r, const char **rest,
                         size_t *restlen) GCM_INTERNAL;
/* Does [disp + off, disp + off + len) of every run lie in [0, size)? */
int gcm_mpi_win_runs_inside(const gcm_win_runs_t *r, int64_t disp,
                            int64_t size) GCM_INTERNAL;
/* Does every run at disp (an address) lie in one region attached to a
 * dynamic window's control block? */
int gcm_mpi_win_runs_attached(gcm_win_ctl_t *ctl, const gcm_win_runs_t *r,
                              int64_t disp) GCM_INTERNAL;

/* Every message of a window uses this tag on the window's LCO. */
#define GCM_WIN_TAG 1

/* Operation kinds beyond the synchronization messages. */
enum {
    GCM_WIN_OP_PUT = 32,
    GCM_WIN_OP_GET,
    GCM_WIN_OP_ACC,       /* accumulate, no result */
    GCM_WIN_OP_GACC,      /* get_accumulate and fetch_and_op */
    GCM_WIN_OP_CAS,
    GCM_WIN_OP_REPLY      /* data (or an error) for a GET, GACC, CAS */
};

/* ---- shared by the files of operations (mpi_rma_*.c) --------------------- */

/* The runs of bytes that count elements of type cover (mpi_rma_runs.c),
 * and their release. */
int gcm_mpi_win_runs_of(MPI_Datatype type, int count, gcm_win_runs_t *r)
    GCM_INTERNAL;
void gcm_mpi_win_runs_free(gcm_win_runs_t *r) GCM_INTERNAL;
/* Applies in (op) to the runs r at base + disp, with the accumulate lock
 * held by the caller where the operation needs it; out (when not NULL)
 * receives what was there. CAS when cmp is not NULL. */
void gcm_mpi_win_apply(char *base, int64_t disp, const gcm_win_runs_t *r,
                       MPI_Op op, MPI_Datatype kind, size_t esize,
                       const char *in, const char *cmp, char *out)
    GCM_INTERNAL;
/* Sends len bytes at msg (malloc'd; the window frees it once sent) to
 * rank (mpi_rma_msg.c); a message of a header alone. */
int gcm_mpi_win_send(MPI_Win win, int rank, void *msg, size_t len)
    GCM_INTERNAL;
int gcm_mpi_win_send_hdr(MPI_Win win, int rank, uint32_t kind, int32_t arg,
                         uint64_t id) GCM_INTERNAL;
/* An operation awaiting its reply, on the window's list; dropped if the
 * reply never can come; a reply from target, delivered. */
gcm_win_op_t *gcm_mpi_win_op_new(MPI_Win win, int target, void *buf,
                                 int count, MPI_Datatype type,
                                 size_t nbytes) GCM_INTERNAL;
void gcm_mpi_win_op_drop(MPI_Win win, gcm_win_op_t *op) GCM_INTERNAL;
void gcm_mpi_win_reply_in(MPI_Win win, int from, const gcm_win_msg_t *m,
                          const char *data, size_t len) GCM_INTERNAL;

/* ---- mpi_rma_*.c ---------------------------------------------------------- */

/* The handler of the window's messages (arg: the window id). */
void gcm_mpi_win_handler(gcm_lco_h lco, int slot, int tag, const void *data,
                         size_t len, void *arg) GCM_INTERNAL;
/* Message kinds of the synchronization calls. */
enum {
    GCM_WIN_MSG_POST = 1,     /* exposure epoch open for the receiver */
    GCM_WIN_MSG_COMPLETE,     /* the sender's access epoch is over */
    GCM_WIN_MSG_LOCK,         /* arg: lock type */
    GCM_WIN_MSG_UNLOCK,       /* arg: lock type */
    GCM_WIN_MSG_GRANT,        /* the lock asked for is held */
    GCM_WIN_MSG_RETRY,        /* a lock was released: try queued ones */
    GCM_WIN_MSG_FLUSH,        /* answer when all before it are done */
    GCM_WIN_MSG_ACK,          /* the answer to FLUSH */
    GCM_WIN_MSG_SYNC_LAST
};
/* Sends a synchronization message to rank (never waits for it). */
int gcm_mpi_win_send_sync(MPI_Win win, int rank, int kind, int arg,
                          const char *call) GCM_INTERNAL;
/* Completes the operations this process started on rank (at the target
 * and here): waits for what active messages and UCX still do. */
int gcm_mpi_win_flush_target(MPI_Win win, int rank, const char *call)
    GCM_INTERNAL;
/* Makes sure every message this process sent to the window's members
 * was handled there (a FLUSH and its ACK where one may not have been):
 * MPI_Win_free, before its barrier, which may take other connections. */
int gcm_mpi_win_quiesce(MPI_Win win, const char *call) GCM_INTERNAL;
/* Frees the sends that are complete; with wait, waits for all first. */
void gcm_mpi_win_reap(MPI_Win win, int wait) GCM_INTERNAL;
/* As target: grants queued lock requests of REMOTE origins while the
 * lock word allows (after a release, or a RETRY). */
void gcm_mpi_win_grant_queued(MPI_Win win) GCM_INTERNAL;
/* Takes and drops the accumulate lock of a control block. */
void gcm_mpi_win_acc_lock(MPI_Win win, gcm_win_ctl_t *ctl) GCM_INTERNAL;
void gcm_mpi_win_acc_unlock(gcm_win_ctl_t *ctl) GCM_INTERNAL;

#endif /* GCM_MPI_WIN_H */
