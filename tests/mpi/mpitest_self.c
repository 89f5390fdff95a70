/*
 * tests/mpi/mpitest_self.c: the checks of mpitest.h check. Without
 * arguments every check holds and the program passes; with "fail" each
 * of CHECK, OK and EXPECT is given something false once, and each must
 * print its FAIL line and make the program fail (tests/test_helpers.sh).
 */
#include "mpitest.h"

#include <string.h>

int main(int argc, char **argv)
{
    int bad = (argc > 1) && (strcmp(argv[1], "fail") == 0);
    int rc;

    mpitest_init(&argc, &argv, "mpitest_self", 1);
    CHECK(mpitest_size >= 1, "size %d", mpitest_size);
    CHECK((mpitest_rank >= 0) && (mpitest_rank < mpitest_size), "rank %d",
          mpitest_rank);
    OK(MPI_Barrier(MPI_COMM_WORLD));
    EXPECT(MPI_ERR_COMM, MPI_Barrier(MPI_COMM_NULL));
    if (bad) {
        CHECK(mpitest_rank < 0, "the rank is %s", "not negative");
        OK(MPI_Barrier(MPI_COMM_NULL));
        rc = MPI_Barrier(MPI_COMM_WORLD);
        EXPECT(MPI_ERR_COMM, rc);
    }
    return mpitest_finish();
}
