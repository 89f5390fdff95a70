/*
 * offer: channels made at run time with gcm_lco_offer() and
 * gcm_lco_accept_offer(), which carry a slot name over any existing path.
 *
 * 1. Between processes: 2k offers receive slot 0 of a new LCO to 2k+1
 *    over the world; 2k+1 accepts it as send slot 0 of its own new LCO
 *    and sends five messages on it. (The seed's Figure 2 in two calls.)
 * 2. Between threads of one process: a thread made now creates its own
 *    LCO and offers it over an LCO the main thread built (a "hub" with a
 *    send slot to its own receive slot); the main thread accepts the
 *    offer and sends the thread five messages on the new channel.
 *
 * Run with: gcrun -n 2 examples/offer (an odd last process does only 2).
 */
#include <gencomm.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define OFFER_TAG 7
#define MSG_TAG   8
#define NUM_MSGS  5

static int check(gcm_status_t status, const char *what)
{
    if (status != GCM_OK) {
        fprintf(stderr, "offer: P%d: %s failed: %s (%s)\n", gcm_proc_rank(),
                what, gcm_status_string(status), gcm_last_error());
        exit(1);
    }
    return 0;
}

/* Receives NUM_MSGS messages 0, 1, ... on receive slot 0 of lco. */
static void receive_all(gcm_lco_h lco, const char *who)
{
    int i, v;

    for (i = 0; i < NUM_MSGS; i++) {
        check(gcm_recv(lco, &v, sizeof(v), 0, MSG_TAG, NULL), "gcm_recv");
        if (v != i) {
            fprintf(stderr, "offer: %s got %d, expected %d\n", who, v, i);
            exit(1);
        }
    }
}

static void send_all(gcm_lco_h lco, int slot)
{
    int i;

    for (i = 0; i < NUM_MSGS; i++) {
        check(gcm_send(lco, &i, sizeof(i), slot, MSG_TAG), "gcm_send");
    }
}

static void *worker(void *arg)
{
    gcm_lco_h hub = arg;
    gcm_lco_h mine;

    /* The worker's end: its own LCO, offered over the hub. */
    check(gcm_lco_create(&mine), "gcm_lco_create");
    check(gcm_lco_add_recv_slots(mine, 1), "gcm_lco_add_recv_slots");
    check(gcm_lco_offer(hub, 0, OFFER_TAG, mine, 0), "gcm_lco_offer");
    receive_all(mine, "the thread");
    check(gcm_lco_free(&mine), "gcm_lco_free");
    return NULL;
}

int main(int argc, char **argv)
{
    gcm_lco_h world, lco, hub, to_worker;
    gcm_name_t hub_name;
    pthread_t thread;
    int me, n, slot, zero = 0;

    check(gcm_init(&argc, &argv), "gcm_init");
    me    = gcm_proc_rank();
    n     = gcm_proc_count();
    world = gcm_world();

    /* 1. Between processes. */
    check(gcm_lco_create(&lco), "gcm_lco_create");
    if ((me % 2 == 0) && (me + 1 < n)) {
        check(gcm_lco_add_recv_slots(lco, 1), "gcm_lco_add_recv_slots");
        check(gcm_lco_offer(world, me + 1, OFFER_TAG, lco, 0),
              "gcm_lco_offer");
        receive_all(lco, "the receiving process");
        printf("offer: P%d received %d messages from P%d on the offered "
               "slot\n", me, NUM_MSGS, me + 1);
    } else if (me % 2 == 1) {
        check(gcm_lco_accept_offer(world, me - 1, OFFER_TAG, lco, &slot),
              "gcm_lco_accept_offer");
        send_all(lco, slot);
        printf("offer: P%d sent %d messages to P%d on send slot %d\n", me,
               NUM_MSGS, me - 1, slot);
    }

    /* 2. Between threads: the hub sends to itself, which carries the
     * thread's offer to the main thread. */
    check(gcm_lco_create(&hub), "gcm_lco_create");
    check(gcm_lco_add_recv_slots(hub, 1), "gcm_lco_add_recv_slots");
    check(gcm_lco_name(hub, &hub_name), "gcm_lco_name");
    check(gcm_lco_add_send_slots(hub, 1, &hub_name, &zero),
          "gcm_lco_add_send_slots");
    check(gcm_lco_create(&to_worker), "gcm_lco_create");
    if (pthread_create(&thread, NULL, worker, hub) != 0) {
        fprintf(stderr, "offer: pthread_create failed\n");
        return 1;
    }
    check(gcm_lco_accept_offer(hub, 0, OFFER_TAG, to_worker, &slot),
          "gcm_lco_accept_offer");
    send_all(to_worker, slot);
    pthread_join(thread, NULL);
    printf("offer: P%d: a thread received %d messages on a channel it "
           "offered\n", me, NUM_MSGS);

    check(gcm_lco_free(&to_worker), "gcm_lco_free");
    check(gcm_lco_free(&hub), "gcm_lco_free");
    check(gcm_lco_free(&lco), "gcm_lco_free");
    check(gcm_finalize(), "gcm_finalize");
    return 0;
}
