/*
 * mpi_nbc_bench: every collective in its blocking form, its nonblocking
 * form waited at once (MPI_Ixxx + MPI_Wait) and, where the library has
 * them, its persistent form (MPI_Xxx_init once, then MPI_Start +
 * MPI_Wait), side by side, in plain MPI (any MPI builds it unchanged; the
 * persistent forms need MPI 4, or -DBENCH_PERSISTENT for a library that
 * declares them under an older MPI_VERSION).
 *
 * The forms of one operation and size are timed in alternating rounds
 * (blocking, nonblocking, persistent, blocking, ...), so that a change
 * of load on a shared machine falls on all of them alike. Each call is
 * timed alone, with an MPI_Barrier between calls outside the timed
 * region; a rank's figure is its mean time per call, the figure reported
 * the largest over the ranks (microseconds), as in mpi_coll_bench.
 * Sizes are per block: what each rank contributes or gets from each
 * peer; reductions sum doubles, the rest move MPI_BYTE; roots are rank 0.
 * The neighbour collectives run on a periodic ring (MPI_Cart_create of
 * one dimension): two neighbours each.
 *
 * Output, one line per measurement, on rank 0's stdout:
 *     benchmark,size_bytes,implementation,value,unit
 * with benchmark nbc_OP_FORM_LABEL (FORM: b, i or p; LABEL npN unless
 * --label is given).
 *
 * Usage: mpirun -np N mpi_nbc_bench IMPLEMENTATION_NAME [--quick]
 *            [--label LABEL] [--ops OP,OP,...] [--sizes N,N,...]
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <mpi.h>

#include "bench_util.h"

#if defined(BENCH_PERSISTENT) || (MPI_VERSION >= 4)
#define HAVE_PERSISTENT 1
#else
#define HAVE_PERSISTENT 0
#endif

/* Seconds of timed calls per operation, size and form, about. */
#define BUDGET_S  0.06
#define MIN_ITERS 10
#define ROUNDS    4

typedef enum {
    OP_BARRIER, OP_BCAST, OP_GATHER, OP_GATHERV, OP_SCATTER, OP_SCATTERV,
    OP_ALLGATHER, OP_ALLGATHERV, OP_ALLTOALL, OP_ALLTOALLV, OP_ALLTOALLW,
    OP_REDUCE, OP_ALLREDUCE, OP_REDUCE_SCATTER, OP_REDUCE_SCATTER_BLOCK,
    OP_SCAN, OP_EXSCAN, OP_NB_ALLGATHER, OP_NB_ALLGATHERV, OP_NB_ALLTOALL,
    OP_NB_ALLTOALLV, OP_NB_ALLTOALLW, OP_COUNT
} op_t;

static const char *op_names[OP_COUNT] = {
    "barrier", "bcast", "gather", "gatherv", "scatter", "scatterv",
    "allgather", "allgatherv", "alltoall", "alltoallv", "alltoallw",
    "reduce", "allreduce", "reduce_scatter", "reduce_scatter_block",
    "scan", "exscan", "neighbor_allgather", "neighbor_allgatherv",
    "neighbor_alltoall", "neighbor_alltoallv", "neighbor_alltoallw"
};

enum { FORM_B, FORM_I, FORM_P, NFORMS };
static const char form_names[NFORMS] = { 'b', 'i', 'p' };

static const char *impl = "mpi";
static int rank, nprocs;
static char *sbuf, *rbuf;
static int *counts, *displs, *ncounts, *ndispls;
static MPI_Aint *nadispls;
static MPI_Datatype *types;
static MPI_Comm ring;

/* The v and w arrays for blocks of n bytes. */
static void set_layout(int n)
{
    for (int r = 0; r < nprocs; r++) {
        counts[r] = n;
        displs[r] = r * n;
        types[r] = MPI_BYTE;
    }
    for (int k = 0; k < 2; k++) {
        ncounts[k] = n;
        ndispls[k] = k * n;
        nadispls[k] = (MPI_Aint)k * n;
    }
}

/*
 * Starts op on blocks of size bytes: blocking (req NULL: runs it),
 * nonblocking (returns its request in *req), or, for FORM_P, makes the
 * persistent request in *req (MPI_Start starts it).
 */
static void call_op(op_t op, size_t size, int form, MPI_Request *req)
{
    int n = (int)size, nd = (int)(size / sizeof(double));
    MPI_Comm w = MPI_COMM_WORLD;
    MPI_Info in = MPI_INFO_NULL;

    (void)in;
#define FORMS(_b, _i, _p)                                          \
    do {                                                           \
        if (form == FORM_B) {                                      \
            check(_b, #_b);                                        \
        } else if (form == FORM_I) {                               \
            check(_i, #_i);                                        \
        } else {                                                   \
            check(_p, #_p);                                        \
        }                                                          \
    } while (0)
#if HAVE_PERSISTENT
#define P(_x) _x
#else
#define P(_x) MPI_ERR_OTHER
#endif
    switch (op) {
    case OP_BARRIER:
        FORMS(MPI_Barrier(w), MPI_Ibarrier(w, req),
              P(MPI_Barrier_init(w, in, req)));
        break;
    case OP_BCAST:
        FORMS(MPI_Bcast(sbuf, n, MPI_BYTE, 0, w),
              MPI_Ibcast(sbuf, n, MPI_BYTE, 0, w, req),
              P(MPI_Bcast_init(sbuf, n, MPI_BYTE, 0, w, in, req)));
        break;
    case OP_GATHER:
        FORMS(MPI_Gather(sbuf, n, MPI_BYTE, rbuf, n, MPI_BYTE, 0, w),
              MPI_Igather(sbuf, n, MPI_BYTE, rbuf, n, MPI_BYTE, 0, w, req),
              P(MPI_Gather_init(sbuf, n, MPI_BYTE, rbuf, n, MPI_BYTE, 0, w,
                                in, req)));
        break;
    case OP_GATHERV:
        FORMS(MPI_Gatherv(sbuf, n, MPI_BYTE, rbuf, counts, displs, MPI_BYTE,
                          0, w),
              MPI_Igatherv(sbuf, n, MPI_BYTE, rbuf, counts, displs,
                           MPI_BYTE, 0, w, req),
              P(MPI_Gatherv_init(sbuf, n, MPI_BYTE, rbuf, counts, displs,
                                 MPI_BYTE, 0, w, in, req)));
        break;
    case OP_SCATTER:
        FORMS(MPI_Scatter(sbuf, n, MPI_BYTE, rbuf, n, MPI_BYTE, 0, w),
              MPI_Iscatter(sbuf, n, MPI_BYTE, rbuf, n, MPI_BYTE, 0, w, req),
              P(MPI_Scatter_init(sbuf, n, MPI_BYTE, rbuf, n, MPI_BYTE, 0, w,
                                 in, req)));
        break;
    case OP_SCATTERV:
        FORMS(MPI_Scatterv(sbuf, counts, displs, MPI_BYTE, rbuf, n,
                           MPI_BYTE, 0, w),
              MPI_Iscatterv(sbuf, counts, displs, MPI_BYTE, rbuf, n,
                            MPI_BYTE, 0, w, req),
              P(MPI_Scatterv_init(sbuf, counts, displs, MPI_BYTE, rbuf, n,
                                  MPI_BYTE, 0, w, in, req)));
        break;
    case OP_ALLGATHER:
        FORMS(MPI_Allgather(sbuf, n, MPI_BYTE, rbuf, n, MPI_BYTE, w),
              MPI_Iallgather(sbuf, n, MPI_BYTE, rbuf, n, MPI_BYTE, w, req),
              P(MPI_Allgather_init(sbuf, n, MPI_BYTE, rbuf, n, MPI_BYTE, w,
                                   in, req)));
        break;
    case OP_ALLGATHERV:
        FORMS(MPI_Allgatherv(sbuf, n, MPI_BYTE, rbuf, counts, displs,
                             MPI_BYTE, w),
              MPI_Iallgatherv(sbuf, n, MPI_BYTE, rbuf, counts, displs,
                              MPI_BYTE, w, req),
              P(MPI_Allgatherv_init(sbuf, n, MPI_BYTE, rbuf, counts, displs,
                                    MPI_BYTE, w, in, req)));
        break;
    case OP_ALLTOALL:
        FORMS(MPI_Alltoall(sbuf, n, MPI_BYTE, rbuf, n, MPI_BYTE, w),
              MPI_Ialltoall(sbuf, n, MPI_BYTE, rbuf, n, MPI_BYTE, w, req),
              P(MPI_Alltoall_init(sbuf, n, MPI_BYTE, rbuf, n, MPI_BYTE, w,
                                  in, req)));
        break;
    case OP_ALLTOALLV:
        FORMS(MPI_Alltoallv(sbuf, counts, displs, MPI_BYTE, rbuf, counts,
                            displs, MPI_BYTE, w),
              MPI_Ialltoallv(sbuf, counts, displs, MPI_BYTE, rbuf, counts,
                             displs, MPI_BYTE, w, req),
              P(MPI_Alltoallv_init(sbuf, counts, displs, MPI_BYTE, rbuf,
                                   counts, displs, MPI_BYTE, w, in, req)));
        break;
    case OP_ALLTOALLW:
        FORMS(MPI_Alltoallw(sbuf, counts, displs, types, rbuf, counts,
                            displs, types, w),
              MPI_Ialltoallw(sbuf, counts, displs, types, rbuf, counts,
                             displs, types, w, req),
              P(MPI_Alltoallw_init(sbuf, counts, displs, types, rbuf, counts,
                                   displs, types, w, in, req)));
        break;
    case OP_REDUCE:
        FORMS(MPI_Reduce(sbuf, rbuf, nd, MPI_DOUBLE, MPI_SUM, 0, w),
              MPI_Ireduce(sbuf, rbuf, nd, MPI_DOUBLE, MPI_SUM, 0, w, req),
              P(MPI_Reduce_init(sbuf, rbuf, nd, MPI_DOUBLE, MPI_SUM, 0, w,
                                in, req)));
        break;
    case OP_ALLREDUCE:
        FORMS(MPI_Allreduce(sbuf, rbuf, nd, MPI_DOUBLE, MPI_SUM, w),
              MPI_Iallreduce(sbuf, rbuf, nd, MPI_DOUBLE, MPI_SUM, w, req),
              P(MPI_Allreduce_init(sbuf, rbuf, nd, MPI_DOUBLE, MPI_SUM, w,
                                   in, req)));
        break;
    case OP_REDUCE_SCATTER:
        for (int r = 0; r < nprocs; r++) {
            counts[r] = nd;
        }
        FORMS(MPI_Reduce_scatter(sbuf, rbuf, counts, MPI_DOUBLE, MPI_SUM, w),
              MPI_Ireduce_scatter(sbuf, rbuf, counts, MPI_DOUBLE, MPI_SUM, w,
                                  req),
              P(MPI_Reduce_scatter_init(sbuf, rbuf, counts, MPI_DOUBLE,
                                        MPI_SUM, w, in, req)));
        break;
    case OP_REDUCE_SCATTER_BLOCK:
        FORMS(MPI_Reduce_scatter_block(sbuf, rbuf, nd, MPI_DOUBLE, MPI_SUM,
                                       w),
              MPI_Ireduce_scatter_block(sbuf, rbuf, nd, MPI_DOUBLE, MPI_SUM,
                                        w, req),
              P(MPI_Reduce_scatter_block_init(sbuf, rbuf, nd, MPI_DOUBLE,
                                              MPI_SUM, w, in, req)));
        break;
    case OP_SCAN:
        FORMS(MPI_Scan(sbuf, rbuf, nd, MPI_DOUBLE, MPI_SUM, w),
              MPI_Iscan(sbuf, rbuf, nd, MPI_DOUBLE, MPI_SUM, w, req),
              P(MPI_Scan_init(sbuf, rbuf, nd, MPI_DOUBLE, MPI_SUM, w, in,
                              req)));
        break;
    case OP_EXSCAN:
        FORMS(MPI_Exscan(sbuf, rbuf, nd, MPI_DOUBLE, MPI_SUM, w),
              MPI_Iexscan(sbuf, rbuf, nd, MPI_DOUBLE, MPI_SUM, w, req),
              P(MPI_Exscan_init(sbuf, rbuf, nd, MPI_DOUBLE, MPI_SUM, w, in,
                                req)));
        break;
    case OP_NB_ALLGATHER:
        FORMS(MPI_Neighbor_allgather(sbuf, n, MPI_BYTE, rbuf, n, MPI_BYTE,
                                     ring),
              MPI_Ineighbor_allgather(sbuf, n, MPI_BYTE, rbuf, n, MPI_BYTE,
                                      ring, req),
              P(MPI_Neighbor_allgather_init(sbuf, n, MPI_BYTE, rbuf, n,
                                            MPI_BYTE, ring, in, req)));
        break;
    case OP_NB_ALLGATHERV:
        FORMS(MPI_Neighbor_allgatherv(sbuf, n, MPI_BYTE, rbuf, ncounts,
                                      ndispls, MPI_BYTE, ring),
              MPI_Ineighbor_allgatherv(sbuf, n, MPI_BYTE, rbuf, ncounts,
                                       ndispls, MPI_BYTE, ring, req),
              P(MPI_Neighbor_allgatherv_init(sbuf, n, MPI_BYTE, rbuf,
                                             ncounts, ndispls, MPI_BYTE,
                                             ring, in, req)));
        break;
    case OP_NB_ALLTOALL:
        FORMS(MPI_Neighbor_alltoall(sbuf, n, MPI_BYTE, rbuf, n, MPI_BYTE,
                                    ring),
              MPI_Ineighbor_alltoall(sbuf, n, MPI_BYTE, rbuf, n, MPI_BYTE,
                                     ring, req),
              P(MPI_Neighbor_alltoall_init(sbuf, n, MPI_BYTE, rbuf, n,
                                           MPI_BYTE, ring, in, req)));
        break;
    case OP_NB_ALLTOALLV:
        FORMS(MPI_Neighbor_alltoallv(sbuf, ncounts, ndispls, MPI_BYTE, rbuf,
                                     ncounts, ndispls, MPI_BYTE, ring),
              MPI_Ineighbor_alltoallv(sbuf, ncounts, ndispls, MPI_BYTE, rbuf,
                                      ncounts, ndispls, MPI_BYTE, ring, req),
              P(MPI_Neighbor_alltoallv_init(sbuf, ncounts, ndispls, MPI_BYTE,
                                            rbuf, ncounts, ndispls,
                                            MPI_BYTE, ring, in, req)));
        break;
    case OP_NB_ALLTOALLW:
        FORMS(MPI_Neighbor_alltoallw(sbuf, ncounts, nadispls, types, rbuf,
                                     ncounts, nadispls, types, ring),
              MPI_Ineighbor_alltoallw(sbuf, ncounts, nadispls, types, rbuf,
                                      ncounts, nadispls, types, ring, req),
              P(MPI_Neighbor_alltoallw_init(sbuf, ncounts, nadispls, types,
                                            rbuf, ncounts, nadispls, types,
                                            ring, in, req)));
        break;
    default:
        break;
    }
#undef FORMS
#undef P
}

/* One timed call of op in form (the persistent request made once). */
static double timed_call(op_t op, size_t size, int form, MPI_Request *preq)
{
    MPI_Request req = MPI_REQUEST_NULL;
    double t0 = now_s();

    if (form == FORM_B) {
        call_op(op, size, FORM_B, NULL);
    } else if (form == FORM_I) {
        call_op(op, size, FORM_I, &req);
        check(MPI_Wait(&req, MPI_STATUS_IGNORE), "MPI_Wait");
    } else {
        check(MPI_Start(preq), "MPI_Start");
        check(MPI_Wait(preq, MPI_STATUS_IGNORE), "MPI_Wait");
    }
    return now_s() - t0;
}

/* How many calls per round: what fits in the budget by the slowest
 * rank's probe of the blocking form. */
static int agree_iters(op_t op, size_t size, int quick)
{
    double t = 0.0, slowest, fit;
    int most = (size >= 65536) ? 300 : 3000;

    if (quick) {
        return 2;
    }
    for (int i = 0; i < 3; i++) {
        check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
        t += timed_call(op, size, FORM_B, NULL);
    }
    t /= 3;
    check(MPI_Allreduce(&t, &slowest, 1, MPI_DOUBLE, MPI_MAX,
                        MPI_COMM_WORLD), "MPI_Allreduce (probe)");
    fit = (slowest > 0.0) ? BUDGET_S / ROUNDS / slowest : most;
    if (fit < MIN_ITERS) {
        return MIN_ITERS;
    }
    return (fit > most) ? most : (int)fit;
}

static void measure(op_t op, size_t size, const char *label, int quick)
{
    int iters, nforms = HAVE_PERSISTENT ? 3 : 2;
    double total[NFORMS] = { 0.0, 0.0, 0.0 }, mine, slowest;
    MPI_Request preq = MPI_REQUEST_NULL;
    char bench[96];

    set_layout((int)size);
    iters = agree_iters(op, size, quick);
    if (HAVE_PERSISTENT) {
        call_op(op, size, FORM_P, &preq);
    }
    /* Warm-up of every form. */
    for (int f = 0; f < nforms; f++) {
        for (int i = 0; i < 3; i++) {
            (void)timed_call(op, size, f, &preq);
        }
    }
    for (int round = 0; round < (quick ? 1 : ROUNDS); round++) {
        for (int f = 0; f < nforms; f++) {
            for (int i = 0; i < iters; i++) {
                check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
                total[f] += timed_call(op, size, f, &preq);
            }
        }
    }
    if (preq != MPI_REQUEST_NULL) {
        check(MPI_Request_free(&preq), "MPI_Request_free");
    }
    for (int f = 0; f < nforms; f++) {
        mine = total[f] * 1e6 / (iters * (quick ? 1 : ROUNDS));
        check(MPI_Reduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0,
                         MPI_COMM_WORLD), "MPI_Reduce (result)");
        if (rank == 0) {
            snprintf(bench, sizeof(bench), "nbc_%s_%c_%s", op_names[op],
                     form_names[f], label);
            printf("%s,%zu,%s,%.3f,us\n", bench,
                   (op == OP_BARRIER) ? (size_t)0 : size, impl, slowest);
            fflush(stdout);
        }
    }
}

static int parse_list(const char *list, int wanted[OP_COUNT],
                      size_t *sizes, int *nsizes)
{
    char *copy = strdup(list), *save = NULL;

    if (copy == NULL) {
        return -1;
    }
    for (char *tok = strtok_r(copy, ",", &save); tok != NULL;
         tok = strtok_r(NULL, ",", &save)) {
        int found = 0;

        if (sizes != NULL) {
            if (*nsizes < 8) {
                sizes[(*nsizes)++] = (size_t)strtoul(tok, NULL, 10);
            }
            continue;
        }
        for (int op = 0; op < OP_COUNT; op++) {
            if (strcmp(tok, op_names[op]) == 0) {
                wanted[op] = found = 1;
            }
        }
        if (!found) {
            if (rank == 0) {
                fprintf(stderr, "mpi_nbc_bench: unknown operation '%s'\n",
                        tok);
            }
            free(copy);
            return -1;
        }
    }
    free(copy);
    return 0;
}

int main(int argc, char **argv)
{
    int quick = 0, any = 0, nsizes = 0, dims[1], periods[1] = { 1 };
    int wanted[OP_COUNT] = { 0 };
    size_t sizes[8], largest = 0, bufsize;
    char label[32];

    check(MPI_Init(&argc, &argv), "MPI_Init");
    check(MPI_Comm_rank(MPI_COMM_WORLD, &rank), "MPI_Comm_rank");
    bench_name = "mpi_nbc_bench";
    bench_rank = rank;
    check(MPI_Comm_size(MPI_COMM_WORLD, &nprocs), "MPI_Comm_size");
    snprintf(label, sizeof(label), "np%d", nprocs);
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--quick") == 0) {
            quick = 1;
        } else if (strcmp(argv[i], "--label") == 0 && i + 1 < argc) {
            snprintf(label, sizeof(label), "%s", argv[++i]);
        } else if (strcmp(argv[i], "--ops") == 0 && i + 1 < argc) {
            if (parse_list(argv[++i], wanted, NULL, NULL) != 0) {
                MPI_Finalize();
                return 2;
            }
            any = 1;
        } else if (strcmp(argv[i], "--sizes") == 0 && i + 1 < argc) {
            (void)parse_list(argv[++i], wanted, sizes, &nsizes);
        } else if (argv[i][0] != '-') {
            impl = argv[i];
        } else {
            if (rank == 0) {
                fprintf(stderr, "usage: mpirun -np N mpi_nbc_bench NAME "
                        "[--quick] [--label L] [--ops OP,...] "
                        "[--sizes N,...]\n");
            }
            MPI_Finalize();
            return 2;
        }
    }
    if (nsizes == 0) {
        sizes[nsizes++] = 8;
        sizes[nsizes++] = 65536;
    }
    for (int op = 0; op < OP_COUNT; op++) {
        wanted[op] |= !any;
    }
    for (int i = 0; i < nsizes; i++) {
        if (sizes[i] < sizeof(double)) {
            sizes[i] = sizeof(double);
        }
        largest = (sizes[i] > largest) ? sizes[i] : largest;
    }
    bufsize = largest * (size_t)(nprocs > 2 ? nprocs : 2);
    sbuf = calloc(bufsize, 1);
    rbuf = calloc(bufsize, 1);
    counts = calloc((size_t)nprocs, sizeof(int));
    displs = calloc((size_t)nprocs, sizeof(int));
    types = calloc((size_t)(nprocs > 2 ? nprocs : 2), sizeof(MPI_Datatype));
    ncounts = calloc(2, sizeof(int));
    ndispls = calloc(2, sizeof(int));
    nadispls = calloc(2, sizeof(MPI_Aint));
    if (sbuf == NULL || rbuf == NULL || counts == NULL || displs == NULL ||
        types == NULL || ncounts == NULL || ndispls == NULL ||
        nadispls == NULL) {
        fprintf(stderr, "mpi_nbc_bench[%d]: out of memory\n", rank);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    dims[0] = nprocs;
    check(MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &ring),
          "MPI_Cart_create");
    if (wanted[OP_BARRIER]) {
        measure(OP_BARRIER, 8, label, quick);
    }
    for (int op = OP_BARRIER + 1; op < OP_COUNT; op++) {
        for (int i = 0; i < nsizes && wanted[op]; i++) {
            measure((op_t)op, sizes[i], label, quick);
        }
    }
    MPI_Comm_free(&ring);
    free(sbuf);
    free(rbuf);
    free(counts);
    free(displs);
    free(types);
    free(ncounts);
    free(ndispls);
    free(nadispls);
    MPI_Finalize();
    return 0;
}
