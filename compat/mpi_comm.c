/*
 * compat/mpi_comm.c: being written.
 */
#include "config.h"

#include "compat/mpi_impl.h"
