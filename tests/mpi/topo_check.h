/*
 * tests/mpi/topo_check.h: what the topology tests that run with
 * MPI_ERRORS_RETURN share beyond mpitest.h (CHECK, OK, EXPECT): wrank,
 * the world rank, and expect_text (the error's text names something).
 */
#ifndef TOPO_CHECK_H
#define TOPO_CHECK_H

#include "mpitest.h"

static int wrank;

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
