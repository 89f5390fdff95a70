/*
 * lco_group.c: the process group of an LCO (the seed, section 4.2): "the
 * list of processes referenced by its send slots, with duplicates
 * removed", in the order of each process's first slot. MPI_Comm_size and
 * MPI_Comm_rank report it; MPIX_Comm_lco_rank is the index of the send
 * slot that targets the LCO itself, which differs when a process has
 * several slots or when the slots to self target another LCO. Checked on
 * several structures built from everyone's LCO names, and after slots are
 * added (the group follows). Point-to-point on a reversed structure
 * checks that ranks are slot indices. Runs at any process count.
 */
#include <mpi.h>

#include "mpitest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int me, n;

#define NAME_TAG 11
#define BARRIER_TAG 12
#define DATA_TAG 13

/* Everyone's name, by point-to-point on the world (no collectives, so
 * this test needs only the core). */
static void allgather_names(const MPIX_Cname *mine, MPIX_Cname *all)
{
    MPI_Request *reqs = malloc(2 * (size_t)n * sizeof(*reqs));
    int j;

    for (j = 0; j < n; j++) {
        MPI_Irecv(&all[j], 1, MPIX_CNAME, j, NAME_TAG, MPI_COMM_WORLD,
                  &reqs[j]);
        MPI_Isend(mine, 1, MPIX_CNAME, j, NAME_TAG, MPI_COMM_WORLD,
                  &reqs[n + j]);
    }
    MPI_Waitall(2 * n, reqs, MPI_STATUSES_IGNORE);
    free(reqs);
}

/* A dissemination barrier by point-to-point on the world. */
static void p2p_barrier(void)
{
    int d, token = 0, got;

    for (d = 1; d < n; d *= 2) {
        MPI_Sendrecv(&token, 1, MPI_INT, (me + d) % n, BARRIER_TAG, &got, 1,
                     MPI_INT, (me - d + n) % n, BARRIER_TAG, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
    }
}

/* Checks size, rank, LCO rank, slot count and the group's world ranks. */
static void expect_group(MPI_Comm lco, const char *what, int size, int rank,
                         int lrank, int nsend, const int procs[])
{
    MPI_Group g, wg;
    int got_size = -1, got_rank = -1, got_lrank = -1, got_nsend = -1;
    int *ranks, *world;
    int i;

    MPI_Comm_size(lco, &got_size);
    MPI_Comm_rank(lco, &got_rank);
    MPIX_Comm_lco_rank(lco, &got_lrank);
    MPIX_Num_send_slots(lco, &got_nsend);
    CHECK((got_size == size) && (got_rank == rank) && (got_lrank == lrank) &&
          (got_nsend == nsend),
          "%s: size %d rank %d LCO rank %d send slots %d; expected %d %d "
          "%d %d", what, got_size, got_rank, got_lrank, got_nsend, size,
          rank, lrank, nsend);
    if (got_size != size) {
        return;
    }
    MPI_Comm_group(lco, &g);
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    ranks = malloc(((size_t)size + 1) * sizeof(int));
    world = malloc(((size_t)size + 1) * sizeof(int));
    for (i = 0; i < size; i++) {
        ranks[i] = i;
    }
    MPI_Group_translate_ranks(g, size, ranks, wg, world);
    for (i = 0; i < size; i++) {
        CHECK(world[i] == procs[i],
              "%s: group rank %d is world %d, expected %d", what, i,
              world[i], procs[i]);
    }
    MPI_Group_size(g, &got_size);
    CHECK(got_size == size, "%s: MPI_Comm_group has %d members", what,
          got_size);
    free(ranks);
    free(world);
    MPI_Group_free(&g);
    MPI_Group_free(&wg);
}

int main(int argc, char **argv)
{
    MPI_Comm rev, twice, others, local_a, local_b;
    MPIX_Cname myname[3], *names[3], aname, bname;
    int *slots, *procs;
    int i, k, right, left, got, v, slot0 = 0;
    MPI_Status st;

    mpitest_init(&argc, &argv, "lco_group", 0);
    mpitest_world(&me, &n);
    slots = malloc(2 * (size_t)n * sizeof(int));
    procs = malloc(2 * (size_t)n * sizeof(int));

    /* Three LCOs per process, each with n receive slots. */
    MPIX_Comm_create_local(&rev);
    MPIX_Comm_create_local(&twice);
    MPIX_Comm_create_local(&others);
    MPIX_Add_receive_slots(rev, n);
    MPIX_Add_receive_slots(twice, n);
    MPIX_Add_receive_slots(others, n);
    MPIX_Comm_name(rev, &myname[0]);
    MPIX_Comm_name(twice, &myname[1]);
    MPIX_Comm_name(others, &myname[2]);
    for (k = 0; k < 3; k++) {
        names[k] = malloc(2 * (size_t)n * sizeof(MPIX_Cname));
        allgather_names(&myname[k], names[k]);
    }

    /*
     * rev: a communicator in reversed world order. The LCO of world
     * process w has rank n-1-w; its send slot i targets receive slot
     * "my rank" of the LCO of rank i, which lives on world n-1-i.
     */
    {
        MPIX_Cname *order = malloc((size_t)n * sizeof(MPIX_Cname));

        for (i = 0; i < n; i++) {
            order[i] = names[0][n - 1 - i];
            slots[i] = n - 1 - me;
            procs[i] = n - 1 - i;
        }
        MPIX_Add_send_slots(rev, n, order, slots);
        free(order);
    }
    expect_group(rev, "reversed", n, n - 1 - me, n - 1 - me, n, procs);

    /* twice: two slots to each process's LCO, slots 2i and 2i+1 to world
     * i. The group has each process once; the LCO rank is the first slot
     * that targets this LCO. */
    {
        MPIX_Cname *dbl = malloc(2 * (size_t)n * sizeof(MPIX_Cname));

        for (i = 0; i < n; i++) {
            dbl[2 * i] = names[1][i];
            dbl[2 * i + 1] = names[1][i];
            slots[2 * i] = me;
            slots[2 * i + 1] = me;
            procs[i] = i;
        }
        MPIX_Add_send_slots(twice, 2 * n, dbl, slots);
        free(dbl);
    }
    expect_group(twice, "two slots each", n, me, 2 * me, 2 * n, procs);

    /* others: slots to every other process only. Not in its own group:
     * rank and LCO rank undefined (the seed: "the results may not always
     * be useful"). Then a slot to itself, added last, puts it in. */
    k = 0;
    for (i = 0; i < n; i++) {
        if (i != me) {
            MPIX_Add_send_slots(others, 1, &names[2][i], &me);
            procs[k++] = i;
        }
    }
    expect_group(others, "others only", n - 1, MPI_UNDEFINED, MPI_UNDEFINED,
                 n - 1, procs);
    MPIX_Add_send_slots(others, 1, &names[2][me], &me);
    procs[k++] = me;
    expect_group(others, "others then self", n, n - 1, n - 1, n, procs);

    /* local_b sends to local_a, both in this process: the group is this
     * process (rank 0), but no slot targets local_b itself. A slot to
     * itself then adds no process, only the LCO rank. */
    MPIX_Comm_create_local(&local_a);
    MPIX_Comm_create_local(&local_b);
    MPIX_Add_receive_slots(local_a, 1);
    MPIX_Add_receive_slots(local_b, 1);
    MPIX_Comm_name(local_a, &aname);
    MPIX_Comm_name(local_b, &bname);
    MPIX_Add_send_slots(local_b, 1, &aname, &slot0);
    procs[0] = me;
    expect_group(local_b, "slot to another LCO here", 1, 0, MPI_UNDEFINED,
                 1, procs);
    MPIX_Add_send_slots(local_b, 1, &bname, &slot0);
    expect_group(local_b, "then to itself", 1, 0, 1, 2, procs);

    /*
     * Point-to-point on rev: ranks are slot indices. Pass my rank to the
     * right in rank order; what arrives on receive slot "left" came from
     * the LCO of rank left, i.e. world n-1-left.
     */
    {
        int r = n - 1 - me;

        right = (r + 1) % n;
        left = (r - 1 + n) % n;
        got = -1;
        MPI_Sendrecv(&r, 1, MPI_INT, right, DATA_TAG, &got, 1, MPI_INT, left,
                     DATA_TAG, rev, &st);
        CHECK((got == left) && (st.MPI_SOURCE == left),
              "reversed ring: got %d from slot %d, expected %d", got,
              st.MPI_SOURCE, left);
        /* MPI_ANY_SOURCE: the source is the receive slot. */
        v = 1000 + r;
        MPI_Sendrecv(&v, 1, MPI_INT, left, DATA_TAG, &got, 1, MPI_INT,
                     MPI_ANY_SOURCE, DATA_TAG, rev, &st);
        CHECK((got == 1000 + right) && (st.MPI_SOURCE == right),
              "reversed ring, any source: got %d from slot %d, expected %d "
              "from %d", got, st.MPI_SOURCE, 1000 + right, right);
    }

    /* Nobody sends to an LCO once everyone is past this point. */
    p2p_barrier();
    MPI_Comm_free(&rev);
    MPI_Comm_free(&twice);
    MPI_Comm_free(&others);
    MPI_Comm_free(&local_a);
    MPI_Comm_free(&local_b);
    CHECK(rev == MPI_COMM_NULL, "MPI_Comm_free left the handle set");
    for (k = 0; k < 3; k++) {
        free(names[k]);
    }
    free(slots);
    free(procs);
    return mpitest_finish();
}
