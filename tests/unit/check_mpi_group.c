/*
 * tests/unit/check_mpi_group.c: MPI groups (compat/mpi_group.c) without a
 * runtime: groups are built from world process indices with
 * gcm_mpi_group_create, as the communicator layer does, and checked
 * against results worked out by hand from MPI-3.1 section 6.3.
 */
#include "config.h"

#include "compat/mpi_impl.h"
#include "check_heap.h"
#include "check_main.h"

#include <stdlib.h>
#include <string.h>

#define NELEMS(_a) ((int)(sizeof(_a) / sizeof((_a)[0])))

static MPI_Group make(int n, const int procs[], int myproc)
{
    MPI_Group g = MPI_GROUP_NULL;

    ck_assert_int_eq(gcm_mpi_group_create(n, procs, myproc, &g),
                     MPI_SUCCESS);
    ck_assert_int_eq(gcm_mpi_group_check(g), MPI_SUCCESS);
    return g;
}

/* A group of world processes 0..n-1, this process being myproc. */
static MPI_Group make_range(int n, int myproc)
{
    int *procs = malloc((size_t)(n > 0 ? n : 1) * sizeof(int));
    MPI_Group g;
    int i;

    ck_assert_ptr_nonnull(procs);
    for (i = 0; i < n; i++) {
        procs[i] = i;
    }
    g = make(n, procs, myproc);
    free(procs);
    return g;
}

/* Asserts that group holds exactly the world processes procs[0..n-1] in
 * this order. */
static void assert_members(MPI_Group group, int n, const int procs[])
{
    int size = -1, r;

    ck_assert_int_eq(MPI_Group_size(group, &size), MPI_SUCCESS);
    ck_assert_int_eq(size, n);
    for (r = 0; r < n; r++) {
        ck_assert_int_eq(gcm_mpi_group_proc(group, r), procs[r]);
    }
    ck_assert_int_eq(gcm_mpi_group_proc(group, n), MPI_UNDEFINED);
    ck_assert_int_eq(gcm_mpi_group_proc(group, -1), MPI_UNDEFINED);
}

static void assert_rank(MPI_Group group, int expected)
{
    int rank = -12345;

    ck_assert_int_eq(MPI_Group_rank(group, &rank), MPI_SUCCESS);
    ck_assert_int_eq(rank, expected);
}

static int compare(MPI_Group a, MPI_Group b)
{
    int result = -1;

    ck_assert_int_eq(MPI_Group_compare(a, b, &result), MPI_SUCCESS);
    return result;
}

static void free_group(MPI_Group *group)
{
    ck_assert_int_eq(MPI_Group_free(group), MPI_SUCCESS);
    ck_assert_ptr_eq(*group, MPI_GROUP_NULL);
}

/* ---- size, rank, translation, comparison --------------------------------- */

START_TEST(test_group_size_and_rank)
{
    static const int odd[] = { 5, 3, 1 };
    static const int mixed[] = { 4, 9, 3, 0 };
    MPI_Group world = make_range(8, 3);
    MPI_Group g1 = make(NELEMS(odd), odd, 3);
    MPI_Group g2 = make(NELEMS(mixed), mixed, 3);
    MPI_Group g3 = make(NELEMS(mixed), mixed, 9);
    int size = -1;

    assert_members(world, 8, (const int[]){ 0, 1, 2, 3, 4, 5, 6, 7 });
    assert_rank(world, 3);
    assert_members(g1, 3, odd);
    assert_rank(g1, 1);
    assert_members(g2, 4, mixed);
    assert_rank(g2, 2);
    assert_rank(g3, 1);
    /* A process outside the group has no rank in it. */
    {
        MPI_Group other = make(NELEMS(odd), odd, 4);

        assert_rank(other, MPI_UNDEFINED);
        free_group(&other);
    }
    /* The predefined empty group. */
    ck_assert_int_eq(MPI_Group_size(MPI_GROUP_EMPTY, &size), MPI_SUCCESS);
    ck_assert_int_eq(size, 0);
    assert_rank(MPI_GROUP_EMPTY, MPI_UNDEFINED);
    ck_assert_int_eq(gcm_mpi_group_check(MPI_GROUP_EMPTY), MPI_SUCCESS);
    free_group(&world);
    free_group(&g1);
    free_group(&g2);
    free_group(&g3);
}
END_TEST

START_TEST(test_group_translate_ranks)
{
    static const int odd[] = { 5, 3, 1 };
    static const int mixed[] = { 4, 9, 3, 0 };
    MPI_Group world = make_range(8, 3);
    MPI_Group g1 = make(NELEMS(odd), odd, 3);
    MPI_Group g2 = make(NELEMS(mixed), mixed, 3);
    int from_world[] = { 0, 1, 3, 5, MPI_PROC_NULL, 7 };
    int out[6];
    int from_g1[] = { 0, 1, 2 };
    int from_g2[] = { 3, 1, 0, 2 };

    ck_assert_int_eq(MPI_Group_translate_ranks(world, NELEMS(from_world),
                                               from_world, g1, out),
                     MPI_SUCCESS);
    ck_assert_int_eq(out[0], MPI_UNDEFINED);
    ck_assert_int_eq(out[1], 2);
    ck_assert_int_eq(out[2], 1);
    ck_assert_int_eq(out[3], 0);
    ck_assert_int_eq(out[4], MPI_PROC_NULL);
    ck_assert_int_eq(out[5], MPI_UNDEFINED);

    ck_assert_int_eq(MPI_Group_translate_ranks(g1, 3, from_g1, world, out),
                     MPI_SUCCESS);
    ck_assert_int_eq(out[0], 5);
    ck_assert_int_eq(out[1], 3);
    ck_assert_int_eq(out[2], 1);

    /* Array group to compact group and back; 9 is not in the world. */
    ck_assert_int_eq(MPI_Group_translate_ranks(g2, 4, from_g2, world, out),
                     MPI_SUCCESS);
    ck_assert_int_eq(out[0], 0);
    ck_assert_int_eq(out[1], MPI_UNDEFINED);
    ck_assert_int_eq(out[2], 4);
    ck_assert_int_eq(out[3], 3);
    ck_assert_int_eq(MPI_Group_translate_ranks(g2, 4, from_g2, g1, out),
                     MPI_SUCCESS);
    ck_assert_int_eq(out[0], MPI_UNDEFINED);
    ck_assert_int_eq(out[1], MPI_UNDEFINED);
    ck_assert_int_eq(out[2], MPI_UNDEFINED);
    ck_assert_int_eq(out[3], 1);

    /* Against the empty group everything but MPI_PROC_NULL is undefined. */
    from_world[0] = 2;
    ck_assert_int_eq(MPI_Group_translate_ranks(world, NELEMS(from_world),
                                               from_world, MPI_GROUP_EMPTY,
                                               out),
                     MPI_SUCCESS);
    ck_assert_int_eq(out[0], MPI_UNDEFINED);
    ck_assert_int_eq(out[4], MPI_PROC_NULL);

    /* n = 0 needs no arrays. */
    ck_assert_int_eq(MPI_Group_translate_ranks(world, 0, NULL, g1, NULL),
                     MPI_SUCCESS);
    free_group(&world);
    free_group(&g1);
    free_group(&g2);
}
END_TEST

START_TEST(test_group_translate_ranks_errors)
{
    MPI_Group world = make_range(8, 0);
    int bad[] = { 1, 8 };
    int neg[] = { -5 };
    int out[2] = { 77, 77 };
    int one[] = { 0 };

    ck_assert_int_eq(MPI_Group_translate_ranks(world, 2, bad, world, out),
                     MPI_ERR_RANK);
    /* Nothing is written when a rank is refused. */
    ck_assert_int_eq(out[0], 77);
    ck_assert_int_eq(MPI_Group_translate_ranks(world, 1, neg, world, out),
                     MPI_ERR_RANK);
    ck_assert_int_eq(MPI_Group_translate_ranks(MPI_GROUP_EMPTY, 1, one,
                                               world, out),
                     MPI_ERR_RANK);
    ck_assert_int_eq(MPI_Group_translate_ranks(world, -1, one, world, out),
                     MPI_ERR_ARG);
    ck_assert_int_eq(MPI_Group_translate_ranks(world, 1, NULL, world, out),
                     MPI_ERR_ARG);
    ck_assert_int_eq(MPI_Group_translate_ranks(world, 1, one, world, NULL),
                     MPI_ERR_ARG);
    ck_assert_int_eq(MPI_Group_translate_ranks(MPI_GROUP_NULL, 1, one, world,
                                               out),
                     MPI_ERR_GROUP);
    ck_assert_int_eq(MPI_Group_translate_ranks(world, 1, one, MPI_GROUP_NULL,
                                               out),
                     MPI_ERR_GROUP);
    free_group(&world);
}
END_TEST

START_TEST(test_group_compare)
{
    static const int fwd[] = { 2, 7, 4, 1 };
    static const int perm[] = { 7, 1, 2, 4 };
    static const int other[] = { 2, 7, 4, 0 };
    static const int rev8[] = { 7, 6, 5, 4, 3, 2, 1, 0 };
    static const int shuffled8[] = { 3, 1, 0, 2, 7, 6, 4, 5 };
    MPI_Group a = make(4, fwd, 0), b = make(4, fwd, 0);
    MPI_Group c = make(4, perm, 0), d = make(4, other, 0);
    MPI_Group w1 = make_range(8, 0), w2 = make_range(8, 0);
    MPI_Group rev = make(8, rev8, 0), shuf = make(8, shuffled8, 0);
    MPI_Group w7 = make_range(7, 0), empty = make(0, NULL, 0);
    int result = -1;

    ck_assert_int_eq(compare(a, a), MPI_IDENT);
    ck_assert_int_eq(compare(a, b), MPI_IDENT);
    ck_assert_int_eq(compare(a, c), MPI_SIMILAR);
    ck_assert_int_eq(compare(c, a), MPI_SIMILAR);
    ck_assert_int_eq(compare(a, d), MPI_UNEQUAL);
    /* Compact against compact, against array, and different sizes. */
    ck_assert_int_eq(compare(w1, w2), MPI_IDENT);
    ck_assert_int_eq(compare(w1, rev), MPI_SIMILAR);
    ck_assert_int_eq(compare(shuf, w1), MPI_SIMILAR);
    ck_assert_int_eq(compare(rev, shuf), MPI_SIMILAR);
    ck_assert_int_eq(compare(w1, w7), MPI_UNEQUAL);
    ck_assert_int_eq(compare(w1, a), MPI_UNEQUAL);
    /* Empty groups are all identical: no members, same (no) order. */
    ck_assert_int_eq(compare(empty, MPI_GROUP_EMPTY), MPI_IDENT);
    ck_assert_int_eq(compare(MPI_GROUP_EMPTY, MPI_GROUP_EMPTY), MPI_IDENT);
    ck_assert_int_eq(compare(empty, w1), MPI_UNEQUAL);

    ck_assert_int_eq(MPI_Group_compare(a, b, NULL), MPI_ERR_ARG);
    ck_assert_int_eq(MPI_Group_compare(MPI_GROUP_NULL, b, &result),
                     MPI_ERR_GROUP);
    ck_assert_int_eq(MPI_Group_compare(a, MPI_GROUP_NULL, &result),
                     MPI_ERR_GROUP);
    free_group(&a);
    free_group(&b);
    free_group(&c);
    free_group(&d);
    free_group(&w1);
    free_group(&w2);
    free_group(&rev);
    free_group(&shuf);
    free_group(&w7);
    free_group(&empty);
}
END_TEST

/* ---- set operations ------------------------------------------------------ */

START_TEST(test_group_union_intersection_difference)
{
    static const int p1[] = { 1, 4, 6, 2, 9 };
    static const int p2[] = { 8, 2, 3, 1, 5 };
    /* Union: group1 in its order, then 8, 3, 5 in group2's order. */
    static const int want_union[] = { 1, 4, 6, 2, 9, 8, 3, 5 };
    static const int want_union21[] = { 8, 2, 3, 1, 5, 4, 6, 9 };
    /* Intersection and difference keep group1's order. */
    static const int want_inter[] = { 1, 2 };
    static const int want_inter21[] = { 2, 1 };
    static const int want_diff[] = { 4, 6, 9 };
    static const int want_diff21[] = { 8, 3, 5 };
    MPI_Group g1 = make(NELEMS(p1), p1, 2);
    MPI_Group g2 = make(NELEMS(p2), p2, 2);
    MPI_Group res = MPI_GROUP_NULL;

    ck_assert_int_eq(MPI_Group_union(g1, g2, &res), MPI_SUCCESS);
    assert_members(res, NELEMS(want_union), want_union);
    assert_rank(res, 3);
    free_group(&res);
    ck_assert_int_eq(MPI_Group_union(g2, g1, &res), MPI_SUCCESS);
    assert_members(res, NELEMS(want_union21), want_union21);
    assert_rank(res, 1);
    free_group(&res);

    ck_assert_int_eq(MPI_Group_intersection(g1, g2, &res), MPI_SUCCESS);
    assert_members(res, NELEMS(want_inter), want_inter);
    assert_rank(res, 1);
    free_group(&res);
    ck_assert_int_eq(MPI_Group_intersection(g2, g1, &res), MPI_SUCCESS);
    assert_members(res, NELEMS(want_inter21), want_inter21);
    assert_rank(res, 0);
    free_group(&res);

    ck_assert_int_eq(MPI_Group_difference(g1, g2, &res), MPI_SUCCESS);
    assert_members(res, NELEMS(want_diff), want_diff);
    assert_rank(res, MPI_UNDEFINED);
    free_group(&res);
    ck_assert_int_eq(MPI_Group_difference(g2, g1, &res), MPI_SUCCESS);
    assert_members(res, NELEMS(want_diff21), want_diff21);
    free_group(&res);

    /* With itself: union and intersection are the group, difference is
     * empty, yet a new object the user may free. */
    ck_assert_int_eq(MPI_Group_union(g1, g1, &res), MPI_SUCCESS);
    ck_assert_int_eq(compare(res, g1), MPI_IDENT);
    free_group(&res);
    ck_assert_int_eq(MPI_Group_intersection(g1, g1, &res), MPI_SUCCESS);
    ck_assert_int_eq(compare(res, g1), MPI_IDENT);
    free_group(&res);
    ck_assert_int_eq(MPI_Group_difference(g1, g1, &res), MPI_SUCCESS);
    ck_assert_int_eq(compare(res, MPI_GROUP_EMPTY), MPI_IDENT);
    free_group(&res);

    /* With the empty group. */
    ck_assert_int_eq(MPI_Group_union(MPI_GROUP_EMPTY, g2, &res),
                     MPI_SUCCESS);
    assert_members(res, NELEMS(p2), p2);
    assert_rank(res, 1);
    free_group(&res);
    ck_assert_int_eq(MPI_Group_intersection(g1, MPI_GROUP_EMPTY, &res),
                     MPI_SUCCESS);
    assert_members(res, 0, NULL);
    free_group(&res);
    ck_assert_int_eq(MPI_Group_difference(g1, MPI_GROUP_EMPTY, &res),
                     MPI_SUCCESS);
    assert_members(res, NELEMS(p1), p1);
    free_group(&res);
    ck_assert_int_eq(MPI_Group_union(MPI_GROUP_EMPTY, MPI_GROUP_EMPTY,
                                     &res),
                     MPI_SUCCESS);
    assert_members(res, 0, NULL);
    free_group(&res);

    ck_assert_int_eq(MPI_Group_union(g1, g2, NULL), MPI_ERR_ARG);
    ck_assert_int_eq(MPI_Group_intersection(MPI_GROUP_NULL, g2, &res),
                     MPI_ERR_GROUP);
    ck_assert_int_eq(MPI_Group_difference(g1, MPI_GROUP_NULL, &res),
                     MPI_ERR_GROUP);
    free_group(&g1);
    free_group(&g2);
}
END_TEST

/* ---- incl, excl, ranges -------------------------------------------------- */

START_TEST(test_group_incl_excl)
{
    static const int p[] = { 10, 11, 12, 13, 14, 15 };
    MPI_Group g = make(NELEMS(p), p, 13);
    MPI_Group res = MPI_GROUP_NULL;
    int incl[] = { 4, 0, 3 };
    int excl[] = { 4, 0, 3 };
    int all[] = { 0, 1, 2, 3, 4, 5 };

    ck_assert_int_eq(MPI_Group_incl(g, 3, incl, &res), MPI_SUCCESS);
    assert_members(res, 3, (const int[]){ 14, 10, 13 });
    assert_rank(res, 2);
    free_group(&res);
    /* excl keeps the others in the group's order, whatever the order of
     * ranks. */
    ck_assert_int_eq(MPI_Group_excl(g, 3, excl, &res), MPI_SUCCESS);
    assert_members(res, 3, (const int[]){ 11, 12, 15 });
    assert_rank(res, MPI_UNDEFINED);
    free_group(&res);

    /* Nothing included or everything excluded: MPI_GROUP_EMPTY itself,
     * which the user may free; nothing excluded: the same members. */
    ck_assert_int_eq(MPI_Group_incl(g, 0, NULL, &res), MPI_SUCCESS);
    ck_assert_ptr_eq(res, MPI_GROUP_EMPTY);
    free_group(&res);
    ck_assert_int_eq(MPI_Group_excl(g, 6, all, &res), MPI_SUCCESS);
    ck_assert_ptr_eq(res, MPI_GROUP_EMPTY);
    free_group(&res);
    ck_assert_int_eq(MPI_Group_excl(g, 0, NULL, &res), MPI_SUCCESS);
    ck_assert_int_eq(compare(res, g), MPI_IDENT);
    free_group(&res);
    ck_assert_int_eq(MPI_Group_incl(g, 6, all, &res), MPI_SUCCESS);
    ck_assert_int_eq(compare(res, g), MPI_IDENT);
    free_group(&res);
    free_group(&g);
}
END_TEST

START_TEST(test_group_incl_excl_errors)
{
    MPI_Group g = make_range(6, 0);
    MPI_Group res = MPI_GROUP_NULL;
    int dup[] = { 1, 4, 1 };
    int high[] = { 0, 6 };
    int low[] = { -1 };
    int procnull[] = { MPI_PROC_NULL };
    int seven[] = { 0, 1, 2, 3, 4, 5, 0 };

    ck_assert_int_eq(MPI_Group_incl(g, 3, dup, &res), MPI_ERR_RANK);
    ck_assert_int_eq(MPI_Group_excl(g, 3, dup, &res), MPI_ERR_RANK);
    ck_assert_int_eq(MPI_Group_incl(g, 2, high, &res), MPI_ERR_RANK);
    ck_assert_int_eq(MPI_Group_excl(g, 2, high, &res), MPI_ERR_RANK);
    ck_assert_int_eq(MPI_Group_incl(g, 1, low, &res), MPI_ERR_RANK);
    ck_assert_int_eq(MPI_Group_excl(g, 1, procnull, &res), MPI_ERR_RANK);
    ck_assert_int_eq(MPI_Group_incl(g, 7, seven, &res), MPI_ERR_RANK);
    ck_assert_int_eq(MPI_Group_incl(g, -1, dup, &res), MPI_ERR_ARG);
    ck_assert_int_eq(MPI_Group_excl(g, 1, NULL, &res), MPI_ERR_ARG);
    ck_assert_int_eq(MPI_Group_incl(g, 1, dup, NULL), MPI_ERR_ARG);
    ck_assert_int_eq(MPI_Group_incl(MPI_GROUP_NULL, 1, dup, &res),
                     MPI_ERR_GROUP);
    ck_assert_int_eq(MPI_Group_incl(MPI_GROUP_EMPTY, 1, dup, &res),
                     MPI_ERR_RANK);
    /* Refused calls leave the output alone. */
    ck_assert_ptr_eq(res, MPI_GROUP_NULL);
    free_group(&g);
}
END_TEST

START_TEST(test_group_range_incl_excl)
{
    MPI_Group g = make_range(10, 9);
    MPI_Group res = MPI_GROUP_NULL;
    /* MPI-3.1 6.3.2's example: on {a..j}, ranges (6,7,1), (1,6,2),
     * (0,9,4) name ranks 6 7, 1 3 5, 0 4 8: {g,h,b,d,f,a,e,i}; range_excl
     * of them leaves {c,j}. Here process p is the letter of rank p. */
    int example[][3] = { { 6, 7, 1 }, { 1, 6, 2 }, { 0, 9, 4 } };
    int backwards[][3] = { { 9, 3, -3 }, { 2, 2, 5 } };
    int single[][3] = { { 8, 0, -1 } };
    int every[][3] = { { 9, 0, -1 } };

    ck_assert_int_eq(MPI_Group_range_incl(g, 3, example, &res), MPI_SUCCESS);
    assert_members(res, 8, (const int[]){ 6, 7, 1, 3, 5, 0, 4, 8 });
    assert_rank(res, MPI_UNDEFINED);
    free_group(&res);
    /* range_excl of the same ranges leaves 2 and 9. */
    ck_assert_int_eq(MPI_Group_range_excl(g, 3, example, &res), MPI_SUCCESS);
    assert_members(res, 2, (const int[]){ 2, 9 });
    assert_rank(res, 1);
    free_group(&res);
    /* Every rank excluded: MPI_GROUP_EMPTY. */
    ck_assert_int_eq(MPI_Group_range_excl(g, 1, every, &res), MPI_SUCCESS);
    ck_assert_ptr_eq(res, MPI_GROUP_EMPTY);
    free_group(&res);

    /* Negative strides: 9, 6, 3 then 2 (a one-rank triplet). */
    ck_assert_int_eq(MPI_Group_range_incl(g, 2, backwards, &res),
                     MPI_SUCCESS);
    assert_members(res, 4, (const int[]){ 9, 6, 3, 2 });
    assert_rank(res, 0);
    free_group(&res);
    ck_assert_int_eq(MPI_Group_range_excl(g, 2, backwards, &res),
                     MPI_SUCCESS);
    assert_members(res, 6, (const int[]){ 0, 1, 4, 5, 7, 8 });
    free_group(&res);
    ck_assert_int_eq(MPI_Group_range_incl(g, 1, single, &res), MPI_SUCCESS);
    assert_members(res, 9, (const int[]){ 8, 7, 6, 5, 4, 3, 2, 1, 0 });
    free_group(&res);

    /* No ranges: nothing included, nothing excluded. */
    ck_assert_int_eq(MPI_Group_range_incl(g, 0, NULL, &res), MPI_SUCCESS);
    ck_assert_ptr_eq(res, MPI_GROUP_EMPTY);
    free_group(&res);
    ck_assert_int_eq(MPI_Group_range_excl(g, 0, NULL, &res), MPI_SUCCESS);
    ck_assert_int_eq(compare(res, g), MPI_IDENT);
    free_group(&res);
    free_group(&g);
}
END_TEST

START_TEST(test_group_range_errors)
{
    MPI_Group g = make_range(10, 0);
    MPI_Group res = MPI_GROUP_NULL;
    int zero[][3] = { { 0, 5, 0 } };
    int dup[][3] = { { 0, 4, 2 }, { 8, 2, -3 } };     /* 0 2 4, 8 5 2 */
    int dup_in_one[][3] = { { 0, 9, 1 }, { 3, 3, 1 } };
    int past_end[][3] = { { 5, 10, 1 } };
    int before_start[][3] = { { 2, -1, -1 } };
    int first_out[][3] = { { -1, 3, 1 } };
    int away[][3] = { { 5, 2, 1 } };
    int huge[][3] = { { 0, 2147483647, 1 } };
    int many[][3] = { { 0, 9, 1 }, { 0, 2147483647, 1 } };

    ck_assert_int_eq(MPI_Group_range_incl(g, 1, zero, &res), MPI_ERR_ARG);
    ck_assert_int_eq(MPI_Group_range_excl(g, 1, zero, &res), MPI_ERR_ARG);
    ck_assert_int_eq(MPI_Group_range_incl(g, 2, dup, &res), MPI_ERR_RANK);
    ck_assert_int_eq(MPI_Group_range_excl(g, 2, dup, &res), MPI_ERR_RANK);
    ck_assert_int_eq(MPI_Group_range_incl(g, 2, dup_in_one, &res),
                     MPI_ERR_RANK);
    ck_assert_int_eq(MPI_Group_range_incl(g, 1, past_end, &res),
                     MPI_ERR_RANK);
    ck_assert_int_eq(MPI_Group_range_excl(g, 1, before_start, &res),
                     MPI_ERR_RANK);
    ck_assert_int_eq(MPI_Group_range_incl(g, 1, first_out, &res),
                     MPI_ERR_RANK);
    ck_assert_int_eq(MPI_Group_range_incl(g, 1, away, &res), MPI_ERR_ARG);
    /* Triplets naming billions of ranks are refused without a walk. */
    ck_assert_int_eq(MPI_Group_range_incl(g, 1, huge, &res), MPI_ERR_RANK);
    ck_assert_int_eq(MPI_Group_range_excl(g, 2, many, &res), MPI_ERR_RANK);
    ck_assert_int_eq(MPI_Group_range_incl(g, -1, zero, &res), MPI_ERR_ARG);
    ck_assert_int_eq(MPI_Group_range_incl(g, 1, NULL, &res), MPI_ERR_ARG);
    ck_assert_int_eq(MPI_Group_range_incl(g, 1, zero, NULL), MPI_ERR_ARG);
    ck_assert_int_eq(MPI_Group_range_excl(MPI_GROUP_NULL, 1, zero, &res),
                     MPI_ERR_GROUP);
    ck_assert_ptr_eq(res, MPI_GROUP_NULL);
    free_group(&g);
}
END_TEST

/* Only the ranks a triplet names must be valid: (0, 9, 4) in a group of 9
 * is 0, 4, 8, though 9 is no rank of it. */
START_TEST(test_group_range_last_may_overshoot)
{
    MPI_Group g = make_range(9, 0);
    MPI_Group res = MPI_GROUP_NULL;
    int overshoot[][3] = { { 0, 9, 4 } };

    ck_assert_int_eq(MPI_Group_range_incl(g, 1, overshoot, &res),
                     MPI_SUCCESS);
    assert_members(res, 3, (const int[]){ 0, 4, 8 });
    free_group(&res);
    free_group(&g);
}
END_TEST

/* ---- handles, freeing, reference counts ---------------------------------- */

START_TEST(test_group_bad_handles)
{
    static const int procs[] = { 0, 1 };
    /* Memory that is not a group: wrong magic. */
    static uint64_t garbage[16];
    MPI_Group fake = (MPI_Group)(void *)garbage;
    MPI_Group g = make(2, procs, 0);
    MPI_Group res = MPI_GROUP_NULL;
    MPI_Group null = MPI_GROUP_NULL;
    int size = -1, rank = -1;

    ck_assert_int_eq(gcm_mpi_group_check(MPI_GROUP_NULL), MPI_ERR_GROUP);
    ck_assert_int_eq(gcm_mpi_group_check(fake), MPI_ERR_GROUP);
    ck_assert_int_eq(gcm_mpi_group_check((MPI_Group)(uintptr_t)1),
                     MPI_ERR_GROUP);
    ck_assert_int_eq(MPI_Group_size(MPI_GROUP_NULL, &size), MPI_ERR_GROUP);
    ck_assert_int_eq(MPI_Group_size(fake, &size), MPI_ERR_GROUP);
    ck_assert_int_eq(MPI_Group_rank(fake, &rank), MPI_ERR_GROUP);
    ck_assert_int_eq(MPI_Group_size(g, NULL), MPI_ERR_ARG);
    ck_assert_int_eq(MPI_Group_rank(g, NULL), MPI_ERR_ARG);
    ck_assert_int_eq(MPI_Group_union(fake, g, &res), MPI_ERR_GROUP);
    ck_assert_int_eq(gcm_mpi_group_proc(fake, 0), MPI_UNDEFINED);
    ck_assert_int_eq(size, -1);
    ck_assert_int_eq(rank, -1);

    /* A freed handle is MPI_GROUP_NULL, refused everywhere, and freeing
     * it again is refused too. */
    free_group(&g);
    ck_assert_int_eq(MPI_Group_size(g, &size), MPI_ERR_GROUP);
    ck_assert_int_eq(MPI_Group_free(&g), MPI_ERR_GROUP);
    ck_assert_int_eq(MPI_Group_free(&null), MPI_ERR_GROUP);
    ck_assert_int_eq(MPI_Group_free(&fake), MPI_ERR_GROUP);
    ck_assert_int_eq(MPI_Group_free(NULL), MPI_ERR_ARG);
    /* Retaining garbage does nothing (and does not crash). */
    gcm_mpi_group_retain(fake);
    gcm_mpi_group_retain(MPI_GROUP_NULL);
    ck_assert_int_eq(gcm_mpi_group_check(fake), MPI_ERR_GROUP);
}
END_TEST

START_TEST(test_group_free_empty)
{
    MPI_Group e = MPI_GROUP_EMPTY;
    int size = -1;

    /* Every empty result is MPI_GROUP_EMPTY, so freeing it is allowed (as
     * in MPICH); the handle becomes MPI_GROUP_NULL and the group keeps
     * working, however often it is freed. */
    free_group(&e);
    gcm_mpi_group_retain(MPI_GROUP_EMPTY);
    e = MPI_GROUP_EMPTY;
    free_group(&e);
    ck_assert_int_eq(MPI_Group_size(MPI_GROUP_EMPTY, &size), MPI_SUCCESS);
    ck_assert_int_eq(size, 0);
}
END_TEST

START_TEST(test_group_refcount)
{
    static const int procs[] = { 3, 0, 2 };
    MPI_Group g = make(3, procs, 2), comm_ref, user_ref, copy;
    int size = -1;

    /* A communicator takes a reference; the user frees their handle and
     * the group lives on for the communicator until it lets go. The
     * freed handle is refused (a second free too: it must not drop the
     * communicator's reference). */
    gcm_mpi_group_retain(g);
    comm_ref = g;
    user_ref = g;
    copy = g;
    free_group(&user_ref);
    ck_assert_int_eq(gcm_mpi_group_check(copy), MPI_ERR_GROUP);
    ck_assert_int_eq(MPI_Group_size(copy, &size), MPI_ERR_GROUP);
    ck_assert_int_eq(MPI_Group_free(&copy), MPI_ERR_GROUP);
    ck_assert_int_eq(gcm_mpi_group_proc(comm_ref, 1), 0);
    ck_assert_int_eq(gcm_mpi_group_proc(comm_ref, 2), 2);
    /* Handed out again (MPI_Comm_group of a cached group): one handle,
     * one free. */
    gcm_mpi_group_retain(comm_ref);
    gcm_mpi_group_handles_add(comm_ref, 1);
    user_ref = comm_ref;
    ck_assert_int_eq(MPI_Group_size(user_ref, &size), MPI_SUCCESS);
    ck_assert_int_eq(size, 3);
    assert_rank(user_ref, 2);
    free_group(&user_ref);
    ck_assert_int_eq(gcm_mpi_group_check(comm_ref), MPI_ERR_GROUP);
    gcm_mpi_group_release(comm_ref);
    /* The last reference released the object; ASan reports a leak or a
     * double free otherwise. */
}
END_TEST

START_TEST(test_group_create_errors)
{
    static const int procs[] = { 0, -4 };
    MPI_Group g = MPI_GROUP_NULL;

    ck_assert_int_eq(gcm_mpi_group_create(1, procs, 0, NULL), MPI_ERR_ARG);
    ck_assert_int_eq(gcm_mpi_group_create(-1, procs, 0, &g), MPI_ERR_ARG);
    ck_assert_int_eq(gcm_mpi_group_create(2, NULL, 0, &g), MPI_ERR_ARG);
    ck_assert_int_eq(gcm_mpi_group_create(2, procs, 0, &g), MPI_ERR_ARG);
    ck_assert_ptr_eq(g, MPI_GROUP_NULL);
    /* A group of none is MPI_GROUP_EMPTY, which the caller may free. */
    ck_assert_int_eq(gcm_mpi_group_create(0, NULL, 0, &g), MPI_SUCCESS);
    ck_assert_ptr_eq(g, MPI_GROUP_EMPTY);
    assert_members(g, 0, NULL);
    assert_rank(g, MPI_UNDEFINED);
    free_group(&g);
}
END_TEST

/* ---- scale --------------------------------------------------------------- */

#define BIG 1000000

/* A world group of a million processes is stored as a range: creating it
 * takes no O(n) memory, and translating ranks is O(1). */
START_TEST(test_group_big_range_is_compact)
{
    int *procs = malloc((size_t)BIG * sizeof(int));
    int rev_range[][3] = { { BIG - 1, 0, -1 } };
    int ranks[] = { 0, 1, 499999, BIG - 1, MPI_PROC_NULL };
    int out[5];
    MPI_Group world, copy, rev, evens, sub;
    size_t before, after;
    int i;

    ck_assert_ptr_nonnull(procs);
    for (i = 0; i < BIG; i++) {
        procs[i] = i;
    }
    before = heap_in_use();
    world  = make(BIG, procs, 123456);
    copy   = make(BIG, procs, 123456);
    after  = heap_in_use();
    /* Two groups of a million members in far less than one array. */
    ck_assert_uint_lt(after - before, 4096);
    free(procs);
    assert_rank(world, 123456);
    ck_assert_int_eq(gcm_mpi_group_proc(world, BIG - 1), BIG - 1);
    ck_assert_int_eq(compare(world, copy), MPI_IDENT);

    /* Reversed by a range: compact too, translation both ways. */
    ck_assert_int_eq(MPI_Group_range_incl(world, 1, rev_range, &rev),
                     MPI_SUCCESS);
    ck_assert_int_eq(compare(world, rev), MPI_SIMILAR);
    assert_rank(rev, BIG - 1 - 123456);
    ck_assert_int_eq(MPI_Group_translate_ranks(world, 5, ranks, rev, out),
                     MPI_SUCCESS);
    ck_assert_int_eq(out[0], BIG - 1);
    ck_assert_int_eq(out[1], BIG - 2);
    ck_assert_int_eq(out[2], 500000);
    ck_assert_int_eq(out[3], 0);
    ck_assert_int_eq(out[4], MPI_PROC_NULL);

    /* Every other process: a progression of stride 2. */
    {
        int half[][3] = { { 0, BIG - 1, 2 } };

        ck_assert_int_eq(MPI_Group_range_incl(world, 1, half, &evens),
                         MPI_SUCCESS);
    }
    ck_assert_int_eq(MPI_Group_translate_ranks(world, 4, ranks, evens, out),
                     MPI_SUCCESS);
    ck_assert_int_eq(out[0], 0);
    ck_assert_int_eq(out[1], MPI_UNDEFINED);
    ck_assert_int_eq(out[2], MPI_UNDEFINED);
    ck_assert_int_eq(out[3], MPI_UNDEFINED);
    assert_rank(evens, 61728);
    ranks[1] = 277776;
    ck_assert_int_eq(MPI_Group_translate_ranks(evens, 2, ranks, world, out),
                     MPI_SUCCESS);
    ck_assert_int_eq(out[0], 0);
    ck_assert_int_eq(out[1], 2 * 277776);

    /* The difference of the two is the odd processes, in order. */
    ck_assert_int_eq(MPI_Group_difference(world, evens, &sub), MPI_SUCCESS);
    ck_assert_int_eq(gcm_mpi_group_proc(sub, 0), 1);
    ck_assert_int_eq(gcm_mpi_group_proc(sub, BIG / 2 - 1), BIG - 1);
    assert_rank(sub, MPI_UNDEFINED);
    free_group(&sub);

    free_group(&world);
    free_group(&copy);
    free_group(&rev);
    free_group(&evens);
}
END_TEST

#define SHUFFLED 200000

/* A big group in no arithmetic order: translate, compare and the set
 * operations must stay O(n log n); O(n^2) would be 4e10 steps and trip
 * the test's timeout. */
START_TEST(test_group_big_shuffled_is_fast)
{
    int *procs = malloc((size_t)SHUFFLED * sizeof(int));
    int *ranks = malloc((size_t)SHUFFLED * sizeof(int));
    int *out = malloc((size_t)SHUFFLED * sizeof(int));
    MPI_Group shuf, world, res;
    int i, size = -1;

    ck_assert_ptr_nonnull(procs);
    ck_assert_ptr_nonnull(ranks);
    ck_assert_ptr_nonnull(out);
    /* i -> i * 7919 mod n is a permutation (7919 is prime, n is 2^6 5^5). */
    for (i = 0; i < SHUFFLED; i++) {
        procs[i] = (int)(((long long)i * 7919) % SHUFFLED);
        ranks[i] = i;
    }
    shuf  = make(SHUFFLED, procs, 7919);
    world = make_range(SHUFFLED, 7919);
    assert_rank(shuf, 1);
    ck_assert_int_eq(compare(shuf, world), MPI_SIMILAR);
    ck_assert_int_eq(compare(world, shuf), MPI_SIMILAR);

    ck_assert_int_eq(MPI_Group_translate_ranks(world, SHUFFLED, ranks, shuf,
                                               out),
                     MPI_SUCCESS);
    for (i = 0; i < SHUFFLED; i++) {
        ck_assert_int_eq(procs[out[i]], i);
    }
    ck_assert_int_eq(MPI_Group_translate_ranks(shuf, SHUFFLED, ranks, world,
                                               out),
                     MPI_SUCCESS);
    for (i = 0; i < SHUFFLED; i++) {
        ck_assert_int_eq(out[i], procs[i]);
    }

    /* Union with the world adds nothing and keeps the shuffled order. */
    ck_assert_int_eq(MPI_Group_union(shuf, world, &res), MPI_SUCCESS);
    ck_assert_int_eq(compare(res, shuf), MPI_IDENT);
    free_group(&res);
    ck_assert_int_eq(MPI_Group_intersection(world, shuf, &res),
                     MPI_SUCCESS);
    ck_assert_int_eq(compare(res, world), MPI_IDENT);
    free_group(&res);
    ck_assert_int_eq(MPI_Group_difference(shuf, world, &res), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Group_size(res, &size), MPI_SUCCESS);
    ck_assert_int_eq(size, 0);
    free_group(&res);

    free_group(&shuf);
    free_group(&world);
    free(procs);
    free(ranks);
    free(out);
}
END_TEST

static Suite *make_suite(void)
{
    const TTest *basic[] = {test_group_size_and_rank,
        test_group_translate_ranks, test_group_translate_ranks_errors,
        test_group_compare, NULL};
    const TTest *ops[] = {test_group_union_intersection_difference,
        test_group_incl_excl, test_group_incl_excl_errors,
        test_group_range_incl_excl, test_group_range_errors,
        test_group_range_last_may_overshoot, NULL};
    const TTest *handles[] = {test_group_bad_handles, test_group_free_empty,
        test_group_refcount, test_group_create_errors, NULL};
    const TTest *scale[] = {test_group_big_range_is_compact,
        test_group_big_shuffled_is_fast, NULL};
    const struct gcm_check_case cases[] = {
        {"basic", .tests = basic},
        {"ops", .tests = ops},
        {"handles", .tests = handles},
        /* Generous for sanitizer builds; an O(n^2) path needs far more. */
        {"scale", .tests = scale, .timeout = 30},
        {0},
    };

    return gcm_check_suite("mpi_group", cases);
}
