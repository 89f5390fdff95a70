/*
 * two_senders: the seed's Figure 1(e), two senders and one receiver.
 *
 * Process 0's LCO R has two receive slots. Process 1's LCO targets R[0] and
 * process 2's LCO targets R[1]:
 *
 *     S1 = {<R[0]>, <>}    S2 = {<R[1]>, <>}    R = {<>, <+,+>}
 *
 * Each sender sends NUM_MSGS messages; R receives all of them with
 * GCM_ANY_SLOT, and the slot in the status tells which sender each message
 * came from. Messages from one sender arrive in the order sent, while the
 * two streams interleave freely. Run with: gcrun -n 3 examples/two_senders
 * [--graph PREFIX] (draws the LCOs, see example.h).
 */
#define EXAMPLE_NAME "two_senders"
#include "example.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NAME_TAG 1
#define NUM_MSGS 50

typedef struct {
    int sender;
    int seq;
    int value;
} ts_msg_t;

static const char *graph_prefix;   /* --graph PREFIX (example.h) */

static int msg_value(int sender, int seq)
{
    return sender * 100000 + seq * 3 + 1;
}

static int receiver(void)
{
    gcm_lco_h r = NULL;
    gcm_name_t name;
    gcm_msg_status_t st;
    ts_msg_t msg;
    int next[2] = { 0, 0 };
    int ok = 1;
    int i;

    if ((check(gcm_lco_create(&r), "gcm_lco_create") != 0) ||
        (check(gcm_lco_add_recv_slots(r, 2), "gcm_lco_add_recv_slots") != 0)
        || (check(gcm_lco_name(r, &name), "gcm_lco_name") != 0)) {
        return -1;
    }
    example_draw(graph_prefix, r, 0);

    /* Both senders get the same name; they differ in the slot they use. */
    for (i = 1; i <= 2; i++) {
        if (check(gcm_send(gcm_world(), &name, sizeof(name), i, NAME_TAG),
                  "gcm_send(name)") != 0) {
            ok = 0;
        }
    }

    for (i = 0; (i < 2 * NUM_MSGS) && (ok != 0); i++) {
        if (check(gcm_recv(r, &msg, sizeof(msg), GCM_ANY_SLOT, GCM_ANY_TAG,
                           &st), "gcm_recv") != 0) {
            ok = 0;
            break;
        }
        /* Slot 0 is process 1's, slot 1 process 2's. */
        if ((st.slot < 0) || (st.slot > 1) || (msg.sender != st.slot + 1) ||
            (st.count != sizeof(msg)) || (msg.seq != next[st.slot]) ||
            (st.tag != msg.seq) ||
            (msg.value != msg_value(msg.sender, msg.seq))) {
            fprintf(stderr, "two_senders: message %d wrong: slot %d tag %d "
                    "count %zu sender %d seq %d (expected seq %d)\n", i,
                    st.slot, st.tag, st.count, msg.sender, msg.seq,
                    ((st.slot >= 0) && (st.slot <= 1)) ? next[st.slot] : -1);
            ok = 0;
            break;
        }
        next[st.slot]++;
    }

    if (check(gcm_lco_free(&r), "gcm_lco_free") != 0) {
        ok = 0;
    }
    if (ok == 0) {
        return -1;
    }
    printf("two_senders: R received %d messages: %d on slot 0 from P1, %d "
           "on slot 1 from P2, in order per slot\n", 2 * NUM_MSGS, next[0],
           next[1]);
    return 0;
}

static int sender(int me)
{
    gcm_lco_h s = NULL;
    gcm_name_t rname;
    gcm_msg_status_t st;
    /* Process 1 targets R[0], process 2 targets R[1]. */
    int rslot = me - 1;
    ts_msg_t msg;
    int ok = 1;
    int i;

    if ((check(gcm_lco_create(&s), "gcm_lco_create") != 0) ||
        (check(gcm_recv(gcm_world(), &rname, sizeof(rname), 0, NAME_TAG, &st),
               "gcm_recv(name)") != 0) ||
        (check(gcm_lco_add_send_slots(s, 1, &rname, &rslot),
               "gcm_lco_add_send_slots") != 0)) {
        return -1;
    }
    example_draw(graph_prefix, s, 0);
    for (i = 0; i < NUM_MSGS; i++) {
        msg.sender = me;
        msg.seq = i;
        msg.value = msg_value(me, i);
        if (check(gcm_send(s, &msg, sizeof(msg), 0, i), "gcm_send") != 0) {
            ok = 0;
            break;
        }
    }
    if (check(gcm_lco_free(&s), "gcm_lco_free") != 0) {
        ok = 0;
    }
    if (ok == 0) {
        return -1;
    }
    printf("two_senders: P%d sent %d messages to R[%d]\n", me, NUM_MSGS,
           rslot);
    return 0;
}

int main(int argc, char **argv)
{
    int me;
    int rc;

    if (example_init(&argc, &argv, &graph_prefix) != 0) {
        return 1;
    }
    me = gcm_proc_rank();
    if (gcm_proc_count() < 3) {
        if (me == 0) {
            fprintf(stderr, "two_senders: needs 3 processes\n");
        }
        rc = -1;
    } else if (me == 0) {
        rc = receiver();
    } else if (me <= 2) {
        rc = sender(me);
    } else {
        printf("two_senders: P%d idles\n", me);
        rc = 0;
    }
    if (check(gcm_finalize(), "gcm_finalize") != 0) {
        rc = -1;
    }
    return (rc == 0) ? 0 : 1;
}
