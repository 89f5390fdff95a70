/*
 * mpi_coll_bench: collective operations, timed as the OSU micro-benchmarks
 * time them, in plain MPI (any MPI builds it unchanged).
 *
 * For each operation and size: warm-up calls, then a number of calls each
 * timed alone with an MPI_Barrier between them (outside the timed region);
 * a rank's figure is its average time per call, and the figure reported is
 * the largest over the ranks (microseconds). Barrier is timed as a loop of
 * barriers, nothing between them. Sizes are per process: what each rank
 * contributes (reduce, allreduce, allgather), what the root sends (bcast),
 * what each rank sends to each other one (alltoall). Reductions sum
 * doubles (MPI_DOUBLE, MPI_SUM); the rest move MPI_BYTE. Roots are rank 0.
 *
 * How many calls are timed is agreed by the ranks from the time of a few
 * warm-up calls: as many as fit in about COLL_BUDGET_S seconds, between
 * MIN_ITERS and 10000 (1000 from 64 KiB up), so that an MPI that takes
 * milliseconds per call on an oversubscribed machine still ends soon.
 *
 * Output, one line per measurement, on rank 0's stdout:
 *     benchmark,size_bytes,implementation,value,unit
 * with benchmark OP_LABEL (OP: barrier, bcast, reduce, allreduce,
 * allgather, alltoall; LABEL npN for N processes unless --label is given)
 * and size 0 for the barrier.
 *
 * Usage: mpirun -np N mpi_coll_bench IMPLEMENTATION_NAME [--quick]
 *            [--label LABEL] [--ops OP,OP,...]
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <mpi.h>

#include "bench_util.h"

/* Seconds of timed calls per operation and size, about. */
#define COLL_BUDGET_S 0.1
#define MIN_ITERS     10
/* Sizes from this one up get fewer calls, as in OSU. */
#define LARGE_SIZE    65536

static const size_t sizes[] = { 8, 1024, 65536, 1048576 };

typedef enum {
    OP_BARRIER,
    OP_BCAST,
    OP_REDUCE,
    OP_ALLREDUCE,
    OP_ALLGATHER,
    OP_ALLTOALL,
    OP_COUNT
} op_t;

static const char *op_names[OP_COUNT] = {
    "barrier", "bcast", "reduce", "allreduce", "allgather", "alltoall"
};

static const char *impl = "mpi";
static int rank;
static int nprocs;
static char *sbuf;
static char *rbuf;

/* One call of op with size bytes per process. */
static void run_op(op_t op, size_t size)
{
    int n = (int)size;
    int ndoubles = (int)(size / sizeof(double));

    switch (op) {
    case OP_BARRIER:
        check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
        break;
    case OP_BCAST:
        check(MPI_Bcast(sbuf, n, MPI_BYTE, 0, MPI_COMM_WORLD), "MPI_Bcast");
        break;
    case OP_REDUCE:
        check(MPI_Reduce(sbuf, rbuf, ndoubles, MPI_DOUBLE, MPI_SUM, 0,
                         MPI_COMM_WORLD), "MPI_Reduce");
        break;
    case OP_ALLREDUCE:
        check(MPI_Allreduce(sbuf, rbuf, ndoubles, MPI_DOUBLE, MPI_SUM,
                            MPI_COMM_WORLD), "MPI_Allreduce");
        break;
    case OP_ALLGATHER:
        check(MPI_Allgather(sbuf, n, MPI_BYTE, rbuf, n, MPI_BYTE,
                            MPI_COMM_WORLD), "MPI_Allgather");
        break;
    case OP_ALLTOALL:
        check(MPI_Alltoall(sbuf, n, MPI_BYTE, rbuf, n, MPI_BYTE,
                           MPI_COMM_WORLD), "MPI_Alltoall");
        break;
    default:
        break;
    }
}

/*
 * The number of calls to time: every rank times a few calls, each followed
 * by the barrier the measurement puts between calls (the budget pays for
 * both), the slowest rank's time decides (so all ranks agree), and the
 * count is what fits in the budget.
 */
static int agree_iters(op_t op, size_t size, int quick)
{
    int probe = 3;
    int most = size >= LARGE_SIZE ? 1000 : 10000;
    double t0;
    double mine;
    double slowest;
    double fit;

    if (quick) {
        return 3;
    }
    check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
    t0 = now_s();
    for (int i = 0; i < probe; i++) {
        run_op(op, size);
        if (op != OP_BARRIER) {
            check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
        }
    }
    mine = (now_s() - t0) / probe;
    check(MPI_Allreduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX,
                        MPI_COMM_WORLD), "MPI_Allreduce (probe)");
    fit = slowest > 0.0 ? COLL_BUDGET_S / slowest : most;
    if (fit < MIN_ITERS) {
        return MIN_ITERS;
    }
    return fit > most ? most : (int)fit;
}

static void measure(op_t op, size_t size, const char *label, int quick)
{
    int iters = agree_iters(op, size, quick);
    int warmup = iters / 10 > 0 ? iters / 10 : 1;
    double total = 0.0;
    double mine;
    double slowest;
    char bench[64];

    for (int i = 0; i < warmup; i++) {
        run_op(op, size);
    }
    check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
    if (op == OP_BARRIER) {
        double t0 = now_s();

        for (int i = 0; i < iters; i++) {
            run_op(op, size);
        }
        total = now_s() - t0;
    } else {
        for (int i = 0; i < iters; i++) {
            double t0 = now_s();

            run_op(op, size);
            total += now_s() - t0;
            check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
        }
    }
    mine = total * 1e6 / iters;
    check(MPI_Reduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0,
                     MPI_COMM_WORLD), "MPI_Reduce (result)");
    if (rank == 0) {
        snprintf(bench, sizeof(bench), "%s_%s", op_names[op], label);
        printf("%s,%zu,%s,%.3f,us\n", bench, size, impl, slowest);
        fflush(stdout);
    }
}

/* Sets wanted[op] for each operation named in the comma-separated list;
 * returns -1 on an unknown name. */
static int parse_ops(const char *list, int wanted[OP_COUNT])
{
    char *copy = strdup(list);
    char *save = NULL;

    if (copy == NULL) {
        return -1;
    }
    for (char *tok = strtok_r(copy, ",", &save); tok != NULL;
         tok = strtok_r(NULL, ",", &save)) {
        int found = 0;

        for (int op = 0; op < OP_COUNT; op++) {
            if (strcmp(tok, op_names[op]) == 0) {
                wanted[op] = 1;
                found = 1;
            }
        }
        if (!found) {
            if (rank == 0) {
                fprintf(stderr, "mpi_coll_bench: unknown operation '%s'\n",
                        tok);
            }
            free(copy);
            return -1;
        }
    }
    free(copy);
    return 0;
}

static int usage(void)
{
    if (rank == 0) {
        fprintf(stderr, "usage: mpirun -np N mpi_coll_bench NAME [--quick] "
                        "[--label LABEL] [--ops OP,...]\n");
    }
    MPI_Finalize();
    return 2;
}

int main(int argc, char **argv)
{
    int quick = 0;
    int wanted[OP_COUNT] = { 0 };
    int any = 0;
    char label[32];
    size_t largest = sizes[NELEMS(sizes) - 1];
    size_t buf_size;

    check(MPI_Init(&argc, &argv), "MPI_Init");
    check(MPI_Comm_rank(MPI_COMM_WORLD, &rank), "MPI_Comm_rank");
    bench_name = "mpi_coll_bench";
    bench_rank = rank;
    check(MPI_Comm_size(MPI_COMM_WORLD, &nprocs), "MPI_Comm_size");
    snprintf(label, sizeof(label), "np%d", nprocs);
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--quick") == 0) {
            quick = 1;
        } else if (strcmp(argv[i], "--label") == 0 && i + 1 < argc) {
            snprintf(label, sizeof(label), "%s", argv[++i]);
        } else if (strcmp(argv[i], "--ops") == 0 && i + 1 < argc) {
            if (parse_ops(argv[++i], wanted) != 0) {
                return usage();
            }
            any = 1;
        } else if (argv[i][0] != '-') {
            impl = argv[i];
        } else {
            return usage();
        }
    }
    if (!any) {
        for (int op = 0; op < OP_COUNT; op++) {
            wanted[op] = 1;
        }
    }

    /* Alltoall and allgather need a block per process. */
    buf_size = largest * (size_t)nprocs;
    sbuf = malloc(buf_size);
    rbuf = malloc(buf_size);
    if (sbuf == NULL || rbuf == NULL) {
        fprintf(stderr, "mpi_coll_bench[%d]: out of memory\n", rank);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    /* Fault the pages in now; zeros are valid doubles to sum. */
    memset(sbuf, 0, buf_size);
    memset(rbuf, 0, buf_size);

    check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
    if (wanted[OP_BARRIER]) {
        measure(OP_BARRIER, 0, label, quick);
    }
    for (int op = OP_BARRIER + 1; op < OP_COUNT; op++) {
        if (!wanted[op]) {
            continue;
        }
        for (size_t i = 0; i < NELEMS(sizes); i++) {
            measure((op_t)op, sizes[i], label, quick);
        }
    }

    free(sbuf);
    free(rbuf);
    MPI_Finalize();
    return 0;
}
