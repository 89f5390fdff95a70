/*
 * compat/mpi_topo_dims.c: MPI_Dims_create.
 */
#include "config.h"

#include "compat/mpi_topo_impl.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ---- MPI_Dims_create ------------------------------------------------------ */

/*
 * The balanced factorisation: k factors of m, non-increasing, with the
 * smallest possible spread (largest - smallest). A greedy split (largest
 * prime into the smallest factor) is usually right but not always (72 in
 * 2 factors: 12 x 6, where 9 x 8 is closer), so it only seeds the bound of
 * an exact search.
 * The search only tries divisors of m, and the bound keeps every factor
 * within "spread" of the first, so it stays small even for large m.
 */
typedef struct dims_search {
    int        k;
    const int *divs;     /* divisors of m, increasing */
    int        ndivs;
    int       *cur;
    int       *best;
    int        spread;   /* best spread so far */
} dims_search_t;

/* Does f^e reach m (f the largest of e factors whose product is m)? */
static int pow_reaches(int f, int e, int m)
{
    long long p = 1;

    while (e-- > 0) {
        p *= f;
        if (p >= m) {
            return 1;
        }
    }
    return p >= m;
}

static void dims_search_at(dims_search_t *s, int depth, int rem, int hi)
{
    int i;

    if (depth == s->k - 1) {
        int spread = (depth == 0) ? 0 : s->cur[0] - rem;

        if (rem <= hi && spread < s->spread) {
            s->cur[depth] = rem;
            s->spread     = spread;
            memcpy(s->best, s->cur, (size_t)s->k * sizeof(int));
        }
        return;
    }
    for (i = s->ndivs - 1; i >= 0; i--) {
        int f = s->divs[i];

        if (f > hi || rem % f != 0) {
            continue;
        }
        /* f is the largest of the remaining factors, so f^left >= rem;
         * and later factors are >= 1, within spread of the first. */
        if (!pow_reaches(f, s->k - depth, rem)) {
            break;
        }
        if (depth > 0 && s->cur[0] - f >= s->spread) {
            break;
        }
        s->cur[depth] = f;
        dims_search_at(s, depth + 1, rem / f, f);
    }
}

static int int_cmp_desc(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;

    return (x < y) - (x > y);
}

static int int_cmp_asc(const void *a, const void *b)
{
    return int_cmp_desc(b, a);
}

/* Fills out[0..k-1] (k >= 1) with the balanced factors of m >= 1. */
static int dims_balance(int m, int k, int out[])
{
    int primes[32], np = 0, ndivs = 1, i, j, x = m;
    int *divs, *cur;
    dims_search_t s;

    for (i = 0; i < k; i++) {
        out[i] = 1;
    }
    /* Prime factors, largest first, for the greedy seed. */
    for (j = 2; (long long)j * j <= x; j++) {
        while (x % j == 0) {
            primes[np++] = j;
            x /= j;
        }
    }
    if (x > 1) {
        primes[np++] = x;
    }
    for (i = np - 1; i >= 0; i--) {
        int small = 0;

        for (j = 1; j < k; j++) {
            if (out[j] < out[small]) {
                small = j;
            }
        }
        out[small] *= primes[i];
    }
    qsort(out, (size_t)k, sizeof(int), int_cmp_desc);
    /* All divisors of m, from its prime factors (at most 1600 for an
     * int), in increasing order. */
    for (i = 0; i < np;) {
        int e = 1;

        while (i + e < np && primes[i + e] == primes[i]) {
            e++;
        }
        ndivs *= e + 1;
        i += e;
    }
    divs = malloc((size_t)ndivs * sizeof(int));
    cur  = malloc((size_t)k * sizeof(int));
    if (divs == NULL || cur == NULL) {
        free(divs);
        free(cur);
        return 0;   /* the greedy answer stands */
    }
    divs[0] = 1;
    ndivs   = 1;
    for (i = 0; i < np;) {
        int e = 1, n0 = ndivs, p = 1, q;

        while (i + e < np && primes[i + e] == primes[i]) {
            e++;
        }
        for (q = 1; q <= e; q++) {
            p *= primes[i];
            for (j = 0; j < n0; j++) {
                divs[ndivs++] = divs[j] * p;
            }
        }
        i += e;
    }
    qsort(divs, (size_t)ndivs, sizeof(int), int_cmp_asc);
    s.k      = k;
    s.divs   = divs;
    s.ndivs  = ndivs;
    s.cur    = cur;
    s.best   = out;
    s.spread = out[0] - out[k - 1];
    dims_search_at(&s, 0, m, m);
    free(divs);
    free(cur);
    return 0;
}

int PMPI_Dims_create(int nnodes, int ndims, int dims[])
{
    static const char call[] = "MPI_Dims_create";
    int rc = gcm_mpi_check_init(call);
    long long fixed = 1;
    int d, nfree = 0, *factors, i;

    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (nnodes <= 0) {
        return gcm_mpi_raise(NULL, MPI_ERR_ARG, call,
                             "nnodes (%d) is not positive", nnodes);
    }
    if (ndims < 0) {
        return gcm_mpi_raise(NULL, MPI_ERR_DIMS, call,
                             "ndims (%d) is negative", ndims);
    }
    if (ndims > 0 && dims == NULL) {
        return gcm_mpi_raise(NULL, MPI_ERR_ARG, call, "dims is NULL");
    }
    for (d = 0; d < ndims; d++) {
        if (dims[d] < 0) {
            return gcm_mpi_raise(NULL, MPI_ERR_DIMS, call,
                                 "dims[%d] is negative (%d)", d, dims[d]);
        }
        if (dims[d] == 0) {
            nfree++;
        } else {
            fixed *= dims[d];
            if (fixed > nnodes) {
                break;  /* cannot divide; reported below */
            }
        }
    }
    if (fixed > nnodes || nnodes % fixed != 0 ||
        (nfree == 0 && fixed != nnodes)) {
        return gcm_mpi_raise(NULL, MPI_ERR_DIMS, call,
                             "%d processes cannot fill the given "
                             "dimensions (their product is %s%lld)",
                             nnodes, fixed > nnodes ? "over " : "", fixed);
    }
    if (nfree == 0) {
        return MPI_SUCCESS;
    }
    factors = malloc((size_t)nfree * sizeof(int));
    if (factors == NULL) {
        return gcm_mpi_raise(NULL, MPI_ERR_NO_MEM, call, "out of memory");
    }
    dims_balance((int)(nnodes / fixed), nfree, factors);
    for (d = 0, i = 0; d < ndims; d++) {
        if (dims[d] == 0) {
            dims[d] = factors[i++];
        }
    }
    free(factors);
    return MPI_SUCCESS;
}
GCM_MPI_ALIAS(Dims_create)
