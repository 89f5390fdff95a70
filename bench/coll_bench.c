/*
 * coll_bench: time per MPI_Allreduce (MPI_SUM of MPI_INT) and per
 * MPI_Bcast (MPI_BYTE), at 8 bytes and 1 MiB, and per MPI_Barrier, in
 * plain MPI so that any MPI builds it (bench/run's mpi_bench.c
 * conventions).
 *
 * Each measurement: a barrier, then ITERS calls back to back; the time is
 * the slowest rank's, divided by ITERS; the median of REPS such runs is
 * reported. With gencomm, GENCOMM_COLL_* settings pick the algorithms
 * (GENCOMM_COLL_HIER=0/1: flat or hierarchical under gcrun --nodes).
 *
 * Output, one line per measurement, on rank 0's stdout:
 *     benchmark_npN,size_bytes,implementation,value,us
 *
 * Usage: mpirun -np N coll_bench IMPLEMENTATION_NAME [--quick]
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <mpi.h>

#define REPS 7

static const int sizes[] = { 8, 1048576 };

static double now_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return (x > y) - (x < y);
}

enum { ALLREDUCE, BCAST, BARRIER };

/* Median over REPS of the slowest rank's time per call (us). */
static double timed(int what, unsigned char *s, unsigned char *r,
                    int n, int iters)
{
    double t[REPS];
    int k, i;

    for (k = 0; k < REPS; k++) {
        double t0, mine;

        MPI_Barrier(MPI_COMM_WORLD);
        t0 = now_s();
        for (i = 0; i < iters; i++) {
            if (what == ALLREDUCE) {
                MPI_Allreduce(s, r, n / (int)sizeof(int), MPI_INT, MPI_SUM,
                              MPI_COMM_WORLD);
            } else if (what == BCAST) {
                MPI_Bcast(s, n, MPI_BYTE, 0, MPI_COMM_WORLD);
            } else {
                MPI_Barrier(MPI_COMM_WORLD);
            }
        }
        mine = (now_s() - t0) * 1e6 / iters;
        MPI_Allreduce(&mine, &t[k], 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    }
    qsort(t, REPS, sizeof(double), cmp_double);
    return t[REPS / 2];
}

int main(int argc, char **argv)
{
    const char *impl = (argc > 1) ? argv[1] : "mpi";
    int quick = (argc > 2 && strcmp(argv[2], "--quick") == 0);
    int rank, np, i, b;
    unsigned char *s, *r;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    s = calloc(1, 1 << 20);
    r = calloc(1, 1 << 20);
    for (i = 0; i < (int)(sizeof(sizes) / sizeof(sizes[0])); i++) {
        int n = sizes[i];
        int iters = quick ? 2 : (n <= 8192 ? 2000 : 20);

        for (b = 0; b < 2; b++) {
            /* warm up: connections, caches, the hierarchy */
            timed(b == 0 ? ALLREDUCE : BCAST, s, r, n, quick ? 1 : 5);
            double us = timed(b == 0 ? ALLREDUCE : BCAST, s, r, n, iters);

            if (rank == 0) {
                printf("%s_np%d,%d,%s,%.2f,us\n",
                       (b == 0) ? "allreduce" : "bcast", np, n, impl, us);
                fflush(stdout);
            }
        }
    }
    {
        int iters = quick ? 2 : 2000;

        timed(BARRIER, s, r, 0, quick ? 1 : 5);
        double us = timed(BARRIER, s, r, 0, iters);

        if (rank == 0) {
            printf("barrier_np%d,0,%s,%.2f,us\n", np, impl, us);
            fflush(stdout);
        }
    }
    free(s);
    free(r);
    MPI_Finalize();
    return 0;
}
