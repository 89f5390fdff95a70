/* jacobi.c: 2-D heat equation, Jacobi iteration on a Cartesian process grid.
 *
 * A textbook MPI-1 code: MPI_Dims_create + MPI_Cart_create, neighbours from
 * MPI_Cart_shift, halo rows exchanged as contiguous runs and halo columns
 * through an MPI_Type_vector, all with MPI_Sendrecv (MPI_PROC_NULL at the
 * physical boundary), the residual with MPI_Allreduce(MPI_MAX).
 *
 * Output is exact whatever the MPI: every grid value is computed from the
 * same operands in the same order whatever the decomposition, MPI_MAX of
 * doubles is exact, and the checksum is an integer sum of scaled values.
 * Rank 0 prints everything. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <math.h>

#define NX 24     /* interior rows of the global grid */
#define NY 30     /* interior columns */
#define ITERS 200

#define U(i, j) u[(i) * (ny + 2) + (j)]
#define UN(i, j) un[(i) * (ny + 2) + (j)]

static void block(int n, int parts, int coord, int *start, int *len)
{
    int base = n / parts, rem = n % parts;

    *len = base + (coord < rem ? 1 : 0);
    *start = coord * base + (coord < rem ? coord : rem);
}

int main(int argc, char **argv)
{
    int rank, size, dims[2] = {0, 0}, periods[2] = {0, 0}, coords[2];
    int up, down, left, right, x0, nx, y0, ny, i, j, it, cart_rank;
    MPI_Comm cart;
    MPI_Datatype column;
    double *u, *un, local_res, res = 0.0;
    long long local_sum = 0, sum = 0;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    MPI_Dims_create(size, 2, dims);
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 1, &cart);
    MPI_Comm_rank(cart, &cart_rank);
    MPI_Cart_coords(cart, cart_rank, 2, coords);
    MPI_Cart_shift(cart, 0, 1, &up, &down);
    MPI_Cart_shift(cart, 1, 1, &left, &right);

    block(NX, dims[0], coords[0], &x0, &nx);
    block(NY, dims[1], coords[1], &y0, &ny);

    u = calloc((size_t)(nx + 2) * (ny + 2), sizeof(double));
    un = calloc((size_t)(nx + 2) * (ny + 2), sizeof(double));

    /* Dirichlet boundary: hot top edge, warm right edge, cold elsewhere.
     * The ghost cells on the physical boundary keep these values, since
     * exchanges with MPI_PROC_NULL leave them alone. */
    for (i = 0; i < nx + 2; i++) {
        for (j = 0; j < ny + 2; j++) {
            double v = 0.0;
            if (x0 + i - 1 < 0) {
                v = 100.0;
            } else if (y0 + j - 1 >= NY) {
                v = 50.0;
            }
            U(i, j) = v;
            UN(i, j) = v;
        }
    }

    MPI_Type_vector(nx, 1, ny + 2, MPI_DOUBLE, &column);
    MPI_Type_commit(&column);

    for (it = 0; it < ITERS; it++) {
        double *t;

        MPI_Sendrecv(&U(1, 1), ny, MPI_DOUBLE, up, 1,
                     &U(nx + 1, 1), ny, MPI_DOUBLE, down, 1, cart,
                     MPI_STATUS_IGNORE);
        MPI_Sendrecv(&U(nx, 1), ny, MPI_DOUBLE, down, 2,
                     &U(0, 1), ny, MPI_DOUBLE, up, 2, cart,
                     MPI_STATUS_IGNORE);
        MPI_Sendrecv(&U(1, 1), 1, column, left, 3,
                     &U(1, ny + 1), 1, column, right, 3, cart,
                     MPI_STATUS_IGNORE);
        MPI_Sendrecv(&U(1, ny), 1, column, right, 4,
                     &U(1, 0), 1, column, left, 4, cart,
                     MPI_STATUS_IGNORE);

        local_res = 0.0;
        for (i = 1; i <= nx; i++) {
            for (j = 1; j <= ny; j++) {
                UN(i, j) = 0.25 * (U(i - 1, j) + U(i + 1, j) +
                                   U(i, j - 1) + U(i, j + 1));
                if (fabs(UN(i, j) - U(i, j)) > local_res) {
                    local_res = fabs(UN(i, j) - U(i, j));
                }
            }
        }
        t = u;
        u = un;
        un = t;
        MPI_Allreduce(&local_res, &res, 1, MPI_DOUBLE, MPI_MAX, cart);
        if (cart_rank == 0 && (it + 1) % 50 == 0) {
            printf("iter %4d residual %.12e\n", it + 1, res);
        }
    }

    for (i = 1; i <= nx; i++) {
        for (j = 1; j <= ny; j++) {
            local_sum += (long long)llround(U(i, j) * 1e9);
        }
    }
    MPI_Reduce(&local_sum, &sum, 1, MPI_LONG_LONG, MPI_SUM, 0, cart);

    /* A few probe points, sent by their owners to cart rank 0. */
    {
        static const int probe[4][2] = {{0, 0}, {5, 17}, {12, 29}, {23, 11}};
        int p;
        for (p = 0; p < 4; p++) {
            int gi = probe[p][0], gj = probe[p][1];
            int owner_coords[2] = {0, 0}, owner;
            int ox, onx, oy, ony, c;
            double v = 0.0;

            /* Find the owner block of (gi, gj). */
            for (c = 0; c < dims[0]; c++) {
                block(NX, dims[0], c, &ox, &onx);
                if (gi >= ox && gi < ox + onx) {
                    owner_coords[0] = c;
                }
            }
            for (c = 0; c < dims[1]; c++) {
                block(NY, dims[1], c, &oy, &ony);
                if (gj >= oy && gj < oy + ony) {
                    owner_coords[1] = c;
                }
            }
            MPI_Cart_rank(cart, owner_coords, &owner);
            if (owner == cart_rank) {
                v = U(gi - x0 + 1, gj - y0 + 1);
                if (cart_rank != 0) {
                    MPI_Send(&v, 1, MPI_DOUBLE, 0, 10 + p, cart);
                }
            }
            if (cart_rank == 0) {
                if (owner != 0) {
                    MPI_Recv(&v, 1, MPI_DOUBLE, owner, 10 + p, cart,
                             MPI_STATUS_IGNORE);
                }
                printf("u(%2d,%2d) = %.15e\n", gi, gj, v);
            }
        }
    }

    if (cart_rank == 0) {
        printf("grid %dx%d on %dx%d processes, %d iterations\n", NX, NY,
               dims[0], dims[1], ITERS);
        printf("checksum %lld\n", sum);
    }

    MPI_Type_free(&column);
    MPI_Comm_free(&cart);
    free(u);
    free(un);
    MPI_Finalize();
    return 0;
}
