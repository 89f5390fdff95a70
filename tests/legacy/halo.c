/* halo.c: a 2-D heat-diffusion stencil whose halo exchange is one-sided,
 * as in the textbook codes that moved from Sendrecv to MPI_Put.
 *
 * The grid of N x N points is split into row blocks, one per rank, each
 * with a ghost row above and below, in a window (MPI_Win_create over the
 * block). Each step every rank puts its first and last rows into its
 * neighbours' ghost rows, then does a Jacobi sweep. The first half of the
 * steps synchronizes with MPI_Win_fence, the second half with
 * post/start/complete/wait towards the neighbours only, with an
 * MPI_Type_vector of every other point for the odd steps' puts (then the
 * even points are put separately). Rank 0 prints the grid's sum and a few
 * points every few steps, gathered (the arithmetic is the same whatever
 * moved the rows). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define N 48
#define STEPS 40

/* Rows of rank r's block. */
static int rows_of(int r, int size)
{
    return N / size + (r < N % size);
}

int main(int argc, char **argv)
{
    int rank, size, rows, first, up, down, step, i, j, nn;
    MPI_Aint below_up = 0;
    double *u, *v, sum, total, corner[3];
    MPI_Win win;
    MPI_Group world, nbrs;
    MPI_Datatype every_other;
    int ranks[2];

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    rows = rows_of(rank, size);
    first = rank * (N / size) + ((rank < N % size) ? rank : N % size);
    up = (rank > 0) ? rank - 1 : MPI_PROC_NULL;
    if (up != MPI_PROC_NULL) {
        /* The upper neighbour's bottom ghost row. */
        below_up = (MPI_Aint)(rows_of(up, size) + 1) * N;
    }
    down = (rank < size - 1) ? rank + 1 : MPI_PROC_NULL;

    /* rows + 2 rows of N points: ghost, own rows, ghost. */
    u = calloc((size_t)(rows + 2) * N, sizeof(double));
    v = calloc((size_t)(rows + 2) * N, sizeof(double));
    for (i = 1; i <= rows; i++) {
        for (j = 0; j < N; j++) {
            int g = first + i - 1;

            u[i * N + j] = ((g == N / 2) && (j == N / 2)) ? 1000.0 :
                           (double)((g * 7 + j * 3) % 11);
        }
    }
    MPI_Win_create(u, (MPI_Aint)(rows + 2) * N * (MPI_Aint)sizeof(double),
                   sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Type_vector(N / 2, 1, 2, MPI_DOUBLE, &every_other);
    MPI_Type_commit(&every_other);
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    nn = 0;
    if (up != MPI_PROC_NULL) {
        ranks[nn++] = up;
    }
    if (down != MPI_PROC_NULL) {
        ranks[nn++] = down;
    }
    MPI_Group_incl(world, nn, ranks, &nbrs);

    MPI_Win_fence(MPI_MODE_NOPRECEDE, win);
    for (step = 0; step < STEPS; step++) {
        int pscw = (step >= STEPS / 2);

        if (pscw) {
            MPI_Win_post(nbrs, 0, win);
            MPI_Win_start(nbrs, 0, win);
        }
        /* My first row into the upper neighbour's bottom ghost row; my
         * last row into the lower neighbour's top ghost row. */
        if (step % 2) {
            MPI_Put(&u[1 * N], 1, every_other, up, below_up, 1, every_other,
                    win);
            MPI_Put(&u[1 * N + 1], 1, every_other, up, below_up + 1, 1,
                    every_other, win);
            MPI_Put(&u[rows * N], 1, every_other, down, 0, 1, every_other,
                    win);
            MPI_Put(&u[rows * N + 1], 1, every_other, down, 1, 1,
                    every_other, win);
        } else {
            MPI_Put(&u[1 * N], N, MPI_DOUBLE, up, below_up, N, MPI_DOUBLE,
                    win);
            MPI_Put(&u[rows * N], N, MPI_DOUBLE, down, 0, N, MPI_DOUBLE,
                    win);
        }
        if (pscw) {
            MPI_Win_complete(win);
            MPI_Win_wait(win);
        } else {
            MPI_Win_fence(0, win);
        }
        for (i = 1; i <= rows; i++) {
            for (j = 0; j < N; j++) {
                double n_ = (i > 1 || up != MPI_PROC_NULL) ?
                            u[(i - 1) * N + j] : u[i * N + j];
                double s_ = (i < rows || down != MPI_PROC_NULL) ?
                            u[(i + 1) * N + j] : u[i * N + j];
                double w_ = (j > 0) ? u[i * N + j - 1] : u[i * N + j];
                double e_ = (j < N - 1) ? u[i * N + j + 1] : u[i * N + j];

                v[i * N + j] = 0.2 * (u[i * N + j] + n_ + s_ + w_ + e_);
            }
        }
        if (!pscw) {
            /* Nobody writes my ghosts before I read them: under PSCW the
             * next step's post says so. */
            MPI_Win_fence(0, win);
        }
        for (i = 1; i <= rows; i++) {
            for (j = 0; j < N; j++) {
                u[i * N + j] = v[i * N + j];
            }
        }
        if ((step + 1) % 10 == 0) {
            sum = 0.0;
            for (i = 1; i <= rows; i++) {
                for (j = 0; j < N; j++) {
                    sum += u[i * N + j];
                }
            }
            MPI_Reduce(&sum, &total, 1, MPI_DOUBLE, MPI_SUM, 0,
                       MPI_COMM_WORLD);
            corner[0] = (first == 0) ? u[1 * N + 0] : 0.0;
            corner[1] = (first <= N / 2 && N / 2 < first + rows) ?
                        u[(N / 2 - first + 1) * N + N / 2] : 0.0;
            corner[2] = (first + rows == N) ? u[rows * N + N - 1] : 0.0;
            MPI_Allreduce(MPI_IN_PLACE, corner, 3, MPI_DOUBLE, MPI_SUM,
                          MPI_COMM_WORLD);
            if (rank == 0) {
                printf("step %2d: sum %.6f corner %.6f centre %.6f "
                       "last %.6f\n", step + 1, total, corner[0], corner[1],
                       corner[2]);
            }
        }
    }
    MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
    MPI_Group_free(&nbrs);
    MPI_Group_free(&world);
    MPI_Type_free(&every_other);
    MPI_Win_free(&win);
    free(u);
    free(v);
    MPI_Finalize();
    return 0;
}
