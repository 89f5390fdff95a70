/*
 * tests/unit/check_mpi_type_desc.c: MPI datatypes as descriptions. A type
 * costs what its description costs, not what it describes: vectors of
 * 2^26 and INT_MAX blocks are built and committed at once and hold no
 * memory per block; the types too large to flatten are walked per message
 * (pack, unpack, truncated unpack, element counts) with the same results
 * as a hand-written loop; distributed arrays match the distribution the
 * standard defines; every constructor's envelope rebuilds the same type
 * through MPI_Type_get_contents; external32 is big-endian with its fixed
 * sizes and round-trips. No runtime is started.
 */
#include "config.h"

#include "compat/mpi_impl.h"
#include "check_heap.h"
#include "check_main.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ---- descriptions, not elements ------------------------------------------ */

START_TEST(test_huge_vectors_cost_their_description)
{
    static const int counts[] = { 1 << 26, INT_MAX };
    MPI_Datatype t, c;
    MPI_Count size;
    size_t before;
    int i, sz;

    for (i = 0; i < 2; i++) {
        before = heap_in_use();
        ck_assert_int_eq(MPI_Type_vector(counts[i], 1, 2, MPI_DOUBLE, &t),
                         MPI_SUCCESS);
        ck_assert_int_eq(MPI_Type_commit(&t), MPI_SUCCESS);
        /* A few hundred bytes, not 16 per block (2^26 blocks took 1 GB). */
        ck_assert_uint_lt(heap_in_use() - before, 64 * 1024);
        ck_assert_int_eq(MPI_Type_size_x(t, &size), MPI_SUCCESS);
        ck_assert_int_eq(size, (MPI_Count)counts[i] * 8);
        ck_assert_int_eq(MPI_Type_size(t, &sz), MPI_SUCCESS);
        ck_assert_int_eq(sz, (i == 0) ? (1 << 29) : MPI_UNDEFINED);
        /* Types built on it are just as cheap. */
        ck_assert_int_eq(MPI_Type_contiguous(1000, t, &c), MPI_SUCCESS);
        ck_assert_int_eq(MPI_Type_commit(&c), MPI_SUCCESS);
        ck_assert_int_eq(MPI_Type_free(&c), MPI_SUCCESS);
        ck_assert_int_eq(MPI_Type_free(&t), MPI_SUCCESS);
    }
    /* Adjacent blocks (stride 1) are one block whatever their number. */
    ck_assert_int_eq(MPI_Type_vector(INT_MAX, 1, 1, MPI_DOUBLE, &t),
                     MPI_SUCCESS);
    ck_assert_int_eq(MPI_Type_commit(&t), MPI_SUCCESS);
    ck_assert_int_eq(gcm_mpi_type_is_contiguous(t, 1, NULL, NULL), 1);
    ck_assert_int_eq(MPI_Type_free(&t), MPI_SUCCESS);
}
END_TEST

/* ---- walked types: the same bytes as a loop --------------------------------- */

enum { NB = 1 << 17 };   /* more blocks than are flattened */

/* Every other int of a buffer (a type of NB blocks, walked), packed,
 * unpacked, unpacked in part, counted. */
START_TEST(test_walked_vector)
{
    int *src = malloc(2 * NB * sizeof(int)), *dst = malloc(2 * NB * sizeof(int));
    int *packed = malloc(NB * sizeof(int));
    MPI_Datatype t;
    MPI_Status st;
    MPI_Count n;
    int i, pos;

    ck_assert_ptr_nonnull(src);
    ck_assert_ptr_nonnull(dst);
    ck_assert_ptr_nonnull(packed);
    for (i = 0; i < 2 * NB; i++) {
        src[i] = i * 3 + 1;
        dst[i] = -1;
    }
    ck_assert_int_eq(MPI_Type_vector(NB, 1, 2, MPI_INT, &t), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Type_commit(&t), MPI_SUCCESS);
    pos = 0;
    ck_assert_int_eq(MPI_Pack(src, 1, t, packed, NB * (int)sizeof(int), &pos,
                              MPI_COMM_WORLD), MPI_SUCCESS);
    ck_assert_int_eq(pos, NB * (int)sizeof(int));
    for (i = 0; i < NB; i++) {
        ck_assert_int_eq(packed[i], src[2 * i]);
    }
    pos = 0;
    ck_assert_int_eq(MPI_Unpack(packed, NB * (int)sizeof(int), &pos, dst, 1,
                                t, MPI_COMM_WORLD), MPI_SUCCESS);
    for (i = 0; i < 2 * NB; i++) {
        ck_assert_int_eq(dst[i], (i % 2 == 0) ? src[i] : -1);
    }
    /* A truncated message: the first 1001 ints and a part of the next. */
    for (i = 0; i < 2 * NB; i++) {
        dst[i] = -1;
    }
    gcm_mpi_type_unpack(t, 1, packed, 1001 * sizeof(int) + 2, dst);
    for (i = 0; i < 2004; i++) {
        if (i % 2 == 1) {
            ck_assert_int_eq(dst[i], -1);
        } else if (i < 2002) {
            ck_assert_int_eq(dst[i], src[i]);
        }
    }
    ck_assert_int_eq(dst[2004], -1);
    st.gcm_count = 1001 * sizeof(int) + 2;
    ck_assert_int_eq(MPI_Get_elements_x(&st, t, &n), MPI_SUCCESS);
    ck_assert_int_eq(n, 1001);
    st.gcm_count = (NB - 3) * (MPI_Count)sizeof(int);
    ck_assert_int_eq(MPI_Get_elements_x(&st, t, &n), MPI_SUCCESS);
    ck_assert_int_eq(n, NB - 3);
    ck_assert_int_eq(MPI_Type_free(&t), MPI_SUCCESS);
    free(src);
    free(dst);
    free(packed);
}
END_TEST

/* A walked type of a child with holes: many elements of a struct, then a
 * vector of them. */
START_TEST(test_walked_nested)
{
    typedef struct { char c; double d; int i; } item_t;
    int bl[3] = { 1, 1, 1 };
    MPI_Aint disp[3] = { offsetof(item_t, c), offsetof(item_t, d),
                         offsetof(item_t, i) };
    MPI_Datatype types[3] = { MPI_CHAR, MPI_DOUBLE, MPI_INT };
    MPI_Datatype s, v;
    enum { N = NB / 2 };   /* 3 blocks each: walked */
    item_t *src = calloc(2 * N, sizeof(item_t));
    item_t *dst = calloc(2 * N, sizeof(item_t));
    char *packed = malloc((size_t)N * 13), *p;
    int i, pos = 0, size;

    ck_assert_ptr_nonnull(src);
    ck_assert_ptr_nonnull(dst);
    ck_assert_ptr_nonnull(packed);
    for (i = 0; i < 2 * N; i++) {
        src[i].c = (char)i;
        src[i].d = i * 0.5;
        src[i].i = -i;
    }
    ck_assert_int_eq(MPI_Type_create_struct(3, bl, disp, types, &s),
                     MPI_SUCCESS);
    ck_assert_int_eq(MPI_Type_vector(N, 1, 2, s, &v), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Type_commit(&v), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Pack_size(1, v, MPI_COMM_WORLD, &size),
                     MPI_SUCCESS);
    ck_assert_int_eq(size, N * 13);
    ck_assert_int_eq(MPI_Pack(src, 1, v, packed, size, &pos, MPI_COMM_WORLD),
                     MPI_SUCCESS);
    for (i = 0, p = packed; i < N; i++) {
        char c;
        double d;
        int k;

        memcpy(&c, p, 1);
        memcpy(&d, p + 1, 8);
        memcpy(&k, p + 9, 4);
        p += 13;
        ck_assert_int_eq(c, (char)(2 * i));
        ck_assert(d == 2 * i * 0.5);
        ck_assert_int_eq(k, -2 * i);
    }
    pos = 0;
    ck_assert_int_eq(MPI_Unpack(packed, size, &pos, dst, 1, v,
                                MPI_COMM_WORLD), MPI_SUCCESS);
    for (i = 0; i < 2 * N; i += 2) {
        ck_assert_int_eq(dst[i].c, src[i].c);
        ck_assert(dst[i].d == src[i].d);
        ck_assert_int_eq(dst[i].i, src[i].i);
        ck_assert_int_eq(dst[i + 1].i, 0);
    }
    ck_assert_int_eq(MPI_Type_free(&v), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Type_free(&s), MPI_SUCCESS);
    free(src);
    free(dst);
    free(packed);
}
END_TEST

/* ---- distributed arrays ---------------------------------------------------- */

/* The process coordinate that owns global index g of a dimension, and
 * whether it does (the standard's block and cyclic distributions). */
static int owner(int g, int gsize, int distrib, int darg, int psize)
{
    int b;

    switch (distrib) {
    case MPI_DISTRIBUTE_BLOCK:
        b = (darg == MPI_DISTRIBUTE_DFLT_DARG) ?
            (gsize + psize - 1) / psize : darg;
        return g / b;
    case MPI_DISTRIBUTE_CYCLIC:
        b = (darg == MPI_DISTRIBUTE_DFLT_DARG) ? 1 : darg;
        return (g / b) % psize;
    default:
        return 0;
    }
}

/*
 * For every rank of a 2-D grid: packs the global array (element (i, j)
 * holds its global index) with the darray type and checks that it gives,
 * in order, exactly the elements the rank owns, rows in the array's order
 * (row-major for C, column-major for Fortran).
 */
static void check_darray(const int gsizes[2], const int distribs[2],
                         const int dargs[2], const int psizes[2], int order)
{
    int size = psizes[0] * psizes[1];
    int n = gsizes[0] * gsizes[1];
    int *global = malloc((size_t)n * sizeof(int));
    int *packed = malloc((size_t)n * sizeof(int));
    int rank, i, j, k, pos, bytes, expect;
    MPI_Datatype t;
    MPI_Aint lb, ext;

    ck_assert_ptr_nonnull(global);
    ck_assert_ptr_nonnull(packed);
    for (i = 0; i < gsizes[0]; i++) {
        for (j = 0; j < gsizes[1]; j++) {
            int at = (order == MPI_ORDER_C) ? i * gsizes[1] + j :
                     j * gsizes[0] + i;

            global[at] = i * 1000 + j;
        }
    }
    for (rank = 0; rank < size; rank++) {
        int c0 = rank / psizes[1], c1 = rank % psizes[1];

        ck_assert_int_eq(MPI_Type_create_darray(size, rank, 2, gsizes,
                                                distribs, dargs, psizes,
                                                order, MPI_INT, &t),
                         MPI_SUCCESS);
        ck_assert_int_eq(MPI_Type_commit(&t), MPI_SUCCESS);
        ck_assert_int_eq(MPI_Type_get_extent(t, &lb, &ext), MPI_SUCCESS);
        ck_assert_int_eq(lb, 0);
        ck_assert_int_eq(ext, (MPI_Aint)n * (MPI_Aint)sizeof(int));
        pos = 0;
        ck_assert_int_eq(MPI_Pack_size(1, t, MPI_COMM_WORLD, &bytes),
                         MPI_SUCCESS);
        ck_assert_int_eq(MPI_Pack(global, 1, t, packed, n * 4, &pos,
                                  MPI_COMM_WORLD), MPI_SUCCESS);
        k = 0;
        for (i = 0; i < ((order == MPI_ORDER_C) ? gsizes[0] : gsizes[1]);
             i++) {
            for (j = 0; j < ((order == MPI_ORDER_C) ? gsizes[1] : gsizes[0]);
                 j++) {
                int gi = (order == MPI_ORDER_C) ? i : j;
                int gj = (order == MPI_ORDER_C) ? j : i;

                if (owner(gi, gsizes[0], distribs[0], dargs[0],
                          psizes[0]) != c0 ||
                    owner(gj, gsizes[1], distribs[1], dargs[1],
                          psizes[1]) != c1) {
                    continue;
                }
                expect = gi * 1000 + gj;
                ck_assert_msg(k * 4 < bytes, "rank %d: more elements "
                              "owned than packed", rank);
                ck_assert_msg(packed[k] == expect, "rank %d element %d: "
                              "%d, expected %d", rank, k, packed[k], expect);
                k++;
            }
        }
        ck_assert_int_eq(k * 4, bytes);
        ck_assert_int_eq(MPI_Type_free(&t), MPI_SUCCESS);
    }
    free(global);
    free(packed);
}

START_TEST(test_darray_distributions)
{
    static const int d = MPI_DISTRIBUTE_DFLT_DARG;
    const int g1[2] = { 7, 10 }, p1[2] = { 2, 3 };
    const int bb[2] = { MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_BLOCK };
    const int cc[2] = { MPI_DISTRIBUTE_CYCLIC, MPI_DISTRIBUTE_CYCLIC };
    const int bc[2] = { MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_CYCLIC };
    const int nc[2] = { MPI_DISTRIBUTE_NONE, MPI_DISTRIBUTE_CYCLIC };
    const int dflt[2] = { d, d }, args[2] = { 3, 2 }, args2[2] = { d, 4 };
    const int p2[2] = { 1, 3 };

    check_darray(g1, bb, dflt, p1, MPI_ORDER_C);
    check_darray(g1, bb, dflt, p1, MPI_ORDER_FORTRAN);
    check_darray(g1, cc, dflt, p1, MPI_ORDER_C);
    check_darray(g1, cc, args, p1, MPI_ORDER_C);
    check_darray(g1, cc, args, p1, MPI_ORDER_FORTRAN);
    check_darray(g1, bc, args2, p1, MPI_ORDER_C);
    check_darray(g1, bb, args2, p1, MPI_ORDER_FORTRAN);
    check_darray(g1, nc, args2, p2, MPI_ORDER_C);
}
END_TEST

START_TEST(test_darray_errors)
{
    const int g[2] = { 4, 4 }, p[2] = { 2, 2 }, p3[2] = { 3, 1 };
    const int bb[2] = { MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_BLOCK };
    const int nb[2] = { MPI_DISTRIBUTE_NONE, MPI_DISTRIBUTE_BLOCK };
    const int bad[2] = { 99, MPI_DISTRIBUTE_BLOCK };
    const int dflt[2] = { MPI_DISTRIBUTE_DFLT_DARG, MPI_DISTRIBUTE_DFLT_DARG };
    const int small[2] = { 1, MPI_DISTRIBUTE_DFLT_DARG };
    MPI_Datatype t = MPI_DATATYPE_NULL;

    ck_assert_int_eq(MPI_Type_create_darray(4, 4, 2, g, bb, dflt, p,
                                            MPI_ORDER_C, MPI_INT, &t),
                     MPI_ERR_ARG);
    ck_assert_int_eq(MPI_Type_create_darray(4, 0, 2, g, bb, dflt, p3,
                                            MPI_ORDER_C, MPI_INT, &t),
                     MPI_ERR_ARG);
    ck_assert_int_eq(MPI_Type_create_darray(4, 0, 2, g, nb, dflt, p,
                                            MPI_ORDER_C, MPI_INT, &t),
                     MPI_ERR_ARG);
    ck_assert_int_eq(MPI_Type_create_darray(4, 0, 2, g, bad, dflt, p,
                                            MPI_ORDER_C, MPI_INT, &t),
                     MPI_ERR_ARG);
    ck_assert_int_eq(MPI_Type_create_darray(4, 0, 2, g, bb, small, p,
                                            MPI_ORDER_C, MPI_INT, &t),
                     MPI_ERR_ARG);
    ck_assert_int_eq(MPI_Type_create_darray(4, 0, 2, g, bb, dflt, p, 7,
                                            MPI_INT, &t), MPI_ERR_ARG);
    ck_assert_ptr_eq(t, MPI_DATATYPE_NULL);
}
END_TEST

/* ---- envelopes and contents ------------------------------------------------- */

/* Rebuilds t from its envelope and contents with its own constructor and
 * checks that the copy describes the same data: size, bounds, signature
 * and the bytes packed from one buffer. Frees the handles the contents
 * gave. */
static void check_round_trip(MPI_Datatype t)
{
    int ni, na, nd, comb, i, pos1 = 0, pos2 = 0, size, rc = MPI_SUCCESS;
    int ints[64];
    MPI_Aint addrs[16], lb1, ext1, lb2, ext2;
    MPI_Datatype types[16], copy = MPI_DATATYPE_NULL;
    static char buf[1 << 16], out1[1 << 16], out2[1 << 16];

    ck_assert_int_eq(MPI_Type_get_envelope(t, &ni, &na, &nd, &comb),
                     MPI_SUCCESS);
    ck_assert_int_le(ni, 64);
    ck_assert_int_le(na, 16);
    ck_assert_int_le(nd, 16);
    ck_assert_int_eq(MPI_Type_get_contents(t, ni, na, nd, ints, addrs,
                                           types), MPI_SUCCESS);
    switch (comb) {
    case MPI_COMBINER_DUP:
        rc = MPI_Type_dup(types[0], &copy);
        break;
    case MPI_COMBINER_CONTIGUOUS:
        rc = MPI_Type_contiguous(ints[0], types[0], &copy);
        break;
    case MPI_COMBINER_VECTOR:
        rc = MPI_Type_vector(ints[0], ints[1], ints[2], types[0], &copy);
        break;
    case MPI_COMBINER_HVECTOR:
        rc = MPI_Type_create_hvector(ints[0], ints[1], addrs[0], types[0],
                                     &copy);
        break;
    case MPI_COMBINER_INDEXED:
        rc = MPI_Type_indexed(ints[0], &ints[1], &ints[1 + ints[0]],
                              types[0], &copy);
        break;
    case MPI_COMBINER_HINDEXED:
        rc = MPI_Type_create_hindexed(ints[0], &ints[1], addrs, types[0],
                                      &copy);
        break;
    case MPI_COMBINER_INDEXED_BLOCK:
        rc = MPI_Type_create_indexed_block(ints[0], ints[1], &ints[2],
                                           types[0], &copy);
        break;
    case MPI_COMBINER_HINDEXED_BLOCK:
        rc = MPI_Type_create_hindexed_block(ints[0], ints[1], addrs,
                                            types[0], &copy);
        break;
    case MPI_COMBINER_STRUCT:
        rc = MPI_Type_create_struct(ints[0], &ints[1], addrs, types, &copy);
        break;
    case MPI_COMBINER_SUBARRAY:
        rc = MPI_Type_create_subarray(ints[0], &ints[1], &ints[1 + ints[0]],
                                      &ints[1 + 2 * ints[0]],
                                      ints[1 + 3 * ints[0]], types[0],
                                      &copy);
        break;
    case MPI_COMBINER_DARRAY:
        rc = MPI_Type_create_darray(ints[0], ints[1], ints[2], &ints[3],
                                    &ints[3 + ints[2]],
                                    &ints[3 + 2 * ints[2]],
                                    &ints[3 + 3 * ints[2]],
                                    ints[3 + 4 * ints[2]], types[0], &copy);
        break;
    case MPI_COMBINER_RESIZED:
        rc = MPI_Type_create_resized(types[0], addrs[0], addrs[1], &copy);
        break;
    default:
        ck_abort_msg("combiner %d", comb);
    }
    ck_assert_int_eq(rc, MPI_SUCCESS);
    ck_assert_int_eq(MPI_Type_commit(&copy), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Type_get_extent(t, &lb1, &ext1), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Type_get_extent(copy, &lb2, &ext2), MPI_SUCCESS);
    ck_assert_int_eq(lb1, lb2);
    ck_assert_int_eq(ext1, ext2);
    ck_assert(gcm_mpi_type_sig(t, 1, NULL) == gcm_mpi_type_sig(copy, 1, NULL));
    ck_assert_int_eq(MPI_Pack_size(1, t, MPI_COMM_WORLD, &size), MPI_SUCCESS);
    ck_assert_int_lt(size, (int)sizeof(out1));
    for (i = 0; i < (int)sizeof(buf); i++) {
        buf[i] = (char)(i * 7 + 3);
    }
    ck_assert_int_eq(MPI_Pack(buf + 4096, 1, t, out1, sizeof(out1), &pos1,
                              MPI_COMM_WORLD), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Pack(buf + 4096, 1, copy, out2, sizeof(out2), &pos2,
                              MPI_COMM_WORLD), MPI_SUCCESS);
    ck_assert_int_eq(pos1, pos2);
    ck_assert(memcmp(out1, out2, (size_t)pos1) == 0);
    ck_assert_int_eq(MPI_Type_free(&copy), MPI_SUCCESS);
    for (i = 0; i < nd; i++) {
        if (!gcm_mpi_type_is_predefined(types[i])) {
            ck_assert_int_eq(MPI_Type_free(&types[i]), MPI_SUCCESS);
        }
    }
}

START_TEST(test_contents_round_trip_every_constructor)
{
    int bl[3] = { 2, 1, 3 }, disp[3] = { 5, 0, 9 }, sizes[3] = { 4, 5, 6 };
    int sub[3] = { 2, 3, 2 }, starts[3] = { 1, 2, 3 };
    int gs[2] = { 6, 9 }, ps[2] = { 2, 2 };
    int dist[2] = { MPI_DISTRIBUTE_CYCLIC, MPI_DISTRIBUTE_BLOCK };
    int dargs[2] = { 2, MPI_DISTRIBUTE_DFLT_DARG };
    MPI_Aint hdisp[3] = { 40, 0, 72 };
    MPI_Datatype tys[3] = { MPI_INT, MPI_DOUBLE, MPI_SHORT_INT };
    MPI_Datatype base, t[12];
    int i, n = 0, ni, na, nd, comb;

    ck_assert_int_eq(MPI_Type_vector(2, 1, 3, MPI_SHORT, &base), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Type_dup(base, &t[n++]), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Type_contiguous(3, base, &t[n++]), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Type_vector(3, 2, -4, base, &t[n++]), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Type_create_hvector(3, 2, 50, base, &t[n++]),
                     MPI_SUCCESS);
    ck_assert_int_eq(MPI_Type_indexed(3, bl, disp, base, &t[n++]),
                     MPI_SUCCESS);
    ck_assert_int_eq(MPI_Type_create_hindexed(3, bl, hdisp, base, &t[n++]),
                     MPI_SUCCESS);
    ck_assert_int_eq(MPI_Type_create_indexed_block(3, 2, disp, base, &t[n++]),
                     MPI_SUCCESS);
    ck_assert_int_eq(MPI_Type_create_hindexed_block(3, 2, hdisp, base,
                                                    &t[n++]), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Type_create_struct(3, bl, hdisp, tys, &t[n++]),
                     MPI_SUCCESS);
    ck_assert_int_eq(MPI_Type_create_subarray(3, sizes, sub, starts,
                                              MPI_ORDER_FORTRAN, MPI_INT,
                                              &t[n++]), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Type_create_darray(4, 3, 2, gs, dist, dargs, ps,
                                            MPI_ORDER_C, MPI_INT, &t[n++]),
                     MPI_SUCCESS);
    ck_assert_int_eq(MPI_Type_create_resized(base, -8, 100, &t[n++]),
                     MPI_SUCCESS);
    /* The program's own handle to the base goes first: the contents still
     * hand it out, and it works until those handles are freed too. */
    ck_assert_int_eq(MPI_Type_free(&base), MPI_SUCCESS);
    for (i = 0; i < n; i++) {
        ck_assert_int_eq(MPI_Type_commit(&t[i]), MPI_SUCCESS);
        check_round_trip(t[i]);
        ck_assert_int_eq(MPI_Type_free(&t[i]), MPI_SUCCESS);
    }
    /* Named types have an envelope but no contents. */
    ck_assert_int_eq(MPI_Type_get_envelope(MPI_INT, &ni, &na, &nd, &comb),
                     MPI_SUCCESS);
    ck_assert_int_eq(comb, MPI_COMBINER_NAMED);
    ck_assert_int_eq(ni + na + nd, 0);
    ck_assert_int_eq(MPI_Type_get_contents(MPI_INT, 0, 0, 0, NULL, NULL,
                                           NULL), MPI_ERR_TYPE);
}
END_TEST

START_TEST(test_contents_errors_and_extent_x)
{
    MPI_Datatype t, out[1];
    MPI_Count lb, ext;
    int ints[3];

    ck_assert_int_eq(MPI_Type_vector(3, 2, 5, MPI_DOUBLE, &t), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Type_get_contents(t, 2, 0, 1, ints, NULL, out),
                     MPI_ERR_ARG);
    ck_assert_int_eq(MPI_Type_get_contents(t, 3, 0, 1, NULL, NULL, out),
                     MPI_ERR_ARG);
    ck_assert_int_eq(MPI_Type_get_extent_x(t, &lb, &ext), MPI_SUCCESS);
    ck_assert_int_eq(lb, 0);
    ck_assert_int_eq(ext, (2 * 5 + 2) * 8);
    ck_assert_int_eq(MPI_Type_get_true_extent_x(t, &lb, &ext), MPI_SUCCESS);
    ck_assert_int_eq(ext, (2 * 5 + 2) * 8);
    ck_assert_int_eq(MPI_Type_get_extent_x(t, NULL, &ext), MPI_ERR_ARG);
    ck_assert_int_eq(MPI_Type_free(&t), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Type_get_extent_x(t, &lb, &ext), MPI_ERR_TYPE);
    /* Sizes beyond an int (MPI_Type_get_extent_x is there for them). */
    ck_assert_int_eq(MPI_Type_vector(INT_MAX, 1, 2, MPI_DOUBLE, &t),
                     MPI_SUCCESS);
    ck_assert_int_eq(MPI_Type_get_extent_x(t, &lb, &ext), MPI_SUCCESS);
    ck_assert_int_eq(ext, ((MPI_Count)INT_MAX * 2 - 1) * 8);
    ck_assert_int_eq(MPI_Type_free(&t), MPI_SUCCESS);
}
END_TEST

/* ---- external32 ---------------------------------------------------------- */

START_TEST(test_external32)
{
    struct { short s; int i; double d; long double ld; char c; } in, back;
    int bl[5] = { 1, 1, 1, 1, 1 };
    MPI_Aint disp[5] = { offsetof(__typeof__(in), s),
                         offsetof(__typeof__(in), i),
                         offsetof(__typeof__(in), d),
                         offsetof(__typeof__(in), ld),
                         offsetof(__typeof__(in), c) };
    MPI_Datatype tys[5] = { MPI_SHORT, MPI_INT, MPI_DOUBLE, MPI_LONG_DOUBLE,
                            MPI_CHAR };
    static const unsigned char one_quad[16] = { 0x3f, 0xff, 0, 0, 0, 0, 0, 0,
                                                0, 0, 0, 0, 0, 0, 0, 0 };
    static const unsigned char minus_1p5[16] = { 0xbf, 0xff, 0x80 };
    unsigned char x[64];
    MPI_Datatype t;
    MPI_Aint pos = 0, size = 0;
    long double ld = 1.0L;

    memset(&in, 0, sizeof(in));
    in.s = 0x0102;
    in.i = 0x03040506;
    in.d = 1.0;
    in.ld = -1.5L;
    in.c = 'z';
    ck_assert_int_eq(MPI_Type_create_struct(5, bl, disp, tys, &t),
                     MPI_SUCCESS);
    ck_assert_int_eq(MPI_Type_commit(&t), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Pack_external_size("external32", 1, t, &size),
                     MPI_SUCCESS);
    ck_assert_int_eq(size, 2 + 4 + 8 + 16 + 1);
    ck_assert_int_eq(MPI_Pack_external("external32", &in, 1, t, x,
                                       sizeof(x), &pos), MPI_SUCCESS);
    ck_assert_int_eq(pos, size);
    /* Big-endian, in type-map order. */
    ck_assert_int_eq(x[0], 0x01);
    ck_assert_int_eq(x[1], 0x02);
    ck_assert_int_eq(x[2], 0x03);
    ck_assert_int_eq(x[5], 0x06);
    ck_assert_int_eq(x[6], 0x3f);
    ck_assert_int_eq(x[7], 0xf0);
    ck_assert_mem_eq(x + 14, minus_1p5, 3);
    ck_assert_int_eq(x[30], 'z');
    memset(&back, 0, sizeof(back));
    pos = 0;
    ck_assert_int_eq(MPI_Unpack_external("external32", x, size, &pos, &back,
                                         1, t), MPI_SUCCESS);
    ck_assert_int_eq(back.s, in.s);
    ck_assert_int_eq(back.i, in.i);
    ck_assert(back.d == in.d);
    ck_assert(back.ld == in.ld);
    ck_assert_int_eq(back.c, in.c);
    /* long double 1.0 is IEEE quadruple 0x3fff 0000 ... */
    pos = 0;
    ck_assert_int_eq(MPI_Pack_external("external32", &ld, 1, MPI_LONG_DOUBLE,
                                       x, sizeof(x), &pos), MPI_SUCCESS);
    ck_assert_mem_eq(x, one_quad, 16);
    /* Pairs are their two parts. */
    ck_assert_int_eq(MPI_Pack_external_size("external32", 3, MPI_DOUBLE_INT,
                                            &size), MPI_SUCCESS);
    ck_assert_int_eq(size, 3 * 12);
    /* Bad representation, no room, NULL position. */
    ck_assert_int_eq(MPI_Pack_external("native", &in, 1, t, x, sizeof(x),
                                       &pos), MPI_ERR_ARG);
    pos = 60;
    ck_assert_int_eq(MPI_Pack_external("external32", &in, 1, t, x,
                                       sizeof(x), &pos), MPI_ERR_TRUNCATE);
    ck_assert_int_eq(MPI_Pack_external("external32", &in, 1, t, x,
                                       sizeof(x), NULL), MPI_ERR_ARG);
    ck_assert_int_eq(MPI_Type_free(&t), MPI_SUCCESS);
}
END_TEST

static Suite *make_suite(void)
{
    const TTest *big[] = {test_huge_vectors_cost_their_description,
        test_walked_vector, test_walked_nested, NULL};
    const TTest *calls[] = {test_darray_distributions, test_darray_errors,
        test_contents_round_trip_every_constructor,
        test_contents_errors_and_extent_x, test_external32, NULL};
    const struct gcm_check_case cases[] = {
        {"descriptions", .tests = big, .timeout = 60},
        {"calls", .tests = calls, .timeout = 60},
        {0},
    };

    return gcm_check_suite("mpi_type_desc", cases);
}
