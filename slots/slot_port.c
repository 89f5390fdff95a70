/*
 * slots/slot_port.c: the port registry: ports by identity per
 * endpoint, derived identities, send and receive slots.
 */
#include "config.h"

#include "slots/slots_impl.h"
#include "boot/boot.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* ---- the port registry ---------------------------------------------------- */

/* Derived ids are unique as (id, generation) pairs; local ones by id
 * alone, whose generation then tells a stale name. So: find by id and
 * generation for derived ids, by id for the others. */
gcm_port_t *gcm_slots_port_find(gcm_thr_endpoint_t *endpoint,
                                uint32_t id, uint32_t gen)
{
    gcm_port_t *port = gcm_slots_ep(endpoint)->buckets[id % GCM_SLOTS_BUCKETS];

    while ((port != NULL) &&
           ((port->id != id) ||
            ((id & GCM_PORT_ID_DERIVED) && (port->gen != gen)))) {
        port = port->hash_next;
    }
    return port;
}

/* A derived identity from a hash of its key: the high id bit set, 63 bits
 * of hash in id and generation. */
static void gcm_slots_derive_hash(const void *key, size_t len,
                                  uint32_t *id_p, uint32_t *gen_p)
{
    uint64_t h = gcm_hash64(key, len);

    /* FNV's low bits mix poorly for short keys: fold the halves. */
    h ^= h >> 29;
    h *= 0xbf58476d1ce4e5b9ULL;
    h ^= h >> 32;
    *id_p  = GCM_PORT_ID_DERIVED | (uint32_t)(h & 0x7fffffffu);
    *gen_p = (uint32_t)(h >> 31);
}

void gcm_slots_derive_id(gcm_port_t *parent, uint32_t *id_p, uint32_t *gen_p,
                         uint32_t *home_p)
{
    uint32_t key[3];

    key[0] = parent->id;
    key[1] = parent->gen;
    key[2] = atomic_fetch_add(&parent->nderived, 1);
    gcm_slots_derive_hash(key, sizeof(key), id_p, gen_p);
    if (home_p != NULL) {
        /* Children of the world spread over endpoints 1 and up; the
         * first child of any other port stays where its parent is (a
         * thread's communicator and what it splits off share the
         * thread's endpoint), later ones move on. Never 0: that is the
         * world's endpoint. */
        *home_p = (parent->home == 0) ? key[2] + 1 : parent->home + key[2];
        if (*home_p == 0) {
            *home_p = 1;
        }
    }
}

void gcm_slots_derive_id_keyed(const gcm_port_t *parent, uint64_t key,
                               uint32_t *id_p, uint32_t *gen_p)
{
    uint32_t k[5];

    /* Five words where counted derivations hash three: the two kinds of
     * input never coincide, so neither can repeat the other's ids. */
    k[0] = parent->id;
    k[1] = parent->gen;
    k[2] = 0x6b657964u; /* "keyd" */
    k[3] = (uint32_t)key;
    k[4] = (uint32_t)(key >> 32);
    gcm_slots_derive_hash(k, sizeof(k), id_p, gen_p);
}

int gcm_slots_port_exists(gcm_thr_endpoint_t *endpoint, uint32_t id,
                          uint32_t gen)
{
    int found;

    gcm_thr_lock(endpoint);
    found = (gcm_slots_port_find(endpoint, id, gen) != NULL);
    gcm_thr_unlock(endpoint);
    return found;
}

/* ---- tokens of patterns that span jobs -------------------------------------
 *
 * A message for a derived port this process has not made yet is kept for
 * it if its token is one a pattern of ours has: the job token, or the
 * token of a pattern shared with another job (an intercommunicator made
 * by connect, accept or spawn, and what is derived from it). The second
 * kind is counted here, by the ports that hold it.
 */
static struct {
    pthread_mutex_t lock;
    int             n;
    int             cap;
    struct {
        uint64_t token;
        int      refs;
    }              *held;
} gcm_slots_tokens = { .lock = PTHREAD_MUTEX_INITIALIZER };

gcm_status_t gcm_slots_token_hold(uint64_t token)
{
    gcm_status_t status = GCM_OK;
    int i;

    pthread_mutex_lock(&gcm_slots_tokens.lock);
    for (i = 0; i < gcm_slots_tokens.n; i++) {
        if (gcm_slots_tokens.held[i].token == token) {
            gcm_slots_tokens.held[i].refs++;
            goto out;
        }
    }
    if (gcm_slots_tokens.n == gcm_slots_tokens.cap) {
        int cap = (gcm_slots_tokens.cap == 0) ? 8 : 2 * gcm_slots_tokens.cap;
        void *held = realloc(gcm_slots_tokens.held,
                             (size_t)cap * sizeof(*gcm_slots_tokens.held));
        if (held == NULL) {
            status = GCM_ERR_NO_MEMORY;
            goto out;
        }
        gcm_slots_tokens.held = held;
        gcm_slots_tokens.cap  = cap;
    }
    gcm_slots_tokens.held[gcm_slots_tokens.n].token = token;
    gcm_slots_tokens.held[gcm_slots_tokens.n].refs  = 1;
    gcm_slots_tokens.n++;
out:
    pthread_mutex_unlock(&gcm_slots_tokens.lock);
    return status;
}

void gcm_slots_token_release(uint64_t token)
{
    int i;

    pthread_mutex_lock(&gcm_slots_tokens.lock);
    for (i = 0; i < gcm_slots_tokens.n; i++) {
        if ((gcm_slots_tokens.held[i].token == token) &&
            (--gcm_slots_tokens.held[i].refs == 0)) {
            gcm_slots_tokens.held[i] =
                gcm_slots_tokens.held[--gcm_slots_tokens.n];
            break;
        }
    }
    if (gcm_slots_tokens.n == 0) {
        free(gcm_slots_tokens.held);
        gcm_slots_tokens.held = NULL;
        gcm_slots_tokens.cap  = 0;
    }
    pthread_mutex_unlock(&gcm_slots_tokens.lock);
}

int gcm_slots_token_known(uint64_t token)
{
    int i, found = (token == gcm_slots_proc.job_token);

    pthread_mutex_lock(&gcm_slots_tokens.lock);
    for (i = 0; !found && (i < gcm_slots_tokens.n); i++) {
        found = (gcm_slots_tokens.held[i].token == token);
    }
    pthread_mutex_unlock(&gcm_slots_tokens.lock);
    return found;
}

gcm_status_t gcm_slots_port_create(gcm_thr_endpoint_t *endpoint,
                                   uint32_t id, uint32_t gen, uint64_t token,
                                   const gcm_slots_pattern_t *pattern,
                                   gcm_port_t **port_p)
{
    gcm_slots_ep_t *sep = gcm_slots_ep(endpoint);
    gcm_port_t *port = calloc(1, sizeof(*port));
    gcm_port_t **bucket;
    gcm_list_t *pos, *tmp;

    if (port == NULL) {
        return GCM_ERR_NO_MEMORY;
    }
    port->endpoint = endpoint;
    port->id       = id;
    port->gen      = gen;
    port->token    = token;
    atomic_init(&port->nderived, 0);
    gcm_list_init(&port->posted);
    gcm_list_init(&port->unexpected);
    if (pattern != NULL) {
        port->pattern = 1;
        if (token == 0) {
            port->token = gcm_slots_proc.job_token;
        } else if (gcm_slots_token_hold(token) != GCM_OK) {
            free(port);
            return GCM_ERR_NO_MEMORY;
        }
        __atomic_store_n(&port->nsend, pattern->size, __ATOMIC_RELAXED);
        __atomic_store_n(&port->nrecv, pattern->size, __ATOMIC_RELAXED);
        port->myrank  = pattern->myrank;
        port->home    = pattern->home;
        if (pattern->procs != NULL) {
            port->procs = malloc((size_t)pattern->size * sizeof(int));
            if (port->procs == NULL) {
                if (token != 0) {
                    gcm_slots_token_release(token);
                }
                free(port);
                return GCM_ERR_NO_MEMORY;
            }
            memcpy(port->procs, pattern->procs,
                   (size_t)pattern->size * sizeof(int));
        }
    }

    gcm_thr_lock(endpoint);
    bucket = &sep->buckets[id % GCM_SLOTS_BUCKETS];
    port->hash_next = *bucket;
    *bucket = port;
    /* Messages that came before this process created the port. */
    gcm_list_for_each_safe(pos, tmp, &sep->orphans) {
        gcm_slots_umsg_t *umsg = gcm_container_of(pos, gcm_slots_umsg_t,
                                                  elem);
        if ((umsg->env.dst_id == id) && (umsg->env.dst_gen == gen)) {
            gcm_list_del(&umsg->elem);
            sep->orphans_unknown -= umsg->payload.orphan_unknown;
            umsg->payload.orphan_unknown = 0;
            if ((umsg->env.token != port->token) ||
                ((umsg->env.rslot < 0) || (umsg->env.rslot >= port->nrecv)) ||
                !gcm_slots_sender_ok(port, &umsg->env)) {
                gcm_warn("process %u sent LCO %x a message it may not "
                         "send (slot %d): refused", umsg->env.src_proc, id,
                         umsg->env.rslot);
                gcm_slots_send_ctrl(endpoint, &umsg->env, GCM_ERR_BAD_TOKEN);
                gcm_slots_payload_release(endpoint, &umsg->payload,
                                          GCM_ERR_BAD_TOKEN);
                free(umsg);
                continue;
            }
            gcm_slots_unexp_add(port, umsg);
        }
    }
    gcm_thr_unlock(endpoint);
    *port_p = port;
    return GCM_OK;
}

gcm_status_t gcm_slots_port_add_send(gcm_port_t *port,
                                     const gcm_slots_dest_t *dest)
{
    gcm_slots_edge_t *edge;

    if (port->nsend >= GCM_MAX_SLOTS) {
        return GCM_ERR_INVALID_PARAM;
    }
    if (port->nsend == port->send_cap) {
        /* At most 2 * GCM_MAX_SLOTS: no int overflow. */
        int cap = (port->send_cap == 0) ? 4 : 2 * port->send_cap;
        gcm_slots_edge_t **edges = realloc(port->edges,
                                           (size_t)cap * sizeof(*edges));
        if (edges == NULL) {
            return GCM_ERR_NO_MEMORY;
        }
        port->edges    = edges;
        port->send_cap = cap;
    }
    edge = calloc(1, sizeof(*edge));
    if (edge == NULL) {
        return GCM_ERR_NO_MEMORY;
    }
    edge->dest  = *dest;
    edge->state = GCM_EDGE_NEW;
    port->edges[port->nsend] = edge;
    __atomic_store_n(&port->nsend, port->nsend + 1, __ATOMIC_RELEASE);
    return GCM_OK;
}

gcm_status_t gcm_slots_port_add_recv(gcm_port_t *port, int count)
{
    int need, i;

    /* Checked before any sum: the count may be anything up to INT_MAX,
     * and the doubling below must end. */
    if ((count < 0) || (count > GCM_MAX_SLOTS - port->nrecv)) {
        return GCM_ERR_INVALID_PARAM;
    }
    need = port->nrecv + count;
    if (need > port->recv_cap) {
        int cap = (port->recv_cap == 0) ? 4 : port->recv_cap;
        uint64_t *rtokens;
        int *rpeer;

        while (cap < need) {
            cap *= 2;
        }
        rtokens = realloc(port->rtokens, (size_t)cap * sizeof(*rtokens));
        if (rtokens == NULL) {
            return GCM_ERR_NO_MEMORY;
        }
        port->rtokens = rtokens;
        rpeer = realloc(port->rpeer, (size_t)cap * sizeof(*rpeer));
        if (rpeer == NULL) {
            return GCM_ERR_NO_MEMORY;
        }
        port->rpeer    = rpeer;
        port->recv_cap = cap;
    }
    for (i = port->nrecv; i < need; i++) {
        /* Each receive slot has its own secret for slot names, drawn
         * when its first slot name is made (most slots never get one):
         * until then it is 0, which opens nothing. */
        port->rtokens[i] = 0;
        port->rpeer[i] = -1;
    }
    __atomic_store_n(&port->nrecv, need, __ATOMIC_RELEASE);
    return GCM_OK;
}

uint64_t gcm_slots_recv_token(gcm_port_t *port, int rslot)
{
    uint64_t *token = &port->rtokens[rslot];

    while (*token == 0) {
        gcm_random_bytes(token, sizeof(*token));
    }
    return *token;
}
