/*
 * tests/mpi/topo_check.h: what the topology tests that run with
 * MPI_ERRORS_RETURN share: CHECK (report a failure with the rank), OK (a
 * call must succeed), EXPECT (a call must fail with an error class) and
 * expect_text (the error's text names something). Each program defines
 * wrank and failures.
 */
#ifndef TOPO_CHECK_H
#define TOPO_CHECK_H

#include <mpi.h>

#include <stdio.h>
#include <string.h>

static int wrank, failures;

#define CHECK(cond, ...)                                                  \
    do {                                                                  \
        if (!(cond)) {                                                    \
            printf("FAIL: ");                                             \
            printf(__VA_ARGS__);                                          \
            printf(" (rank %d)\n", wrank);                                \
            fflush(stdout);                                               \
            failures++;                                                   \
        }                                                                 \
    } while (0)

#define OK(call) CHECK((call) == MPI_SUCCESS, "%s", #call)

#define EXPECT(want, call)                                                \
    do {                                                                  \
        int code_ = (call), class_ = -1;                                  \
        if (code_ == MPI_SUCCESS) {                                       \
            CHECK(0, "%s succeeded, want %s", #call, #want);              \
        } else {                                                          \
            MPI_Error_class(code_, &class_);                              \
            CHECK(class_ == (want), "%s: class %d, want %s (%d)", #call,  \
                  class_, #want, (want));                                 \
        }                                                                 \
    } while (0)

/* The error text of code names what: the call and the reason. */
static inline void expect_text(int code, const char *what)
{
    char msg[MPI_MAX_ERROR_STRING];
    int len = 0;

    MPI_Error_string(code, msg, &len);
    CHECK(strstr(msg, what) != NULL, "error text \"%s\" lacks \"%s\"", msg,
          what);
}

#endif
