/*
 * legacy_hello: a plain MPI program as a legacy code would have it, built
 * with gencomm's mpicc and started with its mpiexec/mpirun by
 * test_wrappers.sh (and by make installcheck, with the installed ones).
 *
 * Only point-to-point calls: a token goes once around the ring, each rank
 * adding its rank to it, then every rank sends its rank to rank 0, which
 * checks the sum against the closed form. It prints one line per rank that
 * the script counts, and "FAIL: ..." with a non-zero exit on a mismatch.
 *
 * Usage: mpiexec -n N legacy_hello [EXPECTED_SIZE]
 */
#include <stdio.h>
#include <stdlib.h>

#include <mpi.h>

#define TAG_RING 7
#define TAG_GATHER 8

static int rank;

static void fail(const char *what, long got, long want)
{
    printf("FAIL: %s: got %ld, expected %ld (rank %d)\n", what, got, want,
           rank);
    fflush(stdout);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

int main(int argc, char **argv)
{
    int size;
    int flag = 0;
    long token;
    MPI_Status st;

    if (MPI_Init(&argc, &argv) != MPI_SUCCESS) {
        fprintf(stderr, "FAIL: MPI_Init\n");
        return 1;
    }
    MPI_Initialized(&flag);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (!flag) {
        fail("MPI_Initialized", flag, 1);
    }
    if (argc > 1 && size != atoi(argv[1])) {
        fail("MPI_Comm_size", size, atol(argv[1]));
    }

    /* The ring: rank 0 starts the token, the others add their rank and
     * pass it on; it comes back to rank 0 holding 0 + 1 + ... + size-1. */
    int next = (rank + 1) % size;
    int prev = (rank + size - 1) % size;
    if (size > 1) {
        if (rank == 0) {
            token = 0;
            MPI_Send(&token, 1, MPI_LONG, next, TAG_RING, MPI_COMM_WORLD);
            MPI_Recv(&token, 1, MPI_LONG, prev, TAG_RING, MPI_COMM_WORLD,
                     &st);
            if (st.MPI_SOURCE != prev || st.MPI_TAG != TAG_RING) {
                fail("ring status source", st.MPI_SOURCE, prev);
            }
        } else {
            MPI_Recv(&token, 1, MPI_LONG, prev, TAG_RING, MPI_COMM_WORLD,
                     &st);
            token += rank;
            MPI_Send(&token, 1, MPI_LONG, next, TAG_RING, MPI_COMM_WORLD);
        }
        if (rank == 0 && token != (long)size * (size - 1) / 2) {
            fail("ring token", token, (long)size * (size - 1) / 2);
        }
    }

    /* Everyone reports to rank 0, which receives from any source. */
    if (rank == 0) {
        long sum = 0;

        for (int i = 1; i < size; i++) {
            int count = 0;
            long r;

            MPI_Recv(&r, 1, MPI_LONG, MPI_ANY_SOURCE, TAG_GATHER,
                     MPI_COMM_WORLD, &st);
            MPI_Get_count(&st, MPI_LONG, &count);
            if (count != 1 || st.MPI_SOURCE != r) {
                fail("gather source", st.MPI_SOURCE, r);
            }
            sum += r;
        }
        if (sum != (long)size * (size - 1) / 2) {
            fail("gather sum", sum, (long)size * (size - 1) / 2);
        }
    } else {
        long r = rank;

        MPI_Send(&r, 1, MPI_LONG, 0, TAG_GATHER, MPI_COMM_WORLD);
    }

    printf("hello from rank %d of %d\n", rank, size);
    fflush(stdout);
    MPI_Finalize();
    return 0;
}
