/*
 * tests/integration/gcm_test.h: what the native multi-process tests
 * share. A program calls gcm_test_init, reports with gcm_test_fail (one
 * line on stderr naming the program and the process, counted from any
 * thread) or CHECK (the same with the line, when a condition fails),
 * checks calls with gcm_test_ok and gcm_test_expect_err (the
 * status, and gcm_last_error() naming the call), trades names or other
 * fixed-size data with every process through gcm_test_exchange, and
 * returns gcm_test_finish(), which prints the one pass line on process 0
 * and finalizes.
 *
 * Header only (every function static): a test is one .c file.
 */
#ifndef GCM_TEST_H
#define GCM_TEST_H

#include <gencomm.h>

#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef _GNU_SOURCE
#include <sched.h>

/* Puts the calling process on the first CPU of its mask, before gcm_init
 * counts the cores: processes started unbound then share that core. */
static void gcm_test_one_cpu(void) __attribute__((unused));

static void gcm_test_one_cpu(void)
{
    cpu_set_t set, one;
    int cpu;

    if (sched_getaffinity(0, sizeof(set), &set) == 0) {
        for (cpu = 0; !CPU_ISSET(cpu, &set); cpu++) {
        }
        CPU_ZERO(&one);
        CPU_SET(cpu, &one);
        (void)sched_setaffinity(0, sizeof(one), &one);
    }
}
#endif

static const char *gcm_test_prog = "gcm_test";
static int gcm_test_me = -1;
static atomic_int gcm_test_failures;

/* Prints "<program>: P<process>: <message>" on stderr and counts it. */
static void gcm_test_fail(const char *fmt, ...)
    __attribute__((format(printf, 1, 2), unused));

static void gcm_test_fail(const char *fmt, ...)
{
    char msg[512];
    va_list ap;

    /* A program that started gencomm itself is asked. */
    if ((gcm_test_me < 0) && gcm_initialized()) {
        gcm_test_me = gcm_proc_rank();
    }
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    fprintf(stderr, "%s: P%d: %s\n", gcm_test_prog, gcm_test_me, msg);
    atomic_fetch_add(&gcm_test_failures, 1);
}

/* gcm_test_fail with the line of the check added. */
static void gcm_test_fail_at(int line, const char *fmt, ...)
    __attribute__((format(printf, 2, 3), unused));

static void gcm_test_fail_at(int line, const char *fmt, ...)
{
    char msg[512];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    gcm_test_fail("%s (line %d)", msg, line);
}

/* cond must hold; the rest is printf's format and arguments. */
#define CHECK(cond, ...) \
    ((cond) ? (void)0 : gcm_test_fail_at(__LINE__, __VA_ARGS__))

/* This process's failures so far. */
static int gcm_test_failed(void) __attribute__((unused));

static int gcm_test_failed(void)
{
    return atomic_load(&gcm_test_failures);
}

/* 1 if status is GCM_OK; else reports what failed, with the reason. */
static int gcm_test_ok(gcm_status_t status, const char *what)
    __attribute__((unused));

static int gcm_test_ok(gcm_status_t status, const char *what)
{
    if (status != GCM_OK) {
        gcm_test_fail("%s failed: %s (%s)", what, gcm_status_string(status),
                      gcm_last_error());
        return 0;
    }
    return 1;
}

/* A call expected to fail (what: how the report names it) returned got,
 * one of want1 or want2, and gcm_last_error() names one of calls (names
 * separated by '|'). Returns 1 if so. */
static int gcm_test_expect_err(const char *what, gcm_status_t got,
                               gcm_status_t want1, gcm_status_t want2,
                               const char *calls) __attribute__((unused));

static int gcm_test_expect_err(const char *what, gcm_status_t got,
                               gcm_status_t want1, gcm_status_t want2,
                               const char *calls)
{
    const char *text;
    const char *p = calls;

    if ((got != want1) && (got != want2)) {
        gcm_test_fail("%s: returned %s, expected %s%s%s", what,
                      gcm_status_string(got), gcm_status_string(want1),
                      (want2 != want1) ? " or " : "",
                      (want2 != want1) ? gcm_status_string(want2) : "");
        return 0;
    }
    text = gcm_last_error();
    if ((text == NULL) || (text[0] == '\0')) {
        gcm_test_fail("%s: gcm_last_error() is empty after %s", what,
                      gcm_status_string(got));
        return 0;
    }
    while (*p != '\0') {
        char name[128];
        size_t n = strcspn(p, "|");

        if (n < sizeof(name)) {
            memcpy(name, p, n);
            name[n] = '\0';
            if (strstr(text, name) != NULL) {
                return 1;
            }
        }
        p += n;
        if (*p == '|') {
            p++;
        }
    }
    gcm_test_fail("%s: gcm_last_error() \"%s\" does not name %s", what, text,
                  calls);
    return 0;
}

/* Sends len bytes from mine to every process (itself included) on the
 * world LCO under tag, and receives len bytes from each into all (process
 * j's at all + j * len). Returns 1 when every transfer completed. */
static int gcm_test_exchange(const void *mine, size_t len, void *all,
                             int tag) __attribute__((unused));

static int gcm_test_exchange(const void *mine, size_t len, void *all,
                             int tag)
{
    int n = gcm_proc_count();
    gcm_request_h *reqs = calloc(2 * (size_t)n, sizeof(*reqs));
    int ok = 1;
    int j;

    if (reqs == NULL) {
        gcm_test_fail("no memory for %d requests", 2 * n);
        return 0;
    }
    for (j = 0; j < n; j++) {
        reqs[j] = GCM_REQUEST_NULL;
        reqs[n + j] = GCM_REQUEST_NULL;
    }
    for (j = 0; (j < n) && ok; j++) {
        ok = gcm_test_ok(gcm_irecv(gcm_world(), (char *)all + (size_t)j * len,
                                   len, j, tag, &reqs[j]),
                         "gcm_irecv") &&
             gcm_test_ok(gcm_isend(gcm_world(), mine, len, j, tag,
                                   &reqs[n + j]),
                         "gcm_isend");
    }
    if (!gcm_test_ok(gcm_waitall(2 * n, reqs, NULL), "gcm_waitall")) {
        ok = 0;
    }
    free(reqs);
    return ok;
}

/* gcm_init, with this process's index in gcm_test_me; prog names the
 * program in reports. Returns 1 on success (else reports and returns 0:
 * the program should return 1). */
static int gcm_test_init(int *argc, char ***argv, const char *prog)
    __attribute__((unused));

static int gcm_test_init(int *argc, char ***argv, const char *prog)
{
    gcm_test_prog = prog;
    if (!gcm_test_ok(gcm_init(argc, argv), "gcm_init")) {
        return 0;
    }
    gcm_test_me = gcm_proc_rank();
    return 1;
}

/* Process 0 prints "<program>: all checks passed" when it saw no
 * failure; finalizes. Returns main's status: 0 when this process saw no
 * failure and finalize worked. */
static int gcm_test_finish(void) __attribute__((unused));

static int gcm_test_finish(void)
{
    if ((gcm_test_me == 0) && (gcm_test_failed() == 0)) {
        printf("%s: all checks passed\n", gcm_test_prog);
    }
    fflush(stdout);
    if (!gcm_test_ok(gcm_finalize(), "gcm_finalize")) {
        return 1;
    }
    return (gcm_test_failed() == 0) ? 0 : 1;
}

#endif /* GCM_TEST_H */
