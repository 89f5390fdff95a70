/*
 * tests/unit/check_threads.c: endpoints in one process (singleton): how
 * many there are, which thread gets which, where LCOs live, messages
 * between LCOs of different endpoints, and a request whose endpoint nobody
 * waits on. UCX is set up in the checked fixture, so in the forked child.
 */
#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */
#include "config.h"

#include "lco/lco.h"
#include "check_main.h"

#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

static void init_with(const char *max_endpoints)
{
    setenv("GENCOMM_BOOT", "singleton", 1);
    setenv("GENCOMM_MAX_ENDPOINTS", max_endpoints, 1);
    ck_assert_int_eq(gcm_init(NULL, NULL), GCM_OK);
}

static void setup4(void)
{
    init_with("4");
}

static void teardown(void)
{
    ck_assert_int_eq(gcm_finalize(), GCM_OK);
    unsetenv("GENCOMM_MAX_ENDPOINTS");
}

START_TEST(test_threads_home_index)
{
    /* Home 0 is endpoint 0 everywhere; other homes spread over 1..n-1,
     * and a process with one endpoint has them all on 0. */
    ck_assert_int_eq(gcm_thr_home_index(0, 8), 0);
    ck_assert_int_eq(gcm_thr_home_index(1, 8), 1);
    ck_assert_int_eq(gcm_thr_home_index(7, 8), 7);
    ck_assert_int_eq(gcm_thr_home_index(8, 8), 1);
    ck_assert_int_eq(gcm_thr_home_index(5, 1), 0);
    ck_assert_int_eq(gcm_thr_home_index(5, 2), 1);
    ck_assert_int_eq(gcm_thr_home_index(4, 3), 2);
}
END_TEST

START_TEST(test_threads_max_endpoints_setting)
{
    /* Default (unset or 0): one per CPU of the affinity mask plus
     * endpoint 0, at least 8; out-of-range values are clamped to 0..64. */
    cpu_set_t set, one;
    int expect;

    ck_assert_int_eq(sched_getaffinity(0, sizeof(set), &set), 0);
    expect = (CPU_COUNT(&set) + 1 > 8) ? CPU_COUNT(&set) + 1 : 8;
    if (expect > GCM_MAX_ENDPOINTS) {
        expect = GCM_MAX_ENDPOINTS;
    }
    setenv("GENCOMM_BOOT", "singleton", 1);
    unsetenv("GENCOMM_MAX_ENDPOINTS");
    ck_assert_int_eq(gcm_init(NULL, NULL), GCM_OK);
    ck_assert_int_eq(gcm_thr_num_endpoints(), expect);
    ck_assert_int_eq(gcm_thr_remote_endpoints(0), expect);
    ck_assert_int_eq(gcm_finalize(), GCM_OK);
    init_with("0");
    ck_assert_int_eq(gcm_thr_num_endpoints(), expect);
    ck_assert_int_eq(gcm_finalize(), GCM_OK);

    /* The automatic count follows the mask: 8 for a process on one CPU,
     * one more than the CPUs when there are more than 7 of them. */
    CPU_ZERO(&one);
    CPU_SET(0, &one);
    ck_assert_int_eq(gcm_thr_default_endpoints(5), 5);
    if (sched_setaffinity(0, sizeof(one), &one) == 0) {
        ck_assert_int_eq(gcm_thr_default_endpoints(0), 8);
        (void)sched_setaffinity(0, sizeof(set), &set);
    }
    ck_assert_int_eq(gcm_thr_default_endpoints(0), expect);

    init_with("100");
    ck_assert_int_eq(gcm_thr_num_endpoints(), 64);
    ck_assert_int_eq(gcm_finalize(), GCM_OK);

    init_with("1");
    ck_assert_int_eq(gcm_thr_num_endpoints(), 1);
    /* One endpoint: every thread and every reservation shares it. */
    ck_assert_int_eq(gcm_thr_endpoint_reserve(), 0);
    ck_assert_int_eq(gcm_finalize(), GCM_OK);

    init_with("3");
    ck_assert_int_eq(gcm_thr_num_endpoints(), 3);
    ck_assert_ptr_nonnull(gcm_thr_endpoint_get(2));
    ck_assert_ptr_null(gcm_thr_endpoint_get(3));
    ck_assert_int_eq(gcm_finalize(), GCM_OK);
    unsetenv("GENCOMM_MAX_ENDPOINTS");
}
END_TEST

/* A thread that reports its endpoint, then waits for the word to go. */
typedef struct {
    pthread_mutex_t lock;
    pthread_cond_t  cond;
    int             go;
} gate_t;

typedef struct {
    gate_t   *gate;
    int       index;
    gcm_lco_h lco;
    int       lco_index;
} binder_t;

static void *binder(void *arg)
{
    binder_t *b = arg;

    b->index = gcm_thr_endpoint_current()->index;
    /* The same thread keeps its endpoint. */
    ck_assert_int_eq(gcm_thr_endpoint_current()->index, b->index);
    /* Published last (release): the test thread reads index after it. */
    __atomic_store_n(&b->lco_index,
                     (gcm_lco_create(&b->lco) == GCM_OK) ?
                     b->lco->port->endpoint->index : 99,
                     __ATOMIC_RELEASE);
    pthread_mutex_lock(&b->gate->lock);
    while (!b->gate->go) {
        pthread_cond_wait(&b->gate->cond, &b->gate->lock);
    }
    pthread_mutex_unlock(&b->gate->lock);
    return NULL;
}

static void start_binder(pthread_t *t, binder_t *b, gate_t *gate)
{
    memset(b, 0, sizeof(*b));
    b->gate      = gate;
    b->index     = -1;
    b->lco_index = -1;
    ck_assert_int_eq(pthread_create(t, NULL, binder, b), 0);
}

/* Waits until the binder has bound (its index set). */
static void await_bound(binder_t *b)
{
    while (__atomic_load_n(&b->lco_index, __ATOMIC_ACQUIRE) < 0) {
        sched_yield();
    }
}

static void open_gate(gate_t *gate)
{
    pthread_mutex_lock(&gate->lock);
    gate->go = 1;
    pthread_cond_broadcast(&gate->cond);
    pthread_mutex_unlock(&gate->lock);
}

START_TEST(test_threads_binding)
{
    gate_t gate = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0 };
    gate_t gate2 = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0 };
    pthread_t t[4], late;
    binder_t b[4], lateb;
    int seen[4] = { 0 };
    int i;

    /* The initializing thread has endpoint 0, and its LCOs live there. */
    ck_assert_int_eq(gcm_thr_endpoint_current()->index, 0);
    for (i = 0; i < 4; i++) {
        start_binder(&t[i], &b[i], &gate);
        await_bound(&b[i]);
        /* An LCO lives on the endpoint of the thread that made it. */
        ck_assert_int_eq(b[i].lco_index, b[i].index);
    }
    /* Three threads get the three free endpoints 1..3; the fourth shares
     * one of them (all are equally used). */
    for (i = 0; i < 3; i++) {
        ck_assert_int_ge(b[i].index, 1);
        ck_assert_int_le(b[i].index, 3);
        ck_assert_int_eq(seen[b[i].index], 0);
        seen[b[i].index] = 1;
    }
    ck_assert_int_ge(b[3].index, 1);
    ck_assert_int_le(b[3].index, 3);
    open_gate(&gate);
    for (i = 0; i < 4; i++) {
        pthread_join(t[i], NULL);
        ck_assert_int_eq(gcm_lco_free(&b[i].lco), GCM_OK);
    }
    /* The threads are gone: a new thread gets an endpoint nobody uses,
     * not one shared. */
    start_binder(&late, &lateb, &gate2);
    await_bound(&lateb);
    ck_assert_int_ge(lateb.index, 1);
    ck_assert_int_eq(gcm_thr_endpoint_get(lateb.index)->nbound, 1);
    open_gate(&gate2);
    pthread_join(late, NULL);
    ck_assert_int_eq(gcm_lco_free(&lateb.lco), GCM_OK);
}
END_TEST

START_TEST(test_threads_reserve_prefers_unused)
{
    gate_t gate = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0 };
    pthread_t t;
    binder_t b;
    int r1, r2, r3, r4;

    /* One thread holds an endpoint: reservations take the two others
     * first, then share. */
    start_binder(&t, &b, &gate);
    await_bound(&b);
    r1 = gcm_lco_endpoint_reserve();
    r2 = gcm_lco_endpoint_reserve();
    ck_assert_int_ne(r1, b.index);
    ck_assert_int_ne(r2, b.index);
    ck_assert_int_ne(r1, r2);
    ck_assert_int_ge(r1, 1);
    ck_assert_int_ge(r2, 1);
    /* All used once: the next ones go round, never to endpoint 0. */
    r3 = gcm_lco_endpoint_reserve();
    r4 = gcm_lco_endpoint_reserve();
    ck_assert_int_ge(r3, 1);
    ck_assert_int_ge(r4, 1);
    ck_assert_int_ne(r3, r4);
    open_gate(&gate);
    pthread_join(t, NULL);
    ck_assert_int_eq(gcm_lco_free(&b.lco), GCM_OK);
}
END_TEST

/* LCOs on endpoints 1 and 2 of this process: small, large and
 * synchronous messages go through the same-process path. */
START_TEST(test_threads_between_endpoints)
{
    static char big[1 << 20], got[1 << 20];
    gcm_lco_h rx, tx;
    gcm_name_t name;
    gcm_request_h sreq, rreq;
    gcm_msg_status_t st;
    int slot = 0, v = 42, w = 0;
    gcm_stats_t before, after;

    ck_assert_int_eq(gcm_lco_create_on(1, &rx), GCM_OK);
    ck_assert_int_eq(gcm_lco_create_on(2, &tx), GCM_OK);
    ck_assert_int_eq(rx->port->endpoint->index, 1);
    ck_assert_int_eq(tx->port->endpoint->index, 2);
    ck_assert_int_eq(gcm_lco_add_recv_slots(rx, 1), GCM_OK);
    ck_assert_int_eq(gcm_lco_name(rx, &name), GCM_OK);
    ck_assert_int_eq(gcm_lco_add_send_slots(tx, 1, &name, &slot), GCM_OK);

    gcm_get_stats(&before);
    ck_assert_int_eq(gcm_send(tx, &v, sizeof(v), 0, 7), GCM_OK);
    ck_assert_int_eq(gcm_recv(rx, &w, sizeof(w), 0, 7, &st), GCM_OK);
    ck_assert_int_eq(w, 42);

    /* A large message waits in the sender's buffer for the receive: the
     * send completes only once the receive on the other endpoint took it. */
    memset(big, 'x', sizeof(big));
    ck_assert_int_eq(gcm_isend(tx, big, sizeof(big), 0, 8, &sreq), GCM_OK);
    ck_assert_int_eq(gcm_lco_req_done(sreq), 0);
    ck_assert_int_eq(gcm_irecv(rx, got, sizeof(got), 0, 8, &rreq), GCM_OK);
    ck_assert_int_eq(gcm_wait(&rreq, &st), GCM_OK);
    ck_assert_int_eq(gcm_wait(&sreq, NULL), GCM_OK);
    ck_assert_uint_eq(st.count, sizeof(big));
    ck_assert_int_eq(memcmp(big, got, sizeof(big)), 0);

    /* Never over the network or shared memory. */
    gcm_get_stats(&after);
    ck_assert_uint_eq(after.msgs_sent_remote, before.msgs_sent_remote);
    ck_assert_uint_eq(after.msgs_sent_local, before.msgs_sent_local + 2);

    /* Bad endpoint indices are refused with a reason. */
    ck_assert_int_eq(gcm_lco_create_on(4, &rx), GCM_ERR_INVALID_PARAM);
    ck_assert_ptr_nonnull(strstr(gcm_last_error(), "no endpoint 4"));
    ck_assert_int_eq(gcm_lco_create_on(-1, &rx), GCM_ERR_INVALID_PARAM);

    ck_assert_int_eq(gcm_lco_free(&tx), GCM_OK);
    ck_assert_int_eq(gcm_lco_free(&rx), GCM_OK);
}
END_TEST

/* Requests count as pending on their endpoint until they complete. */
START_TEST(test_threads_pending_count)
{
    gcm_thr_endpoint_t *ep3 = gcm_thr_endpoint_get(3);
    gcm_lco_h lco;
    gcm_request_h req;
    gcm_name_t name;
    int slot = 0, v = 1, w;

    ck_assert_int_eq(gcm_lco_create_on(3, &lco), GCM_OK);
    ck_assert_int_eq(gcm_lco_add_recv_slots(lco, 1), GCM_OK);
    ck_assert_int_eq(gcm_lco_name(lco, &name), GCM_OK);
    ck_assert_int_eq(gcm_lco_add_send_slots(lco, 1, &name, &slot), GCM_OK);
    ck_assert_int_eq(atomic_load(&ep3->npending), 0);
    ck_assert_int_eq(gcm_irecv(lco, &w, sizeof(w), 0, 1, &req), GCM_OK);
    ck_assert_int_eq(atomic_load(&ep3->npending), 1);
    ck_assert_int_eq(gcm_send(lco, &v, sizeof(v), 0, 1), GCM_OK);
    ck_assert_int_eq(atomic_load(&ep3->npending), 0);
    ck_assert_int_eq(gcm_wait(&req, NULL), GCM_OK);
    ck_assert_int_eq(w, 1);
    ck_assert_int_eq(gcm_lco_free(&lco), GCM_OK);
}
END_TEST

/* Communicators derived from the world spread over the endpoints; the
 * first child of one stays on its endpoint; a message to oneself on a
 * homed LCO finds it. */
START_TEST(test_threads_pattern_homes)
{
    gcm_lco_h world = gcm_world(), a, b, c, child;
    uint32_t id, gen, home, ha, hb, hc, hchild;
    int me = 0, v = 5, w = 0;

    gcm_lco_derive_id_homed(world, &id, &gen, &ha);
    ck_assert_int_eq(gcm_lco_create_pattern_homed(id, gen, ha, 1, &me, 0,
                                                  &a), GCM_OK);
    gcm_lco_derive_id_homed(world, &id, &gen, &hb);
    ck_assert_int_eq(gcm_lco_create_pattern_homed(id, gen, hb, 1, &me, 0,
                                                  &b), GCM_OK);
    gcm_lco_derive_id_homed(world, &id, &gen, &hc);
    ck_assert_int_eq(gcm_lco_create_pattern_homed(id, gen, hc, 1, &me, 0,
                                                  &c), GCM_OK);
    /* Consecutive homes: three different endpoints among 1..3, never
     * the world's. */
    ck_assert_uint_eq(hb, ha + 1);
    ck_assert_uint_eq(hc, hb + 1);
    ck_assert_int_eq(a->port->endpoint->index, gcm_thr_home_index(ha, 4));
    ck_assert_int_ne(a->port->endpoint->index, 0);
    ck_assert_int_ne(a->port->endpoint->index, b->port->endpoint->index);
    ck_assert_int_ne(b->port->endpoint->index, c->port->endpoint->index);
    ck_assert_int_ne(a->port->endpoint->index, c->port->endpoint->index);

    /* A's first child lives with A; a second one moves on. */
    gcm_lco_derive_id_homed(a, &id, &gen, &hchild);
    ck_assert_uint_eq(hchild, ha);
    ck_assert_int_eq(gcm_lco_create_pattern_homed(id, gen, hchild, 1, &me, 0,
                                                  &child), GCM_OK);
    ck_assert_ptr_eq(child->port->endpoint, a->port->endpoint);
    gcm_lco_derive_id_homed(a, &id, &gen, &home);
    ck_assert_uint_eq(home, ha + 1);

    /* Sends on a homed LCO go to its endpoint (here: this process). */
    ck_assert_int_eq(gcm_send(b, &v, sizeof(v), 0, 3), GCM_OK);
    ck_assert_int_eq(gcm_recv(b, &w, sizeof(w), 0, 3, NULL), GCM_OK);
    ck_assert_int_eq(w, 5);
    ck_assert_int_eq(gcm_lco_send_slot_is_self(b, 0), 1);

    ck_assert_int_eq(gcm_lco_free(&child), GCM_OK);
    ck_assert_int_eq(gcm_lco_free(&c), GCM_OK);
    ck_assert_int_eq(gcm_lco_free(&b), GCM_OK);
    ck_assert_int_eq(gcm_lco_free(&a), GCM_OK);
}
END_TEST

static Suite *make_suite(void)
{
    const TTest *pure[] = {test_threads_home_index, NULL};
    const TTest *setting[] = {test_threads_max_endpoints_setting, NULL};
    const TTest *four[] = {test_threads_binding,
        test_threads_reserve_prefers_unused, test_threads_between_endpoints,
        test_threads_pending_count, test_threads_pattern_homes, NULL};
    const struct gcm_check_case cases[] = {
        {"pure", .tests = pure},
        {"setting", .tests = setting, .timeout = 30},
        {"four", .tests = four, .timeout = 30, .setup = setup4,
            .teardown = teardown},
        {0},
    };

    return gcm_check_suite("threads", cases);
}
