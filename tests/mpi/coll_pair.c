/*
 * tests/mpi/coll_pair.c [die | dead [nb | ag | a2a]]: the barrier of two
 * processes, one exchange of empty messages without a schedule
 * (compat/mpi_coll_rooted.c, coll_barrier_pair), at 2 or 4 processes (4:
 * communicators of two made by MPI_Comm_split).
 *
 * It must hold everyone until both came, on every communicator of two
 * (the world, a duplicate, split pairs whose ranks are not the world's
 * and run in reverse order); it must stay in order with the other
 * collectives (blocking, nonblocking started before it, persistent) and
 * never match user messages, wildcard receives included; threads of an
 * MPI_THREAD_MULTIPLE process may run barriers on communicators of their
 * own at once.
 *
 * "die": rank 1 kills itself while rank 0 waits in a barrier; "dead":
 * rank 1 is gone before rank 0 enters one; "nb": that barrier is an
 * MPI_Ibarrier and its MPI_Wait; "ag" and "a2a": an 8-byte allgather or
 * alltoall instead (a schedule, whose receive waits in its step's own
 * record, coll/coll_sched.c), run 3 times before (kept: its send reuses
 * its envelope and connection). Rank 0's collective must fail
 * (errors return), not hang: it prints "coll_pair: peer died: class N"
 * and exits 1 (test_coll_pair.sh).
 */
#include <mpi.h>

#include "mpitest.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define NTHREADS 2
#define NLOOPS   2000

static int rank, size;

static void pause_ms(long ms)
{
    struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

    nanosleep(&ts, NULL);
}

/* The host's clock, the same in every process of the test (all on one
 * machine, emulated nodes included). */
static double host_now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The barrier holds each member until the other came: the late one
 * (late) sleeps first, and the other must leave after the late one
 * entered. Both instants are read on the host's clock and compared
 * afterwards, so a member descheduled for a while (a loaded machine)
 * cannot make a correct barrier look early. */
static void test_holds(MPI_Comm comm, int late)
{
    int me;
    double entered, left;

    MPI_Comm_rank(comm, &me);
    OK(MPI_Barrier(comm));
    if (me == late) {
        pause_ms(200);
    }
    entered = host_now();
    OK(MPI_Barrier(comm));
    left = host_now();
    OK(MPI_Bcast(&entered, 1, MPI_DOUBLE, late, comm));
    CHECK(me == late || left >= entered, "rank %d left the barrier %.3f s "
          "before rank %d came", me, entered - left, late);
}

/* Barriers among other collectives: each keeps its place in the order
 * of the communicator's calls (the tags they take). */
static void test_order(MPI_Comm comm)
{
    MPI_Request ib, pb;
    int me, n, i, v, sum;

    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &n);
    OK(MPI_Barrier_init(comm, MPI_INFO_NULL, &pb));
    for (i = 0; i < 200; i++) {
        v = (me == 0) ? i : -1;
        OK(MPI_Ibarrier(comm, &ib));
        OK(MPI_Barrier(comm));
        OK(MPI_Bcast(&v, 1, MPI_INT, 0, comm));
        OK(MPI_Start(&pb));
        OK(MPI_Barrier(comm));
        OK(MPI_Wait(&pb, MPI_STATUS_IGNORE));
        OK(MPI_Wait(&ib, MPI_STATUS_IGNORE));
        OK(MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, comm));
        CHECK(v == i && sum == n * i, "round %d: bcast %d, sum %d", i, v,
              sum);
    }
    OK(MPI_Request_free(&pb));
}

/* A wildcard receive posted across many barriers gets the user's
 * message, not a barrier's. */
static void test_no_match(MPI_Comm comm)
{
    MPI_Request req;
    MPI_Status st;
    int me, i, v = -1, flag = 0;

    MPI_Comm_rank(comm, &me);
    if (me == 0) {
        OK(MPI_Irecv(&v, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, comm,
                     &req));
    }
    for (i = 0; i < 100; i++) {
        OK(MPI_Barrier(comm));
    }
    if (me == 0) {
        OK(MPI_Test(&req, &flag, &st));
        CHECK(flag == 0, "a wildcard receive matched a barrier's message "
              "(tag %d, source %d)", st.MPI_TAG, st.MPI_SOURCE);
    }
    /* Only now the user's message. */
    OK(MPI_Barrier(comm));
    if (me == 1) {
        v = 42;
        OK(MPI_Send(&v, 1, MPI_INT, 0, 7, comm));
    } else if (flag == 0) {
        OK(MPI_Wait(&req, &st));
        CHECK(v == 42 && st.MPI_TAG == 7 && st.MPI_SOURCE == 1,
              "received %d tag %d from %d, want 42 tag 7 from 1", v,
              st.MPI_TAG, st.MPI_SOURCE);
    }
    OK(MPI_Barrier(comm));
}

/* The nonblocking barrier of two (coll_ibarrier_pair): incomplete while
 * the partner has not come (MPI_Test says so), complete once it has;
 * several in flight complete in any order of waits; one freed while
 * active does not disturb the barriers after it. */
static void test_nb(MPI_Comm comm)
{
    MPI_Request r[4];
    MPI_Status st[4];
    int me, i, flag = 1, idx;
    double t0;

    MPI_Comm_rank(comm, &me);
    OK(MPI_Barrier(comm));
    if (me == 1) {
        pause_ms(200);
    }
    OK(MPI_Ibarrier(comm, &r[0]));
    if (me == 0) {
        OK(MPI_Test(&r[0], &flag, MPI_STATUS_IGNORE));
        CHECK(flag == 0, "MPI_Ibarrier complete before the partner came");
    }
    t0 = MPI_Wtime();
    for (flag = 0; !flag;) {
        OK(MPI_Test(&r[0], &flag, &st[0]));
        if (MPI_Wtime() - t0 >= 30) {
            CHECK(0, "MPI_Test did not complete MPI_Ibarrier in 30 s");
            break;
        }
    }
    CHECK(r[0] == MPI_REQUEST_NULL, "a completed MPI_Ibarrier's request "
          "was not freed");
    for (i = 0; i < 50; i++) {
        OK(MPI_Ibarrier(comm, &r[0]));
        OK(MPI_Ibarrier(comm, &r[1]));
        OK(MPI_Ibarrier(comm, &r[2]));
        OK(MPI_Ibarrier(comm, &r[3]));
        if (me == 0) {
            OK(MPI_Wait(&r[3], MPI_STATUS_IGNORE));
            OK(MPI_Waitany(3, r, &idx, MPI_STATUS_IGNORE));
            OK(MPI_Waitall(3, r, st));
        } else {
            OK(MPI_Waitall(4, r, st));
        }
        for (idx = 0; idx < 4; idx++) {
            CHECK(r[idx] == MPI_REQUEST_NULL, "request %d left", idx);
        }
        OK(MPI_Ibarrier(comm, &r[0]));
        if (me == (i & 1)) {
            OK(MPI_Request_free(&r[0]));
        } else {
            OK(MPI_Wait(&r[0], MPI_STATUS_IGNORE));
        }
        OK(MPI_Barrier(comm));
    }
}

/* The request object of an Ibarrier of two is kept by its communicator
 * for the next one: a stale copy of a completed Ibarrier's handle is
 * refused though its object serves the next Ibarrier; Ibarriers complete
 * among requests of other kinds (a receive, a send, a kept collective's)
 * in every completion call; a communicator freed under a freed active
 * Ibarrier ends cleanly. */
static void test_nb_kept(MPI_Comm comm)
{
    MPI_Request r[4], old;
    MPI_Comm dup;
    int me, peer, i, k, flag, idx, cls = -1, sbuf, rbuf, sum, one = 1;

    MPI_Comm_rank(comm, &me);
    peer = 1 - me;
    OK(MPI_Ibarrier(comm, &r[0]));
    old = r[0];
    OK(MPI_Wait(&r[0], MPI_STATUS_IGNORE));
    OK(MPI_Ibarrier(comm, &r[0]));
    MPI_Error_class(MPI_Wait(&old, MPI_STATUS_IGNORE), &cls);
    CHECK(cls == MPI_ERR_REQUEST, "MPI_Wait on a stale MPI_Ibarrier handle "
          "gave class %d, not MPI_ERR_REQUEST", cls);
    OK(MPI_Wait(&r[0], MPI_STATUS_IGNORE));
    for (i = 0; i < 24; i++) {
        sbuf = 100 * me + i;
        rbuf = sum = -1;
        OK(MPI_Irecv(&rbuf, 1, MPI_INT, peer, 7, comm, &r[0]));
        OK(MPI_Ibarrier(comm, &r[1]));
        OK(MPI_Iallreduce(&one, &sum, 1, MPI_INT, MPI_SUM, comm, &r[2]));
        OK(MPI_Isend(&sbuf, 1, MPI_INT, peer, 7, comm, &r[3]));
        switch (i % 4) {
        case 0:
            OK(MPI_Waitall(4, r, MPI_STATUSES_IGNORE));
            break;
        case 1:
            for (k = 0; k < 4; k++) {
                OK(MPI_Waitany(4, r, &idx, MPI_STATUS_IGNORE));
            }
            break;
        case 2:
            for (flag = 0; !flag;) {
                OK(MPI_Testall(4, r, &flag, MPI_STATUSES_IGNORE));
            }
            break;
        default:
            for (k = 3; k >= 0; k--) {
                for (flag = 0; !flag;) {
                    OK(MPI_Test(&r[k], &flag, MPI_STATUS_IGNORE));
                }
            }
            break;
        }
        for (k = 0; k < 4; k++) {
            CHECK(r[k] == MPI_REQUEST_NULL, "round %d: request %d left", i,
                  k);
        }
        CHECK(rbuf == 100 * peer + i, "round %d: received %d", i, rbuf);
        CHECK(sum == 2, "round %d: allreduce gave %d", i, sum);
    }
    OK(MPI_Comm_dup(comm, &dup));
    OK(MPI_Ibarrier(dup, &r[0]));
    OK(MPI_Wait(&r[0], MPI_STATUS_IGNORE));   /* one kept by dup */
    if (me == 1) {
        pause_ms(100);
    }
    OK(MPI_Ibarrier(dup, &r[0]));
    OK(MPI_Request_free(&r[0]));
    OK(MPI_Comm_free(&dup));
    OK(MPI_Barrier(comm));
}

static MPI_Comm tcomm[NTHREADS];

static void *thread_barriers(void *arg)
{
    mpitest_thread_t *rec = arg;
    int i;

    for (i = 0; i < NLOOPS; i++) {
        TOK(rec, MPI_Barrier(tcomm[rec->t]));
    }
    return NULL;
}

static void test_comm(MPI_Comm comm)
{
    test_holds(comm, 0);
    test_holds(comm, 1);
    test_order(comm);
    test_no_match(comm);
    test_nb(comm);
    test_nb_kept(comm);
}

/* how: "nb" (MPI_Ibarrier and its wait), "ag" or "a2a" (an 8-byte
 * MPI_Allgather or MPI_Alltoall: a schedule whose receive waits in its
 * step's record, coll/coll_sched.c), else the barrier. */
static int die(int dead_first, const char *how)
{
    char sbuf[16] = { 0 }, rbuf[16];
    MPI_Request req;
    int rc, cls = -1;

    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    for (rc = 0; rc < 3; rc++) {
        /* Run before, the schedule is kept, its send keeping its
         * envelope and connection (coll/coll_sched.c): the failed call
         * below sends on that connection. */
        if (strcmp(how, "ag") == 0) {
            OK(MPI_Allgather(sbuf, 8, MPI_BYTE, rbuf, 8, MPI_BYTE,
                             MPI_COMM_WORLD));
        } else if (strcmp(how, "a2a") == 0) {
            OK(MPI_Alltoall(sbuf, 8, MPI_BYTE, rbuf, 8, MPI_BYTE,
                            MPI_COMM_WORLD));
        }
    }
    OK(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 1) {
        pause_ms(dead_first ? 0 : 100);
        raise(SIGKILL);
    }
    if (dead_first) {
        pause_ms(1000);
    }
    if (strcmp(how, "ag") == 0) {
        rc = MPI_Allgather(sbuf, 8, MPI_BYTE, rbuf, 8, MPI_BYTE,
                           MPI_COMM_WORLD);
    } else if (strcmp(how, "a2a") == 0) {
        rc = MPI_Alltoall(sbuf, 8, MPI_BYTE, rbuf, 8, MPI_BYTE,
                          MPI_COMM_WORLD);
    } else if (strcmp(how, "nb") != 0) {
        rc = MPI_Barrier(MPI_COMM_WORLD);
    } else if ((rc = MPI_Ibarrier(MPI_COMM_WORLD, &req)) == MPI_SUCCESS) {
        rc = MPI_Wait(&req, MPI_STATUS_IGNORE);
    }
    if (rc == MPI_SUCCESS) {
        printf("FAIL: coll_pair: %s with a dead peer succeeded\n", how);
    } else {
        MPI_Error_class(rc, &cls);
        printf("coll_pair: peer died: class %d\n", cls);
    }
    fflush(stdout);
    exit(1);
}

int main(int argc, char **argv)
{
    mpitest_thread_t recs[NTHREADS];
    MPI_Comm pair, dup;
    int t;

    mpitest_init_thread(&argc, &argv, "coll_pair", MPI_THREAD_MULTIPLE);
    mpitest_world(&rank, &size);
    if (size != 2 && size != 4) {
        printf("FAIL: coll_pair needs 2 or 4 processes\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    if (argc > 1 && size == 2) {
        return die(strcmp(argv[1], "dead") == 0,
                   (argc > 2) ? argv[2] : "");
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    /* Pairs (0 1) and (2 3), ranked in reverse: world rank 1 is rank 0. */
    OK(MPI_Comm_split(MPI_COMM_WORLD, rank / 2, -rank, &pair));
    test_comm(pair);
    OK(MPI_Comm_dup(pair, &dup));
    test_comm(dup);
    if (size == 2) {
        test_comm(MPI_COMM_WORLD);
    }
    for (t = 0; t < NTHREADS; t++) {
        recs[t].t = t;
        recs[t].failures = 0;
        OK(MPI_Comm_dup(pair, &tcomm[t]));
    }
    mpitest_threads(NTHREADS, thread_barriers, recs, sizeof(recs[0]));
    for (t = 0; t < NTHREADS; t++) {
        mpitest_failures += recs[t].failures;
        OK(MPI_Comm_free(&tcomm[t]));
    }
    OK(MPI_Comm_free(&dup));
    OK(MPI_Comm_free(&pair));
    return mpitest_finish();
}
