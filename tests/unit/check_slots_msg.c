/*
 * tests/unit/check_slots_msg.c: the case "messages" of check_slots, in
 * one process (singleton): synchronous sends, cancel, matched probes
 * (improbe, imrecv), handlers that take messages in order and may send,
 * offers. Its list is gcm_check_slots_msg_tests (check_slots.h); the
 * suite is made in check_slots.c.
 */
#include "config.h"

#include "lco/lco.h"
#include "slots/slots_impl.h"
#include "check_slots.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

START_TEST(test_slots_sync_send_waits_for_receive)
{
    gcm_lco_h rx, tx, world = gcm_world();
    gcm_request_h sreq, rreq;
    gcm_msg_status_t st;
    int a = 3, v = 0, flag = 1;

    gcm_check_slots_pair(1, &rx, &tx);
    /* Small enough to be copied, were it not synchronous. */
    ck_assert_int_eq(gcm_lco_isend_x(tx, &a, sizeof(a), 0, 9,
                                     GCM_LCO_SEND_SYNC, &sreq), GCM_OK);
    ck_assert(!gcm_lco_req_done(sreq));
    ck_assert_int_eq(gcm_test(&sreq, &flag, NULL), GCM_OK);
    ck_assert_int_eq(flag, 0);
    /* Arrived (a probe sees it) is not matched. */
    ck_assert_int_eq(gcm_iprobe(rx, 0, 9, &flag, &st), GCM_OK);
    ck_assert_int_eq(flag, 1);
    ck_assert(!gcm_lco_req_done(sreq));
    ck_assert_int_eq(gcm_irecv(rx, &v, sizeof(v), 0, 9, &rreq), GCM_OK);
    ck_assert(gcm_lco_req_done(sreq));
    ck_assert_int_eq(gcm_wait(&sreq, NULL), GCM_OK);
    ck_assert_int_eq(gcm_wait(&rreq, &st), GCM_OK);
    ck_assert_int_eq(v, 3);

    /* A receive posted first matches at once. */
    ck_assert_int_eq(gcm_irecv(rx, &v, sizeof(v), 0, 9, &rreq), GCM_OK);
    ck_assert_int_eq(gcm_lco_isend_x(tx, &a, sizeof(a), 0, 9,
                                     GCM_LCO_SEND_SYNC, &sreq), GCM_OK);
    ck_assert(gcm_lco_req_done(sreq));
    ck_assert_int_eq(gcm_waitall(1, &sreq, NULL), GCM_OK);
    ck_assert_int_eq(gcm_wait(&rreq, NULL), GCM_OK);

    /* The world (a pattern) to itself. */
    ck_assert_int_eq(gcm_lco_isend_x(world, &a, sizeof(a), 0, GCM_CHECK_SLOTS_ITAG,
                                     GCM_LCO_SEND_SYNC, &sreq), GCM_OK);
    ck_assert(!gcm_lco_req_done(sreq));
    ck_assert_int_eq(gcm_lco_irecv_x(world, &v, sizeof(v), 0, GCM_CHECK_SLOTS_ITAG, &rreq),
                     GCM_OK);
    ck_assert_int_eq(gcm_wait(&sreq, NULL), GCM_OK);
    ck_assert_int_eq(gcm_wait(&rreq, NULL), GCM_OK);

    /* Refused: completes with the refusal. */
    ck_assert_int_eq(gcm_lco_free(&rx), GCM_OK);
    ck_assert_int_eq(gcm_lco_isend_x(tx, &a, sizeof(a), 0, 9,
                                     GCM_LCO_SEND_SYNC, &sreq), GCM_OK);
    ck_assert_int_eq(gcm_wait(&sreq, NULL), GCM_ERR_NO_SUCH_LCO);
}
END_TEST

START_TEST(test_slots_sync_send_to_freed_lco_while_queued)
{
    gcm_lco_h rx, tx;
    gcm_request_h sreq;
    int a = 3;

    gcm_check_slots_pair(1, &rx, &tx);
    ck_assert_int_eq(gcm_lco_isend_x(tx, &a, sizeof(a), 0, 9,
                                     GCM_LCO_SEND_SYNC, &sreq), GCM_OK);
    ck_assert(!gcm_lco_req_done(sreq));
    ck_assert_int_eq(gcm_lco_free(&rx), GCM_OK);
    ck_assert_int_eq(gcm_wait(&sreq, NULL), GCM_ERR_NO_SUCH_LCO);
}
END_TEST

START_TEST(test_slots_cancel)
{
    gcm_lco_h rx, tx;
    gcm_request_h r1, r2, sreq;
    gcm_msg_status_t st;
    int v = 0, w = 0, a = 8;

    gcm_check_slots_pair(1, &rx, &tx);
    ck_assert_int_eq(gcm_irecv(rx, &v, sizeof(v), 0, 1, &r1), GCM_OK);
    ck_assert_int_eq(gcm_irecv(rx, &w, sizeof(w), 0, 1, &r2), GCM_OK);
    ck_assert_int_eq(gcm_lco_cancel(r1), GCM_OK);
    ck_assert(gcm_lco_req_done(r1));
    ck_assert_int_eq(gcm_lco_cancel(r1), GCM_ERR_BUSY);
    ck_assert_ptr_nonnull(strstr(gcm_last_error(), "gcm_lco_cancel"));
    ck_assert_int_eq(gcm_wait(&r1, &st), GCM_ERR_CANCELED);
    ck_assert_int_eq(st.error, GCM_ERR_CANCELED);
    /* The message goes to the receive still posted. */
    ck_assert_int_eq(gcm_send(tx, &a, sizeof(a), 0, 1), GCM_OK);
    ck_assert(gcm_lco_req_done(r2));
    ck_assert_int_eq(gcm_lco_cancel(r2), GCM_ERR_BUSY);
    ck_assert_int_eq(gcm_wait(&r2, NULL), GCM_OK);
    ck_assert_int_eq(v, 0);
    ck_assert_int_eq(w, 8);
    /* Sends cannot be cancelled. */
    ck_assert_int_eq(gcm_isend(tx, &a, sizeof(a), 0, 1, &sreq), GCM_OK);
    ck_assert_int_eq(gcm_lco_cancel(sreq), GCM_ERR_INVALID_PARAM);
    ck_assert_ptr_nonnull(strstr(gcm_last_error(), "gcm_lco_cancel"));
    ck_assert_int_eq(gcm_wait(&sreq, NULL), GCM_OK);
    ck_assert_int_eq(gcm_lco_cancel(NULL), GCM_ERR_INVALID_PARAM);
    ck_assert(gcm_lco_req_done(GCM_REQUEST_NULL));
}
END_TEST

static int req_is_done(void *arg)
{
    return gcm_lco_req_done(*(gcm_request_h *)arg);
}

START_TEST(test_slots_improbe_imrecv)
{
    gcm_lco_h rx, tx, other, other_tx;
    gcm_request_h big_s, sync_s, rreq;
    gcm_message_h m1, m2, m3, none = NULL, left;
    gcm_msg_status_t st;
    size_t big = 4 << 20;
    char *src = malloc(big), *dst = calloc(1, big);
    char small[4];
    int flag = 0, a = 5, v = 0;
    size_t i;

    ck_assert_ptr_nonnull(src);
    ck_assert_ptr_nonnull(dst);
    for (i = 0; i < big; i++) {
        src[i] = (char)(i * 13);
    }
    gcm_check_slots_pair(1, &rx, &tx);
    ck_assert_int_eq(gcm_send(tx, "0123456789", 10, 0, 1), GCM_OK);
    ck_assert_int_eq(gcm_isend(tx, src, big, 0, 2, &big_s), GCM_OK);
    ck_assert_int_eq(gcm_lco_isend_x(tx, &a, sizeof(a), 0, 3,
                                     GCM_LCO_SEND_SYNC, &sync_s), GCM_OK);

    /* Takes the second message: nothing else can receive it now. */
    ck_assert_int_eq(gcm_lco_improbe(rx, 0, 2, &flag, &m2, &st), GCM_OK);
    ck_assert_int_eq(flag, 1);
    ck_assert_ptr_nonnull(m2);
    ck_assert_int_eq(st.count, big);
    ck_assert_int_eq(st.tag, 2);
    ck_assert_int_eq(gcm_iprobe(rx, 0, 2, &flag, NULL), GCM_OK);
    ck_assert_int_eq(flag, 0);
    ck_assert_int_eq(gcm_lco_improbe(rx, 0, 2, &flag, &none, NULL), GCM_OK);
    ck_assert_int_eq(flag, 0);
    ck_assert_ptr_null(none);
    ck_assert_int_eq(gcm_lco_improbe(rx, GCM_ANY_SLOT, GCM_ANY_TAG, &flag,
                                     &m1, &st), GCM_OK);
    ck_assert_int_eq(flag, 1);
    ck_assert_int_eq(st.tag, 1);
    ck_assert_int_eq(st.count, 10);

    /* Large, same process: copied from the sender's buffer, whose send
     * completes then. */
    ck_assert(!gcm_lco_req_done(big_s));
    ck_assert_int_eq(gcm_lco_imrecv(rx, m2, dst, big, &rreq), GCM_OK);
    ck_assert_int_eq(gcm_wait(&rreq, &st), GCM_OK);
    ck_assert_int_eq(st.count, big);
    ck_assert(memcmp(dst, src, big) == 0);
    ck_assert_int_eq(gcm_wait(&big_s, NULL), GCM_OK);

    /* Truncated: the first bytes and the error. */
    ck_assert_int_eq(gcm_lco_imrecv(rx, m1, small, sizeof(small), &rreq),
                     GCM_OK);
    ck_assert_int_eq(gcm_wait(&rreq, &st), GCM_ERR_TRUNCATED);
    ck_assert_int_eq(st.count, sizeof(small));
    ck_assert_mem_eq(small, "0123", 4);

    /* Synchronous: matched by the probe is not received; imrecv is. */
    ck_assert_int_eq(gcm_lco_improbe(rx, 0, 3, &flag, &m3, &st), GCM_OK);
    ck_assert_int_eq(flag, 1);
    ck_assert(!gcm_lco_req_done(sync_s));
    /* A handle belongs to the LCO it was matched on. */
    gcm_check_slots_pair(1, &other, &other_tx);
    ck_assert_int_eq(gcm_lco_imrecv(other, m3, &v, sizeof(v), &rreq),
                     GCM_ERR_INVALID_PARAM);
    ck_assert_ptr_nonnull(strstr(gcm_last_error(), "gcm_lco_imrecv"));
    ck_assert_int_eq(gcm_lco_imrecv(rx, m3, &v, sizeof(v), &rreq), GCM_OK);
    gcm_lco_wait_until(req_is_done, &sync_s);
    ck_assert_int_eq(gcm_wait(&sync_s, NULL), GCM_OK);
    ck_assert_int_eq(gcm_wait(&rreq, NULL), GCM_OK);
    ck_assert_int_eq(v, 5);

    /* One left matched and never received: finalize releases it. */
    ck_assert_int_eq(gcm_send(tx, &a, sizeof(a), 0, 4), GCM_OK);
    ck_assert_int_eq(gcm_lco_improbe(rx, 0, 4, &flag, &left, NULL), GCM_OK);
    ck_assert_int_eq(flag, 1);
    ck_assert_int_eq(gcm_lco_improbe(rx, 0, 4, &flag, NULL, NULL),
                     GCM_ERR_INVALID_PARAM);
    free(src);
    free(dst);
}
END_TEST

/* Handler state for the handler tests: a log of what arrived. */
typedef struct hlog {
    int    n;
    int    tags[16];
    size_t lens[16];
    int    first[16];     /* first int of the data */
    int    progress_seen; /* a nested gcm_progress ran no handler */
} hlog_t;

static void log_handler(gcm_lco_h lco, int slot, int tag, const void *data,
                        size_t len, void *arg)
{
    hlog_t *log = arg;
    int n = log->n;

    (void)lco;
    ck_assert_int_eq(slot, 1);
    ck_assert_int_lt(n, 16);
    log->tags[n]  = tag;
    log->lens[n]  = len;
    log->first[n] = -1;
    if (len >= sizeof(int)) {
        memcpy(&log->first[n], data, sizeof(int));
    }
    log->n = n + 1;
    /* Re-entry: progressing here must not run the next handler inside
     * this one. */
    ck_assert_int_eq(gcm_progress(), GCM_OK);
    ck_assert_int_eq(log->n, n + 1);
}

START_TEST(test_slots_handler_takes_messages_in_order)
{
    gcm_lco_h rx, tx;
    hlog_t log;
    size_t big = 64 * 1024;
    int *large = calloc(big / sizeof(int), sizeof(int));
    gcm_request_h req;
    gcm_msg_status_t st;
    int v, flag, i;

    memset(&log, 0, sizeof(log));
    ck_assert_ptr_nonnull(large);
    gcm_check_slots_pair(2, &rx, &tx);
    /* Queued before the handler is set: handed to it, in order. */
    v = 1;
    ck_assert_int_eq(gcm_send(tx, &v, sizeof(v), 1, 11), GCM_OK);
    ck_assert_int_eq(gcm_lco_set_handler(rx, 1, log_handler, &log), GCM_OK);
    ck_assert_int_eq(gcm_progress(), GCM_OK);
    ck_assert_int_eq(log.n, 1);
    ck_assert_int_eq(log.tags[0], 11);
    /* Small, large (stays in the sender's buffer until the handler ran),
     * small: in order. */
    v = 2;
    ck_assert_int_eq(gcm_send(tx, &v, sizeof(v), 1, 12), GCM_OK);
    large[0] = 3;
    ck_assert_int_eq(gcm_isend(tx, large, big, 1, 13, &req), GCM_OK);
    v = 4;
    ck_assert_int_eq(gcm_send(tx, &v, sizeof(v), 1, 14), GCM_OK);
    ck_assert_int_eq(gcm_wait(&req, NULL), GCM_OK);
    for (i = 0; (i < 100) && (log.n < 4); i++) {
        ck_assert_int_eq(gcm_progress(), GCM_OK);
    }
    ck_assert_int_eq(log.n, 4);
    for (i = 1; i < 4; i++) {
        ck_assert_int_eq(log.tags[i], 11 + i);
        ck_assert_int_eq(log.first[i], 1 + i);
    }
    ck_assert_uint_eq(log.lens[2], big);
    /* A synchronous send completes when the handler has run. */
    v = 5;
    ck_assert_int_eq(gcm_lco_isend_x(tx, &v, sizeof(v), 1, 15,
                                     GCM_LCO_SEND_SYNC, &req), GCM_OK);
    ck_assert_int_eq(gcm_wait(&req, NULL), GCM_OK);
    ck_assert_int_eq(log.n, 5);
    /* Slot 0 has no handler: receives as usual; nothing probes slot 1. */
    v = 6;
    ck_assert_int_eq(gcm_send(tx, &v, sizeof(v), 0, 16), GCM_OK);
    ck_assert_int_eq(gcm_recv(rx, &v, sizeof(v), GCM_ANY_SLOT, GCM_ANY_TAG,
                              &st), GCM_OK);
    ck_assert_int_eq(st.slot, 0);
    ck_assert_int_eq(gcm_iprobe(rx, 1, GCM_ANY_TAG, &flag, NULL), GCM_OK);
    ck_assert_int_eq(flag, 0);
    /* Removed: messages are queued for receives again. */
    ck_assert_int_eq(gcm_lco_set_handler(rx, 1, NULL, NULL), GCM_OK);
    v = 7;
    ck_assert_int_eq(gcm_send(tx, &v, sizeof(v), 1, 17), GCM_OK);
    ck_assert_int_eq(gcm_recv(rx, &v, sizeof(v), 1, 17, &st), GCM_OK);
    ck_assert_int_eq(v, 7);
    ck_assert_int_eq(log.n, 5);
    /* Bad arguments. */
    ck_assert_int_eq(gcm_lco_set_handler(rx, 2, log_handler, &log),
                     GCM_ERR_NO_SUCH_SLOT);
    ck_assert_int_eq(gcm_lco_set_handler(NULL, 0, log_handler, &log),
                     GCM_ERR_INVALID_PARAM);
    ck_assert_int_eq(gcm_lco_free(&tx), GCM_OK);
    ck_assert_int_eq(gcm_lco_free(&rx), GCM_OK);
    free(large);
}
END_TEST

/* A handler that sends: the echo goes to another LCO of this process
 * (which takes the destination's lock: no lock may be held here). */
static void echo_handler(gcm_lco_h lco, int slot, int tag, const void *data,
                         size_t len, void *arg)
{
    (void)slot;
    (void)arg;
    ck_assert_int_eq(gcm_send(lco, data, len, 0, tag), GCM_OK);
}

START_TEST(test_slots_handler_may_send)
{
    gcm_lco_h rx, tx;
    gcm_name_t name;
    int rslot = 0, v = 42, w = 0;
    gcm_msg_status_t st;

    gcm_check_slots_pair(1, &rx, &tx);
    /* rx's send slot 0 goes back to tx's receive slot 0. */
    ck_assert_int_eq(gcm_lco_add_recv_slots(tx, 1), GCM_OK);
    ck_assert_int_eq(gcm_lco_name(tx, &name), GCM_OK);
    ck_assert_int_eq(gcm_lco_add_send_slots(rx, 1, &name, &rslot), GCM_OK);
    ck_assert_int_eq(gcm_lco_set_handler(rx, 0, echo_handler, NULL), GCM_OK);
    ck_assert_int_eq(gcm_send(tx, &v, sizeof(v), 0, 5), GCM_OK);
    ck_assert_int_eq(gcm_recv(tx, &w, sizeof(w), 0, 5, &st), GCM_OK);
    ck_assert_int_eq(w, 42);
    ck_assert_int_eq(gcm_lco_free(&tx), GCM_OK);
    ck_assert_int_eq(gcm_lco_free(&rx), GCM_OK);
}
END_TEST

START_TEST(test_slots_offer_and_accept)
{
    gcm_lco_h a, b, target, user;
    unsigned char junk[GCM_SLOTNAME_SIZE];
    gcm_slotname_t forged;
    int slot = -1, v = 9, w = 0;

    /* a -> b is the existing path that carries the name. */
    gcm_check_slots_pair(1, &b, &a);
    ck_assert_int_eq(gcm_lco_create(&target), GCM_OK);
    ck_assert_int_eq(gcm_lco_add_recv_slots(target, 2), GCM_OK);
    ck_assert_int_eq(gcm_lco_create(&user), GCM_OK);
    ck_assert_int_eq(gcm_lco_offer(a, 0, 3, target, 1), GCM_OK);
    ck_assert_int_eq(gcm_lco_accept_offer(b, 0, 3, user, &slot), GCM_OK);
    ck_assert_int_eq(slot, 0);
    ck_assert_int_eq(gcm_send(user, &v, sizeof(v), slot, 1), GCM_OK);
    ck_assert_int_eq(gcm_recv(target, &w, sizeof(w), 1, 1, NULL), GCM_OK);
    ck_assert_int_eq(w, 9);
    /* Bytes that are no slot name. */
    memset(junk, 0x5a, sizeof(junk));
    ck_assert_int_eq(gcm_send(a, junk, sizeof(junk), 0, 3), GCM_OK);
    ck_assert_int_eq(gcm_lco_accept_offer(b, 0, 3, user, &slot),
                     GCM_ERR_INVALID_PARAM);
    ck_assert_int_eq(gcm_send(a, junk, 4, 0, 3), GCM_OK);
    ck_assert_int_eq(gcm_lco_accept_offer(b, 0, 3, user, &slot),
                     GCM_ERR_INVALID_PARAM);
    /* A forged token (bytes 20..27 of the layout): the slot is added,
     * its first send is refused by the target. */
    ck_assert_int_eq(gcm_slot_name(target, 0, &forged), GCM_OK);
    forged.bytes[20] ^= 0xff;
    ck_assert_int_eq(gcm_send(a, forged.bytes, sizeof(forged.bytes), 0, 3),
                     GCM_OK);
    ck_assert_int_eq(gcm_lco_accept_offer(b, 0, 3, user, &slot), GCM_OK);
    ck_assert_int_eq(slot, 1);
    ck_assert_int_eq(gcm_send(user, &v, sizeof(v), slot, 1),
                     GCM_ERR_BAD_TOKEN);
    /* A bad offer: no such slot on the target. */
    ck_assert_int_eq(gcm_lco_offer(a, 0, 3, target, 5), GCM_ERR_NO_SUCH_SLOT);
    ck_assert_int_eq(gcm_lco_free(&user), GCM_OK);
    ck_assert_int_eq(gcm_lco_free(&target), GCM_OK);
    ck_assert_int_eq(gcm_lco_free(&a), GCM_OK);
    ck_assert_int_eq(gcm_lco_free(&b), GCM_OK);
}
END_TEST

const TTest *const *gcm_check_slots_msg_tests(void)
{
    static const TTest *tests[8];
    const TTest *list[] = {test_slots_sync_send_waits_for_receive,
        test_slots_sync_send_to_freed_lco_while_queued, test_slots_cancel,
        test_slots_improbe_imrecv, test_slots_handler_takes_messages_in_order,
        test_slots_handler_may_send, test_slots_offer_and_accept, NULL};

    memcpy(tests, list, sizeof(list));
    return tests;
}
