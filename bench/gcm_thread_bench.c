/*
 * gcm_thread_bench: threads over the native gencomm API, the measurements
 * mpi_thread_bench makes with MPI, message for message.
 *
 *   thread_latency (1 process): two threads of one process, each with an
 *       LCO it created itself (gcm_lco_create() in the thread, one receive
 *       slot). The names are exchanged in memory and each thread adds a
 *       send slot to the other's LCO: a channel each way. Thread A
 *       gcm_send()s S bytes, thread B gcm_recv()s them and sends S bytes
 *       back; one-way latency is half the round trip.
 *   msgrate_tT (2 processes): T threads per process, thread t of process 0
 *       paired with thread t of process 1 on a channel of their own (LCOs
 *       created by the threads, names exchanged over the world LCO).
 *       Each sender gcm_isend()s a window of 64 messages of 8 bytes and
 *       gcm_waitall()s them; its receiver has the 64 receives posted and
 *       answers each complete window with a 4-byte ack. The figure is the
 *       messages of all threads over the time from the first thread's
 *       start to the last one's end, in millions per second. A
 *       measurement stops after 10000 windows in all or about 0.5 s,
 *       whichever comes first (the sender flags the last window).
 *
 * With 1 process only thread_latency runs, with 2 only msgrate_tT; the
 * threads of the 1-process run are bound to two distinct cores when the
 * process may use two (bench/run starts it unbound).
 *
 * Output, one line per measurement, on rank 0's stdout:
 *     benchmark,size_bytes,implementation,value,unit
 *
 * --threads T runs msgrate_tT alone (T = 1..8). --cpu adds, after each
 * msgrate_tT, the CPU time (user and system) both processes spent during
 * its timed part per message, in microseconds (msgrate_tT_cpu), and the
 * messages each process's workers passed, warm-up included
 * (msgrate_tT_msgs: what an instruction count of the workers, as
 * callgrind's --toggle-collect=rate_thread gives, divides by).
 *
 * Usage: tools/gcrun -n 1 --bind-to none bench/gcm_thread_bench [--quick]
 *        tools/gcrun -n 2 bench/gcm_thread_bench [--quick] [--threads T]
 *            [--cpu]
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include <gencomm.h>

#include "bench_util.h"

#define IMPL_NAME "gencomm"

#define TAG_DATA  1
#define TAG_ACK   2
#define TAG_NAMES 3
#define TAG_SYNC  4

/* Messages in flight per message-rate window before the receiver acks. */
#define WINDOW 64
/* Message-rate message size, and the most threads per process. */
#define RATE_SIZE   8
#define MAX_THREADS 8
/* At most this many windows per measurement, shared among the threads, and
 * at most about this many seconds. */
#define RATE_WINDOWS  10000
#define RATE_BUDGET_S 0.5

static const size_t lat_sizes[] = { 8, 1024 };
static const int thread_counts[] = { 1, 2, 4, 8 };

static int rank;
static int peer;
static int cpu_report;   /* --cpu */

/* CPU time (user and system) of this process so far, in seconds. */
static double cpu_s(void)
{
    struct rusage ru;

    if (getrusage(RUSAGE_SELF, &ru) != 0) {
        bench_die("getrusage failed");
    }
    return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
           (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e-6;
}

static void check_pthread(int rc, const char *what)
{
    if (rc != 0) {
        bench_die("%s: %s", what, strerror(rc));
    }
}

static void report(const char *bench, size_t size, double value,
                   const char *unit)
{
    if (rank == 0) {
        printf("%s,%zu,%s,%.3f,%s\n", bench, size, IMPL_NAME, value, unit);
        fflush(stdout);
    }
}

/* An LCO with one receive slot, created by the calling thread (so homed
 * on its endpoint), and its name. */
static gcm_lco_h thread_lco(gcm_name_t *name_p)
{
    gcm_lco_h lco;

    check(gcm_lco_create(&lco), "gcm_lco_create");
    check(gcm_lco_add_recv_slots(lco, 1), "gcm_lco_add_recv_slots");
    check(gcm_lco_name(lco, name_p), "gcm_lco_name");
    return lco;
}

static void connect_to(gcm_lco_h lco, const gcm_name_t *name)
{
    const int rslot = 0;

    check(gcm_lco_add_send_slots(lco, 1, name, &rslot),
          "gcm_lco_add_send_slots");
}

static void recv_exact(gcm_lco_h lco, int slot, void *buf, size_t size,
                       int tag)
{
    gcm_msg_status_t st;

    check(gcm_recv(lco, buf, size, slot, tag, &st), "gcm_recv");
    if (st.count != size) {
        bench_die("gcm_recv: got %zu bytes, expected %zu", st.count, size);
    }
}

/* ---- thread_latency: two threads of one process ---------------------- */

typedef struct {
    pthread_barrier_t ready;
    gcm_name_t        names[2];
    size_t            size;
    int               warmup;
    int               iters;
    double            elapsed;
} pingpong_t;

typedef struct {
    pingpong_t *pp;
    int         index;   /* 0: thread A, which times; 1: thread B */
} pingpong_arg_t;

static void *pingpong_thread(void *varg)
{
    pingpong_arg_t *arg = varg;
    pingpong_t *pp = arg->pp;
    int me = arg->index;
    char *buf;
    gcm_lco_h lco;
    double t0 = 0.0;

    check_pthread(bind_thread(me), "pthread_setaffinity_np");
    buf = calloc(1, pp->size);
    if (buf == NULL) {
        bench_die("out of memory");
    }
    lco = thread_lco(&pp->names[me]);
    pthread_barrier_wait(&pp->ready);
    connect_to(lco, &pp->names[1 - me]);

    for (int i = 0; i < pp->warmup + pp->iters; i++) {
        if (i == pp->warmup) {
            t0 = now_s();
        }
        if (me == 0) {
            check(gcm_send(lco, buf, pp->size, 0, TAG_DATA), "gcm_send");
            recv_exact(lco, 0, buf, pp->size, TAG_DATA);
        } else {
            recv_exact(lco, 0, buf, pp->size, TAG_DATA);
            check(gcm_send(lco, buf, pp->size, 0, TAG_DATA), "gcm_send");
        }
    }
    if (me == 0) {
        pp->elapsed = now_s() - t0;
    }
    /* The other thread may still be sending to this LCO: free it only once
     * both are done. */
    pthread_barrier_wait(&pp->ready);
    check(gcm_lco_free(&lco), "gcm_lco_free");
    free(buf);
    return NULL;
}

static void thread_latency(size_t size, int warmup, int iters)
{
    pingpong_t pp = { .size = size, .warmup = warmup, .iters = iters };
    pingpong_arg_t args[2];
    pthread_t threads[2];

    check_pthread(pthread_barrier_init(&pp.ready, NULL, 2),
                  "pthread_barrier_init");
    for (int i = 0; i < 2; i++) {
        args[i].pp = &pp;
        args[i].index = i;
        check_pthread(pthread_create(&threads[i], NULL, pingpong_thread,
                                     &args[i]), "pthread_create");
    }
    for (int i = 0; i < 2; i++) {
        check_pthread(pthread_join(threads[i], NULL), "pthread_join");
    }
    pthread_barrier_destroy(&pp.ready);
    report("thread_latency", size, pp.elapsed * 1e6 / (2.0 * iters), "us");
}

/* ---- msgrate_tT: T thread pairs between two processes ---------------- */

typedef struct {
    /* The main thread and the T workers: names published, names
     * exchanged, warm-up done (the clock starts). */
    pthread_barrier_t step;
    int               warmup;
    int               windows;
    gcm_name_t        mine[MAX_THREADS];
    gcm_name_t        theirs[MAX_THREADS];
    int               done[MAX_THREADS];  /* timed windows each sent */
    double            begin[MAX_THREADS]; /* when each started timing */
    double            end[MAX_THREADS];   /* when each finished */
} rate_t;

typedef struct {
    rate_t *rt;
    int     index;
} rate_arg_t;

/* One window; returns whether it was the last. The sender says so in the
 * first byte of every message of the window: it stops after windows
 * windows or once RATE_BUDGET_S seconds have passed, whichever is first,
 * as mpi_thread_bench does. */
static int rate_window(gcm_lco_h lco, int last)
{
    gcm_request_h reqs[WINDOW];
    gcm_msg_status_t stats[WINDOW];
    char data[RATE_SIZE] = { 0 };
    char ack[4] = { 0 };

    if (rank == 0) {
        data[0] = (char)last;
        for (int k = 0; k < WINDOW; k++) {
            check(gcm_isend(lco, data, sizeof(data), 0, TAG_DATA, &reqs[k]),
                  "gcm_isend");
        }
        check(gcm_waitall(WINDOW, reqs, stats), "gcm_waitall (sends)");
        recv_exact(lco, 0, ack, sizeof(ack), TAG_ACK);
    } else {
        /* All messages of a window land in one buffer, as in mpi_bench. */
        for (int k = 0; k < WINDOW; k++) {
            check(gcm_irecv(lco, data, sizeof(data), 0, TAG_DATA, &reqs[k]),
                  "gcm_irecv");
        }
        check(gcm_waitall(WINDOW, reqs, stats), "gcm_waitall (recvs)");
        check(gcm_send(lco, ack, sizeof(ack), 0, TAG_ACK), "gcm_send (ack)");
    }
    return data[0] != 0;
}

static void *rate_thread(void *varg)
{
    rate_arg_t *arg = varg;
    rate_t *rt = arg->rt;
    gcm_lco_h lco;
    int w = 0;
    int last = 0;
    double t0;

    lco = thread_lco(&rt->mine[arg->index]);
    pthread_barrier_wait(&rt->step);
    /* The main thread swaps the names with the peer process here. */
    pthread_barrier_wait(&rt->step);
    connect_to(lco, &rt->theirs[arg->index]);
    for (int i = 0; i < rt->warmup; i++) {
        rate_window(lco, 0);
    }
    pthread_barrier_wait(&rt->step);
    t0 = now_s();
    rt->begin[arg->index] = t0;
    while (!last) {
        last = w + 1 == rt->windows || now_s() - t0 > RATE_BUDGET_S;
        last = rate_window(lco, last);
        w++;
    }
    rt->done[arg->index] = w;
    rt->end[arg->index] = now_s();
    /* Nothing is in flight to lco: the sender has its last ack, and the
     * receiver's last message was the ack itself. */
    check(gcm_lco_free(&lco), "gcm_lco_free");
    return NULL;
}

/* Both processes' main threads meet: neither starts the next thread count
 * before the other has finished the last one. */
static void meet(void)
{
    char b = 0;

    if (rank == 0) {
        check(gcm_send(gcm_world(), &b, 1, peer, TAG_SYNC), "gcm_send");
        recv_exact(gcm_world(), peer, &b, 1, TAG_SYNC);
    } else {
        recv_exact(gcm_world(), peer, &b, 1, TAG_SYNC);
        check(gcm_send(gcm_world(), &b, 1, peer, TAG_SYNC), "gcm_send");
    }
}

static void msgrate(int nthreads, int warmup, int windows)
{
    rate_t rt = { .warmup = warmup, .windows = windows };
    rate_arg_t args[MAX_THREADS];
    pthread_t threads[MAX_THREADS];
    size_t names = (size_t)nthreads * sizeof(gcm_name_t);
    char bench[32];
    double t0 = 0.0;
    double t1 = 0.0;
    double cpu[2];
    long msgs = 0;

    meet();
    check_pthread(pthread_barrier_init(&rt.step, NULL,
                                       (unsigned)nthreads + 1),
                  "pthread_barrier_init");
    for (int t = 0; t < nthreads; t++) {
        args[t].rt = &rt;
        args[t].index = t;
        check_pthread(pthread_create(&threads[t], NULL, rate_thread,
                                     &args[t]), "pthread_create");
    }
    pthread_barrier_wait(&rt.step);
    check(gcm_send(gcm_world(), rt.mine, names, peer, TAG_NAMES),
          "gcm_send (names)");
    recv_exact(gcm_world(), peer, rt.theirs, names, TAG_NAMES);
    pthread_barrier_wait(&rt.step);
    pthread_barrier_wait(&rt.step);
    cpu[0] = cpu_s();
    for (int t = 0; t < nthreads; t++) {
        check_pthread(pthread_join(threads[t], NULL), "pthread_join");
    }
    cpu[0] = cpu_s() - cpu[0];
    for (int t = 0; t < nthreads; t++) {
        msgs += (long)rt.done[t] * WINDOW;
        t0 = t == 0 || rt.begin[t] < t0 ? rt.begin[t] : t0;
        t1 = rt.end[t] > t1 ? rt.end[t] : t1;
    }
    snprintf(bench, sizeof(bench), "msgrate_t%d", nthreads);
    report(bench, RATE_SIZE, (double)msgs / (t1 - t0) / 1e6, "Mmsg/s");
    if (cpu_report) {
        /* The main thread sleeps in pthread_join meanwhile: the time is
         * the workers'. */
        if (rank == 0) {
            recv_exact(gcm_world(), peer, &cpu[1], sizeof(cpu[1]),
                       TAG_SYNC);
            snprintf(bench, sizeof(bench), "msgrate_t%d_cpu", nthreads);
            report(bench, RATE_SIZE, (cpu[0] + cpu[1]) * 1e6 / (double)msgs,
                   "us");
            /* Every message each worker passed, warm-up included: what
             * an instruction count of the workers divides by. */
            snprintf(bench, sizeof(bench), "msgrate_t%d_msgs", nthreads);
            report(bench, RATE_SIZE,
                   (double)(msgs + (long)nthreads * warmup * WINDOW),
                   "messages");
        } else {
            check(gcm_send(gcm_world(), &cpu[0], sizeof(cpu[0]), peer,
                           TAG_SYNC), "gcm_send (cpu)");
        }
    }
    pthread_barrier_destroy(&rt.step);
}

int main(int argc, char **argv)
{
    int quick = 0;
    int only = 0;
    int nprocs;

    check(gcm_init(&argc, &argv), "gcm_init");
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--quick") == 0) {
            quick = 1;
        } else if (strcmp(argv[i], "--cpu") == 0) {
            cpu_report = 1;
        } else if ((strcmp(argv[i], "--threads") == 0) && (i + 1 < argc) &&
                   (atoi(argv[i + 1]) >= 1) &&
                   (atoi(argv[i + 1]) <= MAX_THREADS)) {
            only = atoi(argv[++i]);
        } else {
            fprintf(stderr, "usage: gcrun -n 1|2 gcm_thread_bench "
                            "[--quick] [--threads 1..%d] [--cpu]\n",
                    MAX_THREADS);
            gcm_finalize();
            return 2;
        }
    }
    rank = gcm_proc_rank();
    bench_name = "gcm_thread_bench";
    bench_rank = rank;
    nprocs = gcm_proc_count();
    if (nprocs == 1) {
        for (size_t i = 0; i < NELEMS(lat_sizes); i++) {
            if (quick) {
                thread_latency(lat_sizes[i], 5, 50);
            } else {
                thread_latency(lat_sizes[i], 1000, 10000);
            }
        }
    } else if (nprocs == 2) {
        peer = 1 - rank;
        for (size_t i = 0; i < NELEMS(thread_counts); i++) {
            int t = (only > 0) ? only : thread_counts[i];

            if ((only > 0) && (i > 0)) {
                break;
            }
            if ((only == 0) && !bench_threads_fit(t)) {
                continue;
            }
            if (quick) {
                msgrate(t, 1, 2);
            } else {
                msgrate(t, 20 / t, RATE_WINDOWS / t);
            }
        }
    } else {
        if (rank == 0) {
            fprintf(stderr, "gcm_thread_bench: needs 1 or 2 processes, "
                            "got %d\n", nprocs);
        }
        gcm_finalize();
        return 2;
    }
    check(gcm_finalize(), "gcm_finalize");
    return 0;
}
