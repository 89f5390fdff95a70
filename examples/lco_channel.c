/*
 * lco_channel: the seed's Figure 2 (a unidirectional channel) written with
 * the MPI interface and its MPIX_ LCO extensions, as an MPI programmer
 * would. examples/channel.c is the same program on the native API.
 *
 * The receive end creates an LCO with one receive slot and sends its name
 * (an MPIX_Cname, sent as the datatype MPIX_CNAME) over MPI_COMM_WORLD to
 * the send end. The send end creates an LCO, adds one send slot that
 * targets receive slot 0 of that name, and sends NUM_MSGS integers on it:
 * on an LCO, the "rank" of MPI_Send is a send slot and the "rank" of
 * MPI_Recv a receive slot. In the seed's notation:
 *
 *     sender = {<receiver[0]>, <>}    receiver = {<>, <+>}
 *
 * The seed's figure has small bugs this version fixes: its MPI_Send and
 * MPI_Recv pass values where addresses belong, and its receiver loops
 * "while (!done)" with no way to set done; here the receiver knows how
 * many messages come, and checks each one.
 *
 * Processes pair up: 2k receives from 2k+1; an odd last process idles.
 * Build: mpicc -o lco_channel lco_channel.c (here: make). Run with:
 * gcrun -n 2 examples/lco_channel
 */
#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>

#define NAME_TAG 99
#define DATA_TAG 100
#define NUM_MSGS 10

/* The value of message i: anything the receiver can recompute will do. */
static int msg_value(int i)
{
    return 3 * i * i + 1;
}

static int receiver_side(MPI_Comm comm, int nbr, int me)
{
    MPI_Comm receiver;
    MPIX_Cname rname;
    MPI_Status status;
    int nrecv, nsend, size, rank;
    int ok = 1;
    int msg, i;

    /* Create an LCO, then give it one receive slot: receiver = {<>, <+>}. */
    MPIX_Comm_create_local(&receiver);
    MPIX_Add_receive_slots(receiver, 1);

    /*
     * No send slots, so its process group (the processes its send slots
     * reference) is empty: MPI_Comm_size is 0 and this process has no rank
     * in it. The slot counts are what matter for an LCO.
     */
    MPIX_Num_receive_slots(receiver, &nrecv);
    MPIX_Num_send_slots(receiver, &nsend);
    MPI_Comm_size(receiver, &size);
    MPI_Comm_rank(receiver, &rank);
    if ((nrecv != 1) || (nsend != 0) || (size != 0) ||
        (rank != MPI_UNDEFINED)) {
        fprintf(stderr, "lco_channel: P%d: receiver has %d receive and %d "
                "send slots, size %d, rank %d\n", me, nrecv, nsend, size,
                rank);
        ok = 0;
    }

    /* Send the LCO's name to the other process: it is plain data. */
    MPIX_Comm_name(receiver, &rname);
    MPI_Send(&rname, 1, MPIX_CNAME, nbr, NAME_TAG, comm);

    /* Receive on receive slot 0 of the channel; MPI_SOURCE is that slot. */
    for (i = 0; i < NUM_MSGS; i++) {
        MPI_Recv(&msg, 1, MPI_INT, 0, DATA_TAG, receiver, &status);
        if ((msg != msg_value(i)) || (status.MPI_SOURCE != 0) ||
            (status.MPI_TAG != DATA_TAG)) {
            fprintf(stderr, "lco_channel: P%d: message %d is %d from slot "
                    "%d, expected %d from slot 0\n", me, i, msg,
                    status.MPI_SOURCE, msg_value(i));
            ok = 0;
        }
    }
    MPI_Comm_free(&receiver);
    if (ok != 0) {
        printf("lco_channel: P%d received %d messages in order from P%d\n",
               me, NUM_MSGS, nbr);
    }
    return ok;
}

static int sender_side(MPI_Comm comm, int nbr, int me)
{
    MPI_Comm sender;
    MPIX_Cname rnames[1];
    int rslots[1];
    int size, rank;
    int ok = 1;
    int msg, i;

    /* Create a new LCO with no slots. */
    MPIX_Comm_create_local(&sender);

    /* Receive the receiver's name and make it send slot 0:
     * sender = {<receiver[0]>, <>}. */
    MPI_Recv(rnames, 1, MPIX_CNAME, nbr, NAME_TAG, comm, MPI_STATUS_IGNORE);
    rslots[0] = 0;
    MPIX_Add_send_slots(sender, 1, rnames, rslots);

    /*
     * Its process group is the one process its send slot references, the
     * receiver's: size 1, and this process is not in it.
     */
    MPI_Comm_size(sender, &size);
    MPI_Comm_rank(sender, &rank);
    if ((size != 1) || (rank != MPI_UNDEFINED)) {
        fprintf(stderr, "lco_channel: P%d: sender has size %d, rank %d\n",
                me, size, rank);
        ok = 0;
    }

    /* Send on send slot 0 of the new channel. */
    for (i = 0; i < NUM_MSGS; i++) {
        msg = msg_value(i);
        MPI_Send(&msg, 1, MPI_INT, 0, DATA_TAG, sender);
    }
    MPI_Comm_free(&sender);
    if (ok != 0) {
        printf("lco_channel: P%d sent %d messages to P%d on send slot 0\n",
               me, NUM_MSGS, nbr);
    }
    return ok;
}

int main(int argc, char **argv)
{
    int me, n, ok;

    /* Errors end the job with a message (MPI_ERRORS_ARE_FATAL), so the
     * calls above need no checks of their own. */
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &n);

    if (n < 2) {
        fprintf(stderr, "lco_channel: needs at least 2 processes\n");
        ok = 0;
    } else if ((me % 2) == 0) {
        if (me + 1 < n) {
            ok = receiver_side(MPI_COMM_WORLD, me + 1, me);
        } else {
            printf("lco_channel: P%d idles (no partner)\n", me);
            ok = 1;
        }
    } else {
        ok = sender_side(MPI_COMM_WORLD, me - 1, me);
    }
    MPI_Finalize();
    return (ok != 0) ? 0 : 1;
}
