/*
 * coll_general.c: gcm_coll_general over the world and a duplicate: sets of
 * senders and receivers that are disjoint, overlapping, single, the whole
 * group in reverse order; a non-commutative combine function (affine maps
 * composed) checked against the composition in the senders' order; zero
 * and large lengths; the same tag several times in a row; a member that
 * takes no part; and bad arguments, which must give GCM_ERR_INVALID_PARAM
 * with the call named in gcm_last_error().
 */
#include <gencomm.h>

#include "gcm_test.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int me, n;

typedef struct aff {
    unsigned a, b;
} aff_t;

static aff_t aff_of(int p, int i)
{
    aff_t x = { 2u * (unsigned)(p + i) + 1u, (unsigned)(p * 5 + i) };

    return x;
}

/* x first, then y. */
static aff_t aff_mul(aff_t x, aff_t y)
{
    aff_t z = { x.a * y.a, x.b * y.a + y.b };

    return z;
}

static int calls;

static void aff_combine(void *inout, const void *in, size_t len, void *arg)
{
    aff_t *y = inout;
    const aff_t *x = in;
    size_t i;

    calls += (arg == &calls);
    for (i = 0; i < len / sizeof(aff_t); i++) {
        y[i] = aff_mul(x[i], y[i]);
    }
}

static int member_of(int k, const int set[], int m)
{
    int i;

    for (i = 0; i < m; i++) {
        if (set[i] == k) {
            return 1;
        }
    }
    return 0;
}

/* One call: k elements; in place when inplace and this member is both. */
static void run(gcm_lco_h lco, const char *what, int ns, const int s[],
                int nr, const int r[], int k, int inplace, int tag)
{
    aff_t *in = malloc(((size_t)k + 1) * sizeof(aff_t));
    aff_t *out = malloc(((size_t)k + 1) * sizeof(aff_t));
    int i, j, bad = 0, snd = member_of(me, s, ns), rcv = member_of(me, r, nr);
    gcm_status_t st;

    for (i = 0; i < k; i++) {
        in[i] = aff_of(me, i);
        out[i].a = out[i].b = 0xdeadu;
    }
    st = gcm_coll_general(lco, ns, s, nr, r, in,
                          (inplace && snd && rcv) ? in : out,
                          (size_t)k * sizeof(aff_t), aff_combine, &calls,
                          tag);
    CHECK(st == GCM_OK, "%s: %s (%s)", what, gcm_status_string(st),
          gcm_last_error());
    for (i = 0; rcv && i < k; i++) {
        aff_t want = { 1u, 0u }, got = (inplace && snd) ? in[i] : out[i];

        for (j = 0; j < ns; j++) {
            want = aff_mul(want, aff_of(s[j], i));
        }
        bad += (got.a != want.a || got.b != want.b);
    }
    for (i = 0; !rcv && i < k; i++) {
        bad += (out[i].a != 0xdeadu);    /* not a receiver: untouched */
    }
    CHECK(bad == 0, "%s: %d of %d elements wrong", what, bad, k);
    free(in);
    free(out);
}

static void expect_invalid(gcm_status_t st, const char *what)
{
    CHECK(st == GCM_ERR_INVALID_PARAM && strstr(gcm_last_error(),
                                                "gcm_coll_general") != NULL,
          "%s: got %s (%s)", what, gcm_status_string(st), gcm_last_error());
}

static void bad_arguments(gcm_lco_h lco)
{
    int all[2] = { 0, 0 }, out_of_range[1] = { n }, one[1] = { 0 };
    aff_t x = { 1, 1 }, y;

    expect_invalid(gcm_coll_general(lco, 2, all, 1, one, &x, &y, sizeof(x),
                                    aff_combine, NULL, 1),
                   "a sender twice");
    expect_invalid(gcm_coll_general(lco, 1, one, 1, out_of_range, &x, &y,
                                    sizeof(x), aff_combine, NULL, 1),
                   "a receiver out of range");
    expect_invalid(gcm_coll_general(lco, 0, one, 1, one, &x, &y, sizeof(x),
                                    aff_combine, NULL, 1),
                   "no senders");
    expect_invalid(gcm_coll_general(lco, 1, NULL, 1, one, &x, &y, sizeof(x),
                                    aff_combine, NULL, 1),
                   "senders NULL");
    expect_invalid(gcm_coll_general(lco, 1, one, 1, one, &x, &y, sizeof(x),
                                    NULL, NULL, 1),
                   "fn NULL");
    expect_invalid(gcm_coll_general(lco, 1, one, 1, one, &x, &y, sizeof(x),
                                    aff_combine, NULL, -1),
                   "tag -1");
    expect_invalid(gcm_coll_general(lco, 1, one, 1, one, &x, &y, sizeof(x),
                                    aff_combine, NULL, GCM_COLL_TAG_UB + 1),
                   "tag above GCM_COLL_TAG_UB");
    expect_invalid(gcm_coll_general(lco, 1, one, 1, one, &x, &y,
                                    (size_t)INT_MAX + 1, aff_combine, NULL,
                                    1),
                   "len above INT_MAX");
    if (me == 0) {
        expect_invalid(gcm_coll_general(lco, 1, one, 1, one, NULL, &y,
                                        sizeof(x), aff_combine, NULL, 1),
                       "sendbuf NULL at a sender");
    }
    expect_invalid(gcm_coll_general(NULL, 1, one, 1, one, &x, &y, sizeof(x),
                                    aff_combine, NULL, 1),
                   "lco NULL");
}

int main(int argc, char **argv)
{
    gcm_lco_h world, dup;
    int *all = NULL, *rev = NULL, *odd = NULL, *even = NULL;
    int nodd = 0, neven = 0, i, rep;

    if (!gcm_test_init(&argc, &argv, "coll_general")) {
        return 1;
    }
    world = gcm_world();
    me = gcm_proc_rank();
    n = gcm_proc_count();
    all = malloc((size_t)n * sizeof(int));
    rev = malloc((size_t)n * sizeof(int));
    odd = malloc((size_t)n * sizeof(int));
    even = malloc((size_t)n * sizeof(int));
    for (i = 0; i < n; i++) {
        all[i] = i;
        rev[i] = n - 1 - i;
        if (i % 2) {
            odd[nodd++] = i;
        } else {
            even[neven++] = i;
        }
    }
    if (nodd == 0) {
        odd[nodd++] = 0;
    }

    run(world, "all to all, senders reversed", n, rev, n, all, 5, 0, 0);
    run(world, "odd to even", nodd, odd, neven, even, 7, 0, 1);
    run(world, "last to first", 1, &rev[0], 1, &all[0], 3, 0, 2);
    run(world, "all to the middle, in place", n, all, 1, &all[n / 2], 9, 1,
        3);
    run(world, "zero length", n, rev, n, all, 0, 0, 4);
    for (rep = 0; rep < 3; rep++) {
        run(world, "the same tag again", nodd, odd, n, rev, 11, 0, 5);
    }
    /* 2 MiB: the broadcast to the receivers cuts it in pieces. */
    run(world, "large, even to all", neven, even, n, all, 262144, 0, 6);
    calls = 0;
    run(world, "one to one, in place", 1, &all[0], 1, &all[0], 4, 1, 7);
    CHECK(calls == 0, "a single sender combined %d times", calls);

    if (gcm_lco_dup(world, &dup) != GCM_OK) {
        CHECK(0, "gcm_lco_dup: %s", gcm_last_error());
    } else {
        run(dup, "on a duplicate, reversed to odd", n, rev, nodd, odd, 6, 0,
            0);
        gcm_lco_free(&dup);
    }
    /* Member n - 1 (n >= 3) takes no part: its call returns at once. */
    if (n >= 3) {
        run(world, "without the last member", 1, &all[1], 1, &all[0], 2, 0,
            8);
    }
    bad_arguments(world);

    free(all);
    free(rev);
    free(odd);
    free(even);
    return gcm_test_finish();
}
