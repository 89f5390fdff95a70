/*
 * tests/mpi/core_fint.c: handle conversion (MPI_Fint, MPI_X_c2f and
 * MPI_X_f2c) as a C library that keeps handles as Fortran integers (a
 * profiler's table) uses it: every kind round-trips, the same handle gives
 * the same integer, null handles are 0 both ways, an integer of one kind
 * is no handle of another, and the integer of a freed handle converts
 * back to the null handle even after newer objects took integers. A
 * request found again through its integer is waited for; a status goes
 * through MPI_Status_c2f and back unchanged.
 */
#include <mpi.h>

#include "mpitest.h"

#include <stdio.h>
#include <string.h>

static void noop_fn(void *in, void *inout, int *len, MPI_Datatype *type)
{
    (void)in;
    (void)inout;
    (void)len;
    (void)type;
}

static void noop_errh(MPI_Comm *comm, int *code, ...)
{
    (void)comm;
    (void)code;
}

int main(int argc, char **argv)
{
    MPI_Comm dup;
    MPI_Datatype vec;
    MPI_Group grp;
    MPI_Op op;
    MPI_Info info;
    MPI_Errhandler errh;
    MPI_Request req;
    MPI_Message msg;
    MPI_Status st, st2;
    MPI_Fint f, fdup, ftype, fgrp, fop, finfo, ferrh, freq, fmsg;
    MPI_Fint fst[MPI_F_STATUS_SIZE];
    int size, x = 5, y = 0, count = -1, i;

    mpitest_init(&argc, &argv, "core_fint", 0);
    size = mpitest_size;

    /* Null handles and predefined ones. */
    CHECK(MPI_Comm_c2f(MPI_COMM_NULL) == 0, "MPI_COMM_NULL is not 0");
    CHECK(MPI_Comm_f2c(0) == MPI_COMM_NULL, "0 is not MPI_COMM_NULL");
    CHECK(MPI_Request_f2c(0) == MPI_REQUEST_NULL, "0 is no null request");
    f = MPI_Comm_c2f(MPI_COMM_WORLD);
    CHECK(f != 0 && MPI_Comm_f2c(f) == MPI_COMM_WORLD &&
          MPI_Comm_c2f(MPI_COMM_WORLD) == f, "MPI_COMM_WORLD: %d", f);
    CHECK(MPI_Comm_f2c(MPI_Comm_c2f(MPI_COMM_SELF)) == MPI_COMM_SELF,
          "MPI_COMM_SELF");
    CHECK(MPI_Type_f2c(MPI_Type_c2f(MPI_DOUBLE)) == MPI_DOUBLE,
          "MPI_DOUBLE");
    CHECK(MPI_Type_c2f(MPI_INT) != MPI_Type_c2f(MPI_DOUBLE),
          "two types, one integer");
    CHECK(MPI_Op_f2c(MPI_Op_c2f(MPI_SUM)) == MPI_SUM, "MPI_SUM");
    CHECK(MPI_Group_f2c(MPI_Group_c2f(MPI_GROUP_EMPTY)) == MPI_GROUP_EMPTY,
          "MPI_GROUP_EMPTY");
    CHECK(MPI_Errhandler_f2c(MPI_Errhandler_c2f(MPI_ERRORS_RETURN)) ==
          MPI_ERRORS_RETURN, "MPI_ERRORS_RETURN");
    CHECK(MPI_Info_f2c(MPI_Info_c2f(MPI_INFO_ENV)) == MPI_INFO_ENV,
          "MPI_INFO_ENV");
    /* An integer of one kind is no handle of another. */
    CHECK(MPI_Comm_f2c(MPI_Type_c2f(MPI_INT)) == MPI_COMM_NULL,
          "a type's integer converted to a communicator");

    /* Objects of the program, kept as integers and used through them. */
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Type_vector(2, 1, 2, MPI_INT, &vec);
    MPI_Type_commit(&vec);
    MPI_Comm_group(dup, &grp);
    MPI_Op_create(noop_fn, 1, &op);
    MPI_Info_create(&info);
    MPI_Comm_create_errhandler(noop_errh, &errh);
    fdup  = MPI_Comm_c2f(dup);
    ftype = MPI_Type_c2f(vec);
    fgrp  = MPI_Group_c2f(grp);
    fop   = MPI_Op_c2f(op);
    finfo = MPI_Info_c2f(info);
    ferrh = MPI_Errhandler_c2f(errh);
    CHECK(MPI_Comm_size(MPI_Comm_f2c(fdup), &i) == MPI_SUCCESS && i == size,
          "the duplicate through its integer");
    CHECK(MPI_Type_size(MPI_Type_f2c(ftype), &i) == MPI_SUCCESS &&
          i == 2 * (int)sizeof(int), "the vector through its integer");
    CHECK(MPI_Group_f2c(fgrp) == grp && MPI_Op_f2c(fop) == op &&
          MPI_Info_f2c(finfo) == info && MPI_Errhandler_f2c(ferrh) == errh,
          "group, op, info, handler round trips");
    CHECK(MPI_Comm_c2f(dup) == fdup, "a second c2f gave another integer");

    /* A request found again through its integer; the integer dies with
     * the request. */
    MPI_Irecv(&y, 1, MPI_INT, 0, 3, MPI_COMM_SELF, &req);
    freq = MPI_Request_c2f(req);
    CHECK(freq != 0 && MPI_Request_f2c(freq) == req, "request round trip");
    MPI_Send(&x, 1, MPI_INT, 0, 3, MPI_COMM_SELF);
    req = MPI_Request_f2c(freq);
    CHECK(MPI_Wait(&req, &st) == MPI_SUCCESS && y == 5,
          "the request waited through its integer: y %d", y);
    CHECK(MPI_Request_f2c(freq) == MPI_REQUEST_NULL,
          "a completed request's integer still converts");

    /* A matched-probe message. */
    MPI_Send(&x, 1, MPI_INT, 0, 4, MPI_COMM_SELF);
    MPI_Mprobe(0, 4, MPI_COMM_SELF, &msg, MPI_STATUS_IGNORE);
    fmsg = MPI_Message_c2f(msg);
    msg = MPI_Message_f2c(fmsg);
    CHECK(MPI_Mrecv(&y, 1, MPI_INT, &msg, &st) == MPI_SUCCESS,
          "the message received through its integer");

    /* A window kept as an integer; the integer dies with the window. */
    {
        MPI_Win win;
        MPI_Fint fwin;
        int wbuf = 0;

        CHECK(MPI_Win_c2f(MPI_WIN_NULL) == 0 && MPI_Win_f2c(0) ==
              MPI_WIN_NULL, "MPI_WIN_NULL is not 0");
        MPI_Win_create(&wbuf, sizeof(wbuf), 1, MPI_INFO_NULL,
                       MPI_COMM_SELF, &win);
        fwin = MPI_Win_c2f(win);
        CHECK(fwin != 0 && MPI_Win_f2c(fwin) == win &&
              MPI_Win_c2f(win) == fwin, "window round trip: %d", fwin);
        CHECK(MPI_Comm_f2c(fwin) == MPI_COMM_NULL,
              "a window's integer converted to a communicator");
        MPI_Win_fence(0, MPI_Win_f2c(fwin));
        MPI_Win_free(&win);
        CHECK(MPI_Win_f2c(fwin) == MPI_WIN_NULL, "freed window");
    }

    /* Statuses. */
    st.MPI_ERROR = MPI_ERR_TAG;
    MPI_Status_c2f(&st, fst);
    CHECK(fst[0] == st.MPI_SOURCE && fst[1] == 4 && fst[2] == MPI_ERR_TAG,
          "MPI_Status_c2f: %d %d %d", fst[0], fst[1], fst[2]);
    memset(&st2, 0, sizeof(st2));
    MPI_Status_f2c(fst, &st2);
    MPI_Get_count(&st2, MPI_INT, &count);
    CHECK(st2.MPI_SOURCE == st.MPI_SOURCE && st2.MPI_TAG == 4 &&
          st2.MPI_ERROR == MPI_ERR_TAG && count == 1,
          "MPI_Status_f2c: source %d tag %d count %d", st2.MPI_SOURCE,
          st2.MPI_TAG, count);

    /* Freed handles: their integers give null handles, also once newer
     * objects took integers. */
    MPI_Comm_free(&dup);
    MPI_Type_free(&vec);
    MPI_Group_free(&grp);
    MPI_Op_free(&op);
    MPI_Info_free(&info);
    MPI_Errhandler_free(&errh);
    for (i = 0; i < 8; i++) {
        MPI_Info tmp;

        MPI_Info_create(&tmp);
        (void)MPI_Info_c2f(tmp);
        MPI_Info_free(&tmp);
    }
    CHECK(MPI_Comm_f2c(fdup) == MPI_COMM_NULL, "freed communicator");
    CHECK(MPI_Type_f2c(ftype) == MPI_DATATYPE_NULL, "freed type");
    CHECK(MPI_Op_f2c(fop) == MPI_OP_NULL, "freed op");
    CHECK(MPI_Info_f2c(finfo) == MPI_INFO_NULL, "freed info");
    CHECK(MPI_Errhandler_f2c(ferrh) == MPI_ERRHANDLER_NULL,
          "freed error handler");
    CHECK(MPI_Comm_c2f(dup) == 0, "MPI_COMM_NULL after the free");

    return mpitest_finish();
}
