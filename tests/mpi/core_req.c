/*
 * tests/mpi/core_req.c: requests (MPI-3.1 sections 3.7.3-3.7.5, 3.9):
 * Wait/Test in all their forms over mixes of MPI_REQUEST_NULL, complete
 * and pending requests, Waitall over several communicators; persistent
 * requests; MPI_Cancel; MPI_Request_free of an active send and of a
 * pending receive; MPI_Request_get_status. Sends done when posted,
 * matched probes and argument errors: core_req_sent.c. What both share
 * (pairs, pending receives): core_req.h.
 */
#include "core_req.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the wait/test family ------------------------------------------- */

static void test_waitall(void)
{
    MPI_Request reqs[5];
    MPI_Status st[5];
    int in = -1, out = rank * 3 + 1, i, count;

    reqs[0] = MPI_REQUEST_NULL;
    MPI_Irecv(&in, 1, MPI_INT, MPI_PROC_NULL, 4, comm, &reqs[1]);
    MPI_Irecv(&in, 1, MPI_INT, peer, 4, comm, &reqs[2]);
    reqs[3] = MPI_REQUEST_NULL;
    MPI_Isend(&out, 1, MPI_INT, peer, 4, comm, &reqs[4]);
    poison(st, 5);
    CHECK(MPI_Waitall(5, reqs, st) == MPI_SUCCESS, "Waitall of a mix");
    for (i = 0; i < 5; i++) {
        CHECK(reqs[i] == MPI_REQUEST_NULL, "Waitall: request %d not NULL",
              i);
    }
    CHECK(is_empty_multi(&st[0]) && is_empty_multi(&st[3]),
          "Waitall: MPI_REQUEST_NULL gives an empty status");
    CHECK(is_proc_null(&st[1]), "Waitall: MPI_PROC_NULL receive status");
    MPI_Get_count(&st[2], MPI_INT, &count);
    CHECK(st[2].MPI_SOURCE == peer && st[2].MPI_TAG == 4 && count == 1 &&
          in == peer * 3 + 1, "Waitall: receive status (%d, %d) %d, data %d",
          st[2].MPI_SOURCE, st[2].MPI_TAG, count, in);
    CHECK(MPI_Waitall(0, NULL, MPI_STATUSES_IGNORE) == MPI_SUCCESS,
          "Waitall of nothing");
}

/* A window as a message-rate loop keeps it: W receives of one tag from
 * the peer (every fourth by MPI_ANY_SOURCE and MPI_ANY_TAG), a receive
 * nobody sends to, cancelled, W sends, and MPI_REQUEST_NULL between them,
 * in one Waitall, twice over (the second round reuses the freed request
 * objects). The receives match in the order they were posted (MPI-3.1
 * 3.5), each status says its own source, tag and count, the cancelled
 * one's says cancelled, the null ones' are empty. */
static void test_waitall_window(void)
{
    enum { W = 64, N = 2 * W + 3 };
    MPI_Request reqs[N];
    MPI_Status st[N];
    int in[W], out[W], never = -1, i, k, round, count, cancelled, bad;

    for (round = 0; round < 2; round++) {
        k = 0;
        reqs[k++] = MPI_REQUEST_NULL;
        for (i = 0; i < W; i++) {
            in[i]  = -1;
            out[i] = rank * 1000 + round * 100 + i;
            MPI_Irecv(&in[i], 1, MPI_INT, (i % 4 == 3) ? MPI_ANY_SOURCE : peer,
                      (i % 4 == 3) ? MPI_ANY_TAG : 30, comm, &reqs[k++]);
        }
        MPI_Irecv(&never, 1, MPI_INT, peer, 31, comm, &reqs[k]);
        CHECK(MPI_Cancel(&reqs[k]) == MPI_SUCCESS, "Cancel in a window");
        k++;
        reqs[k++] = MPI_REQUEST_NULL;
        for (i = 0; i < W; i++) {
            MPI_Isend(&out[i], 1, MPI_INT, peer, 30, comm, &reqs[k++]);
        }
        poison(st, N);
        CHECK(MPI_Waitall(N, reqs, st) == MPI_SUCCESS, "Waitall of a window");
        for (i = 0, bad = 0; i < N; i++) {
            bad += (reqs[i] != MPI_REQUEST_NULL);
        }
        CHECK(bad == 0, "Waitall of a window: %d requests not NULL", bad);
        for (i = 0, bad = -1; (i < W) && (bad < 0); i++) {
            MPI_Get_count(&st[1 + i], MPI_INT, &count);
            MPI_Test_cancelled(&st[1 + i], &cancelled);
            if ((in[i] != peer * 1000 + round * 100 + i) ||
                (st[1 + i].MPI_SOURCE != peer) || (st[1 + i].MPI_TAG != 30) ||
                (count != 1) || cancelled ||
                (st[1 + i].MPI_ERROR != MPI_SUCCESS)) {
                bad = i;
            }
        }
        CHECK(bad < 0, "window receive %d: data %d, status (%d, %d, %d)",
              bad, (bad < 0) ? 0 : in[bad], (bad < 0) ? 0 : st[1 + bad].MPI_SOURCE,
              (bad < 0) ? 0 : st[1 + bad].MPI_TAG,
              (bad < 0) ? 0 : st[1 + bad].MPI_ERROR);
        MPI_Test_cancelled(&st[1 + W], &cancelled);
        CHECK(cancelled && (never == -1) &&
              (st[1 + W].MPI_ERROR == MPI_SUCCESS),
              "the cancelled receive of a window");
        CHECK(is_empty_multi(&st[0]) && is_empty_multi(&st[2 + W]),
              "Waitall of a window: null requests' statuses");
        for (i = 0, bad = -1; (i < W) && (bad < 0); i++) {
            MPI_Test_cancelled(&st[3 + W + i], &cancelled);
            if ((st[3 + W + i].MPI_ERROR != MPI_SUCCESS) || cancelled) {
                bad = i;
            }
        }
        CHECK(bad < 0, "window send %d's status", bad);
    }
}

/* Waitall over requests on three communicators, which live on different
 * endpoints (the world's duplicates are homed 1, 2, ...): the receives
 * come first, on communicators in the reverse order of their sends, so
 * that the wait moves from one endpoint to the next; then the same with
 * a nonblocking barrier among them (every request polled each round). */
static void test_waitall_comms(void)
{
    MPI_Comm c[3];
    MPI_Request reqs[7];
    MPI_Status st[7];
    int in[3] = { -1, -1, -1 }, out[3], i, round, n, count;

    c[0] = comm;
    MPI_Comm_dup(comm, &c[1]);
    MPI_Comm_dup(comm, &c[2]);
    for (round = 0; round < 2; round++) {
        for (i = 0; i < 3; i++) {
            in[i]  = -1;
            out[i] = rank * 10 + i + round * 100;
            MPI_Irecv(&in[i], 1, MPI_INT, peer, 20 + i, c[i], &reqs[i]);
        }
        for (i = 0; i < 3; i++) {
            MPI_Isend(&out[2 - i], 1, MPI_INT, peer, 22 - i, c[2 - i],
                      &reqs[3 + i]);
        }
        n = 6;
        if (round == 1) {
            MPI_Ibarrier(c[1], &reqs[n++]);
        }
        poison(st, n);
        CHECK(MPI_Waitall(n, reqs, st) == MPI_SUCCESS,
              "Waitall over three communicators (round %d)", round);
        for (i = 0; i < n; i++) {
            CHECK(reqs[i] == MPI_REQUEST_NULL,
                  "Waitall over three communicators: request %d not NULL",
                  i);
        }
        for (i = 0; i < 3; i++) {
            MPI_Get_count(&st[i], MPI_INT, &count);
            CHECK(st[i].MPI_SOURCE == peer && st[i].MPI_TAG == 20 + i &&
                  count == 1 && in[i] == peer * 10 + i + round * 100,
                  "Waitall over three communicators: receive %d status "
                  "(%d, %d) %d, data %d", i, st[i].MPI_SOURCE,
                  st[i].MPI_TAG, count, in[i]);
        }
    }
    MPI_Comm_free(&c[1]);
    MPI_Comm_free(&c[2]);
}

static void test_testall(void)
{
    MPI_Request reqs[3] = { MPI_REQUEST_NULL, MPI_REQUEST_NULL,
                            MPI_REQUEST_NULL };
    MPI_Status st[3];
    int flag = 0, in = -1, i;

    poison(st, 3);
    CHECK(MPI_Testall(3, reqs, &flag, st) == MPI_SUCCESS && flag,
          "Testall of NULL requests is true");
    for (i = 0; i < 3; i++) {
        CHECK(is_empty_multi(&st[i]), "Testall: NULL request %d empty status",
              i);
    }
    MPI_Irecv(&in, 1, MPI_INT, peer, TAG_D, comm, &reqs[0]);
    MPI_Irecv(&in, 0, MPI_INT, MPI_PROC_NULL, 0, comm, &reqs[2]);
    flag = 1;
    CHECK(MPI_Testall(3, reqs, &flag, st) == MPI_SUCCESS && !flag,
          "Testall with a pending receive is false");
    CHECK(reqs[0] != MPI_REQUEST_NULL && reqs[2] != MPI_REQUEST_NULL,
          "a false Testall leaves every request (even complete ones)");
    go(rank + 50);
    do {
        MPI_Testall(3, reqs, &flag, st);
    } while (!flag);
    CHECK(in == peer + 50 && st[0].MPI_SOURCE == peer &&
          st[0].MPI_TAG == TAG_D, "Testall: data %d status (%d, %d)", in,
          st[0].MPI_SOURCE, st[0].MPI_TAG);
    CHECK(is_proc_null(&st[2]) && is_empty_multi(&st[1]),
          "Testall: PROC_NULL and NULL statuses");
    CHECK(reqs[0] == MPI_REQUEST_NULL && reqs[2] == MPI_REQUEST_NULL,
          "Testall true frees the requests");
}

static void test_any(void)
{
    MPI_Request reqs[3] = { MPI_REQUEST_NULL, MPI_REQUEST_NULL,
                            MPI_REQUEST_NULL };
    MPI_Status st;
    int index = -5, flag = -1, in = -1;

    poison(&st, 1);
    CHECK(MPI_Waitany(3, reqs, &index, &st) == MPI_SUCCESS &&
          index == MPI_UNDEFINED && is_empty(&st) && error_kept(&st),
          "Waitany of NULL requests: index %d", index);
    index = -5;
    poison(&st, 1);
    CHECK(MPI_Testany(3, reqs, &index, &flag, &st) == MPI_SUCCESS &&
          flag && index == MPI_UNDEFINED && is_empty(&st) &&
          error_kept(&st),
          "Testany of NULL requests: flag %d index %d", flag, index);
    index = -5;
    flag = -1;
    CHECK(MPI_Testany(0, NULL, &index, &flag, MPI_STATUS_IGNORE) ==
          MPI_SUCCESS && flag && index == MPI_UNDEFINED,
          "Testany of no requests");

    MPI_Irecv(&in, 1, MPI_INT, peer, TAG_D, comm, &reqs[1]);
    MPI_Irecv(&in, 1, MPI_INT, MPI_PROC_NULL, 0, comm, &reqs[2]);
    poison(&st, 1);
    CHECK(MPI_Waitany(3, reqs, &index, &st) == MPI_SUCCESS && index == 2 &&
          is_proc_null(&st) && reqs[2] == MPI_REQUEST_NULL,
          "Waitany picks the complete request: index %d", index);
    flag = -1;
    index = -5;
    CHECK(MPI_Testany(3, reqs, &index, &flag, &st) == MPI_SUCCESS &&
          !flag && index == MPI_UNDEFINED && reqs[1] != MPI_REQUEST_NULL,
          "Testany with only a pending one: flag %d index %d", flag, index);
    go(rank + 60);
    CHECK(MPI_Waitany(3, reqs, &index, &st) == MPI_SUCCESS && index == 1 &&
          st.MPI_SOURCE == peer && st.MPI_TAG == TAG_D && in == peer + 60,
          "Waitany: index %d data %d", index, in);
    CHECK(MPI_Waitany(3, reqs, &index, MPI_STATUS_IGNORE) == MPI_SUCCESS &&
          index == MPI_UNDEFINED, "Waitany once all are done");
}

static void test_some(void)
{
    MPI_Request reqs[4] = { MPI_REQUEST_NULL, MPI_REQUEST_NULL,
                            MPI_REQUEST_NULL, MPI_REQUEST_NULL };
    MPI_Status st[4];
    int indices[4], outcount = -5, in = -1, junk = 0;

    CHECK(MPI_Waitsome(4, reqs, &outcount, indices, st) == MPI_SUCCESS &&
          outcount == MPI_UNDEFINED, "Waitsome of NULL requests: %d",
          outcount);
    outcount = -5;
    CHECK(MPI_Testsome(4, reqs, &outcount, indices, st) == MPI_SUCCESS &&
          outcount == MPI_UNDEFINED, "Testsome of NULL requests: %d",
          outcount);
    outcount = -5;
    CHECK(MPI_Testsome(0, NULL, &outcount, NULL, MPI_STATUSES_IGNORE) ==
          MPI_SUCCESS && outcount == MPI_UNDEFINED,
          "Testsome of no requests: %d", outcount);

    MPI_Irecv(&in, 1, MPI_INT, peer, TAG_D, comm, &reqs[0]);
    MPI_Irecv(&junk, 1, MPI_INT, MPI_PROC_NULL, 0, comm, &reqs[1]);
    MPI_Isend(&junk, 1, MPI_INT, MPI_PROC_NULL, 0, comm, &reqs[3]);
    poison(st, 4);
    CHECK(MPI_Waitsome(4, reqs, &outcount, indices, st) == MPI_SUCCESS &&
          outcount == 2 && indices[0] == 1 && indices[1] == 3 &&
          is_proc_null(&st[0]), "Waitsome: outcount %d indices %d %d",
          outcount, indices[0], indices[1]);
    CHECK(reqs[1] == MPI_REQUEST_NULL && reqs[3] == MPI_REQUEST_NULL &&
          reqs[0] != MPI_REQUEST_NULL, "Waitsome frees exactly those done");
    outcount = -5;
    CHECK(MPI_Testsome(4, reqs, &outcount, indices, st) == MPI_SUCCESS &&
          outcount == 0, "Testsome with only a pending one: %d", outcount);
    go(rank + 70);
    do {
        MPI_Testsome(4, reqs, &outcount, indices, st);
    } while (outcount == 0);
    CHECK(outcount == 1 && indices[0] == 0 && st[0].MPI_SOURCE == peer &&
          in == peer + 70, "Testsome: outcount %d index %d data %d",
          outcount, indices[0], in);
    CHECK(MPI_Testsome(4, reqs, &outcount, indices, st) == MPI_SUCCESS &&
          outcount == MPI_UNDEFINED, "Testsome once all are done");
}

/* A failed request in Waitall: MPI_ERR_IN_STATUS, the error in its
 * status, and MPI_SUCCESS in the others'. */
static void test_waitall_error(void)
{
    MPI_Request reqs[3];
    MPI_Status st[3];
    int small[2], ok = -1, four[4] = { 1, 2, 3, 4 }, rc, cls = -1;

    MPI_Irecv(small, 2, MPI_INT, peer, 12, comm, &reqs[0]);
    MPI_Irecv(&ok, 1, MPI_INT, peer, 13, comm, &reqs[1]);
    MPI_Isend(four, 4, MPI_INT, peer, 12, comm, &reqs[2]);
    MPI_Send(four, 1, MPI_INT, peer, 13, comm);
    poison(st, 3);
    rc = MPI_Waitall(3, reqs, st);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_IN_STATUS, "Waitall with a truncation: class %d",
          cls);
    cls = -1;
    MPI_Error_class(st[0].MPI_ERROR, &cls);
    CHECK(cls == MPI_ERR_TRUNCATE, "truncated request's status error %d",
          st[0].MPI_ERROR);
    CHECK(st[1].MPI_ERROR == MPI_SUCCESS && st[2].MPI_ERROR == MPI_SUCCESS &&
          ok == 1, "the other statuses: %d %d", st[1].MPI_ERROR,
          st[2].MPI_ERROR);
}

/* ---- persistent requests ---------------------------------------------- */

static void test_persistent(void)
{
    enum { N = 1000, BIG = 300000, ITERS = 200 };
    int *sbuf = malloc(BIG * sizeof(int)), *rbuf = malloc(BIG * sizeof(int));
    MPI_Request reqs[2], big[2], modes[3][2];
    MPI_Status st[2];
    void *bbuf, *det;
    int it, i, bad, flag, dsize, rc, cls, token = 0;

    CHECK(MPI_Recv_init(rbuf, N, MPI_INT, peer, 7, comm, &reqs[0]) ==
          MPI_SUCCESS, "Recv_init");
    CHECK(MPI_Send_init(sbuf, N, MPI_INT, peer, 7, comm, &reqs[1]) ==
          MPI_SUCCESS, "Send_init");
    /* Inactive: Wait and Test return at once with an empty status. */
    poison(st, 1);
    CHECK(MPI_Wait(&reqs[0], &st[0]) == MPI_SUCCESS && is_empty(&st[0]) &&
          error_kept(&st[0]) && reqs[0] != MPI_REQUEST_NULL,
          "Wait on an inactive request");
    flag = 0;
    CHECK(MPI_Test(&reqs[1], &flag, MPI_STATUS_IGNORE) == MPI_SUCCESS &&
          flag && reqs[1] != MPI_REQUEST_NULL, "Test on an inactive one");
    for (it = 0; it < ITERS; it++) {
        for (i = 0; i < N; i++) {
            sbuf[i] = rank * 100000 + it * 7 + i;
        }
        CHECK(MPI_Startall(2, reqs) == MPI_SUCCESS, "Startall");
        if (it == 0) {
            cls = -1;
            rc = MPI_Start(&reqs[0]);
            MPI_Error_class(rc, &cls);
            CHECK(cls == MPI_ERR_REQUEST, "Start of an active request: %d",
                  cls);
        }
        MPI_Waitall(2, reqs, st);
        CHECK(reqs[0] != MPI_REQUEST_NULL && reqs[1] != MPI_REQUEST_NULL,
              "persistent requests stay after Waitall");
        CHECK(st[0].MPI_SOURCE == peer && st[0].MPI_TAG == 7,
              "persistent receive status (%d, %d)", st[0].MPI_SOURCE,
              st[0].MPI_TAG);
        for (i = 0, bad = -1; i < N && bad < 0; i++) {
            if (rbuf[i] != peer * 100000 + it * 7 + i) {
                bad = i;
            }
        }
        CHECK(bad < 0, "iteration %d: element %d wrong", it, bad);
    }
    CHECK(MPI_Request_free(&reqs[0]) == MPI_SUCCESS &&
          MPI_Request_free(&reqs[1]) == MPI_SUCCESS &&
          reqs[0] == MPI_REQUEST_NULL && reqs[1] == MPI_REQUEST_NULL,
          "Request_free of inactive persistent requests");

    /* Large (rendezvous) persistent messages, started one by one. */
    MPI_Recv_init(rbuf, BIG, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, comm,
                  &big[0]);
    MPI_Send_init(sbuf, BIG, MPI_INT, peer, 8, comm, &big[1]);
    for (it = 0; it < 5; it++) {
        for (i = 0; i < BIG; i++) {
            sbuf[i] = rank + it + i;
        }
        MPI_Start(&big[0]);
        MPI_Start(&big[1]);
        MPI_Wait(&big[1], MPI_STATUS_IGNORE);
        MPI_Wait(&big[0], &st[0]);
        for (i = 0, bad = -1; i < BIG && bad < 0; i++) {
            if (rbuf[i] != peer + it + i) {
                bad = i;
            }
        }
        CHECK(bad < 0 && st[0].MPI_SOURCE == peer && st[0].MPI_TAG == 8,
              "big iteration %d: element %d wrong", it, bad);
    }
    MPI_Request_free(&big[0]);
    MPI_Request_free(&big[1]);

    /* The other modes as persistent requests. */
    dsize = 3 * (N * (int)sizeof(int) + MPI_BSEND_OVERHEAD);
    bbuf = malloc((size_t)dsize);
    MPI_Buffer_attach(bbuf, dsize);
    for (it = 0; it < 3; it++) {
        MPI_Recv_init(rbuf, N, MPI_INT, peer, 9, comm, &modes[it][0]);
    }
    MPI_Ssend_init(sbuf, N, MPI_INT, peer, 9, comm, &modes[0][1]);
    MPI_Bsend_init(sbuf, N, MPI_INT, peer, 9, comm, &modes[1][1]);
    MPI_Rsend_init(sbuf, N, MPI_INT, peer, 9, comm, &modes[2][1]);
    for (it = 0; it < 6; it++) {
        MPI_Request *pair = modes[it % 3];
        MPI_Request r;

        for (i = 0; i < N; i++) {
            sbuf[i] = rank * 3 + it + i;
        }
        MPI_Start(&pair[0]);
        /* The receive is posted on both sides before any Rsend. */
        MPI_Isend(&token, 1, MPI_INT, peer, 10, comm, &r);
        MPI_Recv(&token, 1, MPI_INT, peer, 10, comm, MPI_STATUS_IGNORE);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
        MPI_Start(&pair[1]);
        MPI_Waitall(2, pair, MPI_STATUSES_IGNORE);
        for (i = 0, bad = -1; i < N && bad < 0; i++) {
            if (rbuf[i] != peer * 3 + it + i) {
                bad = i;
            }
        }
        CHECK(bad < 0, "persistent mode %d, round %d: element %d", it % 3,
              it, bad);
    }
    for (it = 0; it < 3; it++) {
        MPI_Request_free(&modes[it][0]);
        MPI_Request_free(&modes[it][1]);
    }
    MPI_Buffer_detach(&det, &dsize);
    free(bbuf);

    /* Start of something that is not a persistent request. */
    MPI_Irecv(rbuf, 1, MPI_INT, MPI_PROC_NULL, 0, comm, &reqs[0]);
    cls = -1;
    MPI_Error_class(MPI_Start(&reqs[0]), &cls);
    CHECK(cls == MPI_ERR_REQUEST, "Start of a nonpersistent request: %d",
          cls);
    MPI_Wait(&reqs[0], MPI_STATUS_IGNORE);
    free(sbuf);
    free(rbuf);
}

/* ---- cancel, free, get_status -------------------------------------- */

static void test_cancel(void)
{
    MPI_Request req;
    MPI_Status st;
    int in = -1, flag = 0, cancelled = -1;

    /* A receive nothing will ever match. */
    MPI_Irecv(&in, 1, MPI_INT, peer, 999, comm, &req);
    CHECK(MPI_Cancel(&req) == MPI_SUCCESS, "Cancel of a posted receive");
    CHECK(MPI_Wait(&req, &st) == MPI_SUCCESS && req == MPI_REQUEST_NULL,
          "Wait after Cancel");
    MPI_Test_cancelled(&st, &cancelled);
    CHECK(cancelled, "Test_cancelled of an unmatched receive is true");
    CHECK(in == -1, "cancelled receive wrote its buffer");

    /* The same with a wildcard source, completed by Test. (No
     * MPI_ANY_TAG: the peer's next message may be there already.) */
    MPI_Irecv(&in, 1, MPI_INT, MPI_ANY_SOURCE, 998, comm, &req);
    MPI_Cancel(&req);
    do {
        MPI_Test(&req, &flag, &st);
    } while (!flag);
    cancelled = -1;
    MPI_Test_cancelled(&st, &cancelled);
    CHECK(cancelled, "Test_cancelled of an unmatched wildcard receive");

    /* One that has matched already: the cancel fails, the data is there. */
    MPI_Irecv(&in, 1, MPI_INT, peer, TAG_D, comm, &req);
    go(rank + 80);
    do {
        MPI_Request_get_status(req, &flag, MPI_STATUS_IGNORE);
    } while (!flag);
    CHECK(MPI_Cancel(&req) == MPI_SUCCESS, "Cancel of a matched receive");
    MPI_Wait(&req, &st);
    cancelled = -1;
    MPI_Test_cancelled(&st, &cancelled);
    CHECK(!cancelled && in == peer + 80 && st.MPI_SOURCE == peer,
          "Test_cancelled of a matched receive is false (data %d)", in);

    /* An ordinary completed status is not cancelled. */
    MPI_Irecv(&in, 1, MPI_INT, MPI_PROC_NULL, 0, comm, &req);
    MPI_Wait(&req, &st);
    cancelled = -1;
    MPI_Test_cancelled(&st, &cancelled);
    CHECK(!cancelled, "Test_cancelled of a PROC_NULL receive");
}

static void test_request_free(void)
{
    enum { BIG = 1 << 18 };
    int *sbuf = malloc(BIG * sizeof(int)), *rbuf = malloc(BIG * sizeof(int));
    MPI_Request req;
    int i, bad = -1, ack = 0;

    for (i = 0; i < BIG; i++) {
        sbuf[i] = rank ^ i;
    }
    MPI_Isend(sbuf, BIG, MPI_INT, peer, 88, comm, &req);
    CHECK(MPI_Request_free(&req) == MPI_SUCCESS && req == MPI_REQUEST_NULL,
          "Request_free of an active send");
    MPI_Recv(rbuf, BIG, MPI_INT, peer, 88, comm, MPI_STATUS_IGNORE);
    for (i = 0; i < BIG && bad < 0; i++) {
        if (rbuf[i] != (peer ^ i)) {
            bad = i;
        }
    }
    CHECK(bad < 0, "freed send's data wrong at %d", bad);
    /* Only once the peer has the data may the send buffer go. */
    MPI_Sendrecv(&ack, 1, MPI_INT, peer, 89, &ack, 1, MPI_INT, peer, 89,
                 comm, MPI_STATUS_IGNORE);
    free(sbuf);
    free(rbuf);
}

/* A receive that must wait runs in its MPI request (one object per
 * message): a pending receive freed with MPI_Request_free still lands,
 * and the objects it and its neighbours used are used again safely by a
 * window larger than a thread's cache (256) with stale handles kept; a
 * receive whose message waits already is complete when posted. */
/* A receive posted after its message came: complete at once, with its
 * status, for every call that asks. */
static void waiting_recv(void)
{
    MPI_Request req;
    MPI_Status st;
    int v = -1, flag = 0, count = -1, cancelled = -1, i = rank;

    MPI_Send(&i, 1, MPI_INT, peer, 42, comm);
    /* The peer's message is here once its next one is. */
    MPI_Sendrecv_replace(&i, 1, MPI_INT, peer, 43, peer, 43, comm,
                         MPI_STATUS_IGNORE);
    MPI_Irecv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 42, comm, &req);
    CHECK(MPI_Request_get_status(req, &flag, &st) == MPI_SUCCESS && flag &&
          v == peer, "a receive of a waiting message is done when posted");
    CHECK(MPI_Cancel(&req) == MPI_SUCCESS, "Cancel of a received receive");
    MPI_Wait(&req, &st);
    MPI_Get_count(&st, MPI_INT, &count);
    MPI_Test_cancelled(&st, &cancelled);
    CHECK(req == MPI_REQUEST_NULL && st.MPI_SOURCE == peer &&
          st.MPI_TAG == 42 && count == 1 && !cancelled,
          "its status (%d, %d) count %d cancelled %d", st.MPI_SOURCE,
          st.MPI_TAG, count, cancelled);
}

static void test_recv_freed(void)
{
    enum { WIN = 300 };
    MPI_Request req, stale, reqs[WIN];
    int *in = malloc(WIN * sizeof(int));
    int i, v = -1, bad = -1;

    MPI_Irecv(&v, 1, MPI_INT, peer, TAG_D, comm, &req);
    stale = req;
    CHECK(MPI_Request_free(&req) == MPI_SUCCESS && req == MPI_REQUEST_NULL,
          "Request_free of a pending receive");
    CHECK(MPI_Cancel(&stale) == MPI_ERR_REQUEST,
          "Cancel of a freed receive's stale handle is refused");
    /* go()'s message is the freed receive's; the pair's next message
     * comes after it (messages of a pair keep their order), so once that
     * one is in, the freed receive has landed. */
    go(rank + 70);
    i = rank;
    MPI_Sendrecv_replace(&i, 1, MPI_INT, peer, 41, peer, 41, comm,
                         MPI_STATUS_IGNORE);
    CHECK(v == peer + 70 && i == peer,
          "freed pending receive's data %d (then %d)", v, i);

    for (i = 0; i < WIN; i++) {
        in[i] = -1;
        MPI_Irecv(&in[i], 1, MPI_INT, peer, 40, comm, &reqs[i]);
    }
    for (i = 0; i < WIN; i++) {
        MPI_Send(&i, 1, MPI_INT, peer, 40, comm);
    }
    CHECK(MPI_Waitall(WIN, reqs, MPI_STATUSES_IGNORE) == MPI_SUCCESS,
          "Waitall of %d receives", WIN);
    for (i = 0; i < WIN && bad < 0; i++) {
        if (in[i] != i) {
            bad = i;
        }
    }
    CHECK(bad < 0, "receive %d of the window got %d", bad,
          (bad < 0) ? 0 : in[bad]);
    CHECK(MPI_Wait(&stale, MPI_STATUS_IGNORE) == MPI_ERR_REQUEST,
          "Wait of a stale receive handle after its memory was reused");
    free(in);
    waiting_recv();
}

static void test_get_status(void)
{
    MPI_Request req = MPI_REQUEST_NULL;
    MPI_Status st, st2;
    int flag = -1, in = -1, count;

    poison(&st, 1);
    CHECK(MPI_Request_get_status(req, &flag, &st) == MPI_SUCCESS && flag &&
          is_empty(&st) && error_kept(&st),
          "Request_get_status of MPI_REQUEST_NULL");
    MPI_Irecv(&in, 1, MPI_INT, peer, TAG_D, comm, &req);
    flag = -1;
    CHECK(MPI_Request_get_status(req, &flag, &st) == MPI_SUCCESS && !flag,
          "Request_get_status of a pending receive is false");
    go(rank + 90);
    do {
        MPI_Request_get_status(req, &flag, &st);
    } while (!flag);
    MPI_Get_count(&st, MPI_INT, &count);
    CHECK(req != MPI_REQUEST_NULL && st.MPI_SOURCE == peer &&
          st.MPI_TAG == TAG_D && count == 1 && in == peer + 90,
          "Request_get_status: request kept, status (%d, %d) %d",
          st.MPI_SOURCE, st.MPI_TAG, count);
    /* Asking again is allowed, and Wait still gives the status. */
    MPI_Request_get_status(req, &flag, MPI_STATUS_IGNORE);
    CHECK(flag, "Request_get_status a second time");
    CHECK(MPI_Wait(&req, &st2) == MPI_SUCCESS && req == MPI_REQUEST_NULL &&
          st2.MPI_SOURCE == peer && st2.MPI_TAG == TAG_D,
          "Wait after Request_get_status");
}

int main(int argc, char **argv)
{
    core_req_start(&argc, &argv, "core_req");

    RUN(test_waitall);
    RUN(test_waitall_window);
    RUN(test_waitall_comms);
    RUN(test_testall);
    RUN(test_any);
    RUN(test_some);
    RUN(test_waitall_error);
    RUN(test_persistent);
    RUN(test_cancel);
    RUN(test_request_free);
    RUN(test_recv_freed);
    RUN(test_get_status);

    return mpitest_finish();
}
