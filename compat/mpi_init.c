/*
 * compat/mpi_init.c: being written.
 */
#include "config.h"

#include "compat/mpi_impl.h"
