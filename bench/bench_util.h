/*
 * bench_util.h: the clock, the thread binding, the point-to-point
 * sweep, the rows of missing figures and (MPI programs) the chan_create
 * cycle the benchmark programs share, so that their figures are taken
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

/* Why the MPI call what failed with rc, in why: "<what> failed: <text>",
 * the text's last line (MPICH's is a stack of lines; the last says why). */
static inline void bench_mpi_why(int rc, const char *what, char *why,
                                 size_t why_size)
{
    char text[MPI_MAX_ERROR_STRING];
    const char *last;
    int len = 0;

    if (MPI_Error_string(rc, text, &len) != MPI_SUCCESS) {
        len = 0;
    }
    text[len] = '\0';
    last = strrchr(text, '\n');
    snprintf(why, why_size, "%s failed: %s", what,
             last != NULL ? last + 1 : text);
}
#endif

/* Prints the row "<bench>,0,<impl>,,missing (<why>)" of a figure this
 * implementation cannot give; why goes into a CSV field, so its commas and
 * line breaks become semicolons. */
static inline void bench_missing(const char *bench, const char *impl,
                                 const char *why)
{
    char clean[256];
    size_t i;

    for (i = 0; why[i] != '\0' && i + 1 < sizeof(clean); i++) {
        clean[i] = (why[i] == ',' || why[i] == '\n') ? ';' : why[i];
    }
    clean[i] = '\0';
    printf("%s,0,%s,,missing (%s)\n", bench, impl, clean);
    fflush(stdout);
}

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

#ifdef MPIX_CNAME
/* The chan_create cycle of the MPI programs with peer over via: an LCO
 * with one receive slot, its name sent (tag 3) to the peer, which adds a
 * send slot to it and sends one 8-byte message (tag 1), then both free
 * it. The time per cycle on the side that makes the LCO (creator), in
 * microseconds. */
static inline double bench_chan_cycle(MPI_Comm via, int peer, int creator,
                                      int warmup, int cycles)
{
    enum { CHAN_DATA = 1, CHAN_NAME = 3 };
    char msg[8] = { 0 };
    double t0 = 0.0;

    for (int c = 0; c < warmup + cycles; c++) {
        MPI_Comm lco;
        MPIX_Cname name;

        if (c == warmup) {
            t0 = now_s();
        }
        check(MPIX_Comm_create_local(&lco), "MPIX_Comm_create_local");
        if (creator) {
            check(MPIX_Add_receive_slots(lco, 1), "MPIX_Add_receive_slots");
            check(MPIX_Comm_name(lco, &name), "MPIX_Comm_name");
            check(MPI_Send(&name, 1, MPIX_CNAME, peer, CHAN_NAME, via),
                  "MPI_Send (name)");
            check(MPI_Recv(msg, (int)sizeof(msg), MPI_BYTE, 0, CHAN_DATA, lco,
                           MPI_STATUS_IGNORE), "MPI_Recv (first message)");
        } else {
            const int rslot = 0;

            check(MPI_Recv(&name, 1, MPIX_CNAME, peer, CHAN_NAME, via,
                           MPI_STATUS_IGNORE), "MPI_Recv (name)");
            check(MPIX_Add_send_slots(lco, 1, &name, &rslot),
                  "MPIX_Add_send_slots");
            check(MPI_Send(msg, (int)sizeof(msg), MPI_BYTE, 0, CHAN_DATA, lco),
                  "MPI_Send (first message)");
        }
        check(MPI_Comm_free(&lco), "MPI_Comm_free");
    }
    return (now_s() - t0) * 1e6 / cycles;
}
#endif

#endif
