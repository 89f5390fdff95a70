/*
 * compat/mpi_lco.c: placeholder until the family lands.
 */
#include "config.h"

#include "compat/mpi_impl.h"
