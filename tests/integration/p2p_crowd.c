/*
 * p2p_crowd: threads that outnumber their process's cores progress each
 * other's endpoints (internal header, internal library).
 *
 * Process 1 binds itself to one CPU, so its threads can count on one core
 * between them. Threads A, B and C each make an LCO (so each has an
 * endpoint of its own) and post a receive on it. A then stands for a
 * thread that waits but is not running (the scheduler runs another on
 * the core): it counts itself as a waiter on its endpoint, so no one
 * takes that endpoint for one nobody waits on, and stops calling into the
 * library. B and C wait in gcm_wait, spinning (GENCOMM_SPIN_COUNT is
 * high): two spinners for one core. Process 0 sends A's message only.
 * Process 1's main thread, which calls nothing that progresses, sees A's
 * receive complete with the right value: B's or C's wait drained A's
 * endpoint. Then process 0 sends B's and C's messages and every wait
 * ends. Without the sibling progress A's receive stays incomplete (the
 * check gives up after 10 s).
 *
 * Usage: gcrun -n 2 p2p_crowd. Process 0 prints "p2p_crowd: all checks
 * passed" when no process failed.
 */
#define _GNU_SOURCE /* gcm_test_one_cpu (gcm_test.h) */
#include "config.h"

#include "lco/lco.h"
#include "threads/thr.h"

#include "gcm_test.h"

#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define NTHREADS  3
#define NAME_TAG  1
#define GO_TAG    2
#define DATA_TAG  3
#define LIMIT_S   10.0

typedef struct {
    pthread_barrier_t   posted;    /* names and receives ready */
    pthread_barrier_t   released;  /* A may wait for its receive */
    gcm_name_t          names[NTHREADS];
    gcm_request_h       reqs[NTHREADS];
    int                 got[NTHREADS];
} crowd_t;

typedef struct {
    crowd_t *crowd;
    int      index;
} crowd_arg_t;

static void *waiter(void *varg)
{
    crowd_arg_t *arg = varg;
    crowd_t *crowd = arg->crowd;
    int i = arg->index;
    gcm_thr_endpoint_t *endpoint;
    gcm_lco_h lco;

    if (!gcm_test_ok(gcm_lco_create(&lco), "gcm_lco_create") ||
        !gcm_test_ok(gcm_lco_add_recv_slots(lco, 1),
                     "gcm_lco_add_recv_slots") ||
        !gcm_test_ok(gcm_lco_name(lco, &crowd->names[i]), "gcm_lco_name") ||
        !gcm_test_ok(gcm_irecv(lco, &crowd->got[i], sizeof(int), 0,
                               DATA_TAG, &crowd->reqs[i]), "gcm_irecv")) {
        exit(1);
    }
    endpoint = gcm_thr_endpoint_current();
    if (i == 0) {
        /* A waiter that does not run. */
        atomic_fetch_add(&endpoint->nwaiters, 1);
    }
    pthread_barrier_wait(&crowd->posted);
    if (i == 0) {
        pthread_barrier_wait(&crowd->released);
        atomic_fetch_sub(&endpoint->nwaiters, 1);
    }
    gcm_test_ok(gcm_wait(&crowd->reqs[i], NULL), "gcm_wait");
    gcm_test_ok(gcm_lco_free(&lco), "gcm_lco_free");
    return NULL;
}

/* Waits, without progressing anything, until cond(crowd) holds or
 * LIMIT_S pass; returns whether it held. */
static int until(int (*cond)(crowd_t *), crowd_t *crowd)
{
    double deadline = gcm_time_now() + LIMIT_S;

    while (!cond(crowd)) {
        if (gcm_time_now() > deadline) {
            return 0;
        }
        usleep(1000);
    }
    return 1;
}

static int two_spin(crowd_t *crowd)
{
    (void)crowd;
    return gcm_thr_spinners() >= 2;
}

static int a_done(crowd_t *crowd)
{
    return gcm_lco_req_done(crowd->reqs[0]);
}

static void receiver(void)
{
    crowd_t crowd;
    crowd_arg_t args[NTHREADS];
    pthread_t threads[NTHREADS];
    char c = 'g';
    int i;

    pthread_barrier_init(&crowd.posted, NULL, NTHREADS + 1);
    pthread_barrier_init(&crowd.released, NULL, 2);
    for (i = 0; i < NTHREADS; i++) {
        crowd.got[i] = -1;
        args[i].crowd = &crowd;
        args[i].index = i;
        if (pthread_create(&threads[i], NULL, waiter, &args[i]) != 0) {
            gcm_test_fail("pthread_create failed");
            exit(1);
        }
    }
    pthread_barrier_wait(&crowd.posted);
    CHECK(gcm_thr_own_cpus() == 1, "one core to count on, not %d",
          gcm_thr_own_cpus());
    gcm_test_ok(gcm_send(gcm_world(), crowd.names, sizeof(crowd.names), 0,
                         NAME_TAG), "gcm_send (names)");
    CHECK(until(two_spin, &crowd), "B and C not seen spinning (%d)",
          gcm_thr_spinners());
    if (until(a_done, &crowd)) {
        CHECK(crowd.got[0] == 41, "A got %d, not 41", crowd.got[0]);
        printf("p2p_crowd: a receive whose waiter did not run was "
               "completed by the spinning threads\n");
    } else {
        gcm_test_fail("A's receive still incomplete after %.0f s with two "
                      "threads spinning beside it", LIMIT_S);
    }
    fflush(stdout);
    pthread_barrier_wait(&crowd.released);
    gcm_test_ok(gcm_send(gcm_world(), &c, 1, 0, GO_TAG), "gcm_send (go)");
    for (i = 0; i < NTHREADS; i++) {
        pthread_join(threads[i], NULL);
        CHECK(crowd.got[i] == 41 + i, "thread %d got %d", i, crowd.got[i]);
    }
    CHECK(gcm_thr_spinners() == 0, "%d spinners after the waits",
          gcm_thr_spinners());
    pthread_barrier_destroy(&crowd.posted);
    pthread_barrier_destroy(&crowd.released);
}

static void sender(void)
{
    gcm_name_t names[NTHREADS];
    int rslots[NTHREADS] = { 0, 0, 0 };
    gcm_lco_h tx;
    char c;
    int i, v;

    if (!gcm_test_ok(gcm_recv(gcm_world(), names, sizeof(names), 1,
                              NAME_TAG, NULL), "gcm_recv (names)") ||
        !gcm_test_ok(gcm_lco_create(&tx), "gcm_lco_create") ||
        !gcm_test_ok(gcm_lco_add_send_slots(tx, NTHREADS, names, rslots),
                     "gcm_lco_add_send_slots")) {
        exit(1);
    }
    v = 41;
    gcm_test_ok(gcm_send(tx, &v, sizeof(v), 0, DATA_TAG), "gcm_send (A)");
    gcm_test_ok(gcm_recv(gcm_world(), &c, 1, 1, GO_TAG, NULL),
                "gcm_recv (go)");
    for (i = 1; i < NTHREADS; i++) {
        v = 41 + i;
        gcm_test_ok(gcm_send(tx, &v, sizeof(v), i, DATA_TAG), "gcm_send");
    }
    gcm_test_ok(gcm_lco_free(&tx), "gcm_lco_free");
}

int main(int argc, char **argv)
{
    /* Each process on one CPU of its mask (gcrun gives each its own core)
     * before gcm_init counts the cores. */
    gcm_test_one_cpu();
    setenv("GENCOMM_SPIN_COUNT", "100000000", 1);
    if (!gcm_test_init(&argc, &argv, "p2p_crowd")) {
        return 1;
    }
    if (gcm_proc_count() != 2) {
        gcm_test_fail("needs 2 processes, got %d", gcm_proc_count());
    } else if (gcm_test_me == 1) {
        receiver();
    } else {
        sender();
    }
    return gcm_test_finish();
}
