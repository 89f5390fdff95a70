/*
 * bench_util.h: the clock, the thread binding and the point-to-point
 * sweep the benchmark programs share, so that their figures are taken
 * the same way. Plain C and POSIX
 * only: the MPI programs include it too, built by bench/run with each
 * MPI's own mpicc (found next to the source, no -I needed).
 *
 * Include it after defining _GNU_SOURCE (pthread_setaffinity_np, CPU_*),
 * and after mpi.h or gencomm.h (the programs get check() for their calls).
 */
#ifndef BENCH_UTIL_H
#define BENCH_UTIL_H

#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define NELEMS(_a) (sizeof(_a) / sizeof((_a)[0]))

/* The program's name and this process's rank (-1: not known yet) that
 * begin bench_say's lines; the program sets them. */
static const char *bench_name = "bench";
static int bench_rank = -1;

/* Prints "<name>[<rank>]: <message>" on stderr. */
static inline void bench_vsay(const char *fmt, va_list ap)
    __attribute__((format(printf, 1, 0)));

static inline void bench_vsay(const char *fmt, va_list ap)
{
    fprintf(stderr, "%s[%d]: ", bench_name, bench_rank);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
}

static inline void bench_say(const char *fmt, ...)
    __attribute__((format(printf, 1, 2)));

static inline void bench_say(const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    bench_vsay(fmt, ap);
    va_end(ap);
}

/* bench_say, then exit(1). */
static inline void bench_die(const char *fmt, ...)
    __attribute__((format(printf, 1, 2), noreturn));

static inline void bench_die(const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    bench_vsay(fmt, ap);
    va_end(ap);
    exit(1);
}

#if defined(GENCOMM_H) && !defined(MPI_VERSION)
/* A gencomm call's status must be GCM_OK; else names the call (what) and
 * gencomm's own explanation, and exits. */
static inline void check(gcm_status_t st, const char *what)
{
    if (st != GCM_OK) {
        bench_die("%s: %s (%s)", what, gcm_status_string(st),
                  gcm_last_error());
    }
}
#endif

#ifdef MPI_VERSION
/* rc, what an MPI call (what) returned, must be MPI_SUCCESS; else says so
 * and ends the job. */
static inline void check(int rc, const char *what)
{
    if (rc != MPI_SUCCESS) {
        bench_say("%s failed (error %d)", what, rc);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
}
#endif

/* Seconds on the monotonic clock; the MPI programs use it too, not
 * MPI_Wtime, so that every implementation is timed by the same clock. */
static inline double now_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/*
 * Bind the calling thread to the index-th CPU this process may use, when it
 * may use more than one: the two ping-pong threads then run on cores of
 * their own, as the two processes of the other benchmarks do. Returns
 * pthread_setaffinity_np's error number, 0 also when there was nothing to
 * choose.
 */
static inline int bind_thread(int index)
{
    cpu_set_t allowed;
    cpu_set_t mine;
    int seen = 0;

    if (sched_getaffinity(0, sizeof(allowed), &allowed) != 0 ||
        CPU_COUNT(&allowed) < 2) {
        return 0;
    }
    index %= CPU_COUNT(&allowed);
    for (int cpu = 0; cpu < CPU_SETSIZE; cpu++) {
        if (CPU_ISSET(cpu, &allowed) && seen++ == index) {
            CPU_ZERO(&mine);
            CPU_SET(cpu, &mine);
            return pthread_setaffinity_np(pthread_self(), sizeof(mine),
                                          &mine);
        }
    }
    return 0;
}

/* The arguments of the MPI programs that take no option but these: NAME
 * (*impl, the implementation's label in the rows) and --quick (*quick
 * set). 0, or -1 on anything else (the caller says its usage). */
static inline int bench_args(int argc, char **argv, const char **impl,
                             int *quick)
{
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--quick") == 0) {
            *quick = 1;
        } else if (argv[i][0] != '-') {
            *impl = argv[i];
        } else {
            return -1;
        }
    }
    return 0;
}

/* A measurement of one message size: warmup rounds, then n timed ones. */
typedef void bench_sized_fn(size_t size, int warmup, int n);

/*
 * The point-to-point sweep gcm_bench, mpi_bench and ucx_am_bench share,
 * so that their rows compare: latency at each of lat[] (fewer rounds
 * above small_max), then bandwidth at each of bw[], about 1 GiB per
 * measurement in windows of window messages (between 10 and 200
 * windows). quick: a few rounds each, for the tests.
 */
static inline void bench_p2p_sweep(int quick, const size_t *lat, size_t nlat,
                                   size_t small_max, bench_sized_fn *latency,
                                   const size_t *bw, size_t nbw,
                                   size_t window, bench_sized_fn *bandwidth)
{
    for (size_t i = 0; i < nlat; i++) {
        int big = lat[i] > small_max;

        if (quick) {
            latency(lat[i], 5, 50);
        } else {
            latency(lat[i], big ? 200 : 1000, big ? 2000 : 10000);
        }
    }
    for (size_t i = 0; i < nbw; i++) {
        size_t n = ((size_t)1 << 30) / (bw[i] * window);

        n = n < 10 ? 10 : (n > 200 ? 200 : n);
        if (quick) {
            bandwidth(bw[i], 1, 2);
        } else {
            bandwidth(bw[i], 2, (int)n);
        }
    }
}

/*
 * Whether the thread benchmarks measure T threads in each of two processes
 * here: up to 4 always (the rule that 2 and 4 never fall below 1 is
 * checked on a 2-core machine too), more only where the machine has a
 * core for each of the 2 x T threads.
 */
static inline int bench_threads_fit(int t)
{
    return (t <= 4) || (2L * t <= sysconf(_SC_NPROCESSORS_ONLN));
}

#endif
