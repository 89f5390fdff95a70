/*
 * compat/mpi_external_impl.h: what the files of external communicators
 * (compat/mpi_external*.c) share: the state MPI_Init makes from the
 * definitions file.
 */
#ifndef GCM_MPI_EXTERNAL_IMPL_H
#define GCM_MPI_EXTERNAL_IMPL_H

#include "compat/mpi_impl.h"
#include "lco/lco_ext.h"

#include <pthread.h>

typedef struct ext_key {
    char *key;
    int   keyval;
} ext_key_t;

struct gcm_mpi_ext {
    pthread_mutex_t lock;         /* keys, nkeys, info_keyval */
    gcm_lco_ext_t  *ext;          /* NULL: no file */
    int             nprocs;
    char          **names;        /* processor name of each process */
    char           *namebuf;
    const char     *myname;
    ext_key_t      *keys;
    int             nkeys;
    int             info_keyval;
};
extern struct gcm_mpi_ext gcm_mpi_ext GCM_INTERNAL;

/* Hangs the attributes and info of def that apply to this process off
 * comm. An error class on failure (memory). (mpi_external_attr.c) */
int gcm_mpi_ext_apply(MPI_Comm comm, const gcm_ext_def_t *def) GCM_INTERNAL;
/* Raises def's own error on MPI_COMM_WORLD. */
int gcm_mpi_ext_raise_def(const char *call, const gcm_ext_def_t *def)
    GCM_INTERNAL;

#endif /* GCM_MPI_EXTERNAL_IMPL_H */
