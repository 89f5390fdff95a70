/*
 * p2p_zero_msgs: building LCO graphs is local and sends no message.
 *
 * The header promises that creating an LCO, naming it and adding send and
 * receive slots (also slots that target other processes, and slot names)
 * send nothing: connections are made lazily by the first message. Each
 * process takes its counters (gcm_get_stats) once all setup traffic is
 * over, does all of that, and compares: every counter must be unchanged.
 * Then one real message per process proves the counters do count.
 */
#include "gcm_test.h"

#define NAME_TAG  1
#define SYNC_TAG  2
#define DATA_TAG  3
#define NUM_LCOS  8

static void print_stats(const char *what, const gcm_stats_t *s)
{
    fprintf(stderr, "p2p_zero_msgs: P%d: %s: sent remote %llu, sent local "
            "%llu, received %llu, control %llu\n", gcm_test_me, what,
            (unsigned long long)s->msgs_sent_remote,
            (unsigned long long)s->msgs_sent_local,
            (unsigned long long)s->msgs_received,
            (unsigned long long)s->control_sent);
}

int main(int argc, char **argv)
{
    gcm_stats_t before;
    gcm_stats_t after;
    gcm_stats_t sent;
    gcm_lco_h peer_lco = NULL;
    gcm_name_t peer_name;
    gcm_name_t *names = NULL;
    gcm_lco_h lcos[NUM_LCOS];
    gcm_name_t name;
    gcm_slotname_t sname;
    gcm_msg_status_t st;
    int *rslots = NULL;
    int sync_in[1024];
    int sync_out;
    int count;
    int value;
    int n;
    int i;
    int j;

    if (!gcm_test_init(&argc, &argv, "p2p_zero_msgs")) {
        return 1;
    }
    n = gcm_proc_count();
    memset(lcos, 0, sizeof(lcos));
    names = calloc((size_t)n, sizeof(*names));
    rslots = calloc((size_t)n, sizeof(*rslots));
    if ((names == NULL) || (rslots == NULL) || (n > 1024)) {
        gcm_test_fail("out of memory or too many processes");
        goto out;
    }

    /*
     * Setup, with messages: every process creates one LCO with a receive
     * slot per process and everyone learns everyone's name. A second round
     * makes sure every process is past the first one, so no setup message
     * can still be on its way to this process when the counting starts.
     */
    if (!gcm_test_ok(gcm_lco_create(&peer_lco), "gcm_lco_create") ||
        !gcm_test_ok(gcm_lco_add_recv_slots(peer_lco, n), "add_recv_slots") ||
        !gcm_test_ok(gcm_lco_name(peer_lco, &peer_name), "gcm_lco_name") ||
        !gcm_test_exchange(&peer_name, sizeof(peer_name), names, NAME_TAG) ||
        !gcm_test_exchange(&gcm_test_me, sizeof(int), sync_in, SYNC_TAG)) {
        goto out;
    }

    gcm_get_stats(&before);
    for (i = 0; i < NUM_LCOS; i++) {
        if (!gcm_test_ok(gcm_lco_create(&lcos[i]), "gcm_lco_create") ||
            !gcm_test_ok(gcm_lco_name(lcos[i], &name), "gcm_lco_name") ||
            !gcm_test_ok(gcm_lco_add_recv_slots(lcos[i], 3),
                         "gcm_lco_add_recv_slots")) {
            goto out;
        }
        /* Send slots to every process's LCO, including this one's. */
        for (j = 0; j < n; j++) {
            rslots[j] = (gcm_test_me + i) % n;
        }
        if (!gcm_test_ok(gcm_lco_add_send_slots(lcos[i], n, names, rslots),
                         "gcm_lco_add_send_slots")) {
            goto out;
        }
        /* Slots to an LCO of this process, and through a slot name. */
        rslots[0] = 2;
        if (!gcm_test_ok(gcm_lco_add_send_slots(lcos[i], 1, &name, rslots),
                         "gcm_lco_add_send_slots(self)") ||
            !gcm_test_ok(gcm_slot_name(lcos[i], 1, &sname), "gcm_slot_name") ||
            !gcm_test_ok(gcm_lco_add_send_slot(lcos[i], &sname),
                         "gcm_lco_add_send_slot") ||
            !gcm_test_ok(gcm_lco_num_send_slots(lcos[i], &count),
                         "num_send_slots")) {
            goto out;
        }
        if (count != n + 2) {
            gcm_test_fail("LCO %d has %d send slots, expected %d", i, count,
                          n + 2);
        }
    }
    gcm_get_stats(&after);
    if (memcmp(&before, &after, sizeof(before)) != 0) {
        gcm_test_fail("building %d LCOs changed the counters", NUM_LCOS);
        print_stats("before", &before);
        print_stats("after", &after);
    } else {
        printf("p2p_zero_msgs: P%d: %d LCOs with %d send slots each built "
               "without a message\n", gcm_test_me, NUM_LCOS, n + 2);
    }

    /* Freeing them is local as well. */
    for (i = 0; i < NUM_LCOS; i++) {
        gcm_test_ok(gcm_lco_free(&lcos[i]), "gcm_lco_free");
    }
    gcm_get_stats(&after);
    if (memcmp(&before, &after, sizeof(before)) != 0) {
        gcm_test_fail("freeing unused LCOs changed the counters");
        print_stats("before", &before);
        print_stats("after", &after);
    }

    /*
     * The counters do count: one message to the next process through the
     * peer LCOs (send slot added now, receive slot = my rank). First wait
     * until every process has finished counting, since the message (and
     * its acknowledgement) would move the counters of a process that is
     * still counting.
     */
    if (!gcm_test_exchange(&gcm_test_me, sizeof(int), sync_in, SYNC_TAG)) {
        goto out;
    }
    gcm_get_stats(&before);
    rslots[0] = gcm_test_me;
    if (!gcm_test_ok(gcm_lco_add_send_slots(peer_lco, 1,
                                            &names[(gcm_test_me + 1) % n],
                                            rslots),
                     "add_send_slots")) {
        goto out;
    }
    sync_out = 4321 + gcm_test_me;
    if (!gcm_test_ok(gcm_send(peer_lco, &sync_out, sizeof(sync_out), 0,
                              DATA_TAG),
                     "gcm_send")) {
        goto out;
    }
    gcm_get_stats(&sent);
    if ((sent.msgs_sent_remote + sent.msgs_sent_local) !=
        (before.msgs_sent_remote + before.msgs_sent_local + 1)) {
        gcm_test_fail("one send moved the send counters by %lld",
                      (long long)((sent.msgs_sent_remote +
                                   sent.msgs_sent_local) -
                                  (before.msgs_sent_remote +
                                   before.msgs_sent_local)));
    }
    value = -1;
    j = (gcm_test_me + n - 1) % n;
    if (gcm_test_ok(gcm_recv(peer_lco, &value, sizeof(value), j, DATA_TAG,
                             &st),
                    "gcm_recv") &&
        (value != 4321 + j)) {
        gcm_test_fail("message from P%d: %d", j, value);
    }
    gcm_get_stats(&after);
    if (after.msgs_received != before.msgs_received + 1) {
        gcm_test_fail("one receive moved msgs_received by %lld",
                      (long long)(after.msgs_received -
                                  before.msgs_received));
    }

out:
    if (peer_lco != NULL) {
        /* Everyone is done with every LCO before any is freed. */
        gcm_test_exchange(&gcm_test_me, sizeof(int), sync_in, SYNC_TAG);
        gcm_test_ok(gcm_lco_free(&peer_lco), "gcm_lco_free");
    }
    free(names);
    free(rslots);
    return gcm_test_finish();
}
