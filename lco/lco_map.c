/*
 * lco/lco_map.c: topology mapping (lco_map.h says what it computes).
 *
 * Three candidates, the best one kept, the identity on a tie:
 *   1. the identity (vertex v on slot v);
 *   2. Scotch's static mapping of the graph onto the target, made one to
 *      one (Scotch balances loads within a tolerance and may put two
 *      vertices on one slot; each surplus vertex then takes the free slot
 *      nearest the one Scotch chose), then improved by swaps;
 *   3. the identity improved by swaps.
 * A swap exchanges the slots of two free vertices when that lowers the
 * cost; passes over all pairs repeat until one changes nothing or the
 * step budget (from opts->time) is spent. The cost is exact (64 bits,
 * the target's own measure); Scotch only sees an approximation of it: a
 * sum over edges of weight times distance (lco_map_scotch.c).
 */
#include "config.h"

#include "lco/lco_map_impl.h"

#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <scotch.h>

/* Steps (adjacency entries looked at) per second of opts->time: about
 * what one core does with the loops below, under load. */
#define MAP_STEPS_PER_SECOND 5e7

/* Largest machine graph: its distance table has nslots^2 entries. */
#define MAP_GRAPH_MAX_SLOTS 2048

/* ---- saturating arithmetic -------------------------------------------- */

static int64_t sat_add(int64_t a, int64_t b)
{
    int64_t r;

    if (__builtin_add_overflow(a, b, &r)) {
        return (b > 0) ? INT64_MAX : INT64_MIN;
    }
    return r;
}

static int64_t sat_mul(int64_t a, int64_t b)
{
    int64_t r;

    if (__builtin_mul_overflow(a, b, &r)) {
        return ((a < 0) != (b < 0)) ? INT64_MIN : INT64_MAX;
    }
    return r;
}

/* ---- argument checks --------------------------------------------------- */

static gcm_status_t check_csr(int n, const int *xadj, const int *adj,
                              const int *wgt, int minw, const char *what)
{
    static const char call[] = "gcm_lco_map";
    int v, k;

    if (n > 0 && xadj == NULL) {
        return gcm_fail(GCM_ERR_INVALID_PARAM, call, "%s: xadj is NULL",
                        what);
    }
    if (n == 0) {
        return GCM_OK;
    }
    if (xadj[0] != 0) {
        return gcm_fail(GCM_ERR_INVALID_PARAM, call,
                        "%s: xadj[0] is %d, not 0", what, xadj[0]);
    }
    for (v = 0; v < n; v++) {
        if (xadj[v + 1] < xadj[v]) {
            return gcm_fail(GCM_ERR_INVALID_PARAM, call,
                            "%s: xadj[%d] = %d is less than xadj[%d] = %d",
                            what, v + 1, xadj[v + 1], v, xadj[v]);
        }
    }
    if (xadj[n] > 0 && adj == NULL) {
        return gcm_fail(GCM_ERR_INVALID_PARAM, call, "%s: adj is NULL",
                        what);
    }
    for (k = 0; k < xadj[n]; k++) {
        if (adj[k] < 0 || adj[k] >= n) {
            return gcm_fail(GCM_ERR_INVALID_PARAM, call,
                            "%s: adj[%d] = %d is not in 0..%d", what, k,
                            adj[k], n - 1);
        }
        if (wgt != NULL && wgt[k] < minw) {
            return gcm_fail(GCM_ERR_INVALID_PARAM, call,
                            "%s: weight %d of entry %d is below %d", what,
                            wgt[k], k, minw);
        }
    }
    return GCM_OK;
}

static gcm_status_t check_args(const gcm_lco_map_graph_t *g,
                               const gcm_lco_map_target_t *t)
{
    static const char call[] = "gcm_lco_map";
    gcm_status_t status;

    if (g == NULL || t == NULL) {
        return gcm_fail(GCM_ERR_INVALID_PARAM, call,
                        "the graph or the target is NULL");
    }
    if (g->n < 0) {
        return gcm_fail(GCM_ERR_INVALID_PARAM, call,
                        "the graph has %d vertices", g->n);
    }
    if (t->nslots != g->n) {
        return gcm_fail(GCM_ERR_INVALID_PARAM, call,
                        "%d slots for %d vertices", t->nslots, g->n);
    }
    status = check_csr(g->n, g->xadj, g->adj, g->wgt, 0, "graph");
    if (status != GCM_OK) {
        return status;
    }
    switch (t->kind) {
    case GCM_LCO_MAP_TREE:
        if (t->nlevels < 0 || t->nlevels > GCM_LCO_MAP_MAX_LEVELS) {
            return gcm_fail(GCM_ERR_INVALID_PARAM, call,
                            "%d tree levels, not 0..%d", t->nlevels,
                            GCM_LCO_MAP_MAX_LEVELS);
        }
        if (t->nlevels > 0 && g->n > 0 && t->keys == NULL) {
            return gcm_fail(GCM_ERR_INVALID_PARAM, call,
                            "the tree's keys are NULL");
        }
        return GCM_OK;
    case GCM_LCO_MAP_GRAPH:
        if (g->n > MAP_GRAPH_MAX_SLOTS) {
            return gcm_fail(GCM_ERR_INVALID_PARAM, call,
                            "a machine graph of %d slots is more than %d",
                            g->n, MAP_GRAPH_MAX_SLOTS);
        }
        return check_csr(g->n, t->xadj, t->adj, t->wgt, 1, "machine graph");
    default:
        return gcm_fail(GCM_ERR_INVALID_PARAM, call,
                        "unknown target kind %d", t->kind);
    }
}

/* ---- the symmetric graph ------------------------------------------------ */

typedef struct map_entry {
    int     v;
    int64_t w;
} map_entry_t;

static int entry_cmp(const void *a, const void *b)
{
    const map_entry_t *x = a, *y = b;

    return (x->v > y->v) - (x->v < y->v);
}

/* Builds ctx's graph from g: both directions of every entry, each list
 * sorted by neighbour with repeats merged. */
static gcm_status_t sym_build(map_ctx_t *ctx, const gcm_lco_map_graph_t *g)
{
    int n = g->n, u, k, fill;
    int *count = calloc((size_t)n + 1, sizeof(int));
    map_entry_t *e = NULL;
    int64_t nent = 0;

    if (count == NULL) {
        return GCM_ERR_NO_MEMORY;
    }
    for (u = 0; u < n; u++) {
        for (k = g->xadj[u]; k < g->xadj[u + 1]; k++) {
            int w = (g->wgt != NULL) ? g->wgt[k] : 1;

            if (g->adj[k] != u && w > 0) {
                count[u]++;
                count[g->adj[k]]++;
                nent += 2;
            }
        }
    }
    if (nent > INT_MAX) {
        free(count);
        return gcm_fail(GCM_ERR_INVALID_PARAM, "gcm_lco_map",
                        "the graph has more than %d edges", INT_MAX / 2);
    }
    ctx->xadj = malloc(((size_t)n + 1) * sizeof(int));
    e = malloc((nent > 0 ? (size_t)nent : 1u) * sizeof(*e));
    if (ctx->xadj == NULL || e == NULL) {
        free(count);
        free(e);
        return GCM_ERR_NO_MEMORY;
    }
    ctx->xadj[0] = 0;
    for (u = 0; u < n; u++) {
        ctx->xadj[u + 1] = ctx->xadj[u] + count[u];
        count[u] = ctx->xadj[u];
    }
    for (u = 0; u < n; u++) {
        for (k = g->xadj[u]; k < g->xadj[u + 1]; k++) {
            int v = g->adj[k];
            int w = (g->wgt != NULL) ? g->wgt[k] : 1;

            if (v != u && w > 0) {
                e[count[u]++] = (map_entry_t){ v, w };
                e[count[v]++] = (map_entry_t){ u, w };
            }
        }
    }
    free(count);
    /* Sort and merge each list in place; the lists only shrink. */
    fill = 0;
    for (u = 0; u < n; u++) {
        int first = ctx->xadj[u], end = ctx->xadj[u + 1];
        int start = fill;

        qsort(e + first, (size_t)(end - first), sizeof(*e), entry_cmp);
        for (k = first; k < end; k++) {
            if (fill > start && e[fill - 1].v == e[k].v) {
                e[fill - 1].w += e[k].w;
            } else {
                e[fill++] = e[k];
            }
        }
        ctx->xadj[u] = start;
    }
    ctx->xadj[n] = fill;
    ctx->adj = malloc((fill > 0 ? (size_t)fill : 1u) * sizeof(int));
    ctx->w   = malloc((fill > 0 ? (size_t)fill : 1u) * sizeof(int64_t));
    if (ctx->adj == NULL || ctx->w == NULL) {
        free(e);
        return GCM_ERR_NO_MEMORY;
    }
    ctx->totalw = 0;
    for (k = 0; k < fill; k++) {
        ctx->adj[k] = e[k].v;
        ctx->w[k]   = e[k].w;
        ctx->totalw = sat_add(ctx->totalw, e[k].w);
    }
    ctx->totalw /= 2;
    free(e);
    return GCM_OK;
}

/* ---- the target ----------------------------------------------------------- */

/*
 * Dense group ids of a tree target, level by level: a group is a (group
 * above, key) pair, numbered in the order of its first slot. Also fills,
 * when asked, each slot's position in the tree (cidx, n * (L + 1): at
 * level l < L the index of its group among the children of the group
 * above, at L its index within its deepest group) and each level's
 * largest number of children of one group (fanout, L + 1).
 */
typedef struct map_hslot {
    uint64_t key;
    int      parent;
    int      id;      /* -1: empty */
} map_hslot_t;

static gcm_status_t tree_groups(map_ctx_t *ctx, const gcm_lco_map_target_t *t,
                                int *cidx, int *fanout)
{
    int n = ctx->n, L = t->nlevels, l, s;
    size_t cap = 16, i;
    map_hslot_t *tab;
    int *nchild, *gchild, *prev;
    gcm_status_t status = GCM_ERR_NO_MEMORY;

    while (cap < 2 * (size_t)n) {
        cap <<= 1;
    }
    ctx->L   = L;
    ctx->grp = malloc(((size_t)n * L > 0 ? (size_t)n * L : 1u) * sizeof(int));
    tab      = malloc(cap * sizeof(*tab));
    nchild   = malloc(((size_t)n + 1) * sizeof(int));
    gchild   = malloc(((size_t)n + 1) * sizeof(int));
    prev     = calloc((size_t)n + 1, sizeof(int));
    if (ctx->grp == NULL || tab == NULL || nchild == NULL ||
        gchild == NULL || prev == NULL) {
        goto out;
    }
    /* prev[s]: the id of s's group one level up (the root, 0, above
     * level 0); nchild[g]: children of group g seen so far. */
    for (l = 0; l <= L; l++) {
        int ngroups = 0, maxc = 0;

        memset(nchild, 0, ((size_t)n + 1) * sizeof(int));
        for (i = 0; i < cap; i++) {
            tab[i].id = -1;
        }
        for (s = 0; s < n; s++) {
            int parent = prev[s], c;

            if (l == L) {
                c = nchild[parent]++;
            } else {
                uint64_t key = t->keys[(size_t)s * L + l];
                uint64_t hk[2] = { key, (uint64_t)parent };

                i = gcm_hash64(hk, sizeof(hk)) & (cap - 1);
                while (tab[i].id >= 0 &&
                       (tab[i].key != key || tab[i].parent != parent)) {
                    i = (i + 1) & (cap - 1);
                }
                if (tab[i].id < 0) {
                    tab[i].key     = key;
                    tab[i].parent  = parent;
                    tab[i].id      = ngroups;
                    gchild[ngroups] = nchild[parent]++;
                    ngroups++;
                }
                ctx->grp[(size_t)s * L + l] = tab[i].id;
                c = gchild[tab[i].id];
            }
            if (cidx != NULL) {
                cidx[(size_t)s * (L + 1) + l] = c;
            }
        }
        for (s = 0; s <= n; s++) {
            if (nchild[s] > maxc) {
                maxc = nchild[s];
            }
        }
        if (fanout != NULL) {
            fanout[l] = maxc;
        }
        if (l < L) {
            for (s = 0; s < n; s++) {
                prev[s] = ctx->grp[(size_t)s * L + l];
            }
        }
    }
    status = GCM_OK;
out:
    free(tab);
    free(nchild);
    free(gchild);
    free(prev);
    return status;
}

/* The level at which slots a and b part (L: same deepest group). */
int gcm_lco_map_part_level(const map_ctx_t *ctx, int a, int b)
{
    const int *ga = ctx->grp + (size_t)a * ctx->L;
    const int *gb = ctx->grp + (size_t)b * ctx->L;
    int l;

    for (l = 0; l < ctx->L; l++) {
        if (ga[l] != gb[l]) {
            break;
        }
    }
    return l;
}

/* Shortest distances between all slots of a machine graph (Dijkstra from
 * each, with an array scan: n is at most MAP_GRAPH_MAX_SLOTS). */
static gcm_status_t graph_dists(map_ctx_t *ctx, const gcm_lco_map_target_t *t)
{
    int n = ctx->n, src, i, k;
    int64_t far = 1;
    unsigned char *done;

    for (k = 0; n > 0 && k < t->xadj[n]; k++) {
        far = sat_add(far, (t->wgt != NULL) ? t->wgt[k] : 1);
    }
    ctx->dist = malloc(((size_t)n * n > 0 ? (size_t)n * n : 1u) *
                       sizeof(int64_t));
    done = malloc(n > 0 ? (size_t)n : 1u);
    if (ctx->dist == NULL || done == NULL) {
        free(done);
        return GCM_ERR_NO_MEMORY;
    }
    for (src = 0; src < n; src++) {
        int64_t *d = ctx->dist + (size_t)src * n;

        for (i = 0; i < n; i++) {
            d[i] = INT64_MAX;
        }
        memset(done, 0, (size_t)n);
        d[src] = 0;
        for (;;) {
            int u = -1;

            for (i = 0; i < n; i++) {
                if (!done[i] && d[i] != INT64_MAX && (u < 0 || d[i] < d[u])) {
                    u = i;
                }
            }
            if (u < 0) {
                break;
            }
            done[u] = 1;
            for (k = t->xadj[u]; k < t->xadj[u + 1]; k++) {
                int v = t->adj[k];
                int64_t nd = sat_add(d[u], (t->wgt != NULL) ? t->wgt[k] : 1);

                if (nd < d[v]) {
                    d[v] = nd;
                }
            }
        }
        for (i = 0; i < n; i++) {
            if (d[i] == INT64_MAX) {
                d[i] = far;
            }
        }
    }
    free(done);
    return GCM_OK;
}

/* ---- costs ------------------------------------------------------------- */

/* Adds sign * w for an edge between slots a and b to vec. */
static void contrib(const map_ctx_t *ctx, int a, int b, int64_t w, int sign,
                    int64_t *vec)
{
    if (ctx->kind == GCM_LCO_MAP_TREE) {
        int l;

        for (l = gcm_lco_map_part_level(ctx, a, b); l < ctx->L; l++) {
            vec[l] = sat_add(vec[l], sign * w);
        }
    } else {
        vec[0] = sat_add(vec[0],
                         sat_mul(sign * w, ctx->dist[(size_t)a * ctx->n + b]));
    }
}

static void cost_of(const map_ctx_t *ctx, const int *slot_of, int64_t *vec)
{
    int u, k;

    memset(vec, 0, GCM_LCO_MAP_MAX_LEVELS * sizeof(int64_t));
    for (u = 0; u < ctx->n; u++) {
        for (k = ctx->xadj[u]; k < ctx->xadj[u + 1]; k++) {
            if (ctx->adj[k] > u) {
                contrib(ctx, slot_of[u], slot_of[ctx->adj[k]], ctx->w[k], 1,
                        vec);
            }
        }
    }
}

/* Lexicographic comparison of two cost vectors. */
static int vec_cmp(const int64_t *a, const int64_t *b, int ncost)
{
    int l;

    for (l = 0; l < ncost; l++) {
        if (a[l] != b[l]) {
            return (a[l] < b[l]) ? -1 : 1;
        }
    }
    return 0;
}

/* ---- swaps --------------------------------------------------------------- */

/* The change of cost if free vertices u and v exchanged slots. */
static void swap_delta(map_ctx_t *ctx, const int *slot_of, int u, int v,
                       int64_t *delta)
{
    int a = slot_of[u], b = slot_of[v], k;

    memset(delta, 0, (size_t)ctx->ncost * sizeof(int64_t));
    for (k = ctx->xadj[u]; k < ctx->xadj[u + 1]; k++) {
        int x = ctx->adj[k];

        if (x != v) {
            contrib(ctx, a, slot_of[x], ctx->w[k], -1, delta);
            contrib(ctx, b, slot_of[x], ctx->w[k], 1, delta);
        }
    }
    for (k = ctx->xadj[v]; k < ctx->xadj[v + 1]; k++) {
        int y = ctx->adj[k];

        if (y != u) {
            contrib(ctx, b, slot_of[y], ctx->w[k], -1, delta);
            contrib(ctx, a, slot_of[y], ctx->w[k], 1, delta);
        }
    }
    ctx->steps += (ctx->xadj[u + 1] - ctx->xadj[u]) +
                  (ctx->xadj[v + 1] - ctx->xadj[v]) + 1;
}

int gcm_lco_map_is_fixed(const map_ctx_t *ctx, int v)
{
    return ctx->fixed != NULL && ctx->fixed[v] != 0;
}

/* Improves slot_of by swaps (see the top of the file); nonzero if it
 * changed anything. */
static int refine(map_ctx_t *ctx, int *slot_of)
{
    int64_t zero[GCM_LCO_MAP_MAX_LEVELS] = { 0 };
    int64_t delta[GCM_LCO_MAP_MAX_LEVELS], best[GCM_LCO_MAP_MAX_LEVELS];
    int n = ctx->n, u, v, changed = 0, improved = 1;

    while (improved && ctx->steps < ctx->budget) {
        improved = 0;
        for (u = 0; u < n && ctx->steps < ctx->budget; u++) {
            int bestv = -1;

            if (gcm_lco_map_is_fixed(ctx, u)) {
                continue;
            }
            memcpy(best, zero, sizeof(best));
            for (v = u + 1; v < n; v++) {
                if (gcm_lco_map_is_fixed(ctx, v) ||
                    (ctx->kind == GCM_LCO_MAP_TREE &&
                     gcm_lco_map_part_level(ctx, slot_of[u], slot_of[v]) ==
                         ctx->L)) {
                    continue;
                }
                swap_delta(ctx, slot_of, u, v, delta);
                if (vec_cmp(delta, best, ctx->ncost) < 0) {
                    memcpy(best, delta, sizeof(best));
                    bestv = v;
                }
            }
            if (bestv >= 0) {
                int s = slot_of[u];

                slot_of[u]     = slot_of[bestv];
                slot_of[bestv] = s;
                improved = changed = 1;
            }
        }
    }
    return changed;
}


/* ---- entry points ---------------------------------------------------------- */

static void ctx_free(map_ctx_t *ctx)
{
    free(ctx->xadj);
    free(ctx->adj);
    free(ctx->w);
    free(ctx->grp);
    free(ctx->dist);
}

/* Checks the arguments and builds ctx (graph and target). cidx and
 * fanout (tree targets, may be NULL) as tree_groups fills them. */
static gcm_status_t ctx_build(map_ctx_t *ctx, const gcm_lco_map_graph_t *g,
                              const gcm_lco_map_target_t *t, int *cidx,
                              int *fanout)
{
    gcm_status_t status = check_args(g, t);

    memset(ctx, 0, sizeof(*ctx));
    if (status != GCM_OK) {
        return status;
    }
    ctx->n    = g->n;
    ctx->kind = t->kind;
    status = sym_build(ctx, g);
    if (status == GCM_OK) {
        if (t->kind == GCM_LCO_MAP_TREE) {
            ctx->ncost = t->nlevels;
            status = tree_groups(ctx, t, cidx, fanout);
        } else {
            ctx->ncost = 1;
            status = graph_dists(ctx, t);
        }
    }
    return status;
}

gcm_status_t gcm_lco_map_cost(const gcm_lco_map_graph_t *g,
                              const gcm_lco_map_target_t *t,
                              const int *slot_of,
                              int64_t cost[GCM_LCO_MAP_MAX_LEVELS],
                              int *ncost_p)
{
    map_ctx_t ctx;
    gcm_status_t status;
    unsigned char *seen = NULL;
    int v;

    if (slot_of == NULL || cost == NULL || ncost_p == NULL) {
        return gcm_fail(GCM_ERR_INVALID_PARAM, "gcm_lco_map_cost",
                        "slot_of, cost or ncost_p is NULL");
    }
    status = ctx_build(&ctx, g, t, NULL, NULL);
    if (status == GCM_OK) {
        seen = calloc(ctx.n > 0 ? (size_t)ctx.n : 1u, 1);
        status = (seen == NULL) ? GCM_ERR_NO_MEMORY : GCM_OK;
    }
    for (v = 0; status == GCM_OK && v < ctx.n; v++) {
        if (slot_of[v] < 0 || slot_of[v] >= ctx.n || seen[slot_of[v]]) {
            status = gcm_fail(GCM_ERR_INVALID_PARAM, "gcm_lco_map_cost",
                              "slot_of is not a permutation (vertex %d: "
                              "slot %d)", v, slot_of[v]);
        } else {
            seen[slot_of[v]] = 1;
        }
    }
    if (status == GCM_OK) {
        cost_of(&ctx, slot_of, cost);
        *ncost_p = ctx.ncost;
    }
    free(seen);
    ctx_free(&ctx);
    return status;
}

gcm_status_t gcm_lco_map_compute(const gcm_lco_map_graph_t *g,
                                 const gcm_lco_map_target_t *t,
                                 const gcm_lco_map_opts_t *opts,
                                 int *slot_of, gcm_lco_map_result_t *res)
{
    map_ctx_t ctx;
    gcm_status_t status;
    gcm_lco_map_result_t r;
    int64_t cand[GCM_LCO_MAP_MAX_LEVELS];
    int *cidx = NULL, *fanout = NULL, *work = NULL;
    SCOTCH_Num *part = NULL;
    int n, v, tree;

    if (slot_of == NULL || opts == NULL) {
        return gcm_fail(GCM_ERR_INVALID_PARAM, "gcm_lco_map",
                        "slot_of or opts is NULL");
    }
    if (opts->method != GCM_LCO_MAP_SCOTCH &&
        opts->method != GCM_LCO_MAP_IDENTITY) {
        return gcm_fail(GCM_ERR_INVALID_PARAM, "gcm_lco_map",
                        "unknown method %d", opts->method);
    }
    tree = (t != NULL && t->kind == GCM_LCO_MAP_TREE);
    n    = (g != NULL && g->n > 0) ? g->n : 0;
    if (tree) {
        int L = (t->nlevels > 0 && t->nlevels <= GCM_LCO_MAP_MAX_LEVELS) ?
                t->nlevels : 0;

        cidx   = malloc(((size_t)n * (L + 1) > 0 ? (size_t)n * (L + 1) : 1u) *
                        sizeof(int));
        fanout = malloc((GCM_LCO_MAP_MAX_LEVELS + 1) * sizeof(int));
        if (cidx == NULL || fanout == NULL) {
            free(cidx);
            free(fanout);
            return GCM_ERR_NO_MEMORY;
        }
    }
    status = ctx_build(&ctx, g, t, cidx, fanout);
    if (status != GCM_OK) {
        goto out;
    }
    ctx.fixed  = opts->fixed;
    ctx.budget = (opts->time > 0) ?
                 (int64_t)(opts->time * MAP_STEPS_PER_SECOND) : 0;

    memset(&r, 0, sizeof(r));
    r.ncost = ctx.ncost;
    r.how   = "identity";
    for (v = 0; v < n; v++) {
        slot_of[v] = v;
    }
    cost_of(&ctx, slot_of, r.identity);
    memcpy(r.cost, r.identity, sizeof(r.cost));
    if (opts->method == GCM_LCO_MAP_IDENTITY || ctx.budget <= 0 || n < 2 ||
        vec_cmp(r.identity, (int64_t[GCM_LCO_MAP_MAX_LEVELS]){ 0 },
                ctx.ncost) == 0) {
        goto done;
    }
    work = malloc((size_t)n * sizeof(int));
    part = malloc((size_t)n * sizeof(SCOTCH_Num));
    if (work == NULL || part == NULL) {
        status = GCM_ERR_NO_MEMORY;
        goto out;
    }
    /* Candidate 2: Scotch, made one to one, then swaps. */
    if (gcm_lco_map_scotch(&ctx, t, cidx, fanout, part) == 0) {
        status = gcm_lco_map_repair(&ctx, part, work);
        if (status != GCM_OK) {
            goto out;
        }
        (void)refine(&ctx, work);
        cost_of(&ctx, work, cand);
        if (vec_cmp(cand, r.cost, ctx.ncost) < 0) {
            memcpy(slot_of, work, (size_t)n * sizeof(int));
            memcpy(r.cost, cand, sizeof(r.cost));
            r.how = "scotch";
        }
    } else {
        gcm_debug("map: scotch gave no mapping of %d vertices; swaps only",
                  n);
    }
    /* Candidate 3: the identity, then swaps. */
    for (v = 0; v < n; v++) {
        work[v] = v;
    }
    if (refine(&ctx, work)) {
        cost_of(&ctx, work, cand);
        if (vec_cmp(cand, r.cost, ctx.ncost) < 0) {
            memcpy(slot_of, work, (size_t)n * sizeof(int));
            memcpy(r.cost, cand, sizeof(r.cost));
            r.how = "swaps";
        }
    }
done:
    gcm_debug("map: %d vertices, %d cost levels, %s, %lld steps", n,
              ctx.ncost, r.how, (long long)ctx.steps);
    if (res != NULL) {
        *res = r;
    }
out:
    free(work);
    free(part);
    free(cidx);
    free(fanout);
    ctx_free(&ctx);
    return status;
}
