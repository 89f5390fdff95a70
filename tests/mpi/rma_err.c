/*
 * tests/mpi/rma_err.c: misuse of one-sided communication gets the
 * standard's error class (MPI-3.1 11.8) under MPI_ERRORS_RETURN, with a
 * text that names the call, and never a crash or a hang; the window
 * stays usable after each:
 * MPI_ERR_RANK (a target outside the group), MPI_ERR_RMA_RANGE (beyond
 * the target's window, negative displacement), MPI_ERR_RMA_SYNC (an
 * operation outside any epoch, unlock without lock, complete without
 * start, wait without post, flush without a passive epoch, a second
 * lock of one target, lock_all inside a lock epoch, freeing a window
 * with an epoch open), MPI_ERR_LOCKTYPE, MPI_ERR_ASSERT, MPI_ERR_WIN
 * (MPI_WIN_NULL, a freed window's handle), MPI_ERR_OP (a user operation,
 * an operation not defined on the type), MPI_ERR_TYPE (origin and target
 * of different sizes, types of different basic kinds), MPI_ERR_COUNT,
 * MPI_ERR_SIZE and MPI_ERR_DISP when a window is made (every member
 * fails alike), MPI_ERR_COMM (an intercommunicator), MPI_ERR_RMA_SHARED
 * is in rma_win.c, MPI_ERR_RMA_ATTACH and MPI_ERR_RMA_FLAVOR too.
 */
#include <mpi.h>

#include "mpitest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int me, n;

/* The call fails with class want, and the text names the call. */
/* call must fail with class want and a text that names fname. */
#define EXPECT_IN(call, want, fname) \
    EXPECT_ERR((call), (want), (fname), "%s", #call)

static void user_sum(void *in, void *inout, int *len, MPI_Datatype *type)
{
    (void)in;
    (void)inout;
    (void)len;
    (void)type;
}

int main(int argc, char **argv)
{
    int *mem, v = 1, got, right;
    double d = 1.0;
    MPI_Win win, stale;
    MPI_Op uop;
    MPI_Group world;
    MPI_Comm half, inter;

    mpitest_init(&argc, &argv, "rma_err", 1);
    mpitest_world(&me, &n);
    right = (me + 1) % n;

    OK(MPI_Win_allocate(4 * sizeof(int), sizeof(int), MPI_INFO_NULL,
                        MPI_COMM_WORLD, &mem, &win));
    OK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));

    /* Outside any epoch. */
    EXPECT_IN(MPI_Put(&v, 1, MPI_INT, right, 0, 1, MPI_INT, win),
              MPI_ERR_RMA_SYNC, "MPI_Put");
    EXPECT_IN(MPI_Win_unlock(right, win), MPI_ERR_RMA_SYNC, "MPI_Win_unlock");
    EXPECT_IN(MPI_Win_unlock_all(win), MPI_ERR_RMA_SYNC, "MPI_Win_unlock_all");
    EXPECT_IN(MPI_Win_complete(win), MPI_ERR_RMA_SYNC, "MPI_Win_complete");
    EXPECT_IN(MPI_Win_wait(win), MPI_ERR_RMA_SYNC, "MPI_Win_wait");
    EXPECT_IN(MPI_Win_flush(right, win), MPI_ERR_RMA_SYNC, "MPI_Win_flush");
    EXPECT_IN(MPI_Win_flush_all(win), MPI_ERR_RMA_SYNC, "MPI_Win_flush_all");
    {
        MPI_Request req;

        EXPECT_IN(MPI_Rput(&v, 1, MPI_INT, right, 0, 1, MPI_INT, win, &req),
                  MPI_ERR_RMA_SYNC, "MPI_Rput");
    }

    /* Lock misuse. */
    EXPECT_IN(MPI_Win_lock(17, right, 0, win), MPI_ERR_LOCKTYPE,
              "MPI_Win_lock");
    EXPECT_IN(MPI_Win_lock(MPI_LOCK_SHARED, right, MPI_MODE_NOPRECEDE, win),
              MPI_ERR_ASSERT, "MPI_Win_lock");
    EXPECT_IN(MPI_Win_lock(MPI_LOCK_SHARED, n, 0, win), MPI_ERR_RANK,
              "MPI_Win_lock");
    EXPECT_IN(MPI_Win_fence(MPI_MODE_NOCHECK, win), MPI_ERR_ASSERT,
              "MPI_Win_fence");
    OK(MPI_Win_lock(MPI_LOCK_SHARED, right, 0, win));
    EXPECT_IN(MPI_Win_lock(MPI_LOCK_SHARED, right, 0, win), MPI_ERR_RMA_SYNC,
              "MPI_Win_lock");
    EXPECT_IN(MPI_Win_lock_all(0, win), MPI_ERR_RMA_SYNC, "MPI_Win_lock_all");
    EXPECT_IN(MPI_Win_fence(0, win), MPI_ERR_RMA_SYNC, "MPI_Win_fence");
    stale = win;
    EXPECT_IN(MPI_Win_free(&stale), MPI_ERR_RMA_SYNC, "MPI_Win_free");
    CHECK(stale == win, "a failed MPI_Win_free cleared the handle");

    /* Inside the epoch: ranks, ranges, operations, types. */
    EXPECT_IN(MPI_Put(&v, 1, MPI_INT, n, 0, 1, MPI_INT, win), MPI_ERR_RANK,
              "MPI_Put");
    EXPECT_IN(MPI_Put(&v, 1, MPI_INT, -5, 0, 1, MPI_INT, win), MPI_ERR_RANK,
              "MPI_Put");
    EXPECT_IN(MPI_Put(&v, 1, MPI_INT, right, 4, 1, MPI_INT, win),
              MPI_ERR_RMA_RANGE, "MPI_Put");
    EXPECT_IN(MPI_Get(&got, 1, MPI_INT, right, -1, 1, MPI_INT, win),
              MPI_ERR_RMA_RANGE, "MPI_Get");
    EXPECT_IN(MPI_Get(&got, 2, MPI_INT, right, 3, 2, MPI_INT, win),
              MPI_ERR_RMA_RANGE, "MPI_Get");
    EXPECT_IN(MPI_Put(&v, 2, MPI_INT, right, 0, 1, MPI_INT, win), MPI_ERR_TYPE,
              "MPI_Put");
    EXPECT_IN(MPI_Put(&v, -1, MPI_INT, right, 0, -1, MPI_INT, win),
              MPI_ERR_COUNT, "MPI_Put");
    EXPECT_IN(MPI_Put(&v, 1, MPI_DATATYPE_NULL, right, 0, 1, MPI_INT, win),
              MPI_ERR_TYPE, "MPI_Put");
    MPI_Op_create(user_sum, 1, &uop);
    EXPECT_IN(MPI_Accumulate(&v, 1, MPI_INT, right, 0, 1, MPI_INT, uop, win),
              MPI_ERR_OP, "MPI_Accumulate");
    MPI_Op_free(&uop);
    EXPECT_IN(MPI_Accumulate(&d, 1, MPI_DOUBLE, right, 0, 1, MPI_DOUBLE,
                             MPI_BAND, win),
              MPI_ERR_OP, "MPI_Accumulate");
    EXPECT_IN(
        MPI_Accumulate(&d, 1, MPI_FLOAT, right, 0, 1, MPI_INT, MPI_SUM, win),
        MPI_ERR_TYPE, "MPI_Accumulate");
    EXPECT_IN(MPI_Fetch_and_op(&v, &got, MPI_INT, right, 9, MPI_SUM, win),
              MPI_ERR_RMA_RANGE, "MPI_Fetch_and_op");
    EXPECT_IN(MPI_Compare_and_swap(&v, NULL, &got, MPI_INT, right, 0, win),
              MPI_ERR_BUFFER, "MPI_Compare_and_swap");
    /* The epoch still works after all that. */
    OK(MPI_Put(&v, 1, MPI_INT, right, 1, 1, MPI_INT, win));
    OK(MPI_Win_unlock(right, win));

    /* PSCW misuse. */
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    EXPECT_IN(MPI_Win_post(MPI_GROUP_NULL, 0, win), MPI_ERR_GROUP,
              "MPI_Win_post");
    OK(MPI_Win_post(world, 0, win));
    EXPECT_IN(MPI_Win_post(world, 0, win), MPI_ERR_RMA_SYNC, "MPI_Win_post");
    OK(MPI_Win_start(world, 0, win));
    EXPECT_IN(MPI_Win_start(world, 0, win), MPI_ERR_RMA_SYNC, "MPI_Win_start");
    EXPECT_IN(MPI_Win_lock(MPI_LOCK_SHARED, right, 0, win), MPI_ERR_RMA_SYNC,
              "MPI_Win_lock");
    OK(MPI_Win_complete(win));
    OK(MPI_Win_wait(win));
    MPI_Group_free(&world);

    /* Handles. */
    EXPECT_IN(MPI_Win_fence(0, MPI_WIN_NULL), MPI_ERR_WIN, "MPI_Win_fence");
    stale = win;
    OK(MPI_Win_free(&win));
    CHECK(win == MPI_WIN_NULL, "MPI_Win_free left the handle");
    EXPECT_IN(MPI_Win_fence(0, stale), MPI_ERR_WIN, "MPI_Win_fence");
    EXPECT_IN(MPI_Put(&v, 1, MPI_INT, 0, 0, 1, MPI_INT, stale), MPI_ERR_WIN,
              "MPI_Put");
    EXPECT_IN(MPI_Win_free(&stale), MPI_ERR_WIN, "MPI_Win_free");

    /* Bad arguments when making a window: every member fails alike. */
    EXPECT_IN(
        MPI_Win_allocate(-8, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win),
        MPI_ERR_SIZE, "MPI_Win_allocate");
    EXPECT_IN(
        MPI_Win_create(&v, sizeof(v), 0, MPI_INFO_NULL, MPI_COMM_WORLD, &win),
        MPI_ERR_DISP, "MPI_Win_create");
    /* Only rank 0 passes a bad size: the others learn of it. */
    {
        int rc = MPI_Win_allocate((me == 0) ? -1 : 4, 1, MPI_INFO_NULL,
                                  MPI_COMM_WORLD, &mem, &win), cls = -1;

        MPI_Error_class(rc, &cls);
        CHECK(cls == MPI_ERR_SIZE, "one member's bad size gave class %d",
              cls);
    }
    EXPECT_IN(
        MPI_Win_create(&v, sizeof(v), 1, MPI_INFO_NULL, MPI_COMM_NULL, &win),
        MPI_ERR_COMM, "MPI_Win_create");
    if (n >= 2) {
        MPI_Comm_split(MPI_COMM_WORLD, me % 2, me, &half);
        MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, (me % 2) ? 0 : 1, 9,
                             &inter);
        EXPECT_IN(MPI_Win_create(&v, sizeof(v), 1, MPI_INFO_NULL, inter, &win),
                  MPI_ERR_COMM, "MPI_Win_create");
        MPI_Comm_free(&inter);
        MPI_Comm_free(&half);
    }

    /* After all of it, windows still work. */
    OK(MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL,
                        MPI_COMM_WORLD, &mem, &win));
    *mem = 0;
    OK(MPI_Win_fence(0, win));
    OK(MPI_Accumulate(&v, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_SUM, win));
    OK(MPI_Win_fence(0, win));
    if (me == 0) {
        CHECK(*mem == n, "accumulate after the errors: %d", *mem);
    }
    OK(MPI_Win_free(&win));

    return mpitest_finish();
}
