/*
 * compat/mpi_coll_all.c: MPI_Allgather(v) and MPI_Alltoall(v,w),
 * with their nonblocking and persistent forms.
 */
#include "config.h"

#include "compat/mpi_coll_impl.h"

#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ---- running a call, its schedule kept or built -------------------------- */

/* What builds an allgather(v) (a2a 0) or an alltoall(v,w) (a2a 1). */
typedef struct coll_all_build {
    int                    a2a;
    const void            *sbuf;
    int                    scount;
    MPI_Datatype           stype;
    void                  *rbuf;
    int                    rcount;
    const int             *rcounts;
    const int             *displs;
    MPI_Datatype           rtype;
    const coll_a2a_side_t *sd, *rd;
} coll_all_build_t;

static void coll_all_build(coll_sched_t *s, const coll_all_build_t *b,
                           MPI_Comm comm)
{
    if (b->a2a != 0) {
        gcm_mpi_coll_build_alltoall(s, b->sd, b->rd, comm);
    } else {
        gcm_mpi_coll_build_allgather(s, b->sbuf, b->scount, b->stype,
                                     b->rbuf, b->rcount, b->rcounts,
                                     b->displs, b->rtype, comm);
    }
}

/* Runs a checked call in mode: blocking and nonblocking calls of a
 * kept collective (which >= 0) take the schedule kept from an earlier
 * call with the same arguments (key; a blocking call's caller looked it
 * up before its checks, which it skipped if found: k), or build it and
 * keep it (mpi_coll_run.c, "schedules kept between calls"); the rest
 * build theirs. */
static int coll_all_run(MPI_Comm comm, int which, const coll_key_t *key,
                        coll_kept_t *k, const coll_all_build_t *b, int mode,
                        MPI_Request *request, const char *call)
{
    coll_sched_t stack, *s;
    coll_got_t g;
    int rc = MPI_SUCCESS;

    if (k != NULL) {
        return gcm_mpi_coll_kept_run(k, comm, call);
    }
    s = gcm_mpi_coll_get(mode, comm, which, key, &stack, &g, call, &rc);
    if (s == NULL) {
        return rc;
    }
    if (!g.hit) {
        coll_all_build(s, b, comm);
    }
    return gcm_mpi_coll_end(mode, s, comm, &g, call, request);
}

/* ---- allgather ------------------------------------------------------------ */

/* Checks of allgather(v): rcounts NULL for allgather. */
static int coll_check_allgather(const void *sendbuf, int sendcount,
                                MPI_Datatype sendtype, void *recvbuf,
                                int recvcount, const int *recvcounts,
                                const int *displs, int is_v,
                                MPI_Datatype recvtype, MPI_Comm comm,
                                const char *call)
{
    coll_layout_t l = { recvbuf, recvcount, recvcounts, displs,
                        CT(recvtype) };
    int rc = gcm_mpi_coll_check_comm(comm, call), n, i;

    if (rc == MPI_SUCCESS) {
        rc = gcm_mpi_coll_no_inter_in_place(comm, call, sendbuf, recvbuf);
    }
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    n = gcm_mpi_coll_is_inter(comm) ? comm->remote_size : comm->psize;
    if (is_v != 0) {
        rc = gcm_mpi_coll_check_array(comm, call, recvcounts, n, 1,
                                      "recvcounts");
        if (rc == MPI_SUCCESS) {
            rc = gcm_mpi_coll_check_array(comm, call, displs, n, 0, "displs");
        }
    } else {
        rc = gcm_mpi_coll_check_count(comm, call, recvcount, "recvcount");
    }
    if (rc == MPI_SUCCESS) {
        rc = gcm_mpi_coll_check_type(comm, call, recvtype, "recvtype");
    }
    if (rc == MPI_SUCCESS && recvbuf == MPI_IN_PLACE) {
        rc = gcm_mpi_raise(comm, MPI_ERR_BUFFER, call,
                           "MPI_IN_PLACE is not allowed as recvbuf");
    }
    for (i = 0; rc == MPI_SUCCESS && i < n; i++) {
        rc = gcm_mpi_coll_check_buf(comm, call, gcm_mpi_coll_blk(&l, i),
                                    gcm_mpi_coll_cnt(&l, i), recvtype, 0,
                                    "recvbuf");
    }
    if (rc == MPI_SUCCESS && sendbuf != MPI_IN_PLACE) {
        rc = gcm_mpi_coll_check_side(comm, call, sendbuf, sendcount, sendtype,
                                     1, "sendbuf");
    }
    return rc;
}

/* Allgather and allgatherv (is_v), in mode. */
static int coll_allgather_any(const void *sendbuf, int sendcount,
                              MPI_Datatype sendtype, void *recvbuf,
                              int recvcount, int is_v, const int *recvcounts,
                              const int *displs, MPI_Datatype recvtype,
                              MPI_Comm comm, int mode, MPI_Info info,
                              MPI_Request *request, const char *call)
{
    coll_all_build_t kb = { 0, sendbuf, sendcount, sendtype, recvbuf,
                            recvcount, recvcounts, displs, recvtype, NULL,
                            NULL };
    coll_kept_t *k;
    coll_key_t key;
    coll_vec_t vec;   /* set for the v forms only: not cleared */
    int which = is_v ? COLL_KEPT_ALLGATHERV : COLL_KEPT_ALLGATHER;
    int rc = gcm_mpi_coll_check_comm(comm, call), check;

    if (rc != MPI_SUCCESS) {
        return rc;
    }
    key = gcm_mpi_coll_key(comm, sendbuf, recvbuf, sendcount, sendtype,
                           MPI_OP_NULL, 0);
    key.rcount = recvcount;
    key.rtype = recvtype;
    if (is_v) {
        /* (Of an intercommunicator, whose schedule is not kept: none.) */
        size_t len = (size_t)comm->psize * sizeof(int);

        vec.n = 0;
        if (!gcm_mpi_coll_is_inter(comm)) {
            gcm_mpi_coll_vec_add(&vec, recvcounts, len);
            gcm_mpi_coll_vec_add(&vec, displs, len);
        }
        key.vec = &vec;
    }
    rc = gcm_mpi_coll_lookup(comm, which, mode, &key, request, &k, &check);
    if (rc != GCM_MPI_COLL_MISS) {
        return rc;
    }
    rc = MPI_SUCCESS;
    if (check) {
        rc = coll_check_allgather(sendbuf, sendcount, sendtype, recvbuf,
                                  recvcount, recvcounts, displs, is_v,
                                  recvtype, comm, call);
    }
    if (rc == MPI_SUCCESS) {
        rc = gcm_mpi_coll_check_mode(comm, call, mode, info, request);
    }
    if (rc == MPI_SUCCESS) {
        rc = GCM_MPI_COLL_VERIFY(comm, call,
            .kind = is_v ? GCM_MPI_COLL_ALLGATHERV : GCM_MPI_COLL_ALLGATHER,
            COLL_VFY_MODE(mode), .sbuf = sendbuf, .scount = sendcount,
            .stype = sendtype, .rcount = recvcount, .rcounts = recvcounts,
            .rtype = recvtype);
    }
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    return coll_all_run(comm, which, &key, k, &kb, mode, request, call);
}

int PMPI_Allgather(const void *sendbuf, int sendcount,
                   MPI_Datatype sendtype, void *recvbuf, int recvcount,
                   MPI_Datatype recvtype, MPI_Comm comm)
{
    return coll_allgather_any(sendbuf, sendcount, sendtype, recvbuf,
                              recvcount, 0, NULL, NULL, recvtype, comm,
                              COLL_BLOCKING, MPI_INFO_NULL, NULL,
                              "MPI_Allgather");
}
GCM_MPI_ALIAS(Allgather)

int PMPI_Iallgather(const void *sendbuf, int sendcount,
                    MPI_Datatype sendtype, void *recvbuf, int recvcount,
                    MPI_Datatype recvtype, MPI_Comm comm,
                    MPI_Request *request)
{
    return coll_allgather_any(sendbuf, sendcount, sendtype, recvbuf,
                              recvcount, 0, NULL, NULL, recvtype, comm,
                              COLL_NONBLOCKING, MPI_INFO_NULL, request,
                              "MPI_Iallgather");
}
GCM_MPI_ALIAS(Iallgather)

int PMPI_Allgather_init(const void *sendbuf, int sendcount,
                        MPI_Datatype sendtype, void *recvbuf, int recvcount,
                        MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                        MPI_Request *request)
{
    return coll_allgather_any(sendbuf, sendcount, sendtype, recvbuf,
                              recvcount, 0, NULL, NULL, recvtype, comm,
                              COLL_PERSISTENT, info, request,
                              "MPI_Allgather_init");
}
GCM_MPI_ALIAS(Allgather_init)

int PMPI_Allgatherv(const void *sendbuf, int sendcount,
                    MPI_Datatype sendtype, void *recvbuf,
                    const int recvcounts[], const int displs[],
                    MPI_Datatype recvtype, MPI_Comm comm)
{
    return coll_allgather_any(sendbuf, sendcount, sendtype, recvbuf, 0, 1,
                              recvcounts, displs, recvtype, comm,
                              COLL_BLOCKING, MPI_INFO_NULL, NULL,
                              "MPI_Allgatherv");
}
GCM_MPI_ALIAS(Allgatherv)

int PMPI_Iallgatherv(const void *sendbuf, int sendcount,
                     MPI_Datatype sendtype, void *recvbuf,
                     const int recvcounts[], const int displs[],
                     MPI_Datatype recvtype, MPI_Comm comm,
                     MPI_Request *request)
{
    return coll_allgather_any(sendbuf, sendcount, sendtype, recvbuf, 0, 1,
                              recvcounts, displs, recvtype, comm,
                              COLL_NONBLOCKING, MPI_INFO_NULL, request,
                              "MPI_Iallgatherv");
}
GCM_MPI_ALIAS(Iallgatherv)

int PMPI_Allgatherv_init(const void *sendbuf, int sendcount,
                         MPI_Datatype sendtype, void *recvbuf,
                         const int recvcounts[], const int displs[],
                         MPI_Datatype recvtype, MPI_Comm comm,
                         MPI_Info info, MPI_Request *request)
{
    return coll_allgather_any(sendbuf, sendcount, sendtype, recvbuf, 0, 1,
                              recvcounts, displs, recvtype, comm,
                              COLL_PERSISTENT, info, request,
                              "MPI_Allgatherv_init");
}
GCM_MPI_ALIAS(Allgatherv_init)

/* ---- alltoall ------------------------------------------------------------- */

/* Checks of one side of alltoall(v,w): counts/displs/types NULL select
 * the simpler forms. */
static int coll_check_a2a_side(MPI_Comm comm, const char *call,
                               const coll_a2a_side_t *d, int n, int is_v,
                               int is_w, int in_place_ok, const char *what)
{
    int rc = MPI_SUCCESS, i;

    if (d->buf == MPI_IN_PLACE) {
        if (in_place_ok != 0) {
            return MPI_SUCCESS;
        }
        return gcm_mpi_raise(comm, MPI_ERR_BUFFER, call,
                             "MPI_IN_PLACE is not allowed as %s", what);
    }
    if (is_v != 0) {
        rc = gcm_mpi_coll_check_array(comm, call, d->counts, n, 1, "counts");
        if (rc == MPI_SUCCESS) {
            rc = gcm_mpi_coll_check_array(comm, call, d->displs, n, 0,
                                          "displacements");
        }
    } else {
        rc = gcm_mpi_coll_check_count(comm, call, d->count, "count");
    }
    if (rc == MPI_SUCCESS && is_w != 0 && d->types == NULL && n > 0) {
        rc = gcm_mpi_raise(comm, MPI_ERR_ARG, call, "datatypes is NULL");
    }
    for (i = 0; rc == MPI_SUCCESS && i < n; i++) {
        rc = gcm_mpi_coll_check_type(comm, call,
                                     (is_w != 0) ? d->types[i] : d->type,
                                     "datatype");
        if (is_w == 0) {
            break;
        }
    }
    for (i = 0; rc == MPI_SUCCESS && i < n; i++) {
        rc = gcm_mpi_coll_check_buf(
            comm, call, d->buf, (is_v != 0) ? d->counts[i] : d->count,
            (is_w != 0) ? d->types[i] : d->type, 0, what);
    }
    return rc;
}

/* The checks of alltoall(v,w) after the communicator's. */
static int coll_check_a2a(const coll_a2a_side_t *sd,
                          const coll_a2a_side_t *rd, int is_v, int is_w,
                          MPI_Comm comm, const char *call)
{
    int rc = gcm_mpi_coll_no_inter_in_place(comm, call, sd->buf, rd->buf), n;

    if (rc != MPI_SUCCESS) {
        return rc;
    }
    n = gcm_mpi_coll_is_inter(comm) ? comm->remote_size : comm->psize;
    rc = coll_check_a2a_side(comm, call, rd, n, is_v, is_w, 0, "recvbuf");
    if (rc == MPI_SUCCESS) {
        rc = coll_check_a2a_side(comm, call, sd, n, is_v, is_w, 1,
                                 "sendbuf");
    }
    return rc;
}

/* The arrays of one side of alltoallv or alltoallw (is_w), of n peers,
 * added to v. */
static void coll_a2a_vec(const coll_a2a_side_t *d, int n, int is_w,
                         coll_vec_t *v)
{
    size_t len = (size_t)n * sizeof(int);

    gcm_mpi_coll_vec_add(v, d->counts, len);
    gcm_mpi_coll_vec_add(v, d->displs, len);
    if (is_w != 0) {
        gcm_mpi_coll_vec_add(v, d->types, (size_t)n * sizeof(MPI_Datatype));
    }
}

static int coll_alltoall_any(const coll_a2a_side_t *sd,
                             const coll_a2a_side_t *rd, int is_v, int is_w,
                             MPI_Comm comm, int mode, MPI_Info info,
                             MPI_Request *request, const char *call)
{
    coll_all_build_t kb = { 1, NULL, 0, MPI_DATATYPE_NULL, NULL, 0, NULL,
                            NULL, MPI_DATATYPE_NULL, sd, rd };
    coll_kept_t *k;
    coll_key_t key;
    coll_vec_t vec;   /* set for the v forms only: not cleared */
    int which = is_w ? COLL_KEPT_ALLTOALLW :
                is_v ? COLL_KEPT_ALLTOALLV : COLL_KEPT_ALLTOALL;
    int rc = gcm_mpi_coll_check_comm(comm, call), check;

    if (rc != MPI_SUCCESS) {
        return rc;
    }
    key = gcm_mpi_coll_key(comm, sd->buf, (void *)rd->buf, sd->count,
                           sd->type, MPI_OP_NULL, 0);
    key.rcount = rd->count;
    key.rtype = rd->type;
    if (is_v) {
        vec.n = 0;
        if (!gcm_mpi_coll_is_inter(comm)) {
            coll_a2a_vec(rd, comm->psize, is_w, &vec);
            if (sd->buf != MPI_IN_PLACE) {
                coll_a2a_vec(sd, comm->psize, is_w, &vec);
            }
        }
        key.vec = &vec;
    }
    rc = gcm_mpi_coll_lookup(comm, which, mode, &key, request, &k, &check);
    if (rc != GCM_MPI_COLL_MISS) {
        return rc;
    }
    rc = MPI_SUCCESS;
    if (check) {
        rc = coll_check_a2a(sd, rd, is_v, is_w, comm, call);
    }
    if (rc == MPI_SUCCESS) {
        rc = gcm_mpi_coll_check_mode(comm, call, mode, info, request);
    }
    if (rc == MPI_SUCCESS) {
        rc = GCM_MPI_COLL_VERIFY(comm, call,
            .kind = is_w ? GCM_MPI_COLL_ALLTOALLW :
                    is_v ? GCM_MPI_COLL_ALLTOALLV : GCM_MPI_COLL_ALLTOALL,
            COLL_VFY_MODE(mode), .sbuf = sd->buf,
            .scount = sd->count, .scounts = sd->counts, .stype = sd->type,
            .stypes = sd->types, .rbuf = rd->buf, .rcount = rd->count,
            .rcounts = rd->counts, .rtype = rd->type, .rtypes = rd->types);
    }
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    /* The w form is kept with predefined types only (the handles that
     * always mean the same; a kept one's arrays hold only those). */
    if (k == NULL && is_w && !gcm_mpi_coll_vec_predefined(&vec)) {
        which = -1;
    }
    return coll_all_run(comm, which, &key, k, &kb, mode, request, call);
}

/* The sides of alltoall, alltoallv and alltoallw from their arguments. */
#define COLL_A2A()                                                           \
    coll_a2a_side_t sd = { sendbuf, sendcount, NULL, NULL, sendtype, NULL }; \
    coll_a2a_side_t rd = { recvbuf, recvcount, NULL, NULL, recvtype, NULL }
#define COLL_A2AV()                                                          \
    coll_a2a_side_t sd = { sendbuf, 0, sendcounts, sdispls, sendtype,        \
                           NULL };                                           \
    coll_a2a_side_t rd = { recvbuf, 0, recvcounts, rdispls, recvtype, NULL }
#define COLL_A2AW()                                                          \
    coll_a2a_side_t sd = { sendbuf, 0, sendcounts, sdispls,                  \
                           MPI_DATATYPE_NULL, sendtypes };                   \
    coll_a2a_side_t rd = { recvbuf, 0, recvcounts, rdispls,                  \
                           MPI_DATATYPE_NULL, recvtypes }

int PMPI_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                  void *recvbuf, int recvcount, MPI_Datatype recvtype,
                  MPI_Comm comm)
{
    COLL_A2A();

    return coll_alltoall_any(&sd, &rd, 0, 0, comm, COLL_BLOCKING,
                             MPI_INFO_NULL, NULL, "MPI_Alltoall");
}
GCM_MPI_ALIAS(Alltoall)

int PMPI_Ialltoall(const void *sendbuf, int sendcount,
                   MPI_Datatype sendtype, void *recvbuf, int recvcount,
                   MPI_Datatype recvtype, MPI_Comm comm,
                   MPI_Request *request)
{
    COLL_A2A();

    return coll_alltoall_any(&sd, &rd, 0, 0, comm, COLL_NONBLOCKING,
                             MPI_INFO_NULL, request, "MPI_Ialltoall");
}
GCM_MPI_ALIAS(Ialltoall)

int PMPI_Alltoall_init(const void *sendbuf, int sendcount,
                       MPI_Datatype sendtype, void *recvbuf, int recvcount,
                       MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                       MPI_Request *request)
{
    COLL_A2A();

    return coll_alltoall_any(&sd, &rd, 0, 0, comm, COLL_PERSISTENT, info,
                             request, "MPI_Alltoall_init");
}
GCM_MPI_ALIAS(Alltoall_init)

int PMPI_Alltoallv(const void *sendbuf, const int sendcounts[],
                   const int sdispls[], MPI_Datatype sendtype,
                   void *recvbuf, const int recvcounts[],
                   const int rdispls[], MPI_Datatype recvtype,
                   MPI_Comm comm)
{
    COLL_A2AV();

    return coll_alltoall_any(&sd, &rd, 1, 0, comm, COLL_BLOCKING,
                             MPI_INFO_NULL, NULL, "MPI_Alltoallv");
}
GCM_MPI_ALIAS(Alltoallv)

int PMPI_Ialltoallv(const void *sendbuf, const int sendcounts[],
                    const int sdispls[], MPI_Datatype sendtype,
                    void *recvbuf, const int recvcounts[],
                    const int rdispls[], MPI_Datatype recvtype,
                    MPI_Comm comm, MPI_Request *request)
{
    COLL_A2AV();

    return coll_alltoall_any(&sd, &rd, 1, 0, comm, COLL_NONBLOCKING,
                             MPI_INFO_NULL, request, "MPI_Ialltoallv");
}
GCM_MPI_ALIAS(Ialltoallv)

int PMPI_Alltoallv_init(const void *sendbuf, const int sendcounts[],
                        const int sdispls[], MPI_Datatype sendtype,
                        void *recvbuf, const int recvcounts[],
                        const int rdispls[], MPI_Datatype recvtype,
                        MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    COLL_A2AV();

    return coll_alltoall_any(&sd, &rd, 1, 0, comm, COLL_PERSISTENT, info,
                             request, "MPI_Alltoallv_init");
}
GCM_MPI_ALIAS(Alltoallv_init)

int PMPI_Alltoallw(const void *sendbuf, const int sendcounts[],
                   const int sdispls[], const MPI_Datatype sendtypes[],
                   void *recvbuf, const int recvcounts[],
                   const int rdispls[], const MPI_Datatype recvtypes[],
                   MPI_Comm comm)
{
    COLL_A2AW();

    return coll_alltoall_any(&sd, &rd, 1, 1, comm, COLL_BLOCKING,
                             MPI_INFO_NULL, NULL, "MPI_Alltoallw");
}
GCM_MPI_ALIAS(Alltoallw)

int PMPI_Ialltoallw(const void *sendbuf, const int sendcounts[],
                    const int sdispls[], const MPI_Datatype sendtypes[],
                    void *recvbuf, const int recvcounts[],
                    const int rdispls[], const MPI_Datatype recvtypes[],
                    MPI_Comm comm, MPI_Request *request)
{
    COLL_A2AW();

    return coll_alltoall_any(&sd, &rd, 1, 1, comm, COLL_NONBLOCKING,
                             MPI_INFO_NULL, request, "MPI_Ialltoallw");
}
GCM_MPI_ALIAS(Ialltoallw)

int PMPI_Alltoallw_init(const void *sendbuf, const int sendcounts[],
                        const int sdispls[], const MPI_Datatype sendtypes[],
                        void *recvbuf, const int recvcounts[],
                        const int rdispls[], const MPI_Datatype recvtypes[],
                        MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    COLL_A2AW();

    return coll_alltoall_any(&sd, &rd, 1, 1, comm, COLL_PERSISTENT, info,
                             request, "MPI_Alltoallw_init");
}
GCM_MPI_ALIAS(Alltoallw_init)
