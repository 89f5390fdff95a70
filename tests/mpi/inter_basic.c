/*
 * inter_basic.c: MPI_Intercomm_create and MPI_Intercomm_merge (MPI-3.1
 * 6.6) over two splits of the world: even/odd ranks (leaders: local rank
 * 0) and lower/upper halves (leaders: the last local rank), so groups of
 * unequal size at odd process counts. For each intercommunicator:
 * MPI_Comm_test_inter, size/rank (local group), MPI_Comm_remote_size and
 * MPI_Comm_remote_group, MPI_Comm_group; point-to-point across (ranks are
 * remote ranks, MPI_SOURCE is the sender's remote rank, MPI_ANY_SOURCE
 * too); MPI_Intercomm_merge with high = 0/1 either way and tied, checking
 * the order of the merged group; MPI_Comm_dup of the intercommunicator
 * (traffic on the duplicate never matches the original); MPI_Comm_split
 * and MPI_Comm_create of the intercommunicator (MPI-3.1 6.4.2: colors on
 * one side only and processes outside the groups get MPI_COMM_NULL; the
 * results carry point-to-point and collectives). Error paths under
 * MPI_ERRORS_RETURN. Runs at any process count (intercommunicators
 * need 2 or more).
 */
#include <mpi.h>

#include "mpitest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int me, n;

#define P2P_TAG 5
#define ANY_TAG_T 6
#define DUP_TAG 9

/* The two groups of a split: world indices in rank order. */
typedef struct split {
    const char *name;
    int size[2];
    int procs[2][64];
    int leader[2];   /* local rank of each group's leader */
} split_t;

static void make_split(split_t *s, int halves)
{
    int w, c;

    memset(s, 0, sizeof(*s));
    s->name = halves ? "halves" : "even/odd";
    for (w = 0; w < n; w++) {
        c = halves ? (w >= (n + 1) / 2) : (w % 2);
        s->procs[c][s->size[c]++] = w;
    }
    for (c = 0; c < 2; c++) {
        s->leader[c] = halves ? s->size[c] - 1 : 0;
    }
}

static int color_of(const split_t *s, int w, int *rank_p)
{
    int c, r;

    for (c = 0; c < 2; c++) {
        for (r = 0; r < s->size[c]; r++) {
            if (s->procs[c][r] == w) {
                *rank_p = r;
                return c;
            }
        }
    }
    return -1;
}

/* Checks that group g lists the world processes procs[0..size). */
static void expect_group(MPI_Group g, int size, const int procs[],
                         const char *what)
{
    MPI_Group wg;
    int ranks[64], world[64];
    int gsize = -1, i;

    MPI_Group_size(g, &gsize);
    CHECK(gsize == size, "%s: group size %d, expected %d", what, gsize, size);
    if (gsize != size) {
        return;
    }
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    for (i = 0; i < size; i++) {
        ranks[i] = i;
    }
    MPI_Group_translate_ranks(g, size, ranks, wg, world);
    for (i = 0; i < size; i++) {
        CHECK(world[i] == procs[i], "%s: rank %d is world %d, expected %d",
              what, i, world[i], procs[i]);
    }
    MPI_Group_free(&wg);
}

static void check_shape(MPI_Comm inter, const split_t *s, int c, int r,
                        const char *what)
{
    MPI_Group g;
    int flag = -1, size = -1, rank = -1, rsize = -1;

    MPI_Comm_test_inter(inter, &flag);
    MPI_Comm_size(inter, &size);
    MPI_Comm_rank(inter, &rank);
    MPI_Comm_remote_size(inter, &rsize);
    CHECK((flag != 0) && (size == s->size[c]) && (rank == r) &&
          (rsize == s->size[1 - c]),
          "%s: inter %d size %d rank %d remote size %d; expected 1 %d %d %d",
          what, flag, size, rank, rsize, s->size[c], r, s->size[1 - c]);
    MPI_Comm_remote_group(inter, &g);
    expect_group(g, s->size[1 - c], s->procs[1 - c], what);
    MPI_Group_free(&g);
    MPI_Comm_group(inter, &g);
    expect_group(g, s->size[c], s->procs[c], what);
    MPI_Group_free(&g);
}

/* Everyone sends to every remote rank and receives from each. */
static void check_p2p(MPI_Comm inter, const split_t *s, int c, int r,
                      const char *what)
{
    int rs = s->size[1 - c];
    MPI_Request reqs[128];
    MPI_Status sts[128];
    int out[64], in[64];
    int j, got, k;

    for (j = 0; j < rs; j++) {
        in[j] = -1;
        out[j] = 1000 * me + j;
        MPI_Irecv(&in[j], 1, MPI_INT, j, P2P_TAG, inter, &reqs[j]);
    }
    for (j = 0; j < rs; j++) {
        MPI_Isend(&out[j], 1, MPI_INT, j, P2P_TAG, inter, &reqs[rs + j]);
    }
    MPI_Waitall(2 * rs, reqs, sts);
    for (j = 0; j < rs; j++) {
        CHECK((in[j] == 1000 * s->procs[1 - c][j] + r) &&
              (sts[j].MPI_SOURCE == j),
              "%s: from remote %d got %d (source %d), expected %d", what, j,
              in[j], sts[j].MPI_SOURCE, 1000 * s->procs[1 - c][j] + r);
    }

    /* Every process sends its local rank to remote rank 0, which takes
     * them with MPI_ANY_SOURCE: the source is the sender's rank. */
    MPI_Send(&r, 1, MPI_INT, 0, ANY_TAG_T, inter);
    if (r == 0) {
        int seen[64] = { 0 };

        for (k = 0; k < rs; k++) {
            MPI_Status st;

            MPI_Recv(&got, 1, MPI_INT, MPI_ANY_SOURCE, ANY_TAG_T, inter, &st);
            CHECK((got == st.MPI_SOURCE) && (got >= 0) && (got < rs) &&
                  (seen[got] == 0),
                  "%s: any source: got %d from %d", what, got, st.MPI_SOURCE);
            if ((got >= 0) && (got < rs)) {
                seen[got] = 1;
            }
        }
    }
}

/* Merges and checks that the group is first's then the other's. */
static void check_merge(MPI_Comm inter, const split_t *s, int c, int r,
                        int high, int first, const char *what)
{
    MPI_Comm merged = MPI_COMM_NULL;
    MPI_Group g;
    int procs[64];
    int size = -1, rank = -1, flag = -1, k = 0, i, right, left, got = -1;
    int want_rank = ((c == first) ? 0 : s->size[first]) + r;

    MPI_Intercomm_merge(inter, high, &merged);
    for (i = 0; i < s->size[first]; i++) {
        procs[k++] = s->procs[first][i];
    }
    for (i = 0; i < s->size[1 - first]; i++) {
        procs[k++] = s->procs[1 - first][i];
    }
    MPI_Comm_test_inter(merged, &flag);
    MPI_Comm_size(merged, &size);
    MPI_Comm_rank(merged, &rank);
    CHECK((flag == 0) && (size == n) && (rank == want_rank),
          "%s: merged inter %d size %d rank %d, expected 0 %d %d", what,
          flag, size, rank, n, want_rank);
    MPI_Comm_group(merged, &g);
    expect_group(g, n, procs, what);
    MPI_Group_free(&g);

    /* A ring on the merged communicator (by the rank it reports, so that
     * a wrong order fails the checks above instead of hanging). */
    right = (rank + 1) % n;
    left = (rank - 1 + n) % n;
    MPI_Sendrecv(&rank, 1, MPI_INT, right, P2P_TAG, &got, 1, MPI_INT,
                 left, P2P_TAG, merged, MPI_STATUS_IGNORE);
    CHECK(got == left, "%s: merged ring got %d, expected %d", what, got,
          left);
    MPI_Comm_free(&merged);
}

/* MPI_Comm_dup of an intercommunicator: same shape, separate traffic. */
static void check_dup(MPI_Comm inter, const split_t *s, int c, int r)
{
    MPI_Comm dup = MPI_COMM_NULL;
    int rs = s->size[1 - c];
    int one = 1, two = 2, got, k;

    MPI_Comm_dup(inter, &dup);
    check_shape(dup, s, c, r, "dup");
    /* Sent on the duplicate first, then on the original, same tag: the
     * original's receives must get only the original's messages. */
    MPI_Send(&one, 1, MPI_INT, 0, DUP_TAG, dup);
    MPI_Send(&two, 1, MPI_INT, 0, DUP_TAG, inter);
    if (r == 0) {
        for (k = 0; k < rs; k++) {
            MPI_Recv(&got, 1, MPI_INT, MPI_ANY_SOURCE, DUP_TAG, inter,
                     MPI_STATUS_IGNORE);
            CHECK(got == 2, "original received %d (from the duplicate?)",
                  got);
        }
        for (k = 0; k < rs; k++) {
            MPI_Recv(&got, 1, MPI_INT, MPI_ANY_SOURCE, DUP_TAG, dup,
                     MPI_STATUS_IGNORE);
            CHECK(got == 1, "duplicate received %d", got);
        }
    }
    check_p2p(dup, s, c, r, "dup");
    MPI_Comm_free(&dup);
}

/* Checks a communicator made from inter (shape, point-to-point, and an
 * allreduce, which runs through its local group): this process is
 * local rank r of group c of the split t. */
static void check_derived(MPI_Comm x, const split_t *t, int c, int r,
                          const char *what)
{
    int sum = -1, want = 0, i;

    check_shape(x, t, c, r, what);
    check_p2p(x, t, c, r, what);
    for (i = 0; i < t->size[1 - c]; i++) {
        want += t->procs[1 - c][i];
    }
    MPI_Allreduce(&me, &sum, 1, MPI_INT, MPI_SUM, x);
    CHECK(sum == want, "%s: allreduce over the remote group gave %d, "
          "expected %d", what, sum, want);
}

/* The color each member passes to the split: local rank parity, but
 * group 0's rank 0 passes MPI_UNDEFINED and group 1's rank 0 a color
 * the other side does not have. The key reverses the order. */
static int split_color(int g, int r)
{
    if (r == 0) {
        return (g == 0) ? MPI_UNDEFINED : 7;
    }
    return r % 2;
}

static void check_split_create(MPI_Comm inter, const split_t *s, int c,
                               int r)
{
    MPI_Comm x = MPI_COMM_NULL;
    MPI_Group lg, part;
    split_t t;
    int g, i, k, mycolor = split_color(c, r), myrank = -1, zero = 0;

    /* Split. */
    MPI_Comm_split(inter, mycolor, -r, &x);
    memset(&t, 0, sizeof(t));
    t.name = "split";
    for (g = 0; g < 2; g++) {
        for (i = s->size[g] - 1; i >= 0; i--) {
            if ((mycolor != MPI_UNDEFINED) && (split_color(g, i) == mycolor)) {
                if ((g == c) && (i == r)) {
                    myrank = t.size[g];
                }
                t.procs[g][t.size[g]++] = s->procs[g][i];
            }
        }
    }
    if ((t.size[0] == 0) || (t.size[1] == 0)) {
        CHECK(x == MPI_COMM_NULL, "split: color %d (one side only) gave a "
              "communicator", mycolor);
    } else {
        CHECK(x != MPI_COMM_NULL, "split: color %d gave MPI_COMM_NULL",
              mycolor);
        if (x != MPI_COMM_NULL) {
            check_derived(x, &t, c, myrank, "split");
        }
    }
    if (x != MPI_COMM_NULL) {
        MPI_Comm_free(&x);
    }

    /* Create: group 0 leaves its rank 0 out (when it has others), group
     * 1 passes all of its own. */
    MPI_Comm_group(inter, &lg);
    k = ((c == 0) && (s->size[0] > 1)) ? 1 : 0;
    MPI_Group_excl(lg, k, &zero, &part);
    x = MPI_COMM_NULL;
    MPI_Comm_create(inter, part, &x);
    memcpy(&t, s, sizeof(t));
    t.name = "create";
    if (s->size[0] > 1) {
        t.size[0]--;
        memmove(t.procs[0], t.procs[0] + 1, (size_t)t.size[0] * sizeof(int));
    }
    if ((c == 0) && (s->size[0] > 1) && (r == 0)) {
        CHECK(x == MPI_COMM_NULL, "create: a process outside the group got "
              "a communicator");
    } else {
        CHECK(x != MPI_COMM_NULL, "create gave MPI_COMM_NULL");
        if (x != MPI_COMM_NULL) {
            check_derived(x, &t, c,
                          ((c == 0) && (s->size[0] > 1)) ? r - 1 : r,
                          "create");
        }
    }
    if (x != MPI_COMM_NULL) {
        MPI_Comm_free(&x);
    }
    MPI_Group_free(&part);

    /* One side passes the empty group: nobody gets a communicator. */
    x = MPI_COMM_NULL;
    MPI_Comm_create(inter, (c == 1) ? MPI_GROUP_EMPTY : lg, &x);
    CHECK(x == MPI_COMM_NULL, "create with an empty side gave a "
          "communicator");
    /* A group that is not part of the local group. */
    if (s->size[1 - c] > 0) {
        MPI_Group rg;

        MPI_Comm_remote_group(inter, &rg);
        EXPECT(MPI_ERR_GROUP, MPI_Comm_create(inter, rg, &x));
        MPI_Group_free(&rg);
    }
    MPI_Group_free(&lg);
}

static void run_split(int halves)
{
    split_t s;
    MPI_Comm local, inter = MPI_COMM_NULL;
    int c, r = -1, rl, first_low, first_tie;

    make_split(&s, halves);
    c = color_of(&s, me, &r);
    MPI_Comm_split(MPI_COMM_WORLD, c, me, &local);
    /* The remote leader, as a rank of the peer communicator (world). */
    rl = s.procs[1 - c][s.leader[1 - c]];
    MPI_Intercomm_create(local, s.leader[c], MPI_COMM_WORLD, rl, 42 + halves,
                         &inter);
    check_shape(inter, &s, c, r, s.name);
    check_p2p(inter, &s, c, r, s.name);

    /* high = color: group 0 first; high = !color: group 1 first. */
    check_merge(inter, &s, c, r, c, 0, "merge high=color");
    check_merge(inter, &s, c, r, 1 - c, 1, "merge high=!color");
    /* Ties: the group whose leader (local rank 0) has the lower world
     * index comes first: group 0 holds world 0. */
    first_low = 0;
    first_tie = first_low;
    check_merge(inter, &s, c, r, 0, first_tie, "merge both low");
    check_merge(inter, &s, c, r, 1, first_tie, "merge both high");

    check_dup(inter, &s, c, r);
    check_split_create(inter, &s, c, r);

    /* A communicator whose group is not an intracommunicator's. */
    {
        MPI_Comm x = MPI_COMM_NULL;

        EXPECT(MPI_ERR_COMM,
               MPI_Intercomm_create(inter, 0, MPI_COMM_WORLD, rl, 1, &x));
    }
    MPI_Comm_free(&inter);
    CHECK(inter == MPI_COMM_NULL, "MPI_Comm_free left the handle set");

    /* Errors every member sees alike: leaders that both pass a bad tag,
     * or both a remote leader out of range, fail their whole groups. */
    {
        MPI_Comm x = MPI_COMM_NULL;

        EXPECT(MPI_ERR_TAG, MPI_Intercomm_create(local, s.leader[c],
                                                 MPI_COMM_WORLD, rl, -3, &x));
        EXPECT(MPI_ERR_RANK, MPI_Intercomm_create(local, s.leader[c],
                                                  MPI_COMM_WORLD, n, 1, &x));
        CHECK(x == MPI_COMM_NULL, "a failed create set the handle");
    }
    MPI_Comm_free(&local);
}

static void errors(void)
{
    MPI_Comm x = MPI_COMM_NULL;
    MPI_Group g;
    int v;

    EXPECT(MPI_ERR_COMM,
           MPI_Intercomm_create(MPI_COMM_NULL, 0, MPI_COMM_WORLD, 0, 1, &x));
    EXPECT(MPI_ERR_RANK,
           MPI_Intercomm_create(MPI_COMM_WORLD, -1, MPI_COMM_WORLD, 0, 1, &x));
    EXPECT(MPI_ERR_RANK,
           MPI_Intercomm_create(MPI_COMM_WORLD, n, MPI_COMM_WORLD, 0, 1, &x));
    EXPECT(MPI_ERR_ARG, MPI_Intercomm_create(MPI_COMM_WORLD, 0, MPI_COMM_WORLD,
                                             0, 1, NULL));
    /* The world with itself: the groups overlap, every member fails. */
    EXPECT(MPI_ERR_COMM,
           MPI_Intercomm_create(MPI_COMM_WORLD, 0, MPI_COMM_WORLD, 0, 77, &x));
    CHECK(x == MPI_COMM_NULL, "a failed create set the handle");

    EXPECT(MPI_ERR_COMM, MPI_Intercomm_merge(MPI_COMM_WORLD, 0, &x));
    EXPECT(MPI_ERR_COMM, MPI_Intercomm_merge(MPI_COMM_NULL, 0, &x));
    EXPECT(MPI_ERR_COMM, MPI_Comm_remote_size(MPI_COMM_WORLD, &v));
    EXPECT(MPI_ERR_COMM, MPI_Comm_remote_group(MPI_COMM_WORLD, &g));
    v = -1;
    MPI_Comm_test_inter(MPI_COMM_WORLD, &v);
    CHECK(v == 0, "MPI_COMM_WORLD is an intercommunicator?");
}

int main(int argc, char **argv)
{
    mpitest_init(&argc, &argv, "inter_basic", 1);
    mpitest_world(&me, &n);

    if (n > 64) {
        if (me == 0) {
            printf("inter_basic: up to 64 processes\n");
        }
        MPI_Finalize();
        return 0;
    }
    errors();
    if (n >= 2) {
        run_split(0);
        run_split(1);
    }

    return mpitest_finish();
}
