/*
 * tests/mpi/rma_win.c: what windows are and carry (MPI-3.1 11.2, 11.8):
 * - MPI_Win_allocate_shared over the ranks of each host
 *   (MPI_Comm_split_type), the members' memory contiguous in rank order,
 *   MPI_Win_shared_query of every rank (and MPI_PROC_NULL), loads and
 *   stores of the neighbours' memory with MPI_Win_sync and barriers; the
 *   same over a communicator that spans hosts is MPI_ERR_RMA_SHARED;
 * - MPI_Win_create_dynamic: every rank attaches two regions, the
 *   addresses travel by MPI_Allgather, puts and gets land there, and
 *   detach; overlapping attaches, detaching what was not attached and
 *   attaching to another flavor are refused;
 * - the predefined attributes of every flavor (MPI_WIN_BASE, _SIZE,
 *   _DISP_UNIT, _CREATE_FLAVOR, _MODEL), MPI_Win_get_group, names, info;
 * - MPI_Win keyvals: set, get, delete callbacks on delete, overwrite and
 *   MPI_Win_free, a communicator's keyval refused on a window;
 * - error handlers of windows: MPI_Win_create_errhandler's function
 *   called for an error on the window and by MPI_Win_call_errhandler;
 * - MPI_Alloc_mem and MPI_Free_mem (with alloc_shm = false too).
 */
#include <mpi.h>

#include "mpitest.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int me, n;

static int errclass(int rc)
{
    int cls = -1;

    MPI_Error_class(rc, &cls);
    return cls;
}

/* ---- shared windows ---------------------------------------------------- */

static void test_shared(void)
{
    MPI_Comm node;
    MPI_Win win;
    MPI_Aint size, qsize;
    int *mine, *q, *prev = NULL, nn, nr, r, du, rc, spans;
    int hosts = 0;

    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0,
                        MPI_INFO_NULL, &node);
    MPI_Comm_size(node, &nn);
    MPI_Comm_rank(node, &nr);
    /* Rank r of the node has r + 1 ints. */
    size = (MPI_Aint)(nr + 1) * (MPI_Aint)sizeof(int);
    OK(MPI_Win_allocate_shared(size, sizeof(int), MPI_INFO_NULL, node, &mine,
                               &win));
    for (r = 0; r <= nr; r++) {
        mine[r] = 100 * nr + r;
    }
    OK(MPI_Win_lock_all(MPI_MODE_NOCHECK, win));
    OK(MPI_Win_sync(win));
    OK(MPI_Barrier(node));
    OK(MPI_Win_sync(win));
    for (r = 0; r < nn; r++) {
        OK(MPI_Win_shared_query(win, r, &qsize, &du, &q));
        CHECK(qsize == (MPI_Aint)(r + 1) * (MPI_Aint)sizeof(int) &&
              du == (int)sizeof(int), "shared_query of %d: size %ld unit %d",
              r, (long)qsize, du);
        /* Contiguous: each starts where the one before ends. */
        CHECK(prev == NULL || q == prev + r, "rank %d's memory is not "
              "right after rank %d's", r, r - 1);
        CHECK(q[r] == 100 * r + r && q[0] == 100 * r,
              "load from rank %d: %d %d", r, q[0], q[r]);
        prev = q;
    }
    /* A store into the right neighbour's first int, once all loaded. */
    OK(MPI_Barrier(node));
    OK(MPI_Win_shared_query(win, (nr + 1) % nn, &qsize, &du, &q));
    q[0] = -nr;
    OK(MPI_Win_sync(win));
    OK(MPI_Barrier(node));
    OK(MPI_Win_sync(win));
    CHECK(mine[0] == -((nr + nn - 1) % nn), "store of the left neighbour: "
          "%d", mine[0]);
    OK(MPI_Win_shared_query(win, MPI_PROC_NULL, &qsize, &du, &q));
    CHECK(q != NULL && qsize == (MPI_Aint)sizeof(int), "shared_query of "
          "MPI_PROC_NULL: size %ld", (long)qsize);
    OK(MPI_Win_unlock_all(win));
    OK(MPI_Win_free(&win));

    /* Over the world: possible only when it is on one host. */
    hosts = (nr == 0);
    MPI_Allreduce(MPI_IN_PLACE, &hosts, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    spans = (hosts > 1);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    win = MPI_WIN_NULL;
    rc = MPI_Win_allocate_shared(sizeof(int), sizeof(int), MPI_INFO_NULL,
                                 MPI_COMM_WORLD, &mine, &win);
    if (spans) {
        CHECK(errclass(rc) == MPI_ERR_RMA_SHARED && win == MPI_WIN_NULL,
              "allocate_shared over %d hosts gave class %d", hosts,
              errclass(rc));
    } else {
        CHECK(rc == MPI_SUCCESS, "allocate_shared over one host failed");
        if (rc == MPI_SUCCESS) {
            OK(MPI_Win_free(&win));
        }
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    MPI_Comm_free(&node);
}

/* ---- dynamic windows -------------------------------------------------------- */

static void test_dynamic(void)
{
    int *a = calloc((size_t)n, sizeof(int)), *b = calloc(4, sizeof(int));
    int right = (me + 1) % n, left = (me + n - 1) % n, v = 50 + me, got = -1;
    MPI_Aint mine[2], *all = malloc(2 * (size_t)n * sizeof(MPI_Aint));
    MPI_Win win, other;
    int *mem;

    OK(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    OK(MPI_Win_attach(win, a, (MPI_Aint)n * (MPI_Aint)sizeof(int)));
    OK(MPI_Win_attach(win, b, 4 * sizeof(int)));
    EXPECT(MPI_ERR_RMA_ATTACH, MPI_Win_attach(win, a, sizeof(int)));
    b[2] = 7000 + me;
    MPI_Get_address(a, &mine[0]);
    MPI_Get_address(b, &mine[1]);
    MPI_Allgather(mine, 2, MPI_AINT, all, 2, MPI_AINT, MPI_COMM_WORLD);
    OK(MPI_Win_fence(0, win));
    OK(MPI_Put(&v, 1, MPI_INT, right, all[2 * right] + me * (int)sizeof(int),
               1, MPI_INT, win));
    OK(MPI_Get(&got, 1, MPI_INT, left, all[2 * left + 1] + 2 * sizeof(int),
               1, MPI_INT, win));
    OK(MPI_Win_fence(0, win));
    CHECK(a[left] == 50 + left, "dynamic put: %d", a[left]);
    CHECK(got == 7000 + left, "dynamic get: %d", got);
    /* An address nobody attached: refused by the origin (this host) or
     * by the target, reported at the latest when the epoch ends. */
    {
        int rc1, rc2;

        OK(MPI_Win_lock(MPI_LOCK_SHARED, right, 0, win));
        rc1 = MPI_Put(&v, 1, MPI_INT, right, all[2 * right + 1] +
                      64 * (MPI_Aint)sizeof(int), 1, MPI_INT, win);
        rc2 = MPI_Win_unlock(right, win);
        CHECK(errclass(rc1) == MPI_ERR_RMA_RANGE ||
              errclass(rc2) == MPI_ERR_RMA_RANGE, "a put outside attached "
              "memory gave %d and %d", errclass(rc1), errclass(rc2));
        if (rc2 != MPI_SUCCESS) {
            /* The epoch ended anyway (the lock is released). */
        }
    }
    OK(MPI_Barrier(MPI_COMM_WORLD));
    OK(MPI_Win_detach(win, a));
    EXPECT(MPI_ERR_BASE, MPI_Win_detach(win, a));
    OK(MPI_Win_detach(win, b));
    OK(MPI_Win_free(&win));

    OK(MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL,
                        MPI_COMM_WORLD, &mem, &other));
    MPI_Win_set_errhandler(other, MPI_ERRORS_RETURN);
    EXPECT(MPI_ERR_RMA_FLAVOR, MPI_Win_attach(other, a, sizeof(int)));
    EXPECT(MPI_ERR_RMA_FLAVOR, MPI_Win_detach(other, a));
    OK(MPI_Win_free(&other));
    free(a);
    free(b);
    free(all);
}

/* ---- attributes, group, name, info -------------------------------------- */

static void check_attrs(MPI_Win win, void *base, MPI_Aint size, int unit,
                        int flavor, const char *what)
{
    void *pbase = NULL;
    MPI_Aint *psize = NULL;
    int *punit = NULL, *pflavor = NULL, *pmodel = NULL, flag = 0;

    OK(MPI_Win_get_attr(win, MPI_WIN_BASE, &pbase, &flag));
    CHECK(flag && pbase == base, "%s: MPI_WIN_BASE %p, expected %p", what,
          pbase, base);
    OK(MPI_Win_get_attr(win, MPI_WIN_SIZE, &psize, &flag));
    CHECK(flag && *psize == size, "%s: MPI_WIN_SIZE %ld", what,
          (long)*psize);
    OK(MPI_Win_get_attr(win, MPI_WIN_DISP_UNIT, &punit, &flag));
    CHECK(flag && *punit == unit, "%s: MPI_WIN_DISP_UNIT %d", what, *punit);
    OK(MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, &pflavor, &flag));
    CHECK(flag && *pflavor == flavor, "%s: MPI_WIN_CREATE_FLAVOR %d", what,
          *pflavor);
    OK(MPI_Win_get_attr(win, MPI_WIN_MODEL, &pmodel, &flag));
    CHECK(flag && *pmodel == MPI_WIN_UNIFIED, "%s: MPI_WIN_MODEL %d", what,
          *pmodel);
}

static void test_attrs(void)
{
    char buf[64], name[MPI_MAX_OBJECT_NAME], value[32];
    MPI_Group wg, g;
    MPI_Info info, used;
    MPI_Win win;
    int *mem, len, cmp, flag;
    void *am;

    OK(MPI_Win_create(buf, sizeof(buf), 2, MPI_INFO_NULL, MPI_COMM_WORLD,
                      &win));
    check_attrs(win, buf, sizeof(buf), 2, MPI_WIN_FLAVOR_CREATE,
                "MPI_Win_create");
    OK(MPI_Win_get_group(win, &g));
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    MPI_Group_compare(g, wg, &cmp);
    CHECK(cmp == MPI_IDENT, "MPI_Win_get_group is not the world's group");
    MPI_Group_free(&g);
    MPI_Group_free(&wg);
    OK(MPI_Win_get_name(win, name, &len));
    CHECK(len == 0, "a new window has the name '%s'", name);
    OK(MPI_Win_set_name(win, "the halo"));
    OK(MPI_Win_get_name(win, name, &len));
    CHECK(strcmp(name, "the halo") == 0 && len == 8, "name '%s'", name);
    MPI_Info_create(&info);
    MPI_Info_set(info, "no_locks", "true");
    OK(MPI_Win_set_info(win, info));
    MPI_Info_free(&info);
    OK(MPI_Win_get_info(win, &used));
    MPI_Info_get(used, "no_locks", (int)sizeof(value) - 1, value, &flag);
    CHECK(flag && strcmp(value, "true") == 0, "info no_locks: %d '%s'",
          flag, flag ? value : "");
    MPI_Info_free(&used);
    OK(MPI_Win_free(&win));

    OK(MPI_Win_allocate(24, 8, MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win));
    check_attrs(win, mem, 24, 8, MPI_WIN_FLAVOR_ALLOCATE,
                "MPI_Win_allocate");
    OK(MPI_Win_free(&win));
    OK(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    check_attrs(win, MPI_BOTTOM, 0, 1, MPI_WIN_FLAVOR_DYNAMIC,
                "MPI_Win_create_dynamic");
    OK(MPI_Win_free(&win));

    /* MPI_Alloc_mem, in shared memory or not. */
    OK(MPI_Alloc_mem(1000, MPI_INFO_NULL, &am));
    memset(am, 1, 1000);
    OK(MPI_Win_create(am, 1000, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    check_attrs(win, am, 1000, 1, MPI_WIN_FLAVOR_CREATE,
                "MPI_Win_create over MPI_Alloc_mem");
    OK(MPI_Win_free(&win));
    OK(MPI_Free_mem(am));
    MPI_Info_create(&info);
    MPI_Info_set(info, "alloc_shm", "false");
    OK(MPI_Alloc_mem(16, info, &am));
    MPI_Info_free(&info);
    memset(am, 2, 16);
    OK(MPI_Free_mem(am));
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    EXPECT(MPI_ERR_BASE, MPI_Free_mem(buf));
    EXPECT(MPI_ERR_SIZE, MPI_Alloc_mem(-1, MPI_INFO_NULL, &am));
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

/* ---- keyvals -------------------------------------------------------------- */

static int deletes;
static intptr_t last_deleted;

static int win_delete(MPI_Win win, int keyval, void *value, void *extra)
{
    (void)win;
    (void)keyval;
    CHECK(extra == &deletes, "delete callback: extra_state %p", extra);
    deletes++;
    last_deleted = (intptr_t)value;
    return MPI_SUCCESS;
}

static void test_keyvals(void)
{
    MPI_Win win;
    int *mem, k, ck, flag = 0;
    void *v = NULL;

    OK(MPI_Win_allocate(4, 4, MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win));
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    OK(MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, win_delete, &k,
                             &deletes));
    OK(MPI_Win_set_attr(win, k, (void *)11));
    OK(MPI_Win_get_attr(win, k, &v, &flag));
    CHECK(flag && v == (void *)11, "get: flag %d value %p", flag, v);
    OK(MPI_Win_set_attr(win, k, (void *)12));
    CHECK(deletes == 1 && last_deleted == 11, "overwrite: %d deletes",
          deletes);
    OK(MPI_Win_delete_attr(win, k));
    CHECK(deletes == 2 && last_deleted == 12, "delete: %d deletes", deletes);
    OK(MPI_Win_get_attr(win, k, &v, &flag));
    CHECK(flag == 0, "a deleted attribute is still there");
    OK(MPI_Win_set_attr(win, k, (void *)13));
    /* A communicator's keyval is not a window's. */
    MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN,
                           &ck, NULL);
    EXPECT(MPI_ERR_KEYVAL, MPI_Win_set_attr(win, ck, (void *)1));
    EXPECT(MPI_ERR_KEYVAL, MPI_Win_set_attr(win, MPI_WIN_BASE, (void *)1));
    MPI_Comm_free_keyval(&ck);
    OK(MPI_Win_free_keyval(&k));
    CHECK(k == MPI_KEYVAL_INVALID, "freed keyval not reset");
    OK(MPI_Win_free(&win));
    CHECK(deletes == 3 && last_deleted == 13, "MPI_Win_free ran the delete "
          "callback %d times", deletes - 2);
}

/* ---- error handlers ------------------------------------------------------- */

static int handler_calls, handler_code;
static MPI_Win handler_win;

static void on_error(MPI_Win *win, int *code, ...)
{
    handler_calls++;
    handler_code = *code;
    handler_win  = *win;
}

static void test_errhandler(void)
{
    MPI_Errhandler eh, got;
    MPI_Win win;
    int *mem, v = 1, rc;

    OK(MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL,
                        MPI_COMM_WORLD, &mem, &win));
    OK(MPI_Win_create_errhandler(on_error, &eh));
    OK(MPI_Win_set_errhandler(win, eh));
    OK(MPI_Win_get_errhandler(win, &got));
    CHECK(got == eh, "MPI_Win_get_errhandler gave another handler");
    MPI_Errhandler_free(&got);
    OK(MPI_Win_fence(0, win));
    rc = MPI_Put(&v, 1, MPI_INT, n, 0, 1, MPI_INT, win);
    CHECK(errclass(rc) == MPI_ERR_RANK && handler_calls == 1 &&
          handler_code == MPI_ERR_RANK && handler_win == win,
          "the window's handler: %d calls, code %d", handler_calls,
          handler_code);
    OK(MPI_Win_fence(0, win));
    OK(MPI_Win_call_errhandler(win, MPI_ERR_OTHER));
    CHECK(handler_calls == 2 && handler_code == MPI_ERR_OTHER,
          "MPI_Win_call_errhandler: %d calls, code %d", handler_calls,
          handler_code);
    /* A communicator's handler on a window is refused. */
    {
        MPI_Errhandler ceh;

        MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
        MPI_Comm_get_errhandler(MPI_COMM_WORLD, &ceh);
        OK(MPI_Win_set_errhandler(win, ceh));   /* predefined: fine */
        MPI_Errhandler_free(&ceh);
    }
    OK(MPI_Errhandler_free(&eh));
    OK(MPI_Win_free(&win));
}

int main(int argc, char **argv)
{
    const mpitest_fn tests[] = {test_shared, test_dynamic, test_attrs,
        test_keyvals, test_errhandler, NULL};

    mpitest_init(&argc, &argv, "rma_win", 0);
    mpitest_world(&me, &n);

    return mpitest_run(tests);
}
