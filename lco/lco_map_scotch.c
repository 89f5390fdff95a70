/*
 * lco/lco_map_scotch.c: the Scotch candidate of topology mapping
 * (lco_map.c says how the candidates compare): Scotch's static mapping
 * of the graph onto the target, made one to one.
 *
 * Scotch only sees an approximation of the cost: a sum over edges of
 * weight times distance, where a tree target becomes Scotch's tree-leaf
 * architecture with link costs that fall by a factor of 8 from one level
 * to the next, and a machine graph becomes a target architecture built
 * from that graph.
 *
 * Scotch runs with a context of its own: one thread (its default spawns
 * threads that outlive the call), deterministic mode and a fixed random
 * seed, so that every process gets the same result from the same input.
 * A lock keeps two threads of a process out of Scotch at once.
 */
#include "config.h"

#include "lco/lco_map_impl.h"

#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <scotch.h>

/* Link costs of a tree target as Scotch sees them: each level 8 times
 * the one below; edge loads are scaled so that no cost Scotch sums can
 * pass this bound. */
#define MAP_TREE_BASE       8
#define MAP_SCOTCH_COST_MAX 1000000000.0

static pthread_mutex_t map_scotch_lock = PTHREAD_MUTEX_INITIALIZER;

/* ---- Scotch ---------------------------------------------------------------- */

/*
 * Turns Scotch's part[] (a slot for each vertex, fixed ones included,
 * maybe several vertices on one slot, maybe out of range if Scotch
 * failed) into a permutation: fixed vertices keep their slot, the first
 * vertex to claim a slot gets it, each other one the free slot nearest
 * what Scotch chose (the lowest of equals).
 */
gcm_status_t gcm_lco_map_repair(map_ctx_t *ctx, const SCOTCH_Num *part,
                                int *slot_of)
{
    int n = ctx->n, v, s;
    int *owner = malloc((n > 0 ? (size_t)n : 1u) * sizeof(int));

    if (owner == NULL) {
        return GCM_ERR_NO_MEMORY;
    }
    for (s = 0; s < n; s++) {
        owner[s] = -1;
    }
    for (v = 0; v < n; v++) {
        slot_of[v] = -1;
        if (gcm_lco_map_is_fixed(ctx, v)) {
            owner[v]   = v;
            slot_of[v] = v;
        }
    }
    for (v = 0; v < n; v++) {
        SCOTCH_Num p = part[v];

        if (!gcm_lco_map_is_fixed(ctx, v) && p >= 0 && p < n && owner[p] < 0) {
            owner[p]   = v;
            slot_of[v] = (int)p;
        }
    }
    for (v = 0; v < n; v++) {
        SCOTCH_Num p = part[v];
        int best = -1;
        int64_t bestd = 0;

        if (slot_of[v] >= 0) {
            continue;
        }
        for (s = 0; s < n; s++) {
            int64_t d;

            if (owner[s] >= 0) {
                continue;
            }
            if (p < 0 || p >= n) {
                d = 0;
            } else if (ctx->kind == GCM_LCO_MAP_TREE) {
                d = ctx->L - gcm_lco_map_part_level(ctx, (int)p, s);
            } else {
                d = ctx->dist[(size_t)p * n + s];
            }
            if (best < 0 || d < bestd) {
                best  = s;
                bestd = d;
            }
        }
        owner[best] = v;
        slot_of[v]  = best;
    }
    free(owner);
    return GCM_OK;
}

/* Scotch's copy of ctx's graph; loads scaled so that weight times the
 * longest distance stays below MAP_SCOTCH_COST_MAX. */
static int scotch_graph(const map_ctx_t *ctx, double maxdist,
                        SCOTCH_Graph *sg, SCOTCH_Num **verttab_p,
                        SCOTCH_Num **edgetab_p, SCOTCH_Num **edlotab_p)
{
    int n = ctx->n, m = ctx->xadj[n], k;
    double scale = 1.0;
    SCOTCH_Num *verttab = malloc(((size_t)n + 1) * sizeof(SCOTCH_Num));
    SCOTCH_Num *edgetab = malloc((m > 0 ? (size_t)m : 1u) *
                                 sizeof(SCOTCH_Num));
    SCOTCH_Num *edlotab = malloc((m > 0 ? (size_t)m : 1u) *
                                 sizeof(SCOTCH_Num));

    *verttab_p = verttab;
    *edgetab_p = edgetab;
    *edlotab_p = edlotab;
    if (verttab == NULL || edgetab == NULL || edlotab == NULL) {
        return -1;
    }
    if ((double)ctx->totalw * maxdist > MAP_SCOTCH_COST_MAX) {
        scale = MAP_SCOTCH_COST_MAX / ((double)ctx->totalw * maxdist);
    }
    for (k = 0; k <= n; k++) {
        verttab[k] = (SCOTCH_Num)ctx->xadj[k];
    }
    for (k = 0; k < m; k++) {
        double w = (double)ctx->w[k] * scale;

        edgetab[k] = (SCOTCH_Num)ctx->adj[k];
        edlotab[k] = (w < 1.0) ? 1 : (SCOTCH_Num)w;
    }
    if (SCOTCH_graphInit(sg) != 0) {
        return -1;
    }
    if (SCOTCH_graphBuild(sg, 0, (SCOTCH_Num)n, verttab, verttab + 1, NULL,
                          NULL, (SCOTCH_Num)m, edgetab, edlotab) != 0) {
        SCOTCH_graphExit(sg);
        return -1;
    }
    return 0;
}

/*
 * The tree target as Scotch's architecture: a tree-leaf architecture
 * whose levels are the target's levels with more than one child
 * somewhere (fanout: the most children of any group), restricted to the
 * terminals that exist (an unbalanced tree is a balanced one with
 * leaves missing). Terminal i of the restricted one is slot i.
 */
static int scotch_tree_arch(map_ctx_t *ctx, const int *cidx,
                            const int *fanout, SCOTCH_Arch *full,
                            SCOTCH_Arch *sub, double *maxdist_p)
{
    int n = ctx->n, L = ctx->L, l, s, K = 0;
    SCOTCH_Num sizetab[GCM_LCO_MAP_MAX_LEVELS + 1];
    SCOTCH_Num linktab[GCM_LCO_MAP_MAX_LEVELS + 1];
    SCOTCH_Num *terms;
    double total = 1.0, link = 1.0, maxdist = 0.0;
    int kept[GCM_LCO_MAP_MAX_LEVELS + 1];
    int rc;

    for (l = 0; l <= L; l++) {
        if (fanout[l] > 1) {
            kept[K]    = l;
            sizetab[K] = fanout[l];
            total     *= fanout[l];
            K++;
        }
    }
    /* Nothing to tell apart, or more terminals than Scotch numbers. */
    if (K == 0 || total > (double)(1 << 30)) {
        return -1;
    }
    for (l = K - 1; l >= 0; l--) {
        linktab[l] = (SCOTCH_Num)link;
        maxdist   += link;
        link      *= MAP_TREE_BASE;
        if (link > 1e6) {
            link = 1e6;
        }
    }
    terms = malloc((size_t)n * sizeof(SCOTCH_Num));
    if (terms == NULL) {
        return -1;
    }
    for (s = 0; s < n; s++) {
        SCOTCH_Num term = 0;
        int k;

        for (k = 0; k < K; k++) {
            term = term * sizetab[k] + cidx[(size_t)s * (L + 1) + kept[k]];
        }
        terms[s] = term;
    }
    rc = -1;
    if (SCOTCH_archInit(full) == 0) {
        if (SCOTCH_archTleaf(full, (SCOTCH_Num)K, sizetab, linktab) == 0 &&
            SCOTCH_archInit(sub) == 0) {
            if (SCOTCH_archSub(sub, full, (SCOTCH_Num)n, terms) == 0) {
                rc = 0;
            } else {
                SCOTCH_archExit(sub);
            }
        }
        if (rc != 0) {
            SCOTCH_archExit(full);
        }
    }
    free(terms);
    *maxdist_p = maxdist;
    return rc;
}

/* A machine graph as Scotch's architecture (a decomposition-defined one
 * built from the graph; terminal i is slot i). */
static int scotch_graph_arch(map_ctx_t *ctx, const gcm_lco_map_target_t *t,
                             SCOTCH_Arch *arch, double *maxdist_p)
{
    int n = ctx->n, m = t->xadj[n], k, rc = -1;
    SCOTCH_Num *verttab = malloc(((size_t)n + 1) * sizeof(SCOTCH_Num));
    SCOTCH_Num *edgetab = malloc((m > 0 ? (size_t)m : 1u) *
                                 sizeof(SCOTCH_Num));
    SCOTCH_Num *edlotab = malloc((m > 0 ? (size_t)m : 1u) *
                                 sizeof(SCOTCH_Num));
    SCOTCH_Num *list = malloc((size_t)n * sizeof(SCOTCH_Num));
    SCOTCH_Graph tg;
    SCOTCH_Strat strat;
    double maxdist = 1.0;

    if (verttab == NULL || edgetab == NULL || edlotab == NULL ||
        list == NULL) {
        goto out;
    }
    for (k = 0; k <= n; k++) {
        verttab[k] = (SCOTCH_Num)t->xadj[k];
    }
    for (k = 0; k < m; k++) {
        edgetab[k] = (SCOTCH_Num)t->adj[k];
        edlotab[k] = (t->wgt != NULL) ? (SCOTCH_Num)t->wgt[k] : 1;
    }
    for (k = 0; k < n; k++) {
        list[k] = (SCOTCH_Num)k;
    }
    for (k = 0; k < n * n; k++) {
        if ((double)ctx->dist[k] > maxdist) {
            maxdist = (double)ctx->dist[k];
        }
    }
    if (SCOTCH_graphInit(&tg) != 0) {
        goto out;
    }
    if (SCOTCH_graphBuild(&tg, 0, (SCOTCH_Num)n, verttab, verttab + 1,
                          NULL, NULL, (SCOTCH_Num)m, edgetab,
                          edlotab) == 0 &&
        SCOTCH_stratInit(&strat) == 0) {
        if (SCOTCH_archInit(arch) == 0) {
            rc = SCOTCH_archBuild0(arch, &tg, (SCOTCH_Num)n, list, &strat);
            if (rc != 0) {
                SCOTCH_archExit(arch);
                rc = -1;
            }
        }
        SCOTCH_stratExit(&strat);
    }
    SCOTCH_graphExit(&tg);
out:
    free(verttab);
    free(edgetab);
    free(edlotab);
    free(list);
    *maxdist_p = maxdist;
    return rc;
}

/* Scotch's mapping of ctx's graph onto t, in part[] (fixed vertices
 * given). -1 if Scotch could not be used or failed. */
int gcm_lco_map_scotch(map_ctx_t *ctx, const gcm_lco_map_target_t *t,
                       const int *cidx, const int *fanout, SCOTCH_Num *part)
{
    SCOTCH_Arch full, arch;
    SCOTCH_Graph sg, bound;
    SCOTCH_Strat strat;
    SCOTCH_Context sctx;
    SCOTCH_Num *verttab = NULL, *edgetab = NULL, *edlotab = NULL;
    double maxdist = 1.0;
    int n = ctx->n, v, rc = -1, have_full = 0;

    for (v = 0; v < n; v++) {
        part[v] = gcm_lco_map_is_fixed(ctx, v) ? (SCOTCH_Num)v : -1;
    }
    pthread_mutex_lock(&map_scotch_lock);
    if (ctx->kind == GCM_LCO_MAP_TREE) {
        if (scotch_tree_arch(ctx, cidx, fanout, &full, &arch, &maxdist) != 0) {
            goto out_unlock;
        }
        have_full = 1;
    } else if (scotch_graph_arch(ctx, t, &arch, &maxdist) != 0) {
        goto out_unlock;
    }
    if (scotch_graph(ctx, maxdist, &sg, &verttab, &edgetab, &edlotab) != 0) {
        goto out_arch;
    }
    if (SCOTCH_contextInit(&sctx) != 0) {
        goto out_graph;
    }
    (void)SCOTCH_contextOptionSetNum(&sctx, SCOTCH_OPTIONNUMDETERMINISTIC, 1);
    (void)SCOTCH_contextOptionSetNum(&sctx, SCOTCH_OPTIONNUMRANDOMFIXEDSEED,
                                     1);
    SCOTCH_contextRandomSeed(&sctx, 1);
    if (SCOTCH_contextThreadSpawn(&sctx, 1, NULL) == 0 &&
        SCOTCH_graphInit(&bound) == 0) {
        if (SCOTCH_contextBindGraph(&sctx, &sg, &bound) == 0 &&
            SCOTCH_stratInit(&strat) == 0) {
            if (SCOTCH_stratGraphMapBuild(&strat, SCOTCH_STRATDEFAULT,
                                          (SCOTCH_Num)n, 0.0) == 0 &&
                SCOTCH_graphMapFixed(&bound, &arch, &strat, part) == 0) {
                rc = 0;
            }
            SCOTCH_stratExit(&strat);
        }
        SCOTCH_graphExit(&bound);
    }
    SCOTCH_contextExit(&sctx);
out_graph:
    SCOTCH_graphExit(&sg);
out_arch:
    SCOTCH_archExit(&arch);
    if (have_full) {
        SCOTCH_archExit(&full);
    }
out_unlock:
    pthread_mutex_unlock(&map_scotch_lock);
    free(verttab);
    free(edgetab);
    free(edlotab);
    return rc;
}
