/*
 * lco_names.c: names as capabilities.
 * - MPIX_SLOTNAME connects a ring: each process sends the slot name of
 *   its receive slot 0 to its left neighbour (as MPI data), which adds a
 *   send slot from it (MPIX_Add_send_slot) and sends on it.
 * - A forged LCO name (its token changed) and a forged slot name (a slot
 *   name of receive slot 0 edited to say slot 1) are accepted locally by
 *   MPIX_Add_send_slot(s), which send no message, but the first send on
 *   them is refused by the receiver: MPI_Send fails with MPI_ERR_COMM
 *   (the class compat/ gives a refused capability: the destination
 *   communicator is not there for this sender) and a text that says the
 *   name was refused, and every later send on that slot fails the same
 *   way. Nothing reaches the receiver.
 * - A name of a freed LCO: the send fails too.
 * Both in one process and, with 2 or more, across processes.
 */
#include <mpi.h>

#include "mpitest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int me, n;

#define NAME_TAG 21
#define DATA_TAG 22
#define DONE_TAG 23

/* Byte offsets in the (private, documented in lco/lco_name.c) layout. */
#define TOKEN_OFFSET 20
#define RSLOT_OFFSET 48

/* MPI_Send on a forged slot is refused by the receiver: checks the class
 * and that the text says the name was refused. */
static void expect_refused(int rc, const char *what)
{
    char text[MPI_MAX_ERROR_STRING];
    int cls = MPI_SUCCESS, len = 0;

    if (rc != MPI_SUCCESS) {
        MPI_Error_class(rc, &cls);
        MPI_Error_string(rc, text, &len);
    }
    CHECK(cls == MPI_ERR_COMM,
          "%s: class %d, expected MPI_ERR_COMM (%d)", what, cls,
          MPI_ERR_COMM);
    if (rc != MPI_SUCCESS) {
        CHECK((strstr(text, "refused") != NULL) ||
              (strstr(text, "token") != NULL),
              "%s: error text \"%s\" does not say the name was refused",
              what, text);
    }
}

static void ring_of_slot_names(void)
{
    MPI_Comm lco;
    MPIX_Slotname mine, theirs;
    MPI_Status st;
    int left = (me - 1 + n) % n, right = (me + 1) % n;
    int size = -1, rank = -1, got = -1;

    MPIX_Comm_create_local(&lco);
    MPIX_Add_receive_slots(lco, 1);
    MPIX_Slot_name(lco, 0, &mine);
    MPI_Sendrecv(&mine, 1, MPIX_SLOTNAME, left, NAME_TAG, &theirs, 1,
                 MPIX_SLOTNAME, right, NAME_TAG, MPI_COMM_WORLD, &st);
    CHECK(st.MPI_SOURCE == right, "slot name came from %d", st.MPI_SOURCE);
    MPIX_Add_send_slot(lco, &theirs);

    /* The group: the right neighbour alone (this process when n == 1). */
    MPI_Comm_size(lco, &size);
    MPI_Comm_rank(lco, &rank);
    CHECK((size == 1) && (rank == ((n == 1) ? 0 : MPI_UNDEFINED)),
          "slot-name ring: size %d rank %d", size, rank);

    MPI_Sendrecv(&me, 1, MPI_INT, 0, DATA_TAG, &got, 1, MPI_INT, 0,
                 DATA_TAG, lco, &st);
    CHECK((got == left) && (st.MPI_SOURCE == 0),
          "slot-name ring: got %d on slot %d, expected %d on 0", got,
          st.MPI_SOURCE, left);
    /* The left neighbour's message to me is in; mine to the right may
     * not be: free only once everybody is done. */
    MPI_Sendrecv(&me, 1, MPI_INT, left, DONE_TAG, &got, 1, MPI_INT, right,
                 DONE_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Comm_free(&lco);
}

/* Forged names sent to target (an LCO with 2 receive slots whose name
 * and slot-0 name are given), from this process. */
static void send_forged(const MPIX_Cname *tname, const MPIX_Slotname *sname,
                        const char *where)
{
    MPI_Comm s1, s2;
    MPIX_Cname forged = *tname;
    MPIX_Slotname fslot = *sname;
    char what[128];
    int slot0 = 0, v = 7;

    forged.bytes[TOKEN_OFFSET] ^= 0x01;
    MPIX_Comm_create_local(&s1);
    CHECK(MPIX_Add_send_slots(s1, 1, &forged, &slot0) == MPI_SUCCESS,
          "a forged name must be accepted locally (%s)", where);
    snprintf(what, sizeof(what), "send on a forged LCO name (%s)", where);
    expect_refused(MPI_Send(&v, 1, MPI_INT, 0, DATA_TAG, s1), what);
    snprintf(what, sizeof(what), "second send on a forged LCO name (%s)",
             where);
    expect_refused(MPI_Send(&v, 1, MPI_INT, 0, DATA_TAG, s1), what);
    MPI_Comm_free(&s1);

    /* The slot name of slot 0, edited to name slot 1: slot 1's secret is
     * not slot 0's. */
    fslot.bytes[RSLOT_OFFSET] = 1;
    MPIX_Comm_create_local(&s2);
    CHECK(MPIX_Add_send_slot(s2, &fslot) == MPI_SUCCESS,
          "a forged slot name must be accepted locally (%s)", where);
    snprintf(what, sizeof(what), "send on a forged slot name (%s)", where);
    expect_refused(MPI_Send(&v, 1, MPI_INT, 0, DATA_TAG, s2), what);
    MPI_Comm_free(&s2);
}

/* After the forged sends, the genuine names work and the target got
 * nothing else. */
static void send_genuine(const MPIX_Cname *tname, const MPIX_Slotname *sname)
{
    MPI_Comm s;
    int slot1 = 1, v;

    MPIX_Comm_create_local(&s);
    MPIX_Add_send_slots(s, 1, tname, &slot1);   /* slot 0: target[1] */
    MPIX_Add_send_slot(s, sname);               /* slot 1: target[0] */
    v = 100;
    CHECK(MPI_Send(&v, 1, MPI_INT, 0, DATA_TAG, s) == MPI_SUCCESS,
          "genuine name refused");
    v = 200;
    CHECK(MPI_Send(&v, 1, MPI_INT, 1, DATA_TAG, s) == MPI_SUCCESS,
          "genuine slot name refused");
    MPI_Comm_free(&s);
}

static void check_target(MPI_Comm target)
{
    MPI_Status st;
    int v = -1, flag = 1;

    MPI_Recv(&v, 1, MPI_INT, 1, DATA_TAG, target, &st);
    CHECK(v == 100, "target slot 1 got %d, expected 100", v);
    MPI_Recv(&v, 1, MPI_INT, 0, DATA_TAG, target, &st);
    CHECK(v == 200, "target slot 0 got %d, expected 200", v);
    MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, target, &flag, &st);
    CHECK(flag == 0, "a refused message reached the target (slot %d)",
          st.MPI_SOURCE);
}

static void forged_names(void)
{
    MPI_Comm target, gone;
    MPIX_Cname tname, gname;
    MPIX_Slotname sname;
    int slot0 = 0, v = 1, rc, cls = MPI_SUCCESS;

    MPIX_Comm_create_local(&target);
    MPIX_Add_receive_slots(target, 2);
    MPIX_Comm_name(target, &tname);
    MPIX_Slot_name(target, 0, &sname);

    /* In this process. */
    send_forged(&tname, &sname, "same process");
    send_genuine(&tname, &sname);
    check_target(target);

    /* Across processes: 0 is the target, 1 forges. */
    if (n >= 2) {
        if (me == 0) {
            MPI_Send(&tname, 1, MPIX_CNAME, 1, NAME_TAG, MPI_COMM_WORLD);
            MPI_Send(&sname, 1, MPIX_SLOTNAME, 1, NAME_TAG, MPI_COMM_WORLD);
            check_target(target);
            MPI_Send(&v, 1, MPI_INT, 1, DONE_TAG, MPI_COMM_WORLD);
        } else if (me == 1) {
            MPIX_Cname rname;
            MPIX_Slotname rsname;

            MPI_Recv(&rname, 1, MPIX_CNAME, 0, NAME_TAG, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
            MPI_Recv(&rsname, 1, MPIX_SLOTNAME, 0, NAME_TAG, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
            send_forged(&rname, &rsname, "another process");
            send_genuine(&rname, &rsname);
            MPI_Recv(&v, 1, MPI_INT, 0, DONE_TAG, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        }
    }
    MPI_Comm_free(&target);

    /* A name that outlived its LCO: the send is refused too. */
    MPIX_Comm_create_local(&gone);
    MPIX_Add_receive_slots(gone, 1);
    MPIX_Comm_name(gone, &gname);
    MPI_Comm_free(&gone);
    MPIX_Comm_create_local(&target);
    MPIX_Add_send_slots(target, 1, &gname, &slot0);
    rc = MPI_Send(&v, 1, MPI_INT, 0, DATA_TAG, target);
    if (rc != MPI_SUCCESS) {
        MPI_Error_class(rc, &cls);
    }
    CHECK(cls != MPI_SUCCESS, "a send to a freed LCO succeeded");
    MPI_Comm_free(&target);
}

int main(int argc, char **argv)
{
    const mpitest_fn tests[] = {ring_of_slot_names, forged_names, NULL};

    mpitest_init(&argc, &argv, "lco_names", 1);
    mpitest_world(&me, &n);

    return mpitest_run(tests);
}
