/*
 * tests/mpi/hier_basic.c: the SMP hierarchy under emulated hosts.
 *
 * Usage: hier_basic HOSTS [exact | maxdepth=K]
 *   HOSTS  the host name gcrun gave each rank, comma-separated in rank
 *          order (the script that runs it knows what --hosts or --nodes
 *          it passed)
 *   exact  no hwloc level can split a host (ranks unbound or hwloc
 *          off): the levels are exactly world, host and, if some host
 *          has two processes, the process
 *   maxdepth=K  MPIX_MAX_DEPTH must be K (a hwloc level is known to split
 *          the hosts)
 *
 * Checks MPI_Get_processor_name, MPI_COMM_TYPE_SHARED, MPIX_Comm_node,
 * MPIX_Comm_level, MPIX_DEPTH/MPIX_MAX_DEPTH, MPI_COMM_TYPE_HW_GUIDED and
 * _HW_UNGUIDED, and the error paths, against the expected host list.
 */
#include <mpi.h>

#include "mpitest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, size;

static char **hosts;    /* expected host of each rank */

static void parse_hosts(const char *list)
{
    char *copy = strdup(list), *save = NULL, *tok;
    int n = 0;

    hosts = calloc((size_t)size, sizeof(char *));
    for (tok = strtok_r(copy, ",", &save); tok != NULL;
         tok = strtok_r(NULL, ",", &save)) {
        if (n < size) {
            hosts[n] = strdup(tok);
        }
        n++;
    }
    free(copy);
    if (n != size) {
        printf("FAIL: %d expected host names for %d ranks (rank %d)\n", n,
               size, rank);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
}

static int same_host(int a, int b)
{
    return strcmp(hosts[a], hosts[b]) == 0;
}

static int host_count(int r)
{
    int i, n = 0;

    for (i = 0; i < size; i++) {
        n += same_host(i, r);
    }
    return n;
}

static int comm_size(MPI_Comm c)
{
    int n;

    MPI_Comm_size(c, &n);
    return n;
}

/* Is world rank w in c? */
static int holds(MPI_Comm c, int w)
{
    MPI_Group wg, cg;
    int out;

    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    MPI_Comm_group(c, &cg);
    MPI_Group_translate_ranks(wg, 1, &w, cg, &out);
    MPI_Group_free(&wg);
    MPI_Group_free(&cg);
    return out != MPI_UNDEFINED;
}

/* Every member of small is in big. */
static int subset(MPI_Comm small, MPI_Comm big)
{
    int w, ok = 1;

    for (w = 0; w < size; w++) {
        if (holds(small, w) && !holds(big, w)) {
            ok = 0;
        }
    }
    return ok;
}

static int compare(MPI_Comm a, MPI_Comm b)
{
    int result;

    MPI_Comm_compare(a, b, &result);
    return result;
}

static void check_names_and_shared(MPI_Comm *shared)
{
    char name[MPI_MAX_PROCESSOR_NAME];
    int len, w;

    MPI_Get_processor_name(name, &len);
    CHECK(strcmp(name, hosts[rank]) == 0 && len == (int)strlen(name),
          "MPI_Get_processor_name gave '%s', expected '%s'", name,
          hosts[rank]);
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank,
                        MPI_INFO_NULL, shared);
    CHECK(comm_size(*shared) == host_count(rank),
          "SHARED communicator has %d processes, host %s has %d",
          comm_size(*shared), hosts[rank], host_count(rank));
    for (w = 0; w < size; w++) {
        CHECK(holds(*shared, w) == same_host(w, rank),
              "SHARED holds world rank %d: %d, expected %d", w,
              holds(*shared, w), same_host(w, rank));
    }
}

static void check_levels(MPI_Comm shared, int exact, int *maxd_p)
{
    MPI_Comm node, deeper;
    int *val, flag, maxd, depth, l, r, expect_max, one = 1;
    int multi = 0;

    for (r = 0; r < size; r++) {
        multi |= host_count(r) > 1;
    }
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPIX_MAX_DEPTH, &val, &flag);
    CHECK(flag, "MPIX_MAX_DEPTH missing on MPI_COMM_WORLD");
    maxd = flag ? *val : 0;
    MPI_Comm_get_attr(MPI_COMM_SELF, MPIX_DEPTH, &val, &flag);
    CHECK(flag, "MPIX_DEPTH missing on MPI_COMM_SELF");
    depth = flag ? *val : 0;
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPIX_DEPTH, &val, &flag);
    CHECK(!flag, "MPIX_DEPTH set on MPI_COMM_WORLD");
    *maxd_p = maxd;

    CHECK(maxd >= 1, "MPIX_MAX_DEPTH %d < 1", maxd);
    CHECK(depth >= 1 && depth <= maxd, "MPIX_DEPTH %d not in 1..%d", depth,
          maxd);
    /* MAX_DEPTH is the deepest process's depth. */
    MPI_Allreduce(MPI_IN_PLACE, &depth, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    CHECK(depth == maxd, "the largest MPIX_DEPTH %d is not MPIX_MAX_DEPTH "
          "%d", depth, maxd);
    MPI_Comm_get_attr(MPI_COMM_SELF, MPIX_DEPTH, &val, &flag);
    depth = *val;
    if (exact) {
        expect_max = multi ? 2 : 1;
        CHECK(maxd == expect_max, "MPIX_MAX_DEPTH %d, expected %d", maxd,
              expect_max);
        CHECK(depth == (host_count(rank) > 1 ? 2 : 1),
              "MPIX_DEPTH %d with %d processes on the host", depth,
              host_count(rank));
    }

    MPIX_Comm_node(0, &node);
    r = compare(node, MPI_COMM_WORLD);
    CHECK(r == MPI_IDENT || r == MPI_CONGRUENT,
          "MPIX_Comm_node(0) compares %d with MPI_COMM_WORLD", r);
    MPIX_Comm_node(1, &node);
    CHECK(compare(node, shared) == MPI_CONGRUENT ||
          compare(node, shared) == MPI_IDENT,
          "MPIX_Comm_node(1) is not congruent with the SHARED split");
    MPIX_Comm_node(maxd, &node);
    CHECK(comm_size(node) == 1, "MPIX_Comm_node(MAX_DEPTH) has %d "
          "processes", comm_size(node));
    for (l = 0; l <= maxd; l++) {
        MPIX_Comm_node(l, &node);
        CHECK(holds(node, rank), "level %d does not hold this process", l);
        /* The library's communicators carry traffic like any other. */
        MPI_Allreduce(&one, &r, 1, MPI_INT, MPI_SUM, node);
        CHECK(r == comm_size(node), "allreduce over level %d gave %d of %d",
              l, r, comm_size(node));
        if (l >= depth) {
            CHECK(comm_size(node) == 1, "level %d >= depth %d has %d "
                  "processes", l, depth, comm_size(node));
        } else if (l > 0 || size > 1) {
            CHECK(comm_size(node) > 1, "level %d < depth %d is alone", l,
                  depth);
        }
        if (l < maxd) {
            MPIX_Comm_node(l + 1, &deeper);
            CHECK(subset(deeper, node), "level %d is not inside level %d",
                  l + 1, l);
        }
    }
}

static void check_comm_level(int maxd, int exact)
{
    MPI_Comm node, rev;
    int j, lev, lev2, a, b, *val, flag, mydepth, *depths;

    /* A process with itself meets at its depth (the seed's
     * MPI_COMM_NODE[MPI_DEPTH] = MPI_COMM_SELF), whoever asks. */
    MPI_Comm_get_attr(MPI_COMM_SELF, MPIX_DEPTH, &val, &flag);
    mydepth = flag ? *val : -1;
    depths  = malloc((size_t)size * sizeof(int));
    MPI_Allgather(&mydepth, 1, MPI_INT, depths, 1, MPI_INT, MPI_COMM_WORLD);
    for (j = 0; j < size; j++) {
        MPIX_Comm_level(MPI_COMM_WORLD, j, j, &lev);
        CHECK(lev == depths[j], "MPIX_Comm_level(%d, %d) %d, expected its "
              "depth %d", j, j, lev, depths[j]);
        if (exact) {
            CHECK(lev == (host_count(j) > 1 ? 2 : 1), "MPIX_Comm_level(%d, "
                  "%d) %d with %d processes on its host", j, j, lev,
                  host_count(j));
        }
    }
    free(depths);
    for (j = 0; j < size; j++) {
        MPIX_Comm_level(MPI_COMM_WORLD, rank, j, &lev);
        if (j == rank) {
            CHECK(lev == mydepth && lev <= maxd, "MPIX_Comm_level(i, i) %d, "
                  "expected %d", lev, mydepth);
            continue;
        }
        if (same_host(rank, j)) {
            CHECK(lev >= 1 && lev < maxd, "ranks %d and %d on one host: "
                  "level %d", rank, j, lev);
            if (exact) {
                CHECK(lev == 1, "ranks %d, %d on one host: level %d, "
                      "expected 1", rank, j, lev);
            }
        } else {
            CHECK(lev == 0, "ranks %d and %d on two hosts: level %d", rank,
                  j, lev);
        }
        /* The definition: j is in this process's node at lev, and not
         * at lev + 1. */
        MPIX_Comm_node(lev, &node);
        CHECK(holds(node, j), "level %d node does not hold rank %d", lev,
              j);
        if (lev < maxd) {
            MPIX_Comm_node(lev + 1, &node);
            CHECK(!holds(node, j), "level %d node holds rank %d", lev + 1,
                  j);
        }
        MPIX_Comm_level(MPI_COMM_WORLD, j, rank, &lev2);
        CHECK(lev2 == lev, "MPIX_Comm_level not symmetric: %d, %d", lev,
              lev2);
    }
    /* Ranks of another communicator: the world reversed. */
    MPI_Comm_split(MPI_COMM_WORLD, 0, size - rank, &rev);
    for (a = 0; a < size; a++) {
        for (b = 0; b < size; b++) {
            MPIX_Comm_level(rev, a, b, &lev);
            MPIX_Comm_level(MPI_COMM_WORLD, size - 1 - a, size - 1 - b,
                            &lev2);
            CHECK(lev == lev2, "reversed ranks %d, %d: level %d, world %d",
                  a, b, lev, lev2);
        }
    }
    MPI_Comm_free(&rev);
}

static MPI_Comm guided(MPI_Comm comm, const char *value)
{
    MPI_Info info;
    MPI_Comm out;

    MPI_Info_create(&info);
    MPI_Info_set(info, "mpi_hw_resource_type", value);
    MPI_Comm_split_type(comm, MPI_COMM_TYPE_HW_GUIDED, 0, info, &out);
    MPI_Info_free(&info);
    return out;
}

static void check_resource_info(MPI_Comm c, const char *expect)
{
    MPI_Info info;
    char value[MPI_MAX_INFO_VAL + 1];
    int flag = 0;

    MPI_Comm_get_info(c, &info);
    MPI_Info_get(info, "mpi_hw_resource_type", MPI_MAX_INFO_VAL, value,
                 &flag);
    CHECK(flag && (expect == NULL || strcmp(value, expect) == 0),
          "mpi_hw_resource_type of the new communicator: %s",
          flag ? value : "(missing)");
    MPI_Info_free(&info);
}

static void check_hw_split(MPI_Comm shared, int exact)
{
    static const char *const names[] = { "Package", "NUMANode", "L3Cache",
                                         "Core" };
    MPI_Comm c, c2, sub;
    int i, nhosts = 0, r, s;

    c = guided(MPI_COMM_WORLD, "mpi_shared_memory");
    CHECK(c != MPI_COMM_NULL && compare(c, shared) == MPI_CONGRUENT,
          "HW_GUIDED mpi_shared_memory differs from SHARED");
    if (c != MPI_COMM_NULL) {
        check_resource_info(c, "mpi_shared_memory");
        MPI_Comm_free(&c);
    }
    c = guided(MPI_COMM_WORLD, "no_such_resource");
    CHECK(c == MPI_COMM_NULL, "HW_GUIDED with an unknown value is not "
          "MPI_COMM_NULL");
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_GUIDED, 0,
                        MPI_INFO_NULL, &c);
    CHECK(c == MPI_COMM_NULL, "HW_GUIDED without info is not "
          "MPI_COMM_NULL");
    for (i = 0; i < 4; i++) {
        char prefixed[64];

        snprintf(prefixed, sizeof(prefixed), "hwloc://%s", names[i]);
        c  = guided(MPI_COMM_WORLD, prefixed);
        c2 = guided(MPI_COMM_WORLD, names[i]);
        CHECK((c == MPI_COMM_NULL) == (c2 == MPI_COMM_NULL),
              "HW_GUIDED %s and %s differ", prefixed, names[i]);
        if (c != MPI_COMM_NULL) {
            CHECK(subset(c, shared), "HW_GUIDED %s crosses hosts",
                  prefixed);
            check_resource_info(c, names[i]);
            if (c2 != MPI_COMM_NULL) {
                CHECK(compare(c, c2) == MPI_CONGRUENT,
                      "HW_GUIDED %s and %s differ", prefixed, names[i]);
            }
        }
        if (c != MPI_COMM_NULL) {
            MPI_Comm_free(&c);
        }
        if (c2 != MPI_COMM_NULL) {
            MPI_Comm_free(&c2);
        }
    }

    for (r = 0; r < size; r++) {
        int first = 1, q;

        for (q = 0; q < r; q++) {
            first &= !same_host(q, r);
        }
        nhosts += first;
    }
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_UNGUIDED, 0,
                        MPI_INFO_NULL, &c);
    if (nhosts > 1) {
        CHECK(c != MPI_COMM_NULL && compare(c, shared) == MPI_CONGRUENT,
              "HW_UNGUIDED on the world with %d hosts is not the host "
              "split", nhosts);
    } else {
        CHECK(c == MPI_COMM_NULL || comm_size(c) < size,
              "HW_UNGUIDED gave a communicator as large as the world");
    }
    /* Down from the host: strictly smaller each time, then NULL. */
    sub = shared;
    s = comm_size(shared);
    for (i = 0; i < 8; i++) {
        MPI_Comm next;

        MPI_Comm_split_type(sub, MPI_COMM_TYPE_HW_UNGUIDED, 0, MPI_INFO_NULL,
                            &next);
        if (next == MPI_COMM_NULL) {
            break;
        }
        check_resource_info(next, NULL);
        CHECK(comm_size(next) < s && subset(next, sub),
              "HW_UNGUIDED gave %d processes out of %d", comm_size(next), s);
        CHECK(!exact, "HW_UNGUIDED split a host with no hwloc level");
        s = comm_size(next);
        if (sub != shared) {
            MPI_Comm_free(&sub);
        }
        sub = next;
    }
    if (sub != shared) {
        MPI_Comm_free(&sub);
    }
    if (c != MPI_COMM_NULL) {
        MPI_Comm_free(&c);
    }
}

static void check_errors(int maxd)
{
    MPI_Comm node;
    int rc, cls, lev;

    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    rc = MPIX_Comm_node(-1, &node);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_ARG, "MPIX_Comm_node(-1): class %d", cls);
    rc = MPIX_Comm_node(maxd + 1, &node);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_ARG, "MPIX_Comm_node(MAX_DEPTH + 1): class %d",
          cls);
    rc = MPIX_Comm_node(0, NULL);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_ARG, "MPIX_Comm_node(0, NULL): class %d", cls);
    rc = MPIX_Comm_level(MPI_COMM_WORLD, size, 0, &lev);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_RANK, "MPIX_Comm_level(size, 0): class %d", cls);
    rc = MPIX_Comm_level(MPI_COMM_WORLD, 0, -1, &lev);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_RANK, "MPIX_Comm_level(0, -1): class %d", cls);
    rc = MPIX_Comm_level(MPI_COMM_WORLD, 0, 0, NULL);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_ARG, "MPIX_Comm_level(level NULL): class %d", cls);
    rc = MPIX_Comm_level(MPI_COMM_NULL, 0, 0, &lev);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_COMM, "MPIX_Comm_level(MPI_COMM_NULL): class %d",
          cls);
    /* The library's communicators cannot be freed (the handle stays). */
    for (lev = 0; lev <= maxd; lev++) {
        MPI_Comm copy;

        MPIX_Comm_node(lev, &node);
        copy = node;
        MPI_Comm_set_errhandler(node, MPI_ERRORS_RETURN);
        rc = MPI_Comm_free(&copy);
        MPI_Error_class(rc, &cls);
        CHECK(cls == MPI_ERR_COMM, "MPI_Comm_free of level %d: class %d",
              lev, cls);
        CHECK(copy == node, "MPI_Comm_free changed the handle of level %d",
              lev);
    }
    rc = MPI_Comm_split_type(MPI_COMM_WORLD, 42, 0, MPI_INFO_NULL, &node);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_ARG, "MPI_Comm_split_type(42): class %d", cls);
}

int main(int argc, char **argv)
{
    MPI_Comm shared;
    int exact, maxd = 0, total, want_maxd = -1;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc < 2) {
        printf("FAIL: usage: hier_basic HOSTS [exact] (rank %d)\n", rank);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    parse_hosts(argv[1]);
    exact = argc > 2 && strcmp(argv[2], "exact") == 0;
    if (argc > 2 && strncmp(argv[2], "maxdepth=", 9) == 0) {
        want_maxd = atoi(argv[2] + 9);
    }

    check_names_and_shared(&shared);
    check_levels(shared, exact, &maxd);
    CHECK(want_maxd < 0 || maxd == want_maxd, "MPIX_MAX_DEPTH %d, expected "
          "%d", maxd, want_maxd);
    check_comm_level(maxd, exact);
    check_hw_split(shared, exact);
    check_errors(maxd);
    MPI_Comm_free(&shared);

    MPI_Allreduce(&mpitest_failures, &total, 1, MPI_INT, MPI_SUM,
                  MPI_COMM_WORLD);
    if (rank == 0 && total == 0) {
        printf("hier_basic: %d processes, MPIX_MAX_DEPTH %d: OK\n", size,
               maxd);
    }
    for (int r = 0; r < size; r++) {
        free(hosts[r]);
    }
    free(hosts);
    MPI_Finalize();
    return total == 0 ? 0 : 1;
}
