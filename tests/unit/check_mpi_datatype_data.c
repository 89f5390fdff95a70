/*
 * tests/unit/check_mpi_datatype_data.c: the cases "pack" and "lifetime"
 * of check_mpi_datatype: nested types packed and unpacked against
 * hand-written loops, partial and overlapping unpacks, pack positions,
 * element counts, type signatures; reference counting (also from
 * threads), names and refused input. The suite is made in
 * check_mpi_datatype.c.
 */
#include "config.h"

#include "compat/mpi_impl.h"
#include "compat/mpi_type_impl.h"
#include "check_mpi_datatype.h"

#include <limits.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

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
    gcm_check_dt_free(&idx);
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
    gcm_check_dt_commit(&vec);
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
    gcm_check_dt_free(&vec);
    gcm_check_dt_free(&pt);
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
    gcm_check_dt_commit(&v);
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
    gcm_check_dt_free(&v);
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
    gcm_check_dt_commit(&t);
    gcm_check_dt_bounds(t, 8, 0, 4, 0, 4);
    ck_assert_int_eq(MPI_Unpack(in, 8, &pos, &out, 1, t, NULL), MPI_SUCCESS);
    ck_assert_int_eq(out, 22);
    gcm_check_dt_free(&t);
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
    gcm_check_dt_commit(&t);
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
    gcm_check_dt_commit(&v);
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
    gcm_check_dt_commit(&z);
    st.gcm_count = 0;
    ck_assert_int_eq(MPI_Get_count(&st, z, &n), MPI_SUCCESS);
    ck_assert_int_eq(n, 0);
    ck_assert_int_eq(MPI_Get_elements(&st, z, &n), MPI_SUCCESS);
    ck_assert_int_eq(n, 0);

    gcm_check_dt_free(&z);
    gcm_check_dt_free(&v);
    gcm_check_dt_free(&t);
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
    gcm_check_dt_free(&inner);
    /* The stale copy of the handle is refused, not used. */
    ck_assert_int_eq(MPI_Type_commit(&stale), MPI_ERR_TYPE);
    ck_assert_int_eq(MPI_Type_free(&stale), MPI_ERR_TYPE);
    ck_assert_int_eq(MPI_Type_free(&inner), MPI_ERR_TYPE);
    /* outer still works after its part is freed: extent of inner is 3
     * ints, so copies at 0, 3, 6 ints, each ints +0 and +2. */
    gcm_check_dt_commit(&outer);
    gcm_check_dt_bounds(outer, 24, 0, 36, 0, 36);
    for (i = 0; i < 3; i++) {
        expect[2 * i] = a[3 * i];
        expect[2 * i + 1] = a[3 * i + 2];
    }
    ck_assert_int_eq(MPI_Pack(a, 1, outer, out, sizeof(out), &pos, NULL),
                     MPI_SUCCESS);
    ck_assert(memcmp(out, expect, sizeof(out)) == 0);
    gcm_check_dt_free(&outer);
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
    gcm_check_dt_free(&c);
    gcm_check_dt_free(&s);
    gcm_check_dt_bounds(s2, 32, 0, 56, 0, 56);
    gcm_check_dt_commit(&s2);
    gcm_check_dt_free(&s2);
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
    gcm_check_dt_bounds(shared, 8, 0, 8, 0, 8);
    gcm_check_dt_free(&shared);
}
END_TEST

/* Threads that commit one type at once: one builds its blocks (the count
 * of builds rises by one), the others wait for it
 * (GCM_MPI_TYPE_COMMITTING), and every commit succeeds on a layout that
 * packs as the type says. 300 blocks of 1 int at every third int: the
 * build takes long enough for the commits to meet. */
#define COMMIT_RACE_THREADS 4
#define COMMIT_RACE_BLOCKS  300

typedef struct {
    MPI_Datatype      *t;
    pthread_barrier_t *start;
    int                rc;
} commit_race_t;

static void *commit_race(void *arg)
{
    commit_race_t *c = arg;

    pthread_barrier_wait(c->start);
    c->rc = MPI_Type_commit(c->t);
    return NULL;
}

START_TEST(test_threads_commit_one_type)
{
    static int in[3 * COMMIT_RACE_BLOCKS], out[COMMIT_RACE_BLOCKS];
    int bl[COMMIT_RACE_BLOCKS], disp[COMMIT_RACE_BLOCKS];
    commit_race_t c[COMMIT_RACE_THREADS];
    pthread_t th[COMMIT_RACE_THREADS];
    pthread_barrier_t start;
    int i, round, pos;

    for (i = 0; i < 3 * COMMIT_RACE_BLOCKS; i++) {
        in[i] = i;
    }
    for (i = 0; i < COMMIT_RACE_BLOCKS; i++) {
        bl[i] = 1;
        /* Not a constant stride, so that the commit flattens it. */
        disp[i] = 3 * i + (i % 2);
    }
    for (round = 0; round < 20; round++) {
        unsigned long builds = gcm_mpi_type_builds();
        MPI_Datatype t;

        ck_assert_int_eq(MPI_Type_indexed(COMMIT_RACE_BLOCKS, bl, disp,
                                          MPI_INT, &t), MPI_SUCCESS);
        ck_assert_int_eq(pthread_barrier_init(&start, NULL,
                                              COMMIT_RACE_THREADS), 0);
        for (i = 0; i < COMMIT_RACE_THREADS; i++) {
            c[i].t = &t;
            c[i].start = &start;
            c[i].rc = -1;
            ck_assert_int_eq(pthread_create(&th[i], NULL, commit_race,
                                            &c[i]), 0);
        }
        for (i = 0; i < COMMIT_RACE_THREADS; i++) {
            ck_assert_int_eq(pthread_join(th[i], NULL), 0);
            ck_assert_int_eq(c[i].rc, MPI_SUCCESS);
        }
        pthread_barrier_destroy(&start);
        ck_assert_uint_eq(gcm_mpi_type_builds(), builds + 1);
        ck_assert(gcm_mpi_type_is_committed(t));
        pos = 0;
        ck_assert_int_eq(MPI_Pack(in, 1, t, out, (int)sizeof(out), &pos,
                                  MPI_COMM_WORLD), MPI_SUCCESS);
        ck_assert_int_eq(pos, (int)sizeof(out));
        for (i = 0; i < COMMIT_RACE_BLOCKS; i++) {
            ck_assert_int_eq(out[i], 3 * i + (i % 2));
        }
        gcm_check_dt_free(&t);
    }
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
    gcm_check_dt_free(&t);
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
    gcm_check_dt_commit(&u);
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
    gcm_check_dt_free(&u);
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

    gcm_check_dt_free(&c4);
    gcm_check_dt_free(&c2);
    gcm_check_dt_free(&c1000);
    gcm_check_dt_free(&vec);
    gcm_check_dt_free(&dup);
    gcm_check_dt_free(&sub);
    gcm_check_dt_free(&pair_i);
    gcm_check_dt_free(&if_s);
    gcm_check_dt_free(&fi_s);
    gcm_check_dt_free(&if2);
}
END_TEST

/* ---- strided layouts ---------------------------------------------------- */

/* A layout as a loop sees it: count elements ext bytes apart, each n
 * blocks of len bytes, block i at first + i * stride. */
struct strided {
    MPI_Aint ext;
    MPI_Aint first;
    MPI_Aint stride;
    size_t   len;
    size_t   n;
};

/* Room on both sides of the buffers' origin, for negative strides. */
#define STRIDED_HALF 4096

static MPI_Aint strided_at(const struct strided *l, int k, size_t i)
{
    return (MPI_Aint)k * l->ext + l->first + (MPI_Aint)i * l->stride;
}

/* The first nbytes of count elements: packed from src into out (unpack
 * 0), or unpacked from out into src (unpack 1), block by block. */
static void strided_loop(const struct strided *l, int count,
                         unsigned char *origin, unsigned char *packed,
                         size_t nbytes, int unpack)
{
    size_t i, c;
    int k;

    for (k = 0; k < count && nbytes > 0; k++) {
        for (i = 0; i < l->n && nbytes > 0; i++) {
            unsigned char *at = origin + strided_at(l, k, i);

            c = (l->len < nbytes) ? l->len : nbytes;
            if (unpack) {
                memcpy(at, packed, c);
            } else {
                memcpy(packed, at, c);
            }
            packed += c;
            nbytes -= c;
        }
    }
}

struct strided_runs {
    MPI_Aint disp[64];
    MPI_Aint len[64];
    int      n;
};

static int strided_run(void *ctx, MPI_Aint disp, MPI_Aint len)
{
    struct strided_runs *r = ctx;

    ck_assert_int_lt(r->n, 64);
    r->disp[r->n] = disp;
    r->len[r->n] = len;
    r->n++;
    return 0;
}

/* t, committed, must be strided as l says and move exactly the bytes the
 * loop moves: packed, unpacked, unpacked in part (ending inside a block,
 * at a block's end, one byte short), and as runs (for small layouts). */
static void check_strided(MPI_Datatype t, const struct strided *l)
{
    const size_t room = 2 * STRIDED_HALF;
    unsigned char *src = malloc(room), *got = malloc(room),
                  *want = malloc(room);
    unsigned char *packed, *expect;
    size_t total, cuts[4], c;
    MPI_Aint lb, ext;
    int count, pos, i;

    ck_assert_ptr_nonnull(src);
    ck_assert_ptr_nonnull(got);
    ck_assert_ptr_nonnull(want);
    ck_assert_int_eq(MPI_Type_get_extent(t, &lb, &ext), MPI_SUCCESS);
    ck_assert_int_eq(ext, l->ext);
    ck_assert(t->stride == l->stride);
    ck_assert_uint_eq(t->nblocks, l->n);
    ck_assert_int_eq(t->walk, 0);
    for (c = 0; c < room; c++) {
        src[c] = (unsigned char)(c * 7 + c / 251);
    }
    for (count = 1; count <= 3; count++) {
        total = (size_t)count * l->n * l->len;
        packed = malloc(total);
        expect = malloc(total);
        ck_assert_ptr_nonnull(packed);
        ck_assert_ptr_nonnull(expect);
        strided_loop(l, count, src + STRIDED_HALF, expect, total, 0);
        pos = 0;
        ck_assert_int_eq(MPI_Pack(src + STRIDED_HALF, count, t, packed,
                                  (int)total, &pos, NULL), MPI_SUCCESS);
        ck_assert_int_eq(pos, (int)total);
        ck_assert(memcmp(packed, expect, total) == 0);

        cuts[0] = total;
        cuts[1] = l->len + l->len / 2 + 1;
        cuts[2] = l->n * l->len;
        cuts[3] = total - 1;
        for (i = 0; i < 4; i++) {
            if (cuts[i] > total) {
                continue;
            }
            memset(got, 0xee, room);
            memset(want, 0xee, room);
            strided_loop(l, count, want + STRIDED_HALF, expect, cuts[i], 1);
            gcm_mpi_type_unpack(t, count, packed, cuts[i],
                                got + STRIDED_HALF);
            ck_assert_msg(memcmp(got, want, room) == 0,
                          "unpack of %zu of %zu bytes, %d elements",
                          cuts[i], total, count);
        }
        if (l->n * (size_t)count <= 64) {
            struct strided_runs r = { .n = 0 }, w = { .n = 0 };
            size_t b;
            int k;

            for (k = 0; k < count; k++) {
                for (b = 0; b < l->n; b++) {
                    MPI_Aint d = strided_at(l, k, b);

                    if (w.n > 0 && w.disp[w.n - 1] + w.len[w.n - 1] == d) {
                        w.len[w.n - 1] += (MPI_Aint)l->len;
                    } else {
                        (void)strided_run(&w, d, (MPI_Aint)l->len);
                    }
                }
            }
            ck_assert_int_eq(gcm_mpi_type_runs(t, count, strided_run, &r),
                             0);
            ck_assert_int_eq(r.n, w.n);
            for (k = 0; k < r.n; k++) {
                ck_assert_int_eq(r.disp[k], w.disp[k]);
                ck_assert_int_eq(r.len[k], w.len[k]);
            }
        }
        free(packed);
        free(expect);
    }
    free(src);
    free(got);
    free(want);
}

START_TEST(test_strided_vectors)
{
    /* old type, blocks, block length and stride in old elements (bytes
     * for hvector); every length of a basic type's copy loop, another
     * length, negative, unaligned and overlapping strides. */
    static const struct {
        MPI_Datatype  old;
        size_t        osize;
        int           count, blen, hvec;
        MPI_Aint      stride;
    } v[] = {
        { MPI_CHAR, 1, 7, 1, 0, 3 },
        { MPI_SHORT, 2, 5, 1, 0, 2 },
        { MPI_INT, 4, 6, 1, 0, -3 },
        { MPI_DOUBLE, 8, 9, 1, 0, 2 },
        { MPI_DOUBLE, 8, 4, 2, 0, 3 },
        { MPI_INT, 4, 5, 3, 0, 5 },
        { MPI_DOUBLE, 8, 6, 1, 1, 13 },
        { MPI_INT, 4, 5, 2, 1, 4 },
        { MPI_DOUBLE, 8, 5, 1, 1, -24 },
    };
    size_t i;

    for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
        MPI_Datatype old = v[i].old, t;
        struct strided l;
        MPI_Aint sb = v[i].hvec ? v[i].stride
                                : v[i].stride * (MPI_Aint)v[i].osize;
        MPI_Aint span = (MPI_Aint)(v[i].count - 1) * sb;

        if (v[i].hvec) {
            ck_assert_int_eq(MPI_Type_create_hvector(v[i].count, v[i].blen,
                                                     sb, old, &t),
                             MPI_SUCCESS);
        } else {
            ck_assert_int_eq(MPI_Type_vector(v[i].count, v[i].blen,
                                             (int)v[i].stride, old, &t),
                             MPI_SUCCESS);
        }
        gcm_check_dt_commit(&t);
        l.len = (size_t)v[i].blen * v[i].osize;
        l.n = (size_t)v[i].count;
        l.stride = sb;
        l.first = 0;
        /* The extent spans the blocks from the lowest to the highest;
         * block 0 is at the origin whatever the stride's sign. */
        l.ext = ((span < 0) ? -span : span) + (MPI_Aint)l.len;
        check_strided(t, &l);
        gcm_check_dt_free(&t);
    }
}
END_TEST

START_TEST(test_strided_derived)
{
    static const int regular[4] = { 1, 4, 7, 10 };
    static const int irregular[4] = { 1, 4, 8, 10 };
    struct strided l = { .ext = 36, .first = 0, .stride = 12, .len = 4,
                         .n = 3 };
    MPI_Datatype vec, t;

    ck_assert_int_eq(MPI_Type_vector(3, 1, 3, MPI_INT, &vec), MPI_SUCCESS);
    gcm_check_dt_commit(&vec);
    l.ext = 28;
    check_strided(vec, &l);

    /* A duplicate keeps the layout; a resized copy keeps it under its
     * own extent. */
    ck_assert_int_eq(MPI_Type_dup(vec, &t), MPI_SUCCESS);
    gcm_check_dt_commit(&t);
    check_strided(t, &l);
    gcm_check_dt_free(&t);
    ck_assert_int_eq(MPI_Type_create_resized(vec, 0, 40, &t), MPI_SUCCESS);
    gcm_check_dt_commit(&t);
    l.ext = 40;
    check_strided(t, &l);
    gcm_check_dt_free(&t);

    /* Blocks without gaps are one block, copied at once. */
    ck_assert_int_eq(MPI_Type_vector(4, 2, 2, MPI_INT, &t), MPI_SUCCESS);
    gcm_check_dt_commit(&t);
    ck_assert(t->stride == 0);
    ck_assert_uint_eq(t->nblocks, 1);
    ck_assert_int_eq(t->inl[0].len, 32);
    gcm_check_dt_free(&t);

    /* Blocks at one stride found after flattening: the list is not kept. */
    ck_assert_int_eq(MPI_Type_create_indexed_block(4, 1, regular, MPI_INT,
                                                   &t), MPI_SUCCESS);
    gcm_check_dt_commit(&t);
    l.ext = 40;
    l.first = 4;
    l.n = 4;
    check_strided(t, &l);
    gcm_check_dt_free(&t);

    /* One gap of another size: a list, packed block by block. */
    ck_assert_int_eq(MPI_Type_create_indexed_block(4, 1, irregular, MPI_INT,
                                                   &t), MPI_SUCCESS);
    gcm_check_dt_commit(&t);
    ck_assert(t->stride == 0);
    ck_assert_uint_eq(t->nblocks, 4);
    {
        int src[12], out[4], pos = 0, i;

        for (i = 0; i < 12; i++) {
            src[i] = 100 + i;
        }
        ck_assert_int_eq(MPI_Pack(src, 1, t, out, sizeof(out), &pos, NULL),
                         MPI_SUCCESS);
        for (i = 0; i < 4; i++) {
            ck_assert_int_eq(out[i], 100 + irregular[i]);
        }
    }
    gcm_check_dt_free(&t);

    /* A struct holding the strided type, then a double: its own list
     * takes the strided type's blocks one by one. */
    {
        int bl[2] = { 2, 1 };
        MPI_Aint d[2] = { 0, 80 };
        MPI_Datatype ty[2] = { vec, MPI_DOUBLE };
        unsigned char src[96], out[32], back[96];
        int pos = 0, i;
        size_t at[7] = { 0, 12, 24, 28, 40, 52, 80 };

        ck_assert_int_eq(MPI_Type_create_struct(2, bl, d, ty, &t),
                         MPI_SUCCESS);
        gcm_check_dt_commit(&t);
        ck_assert(t->stride == 0);
        for (i = 0; i < 96; i++) {
            src[i] = (unsigned char)(i + 1);
        }
        ck_assert_int_eq(MPI_Pack(src, 1, t, out, sizeof(out), &pos, NULL),
                         MPI_SUCCESS);
        ck_assert_int_eq(pos, 32);
        for (i = 0; i < 6; i++) {
            ck_assert(memcmp(out + 4 * i, src + at[i], 4) == 0);
        }
        ck_assert(memcmp(out + 24, src + at[6], 8) == 0);
        memset(back, 0, sizeof(back));
        pos = 0;
        ck_assert_int_eq(MPI_Unpack(out, 32, &pos, back, 1, t, NULL),
                         MPI_SUCCESS);
        for (i = 0; i < 96; i++) {
            int in = 0;
            size_t b;

            for (b = 0; b < 7; b++) {
                in |= ((size_t)i >= at[b]) &&
                      ((size_t)i < at[b] + ((b < 6) ? 4u : 8u));
            }
            ck_assert_int_eq(back[i], in ? src[i] : 0);
        }
        gcm_check_dt_free(&t);
    }
    gcm_check_dt_free(&vec);
}
END_TEST

/* A vector of more blocks than a list may hold is strided, not walked:
 * its commit is the same few steps as for 3 blocks, and its pack is
 * every other double. */
START_TEST(test_strided_large_vector)
{
    const int n = 1 << 20;
    double *src = malloc(2 * (size_t)n * sizeof(double));
    double *out = malloc((size_t)n * sizeof(double));
    MPI_Datatype t;
    int pos = 0, i, wrong = 0;

    ck_assert_ptr_nonnull(src);
    ck_assert_ptr_nonnull(out);
    for (i = 0; i < 2 * n; i++) {
        src[i] = (double)i;
    }
    ck_assert_int_eq(MPI_Type_vector(n, 1, 2, MPI_DOUBLE, &t), MPI_SUCCESS);
    gcm_check_dt_commit(&t);
    ck_assert_int_eq(t->walk, 0);
    ck_assert_int_eq(t->stride, 16);
    ck_assert_ptr_null(t->blocks);
    ck_assert_int_eq(MPI_Pack(src, 1, t, out, n * (int)sizeof(double), &pos,
                              NULL), MPI_SUCCESS);
    ck_assert_int_eq(pos, n * (int)sizeof(double));
    /* Counted, then asserted once: an assertion per element is slow. */
    for (i = 0; i < n; i++) {
        wrong += (out[i] != (double)(2 * i));
    }
    ck_assert_int_eq(wrong, 0);
    memset(src, 0, 2 * (size_t)n * sizeof(double));
    pos = 0;
    ck_assert_int_eq(MPI_Unpack(out, n * (int)sizeof(double), &pos, src, 1,
                                t, NULL), MPI_SUCCESS);
    for (i = 0; i < 2 * n; i++) {
        wrong += (src[i] != ((i % 2 == 0) ? (double)i : 0.0));
    }
    ck_assert_int_eq(wrong, 0);
    gcm_check_dt_free(&t);
    free(src);
    free(out);
}
END_TEST

const TTest *const *gcm_check_dt_pack_tests(void)
{
    static const TTest *tests[10];
    const TTest *list[] = {test_nested_round_trip, test_partial_unpack,
        test_overlapping_unpack_last_wins, test_pack_positions_and_truncation,
        test_get_count_and_elements, test_signature_hash,
        test_strided_vectors, test_strided_derived,
        test_strided_large_vector, NULL};

    memcpy(tests, list, sizeof(list));
    return tests;
}

const TTest *const *gcm_check_dt_life_tests(void)
{
    static const TTest *tests[7];
    const TTest *list[] = {test_free_inner_type_keeps_outer_usable,
        test_struct_with_repeated_type_refcount, test_threads_share_a_child,
        test_threads_commit_one_type,
        test_names, test_errors, NULL};

    memcpy(tests, list, sizeof(list));
    return tests;
}
