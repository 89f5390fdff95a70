/*
 * mpi_bench: ping-pong latency and windowed bandwidth in plain MPI, the
 * same measurements as gcm_bench and ucx_am_bench.
 *
 *   latency:   rank 0 MPI_Send()s S bytes, rank 1 MPI_Recv()s them and
 *              sends S bytes back; one-way latency is half the round trip.
 *   bandwidth: rank 0 MPI_Isend()s a window of 64 messages of S bytes and
 *              MPI_Waitall()s them; rank 1 has the 64 receives posted and
 *              answers each complete window with a 4-byte ack.
 *   exchange:  each rank MPI_Irecv()s two messages of S bytes from the
 *              other (tags 1 and 2), MPI_Isend()s two to it and
 *              MPI_Waitall()s the four: the halo exchange of a periodic
 *              ring of two, as stencil codes write it (both neighbours
 *              are the peer); the time per exchange.
 *   comm_dup:  every rank MPI_Comm_dup()s MPI_COMM_WORLD DUP_BATCH times
 *              back to back; the time per MPI_Comm_dup on rank 0, the
 *              MPI_Comm_free()s being done outside the timed region.
 *   comm_connect: a new connection from nothing to its first message, as
 *              gcm_bench's chan_create: rank 0 MPI_Open_port()s, sends the
 *              port name over MPI_COMM_WORLD and MPI_Comm_accept()s; rank 1
 *              MPI_Comm_connect()s and sends 8 bytes on the new
 *              intercommunicator; rank 0 receives them; both
 *              MPI_Comm_disconnect(), rank 0 MPI_Close_port()s. The time
 *              per cycle on rank 0.
 *   chan_create: the same cycle with gencomm's MPIX_ LCO calls (only where
 *              mpi.h defines MPIX_CNAME): rank 0 MPIX_Comm_create_local()s
 *              an LCO with one receive slot and sends its MPIX_Comm_name()
 *              as an MPIX_CNAME; rank 1 makes an LCO with a send slot to it
 *              (MPIX_Add_send_slots) and sends 8 bytes; both
 *              MPI_Comm_free() theirs.
 *
 * Point-to-point and comm_dup use only core MPI-1 calls, so that any MPI,
 * gencomm's own included, can build this file unchanged. bench/run builds
 * it with each MPI's mpicc (gencomm's own tools/mpicc included).
 * comm_connect is built where mpi.h defines MPI_MAX_PORT_NAME (MPI-2
 * dynamic processes); where it does not, or where MPI_Open_port fails, the
 * row has an empty value and the unit "missing (...)" saying why.
 *
 * With 2 processes it runs them all; with any other count only comm_dup,
 * to show how its cost grows with the number of processes. The benchmark is
 * named comm_dup_npN for N processes; its size column is 0, as that of
 * comm_connect and chan_create.
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

#include "bench_util.h"

#define TAG_DATA 1
#define TAG_ACK  2
#define TAG_NAME 3

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

static const char *impl = "mpi";
static int rank;
static int nprocs;
static int peer;
static char *sbuf;
static char *rbuf;

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

static void exchange(size_t size, int warmup, int iters)
{
    MPI_Request reqs[4];
    MPI_Status stats[4];
    int n = (int)size;
    double t0 = 0.0;

    for (int i = 0; i < warmup + iters; i++) {
        if (i == warmup) {
            check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
            t0 = now_s();
        }
        check(MPI_Irecv(rbuf, n, MPI_BYTE, peer, TAG_DATA, MPI_COMM_WORLD,
                        &reqs[0]), "MPI_Irecv");
        check(MPI_Irecv(rbuf + n, n, MPI_BYTE, peer, TAG_ACK,
                        MPI_COMM_WORLD, &reqs[1]), "MPI_Irecv");
        check(MPI_Isend(sbuf, n, MPI_BYTE, peer, TAG_ACK, MPI_COMM_WORLD,
                        &reqs[2]), "MPI_Isend");
        check(MPI_Isend(sbuf + n, n, MPI_BYTE, peer, TAG_DATA,
                        MPI_COMM_WORLD, &reqs[3]), "MPI_Isend");
        check(MPI_Waitall(4, reqs, stats), "MPI_Waitall");
    }
    report("exchange", size, (now_s() - t0) * 1e6 / iters, "us");
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

static void missing(const char *bench, const char *why)
{
    if (rank == 0) {
        bench_missing(bench, impl, why);
    }
}

#ifdef MPI_MAX_PORT_NAME
/* MPI_Open_port's error, if any, as text (its errors go to the handler of
 * MPI_COMM_WORLD or MPI_COMM_SELF, depending on the MPI version). */
static int open_port(char *port, char *why, size_t why_size)
{
    int rc;

    check(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN),
          "MPI_Comm_set_errhandler");
    check(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN),
          "MPI_Comm_set_errhandler");
    rc = MPI_Open_port(MPI_INFO_NULL, port);
    check(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL),
          "MPI_Comm_set_errhandler");
    check(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL),
          "MPI_Comm_set_errhandler");
    if (rc != MPI_SUCCESS) {
        bench_mpi_why(rc, "MPI_Open_port", why, why_size);
    }
    return rc;
}

/* Rank 0 sends rank 1 the port name after a 'P', or an 'E' when it could
 * not open one: then both stop and the row says why. */
static void comm_connect(int warmup, int cycles)
{
    char port[MPI_MAX_PORT_NAME + 1];
    char why[MPI_MAX_ERROR_STRING + 32];
    char msg[8] = { 0 };
    MPI_Comm inter;
    double t0 = 0.0;

    for (int c = 0; c < warmup + cycles; c++) {
        if (c == warmup) {
            t0 = now_s();
        }
        if (rank == 0) {
            port[0] = 'P';
            if (open_port(port + 1, why, sizeof(why)) != MPI_SUCCESS) {
                port[0] = 'E';
            }
            check(MPI_Send(port, (int)sizeof(port), MPI_CHAR, peer, TAG_NAME,
                           MPI_COMM_WORLD), "MPI_Send (port name)");
            if (port[0] == 'E') {
                missing("comm_connect", why);
                return;
            }
            check(MPI_Comm_accept(port + 1, MPI_INFO_NULL, 0, MPI_COMM_SELF,
                                  &inter), "MPI_Comm_accept");
            check(MPI_Recv(msg, (int)sizeof(msg), MPI_BYTE, 0, TAG_DATA,
                           inter, MPI_STATUS_IGNORE),
                  "MPI_Recv (first message)");
            check(MPI_Comm_disconnect(&inter), "MPI_Comm_disconnect");
            check(MPI_Close_port(port + 1), "MPI_Close_port");
        } else {
            check(MPI_Recv(port, (int)sizeof(port), MPI_CHAR, peer, TAG_NAME,
                           MPI_COMM_WORLD, MPI_STATUS_IGNORE),
                  "MPI_Recv (port name)");
            if (port[0] == 'E') {
                return;
            }
            check(MPI_Comm_connect(port + 1, MPI_INFO_NULL, 0, MPI_COMM_SELF,
                                   &inter), "MPI_Comm_connect");
            check(MPI_Send(msg, (int)sizeof(msg), MPI_BYTE, 0, TAG_DATA,
                           inter), "MPI_Send (first message)");
            check(MPI_Comm_disconnect(&inter), "MPI_Comm_disconnect");
        }
    }
    report("comm_connect", 0, (now_s() - t0) * 1e6 / cycles, "us");
}
#else
static void comm_connect(int warmup, int cycles)
{
    (void)warmup;
    (void)cycles;
    missing("comm_connect", "this MPI has no MPI_Open_port");
}
#endif

#ifdef MPIX_CNAME
static void chan_create(int warmup, int cycles)
{
    report("chan_create", 0,
           bench_chan_cycle(MPI_COMM_WORLD, peer, rank == 0, warmup, cycles),
           "us");
}
#endif

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
    bench_p2p_sweep(quick, lat_sizes, NELEMS(lat_sizes), SMALL_MAX, latency,
                    bw_sizes, NELEMS(bw_sizes), WINDOW, bandwidth);
    if (quick) {
        exchange(8, 5, 50);
    } else {
        exchange(8, 1000, 20000);
    }
    if (quick) {
        comm_dup(1, 2, 10);
    } else {
        comm_dup(1, DUP_BATCHES, DUP_BATCH);
    }
#ifdef MPIX_CNAME
    if (quick) {
        chan_create(2, 10);
    } else {
        chan_create(100, 2000);
    }
#endif
    /* Last: the slowest by far where it works (milliseconds a cycle). */
    if (quick) {
        comm_connect(1, 2);
    } else {
        comm_connect(5, 50);
    }
}

int main(int argc, char **argv)
{
    int quick = 0;
    size_t buf_size = bw_sizes[NELEMS(bw_sizes) - 1];

    check(MPI_Init(&argc, &argv), "MPI_Init");
    check(MPI_Comm_rank(MPI_COMM_WORLD, &rank), "MPI_Comm_rank");
    bench_name = "mpi_bench";
    bench_rank = rank;
    check(MPI_Comm_size(MPI_COMM_WORLD, &nprocs), "MPI_Comm_size");
    if (bench_args(argc, argv, &impl, &quick) != 0) {
        if (rank == 0) {
            fprintf(stderr, "usage: mpirun -np N mpi_bench NAME "
                            "[--quick]\n");
        }
        MPI_Finalize();
        return 2;
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
