/*
 * tests/mpi/coll_persist.c: MPI-4 persistent collectives (MPI-4.0 6.13)
 * as a time-stepping program uses them: made once, started many times
 * with new data in the same buffers each time; several started together
 * with MPI_Startall in an order that differs between even and odd ranks
 * (allowed for persistent collectives, whose _init calls alone are
 * ordered) and completed by MPI_Waitall in yet another order; one left
 * running while blocking and nonblocking collectives and point-to-point
 * messages pass on the same communicator; nonblocking collectives called
 * again and again with the same arguments (their schedules are kept too);
 * and the misuse the standard
 * calls erroneous refused with MPI_ERR_REQUEST (start while active, free
 * while active, cancel) and bad arguments with their classes.
 */
#include <mpi.h>

#include "mpitest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, size;

static int class_of(int code)
{
    int cls = -1;

    MPI_Error_class(code, &cls);
    return cls;
}

/* Many starts of one request each, the buffers refilled every step. */
static void test_steps(MPI_Comm comm)
{
    enum { STEPS = 40, N = 64 };
    MPI_Request ar, bc, a2a, sc;
    double in[N] = { 0 }, out[N] = { 0 };
    int bbuf[3], *sall = malloc((size_t)size * 2 * sizeof(int));
    int *rall = malloc((size_t)size * 2 * sizeof(int));
    int scan_in, scan_out, step, i, r, root = size - 1;

    OK(MPI_Allreduce_init(in, out, N, MPI_DOUBLE, MPI_SUM, comm,
                          MPI_INFO_NULL, &ar));
    OK(MPI_Bcast_init(bbuf, 3, MPI_INT, root, comm, MPI_INFO_NULL, &bc));
    OK(MPI_Alltoall_init(sall, 2, MPI_INT, rall, 2, MPI_INT, comm,
                         MPI_INFO_NULL, &a2a));
    OK(MPI_Exscan_init(&scan_in, &scan_out, 1, MPI_INT, MPI_SUM, comm,
                       MPI_INFO_NULL, &sc));
    for (step = 0; step < STEPS; step++) {
        for (i = 0; i < N; i++) {
            in[i] = step * 1000.0 + rank * 10.0 + i;
            out[i] = -1.0;
        }
        for (i = 0; i < 3; i++) {
            bbuf[i] = (rank == root) ? step * 7 + i : -1;
        }
        for (r = 0; r < size; r++) {
            sall[2 * r] = step * 10000 + rank * 100 + r;
            sall[2 * r + 1] = -step;
        }
        scan_in = step + rank;
        scan_out = -1;
        OK(MPI_Start(&ar));
        OK(MPI_Start(&bc));
        OK(MPI_Start(&a2a));
        OK(MPI_Start(&sc));
        OK(MPI_Wait(&sc, MPI_STATUS_IGNORE));
        OK(MPI_Wait(&a2a, MPI_STATUS_IGNORE));
        OK(MPI_Wait(&bc, MPI_STATUS_IGNORE));
        OK(MPI_Wait(&ar, MPI_STATUS_IGNORE));
        CHECK(ar != MPI_REQUEST_NULL && bc != MPI_REQUEST_NULL,
              "a completed persistent request was freed");
        for (i = 0; i < N; i++) {
            double want = size * (step * 1000.0 + i) +
                          10.0 * size * (size - 1) / 2;

            if (out[i] != want) {
                CHECK(0, "step %d allreduce [%d] = %g, want %g", step, i,
                      out[i], want);
                break;
            }
        }
        for (i = 0; i < 3; i++) {
            CHECK(bbuf[i] == step * 7 + i, "step %d bcast [%d] = %d", step,
                  i, bbuf[i]);
        }
        for (r = 0; r < size; r++) {
            CHECK(rall[2 * r] == step * 10000 + r * 100 + rank &&
                  rall[2 * r + 1] == -step, "step %d alltoall from %d: "
                  "%d %d", step, r, rall[2 * r], rall[2 * r + 1]);
        }
        if (rank > 0) {
            CHECK(scan_out == step * rank + rank * (rank - 1) / 2,
                  "step %d exscan %d", step, scan_out);
        }
        if (mpitest_failures > 10) {
            break;
        }
    }
    OK(MPI_Request_free(&ar));
    OK(MPI_Request_free(&bc));
    OK(MPI_Request_free(&a2a));
    OK(MPI_Request_free(&sc));
    CHECK(ar == MPI_REQUEST_NULL, "MPI_Request_free left the handle");
    free(sall);
    free(rall);
}

/* MPI_Startall in different orders on even and odd ranks; MPI_Waitall
 * in a third order; a blocking collective, a nonblocking one and
 * point-to-point messages while they run. */
static void test_startall(MPI_Comm comm)
{
    MPI_Request reqs[4], order[4], nb;
    int red = -1, g[4] = { -1, -1, -1, -1 }, ag_in = rank, sum = -1, bar;
    int *ag = malloc((size_t)size * sizeof(int)), i, rep, blocking = -1;
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    int msg_out, msg_in;

    OK(MPI_Reduce_init(&rank, &red, 1, MPI_INT, MPI_MAX, 0, comm,
                       MPI_INFO_NULL, &reqs[0]));
    OK(MPI_Allgather_init(&ag_in, 1, MPI_INT, ag, 1, MPI_INT, comm,
                          MPI_INFO_NULL, &reqs[1]));
    OK(MPI_Allreduce_init(MPI_IN_PLACE, &sum, 1, MPI_INT, MPI_SUM, comm,
                          MPI_INFO_NULL, &reqs[2]));
    OK(MPI_Barrier_init(comm, MPI_INFO_NULL, &reqs[3]));
    (void)g;
    for (rep = 0; rep < 6; rep++) {
        for (i = 0; i < 4; i++) {
            order[i] = reqs[(rank % 2 == 0) ? i : 3 - i];
        }
        red = -1;
        sum = rank + rep;
        ag_in = rank * 3 + rep;
        OK(MPI_Startall(4, order));
        /* Other traffic on the same communicator while they run. */
        OK(MPI_Allreduce(&rank, &blocking, 1, MPI_INT, MPI_MAX, comm));
        CHECK(blocking == size - 1, "blocking allreduce %d", blocking);
        OK(MPI_Ibarrier(comm, &nb));
        msg_out = rank * 100 + rep;
        OK(MPI_Sendrecv(&msg_out, 1, MPI_INT, right, 5, &msg_in, 1, MPI_INT,
                        left, 5, comm, MPI_STATUS_IGNORE));
        CHECK(msg_in == left * 100 + rep, "message %d", msg_in);
        for (i = 0; i < 4; i++) {
            order[i] = reqs[(i + rep) % 4];
        }
        OK(MPI_Waitall(4, order, MPI_STATUSES_IGNORE));
        OK(MPI_Wait(&nb, MPI_STATUS_IGNORE));
        if (rank == 0) {
            CHECK(red == size - 1, "rep %d reduce %d", rep, red);
        }
        CHECK(sum == size * rep + size * (size - 1) / 2, "rep %d "
              "allreduce in place %d", rep, sum);
        for (i = 0; i < size; i++) {
            CHECK(ag[i] == i * 3 + rep, "rep %d allgather [%d] = %d", rep,
                  i, ag[i]);
        }
    }
    /* A wait on an inactive persistent request returns at once. */
    bar = 0;
    OK(MPI_Test(&reqs[3], &bar, MPI_STATUS_IGNORE));
    CHECK(bar == 1, "test of an inactive request: flag %d", bar);
    for (i = 0; i < 4; i++) {
        OK(MPI_Request_free(&reqs[i]));
    }
    free(ag);
}

/* The nonblocking forms keep their last schedule for the next call with
 * the same arguments (compat/mpi_coll_run.c): repeated calls with new
 * data in the same buffers, two such calls in flight at once (the second
 * cannot take the first's), and calls with other arguments between. */
static void test_nonblocking_repeat(MPI_Comm comm)
{
    MPI_Request r[3];
    int a = -1, b = -1, c = -1, in = 0, in2 = 0, bc[2], i;
    int root = size / 2;

    for (i = 0; i < 12; i++) {
        in = rank * 10 + i;
        in2 = rank + i;
        bc[0] = (rank == root) ? i : -1;
        bc[1] = (rank == root) ? -i : -1;
        OK(MPI_Iallreduce(&in, &a, 1, MPI_INT, MPI_SUM, comm, &r[0]));
        if (i % 3 == 1) {
            /* The same arguments while the first is in flight. */
            OK(MPI_Iallreduce(&in, &b, 1, MPI_INT, MPI_SUM, comm, &r[1]));
        } else {
            OK(MPI_Iallreduce(&in2, &b, 1, MPI_INT, MPI_MAX, comm, &r[1]));
        }
        OK(MPI_Ibcast(bc, 2, MPI_INT, root, comm, &r[2]));
        OK(MPI_Waitall(3, r, MPI_STATUSES_IGNORE));
        CHECK(a == 10 * size * (size - 1) / 2 + size * i, "step %d "
              "iallreduce %d", i, a);
        if (i % 3 == 1) {
            CHECK(b == a, "step %d second iallreduce %d", i, b);
        } else {
            CHECK(b == size - 1 + i, "step %d iallreduce max %d", i, b);
        }
        CHECK(bc[0] == i && bc[1] == -i, "step %d ibcast %d %d", i, bc[0],
              bc[1]);
        OK(MPI_Ibarrier(comm, &r[0]));
        OK(MPI_Ireduce(&in2, &c, 1, MPI_INT, MPI_SUM, 0, comm, &r[1]));
        OK(MPI_Waitall(2, r, MPI_STATUSES_IGNORE));
        if (rank == 0) {
            CHECK(c == size * (size - 1) / 2 + size * i, "step %d ireduce "
                  "%d", i, c);
        }
    }
}

/* What MPI-4.0 6.13 calls erroneous, and bad arguments. */
static void test_errors(MPI_Comm comm)
{
    MPI_Request req, copy;
    MPI_Info bad;
    int x = rank, y = -1, rc;

    OK(MPI_Allreduce_init(&x, &y, 1, MPI_INT, MPI_SUM, comm, MPI_INFO_NULL,
                          &req));
    OK(MPI_Start(&req));
    rc = MPI_Start(&req);
    CHECK(class_of(rc) == MPI_ERR_REQUEST, "start while active: class %d",
          class_of(rc));
    copy = req;
    rc = MPI_Request_free(&copy);
    CHECK(class_of(rc) == MPI_ERR_REQUEST && copy == req,
          "free while active: class %d", class_of(rc));
    rc = MPI_Cancel(&req);
    CHECK(class_of(rc) == MPI_ERR_REQUEST, "cancel: class %d",
          class_of(rc));
    OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    CHECK(y == size * (size - 1) / 2, "allreduce after the refused calls: "
          "%d", y);
    OK(MPI_Request_free(&req));

    rc = MPI_Bcast_init(&x, 1, MPI_INT, 0, comm, MPI_INFO_NULL, NULL);
    CHECK(class_of(rc) == MPI_ERR_ARG, "NULL request: class %d",
          class_of(rc));
    rc = MPI_Bcast_init(&x, 1, MPI_INT, size, comm, MPI_INFO_NULL, &req);
    CHECK(class_of(rc) == MPI_ERR_ROOT, "root out of range: class %d",
          class_of(rc));
    rc = MPI_Allreduce_init(&x, &y, -1, MPI_INT, MPI_SUM, comm,
                            MPI_INFO_NULL, &req);
    CHECK(class_of(rc) == MPI_ERR_COUNT, "negative count: class %d",
          class_of(rc));
    MPI_Info_create(&bad);
    MPI_Info_free(&bad);
    bad = (MPI_Info)&x;   /* not an info object */
    rc = MPI_Barrier_init(comm, bad, &req);
    CHECK(class_of(rc) == MPI_ERR_INFO, "bad info: class %d", class_of(rc));
}

int main(int argc, char **argv)
{
    MPI_Comm dup;

    mpitest_init(&argc, &argv, "coll_persist", 1);
    mpitest_world(&rank, &size);
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);

    test_steps(MPI_COMM_WORLD);
    test_steps(dup);
    test_startall(dup);
    test_nonblocking_repeat(MPI_COMM_WORLD);
    test_nonblocking_repeat(dup);
    test_errors(MPI_COMM_WORLD);

    MPI_Comm_free(&dup);
    return mpitest_finish();
}
