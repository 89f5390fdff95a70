/*
 * examples/stencil_map.c: a 2-D five-point halo exchange on a Cartesian
 * grid, made twice: with reorder 0 (rank r of the grid is rank r of
 * MPI_COMM_WORLD) and with reorder 1 (gencomm maps the grid onto the
 * hosts, Träff 2003, section 3). For each it prints how many grid edges
 * join processes on different hosts, judged with MPIX_Comm_level as the
 * seed suggests (level 0: the two meet only in the whole job), and the
 * time of one exchange round.
 *
 * Run it on emulated hosts laid out round-robin, where keeping the ranks
 * splits neighbours:
 *
 *     gcrun -n 16 --hosts a,b,a,b,a,b,a,b,a,b,a,b,a,b,a,b examples/stencil_map
 *
 * The 4 x 4 grid then has 12 of its 24 edges between the two hosts with
 * reorder 0 and 4 with reorder 1 (a 2 x 4 half on each host). Add
 * UCX_TLS=tcp,self to make the emulated hosts talk over TCP, as real
 * hosts would. Each process's block moves with its grid rank
 * (MPIX_Comm_map, MPIX_Permute) before the exchange, and every halo
 * received is checked.
 *
 * Options: --rounds N (exchange rounds timed, default 200), --block B
 * (B x B doubles per process, default 64), --quick (5 rounds), --csv IMPL
 * (also print the figures as bench/run's CSV lines, implementation IMPL)
 * and --label L (their benchmark names then say L). Built with
 * another MPI (bench/run builds it with Open MPI), hosts are told apart
 * by MPI_Get_processor_name and the blocks are set up in place.
 */
#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int wrank, wsize;

/* A process's block: B x B values with a ring of halo cells around. */
typedef struct block {
    int     b;
    double *v;          /* (b + 2) x (b + 2), row-major */
} block_t;

static double *cell(block_t *blk, int i, int j)
{
    return &blk->v[(size_t)i * (blk->b + 2) + j];
}

/* Do grid ranks a and b of cart live on different hosts? */
static int other_host(MPI_Comm cart, int a, int b)
{
#ifdef MPIX_CNAME
    int level = 0;

    /* gencomm: the hierarchy says it (level 0: the whole job only). */
    MPIX_Comm_level(cart, a, b, &level);
    return level == 0;
#else
    /* Elsewhere: compare processor names (gathered once by the caller
     * would be cheaper; this example only runs it twice per process). */
    char mine[MPI_MAX_PROCESSOR_NAME], *all;
    int len, n, diff;

    MPI_Comm_size(cart, &n);
    memset(mine, 0, sizeof(mine));
    MPI_Get_processor_name(mine, &len);
    all = malloc((size_t)n * MPI_MAX_PROCESSOR_NAME);
    MPI_Allgather(mine, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, all,
                  MPI_MAX_PROCESSOR_NAME, MPI_CHAR, cart);
    diff = strcmp(all + (size_t)a * MPI_MAX_PROCESSOR_NAME,
                  all + (size_t)b * MPI_MAX_PROCESSOR_NAME) != 0;
    free(all);
    return diff;
#endif
}

/* Grid edges (each counted once, from its lower end) between hosts. */
static int edges_between_hosts(MPI_Comm cart)
{
    int me, d, cut = 0, total = 0;

    MPI_Comm_rank(cart, &me);
    for (d = 0; d < 2; d++) {
        int src, dst, cross;

        MPI_Cart_shift(cart, d, 1, &src, &dst);
#ifdef MPIX_CNAME
        cross = (dst != MPI_PROC_NULL) && other_host(cart, me, dst);
#else
        /* other_host is collective here: every process calls it. */
        cross = other_host(cart, me, dst == MPI_PROC_NULL ? me : dst);
        cross = cross && dst != MPI_PROC_NULL;
#endif
        cut += cross;
    }
    MPI_Allreduce(&cut, &total, 1, MPI_INT, MPI_SUM, cart);
    return total;
}

/* The value a cell of grid rank r holds: r and the cell, so that a halo
 * shows who sent it. */
static double value_of(int r, int i, int j)
{
    return r * 1e6 + i * 1e3 + j;
}

/*
 * Fills the block of grid rank me. With gencomm the block is first made
 * where the data is, at world rank me, and moved to grid rank me (the
 * redistribution of the seed's section 3.2).
 */
static void fill_block(MPI_Comm cart, block_t *blk, int me)
{
    int b = blk->b, i, j;
#ifdef MPIX_CNAME
    int to, from, n = (b + 2) * (b + 2);
    double *mine = malloc((size_t)n * sizeof(double));

    /* My world rank's data: what grid rank wrank holds. */
    for (i = 0; i < b + 2; i++) {
        for (j = 0; j < b + 2; j++) {
            mine[(size_t)i * (b + 2) + j] = value_of(wrank, i, j);
        }
    }
    MPIX_Comm_map(MPI_COMM_WORLD, cart, &to, &from);
    MPIX_Permute(blk->v, n, MPI_DOUBLE, from, mine, n, MPI_DOUBLE, to,
                 MPI_COMM_WORLD);
    free(mine);
    (void)me;
#else
    (void)cart;
    for (i = 0; i < b + 2; i++) {
        for (j = 0; j < b + 2; j++) {
            *cell(blk, i, j) = value_of(me, i, j);
        }
    }
#endif
}

/* One round: rows up and down, columns left and right (a vector type),
 * into the halo ring. */
static void exchange(MPI_Comm cart, block_t *blk, MPI_Datatype column)
{
    int b = blk->b, up, down, left, right;

    MPI_Cart_shift(cart, 0, 1, &up, &down);
    MPI_Cart_shift(cart, 1, 1, &left, &right);
    MPI_Sendrecv(cell(blk, 1, 1), b, MPI_DOUBLE, up, 0, cell(blk, b + 1, 1),
                 b, MPI_DOUBLE, down, 0, cart, MPI_STATUS_IGNORE);
    MPI_Sendrecv(cell(blk, b, 1), b, MPI_DOUBLE, down, 1, cell(blk, 0, 1), b,
                 MPI_DOUBLE, up, 1, cart, MPI_STATUS_IGNORE);
    MPI_Sendrecv(cell(blk, 1, 1), 1, column, left, 2, cell(blk, 1, b + 1), 1,
                 column, right, 2, cart, MPI_STATUS_IGNORE);
    MPI_Sendrecv(cell(blk, 1, b), 1, column, right, 3, cell(blk, 1, 0), 1,
                 column, left, 3, cart, MPI_STATUS_IGNORE);
}

/* Checks the halo against what the neighbours hold; 0 if right. */
static int check_halo(MPI_Comm cart, block_t *blk)
{
    int b = blk->b, up, down, left, right, k, bad = 0;

    MPI_Cart_shift(cart, 0, 1, &up, &down);
    MPI_Cart_shift(cart, 1, 1, &left, &right);
    for (k = 1; k <= b; k++) {
        bad += up != MPI_PROC_NULL && *cell(blk, 0, k) != value_of(up, b, k);
        bad += down != MPI_PROC_NULL &&
               *cell(blk, b + 1, k) != value_of(down, 1, k);
        bad += left != MPI_PROC_NULL &&
               *cell(blk, k, 0) != value_of(left, k, b);
        bad += right != MPI_PROC_NULL &&
               *cell(blk, k, b + 1) != value_of(right, k, 1);
    }
    return bad;
}

/* Builds the grid with reorder, reports it; nonzero on a wrong halo. */
static int run(const int dims[2], int reorder, int b, int rounds,
               const char *csv, const char *label)
{
    int periods[2] = { 0, 0 }, me, cut, bad = 0, total_bad = 0, r;
    double t0, t, tmax;
    MPI_Comm cart;
    MPI_Datatype column;
    block_t blk;

    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, reorder, &cart);
    if (cart == MPI_COMM_NULL) {
        return 0;
    }
    MPI_Comm_rank(cart, &me);
    cut = edges_between_hosts(cart);
    blk.b = b;
    blk.v = calloc((size_t)(b + 2) * (b + 2), sizeof(double));
    fill_block(cart, &blk, me);
    MPI_Type_vector(b, 1, b + 2, MPI_DOUBLE, &column);
    MPI_Type_commit(&column);

    exchange(cart, &blk, column);           /* warm-up, and the check */
    bad = check_halo(cart, &blk);
    MPI_Barrier(cart);
    t0 = MPI_Wtime();
    for (r = 0; r < rounds; r++) {
        exchange(cart, &blk, column);
    }
    t = (MPI_Wtime() - t0) / rounds * 1e6;
    MPI_Allreduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, cart);
    MPI_Allreduce(&bad, &total_bad, 1, MPI_INT, MPI_SUM, cart);
    if (me == 0) {
        printf("reorder %d: %d x %d grid, %d of %d grid edges between "
               "hosts, %.1f us per exchange round (%d x %d doubles per "
               "process)%s\n", reorder, dims[0], dims[1], cut,
               dims[0] * (dims[1] - 1) + dims[1] * (dims[0] - 1), tmax, b, b,
               total_bad ? ", WRONG HALOS" : "");
        if (csv != NULL) {
            printf("halo_%s%sreorder%d,0,%s,%.2f,us\n", label,
                   label[0] ? "_" : "", reorder, csv, tmax);
            printf("halo_cut_%s%sreorder%d,0,%s,%d,edges\n", label,
                   label[0] ? "_" : "", reorder, csv, cut);
        }
    }
    MPI_Type_free(&column);
    free(blk.v);
    MPI_Comm_free(&cart);
    return total_bad;
}

int main(int argc, char **argv)
{
    int dims[2] = { 0, 0 }, rounds = 200, b = 64, i, bad;
    const char *csv = NULL, *label = "";

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    for (i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--rounds") == 0 && i + 1 < argc) {
            rounds = atoi(argv[++i]);
        } else if (strcmp(argv[i], "--block") == 0 && i + 1 < argc) {
            b = atoi(argv[++i]);
        } else if (strcmp(argv[i], "--csv") == 0 && i + 1 < argc) {
            csv = argv[++i];
        } else if (strcmp(argv[i], "--label") == 0 && i + 1 < argc) {
            label = argv[++i];
        } else if (strcmp(argv[i], "--quick") == 0) {
            rounds = 5;
        } else {
            if (wrank == 0) {
                fprintf(stderr, "usage: stencil_map [--rounds N] [--block B] "
                        "[--quick] [--csv IMPL] [--label L]\n");
            }
            MPI_Finalize();
            return 2;
        }
    }
    if (rounds < 1 || b < 1) {
        if (wrank == 0) {
            fprintf(stderr, "stencil_map: --rounds and --block must be "
                    "positive\n");
        }
        MPI_Finalize();
        return 2;
    }
    MPI_Dims_create(wsize, 2, dims);
    bad = run(dims, 0, b, rounds, csv, label);
    bad += run(dims, 1, b, rounds, csv, label);
    MPI_Finalize();
    return bad ? 1 : 0;
}
