/*
 * p2p_lost: a peer that UCX reports gone while a message it sent before
 * has arrived but was not handed over yet (internal header, internal
 * library; run with GENCOMM_SHM=0, so that UCX carries the messages).
 *
 * That is a parent that sends its part of MPI_Comm_disconnect's barrier,
 * finalizes and exits while its child is descheduled: when the child runs
 * again, UCX may report the parent's end (keepalive) before it hands over
 * the barrier's message, and the child's disconnect failed with "peer
 * process failed or exited" (examples/spawn_children, under load). Here
 * the order is made, not waited for: process 1 posts a receive from
 * process 0, holds its endpoint's lock (no progress), lets process 0 send
 * (a file says go), and once process 0 has sent (another file) calls what
 * UCX's error handler calls, gcm_thr_conn_lost, under that lock as UCX
 * would. Then:
 *   1. the receive gets the message (it came before the report);
 *   2. a second receive from process 0 fails with GCM_ERR_PEER_FAILED,
 *      after GCM_THR_LOST_GRACE_S (the report is not lost either).
 * Process 0 waits for a third file before it finalizes. The files are in
 * the folder named by argv[1]. Process 1 prints "P1 checks passed".
 */
#include "config.h"

#include "lco/lco.h"
#include "threads/thr.h"

#include "gcm_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define WARM_TAG  1
#define DATA_TAG  2
#define LATE_TAG  3
/* Generous: a step of the other process under heavy load. */
#define FILE_WAIT_S 60

static char dir[512];

static void touch(const char *name)
{
    char path[600];
    FILE *f;

    snprintf(path, sizeof(path), "%s/%s", dir, name);
    f = fopen(path, "w");
    if (f == NULL) {
        gcm_test_fail("cannot create %s", path);
        return;
    }
    fclose(f);
}

/* Waits for the other process's file, without calling the library. */
static int await(const char *name)
{
    char path[600];
    int i;

    snprintf(path, sizeof(path), "%s/%s", dir, name);
    for (i = 0; i < FILE_WAIT_S * 100; i++) {
        if (access(path, F_OK) == 0) {
            return 1;
        }
        usleep(10000);
    }
    gcm_test_fail("%s did not appear within %d s", path, FILE_WAIT_S);
    return 0;
}

static void sender(gcm_lco_h world)
{
    long v = 7;

    gcm_test_ok(gcm_send(world, &v, sizeof(v), 1, WARM_TAG), "warm send");
    gcm_test_ok(gcm_recv(world, &v, sizeof(v), 1, WARM_TAG, NULL),
                "warm recv");
    if (!await("go")) {
        return;
    }
    v = 42;
    /* Eager: complete once it is in the receiver's transport. */
    gcm_test_ok(gcm_send(world, &v, sizeof(v), 1, DATA_TAG), "data send");
    touch("sent");
    (void)await("done");
}

static void receiver(gcm_lco_h world)
{
    gcm_thr_endpoint_t *ep;
    gcm_thr_conn_t *conn;
    gcm_request_h req;
    gcm_status_t status;
    double t0;
    long v = 0, late = 0;

    gcm_test_ok(gcm_recv(world, &v, sizeof(v), 0, WARM_TAG, NULL),
                "warm recv");
    gcm_test_ok(gcm_send(world, &v, sizeof(v), 0, WARM_TAG), "warm send");
    v = 0;
    if (!gcm_test_ok(gcm_irecv(world, &v, sizeof(v), 0, DATA_TAG, &req),
                     "data irecv")) {
        return;
    }
    ep = gcm_thr_endpoint_get(gcm_lco_endpoint_of(world));
    CHECK(ep != NULL, "no endpoint for the world LCO");
    if (ep == NULL) {
        return;
    }
    gcm_thr_lock(ep);
    touch("go");
    if (await("sent")) {
        conn = gcm_thr_conn_find(ep, 0, 0);
        CHECK((conn != NULL) && (conn->ucp_ep != NULL),
              "no UCX connection to process 0 (GENCOMM_SHM=0?)");
        if ((conn != NULL) && (conn->ucp_ep != NULL)) {
            /* What UCX's error handler does, inside progress. */
            gcm_thr_conn_lost(conn);
        }
    }
    gcm_thr_unlock(ep);
    status = gcm_wait(&req, NULL);
    CHECK((status == GCM_OK) && (v == 42), "the message sent before the "
          "report: %s, value %ld (expected ok, 42)", gcm_status_string(status),
          v);
    if ((status == GCM_OK) && (v == 42)) {
        printf("p2p_lost: the message sent before the report was "
               "received\n");
    }
    t0 = gcm_time_now();
    status = gcm_recv(world, &late, sizeof(late), 0, LATE_TAG, NULL);
    CHECK(status == GCM_ERR_PEER_FAILED, "a receive after the report: %s "
          "(expected peer failed)", gcm_status_string(status));
    if (status == GCM_ERR_PEER_FAILED) {
        printf("p2p_lost: a later receive failed after %.1f s\n",
               gcm_time_now() - t0);
    }
    touch("done");
    if (gcm_test_failed() == 0) {
        printf("p2p_lost: P1 checks passed\n");
    }
}

int main(int argc, char **argv)
{
    gcm_status_t status;
    gcm_lco_h world;
    int me;

    if (!gcm_test_init(&argc, &argv, "p2p_lost")) {
        return 1;
    }
    if (argc < 2) {
        gcm_test_fail("usage: p2p_lost DIR");
        gcm_finalize();
        return 1;
    }
    snprintf(dir, sizeof(dir), "%s", argv[1]);
    world = gcm_world();
    me = gcm_proc_rank();
    if (gcm_proc_count() != 2) {
        gcm_test_fail("needs 2 processes");
    } else if (me == 0) {
        sender(world);
    } else {
        receiver(world);
    }
    /* Each was told the other is gone (process 1 by the report, process
     * 0 when process 1 closed its connection): finalize's barrier may
     * fail so, and ends anyway. */
    status = gcm_finalize();
    CHECK((status == GCM_OK) || (status == GCM_ERR_PEER_FAILED),
          "gcm_finalize: %s", gcm_status_string(status));
    fflush(stdout);
    return (gcm_test_failed() == 0) ? 0 : 1;
}
