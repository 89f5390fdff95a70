/*
 * compat/mpi_pt2pt.c: being written.
 */
#include "config.h"

#include "compat/mpi_impl.h"
