/*
 * p2p_wildcards: receives and probes with GCM_ANY_SLOT and GCM_ANY_TAG,
 * gcm_waitany, gcm_waitall, gcm_test and the fields of gcm_msg_status_t.
 *
 * Process 0 owns an LCO R with two receive slots per other process; process
 * r (r >= 1) owns an LCO S whose send slots 0 and 1 target R[2(r-1)] and
 * R[2(r-1)+1]. Every message has a unique tag that encodes (phase, sender,
 * send slot, k) and a size and content derived from the tag, mixing empty,
 * eager and rendezvous sizes. Process 0 releases each phase with a "go"
 * message over the world LCO:
 *   1. probe(ANY, ANY) then iprobe(slot, tag), then receive exactly that
 *      message: the probe reports slot, tag and full count beforehand.
 *   2. receive(slot, ANY_TAG) slot by slot, last slot first, after a
 *      probe(slot, ANY_TAG): per-slot order holds whatever the slot order.
 *   3. receive(ANY_SLOT, tag) in reverse send order: tags pick messages.
 *   4. preposted receives (slot, ANY_TAG) completed through gcm_waitany.
 *   5. three preposted receives that all match the first message
 *      (ANY_SLOT+tag, slot+ANY_TAG, ANY+ANY): the one posted first gets
 *      it, checked through gcm_waitall (with a NULL request in the array).
 * Needs at least 2 processes (3 exercises two senders).
 */
#include <gencomm.h>

#include "gcm_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GO_TAG     7
#define NAME_TAG   8
#define DONE_TAG   9
#define K          4    /* messages per send slot and phase */
#define NPHASES    5
#define MAX_SIZE   (300 * 1024)

static int g_me;

static int make_tag(int phase, int r, int s, int k)
{
    return phase * 100000 + r * 100 + s * 10 + k;
}

static void split_tag(int tag, int *phase, int *r, int *s, int *k)
{
    *phase = tag / 100000;
    *r = (tag / 100) % 1000;
    *s = (tag / 10) % 10;
    *k = tag % 10;
}

/* Sizes cycle through empty, tiny, eager and rendezvous. */
static size_t tag_size(int tag)
{
    static const size_t sizes[] = { 0, 1, 13, 100, 4096, 70000, MAX_SIZE };

    return sizes[(unsigned)tag % (sizeof(sizes) / sizeof(sizes[0]))];
}

static void fill(unsigned char *buf, int tag)
{
    size_t len = tag_size(tag);
    size_t i;

    for (i = 0; i < len; i++) {
        buf[i] = (unsigned char)((unsigned)tag * 31u + i * 7u + (i >> 8));
    }
}

static int content_ok(const unsigned char *buf, int tag, size_t len)
{
    size_t i;

    for (i = 0; i < len; i++) {
        if (buf[i] != (unsigned char)((unsigned)tag * 31u + i * 7u +
                                      (i >> 8))) {
            return 0;
        }
    }
    return 1;
}

/* Check one completed receive: status fields and content. */
static void check_msg(const char *where, const gcm_msg_status_t *st,
                      const unsigned char *buf, int want_slot, int want_tag)
{
    int phase;
    int r;
    int s;
    int k;

    if (st->error != GCM_OK) {
        gcm_test_fail("%s: status error %s", where,
                      gcm_status_string(st->error));
        return;
    }
    if ((want_tag >= 0) && (st->tag != want_tag)) {
        gcm_test_fail("%s: tag %d, expected %d", where, st->tag, want_tag);
        return;
    }
    split_tag(st->tag, &phase, &r, &s, &k);
    if ((want_slot >= 0) && (st->slot != want_slot)) {
        gcm_test_fail("%s: slot %d, expected %d", where, st->slot, want_slot);
    }
    if (st->slot != 2 * (r - 1) + s) {
        gcm_test_fail(
            "%s: tag %d (sender %d slot %d) arrived on receive slot %d", where,
            st->tag, r, s, st->slot);
    }
    if (st->count != tag_size(st->tag)) {
        gcm_test_fail("%s: count %zu, expected %zu (tag %d)", where, st->count,
                      tag_size(st->tag), st->tag);
    } else if (content_ok(buf, st->tag, st->count) == 0) {
        gcm_test_fail("%s: content of tag %d wrong", where, st->tag);
    }
}

static int send_go(int nprocs, int phase)
{
    int r;

    for (r = 1; r < nprocs; r++) {
        if (gcm_test_ok(
                gcm_send(gcm_world(), &phase, sizeof(phase), r, GO_TAG),
                "gcm_send(go)") == 0) {
            return -1;
        }
    }
    return 0;
}

static void hub_phase1(gcm_lco_h lco, int nslots, unsigned char *buf)
{
    gcm_msg_status_t ps;
    gcm_msg_status_t ps2;
    gcm_msg_status_t st;
    int next[64] = { 0 };
    int flag;
    int phase;
    int r;
    int s;
    int k;
    int i;

    for (i = 0; i < nslots * K; i++) {
        memset(&ps, 0xff, sizeof(ps));
        if (gcm_test_ok(gcm_probe(lco, GCM_ANY_SLOT, GCM_ANY_TAG, &ps),
                        "gcm_probe(ANY, ANY)") == 0) {
            return;
        }
        split_tag(ps.tag, &phase, &r, &s, &k);
        if ((ps.slot < 0) || (ps.slot >= nslots) || (phase != 1) ||
            (ps.slot != 2 * (r - 1) + s) || (ps.error != GCM_OK)) {
            gcm_test_fail("phase 1: probe found slot %d tag %d error %d",
                          ps.slot, ps.tag, (int)ps.error);
            return;
        }
        if (k != next[ps.slot]) {
            gcm_test_fail("phase 1: slot %d: probe found k %d, expected %d",
                          ps.slot, k, next[ps.slot]);
        }
        next[ps.slot] = k + 1;
        if (ps.count != tag_size(ps.tag)) {
            gcm_test_fail("phase 1: probe count %zu, expected %zu", ps.count,
                          tag_size(ps.tag));
        }
        /* A probe does not receive: an exact iprobe sees the same message. */
        flag = 0;
        if ((gcm_test_ok(gcm_iprobe(lco, ps.slot, ps.tag, &flag, &ps2),
                         "gcm_iprobe") != 0) &&
            ((flag == 0) || (ps2.slot != ps.slot) || (ps2.tag != ps.tag) ||
             (ps2.count != ps.count))) {
            gcm_test_fail(
                "phase 1: iprobe(%d, %d) after probe: flag %d slot %d tag "
                "%d count %zu",
                ps.slot, ps.tag, flag, ps2.slot, ps2.tag, ps2.count);
        }
        /* Receive it into a buffer of exactly the probed size. */
        if (gcm_test_ok(gcm_recv(lco, buf, ps.count, ps.slot, ps.tag, &st),
                        "gcm_recv(probed)") != 0) {
            check_msg("phase 1", &st, buf, ps.slot, ps.tag);
        }
    }
}

static void hub_phase2(gcm_lco_h lco, int nslots, unsigned char *buf)
{
    gcm_msg_status_t ps;
    gcm_msg_status_t st;
    int slot;
    int k;

    for (slot = nslots - 1; slot >= 0; slot--) {
        for (k = 0; k < K; k++) {
            if (gcm_test_ok(gcm_probe(lco, slot, GCM_ANY_TAG, &ps),
                            "gcm_probe(slot, ANY)") == 0) {
                return;
            }
            if ((ps.slot != slot) ||
                (ps.tag != make_tag(2, slot / 2 + 1, slot % 2, k))) {
                gcm_test_fail("phase 2: probe(%d, ANY) found slot %d tag %d",
                              slot, ps.slot, ps.tag);
            }
            if (gcm_test_ok(
                    gcm_recv(lco, buf, MAX_SIZE, slot, GCM_ANY_TAG, &st),
                    "gcm_recv(slot, ANY)") != 0) {
                check_msg("phase 2", &st, buf, slot,
                          make_tag(2, slot / 2 + 1, slot % 2, k));
            }
        }
    }
}

static void hub_phase3(gcm_lco_h lco, int nslots, unsigned char *buf)
{
    gcm_msg_status_t st;
    int slot;
    int tag;
    int k;

    for (slot = 0; slot < nslots; slot++) {
        for (k = K - 1; k >= 0; k--) {
            tag = make_tag(3, slot / 2 + 1, slot % 2, k);
            if (gcm_test_ok(
                    gcm_recv(lco, buf, MAX_SIZE, GCM_ANY_SLOT, tag, &st),
                    "gcm_recv(ANY, tag)") != 0) {
                check_msg("phase 3", &st, buf, slot, tag);
            }
        }
    }
}

static void hub_phase4(gcm_lco_h lco, int nslots, int nprocs)
{
    int n = nslots * K;
    gcm_request_h *reqs = calloc((size_t)n, sizeof(*reqs));
    unsigned char *bufs = malloc((size_t)n * MAX_SIZE);
    gcm_msg_status_t st;
    gcm_status_t status;
    int done = 0;
    int flag;
    int idx;
    int i;

    if ((reqs == NULL) || (bufs == NULL)) {
        gcm_test_fail("out of memory");
        goto out;
    }
    /* Request i waits for message k = i % K of slot i / K. */
    for (i = 0; i < n; i++) {
        if (gcm_test_ok(gcm_irecv(lco, bufs + (size_t)i * MAX_SIZE, MAX_SIZE,
                                  i / K, GCM_ANY_TAG, &reqs[i]),
                        "gcm_irecv(phase 4)") == 0) {
            goto out;
        }
    }
    /*
     * Nothing was sent yet: gcm_test must say "not complete" and keep the
     * request. The header leaves its return value open for an incomplete
     * request, so both GCM_OK and GCM_INPROGRESS are fine.
     */
    flag = -1;
    status = gcm_test(&reqs[0], &flag, &st);
    if (((status != GCM_OK) && (status != GCM_INPROGRESS)) || (flag != 0) ||
        (reqs[0] == GCM_REQUEST_NULL)) {
        gcm_test_fail("gcm_test on a pending receive: %s, flag %d, request %s",
                      gcm_status_string(status), flag,
                      (reqs[0] == GCM_REQUEST_NULL) ? "NULL" : "kept");
        goto out;
    }
    if (send_go(nprocs, 4) != 0) {
        goto out;
    }
    while (done < n) {
        idx = -2;
        status = gcm_waitany(n, reqs, &idx, &st);
        if ((idx < 0) || (idx >= n)) {
            gcm_test_fail("phase 4: gcm_waitany index %d (%s)", idx,
                          gcm_status_string(status));
            goto out;
        }
        if (reqs[idx] != GCM_REQUEST_NULL) {
            gcm_test_fail("phase 4: gcm_waitany did not clear request %d",
                          idx);
            reqs[idx] = GCM_REQUEST_NULL;
        }
        if (gcm_test_ok(status, "gcm_waitany") != 0) {
            check_msg("phase 4", &st, bufs + (size_t)idx * MAX_SIZE, idx / K,
                      make_tag(4, idx / K / 2 + 1, (idx / K) % 2, idx % K));
        }
        done++;
    }
    /* All NULL now: waitany says so with index -1. */
    idx = 0;
    status = gcm_waitany(n, reqs, &idx, &st);
    if ((status != GCM_OK) || (idx != -1)) {
        gcm_test_fail("gcm_waitany on NULL requests: %s, index %d",
                      gcm_status_string(status), idx);
    }
    /* A NULL request counts as complete for gcm_test too. */
    flag = 0;
    status = gcm_test(&reqs[0], &flag, NULL);
    if ((status != GCM_OK) || (flag == 0)) {
        gcm_test_fail("gcm_test on a NULL request: %s, flag %d",
                      gcm_status_string(status), flag);
    }
out:
    free(reqs);
    free(bufs);
}

static void hub_phase5(gcm_lco_h lco, int nprocs)
{
    static unsigned char bufs[3][MAX_SIZE];
    gcm_request_h reqs[4] = { GCM_REQUEST_NULL, GCM_REQUEST_NULL,
                              GCM_REQUEST_NULL, GCM_REQUEST_NULL };
    gcm_msg_status_t sts[4];
    gcm_status_t status;
    int i;

    /*
     * All three match sender 1's first message; posted in this order, they
     * must get messages k = 0, 1, 2 of R[0] respectively.
     */
    if ((gcm_test_ok(gcm_irecv(lco, bufs[0], MAX_SIZE, GCM_ANY_SLOT,
                               make_tag(5, 1, 0, 0), &reqs[0]),
                     "gcm_irecv(ANY, tag)") == 0) ||
        (gcm_test_ok(
             gcm_irecv(lco, bufs[1], MAX_SIZE, 0, GCM_ANY_TAG, &reqs[1]),
             "gcm_irecv(0, ANY)") == 0) ||
        (gcm_test_ok(gcm_irecv(lco, bufs[2], MAX_SIZE, GCM_ANY_SLOT,
                               GCM_ANY_TAG, &reqs[3]),
                     "gcm_irecv(ANY, ANY)") == 0)) {
        return;
    }
    if (send_go(nprocs, 5) != 0) {
        return;
    }
    memset(sts, 0, sizeof(sts));
    status = gcm_waitall(4, reqs, sts);
    if (gcm_test_ok(status, "gcm_waitall(phase 5)") == 0) {
        return;
    }
    for (i = 0; i < 4; i++) {
        if (reqs[i] != GCM_REQUEST_NULL) {
            gcm_test_fail("gcm_waitall left request %d non-NULL", i);
        }
    }
    check_msg("phase 5 (ANY, tag)", &sts[0], bufs[0], 0, make_tag(5, 1, 0, 0));
    check_msg("phase 5 (slot, ANY)", &sts[1], bufs[1], 0,
              make_tag(5, 1, 0, 1));
    check_msg("phase 5 (ANY, ANY)", &sts[3], bufs[2], 0,
              make_tag(5, 1, 0, 2));
}

static int hub(int nprocs)
{
    gcm_lco_h lco = NULL;
    gcm_name_t name;
    gcm_msg_status_t st;
    unsigned char *buf = malloc(MAX_SIZE);
    int nslots = 2 * (nprocs - 1);
    int flag;
    int phase;
    int r;

    if ((buf == NULL) ||
        (gcm_test_ok(gcm_lco_create(&lco), "gcm_lco_create") == 0) ||
        (gcm_test_ok(gcm_lco_add_recv_slots(lco, nslots),
                     "gcm_lco_add_recv_slots") == 0) ||
        (gcm_test_ok(gcm_lco_name(lco, &name), "gcm_lco_name") == 0)) {
        free(buf);
        return -1;
    }
    for (r = 1; r < nprocs; r++) {
        if (gcm_test_ok(
                gcm_send(gcm_world(), &name, sizeof(name), r, NAME_TAG),
                "gcm_send(name)") == 0) {
            free(buf);
            return -1;
        }
    }

    /* Nothing has been sent to R yet. */
    flag = -1;
    if ((gcm_test_ok(gcm_iprobe(lco, GCM_ANY_SLOT, GCM_ANY_TAG, &flag, &st),
                     "gcm_iprobe(empty)") != 0) &&
        (flag != 0)) {
        gcm_test_fail("gcm_iprobe on an empty LCO found slot %d tag %d",
                      st.slot, st.tag);
    }

    for (phase = 1; (phase <= NPHASES) && (gcm_test_failed() == 0); phase++) {
        switch (phase) {
        case 1:
            send_go(nprocs, phase);
            hub_phase1(lco, nslots, buf);
            break;
        case 2:
            send_go(nprocs, phase);
            hub_phase2(lco, nslots, buf);
            break;
        case 3:
            send_go(nprocs, phase);
            hub_phase3(lco, nslots, buf);
            break;
        case 4:
            hub_phase4(lco, nslots, nprocs);
            break;
        default:
            hub_phase5(lco, nprocs);
            break;
        }
        if (gcm_test_failed() == 0) {
            printf("p2p_wildcards: phase %d ok\n", phase);
        }
    }

    /* Everything sent was received: nothing may be left over. */
    flag = -1;
    if ((gcm_test_ok(gcm_iprobe(lco, GCM_ANY_SLOT, GCM_ANY_TAG, &flag, &st),
                     "gcm_iprobe(end)") != 0) &&
        (flag != 0)) {
        gcm_test_fail("left over message on slot %d tag %d", st.slot, st.tag);
    }
    /* Tell the senders to stop, whatever happened (phase 0 = stop). */
    send_go(nprocs, 0);
    gcm_test_ok(gcm_lco_free(&lco), "gcm_lco_free");
    free(buf);
    return (gcm_test_failed() == 0) ? 0 : -1;
}

static int sender(int me)
{
    static unsigned char bufs[2 * K][MAX_SIZE];
    gcm_request_h reqs[2 * K];
    gcm_lco_h lco = NULL;
    gcm_name_t names[2];
    gcm_msg_status_t st;
    int rslots[2];
    int phase = -1;
    int n;
    int s;
    int k;
    int tag;

    if ((gcm_test_ok(gcm_lco_create(&lco), "gcm_lco_create") == 0) ||
        (gcm_test_ok(gcm_recv(gcm_world(), &names[0], sizeof(names[0]), 0,
                              NAME_TAG, &st),
                     "gcm_recv(name)") == 0)) {
        return -1;
    }
    names[1] = names[0];
    rslots[0] = 2 * (me - 1);
    rslots[1] = 2 * (me - 1) + 1;
    if (gcm_test_ok(gcm_lco_add_send_slots(lco, 2, names, rslots),
                    "gcm_lco_add_send_slots") == 0) {
        return -1;
    }
    for (;;) {
        if (gcm_test_ok(
                gcm_recv(gcm_world(), &phase, sizeof(phase), 0, GO_TAG, &st),
                "gcm_recv(go)") == 0) {
            return -1;
        }
        if (phase == 0) {
            break;
        }
        n = 0;
        if (phase == 5) {
            /* Only sender 1, only slot 0, three messages. */
            for (k = 0; (k < 3) && (me == 1); k++) {
                tag = make_tag(5, me, 0, k);
                fill(bufs[n], tag);
                if (gcm_test_ok(gcm_isend(lco, bufs[n], tag_size(tag), 0, tag,
                                          &reqs[n]),
                                "gcm_isend") == 0) {
                    return -1;
                }
                n++;
            }
        } else {
            for (k = 0; k < K; k++) {
                for (s = 0; s < 2; s++) {
                    tag = make_tag(phase, me, s, k);
                    fill(bufs[n], tag);
                    if (gcm_test_ok(gcm_isend(lco, bufs[n], tag_size(tag), s,
                                              tag, &reqs[n]),
                                    "gcm_isend") == 0) {
                        return -1;
                    }
                    n++;
                }
            }
        }
        if (gcm_test_ok(gcm_waitall(n, reqs, NULL), "gcm_waitall(sends)") ==
            0) {
            return -1;
        }
    }
    gcm_test_ok(gcm_lco_free(&lco), "gcm_lco_free");
    return (gcm_test_failed() == 0) ? 0 : -1;
}

int main(int argc, char **argv)
{
    gcm_status_t status;
    int rc;

    if (!gcm_test_init(&argc, &argv, "p2p_wildcards")) {
        return 1;
    }
    g_me = gcm_proc_rank();
    if ((gcm_proc_count() < 2) || (gcm_proc_count() > 32)) {
        fprintf(stderr, "p2p_wildcards: needs 2..32 processes\n");
        rc = -1;
    } else if (g_me == 0) {
        rc = hub(gcm_proc_count());
        if (rc == 0) {
            printf("p2p_wildcards: all checks passed\n");
        }
    } else {
        rc = sender(g_me);
    }
    if (rc != 0) {
        /* A failed check may leave requests pending: skip finalize. */
        fflush(stdout);
        return 1;
    }
    status = gcm_finalize();
    if (status != GCM_OK) {
        fprintf(stderr, "p2p_wildcards: gcm_finalize: %s\n",
                gcm_status_string(status));
        return 1;
    }
    return 0;
}
