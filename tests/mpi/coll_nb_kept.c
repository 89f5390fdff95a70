/*
 * tests/mpi/coll_nb_kept.c: the request object a nonblocking collective
 * keeps with its schedule (and the one a communicator keeps for the
 * two-process MPI_Ibarrier), reused from call to call.
 *
 * - rounds: one call again and again with the same arguments (its kept
 *   schedule and request reused), waited, tested, or waited in Waitall;
 *   each result checked; the handle of the round before must be refused
 *   as stale (the object is the same, its handle's generation moved on);
 *   the status a wait hands out is the empty one. In every other round
 *   rank 0 starts its part only once rank 1's token says rank 1's part
 *   was posted, so that its call often finds the data there and completes
 *   where it starts (the request's status then comes from the start).
 * - two: two of the same collective outstanding on one communicator
 *   (same send buffer, other receive buffers; two MPI_Ibarrier), waited
 *   in either order: each its own request, both right.
 * - freed: a kept collective (and an MPI_Ibarrier) freed while active,
 *   then the same calls again: the orphan's end gives its objects back.
 * - comm_freed: a kept collective on a duplicate waited after the
 *   duplicate was freed, one freed with its kept schedule idle, and
 *   MPI_Comm_disconnect after kept collectives (the schedule kept on the
 *   communicator holds it for its requests; disconnect must not wait for
 *   it).
 * - mixed: point-to-point and collective requests in one MPI_Waitall,
 *   MPI_Waitany, MPI_Waitsome and MPI_Testall, statuses checked.
 */
#include <mpi.h>

#include "mpitest.h"

#include <stdio.h>
#include <string.h>

static int rank, size;

enum { ROUNDS = 40, N = 4 };

/* A status no completion writes: what a call left shows. */
static void poison(MPI_Status *st)
{
    st->MPI_SOURCE = -77;
    st->MPI_TAG = -77;
    st->MPI_ERROR = -77;
}

/* The empty status of a collective's completion (MPI_ERROR as expected:
 * left alone by a single completion, written by the array ones). */
static void check_empty(const MPI_Status *st, int err, const char *what,
                        int round)
{
    int count = -1;

    CHECK(st->MPI_SOURCE == MPI_ANY_SOURCE && st->MPI_TAG == MPI_ANY_TAG &&
          st->MPI_ERROR == err, "%s round %d: status %d/%d/%d", what, round,
          st->MPI_SOURCE, st->MPI_TAG, st->MPI_ERROR);
    OK(MPI_Get_count(st, MPI_INT, &count));
    CHECK(count == 0, "%s round %d: count %d", what, round, count);
}

/* In odd rounds rank 1 posts its part, then tells rank 0, which starts
 * its own only then (nothing else waits on it: no deadlock). */
static void token_after(int round)
{
    if (size >= 2 && (round % 2) == 1 && rank == 1) {
        OK(MPI_Send(&round, 1, MPI_INT, 0, 99, MPI_COMM_WORLD));
    }
}

static void token_before(int round)
{
    int got = -1;

    if (size >= 2 && (round % 2) == 1 && rank == 0) {
        OK(MPI_Recv(&got, 1, MPI_INT, 1, 99, MPI_COMM_WORLD,
                    MPI_STATUS_IGNORE));
        CHECK(got == round, "token %d in round %d", got, round);
    }
}

/* Is the handle of an earlier round refused (stale)? Asked with
 * MPI_Request_get_status, which frees nothing: a stale handle taken for
 * the live request would not end this round's. */
static void check_stale(MPI_Request old, const char *what, int round)
{
    int flag = 0;

    CHECK(MPI_Request_get_status(old, &flag, MPI_STATUS_IGNORE) ==
          MPI_ERR_REQUEST,
          "%s round %d: the handle of the round before is still taken",
          what, round);
}

/* Completes req the way the round says: MPI_Wait, MPI_Test in a loop,
 * or MPI_Waitall of one; checks the status. */
static void complete(MPI_Request *req, int round, const char *what)
{
    MPI_Status st;
    int flag = 0;

    poison(&st);
    switch (round % 3) {
    case 0:
        OK(MPI_Wait(req, &st));
        check_empty(&st, -77, what, round);
        break;
    case 1:
        while (!flag) {
            OK(MPI_Test(req, &flag, &st));
        }
        check_empty(&st, -77, what, round);
        break;
    default:
        OK(MPI_Waitall(1, req, &st));
        check_empty(&st, MPI_SUCCESS, what, round);
        break;
    }
    CHECK(*req == MPI_REQUEST_NULL, "%s round %d: request not freed", what,
          round);
}

static void test_rounds(void)
{
    int sbuf[N], rbuf[N], gbuf[N * 8];
    MPI_Request req, old = MPI_REQUEST_NULL;
    int round, i;

    for (round = 0; round < ROUNDS; round++) {
        for (i = 0; i < N; i++) {
            sbuf[i] = round * 100 + rank + i;
            rbuf[i] = -1;
        }
        token_before(round);
        OK(MPI_Iallreduce(sbuf, rbuf, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD,
                          &req));
        token_after(round);
        if (old != MPI_REQUEST_NULL) {
            check_stale(old, "iallreduce", round);
        }
        old = req;
        complete(&req, round, "iallreduce");
        for (i = 0; i < N; i++) {
            int want = size * (round * 100 + i) + size * (size - 1) / 2;

            CHECK(rbuf[i] == want, "iallreduce round %d: [%d] %d, want %d",
                  round, i, rbuf[i], want);
        }
    }
    old = MPI_REQUEST_NULL;
    for (round = 0; round < ROUNDS && size <= 8; round++) {
        sbuf[0] = round * 10 + rank;
        memset(gbuf, 0xff, sizeof(gbuf));
        token_before(round);
        OK(MPI_Iallgather(sbuf, 1, MPI_INT, gbuf, 1, MPI_INT, MPI_COMM_WORLD,
                          &req));
        token_after(round);
        if (old != MPI_REQUEST_NULL) {
            check_stale(old, "iallgather", round);
        }
        old = req;
        complete(&req, round, "iallgather");
        for (i = 0; i < size; i++) {
            CHECK(gbuf[i] == round * 10 + i,
                  "iallgather round %d: [%d] %d", round, i, gbuf[i]);
        }
    }
    old = MPI_REQUEST_NULL;
    for (round = 0; round < ROUNDS; round++) {
        token_before(round);
        OK(MPI_Ibarrier(MPI_COMM_WORLD, &req));
        token_after(round);
        if (old != MPI_REQUEST_NULL) {
            check_stale(old, "ibarrier", round);
        }
        old = req;
        complete(&req, round, "ibarrier");
    }
}

static void test_two(void)
{
    int sbuf[N], r1[N], r2[N];
    MPI_Request a, b, bars[2];
    MPI_Status st[2];
    int round, i;

    for (round = 0; round < 12; round++) {
        for (i = 0; i < N; i++) {
            sbuf[i] = round + rank * 3 + i;
            r1[i] = r2[i] = -1;
        }
        /* The first call of the round takes the kept schedule and request
         * (built by the round before); the second must get its own. */
        OK(MPI_Iallreduce(sbuf, r1, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD,
                          &a));
        OK(MPI_Iallreduce(sbuf, r2, N, MPI_INT, MPI_MAX, MPI_COMM_WORLD,
                          &b));
        CHECK(a != b, "two round %d: one request for two calls", round);
        if (round % 2 == 0) {
            OK(MPI_Wait(&b, MPI_STATUS_IGNORE));
            OK(MPI_Wait(&a, MPI_STATUS_IGNORE));
        } else {
            OK(MPI_Wait(&a, MPI_STATUS_IGNORE));
            OK(MPI_Wait(&b, MPI_STATUS_IGNORE));
        }
        for (i = 0; i < N; i++) {
            int sum = size * (round + i) + 3 * size * (size - 1) / 2;
            int max = round + 3 * (size - 1) + i;

            CHECK(r1[i] == sum && r2[i] == max,
                  "two round %d: [%d] %d/%d, want %d/%d", round, i, r1[i],
                  r2[i], sum, max);
        }
        /* Two MPI_Ibarrier at once (the kept object serves one). */
        OK(MPI_Ibarrier(MPI_COMM_WORLD, &bars[0]));
        OK(MPI_Ibarrier(MPI_COMM_WORLD, &bars[1]));
        CHECK(bars[0] != bars[1], "two round %d: one Ibarrier request",
              round);
        if (round % 2 == 0) {
            OK(MPI_Wait(&bars[1], MPI_STATUS_IGNORE));
            OK(MPI_Wait(&bars[0], MPI_STATUS_IGNORE));
        } else {
            poison(&st[0]);
            poison(&st[1]);
            OK(MPI_Waitall(2, bars, st));
            check_empty(&st[0], MPI_SUCCESS, "two ibarrier", round);
            check_empty(&st[1], MPI_SUCCESS, "two ibarrier", round);
        }
    }
}

static void test_freed(void)
{
    int sbuf[N], rbuf[N], fbuf[N];
    MPI_Request req;
    int round, i;

    for (round = 0; round < 16; round++) {
        for (i = 0; i < N; i++) {
            sbuf[i] = round + rank + i;
        }
        /* The same arguments as the loop's own call below: freed while
         * active, its schedule and request come back once it ends. */
        OK(MPI_Iallreduce(sbuf, fbuf, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD,
                          &req));
        OK(MPI_Request_free(&req));
        CHECK(req == MPI_REQUEST_NULL, "freed round %d: handle kept", round);
        OK(MPI_Ibarrier(MPI_COMM_WORLD, &req));
        OK(MPI_Request_free(&req));
        /* The freed ones end before this one (collectives on a
         * communicator complete in order at every member). */
        OK(MPI_Iallreduce(sbuf, rbuf, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD,
                          &req));
        OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
        OK(MPI_Ibarrier(MPI_COMM_WORLD, &req));
        OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
        OK(MPI_Barrier(MPI_COMM_WORLD));
        for (i = 0; i < N; i++) {
            int want = size * (round + i) + size * (size - 1) / 2;

            CHECK(rbuf[i] == want, "freed round %d: [%d] %d, want %d", round,
                  i, rbuf[i], want);
        }
    }
}

/* The kept schedule installed on a communicator holds it for the
 * requests it runs (they take no reference of their own): a duplicate
 * freed while such a request runs must still complete it (waited after
 * the free; the communicator goes once the schedule is idle, at the next
 * MPI_Comm_free), one freed with the schedule idle goes at once, and
 * MPI_Comm_disconnect, which waits until nothing holds the communicator
 * but its handle, must not wait for the idle schedule (it would hang). */
static void test_comm_freed(void)
{
    int sbuf[N], rbuf[N];
    MPI_Comm dup;
    MPI_Request req;
    int round, k, i;

    for (round = 0; round < 12; round++) {
        int how = round % 3;   /* 0 running, 1 idle, 2 disconnected */

        OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
        for (k = 0; k < 3; k++) {
            for (i = 0; i < N; i++) {
                sbuf[i] = 10 * round + k + rank + i;
                rbuf[i] = -1;
            }
            OK(MPI_Iallreduce(sbuf, rbuf, N, MPI_INT, MPI_SUM, dup, &req));
            if (k == 2 && how == 0) {
                OK(MPI_Comm_free(&dup));
            }
            OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
            for (i = 0; i < N; i++) {
                int want = size * (10 * round + k + i) +
                           size * (size - 1) / 2;

                CHECK(rbuf[i] == want, "comm freed round %d call %d: [%d] "
                      "%d, want %d", round, k, i, rbuf[i], want);
            }
        }
        if (how == 1) {
            OK(MPI_Comm_free(&dup));
        } else if (how == 2) {
            OK(MPI_Comm_disconnect(&dup));
        }
        CHECK(dup == MPI_COMM_NULL, "comm freed round %d: handle kept",
              round);
    }
}

/* The requests of one round of test_mixed: a receive from the left, a
 * send to the right, an allreduce, a barrier and an allgather. */
enum { M_RECV, M_SEND, M_ALLRED, M_BAR, M_ALLG, M_N };

static void mixed_post(MPI_Request reqs[M_N], int round, int *in, int *out,
                       int *sbuf, int *rbuf, int *gbuf)
{
    int left = (rank + size - 1) % size, right = (rank + 1) % size;

    *in = -1;
    *out = round * 1000 + rank;
    *sbuf = round + rank;
    *rbuf = -1;
    OK(MPI_Irecv(in, 1, MPI_INT, left, 5, MPI_COMM_WORLD, &reqs[M_RECV]));
    OK(MPI_Isend(out, 1, MPI_INT, right, 5, MPI_COMM_WORLD, &reqs[M_SEND]));
    OK(MPI_Iallreduce(sbuf, rbuf, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD,
                      &reqs[M_ALLRED]));
    OK(MPI_Ibarrier(MPI_COMM_WORLD, &reqs[M_BAR]));
    OK(MPI_Iallgather(sbuf, 1, MPI_INT, gbuf, 1, MPI_INT, MPI_COMM_WORLD,
                      &reqs[M_ALLG]));
}

static void mixed_check(const MPI_Status *st, int i, int round, int in,
                        int rbuf, const int *gbuf)
{
    int left = (rank + size - 1) % size, k;

    if (i == M_RECV) {
        CHECK(st->MPI_SOURCE == left && st->MPI_TAG == 5 &&
              in == round * 1000 + left, "mixed round %d: receive %d/%d %d",
              round, st->MPI_SOURCE, st->MPI_TAG, in);
    } else if (i != M_SEND) {
        CHECK(st->MPI_SOURCE == MPI_ANY_SOURCE && st->MPI_TAG == MPI_ANY_TAG,
              "mixed round %d: request %d status %d/%d", round, i,
              st->MPI_SOURCE, st->MPI_TAG);
    }
    if (i == M_ALLRED) {
        CHECK(rbuf == size * round + size * (size - 1) / 2,
              "mixed round %d: allreduce %d", round, rbuf);
    }
    if (i == M_ALLG) {
        for (k = 0; k < size; k++) {
            CHECK(gbuf[k] == round + k, "mixed round %d: allgather [%d] %d",
                  round, k, gbuf[k]);
        }
    }
}

static void test_mixed(void)
{
    MPI_Request reqs[M_N];
    MPI_Status st[M_N];
    int gbuf[64];
    int in, out, sbuf, rbuf;
    int round, i, done, idx, n, flag;
    int idxs[M_N];

    for (round = 0; round < 24 && size <= 64; round++) {
        mixed_post(reqs, round, &in, &out, &sbuf, &rbuf, gbuf);
        for (i = 0; i < M_N; i++) {
            poison(&st[i]);
        }
        switch (round % 4) {
        case 0:
            OK(MPI_Waitall(M_N, reqs, st));
            for (i = 0; i < M_N; i++) {
                CHECK(st[i].MPI_ERROR == MPI_SUCCESS,
                      "mixed round %d: request %d error %d", round, i,
                      st[i].MPI_ERROR);
                mixed_check(&st[i], i, round, in, rbuf, gbuf);
            }
            break;
        case 1:
            for (done = 0; done < M_N; done++) {
                MPI_Status one;

                OK(MPI_Waitany(M_N, reqs, &idx, &one));
                CHECK(idx >= 0 && idx < M_N, "mixed round %d: index %d",
                      round, idx);
                if (idx >= 0 && idx < M_N) {
                    mixed_check(&one, idx, round, in, rbuf, gbuf);
                }
            }
            break;
        case 2:
            for (done = 0; done < M_N; done += n) {
                OK(MPI_Waitsome(M_N, reqs, &n, idxs, st));
                CHECK(n > 0 && n != MPI_UNDEFINED,
                      "mixed round %d: Waitsome gave %d", round, n);
                if (n <= 0 || n == MPI_UNDEFINED) {
                    break;
                }
                for (i = 0; i < n; i++) {
                    mixed_check(&st[i], idxs[i], round, in, rbuf, gbuf);
                }
            }
            break;
        default:
            flag = 0;
            while (!flag) {
                OK(MPI_Testall(M_N, reqs, &flag, st));
            }
            for (i = 0; i < M_N; i++) {
                mixed_check(&st[i], i, round, in, rbuf, gbuf);
            }
            break;
        }
        for (i = 0; i < M_N; i++) {
            CHECK(reqs[i] == MPI_REQUEST_NULL,
                  "mixed round %d: request %d left", round, i);
        }
    }
}

int main(int argc, char **argv)
{
    mpitest_init(&argc, &argv, "coll_nb_kept", 1);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    test_rounds();
    test_two();
    test_freed();
    test_comm_freed();
    test_mixed();
    return mpitest_finish();
}
