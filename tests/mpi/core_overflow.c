/*
 * tests/mpi/core_overflow.c: a count times a datatype's size that no
 * buffer can hold is refused with MPI_ERR_COUNT, never wrapped into a
 * small length that "succeeds". A type of 2^50 bytes (two contiguous
 * types, no memory behind them) sent 2^22 times is 2^72 bytes.
 *
 * Every process checks its own calls; the messages would go to itself
 * (MPI_COMM_SELF) if they were sent. A legal call with the same type
 * (count 0) still works. Collectives (blocking, nonblocking, neighbour)
 * and one-sided calls refuse such counts the same way.
 */
#include <mpi.h>

#include "mpitest.h"

#include <stdio.h>
#include <stdlib.h>

/* call must be refused with MPI_ERR_COUNT. */
#define EXPECT_COUNT(call) EXPECT(MPI_ERR_COUNT, call)

int main(int argc, char **argv)
{
    MPI_Datatype gib, huge;
    MPI_Request req = MPI_REQUEST_NULL;
    MPI_Count size = 0;
    MPI_Status st;
    char buf[64];
    char text[MPI_MAX_ERROR_STRING];
    int n = 1 << 22, len, rc, flag;

    mpitest_init(&argc, &argv, "core_overflow", 1);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);

    MPI_Type_contiguous(1 << 30, MPI_BYTE, &gib);
    MPI_Type_contiguous(1 << 20, gib, &huge);
    MPI_Type_commit(&huge);
    MPI_Type_size_x(huge, &size);
    CHECK(size == (MPI_Count)1 << 50, "type size %lld", (long long)size);

    EXPECT_COUNT(MPI_Send(buf, n, huge, 0, 1, MPI_COMM_SELF));
    rc = MPI_Send(buf, n, huge, 0, 1, MPI_COMM_SELF);
    MPI_Error_string(rc, text, &len);
    CHECK(rc == MPI_ERR_COUNT, "the text: %s", text);
    EXPECT_COUNT(MPI_Ssend(buf, n, huge, 0, 1, MPI_COMM_SELF));
    EXPECT_COUNT(MPI_Bsend(buf, n, huge, 0, 1, MPI_COMM_SELF));
    EXPECT_COUNT(MPI_Rsend(buf, n, huge, 0, 1, MPI_COMM_SELF));
    EXPECT_COUNT(MPI_Isend(buf, n, huge, 0, 1, MPI_COMM_SELF, &req));
    CHECK(req == MPI_REQUEST_NULL, "a refused MPI_Isend set the request");
    EXPECT_COUNT(MPI_Send_init(buf, n, huge, 0, 1, MPI_COMM_SELF, &req));
    EXPECT_COUNT(MPI_Recv(buf, n, huge, 0, 1, MPI_COMM_SELF, &st));
    EXPECT_COUNT(MPI_Irecv(buf, n, huge, 0, 1, MPI_COMM_SELF, &req));
    EXPECT_COUNT(MPI_Recv_init(buf, n, huge, 0, 1, MPI_COMM_SELF, &req));
    EXPECT_COUNT(MPI_Sendrecv(buf, n, huge, 0, 1, buf, 1, MPI_BYTE, 0, 1,
                              MPI_COMM_SELF, &st));
    EXPECT_COUNT(MPI_Sendrecv(buf, 1, MPI_BYTE, 0, 1, buf, n, huge, 0, 1,
                              MPI_COMM_SELF, &st));
    EXPECT_COUNT(MPI_Sendrecv_replace(buf, n, huge, 0, 1, 0, 1,
                                      MPI_COMM_SELF, &st));
    /* Nothing was sent: no message waits. */
    rc = MPI_Iprobe(0, 1, MPI_COMM_SELF, &flag, &st);
    CHECK(rc == MPI_SUCCESS && !flag, "a refused call left a message");

    /* Collectives. */
    {
        MPI_Comm cart;
        int dims[1] = { 1 }, periods[1] = { 1 };

        EXPECT_COUNT(MPI_Bcast(buf, n, huge, 0, MPI_COMM_SELF));
        EXPECT_COUNT(MPI_Ibcast(buf, n, huge, 0, MPI_COMM_SELF, &req));
        EXPECT_COUNT(MPI_Gather(buf, n, huge, buf, n, huge, 0,
                                MPI_COMM_SELF));
        EXPECT_COUNT(MPI_Scatter(buf, n, huge, buf, n, huge, 0,
                                 MPI_COMM_SELF));
        EXPECT_COUNT(MPI_Allgather(buf, n, huge, buf, n, huge,
                                   MPI_COMM_SELF));
        EXPECT_COUNT(MPI_Alltoall(buf, n, huge, buf, n, huge,
                                  MPI_COMM_SELF));
        EXPECT_COUNT(MPI_Allreduce(buf, buf + 8, n, huge, MPI_BOR,
                                   MPI_COMM_SELF));
        EXPECT_COUNT(MPI_Reduce(buf, buf + 8, n, huge, MPI_BOR, 0,
                                MPI_COMM_SELF));
        MPI_Cart_create(MPI_COMM_SELF, 1, dims, periods, 0, &cart);
        MPI_Comm_set_errhandler(cart, MPI_ERRORS_RETURN);
        EXPECT_COUNT(MPI_Neighbor_alltoall(buf, n, huge, buf, n, huge,
                                           cart));
        MPI_Comm_free(&cart);
    }

    /* One-sided communication. */
    {
        MPI_Win win;
        double wbuf[8];

        MPI_Win_create(wbuf, sizeof(wbuf), 1, MPI_INFO_NULL, MPI_COMM_SELF,
                       &win);
        MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
        MPI_Win_fence(0, win);
        EXPECT_COUNT(MPI_Put(buf, n, huge, 0, 0, n, huge, win));
        EXPECT_COUNT(MPI_Get(buf, 1, MPI_BYTE, 0, 0, n, huge, win));
        EXPECT_COUNT(MPI_Accumulate(buf, n, huge, 0, 0, n, huge, MPI_BOR,
                                    win));
        MPI_Win_fence(0, win);
        MPI_Win_free(&win);
    }

    /* The type itself is fine for what fits. */
    rc = MPI_Sendrecv(buf, 0, huge, 0, 2, buf, 0, huge, 0, 2, MPI_COMM_SELF,
                      &st);
    CHECK(rc == MPI_SUCCESS, "count 0 of the large type gave %d", rc);

    MPI_Type_free(&huge);
    MPI_Type_free(&gib);
    return mpitest_finish();
}
