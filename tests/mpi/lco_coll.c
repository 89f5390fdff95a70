/*
 * lco_coll.c: collectives over hand-built LCOs.
 * - MPIX_CNAME in a collective: MPI_Allgather of every process's LCO name
 *   (the seed's Figure 3), checked against each process's own name.
 * - Figure 3's structure (slot i of the LCO of rank r targets receive
 *   slot r of the LCO of rank i), in world order and reversed (the LCO on
 *   world process w has rank n-1-w), then MPI_Allreduce, MPI_Bcast from
 *   every root, MPI_Allgather, MPI_Reduce and MPI_Barrier on it, with
 *   results computed in closed form. Collectives see the LCO's ranks
 *   (prank: the slot that targets itself), which here are its MPI ranks.
 * Runs at any process count.
 */
#include <mpi.h>

#include "mpitest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int me, n;

/*
 * Builds this process's LCO of a Figure 3 structure in which world
 * process w has rank rank_of(w): the LCO has n receive slots, and send
 * slot i targets receive slot "my rank" of the LCO of rank i.
 */
static MPI_Comm build(int reversed)
{
    MPI_Comm lco;
    MPIX_Cname mine, *names, *order;
    int *rslots;
    int myrank = reversed ? n - 1 - me : me;
    int i, j;

    names = malloc((size_t)n * sizeof(*names));
    order = malloc((size_t)n * sizeof(*order));
    rslots = malloc((size_t)n * sizeof(*rslots));
    MPIX_Comm_create_local(&lco);
    MPIX_Add_receive_slots(lco, n);
    MPIX_Comm_name(lco, &mine);
    MPI_Allgather(&mine, 1, MPIX_CNAME, names, 1, MPIX_CNAME,
                  MPI_COMM_WORLD);
    /* The gathered names are the names, in world order. */
    CHECK(memcmp(&names[me], &mine, sizeof(mine)) == 0,
          "allgathered name %d is not this process's", me);
    for (i = 0; i < n; i++) {
        for (j = 0; j < i; j++) {
            CHECK(memcmp(&names[i], &names[j], sizeof(mine)) != 0,
                  "names of %d and %d are equal", i, j);
        }
    }
    for (i = 0; i < n; i++) {
        order[i] = names[reversed ? n - 1 - i : i];
        rslots[i] = myrank;
    }
    MPIX_Add_send_slots(lco, n, order, rslots);
    free(names);
    free(order);
    free(rslots);
    return lco;
}

static void collectives(MPI_Comm lco, const char *what, int myrank)
{
    int rank = -1, size = -1, sum = -1, v, root, i;
    int *all = malloc((size_t)n * sizeof(int));

    MPI_Comm_rank(lco, &rank);
    MPI_Comm_size(lco, &size);
    CHECK((rank == myrank) && (size == n), "%s: rank %d size %d", what,
          rank, size);

    v = myrank + 1;
    MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, lco);
    CHECK(sum == n * (n + 1) / 2, "%s: allreduce %d, expected %d", what, sum,
          n * (n + 1) / 2);

    for (root = 0; root < n; root++) {
        v = (myrank == root) ? 100 * root + 7 : -1;
        MPI_Bcast(&v, 1, MPI_INT, root, lco);
        CHECK(v == 100 * root + 7, "%s: bcast from %d gave %d", what, root,
              v);
    }

    v = 10 * myrank;
    MPI_Allgather(&v, 1, MPI_INT, all, 1, MPI_INT, lco);
    for (i = 0; i < n; i++) {
        CHECK(all[i] == 10 * i, "%s: allgather[%d] = %d", what, i, all[i]);
    }

    /* The maximum of rank^2 over the ranks is (n-1)^2. */
    v = myrank * myrank;
    sum = -1;
    MPI_Reduce(&v, &sum, 1, MPI_INT, MPI_MAX, n - 1, lco);
    if (myrank == n - 1) {
        CHECK(sum == (n - 1) * (n - 1), "%s: reduce max %d, expected %d",
              what, sum, (n - 1) * (n - 1));
    }
    MPI_Barrier(lco);
    free(all);
}

int main(int argc, char **argv)
{
    MPI_Comm fwd, rev;

    mpitest_init(&argc, &argv, "lco_coll", 0);
    mpitest_world(&me, &n);

    fwd = build(0);
    rev = build(1);
    /* Every LCO exists with its slots before anyone sends on it: the
     * names went out after the receive slots were added. */
    collectives(fwd, "world order", me);
    collectives(rev, "reversed", n - 1 - me);

    /* MPI_Comm_dup of a hand-built structure: a communicator the library
     * makes, with the same ranks (the core's dup; checked here because
     * only this family builds such structures). */
    {
        MPI_Comm d = MPI_COMM_NULL;

        MPI_Comm_dup(rev, &d);
        collectives(d, "duplicate of reversed", n - 1 - me);
        MPI_Comm_free(&d);
    }
    /* Both ended with a barrier on themselves: nobody sends to them any
     * more. */
    MPI_Comm_free(&fwd);
    MPI_Comm_free(&rev);

    return mpitest_finish();
}
