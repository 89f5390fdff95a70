/* samplesort.c: parallel sample sort of pseudo-random integers.
 *
 * Each rank draws its keys from its own linear congruential generator,
 * sorts them, contributes regular samples (MPI_Allgather), all ranks pick
 * the same splitters, the bucket sizes go out with MPI_Alltoall and the keys
 * with MPI_Alltoallv; after a local merge, rank 0 collects every bucket with
 * MPI_Gather + MPI_Gatherv and checks and prints the result. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;

    return (x > y) - (x < y);
}

static unsigned int lcg(unsigned int *state)
{
    *state = *state * 1103515245u + 12345u;
    return (*state >> 8) & 0xfffff;
}

int main(int argc, char **argv)
{
    int rank, size, n, i, j, total_in = 0, nrecv, *keys, *samples, *all,
        *splitters, *scount, *sdispl, *rcount, *rdispl, *bucket, *sizes = NULL,
        *displs = NULL, *sorted = NULL;
    unsigned int state;
    long long checksum = 0, all_checksum = 0;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    n = 200 + 37 * rank;
    keys = malloc(n * sizeof(int));
    state = 12345u + 977u * (unsigned int)rank;
    for (i = 0; i < n; i++) {
        keys[i] = (int)lcg(&state) - 500000;
        checksum += keys[i];
    }
    qsort(keys, n, sizeof(int), cmp_int);

    /* size - 1 regular samples per rank, then size - 1 splitters. */
    samples = malloc(size * sizeof(int));
    all = malloc(size * size * sizeof(int));
    splitters = malloc(size * sizeof(int));
    for (i = 0; i < size - 1; i++) {
        samples[i] = keys[(i + 1) * n / size];
    }
    MPI_Allgather(samples, size - 1, MPI_INT, all, size - 1, MPI_INT,
                  MPI_COMM_WORLD);
    qsort(all, (size_t)size * (size - 1), sizeof(int), cmp_int);
    for (i = 0; i < size - 1; i++) {
        splitters[i] = all[(i + 1) * (size - 1) - 1];
    }

    scount = calloc(size, sizeof(int));
    sdispl = calloc(size, sizeof(int));
    rcount = calloc(size, sizeof(int));
    rdispl = calloc(size, sizeof(int));
    for (i = 0, j = 0; i < n; i++) {
        while (j < size - 1 && keys[i] > splitters[j]) {
            j++;
        }
        scount[j]++;
    }
    for (i = 1; i < size; i++) {
        sdispl[i] = sdispl[i - 1] + scount[i - 1];
    }
    MPI_Alltoall(scount, 1, MPI_INT, rcount, 1, MPI_INT, MPI_COMM_WORLD);
    nrecv = 0;
    for (i = 0; i < size; i++) {
        rdispl[i] = nrecv;
        nrecv += rcount[i];
    }
    bucket = malloc((nrecv > 0 ? nrecv : 1) * sizeof(int));
    MPI_Alltoallv(keys, scount, sdispl, MPI_INT, bucket, rcount, rdispl,
                  MPI_INT, MPI_COMM_WORLD);
    qsort(bucket, nrecv, sizeof(int), cmp_int);

    if (rank == 0) {
        sizes = malloc(size * sizeof(int));
        displs = malloc(size * sizeof(int));
    }
    MPI_Gather(&nrecv, 1, MPI_INT, sizes, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        for (i = 0; i < size; i++) {
            displs[i] = total_in;
            total_in += sizes[i];
        }
        sorted = malloc(total_in * sizeof(int));
    }
    MPI_Gatherv(bucket, nrecv, MPI_INT, sorted, sizes, displs, MPI_INT, 0,
                MPI_COMM_WORLD);
    MPI_Reduce(&checksum, &all_checksum, 1, MPI_LONG_LONG, MPI_SUM, 0,
               MPI_COMM_WORLD);

    if (rank == 0) {
        long long sum = 0, weighted = 0;
        int ok = 1;

        for (i = 0; i < total_in; i++) {
            sum += sorted[i];
            weighted += (long long)(i % 97) * sorted[i];
            if (i > 0 && sorted[i - 1] > sorted[i]) {
                ok = 0;
            }
        }
        printf("processes %d keys %d sorted %s\n", size, total_in,
               ok ? "yes" : "NO");
        printf("bucket sizes:");
        for (i = 0; i < size; i++) {
            printf(" %d", sizes[i]);
        }
        printf("\nsplitters:");
        for (i = 0; i < size - 1; i++) {
            printf(" %d", splitters[i]);
        }
        printf("\nchecksum in %lld out %lld weighted %lld\n", all_checksum,
               sum, weighted);
        printf("first:");
        for (i = 0; i < 8 && i < total_in; i++) {
            printf(" %d", sorted[i]);
        }
        printf("\nlast:");
        for (i = total_in - 8; i < total_in; i++) {
            if (i >= 0) {
                printf(" %d", sorted[i]);
            }
        }
        printf("\n");
        free(sorted);
        free(sizes);
        free(displs);
    }

    free(keys);
    free(samples);
    free(all);
    free(splitters);
    free(scount);
    free(sdispl);
    free(rcount);
    free(rdispl);
    free(bucket);
    MPI_Finalize();
    return 0;
}
