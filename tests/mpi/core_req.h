/*
 * tests/mpi/core_req.h: what the request tests share (core_req.c: the
 * wait/test family, persistent requests, cancel, free and get_status;
 * core_req_sent.c: sends done when posted, matched probes, argument
 * errors): the pair, the go-ahead that keeps a receive pending, the checks
 * of statuses. Header only (every function static).
 *
 * Processes pair up (0-1, 2-3, ...); an odd one out is its own peer.
 * "Pending" requests are receives of a message the peer sends only once
 * this process told it to (go()), so they provably cannot complete before.
 */
#ifndef GCM_CORE_REQ_H
#define GCM_CORE_REQ_H

#include <mpi.h>

#include "mpitest.h"

#include <string.h>

static int rank = -1, size, peer;
static MPI_Comm comm = MPI_COMM_NULL;

/* Each test on its own duplicate of the world. */
#define RUN(test) MPITEST_RUN_ON_DUP(test, comm)

enum { TAG_GO = 1000, TAG_D = 1001 };

/* Tells the peer to go on, waits for its word, and sends it the message
 * (value v, tag TAG_D) it is waiting for. Both sides call it. */
static void go(int v) __attribute__((unused));

static void go(int v)
{
    MPI_Request req;
    int token = 0;

    MPI_Isend(&token, 1, MPI_INT, peer, TAG_GO, comm, &req);
    MPI_Recv(&token, 1, MPI_INT, peer, TAG_GO, comm, MPI_STATUS_IGNORE);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    MPI_Send(&v, 1, MPI_INT, peer, TAG_D, comm);
}

/* An empty status (MPI-3.1 3.7.3). Its MPI_ERROR is MPI_SUCCESS from the
 * calls with arrays of statuses; the single-completion calls leave the
 * field as the caller had it (3.2.5), which error_kept checks. */
static int is_empty(const MPI_Status *st) __attribute__((unused));

static int is_empty(const MPI_Status *st)
{
    int count = -1, cancelled = -1;

    MPI_Get_count(st, MPI_INT, &count);
    MPI_Test_cancelled(st, &cancelled);
    return st->MPI_SOURCE == MPI_ANY_SOURCE && st->MPI_TAG == MPI_ANY_TAG &&
           count == 0 && !cancelled;
}

static int is_empty_multi(const MPI_Status *st) __attribute__((unused));

static int is_empty_multi(const MPI_Status *st)
{
    return is_empty(st) && st->MPI_ERROR == MPI_SUCCESS;
}

/* MPI_ERROR as poison() left it. */
static int error_kept(const MPI_Status *st) __attribute__((unused));

static int error_kept(const MPI_Status *st)
{
    return st->MPI_ERROR == 0x5a5a5a5a;
}

static int is_proc_null(const MPI_Status *st) __attribute__((unused));

static int is_proc_null(const MPI_Status *st)
{
    int count = -1;

    MPI_Get_count(st, MPI_INT, &count);
    return st->MPI_SOURCE == MPI_PROC_NULL && st->MPI_TAG == MPI_ANY_TAG &&
           count == 0;
}

static void poison(MPI_Status *st, int n) __attribute__((unused));

static void poison(MPI_Status *st, int n)
{
    memset(st, 0x5a, (size_t)n * sizeof(*st));
}

/* MPI_Init_thread (MPI_THREAD_MULTIPLE) as name, errors returned, and
 * this process's peer. */
static void core_req_start(int *argc, char ***argv, const char *name)
{
    mpitest_init_thread(argc, argv, name, MPI_THREAD_MULTIPLE);
    mpitest_world(&rank, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    peer = rank ^ 1;
    if (peer >= size) {
        peer = rank;
    }
}

#endif
