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
 *
 * This file: the algorithms' tests and the suite; what they run on:
 * check_coll_world.c (check_coll.h).
 */
#include "config.h"

#include "check_coll.h"
#include "check_main.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

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

/* ---- a schedule run again under a later call's tag ------------------- */

/* A schedule whose tag is set (the MPI layer's kept schedules) sends and
 * receives under that tag, not the one its steps were built with: here
 * rank 1 answers by hand on the later tag only. */
START_TEST(test_coll_sched_tag)
{
    ct_world_t *w = &ct_w;
    gcm_request_h rq = GCM_REQUEST_NULL, sq = GCM_REQUEST_NULL;
    gcm_msg_status_t st;
    char out0 = 7, got0 = 0, out1 = 9, got1 = 0;
    int k, done = 0, tag;

    ct_open(w, 2);
    ct_begin(w);
    tag = w->g[0].tag + 1000;
    gcm_coll_send_raw(&w->s[0], &w->g[0], &out0, 1, 1);
    gcm_coll_recv_raw(&w->s[0], &w->g[0], &got0, 1, 1);
    gcm_coll_fence(&w->s[0]);
    w->s[0].tag = tag;
    ck_assert_int_eq(gcm_lco_irecv_x(w->lco[1], &got1, 1, 0, tag, &rq),
                     GCM_OK);
    ck_assert_int_eq(gcm_lco_isend_x(w->lco[1], &out1, 1, 0, tag, 0, &sq),
                     GCM_OK);
    for (k = 0; k < 100000 && !done; k++) {
        done = gcm_coll_sched_advance(&w->s[0], 0);
        ck_assert_int_eq(gcm_progress(), GCM_OK);
    }
    ck_assert_msg(done, "the schedule did not end under the later tag");
    ck_assert_int_eq(w->s[0].err, GCM_OK);
    ck_assert_int_eq(gcm_wait(&rq, &st), GCM_OK);
    ck_assert_int_eq(st.tag, tag);
    ck_assert_int_eq(gcm_wait(&sq, NULL), GCM_OK);
    ck_assert_int_eq(got0, 9);
    ck_assert_int_eq(got1, 7);
    gcm_coll_sched_free(&w->s[0]);
    gcm_coll_sched_free(&w->s[1]);
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
    const TTest *rerun[] = {test_coll_sched_tag, NULL};
    struct gcm_check_case cases[] = {
        {"schedules", .tests = schedules, .timeout = 120, .setup = ct_setup,
            .teardown = ct_teardown, .loop_start = 0, .loop_end = CT_MAX_RANKS},
        {"rerun", .tests = rerun, .timeout = 60, .setup = ct_setup,
            .teardown = ct_teardown},
        {0},
    };
    const char *only = getenv("CHECK_COLL_RANKS");

    if (only != NULL && atoi(only) >= 1 && atoi(only) <= CT_MAX_RANKS) {
        cases[0].loop_start = atoi(only) - 1;
        cases[0].loop_end = atoi(only);
    }
    return gcm_check_suite("coll", cases);
}
