/*
 * tests/mpi/err_coll.c: under MPI_ERRORS_RETURN, collectives refuse an
 * invalid root (MPI_ERR_ROOT) and operation (MPI_ERR_OP), naming the call
 * in the error text. All processes make the same erroneous calls, so none
 * waits for another. A call with the arguments of the last one runs its
 * kept schedule without checking them again, in the blocking and the
 * nonblocking forms: calls that differ from a kept one in a single
 * argument, or in one element of a v or w form's arrays changed in
 * place, are still refused.
 */
#include <mpi.h>

#include "mpitest.h"

#include <stdio.h>
#include <stdlib.h>

/* The nonblocking forms, on buffers of their own (no blocking call's kept
 * schedule has their arguments): each twice, waited, so the second finds
 * the schedule the first left; then each with one argument changed. */
static void nonblocking_kept(int rank, int size)
{
    int *sb = calloc((size_t)size, sizeof(int));
    int *rb = calloc((size_t)size, sizeof(int));
    /* Allgather and alltoall take the same arguments. */
    static const struct {
        int (*fn)(const void *, int, MPI_Datatype, void *, int,
                  MPI_Datatype, MPI_Comm, MPI_Request *);
        const char *name;
    } all[2] = { { MPI_Iallgather, "MPI_Iallgather" },
                 { MPI_Ialltoall, "MPI_Ialltoall" } };
    MPI_Request r;
    int round, rc, k;

    for (round = 0; round < 2; round++) {
        OK(MPI_Ibarrier(MPI_COMM_WORLD, &r));
        OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
        OK(MPI_Ibcast(sb, 1, MPI_INT, 0, MPI_COMM_WORLD, &r));
        OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
        OK(MPI_Ireduce(sb, rb, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD, &r));
        OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
        OK(MPI_Iallreduce(sb, rb, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r));
        OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
        OK(MPI_Iallgather(sb, 1, MPI_INT, rb, 1, MPI_INT, MPI_COMM_WORLD,
                          &r));
        OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
        OK(MPI_Ialltoall(sb, 1, MPI_INT, rb, 1, MPI_INT, MPI_COMM_WORLD,
                         &r));
        OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    }
    rc = MPI_Ibarrier(MPI_COMM_WORLD, NULL);
    EXPECT_ERR(rc, MPI_ERR_ARG, "MPI_Ibarrier", "kept, then request NULL");
    rc = MPI_Ibcast(sb, 1, MPI_INT, 0, MPI_COMM_WORLD, NULL);
    EXPECT_ERR(rc, MPI_ERR_ARG, "MPI_Ibcast", "kept, then request NULL");
    rc = MPI_Ibcast(sb, -1, MPI_INT, 0, MPI_COMM_WORLD, &r);
    EXPECT_ERR(rc, MPI_ERR_COUNT, "MPI_Ibcast", "kept, then count -1");
    rc = MPI_Ibcast(sb, 1, MPI_INT, 0, MPI_COMM_NULL, &r);
    EXPECT_ERR(rc, MPI_ERR_COMM, "MPI_Ibcast", "kept, then no comm");
    rc = MPI_Ireduce(sb, rb, 1, MPI_INT, MPI_SUM, size, MPI_COMM_WORLD, &r);
    EXPECT_ERR(rc, MPI_ERR_ROOT, "MPI_Ireduce", "kept, then root = size");
    rc = MPI_Ireduce(sb, rb, 1, MPI_INT, MPI_OP_NULL, 0, MPI_COMM_WORLD, &r);
    EXPECT_ERR(rc, MPI_ERR_OP, "MPI_Ireduce", "kept, then MPI_OP_NULL");
    rc = MPI_Iallreduce(sb, rb, 1, MPI_DATATYPE_NULL, MPI_SUM,
                        MPI_COMM_WORLD, &r);
    EXPECT_ERR(rc, MPI_ERR_TYPE, "MPI_Iallreduce",
               "kept, then MPI_DATATYPE_NULL");
    for (k = 0; k < 2; k++) {
        rc = all[k].fn(sb, 1, MPI_INT, rb, 1, MPI_DATATYPE_NULL,
                       MPI_COMM_WORLD, &r);
        EXPECT_ERR(rc, MPI_ERR_TYPE, all[k].name,
                   "kept, then recvtype MPI_DATATYPE_NULL");
        rc = all[k].fn(sb, 1, MPI_INT, rb, -1, MPI_INT, MPI_COMM_WORLD, &r);
        EXPECT_ERR(rc, MPI_ERR_COUNT, all[k].name, "kept, then recvcount -1");
        rc = all[k].fn(sb, 1, MPI_INT, MPI_IN_PLACE, 1, MPI_INT,
                       MPI_COMM_WORLD, &r);
        EXPECT_ERR(rc, MPI_ERR_BUFFER, all[k].name,
                   "kept, then recvbuf MPI_IN_PLACE");
    }
    /* And the kept calls still run. */
    sb[0] = rank + 1;
    OK(MPI_Iallreduce(sb, rb, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r));
    OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    CHECK(rb[0] == size * (size + 1) / 2, "iallreduce after errors: %d",
          rb[0]);
    free(sb);
    free(rb);
}

/* Call number which of v_kept (allgatherv, alltoallv, alltoallw,
 * reduce_scatter), blocking or nonblocking (its request in *r), on one
 * int per process. */
static int v_call(int which, int blocking, int *sb, int *rb, const int *cnt,
                  const int *dsp, const int *bdsp, const MPI_Datatype *types,
                  MPI_Request *r)
{
    MPI_Comm w = MPI_COMM_WORLD;

    *r = MPI_REQUEST_NULL;
    switch (which) {
    case 0:
        return blocking ? MPI_Allgatherv(sb, 1, MPI_INT, rb, cnt, dsp,
                                         MPI_INT, w)
                        : MPI_Iallgatherv(sb, 1, MPI_INT, rb, cnt, dsp,
                                          MPI_INT, w, r);
    case 1:
        return blocking ? MPI_Alltoallv(sb, cnt, dsp, MPI_INT, rb, cnt, dsp,
                                        MPI_INT, w)
                        : MPI_Ialltoallv(sb, cnt, dsp, MPI_INT, rb, cnt, dsp,
                                         MPI_INT, w, r);
    case 2:
        return blocking ? MPI_Alltoallw(sb, cnt, bdsp, types, rb, cnt, bdsp,
                                        types, w)
                        : MPI_Ialltoallw(sb, cnt, bdsp, types, rb, cnt, bdsp,
                                         types, w, r);
    default:
        return blocking ? MPI_Reduce_scatter(sb, rb, cnt, MPI_INT, MPI_SUM, w)
                        : MPI_Ireduce_scatter(sb, rb, cnt, MPI_INT, MPI_SUM,
                                              w, r);
    }
}

/* The v and w forms, blocking or nonblocking: each twice (the second
 * runs the schedule the first kept), then with one element of its arrays
 * made wrong in place, behind the same pointers, at every process: the
 * call must be refused, not run the kept schedule. */
static void v_kept(int rank, int size, int blocking)
{
    static const char *names[2][4] = {
        { "MPI_Iallgatherv", "MPI_Ialltoallv", "MPI_Ialltoallw",
          "MPI_Ireduce_scatter" },
        { "MPI_Allgatherv", "MPI_Alltoallv", "MPI_Alltoallw",
          "MPI_Reduce_scatter" }
    };
    MPI_Datatype *types = malloc((size_t)size * sizeof(MPI_Datatype));
    int *cnt = malloc((size_t)size * sizeof(int));
    int *dsp = malloc((size_t)size * sizeof(int));
    int *bdsp = malloc((size_t)size * sizeof(int));
    int *sb = malloc((size_t)size * sizeof(int));
    int *rb = malloc((size_t)size * sizeof(int));
    MPI_Request r;
    int round, which, i, rc;

    for (i = 0; i < size; i++) {
        cnt[i] = 1;
        dsp[i] = i;
        bdsp[i] = i * (int)sizeof(int);
        types[i] = MPI_INT;
        sb[i] = 10 * rank + i;
    }
    for (round = 0; round < 3; round++) {
        for (which = 0; which < 4; which++) {
            if (round == 2 && which == 2) {
                types[size - 1] = MPI_DATATYPE_NULL;
            } else if (round == 2) {
                cnt[size - 1] = -1;
            }
            rc = v_call(which, blocking, sb, rb, cnt, dsp, bdsp, types, &r);
            if (round < 2) {
                OK(rc);
                OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
                continue;
            }
            EXPECT_ERR(rc, (which == 2) ? MPI_ERR_TYPE : MPI_ERR_COUNT,
                       names[blocking][which],
                       (which == 2) ? "kept, then a type MPI_DATATYPE_NULL"
                                    : "kept, then a count -1");
            cnt[size - 1] = 1;
            types[size - 1] = MPI_INT;
        }
    }
    /* And the kept calls still run. */
    OK(v_call(1, blocking, sb, rb, cnt, dsp, bdsp, types, &r));
    OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    for (i = 0; i < size; i++) {
        CHECK(rb[i] == 10 * i + rank, "%s after errors, from %d: %d",
              names[blocking][1], i, rb[i]);
    }
    free(types);
    free(cnt);
    free(dsp);
    free(bdsp);
    free(sb);
    free(rb);
}

int main(int argc, char **argv)
{
    int size, rank, rc, in = 1, out = 0;

    mpitest_init(&argc, &argv, "err_coll", 1);
    rank = mpitest_rank;
    size = mpitest_size;

    rc = MPI_Bcast(&in, 1, MPI_INT, size, MPI_COMM_WORLD);
    EXPECT_ERR(rc, MPI_ERR_ROOT, "MPI_Bcast", "root = size");
    rc = MPI_Bcast(&in, 1, MPI_INT, -1, MPI_COMM_WORLD);
    EXPECT_ERR(rc, MPI_ERR_ROOT, "MPI_Bcast", "root = -1");
    rc = MPI_Bcast(&in, -1, MPI_INT, 0, MPI_COMM_WORLD);
    EXPECT_ERR(rc, MPI_ERR_COUNT, "MPI_Bcast", "count -1");
    rc = MPI_Bcast(&in, 1, MPI_INT, 0, MPI_COMM_NULL);
    EXPECT_ERR(rc, MPI_ERR_COMM, "MPI_Bcast", "MPI_COMM_NULL");
    rc = MPI_Reduce(&in, &out, 1, MPI_INT, MPI_OP_NULL, 0, MPI_COMM_WORLD);
    EXPECT_ERR(rc, MPI_ERR_OP, "MPI_Reduce", "MPI_OP_NULL");
    rc = MPI_Reduce(&in, &out, 1, MPI_INT, MPI_SUM, size, MPI_COMM_WORLD);
    EXPECT_ERR(rc, MPI_ERR_ROOT, "MPI_Reduce", "root = size");
    rc = MPI_Reduce(&in, &out, 1, MPI_DATATYPE_NULL, MPI_SUM, 0,
                    MPI_COMM_WORLD);
    EXPECT_ERR(rc, MPI_ERR_TYPE, "MPI_Reduce", "MPI_DATATYPE_NULL");

    /* After the refused calls, the collectives still work. */
    in = rank + 1;
    rc = MPI_Reduce(&in, &out, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    CHECK(rc == MPI_SUCCESS && (rank != 0 || out == size * (size + 1) / 2),
          "reduce after errors: rc %d sum %d", rc, out);
    {
        int *sb = calloc((size_t)size, sizeof(int));
        int *rb = calloc((size_t)size, sizeof(int));
        /* Allgather and alltoall take the same arguments. */
        static const struct {
            int (*fn)(const void *, int, MPI_Datatype, void *, int,
                      MPI_Datatype, MPI_Comm);
            const char *name;
        } all[2] = { { MPI_Allgather, "MPI_Allgather" },
                     { MPI_Alltoall, "MPI_Alltoall" } };
        int round, k;

        /* Twice each: the second call runs the kept schedule. */
        for (round = 0; round < 2; round++) {
            OK(MPI_Bcast(sb, 1, MPI_INT, 0, MPI_COMM_WORLD));
            OK(MPI_Reduce(sb, rb, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD));
            OK(MPI_Allreduce(sb, rb, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
            OK(MPI_Allgather(sb, 1, MPI_INT, rb, 1, MPI_INT,
                             MPI_COMM_WORLD));
            OK(MPI_Alltoall(sb, 1, MPI_INT, rb, 1, MPI_INT,
                            MPI_COMM_WORLD));
        }
        rc = MPI_Bcast(sb, -1, MPI_INT, 0, MPI_COMM_WORLD);
        EXPECT_ERR(rc, MPI_ERR_COUNT, "MPI_Bcast", "kept, then count -1");
        rc = MPI_Bcast(sb, 1, MPI_INT, 0, MPI_COMM_NULL);
        EXPECT_ERR(rc, MPI_ERR_COMM, "MPI_Bcast", "kept, then no comm");
        rc = MPI_Reduce(sb, rb, 1, MPI_INT, MPI_SUM, size, MPI_COMM_WORLD);
        EXPECT_ERR(rc, MPI_ERR_ROOT, "MPI_Reduce", "kept, then root = size");
        rc = MPI_Reduce(sb, rb, 1, MPI_INT, MPI_OP_NULL, 0, MPI_COMM_WORLD);
        EXPECT_ERR(rc, MPI_ERR_OP, "MPI_Reduce", "kept, then MPI_OP_NULL");
        rc = MPI_Allreduce(sb, rb, 1, MPI_DATATYPE_NULL, MPI_SUM,
                           MPI_COMM_WORLD);
        EXPECT_ERR(rc, MPI_ERR_TYPE, "MPI_Allreduce",
                   "kept, then MPI_DATATYPE_NULL");
        for (k = 0; k < 2; k++) {
            rc = all[k].fn(sb, 1, MPI_INT, rb, 1, MPI_DATATYPE_NULL,
                           MPI_COMM_WORLD);
            EXPECT_ERR(rc, MPI_ERR_TYPE, all[k].name,
                       "kept, then recvtype MPI_DATATYPE_NULL");
            rc = all[k].fn(sb, 1, MPI_INT, rb, -1, MPI_INT, MPI_COMM_WORLD);
            EXPECT_ERR(rc, MPI_ERR_COUNT, all[k].name,
                       "kept, then recvcount -1");
            rc = all[k].fn(sb, 1, MPI_INT, MPI_IN_PLACE, 1, MPI_INT,
                           MPI_COMM_WORLD);
            EXPECT_ERR(rc, MPI_ERR_BUFFER, all[k].name,
                       "kept, then recvbuf MPI_IN_PLACE");
        }
        /* And the kept calls still run. */
        sb[0] = rank + 1;
        OK(MPI_Allreduce(sb, rb, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
        CHECK(rb[0] == size * (size + 1) / 2, "allreduce after errors: %d",
              rb[0]);
        free(sb);
        free(rb);
    }
    nonblocking_kept(rank, size);
    v_kept(rank, size, 1);
    v_kept(rank, size, 0);
    return mpitest_finish();
}
