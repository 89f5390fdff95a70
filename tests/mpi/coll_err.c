/*
 * tests/mpi/coll_err.c: argument errors of collectives give the right
 * error class under MPI_ERRORS_RETURN, on every rank alike (so that no
 * rank is left inside a collective), and collectives still work after.
 */
#include <mpi.h>

#include "mpitest.h"

#include <stdio.h>

static int rank, size;

/* The call must fail with class cls. */

int main(int argc, char **argv)
{
    int buf[4] = {0, 0, 0, 0}, out[4], x;
    MPI_Request req;
    MPI_Datatype uncommitted;

    mpitest_init(&argc, &argv, "coll_err", 1);
    mpitest_world(&rank, &size);

    EXPECT(MPI_ERR_ROOT, MPI_Bcast(buf, 1, MPI_INT, size, MPI_COMM_WORLD));
    EXPECT(MPI_ERR_ROOT, MPI_Bcast(buf, 1, MPI_INT, -1, MPI_COMM_WORLD));
    EXPECT(MPI_ERR_ROOT, MPI_Reduce(buf, out, 1, MPI_INT, MPI_SUM, size + 3,
                                    MPI_COMM_WORLD));
    EXPECT(MPI_ERR_ROOT, MPI_Gather(buf, 1, MPI_INT, out, 1, MPI_INT, -5,
                                    MPI_COMM_WORLD));
    EXPECT(MPI_ERR_ROOT, MPI_Ibcast(buf, 1, MPI_INT, MPI_ROOT,
                                    MPI_COMM_WORLD, &req));
    EXPECT(MPI_ERR_COUNT, MPI_Bcast(buf, -1, MPI_INT, 0, MPI_COMM_WORLD));
    EXPECT(MPI_ERR_COUNT, MPI_Allreduce(buf, out, -2, MPI_INT, MPI_SUM,
                                        MPI_COMM_WORLD));
    EXPECT(MPI_ERR_COUNT, MPI_Allgather(buf, -1, MPI_INT, out, 1, MPI_INT,
                                        MPI_COMM_WORLD));
    EXPECT(MPI_ERR_COUNT, MPI_Alltoall(buf, 1, MPI_INT, out, -1, MPI_INT,
                                       MPI_COMM_WORLD));
    EXPECT(MPI_ERR_OP, MPI_Allreduce(buf, out, 1, MPI_INT, MPI_OP_NULL,
                                     MPI_COMM_WORLD));
    EXPECT(MPI_ERR_OP, MPI_Reduce(buf, out, 1, MPI_INT, MPI_OP_NULL, 0,
                                  MPI_COMM_WORLD));
    EXPECT(MPI_ERR_OP, MPI_Scan(buf, out, 1, MPI_DOUBLE, MPI_BAND,
                                MPI_COMM_WORLD));
    EXPECT(MPI_ERR_OP, MPI_Iallreduce(buf, out, 1, MPI_INT, MPI_MINLOC,
                                      MPI_COMM_WORLD, &req));
    EXPECT(MPI_ERR_TYPE, MPI_Bcast(buf, 1, MPI_DATATYPE_NULL, 0,
                                   MPI_COMM_WORLD));
    EXPECT(MPI_ERR_TYPE, MPI_Allreduce(buf, out, 1, MPI_DATATYPE_NULL,
                                       MPI_SUM, MPI_COMM_WORLD));
    MPI_Type_contiguous(2, MPI_INT, &uncommitted);
    EXPECT(MPI_ERR_TYPE, MPI_Allgather(buf, 1, uncommitted, out, 1,
                                       uncommitted, MPI_COMM_WORLD));
    MPI_Type_free(&uncommitted);
    EXPECT(MPI_ERR_COMM, MPI_Barrier(MPI_COMM_NULL));
    EXPECT(MPI_ERR_COMM, MPI_Allreduce(buf, out, 1, MPI_INT, MPI_SUM,
                                       MPI_COMM_NULL));
    EXPECT(MPI_ERR_BUFFER, MPI_Bcast(MPI_IN_PLACE, 1, MPI_INT, 0,
                                     MPI_COMM_WORLD));
    EXPECT(MPI_ERR_BUFFER, MPI_Allreduce(buf, MPI_IN_PLACE, 1, MPI_INT,
                                         MPI_SUM, MPI_COMM_WORLD));
    EXPECT(MPI_ERR_BUFFER, MPI_Allreduce(buf, NULL, 1, MPI_INT, MPI_SUM,
                                         MPI_COMM_WORLD));
    EXPECT(MPI_ERR_ARG, MPI_Ibarrier(MPI_COMM_WORLD, NULL));
    EXPECT(MPI_ERR_ARG, MPI_Allgatherv(buf, 1, MPI_INT, out, NULL, NULL,
                                       MPI_INT, MPI_COMM_WORLD));
    EXPECT(MPI_ERR_ARG, MPI_Reduce_scatter(buf, out, NULL, MPI_INT, MPI_SUM,
                                           MPI_COMM_WORLD));

    /* Nothing was left half done: collectives still line up. */
    x = rank;
    CHECK(MPI_Allreduce(&rank, &x, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD) ==
          MPI_SUCCESS && x == size * (size - 1) / 2, "allreduce after");
    buf[0] = (rank == 0) ? 31 : 0;
    CHECK(MPI_Bcast(buf, 1, MPI_INT, 0, MPI_COMM_WORLD) == MPI_SUCCESS &&
          buf[0] == 31, "bcast after");

    return mpitest_finish();
}
