/*
 * tests/unit/check_mpi_datatype.c: MPI datatypes: sizes, bounds and true
 * bounds of every constructor (checked against the C compiler's layout of
 * equivalent structs), pack/unpack against hand-written loops, element
 * counts, reference counting, envelopes, names and refused input. No
 * runtime is started: datatypes need none.
 */
#include "config.h"

#include "compat/mpi_impl.h"
#include "check_main.h"

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

static void assert_bounds(MPI_Datatype t, MPI_Count size, MPI_Aint lb,
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

static void commit(MPI_Datatype *t)
{
    ck_assert_int_eq(MPI_Type_commit(t), MPI_SUCCESS);
}

static void type_free(MPI_Datatype *t)
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
    assert_bounds(MPI_CHAR, 1, 0, 1, 0, 1);
    assert_bounds(MPI_INT, sizeof(int), 0, sizeof(int), 0, sizeof(int));
    assert_bounds(MPI_DOUBLE, 8, 0, 8, 0, 8);
    assert_bounds(MPI_LONG_DOUBLE, sizeof(long double), 0,
                  sizeof(long double), 0, sizeof(long double));
    assert_bounds(MPI_WCHAR, sizeof(wchar_t), 0, sizeof(wchar_t), 0,
                  sizeof(wchar_t));
    assert_bounds(MPI_C_BOOL, sizeof(_Bool), 0, sizeof(_Bool), 0,
                  sizeof(_Bool));
    assert_bounds(MPI_C_DOUBLE_COMPLEX, sizeof(double _Complex), 0,
                  sizeof(double _Complex), 0, sizeof(double _Complex));
    assert_bounds(MPI_AINT, sizeof(MPI_Aint), 0, sizeof(MPI_Aint), 0,
                  sizeof(MPI_Aint));
    assert_bounds(MPI_COUNT, 8, 0, 8, 0, 8);
    assert_bounds(MPI_BYTE, 1, 0, 1, 0, 1);
    assert_bounds(MPI_PACKED, 1, 0, 1, 0, 1);
    assert_bounds(T_CNAME, MPIX_CNAME_SIZE, 0, MPIX_CNAME_SIZE, 0,
                  MPIX_CNAME_SIZE);
    assert_bounds(T_SLOTNAME, MPIX_SLOTNAME_SIZE, 0, MPIX_SLOTNAME_SIZE, 0,
                  MPIX_SLOTNAME_SIZE);
    /* Pairs: the size counts data only, the extent is the C struct's. */
    assert_bounds(MPI_DOUBLE_INT, sizeof(double) + sizeof(int), 0,
                  sizeof(struct p_double_int), 0,
                  offsetof(struct p_double_int, i) + sizeof(int));
    assert_bounds(MPI_SHORT_INT, sizeof(short) + sizeof(int), 0,
                  sizeof(struct p_short_int), 0,
                  offsetof(struct p_short_int, i) + sizeof(int));
    assert_bounds(MPI_LONG_DOUBLE_INT, sizeof(long double) + sizeof(int), 0,
                  sizeof(struct p_long_double_int), 0,
                  offsetof(struct p_long_double_int, i) + sizeof(int));
    assert_bounds(MPI_FLOAT_INT, 8, 0, sizeof(struct p_float_int), 0, 8);
    assert_bounds(MPI_LONG_INT, sizeof(long) + sizeof(int), 0,
                  sizeof(struct p_long_int), 0,
                  offsetof(struct p_long_int, i) + sizeof(int));
    assert_bounds(MPI_2INT, 2 * sizeof(int), 0, 2 * sizeof(int), 0,
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
    assert_bounds(t, 20, 0, 20, 0, 20);
    assert_envelope(t, 1, 0, 1, MPI_COMBINER_CONTIGUOUS);
    ck_assert_int_eq(gcm_mpi_type_basic(t, &per), GCM_MPI_BASIC_INT);
    ck_assert_int_eq(per, 5);
    commit(&t);
    ck_assert(gcm_mpi_type_is_contiguous(t, 3, a, &start));
    ck_assert(start == (const void *)a);
    assert_pack(a, 1, t, a, 20);
    type_free(&t);

    /* Zero count: an empty type, legal everywhere. */
    ck_assert_int_eq(MPI_Type_contiguous(0, MPI_DOUBLE, &z), MPI_SUCCESS);
    assert_bounds(z, 0, 0, 0, 0, 0);
    commit(&z);
    assert_pack(a, 3, z, a, 0);
    type_free(&z);
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
    assert_bounds(t, 48, 0, 80, 0, 80);
    assert_envelope(t, 3, 0, 1, MPI_COMBINER_VECTOR);
    ck_assert_int_eq(gcm_mpi_type_basic(t, &per), GCM_MPI_BASIC_DOUBLE);
    ck_assert_int_eq(per, 6);
    commit(&t);
    ck_assert(!gcm_mpi_type_is_contiguous(t, 1, d, NULL));
    for (i = 0; i < 3; i++) {
        for (j = 0; j < 2; j++) {
            expect[k++] = d[4 * i + j];
        }
    }
    assert_pack(d, 1, t, expect, 48);
    type_free(&t);

    /* Negative stride: blocks go down in memory, lb is negative. */
    for (i = 0; i < 9; i++) {
        v[i] = 100 + i;
    }
    ck_assert_int_eq(MPI_Type_vector(3, 1, -2, MPI_INT, &n), MPI_SUCCESS);
    assert_bounds(n, 12, -16, 20, -16, 20);
    commit(&n);
    ev[0] = v[6];
    ev[1] = v[4];
    ev[2] = v[2];
    assert_pack(&v[6], 1, n, ev, 12);
    type_free(&n);
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
    assert_bounds(t, 16, 0, 3 * sizeof(struct rec) + 4, 0,
                  3 * sizeof(struct rec) + 4);
    assert_envelope(t, 2, 1, 1, MPI_COMBINER_HVECTOR);
    commit(&t);
    assert_pack(r, 1, t, expect, 16);
    type_free(&t);
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
    assert_bounds(t, 24, -8, 36, -8, 36);
    assert_envelope(t, 7, 0, 1, MPI_COMBINER_INDEXED);
    commit(&t);
    assert_pack(a, 1, t, expect, 24);
    type_free(&t);

    ck_assert_int_eq(MPI_Type_create_hindexed(3, bl, hdisp, MPI_INT, &t),
                     MPI_SUCCESS);
    assert_bounds(t, 24, -8, 36, -8, 36);
    assert_envelope(t, 4, 3, 1, MPI_COMBINER_HINDEXED);
    commit(&t);
    assert_pack(a, 1, t, expect, 24);
    type_free(&t);

    expect[0] = a[4];
    expect[1] = a[5];
    expect[2] = a[-3];
    expect[3] = a[-2];
    expect[4] = a[1];
    expect[5] = a[2];
    ck_assert_int_eq(MPI_Type_create_indexed_block(3, 2, bdisp, MPI_INT, &t),
                     MPI_SUCCESS);
    assert_bounds(t, 24, -12, 36, -12, 36);
    assert_envelope(t, 5, 0, 1, MPI_COMBINER_INDEXED_BLOCK);
    commit(&t);
    assert_pack(a, 1, t, expect, 24);
    type_free(&t);

    ck_assert_int_eq(MPI_Type_create_hindexed_block(3, 2, hbdisp, MPI_INT,
                                                    &t), MPI_SUCCESS);
    assert_bounds(t, 24, -12, 36, -12, 36);
    assert_envelope(t, 2, 3, 1, MPI_COMBINER_HINDEXED_BLOCK);
    commit(&t);
    assert_pack(a, 1, t, expect, 24);
    type_free(&t);
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
    assert_bounds(t, 9, 0, sizeof(struct s_cd), 0, sizeof(struct s_cd));
    assert_envelope(t, 3, 2, 2, MPI_COMBINER_STRUCT);
    ck_assert_int_eq(gcm_mpi_type_basic(t, &per), GCM_MPI_BASIC_NONE);
    type_free(&t);

    /* Trailing padding: the extent is rounded up, the true extent not. */
    d[0] = offsetof(struct s_dc, d);
    d[1] = offsetof(struct s_dc, c);
    ty[0] = MPI_DOUBLE;
    ty[1] = MPI_CHAR;
    ck_assert_int_eq(MPI_Type_create_struct(2, bl2, d, ty, &t), MPI_SUCCESS);
    assert_bounds(t, 9, 0, sizeof(struct s_dc), 0,
                  offsetof(struct s_dc, c) + 1);
    type_free(&t);

    d[0] = offsetof(struct s_ics, i);
    d[1] = offsetof(struct s_ics, c);
    d[2] = offsetof(struct s_ics, s);
    ty[0] = MPI_INT;
    ty[1] = MPI_CHAR;
    ty[2] = MPI_SHORT;
    ck_assert_int_eq(MPI_Type_create_struct(3, bl3, d, ty, &t), MPI_SUCCESS);
    assert_bounds(t, 7, 0, sizeof(struct s_ics), 0, sizeof(struct s_ics));
    type_free(&t);

    d[0] = offsetof(struct s_ld, c);
    d[1] = offsetof(struct s_ld, x);
    ty[0] = MPI_CHAR;
    ty[1] = MPI_LONG_DOUBLE;
    ck_assert_int_eq(MPI_Type_create_struct(2, bl2, d, ty, &t), MPI_SUCCESS);
    assert_bounds(t, 1 + sizeof(long double), 0, sizeof(struct s_ld), 0,
                  sizeof(struct s_ld));
    type_free(&t);

    /* A struct of three ints is a homogeneous sequence of INT. */
    d[0] = offsetof(struct s_3i, a);
    d[1] = offsetof(struct s_3i, b);
    d[2] = offsetof(struct s_3i, c);
    ty[0] = ty[1] = ty[2] = MPI_INT;
    ck_assert_int_eq(MPI_Type_create_struct(3, bl3, d, ty, &t), MPI_SUCCESS);
    assert_bounds(t, 12, 0, sizeof(struct s_3i), 0, 12);
    ck_assert_int_eq(gcm_mpi_type_basic(t, &per), GCM_MPI_BASIC_INT);
    ck_assert_int_eq(per, 3);
    commit(&t);
    ck_assert(gcm_mpi_type_is_contiguous(t, 4, d, NULL));
    type_free(&t);
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
    commit(&t);
    ck_assert_int_eq(MPI_Pack(arr, 3, t, out, sizeof(out), &pos, NULL),
                     MPI_SUCCESS);
    ck_assert_int_eq(pos, 27);
    for (i = 0; i < 3; i++) {
        double v;

        memcpy(&v, &out[9 * i], 8);
        ck_assert(v == 1.5 * i);
        ck_assert_int_eq(out[9 * i + 8], 'a' + i);
    }
    type_free(&t);
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
    assert_bounds(r, 4, -4, 16, 0, 4);
    assert_envelope(r, 0, 2, 1, MPI_COMBINER_RESIZED);
    /* Copies go one (resized) extent apart. */
    ck_assert_int_eq(MPI_Type_contiguous(2, r, &c), MPI_SUCCESS);
    assert_bounds(c, 8, -4, 32, 0, 20);
    type_free(&c);
    type_free(&r);

    ck_assert_int_eq(MPI_Type_create_resized(MPI_INT, 0, 12, &r),
                     MPI_SUCCESS);
    commit(&r);
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
    assert_bounds(s, 12, 0, 12, 0, 12);
    type_free(&s);
    type_free(&r);
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
    type_free(&d);

    ck_assert_int_eq(MPI_Type_vector(2, 1, 3, MPI_SHORT, &v), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Type_dup(v, &d), MPI_SUCCESS);
    ck_assert_int_eq(gcm_mpi_type_check(d), MPI_ERR_TYPE);
    commit(&v);
    ck_assert_int_eq(MPI_Type_dup(v, &d2), MPI_SUCCESS);
    ck_assert_int_eq(gcm_mpi_type_check(d2), 0);
    ck_assert_int_eq(MPI_Type_get_extent(v, &lb, &ext), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Type_get_extent(d2, &lb2, &ext2), MPI_SUCCESS);
    ck_assert_int_eq(lb, lb2);
    ck_assert_int_eq(ext, ext2);
    type_free(&d);
    type_free(&d2);
    type_free(&v);
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
    assert_bounds(c, SR * SC * 4, 0, sizeof(a), (R0 * COLS + C0) * 4,
                  ((SR - 1) * COLS + SC) * 4);
    assert_envelope(c, 8, 0, 1, MPI_COMBINER_SUBARRAY);
    ck_assert_int_eq(gcm_mpi_type_basic(c, &per), GCM_MPI_BASIC_INT);
    ck_assert_int_eq(per, SR * SC);
    commit(&c);
    assert_pack(a, 1, c, expect, (int)sizeof(expect));

    /* The same selection described in Fortran order (dim 0 fastest). */
    ck_assert_int_eq(MPI_Type_create_subarray(2, fsizes, fsub, fst,
                                              MPI_ORDER_FORTRAN, MPI_INT,
                                              &f), MPI_SUCCESS);
    assert_bounds(f, SR * SC * 4, 0, sizeof(a), (R0 * COLS + C0) * 4,
                  ((SR - 1) * COLS + SC) * 4);
    commit(&f);
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
    type_free(&c);
    type_free(&f);
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
    commit(&t);
    ck_assert_int_eq(MPI_Pack(a, 1, t, out, sizeof(out), &pos, NULL),
                     MPI_SUCCESS);
    ck_assert_int_eq(pos, n);
    ck_assert(memcmp(out, expect, (size_t)n) == 0);
    type_free(&t);
}
END_TEST

/* ---- nested types, pack and unpack -------------------------------------- */

struct part {
    int    id;
    double pos[3];
    char   tag;
};

/* A struct type for struct part, whose pos is an indexed type picking
 * pos[0] and pos[2]. */
static MPI_Datatype make_part_type(void)
{
    static const int ibl[2] = { 1, 1 };
    static const int idisp[2] = { 0, 2 };
    int bl[3] = { 1, 1, 1 };
    MPI_Aint d[3] = { offsetof(struct part, id), offsetof(struct part, pos),
                      offsetof(struct part, tag) };
    MPI_Datatype ty[3];
    MPI_Datatype idx, t;

    ck_assert_int_eq(MPI_Type_indexed(2, ibl, idisp, MPI_DOUBLE, &idx),
                     MPI_SUCCESS);
    ty[0] = MPI_INT;
    ty[1] = idx;
    ty[2] = MPI_CHAR;
    ck_assert_int_eq(MPI_Type_create_struct(3, bl, d, ty, &t), MPI_SUCCESS);
    /* The struct keeps idx alive. */
    type_free(&idx);
    return t;
}

START_TEST(test_nested_round_trip)
{
    struct part p[6], back[6];
    unsigned char buf[512];
    MPI_Datatype pt, vec;
    MPI_Aint lb, ext;
    int pos = 0, size, i;

    pt = make_part_type();
    /* Size 4 + 16 + 1; the extent is rounded up to sizeof(struct part). */
    ck_assert_int_eq(MPI_Type_get_extent(pt, &lb, &ext), MPI_SUCCESS);
    ck_assert_int_eq(lb, 0);
    ck_assert_int_eq(ext, sizeof(struct part));
    /* Every other particle, 3 of them. */
    ck_assert_int_eq(MPI_Type_vector(3, 1, 2, pt, &vec), MPI_SUCCESS);
    commit(&vec);
    ck_assert_int_eq(MPI_Type_size(vec, &size), MPI_SUCCESS);
    ck_assert_int_eq(size, 3 * 21);

    memset(p, 0, sizeof(p));
    for (i = 0; i < 6; i++) {
        p[i].id = i + 1;
        p[i].pos[0] = i + 0.25;
        p[i].pos[1] = i + 0.5;
        p[i].pos[2] = i + 0.75;
        p[i].tag = (char)('A' + i);
    }
    ck_assert_int_eq(MPI_Pack(p, 1, vec, buf, sizeof(buf), &pos, NULL),
                     MPI_SUCCESS);
    ck_assert_int_eq(pos, 63);
    /* The first particle starts the stream: id, pos[0], pos[2], tag. */
    {
        int id;
        double x;

        memcpy(&id, &buf[0], 4);
        memcpy(&x, &buf[12], 8);
        ck_assert_int_eq(id, 1);
        ck_assert(x == 0.75);
        ck_assert_int_eq(buf[20], 'A');
    }
    memset(back, 0, sizeof(back));
    pos = 0;
    ck_assert_int_eq(MPI_Unpack(buf, 63, &pos, back, 1, vec, NULL),
                     MPI_SUCCESS);
    ck_assert_int_eq(pos, 63);
    for (i = 0; i < 6; i++) {
        if (i % 2 == 0) {
            ck_assert_int_eq(back[i].id, p[i].id);
            ck_assert(back[i].pos[0] == p[i].pos[0]);
            ck_assert(back[i].pos[1] == 0.0);
            ck_assert(back[i].pos[2] == p[i].pos[2]);
            ck_assert_int_eq(back[i].tag, p[i].tag);
        } else {
            ck_assert_int_eq(back[i].id, 0);
            ck_assert_int_eq(back[i].tag, 0);
        }
    }
    type_free(&vec);
    type_free(&pt);
}
END_TEST

START_TEST(test_partial_unpack)
{
    int src[16];
    int dst[16];
    unsigned char packed[32];
    MPI_Datatype v;
    int i;

    /* 2 blocks of 2 ints, stride 4: element = ints 0,1,4,5. */
    for (i = 0; i < 16; i++) {
        src[i] = i + 1;
    }
    ck_assert_int_eq(MPI_Type_vector(2, 2, 4, MPI_INT, &v), MPI_SUCCESS);
    commit(&v);
    gcm_mpi_type_pack(v, 2, src, packed);
    /* The second element starts one extent (6 ints) further. */
    {
        int e[8];

        memcpy(e, packed, sizeof(e));
        ck_assert_int_eq(e[0], 1);
        ck_assert_int_eq(e[2], 5);
        ck_assert_int_eq(e[4], 7);
        ck_assert_int_eq(e[5], 8);
        ck_assert_int_eq(e[6], 11);
    }
    memset(dst, 0, sizeof(dst));
    /* 22 bytes: 5 whole ints, then 2 bytes of the 6th. */
    gcm_mpi_type_unpack(v, 2, packed, 22, dst);
    ck_assert_int_eq(dst[0], 1);
    ck_assert_int_eq(dst[1], 2);
    ck_assert_int_eq(dst[2], 0);
    ck_assert_int_eq(dst[4], 5);
    ck_assert_int_eq(dst[5], 6);
    ck_assert_int_eq(dst[6], 7);
    ck_assert(memcmp(&dst[7], &packed[20], 2) == 0);
    ck_assert(memcmp((char *)&dst[7] + 2, "\0\0", 2) == 0);
    for (i = 8; i < 16; i++) {
        ck_assert_int_eq(dst[i], 0);
    }
    /* More bytes than count elements hold: only count elements. */
    memset(dst, 0, sizeof(dst));
    gcm_mpi_type_unpack(v, 1, packed, 1000, dst);
    ck_assert_int_eq(dst[5], 6);
    ck_assert_int_eq(dst[6], 0);
    type_free(&v);
}
END_TEST

START_TEST(test_overlapping_unpack_last_wins)
{
    static const int bl[2] = { 1, 1 };
    static const int disp[2] = { 0, 0 };
    int in[2] = { 11, 22 }, out = 0;
    int pos = 0;
    MPI_Datatype t;

    ck_assert_int_eq(MPI_Type_indexed(2, bl, disp, MPI_INT, &t),
                     MPI_SUCCESS);
    commit(&t);
    assert_bounds(t, 8, 0, 4, 0, 4);
    ck_assert_int_eq(MPI_Unpack(in, 8, &pos, &out, 1, t, NULL), MPI_SUCCESS);
    ck_assert_int_eq(out, 22);
    type_free(&t);
}
END_TEST

START_TEST(test_pack_positions_and_truncation)
{
    double d[3] = { 1.0, 2.0, 3.0 }, d2[3];
    int i4[2] = { 7, 9 }, i2[2];
    unsigned char buf[64];
    int pos = 0, size;

    ck_assert_int_eq(MPI_Pack_size(3, MPI_DOUBLE, NULL, &size), MPI_SUCCESS);
    ck_assert_int_eq(size, 24);
    ck_assert_int_eq(MPI_Pack(d, 3, MPI_DOUBLE, buf, 32, &pos, NULL),
                     MPI_SUCCESS);
    ck_assert_int_eq(pos, 24);
    /* 8 bytes left: 2 ints fit exactly, a third double does not. */
    ck_assert_int_eq(MPI_Pack(d, 1, MPI_DOUBLE, buf, 31, &pos, NULL),
                     MPI_ERR_TRUNCATE);
    ck_assert_int_eq(pos, 24);
    ck_assert_int_eq(MPI_Pack(i4, 2, MPI_INT, buf, 32, &pos, NULL),
                     MPI_SUCCESS);
    ck_assert_int_eq(pos, 32);
    ck_assert_int_eq(MPI_Pack(i4, 1, MPI_INT, buf, 32, &pos, NULL),
                     MPI_ERR_TRUNCATE);
    ck_assert_int_eq(MPI_Pack(i4, 0, MPI_INT, buf, 32, &pos, NULL),
                     MPI_SUCCESS);
    ck_assert_int_eq(pos, 32);

    pos = 0;
    ck_assert_int_eq(MPI_Unpack(buf, 32, &pos, d2, 3, MPI_DOUBLE, NULL),
                     MPI_SUCCESS);
    ck_assert_int_eq(pos, 24);
    ck_assert(d2[0] == 1.0 && d2[1] == 2.0 && d2[2] == 3.0);
    ck_assert_int_eq(MPI_Unpack(buf, 32, &pos, i2, 3, MPI_INT, NULL),
                     MPI_ERR_TRUNCATE);
    ck_assert_int_eq(pos, 24);
    ck_assert_int_eq(MPI_Unpack(buf, 32, &pos, i2, 2, MPI_INT, NULL),
                     MPI_SUCCESS);
    ck_assert_int_eq(pos, 32);
    ck_assert_int_eq(i2[0], 7);
    ck_assert_int_eq(i2[1], 9);
    /* A position past the buffer is a truncation too. */
    pos = 40;
    ck_assert_int_eq(MPI_Unpack(buf, 32, &pos, i2, 1, MPI_INT, NULL),
                     MPI_ERR_TRUNCATE);
    /* Pack_size overflowing an int. */
    ck_assert_int_eq(MPI_Pack_size(INT_MAX, MPI_DOUBLE, NULL, &size),
                     MPI_ERR_COUNT);
}
END_TEST

/* ---- counts ------------------------------------------------------------- */

START_TEST(test_get_count_and_elements)
{
    struct s_id { int i; double d; };
    int bl[2] = { 1, 1 };
    MPI_Aint d[2] = { offsetof(struct s_id, i), offsetof(struct s_id, d) };
    MPI_Datatype ty[2] = { MPI_INT, MPI_DOUBLE };
    MPI_Datatype t, v, z;
    MPI_Status st;
    MPI_Count ex;
    int n;

    memset(&st, 0, sizeof(st));
    ck_assert_int_eq(MPI_Type_create_struct(2, bl, d, ty, &t), MPI_SUCCESS);
    commit(&t);
    st.gcm_count = 2 * 12;
    ck_assert_int_eq(MPI_Get_count(&st, t, &n), MPI_SUCCESS);
    ck_assert_int_eq(n, 2);
    ck_assert_int_eq(MPI_Get_elements(&st, t, &n), MPI_SUCCESS);
    ck_assert_int_eq(n, 4);
    /* Two whole elements and the int of a third. */
    st.gcm_count = 2 * 12 + 4;
    ck_assert_int_eq(MPI_Get_count(&st, t, &n), MPI_SUCCESS);
    ck_assert_int_eq(n, MPI_UNDEFINED);
    ck_assert_int_eq(MPI_Get_elements(&st, t, &n), MPI_SUCCESS);
    ck_assert_int_eq(n, 5);
    /* Part of a double does not count. */
    st.gcm_count = 2 * 12 + 10;
    ck_assert_int_eq(MPI_Get_elements_x(&st, t, &ex), MPI_SUCCESS);
    ck_assert_int_eq(ex, 5);
    st.gcm_count = 2;
    ck_assert_int_eq(MPI_Get_elements(&st, t, &n), MPI_SUCCESS);
    ck_assert_int_eq(n, 0);

    /* Nested: vector of 3 structs; 1.5 vectors = 4.5 structs. */
    ck_assert_int_eq(MPI_Type_vector(3, 1, 2, t, &v), MPI_SUCCESS);
    commit(&v);
    st.gcm_count = 36 + 12 + 4;
    ck_assert_int_eq(MPI_Get_count(&st, v, &n), MPI_SUCCESS);
    ck_assert_int_eq(n, MPI_UNDEFINED);
    ck_assert_int_eq(MPI_Get_elements(&st, v, &n), MPI_SUCCESS);
    ck_assert_int_eq(n, 6 + 2 + 1);

    /* Pairs count as two basic elements; the value alone as one. */
    st.gcm_count = 12 + 8;
    ck_assert_int_eq(MPI_Get_elements(&st, MPI_DOUBLE_INT, &n), MPI_SUCCESS);
    ck_assert_int_eq(n, 3);
    ck_assert_int_eq(MPI_Get_count(&st, MPI_DOUBLE_INT, &n), MPI_SUCCESS);
    ck_assert_int_eq(n, MPI_UNDEFINED);
    st.gcm_count = 40;
    ck_assert_int_eq(MPI_Get_count(&st, MPI_DOUBLE, &n), MPI_SUCCESS);
    ck_assert_int_eq(n, 5);

    /* A zero-size type counts zero. */
    ck_assert_int_eq(MPI_Type_contiguous(0, MPI_INT, &z), MPI_SUCCESS);
    commit(&z);
    st.gcm_count = 0;
    ck_assert_int_eq(MPI_Get_count(&st, z, &n), MPI_SUCCESS);
    ck_assert_int_eq(n, 0);
    ck_assert_int_eq(MPI_Get_elements(&st, z, &n), MPI_SUCCESS);
    ck_assert_int_eq(n, 0);

    type_free(&z);
    type_free(&v);
    type_free(&t);
}
END_TEST

/* ---- reference counting ------------------------------------------------- */

START_TEST(test_free_inner_type_keeps_outer_usable)
{
    MPI_Datatype inner, outer, stale;
    int a[16], expect[6], out[6];
    int pos = 0, i;

    for (i = 0; i < 16; i++) {
        a[i] = 3 * i;
    }
    ck_assert_int_eq(MPI_Type_vector(2, 1, 2, MPI_INT, &inner),
                     MPI_SUCCESS);
    ck_assert_int_eq(MPI_Type_contiguous(3, inner, &outer), MPI_SUCCESS);
    stale = inner;
    type_free(&inner);
    /* The stale copy of the handle is refused, not used. */
    ck_assert_int_eq(MPI_Type_commit(&stale), MPI_ERR_TYPE);
    ck_assert_int_eq(MPI_Type_free(&stale), MPI_ERR_TYPE);
    ck_assert_int_eq(MPI_Type_free(&inner), MPI_ERR_TYPE);
    /* outer still works after its part is freed: extent of inner is 3
     * ints, so copies at 0, 3, 6 ints, each ints +0 and +2. */
    commit(&outer);
    assert_bounds(outer, 24, 0, 36, 0, 36);
    for (i = 0; i < 3; i++) {
        expect[2 * i] = a[3 * i];
        expect[2 * i + 1] = a[3 * i + 2];
    }
    ck_assert_int_eq(MPI_Pack(a, 1, outer, out, sizeof(out), &pos, NULL),
                     MPI_SUCCESS);
    ck_assert(memcmp(out, expect, sizeof(out)) == 0);
    type_free(&outer);
}
END_TEST

START_TEST(test_struct_with_repeated_type_refcount)
{
    MPI_Datatype c, s, s2;
    int bl[3] = { 1, 2, 1 };
    MPI_Aint d[3] = { 0, 16, 48 };
    MPI_Datatype ty[3];

    ck_assert_int_eq(MPI_Type_contiguous(2, MPI_INT, &c), MPI_SUCCESS);
    ty[0] = ty[1] = ty[2] = c;
    ck_assert_int_eq(MPI_Type_create_struct(3, bl, d, ty, &s), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Type_dup(s, &s2), MPI_SUCCESS);
    type_free(&c);
    type_free(&s);
    assert_bounds(s2, 32, 0, 56, 0, 56);
    commit(&s2);
    type_free(&s2);
}
END_TEST

static void *churn(void *arg)
{
    MPI_Datatype shared = arg;
    int i;

    for (i = 0; i < 200; i++) {
        MPI_Datatype v, d;

        if (MPI_Type_vector(2, 1, 3, shared, &v) != MPI_SUCCESS ||
            MPI_Type_commit(&v) != MPI_SUCCESS ||
            MPI_Type_dup(v, &d) != MPI_SUCCESS ||
            MPI_Type_free(&v) != MPI_SUCCESS ||
            MPI_Type_free(&d) != MPI_SUCCESS) {
            return (void *)1;
        }
    }
    return NULL;
}

START_TEST(test_threads_share_a_child)
{
    pthread_t th[4];
    MPI_Datatype shared;
    void *res;
    int i;

    ck_assert_int_eq(MPI_Type_contiguous(2, MPI_INT, &shared), MPI_SUCCESS);
    for (i = 0; i < 4; i++) {
        ck_assert_int_eq(pthread_create(&th[i], NULL, churn, shared), 0);
    }
    for (i = 0; i < 4; i++) {
        ck_assert_int_eq(pthread_join(th[i], &res), 0);
        ck_assert(res == NULL);
    }
    assert_bounds(shared, 8, 0, 8, 0, 8);
    type_free(&shared);
}
END_TEST

/* ---- names -------------------------------------------------------------- */

START_TEST(test_names)
{
    char name[MPI_MAX_OBJECT_NAME], longname[300];
    MPI_Datatype t;
    int len;

    ck_assert_int_eq(MPI_Type_get_name(MPI_DOUBLE_INT, name, &len),
                     MPI_SUCCESS);
    ck_assert_str_eq(name, "MPI_DOUBLE_INT");
    ck_assert_int_eq(MPI_Type_get_name(T_CNAME, name, &len), MPI_SUCCESS);
    ck_assert_str_eq(name, "MPIX_CNAME");
    ck_assert_int_eq(MPI_Type_contiguous(2, MPI_INT, &t), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Type_get_name(t, name, &len), MPI_SUCCESS);
    ck_assert_int_eq(len, 0);
    ck_assert_str_eq(name, "");
    ck_assert_int_eq(MPI_Type_set_name(t, "pair of ints"), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Type_get_name(t, name, &len), MPI_SUCCESS);
    ck_assert_str_eq(name, "pair of ints");
    ck_assert_int_eq(len, 12);
    memset(longname, 'x', sizeof(longname) - 1);
    longname[sizeof(longname) - 1] = '\0';
    ck_assert_int_eq(MPI_Type_set_name(t, longname), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Type_get_name(t, name, &len), MPI_SUCCESS);
    ck_assert_int_eq(len, MPI_MAX_OBJECT_NAME - 1);
    ck_assert_int_eq(MPI_Type_set_name(t, NULL), MPI_ERR_ARG);
    ck_assert_int_eq(MPI_Type_get_name(t, NULL, &len), MPI_ERR_ARG);
    ck_assert_int_eq(MPI_Type_get_name(t, name, NULL), MPI_ERR_ARG);
    type_free(&t);
}
END_TEST

/* ---- refused input ------------------------------------------------------ */

START_TEST(test_errors)
{
    static uint64_t junk[64];
    MPI_Datatype bad = (MPI_Datatype)(void *)junk;
    MPI_Datatype t = MPI_DATATYPE_NULL, u;
    int bl[2] = { 1, -1 }, disp[2] = { 0, 1 };
    MPI_Aint ad[2] = { 0, 8 };
    MPI_Datatype ty[2] = { MPI_INT, MPI_DATATYPE_NULL };
    int sizes[2] = { 4, 4 }, sub[2] = { 2, 2 }, st[2] = { 3, 0 };
    MPI_Status status;
    MPI_Aint lb, ext;
    unsigned char buf[16];
    int n, pos = 0;

    ck_assert_int_eq(MPI_Type_contiguous(-1, MPI_INT, &t), MPI_ERR_COUNT);
    ck_assert_int_eq(MPI_Type_contiguous(1, MPI_DATATYPE_NULL, &t),
                     MPI_ERR_TYPE);
    ck_assert_int_eq(MPI_Type_contiguous(1, bad, &t), MPI_ERR_TYPE);
    ck_assert_int_eq(MPI_Type_contiguous(1, MPI_INT, NULL), MPI_ERR_ARG);
    ck_assert_int_eq(MPI_Type_vector(-2, 1, 1, MPI_INT, &t), MPI_ERR_COUNT);
    ck_assert_int_eq(MPI_Type_vector(2, -1, 1, MPI_INT, &t), MPI_ERR_ARG);
    ck_assert_int_eq(MPI_Type_create_hvector(2, -1, 8, MPI_INT, &t),
                     MPI_ERR_ARG);
    ck_assert_int_eq(MPI_Type_indexed(2, bl, disp, MPI_INT, &t),
                     MPI_ERR_ARG);
    ck_assert_int_eq(MPI_Type_indexed(2, NULL, disp, MPI_INT, &t),
                     MPI_ERR_ARG);
    ck_assert_int_eq(MPI_Type_create_hindexed(2, bl, ad, MPI_INT, &t),
                     MPI_ERR_ARG);
    ck_assert_int_eq(MPI_Type_create_indexed_block(2, 1, NULL, MPI_INT, &t),
                     MPI_ERR_ARG);
    ck_assert_int_eq(MPI_Type_create_hindexed_block(-1, 1, ad, MPI_INT, &t),
                     MPI_ERR_COUNT);
    bl[1] = 1;
    ck_assert_int_eq(MPI_Type_create_struct(2, bl, ad, ty, &t),
                     MPI_ERR_TYPE);
    ck_assert_int_eq(MPI_Type_create_subarray(2, sizes, sub, st,
                                              MPI_ORDER_C, MPI_INT, &t),
                     MPI_ERR_ARG);
    st[0] = 0;
    ck_assert_int_eq(MPI_Type_create_subarray(2, sizes, sub, st, 7, MPI_INT,
                                              &t), MPI_ERR_ARG);
    ck_assert_int_eq(MPI_Type_create_subarray(0, sizes, sub, st,
                                              MPI_ORDER_C, MPI_INT, &t),
                     MPI_ERR_ARG);
    ck_assert_int_eq(MPI_Type_create_resized(bad, 0, 4, &t), MPI_ERR_TYPE);
    ck_assert_int_eq(MPI_Type_dup(MPI_DATATYPE_NULL, &t), MPI_ERR_TYPE);
    /* Nothing was handed out by the refused calls. */
    ck_assert(t == MPI_DATATYPE_NULL);

    ck_assert_int_eq(MPI_Type_commit(NULL), MPI_ERR_ARG);
    ck_assert_int_eq(MPI_Type_commit(&t), MPI_ERR_TYPE);
    ck_assert_int_eq(MPI_Type_free(NULL), MPI_ERR_ARG);
    ck_assert_int_eq(MPI_Type_free(&t), MPI_ERR_TYPE);
    ck_assert_int_eq(MPI_Type_get_extent(bad, &lb, &ext), MPI_ERR_TYPE);
    ck_assert_int_eq(MPI_Type_get_extent(MPI_INT, NULL, &ext), MPI_ERR_ARG);
    ck_assert_int_eq(MPI_Type_get_true_extent(MPI_INT, &lb, NULL),
                     MPI_ERR_ARG);
    ck_assert_int_eq(MPI_Type_size(MPI_DATATYPE_NULL, &n), MPI_ERR_TYPE);
    ck_assert_int_eq(MPI_Type_size(MPI_INT, NULL), MPI_ERR_ARG);
    ck_assert_int_eq(MPI_Type_get_envelope(MPI_INT, &n, &n, &n, NULL),
                     MPI_ERR_ARG);

    /* Uncommitted types cannot move data. */
    ck_assert_int_eq(MPI_Type_contiguous(2, MPI_INT, &u), MPI_SUCCESS);
    ck_assert_int_eq(gcm_mpi_type_check(u), MPI_ERR_TYPE);
    ck_assert_int_eq(MPI_Pack(buf, 1, u, buf, 16, &pos, NULL), MPI_ERR_TYPE);
    ck_assert_int_eq(MPI_Unpack(buf, 16, &pos, buf, 1, u, NULL),
                     MPI_ERR_TYPE);
    ck_assert_int_eq(MPI_Pack_size(1, u, NULL, &n), MPI_ERR_TYPE);
    memset(&status, 0, sizeof(status));
    ck_assert_int_eq(MPI_Get_count(&status, u, &n), MPI_ERR_TYPE);
    ck_assert_int_eq(MPI_Get_elements(&status, u, &n), MPI_ERR_TYPE);
    commit(&u);
    ck_assert_int_eq(MPI_Get_count(NULL, u, &n), MPI_ERR_ARG);
    ck_assert_int_eq(MPI_Get_count(&status, u, NULL), MPI_ERR_ARG);
    ck_assert_int_eq(MPI_Pack(buf, -1, u, buf, 16, &pos, NULL),
                     MPI_ERR_COUNT);
    ck_assert_int_eq(MPI_Pack(buf, 1, u, buf, 16, NULL, NULL), MPI_ERR_ARG);
    ck_assert_int_eq(MPI_Pack(buf, 1, u, NULL, 16, &pos, NULL), MPI_ERR_ARG);
    ck_assert_int_eq(MPI_Pack(buf, 1, u, buf, -1, &pos, NULL), MPI_ERR_ARG);
    pos = -1;
    ck_assert_int_eq(MPI_Pack(buf, 1, u, buf, 16, &pos, NULL), MPI_ERR_ARG);
    ck_assert_int_eq(MPI_Unpack(buf, 16, &pos, buf, -1, u, NULL),
                     MPI_ERR_COUNT);
    ck_assert_int_eq(MPI_Pack_size(-1, u, NULL, &n), MPI_ERR_COUNT);
    type_free(&u);
}
END_TEST

/* ---- type signatures (verification of collectives) --------------------- */

static uint64_t sig(MPI_Datatype t, MPI_Count count, MPI_Count nelem)
{
    MPI_Count n = -1;
    uint64_t h = gcm_mpi_type_sig(t, count, &n);

    ck_assert_int_eq(n, nelem);
    return h;
}

START_TEST(test_signature_hash)
{
    MPI_Datatype c4, c2, c1000, vec, pair_i, if_s, fi_s, if2, dup, sub;
    int bl[2] = { 1, 1 }, sizes[2] = { 4, 4 }, subs[2] = { 2, 3 };
    int starts[2] = { 1, 0 };
    MPI_Aint d_if[2] = { 0, 4 };
    MPI_Datatype t_if[2] = { MPI_INT, MPI_FLOAT };
    MPI_Datatype t_fi[2] = { MPI_FLOAT, MPI_INT };
    MPI_Datatype t_if2[4] = { MPI_INT, MPI_FLOAT, MPI_INT, MPI_FLOAT };
    int bl4[4] = { 1, 1, 1, 1 };
    MPI_Aint d_if2[4] = { 0, 4, 8, 12 };
    uint64_t int4 = sig(MPI_INT, 4, 4);

    /* Equal signatures, whatever the layout: the same hash. */
    ck_assert_int_eq(MPI_Type_contiguous(4, MPI_INT, &c4), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Type_contiguous(2, MPI_INT, &c2), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Type_vector(2, 2, 5, MPI_INT, &vec), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Type_dup(c2, &dup), MPI_SUCCESS);
    ck_assert(sig(c4, 1, 4) == int4);
    ck_assert(sig(c2, 2, 4) == int4);
    ck_assert(sig(vec, 1, 4) == int4);
    ck_assert(sig(dup, 2, 4) == int4);
    /* MPI_2INT is two MPI_INT; a subarray of 2 x 3 ints is 6 of them. */
    ck_assert(sig(MPI_2INT, 2, 4) == int4);
    ck_assert_int_eq(MPI_Type_create_subarray(2, sizes, subs, starts,
                                              MPI_ORDER_C, MPI_INT, &sub),
                     MPI_SUCCESS);
    ck_assert(sig(sub, 1, 6) == sig(MPI_INT, 6, 6));
    /* Repetition in O(log count) agrees with the entries' walk. */
    ck_assert_int_eq(MPI_Type_contiguous(1000, MPI_INT, &c1000),
                     MPI_SUCCESS);
    ck_assert(sig(c1000, 1000, 1000000) == sig(MPI_INT, 1000000, 1000000));

    /* Different signatures: different hashes. */
    ck_assert(sig(MPI_FLOAT, 4, 4) != int4);     /* same size */
    ck_assert(sig(MPI_INT32_T, 4, 4) != int4);   /* same representation */
    ck_assert(sig(MPI_UNSIGNED, 4, 4) != int4);
    ck_assert(sig(MPI_INT, 5, 5) != int4);
    ck_assert(sig(MPI_INT, 3, 3) != int4);
    ck_assert(sig(MPI_PACKED, 4, 4) != sig(MPI_BYTE, 4, 4));
    ck_assert(sig(MPI_PACKED, 1, 1) != sig(T_CNAME, 1, 1));
    ck_assert_int_eq(MPI_Type_contiguous(2, MPI_FLOAT, &pair_i),
                     MPI_SUCCESS);
    ck_assert(sig(MPI_FLOAT_INT, 1, 2) != sig(pair_i, 1, 2));
    /* Order matters: {int, float} is not {float, int}; two {int, float}
     * are one {int, float, int, float}. */
    ck_assert_int_eq(MPI_Type_create_struct(2, bl, d_if, t_if, &if_s),
                     MPI_SUCCESS);
    ck_assert_int_eq(MPI_Type_create_struct(2, bl, d_if, t_fi, &fi_s),
                     MPI_SUCCESS);
    ck_assert_int_eq(MPI_Type_create_struct(4, bl4, d_if2, t_if2, &if2),
                     MPI_SUCCESS);
    ck_assert(sig(if_s, 1, 2) != sig(fi_s, 1, 2));
    ck_assert(sig(if_s, 2, 4) == sig(if2, 1, 4));
    ck_assert(sig(if_s, 2, 4) != sig(fi_s, 2, 4));

    /* Nothing is nothing, of any type. */
    ck_assert(sig(MPI_INT, 0, 0) == sig(MPI_DOUBLE, 0, 0));

    type_free(&c4);
    type_free(&c2);
    type_free(&c1000);
    type_free(&vec);
    type_free(&dup);
    type_free(&sub);
    type_free(&pair_i);
    type_free(&if_s);
    type_free(&fi_s);
    type_free(&if2);
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
    const TTest *data[] = {test_nested_round_trip, test_partial_unpack,
        test_overlapping_unpack_last_wins, test_pack_positions_and_truncation,
        test_get_count_and_elements, test_signature_hash, NULL};
    const TTest *life[] = {test_free_inner_type_keeps_outer_usable,
        test_struct_with_repeated_type_refcount, test_threads_share_a_child,
        test_names, test_errors, NULL};
    const struct gcm_check_case cases[] = {
        {"predefined", .tests = pre},
        {"constructors", .tests = ctor},
        {"pack", .tests = data},
        {"lifetime", .tests = life},
        {0},
    };

    return gcm_check_suite("mpi_datatype", cases);
}
