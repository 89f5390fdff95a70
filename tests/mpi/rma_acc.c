/*
 * tests/mpi/rma_acc.c: the accumulate family of one-sided communication
 * (MPI-3.1 11.3.4 and 11.7.1), every rank targeting every rank:
 * - MPI_Accumulate with every predefined operation on the predefined
 *   types it is defined on (ints, unsigned, long long, double, float,
 *   double complex, the value-index pairs of MINLOC and MAXLOC), under
 *   fences, against closed forms; MPI_REPLACE leaves one of the values,
 *   MPI_NO_OP none;
 * - a derived target datatype (every third int) and a derived origin;
 * - MPI_Get_accumulate and MPI_Fetch_and_op under MPI_Win_lock_all: every
 *   rank adds to one counter many times and the values fetched, gathered,
 *   are each of 0 .. total - 1 once (the adds are atomic); NO_OP fetches,
 *   REPLACE swaps; 4-byte signed and unsigned (wrapping) counters;
 * - MPI_Compare_and_swap: every rank tries to swap its rank into a word
 *   that holds -1; exactly one wins, and all see the winner.
 */
#include <mpi.h>

#include "mpitest.h"

#include <complex.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int me, n;
/* Windows of MPI_Win_create over malloc'd memory (reached through the
 * kernel's copies on one host) rather than of MPI_Win_allocate (shared
 * memory): the whole test runs both ways. */
static int use_create;
static void *created[64];
static int ncreated;

static int win_alloc(MPI_Aint size, int unit, void *mem_p, MPI_Win *win)
{
    void *mem;

    if (!use_create) {
        return MPI_Win_allocate(size, unit, MPI_INFO_NULL, MPI_COMM_WORLD,
                                mem_p, win);
    }
    mem = calloc(1, (size_t)size);
    created[ncreated++ % 64] = mem;
    *(void **)mem_p = mem;
    return MPI_Win_create(mem, size, unit, MPI_INFO_NULL, MPI_COMM_WORLD,
                          win);
}

static int win_free(MPI_Win *win)
{
    int rc = MPI_Win_free(win);

    if (use_create) {
        free(created[--ncreated % 64]);
    }
    return rc;
}

/* The value rank r contributes (small, so that products stay exact). */
static long long contrib(int r)
{
    return (r % 3) + 1;
}

/* One accumulate of each rank's value into every rank's slot, from the
 * given start value, and the result compared with what the closed form
 * gives. T: the C type, mpit the MPI type. */
#define TRY_OP(T, mpit, opname, op, start, fold)                         \
    do {                                                                  \
        T *mem, v = (T)contrib(me), want = (T)(start);                    \
        MPI_Win win;                                                      \
        int i_, r_;                                                       \
        OK(win_alloc((MPI_Aint)sizeof(T) * 2, sizeof(T), &mem, &win));    \
        mem[0] = (T)(start);                                              \
        OK(MPI_Win_fence(0, win));                                        \
        for (i_ = 0; i_ < n; i_++) {                                      \
            OK(MPI_Accumulate(&v, 1, mpit, i_, 0, 1, mpit, op, win));     \
        }                                                                 \
        OK(MPI_Win_fence(0, win));                                        \
        for (r_ = 0; r_ < n; r_++) {                                      \
            T c_ = (T)contrib(r_);                                        \
            (void)c_;                                                     \
            want = fold;                                                  \
        }                                                                 \
        CHECK(mem[0] == want, "%s on %s: %g, expected %g", opname, #mpit, \
              (double)mem[0], (double)want);                              \
        OK(win_free(&win));                                           \
    } while (0)

static void test_ops(void)
{
    TRY_OP(int, MPI_INT, "MPI_SUM", MPI_SUM, 5, want + c_);
    TRY_OP(int, MPI_INT, "MPI_PROD", MPI_PROD, 1, want * c_);
    TRY_OP(int, MPI_INT, "MPI_MAX", MPI_MAX, -7, (c_ > want) ? c_ : want);
    TRY_OP(int, MPI_INT, "MPI_MIN", MPI_MIN, 9, (c_ < want) ? c_ : want);
    TRY_OP(int, MPI_INT, "MPI_BAND", MPI_BAND, 0xff, want & c_);
    TRY_OP(int, MPI_INT, "MPI_BOR", MPI_BOR, 0x40, want | c_);
    TRY_OP(int, MPI_INT, "MPI_BXOR", MPI_BXOR, 0x40, want ^ c_);
    TRY_OP(int, MPI_INT, "MPI_LAND", MPI_LAND, 1, want && c_);
    TRY_OP(int, MPI_INT, "MPI_LOR", MPI_LOR, 0, want || c_);
    TRY_OP(int, MPI_INT, "MPI_LXOR", MPI_LXOR, 0, (!want) != (!c_));
    TRY_OP(int, MPI_INT, "MPI_NO_OP", MPI_NO_OP, 42, want);
    TRY_OP(unsigned, MPI_UNSIGNED, "MPI_SUM", MPI_SUM, 3, want + c_);
    TRY_OP(long long, MPI_LONG_LONG, "MPI_SUM", MPI_SUM, 1LL << 40,
           want + c_);
    TRY_OP(double, MPI_DOUBLE, "MPI_SUM", MPI_SUM, 0.5, want + c_);
    TRY_OP(double, MPI_DOUBLE, "MPI_PROD", MPI_PROD, 2.0, want * c_);
    TRY_OP(double, MPI_DOUBLE, "MPI_MAX", MPI_MAX, -1.5,
           (c_ > want) ? c_ : want);
    TRY_OP(float, MPI_FLOAT, "MPI_MIN", MPI_MIN, 8.0f,
           (c_ < want) ? c_ : want);
    TRY_OP(int8_t, MPI_INT8_T, "MPI_SUM", MPI_SUM, 1, want + c_);
    TRY_OP(uint16_t, MPI_UINT16_T, "MPI_BOR", MPI_BOR, 0x100, want | c_);
}

/* REPLACE: the slot ends as one rank's value; complex sums; pairs. */
static void test_special(void)
{
    double complex *cmem, cv = (double)me + I * 2.0, cwant = 1.0;
    struct { double v; int i; } *pmem, pv;
    struct { int v; int i; } *imem, iv;
    int *mem, v = 1000 + me, i, r;
    MPI_Win win;

    OK(win_alloc(sizeof(int), sizeof(int), &mem, &win));
    mem[0] = -1;
    OK(MPI_Win_fence(0, win));
    for (i = 0; i < n; i++) {
        OK(MPI_Accumulate(&v, 1, MPI_INT, i, 0, 1, MPI_INT, MPI_REPLACE,
                          win));
    }
    OK(MPI_Win_fence(0, win));
    CHECK(mem[0] >= 1000 && mem[0] < 1000 + n, "MPI_REPLACE left %d",
          mem[0]);
    OK(win_free(&win));

    OK(win_alloc(sizeof(*cmem), sizeof(*cmem), &cmem, &win));
    cmem[0] = 1.0;
    OK(MPI_Win_fence(0, win));
    for (i = 0; i < n; i++) {
        OK(MPI_Accumulate(&cv, 1, MPI_C_DOUBLE_COMPLEX, i, 0, 1,
                          MPI_C_DOUBLE_COMPLEX, MPI_SUM, win));
    }
    OK(MPI_Win_fence(0, win));
    for (r = 0; r < n; r++) {
        cwant += (double)r + I * 2.0;
    }
    CHECK(creal(cmem[0]) == creal(cwant) && cimag(cmem[0]) == cimag(cwant),
          "complex sum (%g, %g), expected (%g, %g)", creal(cmem[0]),
          cimag(cmem[0]), creal(cwant), cimag(cwant));
    OK(win_free(&win));

    /* MAXLOC on (double, int): the largest value, ties to the smallest
     * index; MINLOC on (int, int). */
    OK(win_alloc(sizeof(*pmem), sizeof(*pmem), &pmem, &win));
    pmem[0].v = -1.0;
    pmem[0].i = -1;
    OK(MPI_Win_fence(0, win));
    pv.v = (double)(me % 2);
    pv.i = me;
    for (i = 0; i < n; i++) {
        OK(MPI_Accumulate(&pv, 1, MPI_DOUBLE_INT, i, 0, 1, MPI_DOUBLE_INT,
                          MPI_MAXLOC, win));
    }
    OK(MPI_Win_fence(0, win));
    CHECK(pmem[0].v == ((n > 1) ? 1.0 : 0.0) && pmem[0].i == ((n > 1) ? 1 : 0),
          "MPI_MAXLOC: (%g, %d)", pmem[0].v, pmem[0].i);
    OK(win_free(&win));

    OK(win_alloc(sizeof(*imem), sizeof(*imem), &imem, &win));
    imem[0].v = 1 << 20;
    imem[0].i = -1;
    OK(MPI_Win_fence(0, win));
    iv.v = 10 - (me % 3);
    iv.i = me;
    for (i = 0; i < n; i++) {
        OK(MPI_Accumulate(&iv, 1, MPI_2INT, i, 0, 1, MPI_2INT, MPI_MINLOC,
                          win));
    }
    OK(MPI_Win_fence(0, win));
    CHECK(imem[0].v == 10 - ((n > 2) ? 2 : n - 1) &&
          imem[0].i == ((n > 2) ? 2 : n - 1), "MPI_MINLOC: (%d, %d)",
          imem[0].v, imem[0].i);
    OK(win_free(&win));
}

/* Every third int of the target, from an origin vector of every other
 * int. */
static void test_derived(void)
{
    enum { K = 5 };
    MPI_Datatype third, second;
    int *mem, src[2 * K], i, r, len = 3 * K;
    MPI_Win win;

    MPI_Type_vector(K, 1, 3, MPI_INT, &third);
    MPI_Type_commit(&third);
    MPI_Type_vector(K, 1, 2, MPI_INT, &second);
    MPI_Type_commit(&second);
    for (i = 0; i < 2 * K; i++) {
        src[i] = (i % 2) ? -1000 : (i / 2 + 1) * (me + 1);
    }
    OK(win_alloc((MPI_Aint)len * (MPI_Aint)sizeof(int), sizeof(int), &mem,
                 &win));
    for (i = 0; i < len; i++) {
        mem[i] = 7;
    }
    OK(MPI_Win_fence(0, win));
    for (r = 0; r < n; r++) {
        OK(MPI_Accumulate(src, 1, second, r, 0, 1, third, MPI_SUM, win));
    }
    OK(MPI_Win_fence(0, win));
    for (i = 0; i < len; i++) {
        int want = 7 + ((i % 3 == 0) ? (i / 3 + 1) * n * (n + 1) / 2 : 0);

        CHECK(mem[i] == want, "derived accumulate: %d is %d, expected %d", i,
              mem[i], want);
    }
    OK(win_free(&win));
    MPI_Type_free(&third);
    MPI_Type_free(&second);
}

#define ADDS 40

static int cmp_ll(const void *a, const void *b)
{
    long long x = *(const long long *)a, y = *(const long long *)b;

    return (x < y) ? -1 : (x > y);
}

/* Fetched values of atomic adds, from all ranks, are 0 .. total - 1. */
static void check_fetched(long long *mine, int count, const char *what)
{
    long long *all = NULL;
    int i;

    if (me == 0) {
        all = malloc((size_t)count * (size_t)n * sizeof(*all));
    }
    MPI_Gather(mine, count, MPI_LONG_LONG, all, count, MPI_LONG_LONG, 0,
               MPI_COMM_WORLD);
    if (me == 0) {
        qsort(all, (size_t)count * (size_t)n, sizeof(*all), cmp_ll);
        for (i = 0; i < count * n; i++) {
            CHECK(all[i] == i, "%s: fetched values: %d-th is %lld", what, i,
                  all[i]);
            if (all[i] != i) {
                break;
            }
        }
        free(all);
    }
}

/* Fetch_and_op on 4-byte integers: every rank adds -3 to a signed
 * counter at rank 0 and 1 to an unsigned one that starts at its largest
 * value (so it wraps); the values fetched are each the counter's as it
 * was. */
static void test_fetch32(void)
{
    int *mem, minus = -3, old;
    unsigned one = 1, uold, *umem;
    MPI_Win win;

    OK(win_alloc(2 * sizeof(int), sizeof(int), &mem, &win));
    umem = (unsigned *)&mem[1];
    mem[0] = 0;
    *umem = UINT32_MAX;
    OK(MPI_Barrier(MPI_COMM_WORLD));
    OK(MPI_Win_lock_all(0, win));
    OK(MPI_Fetch_and_op(&minus, &old, MPI_INT, 0, 0, MPI_SUM, win));
    OK(MPI_Fetch_and_op(&one, &uold, MPI_UNSIGNED, 0, 1, MPI_SUM, win));
    OK(MPI_Win_unlock_all(win));
    CHECK(old <= 0 && old > -3 * n && old % 3 == 0,
          "MPI_Fetch_and_op(MPI_INT) fetched %d", old);
    CHECK(uold == UINT32_MAX || uold < (unsigned)n - 1,
          "MPI_Fetch_and_op(MPI_UNSIGNED) fetched %u", uold);
    OK(MPI_Barrier(MPI_COMM_WORLD));
    if (me == 0) {
        OK(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
        CHECK(mem[0] == -3 * n && *umem == (unsigned)n - 1,
              "4-byte counters %d %u, expected %d %u", mem[0], *umem,
              -3 * n, (unsigned)n - 1);
        OK(MPI_Win_unlock(0, win));
    }
    OK(MPI_Barrier(MPI_COMM_WORLD));
    OK(win_free(&win));
}

static void test_fetch(void)
{
    long long *mem, one = 1, got[ADDS], gacc[ADDS], old, newv, probe;
    MPI_Win win;
    int i, t;

    OK(win_alloc(4 * sizeof(long long), sizeof(long long), &mem, &win));
    memset(mem, 0, 4 * sizeof(long long));
    OK(MPI_Barrier(MPI_COMM_WORLD));
    OK(MPI_Win_lock_all(0, win));
    for (t = 0; t < n; t++) {
        /* Each rank's counters at rank t: word 0 by Fetch_and_op, word 1
         * by Get_accumulate; only rank t's results are checked. */
        for (i = 0; i < ADDS; i++) {
            OK(MPI_Fetch_and_op(&one, &got[i], MPI_LONG_LONG, t, 0, MPI_SUM,
                                win));
            OK(MPI_Get_accumulate(&one, 1, MPI_LONG_LONG, &gacc[i], 1,
                                  MPI_LONG_LONG, t, 1, 1, MPI_LONG_LONG,
                                  MPI_SUM, win));
            OK(MPI_Win_flush(t, win));
        }
        if (t == 0) {
            OK(MPI_Win_unlock_all(win));
            check_fetched(got, ADDS, "MPI_Fetch_and_op");
            check_fetched(gacc, ADDS, "MPI_Get_accumulate");
            OK(MPI_Win_lock_all(0, win));
        }
    }
    OK(MPI_Win_unlock_all(win));
    OK(MPI_Barrier(MPI_COMM_WORLD));
    /* Local reads of the window after the others' passive epochs: in an
     * epoch of this process's own. */
    OK(MPI_Win_lock(MPI_LOCK_SHARED, me, 0, win));
    CHECK(mem[0] == (long long)n * ADDS && mem[1] == (long long)n * ADDS,
          "counters %lld %lld, expected %lld", mem[0], mem[1],
          (long long)n * ADDS);
    OK(MPI_Win_unlock(me, win));

    /* NO_OP reads, REPLACE swaps (one rank at a time). */
    for (t = 0; t < n; t++) {
        if (me == t) {
            OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win));
            OK(MPI_Fetch_and_op(NULL, &probe, MPI_LONG_LONG, 0, 2, MPI_NO_OP,
                                win));
            OK(MPI_Win_flush(0, win));
            newv = 100 + me;
            OK(MPI_Fetch_and_op(&newv, &old, MPI_LONG_LONG, 0, 2,
                                MPI_REPLACE, win));
            OK(MPI_Win_unlock(0, win));
            CHECK(probe == old && old == ((me == 0) ? 0 : 99 + me),
                  "NO_OP read %lld, REPLACE returned %lld", probe, old);
        }
        OK(MPI_Barrier(MPI_COMM_WORLD));
    }
    OK(win_free(&win));
    test_fetch32();
}

static void test_cas(void)
{
    int *mem, mine = me, cmp = -1, old = -2, winner, wins;
    MPI_Win win;

    OK(win_alloc(sizeof(int), sizeof(int), &mem, &win));
    mem[0] = -1;
    OK(MPI_Win_fence(0, win));
    OK(MPI_Compare_and_swap(&mine, &cmp, &old, MPI_INT, n - 1, 0, win));
    OK(MPI_Win_fence(0, win));
    /* The winner saw -1; the others saw the winner's rank. */
    wins = (old == -1);
    OK(MPI_Allreduce(MPI_IN_PLACE, &wins, 1, MPI_INT, MPI_SUM,
                     MPI_COMM_WORLD));
    CHECK(wins == 1, "%d ranks won the compare-and-swap", wins);
    winner = (old == -1) ? me : old;
    OK(MPI_Bcast(&mem[0], 1, MPI_INT, n - 1, MPI_COMM_WORLD));
    CHECK(winner == mem[0], "compare-and-swap: saw %d, the word holds %d",
          winner, mem[0]);
    OK(win_free(&win));
}

int main(int argc, char **argv)
{
    mpitest_init(&argc, &argv, "rma_acc", 0);
    mpitest_world(&me, &n);
    for (use_create = 0; use_create < 2; use_create++) {
        test_ops();
        test_special();
        test_derived();
        test_fetch();
        test_cas();
    }
    return mpitest_finish();
}
