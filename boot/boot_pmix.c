/*
 * boot/boot_pmix.c: PMIx client, for Open MPI's mpirun and Slurm's
 * srun --mpi=pmix. Values travel as PMIx byte objects.
 */
#include "config.h"

#include "boot/boot_impl.h"

#include <pmix.h>
#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

static void gcm_pmix_abort(int code, int cause, const char *msg)
{
    (void)cause;
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

/* ---- dynamic processes ------------------------------------------------------ */

/* A NULL-terminated copy of argv with command first (PMIx frees it). */
static char **gcm_pmix_argv(const char *command, char *const *argv)
{
    size_t n = 0, i;
    char **v;

    while ((argv != NULL) && (argv[n] != NULL)) {
        n++;
    }
    v = calloc(n + 2, sizeof(char *));
    if (v == NULL) {
        return NULL;
    }
    v[0] = strdup(command);
    for (i = 0; i < n; i++) {
        v[i + 1] = strdup(argv[i]);
    }
    return v;
}

/* The program found in the info key "path" (directories tried before
 * PMIx's own search), as given when it is not there. */
static char *gcm_pmix_command(const gcm_boot_spawn_cmd_t *c)
{
    int i;

    for (i = 0; (i < c->ninfo) && (strchr(c->command, '/') == NULL); i++) {
        const char *d = c->info_vals[i];

        if (strcmp(c->info_keys[i], "path") != 0) {
            continue;
        }
        while (*d != '\0') {
            size_t n = strcspn(d, ":");
            char *cand = malloc(n + strlen(c->command) + 2);

            if (cand != NULL) {
                sprintf(cand, "%.*s/%s", (int)n, d, c->command);
                if (access(cand, X_OK) == 0) {
                    return cand;
                }
                free(cand);
            }
            d += n;
            d += (*d == ':');
        }
    }
    return strdup(c->command);
}

static gcm_status_t gcm_pmix_spawn(int count, const gcm_boot_spawn_cmd_t cmds[],
                                   const char *parent_port, int errcodes[])
{
    pmix_app_t *apps;
    pmix_nspace_t nspace;
    pmix_status_t rc;
    char *port_env;
    int c, i, k, total = 0;

    PMIX_APP_CREATE(apps, (size_t)count);
    if (apps == NULL) {
        return GCM_ERR_NO_MEMORY;
    }
    port_env = malloc(strlen(parent_port) + 32);
    if (port_env == NULL) {
        PMIX_APP_FREE(apps, (size_t)count);
        return GCM_ERR_NO_MEMORY;
    }
    sprintf(port_env, "GENCOMM_PARENT_PORT=%s", parent_port);
    for (c = 0; c < count; c++) {
        const gcm_boot_spawn_cmd_t *cmd = &cmds[c];
        int nenv = 0, nhost = 0;

        total += cmd->maxprocs;
        apps[c].cmd      = gcm_pmix_command(cmd);
        apps[c].argv     = gcm_pmix_argv(cmd->command, cmd->argv);
        apps[c].maxprocs = cmd->maxprocs;
        apps[c].env      = calloc((size_t)cmd->ninfo + 2, sizeof(char *));
        if (apps[c].env != NULL) {
            apps[c].env[nenv++] = strdup(port_env);
        }
        for (i = 0; i < cmd->ninfo; i++) {
            if (strcmp(cmd->info_keys[i], "wdir") == 0) {
                free(apps[c].cwd);
                apps[c].cwd = strdup(cmd->info_vals[i]);
            } else if ((strcmp(cmd->info_keys[i], "env") == 0) &&
                       (apps[c].env != NULL)) {
                apps[c].env[nenv++] = strdup(cmd->info_vals[i]);
            } else if (strcmp(cmd->info_keys[i], "host") == 0) {
                nhost++;
            }
        }
        if (nhost > 0) {
            PMIX_INFO_CREATE(apps[c].info, (size_t)nhost);
            for (i = 0, k = 0; i < cmd->ninfo; i++) {
                if (strcmp(cmd->info_keys[i], "host") == 0) {
                    PMIX_INFO_LOAD(&apps[c].info[k], PMIX_HOST,
                                   cmd->info_vals[i], PMIX_STRING);
                    k++;
                }
            }
            apps[c].ninfo = (size_t)nhost;
        }
    }
    free(port_env);
    pthread_mutex_lock(&gcm_pmix.lock);
    rc = PMIx_Spawn(NULL, 0, apps, (size_t)count, nspace);
    pthread_mutex_unlock(&gcm_pmix.lock);
    PMIX_APP_FREE(apps, (size_t)count);
    for (i = 0; i < total; i++) {
        errcodes[i] = (rc == PMIX_SUCCESS) ? 0 : -1;
    }
    if (rc != PMIX_SUCCESS) {
        return gcm_fail(GCM_ERR_BOOT, "spawn", "PMIx_Spawn: %s",
                        PMIx_Error_string(rc));
    }
    return GCM_OK;
}

static gcm_status_t gcm_pmix_parent_port(char *port, size_t len)
{
    const char *p = getenv("GENCOMM_PARENT_PORT");

    if ((p == NULL) || (p[0] == '\0') || (strlen(p) >= len)) {
        return GCM_ERR_BOOT;
    }
    snprintf(port, len, "%s", p);
    return GCM_OK;
}

/* A uint32 the launcher holds about this process or (wildcard) its job;
 * 0 when it has none. */
static int gcm_pmix_u32(const char *key, int wildcard)
{
    pmix_proc_t proc;
    pmix_value_t *val = NULL;
    pmix_status_t rc;
    int v = 0;

    PMIX_PROC_CONSTRUCT(&proc);
    PMIX_LOAD_NSPACE(proc.nspace, gcm_pmix.myproc.nspace);
    proc.rank = wildcard ? PMIX_RANK_WILDCARD : gcm_pmix.myproc.rank;
    pthread_mutex_lock(&gcm_pmix.lock);
    rc = PMIx_Get(&proc, key, NULL, 0, &val);
    pthread_mutex_unlock(&gcm_pmix.lock);
    if ((rc == PMIX_SUCCESS) && (val != NULL) &&
        (val->type == PMIX_UINT32) && (val->data.uint32 <= INT32_MAX)) {
        v = (int)val->data.uint32;
    }
    if (val != NULL) {
        PMIX_VALUE_RELEASE(val);
    }
    return v;
}

static int gcm_pmix_appnum(void)
{
    return gcm_pmix_u32(PMIX_APPNUM, 0);
}

static int gcm_pmix_universe(void)
{
    return gcm_pmix_u32(PMIX_UNIV_SIZE, 1);
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
    .spawn       = gcm_pmix_spawn,
    .parent_port = gcm_pmix_parent_port,
    .appnum      = gcm_pmix_appnum,
    .universe    = gcm_pmix_universe,
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
    /* What the server says is checked like any bytes from outside: a
     * size of another type, zero or beyond int, or a rank beyond it,
     * would size and index the tables of every layer wrongly. */
    if ((val->type != PMIX_UINT32) || (val->data.uint32 < 1) ||
        (val->data.uint32 > INT_MAX)) {
        gcm_status_t status = gcm_fail(GCM_ERR_BOOT, "gcm_init",
                                       "PMIx gave a job size of type %d "
                                       "and value %lu (not a uint32 from 1 "
                                       "to %d)", (int)val->type,
                                       (val->type == PMIX_UINT32) ?
                                       (unsigned long)val->data.uint32 : 0,
                                       INT_MAX);
        PMIX_VALUE_RELEASE(val);
        PMIx_Finalize(NULL, 0);
        return status;
    }
    *size_p = (int)val->data.uint32;
    PMIX_VALUE_RELEASE(val);
    if ((gcm_pmix.myproc.rank >= (pmix_rank_t)*size_p) ||
        (strnlen(gcm_pmix.myproc.nspace, sizeof(gcm_pmix.myproc.nspace)) ==
         0)) {
        PMIx_Finalize(NULL, 0);
        return gcm_fail(GCM_ERR_BOOT, "gcm_init",
                        "PMIx gave rank %u in a job of %d processes (or no "
                        "namespace)", (unsigned)gcm_pmix.myproc.rank,
                        *size_p);
    }
    *rank_p = (int)gcm_pmix.myproc.rank;
    snprintf(jobid, jobid_len, "%s", gcm_pmix.myproc.nspace);
    *ops_p = &gcm_pmix_ops;
    return GCM_OK;
}
