/*
 * compat/mpi_type_query.c: datatype queries: extents, sizes,
 * envelopes, names, addresses, and counts of a status.
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

/* ---- queries ------------------------------------------------------------ */

int gcm_mpi_type_check_out(const void *p, const char *what, const char *call)
{
    if (p == NULL) {
        return gcm_mpi_raise(NULL, MPI_ERR_ARG, call, "%s is NULL", what);
    }
    return MPI_SUCCESS;
}

/* The four extent queries: the bounds (true_bounds: the true bounds) of
 * datatype in *lb and *extent, once lb_p and extent_p, the caller's
 * output arguments, are checked. */
static int extent_query(MPI_Datatype datatype, int true_bounds,
                        const void *lb_p, const void *extent_p,
                        MPI_Count *lb, MPI_Count *extent, const char *call)
{
    int rc = gcm_mpi_type_check_valid(datatype, call);

    if (rc == MPI_SUCCESS) {
        rc = gcm_mpi_type_check_out(lb_p, true_bounds ? "true_lb" : "lb",
                                    call);
    }
    if (rc == MPI_SUCCESS) {
        rc = gcm_mpi_type_check_out(extent_p, true_bounds ? "true_extent" :
                                    "extent", call);
    }
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (true_bounds) {
        *lb     = datatype->true_lb;
        *extent = datatype->true_ub - datatype->true_lb;
    } else {
        *lb     = datatype->lb;
        *extent = gcm_mpi_type_ext(datatype);
    }
    return MPI_SUCCESS;
}

/* extent_query into MPI_Aint results. */
static int extent_query_aint(MPI_Datatype datatype, int true_bounds,
                             MPI_Aint *lb, MPI_Aint *extent,
                             const char *call)
{
    MPI_Count l, e;
    int rc = extent_query(datatype, true_bounds, lb, extent, &l, &e, call);

    if (rc == MPI_SUCCESS) {
        *lb     = (MPI_Aint)l;
        *extent = (MPI_Aint)e;
    }
    return rc;
}

int PMPI_Type_get_extent(MPI_Datatype datatype, MPI_Aint *lb,
                         MPI_Aint *extent)
{
    return extent_query_aint(datatype, 0, lb, extent, "MPI_Type_get_extent");
}
GCM_MPI_ALIAS(Type_get_extent)

int PMPI_Type_get_true_extent(MPI_Datatype datatype, MPI_Aint *true_lb,
                              MPI_Aint *true_extent)
{
    return extent_query_aint(datatype, 1, true_lb, true_extent,
                             "MPI_Type_get_true_extent");
}
GCM_MPI_ALIAS(Type_get_true_extent)

int PMPI_Type_get_extent_x(MPI_Datatype datatype, MPI_Count *lb,
                           MPI_Count *extent)
{
    return extent_query(datatype, 0, lb, extent, lb, extent,
                        "MPI_Type_get_extent_x");
}
GCM_MPI_ALIAS(Type_get_extent_x)

int PMPI_Type_get_true_extent_x(MPI_Datatype datatype, MPI_Count *true_lb,
                                MPI_Count *true_extent)
{
    return extent_query(datatype, 1, true_lb, true_extent, true_lb,
                        true_extent, "MPI_Type_get_true_extent_x");
}
GCM_MPI_ALIAS(Type_get_true_extent_x)

int PMPI_Type_size(MPI_Datatype datatype, int *size)
{
    static const char call[] = "MPI_Type_size";
    int rc = gcm_mpi_type_check_valid(datatype, call);

    if (rc == MPI_SUCCESS) {
        rc = gcm_mpi_type_check_out(size, "size", call);
    }
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    *size = (datatype->size > INT_MAX) ? MPI_UNDEFINED : (int)datatype->size;
    return MPI_SUCCESS;
}
GCM_MPI_ALIAS(Type_size)

int PMPI_Type_size_x(MPI_Datatype datatype, MPI_Count *size)
{
    static const char call[] = "MPI_Type_size_x";
    int rc = gcm_mpi_type_check_valid(datatype, call);

    if (rc == MPI_SUCCESS) {
        rc = gcm_mpi_type_check_out(size, "size", call);
    }
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    *size = datatype->size;
    return MPI_SUCCESS;
}
GCM_MPI_ALIAS(Type_size_x)

int PMPI_Type_get_envelope(MPI_Datatype datatype, int *num_integers,
                           int *num_addresses, int *num_datatypes,
                           int *combiner)
{
    static const char call[] = "MPI_Type_get_envelope";
    int rc = gcm_mpi_type_check_valid(datatype, call);

    if (rc == MPI_SUCCESS && (num_integers == NULL ||
                              num_addresses == NULL ||
                              num_datatypes == NULL || combiner == NULL)) {
        rc = gcm_mpi_raise(NULL, MPI_ERR_ARG, call,
                           "an output pointer is NULL (%d)", 0);
    }
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    *num_integers = datatype->ni;
    *num_addresses = datatype->na;
    *num_datatypes = datatype->nd;
    *combiner = datatype->combiner;
    return MPI_SUCCESS;
}
GCM_MPI_ALIAS(Type_get_envelope)

/*
 * The constructor arguments, as MPI_Type_get_envelope counts them. The
 * datatypes are handles the caller owns (MPI-3.1 4.1.13): a derived one is
 * handed out once more (one more MPI_Type_free to make), even if the
 * program had freed its own handle to it; a predefined one is itself.
 */
int PMPI_Type_get_contents(MPI_Datatype datatype, int max_integers,
                           int max_addresses, int max_datatypes,
                           int array_of_integers[],
                           MPI_Aint array_of_addresses[],
                           MPI_Datatype array_of_datatypes[])
{
    static const char call[] = "MPI_Type_get_contents";
    int rc = gcm_mpi_type_check_valid(datatype, call);
    int i;

    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (datatype->predefined) {
        return gcm_mpi_raise(NULL, MPI_ERR_TYPE, call, "%s is a named type: "
                             "it has no contents (its combiner is "
                             "MPI_COMBINER_NAMED)", datatype->name);
    }
    if ((max_integers < datatype->ni) || (max_addresses < datatype->na) ||
        (max_datatypes < datatype->nd)) {
        return gcm_mpi_raise(NULL, MPI_ERR_ARG, call, "room for %d "
                             "integers, %d addresses and %d datatypes; the "
                             "type has %d, %d and %d (MPI_Type_get_envelope)",
                             max_integers, max_addresses, max_datatypes,
                             datatype->ni, datatype->na, datatype->nd);
    }
    if (((datatype->ni > 0) && (array_of_integers == NULL)) ||
        ((datatype->na > 0) && (array_of_addresses == NULL)) ||
        ((datatype->nd > 0) && (array_of_datatypes == NULL))) {
        return gcm_mpi_raise(NULL, MPI_ERR_ARG, call,
                             "an output array is NULL");
    }
    for (i = 0; i < datatype->ni; i++) {
        array_of_integers[i] = datatype->ints[i];
    }
    for (i = 0; i < datatype->na; i++) {
        array_of_addresses[i] = datatype->addrs[i];
    }
    for (i = 0; i < datatype->nd; i++) {
        struct gcm_mpi_datatype *c = datatype->types[i];

        if (!c->predefined) {
            gcm_mpi_type_retain(c);
            atomic_fetch_add(&c->handles, 1);
            c->magic = GCM_MPI_MAGIC_TYPE;
        }
        array_of_datatypes[i] = c;
    }
    return MPI_SUCCESS;
}
GCM_MPI_ALIAS(Type_get_contents)

int PMPI_Type_set_name(MPI_Datatype datatype, const char *type_name)
{
    static const char call[] = "MPI_Type_set_name";
    int rc = gcm_mpi_type_check_valid(datatype, call);
    char *name;

    if (rc == MPI_SUCCESS) {
        rc = gcm_mpi_type_check_out(type_name, "type_name", call);
    }
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    /* Predefined objects are shared by all threads and may sit in
     * read-mostly memory; their names stay the standard ones. */
    if (datatype->predefined) {
        return gcm_mpi_raise(NULL, MPI_ERR_TYPE, call,
                             "cannot rename predefined type %s",
                             datatype->name);
    }
    /* Longer names are truncated, as the standard allows. */
    name = strndup(type_name, MPI_MAX_OBJECT_NAME - 1);
    if (name == NULL) {
        return gcm_mpi_raise(NULL, MPI_ERR_NO_MEM, call,
                             "no memory for a copy of the name");
    }
    free((void *)datatype->name);
    datatype->name = name;
    return MPI_SUCCESS;
}
GCM_MPI_ALIAS(Type_set_name)

int PMPI_Type_get_name(MPI_Datatype datatype, char *type_name,
                       int *resultlen)
{
    static const char call[] = "MPI_Type_get_name";
    int rc = gcm_mpi_type_check_valid(datatype, call);
    size_t len;

    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (type_name == NULL || resultlen == NULL) {
        return gcm_mpi_raise(NULL, MPI_ERR_ARG, call,
                             "type_name or resultlen is NULL (%d)", 0);
    }
    /* A name is at most MPI_MAX_OBJECT_NAME - 1 bytes. */
    len = (datatype->name != NULL) ? strlen(datatype->name) : 0;
    memcpy(type_name, (datatype->name != NULL) ? datatype->name : "",
           len + 1);
    *resultlen = (int)len;
    return MPI_SUCCESS;
}
GCM_MPI_ALIAS(Type_get_name)

int PMPI_Get_address(const void *location, MPI_Aint *address)
{
    int rc = gcm_mpi_type_check_out(address, "address", "MPI_Get_address");

    if (rc != MPI_SUCCESS) {
        return rc;
    }
    *address = (MPI_Aint)(intptr_t)location;
    return MPI_SUCCESS;
}
GCM_MPI_ALIAS(Get_address)

/* Address arithmetic (MPI-3.1 4.1.5) as the machine does it: in unsigned
 * integers, so that it wraps where C's signed arithmetic would be
 * undefined. */
MPI_Aint PMPI_Aint_add(MPI_Aint base, MPI_Aint disp)
{
    return (MPI_Aint)((uintptr_t)base + (uintptr_t)disp);
}
GCM_MPI_ALIAS(Aint_add)

MPI_Aint PMPI_Aint_diff(MPI_Aint addr1, MPI_Aint addr2)
{
    return (MPI_Aint)((uintptr_t)addr1 - (uintptr_t)addr2);
}
GCM_MPI_ALIAS(Aint_diff)

/* The checks of Get_count and Get_elements; *bytes is what was received. */
static int check_status_query(const MPI_Status *status,
                              MPI_Datatype datatype, const void *count,
                              MPI_Count *bytes, const char *call)
{
    int rc = gcm_mpi_type_check_out(status, "status", call);

    if (rc == MPI_SUCCESS) {
        rc = gcm_mpi_type_check_out(count, "count", call);
    }
    if (rc == MPI_SUCCESS) {
        rc = gcm_mpi_type_check_committed(datatype, call);
    }
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (status->gcm_count < 0) {
        return gcm_mpi_raise(NULL, MPI_ERR_ARG, call,
                             "status holds a negative byte count %lld",
                             (long long)status->gcm_count);
    }
    *bytes = status->gcm_count;
    return MPI_SUCCESS;
}

int PMPI_Get_count(const MPI_Status *status, MPI_Datatype datatype,
                   int *count)
{
    MPI_Count bytes = 0, n;
    int rc = check_status_query(status, datatype, count, &bytes,
                                "MPI_Get_count");

    if (rc != MPI_SUCCESS) {
        return rc;
    }
    /* MPI-3.1 3.2.5: a zero-size type gives a count of zero. */
    if (datatype->size == 0) {
        *count = 0;
        return MPI_SUCCESS;
    }
    n = bytes / datatype->size;
    if (bytes % datatype->size != 0 || n > INT_MAX) {
        *count = MPI_UNDEFINED;
    } else {
        *count = (int)n;
    }
    return MPI_SUCCESS;
}
GCM_MPI_ALIAS(Get_count)

int PMPI_Get_elements_x(const MPI_Status *status, MPI_Datatype datatype,
                        MPI_Count *count)
{
    MPI_Count bytes = 0;
    int rc = check_status_query(status, datatype, count, &bytes,
                                "MPI_Get_elements_x");

    if (rc != MPI_SUCCESS) {
        return rc;
    }
    *count = gcm_mpi_type_elements(datatype, bytes);
    return MPI_SUCCESS;
}
GCM_MPI_ALIAS(Get_elements_x)

int PMPI_Get_elements(const MPI_Status *status, MPI_Datatype datatype,
                      int *count)
{
    MPI_Count bytes = 0, n;
    int rc = check_status_query(status, datatype, count, &bytes,
                                "MPI_Get_elements");

    if (rc != MPI_SUCCESS) {
        return rc;
    }
    n = gcm_mpi_type_elements(datatype, bytes);
    *count = (n > INT_MAX) ? MPI_UNDEFINED : (int)n;
    return MPI_SUCCESS;
}
GCM_MPI_ALIAS(Get_elements)
