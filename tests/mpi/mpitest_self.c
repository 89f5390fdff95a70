/*
 * tests/mpi/mpitest_self.c: the checks of mpitest.h check. Without
 * arguments every check holds and the program passes; with "fail" each
 * of CHECK, OK and EXPECT is given something false once, and each must
 * print its FAIL line and make the program fail; a thread's TCHECK fails
 * twice, naming the thread and counting in its record
 * (tests/test_helpers.sh).
 */
#include "mpitest.h"

#include <pthread.h>
#include <string.h>

static void *thread_main(void *p)
{
    mpitest_thread_t *a = p;

    TCHECK(a, a->t == 7, "thread %d is not thread %d", a->t, 7);
    TCHECK(a, a->failures == 0, "%s", "a second failure");
    TCHECK(a, a->t == 5, "%s", "this holds");
    return NULL;
}

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
        {
            mpitest_thread_t a = { 5, 0 };
            pthread_t th;

            if (pthread_create(&th, NULL, thread_main, &a) == 0) {
                pthread_join(th, NULL);
            }
            if (a.failures != 2) {
                printf("TCHECK counted %d failures in its record\n",
                       a.failures);
            }
        }
    }
    return mpitest_finish();
}
