/* intercomm.c: two groups (even and odd world ranks) built with
 * MPI_Group_incl/MPI_Group_excl and MPI_Comm_create, joined by
 * MPI_Intercomm_create, talking point-to-point across the intercommunicator
 * (a coupled "ocean" and "atmosphere" in the usual story), then merged.
 * Needs at least 2 processes. Results go to world rank 0, which prints. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define LINE 200

int main(int argc, char **argv)
{
    int rank, size, i, neven, *evens, is_even, lrank, lsize, rsize, inter;
    int partner, got[2], sent, result, mrank, msize, cmp, sum_local;
    int allsum = 0;
    char line[LINE], *lines = NULL;
    MPI_Group world_group, even_group, odd_group, my_group, remote_group;
    MPI_Comm even_comm, odd_comm, local, intercomm, merged;
    MPI_Request reqs[3];
    MPI_Status st[3];

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size < 2) {
        if (rank == 0) {
            printf("needs at least 2 processes\n");
        }
        MPI_Finalize();
        return 0;
    }

    neven = (size + 1) / 2;
    evens = malloc(neven * sizeof(int));
    for (i = 0; i < neven; i++) {
        evens[i] = 2 * i;
    }
    MPI_Comm_group(MPI_COMM_WORLD, &world_group);
    MPI_Group_incl(world_group, neven, evens, &even_group);
    MPI_Group_excl(world_group, neven, evens, &odd_group);
    /* MPI_Comm_create is collective over the whole parent: every process
     * calls it for both groups and gets MPI_COMM_NULL where it is not a
     * member. */
    MPI_Comm_create(MPI_COMM_WORLD, even_group, &even_comm);
    MPI_Comm_create(MPI_COMM_WORLD, odd_group, &odd_comm);
    is_even = rank % 2 == 0;
    local = is_even ? even_comm : odd_comm;
    if ((is_even ? odd_comm : even_comm) != MPI_COMM_NULL) {
        printf("rank %d: got a communicator for the other group\n", rank);
    }
    MPI_Comm_group(local, &my_group);
    MPI_Group_compare(my_group, is_even ? even_group : odd_group, &cmp);
    MPI_Comm_rank(local, &lrank);
    MPI_Comm_size(local, &lsize);

    /* Leaders: world ranks 0 and 1; the peer communicator is the world. */
    MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, is_even ? 1 : 0, 77,
                         &intercomm);
    MPI_Comm_test_inter(intercomm, &inter);
    MPI_Comm_remote_size(intercomm, &rsize);
    MPI_Comm_remote_group(intercomm, &remote_group);

    /* Each process sends its world rank to remote rank lrank % rsize and
     * receives one message from every remote process that picked it. */
    partner = lrank % rsize;
    sent = rank * 10 + 1;
    MPI_Isend(&sent, 1, MPI_INT, partner, 3, intercomm, &reqs[0]);
    {
        int expect = 0, r, k = 0;
        for (r = 0; r < rsize; r++) {
            if (r % lsize == lrank) {
                expect++;
            }
        }
        got[0] = got[1] = -1;
        for (r = 0; r < expect && r < 2; r++) {
            MPI_Irecv(&got[r], 1, MPI_INT, MPI_ANY_SOURCE, 3, intercomm,
                      &reqs[1 + r]);
            k++;
        }
        MPI_Waitall(1 + k, reqs, st);
        /* Two arrivals may come in either order: sort them. */
        if (k == 2 && got[0] > got[1]) {
            int t = got[0];
            got[0] = got[1];
            got[1] = t;
        }
    }

    /* A reply from the remote rank with the same local rank, if any, with
     * MPI_Sendrecv across the intercommunicator. */
    if (lrank < rsize) {
        MPI_Sendrecv(&lrank, 1, MPI_INT, lrank, 4, &result, 1, MPI_INT,
                     lrank, 4, intercomm, &st[0]);
        result = result * 100 + st[0].MPI_SOURCE;
    } else {
        result = -1;
    }

    /* Sum within each group, then merge (odds first) and sum again. */
    MPI_Allreduce(&rank, &sum_local, 1, MPI_INT, MPI_SUM, local);
    MPI_Intercomm_merge(intercomm, is_even ? 1 : 0, &merged);
    MPI_Comm_rank(merged, &mrank);
    MPI_Comm_size(merged, &msize);
    MPI_Allreduce(&rank, &allsum, 1, MPI_INT, MPI_SUM, merged);

    snprintf(line, LINE,
             "world %d: %s local %d/%d same-group %s inter %d remote %d "
             "got %d %d pair %d localsum %d merged %d/%d allsum %d",
             rank, is_even ? "even" : "odd ", lrank, lsize,
             cmp == MPI_IDENT ? "ident" : "DIFF", inter, rsize, got[0],
             got[1], result, sum_local, mrank, msize, allsum);
    if (rank == 0) {
        lines = malloc((size_t)LINE * size);
    }
    MPI_Gather(line, LINE, MPI_CHAR, lines, LINE, MPI_CHAR, 0,
               MPI_COMM_WORLD);
    if (rank == 0) {
        for (i = 0; i < size; i++) {
            printf("%s\n", lines + (size_t)i * LINE);
        }
        free(lines);
    }

    MPI_Comm_free(&merged);
    MPI_Comm_free(&intercomm);
    MPI_Comm_free(&local);
    MPI_Group_free(&remote_group);
    MPI_Group_free(&my_group);
    MPI_Group_free(&even_group);
    MPI_Group_free(&odd_group);
    MPI_Group_free(&world_group);
    free(evens);
    MPI_Finalize();
    return 0;
}
