/*
 * p2p_names: names are capabilities; stale, forged and bad ones must fail
 * cleanly, and nothing forged may ever be received.
 *
 * (a) Stale name: process 1 creates an LCO, sends its name to process 0 and
 *     frees it (a receive pending on it completes with GCM_ERR_CANCELED).
 *     Sends from process 0 to the stale name complete with
 *     GCM_ERR_NO_SUCH_LCO, the first and every later one, with a readable
 *     status string and a gcm_last_error() text naming the call. Process 1
 *     receives none of them, and world messages still get through.
 * (b) Forged LCO names: process 0 flips each byte of a valid name in turn
 *     (two ways) and sends through a fresh LCO per forgery. Each send must
 *     either be refused (GCM_ERR_BAD_TOKEN, GCM_ERR_NO_SUCH_LCO,
 *     GCM_ERR_INVALID_PARAM, GCM_ERR_PEER_FAILED) or, if the byte did not
 *     matter, arrive at the right LCO. The test does not assume where the
 *     token sits in the name, only that some byte flip hits it. Process 1
 *     checks that exactly the sends reported as delivered arrived, on the
 *     right LCO and slot, and nothing else anywhere.
 * (c) Slot names: gcm_slot_name() for receive slot 1 of a 3-slot LCO; a
 *     send slot added from it delivers to slot 1. Invalid slot indices give
 *     GCM_ERR_NO_SUCH_SLOT. Forged slot names (each byte flipped) never
 *     reach another slot of that LCO.
 * (d) Bad input returns an error, names the call in gcm_last_error() and
 *     never crashes or sends anything: NULL handles and pointers, negative
 *     counts, slots out of range, bad tags, freeing the world LCO, a second
 *     gcm_init(). gcm_status_string() matches the header for every code.
 * Needs at least 2 processes; processes past 1 only take part in finalize.
 */
#include <gencomm.h>

#include "gcm_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define A_NAME   10
#define A_FREED  11
#define A_CHECK  12
#define A_REPLY  13
#define B_NAME   20
#define B_LIST   21
#define B_RESULT 22
#define C_NAME   30
#define C_LIST   31
#define C_RESULT 32
#define D_DONE   40
#define D_REPLY  41
#define FORGED_TAG 50
#define SLOT1_TAG  77
#define MAX_IDS    256
/* Receive slots process 1 adds in (c) to catch messages aimed past slot 2. */
#define EXTRA_SLOTS 300

typedef struct {
    int n;
    int ids[MAX_IDS];
} id_list_t;

typedef struct {
    int tries;
    int bad_token;
    int no_lco;
    int other_refusal;
    int refused_at_add;
    id_list_t delivered;
} forge_result_t;

static int g_me;

/* Does text contain one of the '|'-separated names? */
static int mentions(const char *text, const char *names)
{
    char buf[256];
    char *tok;
    char *save = NULL;

    snprintf(buf, sizeof(buf), "%s", names);
    for (tok = strtok_r(buf, "|", &save); tok != NULL;
         tok = strtok_r(NULL, "|", &save)) {
        if (strstr(text, tok) != NULL) {
            return 1;
        }
    }
    return 0;
}

/*
 * A call that must fail: got is one of the accepted codes (want2 may repeat
 * want1), and gcm_last_error() names the call (calls lists the accepted
 * spellings, e.g. "gcm_send|gcm_isend" when one is built on the other).
 */
static void expect_err(const char *what, gcm_status_t got,
                       gcm_status_t want1, gcm_status_t want2,
                       const char *calls)
{
    const char *text;

    if ((got != want1) && (got != want2)) {
        gcm_test_fail("%s: returned %s, expected %s%s%s", what,
                      gcm_status_string(got), gcm_status_string(want1),
                      (want2 != want1) ? " or " : "",
                      (want2 != want1) ? gcm_status_string(want2) : "");
        return;
    }
    text = gcm_last_error();
    if ((text == NULL) || (text[0] == '\0')) {
        gcm_test_fail("%s: gcm_last_error() is empty after %s", what,
                      gcm_status_string(got));
    } else if (mentions(text, calls) == 0) {
        gcm_test_fail("%s: gcm_last_error() \"%s\" does not name %s", what,
                      text, calls);
    }
}

static int refusal_ok(gcm_status_t s)
{
    return (s == GCM_ERR_BAD_TOKEN) || (s == GCM_ERR_NO_SUCH_LCO) ||
           (s == GCM_ERR_INVALID_PARAM) || (s == GCM_ERR_PEER_FAILED);
}

static int world_send(const void *buf, size_t len, int to, int tag)
{
    return gcm_test_ok(gcm_send(gcm_world(), buf, len, to, tag), "gcm_send");
}

static int world_recv(void *buf, size_t len, int from, int tag)
{
    gcm_msg_status_t st;

    return gcm_test_ok(gcm_recv(gcm_world(), buf, len, from, tag, &st),
                       "gcm_recv");
}

/* ---- (a) stale name ---------------------------------------------------- */

static void stale_p0(void)
{
    gcm_lco_h s = NULL;
    gcm_name_t name;
    gcm_request_h req = GCM_REQUEST_NULL;
    gcm_msg_status_t st;
    gcm_status_t status;
    const char *text;
    static unsigned char big[1 << 20];
    int rslot = 0;
    int freed = 0;
    int value = 4242;
    int reply = 0;

    if ((world_recv(&name, sizeof(name), 1, A_NAME) == 0) ||
        (world_recv(&freed, sizeof(freed), 1, A_FREED) == 0)) {
        return;
    }
    if ((gcm_test_ok(gcm_lco_create(&s), "gcm_lco_create") == 0) ||
        (gcm_test_ok(gcm_lco_add_send_slots(s, 1, &name, &rslot),
                     "gcm_lco_add_send_slots(stale)") == 0)) {
        return;
    }

    /* The first send is acknowledged; here it is refused. */
    status = gcm_send(s, &value, sizeof(value), 0, 1);
    text = gcm_last_error();
    if (status != GCM_ERR_NO_SUCH_LCO) {
        gcm_test_fail("send to a freed LCO returned %s, expected %s",
                      gcm_status_string(status),
                      gcm_status_string(GCM_ERR_NO_SUCH_LCO));
    } else if ((gcm_status_string(status) == NULL) ||
               (gcm_status_string(status)[0] == '\0')) {
        gcm_test_fail("gcm_status_string(GCM_ERR_NO_SUCH_LCO) is empty");
    } else if ((text == NULL) ||
               (mentions(text, "gcm_send|gcm_isend|gcm_wait") == 0)) {
        gcm_test_fail(
            "gcm_last_error() after the stale send: \"%s\" names no call",
            (text != NULL) ? text : "(null)");
    } else {
        printf("p2p_names: stale name refused: %s; last error: %s\n",
               gcm_status_string(status), text);
    }

    /*
     * Later sends on the slot fail with the same code, either at once or
     * when waited for; a large one too.
     */
    status = gcm_isend(s, &value, sizeof(value), 0, 2, &req);
    if (status == GCM_OK) {
        status = gcm_wait(&req, &st);
    }
    if (status != GCM_ERR_NO_SUCH_LCO) {
        gcm_test_fail("second send to a freed LCO: %s",
                      gcm_status_string(status));
    }
    status = gcm_isend(s, big, sizeof(big), 0, 3, &req);
    if (status == GCM_OK) {
        status = gcm_wait(&req, &st);
    }
    if (status != GCM_ERR_NO_SUCH_LCO) {
        gcm_test_fail("large send to a freed LCO: %s",
                      gcm_status_string(status));
    }
    gcm_test_ok(gcm_lco_free(&s), "gcm_lco_free");

    /* Nothing else was lost: the world LCO still works both ways. */
    if ((world_send(&value, sizeof(value), 1, A_CHECK) != 0) &&
        (world_recv(&reply, sizeof(reply), 1, A_REPLY) != 0) &&
        (reply != value + 1)) {
        gcm_test_fail("world reply after stale sends: %d, expected %d", reply,
                      value + 1);
    }
}

static void stale_p1(void)
{
    gcm_lco_h l = NULL;
    gcm_name_t name;
    gcm_request_h req = GCM_REQUEST_NULL;
    gcm_msg_status_t st;
    gcm_stats_t before;
    gcm_stats_t after;
    gcm_status_t status;
    int buf = 0;
    int freed = 1;
    int value = 0;

    if ((gcm_test_ok(gcm_lco_create(&l), "gcm_lco_create") == 0) ||
        (gcm_test_ok(gcm_lco_add_recv_slots(l, 1), "add_recv_slots") == 0) ||
        (gcm_test_ok(gcm_lco_name(l, &name), "gcm_lco_name") == 0) ||
        (world_send(&name, sizeof(name), 0, A_NAME) == 0) ||
        (gcm_test_ok(gcm_irecv(l, &buf, sizeof(buf), 0, GCM_ANY_TAG, &req),
                     "gcm_irecv") == 0)) {
        return;
    }
    /* Freeing cancels the pending receive and clears the handle. */
    if (gcm_test_ok(gcm_lco_free(&l), "gcm_lco_free") != 0) {
        if (l != NULL) {
            gcm_test_fail("gcm_lco_free did not set the handle to NULL");
        }
        memset(&st, 0, sizeof(st));
        status = gcm_wait(&req, &st);
        if ((status != GCM_ERR_CANCELED) || (st.error != GCM_ERR_CANCELED)) {
            gcm_test_fail(
                "receive pending on a freed LCO: %s / %s, expected %s",
                gcm_status_string(status), gcm_status_string(st.error),
                gcm_status_string(GCM_ERR_CANCELED));
        }
    }
    gcm_get_stats(&before);
    if ((world_send(&freed, sizeof(freed), 0, A_FREED) == 0) ||
        (world_recv(&value, sizeof(value), 0, A_CHECK) == 0)) {
        return;
    }
    /* The refused sends were not received here: only A_CHECK was. */
    gcm_get_stats(&after);
    if (after.msgs_received - before.msgs_received != 1) {
        gcm_test_fail(
            "%llu messages received while only one world message was "
            "sent here",
            (unsigned long long)(after.msgs_received - before.msgs_received));
    }
    value++;
    world_send(&value, sizeof(value), 0, A_REPLY);
}

/* ---- (b) and (c): forged names ----------------------------------------- */

/*
 * Flip byte i of orig (with xor) for every i, each in a fresh LCO, and send
 * a message carrying id_base + i. Sorts the outcomes into res.
 */
static void forge_round(const unsigned char *orig, size_t size,
                        int is_slotname, unsigned char xor, int id_base,
                        forge_result_t *res)
{
    gcm_name_t name;
    gcm_slotname_t sname;
    gcm_lco_h f;
    gcm_status_t status;
    int rslot = 0;
    int id;
    size_t i;

    for (i = 0; i < size; i++) {
        id = id_base + (int)i;
        f = NULL;
        res->tries++;
        if (gcm_test_ok(gcm_lco_create(&f), "gcm_lco_create") == 0) {
            return;
        }
        if (is_slotname != 0) {
            memcpy(sname.bytes, orig, size);
            sname.bytes[i] ^= xor;
            status = gcm_lco_add_send_slot(f, &sname);
        } else {
            memcpy(name.bytes, orig, size);
            name.bytes[i] ^= xor;
            status = gcm_lco_add_send_slots(f, 1, &name, &rslot);
        }
        if (status != GCM_OK) {
            /* Refusing an impossible name up front is fine too. */
            if ((refusal_ok(status) == 0) &&
                (status != GCM_ERR_NO_SUCH_SLOT)) {
                gcm_test_fail("adding forged name (byte %zu ^ 0x%02x): %s", i,
                              xor, gcm_status_string(status));
            }
            res->refused_at_add++;
        } else {
            status = gcm_send(f, &id, sizeof(id), 0, FORGED_TAG);
            if (status == GCM_OK) {
                if (res->delivered.n < MAX_IDS) {
                    res->delivered.ids[res->delivered.n++] = id;
                }
            } else if (status == GCM_ERR_BAD_TOKEN) {
                res->bad_token++;
            } else if (status == GCM_ERR_NO_SUCH_LCO) {
                res->no_lco++;
            } else if ((refusal_ok(status) != 0) ||
                       ((is_slotname != 0) &&
                        (status == GCM_ERR_NO_SUCH_SLOT))) {
                res->other_refusal++;
            } else {
                gcm_test_fail(
                    "send to forged name (byte %zu ^ 0x%02x): %s (%s)", i, xor,
                    gcm_status_string(status), gcm_last_error());
            }
        }
        gcm_test_ok(gcm_lco_free(&f), "gcm_lco_free(forged)");
    }
}

static void print_forge(const char *what, const forge_result_t *res)
{
    printf("p2p_names: %s: %d forgeries: %d bad token, %d no such LCO, %d "
           "other refusals, %d refused when added, %d delivered (byte "
           "unused)\n", what, res->tries, res->bad_token, res->no_lco,
           res->other_refusal, res->refused_at_add, res->delivered.n);
}

static void forged_p0(void)
{
    gcm_name_t name;
    forge_result_t res;
    int problems = -1;
    int flag = 0;
    gcm_msg_status_t st;

    memset(&res, 0, sizeof(res));
    if (world_recv(&name, sizeof(name), 1, B_NAME) == 0) {
        return;
    }
    forge_round(name.bytes, sizeof(name.bytes), 0, 0xff, 0, &res);
    forge_round(name.bytes, sizeof(name.bytes), 0, 0x01, 100, &res);
    print_forge("forged LCO names", &res);
    if (res.bad_token == 0) {
        gcm_test_fail(
            "no byte flip of an LCO name was refused as a bad token: the "
            "name carries no checked capability");
    }
    /* No forged message may have landed in this process either. */
    if ((gcm_test_ok(
             gcm_iprobe(gcm_world(), GCM_ANY_SLOT, GCM_ANY_TAG, &flag, &st),
             "gcm_iprobe") != 0) &&
        (flag != 0)) {
        gcm_test_fail("unexpected world message (slot %d tag %d)", st.slot,
                      st.tag);
    }
    if ((world_send(&res.delivered, sizeof(res.delivered), 1, B_LIST) != 0)
        && (world_recv(&problems, sizeof(problems), 1, B_RESULT) != 0) &&
        (problems != 0)) {
        gcm_test_fail("process 1 found %d problems with forged LCO names",
                      problems);
    }
}

/*
 * Receive exactly the listed ids on lco (all on receive slot want_slot),
 * one of them possibly already in *first (a preposted receive).
 */
static int drain_listed(gcm_lco_h lco, const id_list_t *list, int want_slot,
                        gcm_request_h *first, int *first_buf)
{
    char seen[MAX_IDS * 2];
    gcm_msg_status_t st;
    gcm_status_t status;
    int problems = 0;
    int flag = 0;
    int got;
    int i;
    int j;

    memset(seen, 0, sizeof(seen));
    for (i = 0; i < list->n; i++) {
        got = -1;
        if ((first != NULL) && (*first != GCM_REQUEST_NULL)) {
            status = gcm_wait(first, &st);
            got = *first_buf;
        } else {
            status = gcm_recv(lco, &got, sizeof(got), GCM_ANY_SLOT,
                              GCM_ANY_TAG, &st);
        }
        if ((status != GCM_OK) || (st.slot != want_slot) ||
            (st.tag != FORGED_TAG) || (got < 0) || (got >= MAX_IDS * 2)) {
            gcm_test_fail(
                "delivered forged-name message: %s slot %d tag %d id %d",
                gcm_status_string(status), st.slot, st.tag, got);
            problems++;
            continue;
        }
        for (j = 0; j < list->n; j++) {
            if (list->ids[j] == got) {
                break;
            }
        }
        if ((j == list->n) || (seen[got] != 0)) {
            gcm_test_fail(
                "received forged message %d that was not reported as "
                "delivered (or twice)",
                got);
            problems++;
        }
        seen[got] = 1;
    }
    /* And nothing more: every refused forgery stayed out. */
    if ((gcm_test_ok(gcm_iprobe(lco, GCM_ANY_SLOT, GCM_ANY_TAG, &flag, &st),
                     "gcm_iprobe") != 0) &&
        (flag != 0)) {
        gcm_test_fail(
            "a refused forgery was received: slot %d tag %d, %zu bytes",
            st.slot, st.tag, st.count);
        problems++;
    }
    if ((gcm_test_ok(
             gcm_iprobe(gcm_world(), GCM_ANY_SLOT, GCM_ANY_TAG, &flag, &st),
             "gcm_iprobe(world)") != 0) &&
        (flag != 0)) {
        gcm_test_fail("unexpected world message: slot %d tag %d", st.slot,
                      st.tag);
        problems++;
    }
    return problems;
}

static void forged_p1(void)
{
    gcm_lco_h t = NULL;
    gcm_name_t name;
    gcm_request_h req = GCM_REQUEST_NULL;
    gcm_msg_status_t st;
    gcm_status_t status;
    id_list_t list;
    int buf = -1;
    int problems;
    int flag = 0;

    if ((gcm_test_ok(gcm_lco_create(&t), "gcm_lco_create") == 0) ||
        (gcm_test_ok(gcm_lco_add_recv_slots(t, 1), "add_recv_slots") == 0) ||
        (gcm_test_ok(gcm_lco_name(t, &name), "gcm_lco_name") == 0) ||
        (gcm_test_ok(gcm_irecv(t, &buf, sizeof(buf), 0, GCM_ANY_TAG, &req),
                     "gcm_irecv") == 0) ||
        (world_send(&name, sizeof(name), 0, B_NAME) == 0) ||
        (world_recv(&list, sizeof(list), 0, B_LIST) == 0)) {
        return;
    }
    if (list.n == 0) {
        /* Nothing was delivered: the preposted receive must be pending. */
        status = gcm_test(&req, &flag, &st);
        if ((flag != 0) ||
            ((status != GCM_OK) && (status != GCM_INPROGRESS))) {
            gcm_test_fail(
                "receive on the target LCO completed (%s) with slot %d tag "
                "%d id %d although no forged send was delivered",
                gcm_status_string(status), st.slot, st.tag, buf);
        }
    }
    problems = drain_listed(t, &list, 0, &req, &buf);
    gcm_test_ok(gcm_lco_free(&t), "gcm_lco_free");
    if (req != GCM_REQUEST_NULL) {
        status = gcm_wait(&req, &st);
        if (status != GCM_ERR_CANCELED) {
            gcm_test_fail("receive left on a freed LCO completed with %s",
                          gcm_status_string(status));
            problems++;
        }
    }
    world_send(&problems, sizeof(problems), 0, B_RESULT);
}

static void slotname_p0(void)
{
    gcm_slotname_t sname;
    gcm_lco_h v = NULL;
    forge_result_t res;
    int problems = -1;
    int count = -1;
    int value = 1;

    memset(&res, 0, sizeof(res));
    if (world_recv(&sname, sizeof(sname), 1, C_NAME) == 0) {
        return;
    }
    if ((gcm_test_ok(gcm_lco_create(&v), "gcm_lco_create") == 0) ||
        (gcm_test_ok(gcm_lco_add_send_slot(v, &sname),
                     "gcm_lco_add_send_slot") == 0) ||
        (gcm_test_ok(gcm_lco_num_send_slots(v, &count), "num_send_slots") ==
         0)) {
        return;
    }
    if (count != 1) {
        gcm_test_fail("gcm_lco_add_send_slot made %d send slots, expected 1",
                      count);
    }
    gcm_test_ok(gcm_send(v, &value, sizeof(value), 0, SLOT1_TAG),
                "gcm_send(slot name)");
    gcm_test_ok(gcm_lco_free(&v), "gcm_lco_free");

    forge_round(sname.bytes, sizeof(sname.bytes), 1, 0xff, 200, &res);
    forge_round(sname.bytes, sizeof(sname.bytes), 1, 0x01, 300, &res);
    print_forge("forged slot names", &res);
    if (res.bad_token == 0) {
        gcm_test_fail(
            "no byte flip of a slot name was refused as a bad token");
    }
    if ((world_send(&res.delivered, sizeof(res.delivered), 1, C_LIST) != 0)
        && (world_recv(&problems, sizeof(problems), 1, C_RESULT) != 0) &&
        (problems != 0)) {
        gcm_test_fail("process 1 found %d problems with slot names", problems);
    }
}

static void slotname_p1(void)
{
    gcm_lco_h u = NULL;
    gcm_slotname_t sname;
    gcm_msg_status_t st;
    gcm_status_t status;
    id_list_t list;
    int value = 0;
    int problems = 0;

    /* Process 0 waits for a slot name even if setting up fails here. */
    memset(&sname, 0, sizeof(sname));
    if ((gcm_test_ok(gcm_lco_create(&u), "gcm_lco_create") == 0) ||
        (gcm_test_ok(gcm_lco_add_recv_slots(u, 3), "add_recv_slots") == 0) ||
        (gcm_test_ok(gcm_slot_name(u, 1, &sname), "gcm_slot_name") == 0)) {
        world_send(&sname, sizeof(sname), 0, C_NAME);
        return;
    }
    expect_err("gcm_slot_name(slot 3 of 3)", gcm_slot_name(u, 3, &sname),
               GCM_ERR_NO_SUCH_SLOT, GCM_ERR_NO_SUCH_SLOT, "gcm_slot_name");
    expect_err("gcm_slot_name(slot 100)", gcm_slot_name(u, 100, &sname),
               GCM_ERR_NO_SUCH_SLOT, GCM_ERR_NO_SUCH_SLOT, "gcm_slot_name");
    expect_err("gcm_slot_name(slot -1)", gcm_slot_name(u, -1, &sname),
               GCM_ERR_NO_SUCH_SLOT, GCM_ERR_INVALID_PARAM, "gcm_slot_name");
    expect_err("gcm_slot_name(NULL name)", gcm_slot_name(u, 0, NULL),
               GCM_ERR_INVALID_PARAM, GCM_ERR_INVALID_PARAM, "gcm_slot_name");
    /* Fetch the name again so a failed call cannot have spoilt it. */
    if ((gcm_test_ok(gcm_slot_name(u, 1, &sname), "gcm_slot_name") == 0) ||
        (world_send(&sname, sizeof(sname), 0, C_NAME) == 0)) {
        return;
    }

    /* The genuine message arrives on slot 1 and nowhere else. */
    status = gcm_recv(u, &value, sizeof(value), GCM_ANY_SLOT, SLOT1_TAG, &st);
    if ((status != GCM_OK) || (st.slot != 1) || (value != 1)) {
        gcm_test_fail("message through the slot name: %s, slot %d, value %d",
                      gcm_status_string(status), st.slot, value);
        problems++;
    }
    if (world_recv(&list, sizeof(list), 0, C_LIST) == 0) {
        return;
    }
    /*
     * A forgery that changed the slot index could aim at a slot that does
     * not exist yet and wait there; add slots so ANY_SLOT would see it.
     */
    gcm_test_ok(gcm_lco_add_recv_slots(u, EXTRA_SLOTS), "add_recv_slots");
    problems += drain_listed(u, &list, 1, NULL, NULL);
    gcm_test_ok(gcm_lco_free(&u), "gcm_lco_free");
    world_send(&problems, sizeof(problems), 0, C_RESULT);
}

/* ---- (d) bad input ----------------------------------------------------- */

static void check_status_strings(void)
{
#define CHECK_STRING(_name, _value, _text)                       \
    if ((gcm_status_string(_name) == NULL) ||                    \
        (strcmp(gcm_status_string(_name), _text) != 0)) {        \
        gcm_test_fail("gcm_status_string(%s) is \"%s\"", #_name, \
                      (gcm_status_string(_name) != NULL)         \
                          ? gcm_status_string(_name)             \
                          : "(null)");                           \
    }
    GCM_FOREACH_STATUS(CHECK_STRING)
#undef CHECK_STRING
    if ((gcm_status_string((gcm_status_t)12345) == NULL) ||
        (gcm_status_string((gcm_status_t)-12345) == NULL) ||
        (gcm_status_string((gcm_status_t)12345)[0] == '\0')) {
        gcm_test_fail("gcm_status_string of an unknown code is NULL or empty");
    }
}

static void bad_input_p0(void)
{
    gcm_lco_h lco = NULL;
    gcm_lco_h none = NULL;
    gcm_lco_h world = gcm_world();
    gcm_name_t name;
    gcm_slotname_t sname;
    gcm_request_h req = GCM_REQUEST_NULL;
    gcm_request_h reqs[2] = { GCM_REQUEST_NULL, GCM_REQUEST_NULL };
    gcm_msg_status_t st;
    gcm_stats_t before;
    gcm_stats_t after;
    int nprocs = gcm_proc_count();
    int rslot = 0;
    int bad_rslot = -1;
    int count = -1;
    int flag = 0;
    int idx = 0;
    int buf[4] = { 1, 2, 3, 4 };
    int reply = 0;

    check_status_strings();
    gcm_get_stats(&before);

    expect_err("second gcm_init", gcm_init(NULL, NULL),
               GCM_ERR_INVALID_PARAM, GCM_ERR_INVALID_PARAM, "gcm_init");
    if (gcm_initialized() == 0) {
        gcm_test_fail(
            "gcm_initialized() is 0 after a refused second gcm_init");
    }

    /* Objects. */
    expect_err("gcm_lco_create(NULL)", gcm_lco_create(NULL),
               GCM_ERR_INVALID_PARAM, GCM_ERR_INVALID_PARAM,
               "gcm_lco_create");
    expect_err("gcm_lco_free(NULL)", gcm_lco_free(NULL),
               GCM_ERR_INVALID_PARAM, GCM_ERR_INVALID_PARAM, "gcm_lco_free");
    expect_err("gcm_lco_free(&NULL handle)", gcm_lco_free(&none),
               GCM_ERR_INVALID_PARAM, GCM_ERR_INVALID_PARAM, "gcm_lco_free");
    expect_err("gcm_lco_free(world)", gcm_lco_free(&world),
               GCM_ERR_INVALID_PARAM, GCM_ERR_BUSY, "gcm_lco_free");
    if ((world != gcm_world()) || (world == NULL)) {
        gcm_test_fail("refused gcm_lco_free(world) changed the handle");
    }
    expect_err("gcm_lco_name(NULL)", gcm_lco_name(NULL, &name),
               GCM_ERR_INVALID_PARAM, GCM_ERR_INVALID_PARAM, "gcm_lco_name");
    if (gcm_test_ok(gcm_lco_create(&lco), "gcm_lco_create") == 0) {
        return;
    }
    expect_err("gcm_lco_name(lco, NULL)", gcm_lco_name(lco, NULL),
               GCM_ERR_INVALID_PARAM, GCM_ERR_INVALID_PARAM, "gcm_lco_name");
    gcm_test_ok(gcm_lco_name(lco, &name), "gcm_lco_name");

    /* Slots. */
    expect_err("gcm_lco_add_recv_slots(NULL)",
               gcm_lco_add_recv_slots(NULL, 1), GCM_ERR_INVALID_PARAM,
               GCM_ERR_INVALID_PARAM, "gcm_lco_add_recv_slots");
    expect_err("gcm_lco_add_recv_slots(-1)", gcm_lco_add_recv_slots(lco, -1),
               GCM_ERR_INVALID_PARAM, GCM_ERR_INVALID_PARAM,
               "gcm_lco_add_recv_slots");
    expect_err("gcm_lco_add_send_slots(NULL lco)",
               gcm_lco_add_send_slots(NULL, 1, &name, &rslot),
               GCM_ERR_INVALID_PARAM, GCM_ERR_INVALID_PARAM,
               "gcm_lco_add_send_slots");
    expect_err("gcm_lco_add_send_slots(count -1)",
               gcm_lco_add_send_slots(lco, -1, &name, &rslot),
               GCM_ERR_INVALID_PARAM, GCM_ERR_INVALID_PARAM,
               "gcm_lco_add_send_slots");
    expect_err("gcm_lco_add_send_slots(NULL names)",
               gcm_lco_add_send_slots(lco, 1, NULL, &rslot),
               GCM_ERR_INVALID_PARAM, GCM_ERR_INVALID_PARAM,
               "gcm_lco_add_send_slots");
    expect_err("gcm_lco_add_send_slots(NULL rslots)",
               gcm_lco_add_send_slots(lco, 1, &name, NULL),
               GCM_ERR_INVALID_PARAM, GCM_ERR_INVALID_PARAM,
               "gcm_lco_add_send_slots");
    expect_err("gcm_lco_add_send_slots(rslot -1)",
               gcm_lco_add_send_slots(lco, 1, &name, &bad_rslot),
               GCM_ERR_INVALID_PARAM, GCM_ERR_NO_SUCH_SLOT,
               "gcm_lco_add_send_slots");
    expect_err("gcm_lco_add_send_slot(NULL name)",
               gcm_lco_add_send_slot(lco, NULL), GCM_ERR_INVALID_PARAM,
               GCM_ERR_INVALID_PARAM, "gcm_lco_add_send_slot");
    memset(&sname, 0, sizeof(sname));
    expect_err("gcm_lco_add_send_slot(NULL lco)",
               gcm_lco_add_send_slot(NULL, &sname), GCM_ERR_INVALID_PARAM,
               GCM_ERR_INVALID_PARAM, "gcm_lco_add_send_slot");
    expect_err("gcm_slot_name(NULL lco)", gcm_slot_name(NULL, 0, &sname),
               GCM_ERR_INVALID_PARAM, GCM_ERR_INVALID_PARAM, "gcm_slot_name");
    expect_err("gcm_slot_name(no receive slots)", gcm_slot_name(lco, 0,
                                                                 &sname),
               GCM_ERR_NO_SUCH_SLOT, GCM_ERR_NO_SUCH_SLOT, "gcm_slot_name");
    expect_err("gcm_lco_num_send_slots(NULL)",
               gcm_lco_num_send_slots(NULL, &count), GCM_ERR_INVALID_PARAM,
               GCM_ERR_INVALID_PARAM, "gcm_lco_num_send_slots");
    expect_err("gcm_lco_num_send_slots(lco, NULL)",
               gcm_lco_num_send_slots(lco, NULL), GCM_ERR_INVALID_PARAM,
               GCM_ERR_INVALID_PARAM, "gcm_lco_num_send_slots");
    expect_err("gcm_lco_num_recv_slots(NULL)",
               gcm_lco_num_recv_slots(NULL, &count), GCM_ERR_INVALID_PARAM,
               GCM_ERR_INVALID_PARAM, "gcm_lco_num_recv_slots");
    expect_err("gcm_lco_num_recv_slots(lco, NULL)",
               gcm_lco_num_recv_slots(lco, NULL), GCM_ERR_INVALID_PARAM,
               GCM_ERR_INVALID_PARAM, "gcm_lco_num_recv_slots");
    /* Counts of zero are allowed (the seed: count >= 0) and add nothing. */
    gcm_test_ok(gcm_lco_add_recv_slots(lco, 0), "gcm_lco_add_recv_slots(0)");
    if ((gcm_test_ok(gcm_lco_num_send_slots(lco, &count), "num_send") != 0) &&
        (count != 0)) {
        gcm_test_fail("failed gcm_lco_add_send_slots calls left %d send slots",
                      count);
    }
    if ((gcm_test_ok(gcm_lco_num_recv_slots(lco, &count), "num_recv") != 0) &&
        (count != 0)) {
        gcm_test_fail(
            "failed or empty gcm_lco_add_recv_slots calls left %d receive "
            "slots",
            count);
    }

    /* Sends. */
    expect_err("gcm_send(NULL lco)", gcm_send(NULL, buf, 4, 0, 0),
               GCM_ERR_INVALID_PARAM, GCM_ERR_INVALID_PARAM,
               "gcm_send|gcm_isend");
    expect_err("gcm_send(slot nprocs)", gcm_send(world, buf, 4, nprocs, 0),
               GCM_ERR_NO_SUCH_SLOT, GCM_ERR_NO_SUCH_SLOT,
               "gcm_send|gcm_isend");
    expect_err("gcm_send(slot 1000000)", gcm_send(world, buf, 4, 1000000, 0),
               GCM_ERR_NO_SUCH_SLOT, GCM_ERR_NO_SUCH_SLOT,
               "gcm_send|gcm_isend");
    expect_err("gcm_send(slot -1)", gcm_send(world, buf, 4, -1, 0),
               GCM_ERR_NO_SUCH_SLOT, GCM_ERR_INVALID_PARAM,
               "gcm_send|gcm_isend");
    expect_err("gcm_send(LCO without send slots)",
               gcm_send(lco, buf, 4, 0, 0), GCM_ERR_NO_SUCH_SLOT,
               GCM_ERR_NO_SUCH_SLOT, "gcm_send|gcm_isend");
    expect_err("gcm_send(tag -1)", gcm_send(world, buf, 4, 1, -1),
               GCM_ERR_INVALID_PARAM, GCM_ERR_INVALID_PARAM,
               "gcm_send|gcm_isend");
    expect_err("gcm_send(tag GCM_TAG_UB + 1)",
               gcm_send(world, buf, 4, 1, GCM_TAG_UB + 1),
               GCM_ERR_INVALID_PARAM, GCM_ERR_INVALID_PARAM,
               "gcm_send|gcm_isend");
    expect_err("gcm_send(NULL buffer, 16 bytes)",
               gcm_send(world, NULL, 16, 1, 0), GCM_ERR_INVALID_PARAM,
               GCM_ERR_INVALID_PARAM, "gcm_send|gcm_isend");
    expect_err("gcm_isend(NULL request)",
               gcm_isend(world, buf, 4, 1, 0, NULL), GCM_ERR_INVALID_PARAM,
               GCM_ERR_INVALID_PARAM, "gcm_isend");

    /* Receives and probes. */
    expect_err("gcm_irecv(NULL request)",
               gcm_irecv(world, buf, 4, 1, 0, NULL), GCM_ERR_INVALID_PARAM,
               GCM_ERR_INVALID_PARAM, "gcm_irecv");
    expect_err("gcm_irecv(NULL lco)", gcm_irecv(NULL, buf, 4, 0, 0, &req),
               GCM_ERR_INVALID_PARAM, GCM_ERR_INVALID_PARAM, "gcm_irecv");
    expect_err("gcm_irecv(slot nprocs)",
               gcm_irecv(world, buf, 4, nprocs, 0, &req),
               GCM_ERR_NO_SUCH_SLOT, GCM_ERR_NO_SUCH_SLOT, "gcm_irecv");
    expect_err("gcm_irecv(slot -2)", gcm_irecv(world, buf, 4, -2, 0, &req),
               GCM_ERR_NO_SUCH_SLOT, GCM_ERR_INVALID_PARAM, "gcm_irecv");
    expect_err("gcm_irecv(tag -2)", gcm_irecv(world, buf, 4, 1, -2, &req),
               GCM_ERR_INVALID_PARAM, GCM_ERR_INVALID_PARAM, "gcm_irecv");
    expect_err("gcm_irecv(NULL buffer, 16 bytes)",
               gcm_irecv(world, NULL, 16, 1, 0, &req), GCM_ERR_INVALID_PARAM,
               GCM_ERR_INVALID_PARAM, "gcm_irecv");
    expect_err("gcm_irecv(LCO without receive slots)",
               gcm_irecv(lco, buf, 4, 0, 0, &req), GCM_ERR_NO_SUCH_SLOT,
               GCM_ERR_NO_SUCH_SLOT, "gcm_irecv");
    expect_err("gcm_recv(tag GCM_TAG_UB + 1)",
               gcm_recv(world, buf, 4, 1, GCM_TAG_UB + 1, &st),
               GCM_ERR_INVALID_PARAM, GCM_ERR_INVALID_PARAM,
               "gcm_recv|gcm_irecv");
    if (req != GCM_REQUEST_NULL) {
        gcm_test_fail("a refused gcm_irecv set the request handle");
    }
    expect_err("gcm_iprobe(NULL lco)",
               gcm_iprobe(NULL, 0, 0, &flag, &st), GCM_ERR_INVALID_PARAM,
               GCM_ERR_INVALID_PARAM, "gcm_iprobe");
    expect_err("gcm_iprobe(NULL flag)",
               gcm_iprobe(world, 1, 0, NULL, &st), GCM_ERR_INVALID_PARAM,
               GCM_ERR_INVALID_PARAM, "gcm_iprobe");
    expect_err("gcm_iprobe(slot nprocs)",
               gcm_iprobe(world, nprocs, 0, &flag, &st),
               GCM_ERR_NO_SUCH_SLOT, GCM_ERR_NO_SUCH_SLOT, "gcm_iprobe");
    expect_err("gcm_iprobe(tag -5)", gcm_iprobe(world, 1, -5, &flag, &st),
               GCM_ERR_INVALID_PARAM, GCM_ERR_INVALID_PARAM, "gcm_iprobe");
    expect_err("gcm_probe(slot nprocs)",
               gcm_probe(world, nprocs, 0, &st), GCM_ERR_NO_SUCH_SLOT,
               GCM_ERR_NO_SUCH_SLOT, "gcm_probe|gcm_iprobe");

    /* Completion. */
    expect_err("gcm_wait(NULL)", gcm_wait(NULL, &st), GCM_ERR_INVALID_PARAM,
               GCM_ERR_INVALID_PARAM, "gcm_wait");
    expect_err("gcm_test(NULL)", gcm_test(NULL, &flag, &st),
               GCM_ERR_INVALID_PARAM, GCM_ERR_INVALID_PARAM, "gcm_test");
    expect_err("gcm_test(NULL flag)", gcm_test(&req, NULL, &st),
               GCM_ERR_INVALID_PARAM, GCM_ERR_INVALID_PARAM, "gcm_test");
    expect_err("gcm_waitall(-1)", gcm_waitall(-1, reqs, NULL),
               GCM_ERR_INVALID_PARAM, GCM_ERR_INVALID_PARAM, "gcm_waitall");
    expect_err("gcm_waitall(NULL array)", gcm_waitall(2, NULL, NULL),
               GCM_ERR_INVALID_PARAM, GCM_ERR_INVALID_PARAM, "gcm_waitall");
    expect_err("gcm_waitany(-1)", gcm_waitany(-1, reqs, &idx, &st),
               GCM_ERR_INVALID_PARAM, GCM_ERR_INVALID_PARAM, "gcm_waitany");
    expect_err("gcm_waitany(NULL index)", gcm_waitany(2, reqs, NULL, &st),
               GCM_ERR_INVALID_PARAM, GCM_ERR_INVALID_PARAM, "gcm_waitany");
    /* A NULL request is complete: waiting for it succeeds at once. */
    gcm_test_ok(gcm_wait(&req, NULL), "gcm_wait(GCM_REQUEST_NULL)");
    /* Void, but must not crash. */
    gcm_get_stats(NULL);

    /* None of that sent anything. */
    gcm_get_stats(&after);
    if ((after.msgs_sent_remote != before.msgs_sent_remote) ||
        (after.msgs_sent_local != before.msgs_sent_local) ||
        (after.control_sent != before.control_sent) ||
        (after.msgs_received != before.msgs_received)) {
        gcm_test_fail("refused calls changed the message counters");
    }
    gcm_test_ok(gcm_lco_free(&lco), "gcm_lco_free");

    /* The world LCO survived all of it. */
    if ((world_send(buf, sizeof(buf), 1, D_DONE) != 0) &&
        (world_recv(&reply, sizeof(reply), 1, D_REPLY) != 0) &&
        (reply != buf[0] + buf[3])) {
        gcm_test_fail("world reply after bad input: %d", reply);
    }
}

static void bad_input_p1(void)
{
    int buf[4];
    int reply;

    if (world_recv(buf, sizeof(buf), 0, D_DONE) != 0) {
        reply = buf[0] + buf[3];
        world_send(&reply, sizeof(reply), 0, D_REPLY);
    }
}

int main(int argc, char **argv)
{
    gcm_status_t status;
    int peer_failures = 0;
    int mine;

    if (!gcm_test_init(&argc, &argv, "p2p_names")) {
        return 1;
    }
    g_me = gcm_proc_rank();
    if (gcm_proc_count() < 2) {
        gcm_test_fail("needs at least 2 processes");
    } else if (g_me == 0) {
        stale_p0();
        printf("p2p_names: (a) stale name: %s\n",
               (gcm_test_failed() == 0) ? "ok" : "FAILED");
        forged_p0();
        printf("p2p_names: (b) forged LCO names: %s\n",
               (gcm_test_failed() == 0) ? "ok" : "FAILED");
        slotname_p0();
        printf("p2p_names: (c) slot names: %s\n",
               (gcm_test_failed() == 0) ? "ok" : "FAILED");
        bad_input_p0();
        printf("p2p_names: (d) bad input: %s\n",
               (gcm_test_failed() == 0) ? "ok" : "FAILED");
        /* Process 1's own failures, to report them in one place. */
        world_recv(&peer_failures, sizeof(peer_failures), 1, D_REPLY + 1);
        if (peer_failures != 0) {
            gcm_test_fail("process 1 had %d failed checks", peer_failures);
        }
        if (gcm_test_failed() == 0) {
            printf("p2p_names: all checks passed\n");
        }
    } else if (g_me == 1) {
        stale_p1();
        forged_p1();
        slotname_p1();
        bad_input_p1();
        mine = gcm_test_failed();
        world_send(&mine, sizeof(mine), 0, D_REPLY + 1);
    }
    fflush(stdout);
    status = gcm_finalize();
    if (status != GCM_OK) {
        fprintf(stderr, "p2p_names: P%d: gcm_finalize: %s\n", g_me,
                gcm_status_string(status));
        return 1;
    }
    return (gcm_test_failed() == 0) ? 0 : 1;
}
