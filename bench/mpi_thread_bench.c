/*
 * mpi_thread_bench: threads in plain MPI (MPI_THREAD_MULTIPLE), the same
 * measurements as gcm_thread_bench.
 *
 *   thread_latency (1 process): two threads of one process, each receiving
 *       on a communicator of its own (MPI_Comm_dup()ed before the threads
 *       start), sending to self: thread A MPI_Send()s S bytes to rank 0 on
 *       thread B's communicator, B MPI_Recv()s them and sends S bytes back
 *       on A's. One-way latency is half the round trip.
 *   msgrate_tT (2 processes): T threads per process, thread t of rank 0
 *       paired with thread t of rank 1 on communicator t (one
 *       MPI_Comm_dup() per thread, made before the threads start). Each
 *       sender MPI_Isend()s a window of 64 messages of 8 bytes and
 *       MPI_Waitall()s them; its receiver has the 64 receives posted and
 *       answers each complete window with a 4-byte ack. The figure is the
 *       messages of all threads over the time from the first thread's
 *       start to the last one's end, in millions per second. A
 *       measurement stops after 10000 windows in all or about 0.5 s,
 *       whichever comes first (the sender flags the last window).
 *
 * Built with gencomm's tools/mpicc and -DBENCH_MPIX_THREADS (bench/run does
 * so when compat/mpi.h declares it), the message rate is measured a second
 * time on the thread communicators of MPIX_Comm_create_threads(), reported
 * as implementation "gencomm-mpix".
 *
 * With 1 process only thread_latency runs, with 2 only msgrate_tT; the
 * threads of the 1-process run are bound to two distinct cores when the
 * process may use two (bench/run starts it unbound). An MPI that does not
 * provide MPI_THREAD_MULTIPLE gets a row with an empty value and the unit
 * "missing (...)" saying so; so does a measurement whose threads make no
 * progress for STALL_S seconds (MPICH 4.0.2 hangs in thread_latency), and
 * the program then exits with status 3.
 *
 * --threads T measures msgrate_tT alone (T = 1..8). --windows N
 * makes each thread pass exactly N timed windows (no time budget) after
 * its 20/T warm-up ones, and adds msgrate_tT_msgs, the messages each
 * process's workers passed, warm-up included: what an instruction count
 * of the workers divides by, e.g. valgrind --tool=callgrind
 * --toggle-collect=rate_thread per process.
 *
 * Output, one line per measurement, on rank 0's stdout:
 *     benchmark,size_bytes,implementation,value,unit
 *
 * Usage: mpirun -np 1|2 mpi_thread_bench IMPLEMENTATION_NAME [--quick]
 *            [--threads T] [--windows N]
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <mpi.h>

#include "bench_util.h"

#define TAG_DATA 1
#define TAG_ACK  2

/* Messages in flight per message-rate window before the receiver acks. */
#define WINDOW 64
/* Message-rate message size, and the most threads per process. */
#define RATE_SIZE   8
#define MAX_THREADS 8
/* At most this many windows per measurement, shared among the threads, and
 * at most about this many seconds. */
#define RATE_WINDOWS  10000
#define RATE_BUDGET_S 0.5

/* A measurement whose threads make no progress for this long is reported
 * missing and ends the program: some MPIs hang with threads. */
#define STALL_S 5

static const size_t lat_sizes[] = { 8, 1024 };
static const int thread_counts[] = { 1, 2, 4, 8 };

static const char *impl = "mpi";
static int rank;
/* --threads (0: every count) and --windows (0: the time budget rules). */
static int only_threads;
static int fixed_windows;
static int peer;
/* Bumped by the measuring threads as they go; the main thread watches it. */
static atomic_long watched;

static void check_pthread(int rc, const char *what)
{
    if (rc != 0) {
        fprintf(stderr, "mpi_thread_bench[%d]: %s: %s\n", rank, what,
                strerror(rc));
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
}

static void report_as(const char *bench, size_t size, const char *name,
                      double value, const char *unit)
{
    if (rank == 0) {
        printf("%s,%zu,%s,%.3f,%s\n", bench, size, name, value, unit);
        fflush(stdout);
    }
}

static void missing(const char *bench, size_t size, const char *name,
                    const char *why)
{
    if (rank == 0) {
        printf("%s,%zu,%s,,missing (%s)\n", bench, size, name, why);
        fflush(stdout);
    }
}

/*
 * Join the measuring threads, watching that they make progress. If they
 * stall for STALL_S seconds (the MPI hangs), report bench at size missing,
 * and the later sizes too when a pointer to them is given, and end the
 * program: the stuck threads cannot be joined.
 */
static void join_watched(pthread_t threads[], int n, const char *bench,
                         size_t size, const char *name, const size_t *later,
                         size_t nlater)
{
    long seen = atomic_load(&watched);
    int joined = 0;
    int idle = 0;

    while (joined < n) {
        struct timespec until;

        /* Wait up to 100 ms for the next thread to end. */
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_nsec += 100 * 1000 * 1000;
        if (until.tv_nsec >= 1000 * 1000 * 1000) {
            until.tv_sec++;
            until.tv_nsec -= 1000 * 1000 * 1000;
        }
        if (pthread_timedjoin_np(threads[joined], NULL, &until) == 0) {
            joined++;
            continue;
        }
        if (atomic_load(&watched) != seen) {
            seen = atomic_load(&watched);
            idle = 0;
        } else if (++idle == STALL_S * 10) {
            char why[64];

            fprintf(stderr, "mpi_thread_bench[%d]: %s at %zu bytes: no "
                            "progress for %d s, giving up\n", rank, bench,
                    size, STALL_S);
            snprintf(why, sizeof(why), "hung: no progress for %d s",
                     STALL_S);
            missing(bench, size, name, why);
            for (size_t i = 0; i < nlater; i++) {
                missing(bench, later[i], name,
                        "not run: a smaller size hung");
            }
            fflush(stdout);
            _exit(3);
        }
    }
}

/* ---- thread_latency: two threads of one process ---------------------- */

typedef struct {
    MPI_Comm comms[2];  /* comms[i]: where thread i receives */
    size_t   size;
    int      warmup;
    int      iters;
    double   elapsed;
} pingpong_t;

typedef struct {
    pingpong_t *pp;
    int         index;  /* 0: thread A, which times; 1: thread B */
} pingpong_arg_t;

static void *pingpong_thread(void *varg)
{
    pingpong_arg_t *arg = varg;
    pingpong_t *pp = arg->pp;
    int me = arg->index;
    int n = (int)pp->size;
    MPI_Comm in = pp->comms[me];
    MPI_Comm out = pp->comms[1 - me];
    char *buf;
    double t0 = 0.0;

    check_pthread(bind_thread(me), "pthread_setaffinity_np");
    buf = calloc(1, pp->size);
    if (buf == NULL) {
        check_pthread(ENOMEM, "calloc");
    }
    for (int i = 0; i < pp->warmup + pp->iters; i++) {
        if (i == pp->warmup) {
            t0 = now_s();
        }
        if ((i & 63) == 0) {
            atomic_fetch_add(&watched, 1);
        }
        if (me == 0) {
            check(MPI_Send(buf, n, MPI_BYTE, 0, TAG_DATA, out), "MPI_Send");
            check(MPI_Recv(buf, n, MPI_BYTE, 0, TAG_DATA, in,
                           MPI_STATUS_IGNORE), "MPI_Recv");
        } else {
            check(MPI_Recv(buf, n, MPI_BYTE, 0, TAG_DATA, in,
                           MPI_STATUS_IGNORE), "MPI_Recv");
            check(MPI_Send(buf, n, MPI_BYTE, 0, TAG_DATA, out), "MPI_Send");
        }
    }
    if (me == 0) {
        pp->elapsed = now_s() - t0;
    }
    free(buf);
    return NULL;
}

static void thread_latency(size_t index, int warmup, int iters)
{
    size_t size = lat_sizes[index];
    pingpong_t pp = { .size = size, .warmup = warmup, .iters = iters };
    pingpong_arg_t args[2];
    pthread_t threads[2];

    for (int i = 0; i < 2; i++) {
        check(MPI_Comm_dup(MPI_COMM_WORLD, &pp.comms[i]), "MPI_Comm_dup");
    }
    for (int i = 0; i < 2; i++) {
        args[i].pp = &pp;
        args[i].index = i;
        check_pthread(pthread_create(&threads[i], NULL, pingpong_thread,
                                     &args[i]), "pthread_create");
    }
    join_watched(threads, 2, "thread_latency", size, impl,
                 &lat_sizes[index + 1], NELEMS(lat_sizes) - index - 1);
    for (int i = 0; i < 2; i++) {
        check(MPI_Comm_free(&pp.comms[i]), "MPI_Comm_free");
    }
    report_as("thread_latency", size, impl, pp.elapsed * 1e6 / (2.0 * iters),
              "us");
}

/* ---- msgrate_tT: T thread pairs between two processes ---------------- */

typedef struct {
    /* The main thread and the T workers: warm-up done, the clock starts. */
    pthread_barrier_t start;
    int               warmup;
    int               windows;
    MPI_Comm          comms[MAX_THREADS];
    int               peers[MAX_THREADS];  /* the pair's rank in comms[t] */
    int               done[MAX_THREADS];   /* timed windows each sent */
    double            begin[MAX_THREADS];  /* when each started timing */
    double            end[MAX_THREADS];    /* when each finished */
} rate_t;

typedef struct {
    rate_t *rt;
    int     index;
} rate_arg_t;

/* One window; returns whether it was the last. The sender says so in the
 * first byte of every message of the window: it stops after windows
 * windows or once RATE_BUDGET_S seconds have passed, whichever is first,
 * so that a slow library cannot stretch the run to minutes. */
static int rate_window(MPI_Comm comm, int dest, int last)
{
    MPI_Request reqs[WINDOW];
    MPI_Status stats[WINDOW];
    char data[RATE_SIZE] = { 0 };
    char ack[4] = { 0 };

    if (rank == 0) {
        data[0] = (char)last;
        for (int k = 0; k < WINDOW; k++) {
            check(MPI_Isend(data, RATE_SIZE, MPI_BYTE, dest, TAG_DATA, comm,
                            &reqs[k]), "MPI_Isend");
        }
        check(MPI_Waitall(WINDOW, reqs, stats), "MPI_Waitall");
        check(MPI_Recv(ack, (int)sizeof(ack), MPI_BYTE, dest, TAG_ACK, comm,
                       MPI_STATUS_IGNORE), "MPI_Recv (ack)");
    } else {
        /* All messages of a window land in one buffer, as in mpi_bench. */
        for (int k = 0; k < WINDOW; k++) {
            check(MPI_Irecv(data, RATE_SIZE, MPI_BYTE, dest, TAG_DATA, comm,
                            &reqs[k]), "MPI_Irecv");
        }
        check(MPI_Waitall(WINDOW, reqs, stats), "MPI_Waitall");
        check(MPI_Send(ack, (int)sizeof(ack), MPI_BYTE, dest, TAG_ACK, comm),
              "MPI_Send (ack)");
    }
    return data[0] != 0;
}

static void *rate_thread(void *varg)
{
    rate_arg_t *arg = varg;
    rate_t *rt = arg->rt;
    MPI_Comm comm = rt->comms[arg->index];
    int dest = rt->peers[arg->index];
    int w = 0;
    int last = 0;
    double t0;

    for (int i = 0; i < rt->warmup; i++) {
        rate_window(comm, dest, 0);
        atomic_fetch_add(&watched, 1);
    }
    pthread_barrier_wait(&rt->start);
    t0 = now_s();
    rt->begin[arg->index] = t0;
    while (!last) {
        last = w + 1 == rt->windows ||
               (fixed_windows == 0 && now_s() - t0 > RATE_BUDGET_S);
        last = rate_window(comm, dest, last);
        atomic_fetch_add(&watched, 1);
        w++;
    }
    rt->done[arg->index] = w;
    rt->end[arg->index] = now_s();
    return NULL;
}

/* Runs the threads over rt->comms and reports the rate as name. */
static void msgrate_run(rate_t *rt, int nthreads, const char *name)
{
    rate_arg_t args[MAX_THREADS];
    pthread_t threads[MAX_THREADS];
    char bench[32];
    double t0 = 0.0;
    double t1 = 0.0;
    long msgs = 0;

    snprintf(bench, sizeof(bench), "msgrate_t%d", nthreads);
    check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
    check_pthread(pthread_barrier_init(&rt->start, NULL,
                                       (unsigned)nthreads + 1),
                  "pthread_barrier_init");
    for (int t = 0; t < nthreads; t++) {
        args[t].rt = rt;
        args[t].index = t;
        check_pthread(pthread_create(&threads[t], NULL, rate_thread,
                                     &args[t]), "pthread_create");
    }
    pthread_barrier_wait(&rt->start);
    join_watched(threads, nthreads, bench, RATE_SIZE, name, NULL, 0);
    for (int t = 0; t < nthreads; t++) {
        msgs += (long)rt->done[t] * WINDOW;
        t0 = t == 0 || rt->begin[t] < t0 ? rt->begin[t] : t0;
        t1 = rt->end[t] > t1 ? rt->end[t] : t1;
    }
    report_as(bench, RATE_SIZE, name, (double)msgs / (t1 - t0) / 1e6,
              "Mmsg/s");
    if (fixed_windows > 0) {
        snprintf(bench, sizeof(bench), "msgrate_t%d_msgs", nthreads);
        report_as(bench, RATE_SIZE, name,
                  (double)(msgs + (long)nthreads * rt->warmup * WINDOW),
                  "messages");
    }
    pthread_barrier_destroy(&rt->start);
}

static void msgrate(int nthreads, int warmup, int windows)
{
    rate_t rt = { .warmup = warmup, .windows = windows };

    for (int t = 0; t < nthreads; t++) {
        check(MPI_Comm_dup(MPI_COMM_WORLD, &rt.comms[t]), "MPI_Comm_dup");
        rt.peers[t] = peer;
    }
    msgrate_run(&rt, nthreads, impl);
    for (int t = 0; t < nthreads; t++) {
        check(MPI_Comm_free(&rt.comms[t]), "MPI_Comm_free");
    }
}

#ifdef BENCH_MPIX_THREADS
/*
 * The same on gencomm's thread communicators: one per thread, made by one
 * collective call. Which LCO rank the paired thread has in them is left
 * to the library: the two processes swap the LCO ranks their threads got.
 */
static void msgrate_mpix(int nthreads, int warmup, int windows)
{
    rate_t rt = { .warmup = warmup, .windows = windows };
    int mine[MAX_THREADS];

    check(MPIX_Comm_create_threads(MPI_COMM_WORLD, nthreads, rt.comms),
          "MPIX_Comm_create_threads");
    /* Point-to-point on a thread communicator is by LCO rank
     * (MPI_Comm_rank is the process's rank there). */
    for (int t = 0; t < nthreads; t++) {
        check(MPIX_Comm_lco_rank(rt.comms[t], &mine[t]),
              "MPIX_Comm_lco_rank");
    }
    check(MPI_Sendrecv(mine, nthreads, MPI_INT, peer, TAG_DATA, rt.peers,
                       nthreads, MPI_INT, peer, TAG_DATA, MPI_COMM_WORLD,
                       MPI_STATUS_IGNORE), "MPI_Sendrecv (ranks)");
    msgrate_run(&rt, nthreads, "gencomm-mpix");
    for (int t = 0; t < nthreads; t++) {
        check(MPI_Comm_free(&rt.comms[t]), "MPI_Comm_free");
    }
}
#endif

/* The thread count of measurement i: --threads T alone when given (at
 * i = 0), else thread_counts[i] where the threads fit; 0 for none. */
static int rate_count(size_t i)
{
    if (only_threads != 0) {
        return (i == 0) ? only_threads : 0;
    }
    return bench_threads_fit(thread_counts[i]) ? thread_counts[i] : 0;
}

/* Takes --threads T and --windows N out of argv; -1 on a bad value. */
static int rate_args(int *argc, char **argv)
{
    int n = 1;

    for (int i = 1; i < *argc; i++) {
        int *opt = (strcmp(argv[i], "--threads") == 0) ? &only_threads :
                   (strcmp(argv[i], "--windows") == 0) ? &fixed_windows :
                   NULL;

        if (opt == NULL) {
            argv[n++] = argv[i];
            continue;
        }
        if (i + 1 == *argc || (*opt = atoi(argv[++i])) < 1 ||
            (opt == &only_threads && *opt > MAX_THREADS)) {
            return -1;
        }
    }
    *argc = n;
    return 0;
}

int main(int argc, char **argv)
{
    int quick = 0;
    int nprocs;
    int provided;

    check(MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided),
          "MPI_Init_thread");
    check(MPI_Comm_rank(MPI_COMM_WORLD, &rank), "MPI_Comm_rank");
    bench_name = "mpi_thread_bench";
    bench_rank = rank;
    check(MPI_Comm_size(MPI_COMM_WORLD, &nprocs), "MPI_Comm_size");
    if (rate_args(&argc, argv) != 0 ||
        bench_args(argc, argv, &impl, &quick) != 0) {
        if (rank == 0) {
            fprintf(stderr, "usage: mpirun -np 1|2 mpi_thread_bench "
                            "NAME [--quick] [--threads 1..8] "
                            "[--windows N]\n");
        }
        MPI_Finalize();
        return 2;
    }
    if (nprocs != 1 && nprocs != 2) {
        if (rank == 0) {
            fprintf(stderr, "mpi_thread_bench: needs 1 or 2 processes, "
                            "got %d\n", nprocs);
        }
        MPI_Finalize();
        return 2;
    }
    peer = 1 - rank;

    if (provided < MPI_THREAD_MULTIPLE) {
        char why[64];

        snprintf(why, sizeof(why), "MPI_Init_thread provided level %d",
                 provided);
        if (nprocs == 1) {
            for (size_t i = 0; i < NELEMS(lat_sizes); i++) {
                missing("thread_latency", lat_sizes[i], impl, why);
            }
        } else {
            for (size_t i = 0; i < NELEMS(thread_counts); i++) {
                char bench[32];

                if (rate_count(i) == 0) {
                    continue;
                }
                snprintf(bench, sizeof(bench), "msgrate_t%d", rate_count(i));
                missing(bench, RATE_SIZE, impl, why);
            }
        }
    } else if (nprocs == 1) {
        for (size_t i = 0; i < NELEMS(lat_sizes); i++) {
            if (quick) {
                thread_latency(i, 5, 50);
            } else {
                thread_latency(i, 1000, 10000);
            }
        }
    } else {
        for (size_t i = 0; i < NELEMS(thread_counts); i++) {
            int t = rate_count(i);

            if (t == 0) {
                continue;
            }
            if (quick) {
                msgrate(t, 1, 2);
            } else {
                msgrate(t, 20 / t, (fixed_windows > 0) ? fixed_windows :
                        RATE_WINDOWS / t);
            }
        }
#ifdef BENCH_MPIX_THREADS
        for (size_t i = 0; i < NELEMS(thread_counts); i++) {
            int t = rate_count(i);

            if (t == 0) {
                continue;
            }
            if (quick) {
                msgrate_mpix(t, 1, 2);
            } else {
                msgrate_mpix(t, 20 / t, (fixed_windows > 0) ?
                             fixed_windows : RATE_WINDOWS / t);
            }
        }
#endif
    }
    MPI_Finalize();
    return 0;
}
