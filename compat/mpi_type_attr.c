/*
 * compat/mpi_type_attr.c: attribute caching on datatypes (MPI-3.1 6.7.4):
 * type keyvals and MPI_Type_set_attr/get_attr/delete_attr. The keyvals,
 * the lists and the predefined callbacks (MPI_TYPE_NULL_COPY_FN,
 * MPI_TYPE_DUP_FN, MPI_TYPE_NULL_DELETE_FN) are mpi_attr.c's (a datatype
 * is one more kind of host). MPI_Type_dup copies the attributes
 * by their copy callbacks, and the free of a type's last handle runs
 * their delete callbacks (mpi_type_create.c). Predefined types hold
 * attributes too.
 */
#include "config.h"

#include "compat/mpi_type_impl.h"

/* ---- hosts --------------------------------------------------------------- */

static gcm_mpi_attr_host_t type_host(MPI_Datatype t)
{
    gcm_mpi_attr_host_t h;

    h.kind   = GCM_MPI_ATTR_TYPE;
    h.handle = t;
    h.attrs  = &t->attrs;
    return h;
}

int gcm_mpi_type_attr_copy(MPI_Datatype oldtype, MPI_Datatype newtype)
{
    gcm_mpi_attr_host_t o = type_host(oldtype), n = type_host(newtype);

    return gcm_mpi_attr_copy_all(&o, &n);
}

int gcm_mpi_type_attr_delete_all(MPI_Datatype t)
{
    gcm_mpi_attr_host_t h = type_host(t);

    return gcm_mpi_attr_delete_every(&h);
}

static int type_host_check(MPI_Datatype t, gcm_mpi_attr_host_t *h,
                           const char *call)
{
    int rc;

    if ((rc = gcm_mpi_check_init(call)) != MPI_SUCCESS ||
        (rc = gcm_mpi_type_check_valid(t, call)) != MPI_SUCCESS) {
        return rc;
    }
    *h = type_host(t);
    return MPI_SUCCESS;
}

/* ---- the calls ----------------------------------------------------------- */

int PMPI_Type_create_keyval(MPI_Type_copy_attr_function *type_copy_attr_fn,
                            MPI_Type_delete_attr_function *type_delete_attr_fn,
                            int *type_keyval, void *extra_state)
{
    return gcm_mpi_attr_keyval_create(GCM_MPI_ATTR_TYPE,
                                      (void (*)(void))type_copy_attr_fn,
                                      (void (*)(void))type_delete_attr_fn,
                                      type_keyval, extra_state,
                                      "MPI_Type_create_keyval");
}
GCM_MPI_ALIAS(Type_create_keyval)

int PMPI_Type_free_keyval(int *type_keyval)
{
    return gcm_mpi_attr_keyval_free(GCM_MPI_ATTR_TYPE, type_keyval,
                                    "MPI_Type_free_keyval");
}
GCM_MPI_ALIAS(Type_free_keyval)

int PMPI_Type_set_attr(MPI_Datatype datatype, int type_keyval,
                       void *attribute_val)
{
    static const char call[] = "MPI_Type_set_attr";
    gcm_mpi_attr_host_t h;
    int rc = type_host_check(datatype, &h, call);

    if (rc != MPI_SUCCESS) {
        return rc;
    }
    return gcm_mpi_attr_set(&h, type_keyval, attribute_val, call);
}
GCM_MPI_ALIAS(Type_set_attr)

int PMPI_Type_get_attr(MPI_Datatype datatype, int type_keyval,
                       void *attribute_val, int *flag)
{
    static const char call[] = "MPI_Type_get_attr";
    gcm_mpi_attr_host_t h;
    int rc = type_host_check(datatype, &h, call);

    if (rc != MPI_SUCCESS) {
        return rc;
    }
    return gcm_mpi_attr_get(&h, type_keyval, attribute_val, flag, call);
}
GCM_MPI_ALIAS(Type_get_attr)

int PMPI_Type_delete_attr(MPI_Datatype datatype, int type_keyval)
{
    static const char call[] = "MPI_Type_delete_attr";
    gcm_mpi_attr_host_t h;
    int rc = type_host_check(datatype, &h, call);

    if (rc != MPI_SUCCESS) {
        return rc;
    }
    return gcm_mpi_attr_delete(&h, type_keyval, call);
}
GCM_MPI_ALIAS(Type_delete_attr)
