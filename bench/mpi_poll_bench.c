/*
 * mpi_poll_bench: a panel broadcast that the receivers poll for with
 * MPI_Iprobe between pieces of computation, as HPL's look-ahead does, in
 * plain MPI (any MPI builds it unchanged).
 *
 * Each step one rank (the step's root, in turn) factors a panel (a fixed
 * amount of arithmetic), then passes the panel around a ring (HPL's
 * "increasing ring": root -> root+1 -> ...). Every other rank updates its
 * part of the matrix in pieces and, between pieces, asks MPI_Iprobe
 * whether the panel has come; when it has, it receives it and passes it
 * on at once. A rank whose update is done before the panel came polls
 * with MPI_Iprobe until it comes: that loop is where a rank that keeps its
 * core starves the rank that must send. The root updates too, after
 * sending.
 *
 * The work is a fixed number of floating-point operations, the same for
 * every implementation; the figure is the wall time of one step (average
 * over the steps, largest over the ranks, microseconds). Run it with more
 * processes than cores to see how an implementation polls when it shares
 * them.
 *
 * Output, on rank 0's stdout:
 *     poll_bcast_npN,PANEL_BYTES,IMPLEMENTATION,US_PER_STEP,us
 *
 * With --empty CALLS (2 or more processes) it measures instead what a
 * poll that finds nothing costs: rank 0 posts a receive from rank 1 and
 * tests it CALLS times (empty_test), then probes for rank 1's message
 * (empty_probe) and for anyone's (empty_probe_any) CALLS times each,
 * while rank 1 waits in a barrier; then the message comes. Each loop is a
 * function of its own, for callgrind's --toggle-collect. Output:
 *     poll_empty_test_npN,0,IMPLEMENTATION,NS_PER_CALL,ns
 *     poll_empty_iprobe_npN,0,...      poll_empty_iprobe_any_npN,0,...
 *
 * Usage: mpirun -np N mpi_poll_bench IMPLEMENTATION_NAME [--quick]
 *                                    [--empty CALLS]
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "bench_util.h"

#define PANEL_BYTES  (256 * 1024)
#define STEPS        96
#define QUICK_STEPS  8
/* Arithmetic of one update piece and of a panel factorization: fixed, so
 * every implementation does the same work. */
#define PIECE_FLOPS  (1 << 18)
#define PIECES       16
#define FACTOR_FLOPS (1 << 20)
#define PANEL_TAG    7
#define EMPTY_TAG    8

static int rank;
static int nprocs;
static double sink;

/* n multiply-adds on a small array, kept from being optimized away. */
static void compute(long n)
{
    static double a[256];
    double x = 1.0000001;
    long i;

    for (i = 0; i < n; i++) {
        a[i & 255] = a[i & 255] * x + 1e-9;
    }
    sink += a[(int)(n & 255)];
}

/* Takes the panel from prev and passes it to next unless next is root. */
static void take_panel(char *panel, int root)
{
    int prev = (rank + nprocs - 1) % nprocs;
    int next = (rank + 1) % nprocs;

    check(MPI_Recv(panel, PANEL_BYTES, MPI_BYTE, prev, PANEL_TAG,
                   MPI_COMM_WORLD, MPI_STATUS_IGNORE), "MPI_Recv");
    if (next != root) {
        check(MPI_Send(panel, PANEL_BYTES, MPI_BYTE, next, PANEL_TAG,
                       MPI_COMM_WORLD), "MPI_Send");
    }
}

/* One look for the panel from prev (MPI_Iprobe); takes it if it is there.
 * Returns whether it was. */
static int panel_arrived(int prev, char *panel, int root)
{
    int flag;

    check(MPI_Iprobe(prev, PANEL_TAG, MPI_COMM_WORLD, &flag,
                     MPI_STATUS_IGNORE), "MPI_Iprobe");
    if (flag) {
        take_panel(panel, root);
    }
    return flag;
}

static void step(char *panel, int root)
{
    int prev = (rank + nprocs - 1) % nprocs;
    int have = 0, piece;

    if (rank == root) {
        compute(FACTOR_FLOPS);
        if (nprocs > 1) {
            check(MPI_Send(panel, PANEL_BYTES, MPI_BYTE, (rank + 1) % nprocs,
                           PANEL_TAG, MPI_COMM_WORLD), "MPI_Send");
        }
        have = 1;
    }
    for (piece = 0; piece < PIECES; piece++) {
        if (!have) {
            have = panel_arrived(prev, panel, root);
        }
        compute(PIECE_FLOPS);
    }
    while (!have) {
        have = panel_arrived(prev, panel, root);
    }
}

/* The empty polls of --empty: calls tests of req, probes for rank 1's
 * message, probes for anyone's; none may find anything. Each loop is a
 * function of its own (callgrind's --toggle-collect). */
__attribute__((noinline)) static void empty_test(MPI_Request *req, long calls)
{
    long i;
    int flag;

    for (i = 0; i < calls; i++) {
        check(MPI_Test(req, &flag, MPI_STATUS_IGNORE), "MPI_Test");
        if (flag) {
            fprintf(stderr, "mpi_poll_bench: an empty test found data\n");
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
    }
}

static inline void probe_loop(int source, long calls)
{
    long i;
    int flag;

    for (i = 0; i < calls; i++) {
        check(MPI_Iprobe(source, EMPTY_TAG, MPI_COMM_WORLD, &flag,
                         MPI_STATUS_IGNORE), "MPI_Iprobe");
        if (flag) {
            fprintf(stderr, "mpi_poll_bench: an empty probe found data\n");
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
    }
}

__attribute__((noinline)) static void empty_probe(long calls)
{
    probe_loop(1, calls);
}

__attribute__((noinline)) static void empty_probe_any(long calls)
{
    probe_loop(MPI_ANY_SOURCE, calls);
}

static void empty_row(const char *what, const char *impl, double t0,
                      long calls)
{
    printf("poll_empty_%s_np%d,0,%s,%.1f,ns\n", what, nprocs, impl,
           (now_s() - t0) / (double)calls * 1e9);
}

/* --empty: what polls that find nothing cost on rank 0. */
static void empty_polls(const char *impl, long calls)
{
    MPI_Request req;
    double t0;
    int x = 0;

    if (rank == 0) {
        check(MPI_Irecv(&x, 1, MPI_INT, 1, EMPTY_TAG, MPI_COMM_WORLD, &req),
              "MPI_Irecv");
        t0 = now_s();
        empty_test(&req, calls);
        empty_row("test", impl, t0, calls);
        /* The posted receive would take the message a probe looks for:
         * it is there, unmatched, for the probes too. */
        t0 = now_s();
        empty_probe(calls);
        empty_row("iprobe", impl, t0, calls);
        t0 = now_s();
        empty_probe_any(calls);
        empty_row("iprobe_any", impl, t0, calls);
    }
    check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
    if (rank == 1) {
        check(MPI_Send(&x, 1, MPI_INT, 0, EMPTY_TAG, MPI_COMM_WORLD),
              "MPI_Send");
    } else if (rank == 0) {
        check(MPI_Wait(&req, MPI_STATUS_IGNORE), "MPI_Wait");
    }
}

int main(int argc, char **argv)
{
    const char *impl = (argc > 1) ? argv[1] : "mpi";
    int steps = STEPS, s;
    long empty = 0;
    double t0, mine, worst;
    char *panel;

    check(MPI_Init(&argc, &argv), "MPI_Init");
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    bench_name = "mpi_poll_bench";
    bench_rank = rank;
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    for (s = 2; s < argc; s++) {
        if (strcmp(argv[s], "--quick") == 0) {
            steps = QUICK_STEPS;
        } else if ((strcmp(argv[s], "--empty") == 0) && (s + 1 < argc)) {
            empty = atol(argv[++s]);
        }
    }
    if (empty > 0) {
        if (nprocs < 2) {
            fprintf(stderr, "mpi_poll_bench: --empty needs 2 processes\n");
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        empty_polls(impl, empty);
        MPI_Finalize();
        return 0;
    }
    panel = calloc(1, PANEL_BYTES);
    if (panel == NULL) {
        fprintf(stderr, "mpi_poll_bench: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    /* One step untimed: connections and buffers made. */
    step(panel, 0);
    check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
    t0 = now_s();
    for (s = 0; s < steps; s++) {
        step(panel, s % nprocs);
    }
    mine = (now_s() - t0) / steps * 1e6;
    check(MPI_Reduce(&mine, &worst, 1, MPI_DOUBLE, MPI_MAX, 0,
                     MPI_COMM_WORLD), "MPI_Reduce");
    if (rank == 0) {
        printf("poll_bcast_np%d,%d,%s,%.3f,us\n", nprocs, PANEL_BYTES, impl,
               worst);
    }
    free(panel);
    MPI_Finalize();
    return (sink == 12345.0) ? 1 : 0;
}
