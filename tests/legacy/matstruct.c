/* matstruct.c: arrays of structs and matrices through derived datatypes.
 *
 * 1. An array of particle structs described by MPI_Type_create_struct,
 *    resized to sizeof(struct particle) so that counts step over whole
 *    elements (padding included), is scattered from rank 0, updated, and
 *    gathered back (MPI_Scatter/MPI_Gather).
 * 2. Integer matrix product C = A * B: rows of A spread with MPI_Scatterv,
 *    B broadcast, rows of C collected with MPI_Gatherv.
 * 3. Transpose on rank 0 through a column type (MPI_Type_vector resized to
 *    one int) sent to itself with MPI_Sendrecv, and a distributed
 *    transpose with MPI_Alltoall of blocks.
 * All values are integers or exactly representable; rank 0 prints. */
#include <mpi.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PER_RANK 3
#define N 10 /* matrix order for the product */

struct particle {
    char tag[3];
    int id;
    double mass;
    short charge;
    double pos[3];
};

static MPI_Datatype particle_type(void)
{
    struct particle p;
    int blocklens[5] = {3, 1, 1, 1, 3};
    MPI_Aint base, disp[5];
    MPI_Datatype types[5] = {MPI_CHAR, MPI_INT, MPI_DOUBLE, MPI_SHORT,
                             MPI_DOUBLE};
    MPI_Datatype t, resized;
    int i;

    MPI_Get_address(&p, &base);
    MPI_Get_address(&p.tag[0], &disp[0]);
    MPI_Get_address(&p.id, &disp[1]);
    MPI_Get_address(&p.mass, &disp[2]);
    MPI_Get_address(&p.charge, &disp[3]);
    MPI_Get_address(&p.pos[0], &disp[4]);
    for (i = 0; i < 5; i++) {
        disp[i] -= base;
    }
    MPI_Type_create_struct(5, blocklens, disp, types, &t);
    MPI_Type_create_resized(t, 0, sizeof(struct particle), &resized);
    MPI_Type_commit(&resized);
    MPI_Type_free(&t);
    return resized;
}

static void particles(int rank, int size, MPI_Datatype ptype)
{
    struct particle *all = NULL, mine[PER_RANK];
    int i, k;

    if (rank == 0) {
        all = malloc(sizeof(*all) * PER_RANK * size);
        memset(all, 0x5a, sizeof(*all) * PER_RANK * size);
        for (i = 0; i < PER_RANK * size; i++) {
            all[i].tag[0] = (char)('A' + i % 26);
            all[i].tag[1] = (char)('a' + (i * 7) % 26);
            all[i].tag[2] = '\0';
            all[i].id = 100 + i;
            all[i].mass = 0.5 * (i + 1);
            all[i].charge = (short)(i % 3 - 1);
            for (k = 0; k < 3; k++) {
                all[i].pos[k] = 0.25 * (i * 3 + k);
            }
        }
    }
    MPI_Scatter(all, PER_RANK, ptype, mine, PER_RANK, ptype, 0,
                MPI_COMM_WORLD);
    for (i = 0; i < PER_RANK; i++) {
        mine[i].tag[1] = (char)('0' + rank % 10);
        mine[i].id += 1000 * rank;
        mine[i].mass *= 2.0;
        mine[i].charge = (short)(mine[i].charge * -3);
        for (k = 0; k < 3; k++) {
            mine[i].pos[k] += (double)rank;
        }
    }
    MPI_Gather(mine, PER_RANK, ptype, all, PER_RANK, ptype, 0,
               MPI_COMM_WORLD);
    if (rank == 0) {
        for (i = 0; i < PER_RANK * size; i++) {
            printf("particle %2d %s id %5d mass %5.2f charge %2d "
                   "pos %6.2f %6.2f %6.2f\n",
                   i, all[i].tag, all[i].id, all[i].mass, all[i].charge,
                   all[i].pos[0], all[i].pos[1], all[i].pos[2]);
        }
        free(all);
    }
}

static void matmul(int rank, int size)
{
    int a[N * N], b[N * N], c[N * N], *rows, *crow, counts[64], displs[64];
    int i, j, k, myrows, first = 0;
    long long trace = 0, total = 0;

    for (i = 0; i < size; i++) {
        int r = N / size + (i < N % size ? 1 : 0);
        counts[i] = r * N;
        displs[i] = first;
        first += r * N;
    }
    myrows = counts[rank] / N;
    if (rank == 0) {
        for (i = 0; i < N * N; i++) {
            a[i] = (i * 7) % 11 - 5;
            b[i] = (i * 5 + 3) % 13 - 6;
        }
    }
    rows = malloc(sizeof(int) * (myrows > 0 ? myrows : 1) * N);
    crow = malloc(sizeof(int) * (myrows > 0 ? myrows : 1) * N);
    MPI_Scatterv(a, counts, displs, MPI_INT, rows, counts[rank], MPI_INT, 0,
                 MPI_COMM_WORLD);
    MPI_Bcast(b, N * N, MPI_INT, 0, MPI_COMM_WORLD);
    for (i = 0; i < myrows; i++) {
        for (j = 0; j < N; j++) {
            int s = 0;
            for (k = 0; k < N; k++) {
                s += rows[i * N + k] * b[k * N + j];
            }
            crow[i * N + j] = s;
        }
    }
    MPI_Gatherv(crow, counts[rank], MPI_INT, c, counts, displs, MPI_INT, 0,
                MPI_COMM_WORLD);
    if (rank == 0) {
        for (i = 0; i < N; i++) {
            trace += c[i * N + i];
            for (j = 0; j < N; j++) {
                total += (long long)c[i * N + j] * (i + 2 * j + 1);
            }
        }
        printf("matmul %dx%d rows per rank:", N, N);
        for (i = 0; i < size; i++) {
            printf(" %d", counts[i] / N);
        }
        printf("\nC trace %lld weighted sum %lld\nC row 3:", trace, total);
        for (j = 0; j < N; j++) {
            printf(" %d", c[3 * N + j]);
        }
        printf("\n");
    }
    free(rows);
    free(crow);
}

static void transpose(int rank, int size)
{
    /* Local: the column type, resized to one int, walks the columns. */
    if (rank == 0) {
        int m[4 * 6], t[6 * 4], i;
        MPI_Datatype col, col1;

        for (i = 0; i < 24; i++) {
            m[i] = i * i;
        }
        MPI_Type_vector(4, 1, 6, MPI_INT, &col);
        MPI_Type_create_resized(col, 0, sizeof(int), &col1);
        MPI_Type_commit(&col1);
        MPI_Sendrecv(m, 6, col1, 0, 7, t, 24, MPI_INT, 0, 7, MPI_COMM_SELF,
                     MPI_STATUS_IGNORE);
        printf("local transpose row 0:");
        for (i = 0; i < 4; i++) {
            printf(" %d", t[i]);
        }
        printf(" row 5:");
        for (i = 20; i < 24; i++) {
            printf(" %d", t[i]);
        }
        printf("\n");
        MPI_Type_free(&col);
        MPI_Type_free(&col1);
    }

    /* Distributed: a (2*size) x (2*size) matrix in row blocks of two rows;
     * block (r, s) goes to rank s, which transposes each block locally. */
    {
        int n = 2 * size, i, j, p;
        int *mine = malloc(sizeof(int) * 2 * n);
        int *recv = malloc(sizeof(int) * 2 * n);
        int *sendbuf = malloc(sizeof(int) * 2 * n);
        int *out = malloc(sizeof(int) * 2 * n);
        int *whole = NULL;

        for (i = 0; i < 2; i++) {
            for (j = 0; j < n; j++) {
                mine[i * n + j] = (2 * rank + i) * 100 + j;
            }
        }
        /* Pack block s (rows 0-1, columns 2s, 2s+1) contiguously. */
        for (p = 0; p < size; p++) {
            for (i = 0; i < 2; i++) {
                for (j = 0; j < 2; j++) {
                    sendbuf[p * 4 + i * 2 + j] = mine[i * n + 2 * p + j];
                }
            }
        }
        MPI_Alltoall(sendbuf, 4, MPI_INT, recv, 4, MPI_INT, MPI_COMM_WORLD);
        /* Block from rank p holds A[2p..2p+1][2r..2r+1]; its transpose is
         * columns 2p..2p+1 of our rows of A^T. */
        for (p = 0; p < size; p++) {
            for (i = 0; i < 2; i++) {
                for (j = 0; j < 2; j++) {
                    out[i * n + 2 * p + j] = recv[p * 4 + j * 2 + i];
                }
            }
        }
        if (rank == 0) {
            whole = malloc(sizeof(int) * n * n);
        }
        MPI_Gather(out, 2 * n, MPI_INT, whole, 2 * n, MPI_INT, 0,
                   MPI_COMM_WORLD);
        if (rank == 0) {
            int bad = 0;
            for (i = 0; i < n; i++) {
                for (j = 0; j < n; j++) {
                    if (whole[i * n + j] != j * 100 + i) {
                        bad++;
                    }
                }
            }
            printf("distributed transpose %dx%d: %d wrong, last row:", n, n,
                   bad);
            for (j = 0; j < n; j++) {
                printf(" %d", whole[(n - 1) * n + j]);
            }
            printf("\n");
            free(whole);
        }
        free(mine);
        free(recv);
        free(sendbuf);
        free(out);
    }
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Datatype ptype;
    MPI_Aint lb, extent;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size > 64) {
        MPI_Abort(MPI_COMM_WORLD, 1);
    }

    ptype = particle_type();
    MPI_Type_get_extent(ptype, &lb, &extent);
    if (rank == 0) {
        int tsize;
        MPI_Type_size(ptype, &tsize);
        printf("particle type size %d extent matches struct: %s\n", tsize,
               extent == (MPI_Aint)sizeof(struct particle) ? "yes" : "no");
    }
    particles(rank, size, ptype);
    MPI_Type_free(&ptype);
    matmul(rank, size);
    transpose(rank, size);
    MPI_Finalize();
    return 0;
}
