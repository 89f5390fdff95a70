/*
 * lco/lco_ext_eval.c: what a parsed definition (lco_ext.c) gives a set
 * of processes, known by their processor names: who belongs, in which
 * order, which attributes and info apply to whom, and the edges of the
 * virtual topology.
 *
 * Every process computes the same answers from the same file and the
 * same names (the MPI layer checks that the files agree), so no process
 * has to ask another, and an error (an expression that fails, an order
 * that is no permutation) is found by all of them alike.
 */
#include "config.h"

#include "lco/lco_ext.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void gcm_lco_ext_cluster_of(const char *name, char *buf, size_t len)
{
    const char *colon = strrchr(name, ':');
    size_t n = (colon != NULL) ? (size_t)(colon - name) : strlen(name);

    if (len == 0) {
        return;
    }
    if (n >= len) {
        n = len - 1;
    }
    memcpy(buf, name, n);
    buf[n] = '\0';
}

static int cluster_matches(const gcm_ext_cluster_t *c, const char *cluster)
{
    return c->compiled && regexec(&c->re, cluster, 0, NULL, 0) == 0;
}

/* The first <cluster> of def whose expression matches name's cluster
 * part, or NULL. */
static const gcm_ext_cluster_t *def_cluster(const gcm_ext_def_t *def,
                                            const char *name)
{
    char cluster[1024];
    int i;

    gcm_lco_ext_cluster_of(name, cluster, sizeof(cluster));
    for (i = 0; i < def->nclusters; i++) {
        if (cluster_matches(&def->clusters[i], cluster)) {
            return &def->clusters[i];
        }
    }
    return NULL;
}

/* The first <node> of def named name, or NULL. */
static const gcm_ext_node_t *def_node(const gcm_ext_def_t *def,
                                      const char *name)
{
    int i;

    for (i = 0; i < def->nnodes; i++) {
        if (def->nodes[i].name != NULL &&
            strcmp(def->nodes[i].name, name) == 0) {
            return &def->nodes[i];
        }
    }
    return NULL;
}

int gcm_lco_ext_is_member(const gcm_ext_def_t *def, const char *name)
{
    if (def->kind != GCM_EXT_DEF_COMM) {
        return 0;
    }
    /* MPI_COMM_WORLD's clusters and nodes only scope attributes and
     * info; a definition that names neither holds every process. */
    if (strcmp(def->name, "MPI_COMM_WORLD") == 0 ||
        (def->nclusters == 0 && def->nnodes == 0)) {
        return 1;
    }
    return def_node(def, name) != NULL || def_cluster(def, name) != NULL;
}

/* ---- attributes and info ------------------------------------------------- */

/* Adds the entries of one level: a key seen before takes this level's
 * value (inner levels come later), a new key is appended. */
static void scoped_add(const gcm_ext_kv_t **out, int *n,
                       const gcm_ext_kv_t *kv, int nkv)
{
    int i, j;

    for (i = 0; i < nkv; i++) {
        for (j = 0; j < *n; j++) {
            if (strcmp(out[j]->key, kv[i].key) == 0) {
                break;
            }
        }
        out[j] = &kv[i];
        if (j == *n) {
            (*n)++;
        }
    }
}

int gcm_lco_ext_scoped(const gcm_ext_def_t *def, const char *name,
                       int which, const gcm_ext_kv_t ***kv_p, int *n_p)
{
    const gcm_ext_cluster_t *c = def_cluster(def, name);
    const gcm_ext_node_t *nd   = def_node(def, name);
    const gcm_ext_scope_t *levels[3] = {
        &def->scope, (c != NULL) ? &c->scope : NULL,
        (nd != NULL) ? &nd->scope : NULL
    };
    const gcm_ext_kv_t **out;
    int i, total = 0;

    for (i = 0; i < 3; i++) {
        if (levels[i] != NULL) {
            total += which ? levels[i]->ninfos : levels[i]->nattrs;
        }
    }
    out = malloc(((size_t)total + 1) * sizeof(*out));
    if (out == NULL) {
        return -1;
    }
    *n_p = 0;
    for (i = 0; i < 3; i++) {
        if (levels[i] == NULL) {
            continue;
        }
        if (which) {
            scoped_add(out, n_p, levels[i]->infos, levels[i]->ninfos);
        } else {
            scoped_add(out, n_p, levels[i]->attrs, levels[i]->nattrs);
        }
    }
    *kv_p = out;
    return 0;
}

/* ---- members and their order --------------------------------------------- */

static void ext_why(char *why, size_t whylen, const gcm_lco_ext_t *ext,
                    int line, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

static void ext_why(char *why, size_t whylen, const gcm_lco_ext_t *ext,
                    int line, const char *fmt, ...)
{
    va_list ap;
    int n = snprintf(why, whylen, "%s:%d: ", ext->file, line);

    if (n < 0 || (size_t)n >= whylen) {
        return;
    }
    va_start(ap, fmt);
    vsnprintf(why + n, whylen - (size_t)n, fmt, ap);
    va_end(ap);
}

/* For qsort: member indices by (processor name, world rank). */
typedef struct name_order {
    const char *const *names;
    const int         *procs;
} name_order_t;

static __thread const name_order_t *gcm_ext_sort_ctx;

static int name_cmp(const void *a, const void *b)
{
    const name_order_t *o = gcm_ext_sort_ctx;
    int x = *(const int *)a, y = *(const int *)b;
    int c = strcmp(o->names[o->procs[x]], o->names[o->procs[y]]);

    if (c != 0) {
        return c;
    }
    return (o->procs[x] > o->procs[y]) - (o->procs[x] < o->procs[y]);
}

/* namerank[i]: position of member i's name in alphabetical order among
 * the n members procs[] (ties by world rank). NULL without memory. */
static int *name_ranks(const char *const names[], int n, const int procs[])
{
    name_order_t o = { names, procs };
    int *idx = malloc(((size_t)n + 1) * sizeof(int));
    int *rank = malloc(((size_t)n + 1) * sizeof(int));
    int i;

    if (idx == NULL || rank == NULL) {
        free(idx);
        free(rank);
        return NULL;
    }
    for (i = 0; i < n; i++) {
        idx[i] = i;
    }
    gcm_ext_sort_ctx = &o;
    qsort(idx, (size_t)n, sizeof(int), name_cmp);
    gcm_ext_sort_ctx = NULL;
    for (i = 0; i < n; i++) {
        rank[idx[i]] = i;
    }
    free(idx);
    return rank;
}

static void vars_of(int64_t vars[GCM_EXT_NVARS], int namerank, int n,
                    int commrank, int proc, int nprocs)
{
    vars[GCM_EXT_VAR_NAMERANK]   = namerank;
    vars[GCM_EXT_VAR_COMMSIZE]   = n;
    vars[GCM_EXT_VAR_COMMRANK]   = commrank;
    vars[GCM_EXT_VAR_WORLDRANK]  = proc;
    vars[GCM_EXT_VAR_WORLDSIZE]  = nprocs;
    /* The parent is MPI_COMM_WORLD: MPIX_Comm_external splits it. */
    vars[GCM_EXT_VAR_PARENTRANK] = proc;
    vars[GCM_EXT_VAR_PARENTSIZE] = nprocs;
}

int gcm_lco_ext_members(const gcm_lco_ext_t *ext, const gcm_ext_def_t *def,
                        int nprocs, const char *const names[], int procs[],
                        int *n_p, char *why, size_t whylen)
{
    char ewhy[GCM_EXT_ERRLEN];
    int64_t vars[GCM_EXT_NVARS], *value = NULL;
    int *members = NULL, *namerank = NULL, *owner = NULL, *line = NULL;
    int n = 0, i, p, rc = -1;

    members = malloc(((size_t)nprocs + 1) * sizeof(int));
    if (members == NULL) {
        snprintf(why, whylen, "out of memory");
        return -1;
    }
    for (p = 0; p < nprocs; p++) {
        if (gcm_lco_ext_is_member(def, names[p])) {
            members[n++] = p;
        }
    }
    *n_p = n;
    if (def->reorder == NULL && !def->node_reorder) {
        memcpy(procs, members, (size_t)n * sizeof(int));
        free(members);
        return 0;
    }
    namerank = name_ranks(names, n, members);
    value    = malloc(((size_t)n + 1) * sizeof(int64_t));
    line     = malloc(((size_t)n + 1) * sizeof(int));
    owner    = malloc(((size_t)n + 1) * sizeof(int));
    if (namerank == NULL || value == NULL || line == NULL || owner == NULL) {
        snprintf(why, whylen, "out of memory");
        goto out;
    }
    /* Each member's new rank: its node's reorder="k", else the
     * expression's value, else its rank before reordering. */
    for (i = 0; i < n; i++) {
        const char *name = names[members[i]];
        const gcm_ext_node_t *nd = def_node(def, name);

        if (nd != NULL && nd->reorder >= 0) {
            value[i] = nd->reorder;
            line[i]  = nd->line;
        } else if (def->reorder != NULL) {
            vars_of(vars, namerank[i], n, i, members[i], nprocs);
            line[i] = def->reorder_line;
            if (gcm_lco_expr_eval(def->reorder, vars, &value[i], ewhy,
                                  sizeof(ewhy)) != 0) {
                ext_why(why, whylen, ext, line[i], "reorder expression "
                        "\"%.100s\" of %s: %s for process %d (%.100s, "
                        "NAMERANK %d, COMMRANK %d)",
                        gcm_lco_expr_text(def->reorder), def->name, ewhy,
                        members[i], name, namerank[i], i);
                goto out;
            }
        } else {
            value[i] = i;
            line[i]  = def->line;
        }
    }
    for (i = 0; i < n; i++) {
        owner[i] = -1;
    }
    for (i = 0; i < n; i++) {
        if (value[i] < 0 || value[i] >= n) {
            ext_why(why, whylen, ext, line[i], "the order of %s is not a "
                    "permutation of 0..%d: process %d (%.100s) gets %" PRId64
                    ", outside 0..%d", def->name, n - 1, members[i],
                    names[members[i]], value[i], n - 1);
            goto out;
        }
        if (owner[value[i]] >= 0) {
            int j = owner[value[i]];

            ext_why(why, whylen, ext, line[i], "the order of %s is not a "
                    "permutation of 0..%d: processes %d (%.100s) and %d "
                    "(%.100s) both get %" PRId64, def->name, n - 1,
                    members[j], names[members[j]], members[i],
                    names[members[i]], value[i]);
            goto out;
        }
        owner[value[i]] = i;
    }
    for (i = 0; i < n; i++) {
        procs[value[i]] = members[i];
    }
    rc = 0;
out:
    free(members);
    free(namerank);
    free(value);
    free(line);
    free(owner);
    return rc;
}

/* ---- the virtual topology ------------------------------------------------ */

typedef struct edge_pair {
    int a;
    int b;
} edge_pair_t;

static int pair_cmp(const void *x, const void *y)
{
    const edge_pair_t *p = x, *q = y;

    if (p->a != q->a) {
        return (p->a > q->a) - (p->a < q->a);
    }
    return (p->b > q->b) - (p->b < q->b);
}

/* The value of one end for the member of rank r (rank ends are the same
 * for every member). */
static int end_value(const gcm_lco_ext_t *ext, const gcm_ext_def_t *def,
                     const gcm_ext_edge_t *e, const gcm_ext_end_t *end,
                     const int64_t vars[GCM_EXT_NVARS], int n, int proc,
                     const char *name, int *value_p, char *why,
                     size_t whylen)
{
    char ewhy[GCM_EXT_ERRLEN];
    int64_t v;

    if (end->kind == GCM_EXT_END_RANK) {
        v = end->rank;
    } else if (gcm_lco_expr_eval(end->expr, vars, &v, ewhy,
                                 sizeof(ewhy)) != 0) {
        ext_why(why, whylen, ext, e->line, "edge expression \"%.100s\" of "
                "%s: %s for process %d (%.100s, COMMRANK %" PRId64 ")",
                gcm_lco_expr_text(end->expr), def->name, ewhy, proc, name,
                vars[GCM_EXT_VAR_COMMRANK]);
        return -1;
    }
    if (v < 0 || v >= n) {
        if (end->kind == GCM_EXT_END_RANK) {
            ext_why(why, whylen, ext, e->line, "edge end rank %" PRId64
                    " is not a rank of %s (its size is %d)", v, def->name,
                    n);
        } else {
            ext_why(why, whylen, ext, e->line, "edge expression "
                    "\"%.100s\" of %s gives %" PRId64 " for process %d "
                    "(%.100s, COMMRANK %" PRId64 "), not a rank (0..%d)",
                    gcm_lco_expr_text(end->expr), def->name, v, proc, name,
                    vars[GCM_EXT_VAR_COMMRANK], n - 1);
        }
        return -1;
    }
    *value_p = (int)v;
    return 0;
}

int gcm_lco_ext_vtopo(const gcm_lco_ext_t *ext, const gcm_ext_def_t *def,
                      int nprocs, const char *const names[], int n,
                      const int procs[], int **index_p, int **edges_p,
                      int *nedges_p, char *why, size_t whylen)
{
    const gcm_ext_topo_t *t = &def->vtopo;
    edge_pair_t *pairs = NULL;
    int64_t vars[GCM_EXT_NVARS];
    int *namerank = NULL, *index = NULL, *edges = NULL;
    size_t npairs = 0, cap = 0, i, u;
    int k, r, a, b, rc = -1;

    *index_p = NULL;
    *edges_p = NULL;
    *nedges_p = 0;
    namerank = name_ranks(names, n, procs);
    if (namerank == NULL) {
        goto oom;
    }
    for (k = 0; k < t->nedges; k++) {
        const gcm_ext_edge_t *e = &t->edges[k];
        int per_member = (e->first.kind == GCM_EXT_END_EXPR ||
                          e->second.kind == GCM_EXT_END_EXPR);

        for (r = 0; r < (per_member ? n : (n > 0 ? 1 : 0)); r++) {
            vars_of(vars, namerank[r], n, r, procs[r], nprocs);
            if (end_value(ext, def, e, &e->first, vars, n, procs[r],
                          names[procs[r]], &a, why, whylen) != 0 ||
                end_value(ext, def, e, &e->second, vars, n, procs[r],
                          names[procs[r]], &b, why, whylen) != 0) {
                goto out;
            }
            if (a == b) {
                continue;   /* self-loops are ignored (MPI-3.1 7.5.3) */
            }
            if (npairs + 2 > cap) {
                edge_pair_t *p;

                cap = (cap == 0) ? 64 : 2 * cap;
                p = realloc(pairs, cap * sizeof(*pairs));
                if (p == NULL) {
                    goto oom;
                }
                pairs = p;
            }
            /* Undirected: both directions, so that each node lists its
             * neighbours. */
            pairs[npairs].a   = a;
            pairs[npairs++].b = b;
            pairs[npairs].a   = b;
            pairs[npairs++].b = a;
        }
    }
    if (npairs > 0) {
        qsort(pairs, npairs, sizeof(*pairs), pair_cmp);
        for (i = 1, u = 1; i < npairs; i++) {
            if (pair_cmp(&pairs[i], &pairs[u - 1]) != 0) {
                pairs[u++] = pairs[i];
            }
        }
        npairs = u;
    }
    index = calloc((size_t)n + 1, sizeof(int));
    edges = malloc((npairs + 1) * sizeof(int));
    if (index == NULL || edges == NULL) {
        goto oom;
    }
    for (i = 0; i < npairs; i++) {
        index[pairs[i].a]++;
        edges[i] = pairs[i].b;   /* sorted by a, then b */
    }
    for (r = 1; r < n; r++) {
        index[r] += index[r - 1];
    }
    *index_p  = index;
    *edges_p  = edges;
    *nedges_p = (int)npairs;
    index = edges = NULL;
    rc = 0;
    goto out;
oom:
    snprintf(why, whylen, "out of memory");
out:
    free(pairs);
    free(namerank);
    free(index);
    free(edges);
    return rc;
}

/* ---- the physical topology: placing the virtual one -------------------- */

/* Link costs of the machine graph: two processes of one node are closer
 * than two linked nodes (a <cluster>'s network, an <edge>). */
#define GCM_EXT_COST_NODE 1
#define GCM_EXT_COST_LINK 4
/* lco_map.c keeps the order given on a machine graph of more slots; the
 * graph is not built for them. */
#define GCM_EXT_PLACE_MAX 2048

/* Are the nodes a and b (processor names) linked in topology t? */
static int ptopo_linked(const gcm_ext_topo_t *t, const char *a,
                        const char *b)
{
    char ca[1024], cb[1024];
    int i;

    gcm_lco_ext_cluster_of(a, ca, sizeof(ca));
    gcm_lco_ext_cluster_of(b, cb, sizeof(cb));
    for (i = 0; i < t->nclusters; i++) {
        if (cluster_matches(&t->clusters[i], ca) &&
            cluster_matches(&t->clusters[i], cb)) {
            return 1;
        }
    }
    for (i = 0; i < t->nedges; i++) {
        const char *x = t->edges[i].first.node, *y = t->edges[i].second.node;

        if (x != NULL && y != NULL &&
            ((strcmp(x, a) == 0 && strcmp(y, b) == 0) ||
             (strcmp(x, b) == 0 && strcmp(y, a) == 0))) {
            return 1;
        }
    }
    return 0;
}

/* The machine graph of physical topology t over the members procs[]
 * (slot s is procs[s]) into t_out; the arrays (xadj_p, adj_p, wgt_p)
 * are the caller's to free. 0, or -1 out of memory. */
static int ptopo_target(const gcm_ext_topo_t *pt, const char *const names[],
                        int n, const int procs[], gcm_lco_map_target_t *t,
                        int **xadj_p, int **adj_p, int **wgt_p)
{
    int *xadj, *adj, *wgt, s, u, k = 0;

    xadj = *xadj_p = malloc(((size_t)n + 1) * sizeof(int));
    adj  = *adj_p  = malloc(((size_t)n * (size_t)n + 1) * sizeof(int));
    wgt  = *wgt_p  = malloc(((size_t)n * (size_t)n + 1) * sizeof(int));
    if (xadj == NULL || adj == NULL || wgt == NULL) {
        return -1;
    }
    for (s = 0; s < n; s++) {
        xadj[s] = k;
        for (u = 0; u < n; u++) {
            const char *a = names[procs[s]], *b = names[procs[u]];

            if (u == s) {
                continue;
            }
            if (strcmp(a, b) == 0) {
                adj[k]   = u;
                wgt[k++] = GCM_EXT_COST_NODE;
            } else if (ptopo_linked(pt, a, b)) {
                adj[k]   = u;
                wgt[k++] = GCM_EXT_COST_LINK;
            }
        }
    }
    xadj[n] = k;
    memset(t, 0, sizeof(*t));
    t->kind   = GCM_LCO_MAP_GRAPH;
    t->nslots = n;
    t->xadj   = xadj;
    t->adj    = adj;
    t->wgt    = wgt;
    return 0;
}

int gcm_lco_ext_place(const gcm_lco_ext_t *ext, const gcm_ext_def_t *def,
                      const char *const names[], int n, int procs[],
                      const int index[], const int edges[],
                      const gcm_lco_map_target_t *hier,
                      gcm_lco_map_result_t *res, char *why, size_t whylen)
{
    gcm_lco_map_graph_t g;
    gcm_lco_map_target_t t;
    gcm_lco_map_opts_t opts;
    int *xadj = NULL, *adj = NULL, *wgt = NULL, *gx = NULL, *slot = NULL;
    int *placed = NULL, s, rc = -1;
    gcm_status_t status;

    res->how = "identity";
    if (!def->vtopo.present || !def->vtopo.reorder || n < 2 ||
        (!def->ptopo.present && hier == NULL) ||
        (def->ptopo.present && n > GCM_EXT_PLACE_MAX)) {
        return 0;
    }
    gx     = malloc(((size_t)n + 1) * sizeof(int));
    slot   = malloc(((size_t)n + 1) * sizeof(int));
    placed = malloc(((size_t)n + 1) * sizeof(int));
    if (gx == NULL || slot == NULL || placed == NULL) {
        snprintf(why, whylen, "out of memory");
        goto out;
    }
    memset(&opts, 0, sizeof(opts));
    opts.method = GCM_LCO_MAP_SCOTCH;
    if (def->ptopo.present) {
        /* The machine the file describes, within its time budget. */
        if (ptopo_target(&def->ptopo, names, n, procs, &t, &xadj, &adj,
                         &wgt) != 0) {
            snprintf(why, whylen, "out of memory");
            goto out;
        }
        opts.time = def->ptopo.timeout;
    } else {
        /* The detected hierarchy, as MPI_Graph_create maps onto it. */
        t = *hier;
        opts.time = GCM_LCO_MAP_TIME_DEFAULT;
    }
    /* MPI_Graph_create's index holds cumulative counts. */
    gx[0] = 0;
    for (s = 0; s < n; s++) {
        gx[s + 1] = index[s];
    }
    g.n    = n;
    g.xadj = gx;
    g.adj  = edges;
    g.wgt  = NULL;
    status = gcm_lco_map_compute(&g, &t, &opts, slot, res);
    if (status != GCM_OK) {
        ext_why(why, whylen, ext, def->ptopo.present ? def->ptopo.line :
                def->vtopo.line, "the %s topology of %s: %s",
                def->ptopo.present ? "physical" : "virtual", def->name,
                gcm_last_error());
        goto out;
    }
    /* Vertex v (new rank v) sits on slot slot[v]. */
    for (s = 0; s < n; s++) {
        placed[s] = procs[slot[s]];
    }
    memcpy(procs, placed, (size_t)n * sizeof(int));
    rc = 0;
out:
    free(xadj);
    free(gx);
    free(slot);
    free(placed);
    free(adj);
    free(wgt);
    return rc;
}
