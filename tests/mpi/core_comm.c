/*
 * tests/mpi/core_comm.c: communicators (MPI-3.1 chapter 6): size and rank,
 * dup (isolated traffic), compare, split (colors, MPI_UNDEFINED, keys),
 * split_type, create, create_group, groups, names, idup, dup_with_info,
 * free and its errors, MPI_COMM_SELF, many dups and splits in a loop.
 */
#include <mpi.h>

#include "mpitest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank = -1, size;

#define RUN(test)                                                        \
    do {                                                                 \
        mpitest_announce(#test);                                         \
        test();                                                          \
    } while (0)

static void expect_class(int rc, int want, const char *what)
{
    int cls = -1;

    MPI_Error_class(rc, &cls);
    CHECK(cls == want, "%s: error class %d, want %d", what, cls, want);
}

/* Checks that comm works: a ring exchange of world ranks, where
 * world_of[r] is the world rank expected at rank r of comm. */
static void check_ring(MPI_Comm comm, const int world_of[], const char *what)
{
    int n, me, right, left, got = -1;
    MPI_Status st;

    MPI_Comm_size(comm, &n);
    MPI_Comm_rank(comm, &me);
    right = (me + 1) % n;
    left  = (me + n - 1) % n;
    CHECK(MPI_Sendrecv(&rank, 1, MPI_INT, right, 77, &got, 1, MPI_INT, left,
                       77, comm, &st) == MPI_SUCCESS, "%s: ring", what);
    CHECK(got == world_of[left] && st.MPI_SOURCE == left,
          "%s: from rank %d got world rank %d, want %d", what, left, got,
          world_of[left]);
}

/* comm's group translated to world ranks must be world_of[]. */
static void check_group(MPI_Comm comm, const int world_of[],
                        const char *what)
{
    MPI_Group g, wg;
    int n, i, *r, *w;

    MPI_Comm_size(comm, &n);
    r = malloc((size_t)n * sizeof(int));
    w = malloc((size_t)n * sizeof(int));
    for (i = 0; i < n; i++) {
        r[i] = i;
    }
    MPI_Comm_group(comm, &g);
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    CHECK(MPI_Group_translate_ranks(g, n, r, wg, w) == MPI_SUCCESS,
          "%s: translate ranks", what);
    for (i = 0; i < n; i++) {
        CHECK(w[i] == world_of[i], "%s: rank %d is world %d, want %d", what,
              i, w[i], world_of[i]);
    }
    MPI_Group_free(&g);
    MPI_Group_free(&wg);
    free(r);
    free(w);
}

static int *identity(int n)
{
    int *a = malloc((size_t)(n + 1) * sizeof(int)), i;

    for (i = 0; i < n; i++) {
        a[i] = i;
    }
    return a;
}

static void test_basics(void)
{
    int n = -1, r = -1;

    CHECK(MPI_Comm_size(MPI_COMM_WORLD, &n) == MPI_SUCCESS && n == size &&
          size >= 1, "world size");
    CHECK(MPI_Comm_rank(MPI_COMM_WORLD, &r) == MPI_SUCCESS && r == rank &&
          r >= 0 && r < size, "world rank");
    CHECK(MPI_Comm_size(MPI_COMM_SELF, &n) == MPI_SUCCESS && n == 1,
          "self size %d", n);
    CHECK(MPI_Comm_rank(MPI_COMM_SELF, &r) == MPI_SUCCESS && r == 0,
          "self rank %d", r);
}

/* Traffic on a duplicate never matches receives on its parent. */
static void test_dup_isolation(void)
{
    MPI_Comm dup, dup2;
    MPI_Request wreq, dreq;
    MPI_Status st;
    int in = -1, in2 = -1, flag = -1, cancelled = 0, cmp = -1;
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    int n, r, *ids = identity(size);

    /* A wildcard receive on the world, posted before anything is sent. */
    MPI_Irecv(&in, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD,
              &wreq);
    CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &dup) == MPI_SUCCESS, "Comm_dup");
    MPI_Comm_size(dup, &n);
    MPI_Comm_rank(dup, &r);
    CHECK(n == size && r == rank, "dup size %d rank %d", n, r);
    MPI_Comm_compare(MPI_COMM_WORLD, dup, &cmp);
    CHECK(cmp == MPI_CONGRUENT, "compare(world, dup) = %d", cmp);
    CHECK(MPI_Comm_dup(dup, &dup2) == MPI_SUCCESS, "dup of dup");
    MPI_Comm_compare(dup, dup2, &cmp);
    CHECK(cmp == MPI_CONGRUENT, "compare(dup, dup2) = %d", cmp);

    /* On dup2 also a wildcard receive; the ring message goes on dup. */
    MPI_Irecv(&in2, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, dup2, &dreq);
    CHECK(MPI_Sendrecv(&rank, 1, MPI_INT, right, 5, &in, 1, MPI_INT, left, 5,
                       dup, &st) == MPI_SUCCESS && in == left &&
          st.MPI_SOURCE == left, "ring on dup got %d", in);
    /* Then one on dup2 (after the dup one, from the same sender). */
    CHECK(MPI_Send(&rank, 1, MPI_INT, right, 6, dup2) == MPI_SUCCESS,
          "send on dup2");
    MPI_Wait(&dreq, &st);
    CHECK(in2 == left && st.MPI_TAG == 6, "dup2's wildcard got %d tag %d",
          in2, st.MPI_TAG);
    /* Everything sent has been received on dup and dup2: the world's
     * wildcard receive must still wait. */
    MPI_Test(&wreq, &flag, &st);
    CHECK(!flag, "a message on a duplicate matched a world receive "
          "(source %d tag %d)", flag ? st.MPI_SOURCE : -1,
          flag ? st.MPI_TAG : -1);
    if (!flag) {
        MPI_Cancel(&wreq);
        MPI_Wait(&wreq, &st);
        MPI_Test_cancelled(&st, &cancelled);
        CHECK(cancelled, "the world receive could not be cancelled");
    }
    check_ring(dup2, ids, "dup2");
    MPI_Comm_free(&dup2);
    MPI_Comm_free(&dup);
    CHECK(dup == MPI_COMM_NULL && dup2 == MPI_COMM_NULL,
          "Comm_free sets MPI_COMM_NULL");
    free(ids);
}

static void test_compare(void)
{
    MPI_Comm rev, half, dup;
    int cmp = -1;

    MPI_Comm_compare(MPI_COMM_WORLD, MPI_COMM_WORLD, &cmp);
    CHECK(cmp == MPI_IDENT, "compare(world, world) = %d", cmp);
    MPI_Comm_compare(MPI_COMM_SELF, MPI_COMM_SELF, &cmp);
    CHECK(cmp == MPI_IDENT, "compare(self, self) = %d", cmp);
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Comm_compare(dup, dup, &cmp);
    CHECK(cmp == MPI_IDENT, "compare(dup, dup) = %d", cmp);
    /* Same members, reversed order. */
    MPI_Comm_split(MPI_COMM_WORLD, 0, size - rank, &rev);
    MPI_Comm_compare(MPI_COMM_WORLD, rev, &cmp);
    CHECK(cmp == ((size > 1) ? MPI_SIMILAR : MPI_CONGRUENT),
          "compare(world, reversed) = %d", cmp);
    MPI_Comm_compare(MPI_COMM_WORLD, MPI_COMM_SELF, &cmp);
    CHECK(cmp == ((size > 1) ? MPI_UNEQUAL : MPI_CONGRUENT),
          "compare(world, self) = %d", cmp);
    MPI_Comm_split(MPI_COMM_WORLD, rank < (size + 1) / 2, rank, &half);
    MPI_Comm_compare(half, dup, &cmp);
    CHECK(cmp == ((size > 1) ? MPI_UNEQUAL : MPI_CONGRUENT),
          "compare(half, world dup) = %d", cmp);
    MPI_Comm_free(&rev);
    MPI_Comm_free(&half);
    MPI_Comm_free(&dup);
}

/* The rank a member with (key, old) gets among members of its color. */
static int split_rank(int n, const int color[], const int key[], int me)
{
    int j, r = 0;

    for (j = 0; j < n; j++) {
        if (color[j] == color[me] &&
            (key[j] < key[me] || (key[j] == key[me] && j < me))) {
            r++;
        }
    }
    return r;
}

static void test_split(void)
{
    int *color = malloc((size_t)size * sizeof(int));
    int *key = malloc((size_t)size * sizeof(int));
    int *world_of = malloc((size_t)size * sizeof(int));
    int round, j, n, r, want_n;
    MPI_Comm sub;

    for (round = 0; round < 4; round++) {
        for (j = 0; j < size; j++) {
            switch (round) {
            case 0:   /* two colors, keys reversed */
                color[j] = j % 2;
                key[j]   = -j;
                break;
            case 1:   /* ties on the key: old rank decides */
                color[j] = 3;
                key[j]   = (size - j) / 2;
                break;
            case 2:   /* rank 0 takes no part */
                color[j] = (j == 0) ? MPI_UNDEFINED : 7;
                key[j]   = 0;
                break;
            default:  /* everyone alone */
                color[j] = j;
                key[j]   = 1;
                break;
            }
        }
        CHECK(MPI_Comm_split(MPI_COMM_WORLD, color[rank], key[rank], &sub) ==
              MPI_SUCCESS, "split round %d", round);
        if (color[rank] == MPI_UNDEFINED) {
            CHECK(sub == MPI_COMM_NULL, "MPI_UNDEFINED gives MPI_COMM_NULL");
            continue;
        }
        want_n = 0;
        for (j = 0; j < size; j++) {
            if (color[j] == color[rank]) {
                world_of[split_rank(size, color, key, j)] = j;
                want_n++;
            }
        }
        MPI_Comm_size(sub, &n);
        MPI_Comm_rank(sub, &r);
        CHECK(n == want_n && r == split_rank(size, color, key, rank),
              "split round %d: size %d rank %d, want %d %d", round, n, r,
              want_n, split_rank(size, color, key, rank));
        check_ring(sub, world_of, "split");
        check_group(sub, world_of, "split");
        MPI_Comm_free(&sub);
    }
    free(color);
    free(key);
    free(world_of);
}

static void test_split_type(void)
{
    MPI_Comm node;
    int n = -1, r = -1, *ids = identity(size);

    CHECK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank,
                              MPI_INFO_NULL, &node) == MPI_SUCCESS,
          "split_type shared");
    MPI_Comm_size(node, &n);
    MPI_Comm_rank(node, &r);
    CHECK(n == size && r == rank, "one host: node size %d rank %d", n, r);
    check_ring(node, ids, "split_type");
    MPI_Comm_free(&node);
    CHECK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_UNDEFINED, 0,
                              MPI_INFO_NULL, &node) == MPI_SUCCESS &&
          node == MPI_COMM_NULL, "split_type MPI_UNDEFINED");
    free(ids);
}

static void test_create(void)
{
    MPI_Group wg, evens;
    MPI_Comm sub;
    int range[1][3] = { { 0, size - 1, 2 } }, n, r, j, *world_of;

    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    MPI_Group_range_incl(wg, 1, range, &evens);
    CHECK(MPI_Comm_create(MPI_COMM_WORLD, evens, &sub) == MPI_SUCCESS,
          "Comm_create");
    if (rank % 2 != 0) {
        CHECK(sub == MPI_COMM_NULL, "non-member got a communicator");
    } else {
        MPI_Comm_size(sub, &n);
        MPI_Comm_rank(sub, &r);
        CHECK(n == (size + 1) / 2 && r == rank / 2,
              "create: size %d rank %d", n, r);
        world_of = malloc((size_t)n * sizeof(int));
        for (j = 0; j < n; j++) {
            world_of[j] = 2 * j;
        }
        check_ring(sub, world_of, "create");
        check_group(sub, world_of, "create");
        free(world_of);
        MPI_Comm_free(&sub);
    }
    /* The empty group: nobody gets one. */
    CHECK(MPI_Comm_create(MPI_COMM_WORLD, MPI_GROUP_EMPTY, &sub) ==
          MPI_SUCCESS && sub == MPI_COMM_NULL, "create of the empty group");
    MPI_Group_free(&evens);
    MPI_Group_free(&wg);
}

/* Only the members (all but world rank 0 when there are several, in
 * reverse order) call; twice with the same group and tag. */
static void test_create_group(void)
{
    MPI_Group wg, g;
    MPI_Comm c1 = MPI_COMM_NULL, c2 = MPI_COMM_NULL;
    MPI_Request req;
    MPI_Status st;
    int first = (size > 1) ? 1 : 0, n = size - first, j, *ranks, *world_of;
    int flag = -1, in = -1, cmp = -1, cancelled = 0, nn, r;

    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    ranks = malloc((size_t)n * sizeof(int));
    world_of = malloc((size_t)n * sizeof(int));
    for (j = 0; j < n; j++) {
        ranks[j] = world_of[j] = size - 1 - j;
    }
    MPI_Group_incl(wg, n, ranks, &g);
    if (rank >= first) {
        CHECK(MPI_Comm_create_group(MPI_COMM_WORLD, g, 42, &c1) ==
              MPI_SUCCESS && c1 != MPI_COMM_NULL, "create_group 1");
        CHECK(MPI_Comm_create_group(MPI_COMM_WORLD, g, 42, &c2) ==
              MPI_SUCCESS && c2 != MPI_COMM_NULL, "create_group 2");
        MPI_Comm_size(c1, &nn);
        MPI_Comm_rank(c1, &r);
        CHECK(nn == n && r == size - 1 - rank, "create_group: size %d "
              "rank %d", nn, r);
        MPI_Comm_compare(c1, c2, &cmp);
        CHECK(cmp == MPI_CONGRUENT, "compare(c1, c2) = %d", cmp);
        /* Distinct: a wildcard receive on c2 sees nothing of c1. */
        MPI_Irecv(&in, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, c2, &req);
        check_ring(c1, world_of, "create_group c1");
        MPI_Test(&req, &flag, &st);
        CHECK(!flag, "c1's message matched on c2 (source %d tag %d)",
              flag ? st.MPI_SOURCE : -1, flag ? st.MPI_TAG : -1);
        if (!flag) {
            MPI_Cancel(&req);
            MPI_Wait(&req, &st);
            MPI_Test_cancelled(&st, &cancelled);
            CHECK(cancelled, "c2's receive not cancelled");
        }
        /* Nobody sends on c2 before everyone has tested. */
        MPI_Barrier(c1);
        check_ring(c2, world_of, "create_group c2");
        check_group(c2, world_of, "create_group c2");
        MPI_Comm_free(&c1);
        MPI_Comm_free(&c2);
    } else {
        /* A non-member may not call it: MPI_ERR_GROUP. */
        expect_class(MPI_Comm_create_group(MPI_COMM_WORLD, g, 42, &c1),
                     MPI_ERR_GROUP, "create_group by a non-member");
    }
    /* From MPI_COMM_SELF, alone. */
    {
        MPI_Group sg;

        MPI_Comm_group(MPI_COMM_SELF, &sg);
        CHECK(MPI_Comm_create_group(MPI_COMM_SELF, sg, 0, &c1) ==
              MPI_SUCCESS && c1 != MPI_COMM_NULL, "create_group on self");
        MPI_Comm_size(c1, &nn);
        CHECK(nn == 1, "create_group on self: size %d", nn);
        MPI_Comm_free(&c1);
        MPI_Group_free(&sg);
    }
    MPI_Group_free(&g);
    MPI_Group_free(&wg);
    free(ranks);
    free(world_of);
}

static void test_names(void)
{
    char name[MPI_MAX_OBJECT_NAME], longname[3 * MPI_MAX_OBJECT_NAME];
    int len = -1;
    MPI_Comm dup;

    MPI_Comm_get_name(MPI_COMM_WORLD, name, &len);
    CHECK(strcmp(name, "MPI_COMM_WORLD") == 0 && len == 14,
          "world's name \"%s\"", name);
    MPI_Comm_get_name(MPI_COMM_SELF, name, &len);
    CHECK(strcmp(name, "MPI_COMM_SELF") == 0 && len == 13,
          "self's name \"%s\"", name);
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    CHECK(MPI_Comm_set_name(dup, "my dup") == MPI_SUCCESS, "set_name");
    MPI_Comm_get_name(dup, name, &len);
    CHECK(strcmp(name, "my dup") == 0 && len == 6, "dup's name \"%s\"",
          name);
    memset(longname, 'x', sizeof(longname) - 1);
    longname[sizeof(longname) - 1] = '\0';
    MPI_Comm_set_name(dup, longname);
    MPI_Comm_get_name(dup, name, &len);
    CHECK(len < MPI_MAX_OBJECT_NAME && (size_t)len == strlen(name),
          "a long name is truncated: %d", len);
    MPI_Comm_free(&dup);
}

static void test_idup_info(void)
{
    MPI_Comm a = MPI_COMM_NULL, b = MPI_COMM_NULL;
    MPI_Request req;
    MPI_Info info;
    int cmp = -1, *ids = identity(size);

    CHECK(MPI_Comm_idup(MPI_COMM_WORLD, &a, &req) == MPI_SUCCESS, "idup");
    CHECK(MPI_Wait(&req, MPI_STATUS_IGNORE) == MPI_SUCCESS &&
          req == MPI_REQUEST_NULL, "wait for idup");
    MPI_Comm_compare(MPI_COMM_WORLD, a, &cmp);
    CHECK(cmp == MPI_CONGRUENT, "compare(world, idup) = %d", cmp);
    check_ring(a, ids, "idup");
    MPI_Info_create(&info);
    MPI_Info_set(info, "gencomm_test_hint", "yes");
    CHECK(MPI_Comm_dup_with_info(a, info, &b) == MPI_SUCCESS,
          "dup_with_info");
    MPI_Info_free(&info);
    MPI_Comm_compare(a, b, &cmp);
    CHECK(cmp == MPI_CONGRUENT, "compare(idup, dup_with_info) = %d", cmp);
    check_ring(b, ids, "dup_with_info");
    CHECK(MPI_Comm_dup_with_info(a, MPI_INFO_NULL, &b) == MPI_SUCCESS,
          "dup_with_info(MPI_INFO_NULL)");
    check_ring(b, ids, "dup_with_info 2");
    MPI_Comm_free(&b);
    MPI_Comm_free(&a);
    free(ids);
}

static void test_free_errors(void)
{
    MPI_Comm dup, stale, w = MPI_COMM_WORLD, s = MPI_COMM_SELF;
    MPI_Comm null = MPI_COMM_NULL;
    int n;

    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    stale = dup;
    CHECK(MPI_Comm_free(&dup) == MPI_SUCCESS && dup == MPI_COMM_NULL,
          "Comm_free");
    expect_class(MPI_Comm_size(dup, &n), MPI_ERR_COMM,
                 "Comm_size of the freed (now NULL) handle");
    expect_class(MPI_Send(&n, 1, MPI_INT, 0, 0, dup), MPI_ERR_COMM,
                 "Send on MPI_COMM_NULL");
    expect_class(MPI_Comm_size(stale, &n), MPI_ERR_COMM,
                 "Comm_size on a stale copy of a freed handle");
    expect_class(MPI_Comm_free(&stale), MPI_ERR_COMM,
                 "Comm_free of a freed communicator");
    expect_class(MPI_Comm_free(&w), MPI_ERR_COMM, "free MPI_COMM_WORLD");
    CHECK(w == MPI_COMM_WORLD, "a failed free leaves the handle");
    /* raised on MPI_COMM_SELF itself, so by its handler */
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    expect_class(MPI_Comm_free(&s), MPI_ERR_COMM, "free MPI_COMM_SELF");
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL);
    expect_class(MPI_Comm_free(&null), MPI_ERR_COMM, "free MPI_COMM_NULL");
    expect_class(MPI_Comm_split(MPI_COMM_WORLD, -5, 0, &dup), MPI_ERR_ARG,
                 "split with color -5");
    expect_class(MPI_Comm_dup(MPI_COMM_NULL, &dup), MPI_ERR_COMM,
                 "dup of MPI_COMM_NULL");
    expect_class(MPI_Comm_create(MPI_COMM_WORLD, MPI_GROUP_NULL, &dup),
                 MPI_ERR_GROUP, "create with MPI_GROUP_NULL");
    expect_class(MPI_Comm_compare(MPI_COMM_WORLD, MPI_COMM_NULL, &n),
                 MPI_ERR_COMM, "compare with MPI_COMM_NULL");
    /* The world still works after all of that. */
    n = -1;
    CHECK(MPI_Comm_size(MPI_COMM_WORLD, &n) == MPI_SUCCESS && n == size,
          "world after errors");
}

static void test_self(void)
{
    int out[3] = { 1, 2, 3 }, in[3] = { 0 }, x = -1;
    MPI_Request req;
    MPI_Status st;

    MPI_Isend(out, 3, MPI_INT, 0, 9, MPI_COMM_SELF, &req);
    CHECK(MPI_Recv(in, 3, MPI_INT, 0, 9, MPI_COMM_SELF, &st) == MPI_SUCCESS &&
          in[0] == 1 && in[2] == 3 && st.MPI_SOURCE == 0 && st.MPI_TAG == 9,
          "self: Isend + Recv");
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    CHECK(MPI_Sendrecv(&rank, 1, MPI_INT, 0, 1, &x, 1, MPI_INT,
                       MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_SELF, &st) ==
          MPI_SUCCESS && x == rank && st.MPI_SOURCE == 0,
          "self: Sendrecv");
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    expect_class(MPI_Send(out, 1, MPI_INT, 1, 0, MPI_COMM_SELF),
                 MPI_ERR_RANK, "self: send to rank 1");
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL);
}

/* 1000 dup + free (each used), 100 alive at once, split/free in a loop. */
static void test_many(void)
{
    enum { NDUP = 1000, NLIVE = 100, NSPLIT = 100 };
    MPI_Comm live[NLIVE], c;
    MPI_Request reqs[NLIVE];
    int vals[NLIVE], i, j, x, *ids = identity(size), n, r, bad = 0;
    double t0 = 0, t_first = 0, t_last = 0;

    for (i = 0; i < NDUP; i++) {
        if (i == 0 || i == NDUP - 200) {
            t0 = MPI_Wtime();
        }
        CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &c) == MPI_SUCCESS, "dup %d", i);
        if (i % 50 == 0) {
            check_ring(c, ids, "one of many dups");
        }
        MPI_Comm_free(&c);
        if (i == 199) {
            t_first = MPI_Wtime() - t0;
        }
        if (i == NDUP - 1) {
            t_last = MPI_Wtime() - t0;
        }
    }
    /* Generous: only a per-dup cost that grows with the number made so
     * far (a leak in a list) would make this fail. */
    CHECK(t_last < 10 * t_first + 0.5, "dups slow down: first 200 %.3fs, "
          "last 200 %.3fs", t_first, t_last);

    /* Many alive at once: a message on each, received by wildcard
     * receives on each, arrives on its own. */
    for (i = 0; i < NLIVE; i++) {
        /* every other one a dup of the one before */
        MPI_Comm_dup((i % 2 == 0 && i > 0) ? live[i - 1] : MPI_COMM_WORLD,
                     &live[i]);
    }
    for (i = 0; i < NLIVE; i++) {
        MPI_Irecv(&vals[i], 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, live[i],
                  &reqs[i]);
    }
    for (i = NLIVE - 1; i >= 0; i--) {
        x = i * 1000 + rank;
        MPI_Send(&x, 1, MPI_INT, (rank + 1) % size, 3, live[i]);
    }
    MPI_Waitall(NLIVE, reqs, MPI_STATUSES_IGNORE);
    for (i = 0; i < NLIVE; i++) {
        if (vals[i] != i * 1000 + (rank + size - 1) % size) {
            bad++;
        }
        MPI_Comm_free(&live[i]);
    }
    CHECK(bad == 0, "%d of %d live dups got another one's message", bad,
          NLIVE);

    for (i = 0; i < NSPLIT; i++) {
        int color = (rank + i) % 3, key = (i % 2) ? rank : -rank;
        int *world_of = malloc((size_t)size * sizeof(int)), m = 0;

        MPI_Comm_split(MPI_COMM_WORLD, color, key, &c);
        for (j = 0; j < size; j++) {
            if ((j + i) % 3 == color) {
                world_of[m++] = j;
            }
        }
        if (i % 2 == 0) {   /* keys -rank: reversed */
            for (j = 0; j < m / 2; j++) {
                x = world_of[j];
                world_of[j] = world_of[m - 1 - j];
                world_of[m - 1 - j] = x;
            }
        }
        MPI_Comm_size(c, &n);
        MPI_Comm_rank(c, &r);
        CHECK(n == m && world_of[r] == rank, "split %d: size %d rank %d", i,
              n, r);
        check_ring(c, world_of, "split loop");
        MPI_Comm_free(&c);
        free(world_of);
    }
    free(ids);
}

int main(int argc, char **argv)
{
    mpitest_init(&argc, &argv, "core_comm", 1);
    mpitest_world(&rank, &size);

    RUN(test_basics);
    RUN(test_dup_isolation);
    RUN(test_compare);
    RUN(test_split);
    RUN(test_split_type);
    RUN(test_create);
    RUN(test_create_group);
    RUN(test_names);
    RUN(test_idup_info);
    RUN(test_free_errors);
    RUN(test_self);
    RUN(test_many);

    return mpitest_finish();
}
