/*
 * compat/mpi_comm_object.c: the communicator objects (MPI-3.1 chapter 6):
 * MPI_COMM_WORLD, MPI_COMM_SELF, the objects the library makes in handle
 * memory, their references, MPI_Comm_free, and what MPI_Finalize frees.
 *
 * MPI_COMM_WORLD is the world LCO. Every intracommunicator the library
 * makes is a pattern LCO (mpi_comm_derive.c).
 */
#include "config.h"

#include "boot/boot.h"
#include "compat/mpi_comm_impl.h"

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

int gcm_mpi_comm_check_ptr(MPI_Comm comm, const void *ptr, const char *what,
                           const char *call)
{
    int rc = gcm_mpi_comm_check(comm, call);

    if ((rc == MPI_SUCCESS) && (ptr == NULL)) {
        rc = gcm_mpi_raise(comm, MPI_ERR_ARG, call, "%s is NULL", what);
    }
    return rc;
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
    gcm_mpi_coll_lingering_clear();
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
    gcm_mpi_coll_comm_free(*comm);   /* its kept schedules' references */
    gcm_mpi_comm_unref(*comm);
    *comm = MPI_COMM_NULL;
    return MPI_SUCCESS;
}
GCM_MPI_ALIAS(Comm_free)
