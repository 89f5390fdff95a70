/*
 * mpi_rma_bench: one-sided communication between two processes, measured
 * as the OSU micro-benchmarks do (osu_put_latency, osu_get_latency,
 * osu_put_bw, osu_get_bw, osu_fop_latency), in plain MPI-3 so that every
 * MPI builds it unchanged.
 *
 * The window is MPI_Win_allocate'd by both ranks; rank 0 is the origin
 * under one MPI_Win_lock(MPI_LOCK_SHARED, 1) epoch, rank 1 the passive
 * target, waiting in MPI_Barrier meanwhile.
 *
 *   put_lat, get_lat: one MPI_Put (MPI_Get) of S bytes and MPI_Win_flush,
 *              repeated; the time per operation.
 *   put_bw, get_bw: a window of 64 operations of S bytes, then one
 *              MPI_Win_flush; bytes moved over the time.
 *   fop_lat:   MPI_Fetch_and_op(MPI_SUM) of one 64-bit integer and
 *              MPI_Win_flush, repeated; the time per operation.
 *   fop_rate:  the same, operations per second (millions).
 *
 * Output, one line per measurement, on rank 0's stdout:
 *     benchmark,size_bytes,implementation,value,unit
 *
 * Usage: mpirun -np 2 mpi_rma_bench IMPLEMENTATION_NAME [--quick]
 *                                   [--iters N]
 * --iters N: N operations per latency figure (and proportionally fewer
 * windows for bandwidth), for slow paths (TCP between hosts).
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "bench_util.h"

#define WINDOW 64

static const size_t lat_sizes[] = { 8, 4096 };
static const size_t bw_sizes[] = { 65536, 1048576 };

static const char *impl = "mpi";
static int rank;

static void emit(const char *bench, size_t size, double value,
                 const char *unit)
{
    if (rank == 0) {
        printf("%s,%zu,%s,%.3f,%s\n", bench, size, impl, value, unit);
        fflush(stdout);
    }
}

/* iters operations of size bytes, flushed after each (lat) or after
 * every WINDOW (bw); returns the seconds taken. */
static double run_ops(MPI_Win win, char *buf, size_t size, int get,
                      int iters, int window)
{
    double t0;
    int i, j;

    t0 = now_s();
    for (i = 0; i < iters; i++) {
        for (j = 0; j < window; j++) {
            if (get) {
                check(MPI_Get(buf, (int)size, MPI_BYTE, 1, 0, (int)size,
                              MPI_BYTE, win), "MPI_Get");
            } else {
                check(MPI_Put(buf, (int)size, MPI_BYTE, 1, 0, (int)size,
                              MPI_BYTE, win), "MPI_Put");
            }
        }
        check(MPI_Win_flush(1, win), "MPI_Win_flush");
    }
    return now_s() - t0;
}

static double run_fop(MPI_Win win, int iters)
{
    int64_t one = 1, old;
    double t0;
    int i;

    t0 = now_s();
    for (i = 0; i < iters; i++) {
        check(MPI_Fetch_and_op(&one, &old, MPI_INT64_T, 1, 0, MPI_SUM, win),
              "MPI_Fetch_and_op");
        check(MPI_Win_flush(1, win), "MPI_Win_flush");
    }
    return now_s() - t0;
}

int main(int argc, char **argv)
{
    size_t maxsize = 1048576, s;
    int quick = 0, i, get, iters, warm, fixed = 0;
    char *mem, *buf;
    MPI_Win win;
    double t;
    char name[32];

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    bench_name = "mpi_rma_bench";
    bench_rank = rank;
    for (i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--quick") == 0) {
            quick = 1;
        } else if ((strcmp(argv[i], "--iters") == 0) && (i + 1 < argc)) {
            fixed = atoi(argv[++i]);
        } else {
            impl = argv[i];
        }
    }
    buf = malloc(maxsize);
    memset(buf, 1, maxsize);
    check(MPI_Win_allocate((MPI_Aint)maxsize, 1, MPI_INFO_NULL,
                           MPI_COMM_WORLD, &mem, &win), "MPI_Win_allocate");
    memset(mem, 0, maxsize);
    check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
    if (rank == 0) {
        check(MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win), "MPI_Win_lock");
        for (get = 0; get < 2; get++) {
            for (i = 0; i < (int)NELEMS(lat_sizes); i++) {
                s = lat_sizes[i];
                iters = quick ? 100 : ((s <= 1024) ? 20000 : 5000);
                if (fixed > 0) {
                    iters = fixed;
                }
                warm = iters / 10;
                (void)run_ops(win, buf, s, get, warm, 1);
                t = run_ops(win, buf, s, get, iters, 1);
                snprintf(name, sizeof(name), "%s_lat", get ? "get" : "put");
                emit(name, s, t * 1e6 / iters, "us");
            }
            for (i = 0; i < (int)NELEMS(bw_sizes); i++) {
                s = bw_sizes[i];
                iters = quick ? 2 : ((s <= 65536) ? 200 : 20);
                if (fixed > 0) {
                    iters = (fixed / 100 > 2) ? fixed / 100 : 2;
                }
                (void)run_ops(win, buf, s, get, 2, WINDOW);
                t = run_ops(win, buf, s, get, iters, WINDOW);
                snprintf(name, sizeof(name), "%s_bw", get ? "get" : "put");
                emit(name, s, (double)s * WINDOW * iters / t / 1e6, "MB/s");
            }
        }
        iters = quick ? 100 : ((fixed > 0) ? fixed : 20000);
        (void)run_fop(win, iters / 10);
        t = run_fop(win, iters);
        emit("fop_lat", 8, t * 1e6 / iters, "us");
        emit("fop_rate", 8, iters / t / 1e6, "Mmsg/s");
        check(MPI_Win_unlock(1, win), "MPI_Win_unlock");
    }
    check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
    check(MPI_Win_free(&win), "MPI_Win_free");
    free(buf);
    MPI_Finalize();
    return 0;
}
