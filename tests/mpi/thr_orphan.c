/*
 * tests/mpi/thr_orphan.c: progress of an endpoint nobody waits on. A
 * single-threaded program: rank 0 starts an MPI_Isend of 4 MiB on a
 * duplicate of the world (which lives on another endpoint than the world)
 * and then blocks in MPI_Recv on MPI_COMM_WORLD; rank 1 sends that message
 * only after it has received the 4 MiB one. Over UCX the large send needs
 * rank 0's progress on the duplicate's endpoint while rank 0 waits on the
 * world's: the wait must keep the other endpoint moving, or the two ranks
 * wait for each other forever. Repeated in both directions, then checked.
 * Other ranks only take part in the collective calls.
 */
#include <mpi.h>

#include "mpitest.h"

#include <stdio.h>
#include <stdlib.h>

enum { BIG = 4 << 20, ROUNDS = 4 };

static void fill(unsigned char *buf, int round)
{
    size_t i;

    for (i = 0; i < BIG; i++) {
        buf[i] = (unsigned char)(i * 13 + (size_t)round);
    }
}

static void check(const unsigned char *buf, int round)
{
    size_t i = 0;

    while ((i < BIG) && (buf[i] == (unsigned char)(i * 13 + (size_t)round))) {
        i++;
    }
    CHECK(i == BIG, "round %d byte %zu is %u", round, i,
          (i < BIG) ? buf[i] : 0u);
}

int main(int argc, char **argv)
{
    int rank, size, round, token;
    unsigned char *buf;
    MPI_Comm dup;
    MPI_Request req;

    mpitest_init(&argc, &argv, "thr_orphan", 0);
    rank = mpitest_rank;
    size = mpitest_size;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    buf = malloc(BIG);
    if (buf == NULL) {
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    for (round = 0; (size >= 2) && (round < ROUNDS); round++) {
        /* Even rounds rank 0 sends the large message, odd rounds rank 1. */
        int big_sender = round % 2;
        int other = 1 - big_sender;

        if (rank == big_sender) {
            fill(buf, round);
            MPI_Isend(buf, BIG, MPI_BYTE, other, 1, dup, &req);
            MPI_Recv(&token, 1, MPI_INT, other, 2, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
            CHECK(token == round, "round %d: token %d", round, token);
            MPI_Wait(&req, MPI_STATUS_IGNORE);
        } else if (rank == other) {
            MPI_Recv(buf, BIG, MPI_BYTE, big_sender, 1, dup,
                     MPI_STATUS_IGNORE);
            check(buf, round);
            token = round;
            MPI_Send(&token, 1, MPI_INT, big_sender, 2, MPI_COMM_WORLD);
        }
    }
    MPI_Barrier(dup);
    free(buf);
    MPI_Comm_free(&dup);
    return mpitest_finish();
}
