/*
 * p2p_coop: large same-host messages copied by sender and receiver
 * together (GENCOMM_SHM_COOP_MIN bytes and more), between processes 0 and
 * 1. Each phase prints a line on both processes when it passed:
 *
 *  (a) sizes: just below, at and above the threshold, odd sizes, 4 MiB
 *      plus a few bytes and 9 MiB plus a few (chunks grow with the
 *      message up to 1 MiB: each of these has a short last one), each
 *      way, content checked;
 *  (b) concurrent: both processes post 8 receives and 8 sends of sizes
 *      from the threshold to 4 MiB at once, 4 rounds, content checked;
 *  (c) streaming: 24 messages of 4 MiB from process 1 to process 0, whose
 *      sender waits in gcm_send (so that it takes chunks: the script
 *      reads how many from the debug log's count at finalize);
 *  (d) truncation: a message larger than the receive buffer completes the
 *      receive with GCM_ERR_TRUNCATED, the buffer's bytes are the first
 *      of the message and nothing past it is written, and the next
 *      message arrives whole.
 *
 * With the argument "small", process 1 instead streams 24 messages of
 * 64 KiB and a few bytes to process 0 (e), polling each send with
 * gcm_test, content checked, then one of 64 KiB and 5 bytes into 40,000
 * bytes (truncated): under the default threshold they are copied
 * cooperatively (two halves; the script reads the count from the debug
 * log at finalize).
 *
 * With the argument "die", process 1 instead starts a 512 MiB send (of
 * zeros) and kills itself 2 ms later, while process 0 copies it: the
 * receive must end with an error, or, if the copy was done before the
 * death (a loaded machine may not run process 1 for a while), with every
 * byte there; never a hang, never silent loss. Process 0 prints "sender
 * died:" and the status.
 *
 * Any other process only joins the world's finalize.
 */
#include <gencomm.h>

#include "gcm_test.h"

#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define BIG      (4 << 20)
#define HUGE_A   ((9 << 20) + 5)
#define DIE_SIZE ((size_t)512 << 20)
#define SMALL    (64 << 10)
#define COOP_DEFAULT 16384    /* GENCOMM_SHM_COOP_MIN's default */
#define GUARD    4096

static int g_me;
static size_t g_min;

static unsigned char pattern(int phase, int from, int i, size_t k)
{
    return (unsigned char)(phase * 31 + from * 17 + i * 7 + (int)(k % 251) +
                           (int)(k >> 17));
}

static void fill(unsigned char *buf, size_t n, int phase, int from, int i)
{
    unsigned char *p;

    for (p = buf; p < buf + n; p++) {
        *p = pattern(phase, from, i, (size_t)(p - buf));
    }
}

/* The pattern repeats every 251 bytes and moves every 128 KiB: a chunk
 * copied to the wrong place shows. */
static int check(const unsigned char *buf, size_t n, int phase, int from,
                 int i)
{
    const unsigned char *p = buf, *end = buf + n;

    while ((p < end) && (*p == pattern(phase, from, i, (size_t)(p - buf)))) {
        p++;
    }
    if (p < end) {
        gcm_test_fail("phase %d message %d: byte %zu of %zu is %u, expected "
                      "%u", phase, i, (size_t)(p - buf), n, *p,
                      pattern(phase, from, i, (size_t)(p - buf)));
        return 0;
    }
    return 1;
}

static void *xmalloc(size_t n)
{
    void *p = malloc(n);

    if (p == NULL) {
        gcm_test_fail("out of memory (%zu bytes)", n);
        exit(1);
    }
    return p;
}

/* One message of n bytes from process from to the other, checked. */
static int one_way(unsigned char *buf, size_t n, int phase, int from, int i)
{
    gcm_msg_status_t st;

    if (g_me == from) {
        fill(buf, n, phase, from, i);
        return gcm_test_ok(gcm_send(gcm_world(), buf, n, 1 - from, phase),
                           "gcm_send");
    }
    memset(buf, 0, n);
    if (!gcm_test_ok(gcm_recv(gcm_world(), buf, n, from, phase, &st),
                     "gcm_recv")) {
        return 0;
    }
    if (st.count != n) {
        gcm_test_fail("phase %d message %d: %zu bytes, expected %zu", phase,
                      i, st.count, n);
        return 0;
    }
    return check(buf, n, phase, from, i);
}

static void phase_a(void)
{
    const size_t sizes[] = {
        g_min - 1, g_min, g_min + 1, 3 * 131072 + 7, 131072 * 2 + 1,
        1 << 20, (1 << 20) + 4093, (2 << 20) + 65537, BIG + 13, HUGE_A
    };
    unsigned char *buf = xmalloc(HUGE_A);
    int ok = 1, i, from;

    for (from = 0; from < 2; from++) {
        for (i = 0; i < (int)(sizeof(sizes) / sizeof(sizes[0])); i++) {
            ok &= one_way(buf, sizes[i], 1, from, i);
        }
    }
    free(buf);
    if (ok) {
        printf("p2p_coop: P%d (a) sizes around %zu ok\n", g_me, g_min);
    }
}

static size_t size_b(int round, int i)
{
    return g_min + (size_t)((round * 8 + i) * 524287) % (BIG - g_min);
}

static void phase_b(void)
{
    enum { N = 8, ROUNDS = 4 };
    unsigned char *sbuf[N], *rbuf[N];
    gcm_request_h reqs[2 * N];
    gcm_msg_status_t sts[2 * N];
    int ok = 1, round, i, peer = 1 - g_me;

    for (i = 0; i < N; i++) {
        sbuf[i] = xmalloc(BIG);
        rbuf[i] = xmalloc(BIG);
    }
    for (round = 0; round < ROUNDS; round++) {
        for (i = 0; i < N; i++) {
            memset(rbuf[i], 0, size_b(round, i));
            if (!gcm_test_ok(gcm_irecv(gcm_world(), rbuf[i], size_b(round, i),
                                       peer, 100 + i, &reqs[i]),
                             "gcm_irecv")) {
                return;
            }
        }
        for (i = 0; i < N; i++) {
            fill(sbuf[i], size_b(round, i), 2, g_me, round * N + i);
            if (!gcm_test_ok(gcm_isend(gcm_world(), sbuf[i], size_b(round, i),
                                       peer, 100 + i, &reqs[N + i]),
                             "gcm_isend")) {
                return;
            }
        }
        if (!gcm_test_ok(gcm_waitall(2 * N, reqs, sts), "gcm_waitall")) {
            return;
        }
        for (i = 0; i < N; i++) {
            ok &= (sts[i].count == size_b(round, i)) &&
                  check(rbuf[i], size_b(round, i), 2, peer, round * N + i);
        }
    }
    for (i = 0; i < N; i++) {
        free(sbuf[i]);
        free(rbuf[i]);
    }
    if (ok) {
        printf("p2p_coop: P%d (b) concurrent ok\n", g_me);
    }
}

static void phase_c(void)
{
    unsigned char *buf = xmalloc(BIG);
    int ok = 1, i;

    for (i = 0; (i < 24) && ok; i++) {
        ok &= one_way(buf, BIG, 3, 1, i);
    }
    free(buf);
    if (ok) {
        printf("p2p_coop: P%d (c) streaming ok\n", g_me);
    }
}

static void phase_d(void)
{
    const size_t n = (1 << 20) + 5, room = (512 << 10) + 3;
    unsigned char *buf = xmalloc(n + GUARD);
    gcm_msg_status_t st;
    gcm_status_t status;
    size_t k;
    int ok = 1;

    if (g_me == 1) {
        fill(buf, n, 4, 1, 0);
        ok &= gcm_test_ok(gcm_send(gcm_world(), buf, n, 0, 4), "gcm_send");
        ok &= one_way(buf, g_min + 77, 4, 1, 1);
    } else {
        memset(buf, 0xee, n + GUARD);
        status = gcm_recv(gcm_world(), buf, room, 1, 4, &st);
        if (status != GCM_ERR_TRUNCATED) {
            gcm_test_fail("a %zu-byte message into %zu bytes: %s, expected "
                          "%s", n, room, gcm_status_string(status),
                          gcm_status_string(GCM_ERR_TRUNCATED));
            ok = 0;
        }
        ok &= check(buf, room, 4, 1, 0);
        for (k = room; ok && (k < room + GUARD); k++) {
            if (buf[k] != 0xee) {
                gcm_test_fail("byte %zu past the receive buffer written", k);
                ok = 0;
            }
        }
        ok &= one_way(buf, g_min + 77, 4, 1, 1);
    }
    free(buf);
    if (ok) {
        printf("p2p_coop: P%d (d) truncation ok\n", g_me);
    }
}

/* The sender polls its send with gcm_test, so it is awake for every
 * offer (one asleep is not offered a message in two halves). */
static void phase_e(void)
{
    unsigned char *buf = xmalloc(SMALL + 2 * 4093);
    gcm_request_h req;
    gcm_msg_status_t st;
    int ok = 1, i, flag;

    for (i = 0; (i < 24) && ok; i++) {
        size_t n = SMALL + (size_t)(i % 3) * 4093;

        if (g_me == 0) {
            ok &= one_way(buf, n, 5, 1, i);
            continue;
        }
        fill(buf, n, 5, 1, i);
        ok &= gcm_test_ok(gcm_isend(gcm_world(), buf, n, 0, 5, &req),
                          "gcm_isend");
        for (flag = 0; ok && !flag;) {
            ok &= gcm_test_ok(gcm_test(&req, &flag, &st), "gcm_test");
        }
    }
    /* 64 KiB and 5 bytes into 40,000: truncated, in two halves of the
     * 40,000, nothing past them written. */
    if (ok && (g_me == 1)) {
        fill(buf, SMALL + 5, 5, 1, 99);
        ok &= gcm_test_ok(gcm_send(gcm_world(), buf, SMALL + 5, 0, 6),
                          "gcm_send");
    } else if (ok) {
        gcm_status_t status;
        size_t k;

        memset(buf, 0xee, SMALL + 2 * 4093);
        status = gcm_recv(gcm_world(), buf, 40000, 1, 6, &st);
        if (status != GCM_ERR_TRUNCATED) {
            gcm_test_fail("64 KiB into 40000 bytes: %s, expected %s",
                          gcm_status_string(status),
                          gcm_status_string(GCM_ERR_TRUNCATED));
            ok = 0;
        }
        ok &= check(buf, 40000, 5, 1, 99);
        for (k = 40000; ok && (k < SMALL + 2 * 4093); k++) {
            if (buf[k] != 0xee) {
                gcm_test_fail("byte %zu past the receive buffer written", k);
                ok = 0;
            }
        }
    }
    free(buf);
    if (ok) {
        printf("p2p_coop: P%d (e) 64 KiB streaming ok\n", g_me);
    }
}

static double now_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void die(void)
{
    unsigned char *buf = xmalloc(DIE_SIZE);
    gcm_request_h req;
    gcm_msg_status_t st;
    gcm_status_t status;
    double t0;
    int go = 0, flag = 0;

    if (g_me == 1) {
        memset(buf, 0, DIE_SIZE);
        (void)gcm_recv(gcm_world(), &go, sizeof(go), 0, 9, &st);
        if (!gcm_test_ok(gcm_isend(gcm_world(), buf, DIE_SIZE, 0, 10, &req),
                         "gcm_isend")) {
            exit(1);
        }
        /* Take chunks for a moment, then die holding the copy up. */
        t0 = now_s();
        while (now_s() - t0 < 0.002) {
            (void)gcm_test(&req, &flag, &st);
        }
        raise(SIGKILL);
    }
    memset(buf, 0xff, DIE_SIZE);
    if (!gcm_test_ok(gcm_irecv(gcm_world(), buf, DIE_SIZE, 1, 10, &req),
                     "gcm_irecv") ||
        !gcm_test_ok(gcm_send(gcm_world(), &go, sizeof(go), 1, 9),
                     "gcm_send")) {
        exit(1);
    }
    t0 = now_s();
    status = gcm_wait(&req, &st);
    if (status == GCM_OK) {
        const unsigned char *p = buf;

        while ((p < buf + DIE_SIZE) && (*p == 0)) {
            p++;
        }
        if (p < buf + DIE_SIZE) {
            gcm_test_fail("a %zu-byte receive from a process that died "
                          "succeeded with byte %zu not copied", DIE_SIZE,
                          (size_t)(p - buf));
            exit(1);
        }
        printf("p2p_coop: P0 sender died: after the copy, every byte "
               "there\n");
        fflush(stdout);
        exit(0);
    }
    printf("p2p_coop: P0 sender died: %s (after %.2f s)\n",
           gcm_status_string(status), now_s() - t0);
    fflush(stdout);
    free(buf);
    exit(0);
}

int main(int argc, char **argv)
{
    const char *min = getenv("GENCOMM_SHM_COOP_MIN");
    const char *what = "GENCOMM_SHM_COOP_MIN";

    if (!gcm_test_init(&argc, &argv, "p2p_coop")) {
        return 1;
    }
    g_me  = gcm_proc_rank();
    g_min = (min != NULL) ? strtoul(min, NULL, 0) : COOP_DEFAULT;
    if (g_min == 0) {
        /* Off: the same sizes, read by the receiver alone. */
        g_min = COOP_DEFAULT;
        what = "the default threshold";
    }
    if ((g_min < 16384) || (g_min > (2 << 20))) {
        gcm_test_fail("%s=%s: this test wants 16 KiB to 2 MiB", what,
                      (min != NULL) ? min : "");
        return 1;
    }
    if ((gcm_proc_count() >= 2) && (g_me < 2)) {
        if ((argc > 1) && (strcmp(argv[1], "die") == 0)) {
            die();
        }
        if ((argc > 1) && (strcmp(argv[1], "small") == 0)) {
            phase_e();
        } else {
            phase_a();
            phase_b();
            phase_c();
            phase_d();
        }
    }
    return gcm_test_finish();
}
