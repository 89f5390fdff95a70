/*
 * tests/mpi/rma_sync.c: one-sided communication (MPI-3.1 chapter 11) with
 * every synchronization mode, as a program would use them, over windows
 * of MPI_Win_create (the user's memory and MPI_Alloc_mem memory) and
 * MPI_Win_allocate:
 * - fence: puts to every rank and gets from a neighbour, contiguous and
 *   with derived datatypes on either side, MPI_MODE_NOPRECEDE and
 *   MPI_MODE_NOSUCCEED;
 * - post/start/complete/wait around a ring, and with MPI_Win_test, and
 *   with the whole group;
 * - lock/unlock: exclusive locks that must exclude one another (every
 *   rank increments a counter by get and put, many times), shared locks;
 *   lock_all with flush, flush_all, flush_local, flush_local_all and
 *   MPI_Win_sync;
 * - the request forms (MPI_Rput, MPI_Rget, MPI_Raccumulate,
 *   MPI_Rget_accumulate) waited with MPI_Waitall and MPI_Test.
 * Every result is checked against what the ranks wrote.
 */
#include <mpi.h>

#include "mpitest.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int me, n;

enum { FLAVOR_CREATE, FLAVOR_ALLOC_MEM, FLAVOR_ALLOCATE, NFLAVORS };
static const char *const flavor_name[NFLAVORS] = {
    "MPI_Win_create", "MPI_Win_create over MPI_Alloc_mem", "MPI_Win_allocate"
};

/* A window of len ints in the given way; *mem_p is its memory. */
static MPI_Win make_win(int flavor, int len, int **mem_p)
{
    MPI_Aint size = (MPI_Aint)len * (MPI_Aint)sizeof(int);
    MPI_Win win = MPI_WIN_NULL;
    int *mem = NULL;

    switch (flavor) {
    case FLAVOR_CREATE:
        mem = calloc((size_t)len, sizeof(int));
        OK(MPI_Win_create(mem, size, sizeof(int), MPI_INFO_NULL,
                          MPI_COMM_WORLD, &win));
        break;
    case FLAVOR_ALLOC_MEM:
        OK(MPI_Alloc_mem(size, MPI_INFO_NULL, &mem));
        memset(mem, 0, (size_t)size);
        OK(MPI_Win_create(mem, size, sizeof(int), MPI_INFO_NULL,
                          MPI_COMM_WORLD, &win));
        break;
    default:
        OK(MPI_Win_allocate(size, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD,
                            &mem, &win));
        memset(mem, 0, (size_t)size);
        break;
    }
    *mem_p = mem;
    return win;
}

static void free_win(int flavor, MPI_Win *win, int *mem)
{
    OK(MPI_Win_free(win));
    CHECK(*win == MPI_WIN_NULL, "MPI_Win_free left the handle set");
    if (flavor == FLAVOR_CREATE) {
        free(mem);
    } else if (flavor == FLAVOR_ALLOC_MEM) {
        OK(MPI_Free_mem(mem));
    }
}

/* ---- fence ------------------------------------------------------------ */

/* Layout of the fence window: [0, n) one slot per rank; [n, n + 8) a
 * strided area; [n + 8, 2n + 8) for gets; [2n + 8, 2n + 16) for pairs. */
static void test_fence(int flavor)
{
    const char *what = flavor_name[flavor];
    int len = 2 * n + 16, right = (me + 1) % n, left = (me + n - 1) % n;
    int *mem, *got = calloc((size_t)len, sizeof(int)), four[4], i;
    MPI_Datatype every_other, pairs;
    MPI_Win win = make_win(flavor, len, &mem);

    for (i = 0; i < n; i++) {
        mem[n + 8 + i] = 1000 * me + i;
    }
    OK(MPI_Win_fence(MPI_MODE_NOPRECEDE, win));
    for (i = 0; i < n; i++) {
        OK(MPI_Put(&me, 1, MPI_INT, i, me, 1, MPI_INT, win));
    }
    OK(MPI_Get(got, n, MPI_INT, right, n + 8, n, MPI_INT, win));
    OK(MPI_Win_fence(0, win));
    for (i = 0; i < n; i++) {
        CHECK(mem[i] == i, "%s: fence put: slot %d holds %d", what, i,
              mem[i]);
        CHECK(got[i] == 1000 * right + i, "%s: fence get: %d is %d", what, i,
              got[i]);
    }

    /* Contiguous origin into every other int of the left neighbour's
     * strided area, and back with a strided origin. */
    MPI_Type_vector(4, 1, 2, MPI_INT, &every_other);
    MPI_Type_commit(&every_other);
    for (i = 0; i < 4; i++) {
        four[i] = 100 * me + i;
    }
    OK(MPI_Put(four, 4, MPI_INT, left, n, 1, every_other, win));
    OK(MPI_Win_fence(0, win));
    for (i = 0; i < 4; i++) {
        CHECK(mem[n + 2 * i] == 100 * right + i && mem[n + 2 * i + 1] == 0,
              "%s: vector put: %d %d", what, mem[n + 2 * i],
              mem[n + 2 * i + 1]);
    }
    memset(got, 0, (size_t)len * sizeof(int));
    OK(MPI_Get(got, 1, every_other, right, n, 1, every_other, win));
    /* pairs: two ints at a time, as a contiguous type of a derived one */
    MPI_Type_contiguous(2, MPI_INT, &pairs);
    MPI_Type_commit(&pairs);
    OK(MPI_Put(&four[0], 2, pairs, me, 2 * n + 8, 4, MPI_INT, win));
    OK(MPI_Win_fence(MPI_MODE_NOSUCCEED, win));
    for (i = 0; i < 4; i++) {
        /* right's area holds (right + 1)'s values */
        CHECK(got[2 * i] == 100 * ((right + 1) % n) + i,
              "%s: vector get: %d is %d", what, 2 * i, got[2 * i]);
        CHECK(mem[2 * n + 8 + i] == 100 * me + i, "%s: pairs put: %d", what,
              mem[2 * n + 8 + i]);
    }
    MPI_Type_free(&every_other);
    MPI_Type_free(&pairs);
    free_win(flavor, &win, mem);
    free(got);
}

/* ---- post, start, complete, wait ----------------------------------------- */

static MPI_Group group_of(int count, const int ranks[])
{
    MPI_Group world, g;

    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MPI_Group_incl(world, count, ranks, &g);
    MPI_Group_free(&world);
    return g;
}

static void test_pscw(int flavor)
{
    const char *what = flavor_name[flavor];
    int right = (me + 1) % n, left = (me + n - 1) % n, round, flag, i;
    int *mem, *all = malloc((size_t)n * sizeof(int));
    MPI_Group gl = group_of(1, &left), gr = group_of(1, &right), gall;
    MPI_Win win = make_win(flavor, n + 2, &mem);

    for (i = 0; i < n; i++) {
        all[i] = i;
    }
    gall = group_of(n, all);
    for (round = 0; round < 3; round++) {
        int v = 10 * round + me;

        /* Exposed to the left neighbour, accessing the right one. */
        OK(MPI_Win_post(gl, 0, win));
        OK(MPI_Win_start(gr, 0, win));
        OK(MPI_Put(&v, 1, MPI_INT, right, n, 1, MPI_INT, win));
        OK(MPI_Win_complete(win));
        if (round == 1) {
            flag = 0;
            while (!flag) {
                OK(MPI_Win_test(win, &flag));
            }
        } else {
            OK(MPI_Win_wait(win));
        }
        CHECK(mem[n] == 10 * round + left, "%s: PSCW round %d: got %d", what,
              round, mem[n]);
    }
    /* Everybody with everybody: each adds one to every rank's slot. */
    OK(MPI_Win_post(gall, MPI_MODE_NOSTORE, win));
    OK(MPI_Win_start(gall, 0, win));
    for (i = 0; i < n; i++) {
        int one = 1;

        OK(MPI_Accumulate(&one, 1, MPI_INT, i, n + 1, 1, MPI_INT, MPI_SUM,
                          win));
    }
    OK(MPI_Win_complete(win));
    OK(MPI_Win_wait(win));
    CHECK(mem[n + 1] == n, "%s: PSCW with all: %d", what, mem[n + 1]);
    MPI_Group_free(&gl);
    MPI_Group_free(&gr);
    MPI_Group_free(&gall);
    free(all);
    free_win(flavor, &win, mem);
}

/* ---- passive target -------------------------------------------------------- */

#define INCREMENTS 50

static void test_lock(int flavor)
{
    const char *what = flavor_name[flavor];
    int *mem, v, i, r, right = (me + 1) % n, vals[64];
    MPI_Win win = make_win(flavor, n + 4, &mem);

    OK(MPI_Barrier(MPI_COMM_WORLD));
    /* A read-modify-write of rank 0's counter, only right under an
     * exclusive lock. */
    for (i = 0; i < INCREMENTS; i++) {
        OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win));
        OK(MPI_Get(&v, 1, MPI_INT, 0, n, 1, MPI_INT, win));
        OK(MPI_Win_flush(0, win));
        v++;
        OK(MPI_Put(&v, 1, MPI_INT, 0, n, 1, MPI_INT, win));
        OK(MPI_Win_unlock(0, win));
    }
    OK(MPI_Barrier(MPI_COMM_WORLD));
    OK(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
    OK(MPI_Get(&v, 1, MPI_INT, 0, n, 1, MPI_INT, win));
    OK(MPI_Win_unlock(0, win));
    CHECK(v == n * INCREMENTS, "%s: exclusive increments: %d, expected %d",
          what, v, n * INCREMENTS);

    /* lock_all: everyone writes its rank to every rank, flushes in each
     * way, and reads it back. */
    OK(MPI_Win_lock_all(0, win));
    for (r = 0; r < n; r++) {
        OK(MPI_Put(&me, 1, MPI_INT, r, me, 1, MPI_INT, win));
        if (r % 2) {
            OK(MPI_Win_flush(r, win));
        } else {
            OK(MPI_Win_flush_local(r, win));
        }
    }
    OK(MPI_Win_flush_all(win));
    OK(MPI_Win_flush_local_all(win));
    OK(MPI_Win_sync(win));
    OK(MPI_Get(vals, 1, MPI_INT, right, me, 1, MPI_INT, win));
    OK(MPI_Win_unlock_all(win));
    CHECK(vals[0] == me, "%s: lock_all: read back %d", what, vals[0]);
    OK(MPI_Barrier(MPI_COMM_WORLD));
    OK(MPI_Win_lock(MPI_LOCK_SHARED, me, 0, win));
    for (r = 0; r < n && r < 64; r++) {
        vals[r] = mem[r];
    }
    OK(MPI_Win_unlock(me, win));
    for (r = 0; r < n && r < 64; r++) {
        CHECK(vals[r] == r, "%s: lock_all: slot %d holds %d", what, r,
              vals[r]);
    }
    /* MPI_MODE_NOCHECK: the program knows nobody conflicts. */
    OK(MPI_Barrier(MPI_COMM_WORLD));
    OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, right, MPI_MODE_NOCHECK, win));
    v = 77 + me;
    OK(MPI_Put(&v, 1, MPI_INT, right, n + 1, 1, MPI_INT, win));
    OK(MPI_Win_unlock(right, win));
    OK(MPI_Barrier(MPI_COMM_WORLD));
    OK(MPI_Win_lock(MPI_LOCK_SHARED, me, 0, win));
    v = mem[n + 1];
    OK(MPI_Win_unlock(me, win));
    CHECK(v == 77 + (me + n - 1) % n, "%s: NOCHECK lock: %d", what, v);
    OK(MPI_Barrier(MPI_COMM_WORLD));
    free_win(flavor, &win, mem);
}

/* ---- request forms ---------------------------------------------------------- */

static void test_requests(int flavor)
{
    const char *what = flavor_name[flavor];
    int *mem, right = (me + 1) % n, left = (me + n - 1) % n, flag = 0;
    int got = -1, fetched = -1, one = 1, v = 500 + me;
    MPI_Request reqs[4];
    MPI_Win win = make_win(flavor, n + 4, &mem);

    mem[n + 3] = 900 + me;
    OK(MPI_Barrier(MPI_COMM_WORLD));
    OK(MPI_Win_lock_all(0, win));
    OK(MPI_Rput(&v, 1, MPI_INT, right, n, 1, MPI_INT, win, &reqs[0]));
    OK(MPI_Rget(&got, 1, MPI_INT, left, n + 3, 1, MPI_INT, win, &reqs[1]));
    OK(MPI_Raccumulate(&one, 1, MPI_INT, 0, n + 1, 1, MPI_INT, MPI_SUM, win,
                       &reqs[2]));
    OK(MPI_Rget_accumulate(&one, 1, MPI_INT, &fetched, 1, MPI_INT, 0, n + 2,
                           1, MPI_INT, MPI_SUM, win, &reqs[3]));
    OK(MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE));
    while (!flag) {
        OK(MPI_Test(&reqs[2], &flag, MPI_STATUS_IGNORE));
    }
    OK(MPI_Wait(&reqs[3], MPI_STATUS_IGNORE));
    CHECK(reqs[0] == MPI_REQUEST_NULL && reqs[3] == MPI_REQUEST_NULL,
          "%s: requests not freed", what);
    CHECK(got == 900 + left, "%s: Rget got %d", what, got);
    CHECK(fetched >= 0 && fetched < n, "%s: Rget_accumulate fetched %d",
          what, fetched);
    OK(MPI_Win_unlock_all(win));
    OK(MPI_Barrier(MPI_COMM_WORLD));
    OK(MPI_Win_lock(MPI_LOCK_SHARED, me, 0, win));
    CHECK(mem[n] == 500 + left, "%s: Rput: %d", what, mem[n]);
    if (me == 0) {
        CHECK(mem[n + 1] == n && mem[n + 2] == n,
              "%s: Raccumulate %d, Rget_accumulate %d", what, mem[n + 1],
              mem[n + 2]);
    }
    OK(MPI_Win_unlock(me, win));
    free_win(flavor, &win, mem);
}

int main(int argc, char **argv)
{
    int flavor;

    mpitest_init(&argc, &argv, "rma_sync", 0);
    mpitest_world(&me, &n);
    for (flavor = 0; flavor < NFLAVORS; flavor++) {
        test_fence(flavor);
        test_pscw(flavor);
        test_lock(flavor);
        test_requests(flavor);
    }
    return mpitest_finish();
}
