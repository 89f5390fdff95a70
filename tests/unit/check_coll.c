/*
 * tests/unit/check_coll.c: every algorithm of coll/ run as a schedule
 * among N LCOs of one process (N = 1..9), its results compared with a
 * serial reference computed here.
 *
 * Rank r of the group is LCO r: it has one receive slot per rank and a
 * send slot r reaching receive slot "me" of LCO r, as coll.h asks. The
 * schedules of all ranks are built first, then advanced in turn without
 * blocking (gcm_progress between rounds) until all end: one thread plays
 * every rank, over the same-process path (singleton boot, no network).
 *
 * Each algorithm is forced through coll/'s settings (the choices come
 * from coll_impl.h's X-macros, so a new algorithm is tested as soon as it
 * is listed), flat and hierarchical (node keys in blocks of three ranks,
 * and alternating ranks, whose nodes are not contiguous). Data are ints,
 * doubles (small integer values: every order of a sum or product is
 * exact) and pairs (a, b) standing for x -> a x + b, whose composition is
 * associative but not commutative, so a reduction out of rank order
 * shows.
 */
#include "config.h"

#include "coll/coll_impl.h"
#include "check_main.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define CT_MAX_RANKS 9

/* ---- the element types and operators seen through coll's table ----- */

enum { CT_INT, CT_DOUBLE, CT_AFFINE };

typedef struct { uint32_t a, b; } ct_affine_t;

typedef struct ct_type {
    int         kind;
    size_t      size;
    const char *name;
} ct_type_t;

static ct_type_t ct_int    = { CT_INT, sizeof(int), "int" };
static ct_type_t ct_double = { CT_DOUBLE, sizeof(double), "double" };
static ct_type_t ct_affine = { CT_AFFINE, sizeof(ct_affine_t), "affine" };

enum { OP_SUM, OP_PROD, OP_MIN, OP_MAX, OP_BAND, OP_BOR, OP_BXOR, OP_LAND,
       OP_LOR, OP_LXOR, OP_COMPOSE };

typedef struct ct_op {
    int         kind;
    const char *name;
} ct_op_t;

static ct_op_t ct_ops_list[] = {
    { OP_SUM, "sum" }, { OP_PROD, "prod" }, { OP_MIN, "min" },
    { OP_MAX, "max" }, { OP_BAND, "band" }, { OP_BOR, "bor" },
    { OP_BXOR, "bxor" }, { OP_LAND, "land" }, { OP_LOR, "lor" },
    { OP_LXOR, "lxor" }, { OP_COMPOSE, "compose" },
};

#define TY(_t) ((gcm_coll_type_h)(void *)(_t))
#define OP(_o) ((gcm_coll_op_h)(void *)(_o))
#define CT_TYPE(_h) ((const ct_type_t *)(const void *)(_h))
#define CT_OP(_h) ((const ct_op_t *)(const void *)(_h))

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

/* The (type, operator) pairs every reduction runs with. */
typedef struct ct_combo {
    ct_type_t *type;
    int        op;
} ct_combo_t;

static const ct_combo_t ct_combos[] = {
    { &ct_int, OP_SUM }, { &ct_int, OP_PROD }, { &ct_int, OP_MIN },
    { &ct_int, OP_MAX }, { &ct_int, OP_BAND }, { &ct_int, OP_BOR },
    { &ct_int, OP_BXOR }, { &ct_int, OP_LAND }, { &ct_int, OP_LOR },
    { &ct_int, OP_LXOR }, { &ct_double, OP_SUM }, { &ct_double, OP_PROD },
    { &ct_double, OP_MIN }, { &ct_double, OP_MAX },
    { &ct_affine, OP_COMPOSE },
};
#define CT_NCOMBOS ((int)(sizeof(ct_combos) / sizeof(ct_combos[0])))

/* Element counts: none, one, odd ones, and one past the eager limit of
 * the same-process path (8 KiB) in every type. The large one runs with
 * the first combination of each type only (the combine loop is the same
 * for every operator), to keep the test fast. */
static const int ct_counts[] = { 0, 1, 3, 7, 2053 };
#define CT_NCOUNTS ((int)(sizeof(ct_counts) / sizeof(ct_counts[0])))
#define CT_LARGE 2053

static int ct_skip(int k, int count)
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

static void *ct_elem(const ct_type_t *t, void *buf, size_t i)
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
static void ct_fill(const ct_type_t *t, void *buf, int v, int first,
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

enum { CT_FLAT, CT_BLOCKS, CT_ALTERNATE };
#define CT_NSHAPES 3
static const char *const ct_shape_name[] = { "flat", "blocks", "alternate" };

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

static ct_world_t ct_w;
static gcm_coll_config_t ct_defaults;

static void setup(void)
{
    setenv("GENCOMM_BOOT", "singleton", 1);
    ck_assert_int_eq(gcm_init(NULL, NULL), GCM_OK);
    ct_defaults = gcm_coll_config;
}

static void teardown(void)
{
    ck_assert_int_eq(gcm_finalize(), GCM_OK);
}

static void ct_open(ct_world_t *w, int n)
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
static void ct_shape(ct_world_t *w, int shape)
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

static void ct_close(ct_world_t *w)
{
    int r;

    for (r = 0; r < w->n; r++) {
        gcm_coll_hier_free(w->h[r]);
        ck_assert_int_eq(gcm_lco_free(&w->lco[r]), GCM_OK);
    }
    gcm_coll_config = ct_defaults;
}

/* Starts the schedules: each rank's is built by the caller next. */
static void ct_begin(ct_world_t *w)
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
static int ct_rounds(ct_world_t *w, int upto, int rounds, int done[])
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
static void ct_finish(ct_world_t *w, int done[])
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

static void ct_run(ct_world_t *w)
{
    int done[CT_MAX_RANKS] = { 0 };

    ct_finish(w, done);
}

/* Checks count elements of buf against the reference of sources lo..hi-1
 * (a single source when op is NULL) from element index first. */
static void ct_expect(const ct_world_t *w, const ct_type_t *t,
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

static void *ct_alloc(const ct_type_t *t, size_t count)
{
    void *p = malloc((count == 0 ? 1 : count) * t->size);

    if (p == NULL) {
        ck_abort_msg("out of memory");
    }
    memset(p, 0x5a, (count == 0 ? 1 : count) * t->size);
    return p;
}

/* The choices of one setting, auto first, from coll_impl.h's lists. */
typedef struct ct_choice {
    int         value;
    const char *word;
} ct_choice_t;

#define CT_CHOICE(_p, _name, _word) { _p##_##_name, #_word },
#define CT_CHOICES(_list, _p) \
    { { GCM_COLL_AUTO, "auto" }, _list(CT_CHOICE, _p) }
#define CT_N(_a) ((int)(sizeof(_a) / sizeof((_a)[0])))

static const ct_choice_t ct_barrier_algos[] =
    CT_CHOICES(GCM_COLL_BARRIER_CHOICES, GCM_COLL_BARRIER);
static const ct_choice_t ct_bcast_algos[] =
    CT_CHOICES(GCM_COLL_BCAST_CHOICES, GCM_COLL_BCAST);
static const ct_choice_t ct_reduce_algos[] =
    CT_CHOICES(GCM_COLL_REDUCE_CHOICES, GCM_COLL_REDUCE);
static const ct_choice_t ct_allreduce_algos[] =
    CT_CHOICES(GCM_COLL_ALLREDUCE_CHOICES, GCM_COLL_ALLREDUCE);
static const ct_choice_t ct_rs_algos[] =
    CT_CHOICES(GCM_COLL_RS_CHOICES, GCM_COLL_RS);
static const ct_choice_t ct_scan_algos[] =
    CT_CHOICES(GCM_COLL_SCAN_CHOICES, GCM_COLL_SCAN);
static const ct_choice_t ct_gather_algos[] =
    CT_CHOICES(GCM_COLL_GATHER_CHOICES, GCM_COLL_GATHER);
static const ct_choice_t ct_allgather_algos[] =
    CT_CHOICES(GCM_COLL_ALLGATHER_CHOICES, GCM_COLL_ALLGATHER);
static const ct_choice_t ct_alltoall_algos[] =
    CT_CHOICES(GCM_COLL_ALLTOALL_CHOICES, GCM_COLL_ALLTOALL);

/* Loop tests: _i is the number of ranks less one. */
#define CT_NRANKS (_i + 1)

/* ---- barrier: nobody leaves before the last one enters --------------- */

START_TEST(test_coll_barrier)
{
    ct_world_t *w = &ct_w;
    int a, shape, r;

    ct_open(w, CT_NRANKS);
    for (shape = 0; shape < CT_NSHAPES; shape++) {
        ct_shape(w, shape);
        for (a = 0; a < CT_N(ct_barrier_algos); a++) {
            int done[CT_MAX_RANKS] = { 0 };

            gcm_coll_config.barrier = ct_barrier_algos[a].value;
            snprintf(w->what, sizeof(w->what), "barrier %s %s n=%d",
                     ct_barrier_algos[a].word, ct_shape_name[shape], w->n);
            ct_begin(w);
            for (r = 0; r < w->n; r++) {
                gcm_coll_barrier(&w->s[r], &w->g[r], w->h[r]);
            }
            /* All but the last rank run a while: none may get through. */
            ck_assert_msg(w->n == 1 || ct_rounds(w, w->n - 1, 200, done) == 0,
                          "%s: a rank left before the last entered",
                          w->what);
            ct_finish(w, done);
        }
    }
    ct_close(w);
}
END_TEST

/* ---- bcast ------------------------------------------------------------ */

START_TEST(test_coll_bcast)
{
    static const ct_type_t *types[] = { &ct_int, &ct_affine };
    ct_world_t *w = &ct_w;
    void *buf[CT_MAX_RANKS];
    int a, shape, c, t, root, r;

    ct_open(w, CT_NRANKS);
    for (shape = 0; shape < CT_NSHAPES; shape++) {
        ct_shape(w, shape);
        for (a = 0; a < CT_N(ct_bcast_algos); a++) {
            gcm_coll_config.bcast = ct_bcast_algos[a].value;
            for (t = 0; t < 2; t++) {
                const ct_type_t *ty = types[t];

                for (c = 0; c < CT_NCOUNTS; c++) {
                    for (root = 0; root < w->n; root += (w->n + 1) / 2) {
                        int n = ct_counts[c];

                        snprintf(w->what, sizeof(w->what),
                                 "bcast %s %s n=%d %s count=%d root=%d",
                                 ct_bcast_algos[a].word,
                                 ct_shape_name[shape], w->n, ty->name, n,
                                 root);
                        ct_begin(w);
                        for (r = 0; r < w->n; r++) {
                            buf[r] = ct_alloc(ty, (size_t)n);
                            if (r == root) {
                                ct_fill(ty, buf[r], root, 0, n);
                            }
                            gcm_coll_bcast(&w->s[r], &w->g[r], w->h[r],
                                           buf[r], n, TY(ty), root);
                        }
                        ct_run(w);
                        for (r = 0; r < w->n; r++) {
                            ct_expect(w, ty, NULL, buf[r], root, root, 0,
                                      n, r);
                            free(buf[r]);
                        }
                    }
                }
            }
        }
    }
    ct_close(w);
}
END_TEST

/* ---- reduce and allreduce --------------------------------------------- */

static void ct_reduction(int all, int nranks)
{
    const ct_choice_t *algos = all ? ct_allreduce_algos : ct_reduce_algos;
    int nalgos = all ? CT_N(ct_allreduce_algos) : CT_N(ct_reduce_algos);
    ct_world_t *w = &ct_w;
    void *sbuf[CT_MAX_RANKS], *rbuf[CT_MAX_RANKS];
    int a, shape, c, k, root, r, inplace;

    ct_open(w, nranks);
    for (shape = 0; shape < CT_NSHAPES; shape++) {
        ct_shape(w, shape);
        for (a = 0; a < nalgos; a++) {
            if (all) {
                gcm_coll_config.allreduce = algos[a].value;
            } else {
                gcm_coll_config.reduce = algos[a].value;
            }
            for (k = 0; k < CT_NCOMBOS; k++) {
                const ct_type_t *ty = ct_combos[k].type;
                const ct_op_t *op = &ct_ops_list[ct_combos[k].op];

                for (c = 0; c < CT_NCOUNTS; c++) {
                    int n = ct_counts[c];

                    if (ct_skip(k, n)) {
                        continue;
                    }
                    /* reduce: roots 0 and the last; allreduce: apart and
                     * in place. */
                    for (root = 0; root < w->n; root += (w->n + 1) / 2) {
                        inplace = all && (root != 0);
                        snprintf(w->what, sizeof(w->what),
                                 "%s %s %s n=%d %s %s count=%d root=%d%s",
                                 all ? "allreduce" : "reduce", algos[a].word,
                                 ct_shape_name[shape], w->n, ty->name,
                                 op->name, n, root,
                                 inplace ? " in place" : "");
                        ct_begin(w);
                        for (r = 0; r < w->n; r++) {
                            sbuf[r] = ct_alloc(ty, (size_t)n);
                            rbuf[r] = ct_alloc(ty, (size_t)n);
                            ct_fill(ty, inplace ? rbuf[r] : sbuf[r], r, 0,
                                    n);
                            if (all) {
                                gcm_coll_allreduce(&w->s[r], &w->g[r],
                                    w->h[r],
                                    inplace ? GCM_COLL_IN_PLACE : sbuf[r],
                                    rbuf[r], n, TY(ty), OP(op));
                            } else {
                                gcm_coll_reduce(&w->s[r], &w->g[r], w->h[r],
                                                sbuf[r], rbuf[r], n, TY(ty),
                                                OP(op), root);
                            }
                        }
                        ct_run(w);
                        for (r = 0; r < w->n; r++) {
                            if (all || r == root) {
                                ct_expect(w, ty, op, rbuf[r], 0, w->n, 0, n,
                                          r);
                            }
                            free(sbuf[r]);
                            free(rbuf[r]);
                        }
                    }
                }
            }
        }
    }
    ct_close(w);
}

START_TEST(test_coll_reduce)
{
    ct_reduction(0, CT_NRANKS);
}
END_TEST

START_TEST(test_coll_allreduce)
{
    ct_reduction(1, CT_NRANKS);
}
END_TEST

/* Block sizes of the v forms around n: n - 1, n, n + 1 in turn (none for
 * n = 0), and their displacements with a gap of one element after each
 * block. Returns the elements the whole layout spans. */
static int ct_vlayout(int nranks, int n, int salt, int cnt[], int displ[])
{
    int j, at = 0;

    for (j = 0; j < nranks; j++) {
        cnt[j] = (n == 0) ? 0 : n + (j + salt) % 3 - 1;
        displ[j] = at;
        at += cnt[j] + 1;
    }
    return at;
}

/* ---- reduce_scatter ---------------------------------------------------- */

START_TEST(test_coll_reduce_scatter)
{
    ct_world_t *w = &ct_w;
    void *sbuf[CT_MAX_RANKS], *rbuf[CT_MAX_RANKS];
    int cnt[CT_MAX_RANKS], displ[CT_MAX_RANKS], off[CT_MAX_RANKS];
    int a, c, k, v, r, total;

    ct_open(w, CT_NRANKS);
    ct_shape(w, CT_FLAT);
    for (a = 0; a < CT_N(ct_rs_algos); a++) {
        gcm_coll_config.reduce_scatter = ct_rs_algos[a].value;
        for (k = 0; k < CT_NCOMBOS; k++) {
            const ct_type_t *ty = ct_combos[k].type;
            const ct_op_t *op = &ct_ops_list[ct_combos[k].op];

            for (c = 0; c < CT_NCOUNTS; c++) {
                for (v = 0; v < 2; v++) {
                    int n = ct_counts[c];

                    if (ct_skip(k, n)) {
                        continue;
                    }
                    ct_vlayout(w->n, n, 0, cnt, displ);
                    for (total = 0, r = 0; r < w->n; r++) {
                        off[r] = total;
                        total += v ? cnt[r] : n;
                    }
                    snprintf(w->what, sizeof(w->what),
                             "reduce_scatter%s %s n=%d %s %s count=%d",
                             v ? " (counts)" : "", ct_rs_algos[a].word,
                             w->n, ty->name, op->name, n);
                    ct_begin(w);
                    for (r = 0; r < w->n; r++) {
                        sbuf[r] = ct_alloc(ty, (size_t)total);
                        rbuf[r] = ct_alloc(ty, (size_t)n + 1);
                        ct_fill(ty, sbuf[r], r, 0, total);
                        gcm_coll_reduce_scatter(&w->s[r], &w->g[r], sbuf[r],
                                                rbuf[r], n, v ? cnt : NULL,
                                                TY(ty), OP(op));
                    }
                    ct_run(w);
                    for (r = 0; r < w->n; r++) {
                        ct_expect(w, ty, op, rbuf[r], 0, w->n, off[r],
                                  v ? cnt[r] : n, r);
                        free(sbuf[r]);
                        free(rbuf[r]);
                    }
                }
            }
        }
    }
    ct_close(w);
}
END_TEST

/* ---- scan and exscan --------------------------------------------------- */

START_TEST(test_coll_scan)
{
    ct_world_t *w = &ct_w;
    void *sbuf[CT_MAX_RANKS], *rbuf[CT_MAX_RANKS];
    int a, c, k, x, r;

    ct_open(w, CT_NRANKS);
    ct_shape(w, CT_FLAT);
    for (a = 0; a < CT_N(ct_scan_algos); a++) {
        gcm_coll_config.scan = ct_scan_algos[a].value;
        for (k = 0; k < CT_NCOMBOS; k++) {
            const ct_type_t *ty = ct_combos[k].type;
            const ct_op_t *op = &ct_ops_list[ct_combos[k].op];

            for (c = 0; c < CT_NCOUNTS; c++) {
                for (x = 0; x < 2; x++) {
                    int n = ct_counts[c];

                    if (ct_skip(k, n)) {
                        continue;
                    }
                    snprintf(w->what, sizeof(w->what),
                             "%s %s n=%d %s %s count=%d",
                             x ? "exscan" : "scan", ct_scan_algos[a].word,
                             w->n, ty->name, op->name, n);
                    ct_begin(w);
                    for (r = 0; r < w->n; r++) {
                        sbuf[r] = ct_alloc(ty, (size_t)n);
                        rbuf[r] = ct_alloc(ty, (size_t)n);
                        ct_fill(ty, sbuf[r], r, 0, n);
                        gcm_coll_scan(&w->s[r], &w->g[r], sbuf[r], rbuf[r],
                                      n, TY(ty), OP(op), x);
                    }
                    ct_run(w);
                    for (r = 0; r < w->n; r++) {
                        /* exscan leaves rank 0's buffer undefined. */
                        if (x == 0 || r > 0) {
                            ct_expect(w, ty, op, rbuf[r], 0, x ? r : r + 1,
                                      0, n, r);
                        }
                        free(sbuf[r]);
                        free(rbuf[r]);
                    }
                }
            }
        }
    }
    ct_close(w);
}
END_TEST

/* ---- gather and scatter, plain and v ---------------------------------- */

START_TEST(test_coll_gather_scatter)
{
    static const ct_type_t *types[] = { &ct_int, &ct_affine };
    ct_world_t *w = &ct_w;
    void *mbuf[CT_MAX_RANKS], *all[CT_MAX_RANKS];
    int cnt[CT_MAX_RANKS], displ[CT_MAX_RANKS];
    int a, shape, c, t, root, r, j, mode, span;

    ct_open(w, CT_NRANKS);
    for (shape = 0; shape < CT_NSHAPES; shape++) {
        ct_shape(w, shape);
        for (a = 0; a < CT_N(ct_gather_algos); a++) {
            gcm_coll_config.gather = ct_gather_algos[a].value;
            /* mode bits: 1 gather (else scatter), 2 v form, 4 in place. */
            for (mode = 0; mode < 8; mode++) {
                int to_root = mode & 1, vform = (mode >> 1) & 1,
                    in_place = (mode >> 2) & 1;

                for (t = 0; t < 2; t++) {
                    const ct_type_t *ty = types[t];

                    for (c = 0; c < CT_NCOUNTS; c++) {
                        for (root = 0; root < w->n;
                             root += (w->n + 1) / 2) {
                            int n = ct_counts[c];
                            gcm_coll_layout_t l;

                            span = ct_vlayout(w->n, n, root, cnt, displ);
                            if (vform == 0) {
                                for (j = 0; j < w->n; j++) {
                                    cnt[j] = n;
                                    displ[j] = j * n;
                                }
                            }
                            snprintf(w->what, sizeof(w->what),
                                     "%s%s %s %s n=%d %s count=%d root=%d%s",
                                     to_root ? "gather" : "scatter",
                                     vform ? "v" : "",
                                     ct_gather_algos[a].word,
                                     ct_shape_name[shape], w->n, ty->name, n,
                                     root, in_place ? " in place" : "");
                            ct_begin(w);
                            for (r = 0; r < w->n; r++) {
                                int mine = (r == root && in_place);

                                mbuf[r] = ct_alloc(ty, (size_t)cnt[r]);
                                all[r] = ct_alloc(ty, (size_t)span);
                                if (to_root && !mine) {
                                    ct_fill(ty, mbuf[r], r, 0, cnt[r]);
                                }
                                for (j = 0; j < w->n && r == root; j++) {
                                    if (!to_root || (mine && j == r)) {
                                        ct_fill(ty, ct_elem(ty, all[r],
                                                (size_t)displ[j]), j, 0,
                                                cnt[j]);
                                    }
                                }
                                l.buf = all[r];
                                l.count = n;
                                l.counts = vform ? cnt : NULL;
                                l.displs = vform ? displ : NULL;
                                l.type = TY(ty);
                                gcm_coll_gather(&w->s[r], &w->g[r], w->h[r],
                                                to_root, vform,
                                                mine ? NULL : mbuf[r],
                                                cnt[r], TY(ty), &l, root,
                                                mine);
                            }
                            ct_run(w);
                            for (r = 0; r < w->n; r++) {
                                for (j = 0; j < w->n && r == root &&
                                            to_root; j++) {
                                    ct_expect(w, ty, NULL,
                                              ct_elem(ty, all[r],
                                                      (size_t)displ[j]),
                                              j, j, 0, cnt[j], r);
                                }
                                if (!to_root && !(r == root && in_place)) {
                                    ct_expect(w, ty, NULL, mbuf[r], r, r, 0,
                                              cnt[r], r);
                                }
                                free(mbuf[r]);
                                free(all[r]);
                            }
                        }
                    }
                }
            }
        }
    }
    ct_close(w);
}
END_TEST

/* ---- allgather, plain and v ------------------------------------------- */

START_TEST(test_coll_allgather)
{
    static const ct_type_t *types[] = { &ct_int, &ct_affine };
    ct_world_t *w = &ct_w;
    void *sbuf[CT_MAX_RANKS], *all[CT_MAX_RANKS];
    int cnt[CT_MAX_RANKS], displ[CT_MAX_RANKS];
    int a, shape, c, t, r, j, mode, span;

    ct_open(w, CT_NRANKS);
    for (shape = 0; shape < CT_NSHAPES; shape++) {
        ct_shape(w, shape);
        for (a = 0; a < CT_N(ct_allgather_algos); a++) {
            gcm_coll_config.allgather = ct_allgather_algos[a].value;
            /* mode bits: 1 v form, 2 in place. */
            for (mode = 0; mode < 4; mode++) {
                int vform = mode & 1, in_place = (mode >> 1) & 1;

                for (t = 0; t < 2; t++) {
                    const ct_type_t *ty = types[t];

                    for (c = 0; c < CT_NCOUNTS; c++) {
                        int n = ct_counts[c];
                        gcm_coll_layout_t l;

                        span = ct_vlayout(w->n, n, 1, cnt, displ);
                        if (vform == 0) {
                            for (j = 0; j < w->n; j++) {
                                cnt[j] = n;
                                displ[j] = j * n;
                            }
                        }
                        snprintf(w->what, sizeof(w->what),
                                 "allgather%s %s %s n=%d %s count=%d%s",
                                 vform ? "v" : "", ct_allgather_algos[a].word,
                                 ct_shape_name[shape], w->n, ty->name, n,
                                 in_place ? " in place" : "");
                        ct_begin(w);
                        for (r = 0; r < w->n; r++) {
                            sbuf[r] = ct_alloc(ty, (size_t)cnt[r]);
                            all[r] = ct_alloc(ty, (size_t)span);
                            ct_fill(ty, in_place ?
                                    ct_elem(ty, all[r], (size_t)displ[r]) :
                                    sbuf[r], r, 0, cnt[r]);
                            l.buf = all[r];
                            l.count = n;
                            l.counts = vform ? cnt : NULL;
                            l.displs = vform ? displ : NULL;
                            l.type = TY(ty);
                            gcm_coll_allgather(&w->s[r], &w->g[r], w->h[r],
                                               in_place ? GCM_COLL_IN_PLACE :
                                               sbuf[r], cnt[r], TY(ty), &l);
                        }
                        ct_run(w);
                        for (r = 0; r < w->n; r++) {
                            for (j = 0; j < w->n; j++) {
                                ct_expect(w, ty, NULL,
                                          ct_elem(ty, all[r],
                                                  (size_t)displ[j]),
                                          j, j, 0, cnt[j], r);
                            }
                            free(sbuf[r]);
                            free(all[r]);
                        }
                    }
                }
            }
        }
    }
    ct_close(w);
}
END_TEST

/* ---- alltoall, uniform and not ---------------------------------------- */

/* The source of the block rank r sends to rank j. */
#define CT_A2A(_r, _j) ((_r) * CT_MAX_RANKS + (_j))

typedef struct ct_a2a_rank {
    void             *sbuf;
    void             *rbuf;
    void             *sp[CT_MAX_RANKS], *rp[CT_MAX_RANKS];
    int               sc[CT_MAX_RANKS], rc[CT_MAX_RANKS];
    gcm_coll_type_h   ty[CT_MAX_RANKS];
    gcm_coll_blocks_t sb, rb;
} ct_a2a_rank_t;

/* Elements rank r sends to rank j. */
static int ct_a2a_count(int n, int uniform, int r, int j)
{
    return (uniform || n == 0) ? n : n + (r + 2 * j) % 3 - 1;
}

START_TEST(test_coll_alltoall)
{
    static const ct_type_t *types[] = { &ct_int, &ct_affine };
    static ct_a2a_rank_t rk[CT_MAX_RANKS];
    ct_world_t *w = &ct_w;
    int a, shape, c, t, r, j, uniform;

    ct_open(w, CT_NRANKS);
    for (shape = 0; shape < CT_NSHAPES; shape++) {
        ct_shape(w, shape);
        for (a = 0; a < CT_N(ct_alltoall_algos); a++) {
            gcm_coll_config.alltoall = ct_alltoall_algos[a].value;
            for (uniform = 0; uniform < 2; uniform++) {
                for (t = 0; t < 2; t++) {
                    const ct_type_t *ty = types[t];

                    for (c = 0; c < CT_NCOUNTS; c++) {
                        int n = ct_counts[c];

                        snprintf(w->what, sizeof(w->what),
                                 "alltoall%s %s %s n=%d %s count=%d",
                                 uniform ? "" : "v",
                                 ct_alltoall_algos[a].word,
                                 ct_shape_name[shape], w->n, ty->name, n);
                        ct_begin(w);
                        for (r = 0; r < w->n; r++) {
                            ct_a2a_rank_t *x = &rk[r];
                            size_t so = 0, ro = 0;

                            for (j = 0; j < w->n; j++) {
                                x->sc[j] = ct_a2a_count(n, uniform, r, j);
                                x->rc[j] = ct_a2a_count(n, uniform, j, r);
                                so += (size_t)x->sc[j];
                                ro += (size_t)x->rc[j];
                            }
                            x->sbuf = ct_alloc(ty, so);
                            x->rbuf = ct_alloc(ty, ro);
                            for (so = ro = 0, j = 0; j < w->n; j++) {
                                x->sp[j] = ct_elem(ty, x->sbuf, so);
                                x->rp[j] = ct_elem(ty, x->rbuf, ro);
                                x->ty[j] = TY(ty);
                                ct_fill(ty, x->sp[j], CT_A2A(r, j), 0,
                                        x->sc[j]);
                                so += (size_t)x->sc[j];
                                ro += (size_t)x->rc[j];
                            }
                            x->sb.ptr = x->sp;
                            x->sb.count = x->sc;
                            x->sb.type = x->ty;
                            x->rb.ptr = x->rp;
                            x->rb.count = x->rc;
                            x->rb.type = x->ty;
                            gcm_coll_alltoall(&w->s[r], &w->g[r], w->h[r],
                                              &x->sb, &x->rb, 0, uniform);
                        }
                        ct_run(w);
                        for (r = 0; r < w->n; r++) {
                            for (j = 0; j < w->n; j++) {
                                ct_expect(w, ty, NULL, rk[r].rp[j],
                                          CT_A2A(j, r), CT_A2A(j, r), 0,
                                          rk[r].rc[j], r);
                            }
                            free(rk[r].sbuf);
                            free(rk[r].rbuf);
                        }
                    }
                }
            }
        }
    }
    ct_close(w);
}
END_TEST

/* CHECK_COLL_RANKS=n runs the group of n ranks only (1..9). */
static Suite *make_suite(void)
{
    const TTest *schedules[] = {test_coll_barrier, test_coll_bcast,
        test_coll_reduce, test_coll_allreduce, test_coll_reduce_scatter,
        test_coll_scan, test_coll_gather_scatter, test_coll_allgather,
        test_coll_alltoall, NULL};
    struct gcm_check_case cases[] = {
        {"schedules", .tests = schedules, .timeout = 120, .setup = setup,
            .teardown = teardown, .loop_start = 0, .loop_end = CT_MAX_RANKS},
        {0},
    };
    const char *only = getenv("CHECK_COLL_RANKS");

    if (only != NULL && atoi(only) >= 1 && atoi(only) <= CT_MAX_RANKS) {
        cases[0].loop_start = atoi(only) - 1;
        cases[0].loop_end = atoi(only);
    }
    return gcm_check_suite("coll", cases);
}
