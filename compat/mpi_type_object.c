/*
 * compat/mpi_type_object.c: datatype handles: validity checks,
 * references, building and dropping type objects.
 */
#include "config.h"

#include "compat/mpi_type_impl.h"

#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

/* Four lines of the handle arena (see the struct). */
_Static_assert(sizeof(struct gcm_mpi_datatype) <= 256,
               "struct gcm_mpi_datatype outgrew 256 bytes");

/* ---- small helpers ------------------------------------------------------ */

MPI_Aint gcm_mpi_type_ext(const struct gcm_mpi_datatype *t)
{
    return t->ub - t->lb;
}

/* Address arithmetic goes through integers: buffers may be MPI_BOTTOM
 * (NULL) with absolute displacements, where pointer arithmetic is UB. */
char *gcm_mpi_type_addr(const void *base, MPI_Aint off)
{
    return (char *)((uintptr_t)base + (uintptr_t)off);
}

const gcm_mpi_block_t *gcm_mpi_type_blocks(const struct gcm_mpi_datatype *t)
{
    return (t->blocks != NULL) ? t->blocks : t->inl;
}

int gcm_mpi_type_is_committed(const struct gcm_mpi_datatype *t)
{
    return atomic_load_explicit(&t->committed, memory_order_acquire) ==
           GCM_MPI_TYPE_COMMITTED;
}

/* 0 if t is a live datatype handle, else why not (for the message). */
const char *gcm_mpi_type_invalid(MPI_Datatype t)
{
    if (t == MPI_DATATYPE_NULL) {
        return "datatype is MPI_DATATYPE_NULL";
    }
    if (t->magic != GCM_MPI_MAGIC_TYPE) {
        return "not a datatype (freed or garbage handle)";
    }
    return NULL;
}

int gcm_mpi_type_check_valid(MPI_Datatype t, const char *call)
{
    const char *why = gcm_mpi_type_invalid(t);

    if (why != NULL) {
        return gcm_mpi_raise(NULL, MPI_ERR_TYPE, call, "%s", why);
    }
    return MPI_SUCCESS;
}

int gcm_mpi_type_check_committed(MPI_Datatype t, const char *call)
{
    int rc = gcm_mpi_type_check_valid(t, call);

    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (!gcm_mpi_type_is_committed(t)) {
        return gcm_mpi_raise(NULL, MPI_ERR_TYPE, call,
                             "datatype is not committed");
    }
    return MPI_SUCCESS;
}

/* ---- building and dropping objects -------------------------------------- */

static void type_destroy(struct gcm_mpi_datatype *t)
{
    t->magic = GCM_MPI_MAGIC_DEAD;
    if (t->impl != NULL) {
        gcm_mpi_type_release(t->impl);
    }
    free(t->envelope);
    free(t->blocks);
    free((void *)t->name);
    gcm_mpi_handle_free(t);
}

/* Drops one reference; the last one frees t and its references. */
void gcm_mpi_type_release(struct gcm_mpi_datatype *t)
{
    int i;

    if (t->predefined) {
        return;
    }
    if (atomic_fetch_sub_explicit(&t->refcount, 1, memory_order_acq_rel) !=
        1) {
        return;
    }
    for (i = 0; i < t->nd; i++) {
        gcm_mpi_type_release(t->types[i]);
    }
    type_destroy(t);
}

void gcm_mpi_type_retain(struct gcm_mpi_datatype *t)
{
    if (!t->predefined) {
        atomic_fetch_add_explicit(&t->refcount, 1, memory_order_relaxed);
    }
}

/* A new, empty derived type with room for its envelope. */
struct gcm_mpi_datatype *gcm_mpi_type_alloc(int combiner, int ni, int na,
                                            int nd)
{
    struct gcm_mpi_datatype *t = gcm_mpi_handle_alloc(sizeof(*t));

    if (t == NULL) {
        return NULL;
    }
    t->magic = GCM_MPI_MAGIC_TYPE;
    atomic_init(&t->committed, 0);
    atomic_init(&t->refcount, 1);
    atomic_init(&t->handles, 1);
    t->combiner = combiner;
    t->ni = ni;
    t->na = na;
    t->nd = nd;
    /* The three arrays in one allocation: addresses, handles, then the
     * integers (alignment falls from 8 to 4). */
    if (ni > 0 || na > 0 || nd > 0) {
        size_t a_bytes = (size_t)na * sizeof(MPI_Aint),
               d_bytes = (size_t)nd * sizeof(MPI_Datatype),
               i_bytes = (size_t)ni * sizeof(int);
        char *env;

        if (ni < 0 || na < 0 || nd < 0 ||
            a_bytes / sizeof(MPI_Aint) != (size_t)na ||
            d_bytes / sizeof(MPI_Datatype) != (size_t)nd ||
            i_bytes / sizeof(int) != (size_t)ni ||
            a_bytes + d_bytes < a_bytes ||
            a_bytes + d_bytes + i_bytes < a_bytes + d_bytes ||
            (env = malloc(a_bytes + d_bytes + i_bytes)) == NULL) {
            type_destroy(t);
            return NULL;
        }
        /* Cleared as calloc would; but glibc serves calloc without its
         * per-thread cache (160 instructions against 25 for a 20-byte
         * envelope), and the compiler turns malloc + memset back into
         * calloc unless something opaque stands between them. */
        __asm__ volatile("" : : "r"(env) : "memory");
        memset(env, 0, a_bytes + d_bytes + i_bytes);
        t->envelope = env;
        t->addrs = (na > 0) ? (MPI_Aint *)(void *)env : NULL;
        t->types = (nd > 0) ? (MPI_Datatype *)(void *)(env + a_bytes) : NULL;
        t->ints = (ni > 0) ? (int *)(void *)(env + a_bytes + d_bytes) : NULL;
    }
    return t;
}

/* Finishes a type whose envelope is filled: computes its properties,
 * takes references on its children and hands it out. */
int gcm_mpi_type_finish(struct gcm_mpi_datatype *t, MPI_Datatype *newtype,
                        const char *call)
{
    int rc = gcm_mpi_type_compute_props(t);
    int i;

    if (rc != MPI_SUCCESS) {
        type_destroy(t);
        return gcm_mpi_raise(NULL, rc, call,
                             "type is too large (sizes or displacements "
                             "overflow, class %d)", rc);
    }
    for (i = 0; i < t->nd; i++) {
        gcm_mpi_type_retain(t->types[i]);
    }
    *newtype = t;
    return MPI_SUCCESS;
}

int gcm_mpi_type_no_mem(const char *call)
{
    return gcm_mpi_raise(NULL, MPI_ERR_NO_MEM, call,
                         "out of memory for a new datatype");
}
