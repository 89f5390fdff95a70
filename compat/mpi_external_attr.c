/*
 * compat/mpi_external_attr.c: the attributes and info of external
 * communicators (docs/external.md), MPIX_Keyval_external,
 * MPIX_Info_external and the conversions between attributes and info.
 *
 * Attributes are strings: one keyval per key (made on first use, kept in
 * a table so that MPIX_Keyval_external and the conversions from and to
 * info find it), each communicator holding its own copy of the value
 * (copied by MPI_Comm_dup, freed with the communicator). The <info>
 * entries that apply to a process hang off its communicator as an info
 * object under a keyval of the library's own.
 */
#include "config.h"

#include "boot/boot.h"
#include "compat/mpi_external_impl.h"
#include "lco/lco_ext.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* ---- keyvals ------------------------------------------------------------- */

static int ext_copy_str(MPI_Comm oldcomm, int keyval, void *extra,
                        void *in, void *out, int *flag)
{
    char *c = strdup(in);

    (void)oldcomm;
    (void)keyval;
    (void)extra;
    if (c == NULL) {
        return MPI_ERR_NO_MEM;
    }
    *(void **)out = c;
    *flag         = 1;
    return MPI_SUCCESS;
}

static int ext_delete_str(MPI_Comm comm, int keyval, void *value,
                          void *extra)
{
    (void)comm;
    (void)keyval;
    (void)extra;
    free(value);
    return MPI_SUCCESS;
}

static int ext_copy_info(MPI_Comm oldcomm, int keyval, void *extra,
                         void *in, void *out, int *flag)
{
    MPI_Info dup;
    int rc;

    (void)oldcomm;
    (void)keyval;
    (void)extra;
    rc = PMPI_Info_dup((MPI_Info)in, &dup);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    *(void **)out = dup;
    *flag         = 1;
    return MPI_SUCCESS;
}

static int ext_delete_info(MPI_Comm comm, int keyval, void *value,
                           void *extra)
{
    MPI_Info info = value;

    (void)comm;
    (void)keyval;
    (void)extra;
    return PMPI_Info_free(&info);
}

/* Does some definition of the file give attribute key? */
static int ext_file_has_key(const char *key)
{
    const gcm_lco_ext_t *ext = gcm_mpi_ext.ext;
    int d, i, j;

    for (d = 0; ext != NULL && d < ext->ndefs; d++) {
        const gcm_ext_def_t *def = &ext->defs[d];

        for (i = 0; i < def->scope.nattrs; i++) {
            if (strcmp(def->scope.attrs[i].key, key) == 0) {
                return 1;
            }
        }
        for (j = 0; j < def->nclusters; j++) {
            for (i = 0; i < def->clusters[j].scope.nattrs; i++) {
                if (strcmp(def->clusters[j].scope.attrs[i].key, key) == 0) {
                    return 1;
                }
            }
        }
        for (j = 0; j < def->nnodes; j++) {
            for (i = 0; i < def->nodes[j].scope.nattrs; i++) {
                if (strcmp(def->nodes[j].scope.attrs[i].key, key) == 0) {
                    return 1;
                }
            }
        }
    }
    return 0;
}

/* The keyval of external attribute key: MPI_SUCCESS with *keyval_p, or
 * MPI_KEYVAL_INVALID in it when there is none and create is 0; an error
 * class when one cannot be made. */
static int ext_keyval(const char *key, int create, int *keyval_p)
{
    ext_key_t *keys;
    char *copy;
    int i, kv, rc;

    *keyval_p = MPI_KEYVAL_INVALID;
    pthread_mutex_lock(&gcm_mpi_ext.lock);
    for (i = 0; i < gcm_mpi_ext.nkeys; i++) {
        if (strcmp(gcm_mpi_ext.keys[i].key, key) == 0) {
            *keyval_p = gcm_mpi_ext.keys[i].keyval;
            pthread_mutex_unlock(&gcm_mpi_ext.lock);
            return MPI_SUCCESS;
        }
    }
    if (!create) {
        pthread_mutex_unlock(&gcm_mpi_ext.lock);
        return MPI_SUCCESS;
    }
    keys = realloc(gcm_mpi_ext.keys, ((size_t)gcm_mpi_ext.nkeys + 1) *
                   sizeof(*keys));
    copy = strdup(key);
    if (keys != NULL) {
        gcm_mpi_ext.keys = keys;
    }
    if (keys == NULL || copy == NULL) {
        free(copy);
        pthread_mutex_unlock(&gcm_mpi_ext.lock);
        return MPI_ERR_NO_MEM;
    }
    rc = PMPI_Comm_create_keyval(ext_copy_str, ext_delete_str, &kv, NULL);
    if (rc != MPI_SUCCESS) {
        free(copy);
        pthread_mutex_unlock(&gcm_mpi_ext.lock);
        return rc;
    }
    gcm_mpi_ext.keys[gcm_mpi_ext.nkeys].key    = copy;
    gcm_mpi_ext.keys[gcm_mpi_ext.nkeys].keyval = kv;
    gcm_mpi_ext.nkeys++;
    *keyval_p = kv;
    pthread_mutex_unlock(&gcm_mpi_ext.lock);
    return MPI_SUCCESS;
}

/* Sets attribute key = value (a copy) on comm. */
static int ext_set_attr(MPI_Comm comm, const char *key, const char *value)
{
    char *copy;
    int kv, rc;

    rc = ext_keyval(key, 1, &kv);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    copy = strdup(value);
    if (copy == NULL) {
        return MPI_ERR_NO_MEM;
    }
    rc = PMPI_Comm_set_attr(comm, kv, copy);
    if (rc != MPI_SUCCESS) {
        free(copy);
    }
    return rc;
}

/* ---- what applies to this process ---------------------------------------- */

/* Hangs the attributes and info of def that apply to this process off
 * comm. An error class on failure (memory). */
int gcm_mpi_ext_apply(MPI_Comm comm, const gcm_ext_def_t *def)
{
    const gcm_ext_kv_t **kv = NULL;
    MPI_Info info = MPI_INFO_NULL;
    int n = 0, i, rc, created;

    if (gcm_lco_ext_scoped(def, gcm_mpi_ext.myname, 0, &kv, &n) != 0) {
        return MPI_ERR_NO_MEM;
    }
    for (i = 0, rc = MPI_SUCCESS; i < n && rc == MPI_SUCCESS; i++) {
        rc = ext_set_attr(comm, kv[i]->key, kv[i]->value);
    }
    free(kv);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (gcm_lco_ext_scoped(def, gcm_mpi_ext.myname, 1, &kv, &n) != 0) {
        return MPI_ERR_NO_MEM;
    }
    if (n == 0) {
        free(kv);
        return MPI_SUCCESS;
    }
    pthread_mutex_lock(&gcm_mpi_ext.lock);
    created = MPI_SUCCESS;
    if (gcm_mpi_ext.info_keyval == MPI_KEYVAL_INVALID) {
        created = PMPI_Comm_create_keyval(ext_copy_info, ext_delete_info,
                                          &gcm_mpi_ext.info_keyval, NULL);
    }
    pthread_mutex_unlock(&gcm_mpi_ext.lock);
    rc = created;
    if (rc == MPI_SUCCESS) {
        rc = PMPI_Info_create(&info);
    }
    for (i = 0; i < n && rc == MPI_SUCCESS; i++) {
        rc = PMPI_Info_set(info, kv[i]->key, kv[i]->value);
    }
    if (rc == MPI_SUCCESS) {
        rc = PMPI_Comm_set_attr(comm, gcm_mpi_ext.info_keyval, info);
    }
    if (rc != MPI_SUCCESS && info != MPI_INFO_NULL) {
        PMPI_Info_free(&info);
    }
    free(kv);
    return rc;
}

int gcm_mpi_ext_raise_def(const char *call, const gcm_ext_def_t *def)
{
    return gcm_mpi_raise(MPI_COMM_WORLD, MPI_ERR_OTHER, call, "%s",
                         def->error);
}

/* ---- keyvals, info and the conversions -------------------------------- */

int PMPIX_Keyval_external(int *keyval, const char *name, int *flag)
{
    static const char *call = "MPIX_Keyval_external";
    const gcm_ext_def_t *world;
    int rc;

    if ((rc = gcm_mpi_check_init(call)) != MPI_SUCCESS) {
        return rc;
    }
    if (keyval == NULL || name == NULL || flag == NULL) {
        return gcm_mpi_raise(NULL, MPI_ERR_ARG, call, "%s is NULL",
                             (keyval == NULL) ? "keyval" :
                             (name == NULL) ? "name" : "flag");
    }
    *flag = 0;
    if (gcm_mpi_ext.ext != NULL && gcm_mpi_ext.ext->error != NULL) {
        return gcm_mpi_raise(NULL, MPI_ERR_OTHER, call, "%s",
                             gcm_mpi_ext.ext->error);
    }
    world = gcm_lco_ext_find(gcm_mpi_ext.ext, "MPI_COMM_WORLD");
    if (world != NULL && world->error != NULL) {
        /* Its attributes, on MPI_COMM_WORLD, were not set. */
        return gcm_mpi_ext_raise_def(call, world);
    }
    /* A key of the file, or one MPIX_Info_to_attrs made. */
    rc = ext_keyval(name, gcm_mpi_ext.ext != NULL && ext_file_has_key(name),
                    keyval);
    if (rc != MPI_SUCCESS) {
        return gcm_mpi_raise(NULL, rc, call, "cannot make the keyval of "
                             "%.100s", name);
    }
    *flag = (*keyval != MPI_KEYVAL_INVALID);
    return MPI_SUCCESS;
}
GCM_MPIX_ALIAS(Keyval_external)

int PMPIX_Info_external(MPI_Comm comm, MPI_Info *info)
{
    static const char *call = "MPIX_Info_external";
    const gcm_ext_def_t *world;
    MPI_Info held;
    int rc, kv, found = 0;

    if ((rc = gcm_mpi_check_init(call)) != MPI_SUCCESS ||
        (rc = gcm_mpi_comm_check(comm, call)) != MPI_SUCCESS) {
        return rc;
    }
    if (info == NULL) {
        return gcm_mpi_raise(comm, MPI_ERR_ARG, call, "info is NULL");
    }
    world = gcm_lco_ext_find(gcm_mpi_ext.ext, "MPI_COMM_WORLD");
    if (comm == MPI_COMM_WORLD && world != NULL && world->error != NULL) {
        return gcm_mpi_ext_raise_def(call, world);
    }
    pthread_mutex_lock(&gcm_mpi_ext.lock);
    kv = gcm_mpi_ext.info_keyval;
    pthread_mutex_unlock(&gcm_mpi_ext.lock);
    if (kv != MPI_KEYVAL_INVALID) {
        rc = PMPI_Comm_get_attr(comm, kv, &held, &found);
        if (rc != MPI_SUCCESS) {
            return rc;
        }
    }
    /* A new object the caller frees, empty when nothing applies. */
    rc = found ? PMPI_Info_dup(held, info) : PMPI_Info_create(info);
    if (rc != MPI_SUCCESS) {
        return gcm_mpi_raise(comm, rc, call, "cannot make the info object");
    }
    return MPI_SUCCESS;
}
GCM_MPIX_ALIAS(Info_external)

int PMPIX_Comm_attrs_to_info(MPI_Comm comm, MPI_Info *info)
{
    static const char *call = "MPIX_Comm_attrs_to_info";
    MPI_Info out;
    char *value;
    int i, rc, found, kv;

    if ((rc = gcm_mpi_check_init(call)) != MPI_SUCCESS ||
        (rc = gcm_mpi_comm_check(comm, call)) != MPI_SUCCESS) {
        return rc;
    }
    if (info == NULL) {
        return gcm_mpi_raise(comm, MPI_ERR_ARG, call, "info is NULL");
    }
    rc = PMPI_Info_create(&out);
    if (rc != MPI_SUCCESS) {
        return gcm_mpi_raise(comm, rc, call, "cannot make the info object");
    }
    pthread_mutex_lock(&gcm_mpi_ext.lock);
    for (i = 0; i < gcm_mpi_ext.nkeys && rc == MPI_SUCCESS; i++) {
        kv = gcm_mpi_ext.keys[i].keyval;
        rc = PMPI_Comm_get_attr(comm, kv, &value, &found);
        if (rc == MPI_SUCCESS && found) {
            rc = PMPI_Info_set(out, gcm_mpi_ext.keys[i].key, value);
        }
    }
    pthread_mutex_unlock(&gcm_mpi_ext.lock);
    if (rc != MPI_SUCCESS) {
        PMPI_Info_free(&out);
        return gcm_mpi_raise(comm, rc, call, "cannot fill the info object");
    }
    *info = out;
    return MPI_SUCCESS;
}
GCM_MPIX_ALIAS(Comm_attrs_to_info)

int PMPIX_Info_to_attrs(MPI_Comm comm, MPI_Info info)
{
    static const char *call = "MPIX_Info_to_attrs";
    char key[MPI_MAX_INFO_KEY + 1], *value;
    int i, n, len, flag, rc;

    if ((rc = gcm_mpi_check_init(call)) != MPI_SUCCESS ||
        (rc = gcm_mpi_comm_check(comm, call)) != MPI_SUCCESS) {
        return rc;
    }
    if (gcm_mpi_info_check(info) != MPI_SUCCESS) {
        return gcm_mpi_raise(comm, MPI_ERR_INFO, call,
                             "info is not a valid info object");
    }
    PMPI_Info_get_nkeys(info, &n);
    for (i = 0; i < n; i++) {
        PMPI_Info_get_nthkey(info, i, key);
        PMPI_Info_get_valuelen(info, key, &len, &flag);
        value = malloc((size_t)len + 1);
        if (value == NULL) {
            return gcm_mpi_raise(comm, MPI_ERR_NO_MEM, call,
                                 "out of memory");
        }
        PMPI_Info_get(info, key, len, value, &flag);
        value[len] = '\0';
        rc = ext_set_attr(comm, key, value);
        free(value);
        if (rc != MPI_SUCCESS) {
            return gcm_mpi_raise(comm, rc, call, "cannot set attribute "
                                 "%.100s", key);
        }
    }
    return MPI_SUCCESS;
}
GCM_MPIX_ALIAS(Info_to_attrs)
