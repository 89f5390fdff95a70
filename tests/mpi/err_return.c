/*
 * tests/mpi/err_return.c: under MPI_ERRORS_RETURN, an invalid
 * communicator, rank, count, datatype and tag each give their error class,
 * and MPI_Error_string names the call that found it. A user error handler
 * is called with the code and the communicator, also through
 * MPI_Comm_call_errhandler. A failed request keeps its own reason until
 * its wait reports it. (Roots and operations are checked by
 * err_coll.c.) Every process checks on its own: no process waits for
 * another.
 */
#include <mpi.h>

#include "mpitest.h"

#include <stdio.h>
#include <string.h>

static int rank;

/* The user handler records what it was called with. */
static int handler_calls;
static int handler_code;
static MPI_Comm handler_comm;

static void handler(MPI_Comm *comm, int *code, ...)
{
    handler_calls++;
    handler_code = *code;
    handler_comm = *comm;
}

static void test_send_args(int size)
{
    MPI_Datatype uncommitted;
    MPI_Comm dup;
    int buf[4] = { 1, 2, 3, 4 };
    int *tag_ub = NULL, flag = 0, rc;

    rc = MPI_Send(buf, 1, MPI_INT, 0, 0, MPI_COMM_NULL);
    EXPECT_ERR(rc, MPI_ERR_COMM, "MPI_Send", "MPI_COMM_NULL");
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Comm_free(&dup);
    CHECK(dup == MPI_COMM_NULL, "MPI_Comm_free did not reset the handle");
    {
        /* A stale copy of a freed handle: the library keeps freed
         * communicator objects, so the check reads a dead object (also
         * under AddressSanitizer) and reports it. */
        MPI_Comm stale;

        MPI_Comm_dup(MPI_COMM_WORLD, &dup);
        stale = dup;
        MPI_Comm_free(&dup);
        rc = MPI_Send(buf, 1, MPI_INT, 0, 0, stale);
        EXPECT_ERR(rc, MPI_ERR_COMM, "MPI_Send", "freed communicator");
    }

    rc = MPI_Send(buf, 1, MPI_INT, size, 0, MPI_COMM_WORLD);
    EXPECT_ERR(rc, MPI_ERR_RANK, "MPI_Send", "dest = size");
    rc = MPI_Send(buf, 1, MPI_INT, -5, 0, MPI_COMM_WORLD);
    EXPECT_ERR(rc, MPI_ERR_RANK, "MPI_Send", "dest = -5");
    rc = MPI_Send(buf, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD);
    EXPECT_ERR(rc, MPI_ERR_RANK, "MPI_Send", "dest = MPI_ANY_SOURCE");
    rc = MPI_Send(buf, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD);
    CHECK(rc == MPI_SUCCESS, "send to MPI_PROC_NULL: %d", rc);

    rc = MPI_Send(buf, -1, MPI_INT, 0, 0, MPI_COMM_WORLD);
    EXPECT_ERR(rc, MPI_ERR_COUNT, "MPI_Send", "count -1");

    rc = MPI_Send(buf, 1, MPI_DATATYPE_NULL, 0, 0, MPI_COMM_WORLD);
    EXPECT_ERR(rc, MPI_ERR_TYPE, "MPI_Send", "MPI_DATATYPE_NULL");
    MPI_Type_contiguous(2, MPI_INT, &uncommitted);
    rc = MPI_Send(buf, 1, uncommitted, 0, 0, MPI_COMM_WORLD);
    EXPECT_ERR(rc, MPI_ERR_TYPE, "MPI_Send", "uncommitted type");
    MPI_Type_free(&uncommitted);

    rc = MPI_Send(buf, 1, MPI_INT, 0, -3, MPI_COMM_WORLD);
    EXPECT_ERR(rc, MPI_ERR_TAG, "MPI_Send", "tag -3");
    rc = MPI_Send(buf, 1, MPI_INT, 0, MPI_ANY_TAG, MPI_COMM_WORLD);
    EXPECT_ERR(rc, MPI_ERR_TAG, "MPI_Send", "MPI_ANY_TAG on a send");
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &tag_ub, &flag);
    CHECK(flag == 1, "no MPI_TAG_UB");
    if (flag) {
        rc = MPI_Send(buf, 1, MPI_INT, 0, *tag_ub + 1, MPI_COMM_WORLD);
        EXPECT_ERR(rc, MPI_ERR_TAG, "MPI_Send", "tag MPI_TAG_UB + 1");
    }
}

static void test_recv_args(int size)
{
    MPI_Status status;
    MPI_Request req;
    int buf[2] = { 0, 0 }, out = 77, *tag_ub = NULL, flag, rc;

    rc = MPI_Recv(buf, 1, MPI_INT, size, 0, MPI_COMM_WORLD, &status);
    EXPECT_ERR(rc, MPI_ERR_RANK, "MPI_Recv", "source = size");
    rc = MPI_Recv(buf, 1, MPI_INT, 0, -3, MPI_COMM_WORLD, &status);
    EXPECT_ERR(rc, MPI_ERR_TAG, "MPI_Recv", "tag -3");
    rc = MPI_Recv(buf, -1, MPI_INT, 0, 0, MPI_COMM_WORLD, &status);
    EXPECT_ERR(rc, MPI_ERR_COUNT, "MPI_Recv", "count -1");
    rc = MPI_Recv(buf, 1, MPI_INT, 0, 0, MPI_COMM_NULL, &status);
    EXPECT_ERR(rc, MPI_ERR_COMM, "MPI_Recv", "MPI_COMM_NULL");
    rc = MPI_Irecv(buf, 1, MPI_DATATYPE_NULL, 0, 0, MPI_COMM_WORLD, &req);
    EXPECT_ERR(rc, MPI_ERR_TYPE, "MPI_Irecv", "MPI_DATATYPE_NULL");

    /* A truncated receive whose message was waiting completes when it is
     * posted; its wait reports it, with its own reason, even after
     * another receive failed in between. */
    {
        int two[2] = { 5, 6 };
        char text[MPI_MAX_ERROR_STRING];
        int len = 0;

        MPI_Send(two, 2, MPI_INT, rank, 41, MPI_COMM_WORLD);
        MPI_Send(two, 2, MPI_INT, rank, 42, MPI_COMM_WORLD);
        rc = MPI_Irecv(buf, 1, MPI_INT, rank, 41, MPI_COMM_WORLD, &req);
        CHECK(rc == MPI_SUCCESS, "Irecv of a message too long: %d", rc);
        rc = MPI_Recv(buf, 1, MPI_INT, rank, 42, MPI_COMM_WORLD, &status);
        EXPECT_ERR(rc, MPI_ERR_TRUNCATE, "MPI_Recv", "truncated receive");
        rc = MPI_Wait(&req, &status);
        EXPECT_ERR(rc, MPI_ERR_TRUNCATE, "MPI_Wait", "truncated Irecv");
        MPI_Error_string(rc, text, &len);
        CHECK(strstr(text, "tag 41") != NULL && strstr(text, "tag 42") == NULL,
              "the wait of the truncated Irecv (tag 41) gives \"%s\"", text);
    }

    /* The wildcards are legal on receives, and the largest tag on both. */
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &tag_ub, &flag);
    rc = MPI_Irecv(buf, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG,
                   MPI_COMM_WORLD, &req);
    CHECK(rc == MPI_SUCCESS, "Irecv with wildcards: %d", rc);
    rc = MPI_Send(&out, 1, MPI_INT, rank, *tag_ub, MPI_COMM_WORLD);
    CHECK(rc == MPI_SUCCESS, "send with tag MPI_TAG_UB: %d", rc);
    rc = MPI_Wait(&req, &status);
    CHECK(rc == MPI_SUCCESS && buf[0] == 77 && status.MPI_TAG == *tag_ub &&
          status.MPI_SOURCE == rank, "wildcard receive got %d tag %d "
          "from %d", buf[0], status.MPI_TAG, status.MPI_SOURCE);
}

static void test_handlers(int size)
{
    MPI_Errhandler eh, got = MPI_ERRHANDLER_NULL;
    MPI_Comm comm;
    int buf = 0, rc, cls = -1;

    rc = MPI_Comm_create_errhandler(handler, &eh);
    CHECK(rc == MPI_SUCCESS, "create_errhandler: %d", rc);
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Comm_set_errhandler(comm, eh);
    MPI_Comm_get_errhandler(comm, &got);
    CHECK(got == eh, "get_errhandler gave another handler");
    MPI_Errhandler_free(&got);
    /* The communicator keeps the handler alive after the user's free. */
    MPI_Errhandler_free(&eh);
    CHECK(eh == MPI_ERRHANDLER_NULL, "Errhandler_free did not reset");

    rc = MPI_Send(&buf, 1, MPI_INT, size + 1, 0, comm);
    MPI_Error_class(rc, &cls);
    CHECK(handler_calls == 1, "handler called %d times", handler_calls);
    CHECK(handler_comm == comm, "handler got another communicator");
    MPI_Error_class(handler_code, &cls);
    CHECK(cls == MPI_ERR_RANK, "handler got class %d", cls);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_RANK, "call returned class %d after the handler",
          cls);

    rc = MPI_Comm_call_errhandler(comm, MPI_ERR_OTHER);
    CHECK(handler_calls == 2 && handler_code == MPI_ERR_OTHER &&
          handler_comm == comm, "call_errhandler: %d calls, code %d",
          handler_calls, handler_code);
    CHECK(rc == MPI_SUCCESS, "MPI_Comm_call_errhandler returned %d "
          "(MPI-3.1 8.3.4: MPI_SUCCESS once the handler ran)", rc);

    /* Under MPI_ERRORS_RETURN calling the handler does nothing. */
    rc = MPI_Comm_call_errhandler(MPI_COMM_WORLD, MPI_ERR_ARG);
    CHECK(handler_calls == 2, "another communicator's handler ran");
    MPI_Comm_free(&comm);
}

int main(int argc, char **argv)
{
    int size;

    mpitest_init(&argc, &argv, "err_return", 1);
    mpitest_world(&rank, &size);

    test_send_args(size);
    test_recv_args(size);
    test_handlers(size);

    return mpitest_finish();
}
