/*
 * p2p_first_posted: several threads blocked in receives that match the
 * same message: the one that posted first gets it, the others stay
 * blocked (the seed's rule).
 *
 * On process 0, thread A posts a receive on world slot 1 (gcm_irecv, then
 * says so, then gcm_wait); thread B posts the same receive strictly after
 * (it waits for A's flag) and waits too. When both have posted, process 0
 * tells process 1 to send one message; A must get it while B stays
 * blocked; then process 0 asks for a second message, which B must get.
 * Repeated ROUNDS times with exact tags and ROUNDS times with GCM_ANY_TAG
 * (the sender varies the tag then). Processes beyond 1 idle.
 *
 * Usage: p2p_first_posted [ROUNDS]
 */
#include "config.h"

#include "gcm_test.h"

#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define GO_TAG   1
#define DATA_TAG 7

/* One receiving thread's round: generation numbers say which round it is
 * in; posted and done what it has reached. */
typedef struct rx {
    const char     *who;
    atomic_int      round;    /* set by main: start this round */
    atomic_int      posted;   /* round whose receive is posted */
    atomic_int      done;     /* round whose receive completed */
    int             value;
    int             tag;
    struct rx      *before;   /* must have posted first (NULL for A) */
    int             any_tag;
    int             rounds;
} rx_t;

static void wait_for(atomic_int *word, int value)
{
    while (atomic_load(word) < value) {
        sched_yield();
    }
}

static void *rx_main(void *arg)
{
    rx_t *rx = arg;
    int r;

    for (r = 1; r <= rx->rounds; r++) {
        gcm_request_h req;
        gcm_msg_status_t st;
        int tag = rx->any_tag ? GCM_ANY_TAG : DATA_TAG;

        wait_for(&rx->round, r);
        if (rx->before != NULL) {
            wait_for(&rx->before->posted, r);
        }
        rx->value = -1;
        if (gcm_irecv(gcm_world(), &rx->value, sizeof(rx->value), 1, tag,
                      &req) != GCM_OK) {
            gcm_test_fail("%s: irecv: %s", rx->who, gcm_last_error());
            exit(1);
        }
        atomic_store(&rx->posted, r);
        if (gcm_wait(&req, &st) != GCM_OK) {
            gcm_test_fail("%s: wait: %s", rx->who, gcm_last_error());
        }
        rx->tag = st.tag;
        atomic_store(&rx->done, r);
    }
    return NULL;
}

static void run_mode(int any_tag, int rounds)
{
    rx_t a = { 0 }, b = { 0 };
    pthread_t ta, tb;
    int r, go = 0;

    a.who = "A";
    b.who = "B";
    b.before = &a;
    a.any_tag = b.any_tag = any_tag;
    a.rounds = b.rounds = rounds;
    atomic_init(&a.round, 0);
    atomic_init(&a.posted, 0);
    atomic_init(&a.done, 0);
    atomic_init(&b.round, 0);
    atomic_init(&b.posted, 0);
    atomic_init(&b.done, 0);
    pthread_create(&ta, NULL, rx_main, &a);
    pthread_create(&tb, NULL, rx_main, &b);
    for (r = 1; r <= rounds; r++) {
        atomic_store(&a.round, r);
        atomic_store(&b.round, r);
        wait_for(&b.posted, r);
        /* Both are blocked now, A first: one message. */
        go = 2 * r;
        if (gcm_send(gcm_world(), &go, sizeof(go), 1, GO_TAG) != GCM_OK) {
            gcm_test_fail("go: %s", gcm_last_error());
        }
        wait_for(&a.done, r);
        if (atomic_load(&b.done) >= r) {
            gcm_test_fail("round %d: B completed with the first message", r);
        }
        if (a.value != 2 * r) {
            gcm_test_fail("round %d: A got %d, expected %d", r, a.value,
                          2 * r);
        }
        go = 2 * r + 1;
        if (gcm_send(gcm_world(), &go, sizeof(go), 1, GO_TAG) != GCM_OK) {
            gcm_test_fail("go: %s", gcm_last_error());
        }
        wait_for(&b.done, r);
        if (b.value != 2 * r + 1) {
            gcm_test_fail("round %d: B got %d, expected %d", r, b.value,
                          2 * r + 1);
        }
        if (!any_tag && ((a.tag != DATA_TAG) || (b.tag != DATA_TAG))) {
            gcm_test_fail("round %d: tags %d %d", r, a.tag, b.tag);
        }
    }
    pthread_join(ta, NULL);
    pthread_join(tb, NULL);
}

int main(int argc, char **argv)
{
    int rounds = (argc > 1) ? atoi(argv[1]) : 200;
    int me, mode;

    if (!gcm_test_init(&argc, &argv, "p2p_first_posted")) {
        return 1;
    }
    me = gcm_proc_rank();
    if (gcm_proc_count() < 2) {
        gcm_test_fail("needs 2 processes");
        return gcm_test_finish();
    }
    for (mode = 0; mode < 2; mode++) {
        if (me == 0) {
            run_mode(mode, rounds);
        } else if (me == 1) {
            int i, v;

            for (i = 0; i < 2 * rounds; i++) {
                if (gcm_recv(gcm_world(), &v, sizeof(v), 0, GO_TAG, NULL) !=
                    GCM_OK) {
                    gcm_test_fail("recv go: %s", gcm_last_error());
                    break;
                }
                /* With GCM_ANY_TAG the receivers must not care. */
                if (gcm_send(gcm_world(), &v, sizeof(v), 0,
                             mode ? DATA_TAG + (i % 3) : DATA_TAG) !=
                    GCM_OK) {
                    gcm_test_fail("send: %s", gcm_last_error());
                }
            }
        }
        if ((me == 0) && (gcm_test_failed() == 0)) {
            printf("p2p_first_posted: %d rounds with %s: first posted "
                   "first served\n", rounds,
                   mode ? "GCM_ANY_TAG" : "exact tags");
        }
    }
    return gcm_test_finish();
}
