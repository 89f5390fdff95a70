/*
 * tests/mpi/coll_lcos.c: collectives over an LCO communicator with two
 * LCOs in every process (the structure of thread communicators, driven
 * here from one thread with nonblocking calls). Each process is then a
 * node of the hierarchy: its two LCOs form a node group and one of them
 * leads it. Members are numbered process by process (2p, 2p + 1), or
 * interleaved (p and n + p: a node's members are not contiguous, so a
 * non-commutative reduction must stay flat). Results are checked against
 * closed forms; tests/mpi/test_coll_hier.sh checks from the debug trace
 * which forms ran.
 *
 * Usage: coll_lcos [interleaved]
 */
#include <mpi.h>

#include "mpitest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define K 2    /* LCOs per process */

static int me, n;

/* Member number of LCO k of process p. */
static int interleaved;

static int member(int p, int k)
{
    return interleaved ? k * n + p : p * K + k;
}

/* Affine maps composed: non-commutative (x op y applies x first). */
typedef struct aff {
    unsigned a, b;
} aff_t;

static aff_t aff_of(int m)
{
    aff_t x = { 2u * (unsigned)m + 3u, (unsigned)m * 11u + 1u };

    return x;
}

static void aff_fn(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    aff_t *x = in, *y = inout;
    int i;

    (void)dt;
    for (i = 0; i < *len; i++) {
        aff_t z = { x[i].a * y[i].a, x[i].b * y[i].a + y[i].b };

        y[i] = z;
    }
}

/* The K LCOs of this process: member m's send slot j reaches member j's
 * receive slot m. */
static void build(MPI_Comm lcos[K])
{
    int total = K * n, k, p, j;
    MPIX_Cname *mine = malloc(K * sizeof(*mine));
    MPIX_Cname *names = malloc((size_t)total * sizeof(*names));
    MPIX_Cname *byrank = malloc((size_t)total * sizeof(*byrank));
    int *rslots = malloc((size_t)total * sizeof(int));

    for (k = 0; k < K; k++) {
        MPIX_Comm_create_local(&lcos[k]);
        MPIX_Add_receive_slots(lcos[k], total);
        MPIX_Comm_name(lcos[k], &mine[k]);
    }
    MPI_Allgather(mine, K, MPIX_CNAME, names, K, MPIX_CNAME,
                  MPI_COMM_WORLD);
    for (p = 0; p < n; p++) {
        for (k = 0; k < K; k++) {
            byrank[member(p, k)] = names[p * K + k];
        }
    }
    for (k = 0; k < K; k++) {
        for (j = 0; j < total; j++) {
            rslots[j] = member(me, k);
        }
        MPIX_Add_send_slots(lcos[k], total, byrank, rslots);
    }
    free(mine);
    free(names);
    free(byrank);
    free(rslots);
}

int main(int argc, char **argv)
{
    MPI_Comm lcos[K];
    MPI_Request req[6 * K];
    MPI_Datatype aff_type;
    MPI_Op aff_op;
    int total, k, i, m, nreq = 0, bad = 0;
    int sum[K], bc[K][3], *ag[K], *a2a_s[K], *a2a_r[K];
    aff_t ain[K], aout[K], want = { 1u, 0u };

    mpitest_init(&argc, &argv, "coll_lcos", 0);
    mpitest_world(&me, &n);
    interleaved = (argc > 1 && strcmp(argv[1], "interleaved") == 0);
    total = K * n;
    MPI_Type_contiguous(2, MPI_UNSIGNED, &aff_type);
    MPI_Type_commit(&aff_type);
    MPI_Op_create(aff_fn, 0, &aff_op);
    build(lcos);

    /* Every collective is started on both LCOs before any is waited for:
     * their members in this process must all take part at once. */
    for (k = 0; k < K; k++) {
        m = member(me, k);
        OK(MPIX_Comm_lco_rank(lcos[k], &i));
        CHECK(i == m, "LCO %d has rank %d, not %d", k, i, m);
        sum[k] = m + 1;
        OK(MPI_Iallreduce(MPI_IN_PLACE, &sum[k], 1, MPI_INT, MPI_SUM,
                          lcos[k], &req[nreq++]));
        ain[k] = aff_of(m);
        OK(MPI_Iallreduce(&ain[k], &aout[k], 1, aff_type, aff_op, lcos[k],
                          &req[nreq++]));
        for (i = 0; i < 3; i++) {
            bc[k][i] = (m == total - 1) ? 100 + i : -1;
        }
        OK(MPI_Ibcast(bc[k], 3, MPI_INT, total - 1, lcos[k], &req[nreq++]));
        ag[k] = malloc((size_t)total * sizeof(int));
        ag[k][m] = m * m;
        OK(MPI_Iallgather(MPI_IN_PLACE, 1, MPI_INT, ag[k], 1, MPI_INT,
                          lcos[k], &req[nreq++]));
        a2a_s[k] = malloc((size_t)total * sizeof(int));
        a2a_r[k] = malloc((size_t)total * sizeof(int));
        for (i = 0; i < total; i++) {
            a2a_s[k][i] = m * 1000 + i;
        }
        OK(MPI_Ialltoall(a2a_s[k], 1, MPI_INT, a2a_r[k], 1, MPI_INT,
                         lcos[k], &req[nreq++]));
        OK(MPI_Ibarrier(lcos[k], &req[nreq++]));
    }
    OK(MPI_Waitall(nreq, req, MPI_STATUSES_IGNORE));

    for (m = 0; m < total; m++) {
        aff_t x = aff_of(m), z = { want.a * x.a, want.b * x.a + x.b };

        want = z;
    }
    for (k = 0; k < K; k++) {
        m = member(me, k);
        CHECK(sum[k] == total * (total + 1) / 2, "LCO %d: allreduce %d", k,
              sum[k]);
        CHECK(aout[k].a == want.a && aout[k].b == want.b,
              "LCO %d: non-commutative allreduce out of order", k);
        for (i = 0; i < 3; i++) {
            bad += (bc[k][i] != 100 + i);
        }
        for (i = 0; i < total; i++) {
            bad += (ag[k][i] != i * i) + (a2a_r[k][i] != i * 1000 + m);
        }
        free(ag[k]);
        free(a2a_s[k]);
        free(a2a_r[k]);
        MPI_Comm_free(&lcos[k]);
    }
    CHECK(bad == 0, "%d wrong bcast, allgather or alltoall values", bad);

    MPI_Op_free(&aff_op);
    MPI_Type_free(&aff_type);
    return mpitest_finish();
}
