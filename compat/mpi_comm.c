/*
 * compat/mpi_comm.c: communicators as LCO graphs (MPI-3.1 chapter 6).
 *
 * MPI_COMM_WORLD is the world LCO. Every intracommunicator the library
 * makes (dup, split, create, create_group, split_type) is a pattern LCO
 * (lco/lco.h): fully connected over its group, stored as the group alone,
 * with an identity every member derives from the parent without a message.
 * So MPI_Comm_dup sends nothing and costs the same at any process count.
 * split and split_type exchange (color, key) once (MPI_Allgather);
 * create and create_group need nothing but the group the caller passes.
 *
 * Each of them lives on an endpoint given by its home key, which every
 * member derives with the identity (gcm_lco_derive_id_homed): children of
 * the world go to endpoints 1, 2, ... in the order they are made, so "one
 * communicator per thread" (MPI_Comm_dup T times, one thread each) gives
 * every thread a channel with locks, queues and rings of its own, with no
 * code change; a communicator's first child stays on its endpoint.
 * MPI_COMM_WORLD, MPI_COMM_SELF and intercommunicators live on endpoint 0.
 */
#include "config.h"

#include "boot/boot.h"
#include "compat/mpi_impl.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct gcm_mpi_comm gcm_mpi_comm_world;
struct gcm_mpi_comm gcm_mpi_comm_self;

/*
 * The communicator objects the library makes, in handle memory
 * (util/util_handle.c): a call on a freed handle reads a dead object and
 * reports MPI_ERR_COMM, and no later communicator ever has the freed
 * one's address. The live ones are on a list, for MPI_Finalize to free
 * what the program left.
 */
typedef struct gcm_mpi_comm_block {
    struct gcm_mpi_comm        comm;       /* first: the handle's address */
    struct gcm_mpi_comm_block *next;       /* live list */
    struct gcm_mpi_comm_block *prev;
} gcm_mpi_comm_block_t;

_Static_assert(sizeof(gcm_mpi_comm_block_t) <= GCM_HANDLE_MAX,
               "a communicator is too large for handle memory");

static struct {
    pthread_mutex_t       lock;
    gcm_mpi_comm_block_t *live;
} gcm_mpi_comms = { PTHREAD_MUTEX_INITIALIZER, NULL };

/* MPI_Comm_create_group counts per (group, tag), see there. */
typedef struct gcm_mpi_cg_count {
    uint64_t                 key;
    uint32_t                 count;
    struct gcm_mpi_cg_count *next;
} gcm_mpi_cg_count_t;

int gcm_mpi_comm_check(MPI_Comm comm, const char *call)
{
    int rc;

    if ((rc = gcm_mpi_check_init(call)) != MPI_SUCCESS) {
        return rc;
    }
    if (comm == MPI_COMM_NULL) {
        return gcm_mpi_raise(NULL, MPI_ERR_COMM, call,
                             "communicator is MPI_COMM_NULL");
    }
    if (comm->magic != GCM_MPI_MAGIC_COMM) {
        return gcm_mpi_raise(NULL, MPI_ERR_COMM, call,
                             "not a valid communicator (freed, or never "
                             "created)");
    }
    return MPI_SUCCESS;
}

/* A zeroed object on the live list. */
static MPI_Comm gcm_mpi_comm_obtain(void)
{
    gcm_mpi_comm_block_t *block = gcm_mpi_handle_alloc(sizeof(*block));

    if (block == NULL) {
        return NULL;
    }
    pthread_mutex_lock(&gcm_mpi_comms.lock);
    block->prev = NULL;
    block->next = gcm_mpi_comms.live;
    if (block->next != NULL) {
        block->next->prev = block;
    }
    gcm_mpi_comms.live = block;
    pthread_mutex_unlock(&gcm_mpi_comms.lock);
    return &block->comm;
}

/* Takes a destroyed object off the live list and frees it. */
static void gcm_mpi_comm_recycle(MPI_Comm comm)
{
    gcm_mpi_comm_block_t *block = (gcm_mpi_comm_block_t *)comm;

    pthread_mutex_lock(&gcm_mpi_comms.lock);
    if (block->prev != NULL) {
        block->prev->next = block->next;
    } else {
        gcm_mpi_comms.live = block->next;
    }
    if (block->next != NULL) {
        block->next->prev = block->prev;
    }
    pthread_mutex_unlock(&gcm_mpi_comms.lock);
    gcm_mpi_handle_free(block);
}

MPI_Comm gcm_mpi_comm_alloc(int kind, gcm_lco_h lco)
{
    MPI_Comm comm = gcm_mpi_comm_obtain();

    if (comm == NULL) {
        return NULL;
    }
    comm->magic = GCM_MPI_MAGIC_COMM;
    comm->kind  = kind;
    comm->lco   = lco;
    comm->errh  = MPI_ERRORS_ARE_FATAL;
    comm->rank  = MPI_UNDEFINED;
    comm->prank = MPI_UNDEFINED;
    atomic_init(&comm->coll_seq, 0);
    atomic_init(&comm->refs, 1);
    return comm;
}

void gcm_mpi_comm_ref(MPI_Comm comm)
{
    if ((comm != NULL) && !comm->predefined) {
        atomic_fetch_add_explicit(&comm->refs, 1, memory_order_relaxed);
    }
}

void gcm_mpi_comm_unref(MPI_Comm comm)
{
    if ((comm != NULL) && !comm->predefined &&
        (atomic_fetch_sub_explicit(&comm->refs, 1, memory_order_acq_rel) ==
         1)) {
        gcm_mpi_comm_destroy(comm);
    }
}

void gcm_mpi_comm_destroy(MPI_Comm comm)
{
    gcm_mpi_cg_count_t *cg, *next;

    gcm_mpi_spawn_forget(comm);
    gcm_mpi_topo_free(comm);
    gcm_mpi_coll_cache_free(comm);
    if (comm->local_comm != MPI_COMM_NULL) {
        gcm_mpi_comm_destroy(comm->local_comm);
        comm->local_comm = MPI_COMM_NULL;
    }
    if (comm->group != MPI_GROUP_NULL) {
        gcm_mpi_group_release(comm->group);
    }
    if (comm->rgroup != MPI_GROUP_NULL) {
        gcm_mpi_group_release(comm->rgroup);
    }
    if (comm->info != MPI_INFO_NULL) {
        PMPI_Info_free(&comm->info);
    }
    for (cg = comm->cg_counts; cg != NULL; cg = next) {
        next = cg->next;
        free(cg);
    }
    gcm_mpi_errh_release(comm->errh);
    if ((comm->lco != NULL) && (comm->lco != gcm_world())) {
        gcm_lco_free(&comm->lco);
    }
    free(comm->procs);
    free(comm->rprocs);
    comm->procs  = NULL;
    comm->rprocs = NULL;
    comm->magic  = 0;
    if (!comm->predefined) {
        gcm_mpi_comm_recycle(comm);
    }
}

int gcm_mpi_comm_init_world(void)
{
    MPI_Comm world = MPI_COMM_WORLD;
    MPI_Comm self  = MPI_COMM_SELF;
    int myproc = gcm_proc_rank();
    uint32_t id, gen;
    gcm_status_t status;

    memset(world, 0, sizeof(*world));
    world->magic      = GCM_MPI_MAGIC_COMM;
    world->kind       = GCM_MPI_COMM_INTRA;
    world->predefined = 1;
    world->lco        = gcm_world();
    world->rank       = myproc;
    world->size       = gcm_proc_count();
    world->prank      = world->rank;
    world->psize      = world->size;
    world->errh       = MPI_ERRORS_ARE_FATAL;
    snprintf(world->name, sizeof(world->name), "MPI_COMM_WORLD");

    /* Every process derives MPI_COMM_SELF's identity from the world
     * first thing, so that the world's derivation count stays in step. */
    memset(self, 0, sizeof(*self));
    gcm_lco_derive_id(world->lco, &id, &gen);
    status = gcm_lco_create_pattern(id, gen, 1, &myproc, 0, &self->lco);
    if (status != GCM_OK) {
        return gcm_mpi_raise(NULL, gcm_mpi_errclass(status), "MPI_Init",
                             "cannot create MPI_COMM_SELF: %s",
                             gcm_last_error());
    }
    self->magic      = GCM_MPI_MAGIC_COMM;
    self->kind       = GCM_MPI_COMM_INTRA;
    self->predefined = 1;
    self->rank       = 0;
    self->size       = 1;
    self->prank      = 0;
    self->psize      = 1;
    self->procs      = malloc(sizeof(int));
    if (self->procs == NULL) {
        return gcm_mpi_raise(NULL, MPI_ERR_NO_MEM, "MPI_Init",
                             "out of memory");
    }
    self->procs[0] = myproc;
    self->errh     = MPI_ERRORS_ARE_FATAL;
    snprintf(self->name, sizeof(self->name), "MPI_COMM_SELF");
    return MPI_SUCCESS;
}

void gcm_mpi_comm_finalize(void)
{
    gcm_mpi_comm_block_t *block;

    /* What the program left: delete attributes (their callbacks run;
     * MPI_Finalize did MPI_COMM_SELF's first), then free. */
    for (;;) {
        pthread_mutex_lock(&gcm_mpi_comms.lock);
        block = gcm_mpi_comms.live;
        pthread_mutex_unlock(&gcm_mpi_comms.lock);
        if (block == NULL) {
            break;
        }
        gcm_mpi_attr_delete_all(&block->comm);
        gcm_mpi_comm_destroy(&block->comm);
    }
    gcm_mpi_attr_delete_all(MPI_COMM_WORLD);
    gcm_mpi_comm_destroy(MPI_COMM_SELF);
    gcm_mpi_comm_destroy(MPI_COMM_WORLD);
}

/* ---- raw transfers for the library's own protocols --------------------- */

int gcm_mpi_coll_tag(MPI_Comm comm)
{
    unsigned seq = atomic_fetch_add_explicit(&comm->coll_seq, 1,
                                             memory_order_relaxed);

    /* Sequence tags cycle below GCM_MPI_TAG_PERSISTENT: from there to
     * GCM_COLL_TAG_GENERAL (coll/coll.h) are the persistent collectives'
     * tags, then the native generalized collective's, then, from
     * GCM_MPI_TAG_FIXED, those of protocols with fixed tags
     * (MPI_Intercomm_create's leaders). */
    return (int)((unsigned)GCM_TAG_UB + 1u +
                 seq % (unsigned)(GCM_MPI_TAG_PERSISTENT - GCM_TAG_UB - 1));
}

gcm_status_t gcm_mpi_isend_bytes(MPI_Comm comm, const void *buf, size_t len,
                                 int dest, int tag, gcm_request_h *req_p)
{
    return gcm_lco_isend_x(comm->lco, buf, len, dest, tag, 0, req_p);
}

gcm_status_t gcm_mpi_irecv_bytes(MPI_Comm comm, void *buf, size_t len,
                                 int source, int tag, gcm_request_h *req_p)
{
    return gcm_lco_irecv_x(comm->lco, buf, len, source, tag, req_p);
}

gcm_status_t gcm_mpi_send_bytes(MPI_Comm comm, const void *buf, size_t len,
                                int dest, int tag)
{
    gcm_request_h req;
    gcm_status_t status;

    status = gcm_mpi_isend_bytes(comm, buf, len, dest, tag, &req);
    if (status != GCM_OK) {
        return status;
    }
    return gcm_wait(&req, NULL);
}

gcm_status_t gcm_mpi_recv_bytes(MPI_Comm comm, void *buf, size_t len,
                                int source, int tag)
{
    gcm_request_h req;
    gcm_status_t status;

    status = gcm_mpi_irecv_bytes(comm, buf, len, source, tag, &req);
    if (status != GCM_OK) {
        return status;
    }
    return gcm_wait(&req, NULL);
}

gcm_status_t gcm_mpi_sendrecv_bytes(MPI_Comm comm, const void *sbuf,
                                    size_t slen, int dest, void *rbuf,
                                    size_t rlen, int source, int tag)
{
    gcm_request_h reqs[2];
    gcm_status_t status;

    status = gcm_mpi_irecv_bytes(comm, rbuf, rlen, source, tag, &reqs[0]);
    if (status != GCM_OK) {
        return status;
    }
    status = gcm_mpi_isend_bytes(comm, sbuf, slen, dest, tag, &reqs[1]);
    if (status != GCM_OK) {
        gcm_lco_cancel(reqs[0]);
        gcm_wait(&reqs[0], NULL);
        return status;
    }
    return gcm_waitall(2, reqs, NULL);
}

/* ---- making communicators --------------------------------------------- */

/* A copy of n ints (none of NULL). */
static int gcm_mpi_ints_copy(int n, const int src[], int **out_p)
{
    *out_p = NULL;
    if (src == NULL) {
        return MPI_SUCCESS;
    }
    *out_p = malloc(((size_t)n + 1) * sizeof(int));
    if (*out_p == NULL) {
        return MPI_ERR_NO_MEM;
    }
    memcpy(*out_p, src, (size_t)n * sizeof(int));
    return MPI_SUCCESS;
}

/* Copies procs unless it is the identity over the whole world (then the
 * communicator stores nothing, like the world). */
static int gcm_mpi_procs_copy(int n, const int procs[], int **out_p)
{
    int i, identity = (n == gcm_proc_count());

    for (i = 0; identity && (i < n); i++) {
        identity = (procs[i] == i);
    }
    return gcm_mpi_ints_copy(n, identity ? NULL : procs, out_p);
}

/* The identity of a communicator derived from parent, and its home key
 * (which endpoint of each member it lives on). Pattern parents derive
 * them alone; an LCO the user built has a different identity in every
 * member, so the member with point-to-point rank 0 derives them and sends
 * them to the others. */
static int gcm_mpi_comm_derive_id(MPI_Comm parent, uint32_t *id_p,
                                  uint32_t *gen_p, uint32_t *home_p)
{
    uint32_t idgen[3];
    gcm_status_t status = GCM_OK;
    int tag, r;

    if (parent->kind != GCM_MPI_COMM_LCO) {
        gcm_lco_derive_id_homed(parent->lco, id_p, gen_p, home_p);
        return MPI_SUCCESS;
    }
    tag = gcm_mpi_coll_tag(parent);
    if (parent->prank == 0) {
        gcm_lco_derive_id_homed(parent->lco, &idgen[0], &idgen[1],
                                &idgen[2]);
        for (r = 1; (r < parent->psize) && (status == GCM_OK); r++) {
            status = gcm_mpi_send_bytes(parent, idgen, sizeof(idgen), r,
                                        tag);
        }
    } else {
        status = gcm_mpi_recv_bytes(parent, idgen, sizeof(idgen), 0, tag);
    }
    if (status != GCM_OK) {
        return gcm_mpi_errclass(status);
    }
    *id_p   = idgen[0];
    *gen_p  = idgen[1];
    *home_p = idgen[2];
    return MPI_SUCCESS;
}

static int gcm_mpi_comm_make(uint32_t id, uint32_t gen, uint32_t home, int n,
                             const int procs[], int myrank,
                             MPI_Comm errh_from, const char *call,
                             MPI_Comm *newcomm)
{
    gcm_status_t status;
    gcm_lco_h lco;
    MPI_Comm comm;
    int rc;

    /* What is derived from a communicator shared with another job keeps
     * its token, which that job's members hold too. */
    status = gcm_lco_create_pattern_x(id, gen, home,
                                      gcm_lco_token_of(errh_from->lco), n,
                                      procs, myrank, &lco);
    if (status != GCM_OK) {
        return gcm_mpi_raise(errh_from, gcm_mpi_errclass(status), call,
                             "cannot create the communicator's LCO: %s",
                             gcm_last_error());
    }
    comm = gcm_mpi_comm_alloc(GCM_MPI_COMM_INTRA, lco);
    if (comm == NULL) {
        gcm_lco_free(&lco);
        return gcm_mpi_raise(errh_from, MPI_ERR_NO_MEM, call,
                             "out of memory");
    }
    rc = gcm_mpi_procs_copy(n, procs, &comm->procs);
    if (rc != MPI_SUCCESS) {
        gcm_mpi_comm_destroy(comm);
        return gcm_mpi_raise(errh_from, rc, call, "out of memory");
    }
    comm->rank  = myrank;
    comm->size  = n;
    comm->prank = myrank;
    comm->psize = n;
    comm->errh  = errh_from->errh;
    gcm_mpi_errh_retain(comm->errh);
    *newcomm = comm;
    return MPI_SUCCESS;
}

int gcm_mpi_comm_derive(MPI_Comm parent, int n, const int procs[],
                        int myrank, const char *call, MPI_Comm *newcomm)
{
    uint32_t id, gen, home;
    int rc;

    rc = gcm_mpi_comm_derive_id(parent, &id, &gen, &home);
    if (rc != MPI_SUCCESS) {
        return gcm_mpi_raise(parent, rc, call,
                             "cannot agree on the new communicator's "
                             "identity");
    }
    if (n == 0) {
        *newcomm = MPI_COMM_NULL;
        return MPI_SUCCESS;
    }
    return gcm_mpi_comm_make(id, gen, home, n, procs, myrank, parent, call,
                             newcomm);
}

/* World indices of the members of comm's (local) group, in rank order:
 * the communicator's own array or, for the world, a new identity array.
 * *owned_p says whether the caller frees it. */
static int *gcm_mpi_comm_procs(MPI_Comm comm, int *owned_p)
{
    int *procs, i;

    *owned_p = 0;
    if (comm->procs != NULL) {
        return comm->procs;
    }
    procs = calloc((size_t)comm->size + 1, sizeof(int));
    if (procs != NULL) {
        for (i = 0; i < comm->size; i++) {
            procs[i] = i;
        }
        *owned_p = 1;
    }
    return procs;
}

static int gcm_mpi_comm_dup_common(MPI_Comm comm, MPI_Comm *newcomm,
                                   const char *call);

int gcm_mpi_comm_dup_bare(MPI_Comm comm, const char *call, MPI_Comm *newcomm)
{
    MPI_Comm dup = MPI_COMM_NULL;
    uint32_t id, gen;
    gcm_status_t status;
    gcm_lco_h lco;
    int rc, owned, *procs;

    switch (comm->kind) {
    case GCM_MPI_COMM_INTRA:
        procs = gcm_mpi_comm_procs(comm, &owned);
        if (procs == NULL) {
            return gcm_mpi_raise(comm, MPI_ERR_NO_MEM, call,
                                 "out of memory");
        }
        rc = gcm_mpi_comm_derive(comm, comm->size, procs, comm->rank, call,
                                 &dup);
        if (owned) {
            free(procs);
        }
        break;
    case GCM_MPI_COMM_INTER:
        /* Both groups share the intercommunicator's identity and derive
         * from it in the same order: the same new identity everywhere. */
        gcm_lco_derive_id(comm->lco, &id, &gen);
        status = gcm_lco_create_pattern_x(id, gen, 0,
                                          gcm_lco_token_of(comm->lco),
                                          comm->remote_size, comm->rprocs,
                                          comm->rank, &lco);
        if (status != GCM_OK) {
            return gcm_mpi_raise(comm, gcm_mpi_errclass(status), call,
                                 "cannot create the LCO: %s",
                                 gcm_last_error());
        }
        dup = gcm_mpi_comm_alloc(GCM_MPI_COMM_INTER, lco);
        if (dup == NULL) {
            gcm_lco_free(&lco);
            return gcm_mpi_raise(comm, MPI_ERR_NO_MEM, call,
                                 "out of memory");
        }
        dup->rank        = comm->rank;
        dup->size        = comm->size;
        dup->remote_size = comm->remote_size;
        dup->prank       = comm->prank;
        dup->psize       = comm->psize;
        dup->errh        = comm->errh;
        gcm_mpi_errh_retain(dup->errh);
        /* The arrays as they are: an intercommunicator's remote group is
         * never stored as the identity. */
        rc = gcm_mpi_ints_copy(comm->size, comm->procs, &dup->procs);
        if (rc == MPI_SUCCESS) {
            rc = gcm_mpi_ints_copy(comm->remote_size, comm->rprocs,
                                   &dup->rprocs);
        }
        if ((rc == MPI_SUCCESS) && (comm->local_comm != MPI_COMM_NULL)) {
            rc = gcm_mpi_comm_dup_common(comm->local_comm, &dup->local_comm,
                                         call);
        }
        if (rc != MPI_SUCCESS) {
            gcm_mpi_comm_destroy(dup);
            return gcm_mpi_raise(comm, rc, call, "cannot copy the groups");
        }
        break;
    case GCM_MPI_COMM_LCO:
    default:
        /* A structure built by hand becomes a library-made communicator
         * with the same ranks, when each slot targets its own process. */
        if (comm->prank == MPI_UNDEFINED) {
            return gcm_mpi_raise(comm, MPI_ERR_COMM, call,
                                 "this LCO has no send slot to itself: it "
                                 "is not part of a communicator structure");
        }
        if (comm->size < comm->psize) {
            /* Several LCOs in one process (one per thread): no pattern
             * says which of them a rank is; build the copy by names. */
            rc = gcm_mpi_lco_dup_by_names(comm, call, &dup);
            break;
        }
        procs = malloc((size_t)comm->psize * sizeof(int));
        if (procs == NULL) {
            return gcm_mpi_raise(comm, MPI_ERR_NO_MEM, call,
                                 "out of memory");
        }
        for (rc = 0; rc < comm->psize; rc++) {
            procs[rc] = gcm_lco_send_slot_proc(comm->lco, rc);
        }
        rc = gcm_mpi_comm_derive(comm, comm->psize, procs, comm->prank,
                                 call, &dup);
        free(procs);
        break;
    }
    if (rc == MPI_SUCCESS) {
        *newcomm = dup;
    }
    return rc;
}

static int gcm_mpi_comm_dup_common(MPI_Comm comm, MPI_Comm *newcomm,
                                   const char *call)
{
    MPI_Comm dup = MPI_COMM_NULL;
    int rc;

    if ((rc = gcm_mpi_comm_check(comm, call)) != MPI_SUCCESS) {
        return rc;
    }
    if (newcomm == NULL) {
        return gcm_mpi_raise(comm, MPI_ERR_ARG, call, "newcomm is NULL");
    }
    rc = gcm_mpi_comm_dup_bare(comm, call, &dup);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    /* The duplicate has comm's topology, attributes and info hints
     * (MPI-3.1 6.4.2). */
    rc = gcm_mpi_topo_copy(comm, dup);
    if ((rc == MPI_SUCCESS) && (comm->info != MPI_INFO_NULL)) {
        rc = PMPI_Info_dup(comm->info, &dup->info);
    }
    if (rc == MPI_SUCCESS) {
        rc = gcm_mpi_attr_copy(comm, dup);
    }
    if (rc != MPI_SUCCESS) {
        gcm_mpi_attr_delete_all(dup);
        gcm_mpi_comm_destroy(dup);
        return gcm_mpi_raise(comm, rc, call,
                             "an attribute copy callback failed");
    }
    *newcomm = dup;
    gcm_mpi_graph_auto(dup);
    return MPI_SUCCESS;
}

int PMPI_Comm_dup(MPI_Comm comm, MPI_Comm *newcomm)
{
    return gcm_mpi_comm_dup_common(comm, newcomm, "MPI_Comm_dup");
}
GCM_MPI_ALIAS(Comm_dup)

int PMPI_Comm_dup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm)
{
    static const char *call = "MPI_Comm_dup_with_info";
    int rc;

    if ((rc = gcm_mpi_comm_check(comm, call)) != MPI_SUCCESS) {
        return rc;
    }
    if ((info != MPI_INFO_NULL) && (gcm_mpi_info_check(info) != 0)) {
        return gcm_mpi_raise(comm, MPI_ERR_INFO, call,
                             "not a valid info object");
    }
    rc = gcm_mpi_comm_dup_common(comm, newcomm, call);
    if ((rc == MPI_SUCCESS) && ((*newcomm)->info != MPI_INFO_NULL)) {
        /* info's hints, not comm's. */
        PMPI_Info_free(&(*newcomm)->info);
    }
    if ((rc == MPI_SUCCESS) && (info != MPI_INFO_NULL)) {
        rc = PMPI_Info_dup(info, &(*newcomm)->info);
        if (rc != MPI_SUCCESS) {
            gcm_mpi_attr_delete_all(*newcomm);
            gcm_mpi_comm_destroy(*newcomm);
            *newcomm = MPI_COMM_NULL;
        }
    }
    return rc;
}
GCM_MPI_ALIAS(Comm_dup_with_info)

int PMPI_Comm_idup(MPI_Comm comm, MPI_Comm *newcomm, MPI_Request *request)
{
    static const char *call = "MPI_Comm_idup";
    int rc;

    if ((rc = gcm_mpi_comm_check(comm, call)) != MPI_SUCCESS) {
        return rc;
    }
    if (request == NULL) {
        return gcm_mpi_raise(comm, MPI_ERR_ARG, call, "request is NULL");
    }
    /* A duplicate needs no message: it is complete at once. */
    rc = gcm_mpi_comm_dup_common(comm, newcomm, call);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    return gcm_mpi_req_generic(comm, NULL, NULL, NULL, request);
}
GCM_MPI_ALIAS(Comm_idup)

int PMPI_Comm_idup_with_info(MPI_Comm comm, MPI_Info info,
                             MPI_Comm *newcomm, MPI_Request *request)
{
    static const char *call = "MPI_Comm_idup_with_info";
    int rc;

    if ((rc = gcm_mpi_comm_check(comm, call)) != MPI_SUCCESS) {
        return rc;
    }
    if (request == NULL) {
        return gcm_mpi_raise(comm, MPI_ERR_ARG, call, "request is NULL");
    }
    rc = PMPI_Comm_dup_with_info(comm, info, newcomm);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    return gcm_mpi_req_generic(comm, NULL, NULL, NULL, request);
}
GCM_MPI_ALIAS(Comm_idup_with_info)

int gcm_mpi_split_cmp(const void *a, const void *b)
{
    const gcm_mpi_split_entry_t *x = a, *y = b;

    if (x->key != y->key) {
        return (x->key < y->key) ? -1 : 1;
    }
    return (x->rank < y->rank) ? -1 : (x->rank > y->rank);
}

/* Split comm by a 64-bit color (MPI_UNDEFINED: no new communicator). */
static int gcm_mpi_comm_split64(MPI_Comm comm, int64_t color, int key,
                                const char *call, MPI_Comm *newcomm)
{
    gcm_mpi_split_entry_t mine, *all;
    int *procs, n = 0, myrank = 0, i, rc;

    mine.color = color;
    mine.key   = key;
    mine.rank  = comm->rank;
    all   = malloc((size_t)comm->size * sizeof(*all));
    procs = malloc((size_t)comm->size * sizeof(int));
    if ((all == NULL) || (procs == NULL)) {
        free(all);
        free(procs);
        return gcm_mpi_raise(comm, MPI_ERR_NO_MEM, call, "out of memory");
    }
    /* The collective raises its own failure on comm. */
    rc = PMPI_Allgather(&mine, (int)sizeof(mine), MPI_BYTE, all,
                        (int)sizeof(mine), MPI_BYTE, comm);
    if (rc != MPI_SUCCESS) {
        free(all);
        free(procs);
        return rc;
    }
    if (color != MPI_UNDEFINED) {
        for (i = 0; i < comm->size; i++) {
            if (all[i].color == color) {
                all[n++] = all[i];
            }
        }
        qsort(all, (size_t)n, sizeof(*all), gcm_mpi_split_cmp);
        for (i = 0; i < n; i++) {
            procs[i] = gcm_mpi_comm_proc(comm, all[i].rank);
            if (all[i].rank == comm->rank) {
                myrank = i;
            }
        }
    }
    /* Every member derives (those without a color pass n = 0): the
     * groups of different colors are disjoint, so sharing one identity
     * is safe. */
    rc = gcm_mpi_comm_derive(comm, n, procs, myrank, call, newcomm);
    free(all);
    free(procs);
    return rc;
}

static int gcm_mpi_check_intra(MPI_Comm comm, const char *call)
{
    int rc;

    if ((rc = gcm_mpi_comm_check(comm, call)) != MPI_SUCCESS) {
        return rc;
    }
    if (comm->kind == GCM_MPI_COMM_INTER) {
        return gcm_mpi_raise(comm, MPI_ERR_COMM, call,
                             "an intercommunicator is not supported here");
    }
    if (comm->kind == GCM_MPI_COMM_LCO) {
        return gcm_mpi_raise(comm, MPI_ERR_COMM, call, (comm->size <
                             comm->psize) ? "not supported on LCOs with "
                             "several LCOs per process (one per thread)" :
                             "not supported on an LCO built slot by slot: "
                             "MPI_Comm_dup it first");
    }
    return MPI_SUCCESS;
}

int PMPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm)
{
    static const char *call = "MPI_Comm_split";
    int rc;

    if ((rc = gcm_mpi_comm_check(comm, call)) != MPI_SUCCESS) {
        return rc;
    }
    if (newcomm == NULL) {
        return gcm_mpi_raise(comm, MPI_ERR_ARG, call, "newcomm is NULL");
    }
    if ((color < 0) && (color != MPI_UNDEFINED)) {
        return gcm_mpi_raise(comm, MPI_ERR_ARG, call,
                             "color %d is negative (only MPI_UNDEFINED "
                             "may be)", color);
    }
    if (comm->kind == GCM_MPI_COMM_INTER) {
        rc = gcm_mpi_inter_split(comm, color, key, call, newcomm);
    } else if ((rc = gcm_mpi_check_intra(comm, call)) == MPI_SUCCESS) {
        rc = gcm_mpi_comm_split64(comm, color, key, call, newcomm);
    }
    if (rc == MPI_SUCCESS) {
        gcm_mpi_graph_auto(*newcomm);
    }
    return rc;
}
GCM_MPI_ALIAS(Comm_split)

int PMPI_Comm_split_type(MPI_Comm comm, int split_type, int key,
                         MPI_Info info, MPI_Comm *newcomm)
{
    static const char *call = "MPI_Comm_split_type";
    const char *host, *resource = NULL;
    int64_t color;
    int rc;

    if ((rc = gcm_mpi_check_intra(comm, call)) != MPI_SUCCESS) {
        return rc;
    }
    if (newcomm == NULL) {
        return gcm_mpi_raise(comm, MPI_ERR_ARG, call, "newcomm is NULL");
    }
    if ((info != MPI_INFO_NULL) && (gcm_mpi_info_check(info) != 0)) {
        return gcm_mpi_raise(comm, MPI_ERR_INFO, call,
                             "not a valid info object");
    }
    if (split_type == MPI_UNDEFINED) {
        color = MPI_UNDEFINED;
    } else if (split_type == MPI_COMM_TYPE_SHARED) {
        /* Processes that share memory: the same host. The color is a
         * hash of the host name, kept non-negative and distinct from
         * MPI_UNDEFINED. */
        host  = gcm_boot_hostname();
        color = (int64_t)(gcm_hash64(host, strlen(host)) >> 2);
    } else if ((split_type == MPI_COMM_TYPE_HW_GUIDED) ||
               (split_type == MPI_COMM_TYPE_HW_UNGUIDED)) {
        /* The hierarchy's levels (mpi_hier.c). */
        rc = gcm_mpi_hier_split_color(comm, split_type, info, &color,
                                      &resource);
        if (rc != MPI_SUCCESS) {
            return gcm_mpi_raise(comm, rc, call,
                                 "the hardware hierarchy is not available");
        }
    } else {
        return gcm_mpi_raise(comm, MPI_ERR_ARG, call,
                             "split type %d is not supported (use "
                             "MPI_COMM_TYPE_SHARED, _HW_GUIDED, "
                             "_HW_UNGUIDED or MPI_UNDEFINED)",
                             split_type);
    }
    rc = gcm_mpi_comm_split64(comm, color, key, call, newcomm);
    if ((rc == MPI_SUCCESS) && (resource != NULL) &&
        (*newcomm != MPI_COMM_NULL)) {
        /* MPI-4 7.4.2: the new communicator's info names the resource. */
        MPI_Info hw;

        if (PMPI_Info_create(&hw) == MPI_SUCCESS) {
            (void)PMPI_Info_set(hw, "mpi_hw_resource_type", resource);
            (void)PMPI_Comm_set_info(*newcomm, hw);
            (void)PMPI_Info_free(&hw);
        }
    }
    if (rc == MPI_SUCCESS) {
        gcm_mpi_graph_auto(*newcomm);
    }
    return rc;
}
GCM_MPI_ALIAS(Comm_split_type)

/* The world indices of group's members and this process's rank in it. */
static int gcm_mpi_group_members(MPI_Group group, int **procs_p, int *n_p,
                                 int *myrank_p)
{
    int n, i;

    PMPI_Group_size(group, &n);
    PMPI_Group_rank(group, myrank_p);
    *procs_p = malloc(((size_t)n + 1) * sizeof(int));
    if (*procs_p == NULL) {
        return MPI_ERR_NO_MEM;
    }
    for (i = 0; i < n; i++) {
        (*procs_p)[i] = gcm_mpi_group_proc(group, i);
    }
    *n_p = n;
    return MPI_SUCCESS;
}

/* Is every member of group a member of comm? */
static int gcm_mpi_group_within(MPI_Comm comm, int n, const int procs[])
{
    int i, r, found;

    if (comm->procs == NULL) {
        for (i = 0; i < n; i++) {
            if ((procs[i] < 0) || (procs[i] >= comm->size)) {
                return 0;
            }
        }
        return 1;
    }
    for (i = 0; i < n; i++) {
        found = 0;
        for (r = 0; (r < comm->size) && !found; r++) {
            found = (comm->procs[r] == procs[i]);
        }
        if (!found) {
            return 0;
        }
    }
    return 1;
}

int PMPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm)
{
    static const char *call = "MPI_Comm_create";
    int *procs, n, myrank, rc;

    if ((rc = gcm_mpi_comm_check(comm, call)) != MPI_SUCCESS) {
        return rc;
    }
    if ((comm->kind != GCM_MPI_COMM_INTER) &&
        ((rc = gcm_mpi_check_intra(comm, call)) != MPI_SUCCESS)) {
        return rc;
    }
    if (gcm_mpi_group_check(group) != 0) {
        return gcm_mpi_raise(comm, MPI_ERR_GROUP, call,
                             "not a valid group");
    }
    if (newcomm == NULL) {
        return gcm_mpi_raise(comm, MPI_ERR_ARG, call, "newcomm is NULL");
    }
    if (gcm_mpi_group_members(group, &procs, &n, &myrank) != MPI_SUCCESS) {
        return gcm_mpi_raise(comm, MPI_ERR_NO_MEM, call, "out of memory");
    }
    if (!gcm_mpi_group_within(comm, n, procs)) {
        free(procs);
        return gcm_mpi_raise(comm, MPI_ERR_GROUP, call,
                             "the group is not a subset of the "
                             "communicator's %sgroup",
                             (comm->kind == GCM_MPI_COMM_INTER) ? "local " :
                             "");
    }
    if (comm->kind == GCM_MPI_COMM_INTER) {
        /* Each group passes a subset of its own (MPI-3.1 6.4.2). */
        rc = gcm_mpi_inter_create(comm, n, procs, myrank, call, newcomm);
    } else {
        rc = gcm_mpi_comm_derive(comm, (myrank == MPI_UNDEFINED) ? 0 : n,
                                 procs, myrank, call, newcomm);
    }
    free(procs);
    if (rc == MPI_SUCCESS) {
        gcm_mpi_graph_auto(*newcomm);
    }
    return rc;
}
GCM_MPI_ALIAS(Comm_create)

int PMPI_Comm_create_group(MPI_Comm comm, MPI_Group group, int tag,
                           MPI_Comm *newcomm)
{
    static const char *call = "MPI_Comm_create_group";
    gcm_mpi_cg_count_t *cg;
    uint64_t key;
    int *procs, n, myrank, rc;

    if ((rc = gcm_mpi_check_intra(comm, call)) != MPI_SUCCESS) {
        return rc;
    }
    if (gcm_mpi_group_check(group) != 0) {
        return gcm_mpi_raise(comm, MPI_ERR_GROUP, call,
                             "not a valid group");
    }
    if ((tag < 0) || (tag > GCM_TAG_UB)) {
        return gcm_mpi_raise(comm, MPI_ERR_TAG, call,
                             "tag %d is outside 0..MPI_TAG_UB", tag);
    }
    if (newcomm == NULL) {
        return gcm_mpi_raise(comm, MPI_ERR_ARG, call, "newcomm is NULL");
    }
    if (gcm_mpi_group_members(group, &procs, &n, &myrank) != MPI_SUCCESS) {
        return gcm_mpi_raise(comm, MPI_ERR_NO_MEM, call, "out of memory");
    }
    if (myrank == MPI_UNDEFINED) {
        free(procs);
        return gcm_mpi_raise(comm, MPI_ERR_GROUP, call,
                             "the calling process is not in the group");
    }
    if (!gcm_mpi_group_within(comm, n, procs)) {
        free(procs);
        return gcm_mpi_raise(comm, MPI_ERR_GROUP, call,
                             "the group is not a subset of the "
                             "communicator's group");
    }
    /* Only the group's members call, so the parent's derivation count
     * cannot be used. The identity comes from the group, the tag and how
     * many times this (group, tag) was used on comm before: the same in
     * every member, since the members make these calls in the same
     * order, and distinct between calls. */
    procs[n] = tag;
    key = gcm_hash64(procs, ((size_t)n + 1) * sizeof(int));
    for (cg = comm->cg_counts; cg != NULL; cg = cg->next) {
        if (cg->key == key) {
            break;
        }
    }
    if (cg == NULL) {
        cg = calloc(1, sizeof(*cg));
        if (cg == NULL) {
            free(procs);
            return gcm_mpi_raise(comm, MPI_ERR_NO_MEM, call,
                                 "out of memory");
        }
        cg->key   = key;
        cg->next  = comm->cg_counts;
        comm->cg_counts = cg;
    }
    rc = gcm_mpi_comm_make_keyed(comm, key, cg->count++, n, procs, myrank,
                                 comm, call, newcomm);
    free(procs);
    if (rc == MPI_SUCCESS) {
        gcm_mpi_graph_auto(*newcomm);
    }
    return rc;
}
GCM_MPI_ALIAS(Comm_create_group)

int gcm_mpi_comm_make_keyed(MPI_Comm parent, uint64_t key, uint32_t count,
                            int n, const int procs[], int myrank,
                            MPI_Comm errh_from, const char *call,
                            MPI_Comm *newcomm)
{
    uint32_t id, gen, home;

    gcm_lco_derive_id_keyed(parent->lco, key ^ ((uint64_t)count << 40) ^
                            count, &id, &gen);
    /* Its endpoint from the same inputs: the members agree, and
     * different groups and tags spread over the endpoints. */
    home = 1 + (uint32_t)((key ^ count) % 65521u);
    return gcm_mpi_comm_make(id, gen, home, n, procs, myrank, errh_from,
                             call, newcomm);
}

int PMPI_Comm_free(MPI_Comm *comm)
{
    static const char *call = "MPI_Comm_free";
    int rc;

    if (comm == NULL) {
        return gcm_mpi_raise(NULL, MPI_ERR_ARG, call, "comm is NULL");
    }
    if ((rc = gcm_mpi_comm_check(*comm, call)) != MPI_SUCCESS) {
        return rc;
    }
    if ((*comm)->predefined) {
        return gcm_mpi_raise(*comm, MPI_ERR_COMM, call,
                             "%s belongs to the library and cannot be "
                             "freed", (*comm)->name);
    }
    rc = gcm_mpi_attr_delete_all(*comm);
    if (rc != MPI_SUCCESS) {
        return gcm_mpi_raise(*comm, rc, call,
                             "an attribute delete callback failed");
    }
    /* The handle is dead from now on (calls on a copy of it report
     * MPI_ERR_COMM), but operations still pending on the communicator
     * complete: their requests hold it until they are freed. */
    (*comm)->magic = GCM_MPI_MAGIC_FREED;
    gcm_mpi_comm_unref(*comm);
    *comm = MPI_COMM_NULL;
    return MPI_SUCCESS;
}
GCM_MPI_ALIAS(Comm_free)

int PMPI_Comm_size(MPI_Comm comm, int *size)
{
    int rc;

    if ((rc = gcm_mpi_comm_check(comm, "MPI_Comm_size")) != MPI_SUCCESS) {
        return rc;
    }
    if (size == NULL) {
        return gcm_mpi_raise(comm, MPI_ERR_ARG, "MPI_Comm_size",
                             "size is NULL");
    }
    *size = comm->size;
    return MPI_SUCCESS;
}
GCM_MPI_ALIAS(Comm_size)

int PMPI_Comm_rank(MPI_Comm comm, int *rank)
{
    int rc;

    if ((rc = gcm_mpi_comm_check(comm, "MPI_Comm_rank")) != MPI_SUCCESS) {
        return rc;
    }
    if (rank == NULL) {
        return gcm_mpi_raise(comm, MPI_ERR_ARG, "MPI_Comm_rank",
                             "rank is NULL");
    }
    *rank = comm->rank;
    return MPI_SUCCESS;
}
GCM_MPI_ALIAS(Comm_rank)

/* comm's group (local, or remote), made on first use and cached. Threads
 * may ask at once (MPI_THREAD_MULTIPLE): each that finds no group makes
 * one, the first to publish it wins and the others drop theirs. */
static int gcm_mpi_comm_group_of(MPI_Comm comm, int remote, MPI_Group *g_p)
{
    MPI_Group *cache = remote ? &comm->rgroup : &comm->group;
    int n = remote ? comm->remote_size : comm->size;
    MPI_Group g = __atomic_load_n(cache, __ATOMIC_ACQUIRE);
    MPI_Group expected = MPI_GROUP_NULL;
    int *procs, i, rc;

    if (g == MPI_GROUP_NULL) {
        procs = malloc(((size_t)n + 1) * sizeof(int));
        if (procs == NULL) {
            return MPI_ERR_NO_MEM;
        }
        for (i = 0; i < n; i++) {
            procs[i] = remote ? gcm_mpi_comm_rproc(comm, i) :
                       gcm_mpi_comm_proc(comm, i);
        }
        rc = gcm_mpi_group_create(n, procs, gcm_proc_rank(), &g);
        free(procs);
        if (rc != MPI_SUCCESS) {
            return rc;
        }
        /* The cache's reference is no user handle. */
        gcm_mpi_group_handles_add(g, -1);
        if (!__atomic_compare_exchange_n(cache, &expected, g, 0,
                                         __ATOMIC_ACQ_REL,
                                         __ATOMIC_ACQUIRE)) {
            gcm_mpi_group_release(g);
            g = expected;
        }
    }
    gcm_mpi_group_retain(g);
    *g_p = g;
    return MPI_SUCCESS;
}

int PMPI_Comm_group(MPI_Comm comm, MPI_Group *group)
{
    static const char *call = "MPI_Comm_group";
    int rc;

    if ((rc = gcm_mpi_comm_check(comm, call)) != MPI_SUCCESS) {
        return rc;
    }
    if (group == NULL) {
        return gcm_mpi_raise(comm, MPI_ERR_ARG, call, "group is NULL");
    }
    rc = gcm_mpi_comm_group_of(comm, 0, group);
    if (rc != MPI_SUCCESS) {
        return gcm_mpi_raise(comm, rc, call, "cannot make the group");
    }
    gcm_mpi_group_handles_add(*group, 1);
    return MPI_SUCCESS;
}
GCM_MPI_ALIAS(Comm_group)

int PMPI_Comm_remote_group(MPI_Comm comm, MPI_Group *group)
{
    static const char *call = "MPI_Comm_remote_group";
    int rc;

    if ((rc = gcm_mpi_comm_check(comm, call)) != MPI_SUCCESS) {
        return rc;
    }
    if (comm->kind != GCM_MPI_COMM_INTER) {
        return gcm_mpi_raise(comm, MPI_ERR_COMM, call,
                             "not an intercommunicator");
    }
    if (group == NULL) {
        return gcm_mpi_raise(comm, MPI_ERR_ARG, call, "group is NULL");
    }
    rc = gcm_mpi_comm_group_of(comm, 1, group);
    if (rc != MPI_SUCCESS) {
        return gcm_mpi_raise(comm, rc, call, "cannot make the group");
    }
    gcm_mpi_group_handles_add(*group, 1);
    return MPI_SUCCESS;
}
GCM_MPI_ALIAS(Comm_remote_group)

int PMPI_Comm_remote_size(MPI_Comm comm, int *size)
{
    static const char *call = "MPI_Comm_remote_size";
    int rc;

    if ((rc = gcm_mpi_comm_check(comm, call)) != MPI_SUCCESS) {
        return rc;
    }
    if (comm->kind != GCM_MPI_COMM_INTER) {
        return gcm_mpi_raise(comm, MPI_ERR_COMM, call,
                             "not an intercommunicator");
    }
    if (size == NULL) {
        return gcm_mpi_raise(comm, MPI_ERR_ARG, call, "size is NULL");
    }
    *size = comm->remote_size;
    return MPI_SUCCESS;
}
GCM_MPI_ALIAS(Comm_remote_size)

int PMPI_Comm_test_inter(MPI_Comm comm, int *flag)
{
    int rc;

    if ((rc = gcm_mpi_comm_check(comm, "MPI_Comm_test_inter")) !=
        MPI_SUCCESS) {
        return rc;
    }
    if (flag == NULL) {
        return gcm_mpi_raise(comm, MPI_ERR_ARG, "MPI_Comm_test_inter",
                             "flag is NULL");
    }
    *flag = (comm->kind == GCM_MPI_COMM_INTER);
    return MPI_SUCCESS;
}
GCM_MPI_ALIAS(Comm_test_inter)

int PMPI_Comm_compare(MPI_Comm comm1, MPI_Comm comm2, int *result)
{
    static const char *call = "MPI_Comm_compare";
    MPI_Group g1, g2;
    int rc, gres;

    if (((rc = gcm_mpi_comm_check(comm1, call)) != MPI_SUCCESS) ||
        ((rc = gcm_mpi_comm_check(comm2, call)) != MPI_SUCCESS)) {
        return rc;
    }
    if (result == NULL) {
        return gcm_mpi_raise(comm1, MPI_ERR_ARG, call, "result is NULL");
    }
    if (comm1 == comm2) {
        *result = MPI_IDENT;
        return MPI_SUCCESS;
    }
    if ((comm1->kind == GCM_MPI_COMM_INTER) !=
        (comm2->kind == GCM_MPI_COMM_INTER)) {
        *result = MPI_UNEQUAL;
        return MPI_SUCCESS;
    }
    if ((gcm_mpi_comm_group_of(comm1, 0, &g1) != MPI_SUCCESS) ||
        (gcm_mpi_comm_group_of(comm2, 0, &g2) != MPI_SUCCESS)) {
        return gcm_mpi_raise(comm1, MPI_ERR_NO_MEM, call, "out of memory");
    }
    gres = gcm_mpi_group_compare(g1, g2);
    gcm_mpi_group_release(g1);
    gcm_mpi_group_release(g2);
    if ((gres == MPI_IDENT) && (comm1->kind == GCM_MPI_COMM_INTER)) {
        if ((gcm_mpi_comm_group_of(comm1, 1, &g1) != MPI_SUCCESS) ||
            (gcm_mpi_comm_group_of(comm2, 1, &g2) != MPI_SUCCESS)) {
            return gcm_mpi_raise(comm1, MPI_ERR_NO_MEM, call,
                                 "out of memory");
        }
        gres = gcm_mpi_group_compare(g1, g2);
        gcm_mpi_group_release(g1);
        gcm_mpi_group_release(g2);
    }
    *result = (gres == MPI_IDENT) ? MPI_CONGRUENT : gres;
    return MPI_SUCCESS;
}
GCM_MPI_ALIAS(Comm_compare)

int PMPI_Comm_set_name(MPI_Comm comm, const char *comm_name)
{
    int rc;

    if ((rc = gcm_mpi_comm_check(comm, "MPI_Comm_set_name")) !=
        MPI_SUCCESS) {
        return rc;
    }
    if (comm_name == NULL) {
        return gcm_mpi_raise(comm, MPI_ERR_ARG, "MPI_Comm_set_name",
                             "comm_name is NULL");
    }
    /* Longer names are truncated, as the standard allows. */
    snprintf(comm->name, sizeof(comm->name), "%s", comm_name);
    return MPI_SUCCESS;
}
GCM_MPI_ALIAS(Comm_set_name)

int PMPI_Comm_get_name(MPI_Comm comm, char *comm_name, int *resultlen)
{
    int rc;

    if ((rc = gcm_mpi_comm_check(comm, "MPI_Comm_get_name")) !=
        MPI_SUCCESS) {
        return rc;
    }
    if ((comm_name == NULL) || (resultlen == NULL)) {
        return gcm_mpi_raise(comm, MPI_ERR_ARG, "MPI_Comm_get_name",
                             "comm_name or resultlen is NULL");
    }
    snprintf(comm_name, MPI_MAX_OBJECT_NAME, "%s", comm->name);
    *resultlen = (int)strlen(comm_name);
    return MPI_SUCCESS;
}
GCM_MPI_ALIAS(Comm_get_name)

int PMPI_Comm_set_info(MPI_Comm comm, MPI_Info info)
{
    static const char *call = "MPI_Comm_set_info";
    MPI_Info copy;
    int rc;

    if ((rc = gcm_mpi_comm_check(comm, call)) != MPI_SUCCESS) {
        return rc;
    }
    if (gcm_mpi_info_check(info) != 0) {
        return gcm_mpi_raise(comm, MPI_ERR_INFO, call,
                             "not a valid info object");
    }
    rc = PMPI_Info_dup(info, &copy);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (comm->info != MPI_INFO_NULL) {
        PMPI_Info_free(&comm->info);
    }
    comm->info = copy;
    return MPI_SUCCESS;
}
GCM_MPI_ALIAS(Comm_set_info)

int PMPI_Comm_get_info(MPI_Comm comm, MPI_Info *info_used)
{
    static const char *call = "MPI_Comm_get_info";
    int rc;

    if ((rc = gcm_mpi_comm_check(comm, call)) != MPI_SUCCESS) {
        return rc;
    }
    if (info_used == NULL) {
        return gcm_mpi_raise(comm, MPI_ERR_ARG, call, "info_used is NULL");
    }
    /* No hint changes the library's behaviour: give back what was set. */
    if (comm->info != MPI_INFO_NULL) {
        return PMPI_Info_dup(comm->info, info_used);
    }
    return PMPI_Info_create(info_used);
}
GCM_MPI_ALIAS(Comm_get_info)
