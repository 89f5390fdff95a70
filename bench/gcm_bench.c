/*
 * gcm_bench: ping-pong latency and windowed bandwidth over the native
 * gencomm API, between processes 0 and 1 of the world LCO.
 *
 * The measurements mirror ucx_am_bench (the raw UCX floor) and mpi_bench
 * (Open MPI, MPICH) message for message, so that the figures can be read as
 * ratios:
 *   latency:   rank 0 gcm_send()s S bytes, rank 1 gcm_recv()s them and sends
 *              S bytes back; one-way latency is half the round trip.
 *   bandwidth: rank 0 gcm_isend()s a window of 64 messages of S bytes and
 *              gcm_waitall()s them; rank 1 has the 64 receives posted and
 *              answers each complete window with a 4-byte ack.
 *   chan_create: a new channel, the seed's Figure 2, from nothing to its
 *              first message: rank 0 creates an LCO with one receive slot
 *              and sends its name over the world LCO; rank 1 creates an
 *              LCO, adds a send slot that targets the name and sends 8
 *              bytes on it; rank 0 receives them. Both free their LCO. The
 *              time per cycle on rank 0 (mpi_bench times
 *              MPI_Comm_connect/MPI_Comm_accept the same way).
 *
 * Output, one line per measurement, on rank 0's stdout:
 *     benchmark,size_bytes,implementation,value,unit
 *
 * Usage: tools/gcrun -n 2 bench/gcm_bench [--quick]
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <gencomm.h>

#include "bench_util.h"

#define IMPL_NAME "gencomm"

#define TAG_DATA 1
#define TAG_ACK  2
#define TAG_NAME 3

/* Messages in flight per bandwidth window before the receiver acks. */
#define WINDOW 64

/* Latency sizes above this run fewer iterations (they take longer). */
#define SMALL_MAX 8192

static const size_t lat_sizes[] = { 0, 8, 1024, 65536 };
static const size_t bw_sizes[] = { 65536, 1048576, 4194304 };

static int rank;
static int peer;
static gcm_lco_h world;
static char *sbuf;
static char *rbuf;

static void report(const char *bench, size_t size, double value,
                   const char *unit)
{
    if (rank == 0) {
        printf("%s,%zu,%s,%.3f,%s\n", bench, size, IMPL_NAME, value, unit);
        fflush(stdout);
    }
}

static void recv_exact(void *buf, size_t size, int tag)
{
    gcm_msg_status_t st;

    check(gcm_recv(world, buf, size, peer, tag, &st), "gcm_recv");
    if (st.count != size) {
        bench_die("gcm_recv: got %zu bytes, expected %zu", st.count, size);
    }
}

static void latency(size_t size, int warmup, int iters)
{
    double t0 = 0.0;

    for (int i = 0; i < warmup + iters; i++) {
        if (i == warmup) {
            t0 = now_s();
        }
        if (rank == 0) {
            check(gcm_send(world, sbuf, size, peer, TAG_DATA), "gcm_send");
            recv_exact(rbuf, size, TAG_DATA);
        } else {
            recv_exact(rbuf, size, TAG_DATA);
            check(gcm_send(world, sbuf, size, peer, TAG_DATA), "gcm_send");
        }
    }
    report("latency", size, (now_s() - t0) * 1e6 / (2.0 * iters), "us");
}

static void bandwidth(size_t size, int warmup, int windows)
{
    gcm_request_h reqs[WINDOW];
    gcm_msg_status_t stats[WINDOW];
    char ack[4] = { 0 };
    double t0 = 0.0;

    for (int w = 0; w < warmup + windows; w++) {
        if (w == warmup) {
            t0 = now_s();
        }
        if (rank == 0) {
            for (int k = 0; k < WINDOW; k++) {
                check(gcm_isend(world, sbuf, size, peer, TAG_DATA, &reqs[k]),
                      "gcm_isend");
            }
            check(gcm_waitall(WINDOW, reqs, stats), "gcm_waitall (sends)");
            recv_exact(ack, sizeof(ack), TAG_ACK);
        } else {
            /*
             * Every message of the window lands in the same buffer: this
             * measures the transport, not the memory system.
             */
            for (int k = 0; k < WINDOW; k++) {
                check(gcm_irecv(world, rbuf, size, peer, TAG_DATA, &reqs[k]),
                      "gcm_irecv");
            }
            check(gcm_waitall(WINDOW, reqs, stats), "gcm_waitall (recvs)");
            for (int k = 0; k < WINDOW; k++) {
                if (stats[k].count != size) {
                    bench_die("window receive got %zu bytes, expected %zu",
                        stats[k].count, size);
                }
            }
            check(gcm_send(world, ack, sizeof(ack), peer, TAG_ACK),
                  "gcm_send (ack)");
        }
    }
    report("bandwidth", size,
           (double)size * WINDOW * windows / (now_s() - t0) / 1e6, "MB/s");
}

static void chan_create(int warmup, int cycles)
{
    char msg[8] = { 0 };
    double t0 = 0.0;

    for (int c = 0; c < warmup + cycles; c++) {
        gcm_lco_h lco;
        gcm_name_t name;

        if (c == warmup) {
            t0 = now_s();
        }
        check(gcm_lco_create(&lco), "gcm_lco_create");
        if (rank == 0) {
            check(gcm_lco_add_recv_slots(lco, 1), "gcm_lco_add_recv_slots");
            check(gcm_lco_name(lco, &name), "gcm_lco_name");
            check(gcm_send(world, &name, sizeof(name), peer, TAG_NAME),
                  "gcm_send (name)");
            check(gcm_recv(lco, msg, sizeof(msg), 0, TAG_DATA, NULL),
                  "gcm_recv (first message)");
        } else {
            const int rslot = 0;

            recv_exact(&name, sizeof(name), TAG_NAME);
            check(gcm_lco_add_send_slots(lco, 1, &name, &rslot),
                  "gcm_lco_add_send_slots");
            check(gcm_send(lco, msg, sizeof(msg), 0, TAG_DATA),
                  "gcm_send (first message)");
        }
        check(gcm_lco_free(&lco), "gcm_lco_free");
    }
    report("chan_create", 0, (now_s() - t0) * 1e6 / cycles, "us");
}

static void run_all(int quick)
{
    bench_p2p_sweep(quick, lat_sizes, NELEMS(lat_sizes), SMALL_MAX, latency,
                    bw_sizes, NELEMS(bw_sizes), WINDOW, bandwidth);
    if (quick) {
        chan_create(2, 10);
    } else {
        chan_create(100, 2000);
    }
}

int main(int argc, char **argv)
{
    int quick = 0;
    size_t buf_size = bw_sizes[NELEMS(bw_sizes) - 1];

    check(gcm_init(&argc, &argv), "gcm_init");
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--quick") == 0) {
            quick = 1;
        } else {
            fprintf(stderr, "usage: gcrun -n 2 gcm_bench [--quick]\n");
            gcm_finalize();
            return 2;
        }
    }
    rank = gcm_proc_rank();
    bench_name = "gcm_bench";
    bench_rank = rank;
    if (gcm_proc_count() != 2) {
        if (rank == 0) {
            fprintf(stderr, "gcm_bench: needs exactly 2 processes, got %d\n",
                    gcm_proc_count());
        }
        gcm_finalize();
        return 2;
    }
    peer = 1 - rank;
    world = gcm_world();

    sbuf = malloc(buf_size);
    rbuf = malloc(buf_size);
    if (sbuf == NULL || rbuf == NULL) {
        bench_die("out of memory");
    }
    /* Fault the pages in now, not inside a timed loop. */
    memset(sbuf, 'a' + rank, buf_size);
    memset(rbuf, 0, buf_size);

    run_all(quick);

    free(sbuf);
    free(rbuf);
    check(gcm_finalize(), "gcm_finalize");
    return 0;
}
