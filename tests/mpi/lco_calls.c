/*
 * lco_calls.c: every MPIX_ LCO call, on its good path and its error paths
 * (under MPI_ERRORS_RETURN), with the classes compat/mpi_lco.c documents:
 * MPI_ERR_COMM for a null, garbage or library-built communicator where an
 * LCO made by MPIX_Comm_create_local is needed, MPI_ERR_COUNT for a
 * negative count, MPI_ERR_RANK for a slot out of range, MPI_ERR_ARG for
 * NULL outputs and bytes that are no name. Runs at any process count.
 */
#include <mpi.h>

#include "mpitest.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int me;

/* The call returned an error of class want. */

/* Something that is no communicator: zeroed memory, no magic. */
static long long garbage[64];

static void test_create_and_queries(int n)
{
    MPI_Comm lco = MPI_COMM_NULL;
    MPI_Comm bad = (MPI_Comm)(void *)garbage;
    int count = -1, rank = -1, size = -1, flag = -1;

    EXPECT(MPI_ERR_ARG, MPIX_Comm_create_local(NULL));
    OK(MPIX_Comm_create_local(&lco));
    CHECK(lco != MPI_COMM_NULL, "MPIX_Comm_create_local gave MPI_COMM_NULL");

    /* A new LCO has no slots and an empty process group. */
    OK(MPIX_Num_send_slots(lco, &count));
    CHECK(count == 0, "new LCO has %d send slots", count);
    OK(MPIX_Num_receive_slots(lco, &count));
    CHECK(count == 0, "new LCO has %d receive slots", count);
    OK(MPI_Comm_size(lco, &size));
    OK(MPI_Comm_rank(lco, &rank));
    CHECK((size == 0) && (rank == MPI_UNDEFINED),
          "new LCO: size %d rank %d, expected 0 and MPI_UNDEFINED", size,
          rank);
    OK(MPIX_Comm_lco_rank(lco, &rank));
    CHECK(rank == MPI_UNDEFINED, "new LCO: LCO rank %d", rank);
    OK(MPI_Comm_test_inter(lco, &flag));
    CHECK(flag == 0, "an LCO is not an intercommunicator");

    /* The queries accept every communicator: the world is n LCOs of n
     * send and n receive slots, with LCO rank = rank. */
    OK(MPIX_Num_send_slots(MPI_COMM_WORLD, &count));
    CHECK(count == n, "world has %d send slots, expected %d", count, n);
    OK(MPIX_Num_receive_slots(MPI_COMM_WORLD, &count));
    CHECK(count == n, "world has %d receive slots, expected %d", count, n);
    OK(MPIX_Comm_lco_rank(MPI_COMM_WORLD, &rank));
    CHECK(rank == me, "world LCO rank %d, expected %d", rank, me);
    OK(MPIX_Num_send_slots(MPI_COMM_SELF, &count));
    CHECK(count == 1, "MPI_COMM_SELF has %d send slots", count);
    OK(MPIX_Comm_lco_rank(MPI_COMM_SELF, &rank));
    CHECK(rank == 0, "MPI_COMM_SELF LCO rank %d", rank);

    /* Bad handles and NULL outputs. */
    EXPECT(MPI_ERR_COMM, MPIX_Num_send_slots(MPI_COMM_NULL, &count));
    EXPECT(MPI_ERR_COMM, MPIX_Num_send_slots(bad, &count));
    EXPECT(MPI_ERR_ARG, MPIX_Num_send_slots(lco, NULL));
    EXPECT(MPI_ERR_COMM, MPIX_Num_receive_slots(MPI_COMM_NULL, &count));
    EXPECT(MPI_ERR_COMM, MPIX_Num_receive_slots(bad, &count));
    EXPECT(MPI_ERR_ARG, MPIX_Num_receive_slots(lco, NULL));
    EXPECT(MPI_ERR_COMM, MPIX_Comm_lco_rank(MPI_COMM_NULL, &rank));
    EXPECT(MPI_ERR_COMM, MPIX_Comm_lco_rank(bad, &rank));
    EXPECT(MPI_ERR_ARG, MPIX_Comm_lco_rank(lco, NULL));

    /* No slot targets it: it is part of no communicator structure, so
     * it cannot be duplicated. */
    {
        MPI_Comm d = MPI_COMM_NULL;

        EXPECT(MPI_ERR_COMM, MPI_Comm_dup(lco, &d));
        CHECK(d == MPI_COMM_NULL, "a failed dup set the handle");
    }

    OK(MPI_Comm_free(&lco));
    CHECK(lco == MPI_COMM_NULL, "MPI_Comm_free left the handle set");
}

static void test_receive_slots(void)
{
    MPI_Comm lco;
    MPI_Comm bad = (MPI_Comm)(void *)garbage;
    int count = -1;

    OK(MPIX_Comm_create_local(&lco));
    OK(MPIX_Add_receive_slots(lco, 0));
    OK(MPIX_Add_receive_slots(lco, 3));
    OK(MPIX_Add_receive_slots(lco, 2));
    OK(MPIX_Num_receive_slots(lco, &count));
    CHECK(count == 5, "%d receive slots after adding 0, 3 and 2", count);
    EXPECT(MPI_ERR_COUNT, MPIX_Add_receive_slots(lco, -1));
    EXPECT(MPI_ERR_COMM, MPIX_Add_receive_slots(MPI_COMM_NULL, 1));
    EXPECT(MPI_ERR_COMM, MPIX_Add_receive_slots(bad, 1));
    /* The world's slots belong to the library. */
    EXPECT(MPI_ERR_COMM, MPIX_Add_receive_slots(MPI_COMM_WORLD, 1));
    OK(MPIX_Num_receive_slots(lco, &count));
    CHECK(count == 5, "failed calls changed the count to %d", count);
    /* Counts beyond MPIX_MAX_SLOTS fail at once and add nothing (they
     * used to spin, or wrap the count negative). */
    EXPECT(MPI_ERR_COUNT, MPIX_Add_receive_slots(lco, INT_MAX));
    EXPECT(MPI_ERR_COUNT, MPIX_Add_receive_slots(lco, (1 << 30) + 1));
    EXPECT(MPI_ERR_COUNT, MPIX_Add_receive_slots(lco, MPIX_MAX_SLOTS - 4));
    OK(MPIX_Num_receive_slots(lco, &count));
    CHECK(count == 5, "refused counts changed the count to %d", count);
    OK(MPIX_Add_receive_slots(lco, 1000));
    OK(MPIX_Num_receive_slots(lco, &count));
    CHECK(count == 1005, "%d receive slots after adding 1000", count);
    /* Receive slots do not change the process group. */
    OK(MPI_Comm_size(lco, &count));
    CHECK(count == 0, "receive slots gave the group size %d", count);
    OK(MPI_Comm_free(&lco));
}

static void test_names(void)
{
    MPI_Comm lco;
    MPI_Comm bad = (MPI_Comm)(void *)garbage;
    MPIX_Cname name, name2;
    MPIX_Slotname sname;

    OK(MPIX_Comm_create_local(&lco));
    OK(MPIX_Comm_name(lco, &name));
    OK(MPIX_Comm_name(lco, &name2));
    CHECK(memcmp(&name, &name2, sizeof(name)) == 0,
          "two calls gave two different names");
    EXPECT(MPI_ERR_ARG, MPIX_Comm_name(lco, NULL));
    EXPECT(MPI_ERR_COMM, MPIX_Comm_name(MPI_COMM_NULL, &name));
    EXPECT(MPI_ERR_COMM, MPIX_Comm_name(bad, &name));
    /* Library-built communicators hand out no capabilities. */
    EXPECT(MPI_ERR_COMM, MPIX_Comm_name(MPI_COMM_WORLD, &name2));
    EXPECT(MPI_ERR_COMM, MPIX_Comm_name(MPI_COMM_SELF, &name2));

    /* Slot names exist only for receive slots that exist. */
    EXPECT(MPI_ERR_RANK, MPIX_Slot_name(lco, 0, &sname));
    OK(MPIX_Add_receive_slots(lco, 2));
    OK(MPIX_Slot_name(lco, 0, &sname));
    OK(MPIX_Slot_name(lco, 1, &sname));
    EXPECT(MPI_ERR_RANK, MPIX_Slot_name(lco, 2, &sname));
    EXPECT(MPI_ERR_RANK, MPIX_Slot_name(lco, -1, &sname));
    EXPECT(MPI_ERR_ARG, MPIX_Slot_name(lco, 0, NULL));
    EXPECT(MPI_ERR_COMM, MPIX_Slot_name(MPI_COMM_NULL, 0, &sname));
    EXPECT(MPI_ERR_COMM, MPIX_Slot_name(MPI_COMM_WORLD, 0, &sname));
    OK(MPI_Comm_free(&lco));
}

static void test_send_slots(void)
{
    MPI_Comm lco, target;
    MPI_Comm bad = (MPI_Comm)(void *)garbage;
    MPIX_Cname names[3], junk;
    MPIX_Slotname sname, sjunk;
    int slots[3] = { 0, 1, 0 };
    int count = -1, size = -1, rank = -1, lrank = -1;

    OK(MPIX_Comm_create_local(&target));
    OK(MPIX_Add_receive_slots(target, 2));
    OK(MPIX_Comm_name(target, &names[0]));
    names[1] = names[0];
    names[2] = names[0];
    OK(MPIX_Comm_create_local(&lco));

    /* Count and argument errors add nothing. */
    EXPECT(MPI_ERR_COUNT, MPIX_Add_send_slots(lco, -1, names, slots));
    EXPECT(MPI_ERR_ARG, MPIX_Add_send_slots(lco, 1, NULL, slots));
    EXPECT(MPI_ERR_ARG, MPIX_Add_send_slots(lco, 1, names, NULL));
    OK(MPIX_Add_send_slots(lco, 0, NULL, NULL));
    slots[1] = -1;
    EXPECT(MPI_ERR_RANK, MPIX_Add_send_slots(lco, 3, names, slots));
    slots[1] = 1;
    memset(&junk, 0x5a, sizeof(junk));
    names[2] = junk;
    EXPECT(MPI_ERR_ARG, MPIX_Add_send_slots(lco, 3, names, slots));
    names[2] = names[0];
    EXPECT(MPI_ERR_COMM, MPIX_Add_send_slots(MPI_COMM_NULL, 1, names, slots));
    EXPECT(MPI_ERR_COMM, MPIX_Add_send_slots(bad, 1, names, slots));
    EXPECT(MPI_ERR_COMM, MPIX_Add_send_slots(MPI_COMM_WORLD, 1, names, slots));
    /* Beyond MPIX_MAX_SLOTS: refused before the arrays are read. */
    EXPECT(MPI_ERR_COUNT, MPIX_Add_send_slots(lco, INT_MAX, names, slots));
    EXPECT(MPI_ERR_COUNT,
           MPIX_Add_send_slots(lco, MPIX_MAX_SLOTS + 1, names, slots));
    OK(MPIX_Num_send_slots(lco, &count));
    CHECK(count == 0, "failed MPIX_Add_send_slots added %d slots", count);

    /* Three slots, all to an LCO of this process (not lco itself): the
     * group is this process once; no slot targets lco, so no LCO rank. */
    OK(MPIX_Add_send_slots(lco, 3, names, slots));
    OK(MPIX_Num_send_slots(lco, &count));
    CHECK(count == 3, "%d send slots after adding 3", count);
    OK(MPI_Comm_size(lco, &size));
    OK(MPI_Comm_rank(lco, &rank));
    OK(MPIX_Comm_lco_rank(lco, &lrank));
    CHECK((size == 1) && (rank == 0) && (lrank == MPI_UNDEFINED),
          "3 slots to another LCO here: size %d rank %d LCO rank %d, "
          "expected 1, 0, MPI_UNDEFINED", size, rank, lrank);

    /* A slot name adds one slot; bytes that are no slot name add none,
     * nor does an LCO name where a slot name belongs. */
    OK(MPIX_Slot_name(target, 1, &sname));
    OK(MPIX_Add_send_slot(lco, &sname));
    EXPECT(MPI_ERR_ARG, MPIX_Add_send_slot(lco, NULL));
    memset(&sjunk, 0x33, sizeof(sjunk));
    EXPECT(MPI_ERR_ARG, MPIX_Add_send_slot(lco, &sjunk));
    memset(&sjunk, 0, sizeof(sjunk));
    memcpy(&sjunk, &names[0], sizeof(names[0]));
    EXPECT(MPI_ERR_ARG, MPIX_Add_send_slot(lco, &sjunk));
    EXPECT(MPI_ERR_COMM, MPIX_Add_send_slot(MPI_COMM_NULL, &sname));
    EXPECT(MPI_ERR_COMM, MPIX_Add_send_slot(MPI_COMM_WORLD, &sname));
    OK(MPIX_Num_send_slots(lco, &count));
    CHECK(count == 4, "%d send slots, expected 4", count);

    /* Point-to-point ranks are slot indices: slot 4 does not exist. */
    EXPECT(MPI_ERR_RANK, MPI_Send(&count, 1, MPI_INT, 4, 0, lco));
    EXPECT(MPI_ERR_RANK,
           MPI_Recv(&count, 1, MPI_INT, 2, 0, target, MPI_STATUS_IGNORE));

    OK(MPI_Comm_free(&lco));
    OK(MPI_Comm_free(&target));
}

/* An LCO that sends to itself: the seed's smallest communicator. */
static void test_self_loop(void)
{
    MPI_Comm lco;
    MPIX_Cname name;
    MPI_Request req;
    MPI_Status st;
    int slot0 = 0;
    int size = -1, rank = -1, lrank = -1, v = 41, got = -1;

    OK(MPIX_Comm_create_local(&lco));
    OK(MPIX_Add_receive_slots(lco, 1));
    OK(MPIX_Comm_name(lco, &name));
    OK(MPIX_Add_send_slots(lco, 1, &name, &slot0));
    OK(MPI_Comm_size(lco, &size));
    OK(MPI_Comm_rank(lco, &rank));
    OK(MPIX_Comm_lco_rank(lco, &lrank));
    CHECK((size == 1) && (rank == 0) && (lrank == 0),
          "self loop: size %d rank %d LCO rank %d, expected 1 0 0", size,
          rank, lrank);
    OK(MPI_Irecv(&got, 1, MPI_INT, 0, 5, lco, &req));
    OK(MPI_Send(&v, 1, MPI_INT, 0, 5, lco));
    OK(MPI_Wait(&req, &st));
    CHECK((got == 41) && (st.MPI_SOURCE == 0) && (st.MPI_TAG == 5),
          "self loop got %d from %d tag %d", got, st.MPI_SOURCE, st.MPI_TAG);
    OK(MPI_Comm_free(&lco));
}

int main(int argc, char **argv)
{
    int n;

    mpitest_init(&argc, &argv, "lco_calls", 0);
    mpitest_world(&me, &n);
    /* Set before any LCO exists: LCOs take the world's handler. */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    /* Calls on MPI_COMM_SELF raise on it. */
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);

    test_create_and_queries(n);
    test_receive_slots();
    test_names();
    test_send_slots();
    test_self_loop();

    return mpitest_finish();
}
