/*
 * compat/mpi_request.c: being written.
 */
#include "config.h"

#include "compat/mpi_impl.h"
