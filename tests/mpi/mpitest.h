/*
 * tests/mpi/mpitest.h: what the MPI test programs share. A program calls
 * mpitest_init, checks with CHECK, OK, EXPECT and EXPECT_ERR (a failed
 * check prints one "FAIL: ..." line with the rank and line, and counts),
 * and returns mpitest_finish(), which sums the failures over
 * MPI_COMM_WORLD, prints the one pass line on rank 0 when there are none,
 * and finalizes. A program that reports on its own adds to
 * mpitest_failures. Threads check with TCHECK and TOK (each counts, and
 * the report names the thread).
 *
 * Header only (every function static): a test is one .c file.
 */
#ifndef GCM_MPITEST_H
#define GCM_MPITEST_H

#include <mpi.h>

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *mpitest_name = "mpitest";
static int mpitest_rank = -1;
static int mpitest_size;
static int mpitest_failures;

/* Prints "FAIL: <message> (rank R of N, line L)", or with thread >= 0
 * "(rank R of N, thread T, line L)", and counts it (from any thread). */
static void mpitest_vfail(int line, int thread, const char *fmt, va_list ap)
    __attribute__((format(printf, 3, 0), unused));

static void mpitest_vfail(int line, int thread, const char *fmt, va_list ap)
{
    char msg[512], who[32] = "";
    int init = 0, fin = 0;

    /* A program that started MPI itself (MPI_Init_thread) is asked. */
    if ((mpitest_rank < 0) && (MPI_Initialized(&init) == MPI_SUCCESS) &&
        init && (MPI_Finalized(&fin) == MPI_SUCCESS) && !fin) {
        MPI_Comm_rank(MPI_COMM_WORLD, &mpitest_rank);
        MPI_Comm_size(MPI_COMM_WORLD, &mpitest_size);
    }
    vsnprintf(msg, sizeof(msg), fmt, ap);
    if (thread >= 0) {
        snprintf(who, sizeof(who), ", thread %d", thread);
    }
    printf("FAIL: %s (rank %d of %d%s, line %d)\n", msg, mpitest_rank,
           mpitest_size, who, line);
    fflush(stdout);
    __atomic_fetch_add(&mpitest_failures, 1, __ATOMIC_RELAXED);
}

static void mpitest_fail(int line, const char *fmt, ...)
    __attribute__((format(printf, 2, 3), unused));

static void mpitest_fail(int line, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    mpitest_vfail(line, -1, fmt, ap);
    va_end(ap);
}

/* The same for thread number thread, also counted in *count (the
 * thread's own count, to stop early). */
static void mpitest_tfail(int *count, int thread, int line, const char *fmt,
                          ...) __attribute__((format(printf, 4, 5), unused));

static void mpitest_tfail(int *count, int thread, int line, const char *fmt,
                          ...)
{
    va_list ap;

    va_start(ap, fmt);
    mpitest_vfail(line, thread, fmt, ap);
    va_end(ap);
    (*count)++;
}

/* cond must hold; the rest is printf's format and arguments. */
#define CHECK(cond, ...)                                                   \
    do {                                                                   \
        if (!(cond)) {                                                     \
            mpitest_fail(__LINE__, __VA_ARGS__);                           \
        }                                                                  \
    } while (0)

/* A thread's record: t numbers the thread, failures counts its own. A
 * program may put such a record first in its own (TCHECK needs only the
 * two members). */
typedef struct mpitest_thread {
    int t;
    int failures;
} mpitest_thread_t;

/* CHECK in a thread: rec points to the thread's record (members t and
 * failures, as in mpitest_thread_t). */
#define TCHECK(rec, cond, ...)                                             \
    do {                                                                   \
        if (!(cond)) {                                                     \
            mpitest_tfail(&(rec)->failures, (rec)->t, __LINE__,            \
                          __VA_ARGS__);                                    \
        }                                                                  \
    } while (0)

/* Runs fn in n threads, the one numbered t with the record at recs +
 * t * size (the caller fills the records), and waits for them all. A
 * thread that cannot start ends the job. */
static void mpitest_threads(int n, void *(*fn)(void *), void *recs,
                            size_t size) __attribute__((unused));

static void mpitest_threads(int n, void *(*fn)(void *), void *recs,
                            size_t size)
{
    pthread_t th[64];
    int t, rc;

    if (n > 64) {
        mpitest_fail(__LINE__, "%d threads, at most 64", n);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    for (t = 0; t < n; t++) {
        rc = pthread_create(&th[t], NULL, fn, (char *)recs + (size_t)t * size);
        if (rc != 0) {
            mpitest_fail(__LINE__, "pthread_create: %s", strerror(rc));
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
    }
    for (t = 0; t < n; t++) {
        pthread_join(th[t], NULL);
    }
}

/* mpitest_threads on plain records (recs[t] numbered t, no failures
 * yet), each thread with a duplicate of MPI_COMM_WORLD of its own in
 * comms[t], freed when all have ended. */
static void mpitest_threads_dup(int n, void *(*fn)(void *),
                                mpitest_thread_t *recs, MPI_Comm *comms)
    __attribute__((unused));

static void mpitest_threads_dup(int n, void *(*fn)(void *),
                                mpitest_thread_t *recs, MPI_Comm *comms)
{
    int t;

    for (t = 0; t < n; t++) {
        recs[t].t        = t;
        recs[t].failures = 0;
        MPI_Comm_dup(MPI_COMM_WORLD, &comms[t]);
    }
    mpitest_threads(n, fn, recs, sizeof(*recs));
    for (t = 0; t < n; t++) {
        MPI_Comm_free(&comms[t]);
    }
}

/* call must return MPI_SUCCESS. */
#define OK(call) CHECK((call) == MPI_SUCCESS, "%s", #call)

/* OK in a thread (rec as for TCHECK). */
#define TOK(rec, call) TCHECK(rec, (call) == MPI_SUCCESS, "%s", #call)

/* The error class of rc (MPI_SUCCESS for MPI_SUCCESS). */
static int mpitest_class(int rc) __attribute__((unused));

static int mpitest_class(int rc)
{
    int cls = rc;

    if ((rc != MPI_SUCCESS) && (MPI_Error_class(rc, &cls) != MPI_SUCCESS)) {
        cls = -1;
    }
    return cls;
}

/* call must fail with error class cls (errors must return: see
 * mpitest_init's errors_return). */
#define EXPECT(cls, call)                                                  \
    do {                                                                   \
        int mpitest_got_ = mpitest_class(call);                            \
        CHECK(mpitest_got_ == (cls), "%s: class %d, expected %s (%d)",    \
              #call, mpitest_got_, #cls, (int)(cls));                      \
    } while (0)

/* rc must be of error class cls and its MPI_Error_string must name call;
 * what (printf's format and arguments) says which check it was. */
static void mpitest_expect_err(int line, int rc, int cls, const char *call,
                               const char *fmt, ...)
    __attribute__((format(printf, 5, 6), unused));

static void mpitest_expect_err(int line, int rc, int cls, const char *call,
                               const char *fmt, ...)
{
    char what[256], text[MPI_MAX_ERROR_STRING];
    int got = mpitest_class(rc), len = -1;
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(what, sizeof(what), fmt, ap);
    va_end(ap);
    if (got != cls) {
        mpitest_fail(line, "%s: class %d, expected %d", what, got, cls);
        return;
    }
    text[0] = '\0';
    MPI_Error_string(rc, text, &len);
    if ((len <= 0) || (len != (int)strlen(text)) ||
        (strstr(text, call) == NULL)) {
        mpitest_fail(line, "%s: text \"%s\" (length %d) does not name %s",
                     what, text, len, call);
    }
}

/* rc must be of class cls, with a text that names call (the rest:
 * printf's format and arguments for the report). */
#define EXPECT_ERR(rc, cls, call, ...) \
    mpitest_expect_err(__LINE__, (rc), (cls), (call), __VA_ARGS__)

/* With CORE_VERBOSE set in the environment, says on stderr which test
 * starts (to find a hang). */
static void mpitest_announce(const char *test) __attribute__((unused));

static void mpitest_announce(const char *test)
{
    if (getenv("CORE_VERBOSE") != NULL) {
        fprintf(stderr, "[%d] %s\n", mpitest_rank, test);
    }
}

/* Runs test() (announced) with comm a duplicate of the world of its own,
 * so that a process running ahead into the next test cannot have its
 * messages taken by a wildcard receive of the one before. */
#define MPITEST_RUN_ON_DUP(test, comm)                                     \
    do {                                                                   \
        mpitest_announce(#test);                                           \
        MPI_Comm_dup(MPI_COMM_WORLD, &(comm));                             \
        test();                                                            \
        MPI_Comm_free(&(comm));                                            \
    } while (0)

/* 2x2 matrices of unsigned ints multiplied mod 2^32: an associative,
 * non-commutative operation, for reductions whose order must show. */
typedef struct mpitest_mat {
    unsigned a, b, c, d;
} mpitest_mat_t;

static mpitest_mat_t mpitest_mat_mul(mpitest_mat_t x, mpitest_mat_t y)
    __attribute__((unused));

static mpitest_mat_t mpitest_mat_mul(mpitest_mat_t x, mpitest_mat_t y)
{
    mpitest_mat_t z;

    z.a = x.a * y.a + x.b * y.c;
    z.b = x.a * y.b + x.b * y.d;
    z.c = x.c * y.a + x.d * y.c;
    z.d = x.c * y.b + x.d * y.d;
    return z;
}

/* What MPI_Init or MPI_Init_thread (what) returned, rc: the rank and size
 * in mpitest_rank and mpitest_size, or a failure. name starts the pass
 * line. Returns 1 when MPI started. */
static int mpitest_started(int rc, const char *name, const char *what)
    __attribute__((unused));

static int mpitest_started(int rc, const char *name, const char *what)
{
    mpitest_name = name;
    if (rc != MPI_SUCCESS) {
        printf("FAIL: %s: %s failed\n", name, what);
        fflush(stdout);
        mpitest_failures++;
        return 0;
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &mpitest_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &mpitest_size);
    return 1;
}

/* MPI_Init (see mpitest_started), and with errors_return
 * MPI_ERRORS_RETURN on MPI_COMM_WORLD. */
static void mpitest_init(int *argc, char ***argv, const char *name,
                         int errors_return) __attribute__((unused));

static void mpitest_init(int *argc, char ***argv, const char *name,
                         int errors_return)
{
    if (mpitest_started(MPI_Init(argc, argv), name, "MPI_Init") &&
        errors_return) {
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    }
}

/* MPI_Init_thread at thread level required (see mpitest_started); a
 * lower level provided aborts. The rank is known before any thread may
 * report. */
static void mpitest_init_thread(int *argc, char ***argv, const char *name,
                                int required) __attribute__((unused));

static void mpitest_init_thread(int *argc, char ***argv, const char *name,
                                int required)
{
    int provided = -1;

    if (mpitest_started(MPI_Init_thread(argc, argv, required, &provided),
                        name, "MPI_Init_thread") &&
        (provided < required)) {
        printf("FAIL: %s: thread level %d provided, %d required (rank %d)\n",
               name, provided, required, mpitest_rank);
        fflush(stdout);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
}

/* The rank and the size of MPI_COMM_WORLD, as mpitest_init found them,
 * into the program's own variables. */
static void mpitest_world(int *rank, int *size) __attribute__((unused));

static void mpitest_world(int *rank, int *size)
{
    *rank = mpitest_rank;
    *size = mpitest_size;
}

/* Sums the failures of every rank; rank 0 prints "<name>: all passed at
 * N processes" when there are none. Finalizes. Returns main's status:
 * 0 when this rank saw no failure. */
static int mpitest_finish(void) __attribute__((unused));

static int mpitest_finish(void)
{
    int total = mpitest_failures;

    if (MPI_Allreduce(&mpitest_failures, &total, 1, MPI_INT, MPI_SUM,
                      MPI_COMM_WORLD) != MPI_SUCCESS) {
        printf("FAIL: %s: summing the failures (rank %d)\n", mpitest_name,
               mpitest_rank);
        total = mpitest_failures + 1;
        mpitest_failures++;
    }
    if ((mpitest_rank == 0) && (total == 0)) {
        printf("%s: all passed at %d processes\n", mpitest_name,
               mpitest_size);
    }
    fflush(stdout);
    MPI_Finalize();
    return (mpitest_failures == 0) ? 0 : 1;
}

/* A program's tests, run in order by mpitest_run; the list ends with
 * NULL. */
typedef void (*mpitest_fn)(void);

/* Runs each test of the list in order, then returns mpitest_finish(). */
static int mpitest_run(const mpitest_fn tests[]) __attribute__((unused));

static int mpitest_run(const mpitest_fn tests[])
{
    for (; *tests != NULL; tests++) {
        (*tests)();
    }
    return mpitest_finish();
}

#endif /* GCM_MPITEST_H */
