/*
 * tests/mpi/coll_nb_free.c: a datatype or a user operation freed while a
 * nonblocking collective that uses it is pending stays alive until the
 * collective completes (MPI-3.1 4.1.9: freeing a type does not affect
 * communication using it; the same for operations).
 *
 * Each collective is started with a derived type (every other int of a
 * buffer) and, for reductions, a user operation; the type and the
 * operation are freed at once, newer ones are made (memory a freed object
 * left may be reused), then the collective is waited for and its result
 * checked. Rank 0 delays its part behind a barrier-like exchange, so that
 * the others' steps really run after the frees. test_coll.sh runs it also
 * in verification mode, whose check reads the types after the call.
 */
#include <mpi.h>

#include "mpitest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, size;

enum { N = 4 };

/* The operation of the test: sums the ints of the strided type (element
 * k is ints 2k). */
static void sum_fn(void *in, void *inout, int *len, MPI_Datatype *type)
{
    int i;

    (void)type;
    for (i = 0; i < *len * N; i++) {
        ((int *)inout)[2 * i] += ((int *)in)[2 * i];
    }
}

/* What the newer operations do: a result that went through one of them
 * (the freed one's memory reused) shows. */
static void poison_fn(void *in, void *inout, int *len, MPI_Datatype *type)
{
    int i;

    (void)in;
    (void)type;
    for (i = 0; i < *len * N; i++) {
        ((int *)inout)[2 * i] = -999;
    }
}

/* A strided type of N ints (every other one), committed. */
static MPI_Datatype strided(void)
{
    MPI_Datatype t;

    MPI_Type_vector(N, 1, 2, MPI_INT, &t);
    MPI_Type_commit(&t);
    return t;
}

/* Makes and frees objects like the ones just freed, so that any memory
 * they left is taken by something else. */
static void churn(void)
{
    MPI_Datatype t[4];
    MPI_Op o[4];
    int i;

    for (i = 0; i < 4; i++) {
        MPI_Type_contiguous(i + 1, MPI_DOUBLE, &t[i]);
        MPI_Op_create(poison_fn, 1, &o[i]);
    }
    for (i = 0; i < 4; i++) {
        MPI_Type_free(&t[i]);
        MPI_Op_free(&o[i]);
    }
}

/* Rank 0 enters its part of the collective only after the others have
 * started theirs and freed their objects. */
static void hold_back(void)
{
    int token = 0;

    if (size == 1) {
        return;
    }
    if (rank == 0) {
        MPI_Recv(&token, 1, MPI_INT, size - 1, 99, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    } else if (rank == size - 1) {
        MPI_Send(&token, 1, MPI_INT, 0, 99, MPI_COMM_WORLD);
    }
}

static void test_ibcast(void)
{
    MPI_Datatype t = strided();
    MPI_Request req;
    int buf[2 * N], i, ok = 1;

    for (i = 0; i < 2 * N; i++) {
        buf[i] = (rank == 0) ? 100 + i : -1;
    }
    if (rank == 0) {
        hold_back();
    }
    MPI_Ibcast(buf, 1, t, 0, MPI_COMM_WORLD, &req);
    MPI_Type_free(&t);
    churn();
    if (rank != 0) {
        hold_back();
    }
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    for (i = 0; i < 2 * N; i++) {
        int want = (i % 2 == 0 || rank == 0) ? 100 + i : -1;

        ok &= (buf[i] == want);
    }
    CHECK(ok, "MPI_Ibcast with a freed type: %d %d %d %d %d", buf[0],
          buf[1], buf[2], buf[4], buf[6]);
}

static void test_iallreduce(void)
{
    MPI_Datatype t = strided();
    MPI_Op op;
    MPI_Request req;
    int in[2 * N], out[2 * N], i, r, ok = 1;

    MPI_Op_create(sum_fn, 1, &op);
    for (i = 0; i < 2 * N; i++) {
        in[i] = rank + 1;
        out[i] = -7;
    }
    if (rank == 0) {
        hold_back();
    }
    MPI_Iallreduce(in, out, 1, t, op, MPI_COMM_WORLD, &req);
    MPI_Type_free(&t);
    MPI_Op_free(&op);
    churn();
    if (rank != 0) {
        hold_back();
    }
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    for (i = 0; i < N; i++) {
        int want = 0;

        for (r = 0; r < size; r++) {
            want += r + 1;
        }
        ok &= (out[2 * i] == want) && (out[2 * i + 1] == -7);
    }
    CHECK(ok, "MPI_Iallreduce with a freed type and op: %d %d %d", out[0],
          out[1], out[2]);
}

static void test_iallgather(void)
{
    MPI_Datatype t = strided();
    MPI_Request req;
    int *all = malloc((size_t)size * 2 * N * sizeof(int));
    int mine[N], i, r, ok = 1;
    MPI_Aint lb, ext;

    /* Receive blocks of one strided element each, one extent apart. */
    MPI_Type_get_extent(t, &lb, &ext);
    for (i = 0; i < N; i++) {
        mine[i] = rank * 100 + i;
    }
    for (i = 0; i < size * 2 * N; i++) {
        all[i] = -1;
    }
    if (rank == 0) {
        hold_back();
    }
    MPI_Iallgather(mine, N, MPI_INT, all, 1, t, MPI_COMM_WORLD, &req);
    MPI_Type_free(&t);
    churn();
    if (rank != 0) {
        hold_back();
    }
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    for (r = 0; r < size; r++) {
        const int *blk = (const int *)((const char *)all + r * ext);

        for (i = 0; i < N; i++) {
            ok &= (blk[2 * i] == r * 100 + i);
        }
    }
    CHECK(ok, "MPI_Iallgather into a freed type: %d %d %d", all[0],
          all[2], all[2 * N - 1]);
    free(all);
}

int main(int argc, char **argv)
{
    int round;

    mpitest_init(&argc, &argv, "coll_nb_free", 0);
    rank = mpitest_rank;
    size = mpitest_size;
    for (round = 0; round < 3; round++) {
        test_ibcast();
        test_iallreduce();
        test_iallgather();
    }
    return mpitest_finish();
}
