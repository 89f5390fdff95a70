/*
 * compat/mpi_impl.h: what the files of compat/ share. Each family owns its
 * objects (mpi_type_*.c, mpi_op.c, mpi_group.c, ...); the others reach
 * them only through the functions declared here.
 */
#ifndef GCM_MPI_IMPL_H
#define GCM_MPI_IMPL_H

#include "coll/coll.h"
#include "compat/mpi.h"
#include "lco/lco.h"
#include "util/util.h"

#include <stdint.h>
#include <stdlib.h>

/* Every MPI_X is PMPI_X under a second (weak) name, so that profiling
 * tools can define MPI_X themselves and call PMPI_X. */
#define GCM_MPI_ALIAS(_name) \
    extern __typeof__(PMPI_##_name) MPI_##_name \
        __attribute__((weak, alias("PMPI_" #_name)));

#define GCM_MPIX_ALIAS(_name) \
    extern __typeof__(PMPIX_##_name) MPIX_##_name \
        __attribute__((weak, alias("PMPIX_" #_name)));

/* Object kinds, first field of every handle object, to reject garbage. */
#define GCM_MPI_MAGIC_TYPE  0x54595045u  /* "TYPE" */
#define GCM_MPI_MAGIC_OP    0x4f504f50u  /* "OPOP" */
#define GCM_MPI_MAGIC_GROUP 0x47525550u  /* "GRUP" */
#define GCM_MPI_MAGIC_COMM  0x434f4d4du  /* "COMM" */
#define GCM_MPI_MAGIC_FREED 0x46524545u  /* "FREE": freed, ops pending */
#define GCM_MPI_MAGIC_REQ   0x52455155u  /* "REQU" */
#define GCM_MPI_MAGIC_INFO  0x494e464fu  /* "INFO" */
#define GCM_MPI_MAGIC_ERRH  0x45525248u  /* "ERRH" */
#define GCM_MPI_MAGIC_MSG   0x4d534731u  /* "MSG1" */

/* ---- the memory of handle objects ------------------------------------
 *
 * Every object a handle points to comes from util/util_handle.c, with its
 * magic as its first field, so that a stale handle is refused and never
 * reaches a newer object (util_handle.c says how). A new kind of handle
 * (windows, sessions, files) takes its objects from gcm_mpi_handle_alloc,
 * checks its magic on every call, and on free either calls
 * gcm_mpi_handle_free (which clears the magic), or, while operations
 * still hold the object, sets GCM_MPI_MAGIC_FREED and frees it when the
 * last one lets go. A kind whose handles the library gives out more than
 * once (groups, error handlers) counts the user's handles apart from its
 * own references, and refuses a free beyond them. Requests recycle their
 * memory with a generation in the handle (mpi_request.c).
 */

void gcm_mpi_fint_forget(const void *handle) GCM_INTERNAL;

/* Zeroed memory for an object of size bytes (at most GCM_HANDLE_MAX), at
 * an address no other object of this process has had or will have; NULL
 * without memory. */
static inline void *gcm_mpi_handle_alloc(size_t size)
{
    return gcm_handle_alloc(size);
}

/* Frees such an object and forgets its Fortran integer (mpi_fint.c). */
static inline void gcm_mpi_handle_free(void *obj)
{
    if (obj != NULL) {
        gcm_mpi_fint_forget(obj);
        gcm_handle_free(obj);
    }
}

/* Handle conversion (mpi_fint.c). The integer of a live handle of kind
 * magic (made on first use; 0 for NULL, a freed handle or no memory); the
 * handle of an integer of that kind, or NULL; and, when a handle is freed,
 * forgetting its integer (gcm_mpi_handle_free does it for its objects; a
 * kind with memory of its own calls it). A new kind adds its
 * MPI_X_c2f/f2c pair with GCM_MPI_FINT_PAIR in mpi_fint.c. */
MPI_Fint gcm_mpi_fint_of(const void *handle, uint32_t magic) GCM_INTERNAL;
const void *gcm_mpi_fint_handle(MPI_Fint f, uint32_t magic) GCM_INTERNAL;

/* ---- communicators (mpi_comm_*.c) ----------------------------------------
 *
 * Every communicator is an LCO. Intracommunicators made by the library are
 * pattern LCOs (lco/lco.h): rank r is send slot r and receive slot r. An
 * intercommunicator is the same pattern over the remote group. An LCO the
 * user builds slot by slot (MPIX_Comm_create_local) is kind LCO: point-to-
 * point ranks are slot indices, and collectives run over its send slots
 * when they form a fully connected structure (prank: the slot that
 * targets this LCO itself).
 */
typedef enum {
    GCM_MPI_COMM_INTRA = 1,
    GCM_MPI_COMM_INTER = 2,
    GCM_MPI_COMM_LCO   = 3
} gcm_mpi_comm_kind_t;

struct gcm_mpi_attr_list;   /* mpi_attr.c */
struct gcm_mpi_topo;        /* mpi_topo_*.c */
struct gcm_mpi_coll_vfy;    /* mpi_coll_check.c */

struct gcm_mpi_comm {
    uint32_t        magic;       /* GCM_MPI_MAGIC_COMM while alive */
    int             kind;        /* gcm_mpi_comm_kind_t */
    int             predefined;  /* WORLD, SELF: never freed by the user */
    gcm_lco_h       lco;
    /* The process group (MPI_Comm_rank/size, MPI_Comm_group). */
    int             rank;
    int             size;
    int            *procs;       /* world index of each rank; NULL: r */
    MPI_Group       group;       /* made on first MPI_Comm_group */
    /* Intercommunicators: the remote group, and an intracommunicator
     * over the local group that their collectives use. */
    int             remote_size;
    int            *rprocs;
    MPI_Group       rgroup;
    MPI_Comm        local_comm;
    /* Ranks as point-to-point and collectives see them: for an LCO,
     * the slot targeting itself and the number of send slots; else
     * rank and size (remote size for sends of an intercommunicator). */
    int             prank;
    int             psize;
    /* An LCO communicator whose slots the library built (the thread
     * LCOs of MPIX_Comm_create_threads and duplicates made by names):
     * the calls that hand out names or change slots refuse it, as they
     * refuse every communicator the library made. Its receive slots are
     * as many as its send slots (psize) for ever: receives and probes
     * check their source against psize (gcm_mpi_fast_peer). */
    int             sealed;
    MPI_Errhandler  errh;
    MPI_Info        info;
    char            name[MPI_MAX_OBJECT_NAME];
    struct gcm_mpi_attr_list *attrs;
    struct gcm_mpi_topo      *topo;
    /* Collective calls on a communicator are made in the same order by
     * all members (MPI's rule), so each member numbers them alike: the
     * number picks the internal tag of that call's messages. */
    atomic_uint     coll_seq;
    /* Verification mode: the check a nonblocking collective call started
     * (mpi_coll_check.c), until the schedule that call makes takes it
     * (mpi_coll_run.c). */
    struct gcm_mpi_coll_vfy *coll_gate;
    /* MPI_Comm_create_group calls made on this communicator, per
     * (group, tag): see mpi_comm_create.c. */
    void           *cg_counts;
    /* What the collectives cache (mpi_coll_*.c): the node structure
     * (coll/), made by the first collective that can use it, and the
     * schedules of the last blocking calls, run again by calls with the
     * same arguments. One pointer: MPI_COMM_WORLD's size is part of the
     * ABI (programs hold a copy of the object). */
    struct gcm_mpi_coll_cache *coll_cache;
    /* One reference for the user's handle and one per request on the
     * communicator: MPI_Comm_free only drops the first, and operations
     * still pending complete normally (MPI-3.1 6.4.3); the last
     * reference frees the communicator. */
    atomic_int      refs;
};

/* MPI_Init: sets up MPI_COMM_WORLD and MPI_COMM_SELF. MPI_Finalize:
 * frees every communicator the program left. */
int gcm_mpi_comm_init_world(void) GCM_INTERNAL;
void gcm_mpi_comm_finalize(void) GCM_INTERNAL;
/* A new communicator object of kind around lco (which it then owns),
 * registered for MPI_Finalize; fields other than kind and lco are zero
 * but for errh (MPI_ERRORS_ARE_FATAL). NULL without memory. */
MPI_Comm gcm_mpi_comm_alloc(int kind, gcm_lco_h lco) GCM_INTERNAL;
/* Frees what MPI_Comm_free frees (without callbacks or checks). */
void gcm_mpi_comm_destroy(MPI_Comm comm) GCM_INTERNAL;
/* A request on comm takes a reference and drops it when freed (none on a
 * predefined one). Inline: every request on a communicator the program
 * made does both, and the calls cost more than the atomic. */
static inline void gcm_mpi_comm_ref(MPI_Comm comm)
{
    if ((comm != NULL) && !comm->predefined) {
        atomic_fetch_add_explicit(&comm->refs, 1, memory_order_relaxed);
    }
}
static inline void gcm_mpi_comm_unref(MPI_Comm comm)
{
    if ((comm != NULL) && !comm->predefined &&
        (atomic_fetch_sub_explicit(&comm->refs, 1, memory_order_acq_rel) ==
         1)) {
        gcm_mpi_comm_destroy(comm);
    }
}

/* 0 if comm is a live communicator, else raises MPI_ERR_COMM (on
 * MPI_COMM_WORLD) from call and returns the code. */
int gcm_mpi_comm_check(MPI_Comm comm, const char *call) GCM_INTERNAL;
/* gcm_mpi_comm_check, then MPI_ERR_ARG raised on comm ("what is NULL")
 * when the pointer argument ptr is NULL. */
int gcm_mpi_comm_check_ptr(MPI_Comm comm, const void *ptr, const char *what,
                           const char *call) GCM_INTERNAL;

/* World index of rank r of comm's local group, and of its remote group
 * (intercommunicators). */
static inline int gcm_mpi_comm_proc(MPI_Comm comm, int r)
{
    return (comm->procs != NULL) ? comm->procs[r] : r;
}
static inline int gcm_mpi_comm_rproc(MPI_Comm comm, int r)
{
    return (comm->rprocs != NULL) ? comm->rprocs[r] : r;
}

/*
 * Makes the intracommunicator of n processes (world indices procs[], in
 * rank order; this process is rank myrank) as a pattern LCO derived from
 * parent. Collective over ALL of parent's members, in the same order:
 * those not in the new group pass n = 0 and get MPI_COMM_NULL (they still
 * advance parent's derivation count so that identities stay in step).
 * The new communicator inherits parent's error handler; nothing else.
 */
int gcm_mpi_comm_derive(MPI_Comm parent, int n, const int procs[],
                        int myrank, const char *call, MPI_Comm *newcomm)
    GCM_INTERNAL;

/* A duplicate of comm (collective as MPI_Comm_dup) with its structure
 * and error handler only: no attributes, no topology, no name. */
int gcm_mpi_comm_dup_bare(MPI_Comm comm, const char *call, MPI_Comm *newcomm)
    GCM_INTERNAL;

/*
 * The intracommunicator of the n processes procs[] (this one rank
 * myrank) with an identity derived from parent's with key and count
 * alone: for calls only the group makes (MPI_Comm_create_group,
 * MPI_Comm_create_from_group), each member passing the same key and the
 * same count (how often that key was used before). Errors are raised on
 * errh_from, whose handler the new communicator takes.
 */
int gcm_mpi_comm_make_keyed(MPI_Comm parent, uint64_t key, uint32_t count,
                            int n, const int procs[], int myrank,
                            MPI_Comm errh_from, const char *call,
                            MPI_Comm *newcomm) GCM_INTERNAL;

/*
 * MPI_Comm_dup of an LCO communicator in which a process has several LCOs
 * (comm->size < comm->psize, as for MPIX_Comm_create_threads): a pattern
 * LCO cannot express it, so each member makes a new LCO on the endpoint
 * of its own and the names are gathered over comm (mpi_threads.c).
 * Collective over comm's LCOs.
 */
int gcm_mpi_lco_dup_by_names(MPI_Comm comm, const char *call,
                             MPI_Comm *newcomm) GCM_INTERNAL;


/* (color, key, old rank) of one member in MPI_Comm_split, and their
 * order in the new communicator (qsort): by key, then old rank. */
typedef struct gcm_mpi_split_entry {
    int64_t color;
    int     key;
    int     rank;
} gcm_mpi_split_entry_t;
int gcm_mpi_split_cmp(const void *a, const void *b) GCM_INTERNAL;

/* MPI_Comm_split and MPI_Comm_create on the intercommunicator comm
 * (mpi_inter.c), arguments checked: a new intercommunicator between the
 * members of each color (split), or between the parts of its two groups
 * that each group passes (create: nl world indices lprocs of the local
 * group, this process lrank or MPI_UNDEFINED). MPI_COMM_NULL where a
 * side is empty. Collective over both groups. */
int gcm_mpi_inter_split(MPI_Comm comm, int color, int key, const char *call,
                        MPI_Comm *newcomm) GCM_INTERNAL;
int gcm_mpi_inter_create(MPI_Comm comm, int nl, const int lprocs[],
                         int lrank, const char *call, MPI_Comm *newcomm)
    GCM_INTERNAL;

/* Internal tags from here up are not handed out by gcm_mpi_coll_tag:
 * protocols that need a fixed tag take theirs in this range (below it,
 * from GCM_COLL_TAG_GENERAL, are the generalized collective's). */
#define GCM_MPI_TAG_FIXED 0x70000000
_Static_assert(GCM_COLL_TAG_GENERAL + GCM_COLL_TAG_UB < GCM_MPI_TAG_FIXED,
               "the generalized collective's tags overlap the fixed ones");

/* Persistent collectives (MPI_Bcast_init and the others) keep one tag
 * for their lifetime, which may be long: they take theirs from this
 * range, numbered apart, so that the cycle of gcm_mpi_coll_tag below it
 * never meets them (MPI_Bcast_init and its kin are numbered by their own
 * counter, in the same order everywhere: mpi_coll_launch.c). */
#define GCM_MPI_TAG_PERSISTENT 0x60000000
_Static_assert(GCM_MPI_TAG_PERSISTENT > GCM_TAG_UB + 0x10000000 &&
               GCM_MPI_TAG_PERSISTENT < GCM_COLL_TAG_GENERAL,
               "the persistent collectives' tags are out of place");

/* Next internal tag for one collective call on comm (all members get the
 * same one for the same call). Tags above GCM_TAG_UB never match user
 * receives, not even MPI_ANY_TAG ones. */
int gcm_mpi_coll_tag(MPI_Comm comm) GCM_INTERNAL;

/* The tag gcm_mpi_coll_tag hands out when comm->coll_seq is seq:
 * sequence tags cycle below GCM_MPI_TAG_PERSISTENT (from there to
 * GCM_COLL_TAG_GENERAL, coll/coll.h, are the persistent collectives'
 * tags, then the native generalized collective's, then, from
 * GCM_MPI_TAG_FIXED, those of protocols with fixed tags, such as
 * MPI_Intercomm_create's leaders). */
static inline int gcm_mpi_coll_seq_tag(unsigned seq)
{
    return (int)((unsigned)GCM_TAG_UB + 1u +
                 seq % (unsigned)(GCM_MPI_TAG_PERSISTENT - GCM_TAG_UB - 1));
}

/* Frees what comm's collectives cached (mpi_coll_run.c). */
void gcm_mpi_coll_cache_free(MPI_Comm comm) GCM_INTERNAL;
/* The kept nonblocking schedules installed on comm each hold a
 * reference on it (mpi_coll_list.c). MPI_Comm_free calls
 * gcm_mpi_coll_comm_free before it drops the program's reference: the
 * idle ones are taken out and drop theirs; one a request still runs keeps
 * comm until a later MPI_Comm_free (of any communicator) or MPI_Finalize
 * finds it idle. gcm_mpi_coll_nb_uninstall takes out the idle ones only
 * (MPI_Comm_disconnect, waiting for comm's references to go); 1 while one
 * is still running. Both from a thread that may call collectives on comm
 * (MPI orders them). */
void gcm_mpi_coll_comm_free(MPI_Comm comm) GCM_INTERNAL;
int gcm_mpi_coll_nb_uninstall(MPI_Comm comm) GCM_INTERNAL;
/* MPI_Finalize, before it frees every communicator left: forgets those
 * waiting for their schedules (the frees take them all). */
void gcm_mpi_coll_lingering_clear(void) GCM_INTERNAL;

/* Raw byte transfers on comm's LCO by point-to-point rank (prank space;
 * for intercommunicators the remote rank), any tag >= 0. For the library's
 * own protocols (collectives, topologies, communicator creation). */
gcm_status_t gcm_mpi_isend_bytes(MPI_Comm comm, const void *buf, size_t len,
                                 int dest, int tag, gcm_request_h *req_p)
    GCM_INTERNAL;
gcm_status_t gcm_mpi_irecv_bytes(MPI_Comm comm, void *buf, size_t len,
                                 int source, int tag, gcm_request_h *req_p)
    GCM_INTERNAL;
/* Blocking forms, and a blocking exchange (send to dest, receive from
 * source, both at once). */
gcm_status_t gcm_mpi_send_bytes(MPI_Comm comm, const void *buf, size_t len,
                                int dest, int tag) GCM_INTERNAL;
gcm_status_t gcm_mpi_recv_bytes(MPI_Comm comm, void *buf, size_t len,
                                int source, int tag) GCM_INTERNAL;
gcm_status_t gcm_mpi_sendrecv_bytes(MPI_Comm comm, const void *sbuf,
                                    size_t slen, int dest, void *rbuf,
                                    size_t rlen, int source, int tag)
    GCM_INTERNAL;

/* The MPI error class of a native status (the one place it is mapped). */
int gcm_mpi_errclass(gcm_status_t status) GCM_INTERNAL;

/* Runs comm's error handler for code (raised by call with the text
 * gcm_mpi_raise kept) and returns code; MPI_ERRORS_ARE_FATAL ends the
 * job and does not return. */
int gcm_mpi_errh_invoke(MPI_Comm comm, int code) GCM_INTERNAL;
void gcm_mpi_errh_retain(MPI_Errhandler errh) GCM_INTERNAL;
void gcm_mpi_errh_release(MPI_Errhandler errh) GCM_INTERNAL;
/* The value of MPI_LASTUSEDCODE: the largest error code in use, which
 * grows as the program adds classes and codes (MPI_Add_error_class). */
const int *gcm_mpi_err_lastused(void) GCM_INTERNAL;

/* Ends the whole job with code, after printing msg (may be NULL). */
void gcm_mpi_abort_job(int code, const char *msg)
    __attribute__((noreturn)) GCM_INTERNAL;

/* MPI_Init and MPI_Session_init: the first start brings the layer up
 * (collective; errh, when not NULL, handles MPI_COMM_WORLD's errors
 * meanwhile), later ones count a user. MPI_Finalize and
 * MPI_Session_finalize: the last user ends it (collective). */
int gcm_mpi_layer_start(int *argc, char ***argv, MPI_Errhandler errh,
                        const char *call) GCM_INTERNAL;
int gcm_mpi_layer_stop(const char *call) GCM_INTERNAL;
/* MPI_Finalize: releases the windows the program left, freed windows and
 * MPI_Alloc_mem memory (mpi_win_object.c). */
void gcm_mpi_win_finalize(void) GCM_INTERNAL;

/* Is the MPI layer between MPI_Init and MPI_Finalize? If not, raises
 * MPI_ERR_OTHER from call (fatal: nothing else can run) and returns the
 * code; else 0. */
int gcm_mpi_check_init(const char *call) GCM_INTERNAL;

/* The layer's state (mpi_init.c): the calls run while it is
 * GCM_MPI_LAYER_UP. */
enum {
    GCM_MPI_LAYER_DOWN   = 0,
    GCM_MPI_LAYER_UP     = 1,
    GCM_MPI_LAYER_FAILED = 2,   /* its start failed */
    GCM_MPI_LAYER_ENDED  = 3
};
extern atomic_int gcm_mpi_layer GCM_INTERNAL;

/* gcm_mpi_check_init's test alone, for the fast paths (which take the
 * checked path when it fails). */
static inline int gcm_mpi_is_up(void)
{
    return atomic_load_explicit(&gcm_mpi_layer, memory_order_acquire) ==
           GCM_MPI_LAYER_UP;
}

/* ---- verification of collectives (mpi_coll_check.c) -----------------
 *
 * With GENCOMM_CHECK_COLLECTIVES=1 every intracommunicator collective
 * first checks, with one small exchange among its members, that they all
 * made the same call with matching arguments (docs/mpi.md). */

typedef enum {
    GCM_MPI_COLL_BARRIER = 1,
    GCM_MPI_COLL_BCAST,
    GCM_MPI_COLL_GATHER,
    GCM_MPI_COLL_GATHERV,
    GCM_MPI_COLL_SCATTER,
    GCM_MPI_COLL_SCATTERV,
    GCM_MPI_COLL_ALLGATHER,
    GCM_MPI_COLL_ALLGATHERV,
    GCM_MPI_COLL_ALLTOALL,
    GCM_MPI_COLL_ALLTOALLV,
    GCM_MPI_COLL_ALLTOALLW,
    GCM_MPI_COLL_REDUCE,
    GCM_MPI_COLL_ALLREDUCE,
    GCM_MPI_COLL_REDUCE_SCATTER,
    GCM_MPI_COLL_REDUCE_SCATTER_BLOCK,
    GCM_MPI_COLL_SCAN,
    GCM_MPI_COLL_EXSCAN,
    /* The neighbour collectives (mpi_topo_nbr.c): transfers along the
     * edges of the communicator's topology. */
    GCM_MPI_COLL_NEIGHBOR_ALLGATHER,
    GCM_MPI_COLL_NEIGHBOR_ALLGATHERV,
    GCM_MPI_COLL_NEIGHBOR_ALLTOALL,
    GCM_MPI_COLL_NEIGHBOR_ALLTOALLV,
    GCM_MPI_COLL_NEIGHBOR_ALLTOALLW,
    GCM_MPI_COLL_PERMUTE,    /* MPIX_Permute (mpi_redist.c) */
    GCM_MPI_COLL_LAST
} gcm_mpi_coll_kind_t;

/*
 * One member's view of a collective call: its arguments as the user gave
 * them. The send side (sbuf, scount or scounts[peer], stype or
 * stypes[peer]) and the receive side (r...) are those of the call; calls
 * with one buffer (bcast) or one count and type (the reductions) give
 * them as scount and stype, reduce_scatter its recvcounts as scounts.
 * Counts and types are read during the call (nonblocking calls: until the
 * request completes, as MPI requires of their arguments).
 */
typedef struct gcm_mpi_coll_desc {
    gcm_mpi_coll_kind_t kind;
    int                 nonblocking;  /* the MPI_I... form */
    int                 persistent;   /* the MPI_..._init form */
    int                 root;         /* rooted calls */
    MPI_Op              op;           /* reductions */
    const void         *sbuf;         /* MPI_IN_PLACE matters */
    int                 scount;
    const int          *scounts;      /* v, w forms: per peer */
    MPI_Datatype        stype;
    const MPI_Datatype *stypes;       /* w form: per peer */
    const void         *rbuf;
    int                 rcount;
    const int          *rcounts;
    MPI_Datatype        rtype;
    const MPI_Datatype *rtypes;
    /* Neighbour collectives: this member's edges, block k going to
     * nout[k] and coming from nin[k] (MPI_PROC_NULL: none); the counts
     * and types above are then per edge. ncart: a Cartesian topology
     * (its blocks go by direction). */
    int                 indeg;
    int                 outdeg;
    const int          *nin;
    const int          *nout;
    int                 ncart;
    /* MPIX_Permute: where this member sends (s side) and whence it
     * receives (r side), MPI_PROC_NULL for none. */
    int                 torank;
    int                 fromrank;
} gcm_mpi_coll_desc_t;

/* compat/'s settings (mpi_init.c). */
typedef struct gcm_mpi_config {
    unsigned check_collectives;  /* GENCOMM_CHECK_COLLECTIVES */
    const char *external;        /* GENCOMM_EXTERNAL (NULL: unset) */
    const char *name_dir;        /* GENCOMM_NAME_DIR (NULL: unset) */
    const char *graph_dir;       /* GENCOMM_GRAPH_DIR (mpi_graph.c) */
} gcm_mpi_config_t;

extern gcm_mpi_config_t gcm_mpi_config GCM_INTERNAL;

/* Is verification mode on? (A load and a branch: the entries ask first.) */
static inline int gcm_mpi_coll_checking(void)
{
    return gcm_mpi_config.check_collectives != 0;
}

/*
 * Checks the call desc describes against the other members' (collective
 * over comm; intercommunicators are not checked). Blocking calls: returns
 * MPI_SUCCESS, or raises the mismatch on comm under the name call (every
 * member the same error; persistent calls are checked so, at their
 * _init). Nonblocking calls: starts the check and leaves it on comm for
 * the schedule the call makes next (gcm_mpi_coll_start), which runs only
 * once the check has passed.
 */
int gcm_mpi_coll_verify(MPI_Comm comm, const char *call,
                        const gcm_mpi_coll_desc_t *desc) GCM_INTERNAL;

/* The line each collective entry has after its argument checks: builds
 * the descriptor only when verification mode is on. */
#define GCM_MPI_COLL_VERIFY(_comm, _call, ...) \
    (gcm_mpi_coll_checking() ? \
     gcm_mpi_coll_verify((_comm), (_call), \
                         &(const gcm_mpi_coll_desc_t){ __VA_ARGS__ }) : \
     MPI_SUCCESS)

/* A started check (gate of a schedule): advances it without blocking;
 * returns 0 while it runs, else 1 with *errclass_p MPI_SUCCESS or the
 * class of the mismatch, and *text_p (when failed) a malloc'd text
 * naming the call and the mismatch, or NULL without memory. */
int gcm_mpi_coll_gate_poll(struct gcm_mpi_coll_vfy *gate, int *errclass_p,
                           char **text_p) GCM_INTERNAL;
/* Ends a check (waiting for its transfers) and frees it. */
void gcm_mpi_coll_gate_free(struct gcm_mpi_coll_vfy *gate) GCM_INTERNAL;

/* ---- requests (mpi_request.c) ----------------------------------------
 *
 * The request object is gcm_mpi_req_t; the MPI_Request the user holds is
 * its address with the object's generation in the top 16 bits (request
 * memory is recycled at message rate, and every recycling bumps the
 * generation, so a stale copy of a freed request never reaches the
 * request that reuses its memory). gcm_mpi_req_handle makes the handle,
 * gcm_mpi_req_get checks and opens one. Everything inside the library
 * works on objects: MPI_Request is an incomplete type, so that a handle
 * used as an object does not compile.
 */

typedef enum {
    GCM_MPI_REQ_SEND    = 1,  /* native send (all modes) */
    GCM_MPI_REQ_RECV    = 2,  /* native receive */
    GCM_MPI_REQ_DONE    = 3,  /* complete at start (MPI_PROC_NULL) */
    GCM_MPI_REQ_GENERIC = 4,  /* a schedule advanced by poll() */
    GCM_MPI_REQ_GREQ    = 5   /* generalized request (mpi_grequest.c) */
} gcm_mpi_req_kind_t;

typedef struct gcm_mpi_request gcm_mpi_req_t;

/* Advances a generic request without blocking; returns 1 once it is
 * complete (with req->status filled), else 0. */
typedef int (*gcm_mpi_req_poll_func_t)(gcm_mpi_req_t *req);

struct gcm_mpi_request {
    uint32_t         magic;
    uint16_t         gen;         /* bumped each time the object is freed */
    uint8_t          has_fint;    /* MPI_Request_c2f gave it an integer */
    /* The object belongs to its state, which uses it again for its next
     * request (gcm_mpi_req_generic_kept): released, it goes back there
     * through cleanup rather than to the allocator. Which state
     * (GCM_MPI_REQ_KEPT_*, compat/mpi_req_kept.h) picks the wait that
     * runs and releases it in one pass; 0: not kept. */
    uint8_t          kept;
    int              kind;        /* gcm_mpi_req_kind_t */
    int              persistent;  /* Send_init, Recv_init */
    int              active;      /* started and not yet completed */
    int              complete;    /* status is final */
    int              freed;       /* MPI_Request_free while active */
    int              cancelled;
    /* A kept request whose state holds comm for it (a nonblocking
     * collective run by the schedule installed on comm, which keeps a
     * reference of its own): it took none, and drops none. */
    int              borrowed;
    MPI_Comm         comm;
    gcm_request_h    native;
    MPI_Status       status;
    /* The user's buffer and its type; tmp holds packed data when the
     * layout is not contiguous (or the buffered-send copy). */
    void            *buf;
    int              count;
    MPI_Datatype     datatype;
    void            *tmp;
    size_t           tmplen;
    int              tmp_is_bsend; /* tmp lives in the attached buffer */
    int              peer;
    int              tag;
    int              mode;        /* 'S'tandard, s'Y'nc, 'B'uffered, 'R' */
    /* generic requests */
    gcm_mpi_req_poll_func_t poll;
    void           (*cleanup)(void *state);
    void            *state;
    /* Persistent generic requests (collectives): MPI_Start runs it. */
    int            (*start)(gcm_mpi_req_t *req);
    /* Generic requests that can block until complete (collectives: their
     * schedule run as the blocking call runs it); 1 once complete, 0 when
     * it cannot block now (gcm_mpi_req_wait then polls). NULL: poll. */
    int            (*wait)(gcm_mpi_req_t *req);
    /* Why it failed, when the request knows (malloc'd; NULL: the native
     * layer's last error says). */
    char            *errtext;
    gcm_mpi_req_t   *next_free;   /* the cache's link */
    /* Where a fast-path receive that must wait runs (gcm_lco_irecv_rec):
     * one request object per message, not two. Not cleared with the rest
     * (the receive readies what it uses); taken before the MPI request is
     * freed. */
    struct gcm_request nstore;
};

/* The handle the user gets for req. */
static inline MPI_Request gcm_mpi_req_handle(const gcm_mpi_req_t *req)
{
    return (MPI_Request)gcm_handle_tag(req, req->gen);
}

/* The object of a handle already checked with gcm_mpi_req_get (or made
 * by the library): no checks. */
static inline gcm_mpi_req_t *gcm_mpi_req_of(MPI_Request handle)
{
    return gcm_handle_untag((uintptr_t)handle);
}

/* The live request a handle names, or NULL: MPI_REQUEST_NULL, a freed
 * request (stale handle: its generation moved on), or no request at all
 * (never read outside request memory). */
gcm_mpi_req_t *gcm_mpi_req_get(MPI_Request handle) GCM_INTERNAL;
/* The object of the last kept request this thread handed out (a
 * nonblocking collective's, usually waited next): request memory for
 * ever, so a handle naming it needs no look for its chunk. */
extern __thread const gcm_mpi_req_t *gcm_mpi_req_recent GCM_TLS_HOT
    GCM_INTERNAL;
/* gcm_mpi_req_get, inline, for a handle of that request only: NULL for
 * any other handle (the caller then asks gcm_mpi_req_get). */
static inline gcm_mpi_req_t *gcm_mpi_req_get_recent(MPI_Request handle)
{
    gcm_mpi_req_t *req = gcm_mpi_req_of(handle);

    if ((req != NULL) && (req == gcm_mpi_req_recent) &&
        (req->magic == GCM_MPI_MAGIC_REQ) &&
        (req->gen == gcm_handle_gen((uintptr_t)handle))) {
        return req;
    }
    return NULL;
}

/* A zeroed request object (NULL without memory), from the calling
 * thread's cache of freed ones when it has one; gcm_mpi_req_free puts one
 * back (cleared there, its generation bumped). */
gcm_mpi_req_t *gcm_mpi_req_alloc(void) GCM_INTERNAL;
void gcm_mpi_req_free(gcm_mpi_req_t *req) GCM_INTERNAL;
/* MPI_Finalize, last: returns the calling thread's cached objects (other
 * threads' go back when they exit). */
void gcm_mpi_req_cache_flush(void) GCM_INTERNAL;
/* What every request of a generic object sets: live, active, not
 * complete, on comm (which it holds; inline, the reference of a
 * communicator the program made, none on a predefined one). */
static inline void gcm_mpi_req_generic_live(gcm_mpi_req_t *req,
                                            MPI_Comm comm)
{
    if ((comm != MPI_COMM_NULL) && !comm->predefined) {
        gcm_mpi_comm_ref(comm);
    }
    req->magic    = GCM_MPI_MAGIC_REQ;
    req->active   = 1;
    req->complete = 0;
    req->comm     = comm;
}
/* A generic request on comm: poll(req) advances it, cleanup(state) runs
 * when it is freed. *req_p is the user's handle. */
int gcm_mpi_req_generic(MPI_Comm comm, gcm_mpi_req_poll_func_t poll,
                        void (*cleanup)(void *state), void *state,
                        MPI_Request *req_p) GCM_INTERNAL;
/* The same in the object *kept_p, which state keeps between its requests
 * (allocated here on first use): it is not cleared, since its release
 * left it as this sets it up (only poll, cleanup and state change), and
 * its release hands it back to state through cleanup, as the very last
 * step, rather than to the allocator. state frees it with
 * gcm_mpi_req_free when it is done with it. */
int gcm_mpi_req_generic_kept(gcm_mpi_req_t **kept_p, MPI_Comm comm,
                             gcm_mpi_req_poll_func_t poll,
                             void (*cleanup)(void *state), void *state,
                             MPI_Request *req_p) GCM_INTERNAL;
/* The next request of a kept object that gcm_mpi_req_generic_kept set
 * up before, on comm: its poll, cleanup and state are still its own (its
 * release touched nothing else and left it as a new request has them),
 * so only what a request's life changes is set; its status is left for
 * its poll to write when it completes (nothing reads it before). Returns
 * the user's handle. */
static inline MPI_Request gcm_mpi_req_generic_again(gcm_mpi_req_t *req,
                                                    MPI_Comm comm)
{
    gcm_mpi_req_generic_live(req, comm);
    gcm_mpi_req_recent = req;
    return gcm_mpi_req_handle(req);
}
/* The same for a state that holds a reference on comm for as long as its
 * requests run (req->borrowed): no reference taken, none dropped at its
 * release (one locked instruction fewer each). */
static inline MPI_Request gcm_mpi_req_generic_again_held(gcm_mpi_req_t *req,
                                                         MPI_Comm comm)
{
    req->magic    = GCM_MPI_MAGIC_REQ;
    req->active   = 1;
    req->complete = 0;
    req->comm     = comm;
    req->borrowed = 1;
    gcm_mpi_req_recent = req;
    return gcm_mpi_req_handle(req);
}
/* Is it complete? Advances it (never blocks). */
int gcm_mpi_req_test(gcm_mpi_req_t *req) GCM_INTERNAL;
/* Is it complete? Looks without advancing anything; completes it (status
 * filled, native request freed) when its native request is done. */
int gcm_mpi_req_check_now(gcm_mpi_req_t *req) GCM_INTERNAL;
/* Blocks until complete (sleeps when nothing moves). */
void gcm_mpi_req_wait(gcm_mpi_req_t *req) GCM_INTERNAL;
/* For a complete request: copies its status out (but for MPI_ERROR, as
 * gcm_mpi_status_set), frees it (or makes a persistent one inactive);
 * *req_p (the user's handle, may be NULL) becomes MPI_REQUEST_NULL when it
 * is freed. Returns its MPI_ERROR. */
int gcm_mpi_req_finish(gcm_mpi_req_t *req, MPI_Request *req_p,
                       MPI_Status *status) GCM_INTERNAL;

/* A send or receive request whose native transfer ended with status
 * (info: its native status) becomes complete: the MPI status, the
 * failure's text, a temporary unpacked into the user's buffer. */
void gcm_mpi_req_result(gcm_mpi_req_t *req, gcm_status_t status,
                        const gcm_msg_status_t *info) GCM_INTERNAL;

/* Frees a request object: its check, text, state (cleanup), temporary
 * and the reference on its communicator. */
void gcm_mpi_req_release(gcm_mpi_req_t *req) GCM_INTERNAL;

/* The user's handle dies: a stale copy of it (and its Fortran integer)
 * no longer names the request. */
static inline void gcm_mpi_req_kill_handle(gcm_mpi_req_t *req)
{
    if (req->has_fint) {
        gcm_mpi_fint_forget((const void *)gcm_mpi_req_handle(req));
        req->has_fint = 0;
    }
    req->gen++;
}

/* Between mpi_request.c (request objects, cancel, free) and mpi_wait.c
 * (the wait and test calls). */

/* More of them: compat/mpi_req_impl.h. */
/* Progresses the endpoint of each active request's communicator once. */
void gcm_mpi_reqs_progress(int count, MPI_Request reqs[]) GCM_INTERNAL;
/* Reaps orphaned requests (freed while running) that have completed;
 * wait (MPI_Finalize): cancels the receives among them and waits for
 * each first. */
void gcm_mpi_orphans_reap(int wait) GCM_INTERNAL;
/* The number of orphaned requests (a hint, read without their lock). */
extern atomic_int gcm_mpi_orphans_count GCM_INTERNAL;
/* gcm_mpi_orphans_reap(0) where there may be orphans (inline: the wait
 * of a collective waited at once reaps at each call, nearly always
 * nothing). */
static inline void gcm_mpi_orphans_reap_any(void)
{
    if (gcm_unlikely(atomic_load_explicit(&gcm_mpi_orphans_count,
                                          memory_order_relaxed) != 0)) {
        gcm_mpi_orphans_reap(0);
    }
}
/* Refuses a handle that is no live request: freed (a stale copy), or
 * never one (MPI_ERR_REQUEST naming call and what). */
int gcm_mpi_req_bad(const char *call, const char *what) GCM_INTERNAL;
/* The empty status of a single-completion call (MPI_ERROR left alone). */
void gcm_mpi_status_empty_single(MPI_Status *status) GCM_INTERNAL;

/* MPI_Finalize: completes requests freed while running. */
void gcm_mpi_requests_finalize(void) GCM_INTERNAL;
/* MPI_Finalize: waits for buffered sends still in flight. */
void gcm_mpi_bsend_drain(void) GCM_INTERNAL;

/* Fills status for an empty or MPI_PROC_NULL completion. */
void gcm_mpi_status_empty(MPI_Status *status) GCM_INTERNAL;
/* What a single-completion call (MPI_Recv, MPI_Wait, MPI_Test, the
 * probes, ...) hands out in status (may be MPI_STATUS_IGNORE): src, but
 * MPI_ERROR stays as the caller had it (MPI-3.1 3.2.5: only the calls
 * that can return MPI_ERR_IN_STATUS set it). */
void gcm_mpi_status_set(MPI_Status *status, const MPI_Status *src)
    GCM_INTERNAL;

/* ---- attributes (mpi_attr.c) and topologies (mpi_topo_*.c) -----------
 * Hooks the communicator family calls. */

/* MPI_Comm_dup: copies attributes by their copy callbacks. */
int gcm_mpi_attr_copy(MPI_Comm oldcomm, MPI_Comm newcomm) GCM_INTERNAL;
/* MPI_Comm_free: runs the delete callbacks, frees the list. */
int gcm_mpi_attr_delete_all(MPI_Comm comm) GCM_INTERNAL;

/* Attributes on any kind of object: a host is the object's kind, its
 * handle (what callbacks and error handlers get) and its list. Keyvals
 * belong to one kind. Errors are raised on the object (a datatype's on
 * MPI_COMM_WORLD). Predefined keys are the caller's to answer. */
typedef enum {
    GCM_MPI_ATTR_COMM = 1,
    GCM_MPI_ATTR_WIN  = 2,
    GCM_MPI_ATTR_TYPE = 3
} gcm_mpi_attr_kind_t;

typedef struct gcm_mpi_attr_host {
    gcm_mpi_attr_kind_t        kind;
    void                      *handle;
    struct gcm_mpi_attr_list **attrs;
} gcm_mpi_attr_host_t;

/* copy_fn and delete_fn are of the kind's callback types (cast to a
 * generic function pointer); NULL for none. */
int gcm_mpi_attr_keyval_create(gcm_mpi_attr_kind_t kind,
                               void (*copy_fn)(void),
                               void (*delete_fn)(void), int *keyval,
                               void *extra_state, const char *call)
    GCM_INTERNAL;
int gcm_mpi_attr_keyval_free(gcm_mpi_attr_kind_t kind, int *keyval,
                             const char *call) GCM_INTERNAL;
int gcm_mpi_attr_set(const gcm_mpi_attr_host_t *h, int keyval, void *value,
                     const char *call) GCM_INTERNAL;
int gcm_mpi_attr_get(const gcm_mpi_attr_host_t *h, int keyval,
                     void *attribute_val, int *flag, const char *call)
    GCM_INTERNAL;
int gcm_mpi_attr_delete(const gcm_mpi_attr_host_t *h, int keyval,
                        const char *call) GCM_INTERNAL;
/* Copies every attribute of old to new by the copy callbacks; on an
 * error new keeps none (their delete callbacks ran). */
int gcm_mpi_attr_copy_all(const gcm_mpi_attr_host_t *old,
                          const gcm_mpi_attr_host_t *new) GCM_INTERNAL;
/* Deletes every attribute, newest first; stops at the first callback
 * that fails and returns its code (that attribute and older ones
 * stay). */
int gcm_mpi_attr_delete_every(const gcm_mpi_attr_host_t *h) GCM_INTERNAL;
/* MPI_Comm_dup: copies the topology. */
int gcm_mpi_topo_copy(MPI_Comm oldcomm, MPI_Comm newcomm) GCM_INTERNAL;
void gcm_mpi_topo_free(MPI_Comm comm) GCM_INTERNAL;

/* ---- dynamic processes (mpi_dpm_*.c, mpi_names.c, mpi_spawn.c) */
/* MPI_Finalize: closes the ports left open, unpublishes the names this
 * process published, ends what connects that gave up left pending. */
void gcm_mpi_dpm_finalize(void) GCM_INTERNAL;
void gcm_mpi_names_finalize(void) GCM_INTERNAL;
/* MPI_Comm_accept (checks done) that gives up after timeout seconds (0:
 * never) with MPI_ERR_SPAWN raised on comm: spawn waits for its
 * children's connect so. */
int gcm_mpi_dpm_accept(const char *port_name, double timeout, int root,
                       MPI_Comm comm, const char *call, MPI_Comm *newcomm)
    GCM_INTERNAL;
/* The checks of connect, accept and spawn: initialized, comm an
 * intracommunicator, root one of its ranks, the result argument (named
 * what) not NULL, info valid or MPI_INFO_NULL. */
int gcm_mpi_dpm_check(const char *call, MPI_Info info, int root,
                      MPI_Comm comm, MPI_Comm *newcomm, const char *what)
    GCM_INTERNAL;
/* MPI_Comm_connect (checks done) giving up after timeout seconds. */
int gcm_mpi_dpm_connect(const char *port_name, double timeout, int root,
                        MPI_Comm comm, const char *call, MPI_Comm *newcomm)
    GCM_INTERNAL;
/* The parent of this job (MPI_Comm_get_parent) is being freed. */
void gcm_mpi_spawn_forget(MPI_Comm comm) GCM_INTERNAL;
/* MPI_Init of a spawned job: connects to its parents. */
int gcm_mpi_spawn_init(void) GCM_INTERNAL;

/* ---- info (mpi_info.c) */
int gcm_mpi_info_check(MPI_Info info) GCM_INTERNAL;  /* 0 or MPI_ERR_INFO */
/* The info hints an object holds (MPI_X_set_info, MPI_X_get_info): a
 * copy of info replaces *held; a new info object the caller frees with
 * the hints held (an empty one when none). MPI_SUCCESS or the class of
 * the failure, not raised. */
int gcm_mpi_info_replace(MPI_Info *held, MPI_Info info) GCM_INTERNAL;
int gcm_mpi_info_hand_out(MPI_Info held, MPI_Info *info_used) GCM_INTERNAL;
void gcm_mpi_info_env_init(int argc, char **argv) GCM_INTERNAL;

/*
 * Reports an error of class errclass found by call (e.g. "MPI_Type_vector")
 * for the reason fmt, on communicator comm (NULL: not tied to one, raised
 * on MPI_COMM_WORLD as MPI-3 says). Returns the error code to hand back to
 * the caller under MPI_ERRORS_RETURN. The text is kept for
 * MPI_Error_string and for the fatal handler's message.
 */
int gcm_mpi_raise(MPI_Comm comm, int errclass, const char *call,
                  const char *fmt, ...)
    __attribute__((format(printf, 4, 5))) GCM_INTERNAL;
/* The same on an object that is no communicator (a session): errh runs,
 * its fatal message naming label; a user handler gets handle. */
int gcm_mpi_raise_on(MPI_Errhandler errh, const char *label, void *handle,
                     int errclass, const char *call, const char *fmt, ...)
    __attribute__((format(printf, 6, 7))) GCM_INTERNAL;
/* Hands code, raised before with its text, on to errh (as
 * gcm_mpi_raise_on does). */
int gcm_mpi_errh_pass(MPI_Errhandler errh, const char *label, void *handle,
                      int code) GCM_INTERNAL;
/* MPI_SUCCESS for a live error handler, else MPI_ERR_ARG. */
int gcm_mpi_errh_check(MPI_Errhandler errh) GCM_INTERNAL;
/* gcm_mpi_raise on a window (mpi_errors.c): its error handler runs. */
int gcm_mpi_win_raise(MPI_Win win, int errclass, const char *call,
                      const char *fmt, ...)
    __attribute__((format(printf, 4, 5))) GCM_INTERNAL;
/* Raises a failed native call's status: its class, and the reason "what:
 * <the native layer's last error>". */
int gcm_mpi_raise_native(MPI_Comm comm, gcm_status_t status,
                         const char *call, const char *what) GCM_INTERNAL;

/* ---- communicators drawn as Graphviz DOT (mpi_graph.c) ------------------ */

/* Under GENCOMM_GRAPH_DIR, draws comm, just made (MPI_COMM_NULL: nothing),
 * into that folder; collective over comm, as the call that made it. A
 * failure is a warning on stderr, never the call's error. */
void gcm_mpi_graph_auto(MPI_Comm comm) GCM_INTERNAL;

/* ---- datatypes and reduction operations: compat/mpi_type_op.h */
#include "compat/mpi_type_op.h"

/* ---- groups (mpi_group.c) */

/*
 * A group counts references (every holder, communicators and the user's
 * handles) and, apart, the user's handles (what MPI_Group_free may free;
 * a handle the user no longer has is refused by every MPI_Group call).
 */

/* A group of n processes (world process indices, in rank order); myproc
 * is this process's index, to find its rank. The caller holds one
 * reference, which is a user handle: give *group_p to the user as it is,
 * or, to keep it internally (a cache), call gcm_mpi_group_handles_add(g,
 * -1) first. */
int gcm_mpi_group_create(int n, const int procs[], int myproc,
                         MPI_Group *group_p) GCM_INTERNAL;
/* MPI_SUCCESS if group is a handle the user may use, else MPI_ERR_GROUP. */
int gcm_mpi_group_check(MPI_Group group) GCM_INTERNAL;
/* The world process index of rank r of group. */
int gcm_mpi_group_proc(MPI_Group group, int rank) GCM_INTERNAL;
/* Takes an internal reference. */
void gcm_mpi_group_retain(MPI_Group group) GCM_INTERNAL;
/* Turns delta references the caller holds into user handles (delta 1:
 * handing out a cached group, after gcm_mpi_group_retain) or user handles
 * into internal references (-1). */
void gcm_mpi_group_handles_add(MPI_Group group, int delta) GCM_INTERNAL;
/* Drops a reference (no-op for the predefined empty group); the last one
 * frees the group. */
void gcm_mpi_group_release(MPI_Group group) GCM_INTERNAL;
/* MPI_IDENT, MPI_SIMILAR or MPI_UNEQUAL, of two live groups (no checks). */
int gcm_mpi_group_compare(MPI_Group group1, MPI_Group group2) GCM_INTERNAL;

/* ---- hierarchy (mpi_hier.c) */

/* MPI_Init, once MPI is running: exchanges the hierarchy keys over the
 * world and builds the MPIX_Comm_node communicators. Collective. */
int gcm_mpi_hier_init(void) GCM_INTERNAL;
/* MPI_Finalize, before the communicators are freed: the node
 * communicators become ordinary ones, which the teardown then frees. */
void gcm_mpi_hier_finalize(void) GCM_INTERNAL;
/* The host of world process proc as a key (equal keys: same host) in
 * *key_p (may be NULL); 0, or -1 before the hierarchy exists. */
int gcm_mpi_hier_host(int proc, uint64_t *key_p) GCM_INTERNAL;
/* The hierarchy as a topology mapping target (lco/lco_map.h): for each
 * of the n world processes procs[], its key at every level between the
 * world and the single processes (the cluster when kept, the host, then
 * the hardware levels kept), outermost first, in keys[i * *nlevels_p +
 * l]; keys holds n * GCM_MPI_HIER_LEVELS_MAX. 0, or -1 before the
 * hierarchy exists or for a process index out of range. */
#define GCM_MPI_HIER_LEVELS_MAX 8
int gcm_mpi_hier_target(int n, const int procs[], uint64_t *keys,
                        int *nlevels_p) GCM_INTERNAL;
/* The value of predefined attribute MPIX_DEPTH or MPIX_MAX_DEPTH (NULL
 * before the hierarchy exists). */
const int *gcm_mpi_hier_attr(int keyval) GCM_INTERNAL;
/* MPI_Comm_split_type, MPI_COMM_TYPE_HW_GUIDED or _HW_UNGUIDED on the
 * intracommunicator comm: this process's color (MPI_UNDEFINED for
 * MPI_COMM_NULL) and the resource's name (mpi_hw_resource_type of the
 * result; NULL with MPI_UNDEFINED). 0 or an MPI error class. */
int gcm_mpi_hier_split_color(MPI_Comm comm, int split_type, MPI_Info info,
                             int64_t *color, const char **resource)
    GCM_INTERNAL;

/* ---- external communicators (mpi_external.c) and intercommunicators
 * between known groups (mpi_inter.c) */

/* MPI_Init (and the first MPI_Session_init): reads the file
 * GENCOMM_EXTERNAL names, checks with one allgather that every process
 * read the same, gathers the processor names, and sets MPI_COMM_WORLD's
 * external attributes. Collective over the world. */
int gcm_mpi_ext_init(const char *call) GCM_INTERNAL;
/* MPI_Finalize, before the communicators are freed. */
void gcm_mpi_ext_finalize(void) GCM_INTERNAL;

/* The external process sets (mpix://external/NAME, mpi_session.c): how
 * many, the i-th NAME; the members of one in order (0 with *procs_p
 * malloc'd, 1 when there is no such set, -1 with why when its definition
 * or the file is broken); the <info> entries that apply to this process
 * added to info; and MPI_Comm_create_from_group's completion of *comm
 * when it was made from that set's group in its order (the topology,
 * which may replace *comm, the name, attributes and info). */
int gcm_mpi_ext_pset_count(void) GCM_INTERNAL;
const char *gcm_mpi_ext_pset_name(int i) GCM_INTERNAL;
int gcm_mpi_ext_pset_members(const char *name, int **procs_p, int *n_p,
                             char *why, size_t whylen) GCM_INTERNAL;
int gcm_mpi_ext_pset_info(const char *name, MPI_Info info) GCM_INTERNAL;
int gcm_mpi_ext_pset_attach(const char *name, MPI_Comm *comm,
                            const char *call) GCM_INTERNAL;

/*
 * The intercommunicator between nl processes (lprocs, world indices in
 * rank order; this process is lrank) and nr others (rprocs), or
 * MPI_COMM_NULL for a process in neither (it passes nl = 0). Collective
 * over all of comm's members, in the same order: each derives the new
 * identity from comm's once and a local communicator from local_parent's
 * (comm's own local one for an intercommunicator; comm itself for the
 * external ones, whose members all know both groups). No message is
 * sent. Errors are raised on comm, whose handler the result takes.
 */
int gcm_mpi_inter_make(MPI_Comm comm, MPI_Comm local_parent, int nl,
                       const int lprocs[], int lrank, int nr,
                       const int rprocs[], const char *call,
                       MPI_Comm *newcomm) GCM_INTERNAL;

#endif /* GCM_MPI_IMPL_H */
