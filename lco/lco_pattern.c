/*
 * lco/lco_pattern.c: pattern LCOs for the MPI layer: groups
 * of processes that derive the same LCO identity without exchanging names.
 */
#include "config.h"

#include "lco/lco_impl.h"
#include "boot/boot.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* ---- pattern LCOs for the MPI layer ------------------------------------------ */

gcm_status_t gcm_lco_create_pattern(uint32_t id, uint32_t gen, int n,
                                    const int procs[], int myrank,
                                    gcm_lco_h *lco_p)
{
    return gcm_lco_create_pattern_homed(id, gen, 0, n, procs, myrank, lco_p);
}

gcm_status_t gcm_lco_create_pattern_homed(uint32_t id, uint32_t gen,
                                          uint32_t home, int n,
                                          const int procs[], int myrank,
                                          gcm_lco_h *lco_p)
{
    return gcm_lco_create_pattern_x(id, gen, home, 0, n, procs, myrank,
                                    lco_p);
}

gcm_status_t gcm_lco_token_expect(uint64_t token)
{
    return gcm_slots_token_hold(token);
}

void gcm_lco_token_unexpect(uint64_t token)
{
    gcm_slots_token_release(token);
}

uint64_t gcm_lco_token_of(gcm_lco_h lco)
{
    /* The job's token reads as 0, so that a pattern derived from one
     * made before the job's token was drawn still takes the job's. */
    if (!gcm_lco_valid(lco) || !lco->port->pattern ||
        (lco->port->token == gcm_slots_job_token())) {
        return 0;
    }
    return lco->port->token;
}

gcm_status_t gcm_lco_create_pattern_x(uint32_t id, uint32_t gen,
                                      uint32_t home, uint64_t token, int n,
                                      const int procs[], int myrank,
                                      gcm_lco_h *lco_p)
{
    static const char *call = "gcm_lco_create_pattern";
    gcm_thr_endpoint_t *endpoint;
    gcm_slots_pattern_t group;
    int i, identity = (procs != NULL) && (n == gcm_lco_proc.size);

    GCM_CHECK_INIT(call);
    if (lco_p == NULL) {
        return gcm_fail(GCM_ERR_INVALID_PARAM, call, "lco_p is NULL");
    }
    if (!(id & GCM_PORT_ID_DERIVED)) {
        /* Only derived ids are safe from the counter ids of local LCOs,
         * and only they make early messages wait instead of refused. */
        return gcm_fail(GCM_ERR_INVALID_PARAM, call,
                        "id %#x is not a derived id (use "
                        "gcm_lco_derive_id)", id);
    }
    if (n <= 0) {
        return gcm_fail(GCM_ERR_INVALID_PARAM, call,
                        "group size %d is not positive", n);
    }
    /* myrank is a rank in the local group, which for an
     * intercommunicator is not the group procs[] lists: only its sign can
     * be checked here. */
    if (myrank < 0) {
        return gcm_fail(GCM_ERR_INVALID_PARAM, call, "myrank %d is negative",
                        myrank);
    }
    if ((procs == NULL) && (n > gcm_lco_proc.size)) {
        return gcm_fail(GCM_ERR_INVALID_PARAM, call,
                        "identity group of %d processes in a %d-process job",
                        n, gcm_lco_proc.size);
    }
    for (i = 0; (procs != NULL) && (i < n); i++) {
        /* A process of this job, or one of another job it knows of. */
        if ((procs[i] < 0) || (procs[i] >= gcm_thr_procs_cap()) ||
            (gcm_thr_proc_other(procs[i]) && (token == 0))) {
            return gcm_fail(GCM_ERR_INVALID_PARAM, call,
                            "procs[%d] = %d is not a process of this "
                            "%d-process job%s", i, procs[i],
                            gcm_lco_proc.size,
                            (token == 0) ? "" : " nor a known one of another");
        }
        identity = identity && (procs[i] == i);
    }
    /* Every member puts it on the endpoint its home key gives for its
     * own endpoint count, and senders compute the same from the count
     * the receiver published. */
    endpoint = gcm_thr_endpoint_get(gcm_thr_home_index(
                   home, gcm_thr_num_endpoints()));
    if (gcm_slots_port_exists(endpoint, id, gen)) {
        return gcm_fail(GCM_ERR_BUSY, call,
                        "an LCO with identity %#x/%#x exists already", id,
                        gen);
    }
    group.size   = n;
    /* The whole job in order (a duplicate of the world) is stored as the
     * world is: as nothing, whatever the job's size. */
    group.procs  = identity ? NULL : procs;
    group.myrank = myrank;
    group.home   = home;
    gcm_debug("pattern LCO %#x of %d processes on endpoint %d (home %u)",
              id, n, endpoint->index, home);
    return gcm_lco_pattern_new(endpoint, id, gen, token, &group, call,
                               lco_p);
}

int gcm_lco_valid(gcm_lco_h lco)
{
    return gcm_initialized() && (lco != NULL) &&
           (lco->magic == GCM_LCO_MAGIC);
}

void gcm_lco_derive_id(gcm_lco_h parent, uint32_t *id_p, uint32_t *gen_p)
{
    gcm_lco_derive_id_homed(parent, id_p, gen_p, NULL);
}

void gcm_lco_derive_id_homed(gcm_lco_h parent, uint32_t *id_p,
                             uint32_t *gen_p, uint32_t *home_p)
{
    if (!gcm_lco_valid(parent) || (id_p == NULL) || (gen_p == NULL)) {
        gcm_fail(GCM_ERR_INVALID_PARAM, "gcm_lco_derive_id",
                 "not a valid LCO handle or NULL output");
        return;
    }
    gcm_slots_derive_id(parent->port, id_p, gen_p, home_p);
}

void gcm_lco_derive_id_keyed(gcm_lco_h parent, uint64_t key, uint32_t *id_p,
                             uint32_t *gen_p)
{
    if (!gcm_lco_valid(parent) || (id_p == NULL) || (gen_p == NULL)) {
        gcm_fail(GCM_ERR_INVALID_PARAM, "gcm_lco_derive_id_keyed",
                 "not a valid LCO handle or NULL output");
        return;
    }
    gcm_slots_derive_id_keyed(parent->port, key, id_p, gen_p);
}

int gcm_lco_pattern_of(gcm_lco_h lco, int *n_p, const int **procs_p,
                       int *myrank_p)
{
    /* A pattern's group never changes after creation: no lock needed. */
    if (!gcm_lco_valid(lco) || !lco->port->pattern) {
        return 0;
    }
    if (n_p != NULL) {
        *n_p = lco->port->nsend;
    }
    if (procs_p != NULL) {
        *procs_p = lco->port->procs;
    }
    if (myrank_p != NULL) {
        *myrank_p = lco->port->myrank;
    }
    return 1;
}

/* Where send slot slot goes; 0 if it does not exist. */
static int gcm_lco_send_dest(gcm_lco_h lco, int slot, gcm_slots_dest_t *dest)
{
    gcm_port_t *port;
    int found = 0;

    if (!gcm_lco_valid(lco) || (slot < 0)) {
        return 0;
    }
    port = lco->port;
    if (port->pattern) {
        if (slot >= port->nsend) {
            return 0;
        }
        dest->proc  = (uint32_t)gcm_slots_pattern_proc(port, slot);
        dest->ep    = (uint16_t)gcm_slots_pattern_ep(port, (int)dest->proc);
        dest->id    = port->id;
        dest->gen   = port->gen;
        dest->rslot = port->myrank;
        return 1;
    }
    gcm_thr_lock(port->endpoint);
    if (slot < port->nsend) {
        *dest = port->edges[slot]->dest;
        found = 1;
    }
    gcm_thr_unlock(port->endpoint);
    return found;
}

int gcm_lco_send_slot_proc(gcm_lco_h lco, int slot)
{
    gcm_slots_dest_t dest;

    return gcm_lco_send_dest(lco, slot, &dest) ? (int)dest.proc : -1;
}

int gcm_lco_send_slot_is_self(gcm_lco_h lco, int slot)
{
    gcm_slots_dest_t dest;

    if (!gcm_lco_send_dest(lco, slot, &dest)) {
        return 0;
    }
    return ((int)dest.proc == gcm_lco_proc.rank) &&
           (dest.ep == (uint16_t)lco->port->endpoint->index) &&
           (dest.id == lco->port->id) && (dest.gen == lco->port->gen);
}
