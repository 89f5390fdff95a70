/*
 * tests/mpi/coll_all.c: every collective of the MPI layer, blocking and
 * nonblocking, checked against results computed locally from the formula
 * that made the inputs, whatever algorithm the library uses.
 *
 * The same program runs at every process count (tests/mpi/test_coll_all.sh
 * starts it at 1 to 9 processes and on emulated hosts). Per communicator
 * (MPI_COMM_WORLD, a duplicate, an odd/even split with reversed keys, the
 * host's shared-memory communicator when there are several hosts) it runs
 * every collective with counts 0, 1, 7 and 1001 at every root, in place
 * wherever the standard allows it, and with 300000 elements (per-rank
 * blocks of 300000 / size) on fewer combinations, on these elements:
 *
 * - doubles with MPI_SUM and ints with MPI_MAX (commutative);
 * - 2x2 matrices of unsigned ints with a user operation that multiplies
 *   them (mod 2^32): not commutative, so the result must be the product
 *   in rank order; once contiguous, once as a vector type with a hole in
 *   every element (a non-contiguous layout that the holes must survive);
 * - MPI_2INT with MPI_MINLOC (ties resolved to the lower rank).
 *
 * Data movement uses the doubles and the matrices, also with different
 * (matching) type maps on the two sides. Each collective runs in its
 * blocking form, its nonblocking form and its persistent form (MPI-4:
 * made, started once, waited, freed), the forms taking turns over the
 * counts and roots so that each meets every layout. Then several nonblocking
 * collectives on three communicators at once, started in different
 * orders on even and odd ranks, and collectives with user point-to-point
 * messages and MPI_ANY_TAG receives pending on the same communicator.
 * "coll_all progress" runs only the cases in which a process blocks in
 * one call while its other collectives must advance
 * (tests/mpi/test_coll_progress.sh).
 *
 * A wrong result prints the collective, communicator, count, root, rank,
 * the first wrong index with the expected and received values; the
 * program then exits 1. An error code from a call is reported the same
 * way and aborts the job (the others would wait forever).
 *
 * This file: the tests and main; the element kinds, values and reporting:
 * coll_all_data.c; each collective as a case: coll_all_cases.c; what they
 * share: coll_all.h.
 */
#include "coll_all.h"

#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

const int counts[NCOUNTS] = {0, 1, 7, 1001, LARGE};

int  wrank, wsize;
long failures, checks;
int  tseq;                /* test number: same on every member */
static int  suite_no;            /* which test_suite call */
static char tmpdir[256];         /* for the barrier's arrival files */

/* ---- the tests ----------------------------------------------------------- */

/*
 * The large count runs on fewer combinations than the small ones: its
 * paths (large messages, pipelining, packing) once per kind of layout
 * and root position, not every combination; the references cost time on
 * an oversubscribed machine. heavy: this suite runs the large count.
 */
static int heavy;

static int is_large(int ci)
{
    return counts[ci] == LARGE;
}

/* Rooted calls at the large count: the last rank, and rank 0 if also. */
static int large_root(const ctx_t *x, int root, int also0)
{
    return (root == x->size - 1) || (also0 && (root == 0));
}

/*
 * Barrier: each member creates a file and then enters; after the barrier
 * every member's file must exist. One member comes late each round.
 */
static void test_barrier(const ctx_t *x, int nb)
{
    const char *what = nb ? "Ibarrier" : "Barrier";
    char path[512];
    int round, r, fd;
    struct stat st;

    for (round = 0; round < 3; round++) {
        int late = (2 * round + 1) % x->size;

        if (x->rank == late) {
            struct timespec ts = {0, 20 * 1000 * 1000};

            nanosleep(&ts, NULL);
        }
        snprintf(path, sizeof(path), "%s/%s.%d.%d.%d", tmpdir, what, suite_no,
                 round, wrank);
        fd = creat(path, 0600);
        if (fd < 0) {
            failf(x, what, 0, -1, "cannot create %s", path);
        } else {
            close(fd);
        }
        if (nb) {
            MPI_Request req;

            called(x, what, 0, -1, MPI_Ibarrier(x->comm, &req));
            called(x, what, 0, -1, MPI_Wait(&req, MPI_STATUS_IGNORE));
        } else {
            called(x, what, 0, -1, MPI_Barrier(x->comm));
        }
        checks++;
        for (r = 0; r < x->size; r++) {
            snprintf(path, sizeof(path), "%s/%s.%d.%d.%d", tmpdir, what,
                     suite_no, round, x->wranks[r]);
            if (stat(path, &st) != 0) {
                failf(x, what, 0, -1, "returned before rank %d entered",
                      r);
            }
        }
        /* Nobody checks any more when a file goes. */
        called(x, what, 0, -1, MPI_Barrier(x->comm));
        snprintf(path, sizeof(path), "%s/%s.%d.%d.%d", tmpdir, what, suite_no,
                 round, wrank);
        unlink(path);
    }
}

/* Layout pairs of data movement: the sender's kind, the receiver's. The
 * vector matrix and the contiguous one have the same type signature. */
static const int pairs[3][2] = {{K_DBL, K_DBL}, {K_VMAT, K_MAT},
                                {K_MAT, K_VMAT}};

static void test_bcast(const ctx_t *x)
{
    int pi, ci, root, nb;
    case_t c;

    for (pi = 0; pi < 3; pi++) {
        for (ci = 0; ci < NCOUNTS; ci++) {
            if (is_large(ci) && (!heavy || (pi == 2))) {
                continue;
            }
            for (root = 0; root < x->size; root++) {
                if (is_large(ci) && !large_root(x, root, pi == 0)) {
                    continue;
                }
                for (nb = 0; nb < 2; nb++) {
                    case_bcast(&c, x, &kinds[pairs[pi][0]],
                               &kinds[pairs[pi][1]], counts[ci], root,
                               alt_mode(nb, root + ci));
                    finish(&c);
                }
            }
        }
    }
}

static void test_rooted_movement(const ctx_t *x)
{
    int pi, ci, root, v;
    case_t c;

    for (pi = 0; pi < 3; pi++) {
        for (ci = 0; ci < NCOUNTS; ci++) {
            long n = block(x, ci);

            if (is_large(ci) && (!heavy || (pi != 0))) {
                continue;
            }
            for (root = 0; root < x->size; root++) {
                int inplace = (root + ci + pi) % 2;

                if (is_large(ci) && !large_root(x, root, 1)) {
                    continue;
                }
                for (v = 0; v < 2; v++) {
                    case_gather(&c, x, &kinds[pairs[pi][0]],
                                &kinds[pairs[pi][1]], n, root, inplace, v,
                                (root + ci + pi + v) % 3);
                    finish(&c);
                    case_scatter(&c, x, &kinds[pairs[pi][0]],
                                 &kinds[pairs[pi][1]], n, root, !inplace, v,
                                 (root + ci + pi + v + 1) % 3);
                    finish(&c);
                }
            }
        }
    }
}

static void test_all_movement(const ctx_t *x)
{
    int pi, ci, inplace, nb;
    case_t c;

    for (pi = 0; pi < 3; pi++) {
        const kind_t *ks = &kinds[pairs[pi][0]];
        const kind_t *kr = &kinds[pairs[pi][1]];

        for (ci = 0; ci < NCOUNTS; ci++) {
            long n = block(x, ci);

            if (is_large(ci) && (!heavy || (pi == 2))) {
                continue;
            }
            for (inplace = 0; inplace < 2; inplace++) {
                /* Large vectors: one plain blocking run each. */
                int lite = is_large(ci) && (pi != 0);

                if (lite && inplace) {
                    continue;
                }
                for (nb = 0; nb < (lite ? 1 : 2); nb++) {
                    case_allgather(&c, x, ks, kr, n, inplace, 0,
                                   alt_mode(nb, ci + inplace + pi));
                    finish(&c);
                    case_alltoall(&c, x, ks, kr, n, inplace, 0,
                                  alt_mode(nb, ci + inplace + pi + 1));
                    finish(&c);
                }
                if (lite) {
                    continue;
                }
                case_allgather(&c, x, ks, kr, n, inplace, 1,
                               (ci + inplace + pi) % 3);
                finish(&c);
                case_alltoall(&c, x, ks, kr, n, inplace, 1,
                              (ci + inplace + pi + 1) % 3);
                finish(&c);
                if (pi == 0) {
                    case_alltoallw(&c, x, n, inplace, (ci + inplace) % 3);
                    finish(&c);
                }
            }
        }
    }
}

static void test_reductions(const ctx_t *x)
{
    int ki, ci, root, nb, inplace;
    case_t c;

    for (ki = 0; ki < NKINDS; ki++) {
        const kind_t *k = &kinds[ki];

        for (ci = 0; ci < NCOUNTS; ci++) {
            long n = counts[ci];
            int large = is_large(ci);

            /* Large: the commutative sum and the non-commutative
             * product; the other kinds only differ in the operation. */
            if (large && (!heavy || ((ki != K_DBL) && (ki != K_MAT)))) {
                continue;
            }
            for (root = 0; root < x->size; root++) {
                if (large && !large_root(x, root, ki == K_DBL)) {
                    continue;
                }
                for (nb = 0; nb < 2; nb++) {
                    case_reduce(&c, x, k, n, root, (root + ci + nb) % 2,
                                alt_mode(nb, root + ci + ki));
                    finish(&c);
                }
            }
            for (inplace = 0; inplace < 2; inplace++) {
                for (nb = 0; nb < 2; nb++) {
                    if (large && (ki == K_MAT) && (nb != inplace)) {
                        continue;
                    }
                    case_allreduce(&c, x, k, n, inplace,
                                   alt_mode(nb, ci + ki + inplace));
                    finish(&c);
                }
                /* Large: in place for one kind, not for the other. */
                if (large && (inplace != (ki == K_MAT))) {
                    continue;
                }
                case_scan(&c, x, k, n, inplace, 0, (ci + ki + inplace) % 3);
                finish(&c);
                case_scan(&c, x, k, n, inplace, 1,
                          (ci + ki + inplace + 1) % 3);
                finish(&c);
                case_reduce_scatter(&c, x, k, block(x, ci), inplace, 0,
                                    (ci + ki + inplace + 2) % 3);
                finish(&c);
                case_reduce_scatter(&c, x, k, block(x, ci), !inplace, 1,
                                    (ci + ki + inplace) % 3);
                finish(&c);
            }
        }
    }
}

static void test_suite(const ctx_t *x, int with_large)
{
    /* The members of another communicator run other tests: numbering
     * restarts so that members of one communicator agree. */
    tseq = 0;
    suite_no++;
    heavy = with_large;
    test_barrier(x, 0);
    test_barrier(x, 1);
    test_bcast(x);
    test_rooted_movement(x);
    test_all_movement(x);
    test_reductions(x);
}

/* Starts a batch of nonblocking collectives on x. */
static int start_batch(case_t *cs, const ctx_t *x, MPI_Request *barrier)
{
    int i = 0, p = x->size;

    case_bcast(&cs[i++], x, &kinds[K_DBL], &kinds[K_DBL], 1001, p - 1, 1);
    case_reduce(&cs[i++], x, &kinds[K_MAT], 7, 0, 1, 1);
    case_allreduce(&cs[i++], x, &kinds[K_VMAT], 7, 0, 1);
    case_allreduce(&cs[i++], x, &kinds[K_DBL], 1001, 1, 1);
    called(x, "Ibarrier", 0, -1, MPI_Ibarrier(x->comm, barrier));
    case_allgather(&cs[i++], x, &kinds[K_VMAT], &kinds[K_MAT], 7, 1, 0, 1);
    case_alltoall(&cs[i++], x, &kinds[K_DBL], &kinds[K_DBL], 7, 0, 0, 1);
    case_reduce(&cs[i++], x, &kinds[K_INT], 1001, p / 2, 0, 1);
    case_bcast(&cs[i++], x, &kinds[K_VMAT], &kinds[K_MAT], 7, p / 2, 1);
    case_gather(&cs[i++], x, &kinds[K_VMAT], &kinds[K_MAT], 7, p - 1, 0, 1,
                M_NONBLOCKING);
    case_scatter(&cs[i++], x, &kinds[K_DBL], &kinds[K_DBL], 1001, 0, 1, 0,
                 M_NONBLOCKING);
    case_allgather(&cs[i++], x, &kinds[K_DBL], &kinds[K_DBL], 7, 0, 1,
                   M_NONBLOCKING);
    case_alltoall(&cs[i++], x, &kinds[K_MAT], &kinds[K_VMAT], 7, 0, 1,
                  M_NONBLOCKING);
    case_alltoallw(&cs[i++], x, 7, 0, M_NONBLOCKING);
    case_reduce_scatter(&cs[i++], x, &kinds[K_MAT], 7, 0, 1, M_NONBLOCKING);
    case_scan(&cs[i++], x, &kinds[K_VMAT], 7, 1, 0, M_NONBLOCKING);
    case_scan(&cs[i++], x, &kinds[K_DBL], 1001, 0, 1, M_NONBLOCKING);
    case_reduce_scatter(&cs[i++], x, &kinds[K_DBL], 1001, 1, 0,
                        M_NONBLOCKING);
    return i;
}

/*
 * Several nonblocking collectives in flight on three communicators at
 * once. Per communicator every member starts them in the same order, as
 * MPI requires; across communicators even world ranks go one way and odd
 * ones the other. wait_reverse 0: one MPI_Waitall over all the requests,
 * communicator by communicator, the same order everywhere. 1: MPI_Wait
 * on each in the reverse order of this rank's starts, so that even and
 * odd ranks wait for different collectives first: by MPI's progress rule
 * every wait still returns (it must advance the others).
 */
static void test_in_flight(ctx_t *const *xs, int nx, int wait_reverse)
{
    case_t cs[3][24];
    MPI_Request barrier[3], reqs[3 * 25];
    int ncs[3], i, j, o, nr = 0;

    for (j = 0; j < nx; j++) {
        o = (wrank % 2 == 0) ? j : nx - 1 - j;
        tseq = 1000 * (o + 1) + 100 * wait_reverse;
        ncs[o] = start_batch(cs[o], xs[o], &barrier[o]);
    }
    if (wait_reverse == 0) {
        for (j = 0; j < nx; j++) {
            reqs[nr++] = barrier[j];
            for (i = 0; i < ncs[j]; i++) {
                reqs[nr++] = cs[j][i].req;
            }
        }
        called(xs[0], "Waitall (collectives in flight)", 0, -1,
               MPI_Waitall(nr, reqs, MPI_STATUSES_IGNORE));
        for (i = 0; i < nr; i++) {
            if (reqs[i] != MPI_REQUEST_NULL) {
                failf(xs[0], "Waitall (collectives in flight)", 0, -1,
                      "request %d not MPI_REQUEST_NULL after it", i);
            }
        }
        for (j = 0; j < nx; j++) {
            for (i = 0; i < ncs[j]; i++) {
                cs[j][i].req = MPI_REQUEST_NULL;
            }
        }
    } else {
        for (j = nx - 1; j >= 0; j--) {
            o = (wrank % 2 == 0) ? j : nx - 1 - j;
            for (i = ncs[o] - 1; i >= 0; i--) {
                called(xs[o], cs[o][i].what, cs[o][i].n, cs[o][i].root,
                       MPI_Wait(&cs[o][i].req, MPI_STATUS_IGNORE));
            }
            called(xs[o], "Ibarrier (in flight)", 0, -1,
                   MPI_Wait(&barrier[o], MPI_STATUS_IGNORE));
        }
    }
    for (j = 0; j < nx; j++) {
        for (i = 0; i < ncs[j]; i++) {
            finish(&cs[j][i]);
        }
    }
}

/*
 * Nonblocking collectives must advance while their process is blocked in
 * another MPI call (MPI's progress rule): one MPI_Waitall whose order of
 * requests differs between even and odd ranks, then rank 0 blocked in
 * MPI_Recv for a message that rank size / 2 sends only once its own
 * MPI_Wait on the collective has returned.
 */
static void test_blocked_progress(const ctx_t *x)
{
    case_t c[2];
    MPI_Request reqs[2];
    int msg = 0, mid = x->size / 2;

    tseq = 7000;
    case_allreduce(&c[0], x, &kinds[K_DBL], 1001, 0, 1);
    case_allreduce(&c[1], x, &kinds[K_MAT], 7, 1, 1);
    reqs[wrank % 2] = c[0].req;
    reqs[1 - wrank % 2] = c[1].req;
    called(x, "Waitall (order differs between ranks)", 0, -1,
           MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE));
    c[0].req = MPI_REQUEST_NULL;
    c[1].req = MPI_REQUEST_NULL;
    finish(&c[0]);
    finish(&c[1]);

    case_allreduce(&c[0], x, &kinds[K_DBL], 1001, 0, 1);
    if ((x->rank == 0) && (mid != 0)) {
        called(x, "Recv while an Iallreduce is pending", 1, -1,
               MPI_Recv(&msg, 1, MPI_INT, mid, 3, x->comm,
                        MPI_STATUS_IGNORE));
        checks++;
        if (msg != 42) {
            failf(x, "Recv while an Iallreduce is pending", 1, -1,
                  "expected 42, got %d", msg);
        }
    }
    finish(&c[0]);
    if ((x->rank == mid) && (mid != 0)) {
        msg = 42;
        called(x, "Send after an Iallreduce", 1, -1,
               MPI_Send(&msg, 1, MPI_INT, 0, 3, x->comm));
    }
}

/* A few collectives of every shape, blocking and not. */
static void some_collectives(const ctx_t *x)
{
    case_t c;
    int p = x->size;

    called(x, "Barrier", 0, -1, MPI_Barrier(x->comm));
    case_bcast(&c, x, &kinds[K_DBL], &kinds[K_DBL], 7, p - 1, 0);
    finish(&c);
    case_allreduce(&c, x, &kinds[K_MAT], 1001, 0, 0);
    finish(&c);
    case_alltoall(&c, x, &kinds[K_DBL], &kinds[K_DBL], 7, 1, 0, 0);
    finish(&c);
    case_reduce(&c, x, &kinds[K_VMAT], 7, p / 2, 1, 1);
    finish(&c);
    case_gather(&c, x, &kinds[K_DBL], &kinds[K_DBL], 7, 0, 0, 1,
                M_NONBLOCKING);
    finish(&c);
    case_scatter(&c, x, &kinds[K_DBL], &kinds[K_DBL], 7, p - 1, 0, 0,
                 M_PERSISTENT);
    finish(&c);
    case_scan(&c, x, &kinds[K_MAT], 7, 0, 0, M_NONBLOCKING);
    finish(&c);
    case_allgather(&c, x, &kinds[K_DBL], &kinds[K_DBL], 1001, 0, 0, 1);
    finish(&c);
}

static void check_user_msg(const ctx_t *x, const char *what, const int *got,
                           const MPI_Status *st, int src, int tag, int seq)
{
    checks++;
    if ((st->MPI_SOURCE != src) || (st->MPI_TAG != tag) || (got[0] != src) ||
        (got[1] != tag) || (got[2] != seq) || (got[3] != 0x5eed)) {
        failf(x, what, 4, -1, "user message %d: expected {%d, %d, %d, %d} "
              "from %d tag %d, got {%d, %d, %d, %d} from %d tag %d", seq,
              src, tag, seq, 0x5eed, src, tag, got[0], got[1], got[2], got[3],
              st->MPI_SOURCE, st->MPI_TAG);
    }
}

/* The two user messages check_user_msg expects, to right with tags. */
static void send_user_msgs(const ctx_t *x, const char *what, int sbuf[2][4],
                           const int tags[2], int right, MPI_Request sr[2])
{
    int i;

    for (i = 0; i < 2; i++) {
        sbuf[i][0] = x->rank;
        sbuf[i][1] = tags[i];
        sbuf[i][2] = i;
        sbuf[i][3] = 0x5eed;
        called(x, what, 4, -1, MPI_Isend(sbuf[i], 4, MPI_INT, right,
                                         tags[i], x->comm, &sr[i]));
    }
}

/*
 * User point-to-point on the communicator of the collectives: wildcard
 * receives posted before the collectives must match only the user's
 * messages, sent after them; user messages sent before the collectives
 * (unexpected) must be what later wildcard receives get.
 */
static void test_p2p_interleaved(const ctx_t *x)
{
    const char *what = "collectives with MPI_ANY_TAG receives pending";
    int right = (x->rank + 1) % x->size;
    int left = (x->rank + x->size - 1) % x->size;
    int rbuf[2][4], sbuf[2][4], flag = 0, i;
    static const int tags_a[2] = {5, 77}, tags_b[2] = {9, 0};
    MPI_Request rr[2], sr[2];
    MPI_Status st[2];
    case_t pending;

    tseq = 5000;
    for (i = 0; i < 2; i++) {
        called(x, what, 4, -1,
               MPI_Irecv(rbuf[i], 4, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG,
                         x->comm, &rr[i]));
    }
    some_collectives(x);
    called(x, what, 4, -1, MPI_Testall(2, rr, &flag, st));
    checks++;
    if (flag) {
        failf(x, what, 4, -1, "a wildcard receive matched collective "
              "traffic (from %d tag %d)", st[0].MPI_SOURCE, st[0].MPI_TAG);
    }
    called(x, what, 4, -1,
           MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, x->comm, &flag, st));
    if (flag) {
        failf(x, what, 4, -1, "MPI_Iprobe sees a message (from %d tag %d) "
              "before any user message was sent", st[0].MPI_SOURCE,
              st[0].MPI_TAG);
    }
    /* Everyone has tested before anyone sends. */
    called(x, what, 4, -1, MPI_Barrier(x->comm));
    send_user_msgs(x, what, sbuf, tags_a, right, sr);
    called(x, what, 4, -1, MPI_Waitall(2, rr, st));
    for (i = 0; i < 2; i++) {
        check_user_msg(x, what, rbuf[i], &st[i], left, tags_a[i], i);
    }
    called(x, what, 4, -1, MPI_Waitall(2, sr, MPI_STATUSES_IGNORE));

    /* Unexpected user messages, with a nonblocking collective pending
     * across the receives. */
    called(x, what, 4, -1, MPI_Barrier(x->comm));
    send_user_msgs(x, what, sbuf, tags_b, right, sr);
    case_allreduce(&pending, x, &kinds[K_MAT], 7, 0, 1);
    some_collectives(x);
    for (i = 0; i < 2; i++) {
        memset(rbuf[i], 0, sizeof(rbuf[i]));
        called(x, what, 4, -1,
               MPI_Recv(rbuf[i], 4, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG,
                        x->comm, &st[i]));
        check_user_msg(x, what, rbuf[i], &st[i], left, tags_b[i], i);
    }
    finish(&pending);
    called(x, what, 4, -1, MPI_Waitall(2, sr, MPI_STATUSES_IGNORE));
    called(x, what, 4, -1,
           MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, x->comm, &flag, st));
    if (flag) {
        failf(x, what, 4, -1, "MPI_Iprobe sees a stray message (from %d tag "
              "%d) after the user's were received", st[0].MPI_SOURCE,
              st[0].MPI_TAG);
    }
    called(x, what, 4, -1, MPI_Barrier(x->comm));
}

/* ---- main ---------------------------------------------------------------- */

static void note(const char *what)
{
    if (wrank == 0) {
        printf("coll_all: %s\n", what);
        fflush(stdout);
    }
}

static void ctx_make(ctx_t *x, MPI_Comm comm, const char *name)
{
    MPI_Group wg, g;
    int *ranks, r;

    x->comm = comm;
    x->name = name;
    MPI_Comm_rank(comm, &x->rank);
    MPI_Comm_size(comm, &x->size);
    x->wranks = ints(x->size);
    ranks = ints(x->size);
    for (r = 0; r < x->size; r++) {
        ranks[r] = r;
    }
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    MPI_Comm_group(comm, &g);
    MPI_Group_translate_ranks(g, x->size, ranks, wg, x->wranks);
    MPI_Group_free(&g);
    MPI_Group_free(&wg);
    free(ranks);
}

int main(int argc, char **argv)
{
    ctx_t world, dup, split, host;
    ctx_t *flight[3];
    MPI_Comm c;
    char tmpl[sizeof(tmpdir)];
    const char *parent = getenv("COLL_ALL_DIR");
    /* "progress": only the cases that need a wait to advance other
     * collectives (tests/mpi/test_coll_progress.sh). */
    int progress_only = (argc > 1) && (strcmp(argv[1], "progress") == 0);

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    /* Report errors here, with the case that got them; the communicators
     * made below inherit the handler. */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    make_kinds();
    ctx_make(&world, MPI_COMM_WORLD, "MPI_COMM_WORLD");

    /* The barrier's arrival files go to a new directory in COLL_ALL_DIR
     * (the test script's, in the build tree) or else here. */
    if (wrank == 0) {
        snprintf(tmpl, sizeof(tmpl), "%s/coll_all.XXXXXX",
                 (parent != NULL) ? parent : ".");
        if (mkdtemp(tmpl) == NULL) {
            perror("coll_all: mkdtemp");
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
        snprintf(tmpdir, sizeof(tmpdir), "%s", tmpl);
    }
    called(&world, "Bcast (temporary directory)", sizeof(tmpdir), 0,
           MPI_Bcast(tmpdir, sizeof(tmpdir), MPI_CHAR, 0, MPI_COMM_WORLD));

    MPI_Comm_dup(MPI_COMM_WORLD, &c);
    ctx_make(&dup, c, "a duplicate of MPI_COMM_WORLD");
    /* Odd and even world ranks, each in reverse order. */
    MPI_Comm_split(MPI_COMM_WORLD, wrank % 2, wsize - wrank, &c);
    ctx_make(&split, c, "odd/even split, reversed");
    /* The host's processes (several hosts: gcrun --hosts or --nodes). */
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0,
                        MPI_INFO_NULL, &c);
    ctx_make(&host, c, "MPI_COMM_TYPE_SHARED split");

    if (!progress_only) {
        test_suite(&world, 1);
        test_suite(&dup, 0);
        test_suite(&split, 1);
        if (host.size < wsize) {
            test_suite(&host, 0);
        }
    }

    flight[0] = &world;
    flight[1] = &dup;
    flight[2] = &split;
    if (progress_only) {
        /* Where a job hangs, the last line says in what. */
        note("collectives in flight on 3 communicators, waited for in "
             "reverse start order");
        test_in_flight(flight, 3, 1);
        note("MPI_Waitall in rank-dependent order; MPI_Recv while an "
             "Iallreduce is pending, on MPI_COMM_WORLD");
        test_blocked_progress(&world);
        note("the same on the odd/even split");
        test_blocked_progress(&split);
    } else {
        test_in_flight(flight, 3, 0);
        test_p2p_interleaved(&world);
        test_p2p_interleaved(&split);
    }

    if (op_type_errors > 0) {
        failf(&world, "user operation", 0, -1, "called %ld times with a "
              "datatype other than the one passed to the collective",
              op_type_errors);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (wrank == 0) {
        rmdir(tmpdir);
    }
    if (failures > 0) {
        printf("coll_all: %ld of %ld checks failed at %d processes\n",
               failures, checks, wsize);
    } else if (wrank == 0) {
        printf("coll_all: %ld checks passed at %d processes\n", checks,
               wsize);
    }
    MPI_Comm_free(&dup.comm);
    MPI_Comm_free(&split.comm);
    MPI_Comm_free(&host.comm);
    free(world.wranks);
    free(dup.wranks);
    free(split.wranks);
    free(host.wranks);
    MPI_Op_free(&mat_op);
    MPI_Op_free(&vmat_op);
    MPI_Type_free(&mat_type);
    MPI_Type_free(&vmat_type);
    MPI_Finalize();
    return (failures > 0) ? 1 : 0;
}
