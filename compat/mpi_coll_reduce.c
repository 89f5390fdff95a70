/*
 * compat/mpi_coll_reduce.c: the reductions: MPI_Reduce,
 * MPI_Allreduce, MPI_Scan, MPI_Exscan, MPI_Reduce_scatter(_block), with
 * their nonblocking and persistent forms.
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
    coll_kept_t *k;
    coll_key_t key;
    unsigned seq0;
    int hit;
    int rc = gcm_mpi_coll_check_comm(comm, call);

    if (rc != MPI_SUCCESS) {
        return rc;
    }
    key = gcm_mpi_coll_key(comm, sendbuf, recvbuf, count, datatype, op, root);
    k = gcm_mpi_coll_kept_find(comm, COLL_KEPT_REDUCE, &key);
    if (k == NULL &&
        !gcm_mpi_coll_kept_same(comm, COLL_KEPT_REDUCE, COLL_BLOCKING, &key)) {
        rc = coll_check_reduce(sendbuf, recvbuf, count, datatype, op, root,
                               comm, call);
    }
    if (rc == MPI_SUCCESS) {
        rc = GCM_MPI_COLL_VERIFY(comm, call, .kind = GCM_MPI_COLL_REDUCE,
                                 .root = root, .op = op, .scount = count,
                                 .stype = datatype);
    }
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (k != NULL) {
        return gcm_mpi_coll_kept_run(k, comm, call);
    }
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

/* The nonblocking and persistent forms (the blocking one keeps its
 * schedule between calls: PMPI_Reduce). */
static int coll_reduce_any(const void *sendbuf, void *recvbuf, int count,
                           MPI_Datatype datatype, MPI_Op op, int root,
                           MPI_Comm comm, int mode, MPI_Info info,
                           MPI_Request *request, const char *call)
{
    coll_sched_t stack, *s;
    coll_key_t key;
    int hit = 0;
    int rc = gcm_mpi_coll_check_comm(comm, call);

    if (rc != MPI_SUCCESS) {
        return rc;
    }
    key = gcm_mpi_coll_key(comm, sendbuf, recvbuf, count, datatype, op, root);
    if (mode == COLL_NONBLOCKING) {
        rc = gcm_mpi_coll_nb_again(comm, COLL_KEPT_REDUCE, &key, request);
        if (rc != GCM_MPI_COLL_MISS) {
            return rc;
        }
        rc = MPI_SUCCESS;
    }
    if (!gcm_mpi_coll_kept_same(comm, COLL_KEPT_REDUCE, mode, &key)) {
        rc = coll_check_reduce(sendbuf, recvbuf, count, datatype, op, root,
                               comm, call);
    }
    if (rc == MPI_SUCCESS) {
        rc = gcm_mpi_coll_check_mode(comm, call, mode, info, request);
    }
    if (rc == MPI_SUCCESS) {
        rc = GCM_MPI_COLL_VERIFY(comm, call, .kind = GCM_MPI_COLL_REDUCE,
                                 COLL_VFY_MODE(mode), .root = root, .op = op,
                                 .scount = count, .stype = datatype);
    }
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (mode == COLL_NONBLOCKING) {
        s = gcm_mpi_coll_nb_get(comm, COLL_KEPT_REDUCE, &key, &hit, call,
                                &rc);
    } else {
        s = gcm_mpi_coll_sched_for(mode, comm, call, &stack, &rc);
    }
    if (s == NULL) {
        return rc;
    }
    if (!hit) {
        gcm_mpi_coll_build_reduce(s, sendbuf, recvbuf, count, datatype, op,
                                  root, comm);
    }
    return gcm_mpi_coll_launch(mode, s, comm, call, request);
}

int PMPI_Ireduce(const void *sendbuf, void *recvbuf, int count,
                 MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm,
                 MPI_Request *request)
{
    int rc = gcm_mpi_coll_nb_first(comm, COLL_KEPT_REDUCE, sendbuf, recvbuf,
                                   count, datatype, op, root, request);

    if (rc != GCM_MPI_COLL_MISS) {
        return rc;
    }
    return coll_reduce_any(sendbuf, recvbuf, count, datatype, op, root, comm,
                           COLL_NONBLOCKING, MPI_INFO_NULL, request,
                           "MPI_Ireduce");
}
GCM_MPI_ALIAS(Ireduce)

int PMPI_Reduce_init(const void *sendbuf, void *recvbuf, int count,
                     MPI_Datatype datatype, MPI_Op op, int root,
                     MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    return coll_reduce_any(sendbuf, recvbuf, count, datatype, op, root, comm,
                           COLL_PERSISTENT, info, request,
                           "MPI_Reduce_init");
}
GCM_MPI_ALIAS(Reduce_init)

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
    coll_kept_t *k;
    coll_key_t key;
    unsigned seq0;
    int hit;
    int rc = gcm_mpi_coll_check_comm(comm, call);

    if (rc != MPI_SUCCESS) {
        return rc;
    }
    key = gcm_mpi_coll_key(comm, sendbuf, recvbuf, count, datatype, op, 0);
    k = gcm_mpi_coll_kept_find(comm, COLL_KEPT_ALLREDUCE, &key);
    if (k == NULL &&
        !gcm_mpi_coll_kept_same(comm, COLL_KEPT_ALLREDUCE, COLL_BLOCKING, &key)) {
        rc = coll_check_allreduce(sendbuf, recvbuf, count, datatype, op,
                                  comm, 1, call);
    }
    if (rc == MPI_SUCCESS) {
        rc = GCM_MPI_COLL_VERIFY(comm, call, .kind = GCM_MPI_COLL_ALLREDUCE,
                                 .op = op, .scount = count,
                                 .stype = datatype);
    }
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (gcm_mpi_coll_allreduce_staged(sendbuf, recvbuf, count, datatype, op,
                                      comm, call, &rc)) {
        return rc;
    }
    if (k != NULL) {
        return gcm_mpi_coll_kept_run(k, comm, call);
    }
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

/* Allreduce (scan: 1, exscan: 2) in its nonblocking and persistent
 * forms, scan and exscan in all three. */
static int coll_allreduce_any(const void *sendbuf, void *recvbuf, int count,
                              MPI_Datatype datatype, MPI_Op op,
                              MPI_Comm comm, int scan, int mode,
                              MPI_Info info, MPI_Request *request,
                              const char *call)
{
    coll_sched_t stack, *s;
    coll_kept_t *k;
    coll_key_t key;
    coll_got_t g;
    int which = (scan == 0) ? COLL_KEPT_ALLREDUCE :
                (scan == 1) ? COLL_KEPT_SCAN : COLL_KEPT_EXSCAN;
    int rc = gcm_mpi_coll_check_comm(comm, call), check;

    if (rc != MPI_SUCCESS) {
        return rc;
    }
    key = gcm_mpi_coll_key(comm, sendbuf, recvbuf, count, datatype, op, 0);
    rc = gcm_mpi_coll_lookup(comm, which, mode, &key, request, &k, &check);
    if (rc != GCM_MPI_COLL_MISS) {
        return rc;
    }
    rc = MPI_SUCCESS;
    if (check) {
        rc = coll_check_allreduce(sendbuf, recvbuf, count, datatype, op,
                                  comm, scan == 0, call);
    }
    if (rc == MPI_SUCCESS) {
        rc = gcm_mpi_coll_check_mode(comm, call, mode, info, request);
    }
    if (rc == MPI_SUCCESS) {
        rc = GCM_MPI_COLL_VERIFY(comm, call,
            .kind = (scan == 0) ? GCM_MPI_COLL_ALLREDUCE :
                    (scan == 1) ? GCM_MPI_COLL_SCAN : GCM_MPI_COLL_EXSCAN,
            COLL_VFY_MODE(mode), .op = op, .scount = count,
            .stype = datatype);
    }
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (k != NULL) {
        return gcm_mpi_coll_kept_run(k, comm, call);
    }
    s = gcm_mpi_coll_get(mode, comm, which, &key, &stack, &g, call, &rc);
    if (s == NULL) {
        return rc;
    }
    if (!g.hit && scan == 0) {
        gcm_mpi_coll_build_allreduce(s, sendbuf, recvbuf, count, datatype,
                                     op, comm);
    } else if (!g.hit) {
        gcm_mpi_coll_build_scan(s, sendbuf, recvbuf, count, datatype, op,
                                comm, scan == 2);
    }
    return gcm_mpi_coll_end(mode, s, comm, &g, call, request);
}

int PMPI_Iallreduce(const void *sendbuf, void *recvbuf, int count,
                    MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                    MPI_Request *request)
{
    int rc = gcm_mpi_coll_nb_first(comm, COLL_KEPT_ALLREDUCE, sendbuf,
                                   recvbuf, count, datatype, op, 0, request);

    if (rc != GCM_MPI_COLL_MISS) {
        return rc;
    }
    return coll_allreduce_any(sendbuf, recvbuf, count, datatype, op, comm, 0,
                              COLL_NONBLOCKING, MPI_INFO_NULL, request,
                              "MPI_Iallreduce");
}
GCM_MPI_ALIAS(Iallreduce)

int PMPI_Allreduce_init(const void *sendbuf, void *recvbuf, int count,
                        MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                        MPI_Info info, MPI_Request *request)
{
    return coll_allreduce_any(sendbuf, recvbuf, count, datatype, op, comm, 0,
                              COLL_PERSISTENT, info, request,
                              "MPI_Allreduce_init");
}
GCM_MPI_ALIAS(Allreduce_init)

int PMPI_Scan(const void *sendbuf, void *recvbuf, int count,
              MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    return coll_allreduce_any(sendbuf, recvbuf, count, datatype, op, comm, 1,
                              COLL_BLOCKING, MPI_INFO_NULL, NULL, "MPI_Scan");
}
GCM_MPI_ALIAS(Scan)

int PMPI_Iscan(const void *sendbuf, void *recvbuf, int count,
               MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
               MPI_Request *request)
{
    return coll_allreduce_any(sendbuf, recvbuf, count, datatype, op, comm, 1,
                              COLL_NONBLOCKING, MPI_INFO_NULL, request,
                              "MPI_Iscan");
}
GCM_MPI_ALIAS(Iscan)

int PMPI_Scan_init(const void *sendbuf, void *recvbuf, int count,
                   MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                   MPI_Info info, MPI_Request *request)
{
    return coll_allreduce_any(sendbuf, recvbuf, count, datatype, op, comm, 1,
                              COLL_PERSISTENT, info, request,
                              "MPI_Scan_init");
}
GCM_MPI_ALIAS(Scan_init)

int PMPI_Exscan(const void *sendbuf, void *recvbuf, int count,
                MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    return coll_allreduce_any(sendbuf, recvbuf, count, datatype, op, comm, 2,
                              COLL_BLOCKING, MPI_INFO_NULL, NULL,
                              "MPI_Exscan");
}
GCM_MPI_ALIAS(Exscan)

int PMPI_Iexscan(const void *sendbuf, void *recvbuf, int count,
                 MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                 MPI_Request *request)
{
    return coll_allreduce_any(sendbuf, recvbuf, count, datatype, op, comm, 2,
                              COLL_NONBLOCKING, MPI_INFO_NULL, request,
                              "MPI_Iexscan");
}
GCM_MPI_ALIAS(Iexscan)

int PMPI_Exscan_init(const void *sendbuf, void *recvbuf, int count,
                     MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                     MPI_Info info, MPI_Request *request)
{
    return coll_allreduce_any(sendbuf, recvbuf, count, datatype, op, comm, 2,
                              COLL_PERSISTENT, info, request,
                              "MPI_Exscan_init");
}
GCM_MPI_ALIAS(Exscan_init)

/*
 * Reduce_scatter (is_v) and reduce_scatter_block (the same rcount for
 * everyone). On an intercommunicator (MPI-3.1 5.10) each group's vectors
 * are reduced and scattered over the other group by that group's counts,
 * which add up to the same total in both groups: rcounts has one entry
 * per rank of the local group. Their checks, after the communicator's:
 */
static int coll_check_reduce_scatter(const void *sendbuf, void *recvbuf,
                                     int rcount, int is_v, const int *rcounts,
                                     MPI_Datatype datatype, MPI_Op op,
                                     MPI_Comm comm, const char *call)
{
    long long total = 0;
    int rc = gcm_mpi_coll_no_inter_in_place(comm, call, sendbuf, recvbuf);
    int i, n, me, mine;

    if (rc != MPI_SUCCESS) {
        return rc;
    }
    n = gcm_mpi_coll_is_inter(comm) ? comm->size : comm->psize;
    me = gcm_mpi_coll_is_inter(comm) ? comm->rank : comm->prank;
    if (is_v != 0) {
        rc = gcm_mpi_coll_check_array(comm, call, rcounts, n, 1, "recvcounts");
    } else {
        rc = gcm_mpi_coll_check_count(comm, call, rcount, "recvcount");
    }
    for (i = 0; rc == MPI_SUCCESS && i < n; i++) {
        total += (is_v != 0) ? rcounts[i] : rcount;
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
    mine = (is_v != 0) ? rcounts[me] : rcount;
    rc = gcm_mpi_coll_check_buf(comm, call, recvbuf, mine, datatype, 0,
                                "recvbuf");
    if (rc == MPI_SUCCESS) {
        rc = gcm_mpi_coll_check_buf(comm, call, sendbuf, (int)total, datatype,
                                    1, "sendbuf");
    }
    return rc;
}

static int coll_reduce_scatter_any(const void *sendbuf, void *recvbuf,
                                   int rcount, int is_v, const int *rcounts,
                                   MPI_Datatype datatype, MPI_Op op,
                                   MPI_Comm comm, int mode, MPI_Info info,
                                   MPI_Request *request, const char *call)
{
    coll_sched_t stack, *s;
    coll_kept_t *k;
    coll_key_t key;
    coll_vec_t vec;   /* set for reduce_scatter only: not cleared */
    coll_got_t g;
    int which = is_v ? COLL_KEPT_REDUCE_SCATTER :
                       COLL_KEPT_REDUCE_SCATTER_BLOCK;
    int rc = gcm_mpi_coll_check_comm(comm, call), check;

    if (rc != MPI_SUCCESS) {
        return rc;
    }
    key = gcm_mpi_coll_key(comm, sendbuf, recvbuf, rcount, datatype, op, 0);
    if (is_v != 0) {
        /* (An intercommunicator's schedule is not kept: none.) */
        vec.n = 0;
        if (!gcm_mpi_coll_is_inter(comm)) {
            gcm_mpi_coll_vec_add(&vec, rcounts,
                                 (size_t)comm->psize * sizeof(int));
        }
        key.vec = &vec;
    }
    rc = gcm_mpi_coll_lookup(comm, which, mode, &key, request, &k, &check);
    if (rc != GCM_MPI_COLL_MISS) {
        return rc;
    }
    rc = gcm_mpi_coll_check_mode(comm, call, mode, info, request);
    if (rc == MPI_SUCCESS && check) {
        rc = coll_check_reduce_scatter(sendbuf, recvbuf, rcount, is_v,
                                       rcounts, datatype, op, comm, call);
    }
    if (rc == MPI_SUCCESS) {
        rc = GCM_MPI_COLL_VERIFY(comm, call,
            .kind = (is_v != 0) ? GCM_MPI_COLL_REDUCE_SCATTER :
                                  GCM_MPI_COLL_REDUCE_SCATTER_BLOCK,
            COLL_VFY_MODE(mode), .op = op, .scount = rcount,
            .scounts = rcounts, .stype = datatype);
    }
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (k != NULL) {
        return gcm_mpi_coll_kept_run(k, comm, call);
    }
    s = gcm_mpi_coll_get(mode, comm, which, &key, &stack, &g, call, &rc);
    if (s == NULL) {
        return rc;
    }
    if (!g.hit) {
        gcm_mpi_coll_build_reduce_scatter(s, sendbuf, recvbuf, rcount,
                                          (is_v != 0) ? rcounts : NULL,
                                          datatype, op, comm);
    }
    return gcm_mpi_coll_end(mode, s, comm, &g, call, request);
}

int PMPI_Reduce_scatter(const void *sendbuf, void *recvbuf,
                        const int recvcounts[], MPI_Datatype datatype,
                        MPI_Op op, MPI_Comm comm)
{
    return coll_reduce_scatter_any(sendbuf, recvbuf, 0, 1, recvcounts,
                                   datatype, op, comm, COLL_BLOCKING,
                                   MPI_INFO_NULL, NULL, "MPI_Reduce_scatter");
}
GCM_MPI_ALIAS(Reduce_scatter)

int PMPI_Ireduce_scatter(const void *sendbuf, void *recvbuf,
                         const int recvcounts[], MPI_Datatype datatype,
                         MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
    return coll_reduce_scatter_any(sendbuf, recvbuf, 0, 1, recvcounts,
                                   datatype, op, comm, COLL_NONBLOCKING,
                                   MPI_INFO_NULL, request,
                                   "MPI_Ireduce_scatter");
}
GCM_MPI_ALIAS(Ireduce_scatter)

int PMPI_Reduce_scatter_init(const void *sendbuf, void *recvbuf,
                             const int recvcounts[], MPI_Datatype datatype,
                             MPI_Op op, MPI_Comm comm, MPI_Info info,
                             MPI_Request *request)
{
    return coll_reduce_scatter_any(sendbuf, recvbuf, 0, 1, recvcounts,
                                   datatype, op, comm, COLL_PERSISTENT, info,
                                   request, "MPI_Reduce_scatter_init");
}
GCM_MPI_ALIAS(Reduce_scatter_init)

int PMPI_Reduce_scatter_block(const void *sendbuf, void *recvbuf,
                              int recvcount, MPI_Datatype datatype,
                              MPI_Op op, MPI_Comm comm)
{
    return coll_reduce_scatter_any(sendbuf, recvbuf, recvcount, 0, NULL,
                                   datatype, op, comm, COLL_BLOCKING,
                                   MPI_INFO_NULL, NULL,
                                   "MPI_Reduce_scatter_block");
}
GCM_MPI_ALIAS(Reduce_scatter_block)

int PMPI_Ireduce_scatter_block(const void *sendbuf, void *recvbuf,
                               int recvcount, MPI_Datatype datatype,
                               MPI_Op op, MPI_Comm comm,
                               MPI_Request *request)
{
    return coll_reduce_scatter_any(sendbuf, recvbuf, recvcount, 0, NULL,
                                   datatype, op, comm, COLL_NONBLOCKING,
                                   MPI_INFO_NULL, request,
                                   "MPI_Ireduce_scatter_block");
}
GCM_MPI_ALIAS(Ireduce_scatter_block)

int PMPI_Reduce_scatter_block_init(const void *sendbuf, void *recvbuf,
                                   int recvcount, MPI_Datatype datatype,
                                   MPI_Op op, MPI_Comm comm, MPI_Info info,
                                   MPI_Request *request)
{
    return coll_reduce_scatter_any(sendbuf, recvbuf, recvcount, 0, NULL,
                                   datatype, op, comm, COLL_PERSISTENT, info,
                                   request, "MPI_Reduce_scatter_block_init");
}
GCM_MPI_ALIAS(Reduce_scatter_block_init)
