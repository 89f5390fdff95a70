/*
 * p2p_endpoints: threads on endpoints of their own. In each process T
 * threads each create an LCO (homed on the thread's endpoint) with one
 * receive slot; the main thread gathers all names over the world and
 * gives every thread send slots to the LCOs of thread t of every process.
 * Then thread t of each process exchanges rounds of messages with thread t
 * of every other process at once: small ones (eager copies or shared-memory
 * cells) and large ones (rendezvous or shared-memory reads), every one
 * checked for content and per-sender order. A thread also
 * sends to thread t+1 of its own process (another endpoint, same process:
 * the same-process path).
 *
 * Usage: p2p_endpoints [ROUNDS]. Process 0 prints "p2p_endpoints: all
 * checks passed" when no process failed.
 */
#include "gcm_test.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NTHREADS 3
#define BIG      (256 * 1024)
#define TAG_NAME 1
#define TAG_DATA 2     /* + round */

static int g_me, g_n, g_rounds;
static gcm_lco_h g_lco[NTHREADS];
static gcm_name_t *g_names;     /* [proc * NTHREADS + thread] */
static pthread_barrier_t g_ready, g_named;

static void fail(int t, const char *what, long a, long b)
{
    gcm_test_fail("thread %d: %s (%ld, %ld)", t, what, a, b);
}

/* Message i from (proc, thread) of size n: bytes derived from all four. */
static unsigned char byte_of(int proc, int t, int i, size_t k)
{
    return (unsigned char)(proc * 131 + t * 31 + i * 7 + (int)(k % 251));
}

static size_t size_of(int i)
{
    switch (i % 4) {
    case 0:
        return 8;
    case 1:
        return 4000;
    case 2:
        return 20000;      /* above the eager limit and the cell size */
    default:
        return BIG;
    }
}

static void *worker(void *arg)
{
    int t = (int)(long)arg;
    /* Send slots: one per process (slot p: thread t of process p), then
     * one to thread t+1 of this process (slot g_n). Receive slot 0. */
    int nslots = g_n + 1;
    gcm_request_h *reqs = calloc((size_t)(2 * nslots), sizeof(*reqs));
    unsigned char **sbuf = calloc((size_t)nslots, sizeof(*sbuf));
    unsigned char *rbuf = malloc(BIG);
    int *expect = calloc((size_t)(g_n * NTHREADS), sizeof(int));
    gcm_msg_status_t st;
    int i, p, k, nmsgs;

    if ((gcm_lco_create(&g_lco[t]) != GCM_OK) ||
        (gcm_lco_add_recv_slots(g_lco[t], 1) != GCM_OK)) {
        fail(t, "cannot create the LCO", 0, 0);
    }
    pthread_barrier_wait(&g_ready);
    pthread_barrier_wait(&g_named);
    for (p = 0; p < g_n; p++) {
        int slot = 0;
        if (gcm_lco_add_send_slots(g_lco[t], 1,
                                   &g_names[p * NTHREADS + t], &slot) !=
            GCM_OK) {
            fail(t, "add_send_slots", p, 0);
        }
    }
    {
        int slot = 0;
        int next = (t + 1) % NTHREADS;
        if (gcm_lco_add_send_slots(g_lco[t], 1,
                                   &g_names[g_me * NTHREADS + next],
                                   &slot) != GCM_OK) {
            fail(t, "add_send_slots (own process)", next, 0);
        }
    }
    for (p = 0; p < nslots; p++) {
        sbuf[p] = malloc(BIG);
    }
    /* Per round: one message to each other process, one to this
     * process's next thread; as many arrive. */
    nmsgs = g_n;
    for (i = 0; i < g_rounds; i++) {
        size_t n = size_of(i);
        int nreq = 0;

        for (p = 0; p < nslots; p++) {
            if ((p < g_n) && (p == g_me)) {
                continue;
            }
            for (k = 0; (size_t)k < n; k++) {
                sbuf[p][k] = byte_of(g_me, t, i, (size_t)k);
            }
            if (gcm_isend(g_lco[t], sbuf[p], n, p, TAG_DATA + i,
                          &reqs[nreq++]) != GCM_OK) {
                fail(t, "isend", p, i);
            }
        }
        for (k = 0; k < nmsgs; k++) {
            int from, ft, idx;
            /* A tag per round: a receive never takes a message of the
             * next round, which would leave this round's sender waiting. */
            if (gcm_recv(g_lco[t], rbuf, BIG, 0, TAG_DATA + i, &st) !=
                GCM_OK) {
                fail(t, "recv", k, i);
                continue;
            }
            /* The first bytes tell the sender: try every candidate. */
            from = -1;
            ft   = -1;
            for (idx = 0; (idx < g_n * NTHREADS) && (from < 0); idx++) {
                int pp = idx / NTHREADS, tt = idx % NTHREADS;
                int ii = expect[idx];
                size_t m = size_of(ii);
                size_t q;
                if ((pp == g_me) ? (tt != (t + NTHREADS - 1) % NTHREADS) :
                                   (tt != t)) {
                    continue;
                }
                if ((st.count != m) || (ii >= g_rounds)) {
                    continue;
                }
                for (q = 0; q < m; q++) {
                    if (rbuf[q] != byte_of(pp, tt, ii, q)) {
                        break;
                    }
                }
                if (q == m) {
                    from = pp;
                    ft   = tt;
                }
            }
            if (from < 0) {
                fail(t, "message matches no sender's next message",
                     (long)st.count, i);
            } else {
                expect[from * NTHREADS + ft]++;
            }
        }
        for (k = 0; k < nreq; k++) {
            if (gcm_wait(&reqs[k], NULL) != GCM_OK) {
                fail(t, "send wait", k, i);
            }
        }
    }
    for (p = 0; p < nslots; p++) {
        free(sbuf[p]);
    }
    free(sbuf);
    free(rbuf);
    free(expect);
    free(reqs);
    return NULL;
}

int main(int argc, char **argv)
{
    pthread_t th[NTHREADS];
    gcm_stats_t stats;
    gcm_name_t mine[NTHREADS];
    int t, rc;

    g_rounds = (argc > 1) ? atoi(argv[1]) : 40;
    if ((g_rounds < 1) || (g_rounds > 10000)) {
        fprintf(stderr, "p2p_endpoints: ROUNDS must be 1..10000\n");
        return 2;
    }
    if (!gcm_test_init(&argc, &argv, "p2p_endpoints")) {
        return 1;
    }
    g_me = gcm_proc_rank();
    g_n  = gcm_proc_count();
    g_names = calloc((size_t)(g_n * NTHREADS), sizeof(*g_names));
    pthread_barrier_init(&g_ready, NULL, NTHREADS + 1);
    pthread_barrier_init(&g_named, NULL, NTHREADS + 1);
    for (t = 0; t < NTHREADS; t++) {
        rc = pthread_create(&th[t], NULL, worker, (void *)(long)t);
        if (rc != 0) {
            /* The others would wait at the barrier for it forever. */
            fprintf(stderr, "p2p_endpoints: P%d: pthread_create: %s\n", g_me,
                    strerror(rc));
            exit(1);
        }
    }
    pthread_barrier_wait(&g_ready);
    /* All-to-all of the names over the world, from the main thread. */
    for (t = 0; t < NTHREADS; t++) {
        gcm_test_ok(gcm_lco_name(g_lco[t], &mine[t]), "gcm_lco_name");
    }
    gcm_test_exchange(mine, sizeof(mine), g_names, TAG_NAME);
    pthread_barrier_wait(&g_named);
    for (t = 0; t < NTHREADS; t++) {
        pthread_join(th[t], NULL);
    }
    gcm_get_stats(&stats);
    if ((g_n > 1) && (stats.msgs_sent_remote == 0)) {
        fail(-1, "no message went to another process", 0, 0);
    }
    for (t = 0; t < NTHREADS; t++) {
        gcm_lco_free(&g_lco[t]);
    }
    free(g_names);
    return gcm_test_finish();
}
