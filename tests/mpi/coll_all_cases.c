/*
 * tests/mpi/coll_all_cases.c: each collective of coll_all as a case:
 * buffers and expected results prepared, the call made in its blocking,
 * nonblocking or persistent form, then finished and checked (see
 * coll_all.c).
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

/* ---- cases: prepare, call (blocking, or start), finish and check --------- */

static void case_init(case_t *c, const ctx_t *x, const kind_t *ks,
                      const kind_t *kr, long n, int root, const char *fmt,
                      ...)
{
    va_list ap;

    memset(c, 0, sizeof(*c));
    c->x = x;
    c->ks = ks;
    c->k = kr;
    c->n = n;
    c->root = root;
    c->req = MPI_REQUEST_NULL;
    va_start(ap, fmt);
    vsnprintf(c->what, sizeof(c->what), fmt, ap);
    va_end(ap);
}

int *ints(int n)
{
    int *a = calloc((size_t)(n > 0 ? n : 1), sizeof(int));

    if (a == NULL) {
        fprintf(stderr, "coll_all: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    return a;
}

/* The MPI name of base ("Gather") in mode: "Igather", "Gather_init". */
static const char *form_name(const char *base, int mode, char buf[32])
{
    if (mode == M_NONBLOCKING) {
        snprintf(buf, 32, "I%c%s", base[0] - 'A' + 'a', base + 1);
    } else if (mode == M_PERSISTENT) {
        snprintf(buf, 32, "%s_init", base);
    } else {
        snprintf(buf, 32, "%s", base);
    }
    return buf;
}

/* The form of a call that the tests ran blocking or not (nb): not
 * blocking is nonblocking or persistent by the parity of salt. */
int alt_mode(int nb, int salt)
{
    return nb ? M_NONBLOCKING + salt % 2 : M_BLOCKING;
}

void finish(case_t *c)
{
    int i;

    if (c->req != MPI_REQUEST_NULL) {
        called(c->x, c->what, c->n, c->root,
               MPI_Wait(&c->req, MPI_STATUS_IGNORE));
    }
    if (c->persistent) {
        called(c->x, c->what, c->n, c->root, MPI_Request_free(&c->req));
    }
    if (c->expect != NULL) {
        check(c->x, c->what, c->n, c->root, c->k, c->rbuf, c->expect,
              c->nunits);
    }
    if (c->sinput != NULL) {
        char what[128];

        snprintf(what, sizeof(what), "%s (send buffer changed)", c->what);
        check(c->x, what, c->n, c->root, c->ks, c->sbuf, c->sinput,
              c->sunits);
    }
    free(c->sbuf);
    free(c->rbuf);
    free(c->expect);
    free(c->sinput);
    for (i = 0; i < 6; i++) {
        free(c->arrays[i]);
    }
    for (i = 0; i < c->ntypes; i++) {
        MPI_Type_free(&c->types[i]);
    }
    free(c->types);
}

static void keep_input(case_t *c, long n)
{
    c->sinput = copy_of(c->ks, c->sbuf, n);
    c->sunits = n * c->ks->ext;
}

/* Block size of one rank for count index ci: large blocks are LARGE in
 * all, so that the biggest runs stay near 300000 elements per process. */
long block(const ctx_t *x, int ci)
{
    return (counts[ci] == LARGE) ? LARGE / x->size : counts[ci];
}

/* Varying per-rank counts (some zero) for the v-forms. */
static int vcount(int r, long base, int variant)
{
    return ((r + variant) % 3 == 1) ? 0 : (int)base + r % 2;
}

/* Varying symmetric per-pair counts (some zero) for alltoallv/w. */
static int pcount(int i, int j, long base, int variant)
{
    return ((i + j + variant) % 4 == 3) ? 0 : (int)base + (i + j) % 3;
}

/* Displacements in reverse rank order with a hole of one element after
 * each block; returns the buffer's length in elements. */
static long rev_displs(const int *cnt, int *displs, int size)
{
    long at = 0;
    int r;

    for (r = size - 1; r >= 0; r--) {
        displs[r] = (int)at;
        at += cnt[r] + 1;
    }
    return at;
}

/* The counts (vcount, shifted by shift) and the rev_displs
 * displacements of a v form, in the case's arrays 0 and 1; returns the
 * buffer's length in elements. */
static long v_blocks(case_t *c, const ctx_t *x, long n, int shift,
                     int **cnt, int **displs)
{
    int r;

    *cnt = c->arrays[0] = ints(x->size);
    *displs = c->arrays[1] = ints(x->size);
    for (r = 0; r < x->size; r++) {
        (*cnt)[r] = vcount(r, n, shift);
    }
    return rev_displs(*cnt, *displs, x->size);
}

void case_bcast(case_t *c, const ctx_t *x, const kind_t *ks,
                const kind_t *kr, long n, int root, int mode)
{
    const kind_t *mine = (x->rank == root) ? ks : kr;
    int t = ++tseq;
    char nm[32];

    case_init(c, x, mine, mine, n, root, "%s(%s -> %s)",
              form_name("Bcast", mode, nm), ks->name, kr->name);
    c->rbuf = sentinels(mine, n);
    if (x->rank == root) {
        fill(mine, c->rbuf, 0, n, t, root);
    }
    c->expect = sentinels(mine, n);
    fill(mine, c->expect, 0, n, t, root);
    c->nunits = n * mine->ext;
    CALL3(c, mode,
          MPI_Bcast(c->rbuf, (int)n, mine->type, root, x->comm),
          MPI_Ibcast(c->rbuf, (int)n, mine->type, root, x->comm, &c->req),
          MPI_Bcast_init(c->rbuf, (int)n, mine->type, root, x->comm,
                         MPI_INFO_NULL, &c->req));
}

void case_gather(case_t *c, const ctx_t *x, const kind_t *ks,
                 const kind_t *kr, long n, int root, int inplace,
                 int v, int mode)
{
    int t = ++tseq, r, me = x->rank, isroot = (me == root);
    int *cnt = NULL, *displs = NULL;
    const void *sarg;
    long total = n * x->size;
    char nm[32];

    case_init(c, x, ks, kr, n, root, "%s(%s -> %s%s)",
              form_name(v ? "Gatherv" : "Gather", mode, nm), ks->name,
              kr->name, inplace ? ", in place" : "");
    if (v) {
        total = v_blocks(c, x, n, (int)(n % 5) + root, &cnt, &displs);
    }
    c->sbuf = sentinels(ks, v ? cnt[me] : n);
    fill(ks, c->sbuf, 0, v ? cnt[me] : n, t, me);
    keep_input(c, v ? cnt[me] : n);
    sarg = c->sbuf;
    if (isroot) {
        c->rbuf = sentinels(kr, total);
        c->expect = sentinels(kr, total);
        for (r = 0; r < x->size; r++) {
            fill(kr, c->expect, v ? displs[r] : r * n, v ? cnt[r] : n, t, r);
        }
        c->nunits = total * kr->ext;
        if (inplace) {
            fill(kr, c->rbuf, v ? displs[me] : me * n, v ? cnt[me] : n, t,
                 me);
            sarg = MPI_IN_PLACE;
        }
    }
    if (v) {
        /* recvbuf, recvcounts and displs mean nothing at the others. */
        int *rc = isroot ? cnt : NULL, *rd = isroot ? displs : NULL;

        CALL3(c, mode,
              MPI_Gatherv(sarg, cnt[me], ks->type, c->rbuf, rc, rd,
                          kr->type, root, x->comm),
              MPI_Igatherv(sarg, cnt[me], ks->type, c->rbuf, rc, rd,
                           kr->type, root, x->comm, &c->req),
              MPI_Gatherv_init(sarg, cnt[me], ks->type, c->rbuf, rc, rd,
                               kr->type, root, x->comm, MPI_INFO_NULL,
                               &c->req));
    } else {
        CALL3(c, mode,
              MPI_Gather(sarg, (int)n, ks->type, c->rbuf, (int)n, kr->type,
                         root, x->comm),
              MPI_Igather(sarg, (int)n, ks->type, c->rbuf, (int)n, kr->type,
                          root, x->comm, &c->req),
              MPI_Gather_init(sarg, (int)n, ks->type, c->rbuf, (int)n,
                              kr->type, root, x->comm, MPI_INFO_NULL,
                              &c->req));
    }
}

void case_scatter(case_t *c, const ctx_t *x, const kind_t *ks,
                  const kind_t *kr, long n, int root, int inplace,
                  int v, int mode)
{
    int t = ++tseq, r, me = x->rank, isroot = (me == root);
    int *cnt = NULL, *displs = NULL;
    void *rarg;
    long total = n * x->size, mine;
    char nm[32];

    case_init(c, x, ks, kr, n, root, "%s(%s -> %s%s)",
              form_name(v ? "Scatterv" : "Scatter", mode, nm), ks->name,
              kr->name, inplace ? ", in place" : "");
    if (v) {
        total = v_blocks(c, x, n, (int)(n % 7) + root, &cnt, &displs);
    }
    mine = v ? cnt[me] : n;
    if (isroot) {
        c->sbuf = sentinels(ks, total);
        for (r = 0; r < x->size; r++) {
            fill(ks, c->sbuf, v ? displs[r] : r * n, v ? cnt[r] : n, t, r);
        }
        keep_input(c, total);
    }
    c->rbuf = sentinels(kr, mine);
    rarg = c->rbuf;
    if (isroot && inplace) {
        rarg = MPI_IN_PLACE;     /* root's block stays in sendbuf */
    } else {
        c->expect = sentinels(kr, mine);
        fill(kr, c->expect, 0, mine, t, me);
        c->nunits = mine * kr->ext;
    }
    if (v) {
        int *sc = isroot ? cnt : NULL, *sd = isroot ? displs : NULL;

        CALL3(c, mode,
              MPI_Scatterv(c->sbuf, sc, sd, ks->type, rarg, (int)mine,
                           kr->type, root, x->comm),
              MPI_Iscatterv(c->sbuf, sc, sd, ks->type, rarg, (int)mine,
                            kr->type, root, x->comm, &c->req),
              MPI_Scatterv_init(c->sbuf, sc, sd, ks->type, rarg, (int)mine,
                                kr->type, root, x->comm, MPI_INFO_NULL,
                                &c->req));
    } else {
        CALL3(c, mode,
              MPI_Scatter(c->sbuf, (int)n, ks->type, rarg, (int)n, kr->type,
                          root, x->comm),
              MPI_Iscatter(c->sbuf, (int)n, ks->type, rarg, (int)n,
                           kr->type, root, x->comm, &c->req),
              MPI_Scatter_init(c->sbuf, (int)n, ks->type, rarg, (int)n,
                               kr->type, root, x->comm, MPI_INFO_NULL,
                               &c->req));
    }
}

void case_allgather(case_t *c, const ctx_t *x, const kind_t *ks,
                    const kind_t *kr, long n, int inplace, int v,
                    int mode)
{
    int t = ++tseq, r, me = x->rank;
    int *cnt = NULL, *displs = NULL;
    const void *sarg;
    long total = n * x->size, mine = n;
    char nm[32];

    case_init(c, x, ks, kr, n, -1, "%s(%s -> %s%s)",
              form_name(v ? "Allgatherv" : "Allgather", mode, nm),
              ks->name, kr->name, inplace ? ", in place" : "");
    if (v) {
        total = v_blocks(c, x, n, (int)(n % 3), &cnt, &displs);
        mine = cnt[me];
    }
    c->sbuf = sentinels(ks, mine);
    fill(ks, c->sbuf, 0, mine, t, me);
    keep_input(c, mine);
    c->rbuf = sentinels(kr, total);
    c->expect = sentinels(kr, total);
    for (r = 0; r < x->size; r++) {
        fill(kr, c->expect, v ? displs[r] : r * n, v ? cnt[r] : n, t, r);
    }
    c->nunits = total * kr->ext;
    sarg = c->sbuf;
    if (inplace) {
        fill(kr, c->rbuf, v ? displs[me] : me * n, mine, t, me);
        sarg = MPI_IN_PLACE;
    }
    if (v) {
        CALL3(c, mode,
              MPI_Allgatherv(sarg, (int)mine, ks->type, c->rbuf, cnt, displs,
                             kr->type, x->comm),
              MPI_Iallgatherv(sarg, (int)mine, ks->type, c->rbuf, cnt,
                              displs, kr->type, x->comm, &c->req),
              MPI_Allgatherv_init(sarg, (int)mine, ks->type, c->rbuf, cnt,
                                  displs, kr->type, x->comm, MPI_INFO_NULL,
                                  &c->req));
    } else {
        CALL3(c, mode,
              MPI_Allgather(sarg, (int)n, ks->type, c->rbuf, (int)n,
                            kr->type, x->comm),
              MPI_Iallgather(sarg, (int)n, ks->type, c->rbuf, (int)n,
                             kr->type, x->comm, &c->req),
              MPI_Allgather_init(sarg, (int)n, ks->type, c->rbuf, (int)n,
                                 kr->type, x->comm, MPI_INFO_NULL, &c->req));
    }
}

/* What i sends to j: source i * 64 + j (sizes stay below 64). */
#define PAIR(_i, _j) ((_i) * 64 + (_j))

void case_alltoall(case_t *c, const ctx_t *x, const kind_t *ks,
                   const kind_t *kr, long n, int inplace, int v,
                   int mode)
{
    int t = ++tseq, r, me = x->rank, p = x->size;
    int *scnt = NULL, *sdis = NULL, *rcnt = NULL, *rdis = NULL;
    const void *sarg;
    long stotal = n * p, rtotal = n * p;
    char nm[32];

    case_init(c, x, ks, kr, n, -1, "%s(%s -> %s%s)",
              form_name(v ? "Alltoallv" : "Alltoall", mode, nm), ks->name,
              kr->name, inplace ? ", in place" : "");
    if (v) {
        scnt = c->arrays[0] = ints(p);
        sdis = c->arrays[1] = ints(p);
        rcnt = c->arrays[2] = ints(p);
        rdis = c->arrays[3] = ints(p);
        /* Receive blocks in rank order with holes of two elements. */
        rtotal = 0;
        for (r = 0; r < p; r++) {
            scnt[r] = pcount(me, r, n, (int)(n % 4));
            rcnt[r] = pcount(r, me, n, (int)(n % 4));
            rdis[r] = (int)rtotal;
            rtotal += rcnt[r] + 2;
        }
        stotal = rev_displs(scnt, sdis, p);
    }
    c->sbuf = sentinels(ks, stotal);
    for (r = 0; r < p; r++) {
        fill(ks, c->sbuf, v ? sdis[r] : r * n, v ? scnt[r] : n, t,
             PAIR(me, r));
    }
    keep_input(c, stotal);
    c->rbuf = sentinels(kr, rtotal);
    c->expect = sentinels(kr, rtotal);
    for (r = 0; r < p; r++) {
        fill(kr, c->expect, v ? rdis[r] : r * n, v ? rcnt[r] : n, t,
             PAIR(r, me));
    }
    c->nunits = rtotal * kr->ext;
    sarg = c->sbuf;
    if (inplace) {
        /* What goes to r waits in r's receive block (the counts are
         * symmetric, as in place requires). */
        for (r = 0; r < p; r++) {
            fill(kr, c->rbuf, v ? rdis[r] : r * n, v ? rcnt[r] : n, t,
                 PAIR(me, r));
        }
        sarg = MPI_IN_PLACE;
    }
    if (v) {
        CALL3(c, mode,
              MPI_Alltoallv(sarg, scnt, sdis, ks->type, c->rbuf, rcnt, rdis,
                            kr->type, x->comm),
              MPI_Ialltoallv(sarg, scnt, sdis, ks->type, c->rbuf, rcnt, rdis,
                             kr->type, x->comm, &c->req),
              MPI_Alltoallv_init(sarg, scnt, sdis, ks->type, c->rbuf, rcnt,
                                 rdis, kr->type, x->comm, MPI_INFO_NULL,
                                 &c->req));
    } else {
        CALL3(c, mode,
              MPI_Alltoall(sarg, (int)n, ks->type, c->rbuf, (int)n, kr->type,
                           x->comm),
              MPI_Ialltoall(sarg, (int)n, ks->type, c->rbuf, (int)n,
                            kr->type, x->comm, &c->req),
              MPI_Alltoall_init(sarg, (int)n, ks->type, c->rbuf, (int)n,
                                kr->type, x->comm, MPI_INFO_NULL, &c->req));
    }
}

/*
 * Alltoallw on doubles: i sends to an odd j as one vector of n doubles
 * at stride 2, to an even j as n contiguous doubles; j receives from an
 * even i as the vector, from an odd i contiguously. Every peer's region
 * is 2n + 1 doubles, at byte displacements: sends in rank order, receives
 * in reverse.
 */
void case_alltoallw(case_t *c, const ctx_t *x, long n, int inplace,
                    int mode)
{
    const kind_t *k = &kinds[K_DBL];
    int t = ++tseq, r, me = x->rank, p = x->size;
    int *scnt, *sdis, *rcnt, *rdis;
    MPI_Datatype *stypes, *rtypes;
    long at, e;
    const void *sarg;
    char nm[32];

    case_init(c, x, k, k, n, -1, "%s(double, vector types%s)",
              form_name("Alltoallw", mode, nm), inplace ? ", in place" : "");
    scnt = c->arrays[0] = ints(p);
    sdis = c->arrays[1] = ints(p);
    rcnt = c->arrays[2] = ints(p);
    rdis = c->arrays[3] = ints(p);
    /* types[r]: the vector of what goes to and comes from r (the counts
     * are symmetric); then the send types, then the receive types. */
    c->types = malloc(3 * (size_t)p * sizeof(MPI_Datatype));
    stypes = c->types + p;
    rtypes = c->types + 2 * p;
    at = 0;
    for (r = 0; r < p; r++) {
        int m = pcount(me, r, n, (int)(n % 4));

        MPI_Type_vector(m, 1, 2, MPI_DOUBLE, &c->types[r]);
        MPI_Type_commit(&c->types[r]);
        c->ntypes++;
        stypes[r] = (r % 2 != 0) ? c->types[r] : MPI_DOUBLE;
        rtypes[r] = (r % 2 == 0) ? c->types[r] : MPI_DOUBLE;
        scnt[r] = (r % 2 != 0) ? 1 : m;
        sdis[r] = (int)(at * (long)sizeof(double));
        at += 2L * m + 1;
    }
    c->sbuf = sentinels(k, at);
    c->sunits = at;
    for (r = 0; r < p; r++) {
        int m = pcount(me, r, n, (int)(n % 4));
        long base = sdis[r] / (long)sizeof(double);

        for (e = 0; e < m; e++) {
            put(k, c->sbuf, base + ((r % 2 != 0) ? 2 * e : e),
                input(k, t, PAIR(me, r), e, 0));
        }
    }
    c->sinput = copy_of(k, c->sbuf, at);
    at = 0;
    for (r = p - 1; r >= 0; r--) {
        int m = pcount(r, me, n, (int)(n % 4));

        rcnt[r] = (r % 2 == 0) ? 1 : m;
        rdis[r] = (int)(at * (long)sizeof(double));
        at += 2L * m + 1;
    }
    c->rbuf = sentinels(k, at);
    c->expect = sentinels(k, at);
    c->nunits = at;
    for (r = 0; r < p; r++) {
        int m = pcount(r, me, n, (int)(n % 4));
        long base = rdis[r] / (long)sizeof(double);

        for (e = 0; e < m; e++) {
            long u = base + ((r % 2 == 0) ? 2 * e : e);

            put(k, c->expect, u, input(k, t, PAIR(r, me), e, 0));
            if (inplace) {
                /* In place, what goes to r leaves from r's receive
                 * region, with r's receive type. */
                put(k, c->rbuf, u, input(k, t, PAIR(me, r), e, 0));
            }
        }
    }
    sarg = inplace ? MPI_IN_PLACE : c->sbuf;
    CALL3(c, mode,
          MPI_Alltoallw(sarg, scnt, sdis, stypes, c->rbuf, rcnt, rdis,
                        rtypes, x->comm),
          MPI_Ialltoallw(sarg, scnt, sdis, stypes, c->rbuf, rcnt, rdis,
                         rtypes, x->comm, &c->req),
          MPI_Alltoallw_init(sarg, scnt, sdis, stypes, c->rbuf, rcnt, rdis,
                             rtypes, x->comm, MPI_INFO_NULL, &c->req));
}

void case_reduce(case_t *c, const ctx_t *x, const kind_t *k, long n,
                 int root, int inplace, int mode)
{
    int t = ++tseq, me = x->rank, isroot = (me == root);
    const void *sarg;
    char nm[32];

    case_init(c, x, k, k, n, root, "%s(%s%s)", form_name("Reduce", mode, nm),
              k->name, inplace ? ", in place" : "");
    c->sbuf = sentinels(k, n);
    fill_from(k, c->sbuf, 0, n, t, me, 0);
    keep_input(c, n);
    sarg = c->sbuf;
    if (isroot) {
        c->rbuf = sentinels(k, n);
        c->expect = sentinels(k, n);
        fill_reduced(k, c->expect, 0, n, t, 0, x->size, 0);
        c->nunits = n * k->ext;
        if (inplace) {
            fill_from(k, c->rbuf, 0, n, t, me, 0);
            sarg = MPI_IN_PLACE;
        }
    }
    /* recvbuf means nothing at the others: NULL there. */
    CALL3(c, mode,
          MPI_Reduce(sarg, c->rbuf, (int)n, k->type, k->op, root, x->comm),
          MPI_Ireduce(sarg, c->rbuf, (int)n, k->type, k->op, root, x->comm,
                      &c->req),
          MPI_Reduce_init(sarg, c->rbuf, (int)n, k->type, k->op, root,
                          x->comm, MPI_INFO_NULL, &c->req));
}

void case_allreduce(case_t *c, const ctx_t *x, const kind_t *k,
                    long n, int inplace, int mode)
{
    int t = ++tseq, me = x->rank;
    const void *sarg;
    char nm[32];

    case_init(c, x, k, k, n, -1, "%s(%s%s)",
              form_name("Allreduce", mode, nm), k->name,
              inplace ? ", in place" : "");
    c->sbuf = sentinels(k, n);
    fill_from(k, c->sbuf, 0, n, t, me, 0);
    keep_input(c, n);
    c->rbuf = sentinels(k, n);
    c->expect = sentinels(k, n);
    fill_reduced(k, c->expect, 0, n, t, 0, x->size, 0);
    c->nunits = n * k->ext;
    sarg = c->sbuf;
    if (inplace) {
        fill_from(k, c->rbuf, 0, n, t, me, 0);
        sarg = MPI_IN_PLACE;
    }
    CALL3(c, mode,
          MPI_Allreduce(sarg, c->rbuf, (int)n, k->type, k->op, x->comm),
          MPI_Iallreduce(sarg, c->rbuf, (int)n, k->type, k->op, x->comm,
                         &c->req),
          MPI_Allreduce_init(sarg, c->rbuf, (int)n, k->type, k->op, x->comm,
                             MPI_INFO_NULL, &c->req));
}

/* Reduce_scatter(_block): rank r gets the reduction of the elements
 * [off_r, off_r + cnt_r) of every member's input. */
void case_reduce_scatter(case_t *c, const ctx_t *x, const kind_t *k,
                         long n, int inplace, int v, int mode)
{
    int t = ++tseq, me = x->rank, r, *cnt;
    long total = 0, off = 0;
    const void *sarg;
    char nm[32];

    case_init(c, x, k, k, n, -1, "%s(%s%s)",
              form_name(v ? "Reduce_scatter" : "Reduce_scatter_block", mode,
                        nm), k->name, inplace ? ", in place" : "");
    cnt = c->arrays[0] = ints(x->size);
    for (r = 0; r < x->size; r++) {
        cnt[r] = v ? vcount(r, n, (int)(n % 3) + 1) : (int)n;
        if (r < me) {
            off += cnt[r];
        }
        total += cnt[r];
    }
    c->sbuf = sentinels(k, total);
    fill_from(k, c->sbuf, 0, total, t, me, 0);
    keep_input(c, total);
    c->rbuf = sentinels(k, inplace ? total : cnt[me]);
    c->expect = sentinels(k, cnt[me]);
    fill_reduced(k, c->expect, 0, cnt[me], t, 0, x->size, off);
    /* In place, only the first cnt[me] elements are defined after. */
    c->nunits = (long)cnt[me] * k->ext;
    sarg = c->sbuf;
    if (inplace) {
        fill_from(k, c->rbuf, 0, total, t, me, 0);
        sarg = MPI_IN_PLACE;
    }
    if (v) {
        CALL3(c, mode,
              MPI_Reduce_scatter(sarg, c->rbuf, cnt, k->type, k->op, x->comm),
              MPI_Ireduce_scatter(sarg, c->rbuf, cnt, k->type, k->op, x->comm,
                                  &c->req),
              MPI_Reduce_scatter_init(sarg, c->rbuf, cnt, k->type, k->op,
                                      x->comm, MPI_INFO_NULL, &c->req));
    } else {
        CALL3(c, mode,
              MPI_Reduce_scatter_block(sarg, c->rbuf, (int)n, k->type, k->op,
                                       x->comm),
              MPI_Ireduce_scatter_block(sarg, c->rbuf, (int)n, k->type,
                                        k->op, x->comm, &c->req),
              MPI_Reduce_scatter_block_init(sarg, c->rbuf, (int)n, k->type,
                                            k->op, x->comm, MPI_INFO_NULL,
                                            &c->req));
    }
}

void case_scan(case_t *c, const ctx_t *x, const kind_t *k, long n,
               int inplace, int ex, int mode)
{
    int t = ++tseq, me = x->rank;
    const void *sarg;
    char nm[32];

    case_init(c, x, k, k, n, -1, "%s(%s%s)",
              form_name(ex ? "Exscan" : "Scan", mode, nm), k->name,
              inplace ? ", in place" : "");
    c->sbuf = sentinels(k, n);
    fill_from(k, c->sbuf, 0, n, t, me, 0);
    keep_input(c, n);
    c->rbuf = sentinels(k, n);
    sarg = c->sbuf;
    if (inplace) {
        fill_from(k, c->rbuf, 0, n, t, me, 0);
        sarg = MPI_IN_PLACE;
    }
    /* Exscan leaves rank 0's recvbuf undefined. */
    if (!ex || (me > 0)) {
        c->expect = sentinels(k, n);
        fill_reduced(k, c->expect, 0, n, t, 0, ex ? me : me + 1, 0);
        c->nunits = n * k->ext;
    }
    if (ex) {
        CALL3(c, mode,
              MPI_Exscan(sarg, c->rbuf, (int)n, k->type, k->op, x->comm),
              MPI_Iexscan(sarg, c->rbuf, (int)n, k->type, k->op, x->comm,
                          &c->req),
              MPI_Exscan_init(sarg, c->rbuf, (int)n, k->type, k->op, x->comm,
                              MPI_INFO_NULL, &c->req));
    } else {
        CALL3(c, mode,
              MPI_Scan(sarg, c->rbuf, (int)n, k->type, k->op, x->comm),
              MPI_Iscan(sarg, c->rbuf, (int)n, k->type, k->op, x->comm,
                        &c->req),
              MPI_Scan_init(sarg, c->rbuf, (int)n, k->type, k->op, x->comm,
                            MPI_INFO_NULL, &c->req));
    }
}
