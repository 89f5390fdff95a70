/*
 * tests/mpi/err_coll.c: under MPI_ERRORS_RETURN, collectives refuse an
 * invalid root (MPI_ERR_ROOT) and operation (MPI_ERR_OP), naming the call
 * in the error text. All processes make the same erroneous calls, so none
 * waits for another.
 */
#include <mpi.h>

#include "mpitest.h"

#include <stdio.h>

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
    return mpitest_finish();
}
