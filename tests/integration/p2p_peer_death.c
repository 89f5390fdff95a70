/*
 * p2p_peer_death: a peer that dies must fail the requests that depend on
 * it, never hang them.
 *
 * Process 1 sends a few messages to process 0, waits until process 0 has
 * them (so none is lost in flight by the kill), then kills itself with
 * SIGKILL. Before letting it go, process 0 posts a receive on world slot 1
 * that process 1 will never satisfy and starts a large send to process 1
 * that it will never receive. Both must complete with GCM_ERR_PEER_FAILED;
 * later sends and receives on that slot must fail the same way. Process 0
 * prints "peer failure detected: <status text>". Processes 2 and up check
 * that the world LCO still works among the survivors.
 *
 * The same pair of operations on an LCO of every process that lives on
 * another endpoint than the world (a homed pattern LCO, as an MPI
 * duplicate is) must fail too: a death applies to every endpoint. They are
 * waited for after the world's, so they fail while the waits were on the
 * world's endpoint, or later on their own.
 *
 * The test script runs it under `timeout` with GENCOMM_KILL_GRACE_MS set,
 * expects gcrun to exit with 137 and to report that rank 1 was killed by
 * signal 9, and expects process 0's line in the output.
 */
#include "config.h"

#include "lco/lco.h"

#include "gcm_test.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define DATA_TAG   1
#define ACK_TAG    2
#define BIG_TAG    3
#define NEVER_TAG  4
#define ALIVE_TAG  5
#define NUM_MSGS   3
#define BIG_SIZE   (16 << 20)

static int g_me;
static gcm_lco_h g_homed;   /* fully connected, on an endpoint of its own */

static double now_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void victim(void)
{
    gcm_msg_status_t st;
    int ack = 0;
    int i;

    for (i = 0; i < NUM_MSGS; i++) {
        if (gcm_send(gcm_world(), &i, sizeof(i), 0, DATA_TAG) != GCM_OK) {
            gcm_test_fail("gcm_send %d: %s", i, gcm_last_error());
        }
    }
    if (gcm_recv(gcm_world(), &ack, sizeof(ack), 0, ACK_TAG, &st) !=
        GCM_OK) {
        gcm_test_fail("gcm_recv(ack): %s", gcm_last_error());
    }
    printf("p2p_peer_death: P1 got the acknowledgement, dying now\n");
    fflush(stdout);
    raise(SIGKILL);
}

/* A send or receive started after the failure is refused too. */
static void check_after(void)
{
    gcm_request_h req = GCM_REQUEST_NULL;
    gcm_msg_status_t st;
    gcm_status_t status;
    int v = 7;

    status = gcm_send(gcm_world(), &v, sizeof(v), 1, DATA_TAG);
    if (status != GCM_ERR_PEER_FAILED) {
        gcm_test_fail("send to the dead process: %s, expected %s",
                      gcm_status_string(status),
                      gcm_status_string(GCM_ERR_PEER_FAILED));
    }
    status = gcm_irecv(gcm_world(), &v, sizeof(v), 1, NEVER_TAG, &req);
    if (status == GCM_OK) {
        status = gcm_wait(&req, &st);
    }
    if (status != GCM_ERR_PEER_FAILED) {
        gcm_test_fail("receive from the dead process: %s, expected %s",
                      gcm_status_string(status),
                      gcm_status_string(GCM_ERR_PEER_FAILED));
    }
}

static void survivor0(int nprocs)
{
    gcm_request_h reqs[3], hreqs[2];
    gcm_msg_status_t sts[3], hsts[2];
    gcm_msg_status_t st;
    gcm_status_t status;
    unsigned char *big;
    int never = -1;
    int ack = 1;
    int v;
    int r;
    int i;
    double t0;
    double dt;

    /* The messages sent before the death all arrive, in order. */
    for (i = 0; i < NUM_MSGS; i++) {
        v = -1;
        status = gcm_recv(gcm_world(), &v, sizeof(v), 1, DATA_TAG, &st);
        if ((status != GCM_OK) || (v != i)) {
            gcm_test_fail("message %d from P1: %s, value %d", i,
                          gcm_status_string(status), v);
        }
    }

    big = malloc(BIG_SIZE);
    if (big == NULL) {
        gcm_test_fail("out of memory");
        return;
    }
    memset(big, 0x3c, BIG_SIZE);
    if ((gcm_irecv(gcm_world(), &never, sizeof(never), 1, NEVER_TAG,
                   &reqs[0]) != GCM_OK) ||
        (gcm_isend(gcm_world(), big, BIG_SIZE, 1, BIG_TAG, &reqs[1]) !=
         GCM_OK) ||
        (gcm_isend(gcm_world(), &ack, sizeof(ack), 1, ACK_TAG, &reqs[2]) !=
         GCM_OK)) {
        gcm_test_fail("posting the doomed operations: %s", gcm_last_error());
        free(big);
        return;
    }

    if ((gcm_irecv(g_homed, &never, sizeof(never), 1, NEVER_TAG,
                   &hreqs[0]) != GCM_OK) ||
        (gcm_isend(g_homed, big, BIG_SIZE, 1, BIG_TAG, &hreqs[1]) !=
         GCM_OK)) {
        gcm_test_fail("posting the doomed operations on the homed LCO: %s",
                      gcm_last_error());
        free(big);
        return;
    }

    t0 = now_s();
    memset(sts, 0, sizeof(sts));
    status = gcm_waitall(3, reqs, sts);
    dt = now_s() - t0;
    if (status == GCM_OK) {
        gcm_test_fail("gcm_waitall returned success although process 1 died");
    }
    if (sts[0].error != GCM_ERR_PEER_FAILED) {
        gcm_test_fail(
            "receive from the dead process completed with %s, expected %s",
            gcm_status_string(sts[0].error),
            gcm_status_string(GCM_ERR_PEER_FAILED));
    }
    if (sts[1].error != GCM_ERR_PEER_FAILED) {
        gcm_test_fail(
            "%d-byte send to the dead process completed with %s, expected "
            "%s",
            BIG_SIZE, gcm_status_string(sts[1].error),
            gcm_status_string(GCM_ERR_PEER_FAILED));
    }
    /* The acknowledgement itself may or may not beat the kill. */
    if ((sts[2].error != GCM_OK) && (sts[2].error != GCM_ERR_PEER_FAILED)) {
        gcm_test_fail("acknowledgement send completed with %s",
                      gcm_status_string(sts[2].error));
    }
    if ((sts[0].error == GCM_ERR_PEER_FAILED) &&
        (sts[1].error == GCM_ERR_PEER_FAILED)) {
        printf("peer failure detected: %s (after %.2f s)\n",
               gcm_status_string(sts[0].error), dt);
    }
    memset(hsts, 0, sizeof(hsts));
    (void)gcm_waitall(2, hreqs, hsts);
    for (i = 0; i < 2; i++) {
        if (hsts[i].error != GCM_ERR_PEER_FAILED) {
            gcm_test_fail(
                "%s on the LCO of endpoint %d completed with %s, expected "
                "%s",
                (i == 0) ? "receive" : "send", g_homed->port->endpoint->index,
                gcm_status_string(hsts[i].error),
                gcm_status_string(GCM_ERR_PEER_FAILED));
        }
    }
    if ((hsts[0].error == GCM_ERR_PEER_FAILED) &&
        (hsts[1].error == GCM_ERR_PEER_FAILED)) {
        printf("peer failure detected on endpoint %d too\n",
               g_homed->port->endpoint->index);
    }
    free(big);

    check_after();

    /* The other processes are unaffected. */
    for (r = 2; r < nprocs; r++) {
        v = 1000 + r;
        if (gcm_send(gcm_world(), &v, sizeof(v), r, ALIVE_TAG) != GCM_OK) {
            gcm_test_fail("send to surviving P%d: %s", r, gcm_last_error());
            continue;
        }
        v = -1;
        status = gcm_recv(gcm_world(), &v, sizeof(v), r, ALIVE_TAG, &st);
        if ((status != GCM_OK) || (v != 2000 + r)) {
            gcm_test_fail("reply from surviving P%d: %s, value %d", r,
                          gcm_status_string(status), v);
        }
    }
    if ((gcm_test_failed() == 0) && (nprocs > 2)) {
        printf("p2p_peer_death: P0 still talks to the %d other survivors\n",
               nprocs - 2);
    }
}

static void survivor(void)
{
    gcm_msg_status_t st;
    int v = -1;

    if (gcm_recv(gcm_world(), &v, sizeof(v), 0, ALIVE_TAG, &st) != GCM_OK) {
        gcm_test_fail("gcm_recv from P0: %s", gcm_last_error());
        return;
    }
    v += 1000;
    if (gcm_send(gcm_world(), &v, sizeof(v), 0, ALIVE_TAG) != GCM_OK) {
        gcm_test_fail("gcm_send to P0: %s", gcm_last_error());
    }
}

int main(int argc, char **argv)
{
    gcm_status_t status;
    int nprocs;

    if (!gcm_test_init(&argc, &argv, "p2p_peer_death")) {
        return 1;
    }
    g_me = gcm_proc_rank();
    nprocs = gcm_proc_count();
    {
        /* Every process derives it in the same order: the same identity
         * and endpoint everywhere, no message. */
        uint32_t id, gen, home;
        gcm_lco_derive_id_homed(gcm_world(), &id, &gen, &home);
        status = gcm_lco_create_pattern_homed(id, gen, home, nprocs, NULL,
                                              g_me, &g_homed);
        if (status != GCM_OK) {
            fprintf(stderr, "p2p_peer_death: no homed LCO: %s\n",
                    gcm_last_error());
            return 1;
        }
    }
    if (nprocs < 2) {
        gcm_test_fail("needs at least 2 processes");
    } else if (g_me == 1) {
        victim();
    } else if (g_me == 0) {
        survivor0(nprocs);
    } else {
        survivor();
    }
    if (g_me == 0) {
        printf("p2p_peer_death: P0 checks %s\n",
               (gcm_test_failed() == 0) ? "passed" : "FAILED");
    }
    fflush(stdout);
    gcm_lco_free(&g_homed);

    /*
     * Finalize synchronizes with every process, and one is dead: it may
     * return an error, or gcrun may end this process after its grace
     * period. Either way the checks above decide the exit status.
     */
    status = gcm_finalize();
    if (status != GCM_OK) {
        printf("p2p_peer_death: P%d: gcm_finalize: %s\n", g_me,
               gcm_status_string(status));
    }
    return (gcm_test_failed() == 0) ? 0 : 1;
}
