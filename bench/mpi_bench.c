/*
 * mpi_bench: ping-pong latency and windowed bandwidth in plain MPI, the
 * same measurements as gcm_bench and ucx_am_bench.
 *
 *   latency:   rank 0 MPI_Send()s S bytes, rank 1 MPI_Recv()s them and
 *              sends S bytes back; one-way latency is half the round trip.
 *   bandwidth: rank 0 MPI_Isend()s a window of 64 messages of S bytes and
 *              MPI_Waitall()s them; rank 1 has the 64 receives posted and
 *              answers each complete window with a 4-byte ack.
 *
 * Only core MPI-1 calls are used, so that any MPI, gencomm's own included,
 * can build this file unchanged. bench/run builds it with each MPI's mpicc.
 *
 * Output, one line per measurement, on rank 0's stdout:
 *     benchmark,size_bytes,implementation,value,unit
 *
 * Usage: mpirun -np 2 mpi_bench IMPLEMENTATION_NAME [--quick]
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <mpi.h>

#define TAG_DATA 1
#define TAG_ACK  2

/* Messages in flight per bandwidth window before the receiver acks. */
#define WINDOW 64

/* Latency sizes above this run fewer iterations (they take longer). */
#define SMALL_MAX 8192

static const size_t lat_sizes[] = { 0, 8, 1024, 65536 };
static const size_t bw_sizes[] = { 65536, 1048576, 4194304 };

#define NELEMS(_a) (sizeof(_a) / sizeof((_a)[0]))

static const char *impl = "mpi";
static int rank;
static int peer;
static char *sbuf;
static char *rbuf;

static void check(int rc, const char *what)
{
    if (rc != MPI_SUCCESS) {
        fprintf(stderr, "mpi_bench[%d]: %s failed (error %d)\n", rank, what,
                rc);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
}

/* The same clock as the other two programs, not MPI_Wtime. */
static double now_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void report(const char *bench, size_t size, double value,
                   const char *unit)
{
    if (rank == 0) {
        printf("%s,%zu,%s,%.3f,%s\n", bench, size, impl, value, unit);
        fflush(stdout);
    }
}

static void latency(size_t size, int warmup, int iters)
{
    MPI_Status st;
    int n = (int)size;
    double t0 = 0.0;

    for (int i = 0; i < warmup + iters; i++) {
        if (i == warmup) {
            t0 = now_s();
        }
        if (rank == 0) {
            check(MPI_Send(sbuf, n, MPI_BYTE, peer, TAG_DATA,
                           MPI_COMM_WORLD), "MPI_Send");
            check(MPI_Recv(rbuf, n, MPI_BYTE, peer, TAG_DATA,
                           MPI_COMM_WORLD, &st), "MPI_Recv");
        } else {
            check(MPI_Recv(rbuf, n, MPI_BYTE, peer, TAG_DATA,
                           MPI_COMM_WORLD, &st), "MPI_Recv");
            check(MPI_Send(sbuf, n, MPI_BYTE, peer, TAG_DATA,
                           MPI_COMM_WORLD), "MPI_Send");
        }
    }
    report("latency", size, (now_s() - t0) * 1e6 / (2.0 * iters), "us");
}

static void bandwidth(size_t size, int warmup, int windows)
{
    MPI_Request reqs[WINDOW];
    MPI_Status stats[WINDOW];
    MPI_Status st;
    char ack[4] = { 0 };
    int n = (int)size;
    double t0 = 0.0;

    for (int w = 0; w < warmup + windows; w++) {
        if (w == warmup) {
            t0 = now_s();
        }
        if (rank == 0) {
            for (int k = 0; k < WINDOW; k++) {
                check(MPI_Isend(sbuf, n, MPI_BYTE, peer, TAG_DATA,
                                MPI_COMM_WORLD, &reqs[k]), "MPI_Isend");
            }
            check(MPI_Waitall(WINDOW, reqs, stats), "MPI_Waitall");
            check(MPI_Recv(ack, (int)sizeof(ack), MPI_BYTE, peer, TAG_ACK,
                           MPI_COMM_WORLD, &st), "MPI_Recv (ack)");
        } else {
            for (int k = 0; k < WINDOW; k++) {
                check(MPI_Irecv(rbuf, n, MPI_BYTE, peer, TAG_DATA,
                                MPI_COMM_WORLD, &reqs[k]), "MPI_Irecv");
            }
            check(MPI_Waitall(WINDOW, reqs, stats), "MPI_Waitall");
            check(MPI_Send(ack, (int)sizeof(ack), MPI_BYTE, peer, TAG_ACK,
                           MPI_COMM_WORLD), "MPI_Send (ack)");
        }
    }
    report("bandwidth", size,
           (double)size * WINDOW * windows / (now_s() - t0) / 1e6, "MB/s");
}

static void run_all(int quick)
{
    for (size_t i = 0; i < NELEMS(lat_sizes); i++) {
        size_t s = lat_sizes[i];
        int big = s > SMALL_MAX;

        if (quick) {
            latency(s, 5, 50);
        } else {
            latency(s, big ? 200 : 1000, big ? 2000 : 10000);
        }
    }
    for (size_t i = 0; i < NELEMS(bw_sizes); i++) {
        size_t s = bw_sizes[i];
        /* About 1 GiB per measurement, between 10 and 200 windows. */
        size_t n = ((size_t)1 << 30) / (s * WINDOW);

        n = n < 10 ? 10 : (n > 200 ? 200 : n);
        if (quick) {
            bandwidth(s, 1, 2);
        } else {
            bandwidth(s, 2, (int)n);
        }
    }
}

int main(int argc, char **argv)
{
    int quick = 0;
    int nprocs;
    size_t buf_size = bw_sizes[NELEMS(bw_sizes) - 1];

    check(MPI_Init(&argc, &argv), "MPI_Init");
    check(MPI_Comm_rank(MPI_COMM_WORLD, &rank), "MPI_Comm_rank");
    check(MPI_Comm_size(MPI_COMM_WORLD, &nprocs), "MPI_Comm_size");
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--quick") == 0) {
            quick = 1;
        } else if (argv[i][0] != '-') {
            impl = argv[i];
        } else {
            if (rank == 0) {
                fprintf(stderr, "usage: mpirun -np 2 mpi_bench NAME "
                                "[--quick]\n");
            }
            MPI_Finalize();
            return 2;
        }
    }
    if (nprocs != 2) {
        if (rank == 0) {
            fprintf(stderr, "mpi_bench: needs exactly 2 processes, got %d\n",
                    nprocs);
        }
        MPI_Finalize();
        return 2;
    }
    peer = 1 - rank;

    sbuf = malloc(buf_size);
    rbuf = malloc(buf_size);
    if (sbuf == NULL || rbuf == NULL) {
        fprintf(stderr, "mpi_bench[%d]: out of memory\n", rank);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    /* Fault the pages in now, not inside a timed loop. */
    memset(sbuf, 'a' + rank, buf_size);
    memset(rbuf, 0, buf_size);

    check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
    run_all(quick);

    free(sbuf);
    free(rbuf);
    MPI_Finalize();
    return 0;
}
