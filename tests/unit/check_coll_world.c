/*
 * tests/unit/check_coll_world.c: what check_coll's tests run on (see
 * check_coll.c): the element types and operators seen through coll's
 * table, the data and its serial reference, N LCOs of one process with
 * their groups and schedules, advanced in turn.
 */
#include "config.h"

#include "check_coll.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ---- the element types and operators seen through coll's table ----- */

ct_type_t ct_int    = { CT_INT, sizeof(int), "int" };
ct_type_t ct_double = { CT_DOUBLE, sizeof(double), "double" };
ct_type_t ct_affine = { CT_AFFINE, sizeof(ct_affine_t), "affine" };

ct_op_t ct_ops_list[] = {
    { OP_SUM, "sum" }, { OP_PROD, "prod" }, { OP_MIN, "min" },
    { OP_MAX, "max" }, { OP_BAND, "band" }, { OP_BOR, "bor" },
    { OP_BXOR, "bxor" }, { OP_LAND, "land" }, { OP_LOR, "lor" },
    { OP_LXOR, "lxor" }, { OP_COMPOSE, "compose" },
};

static size_t ct_size(gcm_coll_type_h type)
{
    return CT_TYPE(type)->size;
}

static void ct_extent(gcm_coll_type_h type, ptrdiff_t *lb_p,
                      ptrdiff_t *extent_p)
{
    *lb_p = 0;
    *extent_p = (ptrdiff_t)CT_TYPE(type)->size;
}

static int ct_contig(gcm_coll_type_h type, int count, const void *buf,
                     const void **start_p)
{
    (void)type;
    (void)count;
    *start_p = buf;
    return 1;
}

static void ct_pack(gcm_coll_type_h type, int count, const void *buf,
                    void *out)
{
    memcpy(out, buf, (size_t)count * ct_size(type));
}

static void ct_unpack(gcm_coll_type_h type, int count, const void *in,
                      size_t nbytes, void *buf)
{
    size_t n = (size_t)count * ct_size(type);

    memcpy(buf, in, (nbytes < n) ? nbytes : n);
}

static int ct_int_op(int kind, int a, int b)
{
    switch (kind) {
    case OP_SUM:  return a + b;
    case OP_PROD: return a * b;
    case OP_MIN:  return (a < b) ? a : b;
    case OP_MAX:  return (a > b) ? a : b;
    case OP_BAND: return a & b;
    case OP_BOR:  return a | b;
    case OP_BXOR: return a ^ b;
    case OP_LAND: return (a != 0) && (b != 0);
    case OP_LOR:  return (a != 0) || (b != 0);
    default:      return (a != 0) != (b != 0);
    }
}

static double ct_double_op(int kind, double a, double b)
{
    switch (kind) {
    case OP_SUM:  return a + b;
    case OP_PROD: return a * b;
    case OP_MIN:  return (a < b) ? a : b;
    default:      return (a > b) ? a : b;
    }
}

/* inout[i] = in[i] op inout[i]; in holds the lower ranks' data. */
static void ct_combine(gcm_coll_op_h op, const void *in, void *inout,
                       int count, gcm_coll_type_h type)
{
    int kind = CT_OP(op)->kind;
    int i;

    for (i = 0; i < count; i++) {
        switch (CT_TYPE(type)->kind) {
        case CT_INT: {
            int a, b;

            memcpy(&a, (const int *)in + i, sizeof(a));
            memcpy(&b, (int *)inout + i, sizeof(b));
            b = ct_int_op(kind, a, b);
            memcpy((int *)inout + i, &b, sizeof(b));
            break;
        }
        case CT_DOUBLE: {
            double a, b;

            memcpy(&a, (const double *)in + i, sizeof(a));
            memcpy(&b, (double *)inout + i, sizeof(b));
            b = ct_double_op(kind, a, b);
            memcpy((double *)inout + i, &b, sizeof(b));
            break;
        }
        default: {
            /* (f o g)(x) = a1 (a2 x + b2) + b1, f the lower ranks'. */
            ct_affine_t f, g;

            memcpy(&f, (const ct_affine_t *)in + i, sizeof(f));
            memcpy(&g, (ct_affine_t *)inout + i, sizeof(g));
            g.b = f.a * g.b + f.b;
            g.a = f.a * g.a;
            memcpy((ct_affine_t *)inout + i, &g, sizeof(g));
            break;
        }
        }
    }
}

static int ct_commutative(gcm_coll_op_h op)
{
    return CT_OP(op)->kind != OP_COMPOSE;
}

/* Every operator of these tests is the test's own code: the halving
 * steps combine their partner's data as it lands. */
static int ct_foldable(gcm_coll_op_h op)
{
    (void)op;
    return 1;
}

static const gcm_coll_type_ops_t ct_ops = {
    ct_size, ct_extent, ct_extent, ct_contig, ct_pack, ct_unpack,
    ct_combine, ct_commutative, ct_foldable,
};

const ct_combo_t ct_combos[] = {
    { &ct_int, OP_SUM }, { &ct_int, OP_PROD }, { &ct_int, OP_MIN },
    { &ct_int, OP_MAX }, { &ct_int, OP_BAND }, { &ct_int, OP_BOR },
    { &ct_int, OP_BXOR }, { &ct_int, OP_LAND }, { &ct_int, OP_LOR },
    { &ct_int, OP_LXOR }, { &ct_double, OP_SUM }, { &ct_double, OP_PROD },
    { &ct_double, OP_MIN }, { &ct_double, OP_MAX },
    { &ct_affine, OP_COMPOSE },
};
const int ct_ncombos = (int)(sizeof(ct_combos) / sizeof(ct_combos[0]));

/* Element counts: none, one, odd ones, and one past the eager limit of
 * the same-process path (8 KiB) in every type. The large one runs with
 * the first combination of each type only (the combine loop is the same
 * for every operator), to keep the test fast. */
const int ct_counts[] = { 0, 1, 3, 7, CT_LARGE };
const int ct_ncounts = (int)(sizeof(ct_counts) / sizeof(ct_counts[0]));

int ct_skip(int k, int count)
{
    return count == CT_LARGE && k > 0 &&
           ct_combos[k - 1].type == ct_combos[k].type;
}

/* ---- the data: element i of value source v, and the reference -------- */

/* Small values in [-2, 2]: products over 9 ranks stay exact. */
static int ct_val(int v, int i)
{
    return ((v * 7 + i * 3 + 1) % 5) - 2;
}

void *ct_elem(const ct_type_t *t, void *buf, size_t i)
{
    return (char *)buf + i * t->size;
}

static void ct_set(const ct_type_t *t, void *p, int v, int i)
{
    if (t->kind == CT_INT) {
        int x = ct_val(v, i);

        memcpy(p, &x, sizeof(x));
    } else if (t->kind == CT_DOUBLE) {
        double x = ct_val(v, i);

        memcpy(p, &x, sizeof(x));
    } else {
        ct_affine_t x;

        x.a = 2u * (uint32_t)((v + i) % 4) + 1u;
        x.b = (uint32_t)(3 * v + i);
        memcpy(p, &x, sizeof(x));
    }
}

/* count elements of source v, element indices from first. */
void ct_fill(const ct_type_t *t, void *buf, int v, int first,
             int count)
{
    int i;

    for (i = 0; i < count; i++) {
        ct_set(t, ct_elem(t, buf, (size_t)i), v, first + i);
    }
}

/* Element i of sources lo..hi-1 combined in order. */
static void ct_ref(const ct_type_t *t, const ct_op_t *op, int lo, int hi,
                   int i, void *out)
{
    unsigned char acc[16], next[16];
    int r;

    ct_set(t, acc, lo, i);
    for (r = lo + 1; r < hi; r++) {
        ct_set(t, next, r, i);
        ct_combine(OP(op), acc, next, 1, TY(t));
        memcpy(acc, next, t->size);
    }
    memcpy(out, acc, t->size);
}

static int ct_equal(const ct_type_t *t, const void *a, const void *b)
{
    if (t->kind == CT_DOUBLE) {
        double x, y;

        memcpy(&x, a, sizeof(x));
        memcpy(&y, b, sizeof(y));
        return x == y;
    }
    return memcmp(a, b, t->size) == 0;
}

/* ---- N LCOs, their groups and schedules ------------------------------- */

const char *const ct_shape_name[] = { "flat", "blocks", "alternate" };

ct_world_t ct_w;
static gcm_coll_config_t ct_defaults;

void ct_setup(void)
{
    setenv("GENCOMM_BOOT", "singleton", 1);
    ck_assert_int_eq(gcm_init(NULL, NULL), GCM_OK);
    ct_defaults = gcm_coll_config;
}

void ct_teardown(void)
{
    ck_assert_int_eq(gcm_finalize(), GCM_OK);
}

void ct_open(ct_world_t *w, int n)
{
    gcm_name_t names[CT_MAX_RANKS];
    int slots[CT_MAX_RANKS];
    int r, p;

    memset(w, 0, sizeof(*w));
    w->n = n;
    w->tag = 100;
    for (r = 0; r < n; r++) {
        ck_assert_int_eq(gcm_lco_create(&w->lco[r]), GCM_OK);
        ck_assert_int_eq(gcm_lco_add_recv_slots(w->lco[r], n), GCM_OK);
        ck_assert_int_eq(gcm_lco_name(w->lco[r], &names[r]), GCM_OK);
    }
    for (r = 0; r < n; r++) {
        for (p = 0; p < n; p++) {
            slots[p] = r;    /* send slot p: LCO p's receive slot r */
        }
        ck_assert_int_eq(gcm_lco_add_send_slots(w->lco[r], n, names, slots),
                         GCM_OK);
        w->g[r].lco = w->lco[r];
        w->g[r].rank = r;
        w->g[r].size = n;
        w->g[r].slot = NULL;
    }
}

/* The node structure of the shape (none for flat) and the setting that
 * makes the hierarchical forms run on it. */
void ct_shape(ct_world_t *w, int shape)
{
    uint64_t node[CT_MAX_RANKS];
    int r;

    for (r = 0; r < w->n; r++) {
        gcm_coll_hier_free(w->h[r]);
        w->h[r] = NULL;
        node[r] = (shape == CT_BLOCKS) ? (uint64_t)(r / 3) :
                  (uint64_t)(r % 2);
    }
    w->shape = shape;
    gcm_coll_config.hier = (shape == CT_FLAT) ? GCM_COLL_HIER_OFF :
                                                GCM_COLL_HIER_ON;
    if (shape == CT_FLAT) {
        return;
    }
    for (r = 0; r < w->n; r++) {
        w->h[r] = gcm_coll_hier_create(w->lco[r], r, w->n, node, NULL);
        ck_assert_ptr_nonnull(w->h[r]);
    }
}

void ct_close(ct_world_t *w)
{
    int r;

    for (r = 0; r < w->n; r++) {
        gcm_coll_hier_free(w->h[r]);
        ck_assert_int_eq(gcm_lco_free(&w->lco[r]), GCM_OK);
    }
    gcm_coll_config = ct_defaults;
}

/* Starts the schedules: each rank's is built by the caller next. */
void ct_begin(ct_world_t *w)
{
    int r;

    for (r = 0; r < w->n; r++) {
        gcm_coll_sched_init(&w->s[r], &ct_ops);
        w->g[r].tag = w->tag;
    }
    w->tag++;
}

/* Advances ranks 0..upto-1 round after round; returns how many ended.
 * done[] keeps which did. */
int ct_rounds(ct_world_t *w, int upto, int rounds, int done[])
{
    int r, k, ended = 0;

    for (k = 0; k < rounds; k++) {
        ended = 0;
        for (r = 0; r < upto; r++) {
            if (done[r] == 0) {
                done[r] = gcm_coll_sched_advance(&w->s[r], 0);
            }
            ended += done[r];
        }
        if (ended == w->n) {
            break;
        }
        if (gcm_progress() != GCM_OK) {
            ck_abort_msg("%s: gcm_progress: %s", w->what, gcm_last_error());
        }
    }
    return ended;
}

/* Runs the built schedules to their end; none may fail or hang. */
void ct_finish(ct_world_t *w, int done[])
{
    int r;

    if (ct_rounds(w, w->n, 1000000, done) != w->n) {
        ck_abort_msg("%s: the schedules did not end", w->what);
    }
    for (r = 0; r < w->n; r++) {
        if (w->s[r].err != GCM_OK || w->s[r].nomem != 0) {
            ck_abort_msg("%s: rank %d failed: %s", w->what, r,
                         gcm_status_string(w->s[r].err));
        }
        gcm_coll_sched_free(&w->s[r]);
    }
}

void ct_run(ct_world_t *w)
{
    int done[CT_MAX_RANKS] = { 0 };

    ct_finish(w, done);
}

/* Checks count elements of buf against the reference of sources lo..hi-1
 * (a single source when op is NULL) from element index first. */
void ct_expect(const ct_world_t *w, const ct_type_t *t,
               const ct_op_t *op, const void *buf, int lo, int hi,
               int first, int count, int rank)
{
    unsigned char want[16];
    int i;

    for (i = 0; i < count; i++) {
        if (op != NULL) {
            ct_ref(t, op, lo, hi, first + i, want);
        } else {
            ct_set(t, want, lo, first + i);
        }
        /* Check's assertions write to its pipe even when they hold:
         * only a failure calls it here. */
        if (!ct_equal(t, ct_elem(t, (void *)buf, (size_t)i), want)) {
            ck_abort_msg("%s: rank %d element %d (of %d) wrong", w->what,
                         rank, i, count);
        }
    }
}

void *ct_alloc(const ct_type_t *t, size_t count)
{
    void *p = malloc((count == 0 ? 1 : count) * t->size);

    if (p == NULL) {
        ck_abort_msg("out of memory");
    }
    memset(p, 0x5a, (count == 0 ? 1 : count) * t->size);
    return p;
}
