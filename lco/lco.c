/*
 * lco/lco.c: the public native API: init and finalize, LCOs and their
 * slots, names, and the point-to-point calls with their argument checks.
 */
#include "config.h"

#include "lco/lco.h"
#include "boot/boot.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

static struct {
    atomic_int       initialized;
    struct gcm_lco   world;
    uint32_t         job;        /* hash of the job id */
    int              rank;
    int              size;
    pthread_mutex_t  list_lock;  /* protects lcos */
    gcm_list_t       lcos;       /* every user LCO still alive */
} gcm_lco = { .list_lock = PTHREAD_MUTEX_INITIALIZER };

#define GCM_CHECK_INIT(_call) \
    do { \
        if (!atomic_load_explicit(&gcm_lco.initialized, \
                                  memory_order_acquire)) { \
            return gcm_fail(GCM_ERR_NOT_INITIALIZED, (_call), \
                            "call gcm_init() first"); \
        } \
    } while (0)

#define GCM_CHECK_LCO(_call, _lco) \
    do { \
        GCM_CHECK_INIT(_call); \
        if (((_lco) == NULL) || ((_lco)->magic != GCM_LCO_MAGIC)) { \
            return gcm_fail(GCM_ERR_INVALID_PARAM, (_call), \
                            "not a valid LCO handle"); \
        } \
    } while (0)

static gcm_status_t gcm_check_tag(const char *call, int tag, int wildcard)
{
    if ((wildcard && (tag == GCM_ANY_TAG)) ||
        ((tag >= 0) && (tag <= GCM_TAG_UB))) {
        return GCM_OK;
    }
    return gcm_fail(GCM_ERR_INVALID_PARAM, call,
                    "tag %d out of range 0..%d%s", tag, GCM_TAG_UB,
                    wildcard ? " or GCM_ANY_TAG" : "");
}

/* ---- init and finalize --------------------------------------------------- */

gcm_status_t gcm_init(int *argc_p, char ***argv_p)
{
    gcm_slots_pattern_t world;
    const char *jobid;
    gcm_port_t *port;
    gcm_status_t status;

    (void)argc_p;
    (void)argv_p;
    if (atomic_load(&gcm_lco.initialized)) {
        return gcm_fail(GCM_ERR_INVALID_PARAM, "gcm_init",
                        "gencomm is already initialized");
    }
    gcm_config_load();
    status = gcm_boot_init();
    if (status != GCM_OK) {
        return status;
    }
    gcm_lco.rank = gcm_boot_rank();
    gcm_lco.size = gcm_boot_size();
    jobid        = gcm_boot_jobid();
    gcm_lco.job  = (uint32_t)gcm_hash64(jobid, strlen(jobid));
    gcm_list_init(&gcm_lco.lcos);

    status = gcm_slots_init();
    if (status != GCM_OK) {
        goto err_boot;
    }
    /* The world: fully connected, stored as a pattern, not as a table. */
    world.size   = gcm_lco.size;
    world.procs  = NULL;
    world.myrank = gcm_lco.rank;
    world.home   = 0;
    status = gcm_slots_port_create(gcm_thr_endpoint_get(0), GCM_PORT_ID_WORLD,
                                   1, 0, &world, &port);
    if (status != GCM_OK) {
        goto err_slots;
    }
    gcm_lco.world.magic = GCM_LCO_MAGIC;
    gcm_lco.world.port  = port;
    gcm_list_init(&gcm_lco.world.elem);

    /* Worker addresses become visible to the others. */
    status = gcm_boot_fence();
    if (status != GCM_OK) {
        gcm_fail(status, "gcm_init", "exchange with the launcher failed");
        goto err_world;
    }
    atomic_store_explicit(&gcm_lco.initialized, 1, memory_order_release);
    return GCM_OK;

err_world:
    gcm_slots_port_destroy(port);
    gcm_lco.world.port = NULL;
err_slots:
    gcm_slots_finalize();
err_boot:
    gcm_boot_finalize();
    return status;
}

gcm_status_t gcm_finalize(void)
{
    gcm_status_t status;

    GCM_CHECK_INIT("gcm_finalize");
    /* Everyone has sent what it will send before anything is torn down. */
    status = gcm_slots_barrier();
    if (status != GCM_OK) {
        gcm_warn("finalize: barrier failed (%s); closing anyway",
                 gcm_status_string(status));
    }
    atomic_store_explicit(&gcm_lco.initialized, 0, memory_order_release);

    pthread_mutex_lock(&gcm_lco.list_lock);
    while (!gcm_list_empty(&gcm_lco.lcos)) {
        struct gcm_lco *lco = gcm_container_of(gcm_lco.lcos.next,
                                               struct gcm_lco, elem);
        gcm_list_del(&lco->elem);
        gcm_debug("finalize: freeing LCO %u the program did not free",
                  lco->port->id);
        gcm_slots_port_destroy(lco->port);
        lco->magic = 0;
        free(lco);
    }
    pthread_mutex_unlock(&gcm_lco.list_lock);
    gcm_slots_port_destroy(gcm_lco.world.port);
    gcm_lco.world.port  = NULL;
    gcm_lco.world.magic = 0;

    gcm_slots_finalize();
    gcm_boot_finalize();
    return status;
}

int gcm_initialized(void)
{
    return atomic_load_explicit(&gcm_lco.initialized, memory_order_acquire);
}

int gcm_proc_rank(void)
{
    return gcm_lco.rank;
}

int gcm_proc_count(void)
{
    return gcm_lco.size;
}

gcm_lco_h gcm_world(void)
{
    return gcm_initialized() ? &gcm_lco.world : NULL;
}

void gcm_get_stats(gcm_stats_t *stats_p)
{
    if (stats_p == NULL) {
        return;
    }
    gcm_slots_stats(stats_p);
}

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
    pthread_mutex_lock(&gcm_lco.list_lock);
    gcm_list_push_back(&gcm_lco.lcos, &lco->elem);
    pthread_mutex_unlock(&gcm_lco.list_lock);
    *lco_p = lco;
    return GCM_OK;
}

/* A pattern LCO with identity (id, gen) on endpoint, in the list of live
 * LCOs. */
static gcm_status_t gcm_lco_pattern_new(gcm_thr_endpoint_t *endpoint,
                                        uint32_t id, uint32_t gen,
                                        const gcm_slots_pattern_t *group,
                                        const char *call, gcm_lco_h *lco_p)
{
    struct gcm_lco *lco = calloc(1, sizeof(*lco));
    gcm_status_t status;

    if (lco == NULL) {
        return gcm_fail(GCM_ERR_NO_MEMORY, call, "no memory for the LCO");
    }
    status = gcm_slots_port_create(endpoint, id, gen, 0, group, &lco->port);
    if (status != GCM_OK) {
        free(lco);
        return gcm_fail(status, call, "cannot create the LCO");
    }
    lco->magic = GCM_LCO_MAGIC;
    pthread_mutex_lock(&gcm_lco.list_lock);
    gcm_list_push_back(&gcm_lco.lcos, &lco->elem);
    pthread_mutex_unlock(&gcm_lco.list_lock);
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
    return gcm_lco_pattern_new(lco->port->endpoint, id, gen, &group, call,
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
    if (lco == &gcm_lco.world) {
        return gcm_fail(GCM_ERR_INVALID_PARAM, "gcm_lco_free",
                        "the world LCO belongs to the library");
    }
    pthread_mutex_lock(&gcm_lco.list_lock);
    gcm_list_del(&lco->elem);
    pthread_mutex_unlock(&gcm_lco.list_lock);
    gcm_slots_port_destroy(lco->port);
    lco->magic = 0;
    free(lco);
    *lco_p = NULL;
    return GCM_OK;
}

static void gcm_lco_ref_of(const struct gcm_lco *lco, gcm_lco_ref_t *ref)
{
    memset(ref, 0, sizeof(*ref));
    ref->proc  = (uint32_t)gcm_lco.rank;
    ref->ep    = (uint16_t)lco->port->endpoint->index;
    ref->id    = lco->port->id;
    ref->gen   = lco->port->gen;
    ref->token = lco->port->token;
    ref->job   = gcm_lco.job;
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

/* Checks a decoded name against this job before it becomes a send slot. */
static gcm_status_t gcm_lco_check_ref(const char *call, int index,
                                      const gcm_lco_ref_t *ref)
{
    if (ref->job != gcm_lco.job) {
        return gcm_fail(GCM_ERR_INVALID_PARAM, call,
                        "name %d comes from another job", index);
    }
    if (ref->proc >= (uint32_t)gcm_lco.size) {
        return gcm_fail(GCM_ERR_INVALID_PARAM, call,
                        "name %d names process %u of a %d-process job",
                        index, ref->proc, gcm_lco.size);
    }
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

    GCM_CHECK_LCO(call, lco);
    if (lco->port->pattern) {
        return gcm_fail(GCM_ERR_INVALID_PARAM, call,
                        "LCOs the library builds (the world, duplicates) cannot be changed");
    }
    if (count < 0) {
        return gcm_fail(GCM_ERR_INVALID_PARAM, call, "count %d is negative",
                        count);
    }
    if (count == 0) {
        return GCM_OK;
    }
    if ((names == NULL) || (rslots == NULL)) {
        return gcm_fail(GCM_ERR_INVALID_PARAM, call,
                        "names or rslots is NULL");
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

    if (lco->port->pattern) {
        return gcm_fail(GCM_ERR_INVALID_PARAM, call,
                        "LCOs the library builds (the world, duplicates) cannot be changed");
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
    if (lco->port->pattern) {
        return gcm_fail(GCM_ERR_INVALID_PARAM, call, "LCOs the library "
                        "builds (the world, duplicates) cannot be changed");
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

    GCM_CHECK_LCO(call, lco);
    if (lco->port->pattern) {
        return gcm_fail(GCM_ERR_INVALID_PARAM, call,
                        "LCOs the library builds (the world, duplicates) cannot be changed");
    }
    if (count < 0) {
        return gcm_fail(GCM_ERR_INVALID_PARAM, call, "count %d is negative",
                        count);
    }
    gcm_thr_lock(lco->port->endpoint);
    status = gcm_slots_port_add_recv(lco->port, count);
    gcm_thr_unlock(lco->port->endpoint);
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
    gcm_thr_lock(lco->port->endpoint);
    *count_p = lco->port->nsend;
    gcm_thr_unlock(lco->port->endpoint);
    return GCM_OK;
}

gcm_status_t gcm_lco_num_recv_slots(gcm_lco_h lco, int *count_p)
{
    GCM_CHECK_LCO("gcm_lco_num_recv_slots", lco);
    if (count_p == NULL) {
        return gcm_fail(GCM_ERR_INVALID_PARAM, "gcm_lco_num_recv_slots",
                        "count_p is NULL");
    }
    gcm_thr_lock(lco->port->endpoint);
    *count_p = lco->port->nrecv;
    gcm_thr_unlock(lco->port->endpoint);
    return GCM_OK;
}

/* ---- point to point ----------------------------------------------------------- */

gcm_status_t gcm_isend(gcm_lco_h lco, const void *buf, size_t len, int slot,
                       int tag, gcm_request_h *req_p)
{
    gcm_status_t status;

    GCM_CHECK_LCO("gcm_isend", lco);
    if (req_p == NULL) {
        return gcm_fail(GCM_ERR_INVALID_PARAM, "gcm_isend", "req_p is NULL");
    }
    if ((buf == NULL) && (len > 0)) {
        return gcm_fail(GCM_ERR_INVALID_PARAM, "gcm_isend",
                        "buf is NULL but len is %zu", len);
    }
    status = gcm_check_tag("gcm_isend", tag, 0);
    if (status != GCM_OK) {
        return status;
    }
    return gcm_slots_isend(lco->port, buf, len, slot, tag, req_p);
}

gcm_status_t gcm_irecv(gcm_lco_h lco, void *buf, size_t len, int slot,
                       int tag, gcm_request_h *req_p)
{
    gcm_status_t status;

    GCM_CHECK_LCO("gcm_irecv", lco);
    if (req_p == NULL) {
        return gcm_fail(GCM_ERR_INVALID_PARAM, "gcm_irecv", "req_p is NULL");
    }
    if ((buf == NULL) && (len > 0)) {
        return gcm_fail(GCM_ERR_INVALID_PARAM, "gcm_irecv",
                        "buf is NULL but len is %zu", len);
    }
    status = gcm_check_tag("gcm_irecv", tag, 1);
    if (status != GCM_OK) {
        return status;
    }
    return gcm_slots_irecv(lco->port, buf, len, slot, tag, req_p);
}

static gcm_status_t gcm_finish(const char *call, gcm_request_h *req_p,
                               gcm_msg_status_t *status_p)
{
    struct gcm_request *req = *req_p;
    gcm_status_t status = req->status;

    if (status < 0) {
        gcm_fail(status, call, "%s on slot %d tag %d failed",
                 (req->kind == GCM_REQ_SEND) ? "send" : "receive",
                 req->info.slot, req->info.tag);
    }
    if (status_p != NULL) {
        *status_p = req->info;
    }
    gcm_slots_req_free(req);
    *req_p = GCM_REQUEST_NULL;
    return status;
}

static void gcm_empty_status(gcm_msg_status_t *status_p)
{
    if (status_p != NULL) {
        status_p->slot  = GCM_ANY_SLOT;
        status_p->tag   = GCM_ANY_TAG;
        status_p->count = 0;
        status_p->error = GCM_OK;
    }
}

gcm_status_t gcm_wait(gcm_request_h *req_p, gcm_msg_status_t *status_p)
{
    struct gcm_request *req;

    GCM_CHECK_INIT("gcm_wait");
    if (req_p == NULL) {
        return gcm_fail(GCM_ERR_INVALID_PARAM, "gcm_wait", "req_p is NULL");
    }
    req = *req_p;
    if (req == GCM_REQUEST_NULL) {
        gcm_empty_status(status_p);
        return GCM_OK;
    }
    gcm_lco_thr_wait(req->endpoint, gcm_slots_req_done, req);
    return gcm_finish("gcm_wait", req_p, status_p);
}

gcm_status_t gcm_test(gcm_request_h *req_p, int *flag_p,
                      gcm_msg_status_t *status_p)
{
    struct gcm_request *req;

    GCM_CHECK_INIT("gcm_test");
    if ((req_p == NULL) || (flag_p == NULL)) {
        return gcm_fail(GCM_ERR_INVALID_PARAM, "gcm_test",
                        "req_p or flag_p is NULL");
    }
    req = *req_p;
    if (req == GCM_REQUEST_NULL) {
        *flag_p = 1;
        gcm_empty_status(status_p);
        return GCM_OK;
    }
    if (!gcm_slots_req_done(req)) {
        gcm_thr_progress(req->endpoint);
    }
    *flag_p = gcm_slots_req_done(req);
    return *flag_p ? gcm_finish("gcm_test", req_p, status_p) : GCM_OK;
}

gcm_status_t gcm_waitall(int count, gcm_request_h reqs[],
                         gcm_msg_status_t statuses[])
{
    gcm_status_t first = GCM_OK;
    gcm_status_t status;
    int i;

    GCM_CHECK_INIT("gcm_waitall");
    if ((count < 0) || ((count > 0) && (reqs == NULL))) {
        return gcm_fail(GCM_ERR_INVALID_PARAM, "gcm_waitall",
                        "count %d with %s requests", count,
                        (reqs == NULL) ? "NULL" : "given");
    }
    for (i = 0; i < count; i++) {
        status = gcm_wait(&reqs[i], (statuses != NULL) ? &statuses[i] : NULL);
        if ((status != GCM_OK) && (first == GCM_OK)) {
            first = status;
        }
    }
    return first;
}

typedef struct gcm_any_arg {
    int            count;
    gcm_request_h *reqs;
    int            index;
} gcm_any_arg_t;

static int gcm_any_done(void *arg)
{
    gcm_any_arg_t *any = arg;
    int i;

    for (i = 0; i < any->count; i++) {
        if ((any->reqs[i] != GCM_REQUEST_NULL) &&
            gcm_slots_req_done(any->reqs[i])) {
            any->index = i;
            return 1;
        }
    }
    return 0;
}

gcm_status_t gcm_waitany(int count, gcm_request_h reqs[], int *index_p,
                         gcm_msg_status_t *status_p)
{
    gcm_any_arg_t any = { .count = count, .reqs = reqs, .index = -1 };
    gcm_thr_endpoint_t *endpoint = NULL;
    int i;

    GCM_CHECK_INIT("gcm_waitany");
    if ((index_p == NULL) || (count < 0) || ((count > 0) && (reqs == NULL))) {
        return gcm_fail(GCM_ERR_INVALID_PARAM, "gcm_waitany",
                        "bad count, requests or index pointer");
    }
    for (i = 0; i < count; i++) {
        if (reqs[i] != GCM_REQUEST_NULL) {
            endpoint = reqs[i]->endpoint;
            break;
        }
    }
    if (endpoint == NULL) {
        *index_p = -1;
        gcm_empty_status(status_p);
        return GCM_OK;
    }
    gcm_lco_thr_wait(endpoint, gcm_any_done, &any);
    *index_p = any.index;
    return gcm_finish("gcm_waitany", &reqs[any.index], status_p);
}

gcm_status_t gcm_iprobe(gcm_lco_h lco, int slot, int tag, int *flag_p,
                        gcm_msg_status_t *status_p)
{
    gcm_msg_status_t info;
    gcm_status_t status;
    int nrecv;

    GCM_CHECK_LCO("gcm_iprobe", lco);
    if (flag_p == NULL) {
        return gcm_fail(GCM_ERR_INVALID_PARAM, "gcm_iprobe",
                        "flag_p is NULL");
    }
    status = gcm_check_tag("gcm_iprobe", tag, 1);
    if (status != GCM_OK) {
        return status;
    }
    gcm_lco_num_recv_slots(lco, &nrecv);
    if ((slot != GCM_ANY_SLOT) && ((slot < 0) || (slot >= nrecv))) {
        return gcm_fail(GCM_ERR_NO_SUCH_SLOT, "gcm_iprobe",
                        "receive slot %d out of range (LCO has %d receive "
                        "slots)", slot, nrecv);
    }
    gcm_thr_progress(lco->port->endpoint);
    *flag_p = gcm_slots_iprobe(lco->port, slot, tag, &info);
    if (*flag_p && (status_p != NULL)) {
        *status_p = info;
    }
    return GCM_OK;
}

typedef struct gcm_probe_arg {
    gcm_port_t       *port;
    int               slot;
    int               tag;
    gcm_msg_status_t  info;
} gcm_probe_arg_t;

static int gcm_probe_done(void *arg)
{
    gcm_probe_arg_t *probe = arg;

    return gcm_slots_iprobe(probe->port, probe->slot, probe->tag,
                            &probe->info);
}

gcm_status_t gcm_probe(gcm_lco_h lco, int slot, int tag,
                       gcm_msg_status_t *status_p)
{
    gcm_probe_arg_t probe;
    gcm_status_t status;
    int flag;

    /* The checks of iprobe, and perhaps an answer at once. */
    status = gcm_iprobe(lco, slot, tag, &flag, status_p);
    if ((status != GCM_OK) || flag) {
        return status;
    }
    probe.port = lco->port;
    probe.slot = slot;
    probe.tag  = tag;
    gcm_lco_thr_wait(lco->port->endpoint, gcm_probe_done, &probe);
    if (status_p != NULL) {
        *status_p = probe.info;
    }
    return GCM_OK;
}

gcm_status_t gcm_send(gcm_lco_h lco, const void *buf, size_t len, int slot,
                      int tag)
{
    gcm_request_h req;
    gcm_status_t status = gcm_isend(lco, buf, len, slot, tag, &req);

    return (status != GCM_OK) ? status : gcm_wait(&req, NULL);
}

gcm_status_t gcm_recv(gcm_lco_h lco, void *buf, size_t len, int slot,
                      int tag, gcm_msg_status_t *status_p)
{
    gcm_request_h req;
    gcm_status_t status = gcm_irecv(lco, buf, len, slot, tag, &req);

    return (status != GCM_OK) ? status : gcm_wait(&req, status_p);
}

gcm_status_t gcm_progress(void)
{
    GCM_CHECK_INIT("gcm_progress");
    gcm_thr_progress(gcm_thr_endpoint_current());
    return GCM_OK;
}

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
    static const char *call = "gcm_lco_create_pattern";
    gcm_thr_endpoint_t *endpoint;
    gcm_slots_pattern_t group;
    int i;

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
    if ((procs == NULL) && (n > gcm_lco.size)) {
        return gcm_fail(GCM_ERR_INVALID_PARAM, call,
                        "identity group of %d processes in a %d-process job",
                        n, gcm_lco.size);
    }
    for (i = 0; (procs != NULL) && (i < n); i++) {
        if ((procs[i] < 0) || (procs[i] >= gcm_lco.size)) {
            return gcm_fail(GCM_ERR_INVALID_PARAM, call,
                            "procs[%d] = %d is not a process of this "
                            "%d-process job", i, procs[i], gcm_lco.size);
        }
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
    group.procs  = procs;
    group.myrank = myrank;
    group.home   = home;
    gcm_debug("pattern LCO %#x of %d processes on endpoint %d (home %u)",
              id, n, endpoint->index, home);
    return gcm_lco_pattern_new(endpoint, id, gen, &group, call, lco_p);
}

static int gcm_lco_valid(gcm_lco_h lco)
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
    return ((int)dest.proc == gcm_lco.rank) &&
           (dest.ep == (uint16_t)lco->port->endpoint->index) &&
           (dest.id == lco->port->id) && (dest.gen == lco->port->gen);
}

/* ---- internal tags, synchronous sends, cancel, matched probes ----------------- */

/* Tags for the internal calls: any non-negative tag (the library's own lie
 * above GCM_TAG_UB), and GCM_ANY_TAG where a wildcard is allowed. */
static gcm_status_t gcm_check_tag_x(const char *call, int tag, int wildcard)
{
    if ((wildcard && (tag == GCM_ANY_TAG)) || (tag >= 0)) {
        return GCM_OK;
    }
    return gcm_fail(GCM_ERR_INVALID_PARAM, call,
                    "tag %d is negative%s", tag,
                    wildcard ? " and not GCM_ANY_TAG" : "");
}

gcm_status_t gcm_lco_isend_x(gcm_lco_h lco, const void *buf, size_t len,
                             int slot, int tag, int flags,
                             gcm_request_h *req_p)
{
    static const char *call = "gcm_lco_isend_x";
    gcm_status_t status;

    GCM_CHECK_LCO(call, lco);
    if (req_p == NULL) {
        return gcm_fail(GCM_ERR_INVALID_PARAM, call, "req_p is NULL");
    }
    if ((buf == NULL) && (len > 0)) {
        return gcm_fail(GCM_ERR_INVALID_PARAM, call,
                        "buf is NULL but len is %zu", len);
    }
    if (flags & ~GCM_LCO_SEND_SYNC) {
        return gcm_fail(GCM_ERR_INVALID_PARAM, call,
                        "unknown send flags %#x", flags);
    }
    status = gcm_check_tag_x(call, tag, 0);
    if (status != GCM_OK) {
        return status;
    }
    return gcm_slots_isend_x(lco->port, buf, len, slot, tag,
                             (flags & GCM_LCO_SEND_SYNC) ?
                             GCM_SLOTS_SEND_SYNC : 0, call, req_p);
}

gcm_status_t gcm_lco_irecv_x(gcm_lco_h lco, void *buf, size_t len, int slot,
                             int tag, gcm_request_h *req_p)
{
    static const char *call = "gcm_lco_irecv_x";
    gcm_status_t status;

    GCM_CHECK_LCO(call, lco);
    if (req_p == NULL) {
        return gcm_fail(GCM_ERR_INVALID_PARAM, call, "req_p is NULL");
    }
    if ((buf == NULL) && (len > 0)) {
        return gcm_fail(GCM_ERR_INVALID_PARAM, call,
                        "buf is NULL but len is %zu", len);
    }
    status = gcm_check_tag_x(call, tag, 1);
    if (status != GCM_OK) {
        return status;
    }
    return gcm_slots_irecv_x(lco->port, buf, len, slot, tag, call, req_p);
}

/* The checks of a probe: tag (internal range) and receive slot. */
static gcm_status_t gcm_lco_probe_check(const char *call, gcm_lco_h lco,
                                        int slot, int tag, int *flag_p)
{
    gcm_status_t status;
    int nrecv;

    if (flag_p == NULL) {
        return gcm_fail(GCM_ERR_INVALID_PARAM, call, "flag_p is NULL");
    }
    status = gcm_check_tag_x(call, tag, 1);
    if (status != GCM_OK) {
        return status;
    }
    gcm_lco_num_recv_slots(lco, &nrecv);
    if ((slot != GCM_ANY_SLOT) && ((slot < 0) || (slot >= nrecv))) {
        return gcm_fail(GCM_ERR_NO_SUCH_SLOT, call,
                        "receive slot %d out of range (LCO has %d receive "
                        "slots)", slot, nrecv);
    }
    return GCM_OK;
}

gcm_status_t gcm_lco_iprobe_x(gcm_lco_h lco, int slot, int tag, int *flag_p,
                              gcm_msg_status_t *status_p)
{
    static const char *call = "gcm_lco_iprobe_x";
    gcm_msg_status_t info;
    gcm_status_t status;

    GCM_CHECK_LCO(call, lco);
    status = gcm_lco_probe_check(call, lco, slot, tag, flag_p);
    if (status != GCM_OK) {
        return status;
    }
    gcm_thr_progress(lco->port->endpoint);
    *flag_p = gcm_slots_iprobe(lco->port, slot, tag, &info);
    if (*flag_p && (status_p != NULL)) {
        *status_p = info;
    }
    return GCM_OK;
}

int gcm_lco_req_done(gcm_request_h req)
{
    /* As gcm_test: no request is a complete one. */
    return (req == GCM_REQUEST_NULL) || gcm_slots_req_done(req);
}

gcm_status_t gcm_lco_cancel(gcm_request_h req)
{
    static const char *call = "gcm_lco_cancel";

    GCM_CHECK_INIT(call);
    if (req == GCM_REQUEST_NULL) {
        return gcm_fail(GCM_ERR_INVALID_PARAM, call, "req is NULL");
    }
    if (req->kind != GCM_REQ_RECV) {
        return gcm_fail(GCM_ERR_INVALID_PARAM, call,
                        "only receives can be cancelled (this is a send "
                        "on slot %d tag %d)", req->info.slot, req->info.tag);
    }
    if (gcm_slots_cancel(req) != GCM_OK) {
        return gcm_fail(GCM_ERR_BUSY, call,
                        "the receive on slot %d tag %d has been matched or "
                        "completed already", req->slot, req->tag);
    }
    return GCM_OK;
}

gcm_status_t gcm_lco_improbe(gcm_lco_h lco, int slot, int tag, int *flag_p,
                             gcm_message_h *msg_p,
                             gcm_msg_status_t *status_p)
{
    static const char *call = "gcm_lco_improbe";
    gcm_msg_status_t info;
    gcm_slots_umsg_t *umsg;
    gcm_status_t status;

    GCM_CHECK_LCO(call, lco);
    if (msg_p == NULL) {
        return gcm_fail(GCM_ERR_INVALID_PARAM, call, "msg_p is NULL");
    }
    status = gcm_lco_probe_check(call, lco, slot, tag, flag_p);
    if (status != GCM_OK) {
        return status;
    }
    gcm_thr_progress(lco->port->endpoint);
    umsg = gcm_slots_improbe(lco->port, slot, tag, &info);
    *flag_p = (umsg != NULL);
    *msg_p  = umsg;
    if ((umsg != NULL) && (status_p != NULL)) {
        *status_p = info;
    }
    return GCM_OK;
}

gcm_status_t gcm_lco_imrecv(gcm_lco_h lco, gcm_message_h msg, void *buf,
                            size_t len, gcm_request_h *req_p)
{
    static const char *call = "gcm_lco_imrecv";
    gcm_status_t status;

    GCM_CHECK_LCO(call, lco);
    if ((msg == NULL) || (req_p == NULL)) {
        return gcm_fail(GCM_ERR_INVALID_PARAM, call, "msg or req_p is NULL");
    }
    if ((buf == NULL) && (len > 0)) {
        return gcm_fail(GCM_ERR_INVALID_PARAM, call,
                        "buf is NULL but len is %zu", len);
    }
    /* The handle is the caller's alone until received: its envelope can
     * be read without the lock. */
    if ((msg->env.dst_id != lco->port->id) ||
        (msg->env.dst_gen != lco->port->gen)) {
        return gcm_fail(GCM_ERR_INVALID_PARAM, call,
                        "the message was matched on another LCO");
    }
    status = gcm_slots_imrecv(lco->port, msg, buf, len, req_p);
    return (status == GCM_OK) ? GCM_OK :
           gcm_fail(status, call, "no memory for the request");
}

static void (*_Atomic gcm_lco_wait_hook)(void);

void gcm_lco_set_wait_hook(void (*hook)(void))
{
    atomic_store_explicit(&gcm_lco_wait_hook, hook, memory_order_release);
}

typedef struct gcm_lco_hooked {
    int  (*done)(void *arg);
    void  *arg;
    void (*hook)(void);
} gcm_lco_hooked_t;

static int gcm_lco_hooked_done(void *arg)
{
    gcm_lco_hooked_t *h = arg;

    h->hook();
    return h->done(h->arg);
}

void gcm_lco_thr_wait(gcm_thr_endpoint_t *endpoint, int (*done)(void *arg),
                      void *arg)
{
    gcm_lco_hooked_t h;

    h.hook = atomic_load_explicit(&gcm_lco_wait_hook, memory_order_acquire);
    if (h.hook == NULL) {
        gcm_thr_wait(endpoint, done, arg);
        return;
    }
    h.done = done;
    h.arg  = arg;
    gcm_thr_wait(endpoint, gcm_lco_hooked_done, &h);
}

int gcm_lco_endpoint_reserve(void)
{
    return gcm_thr_endpoint_reserve();
}

void gcm_lco_wait_until(int (*done)(void *arg), void *arg)
{
    gcm_lco_wait_on(NULL, done, arg);
}

/* The endpoint lco lives on, or the calling thread's for NULL. */
static gcm_thr_endpoint_t *gcm_lco_home(gcm_lco_h lco)
{
    return gcm_lco_valid(lco) ? lco->port->endpoint :
                                gcm_thr_endpoint_current();
}

void gcm_lco_wait_on(gcm_lco_h lco, int (*done)(void *arg), void *arg)
{
    if ((done == NULL) || !gcm_initialized()) {
        return;
    }
    gcm_lco_thr_wait(gcm_lco_home(lco), done, arg);
}

void gcm_lco_progress(gcm_lco_h lco)
{
    if (gcm_initialized()) {
        gcm_thr_progress(gcm_lco_home(lco));
    }
}
