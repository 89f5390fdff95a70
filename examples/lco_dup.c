/*
 * lco_dup: the seed's Figure 3, MPI_Comm_dup built by hand from LCOs with
 * the MPIX_ extensions, then used as any communicator: point-to-point (a
 * ring) and collectives (MPI_Allreduce, MPI_Bcast, MPI_Barrier).
 *
 * An intracommunicator of n processes is n LCOs, each with n send slots
 * and n receive slots, connected all to all. In the seed's notation, for
 * n = 3:
 *
 *     P0 = {<P0[0],P1[0],P2[0]>, <+,+,+>}
 *     P1 = {<P0[1],P1[1],P2[1]>, <+,+,+>}
 *     P2 = {<P0[2],P1[2],P2[2]>, <+,+,+>}
 *
 * Send slot i of the LCO of rank r targets receive slot r of the LCO of
 * rank i. So a send "to rank i" goes to process i, and it arrives on the
 * receive slot that names the sender: receive slot j means "from rank j",
 * exactly as MPI_Recv's source does on a communicator.
 *
 * The seed's printed figure has bugs, fixed here: it sets rslots[i] = i,
 * which would deliver every sender's messages to LCO i on the same receive
 * slot i (receivers could no longer tell senders apart, and collectives
 * would mix them up); it allocates rslots with malloc(numslots) bytes
 * instead of numslots ints; it adds "size" receive slots without defining
 * size; and it passes the name by value to MPI_Allgather.
 *
 * Build: mpicc -o lco_dup lco_dup.c (here: make). Run with:
 * gcrun -n 4 examples/lco_dup [--graph FILE] (FILE: the duplicate drawn
 * as Graphviz DOT with MPIX_Comm_graph_write).
 */
#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RING_TAG 7

/*
 * Figure 3: applied collectively to a set of LCOs that define an
 * intracommunicator (comm is this process's LCO of it), builds a new set of
 * LCOs with the same topology. Returns 0 on success.
 */
static int comm_dup(MPI_Comm comm, MPI_Comm *newcomm)
{
    MPIX_Cname *pnames;
    MPIX_Cname pid;
    int *rslots;
    int numslots, myrank, i;

    /*
     * On a communicator the number of send slots is its size, and the LCO
     * rank (the send slot that targets this LCO itself) is its rank. The
     * queries work on any communicator, not only on hand-built LCOs.
     */
    MPIX_Num_send_slots(comm, &numslots);
    MPIX_Comm_lco_rank(comm, &myrank);
    pnames = malloc((size_t)numslots * sizeof(*pnames));
    rslots = malloc((size_t)numslots * sizeof(*rslots));
    if ((pnames == NULL) || (rslots == NULL)) {
        free(pnames);
        free(rslots);
        return -1;
    }

    /* Create our new LCO, with one receive slot per LCO that will send
     * to it, and get its name. */
    MPIX_Comm_create_local(newcomm);
    MPIX_Add_receive_slots(*newcomm, numslots);
    MPIX_Comm_name(*newcomm, &pid);

    /* The gather collects the names of all new LCOs, in rank order. Names
     * are plain data of type MPIX_CNAME. */
    MPI_Allgather(&pid, 1, MPIX_CNAME, pnames, 1, MPIX_CNAME, comm);

    /* Send slot i targets receive slot myrank of LCO i (the seed's figure
     * says slot i: see the top of the file). */
    for (i = 0; i < numslots; i++) {
        rslots[i] = myrank;
    }
    MPIX_Add_send_slots(*newcomm, numslots, pnames, rslots);

    /*
     * The seed ends with a barrier "to ensure all complete before using the
     * new communicator". Here every LCO has its receive slots before its
     * name goes out, so a message can never find its slot missing; the
     * barrier is kept as the seed wrote it, and it costs one collective.
     */
    MPI_Barrier(comm);
    free(pnames);
    free(rslots);
    return 0;
}

int main(int argc, char **argv)
{
    MPI_Comm dup;
    MPI_Status status;
    int me, n, size, rank, lrank, nsend, nrecv;
    int left, right, got, sum, root_value;
    int ok = 1;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &n);

    if (comm_dup(MPI_COMM_WORLD, &dup) != 0) {
        fprintf(stderr, "lco_dup: P%d: out of memory\n", me);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }

    /*
     * The process group of an LCO is the processes its send slots
     * reference, duplicates removed: here all n, in rank order, so size and
     * rank are the world's, as for a real duplicate.
     */
    MPI_Comm_size(dup, &size);
    MPI_Comm_rank(dup, &rank);
    MPIX_Comm_lco_rank(dup, &lrank);
    MPIX_Num_send_slots(dup, &nsend);
    MPIX_Num_receive_slots(dup, &nrecv);
    if ((size != n) || (rank != me) || (lrank != me) || (nsend != n) ||
        (nrecv != n)) {
        fprintf(stderr, "lco_dup: P%d: size %d rank %d LCO rank %d, %d send "
                "and %d receive slots; expected %d, %d, %d, %d, %d\n", me,
                size, rank, lrank, nsend, nrecv, n, me, me, n, n);
        ok = 0;
    }

    /* Point-to-point: pass my rank to the right, receive from the left.
     * The source in the status is the receive slot, i.e. the sender. */
    right = (me + 1) % n;
    left  = (me - 1 + n) % n;
    got   = -1;
    MPI_Sendrecv(&me, 1, MPI_INT, right, RING_TAG, &got, 1, MPI_INT, left,
                 RING_TAG, dup, &status);
    if ((got != left) || (status.MPI_SOURCE != left)) {
        fprintf(stderr, "lco_dup: P%d: ring got %d from %d, expected %d\n",
                me, got, status.MPI_SOURCE, left);
        ok = 0;
    }

    /* Collectives run over the hand-built LCOs as over any communicator:
     * the sum of 1..n is n(n+1)/2. */
    sum = -1;
    rank = me + 1;
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, dup);
    if (sum != n * (n + 1) / 2) {
        fprintf(stderr, "lco_dup: P%d: allreduce gave %d, expected %d\n",
                me, sum, n * (n + 1) / 2);
        ok = 0;
    }
    /* The last rank broadcasts a value the others can recompute. */
    root_value = (me == n - 1) ? 1000 + n : -1;
    MPI_Bcast(&root_value, 1, MPI_INT, n - 1, dup);
    if (root_value != 1000 + n) {
        fprintf(stderr, "lco_dup: P%d: bcast gave %d, expected %d\n", me,
                root_value, 1000 + n);
        ok = 0;
    }
    MPI_Barrier(dup);
    if ((argc > 2) && (strcmp(argv[1], "--graph") == 0) &&
        (MPIX_Comm_graph_write(dup, argv[2]) != MPI_SUCCESS)) {
        ok = 0;
    }

    /* Freeing the LCO is local; the barrier above made sure nobody still
     * sends to it. */
    MPI_Comm_free(&dup);
    if (ok != 0) {
        printf("lco_dup: P%d: hand-built duplicate of %d processes: ring, "
               "allreduce, bcast and barrier ok\n", me, n);
    }
    MPI_Finalize();
    return (ok != 0) ? 0 : 1;
}
