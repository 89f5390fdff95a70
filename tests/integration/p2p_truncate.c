/*
 * p2p_truncate: a receive buffer shorter than the message.
 *
 * For each case (message length, buffer length), from 100 B into 10 B up to
 * 8 MiB into 100 B, the sender sends two messages of the same length on one
 * edge. The receiver takes the first into the short buffer and must get
 * GCM_ERR_TRUNCATED, a status count equal to the buffer length, the correct
 * first bytes, and no byte written past the buffer; a probe beforehand
 * reports the full length. The second message must then arrive intact: a
 * truncation loses nothing but the tail of its own message. The sender's
 * requests complete with GCM_OK, as in MPI, since the sender did nothing
 * wrong. Runs over the world LCO between processes 0 and 1, and over an
 * LCO that sends to itself in process 0 (the same-process path).
 */
#include <gencomm.h>

#include "gcm_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GUARD_SIZE 64
#define GUARD_BYTE 0x5a
#define DONE_TAG   1000

typedef struct {
    size_t msg_len;
    size_t buf_len;
} trunc_case_t;

static const trunc_case_t g_cases[] = {
    { 100, 10 },
    { 5, 0 },
    { 4097, 4096 },
    { 65536, 1024 },
    { 1 << 20, 1024 },
    { 1 << 20, (1 << 20) - 1 },
    { 8 << 20, 100 },
};
#define NUM_CASES ((int)(sizeof(g_cases) / sizeof(g_cases[0])))

static int g_me;

static unsigned char pattern(int tag, size_t i)
{
    return (unsigned char)((unsigned)tag * 131u + i * 13u + (i >> 9));
}

static unsigned char *make_msg(int tag, size_t len)
{
    unsigned char *buf = malloc((len > 0) ? len : 1);
    size_t i;

    if (buf != NULL) {
        for (i = 0; i < len; i++) {
            buf[i] = pattern(tag, i);
        }
    }
    return buf;
}

static size_t first_bad(const unsigned char *buf, int tag, size_t len)
{
    size_t i;

    for (i = 0; i < len; i++) {
        if (buf[i] != pattern(tag, i)) {
            return i;
        }
    }
    return (size_t)-1;
}

/*
 * Start the two messages of every case on send slot `slot` of lco. Message
 * 2c is the one to be truncated, 2c+1 the one that must arrive whole.
 */
static int start_sends(gcm_lco_h lco, int slot, unsigned char **bufs,
                       gcm_request_h *reqs)
{
    int c;
    int j;
    int tag;

    for (c = 0; c < NUM_CASES; c++) {
        for (j = 0; j < 2; j++) {
            tag = 2 * c + j;
            bufs[tag] = make_msg(tag, g_cases[c].msg_len);
            if (bufs[tag] == NULL) {
                gcm_test_fail("out of memory");
                return -1;
            }
            if (gcm_isend(lco, bufs[tag], g_cases[c].msg_len, slot, tag,
                          &reqs[tag]) != GCM_OK) {
                gcm_test_fail("gcm_isend tag %d: %s", tag, gcm_last_error());
                return -1;
            }
        }
    }
    return 0;
}

static int finish_sends(unsigned char **bufs, gcm_request_h *reqs)
{
    gcm_msg_status_t sts[2 * NUM_CASES];
    gcm_status_t status;
    int i;

    status = gcm_waitall(2 * NUM_CASES, reqs, sts);
    for (i = 0; i < 2 * NUM_CASES; i++) {
        if (sts[i].error != GCM_OK) {
            gcm_test_fail(
                "send of message %d (%zu bytes) completed with %s; the "
                "receiver's short buffer is not the sender's error",
                i, g_cases[i / 2].msg_len, gcm_status_string(sts[i].error));
        }
        free(bufs[i]);
    }
    if (status != GCM_OK) {
        gcm_test_fail("gcm_waitall(sends): %s", gcm_status_string(status));
        return -1;
    }
    return 0;
}

/* Receive every case on receive slot `slot` of lco; path names the edge. */
static void receive_cases(gcm_lco_h lco, int slot, const char *path)
{
    gcm_msg_status_t st;
    gcm_status_t status;
    gcm_request_h req;
    unsigned char *buf;
    size_t bad;
    size_t len;
    size_t i;
    int c;

    for (c = 0; c < NUM_CASES; c++) {
        len = g_cases[c].msg_len;
        buf = malloc(len + GUARD_SIZE);
        if (buf == NULL) {
            gcm_test_fail("out of memory");
            return;
        }

        /* The probe reports the whole message, not what will fit. */
        memset(&st, 0, sizeof(st));
        status = gcm_probe(lco, slot, GCM_ANY_TAG, &st);
        if ((status != GCM_OK) || (st.tag != 2 * c) || (st.count != len) ||
            (st.slot != slot)) {
            gcm_test_fail(
                "%s case %d: probe: %s, slot %d tag %d count %zu (expected "
                "tag %d count %zu)",
                path, c, gcm_status_string(status), st.slot, st.tag, st.count,
                2 * c, len);
        }

        /* Truncated receive; odd cases go through irecv + wait. */
        memset(buf, GUARD_BYTE, len + GUARD_SIZE);
        memset(&st, 0, sizeof(st));
        if ((c % 2) == 0) {
            status = gcm_recv(lco, buf, g_cases[c].buf_len, slot,
                              GCM_ANY_TAG, &st);
        } else {
            status = gcm_irecv(lco, buf, g_cases[c].buf_len, slot,
                               GCM_ANY_TAG, &req);
            if (status == GCM_OK) {
                status = gcm_wait(&req, &st);
            }
        }
        if ((status != GCM_ERR_TRUNCATED) ||
            (st.error != GCM_ERR_TRUNCATED) ||
            (st.count != g_cases[c].buf_len) || (st.tag != 2 * c) ||
            (st.slot != slot)) {
            gcm_test_fail(
                "%s case %d (%zu B into %zu B): returned %s, status error "
                "%s count %zu tag %d slot %d",
                path, c, len, g_cases[c].buf_len, gcm_status_string(status),
                gcm_status_string(st.error), st.count, st.tag, st.slot);
        }
        bad = first_bad(buf, 2 * c, g_cases[c].buf_len);
        if (bad != (size_t)-1) {
            gcm_test_fail("%s case %d: truncated data wrong at byte %zu", path,
                          c, bad);
        }
        for (i = g_cases[c].buf_len; i < len + GUARD_SIZE; i++) {
            if (buf[i] != GUARD_BYTE) {
                gcm_test_fail(
                    "%s case %d: byte %zu past the %zu-byte buffer was "
                    "written",
                    path, c, i, g_cases[c].buf_len);
                break;
            }
        }

        /* The next message on the edge arrives whole. */
        memset(buf, GUARD_BYTE, len + GUARD_SIZE);
        memset(&st, 0, sizeof(st));
        status = gcm_recv(lco, buf, len + GUARD_SIZE, slot, GCM_ANY_TAG,
                          &st);
        if ((status != GCM_OK) || (st.error != GCM_OK) || (st.count != len)
            || (st.tag != 2 * c + 1)) {
            gcm_test_fail(
                "%s case %d: message after the truncated one: %s, count "
                "%zu tag %d (expected %zu, tag %d)",
                path, c, gcm_status_string(status), st.count, st.tag, len,
                2 * c + 1);
        } else if ((bad = first_bad(buf, 2 * c + 1, len)) != (size_t)-1) {
            gcm_test_fail(
                "%s case %d: message after the truncated one corrupt at "
                "byte %zu",
                path, c, bad);
        }
        free(buf);
        if (gcm_test_failed() == 0) {
            printf("p2p_truncate: %s: %zu B into %zu B truncated, next "
                   "message intact\n", path, len, g_cases[c].buf_len);
        }
    }
}

/* Process 0 sends to itself through an LCO: the same-process path. */
static void self_edge(void)
{
    unsigned char *bufs[2 * NUM_CASES];
    gcm_request_h reqs[2 * NUM_CASES];
    gcm_lco_h lco = NULL;
    gcm_name_t name;
    int rslot = 0;

    if ((gcm_lco_create(&lco) != GCM_OK) ||
        (gcm_lco_add_recv_slots(lco, 1) != GCM_OK) ||
        (gcm_lco_name(lco, &name) != GCM_OK) ||
        (gcm_lco_add_send_slots(lco, 1, &name, &rslot) != GCM_OK)) {
        gcm_test_fail("setting up the self edge: %s", gcm_last_error());
        return;
    }
    memset(bufs, 0, sizeof(bufs));
    if (start_sends(lco, 0, bufs, reqs) != 0) {
        return;
    }
    receive_cases(lco, 0, "self");
    finish_sends(bufs, reqs);
    if (gcm_lco_free(&lco) != GCM_OK) {
        gcm_test_fail("gcm_lco_free: %s", gcm_last_error());
    }
}

int main(int argc, char **argv)
{
    unsigned char *bufs[2 * NUM_CASES];
    gcm_request_h reqs[2 * NUM_CASES];
    gcm_msg_status_t st;
    gcm_status_t status;
    int done = 0;

    if (!gcm_test_init(&argc, &argv, "p2p_truncate")) {
        return 1;
    }
    g_me = gcm_proc_rank();
    if (gcm_proc_count() < 2) {
        gcm_test_fail("needs at least 2 processes");
    } else if (g_me == 0) {
        memset(bufs, 0, sizeof(bufs));
        if (start_sends(gcm_world(), 1, bufs, reqs) == 0) {
            finish_sends(bufs, reqs);
        }
        self_edge();
        /* Wait until process 1 has checked everything. */
        if (gcm_recv(gcm_world(), &done, sizeof(done), 1, DONE_TAG, &st) !=
            GCM_OK) {
            gcm_test_fail("gcm_recv(done): %s", gcm_last_error());
        } else if (done != 0) {
            gcm_test_fail("process 1 reported %d failed checks", done);
        }
        if (gcm_test_failed() == 0) {
            printf("p2p_truncate: all checks passed\n");
        }
    } else if (g_me == 1) {
        receive_cases(gcm_world(), 0, "world");
        done = gcm_test_failed();
        if (gcm_send(gcm_world(), &done, sizeof(done), 0, DONE_TAG) !=
            GCM_OK) {
            gcm_test_fail("gcm_send(done): %s", gcm_last_error());
        }
    }
    fflush(stdout);
    if (gcm_test_failed() != 0) {
        return 1;
    }
    status = gcm_finalize();
    if (status != GCM_OK) {
        fprintf(stderr, "p2p_truncate: gcm_finalize: %s\n",
                gcm_status_string(status));
        return 1;
    }
    return 0;
}
