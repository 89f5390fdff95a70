/*
 * tests/unit/check_coll_rec.c: a schedule's receive steps run in records
 * of the schedule's own (coll/coll.h, GCM_COLL_INLINE_RECS; slots.h,
 * gcm_slots_irecv_rec) when their message has not come at posting: the
 * record carries the receive to its end, is used again when the schedule
 * runs again, is failed by the end of its LCO like any posted receive,
 * and a schedule freed with one in flight waits for it. Its first send
 * steps keep their envelopes (GCM_COLL_INLINE_KEEPS) until it is built
 * again. The two-process exchange (gcm_lco_exchange_nr, the MPI layer's
 * barrier of two and the other ranks' part of its linear barrier) and
 * rank 0's part of that linear barrier (gcm_lco_fan_nr) receive in their
 * caller's records and send with their caller's keeps. Two LCOs of one
 * process stand for two ranks.
 */
#include "config.h"

#include "coll/coll_impl.h"
#include "check_main.h"

#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#define CR_RECVS (GCM_COLL_INLINE_RECS + 2)

static gcm_lco_h cr_lco[2];
static gcm_coll_grp_t cr_g[2];

/* Raw bytes only: a schedule of raw transfers never asks its type ops. */
static const gcm_coll_type_ops_t cr_ops;

static void setup(void)
{
    gcm_name_t names[2];
    int slots[2];
    int r, p;

    setenv("GENCOMM_BOOT", "singleton", 1);
    ck_assert_int_eq(gcm_init(NULL, NULL), GCM_OK);
    for (r = 0; r < 2; r++) {
        ck_assert_int_eq(gcm_lco_create(&cr_lco[r]), GCM_OK);
        ck_assert_int_eq(gcm_lco_add_recv_slots(cr_lco[r], 2), GCM_OK);
        ck_assert_int_eq(gcm_lco_name(cr_lco[r], &names[r]), GCM_OK);
    }
    for (r = 0; r < 2; r++) {
        for (p = 0; p < 2; p++) {
            slots[p] = r;    /* send slot p: LCO p's receive slot r */
        }
        ck_assert_int_eq(gcm_lco_add_send_slots(cr_lco[r], 2, names, slots),
                         GCM_OK);
        cr_g[r].lco = cr_lco[r];
        cr_g[r].tag = 100;
        cr_g[r].rank = r;
        cr_g[r].size = 2;
        cr_g[r].slot = NULL;
    }
}

static void teardown(void)
{
    int r;

    for (r = 0; r < 2; r++) {
        if (cr_lco[r] != NULL) {
            ck_assert_int_eq(gcm_lco_free(&cr_lco[r]), GCM_OK);
        }
    }
    ck_assert_int_eq(gcm_finalize(), GCM_OK);
}

/* Rank 0's schedule: n one-byte receives from rank 1, then a fence. */
static void cr_build(gcm_coll_sched_t *s, char *in, int n)
{
    int i;

    gcm_coll_sched_init(s, &cr_ops);
    for (i = 0; i < n; i++) {
        gcm_coll_recv_raw(s, &cr_g[0], &in[i], 1, 1);
    }
    gcm_coll_fence(s);
}

/* Rank 1 sends bytes base, base + 1, ... one per receive. */
static void cr_send(int n, char base)
{
    gcm_request_h req;
    char out;
    int i;

    for (i = 0; i < n; i++) {
        out = (char)(base + i);
        ck_assert_int_eq(gcm_lco_isend_x(cr_lco[1], &out, 1, 0, 100, 0,
                                         &req), GCM_OK);
        ck_assert_int_eq(gcm_wait(&req, NULL), GCM_OK);
    }
}

/* Whether step i waits in its record of s. */
static int cr_in_record(const gcm_coll_sched_t *s, int i)
{
    const gcm_coll_step_t *st = &s->steps[i];

    return (st->req != GCM_REQUEST_NULL) && (st->rec != 0) &&
           (gcm_slots_req_of(st->req) == &s->recs[st->rec - 1]);
}

START_TEST(test_rec_receive)
{
    gcm_coll_sched_t s;
    char in[CR_RECVS];
    int run, i, k, done;

    cr_build(&s, in, CR_RECVS);
    /* The first ones built have a record each, the others none. */
    for (i = 0; i < CR_RECVS; i++) {
        ck_assert_int_eq(s.steps[i].rec,
                         (i < GCM_COLL_INLINE_RECS) ? i + 1 : 0);
    }
    /* Three runs of the same schedule, as the MPI layer runs a kept one:
     * posted before their messages, the receives wait in the records
     * (the others in requests), and end with the data. */
    for (run = 0; run < 3; run++) {
        memset(in, 0, sizeof(in));
        s.next = 0;
        s.pending = 0;
        ck_assert_int_eq(gcm_coll_sched_advance(&s, 0), 0);
        for (i = 0; i < CR_RECVS; i++) {
            ck_assert_msg(s.steps[i].req != GCM_REQUEST_NULL,
                          "run %d: receive %d complete with no message",
                          run, i);
            ck_assert_int_eq(cr_in_record(&s, i), i < GCM_COLL_INLINE_RECS);
        }
        cr_send(CR_RECVS, (char)(10 * run + 1));
        for (k = 0, done = 0; k < 100000 && !done; k++) {
            done = gcm_coll_sched_advance(&s, 0);
            ck_assert_int_eq(gcm_progress(), GCM_OK);
        }
        ck_assert_msg(done, "run %d: the schedule did not end", run);
        ck_assert_int_eq(s.err, GCM_OK);
        for (i = 0; i < CR_RECVS; i++) {
            ck_assert_int_eq(in[i], 10 * run + 1 + i);
            ck_assert_ptr_eq(s.steps[i].req, GCM_REQUEST_NULL);
        }
        /* Released: nothing of the record is in use. */
        for (i = 0; i < GCM_COLL_INLINE_RECS; i++) {
            ck_assert_uint_eq(s.recs[i].magic, 0);
        }
    }
    gcm_coll_sched_free(&s);
}
END_TEST

/* A message that waits already is taken at posting: no record. */
START_TEST(test_rec_waiting)
{
    gcm_coll_sched_t s;
    char in[2];

    cr_build(&s, in, 2);
    cr_send(2, 5);
    ck_assert_int_eq(gcm_progress(), GCM_OK);
    ck_assert_int_eq(gcm_coll_sched_advance(&s, 0), 1);
    ck_assert_int_eq(s.err, GCM_OK);
    ck_assert_int_eq(in[0], 5);
    ck_assert_int_eq(in[1], 6);
    ck_assert_ptr_eq(s.steps[0].req, GCM_REQUEST_NULL);
    ck_assert_ptr_eq(s.steps[1].req, GCM_REQUEST_NULL);
    gcm_coll_sched_free(&s);
}
END_TEST

/* The receiving LCO freed while its receives wait in records: they fail
 * (as posted receives with requests do) and the schedule ends with the
 * error instead of waiting for ever. */
START_TEST(test_rec_lco_freed)
{
    gcm_coll_sched_t s;
    char in[CR_RECVS];

    cr_build(&s, in, CR_RECVS);
    ck_assert_int_eq(gcm_coll_sched_advance(&s, 0), 0);
    ck_assert(cr_in_record(&s, 0));
    ck_assert_int_eq(gcm_lco_free(&cr_lco[0]), GCM_OK);
    ck_assert_int_eq(gcm_coll_sched_advance(&s, 1), 1);
    ck_assert_int_eq(s.err, GCM_ERR_CANCELED);
    gcm_coll_sched_free(&s);
}
END_TEST

/* A schedule freed before its fence ran: the receives that completed in
 * records meanwhile are released by the free (no fence took them), and
 * the records are free for the schedule built next in the same place. */
START_TEST(test_rec_freed_early)
{
    gcm_coll_sched_t s;
    char in[2];

    cr_build(&s, in, 2);
    ck_assert_int_eq(gcm_coll_sched_advance(&s, 0), 0);
    ck_assert(cr_in_record(&s, 0));
    ck_assert(cr_in_record(&s, 1));
    cr_send(2, 3);
    gcm_coll_sched_free(&s);
    ck_assert_int_eq(in[0], 3);
    ck_assert_int_eq(in[1], 4);
    ck_assert_uint_eq(s.recs[0].magic, 0);
    ck_assert_uint_eq(s.recs[1].magic, 0);
    ck_assert_int_eq(s.nsteps, 0);

    cr_build(&s, in, 1);
    cr_send(1, 8);
    ck_assert_int_eq(gcm_coll_sched_advance(&s, 1), 1);
    ck_assert_int_eq(s.err, GCM_OK);
    ck_assert_int_eq(in[0], 8);
    gcm_coll_sched_free(&s);
}
END_TEST

/* Rank 1's schedule: n one-byte sends to rank 0, then a fence. */
static void cr_build_sends(gcm_coll_sched_t *s, const char *out, int n)
{
    int i;

    gcm_coll_sched_init(s, &cr_ops);
    for (i = 0; i < n; i++) {
        gcm_coll_send_raw(s, &cr_g[1], &out[i], 1, 0);
    }
    gcm_coll_fence(s);
}

/* Runs rank 1's schedule s once with bytes base, base + 1, ..., and
 * checks that rank 0 receives them in order. */
static void cr_run_sends(gcm_coll_sched_t *s, char *out, int n, char base)
{
    gcm_coll_sched_t r;
    char in[CR_RECVS];
    int i;

    for (i = 0; i < n; i++) {
        out[i] = (char)(base + i);
    }
    s->next = 0;
    s->pending = 0;
    ck_assert_int_eq(gcm_coll_sched_advance(s, 1), 1);
    ck_assert_int_eq(s->err, GCM_OK);
    memset(in, 0, sizeof(in));
    cr_build(&r, in, n);
    ck_assert_int_eq(gcm_coll_sched_advance(&r, 1), 1);
    ck_assert_int_eq(r.err, GCM_OK);
    for (i = 0; i < n; i++) {
        ck_assert_int_eq(in[i], base + i);
    }
    gcm_coll_sched_free(&r);
}

/* The first send steps built keep their envelope and connection
 * (GCM_COLL_INLINE_KEEPS, gcm_slots_isend_kept): empty when built, filled
 * by the first run for the step's port and slot, used by the next runs;
 * a keep left for another port and slot is filled again, and building
 * the schedule again empties them. (The keep's connection is that of
 * another process: between two LCOs of one process it stays NULL and the
 * send takes the general path; test_coll_pair's "dead ag" and "dead a2a"
 * run kept sends to a failed partner.) */
START_TEST(test_keep_rebuilt)
{
    gcm_coll_sched_t s;
    char out[CR_RECVS];
    int i, run;

    cr_build_sends(&s, out, CR_RECVS);
    for (i = 0; i < CR_RECVS; i++) {
        ck_assert_int_eq(s.steps[i].rec,
                         (i < GCM_COLL_INLINE_KEEPS) ? i + 1 : 0);
    }
    for (i = 0; i < GCM_COLL_INLINE_KEEPS; i++) {
        ck_assert_ptr_null(s.keeps[i].port);
    }
    for (run = 0; run < 3; run++) {
        if (run == 2) {
            /* Left over from another schedule: another port and slot. */
            s.keeps[0].port = cr_lco[0]->port;
            s.keeps[0].env.src_slot = 1;
            s.keeps[0].env.dst_id = 0xdead;
            s.keeps[1].env.src_id = 0xbeef;
        }
        cr_run_sends(&s, out, CR_RECVS, (char)(20 * run + 1));
        for (i = 0; i < GCM_COLL_INLINE_KEEPS; i++) {
            ck_assert_ptr_eq(s.keeps[i].port, cr_lco[1]->port);
            ck_assert_uint_eq(s.keeps[i].env.src_id, cr_lco[1]->port->id);
            ck_assert_int_eq(s.keeps[i].env.src_slot, 0);
            ck_assert_ptr_null(s.keeps[i].conn);
        }
    }
    gcm_coll_sched_free(&s);

    /* Built again (another call's schedule in the same place). */
    cr_build_sends(&s, out, 2);
    ck_assert_int_eq(s.nkeeps, 2);
    ck_assert_ptr_null(s.keeps[0].port);
    ck_assert_ptr_null(s.keeps[1].port);
    cr_run_sends(&s, out, 2, 90);
    gcm_coll_sched_free(&s);
}
END_TEST

/* Rank 0's side of an exchange (gcm_lco_exchange_nr), in a thread of its
 * own: one byte each way, with the caller's keep and record. */
typedef struct {
    gcm_slots_send_keep_t keep;
    struct gcm_request    rec;
    char                  out, in;
    gcm_status_t          status;
} cr_xchg_t;

static void *cr_xchg_run(void *arg)
{
    cr_xchg_t *x = arg;

    x->status = gcm_lco_exchange_nr(cr_lco[0], &x->out, 1, &x->in, 1, 1, 100,
                                    &x->keep, &x->rec);
    return NULL;
}

/* Whether rank 0's port has rec among its posted receives (read under
 * the lock its posting takes). */
static int cr_posted_in(const struct gcm_request *rec)
{
    gcm_port_t *port = cr_lco[0]->port;
    gcm_list_t *pos, *tmp;
    int found = 0;

    gcm_thr_lock(port->endpoint);
    gcm_list_for_each_safe(pos, tmp, &port->posted) {
        found |= (gcm_container_of(pos, struct gcm_request, elem) == rec);
    }
    gcm_thr_unlock(port->endpoint);
    return found;
}

/* Rank 1 receives one byte from rank 0: expect. */
static void cr_recv1(char expect)
{
    gcm_request_h req;
    char in = 0;

    ck_assert_int_eq(gcm_lco_irecv_x(cr_lco[1], &in, 1, 0, 100, &req),
                     GCM_OK);
    ck_assert_int_eq(gcm_wait(&req, NULL), GCM_OK);
    ck_assert_int_eq(in, expect);
}

/* Rank 1's side: receives rank 0's byte, waits until rank 0's receive is
 * posted in its record, then sends reply. Returns whether the receive was seen posted in time. */
static int cr_xchg_partner(cr_xchg_t *x, char expect, char reply)
{
    gcm_request_h req;
    double end = gcm_time_now() + 30.0;
    int posted;

    cr_recv1(expect);
    /* Rank 0 posts its receive after its send: give it generous time
     * (a loaded machine), then answer whatever happened. */
    while (!(posted = cr_posted_in(&x->rec)) && (gcm_time_now() < end)) {
        sched_yield();
    }
    ck_assert_int_eq(gcm_lco_isend_x(cr_lco[1], &reply, 1, 0, 100, 0, &req),
                     GCM_OK);
    ck_assert_int_eq(gcm_wait(&req, NULL), GCM_OK);
    return posted;
}

/* An exchange whose reply has not come waits in the caller's record (no
 * request from the cache) and releases it; its send fills the caller's
 * keep for the port and slot, and the next exchange sends with it. A
 * reply that waits already takes no record. */
START_TEST(test_exchange_rec)
{
    cr_xchg_t x;
    pthread_t t;
    int run, posted;

    memset(&x, 0, sizeof(x));
    for (run = 0; run < 2; run++) {
        x.out = (char)(40 + run);
        x.in  = 0;
        x.status = GCM_ERR_INVALID_PARAM;
        ck_assert_int_eq(pthread_create(&t, NULL, cr_xchg_run, &x), 0);
        posted = cr_xchg_partner(&x, x.out, (char)(60 + run));
        ck_assert_int_eq(pthread_join(t, NULL), 0);
        ck_assert_msg(posted, "run %d: the exchange's receive did not wait "
                      "in the caller's record", run);
        ck_assert_int_eq(x.status, GCM_OK);
        ck_assert_int_eq(x.in, 60 + run);
        ck_assert_uint_eq(x.rec.magic, 0);
        ck_assert_ptr_eq(x.keep.port, cr_lco[0]->port);
        ck_assert_uint_eq(x.keep.env.src_id, cr_lco[0]->port->id);
        ck_assert_int_eq(x.keep.env.src_slot, 1);
        /* Between two LCOs of one process: no connection to keep. */
        ck_assert_ptr_null(x.keep.conn);
    }

    /* The reply first: taken at posting, the record left alone. */
    cr_send(1, 70);
    ck_assert_int_eq(gcm_progress(), GCM_OK);
    x.rec.magic = 0x5e5e5e5eu;
    x.out = 9;
    ck_assert_int_eq(gcm_lco_exchange_nr(cr_lco[0], &x.out, 1, &x.in, 1, 1,
                                         100, &x.keep, &x.rec), GCM_OK);
    ck_assert_int_eq(x.in, 70);
    ck_assert_uint_eq(x.rec.magic, 0x5e5e5e5eu);
    cr_recv1(9);
}
END_TEST

/* Rank 0 of a linear barrier of two (gcm_lco_fan_nr), in a thread of its
 * own, with the caller's keeps and records. */
typedef struct {
    gcm_slots_send_keep_t keeps[GCM_LCO_FAN_MAX - 1];
    struct gcm_request    recs[GCM_LCO_FAN_MAX - 1];
    gcm_status_t          status;
} cr_fan_t;

static void *cr_fan_run(void *arg)
{
    cr_fan_t *f = arg;

    f->status = gcm_lco_fan_nr(cr_lco[0], 2, 100, f->keeps, f->recs);
    return NULL;
}

/* Rank 0's arrival, when it must wait, waits in the caller's record and
 * releases it; the release goes out with the caller's keep, filled for
 * the port and slot and used again the next time. */
START_TEST(test_fan_rec)
{
    gcm_request_h req;
    cr_fan_t f;
    pthread_t t;
    double end;
    int run, posted;

    memset(&f, 0, sizeof(f));
    for (run = 0; run < 2; run++) {
        f.status = GCM_ERR_INVALID_PARAM;
        ck_assert_int_eq(pthread_create(&t, NULL, cr_fan_run, &f), 0);
        /* Rank 1 comes once rank 0 waits (generous time: a loaded
         * machine), then takes the release. */
        end = gcm_time_now() + 30.0;
        while (!(posted = cr_posted_in(&f.recs[0])) &&
               (gcm_time_now() < end)) {
            sched_yield();
        }
        ck_assert_int_eq(gcm_lco_isend_x(cr_lco[1], NULL, 0, 0, 100, 0,
                                         &req), GCM_OK);
        ck_assert_int_eq(gcm_wait(&req, NULL), GCM_OK);
        ck_assert_int_eq(gcm_lco_irecv_x(cr_lco[1], NULL, 0, 0, 100, &req),
                         GCM_OK);
        ck_assert_int_eq(gcm_wait(&req, NULL), GCM_OK);
        ck_assert_int_eq(pthread_join(t, NULL), 0);
        ck_assert_msg(posted, "run %d: the arrival did not wait in the "
                      "caller's record", run);
        ck_assert_int_eq(f.status, GCM_OK);
        ck_assert_uint_eq(f.recs[0].magic, 0);
        ck_assert_ptr_eq(f.keeps[0].port, cr_lco[0]->port);
        ck_assert_int_eq(f.keeps[0].env.src_slot, 1);
    }
}
END_TEST

static Suite *make_suite(void)
{
    const TTest *tests[] = {test_rec_receive, test_rec_waiting,
        test_rec_lco_freed, test_rec_freed_early, test_keep_rebuilt,
        test_exchange_rec, test_fan_rec, NULL};
    struct gcm_check_case cases[] = {
        {"records", .tests = tests, .timeout = 60, .setup = setup,
            .teardown = teardown},
        {0},
    };

    return gcm_check_suite("coll_rec", cases);
}
