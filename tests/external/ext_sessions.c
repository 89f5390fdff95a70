/*
 * tests/external/ext_sessions.c: MPI-4 sessions and their process sets,
 * as portable MPI-4 code uses them (no MPI_Init unless said).
 *
 * Usage: ext_sessions MODE [TEXT]   (GENCOMM_EXTERNAL names the file)
 *   1         with listing1.xml: the list of process sets and its order,
 *             MPI_Session_get_nth_pset's length protocol, mpi_size,
 *             the groups of mpi://WORLD, mpi://SELF, mpix://node/LEVEL
 *             and mpix://external/NAME, communicators made from them
 *             (collectives on them, the external attributes when the tag
 *             is the set's name, none otherwise), two sessions at once,
 *             an unknown name
 *   3         with listing3.xml: the seed's broken expression reported by
 *             MPI_Group_from_session_pset, reorder="k" as the group's order
 *   4 [CUT]   with listing4.xml: the virtual topology on a communicator
 *             made from the set with its name as the tag, whose group is
 *             the set's (reorder="true" orders both alike); with CUT,
 *             exactly CUT edges of the chain join two nodes
 *   mix       MPI_Init and sessions in one program, in both orders
 *   initfail  MPI_Session_init (MPI_ERRORS_RETURN) must fail with TEXT
 *             in its message: every process prints what it got
 */
#include <mpi.h>

#include "../mpi/mpitest.h"
#include "ext_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank = -1, size;

static int same_cluster(int a, int b)
{
    const char *ca = strrchr(names[a], ':'), *cb = strrchr(names[b], ':');
    size_t la = (ca != NULL) ? (size_t)(ca - names[a]) : strlen(names[a]);
    size_t lb = (cb != NULL) ? (size_t)(cb - names[b]) : strlen(names[b]);

    return la == lb && strncmp(names[a], names[b], la) == 0;
}

/* Several clusters, one of them with several hosts? */
static int cluster_level(void)
{
    int a, b, nc = 0, nh = 0, fc, fh;

    for (a = 0; a < size; a++) {
        for (b = 0, fc = 1, fh = 1; b < a; b++) {
            fc &= !same_cluster(a, b);
            fh &= strcmp(names[a], names[b]) != 0;
        }
        nc += fc;
        nh += fh;
    }
    return nc > 1 && nc < nh;
}

static MPI_Comm comm_of(MPI_Session s, const char *pset, const char *tag)
{
    MPI_Group g;
    MPI_Comm c = MPI_COMM_NULL;
    int rc;

    rc = MPI_Group_from_session_pset(s, pset, &g);
    CHECK(rc == MPI_SUCCESS, "MPI_Group_from_session_pset(%s): %d", pset,
          rc);
    if (rc != MPI_SUCCESS) {
        return MPI_COMM_NULL;
    }
    rc = MPI_Comm_create_from_group(g, tag, MPI_INFO_NULL,
                                    MPI_ERRORS_RETURN, &c);
    CHECK(rc == MPI_SUCCESS, "MPI_Comm_create_from_group(%s, %s): %d", pset,
          tag, rc);
    MPI_Group_free(&g);
    return c;
}

/* The world ranks of group's members, in order; returns the size. */
static int members(MPI_Session s, const char *pset, int out[16])
{
    MPI_Group g, wg;
    int n, r, in[16];

    if (MPI_Group_from_session_pset(s, pset, &g) != MPI_SUCCESS) {
        return -1;
    }
    MPI_Group_from_session_pset(s, "mpi://WORLD", &wg);
    MPI_Group_size(g, &n);
    for (r = 0; r < n && r < 16; r++) {
        in[r] = r;
    }
    MPI_Group_translate_ranks(g, n, in, wg, out);
    MPI_Group_free(&g);
    MPI_Group_free(&wg);
    return n;
}

/* Rank, size and every processor name, from a communicator of
 * mpi://WORLD. */
static MPI_Comm start(MPI_Session s)
{
    MPI_Comm world = comm_of(s, "mpi://WORLD", "org.gencomm.test.world");

    MPI_Comm_rank(world, &rank);
    MPI_Comm_size(world, &size);
    mpitest_rank = rank;
    mpitest_size = size;
    if (size > 16) {
        printf("FAIL: at most 16 processes\n");
        exit(1);
    }
    gather_names(world, rank, size);
    return world;
}

static void mode1(MPI_Session s, MPI_Comm world)
{
    static const char *const fixed[] = { "mpi://WORLD", "mpi://SELF" };
    char name[MPI_MAX_PSET_NAME_LEN], want[64], value[64];
    int npsets, maxdepth, *md, flag, len, i, p, n, sum, total, rc;
    int got[16], nfoo = 0, nsame = 0;
    MPI_Session s2;
    MPI_Comm c, self;
    MPI_Info info;
    MPI_Errhandler eh;

    MPI_Comm_get_attr(MPI_COMM_WORLD, MPIX_MAX_DEPTH, &md, &flag);
    maxdepth = flag ? *md : -1;
    MPI_Session_get_num_psets(s, MPI_INFO_NULL, &npsets);
    CHECK(npsets == 2 + maxdepth + 1 + 2, "%d process sets, expected %d",
          npsets, 2 + maxdepth + 1 + 2);
    for (i = 0; i < npsets; i++) {
        len = 0;
        MPI_Session_get_nth_pset(s, MPI_INFO_NULL, i, &len, NULL);
        CHECK(len > 1 && len <= MPI_MAX_PSET_NAME_LEN, "pset %d: length %d",
              i, len);
        MPI_Session_get_nth_pset(s, MPI_INFO_NULL, i, &len, name);
        if (i < 2) {
            snprintf(want, sizeof(want), "%s", fixed[i]);
        } else if (i < 3 + maxdepth) {
            snprintf(want, sizeof(want), "mpix://node/%d", i - 2);
        } else {
            snprintf(want, sizeof(want), "mpix://external/%s",
                     (i == npsets - 2) ? "MPI_COMM_OCEAN" :
                     "MPI_COMM_ATMOS");
        }
        CHECK(strcmp(name, want) == 0 && len == (int)strlen(want) + 1,
              "pset %d is %s (length %d), expected %s", i, name, len, want);
    }
    /* A short buffer: cut and terminated, the needed length returned. */
    len = 5;
    MPI_Session_get_nth_pset(s, MPI_INFO_NULL, 0, &len, name);
    CHECK(strcmp(name, "mpi:") == 0 && len == 12, "short buffer: \"%s\" %d",
          name, len);
    rc = MPI_Session_get_nth_pset(s, MPI_INFO_NULL, npsets, &len, name);
    CHECK(rc == MPI_ERR_ARG, "pset %d past the end: %d", npsets, rc);

    /* mpi_size. */
    for (p = 0; p < size; p++) {
        nfoo  += in_cluster(p, "foo");
        nsame += strcmp(names[p], names[rank]) == 0;
    }
    MPI_Session_get_pset_info(s, "mpi://world", &info);   /* any case */
    MPI_Info_get(info, "mpi_size", sizeof(value) - 1, value, &flag);
    CHECK(flag && atoi(value) == size, "mpi://WORLD mpi_size %s", value);
    MPI_Info_free(&info);
    MPI_Session_get_pset_info(s, "mpix://external/MPI_COMM_OCEAN", &info);
    MPI_Info_get(info, "mpi_size", sizeof(value) - 1, value, &flag);
    CHECK(flag && atoi(value) == nfoo, "MPI_COMM_OCEAN mpi_size %s", value);
    MPI_Info_free(&info);

    /* The groups. */
    n = members(s, "mpi://SELF", got);
    CHECK(n == 1 && got[0] == rank, "mpi://SELF: %d members", n);
    n = members(s, "mpix://node/0", got);
    CHECK(n == size, "mpix://node/0 has %d members", n);
    /* The host's level: 1, or 2 below a cluster level (several
     * clusters, one of several hosts: docs/launch.md). */
    snprintf(want, sizeof(want), "mpix://node/%d", 1 + cluster_level());
    n = members(s, want, got);
    CHECK(n == nsame, "%s (the host) has %d members, expected %d", want, n,
          nsame);
    for (i = 0; i < n; i++) {
        CHECK(strcmp(names[got[i]], names[rank]) == 0, "%s holds %s", want,
              names[got[i]]);
    }
    if (cluster_level()) {
        n = members(s, "mpix://node/1", got);
        for (i = 0; i < n; i++) {
            CHECK(same_cluster(got[i], rank), "mpix://node/1 (the cluster) "
                  "holds %s", names[got[i]]);
        }
    }
    n = members(s, "mpix://external/MPI_COMM_OCEAN", got);
    CHECK(n == nfoo, "MPI_COMM_OCEAN's set: %d members", n);
    for (i = 0, p = 0; p < size && i < n; p++) {
        if (in_cluster(p, "foo")) {
            CHECK(got[i] == p, "MPI_COMM_OCEAN's rank %d is %d, expected %d",
                  i, got[i], p);
            i++;
        }
    }

    /* A communicator of mpi://WORLD works, with the handler given. */
    sum = 0;
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, world);
    total = size * (size - 1) / 2;
    CHECK(sum == total, "allreduce on mpi://WORLD's communicator: %d", sum);
    MPI_Comm_get_errhandler(world, &eh);
    CHECK(eh == MPI_ERRORS_RETURN, "the communicator's handler");
    MPI_Errhandler_free(&eh);
    self = comm_of(s, "mpi://SELF", "org.gencomm.test.self");
    MPI_Comm_size(self, &n);
    CHECK(n == 1, "mpi://SELF's communicator has %d", n);
    MPI_Comm_free(&self);

    /* The external set by its name: its attributes come along. */
    if (in_cluster(rank, "foo")) {
        c = comm_of(s, "mpix://external/MPI_COMM_OCEAN",
                    "mpix://external/MPI_COMM_OCEAN");
        CHECK(attr(c, "DEPTH") != NULL && strcmp(attr(c, "DEPTH"), "3.8km") ==
              0, "DEPTH on MPI_COMM_OCEAN's set");
        CHECK(attr(c, "CPU_SPEED") != NULL, "CPU_SPEED");
        MPI_Comm_free(&c);
        c = comm_of(s, "mpix://external/MPI_COMM_OCEAN", "org.example.ocean");
        CHECK(attr(c, "DEPTH") == NULL, "DEPTH with another tag");
        MPI_Comm_size(c, &n);
        CHECK(n == nfoo, "ocean communicator of %d", n);
        MPI_Comm_free(&c);
    }

    /* A second session meanwhile. */
    rc = MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s2);
    CHECK(rc == MPI_SUCCESS, "a second session: %d", rc);
    MPI_Session_get_info(s2, &info);
    MPI_Info_get(info, "mpi_thread_support_level", sizeof(value) - 1, value,
                 &flag);
    CHECK(flag && strcmp(value, "MPI_THREAD_MULTIPLE") == 0,
          "mpi_thread_support_level");
    MPI_Info_free(&info);
    MPI_Session_finalize(&s2);
    CHECK(s2 == MPI_SESSION_NULL, "MPI_Session_finalize sets NULL");

    /* Errors go to the session's handler, with a reason. */
    {
        MPI_Group g;
        char msg[MPI_MAX_ERROR_STRING];

        rc = MPI_Group_from_session_pset(s, "mpix://external/NOWHERE", &g);
        CHECK(rc == MPI_ERR_ARG, "an unknown set: %d", rc);
        MPI_Error_string(rc, msg, &len);
        CHECK(strstr(msg, "no process set is named") != NULL, "%s", msg);
        rc = MPI_Group_from_session_pset(s, "mpix://node/99", &g);
        CHECK(rc == MPI_ERR_ARG, "a level too deep: %d", rc);
    }
}

static void mode3(MPI_Session s)
{
    static const int k_of[4] = { 0, 1, 3, 2 };
    char msg[MPI_MAX_ERROR_STRING];
    int got[16], want[16], used[16] = { 0 }, n, p, k, natmos = 0, ok = 1;
    int rc, len, nfoo = 0;
    MPI_Group g;

    for (p = 0; p < size; p++) {
        nfoo += in_cluster(p, "foo");
    }
    /* Not collective: every process that asks is told. */
    rc = MPI_Group_from_session_pset(s, "mpix://external/MPI_COMM_OCEAN", &g);
    if (nfoo >= 2) {
        CHECK(rc == MPI_ERR_OTHER, "the broken set: %d", rc);
        MPI_Error_string(rc, msg, &len);
        CHECK(strstr(msg, "listing3.xml:10: the order of MPI_COMM_OCEAN is "
                     "not a permutation") != NULL, "%s", msg);
    } else if (rc == MPI_SUCCESS) {
        MPI_Group_free(&g);
    }
    /* reorder="k" of bar:00..bar:03: a permutation only when each k is
     * below the number of members, once. */
    for (p = 0; p < size; p++) {
        for (k = 0; k < 4; k++) {
            char node[8];

            snprintf(node, sizeof(node), "bar:0%d", k);
            if (strcmp(names[p], node) == 0) {
                natmos++;
                if (used[k_of[k]]) {
                    ok = 0;
                }
                used[k_of[k]] = 1;
                want[k_of[k]] = p;
            }
        }
    }
    for (k = 0; k < natmos; k++) {
        ok &= used[k];
    }
    n = members(s, "mpix://external/MPI_COMM_ATMOS", got);
    if (ok) {
        CHECK(n == natmos, "MPI_COMM_ATMOS's set: %d members", n);
        for (k = 0; k < n && k < natmos; k++) {
            CHECK(got[k] == want[k], "MPI_COMM_ATMOS's set: rank %d is %d, "
                  "expected %d", k, got[k], want[k]);
        }
    } else {
        CHECK(n < 0, "MPI_COMM_ATMOS's set should fail");
    }
}

static void mode4(MPI_Session s, int want_cut)
{
    MPI_Comm c;
    MPI_Group set, g;
    int status, r, n, count, cmp, cut, got[16];

    if (!in_cluster(rank, "bar")) {
        return;
    }
    c = comm_of(s, "mpix://external/MPI_COMM_ATMOS",
                "mpix://external/MPI_COMM_ATMOS");
    MPI_Topo_test(c, &status);
    CHECK(status == MPI_GRAPH, "MPI_COMM_ATMOS's set: topology %d", status);
    MPI_Comm_size(c, &n);
    for (r = 0; status == MPI_GRAPH && r < n; r++) {
        MPI_Graph_neighbors_count(c, r, &count);
        CHECK(count == ((n == 1) ? 0 : (r == 0 || r == n - 1) ? 1 : 2),
              "rank %d has %d neighbours", r, count);
    }
    /* The set and the communicator have one order, the placed one. */
    MPI_Group_from_session_pset(s, "mpix://external/MPI_COMM_ATMOS", &set);
    MPI_Comm_group(c, &g);
    MPI_Group_compare(set, g, &cmp);
    CHECK(cmp == MPI_IDENT, "MPI_COMM_ATMOS's set and communicator compare "
          "%d", cmp);
    MPI_Group_free(&g);
    MPI_Group_free(&set);
    n = members(s, "mpix://external/MPI_COMM_ATMOS", got);
    for (r = 0, cut = 0; r + 1 < n; r++) {
        cut += strcmp(names[got[r]], names[got[r + 1]]) != 0;
    }
    CHECK(want_cut < 0 || cut == want_cut, "MPI_COMM_ATMOS: %d chain edges "
          "between nodes, expected %d", cut, want_cut);
    MPI_Comm_free(&c);
    c = comm_of(s, "mpix://external/MPI_COMM_ATMOS", "org.example.atmos");
    MPI_Topo_test(c, &status);
    CHECK(status == MPI_UNDEFINED, "with another tag: topology %d", status);
    MPI_Comm_free(&c);
}

static void mode_mix(int *argc, char ***argv)
{
    MPI_Session s;
    MPI_Comm c;
    int flag, sum = 0, one = 1;

    /* Session first, then MPI_Init; the session ends first. */
    MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s);
    MPI_Initialized(&flag);
    CHECK(!flag, "MPI_Initialized after MPI_Session_init alone");
    c = start(s);
    MPI_Init(argc, argv);
    MPI_Initialized(&flag);
    CHECK(flag, "MPI_Initialized after MPI_Init");
    MPI_Comm_free(&c);
    MPI_Session_finalize(&s);
    MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    CHECK(sum == size, "MPI_COMM_WORLD after the session ended: %d", sum);
    /* A session opened and kept past MPI_Finalize. */
    MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s);
    MPI_Finalize();
    MPI_Finalized(&flag);
    CHECK(flag, "MPI_Finalized after MPI_Finalize");
    c = comm_of(s, "mpi://WORLD", "org.gencomm.test.after");
    sum = 0;
    MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, c);
    CHECK(sum == size, "a session's communicator after MPI_Finalize: %d",
          sum);
    MPI_Comm_free(&c);
    MPI_Session_finalize(&s);
}

int main(int argc, char **argv)
{
    MPI_Session s;
    MPI_Comm world;
    char msg[MPI_MAX_ERROR_STRING];
    int rc, len;

    if (argc < 2) {
        printf("FAIL: usage: ext_sessions 1|3|4|mix|initfail [TEXT]\n");
        return 1;
    }
    if (strcmp(argv[1], "mix") == 0) {
        mode_mix(&argc, &argv);
        return (mpitest_failures == 0) ? 0 : 1;
    }
    rc = MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s);
    if (strcmp(argv[1], "initfail") == 0) {
        MPI_Error_string(rc, msg, &len);
        if (rc != MPI_SUCCESS && argc > 2 && strstr(msg, argv[2]) != NULL) {
            printf("session init failed as expected: %s\n", msg);
            return 0;
        }
        printf("FAIL: MPI_Session_init gave %d: %s\n", rc, msg);
        return 1;
    }
    if (rc != MPI_SUCCESS) {
        MPI_Error_string(rc, msg, &len);
        printf("FAIL: MPI_Session_init: %s\n", msg);
        return 1;
    }
    world = start(s);
    if (strcmp(argv[1], "1") == 0) {
        mode1(s, world);
    } else if (strcmp(argv[1], "3") == 0) {
        mode3(s);
    } else if (strcmp(argv[1], "4") == 0) {
        mode4(s, (argc > 2) ? atoi(argv[2]) : -1);
    }
    MPI_Comm_free(&world);
    MPI_Session_finalize(&s);
    return (mpitest_failures == 0) ? 0 : 1;
}
