/*
 * compat/mpi_errors.c: error reporting of the MPI layer.
 *
 * For now every error returns its class to the caller, with the text kept
 * for MPI_Error_string (error handlers come with the communicator family).
 */
#include "config.h"

#include "compat/mpi_impl.h"

#include <stdarg.h>
#include <stdio.h>

static __thread char gcm_mpi_last_text[MPI_MAX_ERROR_STRING];

int gcm_mpi_raise(MPI_Comm comm, int errclass, const char *call,
                  const char *fmt, ...)
{
    char reason[MPI_MAX_ERROR_STRING / 2];
    va_list ap;

    (void)comm;
    va_start(ap, fmt);
    vsnprintf(reason, sizeof(reason), fmt, ap);
    va_end(ap);
    snprintf(gcm_mpi_last_text, sizeof(gcm_mpi_last_text), "%s: %s", call,
             reason);
    gcm_debug("%s", gcm_mpi_last_text);
    return errclass;
}
