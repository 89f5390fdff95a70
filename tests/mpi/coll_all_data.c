/*
 * tests/mpi/coll_all_data.c: coll_all's element kinds (doubles with
 * MPI_SUM, ints with MPI_MAX, 2x2 matrices with a user product, also as a
 * vector type with holes, MPI_2INT with MPI_MINLOC), the values each rank
 * sends and their reference, and the reporting of wrong results (see
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

kind_t       kinds[NKINDS];
MPI_Datatype mat_type, vmat_type;
MPI_Op       mat_op, vmat_op;
long         op_type_errors;

/* ---- element kinds ------------------------------------------------------- */

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

void make_kinds(void)
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
int64_t input(const kind_t *k, int t, int r, long e, int v)
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

void put(const kind_t *k, void *buf, long u, int64_t v)
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
void *sentinels(const kind_t *k, long n)
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

void *copy_of(const kind_t *k, const void *buf, long n)
{
    void *c = sentinels(k, n);

    memcpy(c, buf, (size_t)(n * k->ext) * k->unit);
    return c;
}

/* Elements at..at+n-1 of buf := source r's elements 0..n-1 of test t. */
void fill(const kind_t *k, void *buf, long at, long n, int t, int r)
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
void fill_reduced(const kind_t *k, void *buf, long at, long n, int t,
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
void fill_from(const kind_t *k, void *buf, long at, long n, int t,
               int r, long e0)
{
    fill_reduced(k, buf, at, n, t, r, r + 1, e0);
}

/* ---- reporting ----------------------------------------------------------- */

void failf(const ctx_t *x, const char *what, long n, int root,
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
void check(const ctx_t *x, const char *what, long n, int root,
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
void called(const ctx_t *x, const char *what, long n, int root,
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
