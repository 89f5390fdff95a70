/*
 * boot/boot_pmix.c: PMIx client, for Open MPI's mpirun and Slurm's
 * srun --mpi=pmix. Values travel as PMIx byte objects.
 */
#include "config.h"

#include "boot/boot.h"

#include <pmix.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

static struct {
    pmix_proc_t     myproc;
    pthread_mutex_t lock;
} gcm_pmix = { .lock = PTHREAD_MUTEX_INITIALIZER };

static gcm_status_t gcm_pmix_status(pmix_status_t rc, const char *what)
{
    if (rc == PMIX_SUCCESS) {
        return GCM_OK;
    }
    gcm_error("pmix: %s failed: %s", what, PMIx_Error_string(rc));
    return GCM_ERR_BOOT;
}

static gcm_status_t gcm_pmix_put(const char *key, const void *value,
                                 size_t len)
{
    pmix_value_t v;
    pmix_status_t rc;

    memset(&v, 0, sizeof(v));
    v.type          = PMIX_BYTE_OBJECT;
    v.data.bo.bytes = (char *)value;
    v.data.bo.size  = len;
    pthread_mutex_lock(&gcm_pmix.lock);
    rc = PMIx_Put(PMIX_GLOBAL, key, &v);
    pthread_mutex_unlock(&gcm_pmix.lock);
    return gcm_pmix_status(rc, "PMIx_Put");
}

static gcm_status_t gcm_pmix_fence(void)
{
    pmix_info_t info;
    bool collect = true;
    pmix_status_t rc;

    pthread_mutex_lock(&gcm_pmix.lock);
    rc = PMIx_Commit();
    if (rc == PMIX_SUCCESS) {
        PMIX_INFO_CONSTRUCT(&info);
        PMIX_INFO_LOAD(&info, PMIX_COLLECT_DATA, &collect, PMIX_BOOL);
        rc = PMIx_Fence(NULL, 0, &info, 1);
        PMIX_INFO_DESTRUCT(&info);
    }
    pthread_mutex_unlock(&gcm_pmix.lock);
    return gcm_pmix_status(rc, "PMIx_Fence");
}

static gcm_status_t gcm_pmix_get(int rank, const char *key, void *buf,
                                 size_t *len_p)
{
    pmix_proc_t proc;
    pmix_value_t *val = NULL;
    pmix_status_t rc;
    gcm_status_t status = GCM_OK;

    PMIX_PROC_CONSTRUCT(&proc);
    PMIX_LOAD_NSPACE(proc.nspace, gcm_pmix.myproc.nspace);
    proc.rank = (pmix_rank_t)rank;
    pthread_mutex_lock(&gcm_pmix.lock);
    rc = PMIx_Get(&proc, key, NULL, 0, &val);
    pthread_mutex_unlock(&gcm_pmix.lock);
    if (rc != PMIX_SUCCESS) {
        return gcm_pmix_status(rc, "PMIx_Get");
    }
    if (val->type != PMIX_BYTE_OBJECT) {
        gcm_error("pmix: value of %s has type %d, not bytes", key,
                  (int)val->type);
        status = GCM_ERR_BOOT;
    } else if (val->data.bo.size > *len_p) {
        status = GCM_ERR_TRUNCATED;
    } else {
        memcpy(buf, val->data.bo.bytes, val->data.bo.size);
        *len_p = val->data.bo.size;
    }
    PMIX_VALUE_RELEASE(val);
    return status;
}

static void gcm_pmix_abort(int code, const char *msg)
{
    PMIx_Abort(code, (msg != NULL) ? msg : "gencomm abort", NULL, 0);
}

static void gcm_pmix_finalize(void)
{
    PMIx_Finalize(NULL, 0);
}

static gcm_status_t gcm_pmix_publish(const char *service, const char *port)
{
    pmix_info_t info;
    pmix_status_t rc;

    PMIX_INFO_CONSTRUCT(&info);
    PMIX_INFO_LOAD(&info, service, port, PMIX_STRING);
    pthread_mutex_lock(&gcm_pmix.lock);
    rc = PMIx_Publish(&info, 1);
    pthread_mutex_unlock(&gcm_pmix.lock);
    PMIX_INFO_DESTRUCT(&info);
    if (rc != PMIX_SUCCESS) {
        return gcm_fail(GCM_ERR_BOOT, "publish", "PMIx_Publish: %s",
                        PMIx_Error_string(rc));
    }
    return GCM_OK;
}

static gcm_status_t gcm_pmix_lookup(const char *service, char *port,
                                    size_t len)
{
    pmix_pdata_t pdata;
    pmix_status_t rc;
    gcm_status_t status = GCM_OK;

    PMIX_PDATA_CONSTRUCT(&pdata);
    PMIX_LOAD_KEY(pdata.key, service);
    pthread_mutex_lock(&gcm_pmix.lock);
    rc = PMIx_Lookup(&pdata, 1, NULL, 0);
    pthread_mutex_unlock(&gcm_pmix.lock);
    if (rc != PMIX_SUCCESS) {
        status = gcm_fail(GCM_ERR_BOOT, "lookup", "PMIx_Lookup: %s",
                          PMIx_Error_string(rc));
    } else if ((pdata.value.type != PMIX_STRING) ||
               (pdata.value.data.string == NULL) ||
               (strlen(pdata.value.data.string) >= len)) {
        status = gcm_fail(GCM_ERR_BOOT, "lookup", "PMIx_Lookup gave no "
                          "port name that fits");
    } else {
        snprintf(port, len, "%s", pdata.value.data.string);
    }
    PMIX_PDATA_DESTRUCT(&pdata);
    return status;
}

static gcm_status_t gcm_pmix_unpublish(const char *service)
{
    char *keys[2] = { (char *)service, NULL };
    pmix_status_t rc;

    pthread_mutex_lock(&gcm_pmix.lock);
    rc = PMIx_Unpublish(keys, NULL, 0);
    pthread_mutex_unlock(&gcm_pmix.lock);
    if (rc != PMIX_SUCCESS) {
        return gcm_fail(GCM_ERR_BOOT, "unpublish", "PMIx_Unpublish: %s",
                        PMIx_Error_string(rc));
    }
    return GCM_OK;
}

static const gcm_boot_ops_t gcm_pmix_ops = {
    .put         = gcm_pmix_put,
    .fence       = gcm_pmix_fence,
    .get         = gcm_pmix_get,
    .event_fd    = NULL,
    .poll_events = NULL,
    .abort       = gcm_pmix_abort,
    .finalize    = gcm_pmix_finalize,
    .publish     = gcm_pmix_publish,
    .lookup      = gcm_pmix_lookup,
    .unpublish   = gcm_pmix_unpublish,
};

gcm_status_t gcm_boot_pmix_init(int *rank_p, int *size_p, char *jobid,
                                size_t jobid_len, const gcm_boot_ops_t **ops_p)
{
    pmix_proc_t wildcard;
    pmix_value_t *val = NULL;
    pmix_status_t rc;

    rc = PMIx_Init(&gcm_pmix.myproc, NULL, 0);
    if (rc != PMIX_SUCCESS) {
        return gcm_fail(GCM_ERR_BOOT, "gcm_init", "PMIx_Init failed: %s",
                        PMIx_Error_string(rc));
    }
    PMIX_PROC_CONSTRUCT(&wildcard);
    PMIX_LOAD_NSPACE(wildcard.nspace, gcm_pmix.myproc.nspace);
    wildcard.rank = PMIX_RANK_WILDCARD;
    rc = PMIx_Get(&wildcard, PMIX_JOB_SIZE, NULL, 0, &val);
    if (rc != PMIX_SUCCESS) {
        PMIx_Finalize(NULL, 0);
        return gcm_fail(GCM_ERR_BOOT, "gcm_init",
                        "PMIx gave no job size: %s", PMIx_Error_string(rc));
    }
    *size_p = (int)val->data.uint32;
    PMIX_VALUE_RELEASE(val);
    *rank_p = (int)gcm_pmix.myproc.rank;
    snprintf(jobid, jobid_len, "%s", gcm_pmix.myproc.nspace);
    *ops_p = &gcm_pmix_ops;
    return GCM_OK;
}
