/*
 * compat/mpi_coll_launch.c: the three forms of a collective call
 * (mpi_coll_impl.h): the schedule a call builds in, the tag its groups
 * take (persistent collectives have tags of their own), its launch, and
 * running a blocking call's schedule to its end.
 */
#include "config.h"

#include "compat/mpi_coll_impl.h"

#include <stdatomic.h>

/* ---- running a built schedule ------------------------------------------- */

int gcm_mpi_coll_result(MPI_Comm comm, const char *call,
                        gcm_status_t err)
{
    if (gcm_mpi_errclass(err) != MPI_SUCCESS) {
        return gcm_mpi_raise(comm, gcm_mpi_errclass(err), call,
                             "a transfer of the collective failed: %s",
                             gcm_status_string(err));
    }
    return MPI_SUCCESS;
}

/* Runs a built schedule to its end and frees it; raises what went
 * wrong. */
int gcm_mpi_coll_finish(coll_sched_t *s, MPI_Comm comm, const char *call)
{
    gcm_status_t err;

    if (s->nomem != 0) {
        gcm_coll_sched_free(s);
        return gcm_mpi_raise(comm, MPI_ERR_NO_MEM, call,
                             "cannot allocate the collective's schedule");
    }
    (void)gcm_coll_sched_advance(s, 1);
    err = s->err;
    gcm_coll_sched_free(s);
    return gcm_mpi_coll_result(comm, call, err);
}

/* ---- persistent collectives -------------------------------------------
 *
 * MPI_Bcast_init and its kin (MPI-4.0 6.13) build the schedule once, as
 * the nonblocking form does, and keep it in an inactive persistent
 * request; each MPI_Start runs it again from its first step, reading the
 * buffers as it goes (nothing of their contents is kept in the schedule),
 * and completion makes the request inactive again. MPI_Request_free frees
 * the schedule.
 *
 * MPI orders the _init calls on a communicator like other collectives,
 * but not the starts: processes may start two persistent collectives in
 * different orders, and their traffic must not meet. So each one keeps
 * for its lifetime a tag of its own, from a range of its own
 * (GCM_MPI_TAG_PERSISTENT), numbered by the communicator's count of
 * persistent collectives: the same tag in every member. Successive
 * starts of one request need no other tag: a member starts it again only
 * once its part of the previous run is complete, and the messages of two
 * runs between two members arrive in the order they were sent.
 */

/* Set while a persistent collective is built by this thread: its groups
 * then take persistent tags (and ptag_nomem says one could not be). */
static _Thread_local int coll_ptags GCM_TLS_HOT;
static _Thread_local int coll_ptag_nomem GCM_TLS_HOT;

int gcm_mpi_coll_call_tag(MPI_Comm comm)
{
    struct gcm_mpi_coll_cache *c;
    unsigned n = (unsigned)(GCM_COLL_TAG_GENERAL - GCM_MPI_TAG_PERSISTENT);

    if (coll_ptags == 0) {
        return gcm_mpi_coll_tag(comm);
    }
    c = gcm_mpi_coll_cache_of(comm);
    if (c == NULL) {
        coll_ptag_nomem = 1;
        return GCM_MPI_TAG_PERSISTENT;
    }
    return GCM_MPI_TAG_PERSISTENT + (int)(c->pseq++ % n);
}

coll_sched_t *gcm_mpi_coll_sched_for(int mode, MPI_Comm comm,
                                     const char *call, coll_sched_t *s_stack,
                                     int *rc_p)
{
    coll_sched_t *s;

    if (mode == COLL_BLOCKING) {
        gcm_mpi_coll_sched_init(s_stack);
        return s_stack;
    }
    s = gcm_mpi_coll_new(comm, call, rc_p);
    if (s != NULL && mode == COLL_PERSISTENT) {
        coll_ptags = 1;
        coll_ptag_nomem = 0;
    }
    return s;
}

int gcm_mpi_coll_launch(int mode, coll_sched_t *s, MPI_Comm comm,
                        const char *call, MPI_Request *request)
{
    switch (mode) {
    case COLL_BLOCKING:
        return gcm_mpi_coll_finish(s, comm, call);
    case COLL_NONBLOCKING:
        return gcm_mpi_coll_start(s, comm, call, request);
    default:
        coll_ptags = 0;
        if (coll_ptag_nomem != 0) {
            s->nomem = 1;
        }
        return gcm_mpi_coll_persist(s, comm, call, request);
    }
}

/* ---- a call's schedule, kept or built ----------------------------------- */

coll_sched_t *gcm_mpi_coll_get(int mode, MPI_Comm comm, int which,
                               const coll_key_t *key, coll_sched_t *s_stack,
                               coll_got_t *g, const char *call, int *rc_p)
{
    g->which = (mode == COLL_PERSISTENT) ? -1 : which;
    g->hit = 0;
    g->seq0 = 0;
    if (g->which < 0) {
        return gcm_mpi_coll_sched_for(mode, comm, call, s_stack, rc_p);
    }
    if (mode == COLL_NONBLOCKING) {
        return gcm_mpi_coll_nb_get(comm, which, key, &g->hit, call, rc_p);
    }
    g->seq0 = atomic_load_explicit(&comm->coll_seq, memory_order_relaxed);
    return gcm_mpi_coll_kept_get(comm, which, key, s_stack, &g->hit);
}

int gcm_mpi_coll_end(int mode, coll_sched_t *s, MPI_Comm comm,
                     const coll_got_t *g, const char *call,
                     MPI_Request *request)
{
    if (mode == COLL_BLOCKING && g->which >= 0) {
        return gcm_mpi_coll_finish_kept(s, comm, g->which, g->hit, g->seq0,
                                        call);
    }
    return gcm_mpi_coll_launch(mode, s, comm, call, request);
}
