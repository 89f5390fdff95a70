/*
 * p2p_handlers: receive-slot handlers across processes (internal header
 * for the synchronous send, internal library).
 *
 * Process 0 owns an LCO with a remote counter (receive slot 0), a remote
 * queue (slot 1) and a wake-up slot (2). It sends its name to every
 * process; every process (0 included, through the same-process path)
 * sends K increments of SIZE bytes to the counter and K items to the
 * queue, then a synchronous DONE message on the counter slot, which must
 * complete (the handler has run). Per connection, messages are matched in
 * order and handlers run in that order, so DONE from a process comes after
 * all its increments and items: when the counter handler has seen DONE
 * from every process, it sends itself a message on slot 2, which process
 * 0 waits for in gcm_recv (so the handlers run inside that wait). Then
 * process 0 checks the total, the count per sender and the order of each
 * sender's items in the queue, and the data of every message.
 *
 * Usage: p2p_handlers SIZE K [mixed]; with "mixed", every odd-numbered
 * message of a sender is 16 bytes instead of SIZE, so small messages
 * follow large ones and must not overtake them.
 */
#include "config.h"

#include "lco/lco.h"
#include "gcm_test.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NAME_TAG 1
#define INC_TAG  2
#define ITEM_TAG 3
#define DONE_TAG 4
#define WAKE_TAG 5
#define MAXP     64

/* The head of every message; SIZE - sizeof(hdr_t) bytes of pattern
 * follow. */
typedef struct hdr {
    int32_t sender;
    int32_t seq;
    int64_t add;
} hdr_t;

static int g_me;

static unsigned char pattern_byte(int sender, int seq, size_t i)
{
    return (unsigned char)(sender * 31 + seq * 7 + (int)i);
}

/* State of process 0's handlers. */
typedef struct state {
    int      nprocs;
    int64_t  total;
    int      incs[MAXP];
    int      done[MAXP];
    int      ndone;
    int     *queue;      /* sender * 1000000 + seq, in handler order */
    int      qlen;
    int      qcap;
    int      wake_slot;  /* process 0's send slot to its own slot 2 */
} state_t;

static size_t g_size;
static int g_mixed;

/* The size of a sender's message number seq. */
static size_t msg_size(int seq)
{
    return (g_mixed && (seq % 2)) ? sizeof(hdr_t) : g_size;
}

static int check_msg(const void *data, size_t len, hdr_t *h)
{
    const unsigned char *p = data;
    size_t i;

    if (len < sizeof(*h)) {
        gcm_test_fail("message of %zu bytes", len);
        return 0;
    }
    memcpy(h, data, sizeof(*h));
    if ((h->sender < 0) || (h->sender >= MAXP)) {
        gcm_test_fail("bad sender %d", h->sender);
        return 0;
    }
    if (len != msg_size(h->seq)) {
        gcm_test_fail("message %d of P%d has %zu bytes, expected %zu", h->seq,
                      h->sender, len, msg_size(h->seq));
        return 0;
    }
    /* The first, some middle and the last bytes of the pattern. */
    for (i = sizeof(*h); i < len; i += (len / 7) + 1) {
        if (p[i] != pattern_byte(h->sender, h->seq, i)) {
            gcm_test_fail("data of P%d seq %d wrong at byte %zu", h->sender,
                          h->seq, i);
            return 0;
        }
    }
    if ((len > sizeof(*h)) &&
        (p[len - 1] != pattern_byte(h->sender, h->seq, len - 1))) {
        gcm_test_fail("data of P%d seq %d wrong at its end", h->sender,
                      h->seq);
        return 0;
    }
    return 1;
}

static void counter_handler(gcm_lco_h lco, int slot, int tag,
                            const void *data, size_t len, void *arg)
{
    state_t *st = arg;
    hdr_t h;

    if (slot != 0) {
        gcm_test_fail("counter handler called for slot %d", slot);
        return;
    }
    if (!check_msg(data, len, &h)) {
        return;
    }
    if (tag == INC_TAG) {
        if (st->done[h.sender]) {
            gcm_test_fail("increment from P%d after its DONE", h.sender);
        }
        st->total += h.add;
        st->incs[h.sender]++;
    } else if (tag == DONE_TAG) {
        st->done[h.sender] = 1;
        if (++st->ndone == st->nprocs) {
            int one = 1;
            /* A handler may send, here to this very process. */
            if (gcm_send(lco, &one, sizeof(one), st->wake_slot, WAKE_TAG) !=
                GCM_OK) {
                gcm_test_fail("wake-up send from the handler: %s",
                              gcm_last_error());
            }
        }
    } else {
        gcm_test_fail("counter handler: tag %d", tag);
    }
}

static void queue_handler(gcm_lco_h lco, int slot, int tag, const void *data,
                          size_t len, void *arg)
{
    state_t *st = arg;
    hdr_t h;

    (void)lco;
    if ((slot != 1) || (tag != ITEM_TAG)) {
        gcm_test_fail("queue handler: slot %d tag %d", slot, tag);
        return;
    }
    if (!check_msg(data, len, &h)) {
        return;
    }
    if (st->qlen == st->qcap) {
        st->qcap  = (st->qcap == 0) ? 64 : 2 * st->qcap;
        st->queue = realloc(st->queue, (size_t)st->qcap * sizeof(int));
        if (st->queue == NULL) {
            gcm_test_fail("out of memory");
            exit(1);
        }
    }
    st->queue[st->qlen++] = h.sender * 1000000 + h.seq;
}

static void fill(unsigned char *buf, size_t size, int sender, int seq,
                 int64_t add)
{
    hdr_t h;
    size_t i;

    h.sender = sender;
    h.seq    = seq;
    h.add    = add;
    memcpy(buf, &h, sizeof(h));
    for (i = sizeof(h); i < size; i++) {
        buf[i] = pattern_byte(sender, seq, i);
    }
}

int main(int argc, char **argv)
{
    size_t size = (argc > 1) ? (size_t)strtoul(argv[1], NULL, 0) : 16;
    int k = (argc > 2) ? atoi(argv[2]) : 100;
    gcm_lco_h world, obj = NULL, tx;
    gcm_name_t name;
    gcm_request_h req;
    state_t st;
    unsigned char *buf;
    int n, i, j, rslots[2] = { 0, 1 };
    gcm_name_t names[2];
    int64_t expect = 0;

    if (size < sizeof(hdr_t)) {
        size = sizeof(hdr_t);
    }
    g_size  = size;
    g_mixed = (argc > 3) && (strcmp(argv[3], "mixed") == 0);
    if (!gcm_test_init(&argc, &argv, "p2p_handlers")) {
        return 1;
    }
    g_me  = gcm_proc_rank();
    n     = gcm_proc_count();
    world = gcm_world();
    if (n > MAXP) {
        gcm_test_fail("at most %d processes", MAXP);
        return gcm_test_finish();
    }
    buf = malloc(size);
    if (buf == NULL) {
        return 1;
    }
    memset(&st, 0, sizeof(st));
    st.nprocs = n;

    if (g_me == 0) {
        gcm_name_t self = { { 0 } };
        int two = 2;

        if ((gcm_lco_create(&obj) != GCM_OK) ||
            (gcm_lco_add_recv_slots(obj, 3) != GCM_OK) ||
            (gcm_lco_name(obj, &name) != GCM_OK)) {
            gcm_test_fail("creating the LCO: %s", gcm_last_error());
            return 1;
        }
        self = name;
        if (gcm_lco_add_send_slots(obj, 1, &self, &two) != GCM_OK) {
            gcm_test_fail("self slot: %s", gcm_last_error());
        }
        st.wake_slot = 0;
        if ((gcm_lco_set_handler(obj, 0, counter_handler, &st) != GCM_OK) ||
            (gcm_lco_set_handler(obj, 1, queue_handler, &st) != GCM_OK)) {
            gcm_test_fail("set_handler: %s", gcm_last_error());
        }
        for (i = 1; i < n; i++) {
            if (gcm_send(world, &name, sizeof(name), i, NAME_TAG) != GCM_OK) {
                gcm_test_fail("sending the name to P%d", i);
            }
        }
    } else if (gcm_recv(world, &name, sizeof(name), 0, NAME_TAG, NULL) !=
               GCM_OK) {
        gcm_test_fail("receiving the name: %s", gcm_last_error());
        return 1;
    }

    names[0] = name;
    names[1] = name;
    if ((gcm_lco_create(&tx) != GCM_OK) ||
        (gcm_lco_add_send_slots(tx, 2, names, rslots) != GCM_OK)) {
        gcm_test_fail("sender LCO: %s", gcm_last_error());
        return 1;
    }
    /* Interleaved on the two slots: one connection, so one order. All
     * in flight at once, so that small messages arrive while large ones
     * before them are still being fetched. */
    {
        unsigned char **bufs = calloc((size_t)(2 * k + 1), sizeof(*bufs));
        gcm_request_h *reqs = calloc((size_t)(2 * k + 1), sizeof(*reqs));

        if ((bufs == NULL) || (reqs == NULL)) {
            return 1;
        }
        for (j = 0; j < 2 * k; j++) {
            int seq = j / 2, item = j % 2;

            bufs[j] = malloc(msg_size(seq));
            if (bufs[j] == NULL) {
                return 1;
            }
            fill(bufs[j], msg_size(seq), g_me, seq,
                 item ? 0 : (int64_t)(g_me + 1) * (seq + 1));
            if (gcm_isend(tx, bufs[j], msg_size(seq), item,
                          item ? ITEM_TAG : INC_TAG, &reqs[j]) != GCM_OK) {
                gcm_test_fail("send %d: %s", j, gcm_last_error());
            }
        }
        if (gcm_waitall(2 * k, reqs, NULL) != GCM_OK) {
            gcm_test_fail("sends: %s", gcm_last_error());
        }
        for (j = 0; j < 2 * k; j++) {
            free(bufs[j]);
        }
        free(bufs);
        free(reqs);
    }
    fill(buf, msg_size(k), g_me, k, 0);
    if ((gcm_lco_isend_x(tx, buf, msg_size(k), 0, DONE_TAG, GCM_LCO_SEND_SYNC,
                         &req) != GCM_OK) ||
        (gcm_wait(&req, NULL) != GCM_OK)) {
        gcm_test_fail("synchronous DONE: %s", gcm_last_error());
    } else {
        printf("p2p_handlers: P%d sync send to a handler slot completed\n",
               g_me);
    }

    if (g_me == 0) {
        gcm_msg_status_t ms;
        int one = 0;
        int last[MAXP];

        /* The handlers run inside this wait. */
        if (gcm_recv(obj, &one, sizeof(one), 2, WAKE_TAG, &ms) != GCM_OK) {
            gcm_test_fail("wake-up: %s", gcm_last_error());
        }
        for (i = 0; i < n; i++) {
            for (j = 0; j < k; j++) {
                expect += (int64_t)(i + 1) * (j + 1);
            }
            if (st.incs[i] != k) {
                gcm_test_fail("%d increments from P%d, expected %d",
                              st.incs[i], i, k);
            }
            last[i] = -1;
        }
        if (st.total != expect) {
            gcm_test_fail("counter %lld, expected %lld", (long long)st.total,
                          (long long)expect);
        }
        if (st.qlen != n * k) {
            gcm_test_fail("queue has %d items, expected %d", st.qlen, n * k);
        }
        for (i = 0; i < st.qlen; i++) {
            int s = st.queue[i] / 1000000, q = st.queue[i] % 1000000;
            if (q != last[s] + 1) {
                gcm_test_fail("queue: P%d item %d after %d", s, q, last[s]);
            }
            last[s] = q;
        }
        if (gcm_test_failed() == 0) {
            printf("p2p_handlers: counter %lld and queue of %d in order, "
                   "%zu-byte%s messages\n", (long long)st.total, st.qlen,
                   size, g_mixed ? " and 16-byte" : "");
        }
        free(st.queue);
        gcm_lco_free(&obj);
    }
    gcm_lco_free(&tx);
    free(buf);
    return gcm_test_finish();
}
