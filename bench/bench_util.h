/*
 * bench_util.h: the clock and the thread binding every benchmark program
 * shares, so that their figures are taken the same way. Plain C and POSIX
 * only: the MPI programs include it too, built by bench/run with each
 * MPI's own mpicc (found next to the source, no -I needed).
 *
 * Include it after defining _GNU_SOURCE (pthread_setaffinity_np, CPU_*).
 */
#ifndef BENCH_UTIL_H
#define BENCH_UTIL_H

#include <pthread.h>
#include <sched.h>
#include <time.h>

#define NELEMS(_a) (sizeof(_a) / sizeof((_a)[0]))

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

#endif
