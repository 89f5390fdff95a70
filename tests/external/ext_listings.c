/*
 * tests/external/ext_listings.c: the seed's listings as a program would
 * use them, checked against what each process's processor name says.
 *
 * Usage: ext_listings WHICH   (GENCOMM_EXTERNAL names the file)
 *   1       Listing 1: MPI_COMM_OCEAN by cluster regex, MPI_COMM_ATMOS by
 *           node list with CPU_SPEED per node, MPI_COMM_INTER between
 *           them (sizes, data across), attributes, the conversions
 *   3       Listing 3: its MPI_COMM_OCEAN expression refused on foo's
 *           processes, MPI_COMM_ATMOS ranks from reorder="k",
 *           MPI_COMM_OCEAN_FIXED ranks from the corrected expression
 *   4 [CUT] Listing 4: the virtual topologies (rank and expression
 *           edges); with CUT, reorder="true" must leave exactly CUT
 *           edges of each chain between two nodes
 *   5       Listing 5: MPI_COMM_REMAP of every process with its ring
 *   extras  extras.xml: info and attributes at every level, their
 *           precedence, MPI_COMM_WORLD's own, an unknown name
 *
 * The processes run on emulated hosts named cluster:node; the expected
 * results are computed here from the processor names of all processes,
 * by the rules docs/external.md states, so that any layout of 4 to 9
 * processes can be used.
 */
#include <mpi.h>

#include "../mpi/mpitest.h"
#include "ext_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, size;
static int want_cut = -1;   /* listing 4's CUT, or -1 */

static int comm_size(MPI_Comm c)
{
    int n = -1;

    MPI_Comm_size(c, &n);
    return n;
}

static int comm_rank(MPI_Comm c)
{
    int r = -1;

    MPI_Comm_rank(c, &r);
    return r;
}

static void check_attr(MPI_Comm c, const char *key, const char *want,
                       const char *what)
{
    const char *got = attr(c, key);

    if (want == NULL) {
        CHECK(got == NULL, "%s: attribute %s is \"%s\", expected none", what,
              key, got);
    } else {
        CHECK(got != NULL && strcmp(got, want) == 0,
              "%s: attribute %s is %s%s%s, expected \"%s\"", what, key,
              got ? "\"" : "", got ? got : "missing", got ? "\"" : "", want);
    }
}

/* The world ranks of the processes for which member() holds, in world
 * order; returns how many. */
static int members_of(int (*member)(int p), int out[])
{
    int p, n = 0;

    for (p = 0; p < size; p++) {
        if (member(p)) {
            out[n++] = p;
        }
    }
    return n;
}

static int is_foo(int p)
{
    return in_cluster(p, "foo");
}

static int is_bar_node(int p)
{
    static const char *const nodes[] = { "bar:00", "bar:01", "bar:02",
                                         "bar:03" };
    int i;

    for (i = 0; i < 4; i++) {
        if (strcmp(names[p], nodes[i]) == 0) {
            return 1;
        }
    }
    return 0;
}

static int is_bar(int p)
{
    return in_cluster(p, "bar");
}

/* Checks that c holds exactly the world ranks want[0..n-1] in that rank
 * order. */
static void check_group(MPI_Comm c, const int *want, int n, const char *what)
{
    MPI_Group g, wg;
    int r, *in, *out;

    CHECK(comm_size(c) == n, "%s: size %d, expected %d", what, comm_size(c),
          n);
    if (comm_size(c) != n) {
        return;
    }
    in  = malloc((size_t)n * sizeof(int));
    out = malloc((size_t)n * sizeof(int));
    for (r = 0; r < n; r++) {
        in[r] = r;
    }
    MPI_Comm_group(c, &g);
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    MPI_Group_translate_ranks(g, n, in, wg, out);
    for (r = 0; r < n; r++) {
        CHECK(out[r] == want[r], "%s: rank %d is world rank %d, expected %d",
              what, r, out[r], want[r]);
    }
    MPI_Group_free(&g);
    MPI_Group_free(&wg);
    free(in);
    free(out);
}

static const char *cpu_speed_of_bar(const char *node)
{
    if (strcmp(node, "bar:00") == 0 || strcmp(node, "bar:03") == 0) {
        return "2.0";
    }
    if (strcmp(node, "bar:01") == 0) {
        return "2.2";
    }
    return "1.8";
}

/* ---- Listing 1 ---------------------------------------------------------- */

static void listing1(void)
{
    MPI_Comm MPI_COMM_OCEAN = MPI_COMM_NULL, MPI_COMM_ATMOS = MPI_COMM_NULL;
    MPI_Comm MPI_COMM_INTER = MPI_COMM_NULL;
    int ocean[16], atmos[16], nocean, natmos, flag, DEPTH, NOPE;
    int inter, lsize, rsize, p;
    long mine, sum, want;

    nocean = members_of(is_foo, ocean);
    natmos = members_of(is_bar_node, atmos);

    /* Listing 2, as the seed writes it. */
    MPIX_Comm_external_(MPI_COMM_OCEAN, &flag);
    CHECK(flag == is_foo(rank), "MPI_COMM_OCEAN: flag %d", flag);
    CHECK((MPI_COMM_OCEAN != MPI_COMM_NULL) == flag,
          "MPI_COMM_OCEAN: handle and flag disagree");
    if (flag) {
        check_group(MPI_COMM_OCEAN, ocean, nocean, "MPI_COMM_OCEAN");
        MPIX_Keyval_external_(DEPTH, &flag);
        CHECK(flag == 1, "no keyval for DEPTH");
        if (flag) {
            char *value = NULL;

            MPI_Attr_get(MPI_COMM_OCEAN, DEPTH, &value, &flag);
            CHECK(flag && strcmp(value, "3.8km") == 0, "DEPTH on ocean");
        }
        check_attr(MPI_COMM_OCEAN, "CPU_SPEED", "2.2", "MPI_COMM_OCEAN");
        check_attr(MPI_COMM_OCEAN, "PRESSURE", NULL, "MPI_COMM_OCEAN");
    }
    MPIX_Keyval_external_(NOPE, &flag);
    CHECK(flag == 0, "a keyval for NOPE, which no definition has");

    MPIX_Comm_external_(MPI_COMM_ATMOS, &flag);
    CHECK(flag == is_bar_node(rank), "MPI_COMM_ATMOS: flag %d", flag);
    if (flag) {
        check_group(MPI_COMM_ATMOS, atmos, natmos, "MPI_COMM_ATMOS");
        check_attr(MPI_COMM_ATMOS, "PRESSURE", "101.325kPa",
                   "MPI_COMM_ATMOS");
        check_attr(MPI_COMM_ATMOS, "CPU_SPEED", cpu_speed_of_bar(names[rank]),
                   "MPI_COMM_ATMOS");
        check_attr(MPI_COMM_ATMOS, "DEPTH", NULL, "MPI_COMM_ATMOS");
    }
    /* Attributes are per communicator: MPI_COMM_WORLD has none here. */
    check_attr(MPI_COMM_WORLD, "DEPTH", NULL, "MPI_COMM_WORLD");

    MPIX_Comm_external_(MPI_COMM_INTER, &flag);
    CHECK(flag == (is_foo(rank) || is_bar_node(rank)),
          "MPI_COMM_INTER: flag %d", flag);
    if (flag) {
        MPI_Comm_test_inter(MPI_COMM_INTER, &inter);
        CHECK(inter, "MPI_COMM_INTER is not an intercommunicator");
        MPI_Comm_size(MPI_COMM_INTER, &lsize);
        MPI_Comm_remote_size(MPI_COMM_INTER, &rsize);
        CHECK(lsize == (is_foo(rank) ? nocean : natmos) &&
              rsize == (is_foo(rank) ? natmos : nocean),
              "MPI_COMM_INTER: sizes %d/%d", lsize, rsize);
        /* Across: each process gets the sum of the other group's world
         * ranks. */
        mine = rank;
        MPI_Allreduce(&mine, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_INTER);
        want = 0;
        for (p = 0; p < size; p++) {
            if (is_foo(rank) ? is_bar_node(p) : is_foo(p)) {
                want += p;
            }
        }
        CHECK(sum == want, "MPI_COMM_INTER: remote sum %ld, expected %ld",
              sum, want);
        MPI_Comm_free(&MPI_COMM_INTER);
    }

    if (MPI_COMM_OCEAN != MPI_COMM_NULL) {
        MPI_Info info, extra;
        char value[MPI_MAX_INFO_VAL + 1];
        MPI_Comm dup;
        int n;

        /* Attributes -> info, and back onto another communicator. */
        MPIX_Comm_attrs_to_info(MPI_COMM_OCEAN, &info);
        MPI_Info_get_nkeys(info, &n);
        CHECK(n == 2, "MPIX_Comm_attrs_to_info: %d keys, expected 2", n);
        MPI_Info_get(info, "DEPTH", MPI_MAX_INFO_VAL, value, &flag);
        CHECK(flag && strcmp(value, "3.8km") == 0, "info DEPTH");
        MPI_Comm_dup(MPI_COMM_WORLD, &dup);
        check_attr(dup, "DEPTH", NULL, "a duplicate of the world");
        MPI_Info_create(&extra);
        MPI_Info_set(extra, "SALINITY", "35psu");
        MPIX_Info_to_attrs(dup, info);
        MPIX_Info_to_attrs(dup, extra);
        check_attr(dup, "DEPTH", "3.8km", "after MPIX_Info_to_attrs");
        check_attr(dup, "SALINITY", "35psu", "after MPIX_Info_to_attrs");
        MPI_Info_free(&info);
        MPI_Info_free(&extra);
        MPI_Comm_free(&dup);
        /* A duplicate of an external communicator copies its strings. */
        MPI_Comm_dup(MPI_COMM_OCEAN, &dup);
        MPI_Comm_free(&MPI_COMM_OCEAN);
        check_attr(dup, "DEPTH", "3.8km", "a duplicate of MPI_COMM_OCEAN");
        MPI_Comm_free(&dup);
    }
    if (MPI_COMM_ATMOS != MPI_COMM_NULL) {
        MPI_Comm_free(&MPI_COMM_ATMOS);
    }
}

/* ---- Listing 3 ---------------------------------------------------------- */

/* Sorted by processor name, ties by world rank: NAMERANK. */
static int namerank_of(const int *members, int n, int p)
{
    int i, r = 0;

    for (i = 0; i < n; i++) {
        int q = members[i];
        int c = strcmp(names[q], names[p]);

        r += (c < 0) || (c == 0 && q < p);
    }
    return r;
}

static void expect_error(int rc, const char *what, const char *text)
{
    char msg[MPI_MAX_ERROR_STRING];
    int len;

    CHECK(rc != MPI_SUCCESS, "%s succeeded; expected an error", what);
    if (rc == MPI_SUCCESS) {
        return;
    }
    MPI_Error_string(rc, msg, &len);
    CHECK(strstr(msg, text) != NULL, "%s: message \"%s\" lacks \"%s\"", what,
          msg, text);
}

static void listing3(void)
{
    MPI_Comm MPI_COMM_OCEAN, MPI_COMM_ATMOS, MPI_COMM_OCEAN_FIXED;
    int foo[16], atmos[16], want[16], used[16], nfoo, natmos, flag, rc, i;
    int k, ok;
    static const int k_of[4] = { 0, 1, 3, 2 };

    nfoo   = members_of(is_foo, foo);
    natmos = members_of(is_bar_node, atmos);

    /* The seed's expression is no permutation: foo's processes report
     * it (if foo has two or more), the others get flag 0. */
    rc = MPIX_Comm_external_(MPI_COMM_OCEAN, &flag);
    if (is_foo(rank) && nfoo >= 2) {
        expect_error(rc, "MPI_COMM_OCEAN", "not a permutation");
        expect_error(rc, "MPI_COMM_OCEAN", "listing3.xml:10:");
    } else {
        CHECK(rc == MPI_SUCCESS && flag == (nfoo == 1 && is_foo(rank)),
              "MPI_COMM_OCEAN: rc %d flag %d", rc, flag);
    }

    /* reorder="k": bar:00 0, bar:01 1, bar:02 3, bar:03 2; a
     * permutation only if every k is below the size, once. */
    ok = 1;
    memset(used, 0, sizeof(used));
    for (i = 0; i < natmos; i++) {
        k = k_of[names[atmos[i]][5] - '0'];
        if (k >= natmos || used[k]) {
            ok = 0;
        } else {
            used[k] = 1;
            want[k] = atmos[i];
        }
    }
    rc = MPIX_Comm_external_(MPI_COMM_ATMOS, &flag);
    if (!is_bar_node(rank)) {
        CHECK(rc == MPI_SUCCESS && flag == 0, "MPI_COMM_ATMOS: rc %d flag "
              "%d outside it", rc, flag);
    } else if (ok) {
        CHECK(rc == MPI_SUCCESS && flag == 1, "MPI_COMM_ATMOS: rc %d", rc);
        if (flag) {
            check_group(MPI_COMM_ATMOS, want, natmos, "MPI_COMM_ATMOS");
            MPI_Comm_free(&MPI_COMM_ATMOS);
        }
    } else {
        expect_error(rc, "MPI_COMM_ATMOS", "not a permutation");
    }

    /* The corrected expression: the perfect shuffle of the NAMERANKs, a
     * permutation when foo has an even number of processes. */
    rc = MPIX_Comm_external_(MPI_COMM_OCEAN_FIXED, &flag);
    if (!is_foo(rank)) {
        CHECK(rc == MPI_SUCCESS && flag == 0, "MPI_COMM_OCEAN_FIXED outside "
              "foo: rc %d flag %d", rc, flag);
    } else if (nfoo % 2 == 0) {
        for (i = 0; i < nfoo; i++) {
            int nr = namerank_of(foo, nfoo, foo[i]);
            int r  = (nr == nfoo - 1) ? nr : (2 * nr) % (nfoo - 1);

            want[r] = foo[i];
        }
        CHECK(rc == MPI_SUCCESS && flag == 1, "MPI_COMM_OCEAN_FIXED: rc %d",
              rc);
        if (flag) {
            check_group(MPI_COMM_OCEAN_FIXED, want, nfoo,
                        "MPI_COMM_OCEAN_FIXED");
            MPI_Comm_free(&MPI_COMM_OCEAN_FIXED);
        }
    } else if (nfoo > 1) {
        expect_error(rc, "MPI_COMM_OCEAN_FIXED", "not a permutation");
    }
}

/* ---- Listings 4 and 5: topologies ------------------------------------------ */

/* Checks that c is a graph whose neighbours of rank r are exactly those
 * of nbr(r, n) (up to two, -1 for none). */
static void check_graph(MPI_Comm c, void (*nbr)(int r, int n, int out[2]),
                        const char *what)
{
    int n = comm_size(c), r, status, count, got[8], want[2], i, nwant;

    MPI_Topo_test(c, &status);
    CHECK(status == MPI_GRAPH, "%s: MPI_Topo_test gives %d", what, status);
    if (status != MPI_GRAPH) {
        return;
    }
    for (r = 0; r < n; r++) {
        nbr(r, n, want);
        nwant = (want[0] >= 0) + (want[1] >= 0 && want[1] != want[0]);
        MPI_Graph_neighbors_count(c, r, &count);
        CHECK(count == nwant, "%s: rank %d has %d neighbours, expected %d",
              what, r, count, nwant);
        if (count != nwant || count > 8) {
            continue;
        }
        MPI_Graph_neighbors(c, r, 8, got);
        for (i = 0; i < count; i++) {
            CHECK(got[i] == want[0] || got[i] == want[1],
                  "%s: rank %d has neighbour %d", what, r, got[i]);
        }
    }
}

/* How many edges of graph communicator c join two processes of
 * different nodes. */
static int cut_edges(MPI_Comm c)
{
    MPI_Group g, wg;
    int n = comm_size(c), r, i, count, nbrs[8], in[16], world[16], cut = 0;

    MPI_Comm_group(c, &g);
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    for (r = 0; r < n; r++) {
        in[r] = r;
    }
    MPI_Group_translate_ranks(g, n, in, wg, world);
    MPI_Group_free(&g);
    MPI_Group_free(&wg);
    for (r = 0; r < n; r++) {
        MPI_Graph_neighbors_count(c, r, &count);
        MPI_Graph_neighbors(c, r, 8, nbrs);
        for (i = 0; i < count && i < 8; i++) {
            cut += nbrs[i] > r && strcmp(names[world[r]],
                                         names[world[nbrs[i]]]) != 0;
        }
    }
    return cut;
}

static void chain(int r, int n, int out[2])
{
    out[0] = (r > 0) ? r - 1 : -1;
    out[1] = (r + 1 < n) ? r + 1 : -1;
    if (out[0] < 0) {
        out[0] = out[1];
        out[1] = -1;
    }
}

static void chain4(int r, int n, int out[2])
{
    (void)n;
    chain(r, 4, out);
}

static void ring(int r, int n, int out[2])
{
    if (n == 1) {
        out[0] = out[1] = -1;
        return;
    }
    out[0] = (r + 1) % n;
    out[1] = (r + n - 1) % n;
}

static void listing4(void)
{
    MPI_Comm MPI_COMM_OCEAN, MPI_COMM_ATMOS;
    int foo[16], bar[16], nfoo, nbar, flag, rc, left, right, got[2];

    nfoo = members_of(is_foo, foo);
    nbar = members_of(is_bar, bar);
    /* Rank edges 3-2, 2-1, 1-0: foo needs four processes. */
    rc = MPIX_Comm_external_(MPI_COMM_OCEAN, &flag);
    if (!is_foo(rank)) {
        CHECK(rc == MPI_SUCCESS && flag == 0, "MPI_COMM_OCEAN outside foo");
    } else if (nfoo < 4) {
        expect_error(rc, "MPI_COMM_OCEAN", "is not a rank of MPI_COMM_OCEAN");
    } else {
        CHECK(rc == MPI_SUCCESS && flag, "MPI_COMM_OCEAN: rc %d", rc);
        if (flag) {
            check_graph(MPI_COMM_OCEAN, chain4, "MPI_COMM_OCEAN");
            CHECK(want_cut < 0 || cut_edges(MPI_COMM_OCEAN) == want_cut,
                  "MPI_COMM_OCEAN: %d chain edges between nodes, expected "
                  "%d", cut_edges(MPI_COMM_OCEAN), want_cut);
            MPI_Comm_free(&MPI_COMM_OCEAN);
        }
    }
    /* COMMRANK to (COMMRANK-1)*(COMMRANK>0): a chain, evaluated by
     * every member for itself. */
    rc = MPIX_Comm_external_(MPI_COMM_ATMOS, &flag);
    CHECK(rc == MPI_SUCCESS && flag == is_bar(rank), "MPI_COMM_ATMOS: rc %d "
          "flag %d", rc, flag);
    if (flag) {
        CHECK(comm_size(MPI_COMM_ATMOS) == nbar, "MPI_COMM_ATMOS size");
        check_graph(MPI_COMM_ATMOS, chain, "MPI_COMM_ATMOS");
        CHECK(want_cut < 0 || cut_edges(MPI_COMM_ATMOS) == want_cut,
              "MPI_COMM_ATMOS: %d chain edges between nodes, expected %d",
              cut_edges(MPI_COMM_ATMOS), want_cut);
        /* Data along the chain. */
        chain(comm_rank(MPI_COMM_ATMOS), nbar, got);
        left  = (comm_rank(MPI_COMM_ATMOS) > 0) ?
                comm_rank(MPI_COMM_ATMOS) - 1 : MPI_PROC_NULL;
        right = (comm_rank(MPI_COMM_ATMOS) + 1 < nbar) ?
                comm_rank(MPI_COMM_ATMOS) + 1 : MPI_PROC_NULL;
        got[0] = -1;
        MPI_Sendrecv(&rank, 1, MPI_INT, right, 0, &got[0], 1, MPI_INT, left,
                     0, MPI_COMM_ATMOS, MPI_STATUS_IGNORE);
        if (left != MPI_PROC_NULL) {
            MPI_Group g, wg;
            int w;

            MPI_Comm_group(MPI_COMM_ATMOS, &g);
            MPI_Comm_group(MPI_COMM_WORLD, &wg);
            MPI_Group_translate_ranks(g, 1, &left, wg, &w);
            CHECK(got[0] == w, "MPI_COMM_ATMOS: from the left %d, expected "
                  "%d", got[0], w);
            MPI_Group_free(&g);
            MPI_Group_free(&wg);
        }
        MPI_Comm_free(&MPI_COMM_ATMOS);
    }
}

/* Are these the seed's eight nodes, each once? */
static int seed_layout(void)
{
    static const char *const nodes[] = {
        "foo:00", "foo:01", "foo:02", "foo:03",
        "bar:00", "bar:01", "bar:02", "bar:03"
    };
    int i, p, found;

    if (size != 8) {
        return 0;
    }
    for (i = 0; i < 8; i++) {
        for (p = 0, found = 0; p < size; p++) {
            found += strcmp(names[p], nodes[i]) == 0;
        }
        if (found != 1) {
            return 0;
        }
    }
    return 1;
}

/* Are processes a and b the nodes x and y, in either order? */
static int linked(int a, int b, const char *x, const char *y)
{
    return (strcmp(names[a], x) == 0 && strcmp(names[b], y) == 0) ||
           (strcmp(names[a], y) == 0 && strcmp(names[b], x) == 0);
}

static void listing5(void)
{
    MPI_Comm MPI_COMM_REMAP;
    MPI_Group g, wg;
    int flag, rc, result, n, r, left, right, got = -1, want;

    rc = MPIX_Comm_external_(MPI_COMM_REMAP, &flag);
    CHECK(rc == MPI_SUCCESS && flag == 1, "MPI_COMM_REMAP: rc %d flag %d",
          rc, flag);
    if (!flag) {
        return;
    }
    n = comm_size(MPI_COMM_REMAP);
    r = comm_rank(MPI_COMM_REMAP);
    CHECK(n == size, "MPI_COMM_REMAP has %d processes, expected %d", n,
          size);
    MPI_Comm_group(MPI_COMM_REMAP, &g);
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    MPI_Group_compare(g, wg, &result);
    CHECK(result == MPI_IDENT || result == MPI_SIMILAR, "MPI_COMM_REMAP's "
          "group is not the world's (%d)", result);
    check_graph(MPI_COMM_REMAP, ring, "MPI_COMM_REMAP");
    /* Around the ring, whatever order the mapping chose. */
    left  = (r + n - 1) % n;
    right = (r + 1) % n;
    MPI_Sendrecv(&rank, 1, MPI_INT, right, 5, &got, 1, MPI_INT, left, 5,
                 MPI_COMM_REMAP, MPI_STATUS_IGNORE);
    MPI_Group_translate_ranks(g, 1, &left, wg, &want);
    CHECK(got == want, "MPI_COMM_REMAP: from the left %d, expected %d", got,
          want);
    /* On the seed's eight nodes, the ring is placed on the machine of
     * the physical topology: every ring edge joins two nodes of one
     * cluster or a gateway pair (the order given, world order, would
     * join bar:03 and foo:00, which are not linked). */
    if (seed_layout()) {
        for (r = 0; r < n; r++) {
            int a, b, ends[2];

            ends[0] = r;
            ends[1] = (r + 1) % n;
            MPI_Group_translate_ranks(g, 2, ends, wg, ends);
            a = ends[0];
            b = ends[1];
            CHECK(strncmp(names[a], names[b], 3) == 0 ||
                  linked(a, b, "foo:03", "bar:00") ||
                  linked(a, b, "foo:02", "bar:01"),
                  "MPI_COMM_REMAP: ring edge %d-%d joins %s and %s, which "
                  "are not linked", r, (r + 1) % n, names[a], names[b]);
        }
    }
    MPI_Group_free(&g);
    MPI_Group_free(&wg);
    MPI_Comm_free(&MPI_COMM_REMAP);
}

/* ---- extras.xml ----------------------------------------------------------- */

static void check_info(MPI_Info info, const char *key, const char *want,
                       const char *what)
{
    char value[MPI_MAX_INFO_VAL + 1];
    int flag = 0;

    MPI_Info_get(info, key, MPI_MAX_INFO_VAL, value, &flag);
    if (want == NULL) {
        CHECK(!flag, "%s: info %s is \"%s\", expected none", what, key,
              value);
    } else {
        CHECK(flag && strcmp(value, want) == 0, "%s: info %s is %s, "
              "expected \"%s\"", what, key, flag ? value : "missing", want);
    }
}

static void extras(void)
{
    MPI_Comm MPI_COMM_SCOPES, MPI_COMM_NOWHERE, c;
    MPI_Info info;
    int flag, nkeys, is00;

    /* MPI_COMM_WORLD's own: SITE everywhere, ROLE per cluster. */
    check_attr(MPI_COMM_WORLD, "SITE", "aachen", "MPI_COMM_WORLD");
    check_attr(MPI_COMM_WORLD, "ROLE", is_foo(rank) ? "ocean" :
               is_bar(rank) ? "atmosphere" : "none", "MPI_COMM_WORLD");
    MPIX_Info_external(MPI_COMM_WORLD, &info);
    check_info(info, "gencomm_site", "aachen", "MPI_COMM_WORLD");
    MPI_Info_free(&info);
    MPIX_Comm_external(&c, "MPI_COMM_WORLD", &flag);
    CHECK(flag == 1 && c == MPI_COMM_WORLD, "MPI_COMM_WORLD by name");

    /* Every process; the innermost level wins, key by key. */
    MPIX_Comm_external_(MPI_COMM_SCOPES, &flag);
    CHECK(flag == 1, "MPI_COMM_SCOPES: flag %d", flag);
    if (flag) {
        is00 = strcmp(names[rank], "foo:00") == 0;
        check_attr(MPI_COMM_SCOPES, "LEVEL",
                   is00 ? "node" : is_foo(rank) ? "cluster" : "comm",
                   "MPI_COMM_SCOPES");
        check_attr(MPI_COMM_SCOPES, "FROM_COMM", "yes", "MPI_COMM_SCOPES");
        check_attr(MPI_COMM_SCOPES, "FROM_NODE", is00 ? "yes" : NULL,
                   "MPI_COMM_SCOPES");
        MPIX_Info_external(MPI_COMM_SCOPES, &info);
        MPI_Info_get_nkeys(info, &nkeys);
        check_info(info, "hint", is00 ? "node" : is_foo(rank) ? "cluster" :
                   "comm", "MPI_COMM_SCOPES");
        check_info(info, "only_foo", is_foo(rank) ? "1" : NULL,
                   "MPI_COMM_SCOPES");
        CHECK(nkeys == (is_foo(rank) ? 2 : 1), "MPI_COMM_SCOPES: %d info "
              "keys", nkeys);
        MPI_Info_free(&info);
        /* Duplicates keep the info. */
        MPI_Comm_dup(MPI_COMM_SCOPES, &c);
        MPIX_Info_external(c, &info);
        check_info(info, "hint", is00 ? "node" : is_foo(rank) ? "cluster" :
                   "comm", "a duplicate of MPI_COMM_SCOPES");
        MPI_Info_free(&info);
        MPI_Comm_free(&c);
        MPI_Comm_free(&MPI_COMM_SCOPES);
    }
    /* A communicator no process belongs to, and a name nobody defined. */
    MPIX_Comm_external_(MPI_COMM_NOWHERE, &flag);
    CHECK(flag == 0 && MPI_COMM_NOWHERE == MPI_COMM_NULL,
          "MPI_COMM_NOWHERE: flag %d", flag);
    MPIX_Comm_external(&c, "MPI_COMM_UNDEFINED_HERE", &flag);
    CHECK(flag == 0 && c == MPI_COMM_NULL, "an undefined name: flag %d",
          flag);
    /* Info of a communicator the file did not make: empty. */
    MPIX_Info_external(MPI_COMM_SELF, &info);
    MPI_Info_get_nkeys(info, &nkeys);
    CHECK(nkeys == 0, "MPI_COMM_SELF has %d external info keys", nkeys);
    MPI_Info_free(&info);
}

int main(int argc, char **argv)
{

    mpitest_init(&argc, &argv, "ext_listings", 1);
    rank = mpitest_rank;
    size = mpitest_size;
    if (argc == 3 && strcmp(argv[1], "4") == 0) {
        want_cut = atoi(argv[2]);
        argc--;
    }
    if (size > 16 || argc != 2) {
        printf("FAIL: usage: ext_listings 1|3|4 [CUT]|5|extras, at most 16 "
               "processes\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    gather_names(MPI_COMM_WORLD, rank, size);
    if (strcmp(argv[1], "1") == 0) {
        listing1();
    } else if (strcmp(argv[1], "3") == 0) {
        listing3();
    } else if (strcmp(argv[1], "4") == 0) {
        listing4();
    } else if (strcmp(argv[1], "5") == 0) {
        listing5();
    } else {
        extras();
    }
    return mpitest_finish();
}
