/*
 * compat/mpi_type_create.c: the type constructors, MPI_Type_commit
 * and MPI_Type_free.
 */
#include "config.h"

#include "compat/mpi_type_impl.h"

#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

/* ---- constructors ------------------------------------------------------- */

int gcm_mpi_type_check_count(int count, const char *call)
{
    if (count < 0) {
        return gcm_mpi_raise(NULL, MPI_ERR_COUNT, call,
                             "negative count %d", count);
    }
    return MPI_SUCCESS;
}

static int check_blocklength(int blocklength, int i, const char *call)
{
    if (blocklength < 0) {
        return gcm_mpi_raise(NULL, MPI_ERR_ARG, call,
                             "negative blocklength %d (block %d)",
                             blocklength, i);
    }
    return MPI_SUCCESS;
}

static int check_newtype(MPI_Datatype *newtype, const char *call)
{
    if (newtype == NULL) {
        return gcm_mpi_raise(NULL, MPI_ERR_ARG, call,
                             "newtype is NULL (argument %d)", 0);
    }
    return MPI_SUCCESS;
}

static int check_array(const void *array, int count, const char *what,
                       const char *call)
{
    if (array == NULL && count > 0) {
        return gcm_mpi_raise(NULL, MPI_ERR_ARG, call,
                             "%s is NULL with count %d", what, count);
    }
    return MPI_SUCCESS;
}

/* The checks every one-oldtype constructor shares. */
static int check_common(int count, MPI_Datatype oldtype,
                        MPI_Datatype *newtype, const char *call)
{
    int rc = gcm_mpi_type_check_count(count, call);

    if (rc == MPI_SUCCESS) {
        rc = gcm_mpi_type_check_valid(oldtype, call);
    }
    if (rc == MPI_SUCCESS) {
        rc = check_newtype(newtype, call);
    }
    return rc;
}

/* check_common, then the arrays (nblocks blocklengths, ndispl
 * displacements) and every blocklength. A constructor of one blocklength
 * for all blocks passes it as an array of one. */
static int check_blocks(int count, int nblocks, const int blocklengths[],
                        int ndispl, const void *displacements,
                        MPI_Datatype oldtype, MPI_Datatype *newtype,
                        const char *call)
{
    int rc = check_common(count, oldtype, newtype, call);
    int i;

    if (rc == MPI_SUCCESS) {
        rc = check_array(blocklengths, nblocks, "blocklengths", call);
    }
    if (rc == MPI_SUCCESS) {
        rc = check_array(displacements, ndispl, "displacements", call);
    }
    for (i = 0; i < nblocks && rc == MPI_SUCCESS; i++) {
        rc = check_blocklength(blocklengths[i], i, call);
    }
    return rc;
}

/* A new type of combiner with ni integers (count too large when ni does
 * not fit an int), na addresses and nt types; ints[0] = first and
 * types[0] = oldtype where there are such. In *tp, else the error raised
 * for call. */
static int new_type(int combiner, long long ni, int na, int nt, int first,
                    MPI_Datatype oldtype, struct gcm_mpi_datatype **tp,
                    const char *call)
{
    struct gcm_mpi_datatype *t;

    if (ni > INT_MAX) {
        return gcm_mpi_raise(NULL, MPI_ERR_COUNT, call,
                             "count %d too large", first);
    }
    t = gcm_mpi_type_alloc(combiner, (int)ni, na, nt);
    if (t == NULL) {
        return gcm_mpi_type_no_mem(call);
    }
    if (ni > 0) {
        t->ints[0] = first;
    }
    if (nt > 0) {
        t->types[0] = oldtype;
    }
    *tp = t;
    return MPI_SUCCESS;
}

int PMPI_Type_contiguous(int count, MPI_Datatype oldtype,
                         MPI_Datatype *newtype)
{
    static const char call[] = "MPI_Type_contiguous";
    struct gcm_mpi_datatype *t = NULL;
    int rc = check_common(count, oldtype, newtype, call);

    if (rc == MPI_SUCCESS) {
        rc = new_type(MPI_COMBINER_CONTIGUOUS, 1, 0, 1, count, oldtype, &t,
                      call);
    }
    return (rc == MPI_SUCCESS) ? gcm_mpi_type_finish(t, newtype, call) : rc;
}
GCM_MPI_ALIAS(Type_contiguous)

int PMPI_Type_vector(int count, int blocklength, int stride,
                     MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    static const char call[] = "MPI_Type_vector";
    struct gcm_mpi_datatype *t = NULL;
    int rc = check_blocks(count, 1, &blocklength, 0, NULL, oldtype, newtype,
                          call);

    if (rc == MPI_SUCCESS) {
        rc = new_type(MPI_COMBINER_VECTOR, 3, 0, 1, count, oldtype, &t,
                      call);
    }
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    t->ints[1] = blocklength;
    t->ints[2] = stride;
    return gcm_mpi_type_finish(t, newtype, call);
}
GCM_MPI_ALIAS(Type_vector)

int PMPI_Type_create_hvector(int count, int blocklength, MPI_Aint stride,
                             MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    static const char call[] = "MPI_Type_create_hvector";
    struct gcm_mpi_datatype *t = NULL;
    int rc = check_blocks(count, 1, &blocklength, 0, NULL, oldtype, newtype,
                          call);

    if (rc == MPI_SUCCESS) {
        rc = new_type(MPI_COMBINER_HVECTOR, 2, 1, 1, count, oldtype, &t,
                      call);
    }
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    t->ints[1] = blocklength;
    t->addrs[0] = stride;
    return gcm_mpi_type_finish(t, newtype, call);
}
GCM_MPI_ALIAS(Type_create_hvector)

int PMPI_Type_indexed(int count, const int blocklengths[],
                      const int displacements[], MPI_Datatype oldtype,
                      MPI_Datatype *newtype)
{
    static const char call[] = "MPI_Type_indexed";
    struct gcm_mpi_datatype *t = NULL;
    int rc = check_blocks(count, count, blocklengths, count, displacements,
                          oldtype, newtype, call);
    int i;

    if (rc == MPI_SUCCESS) {
        rc = new_type(MPI_COMBINER_INDEXED, 2LL * count + 1, 0, 1, count,
                      oldtype, &t, call);
    }
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    for (i = 0; i < count; i++) {
        t->ints[1 + i] = blocklengths[i];
        t->ints[1 + count + i] = displacements[i];
    }
    return gcm_mpi_type_finish(t, newtype, call);
}
GCM_MPI_ALIAS(Type_indexed)

int PMPI_Type_create_hindexed(int count, const int blocklengths[],
                              const MPI_Aint displacements[],
                              MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    static const char call[] = "MPI_Type_create_hindexed";
    struct gcm_mpi_datatype *t = NULL;
    int rc = check_blocks(count, count, blocklengths, count, displacements,
                          oldtype, newtype, call);
    int i;

    if (rc == MPI_SUCCESS) {
        rc = new_type(MPI_COMBINER_HINDEXED, count + 1LL, count, 1, count,
                      oldtype, &t, call);
    }
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    for (i = 0; i < count; i++) {
        t->ints[1 + i] = blocklengths[i];
        t->addrs[i] = displacements[i];
    }
    return gcm_mpi_type_finish(t, newtype, call);
}
GCM_MPI_ALIAS(Type_create_hindexed)

int PMPI_Type_create_indexed_block(int count, int blocklength,
                                   const int displacements[],
                                   MPI_Datatype oldtype,
                                   MPI_Datatype *newtype)
{
    static const char call[] = "MPI_Type_create_indexed_block";
    struct gcm_mpi_datatype *t = NULL;
    int rc = check_blocks(count, 1, &blocklength, count, displacements,
                          oldtype, newtype, call);
    int i;

    if (rc == MPI_SUCCESS) {
        rc = new_type(MPI_COMBINER_INDEXED_BLOCK, count + 2LL, 0, 1, count,
                      oldtype, &t, call);
    }
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    t->ints[1] = blocklength;
    for (i = 0; i < count; i++) {
        t->ints[2 + i] = displacements[i];
    }
    return gcm_mpi_type_finish(t, newtype, call);
}
GCM_MPI_ALIAS(Type_create_indexed_block)

int PMPI_Type_create_hindexed_block(int count, int blocklength,
                                    const MPI_Aint displacements[],
                                    MPI_Datatype oldtype,
                                    MPI_Datatype *newtype)
{
    static const char call[] = "MPI_Type_create_hindexed_block";
    struct gcm_mpi_datatype *t = NULL;
    int rc = check_blocks(count, 1, &blocklength, count, displacements,
                          oldtype, newtype, call);
    int i;

    if (rc == MPI_SUCCESS) {
        rc = new_type(MPI_COMBINER_HINDEXED_BLOCK, 2, count, 1, count,
                      oldtype, &t, call);
    }
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    t->ints[1] = blocklength;
    for (i = 0; i < count; i++) {
        t->addrs[i] = displacements[i];
    }
    return gcm_mpi_type_finish(t, newtype, call);
}
GCM_MPI_ALIAS(Type_create_hindexed_block)

int PMPI_Type_create_struct(int count, const int blocklengths[],
                            const MPI_Aint displacements[],
                            const MPI_Datatype types[],
                            MPI_Datatype *newtype)
{
    static const char call[] = "MPI_Type_create_struct";
    struct gcm_mpi_datatype *t = NULL;
    int rc = gcm_mpi_type_check_count(count, call);
    int i;

    if (rc == MPI_SUCCESS) {
        rc = check_newtype(newtype, call);
    }
    if (rc == MPI_SUCCESS) {
        rc = check_array(blocklengths, count, "blocklengths", call);
    }
    if (rc == MPI_SUCCESS) {
        rc = check_array(displacements, count, "displacements", call);
    }
    if (rc == MPI_SUCCESS) {
        rc = check_array(types, count, "types", call);
    }
    for (i = 0; i < count && rc == MPI_SUCCESS; i++) {
        const char *why = gcm_mpi_type_invalid(types[i]);

        rc = check_blocklength(blocklengths[i], i, call);
        if (rc == MPI_SUCCESS && why != NULL) {
            rc = gcm_mpi_raise(NULL, MPI_ERR_TYPE, call, "types[%d]: %s", i,
                               why);
        }
    }
    if (rc == MPI_SUCCESS) {
        rc = new_type(MPI_COMBINER_STRUCT, count + 1LL, count, count, count,
                      MPI_DATATYPE_NULL, &t, call);
    }
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    for (i = 0; i < count; i++) {
        t->ints[1 + i] = blocklengths[i];
        t->addrs[i] = displacements[i];
        t->types[i] = types[i];
    }
    return gcm_mpi_type_finish(t, newtype, call);
}
GCM_MPI_ALIAS(Type_create_struct)

int PMPI_Type_create_subarray(int ndims, const int sizes[],
                              const int subsizes[], const int starts[],
                              int order, MPI_Datatype oldtype,
                              MPI_Datatype *newtype)
{
    static const char call[] = "MPI_Type_create_subarray";
    struct gcm_mpi_datatype *t = NULL;
    int rc = gcm_mpi_type_check_valid(oldtype, call);
    int i;

    if (rc == MPI_SUCCESS) {
        rc = check_newtype(newtype, call);
    }
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (ndims <= 0 || ndims > (INT_MAX - 2) / 3) {
        return gcm_mpi_raise(NULL, MPI_ERR_ARG, call,
                             "ndims %d is not positive", ndims);
    }
    if (sizes == NULL || subsizes == NULL || starts == NULL) {
        return gcm_mpi_raise(NULL, MPI_ERR_ARG, call,
                             "NULL array with ndims %d", ndims);
    }
    if (order != MPI_ORDER_C && order != MPI_ORDER_FORTRAN) {
        return gcm_mpi_raise(NULL, MPI_ERR_ARG, call, "bad order %d", order);
    }
    for (i = 0; i < ndims; i++) {
        if (sizes[i] <= 0) {
            return gcm_mpi_raise(NULL, MPI_ERR_ARG, call,
                                 "sizes[%d] = %d is not positive", i,
                                 sizes[i]);
        }
        if (subsizes[i] < 0 || subsizes[i] > sizes[i]) {
            return gcm_mpi_raise(NULL, MPI_ERR_ARG, call,
                                 "subsizes[%d] = %d outside the array", i,
                                 subsizes[i]);
        }
        if (starts[i] < 0 || starts[i] > sizes[i] - subsizes[i]) {
            return gcm_mpi_raise(NULL, MPI_ERR_ARG, call,
                                 "starts[%d] = %d outside the array", i,
                                 starts[i]);
        }
    }
    rc = new_type(MPI_COMBINER_SUBARRAY, 3 * ndims + 2, 0, 1, ndims, oldtype,
                  &t, call);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    for (i = 0; i < ndims; i++) {
        t->ints[1 + i] = sizes[i];
        t->ints[1 + ndims + i] = subsizes[i];
        t->ints[1 + 2 * ndims + i] = starts[i];
    }
    t->ints[1 + 3 * ndims] = order;
    return gcm_mpi_type_finish(t, newtype, call);
}
GCM_MPI_ALIAS(Type_create_subarray)

int PMPI_Type_create_resized(MPI_Datatype oldtype, MPI_Aint lb,
                             MPI_Aint extent, MPI_Datatype *newtype)
{
    static const char call[] = "MPI_Type_create_resized";
    struct gcm_mpi_datatype *t = NULL;
    int rc = check_common(0, oldtype, newtype, call);

    if (rc == MPI_SUCCESS) {
        rc = new_type(MPI_COMBINER_RESIZED, 0, 2, 1, 0, oldtype, &t, call);
    }
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    t->addrs[0] = lb;
    t->addrs[1] = extent;
    return gcm_mpi_type_finish(t, newtype, call);
}
GCM_MPI_ALIAS(Type_create_resized)

int PMPI_Type_dup(MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    static const char call[] = "MPI_Type_dup";
    struct gcm_mpi_datatype *t = NULL;
    MPI_Datatype dup;
    int rc = check_common(0, oldtype, newtype, call);

    if (rc == MPI_SUCCESS) {
        rc = new_type(MPI_COMBINER_DUP, 0, 0, 1, 0, oldtype, &t, call);
    }
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    rc = gcm_mpi_type_finish(t, &dup, call);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    /* MPI-3.1 4.1.10: the copy has the committed state of the original. */
    if (gcm_mpi_type_is_committed(oldtype)) {
        rc = PMPI_Type_commit(&dup);
        if (rc != MPI_SUCCESS) {
            gcm_mpi_type_release(dup);
            return rc;
        }
    }
    /* And the attributes its copy callbacks copy (MPI-3.1 6.7.4). */
    rc = gcm_mpi_type_attr_copy(oldtype, dup);
    if (rc != MPI_SUCCESS) {
        gcm_mpi_type_release(dup);
        return gcm_mpi_raise(NULL, rc, call, "a copy callback of an "
                             "attribute returned error %d", rc);
    }
    *newtype = dup;
    return MPI_SUCCESS;
}
GCM_MPI_ALIAS(Type_dup)

/* ---- commit and free ---------------------------------------------------- */

int PMPI_Type_commit(MPI_Datatype *datatype)
{
    static const char call[] = "MPI_Type_commit";
    struct gcm_mpi_datatype *t;
    int rc = MPI_SUCCESS;

    if (datatype == NULL) {
        return gcm_mpi_raise(NULL, MPI_ERR_ARG, call,
                             "datatype pointer is NULL (argument %d)", 1);
    }
    t = *datatype;
    rc = gcm_mpi_type_check_valid(t, call);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    /* Predefined types are born committed; a second commit is a no-op.
     * One commit of a type builds its blocks; another one of the same
     * type meanwhile waits for it (a commit takes microseconds at most:
     * its work is bounded, gcm_mpi_type_build_blocks). Where a global
     * lock did this, its lock and unlock were a tenth of a small vector's
     * build and commit. A committed type is only read: a commit of
     * MPI_INT on every thread must not take its line from the threads
     * that send with it. */
    if (gcm_mpi_type_is_committed(t)) {
        return MPI_SUCCESS;
    }
    for (;;) {
        int state = GCM_MPI_TYPE_UNCOMMITTED;

        if (atomic_compare_exchange_strong_explicit(
                &t->committed, &state, GCM_MPI_TYPE_COMMITTING,
                memory_order_acquire, memory_order_acquire)) {
            break;
        }
        if (state == GCM_MPI_TYPE_COMMITTED) {
            return MPI_SUCCESS;
        }
        sched_yield();
    }
    rc = gcm_mpi_type_build_blocks(t);
    atomic_store_explicit(&t->committed,
                          (rc == MPI_SUCCESS) ? GCM_MPI_TYPE_COMMITTED :
                                                GCM_MPI_TYPE_UNCOMMITTED,
                          memory_order_release);
    if (rc != MPI_SUCCESS) {
        return gcm_mpi_raise(NULL, rc, call,
                             "cannot build the layout (class %d)", rc);
    }
    return MPI_SUCCESS;
}
GCM_MPI_ALIAS(Type_commit)

int PMPI_Type_free(MPI_Datatype *datatype)
{
    static const char call[] = "MPI_Type_free";
    struct gcm_mpi_datatype *t;
    int rc, n;

    if (datatype == NULL) {
        return gcm_mpi_raise(NULL, MPI_ERR_ARG, call,
                             "datatype pointer is NULL (argument %d)", 1);
    }
    t = *datatype;
    rc = gcm_mpi_type_check_valid(t, call);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (t->predefined) {
        return gcm_mpi_raise(NULL, MPI_ERR_TYPE, call,
                             "cannot free predefined type %s", t->name);
    }
    /* The last handle takes the attributes with it (their delete
     * callbacks run; one that fails keeps the type, MPI-3.1 6.7.4). */
    if (atomic_load(&t->handles) == 1) {
        rc = gcm_mpi_type_attr_delete_all(t);
        if (rc != MPI_SUCCESS) {
            return gcm_mpi_raise(NULL, rc, call, "the delete callback of "
                                 "an attribute returned error %d", rc);
        }
    }
    /* One handle fewer (MPI_Type_get_contents hands out more); a free
     * beyond them (a stale copy racing this one) is refused. The object
     * may live on for the types built on it and for pending operations,
     * but once no handle is left a stale copy must be refused. */
    n = atomic_load(&t->handles);
    do {
        if (n <= 0) {
            return gcm_mpi_raise(NULL, MPI_ERR_TYPE, call, "not a "
                                 "datatype (freed or garbage handle)");
        }
    } while (!atomic_compare_exchange_weak(&t->handles, &n, n - 1));
    if (n == 1) {
        t->magic = GCM_MPI_MAGIC_DEAD;
    }
    gcm_mpi_type_release(t);
    *datatype = MPI_DATATYPE_NULL;
    return MPI_SUCCESS;
}
GCM_MPI_ALIAS(Type_free)
