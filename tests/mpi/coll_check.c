/*
 * tests/mpi/coll_check.c [fatal]: verification mode of the collectives
 * (run with GENCOMM_CHECK_COLLECTIVES=1, at 2 or more processes).
 *
 * Under MPI_ERRORS_RETURN, each kind of mismatch (root, operation, count,
 * type signature, per-rank counts of the v forms, different collectives,
 * blocking against nonblocking against persistent, the edges of the
 * neighbour collectives) must fail on every rank with the same
 * class and a text that names the call and a rank at fault; and after
 * each failure a correct collective must still work (no member went into
 * the failed one), a failed nonblocking call that ran the schedule kept
 * for its arguments included. Matching calls of every collective must pass with the
 * right results, and starting a nonblocking collective must stay local.
 *
 * "fatal": under the default MPI_ERRORS_ARE_FATAL a mismatch ends the job
 * (test_coll_check.sh checks the status and the message).
 */
#include <mpi.h>

#include "mpitest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, size, odd;

/* rc must be of class cls, its text must name call and contain want. */
static void expect(int line, int rc, int cls, const char *call,
                   const char *want)
{
    char text[MPI_MAX_ERROR_STRING];
    int got = -1, len = 0;

    if (rc != MPI_SUCCESS) {
        MPI_Error_class(rc, &got);
    }
    text[0] = '\0';
    MPI_Error_string(rc, text, &len);
    if (got != cls) {
        printf("FAIL: line %d (rank %d): class %d, want %d (%s)\n", line,
               rank, got, cls, text);
        mpitest_failures++;
    } else if (strstr(text, call) == NULL || strstr(text, want) == NULL) {
        printf("FAIL: line %d (rank %d): text \"%s\" does not name %s and "
               "\"%s\"\n", line, rank, text, call, want);
        mpitest_failures++;
    }
    fflush(stdout);
}

#define EXPECT_TEXT(_rc, _cls, _call, ...)                                   \
    do {                                                                     \
        char want_[256];                                                     \
        snprintf(want_, sizeof(want_), __VA_ARGS__);                         \
        expect(__LINE__, (_rc), (_cls), (_call), want_);                     \
    } while (0)

/* After a failed call, the communicator still works: no member went into
 * the collective and left messages or a tag behind. */
static void still_works(MPI_Comm comm, int line)
{
    int me, n, in, sum = -1, b[3] = { 0, 0, 0 };

    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &n);
    in = me + 1;
    if (MPI_Allreduce(&in, &sum, 1, MPI_INT, MPI_SUM, comm) != MPI_SUCCESS ||
        sum != n * (n + 1) / 2) {
        printf("FAIL: line %d (rank %d): allreduce after the failure: sum "
               "%d\n", line, rank, sum);
        mpitest_failures++;
    }
    if (me == n - 1) {
        b[0] = 7;
        b[1] = line;
        b[2] = -7;
    }
    if (MPI_Bcast(b, 3, MPI_INT, n - 1, comm) != MPI_SUCCESS ||
        b[0] != 7 || b[1] != line || b[2] != -7) {
        printf("FAIL: line %d (rank %d): bcast after the failure: %d %d "
               "%d\n", line, rank, b[0], b[1], b[2]);
        mpitest_failures++;
    }
    fflush(stdout);
}

static void user_fn(void *in, void *inout, int *len, MPI_Datatype *type)
{
    int i;

    (void)type;
    for (i = 0; i < *len; i++) {
        ((int *)inout)[i] += ((int *)in)[i];
    }
}

/* ---- mismatches ---------------------------------------------------------- */

static void test_root(void)
{
    int root = (rank == odd) ? odd : 0, rc;
    int *buf = calloc((size_t)size, sizeof(int)), x = rank;

    rc = MPI_Bcast(buf, 1, MPI_INT, root, MPI_COMM_WORLD);
    EXPECT_TEXT(rc, MPI_ERR_ROOT, "MPI_Bcast",
                "rank %d passed root %d, rank 0 "
                "passed root 0",
                odd, odd);
    still_works(MPI_COMM_WORLD, __LINE__);
    rc = MPI_Reduce(&x, buf, 1, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD);
    EXPECT_TEXT(rc, MPI_ERR_ROOT, "MPI_Reduce", "rank %d passed root %d", odd,
                odd);
    still_works(MPI_COMM_WORLD, __LINE__);
    rc = MPI_Gather(&x, 1, MPI_INT, buf, 1, MPI_INT, root, MPI_COMM_WORLD);
    EXPECT_TEXT(rc, MPI_ERR_ROOT, "MPI_Gather", "rank %d passed root %d", odd,
                odd);
    still_works(MPI_COMM_WORLD, __LINE__);
    rc = MPI_Scatter(buf, 1, MPI_INT, &x, 1, MPI_INT, root, MPI_COMM_WORLD);
    EXPECT_TEXT(rc, MPI_ERR_ROOT, "MPI_Scatter", "rank %d passed root %d", odd,
                odd);
    still_works(MPI_COMM_WORLD, __LINE__);
    free(buf);
}

static void test_op(void)
{
    MPI_Op comm_op, noncomm_op;
    int x = rank, y = -1, rc;

    rc = MPI_Allreduce(&x, &y, 1, MPI_INT, (rank == odd) ? MPI_MAX : MPI_SUM,
                       MPI_COMM_WORLD);
    EXPECT_TEXT(rc, MPI_ERR_OP, "MPI_Allreduce",
                "rank %d passed MPI_MAX, rank 0 "
                "passed MPI_SUM",
                odd);
    still_works(MPI_COMM_WORLD, __LINE__);
    /* Two user operations are told apart by their commutativity only. */
    OK(MPI_Op_create(user_fn, 1, &comm_op));
    OK(MPI_Op_create(user_fn, 0, &noncomm_op));
    rc = MPI_Reduce(&x, &y, 1, MPI_INT, (rank == odd) ? noncomm_op : comm_op,
                    0, MPI_COMM_WORLD);
    EXPECT_TEXT(rc, MPI_ERR_OP, "MPI_Reduce",
                "rank %d passed a non-commutative "
                "user operation",
                odd);
    still_works(MPI_COMM_WORLD, __LINE__);
    MPI_Op_free(&comm_op);
    MPI_Op_free(&noncomm_op);
}

static void test_count_and_type(void)
{
    int buf[12], out[12], rc, i;
    MPI_Datatype pair;

    for (i = 0; i < 12; i++) {
        buf[i] = (rank == 0) ? 100 + i : -1;
    }
    /* The receiver would get more than it expects. */
    rc = MPI_Bcast(buf, (rank == odd) ? 10 : 12, MPI_INT, 0, MPI_COMM_WORLD);
    EXPECT_TEXT(rc, MPI_ERR_TRUNCATE, "MPI_Bcast",
                "rank 0 sends 12 x MPI_INT "
                "(48 bytes) to rank %d, which expects 10 x MPI_INT (40 bytes)",
                odd);
    CHECK(rank == 0 || buf[0] == -1, "bcast wrote data though it failed");
    still_works(MPI_COMM_WORLD, __LINE__);
    /* ... or less. */
    rc = MPI_Bcast(buf, (rank == odd) ? 12 : 10, MPI_INT, 0, MPI_COMM_WORLD);
    EXPECT_TEXT(rc, MPI_ERR_COUNT, "MPI_Bcast",
                "to rank %d, which expects 12 x "
                "MPI_INT (48 bytes)",
                odd);
    still_works(MPI_COMM_WORLD, __LINE__);
    /* Allreduce: rank 0 is the lowest receiver that sees a mismatch. */
    rc = MPI_Allreduce(buf, out, (rank == odd) ? 10 : 12, MPI_INT, MPI_SUM,
                       MPI_COMM_WORLD);
    EXPECT_TEXT(rc, MPI_ERR_COUNT, "MPI_Allreduce",
                "rank %d sends 10 x MPI_INT "
                "(40 bytes) to rank 0, which expects 12 x MPI_INT (48 bytes)",
                odd);
    still_works(MPI_COMM_WORLD, __LINE__);

    /* Same bytes, different type signature. */
    rc = MPI_Bcast(buf, 4, (rank == odd) ? MPI_FLOAT : MPI_INT, 0,
                   MPI_COMM_WORLD);
    EXPECT_TEXT(
        rc, MPI_ERR_TYPE, "MPI_Bcast",
        "rank 0 sends 4 x MPI_INT (16 "
        "bytes) to rank %d, which expects 4 x MPI_FLOAT (16 bytes): the "
        "type signatures differ",
        odd);
    still_works(MPI_COMM_WORLD, __LINE__);
    rc = MPI_Allreduce(buf, out, 4, (rank == odd) ? MPI_FLOAT : MPI_INT,
                       MPI_SUM, MPI_COMM_WORLD);
    EXPECT_TEXT(rc, MPI_ERR_TYPE, "MPI_Allreduce",
                "which expects 4 x MPI_INT");
    still_works(MPI_COMM_WORLD, __LINE__);

    /* Equal signatures in other layouts pass: 2 x {int, int} is 4 ints. */
    OK(MPI_Type_contiguous(2, MPI_INT, &pair));
    OK(MPI_Type_commit(&pair));
    for (i = 0; i < 4; i++) {
        buf[i] = (rank == 0) ? 200 + i : -1;
    }
    rc = MPI_Bcast(buf, (rank == odd) ? 2 : 4, (rank == odd) ? pair : MPI_INT,
                   0, MPI_COMM_WORLD);
    CHECK(rc == MPI_SUCCESS && buf[0] == 200 && buf[3] == 203,
          "bcast of 4 ints into 2 x contiguous(2, MPI_INT): rc %d, %d..%d",
          rc, buf[0], buf[3]);
    MPI_Type_free(&pair);
    /* MPI_BYTE at one end: checked by bytes only. */
    for (i = 0; i < 4; i++) {
        buf[i] = (rank == 0) ? 300 + i : -1;
    }
    rc = MPI_Bcast(buf, (rank == odd) ? 16 : 4,
                   (rank == odd) ? MPI_BYTE : MPI_INT, 0, MPI_COMM_WORLD);
    CHECK(rc == MPI_SUCCESS && buf[0] == 300 && buf[3] == 303,
          "bcast of 4 ints into 16 MPI_BYTE: rc %d, %d..%d", rc, buf[0],
          buf[3]);
    rc = MPI_Bcast(buf, (rank == odd) ? 12 : 4,
                   (rank == odd) ? MPI_BYTE : MPI_INT, 0, MPI_COMM_WORLD);
    EXPECT_TEXT(rc, MPI_ERR_TRUNCATE, "MPI_Bcast",
                "rank 0 sends 4 x MPI_INT (16 "
                "bytes) to rank %d, which expects 12 x MPI_BYTE (12 bytes)",
                odd);
    still_works(MPI_COMM_WORLD, __LINE__);
}

static void test_v_counts(void)
{
    int *counts = malloc((size_t)size * sizeof(int));
    int *displs = malloc((size_t)size * sizeof(int));
    int *sc = malloc((size_t)size * sizeof(int));
    int *sd = malloc((size_t)size * sizeof(int));
    int *rc_ = malloc((size_t)size * sizeof(int));
    int *rd = malloc((size_t)size * sizeof(int));
    int *big = malloc((size_t)(size * (size + 2)) * sizeof(int));
    int mine[64], rc, i, off;

    for (i = 0; i < 64; i++) {
        mine[i] = rank;
    }
    for (i = 0, off = 0; i < size; i++) {
        counts[i] = i + 1;
        displs[i] = off;
        off += i + 2;
    }
    /* Gatherv: rank odd sends one more than the root expects from it. */
    rc = MPI_Gatherv(mine, (rank == odd) ? rank + 2 : rank + 1, MPI_INT, big,
                     counts, displs, MPI_INT, 0, MPI_COMM_WORLD);
    EXPECT_TEXT(rc, MPI_ERR_TRUNCATE, "MPI_Gatherv",
                "rank %d sends %d x MPI_INT "
                "(%d bytes) to rank 0, which expects %d x MPI_INT",
                odd, odd + 2, 4 * (odd + 2), odd + 1);
    still_works(MPI_COMM_WORLD, __LINE__);
    /* ... one fewer. */
    rc = MPI_Gatherv(mine, (rank == odd) ? rank : rank + 1, MPI_INT, big,
                     counts, displs, MPI_INT, 0, MPI_COMM_WORLD);
    EXPECT_TEXT(rc, MPI_ERR_COUNT, "MPI_Gatherv", "rank %d sends %d x MPI_INT",
                odd, odd);
    still_works(MPI_COMM_WORLD, __LINE__);
    /* Scatterv: the root sends rank i i + 1; rank odd expects i. */
    rc = MPI_Scatterv(big, counts, displs, MPI_INT, mine,
                      (rank == odd) ? rank : rank + 1, MPI_INT, 0,
                      MPI_COMM_WORLD);
    EXPECT_TEXT(rc, MPI_ERR_TRUNCATE, "MPI_Scatterv",
                "rank 0 sends %d x MPI_INT "
                "(%d bytes) to rank %d, which expects %d x MPI_INT",
                odd + 1, 4 * (odd + 1), odd, odd);
    still_works(MPI_COMM_WORLD, __LINE__);
    /* Alltoallv: rank r sends j (r + j) % 3 + 1 ints; rank odd expects
     * one fewer from rank 0. */
    for (i = 0, off = 0; i < size; i++) {
        sc[i] = (rank + i) % 3 + 1;
        rc_[i] = (i + rank) % 3 + 1;
        sd[i] = rd[i] = off;
        off += 4;
    }
    if (rank == odd) {
        rc_[0]--;
    }
    rc = MPI_Alltoallv(big, sc, sd, MPI_INT, mine, rc_, rd, MPI_INT,
                       MPI_COMM_WORLD);
    EXPECT_TEXT(rc, MPI_ERR_TRUNCATE, "MPI_Alltoallv",
                "rank 0 sends %d x MPI_INT "
                "(%d bytes) to rank %d",
                odd % 3 + 1, 4 * (odd % 3 + 1), odd);
    still_works(MPI_COMM_WORLD, __LINE__);
    /* Allgatherv: rank odd thinks rank 0 contributes 2 ints. */
    for (i = 0; i < size; i++) {
        counts[i] = 1;
        displs[i] = 2 * i;
    }
    if (rank == odd) {
        counts[0] = 2;
    }
    rc = MPI_Allgatherv(mine, 1, MPI_INT, big, counts, displs, MPI_INT,
                        MPI_COMM_WORLD);
    EXPECT_TEXT(rc, MPI_ERR_COUNT, "MPI_Allgatherv",
                "rank 0 sends 1 x MPI_INT "
                "(4 bytes) to rank %d, which expects 2 x MPI_INT (8 bytes)",
                odd);
    still_works(MPI_COMM_WORLD, __LINE__);
    /* Reduce_scatter: rank odd's recvcounts differ at rank 0's block. */
    for (i = 0; i < size; i++) {
        counts[i] = 1;
    }
    if (rank == odd) {
        counts[0] = 2;
    }
    rc = MPI_Reduce_scatter(big, mine, counts, MPI_INT, MPI_SUM,
                            MPI_COMM_WORLD);
    EXPECT_TEXT(rc, MPI_ERR_TRUNCATE, "MPI_Reduce_scatter",
                "rank %d sends 2 x "
                "MPI_INT (8 bytes) to rank 0, which expects 1 x MPI_INT",
                odd);
    still_works(MPI_COMM_WORLD, __LINE__);
    free(counts);
    free(displs);
    free(sc);
    free(sd);
    free(rc_);
    free(rd);
    free(big);
}

static void test_different_calls(void)
{
    MPI_Request req;
    int x = rank, y = 0, rc;

    if (rank == odd) {
        rc = MPI_Reduce(&x, &y, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    } else {
        rc = MPI_Bcast(&x, 1, MPI_INT, 0, MPI_COMM_WORLD);
    }
    EXPECT_TEXT(rc, MPI_ERR_OTHER, (rank == odd) ? "MPI_Reduce" : "MPI_Bcast",
                "rank %d called MPI_Reduce, rank 0 called MPI_Bcast", odd);
    still_works(MPI_COMM_WORLD, __LINE__);

    /* A barrier against a bcast: at 2 processes the blocking barrier is
     * one exchange without a schedule (mpi_coll_rooted.c), checked all
     * the same; the next barrier passes. */
    if (rank == odd) {
        rc = MPI_Barrier(MPI_COMM_WORLD);
    } else {
        rc = MPI_Bcast(&x, 1, MPI_INT, 0, MPI_COMM_WORLD);
    }
    EXPECT_TEXT(rc, MPI_ERR_OTHER,
                (rank == odd) ? "MPI_Barrier" : "MPI_Bcast",
                "rank %d called MPI_Barrier, rank 0 called MPI_Bcast", odd);
    still_works(MPI_COMM_WORLD, __LINE__);
    OK(MPI_Barrier(MPI_COMM_WORLD));

    /* Blocking and nonblocking forms do not match (MPI-3.1 5.12). */
    if (rank == odd) {
        rc = MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    } else {
        OK(MPI_Iallreduce(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD,
                          &req));
        rc = MPI_Wait(&req, MPI_STATUS_IGNORE);
        CHECK(req == MPI_REQUEST_NULL, "the failed request was not freed");
    }
    EXPECT_TEXT(rc, MPI_ERR_OTHER,
                (rank == odd) ? "MPI_Allreduce" : "MPI_Iallreduce",
                "rank %d called MPI_Allreduce, rank 0 called "
                "MPI_Iallreduce",
                odd);
    still_works(MPI_COMM_WORLD, __LINE__);

    /* A nonblocking mismatch fails at completion; the schedule never
     * starts, so the buffer is untouched. */
    x = (rank == 0) ? 42 : -1;
    OK(MPI_Ibcast(&x, 1, MPI_INT, (rank == odd) ? odd : 0, MPI_COMM_WORLD,
                  &req));
    rc = MPI_Wait(&req, MPI_STATUS_IGNORE);
    EXPECT_TEXT(rc, MPI_ERR_ROOT, "MPI_Ibcast", "rank %d passed root %d", odd,
                odd);
    CHECK(x == ((rank == 0) ? 42 : -1), "failed Ibcast wrote %d", x);
    still_works(MPI_COMM_WORLD, __LINE__);
}

/* A failed call that took the schedule kept for its arguments: the
 * members other than odd run an Ibcast of the same arguments twice (its
 * schedule kept, and installed on the communicator by the end of the
 * first), then once more while odd names another root. Their kept
 * schedule fails its check: the next call with those arguments must find
 * it dead, drop it and build its own, and the one after that runs the
 * schedule kept again. */
static void test_kept_failed(void)
{
    MPI_Request req;
    int x, round, rc;

    for (round = 0; round < 5; round++) {
        int bad = (round == 2);

        x = (rank == 0) ? 100 + round : -1;
        OK(MPI_Ibcast(&x, 1, MPI_INT, (bad && rank == odd) ? odd : 0,
                      MPI_COMM_WORLD, &req));
        rc = MPI_Wait(&req, MPI_STATUS_IGNORE);
        if (bad) {
            EXPECT_TEXT(rc, MPI_ERR_ROOT, "MPI_Ibcast",
                        "rank %d passed root %d", odd, odd);
            still_works(MPI_COMM_WORLD, __LINE__);
        } else {
            CHECK(rc == MPI_SUCCESS && x == 100 + round,
                  "round %d: Ibcast rc %d, x %d", round, rc, x);
        }
    }
}

/* A mismatch on a duplicate: that communicator fails, and both it and
 * the world go on working. */
static void test_dup(void)
{
    MPI_Comm dup;
    int x = 0, rc;

    OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    rc = MPI_Bcast(&x, 1, MPI_INT, (rank == odd) ? odd : 0, dup);
    EXPECT_TEXT(rc, MPI_ERR_ROOT, "MPI_Bcast", "rank %d passed root", odd);
    still_works(dup, __LINE__);
    still_works(MPI_COMM_WORLD, __LINE__);
    MPI_Comm_free(&dup);
}

/* The other nonblocking collectives, the persistent forms (checked once,
 * at their _init call, which may block: MPI-4.0 6.13) and the neighbour
 * collectives (checked edge by edge). */
static void test_new_forms(void)
{
    MPI_Request req;
    MPI_Comm ring;
    int dims[1] = { size }, periods[1] = { 1 };
    int *all = calloc((size_t)size * 4, sizeof(int)), *cnt, *displs;
    int x = rank, y = 0, r, rc, sb[4] = { 1, 2, 3, 4 }, rb[4];

    cnt = calloc((size_t)size, sizeof(int));
    displs = calloc((size_t)size, sizeof(int));
    /* Igatherv: the root expects one int fewer from rank odd. */
    for (r = 0; r < size; r++) {
        cnt[r] = (r == odd) ? 1 : 2;
        displs[r] = 2 * r;
    }
    OK(MPI_Igatherv(sb, 2, MPI_INT, all, cnt, displs, MPI_INT, 0,
                    MPI_COMM_WORLD, &req));
    rc = MPI_Wait(&req, MPI_STATUS_IGNORE);
    EXPECT_TEXT(rc, MPI_ERR_TRUNCATE, "MPI_Igatherv",
                "rank %d sends 2 x MPI_INT "
                "(8 bytes) to rank 0, which expects 1 x MPI_INT",
                odd);
    still_works(MPI_COMM_WORLD, __LINE__);

    /* Persistent: the roots differ; every member fails at the _init. */
    req = MPI_REQUEST_NULL;
    rc = MPI_Bcast_init(&x, 1, MPI_INT, (rank == odd) ? odd : 0,
                        MPI_COMM_WORLD, MPI_INFO_NULL, &req);
    EXPECT_TEXT(rc, MPI_ERR_ROOT, "MPI_Bcast_init", "rank %d passed root %d",
                odd, odd);
    CHECK(req == MPI_REQUEST_NULL, "a failed _init made a request");
    still_works(MPI_COMM_WORLD, __LINE__);
    /* Persistent and nonblocking forms do not match either. */
    if (rank == odd) {
        rc = MPI_Allreduce_init(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD,
                                MPI_INFO_NULL, &req);
    } else {
        OK(MPI_Iallreduce(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD,
                          &req));
        rc = MPI_Wait(&req, MPI_STATUS_IGNORE);
    }
    EXPECT_TEXT(rc, MPI_ERR_OTHER,
                (rank == odd) ? "MPI_Allreduce_init" : "MPI_Iallreduce",
                "rank %d called MPI_Allreduce_init, rank 0 "
                "called MPI_Iallreduce",
                odd);
    still_works(MPI_COMM_WORLD, __LINE__);
    /* Matching ones pass, and run again without another check. */
    OK(MPI_Allreduce_init(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD,
                          MPI_INFO_NULL, &req));
    for (r = 0; r < 3; r++) {
        x = rank + r;
        OK(MPI_Start(&req));
        OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
        CHECK(y == size * r + size * (size - 1) / 2, "persistent allreduce "
              "%d", y);
    }
    OK(MPI_Request_free(&req));

    /* Neighbour collectives on a ring: rank odd sends two ints to each
     * neighbour where they expect one (the amounts differ), then floats
     * where they expect ints (the type signatures differ). */
    OK(MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &ring));
    rc = MPI_Neighbor_alltoall(sb, (rank == odd) ? 2 : 1, MPI_INT, rb,
                               (rank == odd) ? 2 : 1, MPI_INT, ring);
    EXPECT_TEXT(rc, MPI_ERR_COUNT, "MPI_Neighbor_alltoall",
                "the amounts of "
                "data of some edge differ");
    still_works(ring, __LINE__);
    OK(MPI_Ineighbor_allgather(sb, 1, (rank == odd) ? MPI_FLOAT : MPI_INT,
                               rb, 1, MPI_INT, ring, &req));
    rc = MPI_Wait(&req, MPI_STATUS_IGNORE);
    EXPECT_TEXT(rc, MPI_ERR_TYPE, "MPI_Ineighbor_allgather",
                "the type "
                "signatures of some edge differ");
    still_works(ring, __LINE__);
    OK(MPI_Neighbor_alltoall_init(sb, 2, MPI_INT, rb, 2, MPI_INT, ring,
                                  MPI_INFO_NULL, &req));
    OK(MPI_Start(&req));
    OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    OK(MPI_Request_free(&req));
    OK(MPI_Neighbor_allgather(&x, 1, MPI_INT, rb, 1, MPI_INT, ring));
    CHECK(rb[0] == x - rank + (rank + size - 1) % size, "neighbour "
          "allgather after the failures: %d", rb[0]);
    MPI_Comm_free(&ring);
    free(all);
    free(cnt);
    free(displs);
}

/* ---- matching calls pass ------------------------------------------------- */

static void test_all_match(void)
{
    int n = size, i, j, x, y, ok;
    int *a = malloc((size_t)(4 * n * n + 16) * sizeof(int));
    int *b = malloc((size_t)(4 * n * n + 16) * sizeof(int));
    int *cnt = malloc((size_t)n * sizeof(int));
    int *dsp = malloc((size_t)n * sizeof(int));
    int *cnt2 = malloc((size_t)n * sizeof(int));
    int *dsp2 = malloc((size_t)n * sizeof(int));
    MPI_Datatype *types = malloc((size_t)n * sizeof(MPI_Datatype));
    MPI_Request req[4];
    int root = n / 2;

    OK(MPI_Barrier(MPI_COMM_WORLD));
    /* bcast, reduce, allreduce (also in place), scan, exscan */
    x = (rank == root) ? 1234 : 0;
    OK(MPI_Bcast(&x, 1, MPI_INT, root, MPI_COMM_WORLD));
    CHECK(x == 1234, "bcast: %d", x);
    x = rank + 1;
    y = -1;
    OK(MPI_Reduce(&x, &y, 1, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD));
    CHECK(rank != root || y == n * (n + 1) / 2, "reduce: %d", y);
    y = rank + 1;
    OK(MPI_Reduce(rank == root ? MPI_IN_PLACE : &y, rank == root ? &y : NULL,
                  1, MPI_INT, MPI_MAX, root, MPI_COMM_WORLD));
    CHECK(rank != root || y == n, "reduce in place: %d", y);
    OK(MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD));
    CHECK(y == n, "allreduce: %d", y);
    y = x;
    OK(MPI_Allreduce(MPI_IN_PLACE, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    CHECK(y == n * (n + 1) / 2, "allreduce in place: %d", y);
    OK(MPI_Scan(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    CHECK(y == (rank + 1) * (rank + 2) / 2, "scan: %d", y);
    OK(MPI_Exscan(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    CHECK(rank == 0 || y == rank * (rank + 1) / 2, "exscan: %d", y);

    /* gather(v) and scatter(v), also in place at the root */
    OK(MPI_Gather(&rank, 1, MPI_INT, a, 1, MPI_INT, root, MPI_COMM_WORLD));
    for (i = 0, ok = 1; rank == root && i < n; i++) {
        ok &= (a[i] == i);
    }
    CHECK(ok, "gather");
    for (i = 0; i < n; i++) {
        cnt[i] = i + 1;
        dsp[i] = i * n;
        a[i] = -1;
    }
    for (i = 0; i < rank + 1; i++) {
        b[i] = rank * 10 + i;
    }
    if (rank == root) {
        for (i = 0; i < root + 1; i++) {
            a[dsp[root] + i] = root * 10 + i;
        }
    }
    OK(MPI_Gatherv(rank == root ? MPI_IN_PLACE : b, rank + 1, MPI_INT, a,
                   cnt, dsp, MPI_INT, root, MPI_COMM_WORLD));
    for (i = 0, ok = 1; rank == root && i < n; i++) {
        for (j = 0; j < i + 1; j++) {
            ok &= (a[dsp[i] + j] == i * 10 + j);
        }
    }
    CHECK(ok, "gatherv in place");
    for (i = 0; i < n; i++) {
        a[i] = 50 + i;
    }
    OK(MPI_Scatter(a, 1, MPI_INT, &y, 1, MPI_INT, root, MPI_COMM_WORLD));
    CHECK(y == 50 + rank, "scatter: %d", y);
    for (i = 0; i < n * n; i++) {
        a[i] = i;
    }
    OK(MPI_Scatterv(a, cnt, dsp, MPI_INT, b, rank + 1, MPI_INT, root,
                    MPI_COMM_WORLD));
    for (j = 0, ok = 1; j < rank + 1; j++) {
        ok &= (b[j] == dsp[rank] + j);
    }
    CHECK(ok, "scatterv");

    /* allgather(v) (also in place), alltoall(v, w) (also in place) */
    OK(MPI_Allgather(&rank, 1, MPI_INT, a, 1, MPI_INT, MPI_COMM_WORLD));
    for (i = 0, ok = 1; i < n; i++) {
        ok &= (a[i] == i);
    }
    CHECK(ok, "allgather");
    for (i = 0; i < n; i++) {
        a[i] = (i == rank) ? rank * 3 : -1;
    }
    OK(MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, a, 1, MPI_INT,
                     MPI_COMM_WORLD));
    for (i = 0, ok = 1; i < n; i++) {
        ok &= (a[i] == i * 3);
    }
    CHECK(ok, "allgather in place");
    for (j = 0; j < rank + 1; j++) {
        b[j] = rank * 10 + j;
    }
    OK(MPI_Allgatherv(b, rank + 1, MPI_INT, a, cnt, dsp, MPI_INT,
                      MPI_COMM_WORLD));
    for (i = 0, ok = 1; i < n; i++) {
        for (j = 0; j < i + 1; j++) {
            ok &= (a[dsp[i] + j] == i * 10 + j);
        }
    }
    CHECK(ok, "allgatherv");
    for (i = 0; i < n; i++) {
        b[i] = rank * 100 + i;
    }
    OK(MPI_Alltoall(b, 1, MPI_INT, a, 1, MPI_INT, MPI_COMM_WORLD));
    for (i = 0, ok = 1; i < n; i++) {
        ok &= (a[i] == i * 100 + rank);
    }
    CHECK(ok, "alltoall");
    for (i = 0; i < n; i++) {
        a[i] = rank * 100 + i;
    }
    OK(MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, a, 1, MPI_INT,
                    MPI_COMM_WORLD));
    for (i = 0, ok = 1; i < n; i++) {
        ok &= (a[i] == i * 100 + rank);
    }
    CHECK(ok, "alltoall in place");
    /* rank r sends j (r + j) % 3 + 1 ints valued r * 1000 + j. */
    for (i = 0; i < n; i++) {
        cnt[i] = (rank + i) % 3 + 1;
        dsp[i] = 4 * i;
        cnt2[i] = (i + rank) % 3 + 1;
        dsp2[i] = 4 * i;
        for (j = 0; j < cnt[i]; j++) {
            b[dsp[i] + j] = rank * 1000 + i;
        }
    }
    OK(MPI_Alltoallv(b, cnt, dsp, MPI_INT, a, cnt2, dsp2, MPI_INT,
                     MPI_COMM_WORLD));
    for (i = 0, ok = 1; i < n; i++) {
        for (j = 0; j < cnt2[i]; j++) {
            ok &= (a[dsp2[i] + j] == i * 1000 + rank);
        }
    }
    CHECK(ok, "alltoallv");
    for (i = 0; i < n; i++) {
        cnt[i] = 1;
        dsp[i] = i * (int)sizeof(int);
        types[i] = MPI_INT;
        b[i] = rank * 7 + i;
    }
    OK(MPI_Alltoallw(b, cnt, dsp, types, a, cnt, dsp, types,
                     MPI_COMM_WORLD));
    for (i = 0, ok = 1; i < n; i++) {
        ok &= (a[i] == i * 7 + rank);
    }
    CHECK(ok, "alltoallw");

    /* reduce_scatter(_block) */
    for (i = 0; i < n; i++) {
        cnt[i] = 1;
        b[i] = i + rank;
    }
    OK(MPI_Reduce_scatter(b, &y, cnt, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    CHECK(y == n * rank + n * (n - 1) / 2, "reduce_scatter: %d", y);
    OK(MPI_Reduce_scatter_block(b, &y, 1, MPI_INT, MPI_SUM,
                                MPI_COMM_WORLD));
    CHECK(y == n * rank + n * (n - 1) / 2, "reduce_scatter_block: %d", y);

    /* nonblocking, several at once */
    x = (rank == root) ? 99 : 0;
    y = -1;
    OK(MPI_Ibarrier(MPI_COMM_WORLD, &req[0]));
    OK(MPI_Ibcast(&x, 1, MPI_INT, root, MPI_COMM_WORLD, &req[1]));
    OK(MPI_Iallreduce(&rank, &y, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD,
                      &req[2]));
    OK(MPI_Iallgather(&rank, 1, MPI_INT, a, 1, MPI_INT, MPI_COMM_WORLD,
                      &req[3]));
    OK(MPI_Waitall(4, req, MPI_STATUSES_IGNORE));
    for (i = 0, ok = 1; i < n; i++) {
        ok &= (a[i] == i);
    }
    CHECK(x == 99 && y == n - 1 && ok, "nonblocking: %d %d %d", x, y, ok);
    OK(MPI_Ireduce(&rank, &y, 1, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD,
                   &req[0]));
    OK(MPI_Ialltoall(b, 1, MPI_INT, a, 1, MPI_INT, MPI_COMM_WORLD, &req[1]));
    OK(MPI_Waitall(2, req, MPI_STATUSES_IGNORE));
    CHECK(rank != root || y == n * (n - 1) / 2, "ireduce: %d", y);

    free(a);
    free(b);
    free(cnt);
    free(dsp);
    free(cnt2);
    free(dsp2);
    free(types);
}

/* Starting a nonblocking collective is local (MPI-3.1 5.12) also in
 * verification mode: rank 0 starts its Ibarrier and then sends what rank
 * 1 waits for before it starts its own. A check that blocked at the
 * start would hang here. */
static void test_nonblocking_start_is_local(void)
{
    MPI_Request req;
    int x = 5;

    if (rank == 0) {
        OK(MPI_Ibarrier(MPI_COMM_WORLD, &req));
        OK(MPI_Send(&x, 1, MPI_INT, 1, 17, MPI_COMM_WORLD));
    } else {
        if (rank == 1) {
            x = 0;
            OK(MPI_Recv(&x, 1, MPI_INT, 0, 17, MPI_COMM_WORLD,
                        MPI_STATUS_IGNORE));
        }
        OK(MPI_Ibarrier(MPI_COMM_WORLD, &req));
    }
    OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    CHECK(x == 5, "message before the barrier: %d", x);
}

int main(int argc, char **argv)
{
    const char *mode = (argc > 1) ? argv[1] : "return";
    int x = 0;

    mpitest_init(&argc, &argv, "coll_check", 0);
    mpitest_world(&rank, &size);
    odd = size - 1;
    if (size < 2) {
        printf("FAIL: coll_check needs 2 or more processes\n");
        MPI_Finalize();
        return 1;
    }
    if (strcmp(mode, "fatal") == 0) {
        /* Rank odd names itself the root: every rank must end here. */
        MPI_Bcast(&x, 1, MPI_INT, (rank == odd) ? odd : 0, MPI_COMM_WORLD);
        printf("FAIL: rank %d went on after a mismatched MPI_Bcast under "
               "MPI_ERRORS_ARE_FATAL\n", rank);
        MPI_Finalize();
        return 1;
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    test_all_match();
    test_nonblocking_start_is_local();
    test_root();
    test_op();
    test_count_and_type();
    test_v_counts();
    test_different_calls();
    test_kept_failed();
    test_dup();
    test_new_forms();
    test_all_match();
    return mpitest_finish();
}
