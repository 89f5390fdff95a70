/*
 * tests/mpi/sim_boot.c: an MPI program started under the simulation
 * bootstrap (GENCOMM_BOOT=sim, boot/boot_sim.c) as rank r of a large job
 * that does not exist. Usage: sim_boot SIZE RANK PPN (what the
 * environment says, to compare with).
 *
 * Checks: MPI_Init succeeds alone; the rank, size and processor name
 * (host "sim<r / PPN>") are the simulated ones; the SMP hierarchy's node
 * (MPIX_Comm_node(1)) holds the PPN ranks of this host; MPI_Comm_dup
 * works (it sends nothing); a message to itself arrives; a send to and a
 * receive from another rank, and a barrier, fail at once with an error
 * (never a hang; a job of one has nobody else, and its barrier works);
 * MPI_Finalize ends cleanly. mpitest.h's checks, but not mpitest_finish,
 * which sums the failures over the world (a simulation cannot).
 */
#include "mpitest.h"

#include <stdlib.h>

int main(int argc, char **argv)
{
    char name[MPI_MAX_PROCESSOR_NAME], want[64];
    int size, rank, ppn, r, n, len, rc, x = 7, y = 0, cmp;
    MPI_Comm dup, node;
    MPI_Status st;

    if (argc != 4) {
        fprintf(stderr, "usage: sim_boot SIZE RANK PPN\n");
        return 2;
    }
    size = atoi(argv[1]);
    rank = atoi(argv[2]);
    ppn  = atoi(argv[3]);
    mpitest_init(&argc, &argv, "sim_boot", 1);
    if (mpitest_failures != 0) {
        return 1;
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    CHECK(r == rank && n == size, "rank %d of %d, expected %d of %d", r, n,
          rank, size);
    MPI_Get_processor_name(name, &len);
    snprintf(want, sizeof(want), "sim%d", rank / ppn);
    CHECK(len > 0 && strcmp(name, want) == 0,
          "processor name '%s', expected '%s'", name, want);

    MPIX_Comm_node(1, &node);
    MPI_Comm_size(node, &n);
    MPI_Comm_rank(node, &r);
    CHECK(n == ((size / ppn == rank / ppn) ? size % ppn : ppn) &&
          r == rank % ppn, "the host's node: rank %d of %d", r, n);

    rc = MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    CHECK(rc == MPI_SUCCESS, "MPI_Comm_dup: %d", rc);
    MPI_Comm_compare(dup, MPI_COMM_WORLD, &cmp);
    CHECK(cmp == MPI_CONGRUENT, "the duplicate compares %d", cmp);
    MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN);

    rc = MPI_Sendrecv(&x, 1, MPI_INT, rank, 3, &y, 1, MPI_INT, rank, 3, dup,
                      &st);
    CHECK(rc == MPI_SUCCESS && y == 7, "a message to itself: rc %d, %d",
          rc, y);
    if (size > 1) {
        rc = MPI_Send(&x, 1, MPI_INT, (rank + 1) % size, 0, dup);
        CHECK(rc != MPI_SUCCESS, "a send to another rank succeeded");
        rc = MPI_Recv(&y, 1, MPI_INT, (rank + size - 1) % size, 0, dup,
                      &st);
        CHECK(rc != MPI_SUCCESS, "a receive from another rank succeeded");
        rc = MPI_Barrier(dup);
        CHECK(rc != MPI_SUCCESS, "a barrier over the world succeeded");
    } else {
        rc = MPI_Barrier(dup);
        CHECK(rc == MPI_SUCCESS, "a barrier of one rank failed: %d", rc);
    }
    MPI_Comm_free(&dup);

    rc = MPI_Finalize();
    CHECK(rc == MPI_SUCCESS, "MPI_Finalize: %d", rc);
    if (mpitest_failures == 0) {
        printf("sim_boot: all passed as rank %d of %d\n", rank, size);
    }
    return mpitest_failures != 0;
}
