/*
 * tests/unit/check_mpi_datatype.h: what the two files of
 * check_mpi_datatype share (check_mpi_datatype.c: predefined types and
 * the constructors; check_mpi_datatype_data.c: pack and unpack, counts,
 * signatures, reference counting, names, refused input): the checks every
 * test uses, and the second file's test lists.
 */
#ifndef GCM_CHECK_MPI_DATATYPE_H
#define GCM_CHECK_MPI_DATATYPE_H

#include "compat/mpi.h"

#include <check.h>

/* mpi.h lists these in its X-list but does not define the macros. */
#define T_CNAME    (&gcm_mpi_type_cname)
#define T_SLOTNAME (&gcm_mpi_type_slotname)

/* t's size, bounds and true bounds are these. */
void gcm_check_dt_bounds(MPI_Datatype t, MPI_Count size, MPI_Aint lb,
                         MPI_Aint extent, MPI_Aint true_lb,
                         MPI_Aint true_extent);
/* MPI_Type_commit, and MPI_Type_free (the handle made null), asserted. */
void gcm_check_dt_commit(MPI_Datatype *t);
void gcm_check_dt_free(MPI_Datatype *t);

/* The tests of check_mpi_datatype_data.c: the cases "pack" and
 * "lifetime" (lists ended by NULL). */
const TTest *const *gcm_check_dt_pack_tests(void);
const TTest *const *gcm_check_dt_life_tests(void);

#endif
