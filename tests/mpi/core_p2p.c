/*
 * tests/mpi/core_p2p.c: point-to-point communication (MPI-3.1 chapter 3):
 * the four send modes, blocking and nonblocking; order per pair with mixed
 * sizes; wildcards and status fields; MPI_PROC_NULL; Get_count and
 * Get_elements; status.MPI_ERROR left alone by the single-completion
 * calls; truncation; Sendrecv and Sendrecv_replace; non-contiguous
 * datatypes; Ssend really synchronous; argument errors.
 *
 * Processes pair up (0-1, 2-3, ...); an odd one out is its own peer, so
 * every test also runs through the same-process path. All exchanges post
 * receives before blocking sends, so a process may be its own peer.
 */
#include <mpi.h>

#include "mpitest.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank = -1, size, peer;
/* Each test runs on its own duplicate of the world. */
static MPI_Comm comm = MPI_COMM_NULL;

#define RUN(test) MPITEST_RUN_ON_DUP(test, comm)

/* The value of byte i of a message seeded by seed. */
static unsigned char pattern(int seed, size_t i)
{
    return (unsigned char)((i * 131u + (unsigned)seed * 7u + 3u) & 0xff);
}

static void fill(unsigned char *buf, size_t n, int seed)
{
    size_t i;

    for (i = 0; i < n; i++) {
        buf[i] = pattern(seed, i);
    }
}

static size_t check_bytes(const unsigned char *buf, size_t n, int seed)
{
    size_t i;

    for (i = 0; i < n; i++) {
        if (buf[i] != pattern(seed, i)) {
            return i;
        }
    }
    return n;
}

/* ---- send modes ------------------------------------------------------- */

enum { M_SEND, M_SSEND, M_BSEND, M_RSEND, M_NMODES };
static const char *const mode_name[] = { "Send", "Ssend", "Bsend", "Rsend" };

/* One message of n bytes to peer in mode (blocking or not), one from
 * peer: the receive is posted and announced first (Rsend needs it). */
static void exchange_mode(int mode, int nonblocking, size_t n, int seed)
{
    unsigned char *sbuf = malloc(n + 1), *rbuf = malloc(n + 1);
    MPI_Request rreq, sreq, ready_req;
    MPI_Status st;
    int count = -1, rc = MPI_SUCCESS, ready = 0;
    int tag = 100 + mode;

    fill(sbuf, n, seed + rank);
    memset(rbuf, 0xee, n + 1);
    MPI_Irecv(rbuf, (int)n, MPI_BYTE, peer, tag, comm, &rreq);
    MPI_Isend(&ready, 1, MPI_INT, peer, 99, comm, &ready_req);
    MPI_Recv(&ready, 1, MPI_INT, peer, 99, comm,
             MPI_STATUS_IGNORE);
    if (!nonblocking) {
        switch (mode) {
        case M_SEND:
            rc = MPI_Send(sbuf, (int)n, MPI_BYTE, peer, tag, comm);
            break;
        case M_SSEND:
            /* To itself a blocking Ssend works here since the receive
             * is posted already. */
            rc = MPI_Ssend(sbuf, (int)n, MPI_BYTE, peer, tag,
                           comm);
            break;
        case M_BSEND:
            rc = MPI_Bsend(sbuf, (int)n, MPI_BYTE, peer, tag,
                           comm);
            break;
        default:
            rc = MPI_Rsend(sbuf, (int)n, MPI_BYTE, peer, tag,
                           comm);
            break;
        }
    } else {
        switch (mode) {
        case M_SEND:
            rc = MPI_Isend(sbuf, (int)n, MPI_BYTE, peer, tag, comm,
                           &sreq);
            break;
        case M_SSEND:
            rc = MPI_Issend(sbuf, (int)n, MPI_BYTE, peer, tag,
                            comm, &sreq);
            break;
        case M_BSEND:
            rc = MPI_Ibsend(sbuf, (int)n, MPI_BYTE, peer, tag,
                            comm, &sreq);
            break;
        default:
            rc = MPI_Irsend(sbuf, (int)n, MPI_BYTE, peer, tag,
                            comm, &sreq);
            break;
        }
        if (rc == MPI_SUCCESS) {
            rc = MPI_Wait(&sreq, MPI_STATUS_IGNORE);
            CHECK(sreq == MPI_REQUEST_NULL, "I%s: request NULL after wait",
                  mode_name[mode]);
        }
    }
    CHECK(rc == MPI_SUCCESS, "%s%s of %zu bytes returns %d",
          nonblocking ? "I" : "", mode_name[mode], n, rc);
    MPI_Wait(&rreq, &st);
    MPI_Wait(&ready_req, MPI_STATUS_IGNORE);
    MPI_Get_count(&st, MPI_BYTE, &count);
    CHECK(st.MPI_SOURCE == peer && st.MPI_TAG == tag && count == (int)n,
          "%s%s of %zu bytes: status source %d tag %d count %d",
          nonblocking ? "I" : "", mode_name[mode], n, st.MPI_SOURCE,
          st.MPI_TAG, count);
    CHECK(check_bytes(rbuf, n, seed + peer) == n && rbuf[n] == 0xee,
          "%s%s of %zu bytes: data differ at %zu",
          nonblocking ? "I" : "", mode_name[mode], n,
          check_bytes(rbuf, n, seed + peer));
    free(sbuf);
    free(rbuf);
}

static void test_modes(void)
{
    static const size_t sizes[] = { 0, 8, 65536, (1u << 20) + 13 };
    size_t bufsize = 4 * ((1u << 20) + 64 + MPI_BSEND_OVERHEAD);
    void *bbuf = malloc(bufsize), *det = NULL;
    int mode, nb, s, dsize = 0;

    CHECK(MPI_Buffer_attach(bbuf, (int)bufsize) == MPI_SUCCESS,
          "MPI_Buffer_attach");
    for (mode = 0; mode < M_NMODES; mode++) {
        for (nb = 0; nb < 2; nb++) {
            for (s = 0; s < 4; s++) {
                exchange_mode(mode, nb, sizes[s], mode * 10 + nb * 5 + s);
            }
        }
    }
    CHECK(MPI_Buffer_detach(&det, &dsize) == MPI_SUCCESS &&
          det == bbuf && dsize == (int)bufsize,
          "MPI_Buffer_detach gives the attached buffer back");
    free(bbuf);
}

/* Bsend without a buffer, or with one too small: MPI_ERR_BUFFER. */
static void test_bsend_errors(void)
{
    char small[64 + MPI_BSEND_OVERHEAD], data[1000];
    void *det = NULL;
    int dsize = 0, rc, cls = -1;
    MPI_Request req = MPI_REQUEST_NULL;

    memset(data, 1, sizeof(data));
    rc = MPI_Bsend(data, 10, MPI_BYTE, peer, 7, comm);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_BUFFER, "Bsend with no buffer attached: class %d",
          cls);
    CHECK(MPI_Buffer_attach(small, (int)sizeof(small)) == MPI_SUCCESS,
          "attach a small buffer");
    CHECK(MPI_Buffer_attach(small, (int)sizeof(small)) != MPI_SUCCESS,
          "a second MPI_Buffer_attach fails");
    rc = MPI_Bsend(data, (int)sizeof(data), MPI_BYTE, peer, 7,
                   comm);
    cls = -1;
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_BUFFER, "Bsend larger than the buffer: class %d",
          cls);
    rc = MPI_Ibsend(data, (int)sizeof(data), MPI_BYTE, peer, 7,
                    comm, &req);
    cls = -1;
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_BUFFER, "Ibsend larger than the buffer: class %d",
          cls);
    if (rc == MPI_SUCCESS) {
        MPI_Wait(&req, MPI_STATUS_IGNORE);
    }
    /* To MPI_PROC_NULL nothing is buffered: it always succeeds. */
    CHECK(MPI_Bsend(data, (int)sizeof(data), MPI_BYTE, MPI_PROC_NULL, 7,
                    comm) == MPI_SUCCESS,
          "Bsend to MPI_PROC_NULL");
    CHECK(MPI_Buffer_detach(&det, &dsize) == MPI_SUCCESS &&
          det == (void *)small && dsize == (int)sizeof(small),
          "detach the small buffer");
}

/* ---- order per pair ---------------------------------------------------- */

/* 24 messages of cycling sizes on one tag, all sent before any receive
 * is posted: they must be received in the order sent. */
static void test_order(void)
{
    static const size_t sizes[] = { 0, 8, 65536, (1u << 20) + 5 };
    enum { NMSG = 24 };
    size_t big = (1u << 20) + 5;
    unsigned char *sbufs[NMSG], *rbuf = malloc(big);
    MPI_Request sreqs[NMSG];
    MPI_Status st;
    int i, count;

    for (i = 0; i < NMSG; i++) {
        size_t n = sizes[i % 4];

        sbufs[i] = malloc(n + 1);
        fill(sbufs[i], n, 1000 + i * 3 + rank);
        MPI_Isend(sbufs[i], (int)n, MPI_BYTE, peer, 5, comm,
                  &sreqs[i]);
    }
    for (i = 0; i < NMSG; i++) {
        size_t n = sizes[i % 4];

        MPI_Recv(rbuf, (int)big, MPI_BYTE, peer, 5, comm, &st);
        MPI_Get_count(&st, MPI_BYTE, &count);
        CHECK(count == (int)n, "order: message %d has %d bytes, not %zu", i,
              count, n);
        CHECK(check_bytes(rbuf, n, 1000 + i * 3 + peer) == n,
              "order: message %d content", i);
    }
    MPI_Waitall(NMSG, sreqs, MPI_STATUSES_IGNORE);
    for (i = 0; i < NMSG; i++) {
        free(sbufs[i]);
    }
    free(rbuf);
}

/* Every process sends K messages to rank 0, which receives them with
 * MPI_ANY_SOURCE and MPI_ANY_TAG: per sender, tags arrive in order. */
static void test_any_source_order(void)
{
    enum { K = 50 };
    int i, buf[2];
    MPI_Status st;
    MPI_Request *reqs;
    int (*sent)[2];

    sent = malloc(K * sizeof(*sent));
    reqs = malloc(K * sizeof(*reqs));
    for (i = 0; i < K; i++) {
        sent[i][0] = rank;
        sent[i][1] = i;
        MPI_Isend(sent[i], 2, MPI_INT, 0, i, comm, &reqs[i]);
    }
    if (rank == 0) {
        int *next = calloc((size_t)size, sizeof(int)), got = 0, count;

        for (got = 0; got < K * size; got++) {
            MPI_Recv(buf, 2, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG,
                     comm, &st);
            MPI_Get_count(&st, MPI_INT, &count);
            CHECK(count == 2 && st.MPI_SOURCE >= 0 &&
                  st.MPI_SOURCE < size && buf[0] == st.MPI_SOURCE &&
                  buf[1] == st.MPI_TAG,
                  "any source: status (%d, %d) count %d vs data (%d, %d)",
                  st.MPI_SOURCE, st.MPI_TAG, count, buf[0], buf[1]);
            if (st.MPI_SOURCE >= 0 && st.MPI_SOURCE < size) {
                CHECK(st.MPI_TAG == next[st.MPI_SOURCE],
                      "any source: from %d tag %d, expected %d",
                      st.MPI_SOURCE, st.MPI_TAG, next[st.MPI_SOURCE]);
                next[st.MPI_SOURCE] = st.MPI_TAG + 1;
            }
        }
        free(next);
    }
    MPI_Waitall(K, reqs, MPI_STATUSES_IGNORE);
    free(reqs);
    free(sent);
}

/* ---- MPI_PROC_NULL ------------------------------------------------------- */

static void check_proc_null_status(const MPI_Status *st, const char *what)
{
    int count = -1;

    MPI_Get_count(st, MPI_INT, &count);
    CHECK(st->MPI_SOURCE == MPI_PROC_NULL && st->MPI_TAG == MPI_ANY_TAG &&
          count == 0, "%s: status (%d, %d) count %d", what, st->MPI_SOURCE,
          st->MPI_TAG, count);
}

static void test_proc_null(void)
{
    int buf[4] = { 1, 2, 3, 4 }, flag = 0;
    MPI_Status st;
    MPI_Request req;

    CHECK(MPI_Send(buf, 4, MPI_INT, MPI_PROC_NULL, 1, comm) ==
          MPI_SUCCESS, "Send to MPI_PROC_NULL");
    CHECK(MPI_Ssend(buf, 4, MPI_INT, MPI_PROC_NULL, 1, comm) ==
          MPI_SUCCESS, "Ssend to MPI_PROC_NULL");
    CHECK(MPI_Rsend(buf, 4, MPI_INT, MPI_PROC_NULL, 1, comm) ==
          MPI_SUCCESS, "Rsend to MPI_PROC_NULL");
    CHECK(MPI_Issend(buf, 4, MPI_INT, MPI_PROC_NULL, 1, comm,
                     &req) == MPI_SUCCESS, "Issend to MPI_PROC_NULL");
    CHECK(MPI_Test(&req, &flag, MPI_STATUS_IGNORE) == MPI_SUCCESS &&
          flag && req == MPI_REQUEST_NULL,
          "Issend to MPI_PROC_NULL is complete at once");
    memset(&st, 0x55, sizeof(st));
    CHECK(MPI_Recv(buf, 4, MPI_INT, MPI_PROC_NULL, 1, comm, &st) ==
          MPI_SUCCESS, "Recv from MPI_PROC_NULL");
    check_proc_null_status(&st, "Recv from MPI_PROC_NULL");
    CHECK(buf[0] == 1 && buf[3] == 4, "Recv from MPI_PROC_NULL leaves the "
          "buffer alone");
    memset(&st, 0x55, sizeof(st));
    MPI_Irecv(buf, 4, MPI_INT, MPI_PROC_NULL, MPI_ANY_TAG, comm,
              &req);
    MPI_Wait(&req, &st);
    check_proc_null_status(&st, "Irecv from MPI_PROC_NULL");
    memset(&st, 0x55, sizeof(st));
    CHECK(MPI_Probe(MPI_PROC_NULL, 3, comm, &st) == MPI_SUCCESS,
          "Probe of MPI_PROC_NULL");
    check_proc_null_status(&st, "Probe of MPI_PROC_NULL");
    memset(&st, 0x55, sizeof(st));
    flag = 0;
    CHECK(MPI_Iprobe(MPI_PROC_NULL, MPI_ANY_TAG, comm, &flag,
                     &st) == MPI_SUCCESS && flag,
          "Iprobe of MPI_PROC_NULL finds a message");
    check_proc_null_status(&st, "Iprobe of MPI_PROC_NULL");
    memset(&st, 0x55, sizeof(st));
    CHECK(MPI_Sendrecv(buf, 4, MPI_INT, MPI_PROC_NULL, 1, buf, 4, MPI_INT,
                       MPI_PROC_NULL, 1, comm, &st) ==
          MPI_SUCCESS, "Sendrecv with MPI_PROC_NULL");
    check_proc_null_status(&st, "Sendrecv with MPI_PROC_NULL");
}

/* ---- status.MPI_ERROR and single-completion calls ---------------------- */

/* MPI-3.1 3.2.5: only the calls that can return MPI_ERR_IN_STATUS set
 * status.MPI_ERROR; a receive, a wait or a probe leaves it as it was. */
#define KEEP_ERR 4242

static void expect_kept(const MPI_Status *st, const char *what)
{
    CHECK(st->MPI_ERROR == KEEP_ERR, "%s wrote status.MPI_ERROR (%d)", what,
          st->MPI_ERROR);
}

static void test_status_error_kept(void)
{
    MPI_Status st;
    MPI_Message msg;
    MPI_Request req, reqs[2];
    int out = rank, in = -1, flag = 0, idx = -1, tag;

    /* One message per call, each on its own tag, from the peer. */
    for (tag = 1; tag <= 9; tag++) {
        MPI_Isend(&out, 1, MPI_INT, peer, tag, comm, &req);
        MPI_Request_free(&req);
    }
    st.MPI_ERROR = KEEP_ERR;
    MPI_Recv(&in, 1, MPI_INT, peer, 1, comm, &st);
    expect_kept(&st, "MPI_Recv");
    CHECK(in == peer && st.MPI_TAG == 1, "MPI_Recv got %d tag %d", in,
          st.MPI_TAG);

    st.MPI_ERROR = KEEP_ERR;
    MPI_Probe(peer, 2, comm, &st);
    expect_kept(&st, "MPI_Probe");
    st.MPI_ERROR = KEEP_ERR;
    do {
        MPI_Iprobe(peer, 2, comm, &flag, &st);
    } while (!flag);
    expect_kept(&st, "MPI_Iprobe");
    MPI_Recv(&in, 1, MPI_INT, peer, 2, comm, MPI_STATUS_IGNORE);

    st.MPI_ERROR = KEEP_ERR;
    MPI_Mprobe(peer, 3, comm, &msg, &st);
    expect_kept(&st, "MPI_Mprobe");
    st.MPI_ERROR = KEEP_ERR;
    MPI_Mrecv(&in, 1, MPI_INT, &msg, &st);
    expect_kept(&st, "MPI_Mrecv");
    CHECK(in == peer && st.MPI_TAG == 3, "MPI_Mrecv got %d tag %d", in,
          st.MPI_TAG);

    st.MPI_ERROR = KEEP_ERR;
    do {
        MPI_Improbe(peer, 4, comm, &flag, &msg, &st);
    } while (!flag);
    expect_kept(&st, "MPI_Improbe");
    MPI_Imrecv(&in, 1, MPI_INT, &msg, &req);
    st.MPI_ERROR = KEEP_ERR;
    MPI_Wait(&req, &st);
    expect_kept(&st, "MPI_Wait (MPI_Imrecv)");

    MPI_Irecv(&in, 1, MPI_INT, peer, 5, comm, &req);
    st.MPI_ERROR = KEEP_ERR;
    do {
        MPI_Test(&req, &flag, &st);
    } while (!flag);
    expect_kept(&st, "MPI_Test");

    MPI_Irecv(&in, 1, MPI_INT, peer, 6, comm, &reqs[0]);
    reqs[1] = MPI_REQUEST_NULL;
    st.MPI_ERROR = KEEP_ERR;
    MPI_Waitany(2, reqs, &idx, &st);
    expect_kept(&st, "MPI_Waitany");
    CHECK(idx == 0 && st.MPI_TAG == 6, "MPI_Waitany: index %d tag %d", idx,
          st.MPI_TAG);

    MPI_Irecv(&in, 1, MPI_INT, peer, 7, comm, &reqs[0]);
    st.MPI_ERROR = KEEP_ERR;
    do {
        MPI_Testany(2, reqs, &idx, &flag, &st);
    } while (!flag);
    expect_kept(&st, "MPI_Testany");

    MPI_Irecv(&in, 1, MPI_INT, peer, 8, comm, &req);
    st.MPI_ERROR = KEEP_ERR;
    do {
        MPI_Request_get_status(req, &flag, &st);
    } while (!flag);
    expect_kept(&st, "MPI_Request_get_status");
    st.MPI_ERROR = KEEP_ERR;
    MPI_Wait(&req, &st);
    expect_kept(&st, "MPI_Wait");

    st.MPI_ERROR = KEEP_ERR;
    MPI_Sendrecv(&out, 1, MPI_INT, peer, 10, &in, 1, MPI_INT, peer, 10,
                 comm, &st);
    expect_kept(&st, "MPI_Sendrecv");
    MPI_Recv(&in, 1, MPI_INT, peer, 9, comm, MPI_STATUS_IGNORE);

    /* Empty completions too. */
    req = MPI_REQUEST_NULL;
    st.MPI_ERROR = KEEP_ERR;
    MPI_Wait(&req, &st);
    expect_kept(&st, "MPI_Wait of MPI_REQUEST_NULL");
    st.MPI_ERROR = KEEP_ERR;
    MPI_Recv(&in, 1, MPI_INT, MPI_PROC_NULL, 1, comm, &st);
    expect_kept(&st, "MPI_Recv from MPI_PROC_NULL");
}

/* ---- Get_count, Get_elements, truncation ------------------------------- */

static void test_counts(void)
{
    char bytes[7];
    int ints[8], count, i;
    double d5[5], r5[8];
    MPI_Datatype pair, triple, four, tmp;
    struct { int i; double d; } pairs[2];
    struct { int i; double d; int j; } trip = { 11, 2.5, 12 };
    int bl[3] = { 1, 1, 1 };
    MPI_Aint disp[3];
    MPI_Datatype types[3] = { MPI_INT, MPI_DOUBLE, MPI_INT };
    MPI_Status st;
    MPI_Request req;

    /* Whole elements. */
    for (i = 0; i < 5; i++) {
        d5[i] = i * 1.5;
    }
    MPI_Irecv(r5, 8, MPI_DOUBLE, peer, 20, comm, &req);
    MPI_Send(d5, 5, MPI_DOUBLE, peer, 20, comm);
    MPI_Wait(&req, &st);
    MPI_Get_count(&st, MPI_DOUBLE, &count);
    CHECK(count == 5, "Get_count of 5 doubles: %d", count);
    MPI_Get_elements(&st, MPI_DOUBLE, &count);
    CHECK(count == 5, "Get_elements of 5 doubles: %d", count);
    MPI_Get_count(&st, MPI_BYTE, &count);
    CHECK(count == 5 * (int)sizeof(double), "Get_count in bytes: %d", count);

    /* 7 bytes seen as ints: not a whole number of them. */
    memset(bytes, 3, sizeof(bytes));
    MPI_Irecv(ints, 8, MPI_INT, peer, 21, comm, &req);
    MPI_Send(bytes, 7, MPI_BYTE, peer, 21, comm);
    MPI_Wait(&req, &st);
    MPI_Get_count(&st, MPI_INT, &count);
    CHECK(count == MPI_UNDEFINED, "Get_count of 7 bytes as int: %d", count);
    /* (Get_elements of a partial basic element is not checked: bytes
     * received as ints break the type matching rule.) */

    /* int, double, int received as {int, double} x 2: 1.5 elements, 3
     * basic elements. */
    disp[0] = 0;
    disp[1] = (MPI_Aint)((char *)&pairs[0].d - (char *)&pairs[0]);
    MPI_Type_create_struct(2, bl, disp, types, &tmp);
    MPI_Type_create_resized(tmp, 0, (MPI_Aint)sizeof(pairs[0]), &pair);
    MPI_Type_free(&tmp);
    MPI_Type_commit(&pair);
    disp[1] = (MPI_Aint)((char *)&trip.d - (char *)&trip);
    disp[2] = (MPI_Aint)((char *)&trip.j - (char *)&trip);
    MPI_Type_create_struct(3, bl, disp, types, &triple);
    MPI_Type_commit(&triple);
    memset(pairs, 0, sizeof(pairs));
    MPI_Irecv(pairs, 2, pair, peer, 22, comm, &req);
    MPI_Send(&trip, 1, triple, peer, 22, comm);
    MPI_Wait(&req, &st);
    MPI_Get_count(&st, pair, &count);
    CHECK(count == MPI_UNDEFINED, "Get_count of 1.5 structs: %d", count);
    MPI_Get_elements(&st, pair, &count);
    CHECK(count == 3, "Get_elements of int,double,int as {int,double}: %d",
          count);
    CHECK(pairs[0].i == 11 && pairs[0].d == 2.5 && pairs[1].i == 12,
          "struct data: %d %g %d", pairs[0].i, pairs[0].d, pairs[1].i);

    /* 6 ints as elements of 4 contiguous ints. */
    MPI_Type_contiguous(4, MPI_INT, &four);
    MPI_Type_commit(&four);
    for (i = 0; i < 8; i++) {
        ints[i] = i;
    }
    MPI_Irecv(ints, 2, four, peer, 23, comm, &req);
    MPI_Send(ints, 6, MPI_INT, peer, 23, comm);
    MPI_Wait(&req, &st);
    MPI_Get_count(&st, four, &count);
    CHECK(count == MPI_UNDEFINED, "Get_count of 6 ints as 4-int: %d", count);
    MPI_Get_elements(&st, four, &count);
    CHECK(count == 6, "Get_elements of 6 ints as 4-int: %d", count);
    MPI_Type_free(&four);
    MPI_Type_free(&pair);
    MPI_Type_free(&triple);
}

static void test_truncate(void)
{
    int sbuf[10], rbuf[6], i, rc, cls, count;
    double dst[12];
    MPI_Datatype vec;
    MPI_Status st;
    MPI_Request req;

    for (i = 0; i < 10; i++) {
        sbuf[i] = 100 + i;
    }
    /* Blocking receive: the send goes first (nonblocking), the receive
     * is too small. */
    rbuf[5] = -7;
    MPI_Isend(sbuf, 10, MPI_INT, peer, 30, comm, &req);
    rc = MPI_Recv(rbuf, 5, MPI_INT, peer, 30, comm, &st);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    cls = -1;
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_TRUNCATE, "Recv of 10 ints into 5: class %d", cls);
    CHECK(rbuf[5] == -7, "truncated Recv wrote past the buffer");
    CHECK(st.MPI_SOURCE == peer && st.MPI_TAG == 30,
          "truncated Recv: status source %d tag %d", st.MPI_SOURCE,
          st.MPI_TAG);
    count = -1;
    MPI_Get_count(&st, MPI_INT, &count);
    CHECK(count >= 0 && count <= 5, "truncated Recv count %d", count);

    /* Nonblocking: the error comes from MPI_Wait. */
    rbuf[5] = -7;
    MPI_Irecv(rbuf, 5, MPI_INT, peer, 31, comm, &req);
    MPI_Send(sbuf, 10, MPI_INT, peer, 31, comm);
    rc = MPI_Wait(&req, &st);
    cls = -1;
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_TRUNCATE, "Irecv/Wait of 10 ints into 5: class %d",
          cls);
    CHECK(rbuf[5] == -7, "truncated Irecv wrote past the buffer");
    CHECK(req == MPI_REQUEST_NULL, "truncated Irecv: request freed");

    /* Non-contiguous receive type, truncated: gaps and the rest stay. */
    for (i = 0; i < 12; i++) {
        dst[i] = -1.0;
    }
    MPI_Type_vector(3, 1, 3, MPI_DOUBLE, &vec);   /* slots 0, 3, 6 */
    MPI_Type_commit(&vec);
    {
        double src[5] = { 1, 2, 3, 4, 5 };

        MPI_Isend(src, 5, MPI_DOUBLE, peer, 32, comm, &req);
        rc = MPI_Recv(dst, 1, vec, peer, 32, comm, &st);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
    }
    cls = -1;
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_TRUNCATE, "Recv of 5 doubles into a vector of 3: "
          "class %d", cls);
    for (i = 0; i < 12; i++) {
        if (i != 0 && i != 3 && i != 6) {
            CHECK(dst[i] == -1.0, "truncated vector Recv wrote slot %d", i);
        }
    }
    MPI_Type_free(&vec);

    /* The program may also keep going after a truncation: an ordinary
     * exchange still works. */
    MPI_Irecv(rbuf, 6, MPI_INT, peer, 33, comm, &req);
    MPI_Send(sbuf, 6, MPI_INT, peer, 33, comm);
    CHECK(MPI_Wait(&req, &st) == MPI_SUCCESS && rbuf[5] == 105,
          "exchange after truncation");
}

/* ---- Sendrecv around a ring -------------------------------------------- */

static void test_sendrecv(void)
{
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    int sbuf[3] = { rank, rank * 10, rank * 100 }, rbuf[3] = { -1, -1, -1 };
    int vbuf[12], i, count;
    MPI_Datatype vec;
    MPI_Status st;

    CHECK(MPI_Sendrecv(sbuf, 3, MPI_INT, right, 40, rbuf, 3, MPI_INT, left,
                       40, comm, &st) == MPI_SUCCESS,
          "Sendrecv around the ring");
    MPI_Get_count(&st, MPI_INT, &count);
    CHECK(rbuf[0] == left && rbuf[1] == left * 10 && rbuf[2] == left * 100 &&
          st.MPI_SOURCE == left && st.MPI_TAG == 40 && count == 3,
          "Sendrecv: got %d %d %d from %d tag %d count %d", rbuf[0],
          rbuf[1], rbuf[2], st.MPI_SOURCE, st.MPI_TAG, count);

    /* In place, with a non-contiguous type (every other int). */
    for (i = 0; i < 12; i++) {
        vbuf[i] = (i % 2 == 0) ? rank * 1000 + i : -5;
    }
    MPI_Type_vector(6, 1, 2, MPI_INT, &vec);
    MPI_Type_commit(&vec);
    CHECK(MPI_Sendrecv_replace(vbuf, 1, vec, right, 41, MPI_ANY_SOURCE,
                               MPI_ANY_TAG, comm, &st) ==
          MPI_SUCCESS, "Sendrecv_replace around the ring");
    for (i = 0; i < 12; i++) {
        int want = (i % 2 == 0) ? left * 1000 + i : -5;

        CHECK(vbuf[i] == want, "Sendrecv_replace slot %d: %d, want %d", i,
              vbuf[i], want);
    }
    CHECK(st.MPI_SOURCE == left && st.MPI_TAG == 41,
          "Sendrecv_replace status (%d, %d)", st.MPI_SOURCE, st.MPI_TAG);
    MPI_Type_free(&vec);
}

/* ---- non-contiguous datatypes ---------------------------------------- */

typedef struct rec {
    char   c;
    double d;
    int    i[2];
} rec_t;

static void test_datatypes(void)
{
    int src[40], dst[40], i, j;
    int vexpect[8], iexpect[9];
    MPI_Datatype vec, idx, rtype, tmp;
    int ibl[3] = { 2, 3, 4 }, idisp[3] = { 1, 10, 30 };
    int sbl[3] = { 1, 1, 2 };
    MPI_Aint sdisp[3];
    MPI_Datatype stypes[3] = { MPI_CHAR, MPI_DOUBLE, MPI_INT };
    rec_t srec[3], rrec[3];
    MPI_Request req;
    MPI_Status st;

    for (i = 0; i < 40; i++) {
        src[i] = rank * 1000 + i;
    }
    /* vector: 4 blocks of 2, stride 5: ints 0 1 5 6 10 11 15 16. */
    MPI_Type_vector(4, 2, 5, MPI_INT, &vec);
    MPI_Type_commit(&vec);
    for (i = 0, j = 0; i < 4; i++) {
        vexpect[j++] = peer * 1000 + i * 5;
        vexpect[j++] = peer * 1000 + i * 5 + 1;
    }
    /* vector -> contiguous */
    memset(dst, 0xff, sizeof(dst));
    MPI_Irecv(dst, 8, MPI_INT, peer, 50, comm, &req);
    MPI_Send(src, 1, vec, peer, 50, comm);
    MPI_Wait(&req, &st);
    for (i = 0; i < 8; i++) {
        CHECK(dst[i] == vexpect[i], "vector->contig element %d: %d want %d",
              i, dst[i], vexpect[i]);
    }
    CHECK(dst[8] == -1, "vector->contig wrote past 8 ints");
    /* contiguous -> vector: gaps untouched */
    memset(dst, 0xff, sizeof(dst));
    MPI_Irecv(dst, 1, vec, peer, 51, comm, &req);
    MPI_Send(src, 8, MPI_INT, peer, 51, comm);
    MPI_Wait(&req, &st);
    for (i = 0, j = 0; i < 40; i++) {
        int in = (i < 20) && (i % 5 < 2);

        if (in) {
            CHECK(dst[i] == peer * 1000 + j, "contig->vector slot %d: %d", i,
                  dst[i]);
            j++;
        } else {
            CHECK(dst[i] == -1, "contig->vector gap %d written: %d", i,
                  dst[i]);
        }
    }
    /* vector -> vector, nonblocking send */
    memset(dst, 0xff, sizeof(dst));
    MPI_Irecv(dst, 1, vec, peer, 52, comm, &req);
    {
        MPI_Request sreq;

        MPI_Isend(src, 1, vec, peer, 52, comm, &sreq);
        MPI_Wait(&sreq, MPI_STATUS_IGNORE);
    }
    MPI_Wait(&req, &st);
    for (i = 0; i < 40; i++) {
        int in = (i < 20) && (i % 5 < 2);

        CHECK(dst[i] == (in ? peer * 1000 + i : -1),
              "vector->vector slot %d: %d", i, dst[i]);
    }
    MPI_Type_free(&vec);

    /* indexed: blocks (2 at 1), (3 at 10), (4 at 30). */
    MPI_Type_indexed(3, ibl, idisp, MPI_INT, &idx);
    MPI_Type_commit(&idx);
    for (i = 0, j = 0; i < 3; i++) {
        int k;

        for (k = 0; k < ibl[i]; k++) {
            iexpect[j++] = peer * 1000 + idisp[i] + k;
        }
    }
    memset(dst, 0xff, sizeof(dst));
    MPI_Irecv(dst, 9, MPI_INT, peer, 53, comm, &req);
    MPI_Send(src, 1, idx, peer, 53, comm);
    MPI_Wait(&req, &st);
    for (i = 0; i < 9; i++) {
        CHECK(dst[i] == iexpect[i], "indexed->contig element %d: %d want %d",
              i, dst[i], iexpect[i]);
    }
    memset(dst, 0xff, sizeof(dst));
    MPI_Irecv(dst, 1, idx, peer, 54, comm, &req);
    MPI_Send(src, 1, idx, peer, 54, comm);
    MPI_Wait(&req, &st);
    for (i = 0; i < 40; i++) {
        int in = (i >= 1 && i < 3) || (i >= 10 && i < 13) ||
                 (i >= 30 && i < 34);

        CHECK(dst[i] == (in ? peer * 1000 + i : -1),
              "indexed->indexed slot %d: %d", i, dst[i]);
    }
    MPI_Type_free(&idx);

    /* struct {char, double, int[2]} x 3, padding never transferred. */
    sdisp[0] = (MPI_Aint)offsetof(rec_t, c);
    sdisp[1] = (MPI_Aint)offsetof(rec_t, d);
    sdisp[2] = (MPI_Aint)offsetof(rec_t, i);
    MPI_Type_create_struct(3, sbl, sdisp, stypes, &tmp);
    MPI_Type_create_resized(tmp, 0, (MPI_Aint)sizeof(rec_t), &rtype);
    MPI_Type_commit(&rtype);
    MPI_Type_free(&tmp);
    memset(srec, 0x11, sizeof(srec));
    for (i = 0; i < 3; i++) {
        srec[i].c    = (char)('a' + rank + i);
        srec[i].d    = rank + i * 0.25;
        srec[i].i[0] = rank * 10 + i;
        srec[i].i[1] = -(rank * 10 + i);
    }
    memset(rrec, 0x77, sizeof(rrec));
    MPI_Irecv(rrec, 3, rtype, peer, 55, comm, &req);
    MPI_Send(srec, 3, rtype, peer, 55, comm);
    MPI_Wait(&req, &st);
    for (i = 0; i < 3; i++) {
        CHECK(rrec[i].c == (char)('a' + peer + i) &&
              rrec[i].d == peer + i * 0.25 &&
              rrec[i].i[0] == peer * 10 + i &&
              rrec[i].i[1] == -(peer * 10 + i),
              "struct element %d: %c %g %d %d", i, rrec[i].c, rrec[i].d,
              rrec[i].i[0], rrec[i].i[1]);
        /* the byte after c is padding: not written */
        CHECK(((unsigned char *)&rrec[i])[1] == 0x77,
              "struct element %d: padding written", i);
    }
    MPI_Get_elements(&st, rtype, &j);
    CHECK(j == 12, "Get_elements of 3 structs: %d", j);
    MPI_Type_free(&rtype);
}

/* ---- Ssend is synchronous -------------------------------------------- */

/* The sender's Issend must not complete while the receiver provably has
 * not posted its receive: the receiver first tells the sender "not yet"
 * and posts only after the sender answers "go", which it does only after
 * testing its Issend many times. Both directions of a pair, one at a
 * time; sizes small (eager) and large (rendezvous). */
static void ssend_sender(size_t n, int seed)
{
    unsigned char *buf = malloc(n + 1);
    MPI_Request req;
    int i, flag = 0, token = 0, early = 0;

    fill(buf, n, seed);
    MPI_Issend(buf, (int)n, MPI_BYTE, peer, 60, comm, &req);
    MPI_Recv(&token, 1, MPI_INT, peer, 61, comm,
             MPI_STATUS_IGNORE);
    for (i = 0; i < 2000; i++) {
        MPI_Test(&req, &flag, MPI_STATUS_IGNORE);
        if (flag) {
            early = 1;
            break;
        }
    }
    CHECK(!early, "Issend of %zu bytes completed before the receive was "
          "posted", n);
    MPI_Send(&token, 1, MPI_INT, peer, 62, comm);
    if (!early) {
        MPI_Wait(&req, MPI_STATUS_IGNORE);
    }
    free(buf);
}

static void ssend_receiver(size_t n, int seed)
{
    unsigned char *buf = malloc(n + 1);
    int token = 1;

    MPI_Send(&token, 1, MPI_INT, peer, 61, comm);
    MPI_Recv(&token, 1, MPI_INT, peer, 62, comm,
             MPI_STATUS_IGNORE);
    MPI_Recv(buf, (int)n, MPI_BYTE, peer, 60, comm,
             MPI_STATUS_IGNORE);
    CHECK(check_bytes(buf, n, seed) == n, "Issend data (%zu bytes)", n);
    free(buf);
}

static void test_ssend_sync(void)
{
    static const size_t sizes[] = { 0, 8, (1u << 20) + 1 };
    int s, dir;

    for (s = 0; s < 3; s++) {
        if (peer == rank) {
            /* Alone: the Issend to itself must stay incomplete until the
             * receive is posted. */
            unsigned char *buf = malloc(sizes[s] + 1);
            unsigned char *rbuf = malloc(sizes[s] + 1);
            MPI_Request req;
            int i, flag = 0;

            fill(buf, sizes[s], s);
            MPI_Issend(buf, (int)sizes[s], MPI_BYTE, rank, 60,
                       comm, &req);
            for (i = 0; i < 2000 && !flag; i++) {
                MPI_Test(&req, &flag, MPI_STATUS_IGNORE);
            }
            CHECK(!flag, "Issend to itself of %zu bytes completed before "
                  "the receive", sizes[s]);
            MPI_Recv(rbuf, (int)sizes[s], MPI_BYTE, rank, 60, comm,
                     MPI_STATUS_IGNORE);
            if (!flag) {
                MPI_Wait(&req, MPI_STATUS_IGNORE);
            }
            CHECK(check_bytes(rbuf, sizes[s], s) == sizes[s],
                  "Issend to itself: data");
            free(buf);
            free(rbuf);
            continue;
        }
        for (dir = 0; dir < 2; dir++) {
            if ((rank < peer) == (dir == 0)) {
                ssend_sender(sizes[s], s * 2 + dir);
            } else {
                ssend_receiver(sizes[s], s * 2 + dir);
            }
        }
    }
}

/* ---- argument errors -------------------------------------------------- */

static void expect_class(int rc, int want, const char *what)
{
    int cls = -1;

    MPI_Error_class(rc, &cls);
    CHECK(cls == want, "%s: error class %d, want %d", what, cls, want);
}

static void test_errors(void)
{
    int buf[4] = { 0 };
    MPI_Request req = MPI_REQUEST_NULL;
    MPI_Status st;
    int flag;

    expect_class(MPI_Send(buf, 1, MPI_INT, size, 0, comm),
                 MPI_ERR_RANK, "Send to rank size");
    expect_class(MPI_Send(buf, 1, MPI_INT, -5, 0, comm),
                 MPI_ERR_RANK, "Send to rank -5");
    expect_class(MPI_Send(buf, 1, MPI_INT, MPI_ANY_SOURCE, 0,
                          comm),
                 MPI_ERR_RANK, "Send to MPI_ANY_SOURCE");
    expect_class(MPI_Send(buf, 1, MPI_INT, peer, -3, comm),
                 MPI_ERR_TAG, "Send with tag -3");
    expect_class(MPI_Send(buf, 1, MPI_INT, peer, MPI_ANY_TAG,
                          comm),
                 MPI_ERR_TAG, "Send with MPI_ANY_TAG");
    expect_class(MPI_Isend(buf, -1, MPI_INT, peer, 0, comm, &req),
                 MPI_ERR_COUNT, "Isend of -1 elements");
    expect_class(MPI_Send(buf, 1, MPI_DATATYPE_NULL, peer, 0,
                          comm),
                 MPI_ERR_TYPE, "Send of MPI_DATATYPE_NULL");
    expect_class(MPI_Recv(buf, 1, MPI_INT, 0, 0, MPI_COMM_NULL, &st),
                 MPI_ERR_COMM, "Recv on MPI_COMM_NULL");
    expect_class(MPI_Irecv(buf, 1, MPI_INT, size + 3, 0, comm,
                           &req),
                 MPI_ERR_RANK, "Irecv from rank size + 3");
    expect_class(MPI_Irecv(buf, 1, MPI_INT, 0, -7, comm, &req),
                 MPI_ERR_TAG, "Irecv with tag -7");
    expect_class(MPI_Iprobe(0, -7, comm, &flag, &st),
                 MPI_ERR_TAG, "Iprobe with tag -7");
    /* A probe's arguments pass one test each on its fast path; each of
     * these fails one and must still be refused. */
    expect_class(MPI_Iprobe(size, 0, comm, &flag, &st),
                 MPI_ERR_RANK, "Iprobe from rank size");
    expect_class(MPI_Iprobe(-5, 0, comm, &flag, &st),
                 MPI_ERR_RANK, "Iprobe from rank -5");
    expect_class(MPI_Iprobe(0, 0, MPI_COMM_NULL, &flag, &st),
                 MPI_ERR_COMM, "Iprobe on MPI_COMM_NULL");
    expect_class(MPI_Iprobe(0, 0, comm, NULL, &st),
                 MPI_ERR_ARG, "Iprobe with a NULL flag");
    expect_class(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG - 1, comm, &flag,
                            &st),
                 MPI_ERR_TAG, "Iprobe with tag MPI_ANY_TAG - 1");
    expect_class(MPI_Ssend(buf, 1, MPI_INT, 0, 0, MPI_COMM_NULL),
                 MPI_ERR_COMM, "Ssend on MPI_COMM_NULL");
    CHECK(req == MPI_REQUEST_NULL, "failed calls leave the request alone");
}

int main(int argc, char **argv)
{
    mpitest_init(&argc, &argv, "core_p2p", 0);
    mpitest_world(&rank, &size);
    /* Duplicates inherit it. */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    peer = rank ^ 1;
    if (peer >= size) {
        peer = rank;
    }

    RUN(test_modes);
    RUN(test_bsend_errors);
    RUN(test_order);
    RUN(test_any_source_order);
    RUN(test_proc_null);
    RUN(test_status_error_kept);
    RUN(test_counts);
    RUN(test_truncate);
    RUN(test_sendrecv);
    RUN(test_datatypes);
    RUN(test_ssend_sync);
    RUN(test_errors);

    return mpitest_finish();
}
