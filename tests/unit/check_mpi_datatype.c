/*
 * tests/unit/check_mpi_datatype.c: MPI datatypes: sizes, bounds and true
 * bounds of every constructor (checked against the C compiler's layout of
 * equivalent structs), pack/unpack against hand-written loops, element
 * counts, reference counting, envelopes, names and refused input. No
 * runtime is started: datatypes need none. This file: predefined types
 * and the constructors, and the suite; pack and unpack, counts,
 * signatures, reference counting, names and refused input:
 * check_mpi_datatype_data.c.
 */
#include "config.h"

#include "compat/mpi_impl.h"
#include "check_main.h"
#include "check_mpi_datatype.h"

#include <limits.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#ifndef MPI_COMBINER_HINDEXED_BLOCK
#define MPI_COMBINER_HINDEXED_BLOCK 11
#endif

/* mpi.h lists these in its X-list but does not define the macros. */
#define T_CNAME    (&gcm_mpi_type_cname)
#define T_SLOTNAME (&gcm_mpi_type_slotname)

void gcm_check_dt_bounds(MPI_Datatype t, MPI_Count size, MPI_Aint lb,
                         MPI_Aint extent, MPI_Aint true_lb,
                         MPI_Aint true_extent)
{
    MPI_Count sz;
    MPI_Aint a, b;

    ck_assert_int_eq(MPI_Type_size_x(t, &sz), MPI_SUCCESS);
    ck_assert_int_eq(sz, size);
    ck_assert_int_eq(MPI_Type_get_extent(t, &a, &b), MPI_SUCCESS);
    ck_assert_int_eq(a, lb);
    ck_assert_int_eq(b, extent);
    ck_assert_int_eq(MPI_Type_get_true_extent(t, &a, &b), MPI_SUCCESS);
    ck_assert_int_eq(a, true_lb);
    ck_assert_int_eq(b, true_extent);
}

static void assert_envelope(MPI_Datatype t, int ni, int na, int nd,
                            int combiner)
{
    int i, a, d, c;

    ck_assert_int_eq(MPI_Type_get_envelope(t, &i, &a, &d, &c), MPI_SUCCESS);
    ck_assert_int_eq(i, ni);
    ck_assert_int_eq(a, na);
    ck_assert_int_eq(d, nd);
    ck_assert_int_eq(c, combiner);
}

void gcm_check_dt_commit(MPI_Datatype *t)
{
    ck_assert_int_eq(MPI_Type_commit(t), MPI_SUCCESS);
}

void gcm_check_dt_free(MPI_Datatype *t)
{
    ck_assert_int_eq(MPI_Type_free(t), MPI_SUCCESS);
    ck_assert(*t == MPI_DATATYPE_NULL);
}

/* Packs count elements with MPI_Pack and checks the bytes and the final
 * position against expect (n bytes). */
static void assert_pack(const void *buf, int count, MPI_Datatype t,
                        const void *expect, int n)
{
    unsigned char out[4096];
    int pos = 0;
    int size;

    ck_assert_int_le(n, (int)sizeof(out));
    ck_assert_int_eq(MPI_Pack_size(count, t, NULL, &size), MPI_SUCCESS);
    ck_assert_int_eq(size, n);
    ck_assert_int_eq(MPI_Pack(buf, count, t, out, (int)sizeof(out), &pos,
                              NULL), MPI_SUCCESS);
    ck_assert_int_eq(pos, n);
    ck_assert(memcmp(out, expect, (size_t)n) == 0);
}

/* ---- predefined types --------------------------------------------------- */

struct p_double_int { double v; int i; };
struct p_short_int { short v; int i; };
struct p_long_double_int { long double v; int i; };
struct p_float_int { float v; int i; };
struct p_long_int { long v; int i; };

START_TEST(test_predefined_sizes_and_bounds)
{
    gcm_check_dt_bounds(MPI_CHAR, 1, 0, 1, 0, 1);
    gcm_check_dt_bounds(MPI_INT, sizeof(int), 0, sizeof(int), 0, sizeof(int));
    gcm_check_dt_bounds(MPI_DOUBLE, 8, 0, 8, 0, 8);
    gcm_check_dt_bounds(MPI_LONG_DOUBLE, sizeof(long double), 0,
                  sizeof(long double), 0, sizeof(long double));
    gcm_check_dt_bounds(MPI_WCHAR, sizeof(wchar_t), 0, sizeof(wchar_t), 0,
                  sizeof(wchar_t));
    gcm_check_dt_bounds(MPI_C_BOOL, sizeof(_Bool), 0, sizeof(_Bool), 0,
                  sizeof(_Bool));
    gcm_check_dt_bounds(MPI_C_DOUBLE_COMPLEX, sizeof(double _Complex), 0,
                  sizeof(double _Complex), 0, sizeof(double _Complex));
    gcm_check_dt_bounds(MPI_AINT, sizeof(MPI_Aint), 0, sizeof(MPI_Aint), 0,
                  sizeof(MPI_Aint));
    gcm_check_dt_bounds(MPI_COUNT, 8, 0, 8, 0, 8);
    gcm_check_dt_bounds(MPI_BYTE, 1, 0, 1, 0, 1);
    gcm_check_dt_bounds(MPI_PACKED, 1, 0, 1, 0, 1);
    gcm_check_dt_bounds(T_CNAME, MPIX_CNAME_SIZE, 0, MPIX_CNAME_SIZE, 0,
                  MPIX_CNAME_SIZE);
    gcm_check_dt_bounds(T_SLOTNAME, MPIX_SLOTNAME_SIZE, 0, MPIX_SLOTNAME_SIZE, 0,
                  MPIX_SLOTNAME_SIZE);
    /* Pairs: the size counts data only, the extent is the C struct's. */
    gcm_check_dt_bounds(MPI_DOUBLE_INT, sizeof(double) + sizeof(int), 0,
                  sizeof(struct p_double_int), 0,
                  offsetof(struct p_double_int, i) + sizeof(int));
    gcm_check_dt_bounds(MPI_SHORT_INT, sizeof(short) + sizeof(int), 0,
                  sizeof(struct p_short_int), 0,
                  offsetof(struct p_short_int, i) + sizeof(int));
    gcm_check_dt_bounds(MPI_LONG_DOUBLE_INT, sizeof(long double) + sizeof(int), 0,
                  sizeof(struct p_long_double_int), 0,
                  offsetof(struct p_long_double_int, i) + sizeof(int));
    gcm_check_dt_bounds(MPI_FLOAT_INT, 8, 0, sizeof(struct p_float_int), 0, 8);
    gcm_check_dt_bounds(MPI_LONG_INT, sizeof(long) + sizeof(int), 0,
                  sizeof(struct p_long_int), 0,
                  offsetof(struct p_long_int, i) + sizeof(int));
    gcm_check_dt_bounds(MPI_2INT, 2 * sizeof(int), 0, 2 * sizeof(int), 0,
                  2 * sizeof(int));
}
END_TEST

/* Every predefined object of the X-list: valid, committed, named after its
 * macro, NAMED, not freeable. */
#define T_CHECK_PREDEFINED(_name, _sym) \
    { \
        MPI_Datatype t = &gcm_mpi_type_##_sym; \
        char name[MPI_MAX_OBJECT_NAME]; \
        int len; \
        ck_assert_int_eq(gcm_mpi_type_check(t), 0); \
        ck_assert_int_gt(gcm_mpi_type_size(t), 0); \
        ck_assert_int_eq(MPI_Type_get_name(t, name, &len), MPI_SUCCESS); \
        ck_assert_str_eq(name, #_name); \
        ck_assert_int_eq(len, (int)strlen(#_name)); \
        assert_envelope(t, 0, 0, 0, MPI_COMBINER_NAMED); \
        ck_assert_int_eq(MPI_Type_commit(&t), MPI_SUCCESS); \
        ck_assert_int_eq(MPI_Type_free(&t), MPI_ERR_TYPE); \
        ck_assert(t == &gcm_mpi_type_##_sym); \
        n++; \
    }

START_TEST(test_predefined_all_valid_named_unfreeable)
{
    int n = 0;

    GCM_MPI_FOREACH_PREDEFINED_TYPE(T_CHECK_PREDEFINED)
    ck_assert_int_eq(n, 40);
    ck_assert_int_eq(MPI_Type_set_name(MPI_INT, "x"), MPI_ERR_TYPE);
}
END_TEST

START_TEST(test_predefined_basic_kinds)
{
    MPI_Count per;

    ck_assert_int_eq(gcm_mpi_type_basic(MPI_INT, &per), GCM_MPI_BASIC_INT);
    ck_assert_int_eq(per, 1);
    ck_assert_int_eq(gcm_mpi_type_basic(MPI_LONG_LONG, &per),
                     GCM_MPI_BASIC_LONG_LONG);
    ck_assert_int_eq(gcm_mpi_type_basic(MPI_BYTE, &per), GCM_MPI_BASIC_BYTE);
    ck_assert_int_eq(gcm_mpi_type_basic(MPI_C_COMPLEX, &per),
                     GCM_MPI_BASIC_C_FLOAT_COMPLEX);
    ck_assert_int_eq(gcm_mpi_type_basic(MPI_DOUBLE_INT, &per),
                     GCM_MPI_BASIC_DOUBLE_INT);
    ck_assert_int_eq(per, 1);
    ck_assert_int_eq(gcm_mpi_type_basic(MPI_2INT, &per), GCM_MPI_BASIC_2INT);
    ck_assert_int_eq(gcm_mpi_type_basic(MPI_PACKED, &per),
                     GCM_MPI_BASIC_NONE);
    ck_assert_int_eq(gcm_mpi_type_basic(T_CNAME, &per), GCM_MPI_BASIC_NONE);
    ck_assert_int_eq(gcm_mpi_type_basic(T_SLOTNAME, &per),
                     GCM_MPI_BASIC_NONE);
}
END_TEST

START_TEST(test_predefined_pair_packs_without_hole)
{
    struct p_short_int in[2], back[2];
    unsigned char out[64], expect[12];
    int pos = 0;

    memset(in, 0x5a, sizeof(in));
    memset(back, 0, sizeof(back));
    in[0].v = 1;
    in[0].i = 2;
    in[1].v = 3;
    in[1].i = 4;
    memcpy(&expect[0], &in[0].v, 2);
    memcpy(&expect[2], &in[0].i, 4);
    memcpy(&expect[6], &in[1].v, 2);
    memcpy(&expect[8], &in[1].i, 4);
    ck_assert_int_eq(MPI_Pack(in, 2, MPI_SHORT_INT, out, sizeof(out), &pos,
                              NULL), MPI_SUCCESS);
    ck_assert_int_eq(pos, 12);
    ck_assert(memcmp(out, expect, 12) == 0);
    pos = 0;
    ck_assert_int_eq(MPI_Unpack(out, 12, &pos, back, 2, MPI_SHORT_INT,
                                NULL), MPI_SUCCESS);
    ck_assert_int_eq(back[0].v, 1);
    ck_assert_int_eq(back[0].i, 2);
    ck_assert_int_eq(back[1].v, 3);
    ck_assert_int_eq(back[1].i, 4);
}
END_TEST

/* ---- constructors ------------------------------------------------------- */

START_TEST(test_contiguous)
{
    MPI_Datatype t, z;
    MPI_Count per;
    int a[5] = { 1, 2, 3, 4, 5 };
    const void *start;

    ck_assert_int_eq(MPI_Type_contiguous(5, MPI_INT, &t), MPI_SUCCESS);
    gcm_check_dt_bounds(t, 20, 0, 20, 0, 20);
    assert_envelope(t, 1, 0, 1, MPI_COMBINER_CONTIGUOUS);
    ck_assert_int_eq(gcm_mpi_type_basic(t, &per), GCM_MPI_BASIC_INT);
    ck_assert_int_eq(per, 5);
    gcm_check_dt_commit(&t);
    ck_assert(gcm_mpi_type_is_contiguous(t, 3, a, &start));
    ck_assert(start == (const void *)a);
    assert_pack(a, 1, t, a, 20);
    gcm_check_dt_free(&t);

    /* Zero count: an empty type, legal everywhere. */
    ck_assert_int_eq(MPI_Type_contiguous(0, MPI_DOUBLE, &z), MPI_SUCCESS);
    gcm_check_dt_bounds(z, 0, 0, 0, 0, 0);
    gcm_check_dt_commit(&z);
    assert_pack(a, 3, z, a, 0);
    gcm_check_dt_free(&z);
}
END_TEST

START_TEST(test_vector_and_negative_stride)
{
    MPI_Datatype t, n;
    MPI_Count per;
    double d[40], expect[6];
    int v[9], ev[3];
    int i, j, k = 0;

    for (i = 0; i < 40; i++) {
        d[i] = i;
    }
    /* 3 blocks of 2 doubles, 4 doubles apart. */
    ck_assert_int_eq(MPI_Type_vector(3, 2, 4, MPI_DOUBLE, &t), MPI_SUCCESS);
    gcm_check_dt_bounds(t, 48, 0, 80, 0, 80);
    assert_envelope(t, 3, 0, 1, MPI_COMBINER_VECTOR);
    ck_assert_int_eq(gcm_mpi_type_basic(t, &per), GCM_MPI_BASIC_DOUBLE);
    ck_assert_int_eq(per, 6);
    gcm_check_dt_commit(&t);
    ck_assert(!gcm_mpi_type_is_contiguous(t, 1, d, NULL));
    for (i = 0; i < 3; i++) {
        for (j = 0; j < 2; j++) {
            expect[k++] = d[4 * i + j];
        }
    }
    assert_pack(d, 1, t, expect, 48);
    gcm_check_dt_free(&t);

    /* Negative stride: blocks go down in memory, lb is negative. */
    for (i = 0; i < 9; i++) {
        v[i] = 100 + i;
    }
    ck_assert_int_eq(MPI_Type_vector(3, 1, -2, MPI_INT, &n), MPI_SUCCESS);
    gcm_check_dt_bounds(n, 12, -16, 20, -16, 20);
    gcm_check_dt_commit(&n);
    ev[0] = v[6];
    ev[1] = v[4];
    ev[2] = v[2];
    assert_pack(&v[6], 1, n, ev, 12);
    gcm_check_dt_free(&n);
}
END_TEST

START_TEST(test_hvector)
{
    struct rec { int key; char pad[12]; } r[4];
    MPI_Datatype t;
    int expect[4];
    int i;

    for (i = 0; i < 4; i++) {
        r[i].key = 7 * i;
        expect[i] = 7 * i;
    }
    ck_assert_int_eq(MPI_Type_create_hvector(4, 1, sizeof(struct rec),
                                             MPI_INT, &t), MPI_SUCCESS);
    gcm_check_dt_bounds(t, 16, 0, 3 * sizeof(struct rec) + 4, 0,
                  3 * sizeof(struct rec) + 4);
    assert_envelope(t, 2, 1, 1, MPI_COMBINER_HVECTOR);
    gcm_check_dt_commit(&t);
    assert_pack(r, 1, t, expect, 16);
    gcm_check_dt_free(&t);
}
END_TEST

START_TEST(test_indexed_family_negative_displacements)
{
    static const int bl[3] = { 2, 1, 3 };
    static const int disp[3] = { 5, -2, 0 };
    static const MPI_Aint hdisp[3] = { 20, -8, 0 };
    static const int bdisp[3] = { 4, -3, 1 };
    static const MPI_Aint hbdisp[3] = { 16, -12, 4 };
    int base[20], *a = &base[8];
    int expect[8];
    MPI_Datatype t;
    int i;

    for (i = 0; i < 20; i++) {
        base[i] = i * i;
    }
    /* Type-map order is block order, not address order. */
    expect[0] = a[5];
    expect[1] = a[6];
    expect[2] = a[-2];
    expect[3] = a[0];
    expect[4] = a[1];
    expect[5] = a[2];

    ck_assert_int_eq(MPI_Type_indexed(3, bl, disp, MPI_INT, &t),
                     MPI_SUCCESS);
    gcm_check_dt_bounds(t, 24, -8, 36, -8, 36);
    assert_envelope(t, 7, 0, 1, MPI_COMBINER_INDEXED);
    gcm_check_dt_commit(&t);
    assert_pack(a, 1, t, expect, 24);
    gcm_check_dt_free(&t);

    ck_assert_int_eq(MPI_Type_create_hindexed(3, bl, hdisp, MPI_INT, &t),
                     MPI_SUCCESS);
    gcm_check_dt_bounds(t, 24, -8, 36, -8, 36);
    assert_envelope(t, 4, 3, 1, MPI_COMBINER_HINDEXED);
    gcm_check_dt_commit(&t);
    assert_pack(a, 1, t, expect, 24);
    gcm_check_dt_free(&t);

    expect[0] = a[4];
    expect[1] = a[5];
    expect[2] = a[-3];
    expect[3] = a[-2];
    expect[4] = a[1];
    expect[5] = a[2];
    ck_assert_int_eq(MPI_Type_create_indexed_block(3, 2, bdisp, MPI_INT, &t),
                     MPI_SUCCESS);
    gcm_check_dt_bounds(t, 24, -12, 36, -12, 36);
    assert_envelope(t, 5, 0, 1, MPI_COMBINER_INDEXED_BLOCK);
    gcm_check_dt_commit(&t);
    assert_pack(a, 1, t, expect, 24);
    gcm_check_dt_free(&t);

    ck_assert_int_eq(MPI_Type_create_hindexed_block(3, 2, hbdisp, MPI_INT,
                                                    &t), MPI_SUCCESS);
    gcm_check_dt_bounds(t, 24, -12, 36, -12, 36);
    assert_envelope(t, 2, 3, 1, MPI_COMBINER_HINDEXED_BLOCK);
    gcm_check_dt_commit(&t);
    assert_pack(a, 1, t, expect, 24);
    gcm_check_dt_free(&t);
}
END_TEST

/* ---- struct ------------------------------------------------------------- */

struct s_cd { char c; double d; };
struct s_dc { double d; char c; };
struct s_ics { int i; char c; short s; };
struct s_3i { int a, b, c; };
struct s_ld { char c; long double x; };

START_TEST(test_struct_padding_matches_c)
{
    int bl2[2] = { 1, 1 };
    int bl3[3] = { 1, 1, 1 };
    MPI_Aint d[3];
    MPI_Datatype ty[3];
    MPI_Datatype t;
    MPI_Count per;

    d[0] = offsetof(struct s_cd, c);
    d[1] = offsetof(struct s_cd, d);
    ty[0] = MPI_CHAR;
    ty[1] = MPI_DOUBLE;
    ck_assert_int_eq(MPI_Type_create_struct(2, bl2, d, ty, &t), MPI_SUCCESS);
    gcm_check_dt_bounds(t, 9, 0, sizeof(struct s_cd), 0, sizeof(struct s_cd));
    assert_envelope(t, 3, 2, 2, MPI_COMBINER_STRUCT);
    ck_assert_int_eq(gcm_mpi_type_basic(t, &per), GCM_MPI_BASIC_NONE);
    gcm_check_dt_free(&t);

    /* Trailing padding: the extent is rounded up, the true extent not. */
    d[0] = offsetof(struct s_dc, d);
    d[1] = offsetof(struct s_dc, c);
    ty[0] = MPI_DOUBLE;
    ty[1] = MPI_CHAR;
    ck_assert_int_eq(MPI_Type_create_struct(2, bl2, d, ty, &t), MPI_SUCCESS);
    gcm_check_dt_bounds(t, 9, 0, sizeof(struct s_dc), 0,
                  offsetof(struct s_dc, c) + 1);
    gcm_check_dt_free(&t);

    d[0] = offsetof(struct s_ics, i);
    d[1] = offsetof(struct s_ics, c);
    d[2] = offsetof(struct s_ics, s);
    ty[0] = MPI_INT;
    ty[1] = MPI_CHAR;
    ty[2] = MPI_SHORT;
    ck_assert_int_eq(MPI_Type_create_struct(3, bl3, d, ty, &t), MPI_SUCCESS);
    gcm_check_dt_bounds(t, 7, 0, sizeof(struct s_ics), 0, sizeof(struct s_ics));
    gcm_check_dt_free(&t);

    d[0] = offsetof(struct s_ld, c);
    d[1] = offsetof(struct s_ld, x);
    ty[0] = MPI_CHAR;
    ty[1] = MPI_LONG_DOUBLE;
    ck_assert_int_eq(MPI_Type_create_struct(2, bl2, d, ty, &t), MPI_SUCCESS);
    gcm_check_dt_bounds(t, 1 + sizeof(long double), 0, sizeof(struct s_ld), 0,
                  sizeof(struct s_ld));
    gcm_check_dt_free(&t);

    /* A struct of three ints is a homogeneous sequence of INT. */
    d[0] = offsetof(struct s_3i, a);
    d[1] = offsetof(struct s_3i, b);
    d[2] = offsetof(struct s_3i, c);
    ty[0] = ty[1] = ty[2] = MPI_INT;
    ck_assert_int_eq(MPI_Type_create_struct(3, bl3, d, ty, &t), MPI_SUCCESS);
    gcm_check_dt_bounds(t, 12, 0, sizeof(struct s_3i), 0, 12);
    ck_assert_int_eq(gcm_mpi_type_basic(t, &per), GCM_MPI_BASIC_INT);
    ck_assert_int_eq(per, 3);
    gcm_check_dt_commit(&t);
    ck_assert(gcm_mpi_type_is_contiguous(t, 4, d, NULL));
    gcm_check_dt_free(&t);
}
END_TEST

START_TEST(test_struct_from_addresses)
{
    struct s_dc arr[3];
    MPI_Aint base, a1, a2;
    MPI_Aint d[2];
    int bl[2] = { 1, 1 };
    MPI_Datatype ty[2] = { MPI_DOUBLE, MPI_CHAR };
    MPI_Datatype t;
    unsigned char out[64];
    int pos = 0;
    int i;

    memset(arr, 0, sizeof(arr));
    ck_assert_int_eq(MPI_Get_address(&arr[0], &base), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Get_address(&arr[0].d, &a1), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Get_address(&arr[0].c, &a2), MPI_SUCCESS);
    ck_assert_int_eq(a2 - base, offsetof(struct s_dc, c));
    ck_assert_int_eq(MPI_Get_address(NULL, NULL), MPI_ERR_ARG);
    /* MPI-3.1 4.1.5: displacements as MPI_Aint_diff, addresses back as
     * MPI_Aint_add. */
    d[0] = MPI_Aint_diff(a1, base);
    d[1] = MPI_Aint_diff(a2, base);
    ck_assert_int_eq(d[1], offsetof(struct s_dc, c));
    ck_assert(MPI_Aint_add(base, d[1]) == a2);
    ck_assert(MPI_Aint_diff(base, a2) == -d[1]);
    ck_assert(PMPI_Aint_add(a2, MPI_Aint_diff(base, a2)) == base);
    for (i = 0; i < 3; i++) {
        arr[i].d = 1.5 * i;
        arr[i].c = (char)('a' + i);
    }
    ck_assert_int_eq(MPI_Type_create_struct(2, bl, d, ty, &t), MPI_SUCCESS);
    gcm_check_dt_commit(&t);
    ck_assert_int_eq(MPI_Pack(arr, 3, t, out, sizeof(out), &pos, NULL),
                     MPI_SUCCESS);
    ck_assert_int_eq(pos, 27);
    for (i = 0; i < 3; i++) {
        double v;

        memcpy(&v, &out[9 * i], 8);
        ck_assert(v == 1.5 * i);
        ck_assert_int_eq(out[9 * i + 8], 'a' + i);
    }
    gcm_check_dt_free(&t);
}
END_TEST

/* ---- resized, dup ------------------------------------------------------- */

START_TEST(test_resized)
{
    MPI_Datatype r, c, s;
    int a[12], expect[3];
    int bl[2] = { 1, 1 };
    MPI_Aint d[2] = { 0, 8 };
    MPI_Datatype ty[2];
    int i;

    for (i = 0; i < 12; i++) {
        a[i] = -i;
    }
    ck_assert_int_eq(MPI_Type_create_resized(MPI_INT, -4, 16, &r),
                     MPI_SUCCESS);
    gcm_check_dt_bounds(r, 4, -4, 16, 0, 4);
    assert_envelope(r, 0, 2, 1, MPI_COMBINER_RESIZED);
    /* Copies go one (resized) extent apart. */
    ck_assert_int_eq(MPI_Type_contiguous(2, r, &c), MPI_SUCCESS);
    gcm_check_dt_bounds(c, 8, -4, 32, 0, 20);
    gcm_check_dt_free(&c);
    gcm_check_dt_free(&r);

    ck_assert_int_eq(MPI_Type_create_resized(MPI_INT, 0, 12, &r),
                     MPI_SUCCESS);
    gcm_check_dt_commit(&r);
    for (i = 0; i < 3; i++) {
        expect[i] = a[3 * i];
    }
    /* count > 1 of a stretched type: every third int. */
    assert_pack(a, 3, r, expect, 12);
    ck_assert(gcm_mpi_type_is_contiguous(r, 1, a, NULL));
    ck_assert(!gcm_mpi_type_is_contiguous(r, 2, a, NULL));

    /* Explicit bounds win over struct alignment padding: the extent
     * stays 12, not rounded up to the alignment of double (16). */
    ty[0] = r;
    ty[1] = MPI_DOUBLE;
    d[1] = 4;
    ck_assert_int_eq(MPI_Type_create_struct(2, bl, d, ty, &s), MPI_SUCCESS);
    gcm_check_dt_bounds(s, 12, 0, 12, 0, 12);
    gcm_check_dt_free(&s);
    gcm_check_dt_free(&r);
}
END_TEST

START_TEST(test_dup_keeps_committed_state)
{
    MPI_Datatype v, d, d2;
    MPI_Aint lb, ext, lb2, ext2;
    MPI_Count per;
    char name[MPI_MAX_OBJECT_NAME];
    int len;

    ck_assert_int_eq(MPI_Type_dup(MPI_INT, &d), MPI_SUCCESS);
    assert_envelope(d, 0, 0, 1, MPI_COMBINER_DUP);
    ck_assert_int_eq(gcm_mpi_type_check(d), 0);
    ck_assert_int_eq(gcm_mpi_type_basic(d, &per), GCM_MPI_BASIC_INT);
    ck_assert_int_eq(MPI_Type_get_name(d, name, &len), MPI_SUCCESS);
    ck_assert_int_eq(len, 0);
    gcm_check_dt_free(&d);

    ck_assert_int_eq(MPI_Type_vector(2, 1, 3, MPI_SHORT, &v), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Type_dup(v, &d), MPI_SUCCESS);
    ck_assert_int_eq(gcm_mpi_type_check(d), MPI_ERR_TYPE);
    gcm_check_dt_commit(&v);
    ck_assert_int_eq(MPI_Type_dup(v, &d2), MPI_SUCCESS);
    ck_assert_int_eq(gcm_mpi_type_check(d2), 0);
    ck_assert_int_eq(MPI_Type_get_extent(v, &lb, &ext), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Type_get_extent(d2, &lb2, &ext2), MPI_SUCCESS);
    ck_assert_int_eq(lb, lb2);
    ck_assert_int_eq(ext, ext2);
    gcm_check_dt_free(&d);
    gcm_check_dt_free(&d2);
    gcm_check_dt_free(&v);
}
END_TEST

/* ---- subarray ----------------------------------------------------------- */

START_TEST(test_subarray_c_and_fortran_order)
{
    enum { ROWS = 5, COLS = 7, SR = 2, SC = 3, R0 = 1, C0 = 2 };
    int a[ROWS][COLS], expect[SR * SC], back[ROWS][COLS];
    unsigned char out[256];
    int sizes[2] = { ROWS, COLS }, sub[2] = { SR, SC }, st[2] = { R0, C0 };
    int fsizes[2] = { COLS, ROWS }, fsub[2] = { SC, SR };
    int fst[2] = { C0, R0 };
    MPI_Datatype c, f;
    MPI_Count per;
    int i, j, k = 0, pos;

    for (i = 0; i < ROWS; i++) {
        for (j = 0; j < COLS; j++) {
            a[i][j] = 10 * i + j;
        }
    }
    for (i = R0; i < R0 + SR; i++) {
        for (j = C0; j < C0 + SC; j++) {
            expect[k++] = a[i][j];
        }
    }
    ck_assert_int_eq(MPI_Type_create_subarray(2, sizes, sub, st, MPI_ORDER_C,
                                              MPI_INT, &c), MPI_SUCCESS);
    gcm_check_dt_bounds(c, SR * SC * 4, 0, sizeof(a), (R0 * COLS + C0) * 4,
                  ((SR - 1) * COLS + SC) * 4);
    assert_envelope(c, 8, 0, 1, MPI_COMBINER_SUBARRAY);
    ck_assert_int_eq(gcm_mpi_type_basic(c, &per), GCM_MPI_BASIC_INT);
    ck_assert_int_eq(per, SR * SC);
    gcm_check_dt_commit(&c);
    assert_pack(a, 1, c, expect, (int)sizeof(expect));

    /* The same selection described in Fortran order (dim 0 fastest). */
    ck_assert_int_eq(MPI_Type_create_subarray(2, fsizes, fsub, fst,
                                              MPI_ORDER_FORTRAN, MPI_INT,
                                              &f), MPI_SUCCESS);
    gcm_check_dt_bounds(f, SR * SC * 4, 0, sizeof(a), (R0 * COLS + C0) * 4,
                  ((SR - 1) * COLS + SC) * 4);
    gcm_check_dt_commit(&f);
    assert_pack(a, 1, f, expect, (int)sizeof(expect));

    /* Unpack puts the values back in place, nothing else is touched. */
    memset(back, 0xff, sizeof(back));
    pos = 0;
    ck_assert_int_eq(MPI_Pack(a, 1, f, out, sizeof(out), &pos, NULL),
                     MPI_SUCCESS);
    pos = 0;
    ck_assert_int_eq(MPI_Unpack(out, sizeof(out), &pos, back, 1, c, NULL),
                     MPI_SUCCESS);
    ck_assert_int_eq(pos, SR * SC * 4);
    for (i = 0; i < ROWS; i++) {
        for (j = 0; j < COLS; j++) {
            int in = (i >= R0 && i < R0 + SR && j >= C0 && j < C0 + SC);

            ck_assert_int_eq(back[i][j], in ? a[i][j] : -1);
        }
    }
    gcm_check_dt_free(&c);
    gcm_check_dt_free(&f);
}
END_TEST

START_TEST(test_subarray_3d_of_pairs)
{
    enum { X = 3, Y = 4, Z = 5 };
    struct p_double_int a[X][Y][Z];
    int sizes[3] = { X, Y, Z }, sub[3] = { 2, 2, 3 }, st[3] = { 1, 1, 2 };
    unsigned char expect[12 * 12], out[12 * 12];
    MPI_Datatype t;
    int i, j, k, n = 0, pos = 0;

    memset(a, 0, sizeof(a));
    for (i = 0; i < X; i++) {
        for (j = 0; j < Y; j++) {
            for (k = 0; k < Z; k++) {
                a[i][j][k].v = i * 100 + j * 10 + k;
                a[i][j][k].i = -(i * 100 + j * 10 + k);
            }
        }
    }
    for (i = 1; i < 3; i++) {
        for (j = 1; j < 3; j++) {
            for (k = 2; k < 5; k++) {
                memcpy(&expect[n], &a[i][j][k].v, 8);
                memcpy(&expect[n + 8], &a[i][j][k].i, 4);
                n += 12;
            }
        }
    }
    ck_assert_int_eq(MPI_Type_create_subarray(3, sizes, sub, st, MPI_ORDER_C,
                                              MPI_DOUBLE_INT, &t),
                     MPI_SUCCESS);
    gcm_check_dt_commit(&t);
    ck_assert_int_eq(MPI_Pack(a, 1, t, out, sizeof(out), &pos, NULL),
                     MPI_SUCCESS);
    ck_assert_int_eq(pos, n);
    ck_assert(memcmp(out, expect, (size_t)n) == 0);
    gcm_check_dt_free(&t);
}
END_TEST

static Suite *make_suite(void)
{
    const TTest *pre[] = {test_predefined_sizes_and_bounds,
        test_predefined_all_valid_named_unfreeable, test_predefined_basic_kinds,
        test_predefined_pair_packs_without_hole, NULL};
    const TTest *ctor[] = {test_contiguous, test_vector_and_negative_stride,
        test_hvector, test_indexed_family_negative_displacements,
        test_struct_padding_matches_c, test_struct_from_addresses, test_resized,
        test_dup_keeps_committed_state, test_subarray_c_and_fortran_order,
        test_subarray_3d_of_pairs, NULL};
    const struct gcm_check_case cases[] = {
        {"predefined", .tests = pre},
        {"constructors", .tests = ctor},
        {"pack", .tests = gcm_check_dt_pack_tests()},
        {"lifetime", .tests = gcm_check_dt_life_tests()},
        {0},
    };

    return gcm_check_suite("mpi_datatype", cases);
}
