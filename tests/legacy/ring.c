/* ring.c: ring shifts, a persistent-request pipeline, row/column
 * communicators and prefix sums, as in many halo and I/O-offset codes.
 *
 * 1. Ring allgather: size - 1 steps of MPI_Irecv/MPI_Isend/MPI_Waitall to
 *    the neighbours, every rank ends with every rank's value.
 * 2. The same shift repeated with persistent requests (MPI_Send_init,
 *    MPI_Recv_init, MPI_Startall, MPI_Waitall), passing a growing message.
 * 3. MPI_Comm_split into rows and columns of a virtual grid; row sums with
 *    MPI_Allreduce, column maxima with MPI_Reduce.
 * 4. File-offset style prefix sums: MPI_Scan and MPI_Exscan.
 * 5. The MPI_TAG_UB attribute through MPI_Attr_get; MPI_Wtime for timing
 *    (not printed: it differs between runs).
 * Per-rank results go to rank 0 (MPI_Gather), which prints them. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define LINE 160
#define STEPS 6

int main(int argc, char **argv)
{
    int rank, size, left, right, i, step, *vals, flag, *tag_ub;
    int cols, row, col, rowrank, colrank, rowsum, colmax = 0, mycount;
    int incl = 0, excl = 0;
    long long ring_sum = 0, pipe_check = 0;
    char line[LINE], *lines = NULL;
    MPI_Request reqs[2];
    MPI_Status stats[2];
    MPI_Comm rowcomm, colcomm;
    double t0, elapsed;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    t0 = MPI_Wtime();
    left = (rank + size - 1) % size;
    right = (rank + 1) % size;

    /* 1. Ring allgather of rank*rank + 3. */
    vals = malloc(size * sizeof(int));
    vals[rank] = rank * rank + 3;
    for (step = 0; step < size - 1; step++) {
        int sendidx = (rank - step + size) % size;
        int recvidx = (rank - step - 1 + 2 * size) % size;
        MPI_Irecv(&vals[recvidx], 1, MPI_INT, left, 5, MPI_COMM_WORLD,
                  &reqs[0]);
        MPI_Isend(&vals[sendidx], 1, MPI_INT, right, 5, MPI_COMM_WORLD,
                  &reqs[1]);
        MPI_Waitall(2, reqs, stats);
        if (stats[0].MPI_SOURCE != left || stats[0].MPI_TAG != 5) {
            printf("rank %d: bad status source %d tag %d\n", rank,
                   stats[0].MPI_SOURCE, stats[0].MPI_TAG);
        }
    }
    for (i = 0; i < size; i++) {
        ring_sum += (long long)vals[i] * (i + 1);
    }

    /* 2. Persistent pipeline: each step, the message from the left is
     * extended by one element and passed on next step. */
    {
        int sbuf[STEPS + 1], rbuf[STEPS + 1], count;
        MPI_Request preq[2];

        for (i = 0; i <= STEPS; i++) {
            sbuf[i] = rank;
            rbuf[i] = -1;
        }
        MPI_Recv_init(rbuf, STEPS + 1, MPI_INT, left, 9, MPI_COMM_WORLD,
                      &preq[0]);
        MPI_Send_init(sbuf, STEPS + 1, MPI_INT, right, 9, MPI_COMM_WORLD,
                      &preq[1]);
        for (step = 0; step < STEPS; step++) {
            MPI_Startall(2, preq);
            MPI_Waitall(2, preq, stats);
            MPI_Get_count(&stats[0], MPI_INT, &count);
            if (count != STEPS + 1) {
                printf("rank %d: persistent count %d\n", rank, count);
            }
            /* Rotate: what arrived (plus our rank) goes on next time. */
            for (i = 0; i <= STEPS; i++) {
                sbuf[i] = rbuf[i] * 3 + rank + step;
            }
        }
        for (i = 0; i <= STEPS; i++) {
            pipe_check = pipe_check * 7 + sbuf[i];
            pipe_check %= 1000000007LL;
        }
        MPI_Request_free(&preq[0]);
        MPI_Request_free(&preq[1]);
    }

    /* 3. Rows and columns of a cols-wide grid. */
    cols = (size % 2 == 0) ? 2 : 1;
    row = rank / cols;
    col = rank % cols;
    MPI_Comm_split(MPI_COMM_WORLD, row, col, &rowcomm);
    MPI_Comm_split(MPI_COMM_WORLD, col, -row, &colcomm); /* reversed */
    MPI_Comm_rank(rowcomm, &rowrank);
    MPI_Comm_rank(colcomm, &colrank);
    MPI_Allreduce(&vals[rank], &rowsum, 1, MPI_INT, MPI_SUM, rowcomm);
    MPI_Reduce(&rank, &colmax, 1, MPI_INT, MPI_MAX, 0, colcomm);
    MPI_Bcast(&colmax, 1, MPI_INT, 0, colcomm);

    /* 4. Offsets: rank r writes 2r + 1 records. */
    mycount = 2 * rank + 1;
    MPI_Scan(&mycount, &incl, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Exscan(&mycount, &excl, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) {
        excl = 0; /* undefined on rank 0 by the standard */
    }

    snprintf(line, LINE,
             "rank %d: ring %lld pipe %lld row %d/%d rowsum %d col %d/%d "
             "colmax %d scan %d exscan %d",
             rank, ring_sum, pipe_check, row, rowrank, rowsum, col, colrank,
             colmax, incl, excl);
    if (rank == 0) {
        lines = malloc((size_t)LINE * size);
    }
    MPI_Gather(line, LINE, MPI_CHAR, lines, LINE, MPI_CHAR, 0,
               MPI_COMM_WORLD);

    /* 5. The tag bound: at least 32767 by the standard. */
    MPI_Attr_get(MPI_COMM_WORLD, MPI_TAG_UB, &tag_ub, &flag);
    elapsed = MPI_Wtime() - t0;
    if (rank == 0) {
        for (i = 0; i < size; i++) {
            printf("%s\n", lines + (size_t)i * LINE);
        }
        printf("tag_ub present %s, at least 32767 %s; elapsed >= 0 %s\n",
               flag ? "yes" : "no", flag && *tag_ub >= 32767 ? "yes" : "no",
               elapsed >= 0.0 ? "yes" : "no");
        free(lines);
    }
    MPI_Comm_free(&rowcomm);
    MPI_Comm_free(&colcomm);
    free(vals);
    MPI_Finalize();
    return 0;
}
