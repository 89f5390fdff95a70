/*
 * p2p_stress: many messages of mixed sizes between processes, each one
 * checked for content, order, size and tag.
 *
 * Usage: p2p_stress [-a] [-w WINDOW] [-s SEED] [-c CAP] [M]
 *   M       messages per direction on each edge (default 1000)
 *   -a      all pairs exchange messages; by default process 2k pairs with
 *           2k+1 and an odd last process idles
 *   -w      outstanding sends and receives per peer and direction (64)
 *   -s      seed of the size and payload mix (1)
 *   -c      cap every message at CAP bytes (to tell eager problems from
 *           rendezvous ones when something fails)
 *
 * Sizes come from a deterministic mix that both ends compute: most messages
 * are 0..4 KiB, about 1 in 50 is 8 KiB..256 KiB and about 1 in 2000 is
 * 1..8 MiB, so eager and rendezvous messages interleave on every edge. The
 * payload is a function of (sender, receiver, seq); messages of 16 bytes or
 * more start with the sequence number and a 64-bit checksum of the rest, so
 * a failure says whether data was corrupted or reordered. Receives are
 * preposted with the exact expected size and any tag, so the k-th receive
 * on a slot must get the k-th message; a guard after each receive buffer
 * catches overruns. Prints "p2p_stress: N messages ok" per process.
 */
#include <gencomm.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define HDR_SIZE   16
#define GUARD_SIZE 16
#define GUARD_BYTE 0xa5
#define TAG_MOD    1000003
#define MAX_ERRORS 10

typedef struct {
    gcm_request_h req;
    unsigned char *buf;
    size_t len;
    uint64_t seq;
    int peer;      /* index into the peer table */
    int is_send;
} op_t;

typedef struct {
    int proc;
    uint64_t send_next;   /* next seq to post */
    uint64_t recv_next;   /* next seq to post a receive for */
} peer_t;

static int g_me;
static uint64_t g_seed = 1;
static size_t g_cap = (size_t)-1;
static int g_errors;

static uint64_t splitmix64(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

static uint64_t msg_key(int from, int to, uint64_t seq)
{
    return splitmix64(g_seed ^ splitmix64(((uint64_t)(uint32_t)from << 32) ^
                                          (uint64_t)(uint32_t)to) ^
                      splitmix64(seq + 0x1234567ULL));
}

/* The size of message seq on edge from -> to, before the cap. */
static size_t mix_size(int from, int to, uint64_t seq)
{
    uint64_t h = splitmix64(msg_key(from, to, seq) ^ 0x5151ULL);
    uint64_t u = h % 100000;

    if (u < 50) {
        /* 1 in 2000: 1..8 MiB, rendezvous for sure */
        return (size_t)(1 << 20) + (size_t)((h >> 20) % (7 * (1 << 20) + 1));
    }
    if (u < 50 + 2000) {
        /* 1 in 50: 8 KiB..256 KiB, around the eager/rendezvous switch */
        return (size_t)(8 << 10) + (size_t)((h >> 20) % (248 * 1024 + 1));
    }
    return (size_t)((h >> 20) % 4097);
}

static size_t msg_size(int from, int to, uint64_t seq)
{
    size_t len = mix_size(from, to, seq);

    return (len < g_cap) ? len : g_cap;
}

static uint64_t cksum_step(uint64_t c, uint64_t w)
{
    return (c ^ w) * 0x100000001b3ULL + 0x9e37ULL;
}

/*
 * Fill buf with the payload of (from, to, seq). Word k of the message is
 * splitmix64(key + k); the header, when the message is large enough,
 * replaces the first two words.
 */
static void fill_payload(unsigned char *buf, size_t len, int from, int to,
                         uint64_t seq)
{
    uint64_t key = msg_key(from, to, seq);
    uint64_t c = 0;
    size_t off;
    uint64_t w;

    for (off = 0; off + 8 <= len; off += 8) {
        w = splitmix64(key + off / 8);
        memcpy(buf + off, &w, 8);
        if (off >= HDR_SIZE) {
            c = cksum_step(c, w);
        }
    }
    if (off < len) {
        w = splitmix64(key + off / 8);
        memcpy(buf + off, &w, len - off);
        if (off >= HDR_SIZE) {
            w = 0;
            memcpy(&w, buf + off, len - off);
            c = cksum_step(c, w);
        }
    }
    if (len >= HDR_SIZE) {
        memcpy(buf, &seq, 8);
        memcpy(buf + 8, &c, 8);
    }
}

static void report(const char *fmt_what, int peer, uint64_t seq,
                   const char *detail)
{
    g_errors++;
    if (g_errors <= MAX_ERRORS) {
        fprintf(stderr, "p2p_stress: P%d: %s from P%d seq %" PRIu64 ": %s\n",
                g_me, fmt_what, peer, seq, detail);
    }
}

/* Check a received message against what (from, me, seq) must contain. */
static void check_payload(const unsigned char *buf, size_t len, int from,
                          uint64_t seq)
{
    uint64_t key = msg_key(from, g_me, seq);
    uint64_t c = 0;
    uint64_t hseq;
    uint64_t hsum;
    uint64_t w;
    uint64_t want;
    char detail[160];
    size_t off;
    size_t bad = (size_t)-1;
    size_t i;
    size_t n;

    for (off = 0; off < len; off += 8) {
        n = (len - off < 8) ? len - off : 8;
        want = splitmix64(key + off / 8);
        w = 0;
        memcpy(&w, buf + off, n);
        if (off >= HDR_SIZE) {
            c = cksum_step(c, w);
            if (memcmp(&w, &want, n) != 0) {
                if (bad == (size_t)-1) {
                    for (i = 0; i < n; i++) {
                        if (((const unsigned char *)&w)[i] !=
                            ((const unsigned char *)&want)[i]) {
                            break;
                        }
                    }
                    bad = off + i;
                }
            }
        } else if ((len < HDR_SIZE) && (memcmp(&w, &want, n) != 0)) {
            bad = off;
        }
    }
    if (len >= HDR_SIZE) {
        memcpy(&hseq, buf, 8);
        memcpy(&hsum, buf + 8, 8);
        if (hseq != seq) {
            snprintf(detail, sizeof(detail), "out of order or duplicated: "
                     "header says seq %" PRIu64, hseq);
            report("wrong message", from, seq, detail);
            return;
        }
        if (hsum != c) {
            snprintf(detail, sizeof(detail), "checksum %016" PRIx64
                     " over %zu bytes, header says %016" PRIx64,
                     c, len - HDR_SIZE, hsum);
            report("corrupt message", from, seq, detail);
            return;
        }
    }
    if (bad != (size_t)-1) {
        snprintf(detail, sizeof(detail), "first wrong byte at offset %zu of "
                 "%zu", bad, len);
        report("corrupt message", from, seq, detail);
    }
}

static int post_send(op_t *op, peer_t *p, int pi)
{
    gcm_status_t status;

    op->seq = p->send_next++;
    op->len = msg_size(g_me, p->proc, op->seq);
    op->peer = pi;
    op->is_send = 1;
    op->buf = malloc((op->len > 0) ? op->len : 1);
    if (op->buf == NULL) {
        fprintf(stderr, "p2p_stress: out of memory (%zu bytes)\n", op->len);
        return -1;
    }
    fill_payload(op->buf, op->len, g_me, p->proc, op->seq);
    status = gcm_isend(gcm_world(), op->buf, op->len, p->proc,
                       (int)(op->seq % TAG_MOD), &op->req);
    if (status != GCM_OK) {
        fprintf(stderr, "p2p_stress: P%d: gcm_isend to P%d seq %" PRIu64
                " (%zu bytes) failed: %s (%s)\n", g_me, p->proc, op->seq,
                op->len, gcm_status_string(status), gcm_last_error());
        return -1;
    }
    return 0;
}

static int post_recv(op_t *op, peer_t *p, int pi)
{
    gcm_status_t status;

    op->seq = p->recv_next++;
    op->len = msg_size(p->proc, g_me, op->seq);
    op->peer = pi;
    op->is_send = 0;
    op->buf = malloc(op->len + GUARD_SIZE);
    if (op->buf == NULL) {
        fprintf(stderr, "p2p_stress: out of memory (%zu bytes)\n", op->len);
        return -1;
    }
    memset(op->buf + op->len, GUARD_BYTE, GUARD_SIZE);
    status = gcm_irecv(gcm_world(), op->buf, op->len, p->proc, GCM_ANY_TAG,
                       &op->req);
    if (status != GCM_OK) {
        fprintf(stderr, "p2p_stress: P%d: gcm_irecv from P%d failed: %s "
                "(%s)\n", g_me, p->proc, gcm_status_string(status),
                gcm_last_error());
        return -1;
    }
    return 0;
}

static double now_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int usage(void)
{
    fprintf(stderr, "usage: p2p_stress [-a] [-w WINDOW] [-s SEED] [-c CAP] "
            "[M]\n");
    return 2;
}

int main(int argc, char **argv)
{
    gcm_status_t status;
    gcm_msg_status_t st;
    uint64_t per_edge = 1000;
    uint64_t recv_msgs = 0;
    uint64_t recv_bytes = 0;
    uint64_t pending;
    int all_pairs = 0;
    int window = 64;
    int nprocs;
    int npeers = 0;
    peer_t *peers = NULL;
    op_t *ops = NULL;
    gcm_request_h *reqs = NULL;
    int nops;
    int opt;
    int idx;
    int i;
    int k;
    int rc = 0;
    double t0;
    double dt;
    char detail[160];
    op_t *op;
    peer_t *p;

    status = gcm_init(&argc, &argv);
    if (status != GCM_OK) {
        fprintf(stderr, "p2p_stress: gcm_init failed: %s\n",
                gcm_status_string(status));
        return 1;
    }
    while ((opt = getopt(argc, argv, "aw:s:c:")) != -1) {
        switch (opt) {
        case 'a':
            all_pairs = 1;
            break;
        case 'w':
            window = atoi(optarg);
            break;
        case 's':
            g_seed = strtoull(optarg, NULL, 0);
            break;
        case 'c':
            g_cap = (size_t)strtoull(optarg, NULL, 0);
            break;
        default:
            gcm_finalize();
            return usage();
        }
    }
    if (optind < argc) {
        per_edge = strtoull(argv[optind], NULL, 0);
    }
    if (window < 1) {
        gcm_finalize();
        return usage();
    }
    g_me = gcm_proc_rank();
    nprocs = gcm_proc_count();

    peers = calloc((size_t)nprocs, sizeof(*peers));
    if (peers == NULL) {
        rc = 1;
        goto out;
    }
    for (i = 0; i < nprocs; i++) {
        if (i == g_me) {
            continue;
        }
        if ((all_pairs != 0) || ((i ^ 1) == g_me)) {
            peers[npeers].proc = i;
            npeers++;
        }
    }
    if ((npeers == 0) || (per_edge == 0)) {
        printf("p2p_stress: P%d idles (no peer)\n", g_me);
        goto out;
    }

    /* Per peer: window sends, then window receives. */
    nops = npeers * 2 * window;
    ops = calloc((size_t)nops, sizeof(*ops));
    reqs = calloc((size_t)nops, sizeof(*reqs));
    if ((ops == NULL) || (reqs == NULL)) {
        rc = 1;
        goto out;
    }

    t0 = now_s();
    /* Prepost all receives first, so early messages find them. */
    for (i = 0; i < npeers; i++) {
        for (k = 0; (k < window) && (peers[i].recv_next < per_edge); k++) {
            idx = i * 2 * window + window + k;
            if (post_recv(&ops[idx], &peers[i], i) != 0) {
                rc = 1;
                goto out;
            }
            reqs[idx] = ops[idx].req;
        }
    }
    for (i = 0; i < npeers; i++) {
        for (k = 0; (k < window) && (peers[i].send_next < per_edge); k++) {
            idx = i * 2 * window + k;
            if (post_send(&ops[idx], &peers[i], i) != 0) {
                rc = 1;
                goto out;
            }
            reqs[idx] = ops[idx].req;
        }
    }

    pending = 2 * per_edge * (uint64_t)npeers;
    while (pending > 0) {
        status = gcm_waitany(nops, reqs, &idx, &st);
        if ((idx < 0) || (idx >= nops)) {
            fprintf(stderr, "p2p_stress: P%d: gcm_waitany returned index %d "
                    "with %" PRIu64 " operations pending (%s)\n", g_me, idx,
                    pending, gcm_status_string(status));
            rc = 1;
            goto out;
        }
        op = &ops[idx];
        p = &peers[op->peer];
        op->req = GCM_REQUEST_NULL;
        if (reqs[idx] != GCM_REQUEST_NULL) {
            fprintf(stderr, "p2p_stress: P%d: gcm_waitany left request %d "
                    "non-NULL\n", g_me, idx);
            rc = 1;
            goto out;
        }
        pending--;
        if ((status != GCM_OK) || (st.error != GCM_OK)) {
            fprintf(stderr, "p2p_stress: P%d: %s P%d seq %" PRIu64 " (%zu "
                    "bytes) failed: %s / %s (%s)\n", g_me,
                    (op->is_send != 0) ? "send to" : "receive from", p->proc,
                    op->seq, op->len, gcm_status_string(status),
                    gcm_status_string(st.error), gcm_last_error());
            rc = 1;
            goto out;
        }
        if (op->is_send != 0) {
            free(op->buf);
            op->buf = NULL;
            if (p->send_next < per_edge) {
                if (post_send(op, p, op->peer) != 0) {
                    rc = 1;
                    goto out;
                }
                reqs[idx] = op->req;
            }
            continue;
        }

        /*
         * A receive: the k-th posted on this slot must hold message k. They
         * may complete in any order (an eager message behind a rendezvous
         * one finishes first), so the check is on content, not on timing.
         */
        if ((st.slot != p->proc) || (st.tag != (int)(op->seq % TAG_MOD)) ||
            (st.count != op->len)) {
            snprintf(detail, sizeof(detail), "status slot %d tag %d count "
                     "%zu, expected slot %d tag %d count %zu", st.slot,
                     st.tag, st.count, p->proc, (int)(op->seq % TAG_MOD),
                     op->len);
            report("wrong status", p->proc, op->seq, detail);
        } else {
            check_payload(op->buf, op->len, p->proc, op->seq);
        }
        for (k = 0; k < GUARD_SIZE; k++) {
            if (op->buf[op->len + (size_t)k] != GUARD_BYTE) {
                report("buffer overrun", p->proc, op->seq,
                       "bytes written past the receive length");
                break;
            }
        }
        recv_msgs++;
        recv_bytes += op->len;
        free(op->buf);
        op->buf = NULL;
        if (p->recv_next < per_edge) {
            if (post_recv(op, p, op->peer) != 0) {
                rc = 1;
                goto out;
            }
            reqs[idx] = op->req;
        }
    }
    dt = now_s() - t0;

    if (g_errors > 0) {
        fprintf(stderr, "p2p_stress: P%d: %d bad messages\n", g_me,
                g_errors);
        rc = 1;
    } else {
        printf("p2p_stress: %" PRIu64 " messages ok (P%d from %d peer%s, "
               "%.1f MiB, %.2f s, %.0f msg/s, %.1f MiB/s)\n", recv_msgs, g_me,
               npeers, (npeers == 1) ? "" : "s",
               (double)recv_bytes / 1048576.0, dt,
               (double)recv_msgs / ((dt > 0) ? dt : 1e-9),
               (double)recv_bytes / 1048576.0 / ((dt > 0) ? dt : 1e-9));
    }

out:
    fflush(stdout);
    if (ops != NULL) {
        for (i = 0; i < nops; i++) {
            /* Only reached with live requests after a failure: leak them. */
            if (ops[i].req == GCM_REQUEST_NULL) {
                free(ops[i].buf);
            }
        }
    }
    free(ops);
    free(reqs);
    free(peers);
    if (rc != 0) {
        /*
         * Requests may still be outstanding; finalize would wait for them
         * forever. Exit and let gcrun end the job.
         */
        return 1;
    }
    status = gcm_finalize();
    if (status != GCM_OK) {
        fprintf(stderr, "p2p_stress: P%d: gcm_finalize failed: %s\n", g_me,
                gcm_status_string(status));
        return 1;
    }
    return 0;
}
