/*
 * lco/lco_thread.c: what LCOs used by several threads need beyond lco_object.c.
 *
 * An LCO lives on one endpoint, which need not be the endpoint of the
 * thread that uses it: MPIX_Comm_create_threads homes each thread's LCO
 * on an endpoint of its own (gcm_lco_endpoint_reserve) while the thread
 * that will use it may have another. Whoever waits for the LCO's traffic
 * must progress the LCO's endpoint, not the calling thread's (lco_wait.c's
 * gcm_lco_wait_on and gcm_lco_progress do); gcm_lco_endpoint_of tells
 * which it is. And send slots whose receivers are known to exist can skip
 * the acceptance round trip of a first message.
 */
#include "config.h"

#include "lco/lco.h"

int gcm_lco_endpoint_of(gcm_lco_h lco)
{
    if ((lco == NULL) || (lco->magic != GCM_LCO_MAGIC)) {
        return -1;
    }
    return lco->port->endpoint->index;
}

/*
 * Until its receiver has accepted one message, a send slot asks for an
 * answer to every message, and each such send completes only when the
 * answer is back: so a first message costs a round trip, and it completes
 * only once a thread progresses the receiver's endpoint. A thread LCO's
 * receiver may be an endpoint no thread is progressing at that moment (its
 * thread computes, or waits on another endpoint), and a program that
 * relies on small sends completing at once (a ring of MPI_Send before
 * MPI_Recv) would then hang. The names of a structure that the library
 * gathers after every member LCO was made cannot be stale or forged, as
 * for pattern LCOs, whose sends never ask; a refusal (the receiver freed
 * its LCO too early) still marks the slot, so later sends on it fail.
 */
gcm_status_t gcm_lco_trust_send_slots(gcm_lco_h lco, int first, int count)
{
    static const char *call = "gcm_lco_trust_send_slots";
    gcm_port_t *port;
    gcm_status_t status = GCM_OK;
    int i;

    if ((lco == NULL) || (lco->magic != GCM_LCO_MAGIC)) {
        return gcm_fail(GCM_ERR_INVALID_PARAM, call,
                        "not a valid LCO handle");
    }
    port = lco->port;
    if (port->pattern) {
        return GCM_OK;   /* pattern sends never ask for an answer */
    }
    gcm_thr_lock(port->endpoint);
    if ((first < 0) || (count < 0) || (first > port->nsend - count)) {
        status = GCM_ERR_NO_SUCH_SLOT;
    } else {
        for (i = first; i < first + count; i++) {
            if (port->edges[i]->state == GCM_EDGE_NEW) {
                port->edges[i]->state = GCM_EDGE_VALIDATED;
            }
        }
    }
    i = port->nsend;
    gcm_thr_unlock(port->endpoint);
    if (status != GCM_OK) {
        return gcm_fail(status, call, "send slots %d..%d out of range (LCO "
                        "has %d send slots)", first, first + count - 1, i);
    }
    return GCM_OK;
}
