/*
 * master_children: a master introduces its children to each other, then
 * stays out of the way (the seed's Figure 1(d): a dynamically created
 * structure next to the regular world communicator).
 *
 * Each child creates an LCO with one receive slot and sends its name to the
 * master over the world LCO. The master hands child i the name of child
 * i+1's LCO (a ring: the last child gets the first child's name). Each child
 * adds a send slot to that name and sends NUM_MSGS messages straight to its
 * successor while receiving from its predecessor. The master relays nothing:
 * its message counters show only the names it forwarded and the children's
 * final reports. Run with: gcrun -n 4 examples/master_children
 * [--graph PREFIX] (draws the LCOs, see example.h).
 */
#define EXAMPLE_NAME "master_children"
#include "example.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NAME_TAG   1
#define INTRO_TAG  2
#define REPORT_TAG 3
#define DATA_TAG   4
#define NUM_MSGS   25

static const char *graph_prefix;   /* --graph PREFIX (example.h) */

/* Children are processes 1..n-1, in a ring. */
static int ring_next(int child, int n)
{
    return (child == n - 1) ? 1 : child + 1;
}

static int ring_prev(int child, int n)
{
    return (child == 1) ? n - 1 : child - 1;
}

static long msg_value(int from, int seq)
{
    return (long)from * 1000003L + (long)seq * 7L;
}

static int master(int n)
{
    gcm_name_t *names;
    gcm_stats_t before;
    gcm_stats_t after;
    gcm_msg_status_t st;
    uint64_t sent;
    int report;
    int ok = 1;
    int i;

    names = calloc((size_t)n, sizeof(*names));
    if (names == NULL) {
        return -1;
    }
    gcm_get_stats(&before);

    for (i = 1; i < n; i++) {
        if (check(gcm_recv(gcm_world(), &names[i], sizeof(names[i]), i,
                           NAME_TAG, &st), "gcm_recv(name)") != 0) {
            ok = 0;
        }
    }
    /* Introduce each child to its successor: hand over a name, no data. */
    for (i = 1; (i < n) && (ok != 0); i++) {
        if (check(gcm_send(gcm_world(), &names[ring_next(i, n)],
                           sizeof(gcm_name_t), i, INTRO_TAG),
                  "gcm_send(intro)") != 0) {
            ok = 0;
        }
    }
    /* Each child reports how many messages it received and checked. */
    for (i = 1; (i < n) && (ok != 0); i++) {
        if (check(gcm_recv(gcm_world(), &report, sizeof(report), i,
                           REPORT_TAG, &st), "gcm_recv(report)") != 0) {
            ok = 0;
        } else if (report != NUM_MSGS) {
            fprintf(stderr, "master_children: child %d reports %d good "
                    "messages, expected %d\n", i, report, NUM_MSGS);
            ok = 0;
        }
    }

    /*
     * The master took part only in the introductions: n-1 names in, n-1
     * names out, n-1 reports in. Everything the children sent each other
     * went around it.
     */
    gcm_get_stats(&after);
    sent = (after.msgs_sent_remote - before.msgs_sent_remote) +
           (after.msgs_sent_local - before.msgs_sent_local);
    if ((ok != 0) &&
        ((sent != (uint64_t)(n - 1)) ||
         (after.msgs_received - before.msgs_received !=
          2 * (uint64_t)(n - 1)))) {
        fprintf(stderr, "master_children: master sent %llu and received "
                "%llu messages, expected %d and %d\n",
                (unsigned long long)sent,
                (unsigned long long)(after.msgs_received -
                                     before.msgs_received), n - 1,
                2 * (n - 1));
        ok = 0;
    }
    free(names);
    if (ok == 0) {
        return -1;
    }
    printf("master_children: master introduced %d child%s in a ring and "
           "relayed nothing (%llu sent, %llu received)\n", n - 1,
           (n == 2) ? "" : "ren",
           (unsigned long long)sent,
           (unsigned long long)(after.msgs_received - before.msgs_received));
    return 0;
}

static int child(int me, int n)
{
    gcm_lco_h lco = NULL;
    gcm_name_t myname;
    gcm_name_t succ;
    gcm_msg_status_t st;
    gcm_request_h reqs[2 * NUM_MSGS];
    gcm_msg_status_t sts[2 * NUM_MSGS];
    long out[NUM_MSGS];
    long in[NUM_MSGS];
    int rslot = 0;
    int from = ring_prev(me, n);
    int good = 0;
    int ok = 1;
    int i;

    if ((check(gcm_lco_create(&lco), "gcm_lco_create") != 0) ||
        (check(gcm_lco_add_recv_slots(lco, 1),
               "gcm_lco_add_recv_slots") != 0) ||
        (check(gcm_lco_name(lco, &myname), "gcm_lco_name") != 0) ||
        (check(gcm_send(gcm_world(), &myname, sizeof(myname), 0, NAME_TAG),
               "gcm_send(name)") != 0) ||
        (check(gcm_recv(gcm_world(), &succ, sizeof(succ), 0, INTRO_TAG, &st),
               "gcm_recv(intro)") != 0) ||
        (check(gcm_lco_add_send_slots(lco, 1, &succ, &rslot),
               "gcm_lco_add_send_slots") != 0)) {
        return -1;
    }
    example_draw(graph_prefix, lco, 1);

    /*
     * Everyone sends and receives at once around the ring, so post the
     * receives and the sends together and wait for all of them.
     */
    for (i = 0; i < NUM_MSGS; i++) {
        in[i] = -1;
        if (check(gcm_irecv(lco, &in[i], sizeof(in[i]), 0, DATA_TAG,
                            &reqs[i]), "gcm_irecv") != 0) {
            ok = 0;
        }
    }
    for (i = 0; i < NUM_MSGS; i++) {
        out[i] = msg_value(me, i);
        if (check(gcm_isend(lco, &out[i], sizeof(out[i]), 0, DATA_TAG,
                            &reqs[NUM_MSGS + i]), "gcm_isend") != 0) {
            ok = 0;
        }
    }
    if (check(gcm_waitall(2 * NUM_MSGS, reqs, sts), "gcm_waitall") != 0) {
        ok = 0;
    }
    for (i = 0; i < NUM_MSGS; i++) {
        if ((in[i] == msg_value(from, i)) && (sts[i].count == sizeof(long))) {
            good++;
        } else {
            fprintf(stderr, "master_children: child %d message %d from %d: "
                    "got %ld, expected %ld\n", me, i, from, in[i],
                    msg_value(from, i));
        }
    }

    /* Tell the master the outcome; this is not relaying any payload. */
    if (check(gcm_send(gcm_world(), &good, sizeof(good), 0, REPORT_TAG),
              "gcm_send(report)") != 0) {
        ok = 0;
    }
    if (check(gcm_lco_free(&lco), "gcm_lco_free") != 0) {
        ok = 0;
    }
    if ((ok == 0) || (good != NUM_MSGS)) {
        return -1;
    }
    printf("master_children: child %d sent %d messages to child %d and got "
           "%d from child %d directly\n", me, NUM_MSGS, ring_next(me, n),
           good, from);
    return 0;
}

int main(int argc, char **argv)
{
    int me;
    int n;
    int rc;

    if (example_init(&argc, &argv, &graph_prefix) != 0) {
        return 1;
    }
    me = gcm_proc_rank();
    n = gcm_proc_count();
    /* The regular structure beside the one made at run time. */
    example_draw(graph_prefix, gcm_world(), 0);
    if (n < 2) {
        fprintf(stderr, "master_children: needs at least 2 processes\n");
        rc = -1;
    } else if (me == 0) {
        rc = master(n);
    } else {
        rc = child(me, n);
    }
    if (check(gcm_finalize(), "gcm_finalize") != 0) {
        rc = -1;
    }
    return (rc == 0) ? 0 : 1;
}
