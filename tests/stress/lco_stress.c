/*
 * lco_stress: many threads, many LCOs, random traffic, channels made and
 * freed while it flows; every message checked for loss, duplication,
 * order and content.
 *
 * Each of the P processes (as launched) runs T threads, each with K
 * "static" LCOs: L = P * T * K LCOs in all, numbered g = (p * T + t) * K
 * + k, each with L receive slots and L send slots (send slot d reaches
 * receive slot g of LCO d, so receive slot s hears from LCO s). The names
 * cross processes over the world once, before any traffic.
 *
 * Then every thread, at once:
 * - sends M messages from each of its LCOs to LCOs picked at random (any
 *   process, any thread, itself included), of random sizes: most small,
 *   some above the shared-memory cell (8 KiB), a few large (rendezvous);
 * - makes C channels while it sends: a new LCO X with one receive slot,
 *   whose slot name goes as an OFFER message over a static edge to a
 *   random LCO; that LCO's thread, on receiving it, either creates a new
 *   LCO S with a send slot to X (then frees S once it has sent) or adds
 *   the send slot to the static LCO itself, and sends a burst of
 *   messages and a FIN on it; X is freed when its FIN is in;
 * - ends every static edge with a FIN that carries the edge's count.
 *
 * Every message starts with a header: magic, kind, edge (static: source
 * and destination LCO; channel: its id), sequence number on the edge,
 * payload length and a 64-bit checksum of the payload. The receiver
 * checks that the edge is the one its receive slot belongs to, that the
 * sequence number is the next one (a smaller one is a duplicate, a larger
 * one a loss or reordering), the length and the checksum, and that the
 * FIN's count is what arrived; any difference is printed exactly (which
 * process, thread, LCO, slot, edge, sequence number) and fails the run.
 * A watchdog ends the process after the deadline with what each thread
 * still waits for: a hang is a failure, never a stuck test.
 *
 * Usage: lco_stress [-t T] [-k K] [-m M] [-c C] [-s SEED] [-d SECONDS]
 * Prints "lco_stress: P<p>: ... ok" per process.
 */
#include <gencomm.h>

#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAGIC      0x4c535453u   /* "LSTS" */
#define NAMES_TAG  3
#define MAX_LARGE  (160 * 1024)
#define MAX_MSG    (MAX_LARGE + (int)sizeof(hdr_t))
#define WINDOW     16
#define MAX_PRINTS 20
#define CHAN_BIT   (UINT64_C(1) << 63)

enum { KIND_DATA = 1, KIND_OFFER = 2, KIND_FIN = 3 };

typedef struct hdr {
    uint32_t magic;
    uint32_t kind;
    uint64_t edge;      /* static: src << 32 | dst; channel: CHAN_BIT | id */
    uint64_t seq;       /* on the edge, from 0 */
    uint64_t count;     /* FIN: messages before it on the edge */
    uint64_t sum;       /* checksum of the payload */
    uint32_t len;       /* payload bytes after the header */
    uint32_t pad;
} hdr_t;

/* An OFFER's payload. */
typedef struct offer {
    gcm_slotname_t name;
    uint64_t       chan;     /* the channel's id */
    uint32_t       burst;    /* messages to send before the FIN */
    uint32_t       add;      /* 1: add the slot to the static LCO */
} offer_t;

/* A channel this thread serves (sends on). */
typedef struct serve {
    gcm_lco_h lco;       /* S, or the static LCO the slot was added to */
    int       slot;
    int       own;       /* S: free it when done */
    uint64_t  chan;
    uint64_t  next;      /* next sequence number to send */
    uint64_t  burst;
    int       pending;   /* sends not complete */
    struct serve *next_task;
} serve_t;

/* A channel this thread made (receives on). */
typedef struct made {
    gcm_lco_h lco;       /* X, NULL once freed */
    uint64_t  chan;
    uint64_t  expect;    /* next sequence number */
    unsigned char *buf;
} made_t;

typedef struct send_buf {
    unsigned char *buf;
    serve_t       *serve;    /* the channel it belongs to, or NULL */
    int            busy;
} send_buf_t;

typedef struct thr {
    int        t;
    pthread_t  thread;
    gcm_lco_h *lcos;        /* K static LCOs */
    uint64_t  *tx_seq;      /* [K][L] */
    uint64_t  *rx_seq;      /* [K][L] */
    unsigned char *fin;     /* [K][L] */
    int       *nfin;        /* [K] */
    unsigned char **rbuf;   /* [K] */
    made_t    *made;        /* [C] */
    int        nmade;
    int        made_open;
    serve_t   *serve_head;
    serve_t   *serve_tail;
    int        serve_open;
    uint64_t   rng;
    uint64_t   msgs_in;
    uint64_t   bytes_in;
    uint64_t   served;
    uint64_t   static_left;
    int        fin_k;
    /* for the watchdog (read without a lock only after the deadline) */
    atomic_int phase;
} thr_t;

static int g_me, g_np, g_T = 3, g_K = 2, g_M = 300, g_C = 4, g_L;
static uint64_t g_seed = 1;
static int g_deadline = 60;
static gcm_name_t *g_names;          /* [L] */
static thr_t *g_thr;
static pthread_barrier_t g_barrier;
static atomic_int g_errors;
static atomic_int g_done;

static void fail(const char *fmt, ...)
{
    va_list ap;

    if (atomic_fetch_add(&g_errors, 1) >= MAX_PRINTS) {
        return;
    }
    va_start(ap, fmt);
    fprintf(stderr, "lco_stress: FAIL: P%d: ", g_me);
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
}

static void check(gcm_status_t status, const char *what, int t)
{
    if (status != GCM_OK) {
        fprintf(stderr, "lco_stress: FAIL: P%d T%d: %s: %s (%s)\n", g_me, t,
                what, gcm_status_string(status), gcm_last_error());
        exit(1);
    }
}

static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += UINT64_C(0x9e3779b97f4a7c15));

    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

static uint64_t rnd(thr_t *th, uint64_t n)
{
    return splitmix64(&th->rng) % n;
}

/* FNV-1a over the payload. */
static uint64_t checksum(const unsigned char *p, size_t n)
{
    uint64_t h = UINT64_C(0xcbf29ce484222325);
    size_t i;

    for (i = 0; i < n; i++) {
        h = (h ^ p[i]) * UINT64_C(0x100000001b3);
    }
    return h;
}

/* Payload bytes of (edge, seq): what a receiver could recompute. */
static void fill(unsigned char *p, size_t n, uint64_t edge, uint64_t seq)
{
    uint64_t x = edge * UINT64_C(1000003) + seq, v = 0;
    size_t i;

    for (i = 0; i < n; i++) {
        if ((i % 8) == 0) {
            v = splitmix64(&x);
        }
        p[i] = (unsigned char)(v >> (8 * (i % 8)));
    }
}

static size_t pick_size(thr_t *th)
{
    uint64_t r = rnd(th, 1000);

    if (r < 7) {
        return 64 * 1024 + (size_t)rnd(th, MAX_LARGE - 64 * 1024);
    }
    if (r < 47) {
        return 1024 + (size_t)rnd(th, 12 * 1024);
    }
    return (size_t)rnd(th, 200);
}

static int lco_index(int t, int k)
{
    return (g_me * g_T + t) * g_K + k;
}

/* Who LCO g is, for messages. */
static void who(int g, int *p, int *t, int *k)
{
    *k = g % g_K;
    *t = (g / g_K) % g_T;
    *p = g / (g_K * g_T);
}

/* ---- sending -------------------------------------------------------- */

typedef struct sender {
    thr_t         *th;
    send_buf_t     bufs[WINDOW];
    gcm_request_h *reqs;     /* WINDOW entries */
} sender_t;

static int free_buf(sender_t *s)
{
    int i;

    for (i = 0; i < WINDOW; i++) {
        if (!s->bufs[i].busy) {
            return i;
        }
    }
    return -1;
}

/* Sends one message of kind with payload len (payload already in place
 * after the header for OFFER, generated otherwise). */
static void send_msg(sender_t *s, int b, gcm_lco_h lco, int slot,
                     uint32_t kind, uint64_t edge, uint64_t seq,
                     uint64_t count, size_t len, serve_t *serve)
{
    unsigned char *buf = s->bufs[b].buf;
    hdr_t h;

    if (kind != KIND_OFFER) {
        fill(buf + sizeof(h), len, edge, seq);
    }
    memset(&h, 0, sizeof(h));
    h.magic = MAGIC;
    h.kind  = kind;
    h.edge  = edge;
    h.seq   = seq;
    h.count = count;
    h.len   = (uint32_t)len;
    h.sum   = checksum(buf + sizeof(h), len);
    memcpy(buf, &h, sizeof(h));
    s->bufs[b].busy  = 1;
    s->bufs[b].serve = serve;
    check(gcm_isend(lco, buf, sizeof(h) + len, slot, (int)kind,
                    &s->reqs[b]), "gcm_isend", s->th->t);
}

/* ---- receiving ------------------------------------------------------ */

/* Checks a message that arrived on receive slot slot of static LCO k
 * (the thread's k-th) and acts on it. */
static void on_static(thr_t *th, int k, int slot, size_t count)
{
    const unsigned char *buf = th->rbuf[k];
    int g = lco_index(th->t, k);
    uint64_t *expect = &th->rx_seq[k * g_L + slot];
    uint64_t want_edge = ((uint64_t)slot << 32) | (uint64_t)g;
    int sp, st, sk;
    hdr_t h;

    who(slot, &sp, &st, &sk);
    if (count < sizeof(h)) {
        fail("T%d LCO %d slot %d (from P%d T%d L%d): %zu bytes, shorter "
             "than a header", th->t, g, slot, sp, st, sk, count);
        return;
    }
    memcpy(&h, buf, sizeof(h));
    if ((h.magic != MAGIC) || (h.edge != want_edge)) {
        fail("T%d LCO %d slot %d (from P%d T%d L%d): header magic %x edge "
             "%" PRIx64 ", expected edge %" PRIx64 " (misdelivered or "
             "corrupt)", th->t, g, slot, sp, st, sk, h.magic, h.edge,
             want_edge);
        return;
    }
    if (th->fin[k * g_L + slot]) {
        fail("T%d LCO %d slot %d (from P%d T%d L%d): seq %" PRIu64 " after "
             "the edge's FIN", th->t, g, slot, sp, st, sk, h.seq);
        return;
    }
    if (h.seq != *expect) {
        fail("T%d LCO %d slot %d (from P%d T%d L%d): seq %" PRIu64 ", "
             "expected %" PRIu64 " (%s)", th->t, g, slot, sp, st, sk, h.seq,
             *expect, (h.seq < *expect) ? "duplicate or reordered" :
             "lost or reordered");
        *expect = h.seq;   /* report each gap once */
    }
    (*expect)++;
    if ((count != sizeof(h) + h.len) ||
        (checksum(buf + sizeof(h), h.len) != h.sum)) {
        fail("T%d LCO %d slot %d (from P%d T%d L%d): seq %" PRIu64 ": %zu "
             "bytes for a %u-byte payload, or a bad checksum", th->t, g,
             slot, sp, st, sk, h.seq, count, h.len);
        return;
    }
    th->msgs_in++;
    th->bytes_in += count;
    if (h.kind == KIND_FIN) {
        if (h.count != h.seq) {
            fail("T%d LCO %d slot %d (from P%d T%d L%d): FIN says %" PRIu64
                 " messages, %" PRIu64 " arrived", th->t, g, slot, sp, st,
                 sk, h.count, h.seq);
        }
        th->fin[k * g_L + slot] = 1;
        th->nfin[k]++;
    } else if (h.kind == KIND_OFFER) {
        offer_t o;
        serve_t *sv = calloc(1, sizeof(*sv));
        int n = 0;

        if ((h.len != sizeof(o)) || (sv == NULL)) {
            fail("T%d LCO %d: an offer of %u bytes", th->t, g, h.len);
            free(sv);
            return;
        }
        memcpy(&o, buf + sizeof(h), sizeof(o));
        sv->chan  = o.chan;
        sv->burst = o.burst;
        if (o.add) {
            /* Only this thread adds slots to its LCOs: the new one is
             * the last. */
            sv->lco = th->lcos[k];
            check(gcm_lco_add_send_slot(sv->lco, &o.name),
                  "gcm_lco_add_send_slot", th->t);
            check(gcm_lco_num_send_slots(sv->lco, &n),
                  "gcm_lco_num_send_slots", th->t);
            sv->slot = n - 1;
        } else {
            check(gcm_lco_create(&sv->lco), "gcm_lco_create", th->t);
            check(gcm_lco_add_send_slot(sv->lco, &o.name),
                  "gcm_lco_add_send_slot", th->t);
            sv->slot = 0;
            sv->own  = 1;
        }
        if (th->serve_tail != NULL) {
            th->serve_tail->next_task = sv;
        } else {
            th->serve_head = sv;
        }
        th->serve_tail = sv;
        th->serve_open++;
    } else if (h.kind != KIND_DATA) {
        fail("T%d LCO %d slot %d: kind %u", th->t, g, slot, h.kind);
    }
}

/* Checks a message on channel m (X's only slot); returns 1 at its FIN. */
static int on_channel(thr_t *th, made_t *m, size_t count)
{
    hdr_t h;

    if (count < sizeof(h)) {
        fail("T%d channel %" PRIx64 ": %zu bytes", th->t, m->chan, count);
        return 0;
    }
    memcpy(&h, m->buf, sizeof(h));
    if ((h.magic != MAGIC) || (h.edge != (CHAN_BIT | m->chan))) {
        fail("T%d channel %" PRIx64 ": edge %" PRIx64 " (misdelivered)",
             th->t, m->chan, h.edge);
        return 0;
    }
    if (h.seq != m->expect) {
        fail("T%d channel %" PRIx64 ": seq %" PRIu64 ", expected %" PRIu64
             " (%s)", th->t, m->chan, h.seq, m->expect,
             (h.seq < m->expect) ? "duplicate or reordered" :
             "lost or reordered");
        m->expect = h.seq;
    }
    m->expect++;
    if ((count != sizeof(h) + h.len) ||
        (checksum(m->buf + sizeof(h), h.len) != h.sum)) {
        fail("T%d channel %" PRIx64 ": seq %" PRIu64 ": bad length or "
             "checksum", th->t, m->chan, h.seq);
        return 0;
    }
    th->msgs_in++;
    th->bytes_in += count;
    if (h.kind == KIND_FIN) {
        if (h.count != h.seq) {
            fail("T%d channel %" PRIx64 ": FIN says %" PRIu64 " messages, "
                 "%" PRIu64 " arrived", th->t, m->chan, h.count, h.seq);
        }
        return 1;
    }
    return 0;
}

/* ---- one thread ----------------------------------------------------- */

/* Has every edge into every static LCO of th had its FIN? */
static int all_fins(const thr_t *th)
{
    int k;

    for (k = 0; k < g_K; k++) {
        if (th->nfin[k] < g_L) {
            return 0;
        }
    }
    return 1;
}

static void *thread_main(void *arg)
{
    thr_t *th = arg;
    int t = th->t, K = g_K, L = g_L;
    /* requests: K static receives, C channel receives, WINDOW sends */
    int nreq = K + g_C + WINDOW;
    gcm_request_h *reqs = calloc((size_t)nreq, sizeof(*reqs));
    sender_t s;
    int *rslots = malloc((size_t)L * sizeof(int));
    uint64_t static_left = (uint64_t)K * (uint64_t)g_M, static_total;
    int *left = malloc((size_t)K * sizeof(int));
    int fin_k = 0, fin_d = 0, offers_done = 0;
    gcm_msg_status_t st;
    gcm_status_t status;
    int k, d, i, idx, b;

    static_total = static_left;
    memset(&s, 0, sizeof(s));
    s.th = th;
    s.reqs = &reqs[K + g_C];
    for (i = 0; i < WINDOW; i++) {
        s.bufs[i].buf = malloc(MAX_MSG);
    }
    th->rng = g_seed * UINT64_C(1000003) + (uint64_t)(g_me * 1009 + t);

    /* The static LCOs, named to the main thread. */
    for (k = 0; k < K; k++) {
        check(gcm_lco_create(&th->lcos[k]), "gcm_lco_create", t);
        check(gcm_lco_add_recv_slots(th->lcos[k], L),
              "gcm_lco_add_recv_slots", t);
        check(gcm_lco_name(th->lcos[k], &g_names[lco_index(t, k)]),
              "gcm_lco_name", t);
        th->rbuf[k] = malloc(MAX_MSG);
        left[k] = g_M;
    }
    pthread_barrier_wait(&g_barrier);   /* main exchanges the names */
    pthread_barrier_wait(&g_barrier);
    for (k = 0; k < K; k++) {
        for (d = 0; d < L; d++) {
            rslots[d] = lco_index(t, k);
        }
        check(gcm_lco_add_send_slots(th->lcos[k], L, g_names, rslots),
              "gcm_lco_add_send_slots", t);
        check(gcm_irecv(th->lcos[k], th->rbuf[k], MAX_MSG, GCM_ANY_SLOT,
                        GCM_ANY_TAG, &reqs[k]), "gcm_irecv", t);
    }
    atomic_store(&th->phase, 1);

    for (;;) {
        /* Send while the window has room and there is something to send. */
        while ((b = free_buf(&s)) >= 0) {
            serve_t *sv = th->serve_head;

            if ((sv != NULL) && ((static_left == 0) || (rnd(th, 2) == 0))) {
                /* The next message of a channel this thread serves. */
                int last = (sv->next == sv->burst);

                send_msg(&s, b, sv->lco, sv->slot,
                         last ? KIND_FIN : KIND_DATA, CHAN_BIT | sv->chan,
                         sv->next, sv->burst, last ? 0 : pick_size(th), sv);
                sv->next++;
                sv->pending++;
                if (last) {
                    th->serve_head = sv->next_task;
                    if (th->serve_head == NULL) {
                        th->serve_tail = NULL;
                    }
                }
                continue;
            }
            if ((th->nmade < g_C) &&
                (static_total - static_left >=
                 (uint64_t)(th->nmade + 1) * static_total /
                 (uint64_t)(g_C + 1))) {
                /* A channel: X, offered over a random static edge. */
                made_t *m = &th->made[th->nmade];
                offer_t o;
                hdr_t h;

                memset(&o, 0, sizeof(o));
                k = (int)rnd(th, (uint64_t)K);
                d = (int)rnd(th, (uint64_t)L);
                m->chan = ((uint64_t)g_me << 40) | ((uint64_t)t << 32) |
                          (uint64_t)th->nmade;
                m->buf  = malloc(MAX_MSG);
                check(gcm_lco_create(&m->lco), "gcm_lco_create", t);
                check(gcm_lco_add_recv_slots(m->lco, 1),
                      "gcm_lco_add_recv_slots", t);
                check(gcm_slot_name(m->lco, 0, &o.name), "gcm_slot_name", t);
                check(gcm_irecv(m->lco, m->buf, MAX_MSG, 0, GCM_ANY_TAG,
                                &reqs[K + th->nmade]), "gcm_irecv", t);
                o.chan  = m->chan;
                o.burst = 1 + (uint32_t)rnd(th, 30);
                o.add   = (uint32_t)(th->nmade % 2);
                memcpy(s.bufs[b].buf + sizeof(h), &o, sizeof(o));
                send_msg(&s, b, th->lcos[k], d, KIND_OFFER,
                         ((uint64_t)lco_index(t, k) << 32) | (uint64_t)d,
                         th->tx_seq[k * L + d]++, 0, sizeof(o), NULL);
                th->nmade++;
                th->made_open++;
                continue;
            }
            if (static_left > 0) {
                do {
                    k = (int)rnd(th, (uint64_t)K);
                } while (left[k] == 0);
                d = (int)rnd(th, (uint64_t)L);
                left[k]--;
                static_left--;
                send_msg(&s, b, th->lcos[k], d, KIND_DATA,
                         ((uint64_t)lco_index(t, k) << 32) | (uint64_t)d,
                         th->tx_seq[k * L + d]++, 0, pick_size(th), NULL);
                continue;
            }
            offers_done = (th->nmade == g_C);
            if (offers_done && (fin_k < K)) {
                /* The FIN of every static edge, last on it. */
                send_msg(&s, b, th->lcos[fin_k], fin_d, KIND_FIN,
                         ((uint64_t)lco_index(t, fin_k) << 32) |
                         (uint64_t)fin_d, th->tx_seq[fin_k * L + fin_d],
                         th->tx_seq[fin_k * L + fin_d], 0, NULL);
                th->tx_seq[fin_k * L + fin_d]++;
                if (++fin_d == L) {
                    fin_d = 0;
                    fin_k++;
                }
                continue;
            }
            break;
        }

        th->static_left = static_left;
        th->fin_k = fin_k;
        if ((static_left == 0) && (fin_k == K) && (th->nmade == g_C) &&
            (th->made_open == 0) && (th->serve_open == 0) &&
            (th->serve_head == NULL) && (free_buf(&s) >= 0) &&
            (all_fins(th))) {
            for (b = 0; b < WINDOW; b++) {
                if (s.bufs[b].busy) {
                    break;
                }
            }
            if (b == WINDOW) {
                break;   /* everything sent, received and closed */
            }
        }
        status = gcm_waitany(nreq, reqs, &idx, &st);
        if (idx < 0) {
            fail("T%d: nothing pending, but not done (a bug of the test)",
                 t);
            break;
        }
        if (idx < K) {
            k = idx;
            if (status != GCM_OK) {
                fail("T%d LCO %d: receive failed: %s", t, lco_index(t, k),
                     gcm_status_string(status));
            } else {
                on_static(th, k, st.slot, st.count);
            }
            if (th->nfin[k] < L) {
                check(gcm_irecv(th->lcos[k], th->rbuf[k], MAX_MSG,
                                GCM_ANY_SLOT, GCM_ANY_TAG, &reqs[k]),
                      "gcm_irecv", t);
            }
        } else if (idx < K + g_C) {
            made_t *m = &th->made[idx - K];

            if (status != GCM_OK) {
                fail("T%d channel %" PRIx64 ": receive failed: %s", t,
                     m->chan, gcm_status_string(status));
            }
            if ((status == GCM_OK) && on_channel(th, m, st.count)) {
                /* Its FIN is in: nobody sends to X any more. */
                check(gcm_lco_free(&m->lco), "gcm_lco_free", t);
                free(m->buf);
                m->buf = NULL;
                th->made_open--;
            } else {
                check(gcm_irecv(m->lco, m->buf, MAX_MSG, 0, GCM_ANY_TAG,
                                &reqs[idx]), "gcm_irecv", t);
            }
        } else {
            send_buf_t *sb = &s.bufs[idx - K - g_C];
            serve_t *sv = sb->serve;

            if (status != GCM_OK) {
                fail("T%d: a send failed: %s (%s)", t,
                     gcm_status_string(status), gcm_last_error());
            }
            sb->busy  = 0;
            sb->serve = NULL;
            if ((sv != NULL) && (--sv->pending == 0) &&
                (sv->next > sv->burst)) {
                /* The channel's FIN is sent and every send complete. */
                if (sv->own) {
                    check(gcm_lco_free(&sv->lco), "gcm_lco_free", t);
                }
                th->served++;
                th->serve_open--;
                free(sv);
            }
        }
    }
    atomic_store(&th->phase, 2);
    /* Every edge into these LCOs has had its FIN: nobody sends to them. */
    for (k = 0; k < K; k++) {
        check(gcm_lco_free(&th->lcos[k]), "gcm_lco_free", t);
        free(th->rbuf[k]);
    }
    for (i = 0; i < WINDOW; i++) {
        free(s.bufs[i].buf);
    }
    free(reqs);
    free(rslots);
    free(left);
    atomic_store(&th->phase, 3);
    return NULL;
}

/* ---- the watchdog and main ---------------------------------------- */

static const char *phase_name(int phase)
{
    static const char *const names[] = { "making its LCOs", "in traffic",
                                         "freeing", "done" };

    return ((phase >= 0) && (phase <= 3)) ? names[phase] : "?";
}

/* After the deadline: what each thread still waits for, then the end. */
static void *watchdog(void *arg)
{
    struct timespec ts = { 0, 100 * 1000 * 1000 };
    int ticks = 0, t, k, d;

    (void)arg;
    while (!atomic_load(&g_done)) {
        nanosleep(&ts, NULL);
        if (++ticks < 10 * g_deadline) {
            continue;
        }
        fprintf(stderr, "lco_stress: FAIL: P%d: not done after %d s\n",
                g_me, g_deadline);
        for (t = 0; t < g_T; t++) {
            thr_t *th = &g_thr[t];

            fprintf(stderr, "lco_stress: P%d T%d: %s; static messages to "
                    "send %" PRIu64 ", FINs sent for %d of %d LCOs, "
                    "channels made %d (open %d), served channels open %d\n",
                    g_me, t, phase_name(atomic_load(&th->phase)),
                    th->static_left, th->fin_k, g_K, th->nmade,
                    th->made_open, th->serve_open);
            for (k = 0; k < g_K; k++) {
                for (d = 0; d < g_L; d++) {
                    if (!th->fin[k * g_L + d]) {
                        fprintf(stderr, "lco_stress: P%d T%d LCO %d: no FIN "
                                "yet from LCO %d (%" PRIu64 " messages "
                                "in)\n", g_me, t, lco_index(t, k), d,
                                th->rx_seq[k * g_L + d]);
                    }
                }
            }
        }
        fflush(stderr);
        _exit(3);
    }
    return NULL;
}

static void usage(void)
{
    fprintf(stderr, "usage: lco_stress [-t T] [-k K] [-m M] [-c C] "
            "[-s SEED] [-d SECONDS]\n");
    exit(2);
}

int main(int argc, char **argv)
{
    gcm_request_h *reqs;
    pthread_t dog;
    uint64_t msgs = 0, bytes = 0, served = 0;
    int made = 0, opt, q, t, n = 0, per, rc;

    while ((opt = getopt(argc, argv, "t:k:m:c:s:d:")) != -1) {
        switch (opt) {
        case 't': g_T = atoi(optarg); break;
        case 'k': g_K = atoi(optarg); break;
        case 'm': g_M = atoi(optarg); break;
        case 'c': g_C = atoi(optarg); break;
        case 's': g_seed = strtoull(optarg, NULL, 0); break;
        case 'd': g_deadline = atoi(optarg); break;
        default: usage();
        }
    }
    if ((g_T < 1) || (g_T > 64) || (g_K < 1) || (g_K > 16) || (g_M < 0) ||
        (g_C < 0) || (g_C > 64) || (g_deadline < 1)) {
        usage();
    }
    check(gcm_init(&argc, &argv), "gcm_init", -1);
    g_me = gcm_proc_rank();
    g_np = gcm_proc_count();
    g_L  = g_np * g_T * g_K;
    per  = g_T * g_K;

    g_names = calloc((size_t)g_L, sizeof(*g_names));
    g_thr   = calloc((size_t)g_T, sizeof(*g_thr));
    reqs    = calloc(2 * (size_t)g_np, sizeof(*reqs));
    pthread_barrier_init(&g_barrier, NULL, (unsigned)g_T + 1);
    for (t = 0; t < g_T; t++) {
        thr_t *th = &g_thr[t];

        th->t      = t;
        th->lcos   = calloc((size_t)g_K, sizeof(*th->lcos));
        th->tx_seq = calloc((size_t)(g_K * g_L), sizeof(uint64_t));
        th->rx_seq = calloc((size_t)(g_K * g_L), sizeof(uint64_t));
        th->fin    = calloc((size_t)(g_K * g_L), 1);
        th->nfin   = calloc((size_t)g_K, sizeof(int));
        th->rbuf   = calloc((size_t)g_K, sizeof(*th->rbuf));
        th->made   = calloc((size_t)g_C + 1, sizeof(*th->made));
        atomic_init(&th->phase, 0);
    }
    /* A thread that cannot start would leave the others waiting at the
     * barrier: end at once, saying why. */
    rc = pthread_create(&dog, NULL, watchdog, NULL);
    for (t = 0; (rc == 0) && (t < g_T); t++) {
        rc = pthread_create(&g_thr[t].thread, NULL, thread_main, &g_thr[t]);
    }
    if (rc != 0) {
        fprintf(stderr, "lco_stress: FAIL: P%d: pthread_create: %s\n", g_me,
                strerror(rc));
        exit(1);
    }

    /* The threads have named their LCOs: every process gets all names. */
    pthread_barrier_wait(&g_barrier);
    for (q = 0; q < g_np; q++) {
        if (q == g_me) {
            continue;
        }
        check(gcm_irecv(gcm_world(), &g_names[q * per],
                        (size_t)per * sizeof(gcm_name_t), q, NAMES_TAG,
                        &reqs[n++]), "gcm_irecv names", -1);
        check(gcm_isend(gcm_world(), &g_names[g_me * per],
                        (size_t)per * sizeof(gcm_name_t), q, NAMES_TAG,
                        &reqs[n++]), "gcm_isend names", -1);
    }
    check(gcm_waitall(n, reqs, NULL), "name exchange", -1);
    pthread_barrier_wait(&g_barrier);

    for (t = 0; t < g_T; t++) {
        pthread_join(g_thr[t].thread, NULL);
        msgs   += g_thr[t].msgs_in;
        bytes  += g_thr[t].bytes_in;
        served += g_thr[t].served;
        made   += g_thr[t].nmade;
    }
    check(gcm_finalize(), "gcm_finalize", -1);
    atomic_store(&g_done, 1);
    pthread_join(dog, NULL);
    for (t = 0; t < g_T; t++) {
        thr_t *th = &g_thr[t];

        free(th->lcos);
        free(th->tx_seq);
        free(th->rx_seq);
        free(th->fin);
        free(th->nfin);
        free(th->rbuf);
        free(th->made);
    }
    pthread_barrier_destroy(&g_barrier);
    free(reqs);
    free(g_names);
    free(g_thr);
    if (atomic_load(&g_errors) != 0) {
        fprintf(stderr, "lco_stress: FAIL: P%d: %d error(s)\n", g_me,
                atomic_load(&g_errors));
        return 1;
    }
    printf("lco_stress: P%d: %d threads x %d LCOs of %d: %" PRIu64
           " messages (%" PRIu64 " bytes) received and checked, %d channels "
           "made and freed, %" PRIu64 " served: no loss, duplication or "
           "reordering\n", g_me, g_T, g_K, g_L, msgs, bytes, made, served);
    return 0;
}
