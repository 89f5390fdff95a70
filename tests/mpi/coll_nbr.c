/*
 * tests/mpi/coll_nbr.c: the neighbour collectives (MPI-3.1 7.6, 7.7;
 * MPI-4.0 8.7) in their three forms (blocking, nonblocking, persistent),
 * MPI_Neighbor_alltoallw among them, on a Cartesian grid (periodic in one
 * dimension, so that ranks at the other edge have MPI_PROC_NULL
 * neighbours, and dimensions of size 1 and 2 at small process counts), a
 * graph ring and a distributed graph with a self-loop and a doubled edge.
 * Blocks are strided vectors on one side and contiguous on the other;
 * every element says which edge brought it. The nonblocking forms are
 * waited in an order that differs between ranks, with a wildcard receive
 * pending that only a later user message may match. Then the blocking and
 * nonblocking forms called again and again, their arrays changed in
 * place (run_kept).
 */
#include <mpi.h>

#include "mpitest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, size;

static const char *const forms[3] = { "blocking", "nonblocking",
                                      "persistent" };

/* The value of element e of the block that src sends on its k-th
 * out-edge (its place among src's edges to the same neighbour, and the
 * direction of a Cartesian edge, are in k). */
static int val(int src, int k, int e)
{
    return 1000000 + src * 10000 + k * 100 + e;
}

/* This process's edges, as MPI_Dist_graph_neighbors or the Cartesian
 * order give them, and for each in-edge the index of the matching
 * out-edge at its source. */
typedef struct {
    MPI_Comm comm;
    const char *name;
    int indeg, outdeg;
    int *in, *out, *srck;
} topo_t;

/* Runs call in form f (0, 1, 2) on request *req; nonblocking and
 * persistent requests are left active for the caller to complete. */
#define RUN(_f, _req, _b, _i, _p)                                        \
    do {                                                                 \
        if ((_f) == 0) {                                                 \
            OK(_b);                                                      \
            *(_req) = MPI_REQUEST_NULL;                                  \
        } else if ((_f) == 1) {                                          \
            OK(_i);                                                      \
        } else {                                                         \
            OK(_p);                                                      \
            OK(MPI_Start(_req));                                         \
        }                                                                \
    } while (0)

/* Completes a request of form f (a persistent one is freed). */
static void complete(int f, MPI_Request *req)
{
    if (*req != MPI_REQUEST_NULL) {
        OK(MPI_Wait(req, MPI_STATUS_IGNORE));
    }
    if (f == 2) {
        OK(MPI_Request_free(req));
    }
}

/*
 * The five neighbour collectives on t in form f, n ints a block. Send
 * regions: sb holds 2n ints for out-edge k at k * 2n, sb2 n ints at k * n,
 * both val(rank, k, e) for element e. The allgathers send sb's first n;
 * alltoall sends sb2's blocks; alltoallv n ints from each region of sb;
 * alltoallw the same, but for odd k one vector of n ints at stride 2
 * (elements 0, 2, 4, ... of the region). Receive blocks: at
 * k * (2n + 1) as a vector of n ints at stride 2 (allgather, alltoall),
 * or n contiguous ints in reverse order of edges (the v and w forms).
 */
static void run_all(const topo_t *t, int f, int n)
{
    MPI_Datatype vec;     /* n ints at stride 2 */
    MPI_Request req[5], pending;
    int nout = t->outdeg + 1, nin = t->indeg + 1;
    int *sb = malloc((size_t)nout * 2 * n * sizeof(int));
    int *sb2 = malloc((size_t)nout * n * sizeof(int));
    int *rc = malloc((size_t)nin * sizeof(int));
    int *rd = malloc((size_t)nin * sizeof(int));
    int *sc = malloc((size_t)nout * sizeof(int));
    int *sd = malloc((size_t)nout * sizeof(int));
    int *scw = malloc((size_t)nout * sizeof(int));
    MPI_Aint *swd = malloc((size_t)nout * sizeof(MPI_Aint));
    MPI_Aint *rwd = malloc((size_t)nin * sizeof(MPI_Aint));
    MPI_Datatype *st = malloc((size_t)nout * sizeof(*st));
    MPI_Datatype *rt = malloc((size_t)nin * sizeof(*rt));
    int *rb[5], k, e, j, rlen = nin * (2 * n + 1);
    int wild = -1, user = rank;

    MPI_Type_vector(n, 1, 2, MPI_INT, &vec);
    MPI_Type_commit(&vec);
    for (j = 0; j < 5; j++) {
        rb[j] = malloc((size_t)rlen * sizeof(int));
        for (e = 0; e < rlen; e++) {
            rb[j][e] = -7;
        }
    }
    for (k = 0; k < t->outdeg; k++) {
        for (e = 0; e < 2 * n; e++) {
            sb[k * 2 * n + e] = val(rank, k, e);
        }
        for (e = 0; e < n; e++) {
            sb2[k * n + e] = val(rank, k, e);
        }
        sc[k] = n;
        sd[k] = k * 2 * n;
        scw[k] = (k % 2 == 1) ? 1 : n;
        st[k] = (k % 2 == 1) ? vec : MPI_INT;
        swd[k] = (MPI_Aint)(k * 2 * n) * (MPI_Aint)sizeof(int);
    }
    for (k = 0; k < t->indeg; k++) {
        rc[k] = n;
        rd[k] = (t->indeg - 1 - k) * (2 * n + 1);
        rwd[k] = (MPI_Aint)rd[k] * (MPI_Aint)sizeof(int);
        rt[k] = MPI_INT;
    }
    OK(MPI_Irecv(&wild, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, t->comm,
                 &pending));
    RUN(f, &req[0],
        MPI_Neighbor_allgather(sb, n, MPI_INT, rb[0], 1, vec, t->comm),
        MPI_Ineighbor_allgather(sb, n, MPI_INT, rb[0], 1, vec, t->comm,
                                &req[0]),
        MPI_Neighbor_allgather_init(sb, n, MPI_INT, rb[0], 1, vec, t->comm,
                                    MPI_INFO_NULL, &req[0]));
    RUN(f, &req[1],
        MPI_Neighbor_allgatherv(sb, n, MPI_INT, rb[1], rc, rd, MPI_INT,
                                t->comm),
        MPI_Ineighbor_allgatherv(sb, n, MPI_INT, rb[1], rc, rd, MPI_INT,
                                 t->comm, &req[1]),
        MPI_Neighbor_allgatherv_init(sb, n, MPI_INT, rb[1], rc, rd, MPI_INT,
                                     t->comm, MPI_INFO_NULL, &req[1]));
    RUN(f, &req[2],
        MPI_Neighbor_alltoall(sb2, n, MPI_INT, rb[2], 1, vec, t->comm),
        MPI_Ineighbor_alltoall(sb2, n, MPI_INT, rb[2], 1, vec, t->comm,
                               &req[2]),
        MPI_Neighbor_alltoall_init(sb2, n, MPI_INT, rb[2], 1, vec, t->comm,
                                   MPI_INFO_NULL, &req[2]));
    RUN(f, &req[3],
        MPI_Neighbor_alltoallv(sb, sc, sd, MPI_INT, rb[3], rc, rd, MPI_INT,
                               t->comm),
        MPI_Ineighbor_alltoallv(sb, sc, sd, MPI_INT, rb[3], rc, rd, MPI_INT,
                                t->comm, &req[3]),
        MPI_Neighbor_alltoallv_init(sb, sc, sd, MPI_INT, rb[3], rc, rd,
                                    MPI_INT, t->comm, MPI_INFO_NULL,
                                    &req[3]));
    RUN(f, &req[4],
        MPI_Neighbor_alltoallw(sb, scw, swd, st, rb[4], rc, rwd, rt,
                               t->comm),
        MPI_Ineighbor_alltoallw(sb, scw, swd, st, rb[4], rc, rwd, rt,
                                t->comm, &req[4]),
        MPI_Neighbor_alltoallw_init(sb, scw, swd, st, rb[4], rc, rwd, rt,
                                    t->comm, MPI_INFO_NULL, &req[4]));
    /* Complete in an order that differs between ranks. */
    for (j = 0; j < 5; j++) {
        complete(f, &req[(rank % 2 == 0) ? j : 4 - j]);
    }
    /* Only the user message matches the wildcard receive. */
    OK(MPI_Send(&user, 1, MPI_INT, rank, 42, t->comm));
    OK(MPI_Wait(&pending, MPI_STATUS_IGNORE));
    CHECK(wild == rank, "%s %s: the wildcard receive got %d", t->name,
          forms[f], wild);

    for (k = 0; k < t->indeg; k++) {
        int src = t->in[k], sk = t->srck[k];
        int at = k * (2 * n - 1), atv = rd[k];   /* vec's extent */

        for (e = 0; e < n; e++) {
            int nul = (src == MPI_PROC_NULL);
            int w0 = nul ? -7 : val(src, 0, e);
            int wk = nul ? -7 : val(src, sk, e);
            int ww = nul ? -7 : val(src, sk, (sk % 2 == 1) ? 2 * e : e);

            CHECK(rb[0][at + 2 * e] == w0, "%s %s allgather in-edge %d "
                  "[%d] = %d, want %d", t->name, forms[f], k, e,
                  rb[0][at + 2 * e], w0);
            CHECK(rb[1][atv + e] == w0, "%s %s allgatherv in-edge %d "
                  "[%d] = %d, want %d", t->name, forms[f], k, e,
                  rb[1][atv + e], w0);
            CHECK(rb[2][at + 2 * e] == wk, "%s %s alltoall in-edge %d "
                  "[%d] = %d, want %d", t->name, forms[f], k, e,
                  rb[2][at + 2 * e], wk);
            CHECK(rb[3][atv + e] == wk, "%s %s alltoallv in-edge %d [%d] = "
                  "%d, want %d", t->name, forms[f], k, e, rb[3][atv + e],
                  wk);
            CHECK(rb[4][atv + e] == ww, "%s %s alltoallw in-edge %d [%d] = "
                  "%d, want %d", t->name, forms[f], k, e, rb[4][atv + e],
                  ww);
            /* The holes of the vector layout stay as they were. */
            CHECK(e == n - 1 || rb[0][at + 2 * e + 1] == -7, "%s %s "
                  "allgather wrote a hole", t->name, forms[f]);
        }
    }
    MPI_Type_free(&vec);
    for (j = 0; j < 5; j++) {
        free(rb[j]);
    }
    free(sb);
    free(sb2);
    free(rc);
    free(rd);
    free(sc);
    free(sd);
    free(scw);
    free(swd);
    free(rwd);
    free(st);
    free(rt);
}

/*
 * For each in-edge k, the index of the matching out-edge at its source:
 * the j-th in-edge from s (among those with the same direction, for a
 * Cartesian grid) meets the j-th out-edge of s to this process. Each
 * process tells its neighbours its out-edges' indices by sending them,
 * in order, on a user tag.
 */
static void match_edges(topo_t *t, int cart)
{
    MPI_Request *reqs = malloc(((size_t)t->indeg + t->outdeg + 1) *
                               sizeof(MPI_Request));
    int *kout = malloc(((size_t)t->outdeg + 1) * sizeof(int));
    int k, nr = 0;

    t->srck = malloc(((size_t)t->indeg + 1) * sizeof(int));
    for (k = 0; k < t->indeg; k++) {
        t->srck[k] = -1;
        if (t->in[k] != MPI_PROC_NULL) {
            /* Cartesian: in-edge 2d comes from an out-edge 2d + 1 (sent
             * towards +1), in-edge 2d + 1 from an out-edge 2d. */
            OK(MPI_Irecv(&t->srck[k], 1, MPI_INT, t->in[k],
                         cart ? 100 + (k % 2) : 100, t->comm, &reqs[nr++]));
        }
    }
    for (k = 0; k < t->outdeg; k++) {
        kout[k] = k;
        if (t->out[k] != MPI_PROC_NULL) {
            OK(MPI_Isend(&kout[k], 1, MPI_INT, t->out[k],
                         cart ? 100 + ((k + 1) % 2) : 100, t->comm,
                         &reqs[nr++]));
        }
    }
    OK(MPI_Waitall(nr, reqs, MPI_STATUSES_IGNORE));
    free(reqs);
    free(kout);
}

/*
 * The blocking and nonblocking forms keep their schedules between calls
 * with the same arguments (the v and w forms: the same contents of their
 * arrays), each form its own. For each form (f: 0 blocking, 1
 * nonblocking), over
 * KROUNDS rounds on the same buffers and arrays, in phases of three
 * rounds, kphase changes one thing in place at a time: the counts, the
 * displacements (the blocks' order reversed), alltoallw's datatypes
 * (MPI_SHORT: the first half of each block's bytes). Every round sends
 * new data, checked byte for byte on every receive buffer (what no block
 * covers must stay as it was). At the end of each phase a sixth call
 * (nonblocking) is kept (called twice) and freed while active on the
 * second call; its
 * buffers are its own, never read. The buffers are static: a freed
 * request may run on past its test.
 */
#define KSLOTS  64   /* blocks a buffer holds, 4 ints each */
#define KROUNDS 24

static const struct {
    int c, rev, shrt;
} kphase[8] = {
    { 2, 0, 0 }, { 1, 0, 0 }, { 1, 1, 0 }, { 1, 1, 1 },
    { 3, 1, 1 }, { 3, 0, 1 }, { 3, 0, 0 }, { 2, 0, 0 }
};

static int ksb[KSLOTS * 4], ksa[KSLOTS * 4], ksg[4];
static int krb[5][KSLOTS * 4], kexp[5][KSLOTS * 4];
static int ksc[KSLOTS], ksd[KSLOTS], krc[KSLOTS], krd[KSLOTS];
static MPI_Aint kswd[KSLOTS], krwd[KSLOTS];
static MPI_Datatype kst[KSLOTS], krt[KSLOTS];
static int kfs[KSLOTS * 4], kfr[KSLOTS * 4];

/* Element e of the block src sends on out-edge k in round r (k 63: the
 * allgathers' one block). */
static int kval(int src, int k, int e, int r)
{
    return r * 10000000 + src * 100000 + k * 100 + e + 1;
}

/* Sets the arrays and buffers of round r of the kept test on t. */
static void kept_setup(const topo_t *t, int r)
{
    int p = r / 3, c = kphase[p].c, k, e, j;
    MPI_Datatype wt = kphase[p].shrt ? MPI_SHORT : MPI_INT;

    for (j = 0; j < 5; j++) {
        for (e = 0; e < KSLOTS * 4; e++) {
            krb[j][e] = kexp[j][e] = -7;
        }
    }
    for (e = 0; e < 4; e++) {
        ksg[e] = kval(rank, 63, e, r);
    }
    for (k = 0; k < t->outdeg; k++) {
        int slot = kphase[p].rev ? t->outdeg - 1 - k : k;

        ksc[k] = c;
        ksd[k] = slot * 4;
        kswd[k] = (MPI_Aint)(slot * 4) * (MPI_Aint)sizeof(int);
        kst[k] = wt;
        for (e = 0; e < 4; e++) {
            ksb[slot * 4 + e] = kval(rank, k, e, r);
        }
        for (e = 0; e < c; e++) {
            ksa[k * c + e] = kval(rank, k, e, r);
        }
    }
    for (k = 0; k < t->indeg; k++) {
        int slot = kphase[p].rev ? t->indeg - 1 - k : k;
        int src = t->in[k], sk = t->srck[k];
        int blk[4];

        krc[k] = c;
        krd[k] = slot * 4;
        krwd[k] = (MPI_Aint)(slot * 4) * (MPI_Aint)sizeof(int);
        krt[k] = wt;
        if (src == MPI_PROC_NULL) {
            continue;
        }
        for (e = 0; e < c; e++) {
            kexp[0][k * c + e] = kval(src, 63, e, r);
            kexp[1][slot * 4 + e] = kval(src, 63, e, r);
            kexp[2][k * c + e] = kval(src, sk, e, r);
            kexp[3][slot * 4 + e] = kval(src, sk, e, r);
        }
        for (e = 0; e < 4; e++) {
            blk[e] = kval(src, sk, e, r);
        }
        memcpy(&kexp[4][slot * 4], blk,
               (size_t)c * (kphase[p].shrt ? sizeof(short) : sizeof(int)));
    }
}

static void run_kept(const topo_t *t, int f)
{
    static const char *const names[5] = { "allgather", "allgatherv",
        "alltoall", "alltoallv", "alltoallw" };
    MPI_Request req[5];
    int r, j, e;

    if (t->indeg > KSLOTS || t->outdeg > KSLOTS) {
        CHECK(0, "%s: degree over %d", t->name, KSLOTS);
        return;
    }
    for (r = 0; r < KROUNDS; r++) {
        int c = kphase[r / 3].c;

        kept_setup(t, r);
        RUN(f, &req[0],
            MPI_Neighbor_allgather(ksg, c, MPI_INT, krb[0], c, MPI_INT,
                                   t->comm),
            MPI_Ineighbor_allgather(ksg, c, MPI_INT, krb[0], c, MPI_INT,
                                    t->comm, &req[0]),
            MPI_SUCCESS);
        RUN(f, &req[1],
            MPI_Neighbor_allgatherv(ksg, c, MPI_INT, krb[1], krc, krd,
                                    MPI_INT, t->comm),
            MPI_Ineighbor_allgatherv(ksg, c, MPI_INT, krb[1], krc, krd,
                                     MPI_INT, t->comm, &req[1]),
            MPI_SUCCESS);
        RUN(f, &req[2],
            MPI_Neighbor_alltoall(ksa, c, MPI_INT, krb[2], c, MPI_INT,
                                  t->comm),
            MPI_Ineighbor_alltoall(ksa, c, MPI_INT, krb[2], c, MPI_INT,
                                   t->comm, &req[2]),
            MPI_SUCCESS);
        RUN(f, &req[3],
            MPI_Neighbor_alltoallv(ksb, ksc, ksd, MPI_INT, krb[3], krc,
                                   krd, MPI_INT, t->comm),
            MPI_Ineighbor_alltoallv(ksb, ksc, ksd, MPI_INT, krb[3], krc,
                                    krd, MPI_INT, t->comm, &req[3]),
            MPI_SUCCESS);
        RUN(f, &req[4],
            MPI_Neighbor_alltoallw(ksb, ksc, kswd, kst, krb[4], krc, krwd,
                                   krt, t->comm),
            MPI_Ineighbor_alltoallw(ksb, ksc, kswd, kst, krb[4], krc, krwd,
                                    krt, t->comm, &req[4]),
            MPI_SUCCESS);
        for (j = 0; j < 5; j++) {
            int i = (rank % 2 == 0) ? j : 4 - j;

            OK(MPI_Wait(&req[i], MPI_STATUS_IGNORE));
        }
        for (j = 0; j < 5; j++) {
            for (e = 0; e < KSLOTS * 4 && krb[j][e] == kexp[j][e]; e++) {
            }
            CHECK(e == KSLOTS * 4, "%s kept %s %s round %d: int %d is %d, "
                  "want %d", t->name, forms[f], names[j], r, e,
                  (e < KSLOTS * 4) ? krb[j][e] : 0,
                  (e < KSLOTS * 4) ? kexp[j][e] : 0);
        }
        if (f == 1 && r % 3 == 2) {
            /* Kept by the first call; the second starts from it, and
             * is freed while it may run. */
            OK(MPI_Ineighbor_alltoallv(kfs, ksc, ksd, MPI_INT, kfr, krc,
                                       krd, MPI_INT, t->comm, &req[0]));
            OK(MPI_Wait(&req[0], MPI_STATUS_IGNORE));
            OK(MPI_Ineighbor_alltoallv(kfs, ksc, ksd, MPI_INT, kfr, krc,
                                       krd, MPI_INT, t->comm, &req[0]));
            OK(MPI_Request_free(&req[0]));
        }
    }
}

static void run_forms(topo_t *t, int cart)
{
    int f;

    match_edges(t, cart);
    for (f = 0; f < 3; f++) {
        run_all(t, f, 3);
        run_all(t, f, 1);
    }
    run_kept(t, 0);
    run_kept(t, 1);
    free(t->srck);
}

static void test_cart(void)
{
    int dims[2] = { 0, 0 }, periods[2] = { 1, 0 }, k;
    topo_t t = { MPI_COMM_NULL, "cart", 4, 4, NULL, NULL, NULL };
    int nbrs[4];

    MPI_Dims_create(size, 2, dims);
    OK(MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &t.comm));
    for (k = 0; k < 2; k++) {
        OK(MPI_Cart_shift(t.comm, k, 1, &nbrs[2 * k], &nbrs[2 * k + 1]));
    }
    t.in = t.out = nbrs;
    run_forms(&t, 1);
    MPI_Comm_free(&t.comm);
}

static void test_graph_ring(void)
{
    int *index = malloc((size_t)size * sizeof(int));
    int *edges = malloc((size_t)size * 2 * sizeof(int));
    int i, nn = 0, nbrs[2];
    topo_t t = { MPI_COMM_NULL, "graph ring", 0, 0, NULL, NULL, NULL };

    for (i = 0; i < size; i++) {
        edges[2 * i] = (i + 1) % size;
        edges[2 * i + 1] = (i + size - 1) % size;
        index[i] = 2 * (i + 1);
    }
    OK(MPI_Graph_create(MPI_COMM_WORLD, size, index, edges, 0, &t.comm));
    OK(MPI_Graph_neighbors_count(t.comm, rank, &nn));
    CHECK(nn == 2, "ring degree %d", nn);
    OK(MPI_Graph_neighbors(t.comm, rank, 2, nbrs));
    t.indeg = t.outdeg = 2;
    t.in = t.out = nbrs;
    run_forms(&t, 0);
    MPI_Comm_free(&t.comm);
    free(index);
    free(edges);
}

/* Each process: edges to itself, to the next rank twice, to rank 0. */
static void test_dist_graph(void)
{
    int dst[4] = { rank, (rank + 1) % size, (rank + 1) % size, 0 };
    int indeg = 0, outdeg = 0, weighted = 0;
    topo_t t = { MPI_COMM_NULL, "dist graph", 0, 0, NULL, NULL, NULL };

    OK(MPI_Dist_graph_create(MPI_COMM_WORLD, 1, &rank, (int[]){ 4 }, dst,
                             MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &t.comm));
    OK(MPI_Dist_graph_neighbors_count(t.comm, &indeg, &outdeg, &weighted));
    t.indeg = indeg;
    t.outdeg = outdeg;
    t.in = malloc(((size_t)indeg + 1) * sizeof(int));
    t.out = malloc(((size_t)outdeg + 1) * sizeof(int));
    OK(MPI_Dist_graph_neighbors(t.comm, indeg, t.in, MPI_UNWEIGHTED,
                                outdeg, t.out, MPI_UNWEIGHTED));
    run_forms(&t, 0);
    free(t.in);
    free(t.out);
    MPI_Comm_free(&t.comm);
}

int main(int argc, char **argv)
{
    const mpitest_fn tests[] = {test_cart, test_graph_ring, test_dist_graph,
        NULL};

    mpitest_init(&argc, &argv, "coll_nbr", 0);
    mpitest_world(&rank, &size);

    return mpitest_run(tests);
}
