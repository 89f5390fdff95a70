/*
 * tests/mpi/topo_redist.c: MPIX_Comm_relate, MPIX_Comm_map and
 * MPIX_Permute (compat/mpi_redist.c).
 *
 * Relations on duplicates, splits, reordered and overlapping
 * communicators; data of every base rank moved to the process of the same
 * rank in a reordered sub-communicator, every element checked, through a
 * strided datatype on the sending side; bad arguments, and processes that
 * pass communicators that do not form one, fail on every process with an
 * error class. Under GENCOMM_CHECK_COLLECTIVES=1 a permutation whose
 * counts do not match fails on every member with MPI_ERR_TRUNCATE.
 */
#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topo_check.h"

static int wsize;

static int relate(MPI_Comm a, MPI_Comm b)
{
    int r = -1;

    OK(MPIX_Comm_relate(a, b, &r));
    return r;
}

static void test_relate(void)
{
    MPI_Comm dup, rev, sub, rsub, a, b;
    MPI_Group wg, ga, gb;
    int ra[2] = { 0, 1 }, r;

    OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    CHECK(relate(MPI_COMM_WORLD, MPI_COMM_WORLD) == MPI_IDENT,
          "world with itself is not MPI_IDENT");
    CHECK(relate(dup, MPI_COMM_WORLD) == MPI_CONGRUENT,
          "a duplicate is not MPI_CONGRUENT");

    /* The world reversed: the same processes in another order. */
    OK(MPI_Comm_split(MPI_COMM_WORLD, 0, wsize - wrank, &rev));
    r = relate(rev, MPI_COMM_WORLD);
    CHECK(r == (wsize > 1 ? MPI_SIMILAR : MPI_CONGRUENT),
          "the reversed world relates %d", r);

    /* All but the last process, in order and reversed. */
    OK(MPI_Comm_split(MPI_COMM_WORLD, wrank < wsize - 1 ? 0 : MPI_UNDEFINED,
                      wrank, &sub));
    OK(MPI_Comm_split(MPI_COMM_WORLD, wrank < wsize - 1 ? 0 : MPI_UNDEFINED,
                      -wrank, &rsub));
    if (sub != MPI_COMM_NULL) {
        CHECK(relate(sub, MPI_COMM_WORLD) == MPIX_SUBCOMM_STRICT,
              "a prefix of the world is not MPIX_SUBCOMM_STRICT: %d",
              relate(sub, MPI_COMM_WORLD));
        CHECK(relate(MPI_COMM_WORLD, sub) == MPIX_SUPERCOMM_STRICT,
              "the world is not MPIX_SUPERCOMM_STRICT of a prefix: %d",
              relate(MPI_COMM_WORLD, sub));
        r = relate(rsub, MPI_COMM_WORLD);
        CHECK(r == (wsize > 2 ? MPIX_SUBCOMM : MPIX_SUBCOMM_STRICT),
              "a reversed prefix relates %d", r);
        r = relate(dup, rsub);
        CHECK(r == (wsize > 2 ? MPIX_SUPERCOMM : MPIX_SUPERCOMM_STRICT),
              "the world relates %d to a reversed prefix", r);
        CHECK(relate(sub, rsub) == (wsize > 2 ? MPI_SIMILAR : MPI_CONGRUENT),
              "a prefix and its reverse relate %d", relate(sub, rsub));
        OK(MPI_Comm_free(&sub));
        OK(MPI_Comm_free(&rsub));
    }

    /* Overlapping, neither inside the other: {0, 1} and {1, .., n-1}. */
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    if (wsize >= 3) {
        int *all = malloc((size_t)wsize * sizeof(int));

        for (r = 1; r < wsize; r++) {
            all[r - 1] = r;
        }
        OK(MPI_Group_incl(wg, 2, ra, &ga));
        OK(MPI_Group_incl(wg, wsize - 1, all, &gb));
        OK(MPI_Comm_create(MPI_COMM_WORLD, ga, &a));
        OK(MPI_Comm_create(MPI_COMM_WORLD, gb, &b));
        if (a != MPI_COMM_NULL && b != MPI_COMM_NULL) {
            CHECK(relate(a, b) == MPI_UNEQUAL, "{0,1} and {1..} relate %d",
                  relate(a, b));
            CHECK(relate(b, a) == MPI_UNEQUAL, "{1..} and {0,1} relate %d",
                  relate(b, a));
        }
        if (a != MPI_COMM_NULL) {
            OK(MPI_Comm_free(&a));
        }
        if (b != MPI_COMM_NULL) {
            OK(MPI_Comm_free(&b));
        }
        MPI_Group_free(&ga);
        MPI_Group_free(&gb);
        free(all);
    }
    MPI_Group_free(&wg);

    EXPECT(MPI_ERR_COMM, MPIX_Comm_relate(MPI_COMM_NULL, dup, &r));
    EXPECT(MPI_ERR_COMM, MPIX_Comm_relate(dup, MPI_COMM_NULL, &r));
    EXPECT(MPI_ERR_ARG, MPIX_Comm_relate(dup, MPI_COMM_WORLD, NULL));
    OK(MPI_Comm_free(&rev));
    OK(MPI_Comm_free(&dup));
}

#define NELEM 5

/* Moves each base rank's NELEM ints to the process of the same rank in
 * sub (all but the last process, reversed) and checks every element. */
static void test_map_permute(void)
{
    MPI_Comm sub;
    MPI_Datatype strided;
    int in_sub = wrank < wsize - 1 || wsize == 1;
    int subsize = (wsize == 1) ? 1 : wsize - 1;
    int src[2 * NELEM], got[NELEM], to = -7, from = -7, k, subrank = -1;
    int want_to, want_from;

    OK(MPI_Comm_split(MPI_COMM_WORLD, in_sub ? 0 : MPI_UNDEFINED, -wrank,
                      &sub));
    OK(MPIX_Comm_map(MPI_COMM_WORLD, sub, &to, &from));
    if (sub != MPI_COMM_NULL) {
        MPI_Comm_rank(sub, &subrank);
    }
    /* Sub rank i is base rank subsize - 1 - i. */
    want_to   = (wrank < subsize) ? subsize - 1 - wrank : MPI_PROC_NULL;
    want_from = (subrank >= 0) ? subrank : MPI_PROC_NULL;
    CHECK(to == want_to, "torank %d, want %d", to, want_to);
    CHECK(from == want_from, "fromrank %d, want %d", from, want_from);

    /* The data to send sits at every other int. */
    for (k = 0; k < 2 * NELEM; k++) {
        src[k] = (k % 2 == 0) ? wrank * 1000 + k / 2 : -1;
    }
    for (k = 0; k < NELEM; k++) {
        got[k] = -5;
    }
    OK(MPI_Type_vector(NELEM, 1, 2, MPI_INT, &strided));
    OK(MPI_Type_commit(&strided));
    OK(MPIX_Permute(got, NELEM, MPI_INT, from, src, 1, strided, to,
                    MPI_COMM_WORLD));
    for (k = 0; k < NELEM; k++) {
        int want = (from != MPI_PROC_NULL) ? from * 1000 + k : -5;

        CHECK(got[k] == want, "element %d: %d, want %d", k, got[k], want);
    }
    /* The reverse: back from sub's ranks to the base's. */
    for (k = 0; k < NELEM; k++) {
        src[k] = -9;
    }
    OK(MPIX_Permute(src, NELEM, MPI_INT, to, got, NELEM, MPI_INT, from,
                    MPI_COMM_WORLD));
    for (k = 0; k < NELEM; k++) {
        int want = (to != MPI_PROC_NULL) ? wrank * 1000 + k : -9;

        CHECK(src[k] == want, "back, element %d: %d, want %d", k, src[k],
              want);
    }
    MPI_Type_free(&strided);

    /* A sub-communicator equal to the base: identity ranks. */
    OK(MPIX_Comm_map(MPI_COMM_WORLD, MPI_COMM_WORLD, &to, &from));
    CHECK(to == wrank && from == wrank, "map of the world onto itself: "
          "%d, %d", to, from);
    /* Nobody passes a sub-communicator. */
    OK(MPIX_Comm_map(MPI_COMM_WORLD, MPI_COMM_NULL, &to, &from));
    CHECK(to == MPI_PROC_NULL && from == MPI_PROC_NULL,
          "map onto nothing: %d, %d", to, from);
    if (sub != MPI_COMM_NULL) {
        OK(MPI_Comm_free(&sub));
    }
}

static void test_errors(void)
{
    MPI_Comm mine;
    int to, from, x = 0;

    /* Every process passes its own one-process communicator: they are
     * not one sub-communicator (all claim rank 0), an error everywhere. */
    OK(MPI_Comm_split(MPI_COMM_WORLD, wrank, 0, &mine));
    if (wsize > 1) {
        EXPECT(MPI_ERR_COMM, MPIX_Comm_map(MPI_COMM_WORLD, mine, &to, &from));
    }
    /* One process's bad argument fails the call everywhere. */
    EXPECT(MPI_ERR_ARG, MPIX_Comm_map(MPI_COMM_WORLD, MPI_COMM_NULL,
                                      wrank == 0 ? NULL : &to, &from));
    EXPECT(MPI_ERR_COMM, MPIX_Comm_map(MPI_COMM_NULL, mine, &to, &from));
    OK(MPI_Comm_free(&mine));

    EXPECT(MPI_ERR_RANK, MPIX_Permute(&x, 1, MPI_INT, wsize, &x, 1, MPI_INT,
                                      0, MPI_COMM_WORLD));
    EXPECT(MPI_ERR_RANK, MPIX_Permute(&x, 1, MPI_INT, 0, &x, 1, MPI_INT,
                                      -3, MPI_COMM_WORLD));
    EXPECT(MPI_ERR_COUNT, MPIX_Permute(&x, -1, MPI_INT, 0, &x, 1, MPI_INT,
                                       0, MPI_COMM_WORLD));
    EXPECT(MPI_ERR_TYPE, MPIX_Permute(&x, 1, MPI_DATATYPE_NULL, 0, &x, 1,
                                      MPI_INT, 0, MPI_COMM_WORLD));
    EXPECT(MPI_ERR_BUFFER, MPIX_Permute(NULL, 1, MPI_INT, 0, &x, 1, MPI_INT,
                                        0, MPI_COMM_WORLD));
    EXPECT(MPI_ERR_COMM, MPIX_Permute(&x, 1, MPI_INT, 0, &x, 1, MPI_INT, 0,
                                      MPI_COMM_NULL));
    /* Nothing moves with MPI_PROC_NULL on both sides; NULL buffers are
     * fine then. */
    OK(MPIX_Permute(NULL, 1, MPI_INT, MPI_PROC_NULL, NULL, 1, MPI_INT,
                    MPI_PROC_NULL, MPI_COMM_WORLD));
}

/* Under GENCOMM_CHECK_COLLECTIVES=1: a ring shift where rank 0 expects
 * one int less than its left neighbour sends; every member gets the
 * verdict (MPI_ERR_TRUNCATE), and nothing is transferred. */
static void test_verify(void)
{
    int out[3] = { 1, 2, 3 }, in[3] = { -1, -1, -1 };
    int right = (wrank + 1) % wsize, left = (wrank + wsize - 1) % wsize;
    char msg[MPI_MAX_ERROR_STRING];
    int len, rc;

    rc = MPIX_Permute(in, wrank == 0 ? 2 : 3, MPI_INT, left, out, 3, MPI_INT,
                      right, MPI_COMM_WORLD);
    EXPECT(MPI_ERR_TRUNCATE, rc);
    CHECK(in[0] == -1, "data moved although the check failed");
    MPI_Error_string(rc, msg, &len);
    CHECK(strstr(msg, "MPIX_Permute") != NULL, "the error does not name "
          "MPIX_Permute: %s", msg);
    /* Matching arguments pass the check. */
    OK(MPIX_Permute(in, 3, MPI_INT, left, out, 3, MPI_INT, right,
                    MPI_COMM_WORLD));
    CHECK(in[2] == 3, "the checked permutation did not move the data");
}

int main(int argc, char **argv)
{
    mpitest_init(&argc, &argv, "topo_redist", 1);
    wrank = mpitest_rank;
    wsize = mpitest_size;

    test_relate();
    test_map_permute();
    test_errors();
    if (getenv("GENCOMM_CHECK_COLLECTIVES") != NULL &&
        strcmp(getenv("GENCOMM_CHECK_COLLECTIVES"), "1") == 0) {
        test_verify();
    }
    return mpitest_finish();
}
