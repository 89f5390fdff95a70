/*
 * tests/mpi/ext_grequest.c: generalized requests (MPI-3.1 12.2) as a
 * library uses them for an operation a thread of its own carries out,
 * and the status setters its query function calls (12.3).
 *
 * A helper thread completes each request after a short delay, while the
 * main thread waits on it alone, in MPI_Waitall with point-to-point
 * traffic and a nonblocking collective pending, in MPI_Waitany, or in an
 * MPI_Test loop. The callbacks count their calls: query_fn runs at each
 * completion and each MPI_Request_get_status, free_fn exactly once, after
 * the last query, whether the request is freed before or after it
 * completes; cancel_fn hears whether it was complete. A query_fn error
 * comes back from MPI_Wait, and as MPI_ERR_IN_STATUS with the code in
 * the status from MPI_Waitall. Misuse gets MPI_ERR_REQUEST, MPI_ERR_TYPE,
 * MPI_ERR_COUNT, MPI_ERR_ARG.
 */
#include <mpi.h>

#include "mpitest.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int rank, size;

static int class_of(int code)
{
    int cls = -1;

    MPI_Error_class(code, &cls);
    return cls;
}

/* ---- one operation of the "library" -------------------------------------- */

typedef struct op {
    MPI_Request req;
    int         delay_ms;     /* before the helper completes it */
    atomic_int  held;         /* the helper waits until op_release */
    int         query_rc;     /* what query_fn returns */
    atomic_int  queries;
    atomic_int  frees;
    atomic_int  queries_at_free;
    atomic_int  cancels;
    atomic_int  cancel_complete;  /* the complete flag cancel_fn saw */
    atomic_int  cancelled;        /* query_fn reports it cancelled */
} op_t;

static int query_fn(void *extra, MPI_Status *status)
{
    op_t *op = extra;

    atomic_fetch_add(&op->queries, 1);
    status->MPI_SOURCE = 7;
    status->MPI_TAG = 9;
    MPI_Status_set_elements(status, MPI_INT, 5);
    MPI_Status_set_cancelled(status, atomic_load(&op->cancelled));
    return op->query_rc;
}

static int free_fn(void *extra)
{
    op_t *op = extra;

    atomic_store(&op->queries_at_free, atomic_load(&op->queries));
    atomic_fetch_add(&op->frees, 1);
    return MPI_SUCCESS;
}

static int cancel_fn(void *extra, int complete)
{
    op_t *op = extra;

    atomic_fetch_add(&op->cancels, 1);
    atomic_store(&op->cancel_complete, complete);
    if (!complete) {
        atomic_store(&op->cancelled, 1);
    }
    return MPI_SUCCESS;
}

static void sleep_ms(int ms)
{
    struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

    nanosleep(&ts, NULL);
}

static void *helper(void *arg)
{
    op_t *op = arg;

    while (atomic_load(&op->held)) {
        sleep_ms(1);
    }
    sleep_ms(op->delay_ms);
    if (MPI_Grequest_complete(op->req) != MPI_SUCCESS) {
        printf("FAIL: rank %d: MPI_Grequest_complete from the helper\n",
               rank);
        fflush(stdout);
        exit(1);
    }
    return NULL;
}

/* A delay of HELD: the helper completes the request only after
 * op_release, so that what the test does first happens before completion
 * however slow the machine. */
#define HELD (-1)

static void op_start(op_t *op, int delay_ms, int query_rc, pthread_t *th)
{
    memset(op, 0, sizeof(*op));
    op->delay_ms = delay_ms < 0 ? 0 : delay_ms;
    atomic_store(&op->held, delay_ms == HELD);
    op->query_rc = query_rc;
    OK(MPI_Grequest_start(query_fn, free_fn, cancel_fn, op, &op->req));
    CHECK(op->req != MPI_REQUEST_NULL, "no request");
    if (th != NULL && pthread_create(th, NULL, helper, op) != 0) {
        printf("FAIL: rank %d: pthread_create\n", rank);
        exit(1);
    }
}

static void op_release(op_t *op)
{
    atomic_store(&op->held, 0);
}

static void join(pthread_t th)
{
    pthread_join(th, NULL);
}

/* ---- the cases ------------------------------------------------------------ */

/* MPI_Wait sleeps until the helper completes it; status from query_fn. */
static void test_wait(void)
{
    MPI_Status st;
    pthread_t th;
    op_t op;
    int count = -1, flag = -1;

    op_start(&op, 30, MPI_SUCCESS, &th);
    memset(&st, 0, sizeof(st));
    OK(MPI_Wait(&op.req, &st));
    join(th);
    CHECK(op.req == MPI_REQUEST_NULL, "request not freed");
    CHECK(atomic_load(&op.queries) == 1 && atomic_load(&op.frees) == 1,
          "queries %d frees %d", atomic_load(&op.queries),
          atomic_load(&op.frees));
    CHECK(atomic_load(&op.queries_at_free) == 1, "free_fn before query_fn");
    CHECK(st.MPI_SOURCE == 7 && st.MPI_TAG == 9, "source %d tag %d",
          st.MPI_SOURCE, st.MPI_TAG);
    MPI_Get_count(&st, MPI_INT, &count);
    CHECK(count == 5, "count %d", count);
    MPI_Test_cancelled(&st, &flag);
    CHECK(flag == 0, "cancelled %d", flag);
}

/* MPI_Waitall with the request, a ring exchange and an Iallreduce. */
static void test_waitall_mixed(void)
{
    MPI_Request reqs[4];
    MPI_Status st[4];
    pthread_t th;
    op_t op;
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    int out = rank, in = -1, sum = -1;

    op_start(&op, 20, MPI_SUCCESS, &th);
    OK(MPI_Irecv(&in, 1, MPI_INT, left, 5, MPI_COMM_WORLD, &reqs[0]));
    reqs[1] = op.req;
    OK(MPI_Iallreduce(&out, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD,
                      &reqs[2]));
    OK(MPI_Isend(&out, 1, MPI_INT, right, 5, MPI_COMM_WORLD, &reqs[3]));
    OK(MPI_Waitall(4, reqs, st));
    join(th);
    CHECK(in == left, "ring got %d, want %d", in, left);
    CHECK(sum == size * (size - 1) / 2, "iallreduce %d", sum);
    CHECK(st[1].MPI_SOURCE == 7 && st[1].MPI_TAG == 9,
          "grequest status source %d tag %d", st[1].MPI_SOURCE,
          st[1].MPI_TAG);
    CHECK(atomic_load(&op.queries) == 1 && atomic_load(&op.frees) == 1,
          "queries %d frees %d", atomic_load(&op.queries),
          atomic_load(&op.frees));
}

/* MPI_Waitany over two of them and a receive that arrives late. */
static void test_waitany(void)
{
    MPI_Request reqs[3];
    pthread_t th[2];
    op_t op[2];
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    int in = -1, out = rank, i, idx, seen[3] = { 0, 0, 0 };

    op_start(&op[0], 40, MPI_SUCCESS, &th[0]);
    op_start(&op[1], 10, MPI_SUCCESS, &th[1]);
    reqs[0] = op[0].req;
    reqs[1] = op[1].req;
    OK(MPI_Irecv(&in, 1, MPI_INT, left, 6, MPI_COMM_WORLD, &reqs[2]));
    for (i = 0; i < 3; i++) {
        if (i == 1) {
            OK(MPI_Send(&out, 1, MPI_INT, right, 6, MPI_COMM_WORLD));
        }
        idx = -1;
        OK(MPI_Waitany(3, reqs, &idx, MPI_STATUS_IGNORE));
        CHECK(idx >= 0 && idx < 3 && !seen[idx], "waitany index %d", idx);
        if (idx >= 0 && idx < 3) {
            seen[idx] = 1;
        }
    }
    join(th[0]);
    join(th[1]);
    CHECK(in == left, "got %d", in);
    for (i = 0; i < 2; i++) {
        CHECK(atomic_load(&op[i].frees) == 1, "op %d frees %d", i,
              atomic_load(&op[i].frees));
    }
}

/* A Test loop; then MPI_Request_get_status asks query_fn each time. */
static void test_test_and_get_status(void)
{
    MPI_Status st;
    pthread_t th;
    op_t op;
    int flag = 0, n = 0;

    op_start(&op, 15, MPI_SUCCESS, &th);
    while (!flag) {
        OK(MPI_Request_get_status(op.req, &flag, &st));
        n++;
        if (!flag) {
            sleep_ms(1);
        }
    }
    join(th);
    CHECK(atomic_load(&op.queries) == 1, "get_status: queries %d",
          atomic_load(&op.queries));
    OK(MPI_Request_get_status(op.req, &flag, MPI_STATUS_IGNORE));
    CHECK(flag && atomic_load(&op.queries) == 2 &&
          atomic_load(&op.frees) == 0, "second get_status: queries %d "
          "frees %d", atomic_load(&op.queries), atomic_load(&op.frees));
    flag = 0;
    OK(MPI_Test(&op.req, &flag, &st));
    CHECK(flag && op.req == MPI_REQUEST_NULL, "test after completion");
    CHECK(atomic_load(&op.queries) == 3 && atomic_load(&op.frees) == 1 &&
          atomic_load(&op.queries_at_free) == 3, "after test: queries %d "
          "frees %d", atomic_load(&op.queries), atomic_load(&op.frees));
    CHECK(n >= 1, "polls %d", n);

    /* MPI_Test alone, polling until the helper completes it. */
    op_start(&op, 10, MPI_SUCCESS, &th);
    for (flag = 0; !flag;) {
        OK(MPI_Test(&op.req, &flag, MPI_STATUS_IGNORE));
    }
    join(th);
    CHECK(atomic_load(&op.frees) == 1, "test loop: frees %d",
          atomic_load(&op.frees));
}

/* Freed before it completes: free_fn runs in MPI_Grequest_complete (in
 * the helper); freed after: in MPI_Request_free. Never a query. */
static void test_free(void)
{
    pthread_t th;
    op_t op;
    MPI_Request copy;
    int spins = 0;

    op_start(&op, HELD, MPI_SUCCESS, &th);
    copy = op.req;
    OK(MPI_Request_free(&copy));
    CHECK(copy == MPI_REQUEST_NULL, "handle not reset");
    CHECK(atomic_load(&op.frees) == 0, "free_fn ran before completion");
    op_release(&op);
    join(th);
    while (atomic_load(&op.frees) == 0 && spins++ < 1000) {
        sleep_ms(1);
    }
    CHECK(atomic_load(&op.frees) == 1 && atomic_load(&op.queries) == 0,
          "freed early: frees %d queries %d", atomic_load(&op.frees),
          atomic_load(&op.queries));

    op_start(&op, 0, MPI_SUCCESS, NULL);
    OK(MPI_Grequest_complete(op.req));
    CHECK(atomic_load(&op.frees) == 0, "free_fn at completion");
    OK(MPI_Request_free(&op.req));
    CHECK(atomic_load(&op.frees) == 1 && atomic_load(&op.queries) == 0,
          "freed late: frees %d queries %d", atomic_load(&op.frees),
          atomic_load(&op.queries));
}

/* cancel_fn hears whether the request was complete. */
static void test_cancel(void)
{
    MPI_Status st;
    pthread_t th;
    op_t op;
    int flag = 0;

    op_start(&op, HELD, MPI_SUCCESS, &th);
    OK(MPI_Cancel(&op.req));
    CHECK(atomic_load(&op.cancels) == 1 &&
          atomic_load(&op.cancel_complete) == 0, "cancel before: %d %d",
          atomic_load(&op.cancels), atomic_load(&op.cancel_complete));
    op_release(&op);
    OK(MPI_Wait(&op.req, &st));
    join(th);
    MPI_Test_cancelled(&st, &flag);
    CHECK(flag == 1, "not reported cancelled");

    op_start(&op, 0, MPI_SUCCESS, NULL);
    OK(MPI_Grequest_complete(op.req));
    OK(MPI_Cancel(&op.req));
    CHECK(atomic_load(&op.cancel_complete) == 1, "cancel after: complete "
          "%d", atomic_load(&op.cancel_complete));
    OK(MPI_Wait(&op.req, &st));
    MPI_Test_cancelled(&st, &flag);
    CHECK(flag == 0, "reported cancelled after completion");
}

/* A query_fn error: MPI_Wait returns it; MPI_Waitall says
 * MPI_ERR_IN_STATUS and puts it in the status. */
static void test_errors(void)
{
    MPI_Request reqs[2];
    MPI_Status st[2];
    pthread_t th;
    op_t op, ok;
    int mycls, mycode, rc;

    OK(MPI_Add_error_class(&mycls));
    OK(MPI_Add_error_code(mycls, &mycode));
    op_start(&op, 5, mycode, &th);
    rc = MPI_Wait(&op.req, MPI_STATUS_IGNORE);
    join(th);
    CHECK(rc == mycode, "MPI_Wait returned %d, want %d", rc, mycode);
    CHECK(class_of(rc) == mycls, "class %d", class_of(rc));
    CHECK(atomic_load(&op.frees) == 1, "frees %d", atomic_load(&op.frees));

    op_start(&op, 5, mycode, &th);
    op_start(&ok, 0, MPI_SUCCESS, NULL);
    OK(MPI_Grequest_complete(ok.req));
    reqs[0] = ok.req;
    reqs[1] = op.req;
    rc = MPI_Waitall(2, reqs, st);
    join(th);
    CHECK(rc == MPI_ERR_IN_STATUS, "MPI_Waitall returned %d", rc);
    CHECK(st[0].MPI_ERROR == MPI_SUCCESS && st[1].MPI_ERROR == mycode,
          "statuses' errors %d %d", st[0].MPI_ERROR, st[1].MPI_ERROR);
    CHECK(reqs[0] == MPI_REQUEST_NULL && reqs[1] == MPI_REQUEST_NULL,
          "requests not freed");

    /* Misuse. */
    op_start(&op, 0, MPI_SUCCESS, NULL);
    OK(MPI_Grequest_complete(op.req));
    rc = MPI_Grequest_complete(op.req);
    CHECK(class_of(rc) == MPI_ERR_REQUEST, "completed twice: class %d",
          class_of(rc));
    OK(MPI_Wait(&op.req, MPI_STATUS_IGNORE));
    OK(MPI_Irecv(&rc, 1, MPI_INT, MPI_ANY_SOURCE, 99, MPI_COMM_WORLD,
                 &reqs[0]));
    rc = MPI_Grequest_complete(reqs[0]);
    CHECK(class_of(rc) == MPI_ERR_REQUEST, "a receive: class %d",
          class_of(rc));
    OK(MPI_Cancel(&reqs[0]));
    OK(MPI_Wait(&reqs[0], MPI_STATUS_IGNORE));
    rc = MPI_Grequest_start(NULL, free_fn, cancel_fn, NULL, &reqs[0]);
    CHECK(class_of(rc) == MPI_ERR_ARG, "NULL query_fn: class %d",
          class_of(rc));
}

/* MPI_Status_set_elements counts basic elements of the datatype. */
static void test_set_elements(void)
{
    MPI_Datatype t3, pair;
    MPI_Status st;
    MPI_Count cx = -1;
    int count = -1, elems = -1, rc, blens[2] = { 1, 1 };
    MPI_Aint disps[2] = { 0, 8 };
    MPI_Datatype types[2] = { MPI_INT, MPI_DOUBLE };

    OK(MPI_Type_contiguous(3, MPI_INT, &t3));
    OK(MPI_Type_commit(&t3));
    OK(MPI_Status_set_elements(&st, t3, 6));
    MPI_Get_count(&st, t3, &count);
    MPI_Get_elements(&st, t3, &elems);
    CHECK(count == 2 && elems == 6, "6 ints: count %d elements %d", count,
          elems);
    OK(MPI_Status_set_elements(&st, t3, 7));
    MPI_Get_count(&st, t3, &count);
    MPI_Get_elements(&st, t3, &elems);
    CHECK(count == MPI_UNDEFINED && elems == 7, "7 ints: count %d "
          "elements %d", count, elems);
    MPI_Get_count(&st, MPI_INT, &count);
    CHECK(count == 7, "7 ints as MPI_INT: %d", count);

    /* A struct of an int and a double: 3 elements are one and a half. */
    OK(MPI_Type_create_struct(2, blens, disps, types, &pair));
    OK(MPI_Type_commit(&pair));
    OK(MPI_Status_set_elements_x(&st, pair, 3));
    MPI_Get_elements_x(&st, pair, &cx);
    MPI_Get_count(&st, pair, &count);
    CHECK(cx == 3 && count == MPI_UNDEFINED, "struct: elements %lld "
          "count %d", (long long)cx, count);
    MPI_Get_count(&st, MPI_BYTE, &count);
    CHECK(count == 16, "struct: 3 elements are %d bytes, want 16", count);

    rc = MPI_Status_set_elements(&st, MPI_INT, -1);
    CHECK(class_of(rc) == MPI_ERR_COUNT, "negative count: class %d",
          class_of(rc));
    rc = MPI_Status_set_elements(&st, MPI_DATATYPE_NULL, 1);
    CHECK(class_of(rc) == MPI_ERR_TYPE, "null type: class %d",
          class_of(rc));
    rc = MPI_Status_set_cancelled(MPI_STATUS_IGNORE, 1);
    CHECK(class_of(rc) == MPI_ERR_ARG, "null status: class %d",
          class_of(rc));
    MPI_Type_free(&t3);
    MPI_Type_free(&pair);
}

int main(int argc, char **argv)
{
    const mpitest_fn tests[] = {test_wait, test_waitall_mixed, test_waitany,
        test_test_and_get_status, test_free, test_cancel, test_errors,
        test_set_elements, NULL};

    mpitest_init_thread(&argc, &argv, "ext_grequest", MPI_THREAD_MULTIPLE);
    mpitest_world(&rank, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

    return mpitest_run(tests);
}
