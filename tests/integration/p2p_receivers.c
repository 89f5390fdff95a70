/*
 * p2p_receivers: several threads blocked in receives on one receive slot
 * get its messages in the order they posted (the seed's rule: the first
 * one to have posted a matching receive gets the message, the others stay
 * blocked until theirs comes).
 *
 * Process 0 makes an LCO rx with one receive slot. In each round R threads
 * (4 unless given) post a receive on it one after the other, thread k only
 * once thread k-1 has posted (so the order is known), alternating exact
 * receives (slot 0, the data tag) with wildcard ones (GCM_ANY_SLOT,
 * GCM_ANY_TAG), and block in gcm_wait. Then message k is sent, one at a
 * time: once one receive has completed, it must be thread k's, with value
 * k, while threads k+1.. are still blocked. Two senders, each for ROUNDS
 * rounds: a send slot of an LCO of process 0 itself (the same-process
 * path), and one of process 1, which process 0 tells over the world when
 * to send (UCX or shared memory). With one process only the first runs.
 *
 * Every wait has a deadline: a receiver that never completes fails the
 * test with a message instead of hanging it.
 *
 * Usage: p2p_receivers [R [ROUNDS]]
 */
#include "gcm_test.h"

#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define NAME_TAG 1
#define GO_TAG   2
#define DATA_TAG 7
#define MAX_RX   32
#define DEADLINE 30   /* seconds for any one step */

typedef struct rx_thread {
    int              k;
    int              wildcard;
    atomic_int       done;
    int              value;
    gcm_msg_status_t st;
    gcm_status_t     result;
} rx_thread_t;

static gcm_lco_h g_rx;
static rx_thread_t g_thr[MAX_RX];
static atomic_int g_turn;    /* the thread allowed to post next */
/* A call that must work: the test cannot go on without it. */
static void check(gcm_status_t status, const char *what)
{
    if (!gcm_test_ok(status, what)) {
        exit(1);
    }
}

static double now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Waits until cond(arg) holds; ends the test past the deadline. */
static void wait_for(int (*cond)(int), int arg, const char *what)
{
    double limit = now() + DEADLINE;

    while (!cond(arg)) {
        if (now() > limit) {
            fprintf(stderr, "p2p_receivers: FAIL: %s: nothing after %d s\n",
                    what, DEADLINE);
            exit(1);
        }
        sched_yield();
    }
}

static int turn_reached(int k)
{
    return atomic_load(&g_turn) >= k;
}

static int g_nthreads;

static int count_done(void)
{
    int i, n = 0;

    for (i = 0; i < g_nthreads; i++) {
        n += atomic_load(&g_thr[i].done);
    }
    return n;
}

static int done_reached(int n)
{
    return count_done() >= n;
}

static void *rx_main(void *arg)
{
    rx_thread_t *t = arg;
    gcm_request_h req;

    wait_for(turn_reached, t->k, "a receiver's turn to post");
    t->value = -1;
    check(gcm_irecv(g_rx, &t->value, sizeof(t->value),
                    t->wildcard ? GCM_ANY_SLOT : 0,
                    t->wildcard ? GCM_ANY_TAG : DATA_TAG, &req), "gcm_irecv");
    /* Posted: the next thread may post behind this one. */
    atomic_store(&g_turn, t->k + 1);
    t->result = gcm_wait(&req, &t->st);
    atomic_store(&t->done, 1);
    return NULL;
}

/* One round: nthreads receivers posted in order, then message k for each
 * k, sent by send(k). */
static void round_run(int nthreads, void (*send)(int), const char *mode,
                      int round)
{
    pthread_t threads[MAX_RX];
    int k, j;

    g_nthreads = nthreads;
    atomic_store(&g_turn, 0);
    for (k = 0; k < nthreads; k++) {
        g_thr[k].k = k;
        g_thr[k].wildcard = (k + round) % 2;
        atomic_store(&g_thr[k].done, 0);
        if (pthread_create(&threads[k], NULL, rx_main, &g_thr[k]) != 0) {
            gcm_test_fail("pthread_create failed");
            exit(1);
        }
    }
    wait_for(turn_reached, nthreads, "all receivers posted");
    for (k = 0; k < nthreads; k++) {
        send(k);
        wait_for(done_reached, k + 1, "a receive of the next message");
        if (!atomic_load(&g_thr[k].done)) {
            for (j = k + 1; j < nthreads; j++) {
                if (atomic_load(&g_thr[j].done)) {
                    break;
                }
            }
            gcm_test_fail("%s round %d: message %d went to receiver %d, "
                          "not to receiver %d, which posted before it",
                          mode, round, k, j, k);
            /* The others still get theirs: send the rest, then stop. */
            for (j = k + 1; j < nthreads; j++) {
                send(j);
            }
            break;
        }
        for (j = k + 1; j < nthreads; j++) {
            if (atomic_load(&g_thr[j].done)) {
                gcm_test_fail("%s round %d: receiver %d completed with "
                              "message %d's turn", mode, round, j, k);
            }
        }
        if ((g_thr[k].result != GCM_OK) || (g_thr[k].value != k) ||
            (g_thr[k].st.slot != 0) || (g_thr[k].st.tag != DATA_TAG) ||
            (g_thr[k].st.count != sizeof(int))) {
            gcm_test_fail("%s round %d: receiver %d (%s) got value %d, "
                          "slot %d, tag %d, %zu bytes, %s",
                          mode, round, k,
                          g_thr[k].wildcard ? "wildcard" : "exact",
                          g_thr[k].value, g_thr[k].st.slot, g_thr[k].st.tag,
                          g_thr[k].st.count,
                          gcm_status_string(g_thr[k].result));
        }
    }
    for (k = 0; k < nthreads; k++) {
        pthread_join(threads[k], NULL);
    }
}

/* Same process: a send slot of an LCO of process 0. */
static gcm_lco_h g_local_tx;

static void send_local(int k)
{
    check(gcm_send(g_local_tx, &k, sizeof(k), 0, DATA_TAG), "local send");
}

/* Another process: process 1 sends message k when told. */
static void send_remote(int k)
{
    check(gcm_send(gcm_world(), &k, sizeof(k), 1, GO_TAG), "go");
}

int main(int argc, char **argv)
{
    int nthreads = (argc > 1) ? atoi(argv[1]) : 4;
    int rounds = (argc > 2) ? atoi(argv[2]) : 50;
    gcm_name_t name;
    int me, n, r, zero = 0;

    if (!gcm_test_init(&argc, &argv, "p2p_receivers")) {
        return 1;
    }
    me = gcm_proc_rank();
    n  = gcm_proc_count();
    if ((nthreads < 1) || (nthreads > MAX_RX) || (rounds < 1)) {
        gcm_test_fail("R must be in 1..%d and ROUNDS positive", MAX_RX);
        return gcm_test_finish();
    }

    if (me == 0) {
        check(gcm_lco_create(&g_rx), "gcm_lco_create");
        check(gcm_lco_add_recv_slots(g_rx, 1), "gcm_lco_add_recv_slots");
        check(gcm_lco_name(g_rx, &name), "gcm_lco_name");
        check(gcm_lco_create(&g_local_tx), "gcm_lco_create");
        check(gcm_lco_add_send_slots(g_local_tx, 1, &name, &zero),
              "gcm_lco_add_send_slots");
        for (r = 0; r < rounds; r++) {
            round_run(nthreads, send_local, "same process", r);
        }
        if (gcm_test_failed() == 0) {
            printf("p2p_receivers: same process: %d receivers, %d rounds: "
                   "first posted first served\n", nthreads, rounds);
        }
        if (n > 1) {
            check(gcm_send(gcm_world(), &name, sizeof(name), 1, NAME_TAG),
                  "send the name");
            for (r = 0; r < rounds; r++) {
                round_run(nthreads, send_remote, "other process", r);
            }
            if (gcm_test_failed() == 0) {
                printf("p2p_receivers: other process: %d receivers, %d "
                       "rounds: first posted first served\n", nthreads,
                       rounds);
            }
        }
        /* Every message was received: nobody sends to rx any more. */
        check(gcm_lco_free(&g_local_tx), "gcm_lco_free");
        check(gcm_lco_free(&g_rx), "gcm_lco_free");
    } else if (me == 1) {
        gcm_lco_h tx;
        int i, k;

        check(gcm_recv(gcm_world(), &name, sizeof(name), 0, NAME_TAG, NULL),
              "receive the name");
        check(gcm_lco_create(&tx), "gcm_lco_create");
        check(gcm_lco_add_send_slots(tx, 1, &name, &zero),
              "gcm_lco_add_send_slots");
        for (i = 0; i < nthreads * rounds; i++) {
            check(gcm_recv(gcm_world(), &k, sizeof(k), 0, GO_TAG, NULL),
                  "receive go");
            check(gcm_send(tx, &k, sizeof(k), 0, DATA_TAG), "remote send");
        }
        check(gcm_lco_free(&tx), "gcm_lco_free");
    }
    return gcm_test_finish();
}
