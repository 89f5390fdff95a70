/*
 * compat/mpi_coll_staged.c: the blocking allreduce of 2 processes of one
 * host through their staging area (slots/slot_shm_stage.c; coll/README.md,
 * "The staged allreduce of 2 processes").
 *
 * Both processes decide from what they share: an intracommunicator of 2,
 * a predefined operator and a predefined type whose elements are
 * contiguous (size = extent, lower bound 0) of a power-of-two size, at
 * least GENCOMM_COLL_ALLREDUCE_STAGED_MIN bytes. The first such call on a
 * communicator opens the area with two exchanges under the call's tag
 * (gcm_lco_stage_open); when either side cannot map the other's (another
 * host, shared memory off, /proc refused), both keep the schedule on this
 * communicator for good. Only blocking calls take it: a nonblocking or
 * persistent allreduce runs its schedule under its own tag and never
 * touches the area, and MPI orders a communicator's blocking collectives
 * alike on both processes, so each area is used by one call at a time.
 */
#include "config.h"

#include "compat/mpi_coll_impl.h"

typedef struct {
    MPI_Op       op;
    MPI_Datatype type;
} coll_staged_ctx_t;

static void coll_staged_combine(void *ctx, const void *in, void *inout,
                                size_t count)
{
    const coll_staged_ctx_t *c = ctx;

    gcm_mpi_op_apply(c->op, in, inout, (int)count, c->type);
}

/* The element size of datatype when it qualifies, else 0. */
static size_t coll_staged_esize(MPI_Datatype datatype, MPI_Op op)
{
    MPI_Aint lb, extent;
    MPI_Count size;

    if (!gcm_mpi_type_is_predefined(datatype) || (gcm_mpi_op_id(op) < 0)) {
        return 0;
    }
    size = gcm_mpi_type_size(datatype);
    gcm_mpi_type_extent(datatype, &lb, &extent);
    if ((lb != 0) || (extent != size) || (size <= 0) ||
        (size > GCM_SLOTS_STAGE_PIECE) || ((size & (size - 1)) != 0)) {
        return 0;
    }
    return (size_t)size;
}

int gcm_mpi_coll_allreduce_staged(const void *sendbuf, void *recvbuf,
                                  int count, MPI_Datatype datatype, MPI_Op op,
                                  MPI_Comm comm, const char *call, int *rc_p)
{
    size_t min = gcm_coll_allreduce_staged_min(), esize;
    struct gcm_mpi_coll_cache *c;
    coll_staged_ctx_t ctx = { op, datatype };
    gcm_status_t err;

    /* Every allreduce passes here: the size test comes before the
     * type's and operator's, which only large calls need. */
    if ((min == 0) || (comm->psize != 2) || (count <= 0) ||
        (gcm_mpi_type_size(datatype) <= 0) ||
        ((size_t)count * (size_t)gcm_mpi_type_size(datatype) < min) ||
        (comm->kind != GCM_MPI_COMM_INTRA) ||
        ((esize = coll_staged_esize(datatype, op)) == 0) ||
        ((c = gcm_mpi_coll_cache_of(comm)) == NULL) ||
        (c->staged_state < 0)) {
        return 0;
    }
    if (c->staged_state == 0) {
        err = gcm_lco_stage_open(comm->lco, 1 - comm->prank,
                                 gcm_mpi_coll_tag(comm), &c->staged);
        if (err != GCM_OK) {
            *rc_p = gcm_mpi_coll_result(comm, call, err);
            return 1;
        }
        c->staged_state = (c->staged != NULL) ? 1 : -1;
        if (c->staged == NULL) {
            gcm_debug("coll: allreduce staged area refused, 2 ranks: "
                      "schedules on this communicator");
            return 0;
        }
    }
    gcm_debug("coll: allreduce staged, 2 ranks, %zu bytes",
              (size_t)count * esize);
    err = gcm_lco_stage_allreduce(c->staged, comm->prank,
                                  (sendbuf == MPI_IN_PLACE) ? recvbuf :
                                  sendbuf, recvbuf, (size_t)count, esize,
                                  coll_staged_combine, &ctx);
    if (err != GCM_OK) {
        /* The area's rounds are out of step now: never again here. */
        c->staged_state = -1;
        *rc_p = gcm_mpi_coll_result(comm, call, err);
        return 1;
    }
    *rc_p = MPI_SUCCESS;
    return 1;
}
