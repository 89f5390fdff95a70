/*
 * coll/coll_hier.c: the node structure of a group and the hierarchical
 * collectives (Träff, "SMP-aware message passing", 2003: an intra-node
 * step, a step among one leader per node, an intra-node step again).
 *
 * The structure is computed from a key per rank naming its node, by
 * every member alike, so it needs no message: nodes are numbered by their
 * lowest rank, which is also their leader. Over a pattern LCO (an MPI
 * intracommunicator: one LCO per process) the node group and the leader
 * group are pattern LCOs of their own, with identities derived from the
 * parent and a key (gcm_lco_derive_id_keyed), so their traffic never
 * meets the parent's. Over any other LCO (an LCO communicator, several
 * LCOs per process) the groups are views of the parent's slots; the
 * call's tag keeps their traffic apart from user messages, and the order
 * of messages on each edge keeps the phases apart (leaders of two nodes
 * never meet in a node phase).
 *
 * A large allreduce with a commutative operator, when every node has
 * several ranks, takes the multi-leader form (see
 * coll_hier_allreduce_multi): every rank of index below the smallest
 * node's size carries a piece of the vector between the nodes, in a group
 * of its own (the peer group, derived like the others).
 *
 * Non-commutative reductions keep rank order only when every node's
 * ranks are contiguous (then node order is rank order); otherwise they
 * run flat (gcm_coll_hier_use).
 *
 * The hierarchical all-to-all goes through the leaders (each packs its
 * node's blocks per destination node and exchanges one message with each
 * other leader, in a shifted order so that every leader sends to one and
 * receives from one per step): worth it for small blocks, where the
 * number of messages dominates. It is not Sanders and Träff's
 * hierarchical factorization; for large blocks the flat pairwise
 * exchange runs, where every process moves its own data.
 */
#include "config.h"

#include "coll/coll_impl.h"

#include <stdlib.h>
#include <string.h>

struct gcm_coll_hier {
    int        size;
    int        rank;
    int        nnodes;
    int        mynode;
    int        contiguous;
    int        maxnode;     /* ranks on the largest node */
    int        minnode;     /* ranks on the smallest node */
    int       *node_of;     /* rank -> node */
    int       *local_of;    /* rank -> rank in its node */
    int       *leader_of;   /* node -> its lowest rank */
    int       *nsize;       /* node -> ranks on it */
    int       *first;       /* node -> index of its first rank in members */
    int       *members;     /* ranks node by node, in rank order within */
    gcm_lco_h  parent;
    gcm_lco_h  node_lco;    /* NULL: a view of the parent's slots */
    gcm_lco_h  leader_lco;
    int       *peers;       /* node -> its rank of this local index (only
                             * when that is below minnode) */
    gcm_lco_h  peer_lco;
};

/* One call's view of the hierarchy: the node group, the leader group
 * (at leaders only: its size is 0 elsewhere), and the maps. */
typedef struct gcm_coll_hview {
    gcm_coll_grp_t  node;       /* this rank's node; rank 0 is its leader */
    gcm_coll_grp_t  leaders;    /* leader of node i is rank i */
    int             nnodes;
    int             mynode;
    const int      *node_of;    /* rank -> node */
    const int      *local_of;   /* rank -> rank in its node group */
    const int      *leader_of;  /* node -> its leader's rank */
    const int      *nsize;      /* node -> number of ranks */
    const int      *members;    /* ranks, node by node in node-rank order */
    const int      *first;      /* node -> index of its first in members */
} gcm_coll_hview_t;

typedef struct coll_hier_pair {
    uint64_t key;
    int      rank;
} coll_hier_pair_t;

static int coll_hier_cmp(const void *a, const void *b)
{
    const coll_hier_pair_t *x = a, *y = b;

    if (x->key != y->key) {
        return (x->key < y->key) ? -1 : 1;
    }
    return (x->rank > y->rank) - (x->rank < y->rank);
}

/* Keys of the derived groups: distinct from each other and, for node
 * groups, per node (two nodes' groups never share an identity). */
#define COLL_HIER_KEY_NODE   0x636f6c6c6e6f6465ull  /* "collnode" */
#define COLL_HIER_KEY_LEADER 0x636f6c6c6c656164ull  /* "colllead" */
#define COLL_HIER_KEY_PEER   0x636f6c6c70656572ull  /* "collpeer" */

/* A pattern LCO over procs[members[0..n-1]], derived from parent. */
static gcm_lco_h coll_hier_derive(gcm_lco_h parent, uint64_t key, int n,
                                  const int *members, const int *procs,
                                  int myrank)
{
    uint32_t id, gen;
    gcm_lco_h lco = NULL;
    int *p = malloc((size_t)n * sizeof(int)), i;

    if (p == NULL) {
        return NULL;
    }
    for (i = 0; i < n; i++) {
        p[i] = procs[members[i]];
    }
    gcm_lco_derive_id_keyed(parent, key, &id, &gen);
    if (gcm_lco_create_pattern_x(id, gen, 0, gcm_lco_token_of(parent), n, p,
                                 myrank, &lco) != GCM_OK) {
        lco = NULL;
    }
    free(p);
    return lco;
}

gcm_coll_hier_t *gcm_coll_hier_create(gcm_lco_h lco, int rank, int size,
                                      const uint64_t node[],
                                      const int procs[])
{
    gcm_coll_hier_t *h = calloc(1, sizeof(*h));
    coll_hier_pair_t *pairs = malloc((size_t)size * sizeof(*pairs));
    int *run_start = malloc(((size_t)size + 1) * sizeof(int));
    int *order = malloc((size_t)size * sizeof(int));
    int i, j, nruns = 0, n;

    if (h == NULL || pairs == NULL || run_start == NULL || order == NULL) {
        goto err;
    }
    h->size = size;
    h->rank = rank;
    h->parent = lco;
    h->node_of = malloc((size_t)size * sizeof(int));
    h->local_of = malloc((size_t)size * sizeof(int));
    h->leader_of = malloc((size_t)size * sizeof(int));
    h->nsize = malloc((size_t)size * sizeof(int));
    h->first = malloc(((size_t)size + 1) * sizeof(int));
    h->members = malloc((size_t)size * sizeof(int));
    if (h->node_of == NULL || h->local_of == NULL || h->leader_of == NULL ||
        h->nsize == NULL || h->first == NULL || h->members == NULL) {
        goto err;
    }
    /* Sorted by (key, rank), each node is a run starting at its lowest
     * rank; the runs, ordered by that rank, are the nodes. */
    for (i = 0; i < size; i++) {
        pairs[i].key = node[i];
        pairs[i].rank = i;
    }
    qsort(pairs, (size_t)size, sizeof(*pairs), coll_hier_cmp);
    for (i = 0; i < size; i++) {
        if (i == 0 || pairs[i].key != pairs[i - 1].key) {
            run_start[nruns++] = i;
        }
    }
    run_start[nruns] = size;
    /* The node of each run is the rank order of its leader: mark leaders
     * by rank, then number them in rank order. */
    for (i = 0; i < size; i++) {
        order[i] = -1;
    }
    for (j = 0; j < nruns; j++) {
        order[pairs[run_start[j]].rank] = j;
    }
    h->nnodes = 0;
    for (i = 0; i < size; i++) {
        if (order[i] >= 0) {
            int run = order[i], node_id = h->nnodes++;

            n = run_start[run + 1] - run_start[run];
            h->leader_of[node_id] = i;
            h->nsize[node_id] = n;
            order[i] = -2 - run;    /* remember the run of this node */
        }
    }
    h->first[0] = 0;
    h->maxnode = 0;
    h->minnode = size;
    h->contiguous = 1;
    for (j = 0; j < h->nnodes; j++) {
        int run = -2 - order[h->leader_of[j]];

        n = h->nsize[j];
        h->first[j + 1] = h->first[j] + n;
        h->maxnode = (n > h->maxnode) ? n : h->maxnode;
        h->minnode = (n < h->minnode) ? n : h->minnode;
        for (i = 0; i < n; i++) {
            int r = pairs[run_start[run] + i].rank;

            h->members[h->first[j] + i] = r;
            h->node_of[r] = j;
            h->local_of[r] = i;
            if (r != h->leader_of[j] + i) {
                h->contiguous = 0;
            }
        }
    }
    h->mynode = h->node_of[rank];

    /* Derived LCOs where they separate traffic: groups of one, and a
     * node group that is the whole group, stay views. */
    n = h->nsize[h->mynode];
    if (procs != NULL && n > 1 && n < size) {
        h->node_lco = coll_hier_derive(lco, COLL_HIER_KEY_NODE ^
                                       ((uint64_t)h->leader_of[h->mynode]
                                        << 20),
                                       n, h->members + h->first[h->mynode],
                                       procs, h->local_of[rank]);
        if (h->node_lco == NULL) {
            goto err;
        }
    }
    if (procs != NULL && h->nnodes > 1 && h->nnodes < size &&
        h->local_of[rank] == 0) {
        h->leader_lco = coll_hier_derive(lco, COLL_HIER_KEY_LEADER,
                                         h->nnodes, h->leader_of, procs,
                                         h->mynode);
        if (h->leader_lco == NULL) {
            goto err;
        }
    }
    /* The ranks of this local index across the nodes, where every node
     * has one: the multi-leader allreduce's second phase. */
    if (h->nnodes > 1 && h->local_of[rank] < h->minnode) {
        h->peers = malloc((size_t)h->nnodes * sizeof(int));
        if (h->peers == NULL) {
            goto err;
        }
        for (j = 0; j < h->nnodes; j++) {
            h->peers[j] = h->members[h->first[j] + h->local_of[rank]];
        }
        if (procs != NULL && h->nnodes < size) {
            h->peer_lco = coll_hier_derive(lco, COLL_HIER_KEY_PEER ^
                                           ((uint64_t)h->local_of[rank]
                                            << 20),
                                           h->nnodes, h->peers, procs,
                                           h->mynode);
            if (h->peer_lco == NULL) {
                goto err;
            }
        }
    }
    free(pairs);
    free(run_start);
    free(order);
    return h;

err:
    free(pairs);
    free(run_start);
    free(order);
    gcm_coll_hier_free(h);
    return NULL;
}

void gcm_coll_hier_free(gcm_coll_hier_t *h)
{
    if (h == NULL) {
        return;
    }
    if (h->node_lco != NULL) {
        gcm_lco_free(&h->node_lco);
    }
    if (h->leader_lco != NULL) {
        gcm_lco_free(&h->leader_lco);
    }
    if (h->peer_lco != NULL) {
        gcm_lco_free(&h->peer_lco);
    }
    free(h->peers);
    free(h->node_of);
    free(h->local_of);
    free(h->leader_of);
    free(h->nsize);
    free(h->first);
    free(h->members);
    free(h);
}

int gcm_coll_hier_enabled(void)
{
    return gcm_coll_config.hier != GCM_COLL_HIER_OFF;
}

int gcm_coll_hier_use(const gcm_coll_hier_t *h, int in_order)
{
    if (h == NULL || h->size < 2) {
        return 0;
    }
    switch (gcm_coll_config.hier) {
    case GCM_COLL_HIER_OFF:
        return 0;
    case GCM_COLL_HIER_ON:
        break;
    default:
        if (h->nnodes < 2 || h->maxnode < 2) {
            return 0;
        }
        break;
    }
    return (in_order == 0) || (h->contiguous != 0);
}

static void coll_hier_view(const gcm_coll_hier_t *h, const gcm_coll_grp_t *g,
                           gcm_coll_hview_t *v)
{
    int me = h->mynode;

    v->nnodes = h->nnodes;
    v->mynode = me;
    v->node_of = h->node_of;
    v->local_of = h->local_of;
    v->leader_of = h->leader_of;
    v->nsize = h->nsize;
    v->members = h->members;
    v->first = h->first;

    v->node.tag = g->tag;
    v->node.rank = h->local_of[h->rank];
    v->node.size = h->nsize[me];
    if (h->node_lco != NULL) {
        v->node.lco = h->node_lco;
        v->node.slot = NULL;
    } else {
        v->node.lco = g->lco;
        v->node.slot = h->members + h->first[me];
    }
    v->leaders.tag = g->tag;
    if (h->local_of[h->rank] != 0) {
        v->leaders.lco = NULL;
        v->leaders.rank = 0;
        v->leaders.size = 0;
        v->leaders.slot = NULL;
    } else if (h->leader_lco != NULL) {
        v->leaders.lco = h->leader_lco;
        v->leaders.rank = me;
        v->leaders.size = h->nnodes;
        v->leaders.slot = NULL;
    } else {
        v->leaders.lco = g->lco;
        v->leaders.rank = me;
        v->leaders.size = h->nnodes;
        v->leaders.slot = h->leader_of;
    }
}

/* ---- algorithms ---------------------------------------------------------- */

/* The groups of one call. A view over a parent that is itself a view
 * (g->slot) composes the two maps into a temporary of the schedule. */
static int coll_hier_groups(gcm_coll_sched_t *s, const gcm_coll_grp_t *g,
                            const gcm_coll_hier_t *h, gcm_coll_hview_t *v)
{
    int i;

    coll_hier_view(h, g, v);
    if (g->slot == NULL) {
        return 0;
    }
    if (v->node.lco == g->lco) {
        const int *m = h->members + h->first[h->mynode];
        int *map = gcm_coll_alloc(s, (size_t)v->node.size * sizeof(int));

        if (map == NULL) {
            return -1;
        }
        for (i = 0; i < v->node.size; i++) {
            map[i] = g->slot[m[i]];
        }
        v->node.slot = map;
    }
    if (v->leaders.size > 0 && v->leaders.lco == g->lco) {
        int *map = gcm_coll_alloc(s, (size_t)v->leaders.size * sizeof(int));

        if (map == NULL) {
            return -1;
        }
        for (i = 0; i < v->leaders.size; i++) {
            map[i] = g->slot[h->leader_of[i]];
        }
        v->leaders.slot = map;
    }
    return 0;
}

static int coll_hier_leader(const gcm_coll_hview_t *v)
{
    return v->leaders.size > 0;
}

void gcm_coll_hier_barrier(gcm_coll_sched_t *s, const gcm_coll_grp_t *g,
                           const gcm_coll_hier_t *h)
{
    gcm_coll_hview_t v;

    if (coll_hier_groups(s, g, h, &v) != 0) {
        return;
    }
    gcm_coll_fanin(s, &v.node, 0);
    if (coll_hier_leader(&v)) {
        gcm_coll_barrier_dissemination(s, &v.leaders);
    }
    gcm_coll_bcast_raw(s, &v.node, NULL, 0, 0);
}

void gcm_coll_hier_bcast(gcm_coll_sched_t *s, const gcm_coll_grp_t *g,
                         const gcm_coll_hier_t *h, void *buf, int count,
                         gcm_coll_type_h type, int root)
{
    gcm_coll_hview_t v;
    int rn, rl;

    if (coll_hier_groups(s, g, h, &v) != 0) {
        return;
    }
    rn = v.node_of[root];
    rl = v.local_of[root];
    /* A root that is not its node's leader first gives its node the data
     * (the leader included), so that node is done before the others. */
    if (v.mynode == rn && rl != 0) {
        gcm_coll_bcast_flat(s, &v.node, buf, count, type, rl);
    }
    if (coll_hier_leader(&v)) {
        gcm_coll_bcast_flat(s, &v.leaders, buf, count, type, rn);
    }
    if (v.mynode != rn || rl == 0) {
        gcm_coll_bcast_flat(s, &v.node, buf, count, type, 0);
    }
}

void gcm_coll_hier_reduce(gcm_coll_sched_t *s, const gcm_coll_grp_t *g,
                          const gcm_coll_hier_t *h, const void *sbuf,
                          void *rbuf, int count, gcm_coll_type_h type,
                          gcm_coll_op_h op, int root)
{
    gcm_coll_hview_t v;
    void *part = NULL;
    int rn, rl;

    if (coll_hier_groups(s, g, h, &v) != 0) {
        return;
    }
    rn = v.node_of[root];
    rl = v.local_of[root];
    if (coll_hier_leader(&v)) {
        part = (g->rank == root) ? rbuf :
               gcm_coll_alloc_type(s, count, type);
    }
    /* Node by node to the leaders, then among the leaders to the root's
     * node's leader (in place there), then to the root. */
    gcm_coll_reduce_flat(s, &v.node, sbuf, part, count, type, op, 0);
    if (coll_hier_leader(&v)) {
        gcm_coll_reduce_flat(s, &v.leaders, part, part, count, type, op,
                             rn);
    }
    if (v.mynode == rn && rl != 0) {
        if (v.node.rank == 0) {
            gcm_coll_send(s, &v.node, part, count, type, rl);
            gcm_coll_fence(s);
        } else if (v.node.rank == rl) {
            gcm_coll_recv(s, &v.node, rbuf, count, type, 0);
            gcm_coll_fence(s);
        }
    }
}

int gcm_coll_hier_multi(const gcm_coll_hier_t *h, int count, size_t bytes)
{
    return h->nnodes > 1 && h->minnode > 1 && count >= h->minnode &&
           bytes >= gcm_coll_config.reduce_large;
}

/*
 * Reduce-scatter inside a node, in place in rbuf: piece i (cnt[i]
 * elements at disp[i]) goes to rank i. At step r every rank sends rank
 * me + r its piece of the input and combines what rank me - r sends for
 * its own, so each byte crosses the node once and the only temporary is
 * one piece (the general reduce-scatter first copies the whole vector
 * into a temporary, which costs more than the exchange on shared memory).
 * in may be rbuf: a rank only writes its own piece, which it never sends.
 */
static void coll_hier_reduce_scatter(gcm_coll_sched_t *s,
                                     const gcm_coll_grp_t *g, const void *in,
                                     void *rbuf, const int *cnt,
                                     const int *disp, gcm_coll_type_h type,
                                     gcm_coll_op_h op)
{
    int n = g->size, me = g->rank, r;
    void *mine = gcm_coll_at(s, rbuf, disp[me], type), *x = NULL;

    if (cnt[me] > 0 && n > 1) {
        x = gcm_coll_alloc_type(s, cnt[me], type);
        if (x == NULL) {
            return;
        }
    }
    if (in != rbuf) {
        gcm_coll_copy(s, gcm_coll_at(s, in, disp[me], type), cnt[me], type,
                      0, mine, cnt[me], type, 0);
    }
    for (r = 1; r < n; r++) {
        int to = (me + r) % n, from = (me - r + n) % n;

        if (cnt[to] > 0) {
            gcm_coll_send(s, g, gcm_coll_at(s, in, disp[to], type), cnt[to],
                          type, to);
        }
        if (cnt[me] > 0) {
            gcm_coll_recv(s, g, x, cnt[me], type, from);
        }
        gcm_coll_fence(s);
        if (cnt[me] > 0) {
            gcm_coll_combine(s, op, x, mine, cnt[me], type);
        }
    }
}

/*
 * The multi-leader allreduce of a commutative operator: the vector is cut
 * into k pieces, k the number of ranks on the smallest node; inside each
 * node a reduce-scatter leaves piece i, reduced over the node, at local
 * rank i (ranks from k on get nothing); the ranks of local index i, one
 * per node, allreduce piece i among themselves; an allgather inside each
 * node gives everybody the whole. Each node thus sends about the vector
 * once over k connections at once, where the single leader sends it over
 * one (and reduces and broadcasts all of it alone).
 */
static void coll_hier_allreduce_multi(gcm_coll_sched_t *s,
                                      const gcm_coll_grp_t *g,
                                      const gcm_coll_hier_t *h,
                                      const gcm_coll_hview_t *v,
                                      const void *in, void *rbuf, int count,
                                      gcm_coll_type_h type, gcm_coll_op_h op)
{
    int n = v->node.size, k = h->minnode, me = v->node.rank, i;
    int *cnt = gcm_coll_alloc(s, (size_t)n * sizeof(int));
    int *disp = gcm_coll_alloc(s, (size_t)n * sizeof(int));
    gcm_coll_grp_t peers;
    gcm_coll_layout_t l;

    if (cnt == NULL || disp == NULL) {
        return;
    }
    for (i = 0; i < n; i++) {
        cnt[i] = (i < k) ? count / k + ((i < count % k) ? 1 : 0) : 0;
        disp[i] = (i == 0) ? 0 : disp[i - 1] + cnt[i - 1];
    }
    coll_hier_reduce_scatter(s, &v->node, in, rbuf, cnt, disp, type, op);
    if (me < k) {
        peers.tag = g->tag;
        peers.rank = v->mynode;
        peers.size = v->nnodes;
        if (h->peer_lco != NULL) {
            peers.lco = h->peer_lco;
            peers.slot = NULL;
        } else {
            int *map = gcm_coll_alloc(s, (size_t)v->nnodes * sizeof(int));

            if (map == NULL) {
                return;
            }
            for (i = 0; i < v->nnodes; i++) {
                map[i] = (g->slot != NULL) ? g->slot[h->peers[i]] :
                                             h->peers[i];
            }
            peers.lco = g->lco;
            peers.slot = map;
        }
        gcm_coll_allreduce_flat(s, &peers, GCM_COLL_IN_PLACE,
                                gcm_coll_at(s, rbuf, disp[me], type),
                                cnt[me], type, op);
    }
    l.buf = rbuf;
    l.count = 0;
    l.counts = cnt;
    l.displs = disp;
    l.type = type;
    gcm_coll_allgather(s, &v->node, NULL, GCM_COLL_IN_PLACE, 0, NULL, &l);
}

void gcm_coll_hier_allreduce(gcm_coll_sched_t *s, const gcm_coll_grp_t *g,
                             const gcm_coll_hier_t *h, const void *sbuf,
                             void *rbuf, int count, gcm_coll_type_h type,
                             gcm_coll_op_h op)
{
    gcm_coll_hview_t v;
    const void *in = (sbuf == GCM_COLL_IN_PLACE) ? rbuf : sbuf;

    if (coll_hier_groups(s, g, h, &v) != 0) {
        return;
    }
    if (s->ops->commutative(op) &&
        gcm_coll_hier_multi(h, count, gcm_coll_bytes(s, type, count, 0))) {
        coll_hier_allreduce_multi(s, g, h, &v, in, rbuf, count, type, op);
        return;
    }
    gcm_coll_reduce_flat(s, &v.node, in, coll_hier_leader(&v) ? rbuf : NULL,
                         count, type, op, 0);
    if (coll_hier_leader(&v)) {
        gcm_coll_allreduce_flat(s, &v.leaders, GCM_COLL_IN_PLACE, rbuf,
                                count, type, op);
    }
    gcm_coll_bcast_flat(s, &v.node, rbuf, count, type, 0);
}

/* Lengths and offsets, in bytes and node order, of the nodes' runs of
 * blocks when rank r's block has len(r) bytes. */
typedef struct coll_hier_bytes {
    size_t *off;       /* node order index -> offset of its block */
    size_t *len;       /* node order index -> length */
    size_t *noff;      /* node -> offset of its run */
    size_t *nlen;      /* node -> length of its run */
    size_t  total;
} coll_hier_bytes_t;

static int coll_hier_bytes(gcm_coll_sched_t *s, const gcm_coll_hview_t *v,
                           int size, const gcm_coll_layout_t *l, size_t blk,
                           coll_hier_bytes_t *b)
{
    int i, j;

    b->off = gcm_coll_alloc(s, (size_t)size * sizeof(size_t));
    b->len = gcm_coll_alloc(s, (size_t)size * sizeof(size_t));
    b->noff = gcm_coll_alloc(s, (size_t)v->nnodes * sizeof(size_t));
    b->nlen = gcm_coll_alloc(s, (size_t)v->nnodes * sizeof(size_t));
    if (b->off == NULL || b->len == NULL || b->noff == NULL ||
        b->nlen == NULL) {
        return -1;
    }
    b->total = 0;
    for (j = 0; j < v->nnodes; j++) {
        b->noff[j] = b->total;
        for (i = v->first[j]; i < v->first[j + 1]; i++) {
            int r = v->members[i];

            b->off[i] = b->total;
            b->len[i] = (l != NULL) ?
                gcm_coll_bytes(s, l->type, gcm_coll_cnt(l, r), 0) : blk;
            b->total += b->len[i];
        }
        b->nlen[j] = b->total - b->noff[j];
    }
    return 0;
}

/*
 * Gather: each node gathers its blocks at its leader (binomial), the
 * leaders gather the nodes' runs at the root's node's leader, which hands
 * them to the root if that is another rank; the root then puts the blocks
 * in place from node order. Scatter runs the same the other way.
 */
void gcm_coll_hier_gather(gcm_coll_sched_t *s, const gcm_coll_grp_t *g,
                          const gcm_coll_hier_t *h, int to_root, void *mbuf,
                          int mcount, gcm_coll_type_h mtype,
                          const gcm_coll_layout_t *l, int root, int in_place)
{
    gcm_coll_hview_t v;
    coll_hier_bytes_t b;
    int size = g->size, rn, rl, i;
    size_t blk;
    char *all = NULL, *nb = NULL, *mine;

    if (coll_hier_groups(s, g, h, &v) != 0) {
        return;
    }
    rn = v.node_of[root];
    rl = v.local_of[root];
    blk = (g->rank == root) ? gcm_coll_bytes(s, l->type, l->count, 0) :
                              gcm_coll_bytes(s, mtype, mcount, 0);
    if (coll_hier_bytes(s, &v, size, NULL, blk, &b) != 0) {
        return;
    }
    mine = gcm_coll_alloc(s, blk);
    if (g->rank == root || (coll_hier_leader(&v) && v.mynode == rn)) {
        all = gcm_coll_alloc(s, b.total);
    }
    if (coll_hier_leader(&v)) {
        nb = (all != NULL) ? all + b.noff[v.mynode] :
                             gcm_coll_alloc(s, b.nlen[v.mynode]);
    }
    if (mine == NULL || (g->rank == root && all == NULL) ||
        (coll_hier_leader(&v) && nb == NULL)) {
        return;
    }
    if (to_root != 0) {
        if (g->rank == root && in_place != 0) {
            gcm_coll_copy(s, gcm_coll_blk(s, l, root), l->count, l->type, 0,
                          mine, 0, NULL, blk);
        } else {
            gcm_coll_copy(s, mbuf, mcount, mtype, 0, mine, 0, NULL, blk);
        }
        if (coll_hier_leader(&v)) {
            gcm_coll_copy(s, mine, 0, NULL, blk, nb, 0, NULL, blk);
        }
        gcm_coll_gather_raw(s, &v.node, 1, mine, nb, blk, 0);
        if (coll_hier_leader(&v)) {
            gcm_coll_gatherv_raw(s, &v.leaders, 1, nb, b.nlen[v.mynode],
                                 all, b.noff, b.nlen, rn);
        }
        if (rl != 0 && v.mynode == rn) {
            if (v.node.rank == 0) {
                gcm_coll_send_raw(s, &v.node, all, b.total, rl);
            } else if (v.node.rank == rl) {
                gcm_coll_recv_raw(s, &v.node, all, b.total, 0);
            }
            gcm_coll_fence(s);
        }
        for (i = 0; g->rank == root && i < size; i++) {
            int r = v.members[i];

            if (r != root || in_place == 0) {
                gcm_coll_copy(s, all + b.off[i], 0, NULL, blk,
                              gcm_coll_blk(s, l, r), l->count, l->type, 0);
            }
        }
        return;
    }
    for (i = 0; g->rank == root && i < size; i++) {
        gcm_coll_copy(s, gcm_coll_blk(s, l, v.members[i]), l->count,
                      l->type, 0, all + b.off[i], 0, NULL, blk);
    }
    if (rl != 0 && v.mynode == rn) {
        if (v.node.rank == 0) {
            gcm_coll_recv_raw(s, &v.node, all, b.total, rl);
        } else if (v.node.rank == rl) {
            gcm_coll_send_raw(s, &v.node, all, b.total, 0);
        }
        gcm_coll_fence(s);
    }
    if (coll_hier_leader(&v)) {
        gcm_coll_gatherv_raw(s, &v.leaders, 0, nb, b.nlen[v.mynode], all,
                             b.noff, b.nlen, rn);
    }
    gcm_coll_gather_raw(s, &v.node, 0, mine, nb, blk, 0);
    if (coll_hier_leader(&v)) {
        gcm_coll_copy(s, nb, 0, NULL, blk, mine, 0, NULL, blk);
    }
    if (g->rank != root || in_place == 0) {
        gcm_coll_copy(s, mine, 0, NULL, blk, mbuf, mcount, mtype, 0);
    }
}

/*
 * Allgather(v): each node gathers its blocks at its leader, the leaders
 * allgather the nodes' runs (ring), each leader broadcasts the whole in
 * its node, and every rank puts the blocks in place from node order.
 */
void gcm_coll_hier_allgather(gcm_coll_sched_t *s, const gcm_coll_grp_t *g,
                             const gcm_coll_hier_t *h, const void *sbuf,
                             int scount, gcm_coll_type_h stype,
                             const gcm_coll_layout_t *l)
{
    gcm_coll_hview_t v;
    coll_hier_bytes_t b;
    int size = g->size, me = g->rank, i;
    char *all;
    size_t mylen;
    void *mine;

    if (coll_hier_groups(s, g, h, &v) != 0 ||
        coll_hier_bytes(s, &v, size, l, 0, &b) != 0) {
        return;
    }
    all = gcm_coll_alloc(s, b.total);
    if (all == NULL) {
        return;
    }
    i = v.first[v.mynode] + v.node.rank;
    mine = all + b.off[i];
    mylen = b.len[i];
    if (sbuf == GCM_COLL_IN_PLACE) {
        gcm_coll_copy(s, gcm_coll_blk(s, l, me), gcm_coll_cnt(l, me),
                      l->type, 0, mine, 0, NULL, mylen);
    } else {
        gcm_coll_copy(s, sbuf, scount, stype, 0, mine, 0, NULL, mylen);
    }
    if (l->counts == NULL) {
        /* mine lies inside the node's run at the leader's offset. */
        gcm_coll_gather_raw(s, &v.node, 1, mine, all + b.noff[v.mynode],
                            mylen, 0);
    } else {
        gcm_coll_gatherv_raw(s, &v.node, 1, mine, mylen, all,
                             b.off + v.first[v.mynode],
                             b.len + v.first[v.mynode], 0);
    }
    if (coll_hier_leader(&v)) {
        gcm_coll_allgather_raw(s, &v.leaders, all, b.noff, b.nlen);
    }
    gcm_coll_bcast_bytes(s, &v.node, all, b.total, 0);
    for (i = 0; i < size; i++) {
        int r = v.members[i];

        if (r != me || sbuf != GCM_COLL_IN_PLACE) {
            gcm_coll_copy(s, all + b.off[i], 0, NULL, b.len[i],
                          gcm_coll_blk(s, l, r), gcm_coll_cnt(l, r), l->type,
                          0);
        }
    }
}

/*
 * All-to-all through the leaders (see the top of the file). Each rank
 * packs its blocks in destination node order; its leader gathers them
 * (row k: member k's p blocks), sends each other leader the columns of
 * that leader's node (rows in member order), and builds each member's p
 * incoming blocks in source node order, which it scatters.
 */
void gcm_coll_hier_alltoall(gcm_coll_sched_t *s, const gcm_coll_grp_t *g,
                            const gcm_coll_hier_t *h,
                            const gcm_coll_blocks_t *sb,
                            const gcm_coll_blocks_t *rb)
{
    gcm_coll_hview_t v;
    int size = g->size, i, k, j, step;
    size_t blk = gcm_coll_bytes(s, sb->type[0], sb->count[0], 0);
    size_t row = (size_t)size * blk;
    char *mine = gcm_coll_alloc(s, row), *in = NULL, *out = NULL;
    char **xs = NULL, **xr = NULL;
    int n, me;

    if (mine == NULL || coll_hier_groups(s, g, h, &v) != 0) {
        return;
    }
    n = v.node.size;
    me = v.mynode;
    for (i = 0; i < size; i++) {
        int r = v.members[i];

        gcm_coll_copy(s, sb->ptr[r], sb->count[r], sb->type[r], 0,
                      mine + (size_t)i * blk, 0, NULL, blk);
    }
    if (coll_hier_leader(&v)) {
        in = gcm_coll_alloc(s, (size_t)n * row);
        out = gcm_coll_alloc(s, (size_t)n * row);
        xs = gcm_coll_alloc(s, (size_t)v.nnodes * sizeof(char *));
        xr = gcm_coll_alloc(s, (size_t)v.nnodes * sizeof(char *));
        if (in == NULL || out == NULL || xs == NULL || xr == NULL) {
            return;
        }
        gcm_coll_copy(s, mine, 0, NULL, row, in, 0, NULL, row);
    }
    gcm_coll_gather_raw(s, &v.node, 1, mine, in, row, 0);
    if (coll_hier_leader(&v)) {
        /* Own node: member k's blocks for member j go straight across. */
        for (k = 0; k < n; k++) {
            for (j = 0; j < n; j++) {
                gcm_coll_copy(s, in + (size_t)k * row +
                              (size_t)(v.first[me] + j) * blk, 0, NULL, blk,
                              out + (size_t)j * row +
                              (size_t)(v.first[me] + k) * blk, 0, NULL, blk);
            }
        }
        for (step = 1; step < v.nnodes; step++) {
            int to = (me + step) % v.nnodes;
            int from = (me - step + v.nnodes) % v.nnodes;
            int nt = v.nsize[to], nf = v.nsize[from];
            size_t ts = (size_t)n * nt * blk, fs = (size_t)nf * n * blk;

            xs[to] = gcm_coll_alloc(s, ts);
            xr[from] = gcm_coll_alloc(s, fs);
            if (xs[to] == NULL || xr[from] == NULL) {
                return;
            }
            for (k = 0; k < n; k++) {
                gcm_coll_copy(s, in + (size_t)k * row +
                              (size_t)v.first[to] * blk, 0, NULL,
                              (size_t)nt * blk,
                              xs[to] + (size_t)k * nt * blk, 0, NULL,
                              (size_t)nt * blk);
            }
            gcm_coll_send_raw(s, &v.leaders, xs[to], ts, to);
            gcm_coll_recv_raw(s, &v.leaders, xr[from], fs, from);
            gcm_coll_fence(s);
            /* Row k of from's message: member k of from, a block for each
             * of my node's members. */
            for (k = 0; k < nf; k++) {
                for (j = 0; j < n; j++) {
                    gcm_coll_copy(s, xr[from] + ((size_t)k * n + j) * blk, 0,
                                  NULL, blk, out + (size_t)j * row +
                                  (size_t)(v.first[from] + k) * blk, 0,
                                  NULL, blk);
                }
            }
        }
    }
    gcm_coll_gather_raw(s, &v.node, 0, mine, out, row, 0);
    if (coll_hier_leader(&v)) {
        gcm_coll_copy(s, out, 0, NULL, row, mine, 0, NULL, row);
    }
    for (i = 0; i < size; i++) {
        int r = v.members[i];

        gcm_coll_copy(s, mine + (size_t)i * blk, 0, NULL, blk, rb->ptr[r],
                      rb->count[r], rb->type[r], 0);
    }
}
