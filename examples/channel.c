/*
 * channel: the seed's Figure 2, a unidirectional channel between two LCOs.
 *
 * The receive end creates an LCO with one receive slot and sends its name
 * over an existing communicator (the world LCO) to the send end, which
 * creates an LCO, adds one send slot that targets (name, 0) and sends ten
 * messages on it. In the seed's notation:
 *
 *     sender = {<receiver[0]>, <>}    receiver = {<>, <+>}
 *
 * gcm_lco_offer() and gcm_lco_accept_offer() do the same in two calls
 * over any existing path (examples/offer.c).
 *
 * Processes pair up: 2k receives from 2k+1; an odd last process idles.
 * Run with: gcrun -n 2 examples/channel [--graph PREFIX] (draws the LCOs,
 * see example.h).
 */
#define EXAMPLE_NAME "channel"
#include "example.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NAME_TAG 99
#define NUM_MSGS 10
/* Message i carries tag FIRST_TAG + i so the receiver can check tags too. */
#define FIRST_TAG 100

static const char *graph_prefix;   /* --graph PREFIX (example.h) */

typedef struct {
    int seq;
    int value;
} chan_msg_t;

/* The value of message i: anything the receiver can recompute will do. */
static int msg_value(int i)
{
    return i * i + 7;
}

static int receiver_side(int nbr)
{
    gcm_lco_h receiver = NULL;
    gcm_name_t rname;
    gcm_msg_status_t st;
    chan_msg_t msg;
    int ok = 1;
    int i;

    /* Create an LCO with one receive slot: receiver = {<>, <+>}. */
    if ((check(gcm_lco_create(&receiver), "gcm_lco_create") != 0) ||
        (check(gcm_lco_add_recv_slots(receiver, 1),
               "gcm_lco_add_recv_slots") != 0) ||
        (check(gcm_lco_name(receiver, &rname), "gcm_lco_name") != 0)) {
        return -1;
    }
    example_draw(graph_prefix, receiver, 0);

    /* The name is plain bytes: send it over the world LCO to the sender. */
    if (check(gcm_send(gcm_world(), &rname, sizeof(rname), nbr, NAME_TAG),
              "gcm_send(name)") != 0) {
        return -1;
    }

    /*
     * Receive on slot 0 with any tag, so that the tags and values seen show
     * the order in which the messages arrived.
     */
    for (i = 0; i < NUM_MSGS; i++) {
        if (check(gcm_recv(receiver, &msg, sizeof(msg), 0, GCM_ANY_TAG, &st),
                  "gcm_recv") != 0) {
            ok = 0;
            break;
        }
        if ((st.slot != 0) || (st.tag != FIRST_TAG + i) ||
            (st.count != sizeof(msg)) || (msg.seq != i) ||
            (msg.value != msg_value(i))) {
            fprintf(stderr,
                    "channel: P%d: message %d wrong: slot %d tag %d "
                    "count %zu seq %d value %d\n", gcm_proc_rank(), i,
                    st.slot, st.tag, st.count, msg.seq, msg.value);
            ok = 0;
        }
    }

    if (check(gcm_lco_free(&receiver), "gcm_lco_free") != 0) {
        ok = 0;
    }
    if (ok == 0) {
        return -1;
    }
    printf("channel: P%d received %d messages in order from P%d\n",
           gcm_proc_rank(), NUM_MSGS, nbr);
    return 0;
}

static int sender_side(int nbr)
{
    gcm_lco_h sender = NULL;
    gcm_name_t rnames[1];
    int rslots[1];
    gcm_msg_status_t st;
    chan_msg_t msg;
    int ok = 1;
    int i;

    if (check(gcm_lco_create(&sender), "gcm_lco_create") != 0) {
        return -1;
    }

    /* Receive the receiver's name and add it as send slot 0. */
    if (check(gcm_recv(gcm_world(), &rnames[0], sizeof(rnames[0]), nbr,
                       NAME_TAG, &st), "gcm_recv(name)") != 0) {
        return -1;
    }
    if (st.count != sizeof(gcm_name_t)) {
        fprintf(stderr, "channel: P%d: name has %zu bytes, not %zu\n",
                gcm_proc_rank(), st.count, sizeof(gcm_name_t));
        return -1;
    }
    rslots[0] = 0;
    if (check(gcm_lco_add_send_slots(sender, 1, rnames, rslots),
              "gcm_lco_add_send_slots") != 0) {
        return -1;
    }
    example_draw(graph_prefix, sender, 0);

    for (i = 0; i < NUM_MSGS; i++) {
        msg.seq = i;
        msg.value = msg_value(i);
        if (check(gcm_send(sender, &msg, sizeof(msg), 0, FIRST_TAG + i),
                  "gcm_send") != 0) {
            ok = 0;
            break;
        }
    }

    if (check(gcm_lco_free(&sender), "gcm_lco_free") != 0) {
        ok = 0;
    }
    if (ok == 0) {
        return -1;
    }
    printf("channel: P%d sent %d messages to P%d on send slot 0\n",
           gcm_proc_rank(), NUM_MSGS, nbr);
    return 0;
}

int main(int argc, char **argv)
{
    int rank;
    int nprocs;
    int rc;

    if (example_init(&argc, &argv, &graph_prefix) != 0) {
        return 1;
    }
    rank = gcm_proc_rank();
    nprocs = gcm_proc_count();

    if (nprocs < 2) {
        fprintf(stderr, "channel: needs at least 2 processes\n");
        rc = -1;
    } else if ((rank % 2) == 0) {
        if (rank + 1 < nprocs) {
            rc = receiver_side(rank + 1);
        } else {
            /* Odd process count: the last one has no partner. */
            printf("channel: P%d idles (no partner)\n", rank);
            rc = 0;
        }
    } else {
        rc = sender_side(rank - 1);
    }

    if (check(gcm_finalize(), "gcm_finalize") != 0) {
        rc = -1;
    }
    return (rc == 0) ? 0 : 1;
}
