/*
 * tests/mpi/core_handles.c: freed handles of every kind are refused, and a
 * stale copy of a freed handle never reaches a newer object, even one made
 * right after the free (which an allocator likes to put at the same
 * address).
 *
 * For each kind (communicator, group, datatype, operation, info, error
 * handler, request, matched-probe message): make an object, keep a copy of
 * its handle, free it, make a new one of the same kind, then use and free
 * the stale copy: both must fail with the kind's error class, and the new
 * object must still work and free normally. Groups and error handlers,
 * which the library hands out more than once (MPI_Comm_group,
 * MPI_Comm_get_errhandler), may be freed once per handle and no more: a
 * second MPI_Group_free of one MPI_Comm_group result must not free the
 * communicator's own group.
 *
 * Every process runs the same checks on its own (self-sends only).
 */
#include <mpi.h>

#include "mpitest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void test_comm(void)
{
    MPI_Comm a, b, stale;
    int rc, sz = -1, wsize;

    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    MPI_Comm_dup(MPI_COMM_SELF, &a);
    stale = a;
    MPI_Comm_free(&a);
    MPI_Comm_dup(MPI_COMM_WORLD, &b);
    rc = MPI_Comm_size(stale, &sz);
    CHECK(rc == MPI_ERR_COMM, "MPI_Comm_size on a freed comm gave %d", rc);
    rc = MPI_Comm_free(&stale);
    CHECK(rc == MPI_ERR_COMM, "MPI_Comm_free of a freed comm gave %d", rc);
    rc = MPI_Comm_size(b, &sz);
    CHECK(rc == MPI_SUCCESS && sz == wsize,
          "the newer comm: rc %d size %d (want %d)", rc, sz, wsize);
    rc = MPI_Comm_free(&b);
    CHECK(rc == MPI_SUCCESS, "freeing the newer comm gave %d", rc);
}

static void test_group(void)
{
    MPI_Group g, copy, g2, h, a, b, stale;
    int rc, sz = -1, wsize, res = -1, one = 0;

    MPI_Comm_size(MPI_COMM_WORLD, &wsize);

    /* One handle from MPI_Comm_group, freed twice through a copy. */
    MPI_Comm_group(MPI_COMM_WORLD, &g);
    copy = g;
    rc = MPI_Group_free(&g);
    CHECK(rc == MPI_SUCCESS && g == MPI_GROUP_NULL,
          "first MPI_Group_free gave %d", rc);
    rc = MPI_Group_free(&copy);
    CHECK(rc == MPI_ERR_GROUP, "second MPI_Group_free of one "
          "MPI_Comm_group handle gave %d", rc);
    rc = MPI_Group_size(copy, &sz);
    CHECK(rc == MPI_ERR_GROUP, "MPI_Group_size on a freed group gave %d",
          rc);
    /* The communicator's group is intact. */
    MPI_Comm_group(MPI_COMM_WORLD, &g);
    rc = MPI_Group_size(g, &sz);
    CHECK(rc == MPI_SUCCESS && sz == wsize,
          "MPI_Comm_group after the double free: rc %d size %d", rc, sz);

    /* Two handles (two calls): two frees succeed, a third is refused. */
    MPI_Comm_group(MPI_COMM_WORLD, &g2);
    copy = g2;
    rc = MPI_Group_free(&g);
    CHECK(rc == MPI_SUCCESS, "free of the first of two handles gave %d", rc);
    rc = MPI_Group_free(&g2);
    CHECK(rc == MPI_SUCCESS, "free of the second of two handles gave %d",
          rc);
    rc = MPI_Group_free(&copy);
    CHECK(rc == MPI_ERR_GROUP, "a third free of two handles gave %d", rc);
    MPI_Comm_group(MPI_COMM_WORLD, &h);
    rc = MPI_Group_compare(h, h, &res);
    CHECK(rc == MPI_SUCCESS && res == MPI_IDENT,
          "the world's group after the frees: rc %d", rc);

    /* A group of the user's own, freed, then a new one. */
    MPI_Group_incl(h, 1, &one, &a);
    stale = a;
    MPI_Group_free(&a);
    MPI_Group_incl(h, 1, &one, &b);
    rc = MPI_Group_free(&stale);
    CHECK(rc == MPI_ERR_GROUP, "MPI_Group_free of a freed group gave %d",
          rc);
    rc = MPI_Group_size(b, &sz);
    CHECK(rc == MPI_SUCCESS && sz == 1, "the newer group: rc %d size %d",
          rc, sz);
    CHECK(MPI_Group_free(&b) == MPI_SUCCESS, "freeing the newer group");
    CHECK(MPI_Group_free(&h) == MPI_SUCCESS, "freeing the world's group");
}

static void test_type(void)
{
    MPI_Datatype a, b, stale;
    int rc, sz = -1;

    MPI_Type_contiguous(2, MPI_INT, &a);
    MPI_Type_commit(&a);
    stale = a;
    MPI_Type_free(&a);
    MPI_Type_contiguous(3, MPI_INT, &b);
    MPI_Type_commit(&b);
    rc = MPI_Type_size(stale, &sz);
    CHECK(rc == MPI_ERR_TYPE, "MPI_Type_size on a freed type gave %d", rc);
    rc = MPI_Type_free(&stale);
    CHECK(rc == MPI_ERR_TYPE, "MPI_Type_free of a freed type gave %d", rc);
    rc = MPI_Type_size(b, &sz);
    CHECK(rc == MPI_SUCCESS && sz == 3 * (int)sizeof(int),
          "the newer type: rc %d size %d", rc, sz);
    CHECK(MPI_Type_free(&b) == MPI_SUCCESS, "freeing the newer type");
}

static void sum_fn(void *in, void *inout, int *len, MPI_Datatype *type)
{
    int i;

    (void)type;
    for (i = 0; i < *len; i++) {
        ((int *)inout)[i] += ((int *)in)[i];
    }
}

static void test_op(void)
{
    MPI_Op a, b, stale;
    int rc, commute = -1, x = 2, y = 3;

    MPI_Op_create(sum_fn, 1, &a);
    stale = a;
    MPI_Op_free(&a);
    MPI_Op_create(sum_fn, 0, &b);
    rc = MPI_Op_commutative(stale, &commute);
    CHECK(rc == MPI_ERR_OP, "MPI_Op_commutative on a freed op gave %d", rc);
    rc = MPI_Op_free(&stale);
    CHECK(rc == MPI_ERR_OP, "MPI_Op_free of a freed op gave %d", rc);
    rc = MPI_Reduce_local(&x, &y, 1, MPI_INT, b);
    CHECK(rc == MPI_SUCCESS && y == 5, "the newer op: rc %d, 2 + 3 = %d",
          rc, y);
    CHECK(MPI_Op_free(&b) == MPI_SUCCESS, "freeing the newer op");
}

static void test_info(void)
{
    MPI_Info a, b, stale;
    int rc, n = -1;

    MPI_Info_create(&a);
    stale = a;
    MPI_Info_free(&a);
    MPI_Info_create(&b);
    MPI_Info_set(b, "key", "value");
    rc = MPI_Info_get_nkeys(stale, &n);
    CHECK(rc == MPI_ERR_INFO, "MPI_Info_get_nkeys on a freed info gave %d",
          rc);
    rc = MPI_Info_free(&stale);
    CHECK(rc == MPI_ERR_INFO, "MPI_Info_free of a freed info gave %d", rc);
    rc = MPI_Info_get_nkeys(b, &n);
    CHECK(rc == MPI_SUCCESS && n == 1, "the newer info: rc %d nkeys %d", rc,
          n);
    CHECK(MPI_Info_free(&b) == MPI_SUCCESS, "freeing the newer info");
}

static int handler_calls;

static void count_errors(MPI_Comm *comm, int *code, ...)
{
    (void)comm;
    (void)code;
    handler_calls++;
}

static void test_errhandler(void)
{
    MPI_Errhandler a, b, got, copy, stale;
    MPI_Comm dup;
    int rc, sz;

    MPI_Comm_create_errhandler(count_errors, &a);
    stale = a;
    MPI_Errhandler_free(&a);
    MPI_Comm_create_errhandler(count_errors, &b);
    rc = MPI_Comm_set_errhandler(MPI_COMM_SELF, stale);
    CHECK(rc == MPI_ERR_ARG, "MPI_Comm_set_errhandler with a freed "
          "handler gave %d", rc);
    rc = MPI_Errhandler_free(&stale);
    CHECK(rc == MPI_ERR_ARG, "MPI_Errhandler_free of a freed handler "
          "gave %d", rc);

    /* The newer handler, set on a communicator, handle freed; the one
     * MPI_Comm_get_errhandler gives is freed twice through a copy. */
    MPI_Comm_dup(MPI_COMM_SELF, &dup);
    rc = MPI_Comm_set_errhandler(dup, b);
    CHECK(rc == MPI_SUCCESS, "setting the newer handler gave %d", rc);
    CHECK(MPI_Errhandler_free(&b) == MPI_SUCCESS, "freeing the handle");
    MPI_Comm_get_errhandler(dup, &got);
    copy = got;
    rc = MPI_Errhandler_free(&got);
    CHECK(rc == MPI_SUCCESS, "freeing the gotten handler gave %d", rc);
    rc = MPI_Errhandler_free(&copy);
    CHECK(rc == MPI_ERR_ARG, "a second free of one gotten handler gave %d",
          rc);
    /* The communicator's handler still runs. */
    handler_calls = 0;
    rc = MPI_Send(&sz, 1, MPI_INT, 5, 0, dup);
    CHECK(handler_calls == 1, "the communicator's handler ran %d times "
          "(rc %d)", handler_calls, rc);
    MPI_Comm_free(&dup);
}

static void test_request(void)
{
    MPI_Request a, b, stale;
    MPI_Status st;
    int rc, flag = -1, x = 7, y = -1, z = -1;

    MPI_Isend(&x, 1, MPI_INT, 0, 1, MPI_COMM_SELF, &a);
    stale = a;
    MPI_Wait(&a, MPI_STATUS_IGNORE);
    MPI_Recv(&y, 1, MPI_INT, 0, 1, MPI_COMM_SELF, MPI_STATUS_IGNORE);
    /* A receive nothing matches yet, made right after the free. */
    MPI_Irecv(&z, 1, MPI_INT, 0, 2, MPI_COMM_SELF, &b);
    rc = MPI_Test(&stale, &flag, &st);
    CHECK(rc == MPI_ERR_REQUEST, "MPI_Test on a freed request gave %d", rc);
    rc = MPI_Wait(&stale, &st);
    CHECK(rc == MPI_ERR_REQUEST, "MPI_Wait on a freed request gave %d", rc);
    rc = MPI_Request_free(&stale);
    CHECK(rc == MPI_ERR_REQUEST, "MPI_Request_free of a freed request gave "
          "%d", rc);
    rc = MPI_Cancel(&stale);
    CHECK(rc == MPI_ERR_REQUEST, "MPI_Cancel of a freed request gave %d",
          rc);
    rc = MPI_Start(&stale);
    CHECK(rc == MPI_ERR_REQUEST, "MPI_Start of a freed request gave %d",
          rc);
    rc = MPI_Waitall(1, &stale, &st);
    CHECK(rc == MPI_ERR_REQUEST, "MPI_Waitall of a freed request gave %d",
          rc);
    /* The newer request is untouched and completes normally. */
    rc = MPI_Test(&b, &flag, &st);
    CHECK(rc == MPI_SUCCESS && !flag, "the newer receive: rc %d flag %d",
          rc, flag);
    x = 8;
    MPI_Send(&x, 1, MPI_INT, 0, 2, MPI_COMM_SELF);
    rc = MPI_Wait(&b, &st);
    CHECK(rc == MPI_SUCCESS && z == 8 && b == MPI_REQUEST_NULL,
          "the newer receive completed: rc %d z %d", rc, z);

    /* An active request freed with MPI_Request_free: its handle is dead at
     * once, though the operation goes on. */
    MPI_Irecv(&z, 1, MPI_INT, 0, 3, MPI_COMM_SELF, &a);
    stale = a;
    MPI_Request_free(&a);
    rc = MPI_Test(&stale, &flag, &st);
    CHECK(rc == MPI_ERR_REQUEST, "MPI_Test on a request freed while active "
          "gave %d", rc);
    x = 9;
    MPI_Send(&x, 1, MPI_INT, 0, 3, MPI_COMM_SELF);

    /* A persistent request stays valid across starts, not past its free. */
    MPI_Recv_init(&z, 1, MPI_INT, 0, 4, MPI_COMM_SELF, &a);
    stale = a;
    MPI_Start(&a);
    MPI_Send(&x, 1, MPI_INT, 0, 4, MPI_COMM_SELF);
    rc = MPI_Wait(&a, MPI_STATUS_IGNORE);
    CHECK(rc == MPI_SUCCESS && a == stale, "persistent wait: rc %d", rc);
    MPI_Request_free(&a);
    rc = MPI_Start(&stale);
    CHECK(rc == MPI_ERR_REQUEST, "MPI_Start of a freed persistent request "
          "gave %d", rc);
}

static void test_message(void)
{
    MPI_Message m, stale;
    int rc, x = 11, y = -1;

    MPI_Send(&x, 1, MPI_INT, 0, 5, MPI_COMM_SELF);
    MPI_Mprobe(0, 5, MPI_COMM_SELF, &m, MPI_STATUS_IGNORE);
    stale = m;
    MPI_Mrecv(&y, 1, MPI_INT, &m, MPI_STATUS_IGNORE);
    CHECK(y == 11 && m == MPI_MESSAGE_NULL, "first message: y %d", y);
    x = 12;
    MPI_Send(&x, 1, MPI_INT, 0, 5, MPI_COMM_SELF);
    MPI_Mprobe(0, 5, MPI_COMM_SELF, &m, MPI_STATUS_IGNORE);
    rc = MPI_Mrecv(&y, 1, MPI_INT, &stale, MPI_STATUS_IGNORE);
    CHECK(rc == MPI_ERR_REQUEST, "MPI_Mrecv of a received message gave %d",
          rc);
    y = -1;
    rc = MPI_Mrecv(&y, 1, MPI_INT, &m, MPI_STATUS_IGNORE);
    CHECK(rc == MPI_SUCCESS && y == 12, "the newer message: rc %d y %d", rc,
          y);
}

int main(int argc, char **argv)
{
    int round;

    mpitest_init(&argc, &argv, "core_handles", 1);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    /* Several rounds: whatever memory a round freed is there for the
     * next one to reuse. */
    for (round = 0; round < 3; round++) {
        test_comm();
        test_group();
        test_type();
        test_op();
        test_info();
        test_errhandler();
        test_request();
        test_message();
    }
    return mpitest_finish();
}
