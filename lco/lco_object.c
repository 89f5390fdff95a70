/*
 * lco/lco_object.c: LCOs and their slots: create, dup, free,
 * names, send and receive slots, handlers, offers.
 */
#include "config.h"

#include "lco/lco_impl.h"
#include "boot/boot.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* ---- LCOs -------------------------------------------------------------------- */

gcm_status_t gcm_lco_create(gcm_lco_h *lco_p)
{
    GCM_CHECK_INIT("gcm_lco_create");
    return gcm_lco_create_on(gcm_thr_endpoint_current()->index, lco_p);
}

gcm_status_t gcm_lco_create_on(int endpoint_index, gcm_lco_h *lco_p)
{
    gcm_thr_endpoint_t *endpoint = gcm_thr_endpoint_get(endpoint_index);
    struct gcm_lco *lco;
    uint32_t gen;
    uint64_t token;
    gcm_status_t status;

    GCM_CHECK_INIT("gcm_lco_create");
    if (lco_p == NULL) {
        return gcm_fail(GCM_ERR_INVALID_PARAM, "gcm_lco_create",
                        "lco_p is NULL");
    }
    if (endpoint == NULL) {
        return gcm_fail(GCM_ERR_INVALID_PARAM, "gcm_lco_create",
                        "no endpoint %d (this process has %d)",
                        endpoint_index, gcm_thr_num_endpoints());
    }
    lco = calloc(1, sizeof(*lco));
    if (lco == NULL) {
        return gcm_fail(GCM_ERR_NO_MEMORY, "gcm_lco_create",
                        "no memory for the LCO");
    }
    /* Ids are never reused in a process; the random generation and token
     * make a name unguessable and a stale one detectable. */
    gcm_random_bytes(&gen, sizeof(gen));
    gcm_random_bytes(&token, sizeof(token));
    status = gcm_slots_port_create(endpoint,
                                   gcm_slots_next_port_id(), gen, token,
                                   NULL, &lco->port);
    if (status != GCM_OK) {
        free(lco);
        return gcm_fail(status, "gcm_lco_create", "cannot create the LCO");
    }
    lco->magic = GCM_LCO_MAGIC;
    pthread_mutex_lock(&gcm_lco_proc.list_lock);
    gcm_list_push_back(&gcm_lco_proc.lcos, &lco->elem);
    pthread_mutex_unlock(&gcm_lco_proc.list_lock);
    *lco_p = lco;
    return GCM_OK;
}

/* A pattern LCO with identity (id, gen) on endpoint, in the list of live
 * LCOs. */
gcm_status_t gcm_lco_pattern_new(gcm_thr_endpoint_t *endpoint, uint32_t id,
                                 uint32_t gen, uint64_t token,
                                 const gcm_slots_pattern_t *group,
                                 const char *call, gcm_lco_h *lco_p)
{
    struct gcm_lco *lco = calloc(1, sizeof(*lco));
    gcm_status_t status;

    if (lco == NULL) {
        return gcm_fail(GCM_ERR_NO_MEMORY, call, "no memory for the LCO");
    }
    status = gcm_slots_port_create(endpoint, id, gen, token, group,
                                   &lco->port);
    if (status != GCM_OK) {
        free(lco);
        return gcm_fail(status, call, "cannot create the LCO");
    }
    lco->magic = GCM_LCO_MAGIC;
    pthread_mutex_lock(&gcm_lco_proc.list_lock);
    gcm_list_push_back(&gcm_lco_proc.lcos, &lco->elem);
    pthread_mutex_unlock(&gcm_lco_proc.list_lock);
    *lco_p = lco;
    return GCM_OK;
}

gcm_status_t gcm_lco_dup(gcm_lco_h lco, gcm_lco_h *newlco_p)
{
    static const char *call = "gcm_lco_dup";
    gcm_slots_pattern_t group;
    uint32_t id, gen;

    GCM_CHECK_LCO(call, lco);
    if (newlco_p == NULL) {
        return gcm_fail(GCM_ERR_INVALID_PARAM, call, "newlco_p is NULL");
    }
    if (!lco->port->pattern) {
        return gcm_fail(GCM_ERR_INVALID_PARAM, call,
                        "only LCOs the library builds (the world, "
                        "duplicates) can be duplicated without messages");
    }
    gcm_slots_derive_id(lco->port, &id, &gen, NULL);
    group.size   = lco->port->nsend;
    group.procs  = lco->port->procs;
    group.myrank = lco->port->myrank;
    /* Homed where the parent is, in every member: that is where its
     * peers' traffic for the parent goes, so the duplicate needs no new
     * address. */
    group.home   = lco->port->home;
    /* A duplicate of a pattern shared with another job keeps its token,
     * which that job's members hold too. */
    return gcm_lco_pattern_new(lco->port->endpoint, id, gen,
                               gcm_lco_token_of(lco), &group, call,
                               newlco_p);
}

gcm_status_t gcm_lco_free(gcm_lco_h *lco_p)
{
    struct gcm_lco *lco;

    GCM_CHECK_INIT("gcm_lco_free");
    if (lco_p == NULL) {
        return gcm_fail(GCM_ERR_INVALID_PARAM, "gcm_lco_free",
                        "lco_p is NULL");
    }
    lco = *lco_p;
    if ((lco == NULL) || (lco->magic != GCM_LCO_MAGIC)) {
        return gcm_fail(GCM_ERR_INVALID_PARAM, "gcm_lco_free",
                        "not a valid LCO handle");
    }
    if (lco == &gcm_lco_proc.world) {
        return gcm_fail(GCM_ERR_INVALID_PARAM, "gcm_lco_free",
                        "the world LCO belongs to the library");
    }
    pthread_mutex_lock(&gcm_lco_proc.list_lock);
    gcm_list_del(&lco->elem);
    pthread_mutex_unlock(&gcm_lco_proc.list_lock);
    gcm_slots_port_destroy(lco->port);
    lco->magic = 0;
    free(lco);
    *lco_p = NULL;
    return GCM_OK;
}

static void gcm_lco_ref_of(const struct gcm_lco *lco, gcm_lco_ref_t *ref)
{
    gcm_thr_contact_t contact;

    memset(ref, 0, sizeof(*ref));
    ref->proc  = (uint32_t)gcm_lco_proc.rank;
    ref->ep    = (uint16_t)lco->port->endpoint->index;
    ref->id    = lco->port->id;
    ref->gen   = lco->port->gen;
    ref->token = lco->port->token;
    ref->job   = gcm_lco_proc.job;
    /* Where a process of another job asks for this endpoint's address:
     * the service starts with the first name this process makes. */
    if (gcm_thr_contact_self(&contact) == GCM_OK) {
        ref->ip4  = contact.ip4;
        ref->port = contact.port;
    }
}

gcm_status_t gcm_lco_name(gcm_lco_h lco, gcm_name_t *name_p)
{
    gcm_lco_ref_t ref;

    GCM_CHECK_LCO("gcm_lco_name", lco);
    if (name_p == NULL) {
        return gcm_fail(GCM_ERR_INVALID_PARAM, "gcm_lco_name",
                        "name_p is NULL");
    }
    gcm_lco_ref_of(lco, &ref);
    gcm_lco_name_encode(&ref, name_p);
    return GCM_OK;
}

gcm_status_t gcm_slot_name(gcm_lco_h lco, int rslot, gcm_slotname_t *name_p)
{
    gcm_lco_ref_t ref;
    gcm_port_t *port;
    int nrecv;

    GCM_CHECK_LCO("gcm_slot_name", lco);
    if (name_p == NULL) {
        return gcm_fail(GCM_ERR_INVALID_PARAM, "gcm_slot_name",
                        "name_p is NULL");
    }
    if (lco->port->pattern) {
        return gcm_fail(GCM_ERR_INVALID_PARAM, "gcm_slot_name",
                        "LCOs the library builds (the world, duplicates) have no slot names");
    }
    port = lco->port;
    gcm_lco_ref_of(lco, &ref);
    gcm_thr_lock(port->endpoint);
    nrecv = port->nrecv;
    if ((rslot >= 0) && (rslot < nrecv)) {
        ref.token = gcm_slots_recv_token(port, rslot);
    }
    gcm_thr_unlock(port->endpoint);
    if ((rslot < 0) || (rslot >= nrecv)) {
        return gcm_fail(GCM_ERR_NO_SUCH_SLOT, "gcm_slot_name",
                        "receive slot %d out of range (LCO has %d receive "
                        "slots)", rslot, nrecv);
    }
    ref.rslot = rslot;
    gcm_lco_slotname_encode(&ref, name_p);
    return GCM_OK;
}

/* Checks a decoded name before it becomes a send slot, and turns the
 * process it names (a rank of its job) into this process's index of it:
 * the rank itself in this job, a process of another job's index from
 * the job size up (learnt now, reached through the name's contact). */
static gcm_status_t gcm_lco_check_ref(const char *call, int index,
                                      gcm_lco_ref_t *ref)
{
    gcm_thr_contact_t contact;
    int proc;

    if (ref->job == gcm_lco_proc.job) {
        if (ref->proc >= (uint32_t)gcm_lco_proc.size) {
            return gcm_fail(GCM_ERR_INVALID_PARAM, call,
                            "name %d names process %u of a %d-process job",
                            index, ref->proc, gcm_lco_proc.size);
        }
        return GCM_OK;
    }
    contact.ip4  = ref->ip4;
    contact.port = ref->port;
    proc = gcm_thr_proc_lookup(ref->job, ref->proc, &contact);
    if (proc < 0) {
        return gcm_fail(GCM_ERR_INVALID_PARAM, call, "name %d, of rank %u "
                        "of job %016llx: %s", index, ref->proc,
                        (unsigned long long)ref->job, gcm_last_error());
    }
    ref->proc = (uint32_t)proc;
    return GCM_OK;
}

static void gcm_lco_dest_of(const gcm_lco_ref_t *ref, int rslot,
                            gcm_slots_dest_t *dest)
{
    dest->proc  = ref->proc;
    dest->ep    = ref->ep;
    dest->kind  = (uint16_t)ref->kind;
    dest->id    = ref->id;
    dest->gen   = ref->gen;
    dest->token = ref->token;
    dest->rslot = rslot;
}

/* LCOs the library builds (the world, duplicates) are not the program's
 * to change. */
static gcm_status_t gcm_lco_check_changeable(const char *call, gcm_lco_h lco)
{
    if (lco->port->pattern) {
        return gcm_fail(GCM_ERR_INVALID_PARAM, call, "LCOs the library "
                        "builds (the world, duplicates) cannot be changed");
    }
    return GCM_OK;
}

/* The checks of the calls that add count slots to lco. */
static gcm_status_t gcm_lco_check_grow(const char *call, gcm_lco_h lco,
                                       int count)
{
    gcm_status_t status;

    GCM_CHECK_LCO(call, lco);
    if ((status = gcm_lco_check_changeable(call, lco)) != GCM_OK) {
        return status;
    }
    if (count < 0) {
        return gcm_fail(GCM_ERR_INVALID_PARAM, call, "count %d is negative",
                        count);
    }
    return GCM_OK;
}

gcm_status_t gcm_lco_add_send_slots(gcm_lco_h lco, int count,
                                    const gcm_name_t names[],
                                    const int rslots[])
{
    static const char *call = "gcm_lco_add_send_slots";
    /* A few slots at a time (a new channel adds one) need no heap. */
    gcm_slots_dest_t few[4];
    gcm_slots_dest_t *dests = few;
    gcm_lco_ref_t ref;
    const char *why;
    gcm_status_t status = GCM_OK;
    int i;

    if ((status = gcm_lco_check_grow(call, lco, count)) != GCM_OK) {
        return status;
    }
    if (count == 0) {
        return GCM_OK;
    }
    if ((names == NULL) || (rslots == NULL)) {
        return gcm_fail(GCM_ERR_INVALID_PARAM, call,
                        "names or rslots is NULL");
    }
    if (count > GCM_MAX_SLOTS) {
        return gcm_fail(GCM_ERR_INVALID_PARAM, call, "%d send slots are "
                        "more than an LCO may have (GCM_MAX_SLOTS, %d)",
                        count, GCM_MAX_SLOTS);
    }
    if (count > (int)(sizeof(few) / sizeof(few[0]))) {
        dests = malloc((size_t)count * sizeof(*dests));
        if (dests == NULL) {
            return gcm_fail(GCM_ERR_NO_MEMORY, call,
                            "no memory for %d slots", count);
        }
    }
    /* Check all before adding any, so a bad name adds nothing. */
    for (i = 0; i < count; i++) {
        if (gcm_lco_name_decode(&names[i], &ref, &why) != GCM_OK) {
            status = gcm_fail(GCM_ERR_INVALID_PARAM, call, "name %d: %s", i,
                              why);
            goto out;
        }
        status = gcm_lco_check_ref(call, i, &ref);
        if (status != GCM_OK) {
            goto out;
        }
        if (rslots[i] < 0) {
            status = gcm_fail(GCM_ERR_INVALID_PARAM, call,
                              "receive slot %d of name %d is negative",
                              rslots[i], i);
            goto out;
        }
        gcm_lco_dest_of(&ref, rslots[i], &dests[i]);
    }
    gcm_thr_lock(lco->port->endpoint);
    if (count > GCM_MAX_SLOTS - lco->port->nsend) {
        /* Checked under the lock the additions take: none is added. */
        i = lco->port->nsend;
        gcm_thr_unlock(lco->port->endpoint);
        status = gcm_fail(GCM_ERR_INVALID_PARAM, call, "%d more send slots "
                          "on top of %d are more than an LCO may have "
                          "(GCM_MAX_SLOTS, %d)", count, i, GCM_MAX_SLOTS);
        goto out;
    }
    for (i = 0; (i < count) && (status == GCM_OK); i++) {
        status = gcm_slots_port_add_send(lco->port, &dests[i]);
    }
    gcm_thr_unlock(lco->port->endpoint);
    if (status != GCM_OK) {
        gcm_fail(status, call, "could not add send slot %d", i - 1);
    }
out:
    if (dests != few) {
        free(dests);
    }
    return status;
}

/* Appends a send slot for a slot name; *index_p (may be NULL) gets its
 * index, read under the same lock as the append. */
static gcm_status_t gcm_lco_add_slotname(const char *call, gcm_lco_h lco,
                                         const gcm_slotname_t *name,
                                         int *index_p)
{
    gcm_slots_dest_t dest;
    gcm_lco_ref_t ref;
    const char *why;
    gcm_status_t status;

    if ((status = gcm_lco_check_changeable(call, lco)) != GCM_OK) {
        return status;
    }
    if (name == NULL) {
        return gcm_fail(GCM_ERR_INVALID_PARAM, call, "name is NULL");
    }
    if (gcm_lco_slotname_decode(name, &ref, &why) != GCM_OK) {
        return gcm_fail(GCM_ERR_INVALID_PARAM, call, "%s", why);
    }
    status = gcm_lco_check_ref(call, 0, &ref);
    if (status != GCM_OK) {
        return status;
    }
    gcm_lco_dest_of(&ref, ref.rslot, &dest);
    gcm_thr_lock(lco->port->endpoint);
    status = gcm_slots_port_add_send(lco->port, &dest);
    if ((status == GCM_OK) && (index_p != NULL)) {
        *index_p = lco->port->nsend - 1;
    }
    gcm_thr_unlock(lco->port->endpoint);
    if (status == GCM_ERR_INVALID_PARAM) {
        return gcm_fail(status, call, "the LCO has the most send slots an "
                        "LCO may have already (GCM_MAX_SLOTS, %d)",
                        GCM_MAX_SLOTS);
    }
    return (status == GCM_OK) ? GCM_OK :
           gcm_fail(status, call, "could not add the send slot");
}

gcm_status_t gcm_lco_add_send_slot(gcm_lco_h lco, const gcm_slotname_t *name)
{
    GCM_CHECK_LCO("gcm_lco_add_send_slot", lco);
    return gcm_lco_add_slotname("gcm_lco_add_send_slot", lco, name, NULL);
}

gcm_status_t gcm_lco_set_handler(gcm_lco_h lco, int rslot,
                                 gcm_handler_func_t fn, void *arg)
{
    static const char *call = "gcm_lco_set_handler";
    gcm_status_t status;

    GCM_CHECK_LCO(call, lco);
    status = gcm_slots_set_handler(lco->port, lco, rslot, fn, arg);
    if (status == GCM_ERR_NO_SUCH_SLOT) {
        return gcm_fail(status, call, "receive slot %d out of range", rslot);
    }
    return (status == GCM_OK) ? GCM_OK :
           gcm_fail(status, call, "cannot set the handler of slot %d", rslot);
}

gcm_status_t gcm_lco_offer(gcm_lco_h via, int via_slot, int tag,
                           gcm_lco_h target, int rslot)
{
    static const char *call = "gcm_lco_offer";
    gcm_slotname_t name;
    gcm_status_t status;

    GCM_CHECK_LCO(call, via);
    GCM_CHECK_LCO(call, target);
    status = gcm_slot_name(target, rslot, &name);
    if (status != GCM_OK) {
        return status;
    }
    return gcm_send(via, name.bytes, sizeof(name.bytes), via_slot, tag);
}

gcm_status_t gcm_lco_accept_offer(gcm_lco_h via, int via_rslot, int tag,
                                  gcm_lco_h lco, int *slot_p)
{
    static const char *call = "gcm_lco_accept_offer";
    gcm_msg_status_t st;
    gcm_slotname_t name;
    gcm_status_t status;

    GCM_CHECK_LCO(call, via);
    GCM_CHECK_LCO(call, lco);
    if (slot_p == NULL) {
        return gcm_fail(GCM_ERR_INVALID_PARAM, call, "slot_p is NULL");
    }
    /* Check what can be checked before a message is consumed. */
    if ((status = gcm_lco_check_changeable(call, lco)) != GCM_OK) {
        return status;
    }
    status = gcm_recv(via, name.bytes, sizeof(name.bytes), via_rslot, tag,
                      &st);
    if (status == GCM_ERR_TRUNCATED) {
        return gcm_fail(GCM_ERR_INVALID_PARAM, call, "the offer is longer "
                        "than a slot name (%d bytes)", GCM_SLOTNAME_SIZE);
    }
    if (status != GCM_OK) {
        return status;
    }
    if (st.count != sizeof(name.bytes)) {
        return gcm_fail(GCM_ERR_INVALID_PARAM, call, "the offer has %zu "
                        "bytes, a slot name %d", st.count, GCM_SLOTNAME_SIZE);
    }
    return gcm_lco_add_slotname(call, lco, &name, slot_p);
}

gcm_status_t gcm_lco_add_recv_slots(gcm_lco_h lco, int count)
{
    static const char *call = "gcm_lco_add_recv_slots";
    gcm_status_t status;
    int nrecv;

    if ((status = gcm_lco_check_grow(call, lco, count)) != GCM_OK) {
        return status;
    }
    gcm_thr_lock(lco->port->endpoint);
    nrecv  = lco->port->nrecv;
    status = gcm_slots_port_add_recv(lco->port, count);
    gcm_thr_unlock(lco->port->endpoint);
    if (status == GCM_ERR_INVALID_PARAM) {
        return gcm_fail(status, call, "%d more receive slots on top of %d "
                        "are more than an LCO may have (GCM_MAX_SLOTS, %d)",
                        count, nrecv, GCM_MAX_SLOTS);
    }
    return (status == GCM_OK) ? GCM_OK :
           gcm_fail(status, call, "could not add %d receive slots", count);
}

gcm_status_t gcm_lco_num_send_slots(gcm_lco_h lco, int *count_p)
{
    GCM_CHECK_LCO("gcm_lco_num_send_slots", lco);
    if (count_p == NULL) {
        return gcm_fail(GCM_ERR_INVALID_PARAM, "gcm_lco_num_send_slots",
                        "count_p is NULL");
    }
    /* No lock: argument checks call this on every probe and test. */
    *count_p = __atomic_load_n(&lco->port->nsend, __ATOMIC_ACQUIRE);
    return GCM_OK;
}

gcm_status_t gcm_lco_num_recv_slots(gcm_lco_h lco, int *count_p)
{
    GCM_CHECK_LCO("gcm_lco_num_recv_slots", lco);
    if (count_p == NULL) {
        return gcm_fail(GCM_ERR_INVALID_PARAM, "gcm_lco_num_recv_slots",
                        "count_p is NULL");
    }
    /* No lock: argument checks call this on every probe and test. */
    *count_p = __atomic_load_n(&lco->port->nrecv, __ATOMIC_ACQUIRE);
    return GCM_OK;
}
