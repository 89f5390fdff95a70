/*
 * examples/fox.c: Fox's algorithm for C = A * B, from Pacheco's "A User's
 * Guide to MPI", chapter 5 (communicators and topologies), written against
 * gencomm's MPI layer (compat/mpi.h).
 *
 *     gcrun -n 4 examples/fox        (a 2 x 2 grid, n = 12)
 *     gcrun -n 9 examples/fox 36     (a 3 x 3 grid, n = 36)
 *
 * The p = q * q processes form a q x q grid; process (s, t) owns block
 * (s, t) of A, B and C, each of order n_bar = n / q. At step k, process
 * (s, t) needs A(s, u) with u = (s + k) mod q: the owner of that block
 * broadcasts it along row s. It multiplies it by the B block it holds and
 * adds to its C block, and then the B blocks move one row up (cyclically),
 * so that after q steps C(s, t) = sum over u of A(s, u) * B(u, t).
 *
 * What the example shows:
 * - MPI_Cart_create: the grid as a communicator with a 2-D topology, and
 *   MPI_Cart_coords to find one's place in it;
 * - MPI_Cart_sub: one communicator per row and per column, made in one
 *   call each, which keep a 1-D topology (used with MPI_Cart_shift);
 * - derived datatypes: one block as a single element (MPI_Type_contiguous)
 *   for the broadcasts and shifts, and a block seen inside the whole
 *   matrix (MPI_Type_vector) to gather C into place on rank 0.
 *
 * The matrices hold small integers, so every product and sum is exact in
 * double precision and rank 0 can compare the result with its own serial
 * product bit for bit.
 */
#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Everything a process knows about the grid (Pacheco's GRID_INFO_TYPE). */
typedef struct grid_info {
    int      p;         /* number of processes */
    int      q;         /* order of the grid: p = q * q */
    MPI_Comm comm;      /* the whole grid, with its 2-D topology */
    MPI_Comm row_comm;  /* my row: rank there = my column */
    MPI_Comm col_comm;  /* my column: rank there = my row */
    int      my_row;
    int      my_col;
    int      my_rank;   /* in comm */
} grid_info_t;

/* The global matrices, defined by formula so that each process can make
 * its own blocks without any distribution step. Values in -3..3 and
 * -2..2: sums of n products stay far below 2^53. */
static double a_elem(int i, int j)
{
    return (double)((i + 2 * j) % 7 - 3);
}

static double b_elem(int i, int j)
{
    return (double)((3 * i + j) % 5 - 2);
}

/* The integer square root of p (rounded down). */
static int grid_order(int p)
{
    int q = 1;

    while ((q + 1) * (q + 1) <= p) {
        q++;
    }
    return q;
}

/* Builds the grid and the row and column communicators. */
static void setup_grid(grid_info_t *grid)
{
    int dims[2], periods[2], coords[2], varying[2];

    MPI_Comm_size(MPI_COMM_WORLD, &grid->p);
    grid->q = grid_order(grid->p);

    /* A q x q grid that wraps around in both dimensions: the shift of B
     * along the columns is circular. reorder = 1 lets the library renumber
     * the processes to suit the machine (gencomm keeps the numbering), so
     * from here on only ranks in grid->comm are used. */
    dims[0] = dims[1] = grid->q;
    periods[0] = periods[1] = 1;
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 1, &grid->comm);
    MPI_Comm_rank(grid->comm, &grid->my_rank);
    MPI_Cart_coords(grid->comm, grid->my_rank, 2, coords);
    grid->my_row = coords[0];
    grid->my_col = coords[1];

    /* Rows: keep the column coordinate varying, fix the row. Every
     * process gets the communicator of its own row. */
    varying[0] = 0;
    varying[1] = 1;
    MPI_Cart_sub(grid->comm, varying, &grid->row_comm);
    /* Columns: the other way round. */
    varying[0] = 1;
    varying[1] = 0;
    MPI_Cart_sub(grid->comm, varying, &grid->col_comm);
}

/* c += a * b for n_bar x n_bar blocks stored row by row. */
static void local_multiply(int n_bar, const double *a, const double *b,
                           double *c)
{
    int i, j, k;

    for (i = 0; i < n_bar; i++) {
        for (k = 0; k < n_bar; k++) {
            double aik = a[i * n_bar + k];

            for (j = 0; j < n_bar; j++) {
                c[i * n_bar + j] += aik * b[k * n_bar + j];
            }
        }
    }
}

/*
 * Fox's algorithm: on return local_c holds this process's block of
 * A * B. local_b is shifted around the column and ends where it started
 * (q shifts of one); local_a is not changed. block_type is one whole
 * block.
 */
static void fox(int n_bar, const grid_info_t *grid, double *local_a,
                double *local_b, double *local_c, MPI_Datatype block_type)
{
    double *temp_a = malloc((size_t)n_bar * n_bar * sizeof(double));
    int step, bcast_root, source, dest;

    memset(local_c, 0, (size_t)n_bar * n_bar * sizeof(double));

    /* B moves up one row per step: I send to the row above and receive
     * from the row below. The column communicator has the grid's
     * periodic column as its 1-D topology, so MPI_Cart_shift by -1
     * names both partners, wrapping at the ends. */
    MPI_Cart_shift(grid->col_comm, 0, -1, &source, &dest);

    for (step = 0; step < grid->q; step++) {
        /* The root of row s at this step owns A(s, (s + step) mod q);
         * rank in the row communicator is the column. */
        bcast_root = (grid->my_row + step) % grid->q;
        if (bcast_root == grid->my_col) {
            MPI_Bcast(local_a, 1, block_type, bcast_root, grid->row_comm);
            local_multiply(n_bar, local_a, local_b, local_c);
        } else {
            MPI_Bcast(temp_a, 1, block_type, bcast_root, grid->row_comm);
            local_multiply(n_bar, temp_a, local_b, local_c);
        }
        /* Send my B block up and take the one from below in its place:
         * one call, no deadlock, no second buffer. */
        MPI_Sendrecv_replace(local_b, 1, block_type, dest, 43, source, 43,
                             grid->col_comm, MPI_STATUS_IGNORE);
    }
    free(temp_a);
}

int main(int argc, char **argv)
{
    grid_info_t grid;
    MPI_Datatype block_type, block_in_matrix;
    double *local_a, *local_b, *local_c;
    int n = 12, n_bar, i, j, ok = 1;

    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &grid.p);
    if (argc > 1) {
        n = atoi(argv[1]);
    }
    grid.q = grid_order(grid.p);
    if (grid.q * grid.q != grid.p || n <= 0 || n % grid.q != 0) {
        /* Every process sees the same numbers and stops the same way. */
        MPI_Comm_rank(MPI_COMM_WORLD, &i);
        if (i == 0) {
            fprintf(stderr, "fox: needs a square number of processes "
                    "whose root divides n (p=%d, n=%d)\n", grid.p, n);
        }
        MPI_Finalize();
        return 1;
    }
    setup_grid(&grid);
    n_bar = n / grid.q;

    /* One block as one element: what travels in the broadcasts and the
     * shifts (Pacheco's DERIVED_LOCAL_MATRIX). */
    MPI_Type_contiguous(n_bar * n_bar, MPI_DOUBLE, &block_type);
    MPI_Type_commit(&block_type);

    /* My blocks of A and B: rows my_row * n_bar.., columns my_col *
     * n_bar.. of the global matrices. */
    local_a = malloc((size_t)n_bar * n_bar * sizeof(double));
    local_b = malloc((size_t)n_bar * n_bar * sizeof(double));
    local_c = malloc((size_t)n_bar * n_bar * sizeof(double));
    for (i = 0; i < n_bar; i++) {
        for (j = 0; j < n_bar; j++) {
            local_a[i * n_bar + j] = a_elem(grid.my_row * n_bar + i,
                                            grid.my_col * n_bar + j);
            local_b[i * n_bar + j] = b_elem(grid.my_row * n_bar + i,
                                            grid.my_col * n_bar + j);
        }
    }

    fox(n_bar, &grid, local_a, local_b, local_c, block_type);

    /*
     * Rank 0 collects C. Inside the n x n matrix (row by row) a block is
     * n_bar rows of n_bar doubles, n doubles apart: a vector type. Rank 0
     * receives each block straight into its place; the others send
     * theirs as one contiguous block (the type signatures match: n_bar *
     * n_bar doubles either way).
     */
    MPI_Type_vector(n_bar, n_bar, n, MPI_DOUBLE, &block_in_matrix);
    MPI_Type_commit(&block_in_matrix);
    if (grid.my_rank == 0) {
        double *c = malloc((size_t)n * n * sizeof(double));
        int src, coords[2];

        for (src = 0; src < grid.p; src++) {
            double *at;

            MPI_Cart_coords(grid.comm, src, 2, coords);
            at = c + (size_t)coords[0] * n_bar * n + (size_t)coords[1] * n_bar;
            if (src == 0) {
                for (i = 0; i < n_bar; i++) {
                    memcpy(at + (size_t)i * n, local_c + (size_t)i * n_bar,
                           (size_t)n_bar * sizeof(double));
                }
            } else {
                MPI_Recv(at, 1, block_in_matrix, src, 44, grid.comm,
                         MPI_STATUS_IGNORE);
            }
        }
        /* The serial product, element by element, compared exactly. */
        for (i = 0; i < n && ok; i++) {
            for (j = 0; j < n; j++) {
                double want = 0.0;
                int k;

                for (k = 0; k < n; k++) {
                    want += a_elem(i, k) * b_elem(k, j);
                }
                if (c[(size_t)i * n + j] != want) {
                    printf("fox: FAIL: C[%d][%d] = %g, the serial product "
                           "says %g\n", i, j, c[(size_t)i * n + j], want);
                    ok = 0;
                    break;
                }
            }
        }
        if (ok) {
            printf("fox: n=%d q=%d product matches the serial product\n", n,
                   grid.q);
        }
        free(c);
    } else {
        MPI_Send(local_c, 1, block_type, 0, 44, grid.comm);
    }
    /* Everyone leaves with rank 0's verdict. */
    MPI_Bcast(&ok, 1, MPI_INT, 0, grid.comm);

    MPI_Type_free(&block_in_matrix);
    MPI_Type_free(&block_type);
    MPI_Comm_free(&grid.row_comm);
    MPI_Comm_free(&grid.col_comm);
    MPI_Comm_free(&grid.comm);
    free(local_a);
    free(local_b);
    free(local_c);
    MPI_Finalize();
    return ok ? 0 : 1;
}
