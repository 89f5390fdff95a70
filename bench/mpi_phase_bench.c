/*
 * mpi_phase_bench: which phase the machine is in while an MPI library's
 * 8-byte collectives at 2 processes are timed (bench/README.md, "Phases
 * at 2 processes, 8 bytes").
 *
 * Two processes of one host. For each of W windows, in this order:
 * - floor: ITERS exchanges of one cache line each way on a shared file
 *   mapping, no library, each timed on its own and followed by an untimed
 *   flag barrier: the pattern of mpi_coll_bench's 8-byte rows (a timed
 *   call, then a barrier) with nothing but the cache-line transfers;
 * - allreduce: ITERS calls of MPI_Allreduce on one double, each timed,
 *   MPI_Barrier between (as mpi_coll_bench);
 * - allgather: the same with MPI_Allgather of 8 bytes.
 * A figure is the mean time of a call in microseconds, the slower rank's.
 * The three of a window are taken within a few milliseconds of each
 * other, so a slow window of the library beside a fast floor is the
 * library's own, and a slow floor says the machine (the host's placement
 * of the two virtual CPUs) was slow for everyone.
 *
 * Output on rank 0, one line per kind, a figure per window:
 *     floor F1 F2 ...
 *     allreduce A1 A2 ...
 *     allgather G1 G2 ...
 *
 * Usage: mpirun -np 2 mpi_phase_bench [WINDOWS [ITERS]]
 *        (WINDOWS 10, at most 64; ITERS 10000)
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include <mpi.h>

#include "bench_util.h"

#define MAX_WINDOWS 64

enum { KIND_FLOOR, KIND_ALLREDUCE, KIND_ALLGATHER, NKINDS };

static const char *kind_names[NKINDS] = { "floor", "allreduce", "allgather" };

/* One process's flag, alone on its cache line. */
typedef struct {
    _Alignas(64) _Atomic uint64_t seq;
} flag_t;

static flag_t *mine;
static flag_t *peer;
static uint64_t seq;

/* Raises this process's flag and waits for the peer's to match; a wait
 * that lasts gives the core away (both processes may share one). */
static void flag_exchange(void)
{
    unsigned spins = 0;

    seq++;
    atomic_store_explicit(&mine->seq, seq, memory_order_release);
    while (atomic_load_explicit(&peer->seq, memory_order_acquire) < seq) {
        if (++spins > 4096) {
            sched_yield();
        }
    }
}

/* Maps a page that both processes share (a file in /dev/shm named after
 * the launcher, removed once both have it). */
static flag_t *map_flags(int rank)
{
    char path[64];
    void *map;
    int fd;

    snprintf(path, sizeof(path), "/dev/shm/mpi_phase_bench.%d",
             (int)getppid());
    if (rank == 0) {
        fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
        if ((fd < 0) || (ftruncate(fd, 4096) != 0)) {
            bench_die("cannot create %s", path);
        }
    }
    check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
    if (rank != 0) {
        fd = open(path, O_RDWR);
        if (fd < 0) {
            bench_die("cannot open %s (both ranks must share a host and "
                      "a parent)", path);
        }
    }
    map = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (map == MAP_FAILED) {
        bench_die("cannot map %s", path);
    }
    close(fd);
    check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
    if (rank == 0) {
        unlink(path);
    }
    return map;
}

static double time_kind(int kind, int iters, double *sbuf, double *rbuf)
{
    double total = 0.0;

    check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
    for (int i = 0; i < iters; i++) {
        double t0 = now_s();

        if (kind == KIND_FLOOR) {
            flag_exchange();
            total += now_s() - t0;
            flag_exchange();
            continue;
        }
        if (kind == KIND_ALLREDUCE) {
            check(MPI_Allreduce(sbuf, rbuf, 1, MPI_DOUBLE, MPI_SUM,
                                MPI_COMM_WORLD), "MPI_Allreduce");
        } else {
            check(MPI_Allgather(sbuf, 8, MPI_BYTE, rbuf, 8, MPI_BYTE,
                                MPI_COMM_WORLD), "MPI_Allgather");
        }
        total += now_s() - t0;
        check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
    }
    return total * 1e6 / iters;
}

int main(int argc, char **argv)
{
    static double mine_us[NKINDS][MAX_WINDOWS];
    static double slowest[NKINDS][MAX_WINDOWS];
    double sbuf[2] = { 0.0, 0.0 };
    double rbuf[2];
    int windows = 10;
    int iters = 10000;
    int rank, nprocs;
    flag_t *flags;

    check(MPI_Init(&argc, &argv), "MPI_Init");
    check(MPI_Comm_rank(MPI_COMM_WORLD, &rank), "MPI_Comm_rank");
    check(MPI_Comm_size(MPI_COMM_WORLD, &nprocs), "MPI_Comm_size");
    bench_name = "mpi_phase_bench";
    bench_rank = rank;
    if (argc > 1) {
        windows = atoi(argv[1]);
    }
    if (argc > 2) {
        iters = atoi(argv[2]);
    }
    if ((nprocs != 2) || (windows < 1) || (windows > MAX_WINDOWS) ||
        (iters < 1)) {
        if (rank == 0) {
            fprintf(stderr, "usage: mpirun -np 2 mpi_phase_bench "
                            "[WINDOWS (1-%d) [ITERS (>= 1)]]\n",
                    MAX_WINDOWS);
        }
        MPI_Finalize();
        return 2;
    }
    flags = map_flags(rank);
    mine = &flags[rank];
    peer = &flags[1 - rank];

    for (int w = 0; w < windows; w++) {
        for (int k = 0; k < NKINDS; k++) {
            mine_us[k][w] = time_kind(k, iters, sbuf, rbuf);
        }
    }
    check(MPI_Reduce(mine_us, slowest, NKINDS * MAX_WINDOWS, MPI_DOUBLE,
                     MPI_MAX, 0, MPI_COMM_WORLD), "MPI_Reduce (result)");
    if (rank == 0) {
        for (int k = 0; k < NKINDS; k++) {
            printf("%s", kind_names[k]);
            for (int w = 0; w < windows; w++) {
                printf(" %.3f", slowest[k][w]);
            }
            printf("\n");
        }
    }
    munmap(flags, 4096);
    MPI_Finalize();
    return 0;
}
