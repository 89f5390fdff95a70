/*
 * compat/mpi_coll_reduce.c: the reductions: MPI_Reduce,
 * MPI_Allreduce, MPI_Scan, MPI_Exscan, MPI_Reduce_scatter(_block), with
 * their nonblocking forms.
 */
#include "config.h"

#include "compat/mpi_coll_impl.h"

#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Reduce: sendbuf may be MPI_IN_PLACE at the root (intra only). */
static int coll_check_reduce(const void *sendbuf, void *recvbuf, int count,
                             MPI_Datatype datatype, MPI_Op op, int root,
                             MPI_Comm comm, const char *call)
{
    int rc = gcm_mpi_coll_check_comm(comm, call);

    if (rc == MPI_SUCCESS) {
        rc = gcm_mpi_coll_check_root(comm, call, root);
    }
    if (rc == MPI_SUCCESS) {
        rc = gcm_mpi_coll_no_inter_in_place(comm, call, sendbuf, recvbuf);
    }
    if (rc != MPI_SUCCESS ||
        (gcm_mpi_coll_is_inter(comm) && root == MPI_PROC_NULL)) {
        return rc;
    }
    rc = gcm_mpi_coll_check_reduction(comm, call, count, datatype, op);
    if (rc == MPI_SUCCESS && gcm_mpi_coll_am_root(comm, root)) {
        rc = gcm_mpi_coll_check_buf(comm, call, recvbuf, count, datatype, 0,
                                    "recvbuf");
    }
    if (rc == MPI_SUCCESS &&
        !(gcm_mpi_coll_is_inter(comm) && root == MPI_ROOT)) {
        rc =
            gcm_mpi_coll_check_buf(comm, call, sendbuf, count, datatype,
                                   gcm_mpi_coll_am_root(comm, root), "sendbuf");
    }
    return rc;
}

int PMPI_Reduce(const void *sendbuf, void *recvbuf, int count,
                MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm)
{
    static const char call[] = "MPI_Reduce";
    coll_sched_t s, *sp;
    coll_key_t key;
    unsigned seq0;
    int hit;
    int rc = coll_check_reduce(sendbuf, recvbuf, count, datatype, op, root,
                               comm, call);

    if (rc == MPI_SUCCESS) {
        rc = GCM_MPI_COLL_VERIFY(comm, call, .kind = GCM_MPI_COLL_REDUCE,
                                 .root = root, .op = op, .scount = count,
                                 .stype = datatype);
    }
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    key = gcm_mpi_coll_key(comm, sendbuf, recvbuf, count, datatype, op, root);
    seq0 = atomic_load_explicit(&comm->coll_seq, memory_order_relaxed);
    sp = gcm_mpi_coll_kept_get(comm, COLL_KEPT_REDUCE, &key, &s, &hit);
    if (!hit) {
        gcm_mpi_coll_build_reduce(sp, sendbuf, recvbuf, count, datatype, op,
                                  root, comm);
    }
    return gcm_mpi_coll_finish_kept(sp, comm, COLL_KEPT_REDUCE, hit, seq0,
                                    call);
}
GCM_MPI_ALIAS(Reduce)

int PMPI_Ireduce(const void *sendbuf, void *recvbuf, int count,
                 MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm,
                 MPI_Request *request)
{
    static const char call[] = "MPI_Ireduce";
    coll_sched_t *s;
    int rc = coll_check_reduce(sendbuf, recvbuf, count, datatype, op, root,
                               comm, call);

    if (rc == MPI_SUCCESS) {
        rc = gcm_mpi_coll_check_req(comm, call, request);
    }
    if (rc == MPI_SUCCESS) {
        rc = GCM_MPI_COLL_VERIFY(comm, call, .kind = GCM_MPI_COLL_REDUCE,
                                 .nonblocking = 1, .root = root, .op = op,
                                 .scount = count, .stype = datatype);
    }
    if (rc != MPI_SUCCESS || (s = gcm_mpi_coll_new(comm, call, &rc)) == NULL) {
        return rc;
    }
    gcm_mpi_coll_build_reduce(s, sendbuf, recvbuf, count, datatype, op, root,
                              comm);
    return gcm_mpi_coll_start(s, comm, call, request);
}
GCM_MPI_ALIAS(Ireduce)

/* Allreduce, scan, exscan: sendbuf may be MPI_IN_PLACE (intra). */
static int coll_check_allreduce(const void *sendbuf, void *recvbuf,
                                int count, MPI_Datatype datatype, MPI_Op op,
                                MPI_Comm comm, int inter_ok,
                                const char *call)
{
    int rc = gcm_mpi_coll_check_comm(comm, call);

    if (rc == MPI_SUCCESS && inter_ok == 0 && gcm_mpi_coll_is_inter(comm)) {
        rc = gcm_mpi_raise(comm, MPI_ERR_COMM, call,
                           "not defined on an intercommunicator");
    }
    if (rc == MPI_SUCCESS) {
        rc = gcm_mpi_coll_no_inter_in_place(comm, call, sendbuf, recvbuf);
    }
    if (rc == MPI_SUCCESS) {
        rc = gcm_mpi_coll_check_reduction(comm, call, count, datatype, op);
    }
    if (rc == MPI_SUCCESS) {
        rc = gcm_mpi_coll_check_buf(comm, call, recvbuf, count, datatype, 0,
                                    "recvbuf");
    }
    if (rc == MPI_SUCCESS) {
        rc = gcm_mpi_coll_check_buf(comm, call, sendbuf, count, datatype, 1,
                                    "sendbuf");
    }
    return rc;
}

int PMPI_Allreduce(const void *sendbuf, void *recvbuf, int count,
                   MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    static const char call[] = "MPI_Allreduce";
    coll_sched_t s, *sp;
    coll_key_t key;
    unsigned seq0;
    int hit;
    int rc = coll_check_allreduce(sendbuf, recvbuf, count, datatype, op,
                                  comm, 1, call);

    if (rc == MPI_SUCCESS) {
        rc = GCM_MPI_COLL_VERIFY(comm, call, .kind = GCM_MPI_COLL_ALLREDUCE,
                                 .op = op, .scount = count,
                                 .stype = datatype);
    }
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    key = gcm_mpi_coll_key(comm, sendbuf, recvbuf, count, datatype, op, 0);
    seq0 = atomic_load_explicit(&comm->coll_seq, memory_order_relaxed);
    sp = gcm_mpi_coll_kept_get(comm, COLL_KEPT_ALLREDUCE, &key, &s, &hit);
    if (!hit) {
        gcm_mpi_coll_build_allreduce(sp, sendbuf, recvbuf, count, datatype, op,
                                     comm);
    }
    return gcm_mpi_coll_finish_kept(sp, comm, COLL_KEPT_ALLREDUCE, hit, seq0,
                                    call);
}
GCM_MPI_ALIAS(Allreduce)

int PMPI_Iallreduce(const void *sendbuf, void *recvbuf, int count,
                    MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                    MPI_Request *request)
{
    static const char call[] = "MPI_Iallreduce";
    coll_sched_t *s;
    int rc = coll_check_allreduce(sendbuf, recvbuf, count, datatype, op,
                                  comm, 1, call);

    if (rc == MPI_SUCCESS) {
        rc = gcm_mpi_coll_check_req(comm, call, request);
    }
    if (rc == MPI_SUCCESS) {
        rc = GCM_MPI_COLL_VERIFY(comm, call, .kind = GCM_MPI_COLL_ALLREDUCE,
                                 .nonblocking = 1, .op = op, .scount = count,
                                 .stype = datatype);
    }
    if (rc != MPI_SUCCESS || (s = gcm_mpi_coll_new(comm, call, &rc)) == NULL) {
        return rc;
    }
    gcm_mpi_coll_build_allreduce(s, sendbuf, recvbuf, count, datatype, op,
                                 comm);
    return gcm_mpi_coll_start(s, comm, call, request);
}
GCM_MPI_ALIAS(Iallreduce)

static int coll_scan_any(const void *sendbuf, void *recvbuf, int count,
                         MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                         int exclusive, const char *call)
{
    coll_sched_t s;
    int rc = coll_check_allreduce(sendbuf, recvbuf, count, datatype, op,
                                  comm, 0, call);

    if (rc == MPI_SUCCESS) {
        rc = GCM_MPI_COLL_VERIFY(comm, call,
            .kind = exclusive ? GCM_MPI_COLL_EXSCAN : GCM_MPI_COLL_SCAN,
            .op = op, .scount = count, .stype = datatype);
    }
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    gcm_mpi_coll_sched_init(&s);
    gcm_mpi_coll_build_scan(&s, sendbuf, recvbuf, count, datatype, op, comm,
                            exclusive);
    return gcm_mpi_coll_finish(&s, comm, call);
}

int PMPI_Scan(const void *sendbuf, void *recvbuf, int count,
              MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    return coll_scan_any(sendbuf, recvbuf, count, datatype, op, comm, 0,
                         "MPI_Scan");
}
GCM_MPI_ALIAS(Scan)

int PMPI_Exscan(const void *sendbuf, void *recvbuf, int count,
                MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    return coll_scan_any(sendbuf, recvbuf, count, datatype, op, comm, 1,
                         "MPI_Exscan");
}
GCM_MPI_ALIAS(Exscan)

/* Reduce_scatter(_block): rcounts NULL: the same rcount for everyone
 * (reduce_scatter_block). */
static int coll_reduce_scatter_any(const void *sendbuf, void *recvbuf,
                                   int rcount, const int *rcounts,
                                   MPI_Datatype datatype, MPI_Op op,
                                   MPI_Comm comm, const char *call)
{
    coll_sched_t s;
    long long total = 0;
    int rc = gcm_mpi_coll_check_comm(comm, call), i, n, mine;

    if (rc == MPI_SUCCESS && gcm_mpi_coll_is_inter(comm)) {
        rc = gcm_mpi_raise(comm, MPI_ERR_COMM, call,
                           "intercommunicators are not supported here");
    }
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    n = comm->psize;
    if (rcounts != NULL) {
        rc = gcm_mpi_coll_check_array(comm, call, rcounts, n, 1, "recvcounts");
    } else {
        rc = gcm_mpi_coll_check_count(comm, call, rcount, "recvcount");
    }
    for (i = 0; rc == MPI_SUCCESS && i < n; i++) {
        total += (rcounts != NULL) ? rcounts[i] : rcount;
    }
    if (rc == MPI_SUCCESS && total > INT_MAX) {
        rc = gcm_mpi_raise(comm, MPI_ERR_COUNT, call,
                           "the counts add up to %lld, more than an int",
                           total);
    }
    if (rc == MPI_SUCCESS) {
        rc = gcm_mpi_coll_check_reduction(comm, call, (int)total, datatype, op);
    }
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    mine = (rcounts != NULL) ? rcounts[comm->prank] : rcount;
    if (rc == MPI_SUCCESS) {
        rc = gcm_mpi_coll_check_buf(comm, call, recvbuf, mine, datatype, 0,
                                    "recvbuf");
    }
    if (rc == MPI_SUCCESS) {
        rc = gcm_mpi_coll_check_buf(comm, call, sendbuf, (int)total, datatype,
                                    1, "sendbuf");
    }
    if (rc == MPI_SUCCESS) {
        rc = GCM_MPI_COLL_VERIFY(comm, call,
            .kind = (rcounts != NULL) ? GCM_MPI_COLL_REDUCE_SCATTER :
                                        GCM_MPI_COLL_REDUCE_SCATTER_BLOCK,
            .op = op, .scount = rcount, .scounts = rcounts,
            .stype = datatype);
    }
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    gcm_mpi_coll_sched_init(&s);
    gcm_mpi_coll_build_reduce_scatter(&s, sendbuf, recvbuf, rcount, rcounts,
                                      datatype, op, comm);
    return gcm_mpi_coll_finish(&s, comm, call);
}

int PMPI_Reduce_scatter(const void *sendbuf, void *recvbuf,
                        const int recvcounts[], MPI_Datatype datatype,
                        MPI_Op op, MPI_Comm comm)
{
    static const char call[] = "MPI_Reduce_scatter";

    if (recvcounts == NULL) {
        int rc = gcm_mpi_coll_check_comm(comm, call);

        if (rc != MPI_SUCCESS) {
            return rc;
        }
        return gcm_mpi_raise(comm, MPI_ERR_ARG, call, "recvcounts is NULL");
    }
    return coll_reduce_scatter_any(sendbuf, recvbuf, 0, recvcounts, datatype,
                                   op, comm, call);
}
GCM_MPI_ALIAS(Reduce_scatter)

int PMPI_Reduce_scatter_block(const void *sendbuf, void *recvbuf,
                              int recvcount, MPI_Datatype datatype,
                              MPI_Op op, MPI_Comm comm)
{
    return coll_reduce_scatter_any(sendbuf, recvbuf, recvcount, NULL,
                                   datatype, op, comm,
                                   "MPI_Reduce_scatter_block");
}
GCM_MPI_ALIAS(Reduce_scatter_block)
