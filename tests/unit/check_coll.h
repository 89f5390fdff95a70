/*
 * tests/unit/check_coll.h: what the two files of check_coll share
 * (check_coll_world.c: the element types and operators seen through
 * coll's table, the data and its serial reference, N LCOs with their
 * groups and schedules; check_coll.c: the algorithms' tests and the
 * suite).
 */
#ifndef GCM_CHECK_COLL_H
#define GCM_CHECK_COLL_H

#include "coll/coll_impl.h"

#include <check.h>
#include <stdint.h>

#define CT_MAX_RANKS 9

/* ---- element types and operators ---------------------------------------- */

enum { CT_INT, CT_DOUBLE, CT_AFFINE };

typedef struct { uint32_t a, b; } ct_affine_t;

typedef struct ct_type {
    int         kind;
    size_t      size;
    const char *name;
} ct_type_t;

enum { OP_SUM, OP_PROD, OP_MIN, OP_MAX, OP_BAND, OP_BOR, OP_BXOR, OP_LAND,
       OP_LOR, OP_LXOR, OP_COMPOSE };

typedef struct ct_op {
    int         kind;
    const char *name;
} ct_op_t;

#define TY(_t) ((gcm_coll_type_h)(void *)(_t))
#define OP(_o) ((gcm_coll_op_h)(void *)(_o))
#define CT_TYPE(_h) ((const ct_type_t *)(const void *)(_h))
#define CT_OP(_h) ((const ct_op_t *)(const void *)(_h))

extern ct_type_t ct_int, ct_double, ct_affine;
/* Indexed by OP_*. */
extern ct_op_t ct_ops_list[];

/* The (type, operator) pairs every reduction runs with. */
typedef struct ct_combo {
    ct_type_t *type;
    int        op;
} ct_combo_t;

extern const ct_combo_t ct_combos[];
extern const int ct_ncombos;
#define CT_NCOMBOS ct_ncombos

/* Element counts (ct_counts, CT_NCOUNTS of them); the large one runs
 * with the first combination of each type only (ct_skip). */
#define CT_LARGE 2053
extern const int ct_counts[];
extern const int ct_ncounts;
#define CT_NCOUNTS ct_ncounts

/* ---- N LCOs, their groups and schedules ------------------------------- */

enum { CT_FLAT, CT_BLOCKS, CT_ALTERNATE };
#define CT_NSHAPES 3
extern const char *const ct_shape_name[];

typedef struct ct_world {
    int               n;
    int               tag;
    int               shape;
    gcm_lco_h         lco[CT_MAX_RANKS];
    gcm_coll_grp_t    g[CT_MAX_RANKS];
    gcm_coll_hier_t  *h[CT_MAX_RANKS];
    gcm_coll_sched_t  s[CT_MAX_RANKS];
    /* What runs now, for the failure messages. */
    char              what[160];
} ct_world_t;

/* The world the running test uses. */
extern ct_world_t ct_w;

/* Whether combination k skips count (the large count runs with the first
 * combination of each type only). */
int ct_skip(int k, int count);
/* Element i of buf; fill writes count elements of value source v from
 * element first on. */
void *ct_elem(const ct_type_t *t, void *buf, size_t i);
void ct_fill(const ct_type_t *t, void *buf, int v, int first, int count);

/* The checked fixture: gcm_init as a singleton, then gcm_finalize; the
 * coll settings as init left them are restored by ct_close. */
void ct_setup(void);
void ct_teardown(void);
/* n LCOs with their groups (ct_open), node structure shape (ct_shape),
 * freed (ct_close); schedules started (ct_begin), advanced in turn
 * (ct_rounds, ct_finish) or to their end (ct_run). */
void ct_open(ct_world_t *w, int n);
void ct_shape(ct_world_t *w, int shape);
void ct_close(ct_world_t *w);
void ct_begin(ct_world_t *w);
int ct_rounds(ct_world_t *w, int upto, int rounds, int done[]);
void ct_finish(ct_world_t *w, int done[]);
void ct_run(ct_world_t *w);
/* Rank rank's count elements in buf, from element index first on, are
 * sources lo..hi-1 combined by op in order (op NULL: source lo alone). */
void ct_expect(const ct_world_t *w, const ct_type_t *t, const ct_op_t *op,
               const void *buf, int lo, int hi, int first, int count,
               int rank);
/* count elements of t, filled with a pattern no test writes. */
void *ct_alloc(const ct_type_t *t, size_t count);

#endif
