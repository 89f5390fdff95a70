/*
 * tests/unit/check_mpi_op.c: the reduction operations of the MPI layer,
 * in one process: every predefined op on the types MPI-3.1 allows, with
 * values for which each op gives a different answer; MINLOC/MAXLOC ties;
 * user ops (order of operands); derived datatypes (only the selected
 * elements change); and the errors for everything else.
 */
#include "config.h"

#include "compat/mpi_impl.h"
#include "check_main.h"

#include <complex.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* ---- helpers ------------------------------------------------------------- */

/* The error text gcm_mpi_raise logs at debug level, read back from
 * stderr (it has no other reader yet). */
static FILE *capture_file;
static int capture_saved_fd = -1;
static char capture_text[2048];

static void capture_begin(void)
{
    fflush(stderr);
    capture_file = tmpfile();
    ck_assert_ptr_nonnull(capture_file);
    capture_saved_fd = dup(STDERR_FILENO);
    ck_assert_int_ge(capture_saved_fd, 0);
    ck_assert_int_ge(dup2(fileno(capture_file), STDERR_FILENO), 0);
    gcm_log_level_current = GCM_LOG_DEBUG;
}

static const char *capture_end(void)
{
    size_t n;

    fflush(stderr);
    gcm_log_level_current = GCM_LOG_WARN;
    ck_assert_int_ge(dup2(capture_saved_fd, STDERR_FILENO), 0);
    close(capture_saved_fd);
    rewind(capture_file);
    n = fread(capture_text, 1, sizeof(capture_text) - 1, capture_file);
    capture_text[n] = '\0';
    fclose(capture_file);
    return capture_text;
}

/* Reduce_local must refuse (op, datatype) with MPI_ERR_OP and say why. */
static void expect_op_error(MPI_Op op, MPI_Datatype dt, const char *text)
{
    char in[64] = { 0 }, io[64] = { 0 };
    const char *got;
    int rc;

    capture_begin();
    rc = MPI_Reduce_local(in, io, 1, dt, op);
    got = capture_end();
    ck_assert_int_eq(rc, MPI_ERR_OP);
    if (text != NULL) {
        ck_assert_msg(strstr(got, text) != NULL, "\"%s\" not in \"%s\"", text,
                      got);
    }
    ck_assert_int_eq(gcm_mpi_op_check(op, dt, NULL, "test"), MPI_ERR_OP);
}

#define REDUCE_OK(_in, _io, _n, _dt, _op) \
    ck_assert_int_eq(MPI_Reduce_local((_in), (_io), (_n), (_dt), (_op)), \
                     MPI_SUCCESS)

/* ---- integers ------------------------------------------------------------ */

/* in op inout for every op defined on integers; each op gives a different
 * result (and negative numbers exercise signed compare and bit ops). */
static const int int_in[4] = { 6, -3, 0, 12 };
static const int int_io[4] = { 3, 5, 7, 0 };
static const struct {
    MPI_Op op;
    int    expect[4];
} int_cases[] = {
    { MPI_MAX,     { 6, 5, 7, 12 } },
    { MPI_MIN,     { 3, -3, 0, 0 } },
    { MPI_SUM,     { 9, 2, 7, 12 } },
    { MPI_PROD,    { 18, -15, 0, 0 } },
    { MPI_LAND,    { 1, 1, 0, 0 } },
    { MPI_LOR,     { 1, 1, 1, 1 } },
    { MPI_LXOR,    { 0, 0, 1, 1 } },
    { MPI_BAND,    { 2, 5, 0, 0 } },
    { MPI_BOR,     { 7, -3, 7, 12 } },
    { MPI_BXOR,    { 5, -8, 7, 12 } },
    { MPI_REPLACE, { 6, -3, 0, 12 } },
    { MPI_NO_OP,   { 3, 5, 7, 0 } },
};

#define CHECK_SIGNED_OPS(_ctype, _dt) \
    do { \
        size_t c_; \
        int j_; \
        \
        for (c_ = 0; c_ < sizeof(int_cases) / sizeof(int_cases[0]); c_++) { \
            _ctype in_[4], io_[4]; \
            \
            for (j_ = 0; j_ < 4; j_++) { \
                in_[j_] = (_ctype)int_in[j_]; \
                io_[j_] = (_ctype)int_io[j_]; \
            } \
            REDUCE_OK(in_, io_, 4, (_dt), int_cases[c_].op); \
            for (j_ = 0; j_ < 4; j_++) { \
                ck_assert_msg(io_[j_] == (_ctype)int_cases[c_].expect[j_], \
                              "%s case %zu item %d: %lld != %d", #_dt, c_, \
                              j_, (long long)io_[j_], \
                              int_cases[c_].expect[j_]); \
            } \
        } \
    } while (0)

START_TEST(test_op_signed_integers_every_op)
{
    CHECK_SIGNED_OPS(int, MPI_INT);
    CHECK_SIGNED_OPS(signed char, MPI_SIGNED_CHAR);
    CHECK_SIGNED_OPS(short, MPI_SHORT);
    CHECK_SIGNED_OPS(long, MPI_LONG);
    CHECK_SIGNED_OPS(long long, MPI_LONG_LONG);
    CHECK_SIGNED_OPS(int8_t, MPI_INT8_T);
    CHECK_SIGNED_OPS(int16_t, MPI_INT16_T);
    CHECK_SIGNED_OPS(int32_t, MPI_INT32_T);
    CHECK_SIGNED_OPS(int64_t, MPI_INT64_T);
}
END_TEST

START_TEST(test_op_unsigned_and_wraparound)
{
    unsigned char uc_in[3] = { 200, 16, 200 }, uc_io[3] = { 100, 17, 100 };
    uint16_t u16_in[1] = { 65535 }, u16_io[1] = { 65535 };
    unsigned u_in[2] = { UINT_MAX, UINT_MAX }, u_io[2] = { 2, 1 };
    uint64_t u64_in[2] = { UINT64_MAX, 0xf0f0u }, u64_io[2] = { 2, 0xff00u };
    int32_t i32_in[1] = { INT32_MAX }, i32_io[1] = { 1 };
    int8_t i8_in[1] = { -128 }, i8_io[1] = { -1 };
    unsigned short us_in[2] = { 40000, 1 }, us_io[2] = { 30000, 2 };

    /* 300 and 272 wrap modulo 256. */
    REDUCE_OK(uc_in, uc_io, 2, MPI_UNSIGNED_CHAR, MPI_SUM);
    ck_assert_uint_eq(uc_io[0], 44);
    ck_assert_uint_eq(uc_io[1], 33);
    uc_io[0] = 100;
    uc_io[1] = 17;
    REDUCE_OK(uc_in, uc_io, 2, MPI_UNSIGNED_CHAR, MPI_PROD);
    ck_assert_uint_eq(uc_io[0], (200 * 100) % 256);
    ck_assert_uint_eq(uc_io[1], 16);
    /* 200 is above 100 as unsigned (it would be -56 as signed). */
    REDUCE_OK(&uc_in[2], &uc_io[2], 1, MPI_UNSIGNED_CHAR, MPI_MAX);
    ck_assert_uint_eq(uc_io[2], 200);
    /* 65535 * 65535 overflows int if promoted naively; wraps to 1. */
    REDUCE_OK(u16_in, u16_io, 1, MPI_UINT16_T, MPI_PROD);
    ck_assert_uint_eq(u16_io[0], 1);
    REDUCE_OK(us_in, us_io, 2, MPI_UNSIGNED_SHORT, MPI_SUM);
    ck_assert_uint_eq(us_io[0], (70000u % 65536u));
    ck_assert_uint_eq(us_io[1], 3);
    REDUCE_OK(u_in, u_io, 1, MPI_UNSIGNED, MPI_SUM);
    ck_assert_uint_eq(u_io[0], 1);
    REDUCE_OK(&u_in[1], &u_io[1], 1, MPI_UNSIGNED, MPI_MIN);
    ck_assert_uint_eq(u_io[1], 1);
    REDUCE_OK(u64_in, u64_io, 1, MPI_UINT64_T, MPI_SUM);
    ck_assert(u64_io[0] == 1);
    REDUCE_OK(&u64_in[1], &u64_io[1], 1, MPI_UNSIGNED_LONG_LONG, MPI_BXOR);
    ck_assert(u64_io[1] == 0x0ff0u);
    REDUCE_OK(i32_in, i32_io, 1, MPI_INT32_T, MPI_SUM);
    ck_assert_int_eq(i32_io[0], INT32_MIN);
    REDUCE_OK(i8_in, i8_io, 1, MPI_INT8_T, MPI_PROD);
    ck_assert_int_eq(i8_io[0], -128);
}
END_TEST

START_TEST(test_op_multi_language_and_byte)
{
    MPI_Aint a_in[2] = { -5, 12 }, a_io[2] = { 3, 10 };
    MPI_Offset o_in[1] = { -7 }, o_io[1] = { 2 };
    MPI_Count c_in[1] = { 1LL << 40 }, c_io[1] = { 3 };
    unsigned char b_in[3] = { 0xf0, 0xf0, 0xf0 };
    unsigned char b_io[3] = { 0x3c, 0x3c, 0x3c };

    REDUCE_OK(a_in, a_io, 2, MPI_AINT, MPI_SUM);
    ck_assert(a_io[0] == -2);
    ck_assert(a_io[1] == 22);
    REDUCE_OK(a_in, a_io, 2, MPI_AINT, MPI_MIN);
    ck_assert(a_io[0] == -5);
    ck_assert(a_io[1] == 12);
    REDUCE_OK(o_in, o_io, 1, MPI_OFFSET, MPI_MAX);
    ck_assert(o_io[0] == 2);
    REDUCE_OK(c_in, c_io, 1, MPI_COUNT, MPI_PROD);
    ck_assert(c_io[0] == 3LL << 40);
    REDUCE_OK(c_in, c_io, 1, MPI_COUNT, MPI_BOR);
    ck_assert(c_io[0] == (3LL << 40));
    /* Logical ops take C integers and logicals only (MPI-3.1 5.9.2). */
    expect_op_error(MPI_LAND, MPI_AINT, "MPI_LAND is not defined on MPI_AINT");
    expect_op_error(MPI_LXOR, MPI_COUNT, "MPI_COUNT");

    REDUCE_OK(&b_in[0], &b_io[0], 1, MPI_BYTE, MPI_BAND);
    REDUCE_OK(&b_in[1], &b_io[1], 1, MPI_BYTE, MPI_BOR);
    REDUCE_OK(&b_in[2], &b_io[2], 1, MPI_BYTE, MPI_BXOR);
    ck_assert_uint_eq(b_io[0], 0x30);
    ck_assert_uint_eq(b_io[1], 0xfc);
    ck_assert_uint_eq(b_io[2], 0xcc);
    expect_op_error(MPI_SUM, MPI_BYTE, "MPI_SUM is not defined on MPI_BYTE");
    expect_op_error(MPI_MAX, MPI_BYTE, NULL);
    expect_op_error(MPI_LOR, MPI_BYTE, NULL);
}
END_TEST

/* ---- floating point, complex, bool --------------------------------------- */

#define CHECK_FLOAT_OPS(_ctype, _dt) \
    do { \
        const _ctype in_[3] = { 1.5, -2.25, 4.0 }; \
        _ctype io_[3]; \
        \
        memcpy(io_, (const _ctype[3]){ -0.5, 3.0, 0.25 }, sizeof(io_)); \
        REDUCE_OK(in_, io_, 3, (_dt), MPI_MAX); \
        ck_assert(io_[0] == 1.5 && io_[1] == 3.0 && io_[2] == 4.0); \
        memcpy(io_, (const _ctype[3]){ -0.5, 3.0, 0.25 }, sizeof(io_)); \
        REDUCE_OK(in_, io_, 3, (_dt), MPI_MIN); \
        ck_assert(io_[0] == -0.5 && io_[1] == -2.25 && io_[2] == 0.25); \
        memcpy(io_, (const _ctype[3]){ -0.5, 3.0, 0.25 }, sizeof(io_)); \
        REDUCE_OK(in_, io_, 3, (_dt), MPI_SUM); \
        ck_assert(io_[0] == 1.0 && io_[1] == 0.75 && io_[2] == 4.25); \
        memcpy(io_, (const _ctype[3]){ -0.5, 3.0, 0.25 }, sizeof(io_)); \
        REDUCE_OK(in_, io_, 3, (_dt), MPI_PROD); \
        ck_assert(io_[0] == -0.75 && io_[1] == -6.75 && io_[2] == 1.0); \
    } while (0)

START_TEST(test_op_floating_point)
{
    CHECK_FLOAT_OPS(float, MPI_FLOAT);
    CHECK_FLOAT_OPS(double, MPI_DOUBLE);
    CHECK_FLOAT_OPS(long double, MPI_LONG_DOUBLE);
    expect_op_error(MPI_BAND, MPI_DOUBLE,
                    "MPI_Reduce_local: MPI_BAND is not defined on "
                    "MPI_DOUBLE");
    expect_op_error(MPI_LAND, MPI_FLOAT, "MPI_LAND is not defined on "
                    "MPI_FLOAT");
    expect_op_error(MPI_BXOR, MPI_LONG_DOUBLE, NULL);
    expect_op_error(MPI_MINLOC, MPI_DOUBLE, NULL);
}
END_TEST

#define CHECK_COMPLEX_OPS(_ctype, _dt) \
    do { \
        _ctype in_[1], io_[1]; \
        \
        in_[0] = 1.0 + 2.0 * I; \
        io_[0] = 3.0 - 1.0 * I; \
        REDUCE_OK(in_, io_, 1, (_dt), MPI_SUM); \
        ck_assert(creall(io_[0]) == 4.0 && cimagl(io_[0]) == 1.0); \
        io_[0] = 3.0 - 1.0 * I; \
        REDUCE_OK(in_, io_, 1, (_dt), MPI_PROD); \
        ck_assert(creall(io_[0]) == 5.0 && cimagl(io_[0]) == 5.0); \
        expect_op_error(MPI_MAX, (_dt), "MPI_MAX is not defined on " #_dt); \
        expect_op_error(MPI_LAND, (_dt), NULL); \
    } while (0)

START_TEST(test_op_complex_sum_prod)
{
    CHECK_COMPLEX_OPS(float _Complex, MPI_C_FLOAT_COMPLEX);
    CHECK_COMPLEX_OPS(double _Complex, MPI_C_DOUBLE_COMPLEX);
    CHECK_COMPLEX_OPS(long double _Complex, MPI_C_LONG_DOUBLE_COMPLEX);
}
END_TEST

START_TEST(test_op_c_bool_logicals)
{
    const bool in[4] = { true, true, false, false };
    bool io[4];

    memcpy(io, (const bool[4]){ true, false, true, false }, sizeof(io));
    REDUCE_OK(in, io, 4, MPI_C_BOOL, MPI_LAND);
    ck_assert(io[0] && !io[1] && !io[2] && !io[3]);
    memcpy(io, (const bool[4]){ true, false, true, false }, sizeof(io));
    REDUCE_OK(in, io, 4, MPI_C_BOOL, MPI_LOR);
    ck_assert(io[0] && io[1] && io[2] && !io[3]);
    memcpy(io, (const bool[4]){ true, false, true, false }, sizeof(io));
    REDUCE_OK(in, io, 4, MPI_C_BOOL, MPI_LXOR);
    ck_assert(!io[0] && io[1] && io[2] && !io[3]);
    expect_op_error(MPI_SUM, MPI_C_BOOL, "MPI_SUM is not defined on "
                    "MPI_C_BOOL");
    expect_op_error(MPI_BAND, MPI_C_BOOL, NULL);
    expect_op_error(MPI_MAX, MPI_C_BOOL, NULL);
}
END_TEST

START_TEST(test_op_char_and_opaque_types)
{
    char in[3] = "ab", io[3] = "xy";

    /* Characters are not numbers to MPI: only REPLACE and NO_OP. */
    REDUCE_OK(in, io, 2, MPI_CHAR, MPI_NO_OP);
    ck_assert_str_eq(io, "xy");
    REDUCE_OK(in, io, 2, MPI_CHAR, MPI_REPLACE);
    ck_assert_str_eq(io, "ab");
    expect_op_error(MPI_SUM, MPI_CHAR, "MPI_SUM is not defined on MPI_CHAR");
    expect_op_error(MPI_MAX, MPI_WCHAR, "MPI_WCHAR");
    expect_op_error(MPI_BOR, MPI_CHAR, NULL);
    expect_op_error(MPI_SUM, MPI_PACKED, "MPI_SUM is not defined on this "
                    "datatype");
    expect_op_error(MPI_REPLACE, MPI_PACKED, NULL);
}
END_TEST

/* ---- MINLOC and MAXLOC --------------------------------------------------- */

/* Pairs 0 and 2 tie with in's index smaller, pair 4 ties with inout's
 * index smaller: the smaller index wins either way. */
/* Every length from 1 to 70 items and start offsets 0-3 items, against
 * the element-by-element C expression: the vector clones of the loops
 * (compat/mpi_op.c, GCM_MPI_OP_CLONES) handle heads, tails and unaligned
 * starts as the plain loop does, NaN and signed zeros included. */
#define VEC_N 74
#define CHECK_VEC_OP(_ctype, _dt, _op, _expr) \
    do { \
        _ctype a_[VEC_N], b_[VEC_N], want_[VEC_N]; \
        int fl_ = ((_ctype)0.5 != 0), n_, off_, i_; \
        \
        for (n_ = 1; n_ <= VEC_N - 4; n_++) { \
            for (off_ = 0; off_ < 4; off_++) { \
                for (i_ = 0; i_ < VEC_N; i_++) { \
                    double da_ = vec_value(i_ * 7 + n_, 0); \
                    double db_ = vec_value(i_ * 5 + off_, fl_); \
                    \
                    a_[i_] = fl_ ? (_ctype)da_ : (_ctype)(long long)da_; \
                    b_[i_] = fl_ ? (_ctype)db_ : (_ctype)(long long)db_; \
                } \
                for (i_ = 0; i_ < VEC_N; i_++) { \
                    _ctype x_ = a_[i_], y_ = b_[i_]; \
                    \
                    want_[i_] = (i_ >= off_ && i_ < off_ + n_) ? \
                                (_ctype)(_expr) : y_; \
                } \
                REDUCE_OK(a_ + off_, b_ + off_, n_, (_dt), (_op)); \
                ck_assert_msg(memcmp(b_, want_, sizeof(b_)) == 0, \
                              "%s %s: %d items at offset %d differ", \
                              #_dt, #_op, n_, off_); \
            } \
        } \
    } while (0)

/* Mixed signs, zeros of both signs and, where nan is set (the inout
 * side of floating types), NaNs now and then. */
static double vec_value(int k, int nan)
{
    static const double v[] = { 3.0, -2.0, 0.0, 7.5, -0.0, 1.25, -9.0,
                                4.0, 2.0, -1.5, 6.0 };
    int j = k % (int)(sizeof(v) / sizeof(v[0]));

    if (nan && (k % 13 == 5)) {
        return __builtin_nan("");
    }
    return v[j] * (double)(1 + (k % 3));
}

START_TEST(test_op_vector_lengths_and_offsets)
{
    CHECK_VEC_OP(double, MPI_DOUBLE, MPI_SUM, x_ + y_);
    CHECK_VEC_OP(double, MPI_DOUBLE, MPI_PROD, x_ * y_);
    CHECK_VEC_OP(double, MPI_DOUBLE, MPI_MAX, (x_ > y_) ? x_ : y_);
    CHECK_VEC_OP(double, MPI_DOUBLE, MPI_MIN, (x_ < y_) ? x_ : y_);
    CHECK_VEC_OP(float, MPI_FLOAT, MPI_SUM, x_ + y_);
    CHECK_VEC_OP(float, MPI_FLOAT, MPI_MAX, (x_ > y_) ? x_ : y_);
    CHECK_VEC_OP(int, MPI_INT, MPI_SUM, x_ + y_);
    CHECK_VEC_OP(int, MPI_INT, MPI_MIN, (x_ < y_) ? x_ : y_);
    CHECK_VEC_OP(int, MPI_INT, MPI_BXOR, x_ ^ y_);
    CHECK_VEC_OP(int, MPI_INT, MPI_LAND, (x_ != 0) && (y_ != 0));
    CHECK_VEC_OP(long long, MPI_LONG_LONG, MPI_PROD, x_ * y_);
    CHECK_VEC_OP(signed char, MPI_SIGNED_CHAR, MPI_SUM,
                 (unsigned)x_ + (unsigned)y_);
    CHECK_VEC_OP(unsigned short, MPI_UNSIGNED_SHORT, MPI_BOR, x_ | y_);
}
END_TEST

static const int loc_val_in[5]  = { 5, 3, 4, 9, 7 };
static const int loc_idx_in[5]  = { 1, 7, 2, 0, 9 };
static const int loc_val_io[5]  = { 5, 8, 4, 2, 7 };
static const int loc_idx_io[5]  = { 4, 3, 6, 5, 2 };
static const int minloc_val[5]  = { 5, 3, 4, 2, 7 };
static const int minloc_idx[5]  = { 1, 7, 2, 5, 2 };
static const int maxloc_val[5]  = { 5, 8, 4, 9, 7 };
static const int maxloc_idx[5]  = { 1, 3, 2, 0, 2 };

#define CHECK_LOC_OPS(_vtype, _dt) \
    do { \
        struct { _vtype v; int i; } in_[5], io_[5]; \
        int j_; \
        \
        for (j_ = 0; j_ < 5; j_++) { \
            in_[j_].v = (_vtype)loc_val_in[j_]; \
            in_[j_].i = loc_idx_in[j_]; \
            io_[j_].v = (_vtype)loc_val_io[j_]; \
            io_[j_].i = loc_idx_io[j_]; \
        } \
        REDUCE_OK(in_, io_, 5, (_dt), MPI_MINLOC); \
        for (j_ = 0; j_ < 5; j_++) { \
            ck_assert_msg(io_[j_].v == (_vtype)minloc_val[j_] && \
                          io_[j_].i == minloc_idx[j_], \
                          "%s MINLOC pair %d", #_dt, j_); \
            io_[j_].v = (_vtype)loc_val_io[j_]; \
            io_[j_].i = loc_idx_io[j_]; \
        } \
        REDUCE_OK(in_, io_, 5, (_dt), MPI_MAXLOC); \
        for (j_ = 0; j_ < 5; j_++) { \
            ck_assert_msg(io_[j_].v == (_vtype)maxloc_val[j_] && \
                          io_[j_].i == maxloc_idx[j_], \
                          "%s MAXLOC pair %d", #_dt, j_); \
        } \
        expect_op_error(MPI_SUM, (_dt), "MPI_SUM is not defined on " #_dt); \
        expect_op_error(MPI_MAX, (_dt), NULL); \
    } while (0)

START_TEST(test_op_minloc_maxloc_with_ties)
{
    CHECK_LOC_OPS(int, MPI_2INT);
    CHECK_LOC_OPS(float, MPI_FLOAT_INT);
    CHECK_LOC_OPS(double, MPI_DOUBLE_INT);
    CHECK_LOC_OPS(long, MPI_LONG_INT);
    CHECK_LOC_OPS(short, MPI_SHORT_INT);
    CHECK_LOC_OPS(long double, MPI_LONG_DOUBLE_INT);
    expect_op_error(MPI_MINLOC, MPI_INT, "MPI_MINLOC is not defined on "
                    "MPI_INT");
    expect_op_error(MPI_MAXLOC, MPI_FLOAT, NULL);
}
END_TEST

START_TEST(test_op_minloc_many_pairs_in_chunks)
{
    /* More packed data than one internal chunk (DOUBLE_INT has a gap, so
     * it goes through pack and unpack). */
    enum { N = 2000 };
    struct { double v; int i; } *in = calloc(N, sizeof(*in));
    struct { double v; int i; } *io = calloc(N, sizeof(*io));
    int j;

    ck_assert_ptr_nonnull(in);
    ck_assert_ptr_nonnull(io);
    for (j = 0; j < N; j++) {
        in[j].v = (double)(j % 7);
        in[j].i = j;
        io[j].v = 3.0;
        io[j].i = N - j;
    }
    REDUCE_OK(in, io, N, MPI_DOUBLE_INT, MPI_MINLOC);
    for (j = 0; j < N; j++) {
        double v = (double)(j % 7);

        if (v < 3.0) {
            ck_assert(io[j].v == v && io[j].i == j);
        } else if (v > 3.0) {
            ck_assert(io[j].v == 3.0 && io[j].i == N - j);
        } else {
            ck_assert(io[j].v == 3.0 && io[j].i == ((j < N - j) ? j : N - j));
        }
    }
    free(in);
    free(io);
}
END_TEST

/* ---- user ops ------------------------------------------------------------ */

static MPI_Datatype user_seen_type;
static int user_seen_len;
static int user_calls;

/* 2x2 matrices of doubles, row-major: inout = in * inout. */
static void matmul(void *invec, void *inoutvec, int *len,
                   MPI_Datatype *datatype)
{
    const double *a = invec;
    double *b = inoutvec;
    int k;

    user_calls++;
    user_seen_len = *len;
    user_seen_type = *datatype;
    for (k = 0; k < *len; k++) {
        const double *x = &a[4 * k];
        double *y = &b[4 * k];
        double c[4];

        c[0] = x[0] * y[0] + x[1] * y[2];
        c[1] = x[0] * y[1] + x[1] * y[3];
        c[2] = x[2] * y[0] + x[3] * y[2];
        c[3] = x[2] * y[1] + x[3] * y[3];
        memcpy(y, c, sizeof(c));
    }
}

static void recorder(void *invec, void *inoutvec, int *len,
                   MPI_Datatype *datatype)
{
    user_calls++;
    user_seen_len = *len;
    user_seen_type = *datatype;
}

START_TEST(test_op_user_noncommutative_order)
{
    MPI_Datatype mat;
    MPI_Op op;
    int commute = -1;
    double a[8] = { 1, 2, 3, 4, 2, 0, 0, 1 };
    double b[8] = { 0, 1, 1, 0, 1, 1, 0, 1 };

    ck_assert_int_eq(MPI_Type_contiguous(4, MPI_DOUBLE, &mat), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Type_commit(&mat), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Op_create(matmul, 0, &op), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Op_commutative(op, &commute), MPI_SUCCESS);
    ck_assert_int_eq(commute, 0);
    ck_assert_int_eq(gcm_mpi_op_is_commutative(op), 0);
    /* Any datatype goes to a user op. */
    ck_assert_int_eq(gcm_mpi_op_check(op, MPI_CHAR, NULL, "test"), 0);

    REDUCE_OK(a, b, 2, mat, op);
    /* inoutvec = invec op inoutvec: A*B, not B*A = {3, 4, 1, 2}. */
    ck_assert(b[0] == 2 && b[1] == 1 && b[2] == 4 && b[3] == 3);
    /* [[2,0],[0,1]] * [[1,1],[0,1]] = [[2,2],[0,1]] */
    ck_assert(b[4] == 2 && b[5] == 2 && b[6] == 0 && b[7] == 1);
    /* The user function got the caller's (count, datatype) unchanged. */
    ck_assert_int_eq(user_calls, 1);
    ck_assert_int_eq(user_seen_len, 2);
    ck_assert_ptr_eq(user_seen_type, mat);

    /* count 0: nothing to combine, the function is not called. */
    REDUCE_OK(a, b, 0, mat, op);
    ck_assert_int_eq(user_calls, 1);

    ck_assert_int_eq(MPI_Op_free(&op), MPI_SUCCESS);
    ck_assert_ptr_eq(op, MPI_OP_NULL);
    ck_assert_int_eq(MPI_Type_free(&mat), MPI_SUCCESS);
}
END_TEST

START_TEST(test_op_commutative_flags)
{
    MPI_Op op;
    int commute = -1;

    ck_assert_int_eq(MPI_Op_create(recorder, 1, &op), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Op_commutative(op, &commute), MPI_SUCCESS);
    ck_assert_int_eq(commute, 1);
    ck_assert_int_eq(MPI_Op_free(&op), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Op_commutative(MPI_MAX, &commute), MPI_SUCCESS);
    ck_assert_int_eq(commute, 1);
    ck_assert_int_eq(MPI_Op_commutative(MPI_MAXLOC, &commute), MPI_SUCCESS);
    ck_assert_int_eq(commute, 1);
    /* a REPLACE b = a and a NO_OP b = b do not commute. */
    ck_assert_int_eq(MPI_Op_commutative(MPI_REPLACE, &commute), MPI_SUCCESS);
    ck_assert_int_eq(commute, 0);
    ck_assert_int_eq(MPI_Op_commutative(MPI_NO_OP, &commute), MPI_SUCCESS);
    ck_assert_int_eq(commute, 0);
    ck_assert_int_eq(gcm_mpi_op_is_commutative(MPI_SUM), 1);
    ck_assert_int_eq(PMPI_Op_commutative(MPI_BXOR, &commute), MPI_SUCCESS);
    ck_assert_int_eq(commute, 1);
}
END_TEST

/* ---- derived datatypes --------------------------------------------------- */

/* vector(3, 2, 4) of doubles: per element the doubles at 0, 1, 4, 5, 8, 9
 * of an extent of 10. */
static int vec_selected(int j)
{
    int r = j % 10;

    return (r % 4) < 2;
}

START_TEST(test_op_vector_of_doubles_strided)
{
    MPI_Datatype vec;
    double in[20], io[20];
    MPI_Op op;
    int j;

    ck_assert_int_eq(MPI_Type_vector(3, 2, 4, MPI_DOUBLE, &vec),
                     MPI_SUCCESS);
    /* Not committed yet: not usable. */
    ck_assert_int_eq(MPI_Reduce_local(in, io, 1, vec, MPI_SUM),
                     MPI_ERR_TYPE);
    ck_assert_int_eq(MPI_Type_commit(&vec), MPI_SUCCESS);
    for (j = 0; j < 20; j++) {
        in[j] = j + 1;
        io[j] = vec_selected(j) ? 100 + j : -99;
    }
    REDUCE_OK(in, io, 2, vec, MPI_SUM);
    for (j = 0; j < 20; j++) {
        if (vec_selected(j)) {
            ck_assert_msg(io[j] == 100 + j + j + 1, "io[%d] = %g", j, io[j]);
        } else {
            ck_assert_msg(io[j] == -99, "gap io[%d] = %g", j, io[j]);
        }
    }
    for (j = 0; j < 20; j++) {
        in[j] = (j % 2 == 0) ? 1000 : -1000;
        io[j] = vec_selected(j) ? j : -99;
    }
    REDUCE_OK(in, io, 2, vec, MPI_MAX);
    REDUCE_OK(in, io, 2, vec, MPI_NO_OP);
    for (j = 0; j < 20; j++) {
        if (vec_selected(j)) {
            ck_assert(io[j] == ((j % 2 == 0) ? 1000 : j));
        } else {
            ck_assert(io[j] == -99);
        }
    }
    for (j = 0; j < 20; j++) {
        in[j] = 0.5 * j;
    }
    REDUCE_OK(in, io, 2, vec, MPI_REPLACE);
    for (j = 0; j < 20; j++) {
        ck_assert(io[j] == (vec_selected(j) ? 0.5 * j : -99));
    }
    expect_op_error(MPI_BAND, vec, "MPI_BAND is not defined on a datatype "
                    "built from MPI_DOUBLE");

    /* A user op sees the vector type, not doubles. */
    ck_assert_int_eq(MPI_Op_create(recorder, 1, &op), MPI_SUCCESS);
    user_calls = 0;
    REDUCE_OK(in, io, 2, vec, op);
    ck_assert_int_eq(user_calls, 1);
    ck_assert_int_eq(user_seen_len, 2);
    ck_assert_ptr_eq(user_seen_type, vec);
    ck_assert_int_eq(MPI_Op_free(&op), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Type_free(&vec), MPI_SUCCESS);
}
END_TEST

START_TEST(test_op_derived_contiguous_and_large)
{
    MPI_Datatype cont, big, pairs;
    int ci[6] = { 1, -2, 3, -4, 5, -6 }, co[6] = { 10, 20, 30, 40, 50, 60 };
    enum { NB = 1200, NP = 3000 };
    double *bin = calloc(3 * 2 * NB, sizeof(double));
    double *bio = calloc(3 * 2 * NB, sizeof(double));
    int *pin = calloc(4 * NP, sizeof(int)), *pio = calloc(4 * NP, sizeof(int));
    int j;

    ck_assert_ptr_nonnull(bin);
    ck_assert_ptr_nonnull(bio);
    ck_assert_ptr_nonnull(pin);
    ck_assert_ptr_nonnull(pio);

    /* Contiguous: reduced in place. */
    ck_assert_int_eq(MPI_Type_contiguous(3, MPI_INT, &cont), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Type_commit(&cont), MPI_SUCCESS);
    REDUCE_OK(ci, co, 2, cont, MPI_PROD);
    for (j = 0; j < 6; j++) {
        ck_assert_int_eq(co[j], ci[j] * 10 * (j + 1));
    }

    /* One element bigger than the internal chunk (9600 bytes). */
    ck_assert_int_eq(MPI_Type_vector(NB, 1, 2, MPI_DOUBLE, &big),
                     MPI_SUCCESS);
    ck_assert_int_eq(MPI_Type_commit(&big), MPI_SUCCESS);
    for (j = 0; j < 3 * 2 * NB; j++) {
        bin[j] = j;
        bio[j] = 3600.5;
    }
    /* Elements follow each other at the extent, (NB - 1) * 2 + 1; inside
     * one, every other double is selected. */
    REDUCE_OK(bin, bio, 3, big, MPI_MIN);
    for (j = 0; j < 3 * (2 * NB - 1); j++) {
        int k = j % (2 * NB - 1);
        double min = (j < 3600.5) ? j : 3600.5;

        ck_assert(bio[j] == ((k % 2 == 0) ? min : 3600.5));
    }
    REDUCE_OK(bin, bio, 3, big, MPI_SUM);
    for (j = 0; j < 3 * (2 * NB - 1); j++) {
        int k = j % (2 * NB - 1);
        double min = (j < 3600.5) ? j : 3600.5;

        ck_assert(bio[j] == ((k % 2 == 0) ? min + j : 3600.5));
    }
    ck_assert(bio[3 * (2 * NB - 1)] == 3600.5);
    /* Many small non-contiguous elements: several chunks. */
    ck_assert_int_eq(MPI_Type_vector(2, 1, 2, MPI_INT, &pairs), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Type_commit(&pairs), MPI_SUCCESS);
    for (j = 0; j < 3 * NP; j++) {
        pin[j] = j;
        pio[j] = 7;
    }
    REDUCE_OK(pin, pio, NP, pairs, MPI_BXOR);
    /* Extent 3 ints: offsets 0 and 2 of each element change. */
    for (j = 0; j < 3 * NP; j++) {
        ck_assert_int_eq(pio[j], (j % 3 == 1) ? 7 : (j ^ 7));
    }
    ck_assert_int_eq(pio[3 * NP], 0);

    MPI_Type_free(&cont);
    MPI_Type_free(&big);
    MPI_Type_free(&pairs);
    free(bin);
    free(bio);
    free(pin);
    free(pio);
}
END_TEST

/* ---- errors -------------------------------------------------------------- */

START_TEST(test_op_argument_errors)
{
    int in[2] = { 1, 2 }, io[2] = { 3, 4 };
    MPI_Op op = MPI_OP_NULL, keep = MPI_MAX;
    int commute;
    const char *text;

    capture_begin();
    ck_assert_int_eq(MPI_Reduce_local(in, io, -1, MPI_INT, MPI_SUM),
                     MPI_ERR_COUNT);
    text = capture_end();
    ck_assert_ptr_nonnull(strstr(text, "MPI_Reduce_local: count -1"));
    ck_assert_int_eq(MPI_Reduce_local(in, io, 2, MPI_DATATYPE_NULL, MPI_SUM),
                     MPI_ERR_TYPE);
    ck_assert_int_eq(MPI_Reduce_local(in, io, 2, MPI_INT, MPI_OP_NULL),
                     MPI_ERR_OP);
    ck_assert_int_eq(gcm_mpi_op_check(MPI_OP_NULL, MPI_INT, NULL, "test"),
                     MPI_ERR_OP);
    ck_assert_int_eq(MPI_Reduce_local(MPI_IN_PLACE, io, 2, MPI_INT, MPI_SUM),
                     MPI_ERR_BUFFER);
    ck_assert_int_eq(MPI_Reduce_local(in, MPI_IN_PLACE, 2, MPI_INT, MPI_SUM),
                     MPI_ERR_BUFFER);
    ck_assert_int_eq(MPI_Reduce_local(NULL, io, 2, MPI_INT, MPI_SUM),
                     MPI_ERR_BUFFER);
    ck_assert_int_eq(MPI_Reduce_local(in, NULL, 2, MPI_INT, MPI_SUM),
                     MPI_ERR_BUFFER);
    /* Nothing to touch: NULL is fine with count 0. */
    ck_assert_int_eq(MPI_Reduce_local(NULL, NULL, 0, MPI_INT, MPI_SUM),
                     MPI_SUCCESS);
    ck_assert_int_eq(io[0], 3);
    ck_assert_int_eq(io[1], 4);
    ck_assert_int_eq(gcm_mpi_op_check(MPI_SUM, MPI_INT, NULL, "test"), 0);

    /* Op_create, Op_free, Op_commutative. */
    ck_assert_int_eq(MPI_Op_create(NULL, 1, &op), MPI_ERR_ARG);
    ck_assert_int_eq(MPI_Op_create(recorder, 1, NULL), MPI_ERR_ARG);
    ck_assert_int_eq(MPI_Op_free(NULL), MPI_ERR_ARG);
    ck_assert_int_eq(MPI_Op_free(&keep), MPI_ERR_OP);
    ck_assert_ptr_eq(keep, MPI_MAX);
    ck_assert_int_eq(MPI_Op_commutative(MPI_OP_NULL, &commute), MPI_ERR_OP);
    ck_assert_int_eq(MPI_Op_commutative(MPI_SUM, NULL), MPI_ERR_ARG);

    /* A freed op: the handle is MPI_OP_NULL and is refused everywhere. */
    ck_assert_int_eq(MPI_Op_create(recorder, 0, &op), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Op_free(&op), MPI_SUCCESS);
    ck_assert_ptr_eq(op, MPI_OP_NULL);
    ck_assert_int_eq(MPI_Reduce_local(in, io, 2, MPI_INT, op), MPI_ERR_OP);
    ck_assert_int_eq(MPI_Op_free(&op), MPI_ERR_OP);
    ck_assert_int_eq(MPI_Op_commutative(op, &commute), MPI_ERR_OP);
    ck_assert_int_eq(io[0], 3);
    ck_assert_int_eq(io[1], 4);
}
END_TEST

START_TEST(test_op_predefined_handles_are_constants)
{
    /* Usable in static initializers, as the standard requires. */
    static const MPI_Op ops[] = { MPI_MAX, MPI_MIN, MPI_SUM, MPI_PROD,
                                  MPI_LAND, MPI_BAND, MPI_LOR, MPI_BOR,
                                  MPI_LXOR, MPI_BXOR, MPI_MINLOC, MPI_MAXLOC,
                                  MPI_REPLACE, MPI_NO_OP };
    size_t i, j;

    for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
        ck_assert_ptr_nonnull(ops[i]);
        for (j = 0; j < i; j++) {
            ck_assert_ptr_ne(ops[i], ops[j]);
        }
    }
}
END_TEST

static Suite *make_suite(void)
{
    const TTest *predef[] = {test_op_signed_integers_every_op,
        test_op_unsigned_and_wraparound, test_op_multi_language_and_byte,
        test_op_floating_point, test_op_complex_sum_prod,
        test_op_c_bool_logicals, test_op_char_and_opaque_types,
        test_op_minloc_maxloc_with_ties, test_op_minloc_many_pairs_in_chunks,
        test_op_vector_lengths_and_offsets, NULL};
    const TTest *user[] = {test_op_user_noncommutative_order,
        test_op_commutative_flags, NULL};
    const TTest *derived[] = {test_op_vector_of_doubles_strided,
        test_op_derived_contiguous_and_large, NULL};
    const TTest *errors[] = {test_op_argument_errors,
        test_op_predefined_handles_are_constants, NULL};
    const struct gcm_check_case cases[] = {
        {"predefined", .tests = predef},
        {"user", .tests = user},
        {"derived", .tests = derived},
        {"errors", .tests = errors},
        {0},
    };

    return gcm_check_suite("mpi_op", cases);
}
