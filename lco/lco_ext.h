/*
 * lco/lco_ext.h: external communicators, defined in an XML file (the
 * MPIXternal seed, docs/external.md): the parsed definitions
 * (lco_ext.c), the rank-order expressions (lco_expr.c) and what a
 * definition gives a set of processes (lco_ext_eval.c): members, their
 * order, the attributes, info and topology edges that apply.
 *
 * Nothing here communicates or knows MPI: the MPI layer
 * (compat/mpi_external.c) gathers every process's processor name once
 * and hands them in. The parser is a function of (bytes, length, file
 * name) alone, so that a fuzzer can call it directly.
 */
#ifndef GCM_LCO_EXT_H
#define GCM_LCO_EXT_H

#include "lco/lco_map.h"
#include "util/util.h"

#include <regex.h>
#include <stddef.h>
#include <stdint.h>

/* Longest error text a definition keeps ("file:line: what is wrong"). */
#define GCM_EXT_ERRLEN 512

/* ---- expressions (lco_expr.c) -------------------------------------------
 *
 * Integers (64 bits), + - * / % ( ), unary minus, comparisons
 * (< <= > >= == !=, giving 0 or 1) and the variables below. Division and
 * remainder truncate toward zero, as in C; division by zero and overflow
 * are errors. */
typedef enum {
    GCM_EXT_VAR_NAMERANK = 0,
    GCM_EXT_VAR_COMMSIZE,
    GCM_EXT_VAR_COMMRANK,
    GCM_EXT_VAR_WORLDRANK,
    GCM_EXT_VAR_WORLDSIZE,
    GCM_EXT_VAR_PARENTRANK,
    GCM_EXT_VAR_PARENTSIZE,
    GCM_EXT_NVARS
} gcm_ext_var_t;

typedef struct gcm_lco_expr gcm_lco_expr_t;

/* Compiles text; NULL with the reason in why (or out of memory). */
gcm_lco_expr_t *gcm_lco_expr_compile(const char *text, char *why,
                                     size_t whylen) GCM_INTERNAL;
/* Evaluates e with the values vars[] of the variables: 0 and *value_p,
 * or -1 with the reason in why (division by zero, overflow). */
int gcm_lco_expr_eval(const gcm_lco_expr_t *e,
                      const int64_t vars[GCM_EXT_NVARS], int64_t *value_p,
                      char *why, size_t whylen) GCM_INTERNAL;
/* The text it was compiled from. */
const char *gcm_lco_expr_text(const gcm_lco_expr_t *e) GCM_INTERNAL;
void gcm_lco_expr_free(gcm_lco_expr_t *e) GCM_INTERNAL;
/* A variable's name in expressions. */
const char *gcm_lco_expr_var_name(gcm_ext_var_t var) GCM_INTERNAL;

/* ---- the parsed file (lco_ext.c) ---------------------------------------- */

typedef struct gcm_ext_kv {
    char *key;
    char *value;
    int   line;
} gcm_ext_kv_t;

/* Attributes and info given at one level (communicator, cluster, node). */
typedef struct gcm_ext_scope {
    gcm_ext_kv_t *attrs;
    int           nattrs;
    gcm_ext_kv_t *infos;
    int           ninfos;
} gcm_ext_scope_t;

/* <cluster name="REGEX">: matches a processor name whose cluster part
 * (before the last ':', the whole name without one) the extended regular
 * expression matches from end to end. */
typedef struct gcm_ext_cluster {
    char           *regex;
    regex_t         re;
    int             compiled;
    int             line;
    gcm_ext_scope_t scope;
} gcm_ext_cluster_t;

/* <node name="NAME" reorder="k">: one processor name exactly. */
typedef struct gcm_ext_node {
    char           *name;
    int64_t         reorder;   /* -1: none */
    int             line;
    gcm_ext_scope_t scope;
} gcm_ext_node_t;

typedef enum {
    GCM_EXT_END_RANK = 1,
    GCM_EXT_END_EXPR = 2,
    GCM_EXT_END_NODE = 3
} gcm_ext_end_kind_t;

typedef struct gcm_ext_end {
    gcm_ext_end_kind_t kind;
    int64_t            rank;   /* GCM_EXT_END_RANK */
    gcm_lco_expr_t    *expr;   /* GCM_EXT_END_EXPR */
    char              *node;   /* GCM_EXT_END_NODE */
} gcm_ext_end_t;

typedef struct gcm_ext_edge {
    gcm_ext_end_t first;
    gcm_ext_end_t second;
    int           line;
} gcm_ext_edge_t;

/* <topology type="virtual" reorder=".."> (edges between ranks) or
 * <topology type="physical" timeout=".."> (the machine: clusters, whose
 * nodes are all linked, nodes, and edges between nodes). */
typedef struct gcm_ext_topo {
    int                present;
    int                line;
    int                reorder;       /* virtual */
    double             timeout;       /* physical, seconds */
    gcm_ext_edge_t    *edges;
    int                nedges;
    gcm_ext_cluster_t *clusters;      /* physical: name regexes only */
    int                nclusters;
    char             **nodes;         /* physical */
    int                nnodes;
} gcm_ext_topo_t;

typedef enum {
    GCM_EXT_DEF_COMM  = 1,
    GCM_EXT_DEF_INTER = 2
} gcm_ext_def_kind_t;

typedef struct gcm_ext_def {
    gcm_ext_def_kind_t kind;
    char              *name;
    int                line;
    /* The first thing wrong with this definition ("file:line: what"),
     * reported by the calls that ask for it; NULL when it is sound. */
    char              *error;
    /* Its error leaves its members unknown (a regex that does not
     * compile, a schema error inside): every process reports it, not
     * only the members. */
    int                error_everywhere;
    /* <comm> */
    gcm_ext_scope_t    scope;
    gcm_ext_cluster_t *clusters;
    int                nclusters;
    gcm_ext_node_t    *nodes;
    int                nnodes;
    gcm_lco_expr_t    *reorder;       /* <reorder expr=".."/> or NULL */
    int                reorder_line;
    int                node_reorder;  /* some <node> has reorder="k" */
    gcm_ext_topo_t     vtopo;
    gcm_ext_topo_t     ptopo;
    /* <intercomm> */
    char              *first;
    char              *second;
} gcm_ext_def_t;

typedef struct gcm_lco_ext {
    char          *file;
    uint64_t       hash;     /* of the bytes parsed */
    /* Wrong beyond any one definition (the root element, an unknown
     * element between definitions): every call that needs the file
     * reports it. NULL when none. */
    char          *error;
    gcm_ext_def_t *defs;
    int            ndefs;
} gcm_lco_ext_t;

/*
 * Parses and validates len bytes of a definitions file (file names it in
 * messages; it is not opened). GCM_OK with *ext_p (errors that belong to
 * definitions, or to the file as a whole, are kept inside it, as above);
 * GCM_ERR_INVALID_PARAM when the bytes are not a well-formed XML
 * document, with "file:line: reason" in why; GCM_ERR_NO_MEMORY.
 */
gcm_status_t gcm_lco_ext_parse(const char *bytes, size_t len,
                               const char *file, gcm_lco_ext_t **ext_p,
                               char *why, size_t whylen) GCM_INTERNAL;
void gcm_lco_ext_free(gcm_lco_ext_t *ext) GCM_INTERNAL;
/* The definition named name, or NULL. */
const gcm_ext_def_t *gcm_lco_ext_find(const gcm_lco_ext_t *ext,
                                      const char *name) GCM_INTERNAL;
/* The schema the library validates with (docs/mpixternal.xsd). */
extern const char gcm_lco_ext_xsd[] GCM_INTERNAL;

/* ---- evaluation (lco_ext_eval.c) ---------------------------------------- */

/* The cluster part of a processor name: before the last ':', or all of
 * it without one. Writes it into buf (truncated to len - 1). */
void gcm_lco_ext_cluster_of(const char *name, char *buf, size_t len)
    GCM_INTERNAL;

/* Does processor name name belong to <comm> def? (A definition without
 * <cluster> and <node> holds every process.) def must be sound. */
int gcm_lco_ext_is_member(const gcm_ext_def_t *def, const char *name)
    GCM_INTERNAL;

/*
 * The members of <comm> def among nprocs processes whose processor names
 * are names[] (by world rank), in the order of the new communicator
 * (after <reorder> and reorder="k"): procs[0..*n_p-1] (procs holds
 * nprocs). 0, or -1 with "file:line: what" in why (an expression that
 * fails, an order that is no permutation).
 */
int gcm_lco_ext_members(const gcm_lco_ext_t *ext, const gcm_ext_def_t *def,
                        int nprocs, const char *const names[], int procs[],
                        int *n_p, char *why, size_t whylen) GCM_INTERNAL;

/* The attributes (which = 0) or info entries (which = 1) that apply to a
 * process of processor name name in def: the innermost level wins (node,
 * then the first matching cluster, then the communicator), one entry per
 * key, in the order of first appearance from the outermost level.
 * *n_p entries in *kv_p (malloc'd array of pointers into def; free it). */
int gcm_lco_ext_scoped(const gcm_ext_def_t *def, const char *name,
                       int which, const gcm_ext_kv_t ***kv_p, int *n_p)
    GCM_INTERNAL;

/*
 * The virtual topology of def over its n members procs[] (new rank
 * order; names[] and nprocs as above): an undirected graph without
 * self-loops or repeated edges, as MPI_Graph_create takes it (index[n],
 * edges[*nedges_p], both malloc'd). An edge with an expression end is
 * evaluated once per member, COMMRANK being that member's rank in the new
 * communicator. 0, or -1 with "file:line: what" in why.
 */
int gcm_lco_ext_vtopo(const gcm_lco_ext_t *ext, const gcm_ext_def_t *def,
                      int nprocs, const char *const names[], int n,
                      const int procs[], int **index_p, int **edges_p,
                      int *nedges_p, char *why, size_t whylen) GCM_INTERNAL;

/*
 * With a virtual topology with reorder="true": places it (index, edges as
 * gcm_lco_ext_vtopo gives them, on the new ranks) on the machine, the
 * members procs[0..n-1] being the slots in their order so far, and
 * reorders procs so that rank v is the member chosen for vertex v
 * (lco_map.h; deterministic, so every process gets the same; never worse
 * than the order so far). The machine is the physical topology when the
 * definition has one (two members of one node cost 1, two nodes of one
 * <cluster> of it or joined by an <edge> cost 4, others the cheapest
 * path), else hier (the members' hierarchy as a tree target, slot s
 * being procs[s]; NULL: nothing is known, nothing changes). Without
 * reorder nothing changes. res gets the mapping's costs. 0, or -1 with
 * why.
 */
int gcm_lco_ext_place(const gcm_lco_ext_t *ext, const gcm_ext_def_t *def,
                      const char *const names[], int n, int procs[],
                      const int index[], const int edges[],
                      const gcm_lco_map_target_t *hier,
                      gcm_lco_map_result_t *res, char *why, size_t whylen)
    GCM_INTERNAL;

#endif /* GCM_LCO_EXT_H */
