/*
 * tests/mpi/core_req_sent.c: requests (MPI-3.1 sections 3.7.3-3.7.5, 3.8):
 * sends done when posted, through every completion call, also from two
 * threads at once; matched probes (MPI_Mprobe, MPI_Improbe, MPI_Mrecv,
 * MPI_Imrecv), also from two threads at once; argument errors of the
 * request calls. The rest of the request tests: core_req.c; what both
 * share: core_req.h.
 */
#include "core_req.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- sends done when posted -------------------------------------------
 *
 * A small send usually completes as it is posted: its request is
 * complete from the start and holds nothing (no native request, no
 * communicator), and the array calls free it on a path of its own. Every
 * call that completes, frees or asks about a request must treat such a
 * handle as a complete send, one at a time, several in one call, and from
 * several threads at once.
 */

enum { SENT_N = 9, SENT_THREADS = 2, SENT_ROUNDS = 200 };

static void test_sent(void)
{
    MPI_Request r[SENT_N];
    MPI_Status st, sts[3];
    int out[SENT_N], in = -1, flag = 0, idx = -1, n = -1, i, cancelled = -1;
    int indices[2];

    for (i = 0; i < SENT_N; i++) {
        out[i] = rank * 100 + i;
        OK(MPI_Isend(&out[i], 1, MPI_INT, peer, TAG_D + i, comm, &r[i]));
    }
    poison(&st, 1);
    do {
        OK(MPI_Test(&r[0], &flag, &st));
    } while (!flag);
    CHECK(r[0] == MPI_REQUEST_NULL && is_empty(&st) && error_kept(&st),
          "MPI_Test of a send");
    do {
        OK(MPI_Request_get_status(r[1], &flag, &st));
    } while (!flag);
    CHECK(r[1] != MPI_REQUEST_NULL && is_empty(&st),
          "MPI_Request_get_status of a send keeps it");
    /* Too late to cancel: it completes as sent. */
    OK(MPI_Cancel(&r[1]));
    poison(&st, 1);
    OK(MPI_Wait(&r[1], &st));
    MPI_Test_cancelled(&st, &cancelled);
    CHECK(r[1] == MPI_REQUEST_NULL && !cancelled && error_kept(&st),
          "MPI_Wait of a send after MPI_Cancel: cancelled %d", cancelled);
    OK(MPI_Request_free(&r[2]));
    CHECK(r[2] == MPI_REQUEST_NULL, "MPI_Request_free of a send");
    r[3] = MPI_Request_f2c(MPI_Request_c2f(r[3]));
    OK(MPI_Wait(&r[3], MPI_STATUS_IGNORE));
    CHECK(r[3] == MPI_REQUEST_NULL, "MPI_Wait of a send's Fortran handle");
    OK(MPI_Waitany(2, &r[4], &idx, &st));
    CHECK((idx == 0 || idx == 1) && r[4 + idx] == MPI_REQUEST_NULL &&
          r[5 - idx] != MPI_REQUEST_NULL, "MPI_Waitany of two sends: %d",
          idx);
    OK(MPI_Waitsome(2, &r[4], &n, indices, sts));
    CHECK(n == 1 && indices[0] == 1 - idx && r[4] == MPI_REQUEST_NULL &&
          r[5] == MPI_REQUEST_NULL && is_empty_multi(&sts[0]),
          "MPI_Waitsome of the other: %d", n);
    poison(sts, 3);
    OK(MPI_Waitall(3, &r[6], sts));
    for (i = 6; i < SENT_N; i++) {
        CHECK(r[i] == MPI_REQUEST_NULL && is_empty_multi(&sts[i - 6]),
              "MPI_Waitall of three sends: %d", i);
    }
    for (i = 0; i < SENT_N; i++) {
        OK(MPI_Recv(&in, 1, MPI_INT, peer, TAG_D + i, comm,
                    MPI_STATUS_IGNORE));
        CHECK(in == peer * 100 + i, "message %d: %d", i, in);
    }
}

typedef struct {
    mpitest_thread_t rec;
    MPI_Comm         comm;
} sent_thread_t;

/* Sends and completes, with Wait and Test in turn, then receives the
 * peer's thread's messages. */
static void *sent_thread(void *p)
{
    sent_thread_t *a = p;
    MPI_Request req;
    int i, v, flag;

    for (i = 0; i < SENT_ROUNDS; i++) {
        v = i;
        TOK(&a->rec, MPI_Isend(&v, 1, MPI_INT, peer, i, a->comm, &req));
        if (i % 2 == 0) {
            TOK(&a->rec, MPI_Wait(&req, MPI_STATUS_IGNORE));
        } else {
            do {
                TOK(&a->rec, MPI_Test(&req, &flag, MPI_STATUS_IGNORE));
            } while (!flag);
        }
        TCHECK(&a->rec, req == MPI_REQUEST_NULL, "round %d", i);
        TOK(&a->rec, MPI_Recv(&v, 1, MPI_INT, peer, i, a->comm,
                              MPI_STATUS_IGNORE));
        TCHECK(&a->rec, v == i, "round %d: got %d", i, v);
    }
    return NULL;
}

static void test_sent_threads(void)
{
    sent_thread_t a[SENT_THREADS];
    int t;

    for (t = 0; t < SENT_THREADS; t++) {
        a[t].rec.t = t;
        a[t].rec.failures = 0;
        OK(MPI_Comm_dup(comm, &a[t].comm));
    }
    mpitest_threads(SENT_THREADS, sent_thread, a, sizeof(a[0]));
    for (t = 0; t < SENT_THREADS; t++) {
        MPI_Comm_free(&a[t].comm);
    }
}

/* ---- matched probes ---------------------------------------------------- */

static void test_mprobe(void)
{
    MPI_Message msg = MPI_MESSAGE_NULL;
    MPI_Request reqs[2], req;
    MPI_Status st;
    int five = 5, six = 6, eight = 8, in = -1, in2 = -1, flag = 0, count;

    MPI_Isend(&five, 1, MPI_INT, peer, 5, comm, &reqs[0]);
    MPI_Isend(&six, 1, MPI_INT, peer, 6, comm, &reqs[1]);
    do {
        CHECK(MPI_Improbe(peer, 6, comm, &flag, &msg, &st) == MPI_SUCCESS,
              "Improbe");
    } while (!flag);
    MPI_Get_count(&st, MPI_INT, &count);
    CHECK(msg != MPI_MESSAGE_NULL && st.MPI_SOURCE == peer &&
          st.MPI_TAG == 6 && count == 1, "Improbe status (%d, %d) %d",
          st.MPI_SOURCE, st.MPI_TAG, count);
    CHECK(MPI_Mrecv(&in, 1, MPI_INT, &msg, &st) == MPI_SUCCESS && in == 6 &&
          msg == MPI_MESSAGE_NULL && st.MPI_TAG == 6,
          "Mrecv of the tag-6 message: %d", in);
    CHECK(MPI_Mprobe(peer, MPI_ANY_TAG, comm, &msg, &st) == MPI_SUCCESS &&
          st.MPI_TAG == 5, "Mprobe with MPI_ANY_TAG finds tag 5: %d",
          st.MPI_TAG);
    CHECK(MPI_Imrecv(&in, 1, MPI_INT, &msg, &req) == MPI_SUCCESS &&
          msg == MPI_MESSAGE_NULL, "Imrecv");
    MPI_Wait(&req, &st);
    CHECK(in == 5 && st.MPI_SOURCE == peer && st.MPI_TAG == 5,
          "Imrecv data %d", in);
    MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE);
    flag = -1;
    /* (A tag nobody sends: the peer may have run ahead already.) */
    CHECK(MPI_Improbe(peer, 12345, comm, &flag, &msg, &st) ==
          MPI_SUCCESS && !flag, "Improbe with nothing there is false");

    /* A matched message belongs to its handle: a receive posted later
     * that would match it takes the next message instead. */
    MPI_Isend(&eight, 1, MPI_INT, peer, 8, comm, &reqs[0]);
    MPI_Mprobe(peer, 8, comm, &msg, &st);
    MPI_Irecv(&in2, 1, MPI_INT, peer, 8, comm, &req);
    flag = -1;
    MPI_Test(&req, &flag, &st);
    CHECK(!flag, "a receive took the matched message");
    MPI_Wait(&reqs[0], MPI_STATUS_IGNORE);
    MPI_Isend(&five, 1, MPI_INT, peer, TAG_GO, comm, &reqs[0]);
    MPI_Recv(&in, 1, MPI_INT, peer, TAG_GO, comm, MPI_STATUS_IGNORE);
    MPI_Wait(&reqs[0], MPI_STATUS_IGNORE);
    six = rank + 40;
    MPI_Send(&six, 1, MPI_INT, peer, 8, comm);
    MPI_Wait(&req, &st);
    CHECK(in2 == peer + 40 && st.MPI_TAG == 8,
          "the receive gets the next message: %d tag %d", in2, st.MPI_TAG);
    in = -1;
    MPI_Mrecv(&in, 1, MPI_INT, &msg, &st);
    CHECK(in == 8 && st.MPI_TAG == 8, "Mrecv after: %d", in);

    /* MPI_PROC_NULL: the message MPI_MESSAGE_NO_PROC. */
    CHECK(MPI_Mprobe(MPI_PROC_NULL, 3, comm, &msg, &st) == MPI_SUCCESS &&
          msg == MPI_MESSAGE_NO_PROC && is_proc_null(&st),
          "Mprobe of MPI_PROC_NULL");
    in = -1;
    poison(&st, 1);
    CHECK(MPI_Mrecv(&in, 1, MPI_INT, &msg, &st) == MPI_SUCCESS &&
          msg == MPI_MESSAGE_NULL && is_proc_null(&st) && in == -1,
          "Mrecv of MPI_MESSAGE_NO_PROC");
    flag = 0;
    CHECK(MPI_Improbe(MPI_PROC_NULL, MPI_ANY_TAG, comm, &flag, &msg, &st) ==
          MPI_SUCCESS && flag && msg == MPI_MESSAGE_NO_PROC &&
          is_proc_null(&st), "Improbe of MPI_PROC_NULL");
    CHECK(MPI_Imrecv(&in, 1, MPI_INT, &msg, &req) == MPI_SUCCESS &&
          msg == MPI_MESSAGE_NULL, "Imrecv of MPI_MESSAGE_NO_PROC");
    poison(&st, 1);
    MPI_Wait(&req, &st);
    CHECK(is_proc_null(&st) && in == -1, "Imrecv of NO_PROC: status");
    msg = MPI_MESSAGE_NULL;
    CHECK(MPI_Mrecv(&in, 1, MPI_INT, &msg, &st) != MPI_SUCCESS,
          "Mrecv of MPI_MESSAGE_NULL fails");
}

/* Two threads matched-probe the same source: each gets distinct
 * messages, each in increasing order, together all of them. */
enum { MT_K = 200 };

typedef struct mt_arg {
    int got[MT_K];
    int rc;
} mt_arg_t;

static void *mt_thread(void *p)
{
    mt_arg_t *a = p;
    MPI_Message msg;
    MPI_Status st;
    int i;

    for (i = 0; i < MT_K; i++) {
        a->got[i] = -1;
        if (MPI_Mprobe(peer, 3, comm, &msg, &st) != MPI_SUCCESS ||
            MPI_Mrecv(&a->got[i], 1, MPI_INT, &msg, &st) != MPI_SUCCESS) {
            a->rc = 1;
        }
    }
    return NULL;
}

static void test_mprobe_threads(void)
{
    static mt_arg_t args[2];
    int *vals = malloc(2 * MT_K * sizeof(int));
    char *seen = calloc(2 * MT_K, 1);
    MPI_Request *reqs = malloc(2 * MT_K * sizeof(MPI_Request));
    pthread_t thr[2];
    int i, t, sorted, bad = 0;

    for (i = 0; i < 2 * MT_K; i++) {
        vals[i] = i;
        MPI_Isend(&vals[i], 1, MPI_INT, peer, 3, comm, &reqs[i]);
    }
    memset(args, 0, sizeof(args));
    for (t = 0; t < 2; t++) {
        pthread_create(&thr[t], NULL, mt_thread, &args[t]);
    }
    for (t = 0; t < 2; t++) {
        pthread_join(thr[t], NULL);
    }
    MPI_Waitall(2 * MT_K, reqs, MPI_STATUSES_IGNORE);
    for (t = 0; t < 2; t++) {
        CHECK(args[t].rc == 0, "thread %d: Mprobe/Mrecv failed", t);
        for (i = 0, sorted = 1; i < MT_K; i++) {
            int v = args[t].got[i];

            if (v < 0 || v >= 2 * MT_K || seen[v]) {
                bad++;
            } else {
                seen[v] = 1;
            }
            if (i > 0 && v <= args[t].got[i - 1]) {
                sorted = 0;
            }
        }
        CHECK(sorted, "thread %d: messages out of order", t);
    }
    CHECK(bad == 0, "%d messages received twice or wrong", bad);
    free(vals);
    free(seen);
    free(reqs);
}

/* ---- argument errors ------------------------------------------------ */

static void expect_class(int rc, int want, const char *what)
{
    int cls = -1;

    MPI_Error_class(rc, &cls);
    CHECK(cls == want, "%s: error class %d, want %d", what, cls, want);
}

static void test_errors(void)
{
    MPI_Request req = MPI_REQUEST_NULL;
    int flag;

    expect_class(MPI_Cancel(&req), MPI_ERR_REQUEST,
                 "Cancel of MPI_REQUEST_NULL");
    expect_class(MPI_Request_free(&req), MPI_ERR_REQUEST,
                 "Request_free of MPI_REQUEST_NULL");
    expect_class(MPI_Start(&req), MPI_ERR_REQUEST,
                 "Start of MPI_REQUEST_NULL");
    expect_class(MPI_Waitall(-1, &req, MPI_STATUSES_IGNORE), MPI_ERR_COUNT,
                 "Waitall of -1 requests");
    expect_class(MPI_Testany(-2, &req, &flag, &flag, MPI_STATUS_IGNORE),
                 MPI_ERR_COUNT, "Testany of -2 requests");
    expect_class(MPI_Startall(-1, &req), MPI_ERR_COUNT,
                 "Startall of -1 requests");
}

int main(int argc, char **argv)
{
    core_req_start(&argc, &argv, "core_req_sent");

    RUN(test_sent);
    RUN(test_sent_threads);
    RUN(test_mprobe);
    RUN(test_mprobe_threads);
    RUN(test_errors);

    return mpitest_finish();
}
