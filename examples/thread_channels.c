/*
 * thread_channels: the seed's Figure 2 (a channel made by sending an LCO's
 * name) between threads created at run time.
 *
 * Each process starts T threads (3 unless given). Each thread creates its
 * own LCO with three receive slots and gets the channels to write to by
 * receiving names over paths that already exist:
 *
 *   A  thread t -> thread t+1 of the same process (receive slot 0): the
 *      receiver's slot name travels over the "hub", an LCO the main
 *      thread built before the threads existed (send slot i reaches its
 *      own receive slot i, which thread i reads);
 *   B  thread t of process p -> thread t of process p+1 (receive slot 1):
 *      the name travels over the world LCO, with a tag per thread;
 *   C  thread t+1 -> thread t of the same process (receive slot 2): the
 *      name travels over channel A, a channel made by threads a moment
 *      before.
 *
 * gcm_lco_offer() sends a receive slot's name over a send slot, and
 * gcm_lco_accept_offer() receives it and adds the send slot: the seed's
 * Figure 2 in two calls. Then every thread sends NUM_MSGS messages on
 * each of its three channels and receives as many on each receive slot,
 * checking who sent each one and in which order; then it frees its LCO.
 * Indices wrap around (thread T-1's A channel goes to thread 0), and with
 * one process, B connects a process to itself.
 *
 * Run with: gcrun -n 3 examples/thread_channels [T]
 */
#include <gencomm.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define TAG_A    11
#define TAG_C    12
#define TAG_B    100   /* + thread index: the world is shared */
#define TAG_DATA 13
#define NUM_MSGS 20

/* The channels, by the receive slot they arrive on. */
enum { CHAN_A = 0, CHAN_B = 1, CHAN_C = 2, NCHAN = 3 };

typedef struct msg {
    int proc;     /* sender */
    int thread;
    int chan;
    int seq;
    int value;
} msg_t;

typedef struct thread_arg {
    int       t;
    gcm_lco_h hub;
    int       failures;
    int       checked;
} thread_arg_t;

static int me, nprocs, nthreads;

static void check(gcm_status_t status, const char *what)
{
    if (status != GCM_OK) {
        fprintf(stderr, "thread_channels: P%d: %s failed: %s (%s)\n", me,
                what, gcm_status_string(status), gcm_last_error());
        exit(1);
    }
}

static int msg_value(int proc, int thread, int chan, int seq)
{
    return ((proc * 131 + thread) * 7 + chan) * 1009 + seq;
}

static void *thread_main(void *arg)
{
    thread_arg_t *a = arg;
    int t = a->t;
    int pred = (t + nthreads - 1) % nthreads;
    int prev_proc = (me + nprocs - 1) % nprocs;
    int next_proc = (me + 1) % nprocs;
    /* Who writes to each receive slot: (process, thread). */
    int from[NCHAN][2] = { { me, pred }, { prev_proc, t },
                           { me, (t + 1) % nthreads } };
    gcm_request_h reqs[2 * NCHAN * NUM_MSGS];
    msg_t in[NCHAN][NUM_MSGS], out[NCHAN][NUM_MSGS];
    gcm_msg_status_t st[2 * NCHAN * NUM_MSGS];
    int out_slot[NCHAN];
    gcm_lco_h mine;
    int c, i, n = 0;

    /* The LCO of this thread, on this thread's endpoint. */
    check(gcm_lco_create(&mine), "gcm_lco_create");
    check(gcm_lco_add_recv_slots(mine, NCHAN), "gcm_lco_add_recv_slots");

    /* A: offer receive slot 0 to the previous thread, over the hub. */
    check(gcm_lco_offer(a->hub, pred, TAG_A, mine, CHAN_A), "offer A");
    /* B: offer receive slot 1 to thread t of the previous process, over
     * the world (which reaches process q on send slot q). */
    check(gcm_lco_offer(gcm_world(), prev_proc, TAG_B + t, mine, CHAN_B),
          "offer B");
    /* The offers made to this thread: the next thread's slot 0 (on the
     * hub's receive slot t), and slot 1 of thread t of the next process
     * (world receive slot next_proc hears from that process). */
    check(gcm_lco_accept_offer(a->hub, t, TAG_A, mine, &out_slot[CHAN_A]),
          "accept A");
    check(gcm_lco_accept_offer(gcm_world(), next_proc, TAG_B + t, mine,
                               &out_slot[CHAN_B]), "accept B");
    /* C: a name sent over a channel just made: slot 2 goes to the next
     * thread over A, and the previous thread's slot 2 comes in on A. */
    check(gcm_lco_offer(mine, out_slot[CHAN_A], TAG_C, mine, CHAN_C),
          "offer C");
    check(gcm_lco_accept_offer(mine, CHAN_A, TAG_C, mine, &out_slot[CHAN_C]),
          "accept C");

    /* Traffic: receives first, so that no send waits for one. Channel
     * c's messages are sent on out_slot[c] and arrive on receive slot c
     * of its receiver. */
    for (c = 0; c < NCHAN; c++) {
        for (i = 0; i < NUM_MSGS; i++) {
            check(gcm_irecv(mine, &in[c][i], sizeof(in[c][i]), c, TAG_DATA,
                            &reqs[n++]), "gcm_irecv");
        }
    }
    for (c = 0; c < NCHAN; c++) {
        for (i = 0; i < NUM_MSGS; i++) {
            out[c][i].proc   = me;
            out[c][i].thread = t;
            out[c][i].chan   = c;
            out[c][i].seq    = i;
            out[c][i].value  = msg_value(me, t, c, i);
            check(gcm_isend(mine, &out[c][i], sizeof(out[c][i]),
                            out_slot[c], TAG_DATA, &reqs[n++]), "gcm_isend");
        }
    }
    check(gcm_waitall(n, reqs, st), "gcm_waitall");

    for (c = 0; c < NCHAN; c++) {
        for (i = 0; i < NUM_MSGS; i++) {
            const msg_t *m = &in[c][i];

            if ((st[c * NUM_MSGS + i].count != sizeof(*m)) ||
                (m->proc != from[c][0]) || (m->thread != from[c][1]) ||
                (m->chan != c) || (m->seq != i) ||
                (m->value != msg_value(m->proc, m->thread, c, i))) {
                fprintf(stderr, "thread_channels: P%d T%d: message %d on "
                        "slot %d is (P%d T%d chan %d seq %d value %d), "
                        "expected (P%d T%d chan %d seq %d)\n", me, t, i, c,
                        m->proc, m->thread, m->chan, m->seq, m->value,
                        from[c][0], from[c][1], c, i);
                a->failures++;
            } else {
                a->checked++;
            }
        }
    }
    /* Every message to this LCO has arrived, and every send of it is
     * complete: nobody uses it any more. */
    check(gcm_lco_free(&mine), "gcm_lco_free");
    return NULL;
}

int main(int argc, char **argv)
{
    gcm_name_t hub_name;
    thread_arg_t *args;
    pthread_t *threads;
    gcm_lco_h hub;
    int *rslots;
    int i, failures = 0, checked = 0;

    check(gcm_init(&argc, &argv), "gcm_init");
    me       = gcm_proc_rank();
    nprocs   = gcm_proc_count();
    nthreads = (argc > 1) ? atoi(argv[1]) : 3;
    if ((nthreads < 1) || (nthreads > 64)) {
        fprintf(stderr, "thread_channels: thread count %d is not in "
                "1..64\n", nthreads);
        gcm_finalize();
        return 1;
    }

    /* The hub: send slot i reaches receive slot i of the hub itself. */
    rslots = malloc((size_t)nthreads * sizeof(int));
    check(gcm_lco_create(&hub), "gcm_lco_create");
    check(gcm_lco_add_recv_slots(hub, nthreads), "gcm_lco_add_recv_slots");
    check(gcm_lco_name(hub, &hub_name), "gcm_lco_name");
    for (i = 0; i < nthreads; i++) {
        rslots[i] = i;
        check(gcm_lco_add_send_slots(hub, 1, &hub_name, &rslots[i]),
              "gcm_lco_add_send_slots");
    }

    /* The threads, made now: each builds its channels itself. */
    args    = calloc((size_t)nthreads, sizeof(*args));
    threads = malloc((size_t)nthreads * sizeof(*threads));
    for (i = 0; i < nthreads; i++) {
        args[i].t   = i;
        args[i].hub = hub;
        if (pthread_create(&threads[i], NULL, thread_main, &args[i]) != 0) {
            fprintf(stderr, "thread_channels: pthread_create failed\n");
            exit(1);
        }
    }
    for (i = 0; i < nthreads; i++) {
        pthread_join(threads[i], NULL);
        failures += args[i].failures;
        checked  += args[i].checked;
    }
    check(gcm_lco_free(&hub), "gcm_lco_free");
    if (failures == 0) {
        printf("thread_channels: P%d: %d threads made %d channels at run "
               "time (names over the hub, the world and a new channel); "
               "%d messages checked\n", me, nthreads, NCHAN * nthreads,
               checked);
    }
    free(args);
    free(threads);
    free(rslots);
    check(gcm_finalize(), "gcm_finalize");
    return (failures == 0) ? 0 : 1;
}
