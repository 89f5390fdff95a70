/*
 * tests/mpi/coll_all.h: what the three files of coll_all share (coll_all.c:
 * the tests and main; coll_all_data.c: the element kinds, the values and
 * their reference, the reporting; coll_all_cases.c: each collective as a
 * case, prepared, called in one of its forms, finished and checked).
 */
#ifndef GCM_COLL_ALL_H
#define GCM_COLL_ALL_H

#include <mpi.h>

#include "mpitest.h"

#include <stddef.h>
#include <stdint.h>

#define LARGE          300000
#define NCOUNTS        5
#define MAX_FAIL_LINES 40

/* A communicator under test. */
typedef struct {
    MPI_Comm    comm;
    const char *name;
    int         rank, size;
    int        *wranks;          /* world rank of each rank */
} ctx_t;

/* The counts every collective runs with, and the run's state
 * (coll_all.c). */
extern const int counts[NCOUNTS];
extern int  wrank, wsize;
extern long failures, checks;
extern int  tseq;                /* test number: same on every member */

/* ---- element kinds, values, reporting (coll_all_data.c) ----------------- */

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

extern kind_t       kinds[NKINDS];
extern MPI_Datatype mat_type, vmat_type;
extern MPI_Op       mat_op, vmat_op;
extern long         op_type_errors;

/* 2x2 matrices mod 2^32 (mpitest.h). */
typedef mpitest_mat_t mat_t;

/* The kinds, their types and operators made. */
void make_kinds(void);
/* Values: value v of element e that source r contributes in test t;
 * elements at..at+n-1 of buf filled with source r's (fill), with the
 * reduction over sources lo..hi-1 in order (fill_reduced), or with
 * source r's from element e0 (fill_from); base value u put; a buffer of
 * n elements of sentinels, and a copy of one. */
int64_t input(const kind_t *k, int t, int r, long e, int v);
void fill(const kind_t *k, void *buf, long at, long n, int t, int r);
void fill_reduced(const kind_t *k, void *buf, long at, long n, int t,
                  int lo, int hi, long e0);
void fill_from(const kind_t *k, void *buf, long at, long n, int t,
               int r, long e0);
void put(const kind_t *k, void *buf, long u, int64_t v);
void *sentinels(const kind_t *k, long n);
void *copy_of(const kind_t *k, const void *buf, long n);
/* A failure reported (at most MAX_FAIL_LINES printed); nu base values
 * compared; an error code from a call, which ends the job. */
void failf(const ctx_t *x, const char *what, long n, int root,
           const char *fmt, ...);
void check(const ctx_t *x, const char *what, long n, int root,
           const kind_t *k, const void *got, const void *exp,
           long nu);
void called(const ctx_t *x, const char *what, long n, int root,
            int rc);

/* ---- cases (coll_all_cases.c) ------------------------------------------- */

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

/* The forms of a call. */
enum { M_BLOCKING, M_NONBLOCKING, M_PERSISTENT };

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

/* n ints, zeroed (the job ends without memory). */
int *ints(int n);
/* The form of a call run blocking or not (nb), by salt's parity. */
int alt_mode(int nb, int salt);
/* Case c's request waited for (a persistent one freed), its results and
 * its unchanged send buffer checked, its buffers freed. */
void finish(case_t *c);
/* One rank's block for count index ci (LARGE split over the ranks). */
long block(const ctx_t *x, int ci);
/* Each collective prepared and called in mode; finish() completes it. */
void case_bcast(case_t *c, const ctx_t *x, const kind_t *ks,
                const kind_t *kr, long n, int root, int mode);
void case_gather(case_t *c, const ctx_t *x, const kind_t *ks,
                 const kind_t *kr, long n, int root, int inplace,
                 int v, int mode);
void case_scatter(case_t *c, const ctx_t *x, const kind_t *ks,
                  const kind_t *kr, long n, int root, int inplace,
                  int v, int mode);
void case_allgather(case_t *c, const ctx_t *x, const kind_t *ks,
                    const kind_t *kr, long n, int inplace, int v,
                    int mode);
void case_alltoall(case_t *c, const ctx_t *x, const kind_t *ks,
                   const kind_t *kr, long n, int inplace, int v,
                   int mode);
void case_alltoallw(case_t *c, const ctx_t *x, long n, int inplace,
                    int mode);
void case_reduce(case_t *c, const ctx_t *x, const kind_t *k, long n,
                 int root, int inplace, int mode);
void case_allreduce(case_t *c, const ctx_t *x, const kind_t *k,
                    long n, int inplace, int mode);
void case_reduce_scatter(case_t *c, const ctx_t *x, const kind_t *k,
                         long n, int inplace, int v, int mode);
void case_scan(case_t *c, const ctx_t *x, const kind_t *k, long n,
               int inplace, int ex, int mode);

#endif
