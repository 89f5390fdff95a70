/*
 * p2p_spin: a waiter with a core of its own spins GENCOMM_SPIN_US on after
 * its rounds; one whose process has more endpoints in use than cores
 * sleeps after them (internal header, internal library).
 *
 * Process 1 binds itself to one CPU (one core to count on) and runs with
 * GENCOMM_SPIN_COUNT=20 and GENCOMM_SPIN_US=2000000. It waits twice in
 * gcm_recv for a message that process 0 sends WAIT_MS after being asked,
 * and reads how many times the wait went to sleep (gcm_thr_wait_sleeps)
 * and the waiting thread's CPU time:
 *  1. alone: the only endpoint in use is its own, so it spins on for the
 *     whole wait and never sleeps;
 *  2. crowded: two more threads each have a receive pending on an
 *     endpoint of their own (and do not run), so three endpoints are in
 *     use on one core; it sleeps after its 20 rounds, and uses at most
 *     CROWDED_MAX_MS of CPU time.
 * Neither check depends on how busy the machine is: other processes can
 * take the core from the spinner (an earlier form of this test, which
 * asked the lone waiter for CPU time, failed so under a loaded check) but
 * cannot make it sleep.
 * Then process 0 sends the two threads' messages and they complete.
 * With more of the job's processes than cores nothing spins on, so the
 * first check is skipped (and says so).
 *
 * Usage: gcrun -n 2 p2p_spin. Process 0 prints "p2p_spin: all checks
 * passed" when no process failed.
 */
#define _GNU_SOURCE /* gcm_test_one_cpu (gcm_test.h) */
#include "config.h"

#include "threads/thr.h"

#include "gcm_test.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define NTHREADS       2
#define ASK_TAG        1
#define DATA_TAG       2
#define NAME_TAG       3
#define THREAD_TAG     4
#define WAIT_MS        400
#define CROWDED_MAX_MS 10.0

/* What a wait cost its thread. */
typedef struct {
    double cpu_ms;
    long   sleeps;   /* of its waits */
} wait_cost_t;

typedef struct {
    pthread_barrier_t posted;   /* the threads' receives are pending */
    pthread_barrier_t released; /* the threads may wait */
    gcm_name_t        names[NTHREADS];
    int               got[NTHREADS];
} crowd_t;

typedef struct {
    crowd_t *crowd;
    int      index;
} crowd_arg_t;

static wait_cost_t thread_cost(void)
{
    wait_cost_t c;
    struct timespec ts;

    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    c.cpu_ms = (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
    c.sleeps = (long)gcm_thr_wait_sleeps();
    return c;
}

/* Asks process 0 for a message it sends WAIT_MS later and receives it;
 * returns what the receive cost this thread. */
static wait_cost_t timed_wait(int round)
{
    wait_cost_t before, after;
    int v = -1;

    gcm_test_ok(gcm_send(gcm_world(), &round, sizeof(round), 0, ASK_TAG),
                "gcm_send (ask)");
    before = thread_cost();
    gcm_test_ok(gcm_recv(gcm_world(), &v, sizeof(v), 0, DATA_TAG, NULL),
                "gcm_recv");
    after = thread_cost();
    CHECK(v == 100 + round, "round %d got %d", round, v);
    after.cpu_ms -= before.cpu_ms;
    after.sleeps -= before.sleeps;
    return after;
}

static void *pending(void *varg)
{
    crowd_arg_t *arg = varg;
    crowd_t *crowd = arg->crowd;
    int i = arg->index;
    gcm_request_h req;
    gcm_lco_h lco;

    if (!gcm_test_ok(gcm_lco_create(&lco), "gcm_lco_create") ||
        !gcm_test_ok(gcm_lco_add_recv_slots(lco, 1),
                     "gcm_lco_add_recv_slots") ||
        !gcm_test_ok(gcm_lco_name(lco, &crowd->names[i]), "gcm_lco_name") ||
        !gcm_test_ok(gcm_irecv(lco, &crowd->got[i], sizeof(int), 0,
                               THREAD_TAG, &req), "gcm_irecv")) {
        exit(1);
    }
    pthread_barrier_wait(&crowd->posted);
    pthread_barrier_wait(&crowd->released);
    gcm_test_ok(gcm_wait(&req, NULL), "gcm_wait");
    gcm_test_ok(gcm_lco_free(&lco), "gcm_lco_free");
    return NULL;
}

static void waiter(void)
{
    crowd_t crowd;
    crowd_arg_t args[NTHREADS];
    pthread_t threads[NTHREADS];
    wait_cost_t lone, crowded;
    int i;

    CHECK(gcm_thr_own_cpus() == 1, "one core to count on, not %d",
          gcm_thr_own_cpus());
    lone = timed_wait(1);
    if (gcm_thr_is_oversubscribed()) {
        printf("p2p_spin: more processes than cores, nothing spins on "
               "(%ld sleeps, %.1f ms of CPU time alone)\n", lone.sleeps,
               lone.cpu_ms);
    } else if (lone.sleeps == 0) {
        printf("p2p_spin: a lone waiter spun on (%ld sleeps, %.1f ms of "
               "CPU time)\n", lone.sleeps, lone.cpu_ms);
    } else {
        gcm_test_fail("a lone waiter slept %ld times (%.1f ms of CPU "
                      "time) in a %d ms wait, where it should have spun on "
                      "throughout", lone.sleeps, lone.cpu_ms, WAIT_MS);
    }

    pthread_barrier_init(&crowd.posted, NULL, NTHREADS + 1);
    pthread_barrier_init(&crowd.released, NULL, NTHREADS + 1);
    for (i = 0; i < NTHREADS; i++) {
        crowd.got[i] = -1;
        args[i].crowd = &crowd;
        args[i].index = i;
        if (pthread_create(&threads[i], NULL, pending, &args[i]) != 0) {
            gcm_test_fail("pthread_create failed");
            exit(1);
        }
    }
    pthread_barrier_wait(&crowd.posted);
    crowded = timed_wait(2);
    if ((crowded.sleeps > 0) && (crowded.cpu_ms <= CROWDED_MAX_MS)) {
        printf("p2p_spin: a crowded waiter slept (%ld sleeps, %.1f ms of "
               "CPU time)\n", crowded.sleeps, crowded.cpu_ms);
    } else {
        gcm_test_fail("a waiter beside %d endpoints with pending receives "
                      "on one core slept %ld times and used %.1f ms of CPU "
                      "time in a %d ms wait: it should sleep after its "
                      "rounds (at most %.0f ms)", NTHREADS, crowded.sleeps,
                      crowded.cpu_ms, WAIT_MS, CROWDED_MAX_MS);
    }
    fflush(stdout);
    gcm_test_ok(gcm_send(gcm_world(), crowd.names, sizeof(crowd.names), 0,
                         NAME_TAG), "gcm_send (names)");
    pthread_barrier_wait(&crowd.released);
    for (i = 0; i < NTHREADS; i++) {
        pthread_join(threads[i], NULL);
        CHECK(crowd.got[i] == 7 + i, "thread %d got %d", i, crowd.got[i]);
    }
    pthread_barrier_destroy(&crowd.posted);
    pthread_barrier_destroy(&crowd.released);
}

static void answerer(void)
{
    gcm_name_t names[NTHREADS];
    int rslots[NTHREADS] = { 0, 0 };
    gcm_lco_h tx;
    int i, round, v;

    for (i = 0; i < 2; i++) {
        gcm_test_ok(gcm_recv(gcm_world(), &round, sizeof(round), 1, ASK_TAG,
                             NULL), "gcm_recv (ask)");
        usleep(WAIT_MS * 1000);
        v = 100 + round;
        gcm_test_ok(gcm_send(gcm_world(), &v, sizeof(v), 1, DATA_TAG),
                    "gcm_send");
    }
    if (!gcm_test_ok(gcm_recv(gcm_world(), names, sizeof(names), 1,
                              NAME_TAG, NULL), "gcm_recv (names)") ||
        !gcm_test_ok(gcm_lco_create(&tx), "gcm_lco_create") ||
        !gcm_test_ok(gcm_lco_add_send_slots(tx, NTHREADS, names, rslots),
                     "gcm_lco_add_send_slots")) {
        exit(1);
    }
    for (i = 0; i < NTHREADS; i++) {
        v = 7 + i;
        gcm_test_ok(gcm_send(tx, &v, sizeof(v), i, THREAD_TAG), "gcm_send");
    }
    gcm_test_ok(gcm_lco_free(&tx), "gcm_lco_free");
}

int main(int argc, char **argv)
{
    /* Each process on one CPU of its mask before gcm_init counts the
     * cores. */
    gcm_test_one_cpu();
    setenv("GENCOMM_SPIN_COUNT", "20", 1);
    setenv("GENCOMM_SPIN_US", "2000000", 1);
    if (!gcm_test_init(&argc, &argv, "p2p_spin")) {
        return 1;
    }
    if (gcm_proc_count() != 2) {
        gcm_test_fail("needs 2 processes, got %d", gcm_proc_count());
    } else if (gcm_test_me == 1) {
        waiter();
    } else {
        answerer();
    }
    return gcm_test_finish();
}
