/*
 * lco/lco_map.h: topology mapping. Places the vertices of a weighted
 * communication graph on the slots of a target (the processors a new
 * communicator may use) so that heavy edges stay inside the groups of the
 * machine: hosts first, then the levels inside a host. Knows nothing of
 * MPI; compat/ builds the graph from a topology and the target from the
 * SMP hierarchy, and an external description may give its own target.
 *
 * Vertex v is rank v of the communicator to be made; slot s is the
 * process the caller lists s-th (rank s of the old communicator, for the
 * MPI calls). The identity (vertex v on slot v) is always a candidate,
 * and the result is never worse than it under the target's cost. The
 * result depends only on the arguments (Scotch runs with one thread, a
 * fixed random seed and its deterministic mode; the work allowed is
 * estimated from the sizes, never measured), so processes that compute
 * it from the same input agree without a message.
 */
#ifndef GCM_LCO_MAP_H
#define GCM_LCO_MAP_H

#include "util/util.h"

#include <stdint.h>

/* Deepest tree target (levels below the root). */
#define GCM_LCO_MAP_MAX_LEVELS 16

/*
 * The communication graph: adjacency lists of n vertices (CSR). Entries
 * need not be symmetric and may repeat: the weight of the edge {u, v} is
 * the sum of the weights of the entries u -> v and v -> u (an edge given
 * from both ends counts twice). Entries u -> u are ignored.
 */
typedef struct gcm_lco_map_graph {
    int        n;
    const int *xadj;   /* n + 1 offsets into adj, xadj[0] == 0 */
    const int *adj;    /* neighbours, 0..n-1 */
    const int *wgt;    /* weight of each entry, >= 0 (NULL: all 1) */
} gcm_lco_map_graph_t;

typedef enum {
    /* Groups in levels, outermost first (the SMP hierarchy). Slots s and
     * t share the group of level l when their keys are equal at every
     * level from 0 to l. The cost is a vector: for each level, the total
     * weight of the edges whose ends are in different groups of that
     * level; vectors compare from level 0 (hosts before packages). */
    GCM_LCO_MAP_TREE  = 1,
    /* A weighted machine graph over the slots: the weight of an edge is
     * the cost of that link; two slots are as far apart as the cheapest
     * path between them (unreachable: farther than any path). The cost
     * is the sum over edges of weight times distance. */
    GCM_LCO_MAP_GRAPH = 2
} gcm_lco_map_target_kind_t;

typedef struct gcm_lco_map_target {
    int             kind;     /* gcm_lco_map_target_kind_t */
    int             nslots;   /* as many as the graph has vertices */
    /* GCM_LCO_MAP_TREE: slot s's key at level l is keys[s * nlevels + l]
     * (0 <= nlevels <= GCM_LCO_MAP_MAX_LEVELS). */
    int             nlevels;
    const uint64_t *keys;
    /* GCM_LCO_MAP_GRAPH: links between slots (CSR, as the graph above),
     * each cost >= 1 (NULL: all 1). */
    const int      *xadj;
    const int      *adj;
    const int      *wgt;
} gcm_lco_map_target_t;

typedef enum {
    GCM_LCO_MAP_SCOTCH   = 0,  /* Scotch's static mapping, then swaps */
    GCM_LCO_MAP_IDENTITY = 1   /* vertex v on slot v */
} gcm_lco_map_method_t;

typedef struct gcm_lco_map_opts {
    int                  method;  /* gcm_lco_map_method_t */
    /* Seconds the search may take, turned into a count of steps from
     * the sizes (so that every process stops at the same point); <= 0:
     * the identity. */
    double               time;
    /* NULL, or n flags: fixed[v] != 0 keeps vertex v on slot v. */
    const unsigned char *fixed;
} gcm_lco_map_opts_t;

typedef struct gcm_lco_map_result {
    int         ncost;    /* entries used in the vectors below */
    int64_t     identity[GCM_LCO_MAP_MAX_LEVELS];
    int64_t     cost[GCM_LCO_MAP_MAX_LEVELS];    /* of the mapping made */
    const char *how;      /* "identity", "scotch" or "swaps" */
} gcm_lco_map_result_t;

/* Default of opts.time (seconds). */
#define GCM_LCO_MAP_TIME_DEFAULT 0.1

/*
 * Maps g onto t: slot_of[v] is the slot of vertex v, a permutation of
 * 0..n-1. res (may be NULL) gets the costs of the identity and of the
 * result and which search found it. GCM_ERR_INVALID_PARAM (with the
 * reason, gcm_last_error) for inconsistent arguments, GCM_ERR_NO_MEMORY.
 * Scotch failing is not an error: the identity is kept. Thread-safe.
 */
gcm_status_t gcm_lco_map_compute(const gcm_lco_map_graph_t *g,
                                 const gcm_lco_map_target_t *t,
                                 const gcm_lco_map_opts_t *opts,
                                 int *slot_of, gcm_lco_map_result_t *res)
    GCM_INTERNAL;

/*
 * The cost of the mapping slot_of (a permutation) of g onto t: *ncost_p
 * entries of cost (t's levels; 1 for a machine graph). Errors as
 * gcm_lco_map_compute's, and GCM_ERR_INVALID_PARAM when slot_of is not a
 * permutation.
 */
gcm_status_t gcm_lco_map_cost(const gcm_lco_map_graph_t *g,
                              const gcm_lco_map_target_t *t,
                              const int *slot_of,
                              int64_t cost[GCM_LCO_MAP_MAX_LEVELS],
                              int *ncost_p) GCM_INTERNAL;

#endif /* GCM_LCO_MAP_H */
