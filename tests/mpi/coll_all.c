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
 */
#include <mpi.h>

#include "mpitest.h"

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

#define LARGE          300000
#define NCOUNTS        5
#define MAX_FAIL_LINES 40

static const int counts[NCOUNTS] = {0, 1, 7, 1001, LARGE};

static int  wrank, wsize;
static long failures, checks;
static int  tseq;                /* test number: same on every member */
static int  suite_no;            /* which test_suite call */
static char tmpdir[256];         /* for the barrier's arrival files */

/* A communicator under test. */
typedef struct {
    MPI_Comm    comm;
    const char *name;
    int         rank, size;
    int        *wranks;          /* world rank of each rank */
} ctx_t;

/* ---- element kinds ------------------------------------------------------- */

enum { K_DBL, K_INT, K_MAT, K_VMAT, K_MINLOC, NKINDS };

/*
 * An element is ext base values (double, int or uint32), nval of which
 * hold data, at pos[]; the others are holes that no call may write.
 */
typedef struct {
    int          id;
    const char  *name;
    MPI_Datatype type;
    MPI_Op       op;
    char         base;           /* 'd', 'i' or 'u' */
    size_t       unit;
    int          ext, nval, pos[4];
} kind_t;

static kind_t       kinds[NKINDS];
static MPI_Datatype mat_type, vmat_type;
static MPI_Op       mat_op, vmat_op;
static long         op_type_errors;

/* 2x2 matrices mod 2^32 (mpitest.h). */
typedef mpitest_mat_t mat_t;

/* MPI calls user functions with inoutvec = invec op inoutvec, invec
 * holding the lower ranks: so the product keeps invec on the left. */
static void mat_apply(void *in, void *inout, int len, int ext,
                      const int *pos)
{
    uint32_t *x = in, *y = inout;
    int i;

    for (i = 0; i < len; i++) {
        uint32_t *p = x + (size_t)i * ext, *q = y + (size_t)i * ext;
        mat_t l = {p[pos[0]], p[pos[1]], p[pos[2]], p[pos[3]]};
        mat_t r = {q[pos[0]], q[pos[1]], q[pos[2]], q[pos[3]]};
        mat_t z = mpitest_mat_mul(l, r);

        q[pos[0]] = z.a;
        q[pos[1]] = z.b;
        q[pos[2]] = z.c;
        q[pos[3]] = z.d;
    }
}

static void mat_fn(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    if (*dt != mat_type) {
        op_type_errors++;
        return;
    }
    mat_apply(in, inout, *len, 4, kinds[K_MAT].pos);
}

static void vmat_fn(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    if (*dt != vmat_type) {
        op_type_errors++;
        return;
    }
    mat_apply(in, inout, *len, 5, kinds[K_VMAT].pos);
}

static void make_kinds(void)
{
    kind_t *k;

    /* A matrix: four unsigned ints. As a vector: blocks of 2 at stride 3,
     * so an element is 5 values, the middle one a hole. */
    MPI_Type_contiguous(4, MPI_UNSIGNED, &mat_type);
    MPI_Type_commit(&mat_type);
    MPI_Type_vector(2, 2, 3, MPI_UNSIGNED, &vmat_type);
    MPI_Type_commit(&vmat_type);
    MPI_Op_create(mat_fn, 0, &mat_op);
    MPI_Op_create(vmat_fn, 0, &vmat_op);

    k = &kinds[K_DBL];
    *k = (kind_t){K_DBL, "double sum", MPI_DOUBLE, MPI_SUM, 'd',
                  sizeof(double), 1, 1, {0}};
    k = &kinds[K_INT];
    *k = (kind_t){K_INT, "int max", MPI_INT, MPI_MAX, 'i', sizeof(int),
                  1, 1, {0}};
    k = &kinds[K_MAT];
    *k = (kind_t){K_MAT, "2x2 product", mat_type, mat_op, 'u',
                  sizeof(uint32_t), 4, 4, {0, 1, 2, 3}};
    k = &kinds[K_VMAT];
    *k = (kind_t){K_VMAT, "2x2 product, vector type", vmat_type, vmat_op,
                  'u', sizeof(uint32_t), 5, 4, {0, 1, 3, 4}};
    k = &kinds[K_MINLOC];
    *k = (kind_t){K_MINLOC, "2int minloc", MPI_2INT, MPI_MINLOC, 'i',
                  sizeof(int), 2, 2, {0, 1}};
}

/* ---- values, layouts and the reference ----------------------------------- */

static uint32_t mix(uint32_t a, uint32_t b, uint32_t c, uint32_t d)
{
    uint32_t h = a * 0x9E3779B1u;

    h ^= b * 0x85EBCA77u;
    h = (h ^ (h >> 13)) * 0xC2B2AE3Du;
    h ^= c * 0x27D4EB2Fu;
    h = (h ^ (h >> 16)) * 0x165667B1u;
    h ^= d * 0x9E3779B1u;
    h ^= h >> 15;
    return h;
}

/*
 * Value v of element e that source r contributes in test t. Integers
 * below 2^20 in magnitude, so that sums of nine are exact as doubles;
 * matrix entries small and positive; minloc values with many ties.
 */
static int64_t input(const kind_t *k, int t, int r, long e, int v)
{
    uint32_t h = mix((uint32_t)t, (uint32_t)r, (uint32_t)e, (uint32_t)v);

    if (k->id == K_MINLOC) {
        return (v == 0) ? (int64_t)(h % 5u) : r;
    }
    if (k->base == 'u') {
        return (int64_t)(h % 1000u) + 1;
    }
    return (int64_t)(h % 1000003u) - 500000;
}

/* acc = acc op x, acc holding the lower ranks. */
static void fold(const kind_t *k, int64_t *acc, const int64_t *x)
{
    switch (k->id) {
    case K_DBL:
        acc[0] += x[0];
        break;
    case K_INT:
        acc[0] = (x[0] > acc[0]) ? x[0] : acc[0];
        break;
    case K_MINLOC:
        if ((x[0] < acc[0]) || ((x[0] == acc[0]) && (x[1] < acc[1]))) {
            acc[0] = x[0];
            acc[1] = x[1];
        }
        break;
    default: {
        mat_t l = {(uint32_t)acc[0], (uint32_t)acc[1], (uint32_t)acc[2],
                   (uint32_t)acc[3]};
        mat_t r = {(uint32_t)x[0], (uint32_t)x[1], (uint32_t)x[2],
                   (uint32_t)x[3]};
        mat_t z = mpitest_mat_mul(l, r);

        acc[0] = z.a;
        acc[1] = z.b;
        acc[2] = z.c;
        acc[3] = z.d;
        break;
    }
    }
}

static void put(const kind_t *k, void *buf, long u, int64_t v)
{
    switch (k->base) {
    case 'd':
        ((double *)buf)[u] = (double)v;
        break;
    case 'i':
        ((int *)buf)[u] = (int)v;
        break;
    default:
        ((uint32_t *)buf)[u] = (uint32_t)v;
        break;
    }
}

static double shown(const kind_t *k, const void *buf, long u)
{
    switch (k->base) {
    case 'd':
        return ((const double *)buf)[u];
    case 'i':
        return ((const int *)buf)[u];
    default:
        return ((const uint32_t *)buf)[u];
    }
}

/* A buffer of n elements, every value a sentinel. */
static void *sentinels(const kind_t *k, long n)
{
    long u, nu = n * k->ext;
    void *buf = malloc((size_t)(nu > 0 ? nu : 1) * k->unit);

    if (buf == NULL) {
        fprintf(stderr, "coll_all: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    /* One loop per base type, so that the compiler can vectorize it. */
    switch (k->base) {
    case 'd':
        for (u = 0; u < nu; u++) {
            ((double *)buf)[u] = -7777777.25;
        }
        break;
    case 'i':
        for (u = 0; u < nu; u++) {
            ((int *)buf)[u] = INT_MIN + 7;
        }
        break;
    default:
        for (u = 0; u < nu; u++) {
            ((uint32_t *)buf)[u] = 0xDEADBEEFu;
        }
        break;
    }
    return buf;
}

static void *copy_of(const kind_t *k, const void *buf, long n)
{
    void *c = sentinels(k, n);

    memcpy(c, buf, (size_t)(n * k->ext) * k->unit);
    return c;
}

/* Elements at..at+n-1 of buf := source r's elements 0..n-1 of test t. */
static void fill(const kind_t *k, void *buf, long at, long n, int t, int r)
{
    long e;
    int v;

    for (e = 0; e < n; e++) {
        for (v = 0; v < k->nval; v++) {
            put(k, buf, (at + e) * k->ext + k->pos[v], input(k, t, r, e, v));
        }
    }
}

/* Elements at..at+n-1 of buf := the reduction over sources lo..hi-1, in
 * that order, of their elements e0..e0+n-1. */
static void fill_reduced(const kind_t *k, void *buf, long at, long n, int t,
                         int lo, int hi, long e0)
{
    int64_t acc[4], x[4];
    long e;
    int r, v;

    for (e = 0; e < n; e++) {
        for (v = 0; v < k->nval; v++) {
            acc[v] = input(k, t, lo, e0 + e, v);
        }
        for (r = lo + 1; r < hi; r++) {
            for (v = 0; v < k->nval; v++) {
                x[v] = input(k, t, r, e0 + e, v);
            }
            fold(k, acc, x);
        }
        for (v = 0; v < k->nval; v++) {
            put(k, buf, (at + e) * k->ext + k->pos[v], acc[v]);
        }
    }
}

/* Reduction input: source r's elements e0..e0+n-1 at element at. */
static void fill_from(const kind_t *k, void *buf, long at, long n, int t,
                      int r, long e0)
{
    fill_reduced(k, buf, at, n, t, r, r + 1, e0);
}

/* ---- reporting ----------------------------------------------------------- */

static void failf(const ctx_t *x, const char *what, long n, int root,
                  const char *fmt, ...)
{
    char rootstr[16] = "-";
    va_list ap;

    failures++;
    if (failures > MAX_FAIL_LINES) {
        return;
    }
    if (root >= 0) {
        snprintf(rootstr, sizeof(rootstr), "%d", root);
    }
    printf("FAIL: %s on %s (%d processes): count %ld, root %s, rank %d "
           "(world %d): ", what, x->name, x->size, n, rootstr, x->rank,
           wrank);
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf("\n");
    fflush(stdout);
}

/* Compares nu base values; reports the first that differs. */
static void check(const ctx_t *x, const char *what, long n, int root,
                  const kind_t *k, const void *got, const void *exp,
                  long nu)
{
    const char *g = got, *e = exp;
    long u, bad = 0, first = -1;

    checks++;
    if ((nu == 0) || (memcmp(got, exp, (size_t)nu * k->unit) == 0)) {
        return;
    }
    for (u = 0; u < nu; u++) {
        if (memcmp(g + u * k->unit, e + u * k->unit, k->unit) != 0) {
            bad++;
            if (first < 0) {
                first = u;
            }
        }
    }
    if (bad > 0) {
        failf(x, what, n, root, "index %ld (element %ld, value %ld): "
              "expected %.17g, got %.17g (%ld of %ld values wrong)",
              first, first / k->ext, first % k->ext, shown(k, exp, first),
              shown(k, got, first), bad, nu);
    }
}

/* An error code ends the job: the other members would wait forever. */
static void called(const ctx_t *x, const char *what, long n, int root,
                   int rc)
{
    char text[MPI_MAX_ERROR_STRING];
    int len = 0;

    if (rc == MPI_SUCCESS) {
        return;
    }
    MPI_Error_string(rc, text, &len);
    failures = MAX_FAIL_LINES - 1;  /* print this one whatever came before */
    failf(x, what, n, root, "returned %d (%s)", rc, text);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

/* ---- cases: prepare, call (blocking, or start), finish and check --------- */

typedef struct {
    const ctx_t  *x;
    char          what[96];
    const kind_t *k;             /* layout of rbuf and expect */
    const kind_t *ks;            /* layout of sbuf and sinput */
    long          n;
    int           root;
    void         *sbuf, *rbuf;
    void         *expect;        /* NULL: nothing to compare here */
    long          nunits;        /* base values of rbuf to compare */
    void         *sinput;        /* sbuf before the call (NULL: none) */
    long          sunits;
    MPI_Request   req;
    int           persistent;    /* req is a persistent request */
    int          *arrays[6];     /* counts and displacements */
    MPI_Datatype *types;         /* alltoallw: types to free */
    int           ntypes;
} case_t;

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

static int *ints(int n)
{
    int *a = calloc((size_t)(n > 0 ? n : 1), sizeof(int));

    if (a == NULL) {
        fprintf(stderr, "coll_all: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    return a;
}

/* The forms of a call. */
enum { M_BLOCKING, M_NONBLOCKING, M_PERSISTENT };

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

/* Makes call _b, _i or _p of case _c as its mode says (the last two
 * leave their request in _c->req; a persistent one is started here). */
#define CALL3(_c, _mode, _b, _i, _p)                                       \
    do {                                                                   \
        if ((_mode) == M_BLOCKING) {                                       \
            called((_c)->x, (_c)->what, (_c)->n, (_c)->root, (_b));        \
        } else if ((_mode) == M_NONBLOCKING) {                             \
            called((_c)->x, (_c)->what, (_c)->n, (_c)->root, (_i));        \
        } else {                                                           \
            called((_c)->x, (_c)->what, (_c)->n, (_c)->root, (_p));        \
            (_c)->persistent = 1;                                          \
            called((_c)->x, (_c)->what, (_c)->n, (_c)->root,               \
                   MPI_Start(&(_c)->req));                                 \
        }                                                                  \
    } while (0)

/* The form of a call that the tests ran blocking or not (nb): not
 * blocking is nonblocking or persistent by the parity of salt. */
static int alt_mode(int nb, int salt)
{
    return nb ? M_NONBLOCKING + salt % 2 : M_BLOCKING;
}

static void finish(case_t *c)
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
static long block(const ctx_t *x, int ci)
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

static void case_bcast(case_t *c, const ctx_t *x, const kind_t *ks,
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

static void case_gather(case_t *c, const ctx_t *x, const kind_t *ks,
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

static void case_scatter(case_t *c, const ctx_t *x, const kind_t *ks,
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

static void case_allgather(case_t *c, const ctx_t *x, const kind_t *ks,
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

static void case_alltoall(case_t *c, const ctx_t *x, const kind_t *ks,
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
static void case_alltoallw(case_t *c, const ctx_t *x, long n, int inplace,
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

static void case_reduce(case_t *c, const ctx_t *x, const kind_t *k, long n,
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

static void case_allreduce(case_t *c, const ctx_t *x, const kind_t *k,
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
static void case_reduce_scatter(case_t *c, const ctx_t *x, const kind_t *k,
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

static void case_scan(case_t *c, const ctx_t *x, const kind_t *k, long n,
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
