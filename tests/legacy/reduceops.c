/* reduceops.c: the reductions a statistics or linear-algebra code leans on.
 *
 * MPI_MAXLOC/MPI_MINLOC on MPI_DOUBLE_INT and MPI_2INT (ties go to the
 * lowest index), a user-defined non-commutative operation (2x2 integer
 * matrix product mod a prime, which must be applied in rank order), a
 * commutative user op on a struct type, MPI_IN_PLACE in MPI_Allreduce,
 * MPI_Reduce, MPI_Gather and MPI_Scan, MPI_Reduce_scatter, MPI_Allgatherv,
 * bitwise and logical ops, MPI_Cart_sub row/column sums, MPI_Graph_create
 * neighbours, and MPI_Comm_split with MPI_UNDEFINED. Rank 0 prints. */
#include <mpi.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#define P 1000003

struct stat {
    int count;
    int min;
    int max;
    long long sum;
};

/* Non-commutative: inout = in * inout (in comes from lower ranks). */
static void matmul2(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    int *a = in, *b = inout, i;

    for (i = 0; i < *len; i++, a += 4, b += 4) {
        long long c0 = ((long long)a[0] * b[0] + (long long)a[1] * b[2]) % P;
        long long c1 = ((long long)a[0] * b[1] + (long long)a[1] * b[3]) % P;
        long long c2 = ((long long)a[2] * b[0] + (long long)a[3] * b[2]) % P;
        long long c3 = ((long long)a[2] * b[1] + (long long)a[3] * b[3]) % P;
        b[0] = (int)c0;
        b[1] = (int)c1;
        b[2] = (int)c2;
        b[3] = (int)c3;
    }
}

static void merge_stats(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    struct stat *a = in, *b = inout;
    int i;

    for (i = 0; i < *len; i++) {
        b[i].count += a[i].count;
        b[i].min = a[i].min < b[i].min ? a[i].min : b[i].min;
        b[i].max = a[i].max > b[i].max ? a[i].max : b[i].max;
        b[i].sum += a[i].sum;
    }
}

int main(int argc, char **argv)
{
    int rank, size, i;
    struct {
        double val;
        int idx;
    } dmine, dmax, dmin;
    int imine[2], imax[2];
    int mat[4], prod[4];
    MPI_Op op_mat, op_stat;
    MPI_Datatype mat_type, stat_type;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    /* MAXLOC/MINLOC: values with ties (rank % 3 pattern). */
    dmine.val = (double)((rank * 5) % 3) - 0.5;
    dmine.idx = rank;
    MPI_Reduce(&dmine, &dmax, 1, MPI_DOUBLE_INT, MPI_MAXLOC, 0,
               MPI_COMM_WORLD);
    MPI_Allreduce(&dmine, &dmin, 1, MPI_DOUBLE_INT, MPI_MINLOC,
                  MPI_COMM_WORLD);
    imine[0] = 10 - (rank % 2);
    imine[1] = 100 + rank;
    MPI_Allreduce(imine, imax, 1, MPI_2INT, MPI_MAXLOC, MPI_COMM_WORLD);
    if (rank == 0) {
        printf("maxloc %.1f at %d, minloc %.1f at %d, 2int maxloc %d at %d\n",
               dmax.val, dmax.idx, dmin.val, dmin.idx, imax[0], imax[1]);
    }

    /* Non-commutative product of per-rank matrices, in rank order. */
    MPI_Type_contiguous(4, MPI_INT, &mat_type);
    MPI_Type_commit(&mat_type);
    MPI_Op_create(matmul2, 0, &op_mat);
    mat[0] = rank + 1;
    mat[1] = 2;
    mat[2] = rank * rank;
    mat[3] = 3 + rank;
    MPI_Reduce(mat, prod, 1, mat_type, op_mat, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        printf("ordered product %d %d %d %d\n", prod[0], prod[1], prod[2],
               prod[3]);
    }
    MPI_Scan(mat, prod, 1, mat_type, op_mat, MPI_COMM_WORLD);
    {
        int *all = NULL;
        if (rank == 0) {
            all = malloc(sizeof(int) * 4 * size);
        }
        MPI_Gather(prod, 4, MPI_INT, all, 4, MPI_INT, 0, MPI_COMM_WORLD);
        if (rank == 0) {
            for (i = 0; i < size; i++) {
                printf("prefix product %d: %d %d %d %d\n", i, all[4 * i],
                       all[4 * i + 1], all[4 * i + 2], all[4 * i + 3]);
            }
            free(all);
        }
    }

    /* Commutative op on a struct type (two ints and a long long). */
    {
        struct stat st, total;
        int bl[2] = {3, 1};
        MPI_Aint disp[2] = {offsetof(struct stat, count),
                            offsetof(struct stat, sum)};
        MPI_Datatype types[2] = {MPI_INT, MPI_LONG_LONG}, t;

        MPI_Type_create_struct(2, bl, disp, types, &t);
        MPI_Type_create_resized(t, 0, sizeof(struct stat), &stat_type);
        MPI_Type_commit(&stat_type);
        MPI_Type_free(&t);
        MPI_Op_create(merge_stats, 1, &op_stat);
        st.count = rank + 1;
        st.min = 50 - 7 * rank;
        st.max = 3 * rank * rank;
        st.sum = 1000000000LL * rank + 17;
        MPI_Allreduce(&st, &total, 1, stat_type, op_stat, MPI_COMM_WORLD);
        if (rank == 0) {
            printf("stats count %d min %d max %d sum %lld\n", total.count,
                   total.min, total.max, total.sum);
        }
        MPI_Op_free(&op_stat);
        MPI_Type_free(&stat_type);
    }

    /* MPI_IN_PLACE. */
    {
        int v[3] = {rank, rank * 2, 7}, w[3] = {rank + 1, 1, 2};
        int *g = malloc(sizeof(int) * size);
        int sc = rank + 1;

        MPI_Allreduce(MPI_IN_PLACE, v, 3, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        if (rank == 0) {
            MPI_Reduce(MPI_IN_PLACE, w, 3, MPI_INT, MPI_PROD, 0,
                       MPI_COMM_WORLD);
        } else {
            MPI_Reduce(w, NULL, 3, MPI_INT, MPI_PROD, 0, MPI_COMM_WORLD);
        }
        g[rank] = rank * 11;
        if (rank == 0) {
            MPI_Gather(MPI_IN_PLACE, 1, MPI_INT, g, 1, MPI_INT, 0,
                       MPI_COMM_WORLD);
        } else {
            MPI_Gather(&g[rank], 1, MPI_INT, NULL, 1, MPI_INT, 0,
                       MPI_COMM_WORLD);
        }
        MPI_Scan(MPI_IN_PLACE, &sc, 1, MPI_INT, MPI_PROD, MPI_COMM_WORLD);
        MPI_Allreduce(MPI_IN_PLACE, &sc, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
        if (rank == 0) {
            printf("in place: allreduce %d %d %d reduce %d %d %d gather",
                   v[0], v[1], v[2], w[0], w[1], w[2]);
            for (i = 0; i < size; i++) {
                printf(" %d", g[i]);
            }
            printf(" scan-max %d\n", sc);
        }
        free(g);
    }

    /* Bitwise and logical. */
    {
        unsigned int bits = 1u << rank, band, bor, bxor;
        int flag = rank != 1, land, lor, lxor;

        MPI_Allreduce(&bits, &bor, 1, MPI_UNSIGNED, MPI_BOR, MPI_COMM_WORLD);
        bits |= 0xf0;
        MPI_Allreduce(&bits, &band, 1, MPI_UNSIGNED, MPI_BAND,
                      MPI_COMM_WORLD);
        MPI_Allreduce(&bits, &bxor, 1, MPI_UNSIGNED, MPI_BXOR,
                      MPI_COMM_WORLD);
        MPI_Allreduce(&flag, &land, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
        MPI_Allreduce(&flag, &lor, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD);
        MPI_Allreduce(&flag, &lxor, 1, MPI_INT, MPI_LXOR, MPI_COMM_WORLD);
        if (rank == 0) {
            printf("bits or %#x and %#x xor %#x; logical and %d or %d "
                   "xor %d\n", bor, band, bxor, land, lor, lxor);
        }
    }

    /* Reduce_scatter: rank r gets the sum of block r (r + 1 elements). */
    {
        int *counts = malloc(sizeof(int) * size), n = 0, *in, *out;
        int *all = NULL, *displs = NULL, *rc = NULL;
        for (i = 0; i < size; i++) {
            counts[i] = i + 1;
            n += i + 1;
        }
        in = malloc(sizeof(int) * n);
        out = malloc(sizeof(int) * (rank + 1));
        for (i = 0; i < n; i++) {
            in[i] = i * (rank + 1);
        }
        MPI_Reduce_scatter(in, out, counts, MPI_INT, MPI_SUM,
                           MPI_COMM_WORLD);
        all = malloc(sizeof(int) * n);
        displs = malloc(sizeof(int) * size);
        rc = malloc(sizeof(int) * size);
        for (i = 0; i < size; i++) {
            rc[i] = i + 1;
            displs[i] = (i == 0) ? 0 : displs[i - 1] + rc[i - 1];
        }
        /* Reassemble everywhere, back to front (displacements reversed). */
        for (i = 0; i < size; i++) {
            displs[i] = n - displs[i] - rc[i];
        }
        MPI_Allgatherv(out, rank + 1, MPI_INT, all, rc, displs, MPI_INT,
                       MPI_COMM_WORLD);
        if (rank == size - 1) {
            long long chk = 0;
            for (i = 0; i < n; i++) {
                chk = chk * 31 + all[i];
            }
            MPI_Send(&chk, 1, MPI_LONG_LONG, 0, 1, MPI_COMM_WORLD);
        }
        if (rank == 0) {
            long long chk;
            MPI_Recv(&chk, 1, MPI_LONG_LONG, size - 1, 1, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
            printf("reduce_scatter+allgatherv: n %d first %d last %d "
                   "hash %lld\n", n, all[0], all[n - 1], chk);
        }
        free(counts);
        free(in);
        free(out);
        free(all);
        free(displs);
        free(rc);
    }

    /* Cartesian sub-grids: row and column sums of rank numbers. */
    {
        int dims[2] = {0, 0}, periods[2] = {1, 0}, keep[2], rs, cs, cr;
        int c[2], line[3];
        MPI_Comm cart, rowc, colc;
        MPI_Dims_create(size, 2, dims);
        MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart);
        MPI_Comm_rank(cart, &cr);
        MPI_Cart_coords(cart, cr, 2, c);
        keep[0] = 0;
        keep[1] = 1;
        MPI_Cart_sub(cart, keep, &rowc);
        keep[0] = 1;
        keep[1] = 0;
        MPI_Cart_sub(cart, keep, &colc);
        MPI_Allreduce(&cr, &rs, 1, MPI_INT, MPI_SUM, rowc);
        MPI_Allreduce(&cr, &cs, 1, MPI_INT, MPI_SUM, colc);
        line[0] = cr;
        line[1] = rs;
        line[2] = cs;
        {
            int *all = NULL;
            if (rank == 0) {
                all = malloc(sizeof(int) * 3 * size);
            }
            MPI_Gather(line, 3, MPI_INT, all, 3, MPI_INT, 0, MPI_COMM_WORLD);
            if (rank == 0) {
                printf("cart %dx%d:", dims[0], dims[1]);
                for (i = 0; i < size; i++) {
                    printf(" [%d row %d col %d]", all[3 * i], all[3 * i + 1],
                           all[3 * i + 2]);
                }
                printf("\n");
                free(all);
            }
        }
        MPI_Comm_free(&rowc);
        MPI_Comm_free(&colc);
        MPI_Comm_free(&cart);
    }

    /* A star graph: node 0 linked to everyone. */
    {
        int *index = malloc(sizeof(int) * size);
        int *edges = malloc(sizeof(int) * 2 * size + 1);
        int ne = 0, nn, nb[64], gsum = 0, mine;
        MPI_Comm g;
        for (i = 0; i < size; i++) {
            if (i == 0) {
                int j;
                for (j = 1; j < size; j++) {
                    edges[ne++] = j;
                }
            } else {
                edges[ne++] = 0;
            }
            index[i] = ne;
        }
        MPI_Graph_create(MPI_COMM_WORLD, size, index, edges, 0, &g);
        MPI_Graph_neighbors_count(g, rank, &nn);
        MPI_Graph_neighbors(g, rank, 64, nb);
        mine = nn * 10 + (nn > 0 ? nb[nn - 1] : 0);
        MPI_Reduce(&mine, &gsum, 1, MPI_INT, MPI_SUM, 0, g);
        if (rank == 0) {
            printf("graph star: neighbour code sum %d\n", gsum);
        }
        MPI_Comm_free(&g);
        free(index);
        free(edges);
    }

    /* Split with MPI_UNDEFINED: only ranks divisible by 3 join. */
    {
        MPI_Comm sub;
        int in = 0, ssize = 0;
        MPI_Comm_split(MPI_COMM_WORLD, rank % 3 == 0 ? 1 : MPI_UNDEFINED,
                       -rank, &sub);
        if (sub != MPI_COMM_NULL) {
            int srank;
            MPI_Comm_rank(sub, &srank);
            MPI_Comm_size(sub, &ssize);
            in = srank * 100 + ssize;
            MPI_Comm_free(&sub);
        } else {
            in = -1;
        }
        {
            int *all = NULL;
            if (rank == 0) {
                all = malloc(sizeof(int) * size);
            }
            MPI_Gather(&in, 1, MPI_INT, all, 1, MPI_INT, 0, MPI_COMM_WORLD);
            if (rank == 0) {
                printf("split undefined:");
                for (i = 0; i < size; i++) {
                    printf(" %d", all[i]);
                }
                printf("\n");
                free(all);
            }
        }
    }

    MPI_Op_free(&op_mat);
    MPI_Type_free(&mat_type);
    MPI_Finalize();
    return 0;
}
