/*
 * tests/mpi/threads_err.c: bad input to MPIX_Comm_create_threads and to
 * the LCOs it makes, under MPI_ERRORS_RETURN. Each error has its class
 * and a text that names the call and the reason; a bad argument on one
 * process makes every process return an error (none waits for it), and
 * after each error the processes are still in step (a valid call
 * follows and works).
 *
 * With the argument "fatal", process 0 passes nthreads -1 under the
 * default MPI_ERRORS_ARE_FATAL: the job must end with a message (checked
 * by tests/mpi/test_threads.sh).
 */
#include <mpi.h>

#include "mpitest.h"

#include <stdio.h>
#include <string.h>

static int me, np;

static const char *create = "MPIX_Comm_create_threads";

/* A valid call after an error: the processes are still in step. */
static void still_in_step(const char *after)
{
    MPI_Comm l = MPI_COMM_NULL;
    int rc, v = 1, sum = 0;

    rc = MPIX_Comm_create_threads(MPI_COMM_WORLD, 1, &l);
    CHECK(rc == MPI_SUCCESS, "after %s: create_threads gave %d", after, rc);
    if (rc == MPI_SUCCESS) {
        MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, l);
        CHECK(sum == np, "after %s: allreduce %d, expected %d", after, sum,
              np);
        MPI_Comm_free(&l);
    }
}

/* Receives and probes on a thread LCO (2 * np receive slots, as many as
 * send slots) take their fast path; a source out of range still gets
 * MPI_ERR_RANK naming the call, and one in range still works. */
static void recv_ranks(MPI_Comm l)
{
    static const int bad[] = { -3, 0, 1000 };
    MPI_Request req = MPI_REQUEST_NULL;
    MPI_Status st;
    int rc, i, g, v = 0, flag = 0;

    for (i = 0; i < 3; i++) {
        int src = (bad[i] == 0) ? 2 * np : bad[i];

        rc = MPI_Recv(&v, 1, MPI_INT, src, 0, l, MPI_STATUS_IGNORE);
        EXPECT_ERR(rc, MPI_ERR_RANK, "MPI_Recv", "out of range");
        rc = MPI_Irecv(&v, 1, MPI_INT, src, 0, l, &req);
        EXPECT_ERR(rc, MPI_ERR_RANK, "MPI_Irecv", "out of range");
        rc = MPI_Iprobe(src, 0, l, &flag, MPI_STATUS_IGNORE);
        EXPECT_ERR(rc, MPI_ERR_RANK, "MPI_Iprobe", "out of range");
        rc = MPI_Probe(src, 0, l, MPI_STATUS_IGNORE);
        EXPECT_ERR(rc, MPI_ERR_RANK, "MPI_Probe", "out of range");
    }
    /* The last receive slot, and a message to this LCO itself. */
    rc = MPI_Iprobe(2 * np - 1, 0, l, &flag, MPI_STATUS_IGNORE);
    CHECK((rc == MPI_SUCCESS) && !flag, "Iprobe of the last slot: rc %d "
          "flag %d", rc, flag);
    MPIX_Comm_lco_rank(l, &g);
    v = 42;
    rc = MPI_Isend(&v, 1, MPI_INT, g, 5, l, &req);
    CHECK(rc == MPI_SUCCESS, "Isend to itself gave %d", rc);
    v = 0;
    rc = MPI_Recv(&v, 1, MPI_INT, g, 5, l, &st);
    CHECK((rc == MPI_SUCCESS) && (v == 42) && (st.MPI_SOURCE == g),
          "Recv from itself: rc %d value %d source %d (expected %d)", rc, v,
          st.MPI_SOURCE, g);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
}

int main(int argc, char **argv)
{
    MPI_Comm lcomms[2] = { MPI_COMM_NULL, MPI_COMM_NULL };
    MPI_Comm l, copy, sub, inter;
    MPIX_Cname name;
    int rc, v;

    mpitest_init(&argc, &argv, "threads_err", 0);
    mpitest_world(&me, &np);

    if ((argc > 1) && (strcmp(argv[1], "fatal") == 0)) {
        /* MPI_ERRORS_ARE_FATAL: the job ends here, no process goes on. */
        MPIX_Comm_create_threads(MPI_COMM_WORLD, (me == 0) ? -1 : 1,
                                 lcomms);
        printf("FAIL: rank %d went on after a fatal error\n", me);
        MPI_Finalize();
        return 1;
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

    /* Negative counts, on every process and on process 0 alone. */
    rc = MPIX_Comm_create_threads(MPI_COMM_WORLD, -2, lcomms);
    EXPECT_ERR(rc, MPI_ERR_ARG, create, "nthreads -2 is negative");
    rc = MPIX_Comm_create_threads(MPI_COMM_WORLD, (me == 0) ? -1 : 2,
                                  lcomms);
    if (me == 0) {
        EXPECT_ERR(rc, MPI_ERR_ARG, create, "nthreads -1 is negative");
    } else {
        EXPECT_ERR(rc, MPI_ERR_ARG, create, "process 0 of comm passed a bad");
    }
    CHECK((lcomms[0] == MPI_COMM_NULL) && (lcomms[1] == MPI_COMM_NULL),
          "a failed call set lcomms");
    still_in_step("negative counts");

    /* lcomms NULL: an error with LCOs asked for, fine without. */
    rc = MPIX_Comm_create_threads(MPI_COMM_WORLD, (np > 1) ? me : 1, NULL);
    if ((np == 1) || (me > 0)) {
        EXPECT_ERR(rc, MPI_ERR_ARG, create, "lcomms is NULL but nthreads is");
    } else {
        EXPECT_ERR(rc, MPI_ERR_ARG, create, "of comm passed a bad");
    }
    rc = MPIX_Comm_create_threads(MPI_COMM_WORLD, 0, NULL);
    CHECK(rc == MPI_SUCCESS, "no LCO anywhere and lcomms NULL: %d", rc);
    still_in_step("lcomms NULL");

    /* No communicator, and a freed one: raised on MPI_COMM_WORLD. */
    rc = MPIX_Comm_create_threads(MPI_COMM_NULL, 1, lcomms);
    EXPECT_ERR(rc, MPI_ERR_COMM, create, "MPI_COMM_NULL");
    MPI_Comm_dup(MPI_COMM_WORLD, &copy);
    sub = copy;
    MPI_Comm_free(&copy);
    rc = MPIX_Comm_create_threads(sub, 1, lcomms);
    EXPECT_ERR(rc, MPI_ERR_COMM, create, "not a valid communicator");

    /* An intercommunicator: halves of the world (2 processes or more). */
    if (np >= 2) {
        MPI_Comm_split(MPI_COMM_WORLD, me % 2, me, &sub);
        MPI_Intercomm_create(sub, 0, MPI_COMM_WORLD, (me % 2 == 0) ? 1 : 0,
                             7, &inter);
        MPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN);
        rc = MPIX_Comm_create_threads(inter, 1, lcomms);
        EXPECT_ERR(rc, MPI_ERR_COMM, create, "intercommunicator");
        MPI_Comm_free(&inter);
        MPI_Comm_free(&sub);
    }

    /* The LCOs it makes: not a parent, no name, no new slots, ranks in
     * range; they take the parent's error handler. */
    rc = MPIX_Comm_create_threads(MPI_COMM_WORLD, 2, lcomms);
    CHECK(rc == MPI_SUCCESS, "create_threads gave %d", rc);
    l = lcomms[0];
    rc = MPIX_Comm_create_threads(l, 1, lcomms);
    EXPECT_ERR(rc, MPI_ERR_COMM, create, "comm is an LCO");
    rc = MPIX_Comm_name(l, &name);
    EXPECT_ERR(rc, MPI_ERR_COMM, "MPIX_Comm_name", "belong to the library");
    rc = MPIX_Add_receive_slots(l, 1);
    EXPECT_ERR(rc, MPI_ERR_COMM, "MPIX_Add_receive_slots",
               "belong to the library");
    v = 0;
    rc = MPI_Send(&v, 1, MPI_INT, 2 * np, 0, l);
    EXPECT_ERR(rc, MPI_ERR_RANK, "MPI_Send", "out of range");
    recv_ranks(l);
    rc = MPI_Comm_split(l, 0, 0, &sub);
    EXPECT_ERR(rc, MPI_ERR_COMM, "MPI_Comm_split", "one per thread");
    /* Both LCOs of this process are idle: nobody sent to them. */
    MPI_Comm_free(&lcomms[0]);
    MPI_Comm_free(&lcomms[1]);
    CHECK((lcomms[0] == MPI_COMM_NULL) && (lcomms[1] == MPI_COMM_NULL),
          "MPI_Comm_free left a handle");
    rc = MPI_Barrier(l);
    EXPECT_ERR(rc, MPI_ERR_COMM, "MPI_Barrier", "not a valid communicator");
    still_in_step("errors on the LCOs");

    return mpitest_finish();
}
