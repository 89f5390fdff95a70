/*
 * mpi_bench: ping-pong latency and windowed bandwidth in plain MPI, the
 * same measurements as gcm_bench and ucx_am_bench.
 *
 *   latency:   rank 0 MPI_Send()s S bytes, rank 1 MPI_Recv()s them and
 *              sends S bytes back; one-way latency is half the round trip.
 *   bandwidth: rank 0 MPI_Isend()s a window of 64 messages of S bytes and
 *              MPI_Waitall()s them; rank 1 has the 64 receives posted and
 *              answers each complete window with a 4-byte ack.
 *   comm_dup:  every rank MPI_Comm_dup()s MPI_COMM_WORLD DUP_BATCH times
 *              back to back; the time per MPI_Comm_dup on rank 0, the
 *              MPI_Comm_free()s being done outside the timed region.
 *
 * Only core MPI-1 calls are used, so that any MPI, gencomm's own included,
 * can build this file unchanged. bench/run builds it with each MPI's mpicc
 * (gencomm's own tools/mpicc included).
 *
 * With 2 processes it runs all three; with any other count only comm_dup,
 * to show how its cost grows with the number of processes. The benchmark is
 * named comm_dup_npN for N processes; its size column is 0.
 *
 * Output, one line per measurement, on rank 0's stdout:
 *     benchmark,size_bytes,implementation,value,unit
 *
 * Usage: mpirun -np N mpi_bench IMPLEMENTATION_NAME [--quick]
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

/* Communicators duplicated per timed batch, then freed untimed. Batches
 * stay small because MPICH has about 2000 context ids in all. */
#define DUP_BATCH 100
#define DUP_BATCHES 20

#define NELEMS(_a) (sizeof(_a) / sizeof((_a)[0]))

static const char *impl = "mpi";
static int rank;
static int nprocs;
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

/* Each batch starts together (a barrier), then dups back to back: every
 * MPI_Comm_dup is collective, so the ranks stay in step by themselves. */
static void comm_dup(int warmup, int batches, int batch)
{
    MPI_Comm comms[DUP_BATCH];
    char name[32];
    double total = 0.0;

    for (int b = 0; b < warmup + batches; b++) {
        double t0;

        check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
        t0 = now_s();
        for (int i = 0; i < batch; i++) {
            check(MPI_Comm_dup(MPI_COMM_WORLD, &comms[i]), "MPI_Comm_dup");
        }
        if (b >= warmup) {
            total += now_s() - t0;
        }
        for (int i = 0; i < batch; i++) {
            check(MPI_Comm_free(&comms[i]), "MPI_Comm_free");
        }
    }
    snprintf(name, sizeof(name), "comm_dup_np%d", nprocs);
    report(name, 0, total * 1e6 / ((double)batches * batch), "us");
}

static void run_all(int quick)
{
    if (nprocs != 2) {
        /* Point-to-point needs a pair: only the collective runs. */
        if (quick) {
            comm_dup(1, 2, 10);
        } else {
            comm_dup(1, DUP_BATCHES, DUP_BATCH);
        }
        return;
    }
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
    if (quick) {
        comm_dup(1, 2, 10);
    } else {
        comm_dup(1, DUP_BATCHES, DUP_BATCH);
    }
}

int main(int argc, char **argv)
{
    int quick = 0;
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
                fprintf(stderr, "usage: mpirun -np N mpi_bench NAME "
                                "[--quick]\n");
            }
            MPI_Finalize();
            return 2;
        }
    }
    /* With 2 processes, each is the other's peer; otherwise unused. */
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
