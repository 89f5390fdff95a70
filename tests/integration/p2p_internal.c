/*
 * p2p_internal: the internal calls the MPI layer uses, between two
 * processes on the world LCO (internal header, internal library).
 *
 *   1. synchronous sends, eager (16 B) and rendezvous (1 MiB): the send
 *      is not complete while the message waits, arrived but unmatched, at
 *      the receiver; it completes once the receiver (200 ms later) posts
 *      its receive. Checked by order, not by time: the receiver probes
 *      until the message has arrived, says so, and posts its receive only
 *      when the sender, having seen the send incomplete, says go.
 *   2. tags above GCM_TAG_UB: a GCM_ANY_TAG receive or probe skips them;
 *      a receive naming the tag takes them.
 *   3. matched probes: improbe takes messages (16 B, 1 MiB, and a
 *      synchronous one) out of the queue, imrecv receives them; the
 *      synchronous sender completes at imrecv, not at improbe.
 *   4. transfers posted with GCM_LCO_XFER_NOREQ: a 16-byte send over
 *      shared memory and a receive of a 16-byte message that waits
 *      already hand out no request (the receive's status comes back);
 *      a 1 MiB send, a receive posted before its message is sent and a
 *      receive that truncates get requests as without the flag (the
 *      truncation is reported by the wait); NOREQ without a status is
 *      refused; a waiting synchronous message taken by a NOREQ wildcard
 *      receive hands out no request and its sender completes.
 *   5. a message for a pattern LCO (derived id) that the receiver makes
 *      only later, with a token the receiver holds only later (as the
 *      members of connect and accept learn the intercommunicator's token
 *      from their root, after the root may already have sent on what it
 *      derived from it): the receiver gets it once it makes the LCO; one
 *      for such an LCO made here with another token is refused. Ordered,
 *      not timed: both go on the world's endpoint before the world
 *      message that tells process 1 the identities and tokens.
 *
 * Process 0 sends, process 1 receives; more processes idle.
 */
#include "config.h"

#include "lco/lco.h"

#include "gcm_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NOTE_TAG  1     /* receiver to sender: arrived / probed / checked */
#define GO_TAG    2     /* sender to receiver: post your receive now */
#define USER_TAG  5
#define ITAG      (GCM_TAG_UB + 100)
#define BIG       (1024 * 1024)
#define SMALL     16
#define EARLY_TAG 6
#define EARLY_ID   0x8000e417u  /* derived (high bit): may arrive early */
#define EARLY_ID2  0x8000e418u

typedef struct {
    uint64_t token;     /* the token of the LCO EARLY_ID */
    uint64_t token2;    /* a token for EARLY_ID2 other than its sender's */
} early_t;

static int g_me;

static void fill(char *buf, size_t len, int seed)
{
    size_t i;

    for (i = 0; i < len; i++) {
        buf[i] = (char)(i * 31 + (size_t)seed);
    }
}

static int check(const char *buf, size_t len, int seed)
{
    size_t i;

    for (i = 0; i < len; i++) {
        if (buf[i] != (char)(i * 31 + (size_t)seed)) {
            return 0;
        }
    }
    return 1;
}

static void note(gcm_lco_h w, int to, int tag)
{
    char c = 'n';

    gcm_test_ok(gcm_send(w, &c, 1, to, tag), "notification send");
}

static void await(gcm_lco_h w, int from, int tag)
{
    char c;

    gcm_test_ok(gcm_recv(w, &c, 1, from, tag, NULL), "notification receive");
}

/* Progresses a while and checks that req has not completed. */
static void expect_pending(gcm_request_h *req, const char *what)
{
    int i, flag = 0;

    for (i = 0; i < 2000; i++) {
        gcm_progress();
        if (gcm_lco_req_done(*req)) {
            gcm_test_fail("%s: complete before the receiver matched it", what);
            return;
        }
    }
    gcm_test_ok(gcm_test(req, &flag, NULL), "gcm_test");
    if (flag) {
        gcm_test_fail(
            "%s: gcm_test says complete before the receiver matched it", what);
    }
}

/* ---- 1: synchronous sends ----------------------------------------------- */

static void sync_sender(gcm_lco_h w, char *buf, size_t len, int tag)
{
    gcm_request_h req;

    fill(buf, len, (int)len);
    if (!gcm_test_ok(
            gcm_lco_isend_x(w, buf, len, 1, tag, GCM_LCO_SEND_SYNC, &req),
            "sync send")) {
        return;
    }
    await(w, 1, NOTE_TAG);      /* it has arrived, unmatched */
    expect_pending(&req, "sync send");
    note(w, 1, GO_TAG);
    if (req != GCM_REQUEST_NULL) {
        gcm_test_ok(gcm_wait(&req, NULL), "sync send wait");
    }
    printf("p2p_internal: sync %zu bytes: pending until matched, then "
           "complete\n", len);
}

static void sync_receiver(gcm_lco_h w, char *buf, size_t len, int tag)
{
    gcm_msg_status_t st;
    gcm_request_h req;
    int flag = 0;

    while (!flag) {
        if (!gcm_test_ok(gcm_lco_iprobe_x(w, 0, tag, &flag, &st),
                         "iprobe_x")) {
            return;
        }
    }
    if (st.count != len) {
        gcm_test_fail("probe of the sync message: %zu bytes, expected %zu",
                      st.count, len);
    }
    note(w, 0, NOTE_TAG);
    await(w, 0, GO_TAG);
    usleep(200000);
    memset(buf, 0, len);
    if (gcm_test_ok(gcm_lco_irecv_x(w, buf, len, 0, tag, &req),
                    "sync receive") &&
        gcm_test_ok(gcm_wait(&req, &st), "sync receive wait") &&
        !check(buf, len, (int)len)) {
        gcm_test_fail("sync message of %zu bytes corrupted", len);
    }
}

/* ---- 2: internal tags ---------------------------------------------------- */

static void itag_sender(gcm_lco_h w)
{
    gcm_request_h req;
    int a = 111, b = 222;

    if (gcm_test_ok(gcm_lco_isend_x(w, &a, sizeof(a), 1, ITAG, 0, &req),
                    "internal-tag send")) {
        gcm_test_ok(gcm_wait(&req, NULL), "internal-tag send wait");
    }
    gcm_test_ok(gcm_send(w, &b, sizeof(b), 1, USER_TAG), "user send");
    await(w, 1, NOTE_TAG);
}

static void itag_receiver(gcm_lco_h w)
{
    gcm_msg_status_t st;
    gcm_request_h req;
    int v = 0, flag = 0;

    /* Both have arrived once the second has (one connection, in order). */
    while (!flag) {
        if (!gcm_test_ok(gcm_lco_iprobe_x(w, 0, USER_TAG, &flag, NULL),
                         "iprobe_x")) {
            return;
        }
    }
    gcm_test_ok(gcm_recv(w, &v, sizeof(v), GCM_ANY_SLOT, GCM_ANY_TAG, &st),
                "wildcard receive");
    if ((v != 222) || (st.tag != USER_TAG)) {
        gcm_test_fail("wildcard receive got %d tag %d, expected 222 tag %d", v,
                      st.tag, USER_TAG);
    }
    gcm_test_ok(gcm_lco_iprobe_x(w, GCM_ANY_SLOT, GCM_ANY_TAG, &flag, NULL),
                "iprobe_x");
    if (flag) {
        gcm_test_fail("a wildcard probe sees an internal tag");
    }
    if (gcm_test_ok(gcm_lco_irecv_x(w, &v, sizeof(v), 0, ITAG, &req),
                    "internal-tag receive") &&
        gcm_test_ok(gcm_wait(&req, &st), "internal-tag receive wait") &&
        ((v != 111) || (st.tag != ITAG))) {
        gcm_test_fail("internal-tag receive got %d tag %d", v, st.tag);
    }
    printf("p2p_internal: internal tags: skipped by GCM_ANY_TAG, taken by "
           "name\n");
    note(w, 0, NOTE_TAG);
}

/* ---- 3: matched probes --------------------------------------------------- */

static void mprobe_sender(gcm_lco_h w, char *big)
{
    gcm_request_h reqs[3];
    char small[SMALL], s3[SMALL];

    fill(small, SMALL, 1);
    fill(big, BIG, 2);
    fill(s3, SMALL, 3);
    gcm_test_ok(gcm_isend(w, small, SMALL, 1, 11, &reqs[0]), "send 16 B");
    gcm_test_ok(gcm_isend(w, big, BIG, 1, 12, &reqs[1]), "send 1 MiB");
    gcm_test_ok(
        gcm_lco_isend_x(w, s3, SMALL, 1, 13, GCM_LCO_SEND_SYNC, &reqs[2]),
        "sync send 16 B");
    await(w, 1, NOTE_TAG);      /* all three matched by improbe */
    expect_pending(&reqs[2], "sync send taken by improbe");
    note(w, 1, GO_TAG);
    gcm_test_ok(gcm_waitall(3, reqs, NULL), "waitall");
    await(w, 1, NOTE_TAG);
}

static void mprobe_receiver(gcm_lco_h w, char *big)
{
    gcm_message_h m1 = NULL, m2 = NULL, m3 = NULL, none = NULL;
    gcm_msg_status_t st, sts[3];
    gcm_request_h reqs[3];
    char small[SMALL], s3[SMALL];
    int flag = 0;

    while (!flag) {
        if (!gcm_test_ok(gcm_lco_improbe(w, 0, 12, &flag, &m2, &st),
                         "improbe 1 MiB")) {
            return;
        }
    }
    if (st.count != BIG) {
        gcm_test_fail("improbe of 1 MiB reports %zu bytes", st.count);
    }
    /* The 16-byte one was sent first, so it is there already. */
    gcm_test_ok(gcm_lco_improbe(w, GCM_ANY_SLOT, GCM_ANY_TAG, &flag, &m1, &st),
                "improbe any");
    if (!flag || (st.tag != 11) || (st.count != SMALL)) {
        gcm_test_fail("improbe(ANY, ANY) found %d, tag %d, %zu bytes", flag,
                      st.tag, st.count);
        return;
    }
    for (flag = 0; !flag;) {
        if (!gcm_test_ok(gcm_lco_improbe(w, 0, 13, &flag, &m3, &st),
                         "improbe sync")) {
            return;
        }
    }
    gcm_test_ok(gcm_lco_improbe(w, 0, 12, &flag, &none, NULL),
                "improbe again");
    if (flag) {
        gcm_test_fail("a message taken by improbe was found again");
    }
    note(w, 0, NOTE_TAG);
    await(w, 0, GO_TAG);
    usleep(200000);
    memset(big, 0, BIG);
    gcm_test_ok(gcm_lco_imrecv(w, m2, big, BIG, &reqs[0]), "imrecv 1 MiB");
    gcm_test_ok(gcm_lco_imrecv(w, m1, small, SMALL, &reqs[1]), "imrecv 16 B");
    gcm_test_ok(gcm_lco_imrecv(w, m3, s3, SMALL, &reqs[2]), "imrecv sync");
    if (gcm_test_ok(gcm_waitall(3, reqs, sts), "imrecv waitall")) {
        if ((sts[0].count != BIG) || !check(big, BIG, 2)) {
            gcm_test_fail("1 MiB matched message corrupted (%zu bytes)",
                          sts[0].count);
        }
        if (!check(small, SMALL, 1) || !check(s3, SMALL, 3)) {
            gcm_test_fail("16-byte matched messages corrupted");
        }
    }
    printf("p2p_internal: matched probes: 16 B, 1 MiB and sync received\n");
    note(w, 0, NOTE_TAG);
}

/* ---- 4: transfers complete at posting hand out no request -------------- */

static void noreq_sender(gcm_lco_h w, char *big)
{
    gcm_request_h req = GCM_REQUEST_NULL;
    char small[SMALL];

    fill(small, SMALL, 4);
    if (gcm_test_ok(gcm_lco_isend_x(w, small, SMALL, 1, 31,
                                    GCM_LCO_XFER_NOREQ, &req),
                    "NOREQ send 16 B") && (req != GCM_REQUEST_NULL)) {
        gcm_test_fail("a 16-byte send over shared memory returned a "
                      "request though it was complete when posted");
        gcm_test_ok(gcm_wait(&req, NULL), "NOREQ send 16 B wait");
    }
    fill(big, BIG, 5);
    if (gcm_test_ok(gcm_lco_isend_x(w, big, BIG, 1, 32, GCM_LCO_XFER_NOREQ,
                                    &req), "NOREQ send 1 MiB")) {
        if (req == GCM_REQUEST_NULL) {
            gcm_test_fail("a 1 MiB send returned no request though its "
                          "receiver had not read it");
        } else {
            gcm_test_ok(gcm_wait(&req, NULL), "NOREQ send 1 MiB wait");
        }
    }
    await(w, 1, NOTE_TAG);      /* its receive of tag 33 is posted */
    gcm_test_ok(gcm_send(w, small, SMALL, 1, 33), "send 16 B tag 33");
    gcm_test_ok(gcm_send(w, small, SMALL, 1, 34), "send 16 B tag 34");
    /* A synchronous message that waits: the receive that takes it
     * without a request still tells this sender of the match. */
    fill(small, SMALL, 6);
    if (gcm_test_ok(gcm_lco_isend_x(w, small, SMALL, 1, 35,
                                    GCM_LCO_SEND_SYNC, &req),
                    "sync send 16 B tag 35")) {
        gcm_test_ok(gcm_wait(&req, NULL), "sync send 16 B tag 35 wait");
    }
    await(w, 1, NOTE_TAG);
}

static void noreq_receiver(gcm_lco_h w, char *big)
{
    gcm_request_h req = GCM_REQUEST_NULL;
    gcm_msg_status_t st;
    char small[SMALL], tiny[SMALL / 2];
    int flag = 0;

    if (gcm_lco_irecv_xf(w, small, SMALL, 0, 31, GCM_LCO_XFER_NOREQ, NULL,
                         &req) != GCM_ERR_INVALID_PARAM) {
        gcm_test_fail("a NOREQ receive without a status was not refused");
    }
    while (!flag) {
        if (!gcm_test_ok(gcm_lco_iprobe_x(w, 0, 31, &flag, NULL),
                         "iprobe_x")) {
            return;
        }
    }
    memset(small, 0, SMALL);
    memset(&st, 0, sizeof(st));
    if (gcm_test_ok(gcm_lco_irecv_xf(w, small, SMALL, 0, 31,
                                     GCM_LCO_XFER_NOREQ, &st, &req),
                    "NOREQ receive of a waiting message")) {
        if (req != GCM_REQUEST_NULL) {
            gcm_test_fail("a receive of a waiting 16-byte message returned "
                          "a request");
            gcm_test_ok(gcm_wait(&req, &st), "NOREQ receive wait");
        } else if ((st.count != SMALL) || (st.tag != 31) || (st.slot != 0) ||
                   !check(small, SMALL, 4)) {
            gcm_test_fail("NOREQ receive: %zu bytes, tag %d, slot %d, "
                          "data %s", st.count, st.tag, st.slot,
                          check(small, SMALL, 4) ? "right" : "corrupted");
        }
    }
    memset(big, 0, BIG);
    if (gcm_test_ok(gcm_lco_irecv_xf(w, big, BIG, 0, 32, GCM_LCO_XFER_NOREQ,
                                     &st, &req), "NOREQ receive 1 MiB") &&
        (req != GCM_REQUEST_NULL)) {
        gcm_test_ok(gcm_wait(&req, &st), "NOREQ receive 1 MiB wait");
    }
    if ((st.count != BIG) || !check(big, BIG, 5)) {
        gcm_test_fail("NOREQ 1 MiB message corrupted (%zu bytes)", st.count);
    }
    /* Nothing is sent on tag 33 before the note: a request. */
    if (gcm_test_ok(gcm_lco_irecv_xf(w, small, SMALL, 0, 33,
                                     GCM_LCO_XFER_NOREQ, &st, &req),
                    "NOREQ receive posted early")) {
        if (req == GCM_REQUEST_NULL) {
            gcm_test_fail("a receive posted before its message was sent "
                          "returned no request");
        }
        note(w, 0, NOTE_TAG);
        if (req != GCM_REQUEST_NULL) {
            gcm_test_ok(gcm_wait(&req, &st), "early receive wait");
        }
    }
    /* A waiting message larger than the buffer: the error is kept. */
    for (flag = 0; !flag;) {
        if (!gcm_test_ok(gcm_lco_iprobe_x(w, 0, 34, &flag, NULL),
                         "iprobe_x")) {
            return;
        }
    }
    if (gcm_test_ok(gcm_lco_irecv_xf(w, tiny, sizeof(tiny), 0, 34,
                                     GCM_LCO_XFER_NOREQ, &st, &req),
                    "NOREQ truncating receive")) {
        if (req == GCM_REQUEST_NULL) {
            gcm_test_fail("a truncating receive returned no request: its "
                          "error is lost");
        } else if (gcm_wait(&req, &st) != GCM_ERR_TRUNCATED) {
            gcm_test_fail("a truncating NOREQ receive did not report "
                          "GCM_ERR_TRUNCATED");
        }
    }
    /* A waiting synchronous message, taken by a wildcard: no request,
     * and the sender completes. */
    for (flag = 0; !flag;) {
        if (!gcm_test_ok(gcm_lco_iprobe_x(w, 0, 35, &flag, NULL),
                         "iprobe_x")) {
            return;
        }
    }
    memset(small, 0, SMALL);
    if (gcm_test_ok(gcm_lco_irecv_xf(w, small, SMALL, GCM_ANY_SLOT,
                                     GCM_ANY_TAG, GCM_LCO_XFER_NOREQ, &st,
                                     &req), "NOREQ receive of a sync "
                    "message")) {
        if (req != GCM_REQUEST_NULL) {
            gcm_test_fail("a receive of a waiting synchronous 16-byte "
                          "message returned a request");
            gcm_test_ok(gcm_wait(&req, &st), "NOREQ sync receive wait");
        } else if ((st.count != SMALL) || (st.tag != 35) ||
                   (st.slot != 0) || (st.error != GCM_OK) ||
                   !check(small, SMALL, 6)) {
            gcm_test_fail("NOREQ sync receive: %zu bytes, tag %d, slot %d, "
                          "error %d, data %s", st.count, st.tag, st.slot,
                          (int)st.error,
                          check(small, SMALL, 6) ? "right" : "corrupted");
        }
    }
    printf("p2p_internal: NOREQ: done at posting without a request, "
           "others with one\n");
    note(w, 0, NOTE_TAG);
}

/* ---- 5: a message that comes before its LCO's token ------------------- */

static const int early_procs[2] = { 0, 1 };

static gcm_lco_h early_lco(uint32_t id, uint64_t token)
{
    gcm_lco_h lco = NULL;

    /* Home 0: the world's endpoint, whose messages stay in order. */
    gcm_test_ok(gcm_lco_create_pattern_x(id, 1, 0, token, 2, early_procs,
                                         g_me, &lco),
                "gcm_lco_create_pattern_x");
    return lco;
}

static void early_sender(gcm_lco_h w)
{
    early_t e = { 0x7e57e417c0ffee01ULL, 0x7e57e417c0ffee03ULL };
    gcm_lco_h p = early_lco(EARLY_ID, e.token);
    gcm_lco_h q = early_lco(EARLY_ID2, 0x7e57e417c0ffee02ULL);
    int v = 4242;

    if ((p == NULL) || (q == NULL)) {
        return;
    }
    gcm_test_ok(gcm_send(p, &v, sizeof(v), 1, EARLY_TAG), "early send");
    gcm_test_ok(gcm_send(q, &v, sizeof(v), 1, EARLY_TAG),
                "early send, other token");
    gcm_test_ok(gcm_send(w, &e, sizeof(e), 1, EARLY_TAG), "tokens send");
    await(w, 1, NOTE_TAG);
    gcm_test_ok(gcm_lco_free(&p), "gcm_lco_free");
    gcm_test_ok(gcm_lco_free(&q), "gcm_lco_free");
}

static void early_receiver(gcm_lco_h w)
{
    gcm_request_h req = GCM_REQUEST_NULL;
    gcm_msg_status_t st;
    gcm_lco_h p, q;
    early_t e;
    int v = 0, flag = 0, i;

    /* Both early messages were taken before this one. */
    if (!gcm_test_ok(gcm_recv(w, &e, sizeof(e), 0, EARLY_TAG, NULL),
                     "tokens receive")) {
        return;
    }
    p = early_lco(EARLY_ID, e.token);
    q = early_lco(EARLY_ID2, e.token2);
    if ((p != NULL) && (q != NULL) &&
        gcm_test_ok(gcm_irecv(p, &v, sizeof(v), 0, EARLY_TAG, &req),
                    "early receive")) {
        /* It waited here already: a few rounds of progress at most. */
        for (i = 0; (i < 100000) && !flag; i++) {
            gcm_test_ok(gcm_test(&req, &flag, NULL), "gcm_test");
        }
        if (!flag) {
            gcm_test_fail("a message for an LCO made after it arrived, "
                          "with a token held only then, was lost");
        } else if (v != 4242) {
            gcm_test_fail("early message: got %d, want 4242", v);
        }
        if (flag) {
            gcm_test_ok(gcm_iprobe(q, GCM_ANY_SLOT, GCM_ANY_TAG, &flag, &st),
                        "iprobe");
            if (flag) {
                gcm_test_fail("a message with another LCO's token was "
                              "delivered");
            } else {
                printf("p2p_internal: early message for a token held "
                       "later: kept, delivered; with another token: "
                       "refused\n");
            }
        }
    }
    note(w, 0, NOTE_TAG);
    /* Freeing cancels the receive if its message never came. */
    if (p != NULL) {
        gcm_test_ok(gcm_lco_free(&p), "gcm_lco_free");
    }
    if (q != NULL) {
        gcm_test_ok(gcm_lco_free(&q), "gcm_lco_free");
    }
    if ((req != GCM_REQUEST_NULL) && !flag) {
        gcm_wait(&req, NULL);
    }
}

int main(int argc, char **argv)
{
    gcm_lco_h w;
    char *big;

    gcm_test_prog = "p2p_internal";
    if (!gcm_test_ok(gcm_init(&argc, &argv), "gcm_init")) {
        return 1;
    }
    g_me = gcm_proc_rank();
    w = gcm_world();
    big = malloc(BIG);
    if (big == NULL) {
        gcm_test_fail("no memory");
    } else if (gcm_proc_count() < 2) {
        gcm_test_fail("needs 2 processes");
    } else if (g_me == 0) {
        sync_sender(w, big, SMALL, ITAG + 1);
        sync_sender(w, big, BIG, 21);
        itag_sender(w);
        mprobe_sender(w, big);
        noreq_sender(w, big);
        early_sender(w);
    } else if (g_me == 1) {
        sync_receiver(w, big, SMALL, ITAG + 1);
        sync_receiver(w, big, BIG, 21);
        itag_receiver(w);
        mprobe_receiver(w, big);
        noreq_receiver(w, big);
        early_receiver(w);
    }
    free(big);
    if (gcm_finalize() != GCM_OK) {
        gcm_test_fail("gcm_finalize failed");
    }
    if ((g_me == 0) && (gcm_test_failed() == 0)) {
        printf("p2p_internal: all checks passed\n");
    }
    return (gcm_test_failed() == 0) ? 0 : 1;
}
