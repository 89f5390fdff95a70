/*
 * lco/lco_map_impl.h: what the files of topology mapping (lco/lco_map.c,
 * lco/lco_map_scotch.c) share: the context of one computation.
 */
#ifndef GCM_LCO_MAP_IMPL_H
#define GCM_LCO_MAP_IMPL_H

#include "lco/lco_map.h"

#include <scotch.h>

typedef struct map_ctx {
    int                  n;
    /* The graph, symmetric, merged, without self-loops or zero weights. */
    int                 *xadj;
    int                 *adj;
    int64_t             *w;
    int64_t              totalw;     /* sum over edges (each once) */
    /* The target. */
    int                  kind;
    int                  ncost;
    int                  L;          /* tree levels */
    int                 *grp;        /* n * L dense group ids (tree) */
    int64_t             *dist;       /* n * n distances (machine graph) */
    const unsigned char *fixed;
    int64_t              steps;
    int64_t              budget;
} map_ctx_t;

/* The level at which slots a and b part (L: same deepest group). */
int gcm_lco_map_part_level(const map_ctx_t *ctx, int a, int b) GCM_INTERNAL;
/* Is vertex v fixed on its slot? */
int gcm_lco_map_is_fixed(const map_ctx_t *ctx, int v) GCM_INTERNAL;

/* Scotch's mapping of ctx's graph onto t, in part[] (fixed vertices
 * given). -1 if Scotch could not be used or failed. */
int gcm_lco_map_scotch(map_ctx_t *ctx, const gcm_lco_map_target_t *t,
                       const int *cidx, const int *fanout, SCOTCH_Num *part)
    GCM_INTERNAL;
/* Turns Scotch's part[] into a permutation (slot_of). */
gcm_status_t gcm_lco_map_repair(map_ctx_t *ctx, const SCOTCH_Num *part,
                                int *slot_of) GCM_INTERNAL;

#endif /* GCM_LCO_MAP_IMPL_H */
