/*
 * mpi_dpm_bench: dynamic processes in plain MPI (MPI-2, chapter 10),
 * run as one process that spawns copies of itself.
 *
 *   spawn_1, spawn_4: the process MPI_Comm_spawn()s N copies of this
 *              program (MPI_COMM_SELF, root 0); each child sends one int
 *              over MPI_Comm_get_parent()'s intercommunicator, and the
 *              figure is the time from the call to the last of the N
 *              messages received, per spawn. Both sides then
 *              MPI_Comm_disconnect() and the children end; the parent
 *              waits 0.2 s, untimed, so that the ending of one spawn's
 *              children does not weigh on the next.
 *   chan_create_xjob, chan_create_sjob (only where mpi.h defines
 *              MPIX_CNAME): mpi_bench's chan_create cycle (an LCO with one
 *              receive slot, its MPIX_CNAME sent to the peer, which adds a
 *              send slot to it and sends 8 bytes; both free their LCO)
 *              between two jobs and within one: the process spawns a job
 *              of 2 children; then the parent and child 0 (over the
 *              intercommunicator: another job) run the cycle, then child 0
 *              and child 1 (over their MPI_COMM_WORLD: the same job). The
 *              time per cycle on the side that made the LCO; child 0 sends
 *              its figure to the parent, which prints both.
 *
 * A figure that cannot be taken (a spawn that fails, as MPICH's ch4:ucx
 * does) is a row with an empty value and "missing (why)".
 *
 * Output, one line per measurement, on the parent's stdout:
 *     benchmark,size_bytes,implementation,value,unit
 *
 * Usage: mpirun -np 1 mpi_dpm_bench IMPLEMENTATION_NAME [--quick]
 */
#define _GNU_SOURCE
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <mpi.h>

#include "bench_util.h"

#define TAG_HELLO 4
#define TAG_FIGURE 5

static const char *impl = "mpi";
static char self_exe[PATH_MAX];

static void report(const char *bench, double value)
{
    printf("%s,0,%s,%.3f,us\n", bench, impl, value);
    fflush(stdout);
}

static void missing(const char *bench, const char *why)
{
    bench_missing(bench, impl, why);
}

static void pause_s(double s)
{
    struct timespec ts = { .tv_sec = (time_t)s,
                           .tv_nsec = (long)((s - (time_t)s) * 1e9) };

    nanosleep(&ts, NULL);
}

/* Spawns n children running argv; MPI_SUCCESS or the error, with its text
 * (the last line of it: MPICH's is a stack) in why. */
static int spawn(int n, char *argv[], MPI_Comm *inter, char *why,
                 size_t why_size)
{
    int rc;

    check(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN),
          "MPI_Comm_set_errhandler");
    rc = MPI_Comm_spawn(self_exe, argv, n, MPI_INFO_NULL, 0, MPI_COMM_SELF,
                        inter, MPI_ERRCODES_IGNORE);
    check(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL),
          "MPI_Comm_set_errhandler");
    if (rc != MPI_SUCCESS) {
        bench_mpi_why(rc, "MPI_Comm_spawn", why, why_size);
    }
    return rc;
}

/* spawn_N: 0 if it ran, -1 if spawning failed (the row says why). */
static int spawn_bench(int n, int warmup, int cycles)
{
    char *argv[] = { "hello", NULL };
    char bench[32], why[MPI_MAX_ERROR_STRING + 32];
    double total = 0.0;

    snprintf(bench, sizeof(bench), "spawn_%d", n);
    for (int c = 0; c < warmup + cycles; c++) {
        MPI_Comm inter;
        double t0 = now_s();
        int v;

        if (spawn(n, argv, &inter, why, sizeof(why)) != MPI_SUCCESS) {
            missing(bench, why);
            return -1;
        }
        for (int i = 0; i < n; i++) {
            check(MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, TAG_HELLO, inter,
                           MPI_STATUS_IGNORE), "MPI_Recv (hello)");
        }
        if (c >= warmup) {
            total += now_s() - t0;
        }
        check(MPI_Comm_disconnect(&inter), "MPI_Comm_disconnect");
        pause_s(0.2);
    }
    report(bench, total * 1e6 / cycles);
    return 0;
}

#ifdef MPIX_CNAME

static void chan_bench(int warmup, int cycles)
{
    char *argv[] = { "chan", NULL };
    char why[MPI_MAX_ERROR_STRING + 32];
    int n[2] = { warmup, cycles };
    MPI_Comm inter;
    double us;

    if (spawn(2, argv, &inter, why, sizeof(why)) != MPI_SUCCESS) {
        missing("chan_create_xjob", why);
        missing("chan_create_sjob", why);
        return;
    }
    check(MPI_Send(n, 2, MPI_INT, 0, TAG_HELLO, inter), "MPI_Send (counts)");
    report("chan_create_xjob", bench_chan_cycle(inter, 0, 1, warmup, cycles));
    check(MPI_Recv(&us, 1, MPI_DOUBLE, 0, TAG_FIGURE, inter,
                   MPI_STATUS_IGNORE), "MPI_Recv (figure)");
    report("chan_create_sjob", us);
    check(MPI_Comm_disconnect(&inter), "MPI_Comm_disconnect");
}

/* A child of chan_bench: child 0 takes part in both cycles, child 1 in
 * the one within the job. */
static void chan_child(MPI_Comm parent)
{
    int me, n[2] = { 0, 0 };
    double us;

    check(MPI_Comm_rank(MPI_COMM_WORLD, &me), "MPI_Comm_rank");
    if (me == 0) {
        check(MPI_Recv(n, 2, MPI_INT, 0, TAG_HELLO, parent,
                       MPI_STATUS_IGNORE), "MPI_Recv (counts)");
        (void)bench_chan_cycle(parent, 0, 0, n[0], n[1]);
    }
    check(MPI_Bcast(n, 2, MPI_INT, 0, MPI_COMM_WORLD), "MPI_Bcast");
    us = bench_chan_cycle(MPI_COMM_WORLD, 1 - me, me == 0, n[0], n[1]);
    if (me == 0) {
        check(MPI_Send(&us, 1, MPI_DOUBLE, 0, TAG_FIGURE, parent),
              "MPI_Send (figure)");
    }
}
#endif

int main(int argc, char **argv)
{
    MPI_Comm parent;
    int quick = 0, nprocs;
    ssize_t len;

    bench_name = "mpi_dpm_bench";
    check(MPI_Init(&argc, &argv), "MPI_Init");
    check(MPI_Comm_get_parent(&parent), "MPI_Comm_get_parent");
    if (parent != MPI_COMM_NULL) {
        int me = 0;

        check(MPI_Comm_rank(MPI_COMM_WORLD, &me), "MPI_Comm_rank");
        if ((argc > 1) && (strcmp(argv[1], "hello") == 0)) {
            check(MPI_Send(&me, 1, MPI_INT, 0, TAG_HELLO, parent),
                  "MPI_Send (hello)");
        }
#ifdef MPIX_CNAME
        if ((argc > 1) && (strcmp(argv[1], "chan") == 0)) {
            chan_child(parent);
        }
#endif
        check(MPI_Comm_disconnect(&parent), "MPI_Comm_disconnect");
        MPI_Finalize();
        return 0;
    }
    if (bench_args(argc, argv, &impl, &quick) != 0) {
        fprintf(stderr, "usage: mpirun -np 1 mpi_dpm_bench NAME "
                        "[--quick]\n");
        MPI_Finalize();
        return 2;
    }
    check(MPI_Comm_size(MPI_COMM_WORLD, &nprocs), "MPI_Comm_size");
    len = readlink("/proc/self/exe", self_exe, sizeof(self_exe) - 1);
    if ((nprocs != 1) || (len <= 0)) {
        fprintf(stderr, "mpi_dpm_bench: run it as one process (it spawns "
                        "its peers)\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    self_exe[len] = '\0';
    if (spawn_bench(1, quick ? 0 : 1, quick ? 1 : 5) == 0) {
        (void)spawn_bench(4, quick ? 0 : 1, quick ? 1 : 5);
    } else {
        missing("spawn_4", "spawning one process failed");
    }
#ifdef MPIX_CNAME
    if (quick) {
        chan_bench(2, 10);
    } else {
        chan_bench(100, 2000);
    }
#endif
    MPI_Finalize();
    return 0;
}
