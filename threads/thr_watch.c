/*
 * threads/thr_watch.c: watching new connections to other jobs' processes
 * until UCX has set them up (a flush), asking their contacts meanwhile
 * whether they live; failing a peer reported gone once what it sent
 * before has been handed over.
 */
#define _GNU_SOURCE
#include "config.h"

#include "threads/thr_procs.h"
#include "boot/boot.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int gcm_thr_proc_gone(int proc, double wait_s)
{
    double deadline = gcm_time_now() + wait_s;
    unsigned char rep[GCM_CONTACT_REP_SIZE];
    gcm_thr_contact_t contact;
    gcm_thr_contact_end_t end;
    uint64_t job;
    uint32_t rank;
    int fd, err = 0;

    gcm_thr_proc_ident(proc, &job, &rank, &contact);
    if (contact.port == 0) {
        return 0;
    }
    fd = gcm_thr_contact_open(&contact, deadline, &err);
    if (fd < 0) {
        /* Refused: nobody listens there any more. */
        return (fd == -1) && (err == ECONNREFUSED);
    }
    end = gcm_thr_contact_request(fd, 0, rep, deadline);
    close(fd);
    if (end != GCM_THR_CONTACT_DONE) {
        /* Closed without a reply (a process ending) or answered by
         * another program, else too slow to tell. */
        return end != GCM_THR_CONTACT_TIMEOUT;
    }
    /* A contact that answers for another process: the port was reused. */
    return (gcm_get_le(rep + 8, 8) != job) ||
           (gcm_get_le(rep + 16, 4) != rank);
}

/*
 * UCX sets a connection up (wire-up) and watches its peer (keepalive,
 * UCP_ERR_HANDLING_MODE_PEER) only as traffic goes on it: a connection
 * made only to wait for a receive from a process that then dies may
 * never hear of its death. So a new connection to another job's process
 * is flushed at once (the flush completes when the set-up has), and
 * until then its peer's contact is asked every GCM_THR_PROBE_S whether
 * the process lives. Within a job the launcher reports deaths.
 */
struct gcm_thr_conn_flush {
    gcm_thr_conn_t *conn;    /* NULL once the connection is closed */
};

static void gcm_thr_conn_flushed(void *ucx_req, ucs_status_t ucs,
                                 void *user_data)
{
    struct gcm_thr_conn_flush *flush = user_data;

    (void)ucs;   /* a failure reaches the connection's error handler */
    if (flush->conn != NULL) {
        gcm_thr_conn_unwatch(flush->conn);
    }
    free(flush);
    ucp_request_free(ucx_req);
}

gcm_status_t gcm_thr_conn_watch(gcm_thr_endpoint_t *endpoint,
                                gcm_thr_conn_t *conn)
{
    struct gcm_thr_conn_flush *flush;
    ucp_request_param_t param;
    void *ucx_req;

    if ((conn->flush != NULL) || (conn->ucp_ep == NULL)) {
        return GCM_OK;
    }
    flush = calloc(1, sizeof(*flush));
    if (flush == NULL) {
        return GCM_ERR_NO_MEMORY;
    }
    memset(&param, 0, sizeof(param));
    param.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK |
                         UCP_OP_ATTR_FIELD_USER_DATA;
    param.cb.send      = gcm_thr_conn_flushed;
    param.user_data    = flush;
    ucx_req = ucp_ep_flush_nbx(conn->ucp_ep, &param);
    if (!UCS_PTR_IS_PTR(ucx_req)) {
        /* Set up already (or failed: its error handler says so). */
        free(flush);
        return GCM_OK;
    }
    flush->conn    = conn;
    conn->flush    = flush;
    conn->probe_at = gcm_time_now() + GCM_THR_PROBE_S;
    endpoint->nflushing++;
    return GCM_OK;
}

void gcm_thr_conn_unwatch(gcm_thr_conn_t *conn)
{
    if (conn->flush != NULL) {
        /* Its callback, whenever UCX runs it, frees it. */
        conn->flush->conn = NULL;
        conn->flush = NULL;
        conn->owner->nflushing--;
    }
}

void gcm_thr_conns_probe(gcm_thr_endpoint_t *endpoint)
{
    gcm_thr_conn_t *conn;
    double now;

    if (gcm_likely(endpoint->nflushing == 0)) {
        return;
    }
    now = gcm_time_now();
    for (conn = endpoint->others; conn != NULL; conn = conn->next_other) {
        if ((conn->flush == NULL) || (conn->failed != GCM_OK) ||
            (conn->lost_at != 0) || (now < conn->probe_at)) {
            continue;
        }
        conn->probe_at = now + GCM_THR_PROBE_S;
        if (gcm_thr_proc_gone(conn->proc, GCM_THR_PROBE_WAIT_S)) {
            gcm_debug("process %d of another job is gone (its contact "
                      "says so) before its connection was set up",
                      conn->proc);
            gcm_thr_conn_lost(conn);
        }
    }
}

/*
 * A peer that sends its last messages and exits (a parent after
 * MPI_Comm_disconnect and MPI_Finalize) is reported gone by UCX, or by
 * its contact, with those messages possibly not handed over yet: UCX
 * checks the peer's life (keepalive) and polls its transports in an
 * order of its own, and an idle transport's polling is switched back on
 * by UCX's event thread, maybe after the error is out. Failing the peer
 * at once would fail the receives they complete, and close the UCX
 * endpoint, after which UCX drops them. So the connection stays open for
 * GCM_THR_LOST_GRACE_S, its receives waiting; sends to the peer fail
 * meanwhile in UCX (the endpoint has failed there). Then a round of
 * progress that finds nothing to do fails it (or any round, once
 * GCM_THR_LOST_BUSY_S more have passed).
 */
void gcm_thr_conn_lost(gcm_thr_conn_t *conn)
{
    if ((conn->failed != GCM_OK) || (conn->lost_at != 0)) {
        return;
    }
    conn->lost_at = gcm_time_now() + GCM_THR_LOST_GRACE_S;
    if ((conn->owner->nlost++ == 0) ||
        (conn->lost_at < conn->owner->lost_due)) {
        conn->owner->lost_due = conn->lost_at;
    }
}

void gcm_thr_apply_lost(gcm_thr_endpoint_t *endpoint, int quiet)
{
    double now = gcm_time_now();
    double due = HUGE_VAL;
    gcm_thr_conn_t *conn, *failed;
    int proc;

    /* No connection is due before lost_due: the tables are walked once
     * at the end of the grace, not in every round of progress. */
    if (now < endpoint->lost_due + (quiet ? 0.0 : GCM_THR_LOST_BUSY_S)) {
        return;
    }
    for (proc = 0; (proc < endpoint->nprocs) && (endpoint->nlost > 0);
         proc++) {
        double proc_due = HUGE_VAL;

        failed = NULL;
        for (conn = endpoint->conns[proc]; conn != NULL; conn = conn->next) {
            if (conn->lost_at == 0) {
                continue;
            }
            if ((now >= conn->lost_at) &&
                (quiet || (now >= conn->lost_at + GCM_THR_LOST_BUSY_S))) {
                failed = conn;
                break;
            }
            if (conn->lost_at < proc_due) {
                proc_due = conn->lost_at;
            }
        }
        if (failed != NULL) {
            gcm_debug("process %d failed (reported gone %.1f s ago)", proc,
                      now - failed->lost_at + GCM_THR_LOST_GRACE_S);
            /* Clears lost_at on each of its connections. */
            gcm_thr_peer_failed(endpoint, proc, GCM_ERR_PEER_FAILED);
        } else if (proc_due < due) {
            due = proc_due;
        }
    }
    endpoint->lost_due = due;
}
