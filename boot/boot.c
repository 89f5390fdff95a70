/*
 * boot/boot.c: picks the backend and holds what every backend shares.
 */
#include "config.h"

#include "boot/boot_impl.h"

#include <stdatomic.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static struct {
    gcm_boot_kind_t            kind;
    int                        rank;
    int                        size;
    char                       jobid[256];
    char                       hostname[256];
    const gcm_boot_ops_t      *ops;   /* NULL for the singleton */
    gcm_boot_peer_died_func_t  peer_died_cb;
    void                      *peer_died_arg;
    atomic_int                 job_aborting;
    atomic_int                 first_failed;   /* rank + 1, 0: none */
    /* The singleton's own key-value store: only this process reads it. */
    struct gcm_boot_kv        *local_kvs;
    unsigned char              secret[GCM_BOOT_SECRET_SIZE];
    int                        have_secret;
    uint64_t                   job_ident;
} gcm_boot;

typedef struct gcm_boot_kv {
    struct gcm_boot_kv *next;
    char               *key;
    size_t              len;
    unsigned char       value[];
} gcm_boot_kv_t;

gcm_boot_config_t gcm_boot_config;

static const gcm_config_entry_t gcm_boot_config_entries[] = {
    GCM_CFG_WORDS("GENCOMM_BOOT", "detect|pmix|pmi1|singleton|sim",
                  gcm_boot_config.boot,
                  "the bootstrap: detect the launcher, or force one"),
    GCM_CFG_TEXT("GENCOMM_HOSTNAME", gcm_boot_config.hostname,
                 "the host name this process reports (else gethostname())"),
};
GCM_CONFIG_REGISTER(boot, gcm_boot_config_entries)

static gcm_boot_kind_t gcm_boot_choose(void)
{
    switch (gcm_boot_config.boot) {
    case GCM_BOOT_FORCE_PMIX:
        return GCM_BOOT_PMIX;
    case GCM_BOOT_FORCE_PMI1:
        return GCM_BOOT_PMI1;
    case GCM_BOOT_FORCE_SINGLETON:
        return GCM_BOOT_SINGLETON;
    case GCM_BOOT_FORCE_SIM:
        return GCM_BOOT_SIM;
    default:
        break;
    }
    /* PMI-1 first: gcrun and Hydra set PMI_FD; an outer PMIx launcher's
     * variables may leak into a nested gcrun job, never the reverse. */
    if (getenv("PMI_FD") != NULL) {
        return GCM_BOOT_PMI1;
    }
    if ((getenv("PMIX_NAMESPACE") != NULL) && (getenv("PMIX_RANK") != NULL)) {
        return GCM_BOOT_PMIX;
    }
    return GCM_BOOT_SINGLETON;
}

gcm_status_t gcm_boot_init(void)
{
    const char *host = gcm_boot_config.hostname;
    gcm_status_t status;

    memset(&gcm_boot, 0, sizeof(gcm_boot));
    if (host != NULL) {
        snprintf(gcm_boot.hostname, sizeof(gcm_boot.hostname), "%s", host);
    } else if (gethostname(gcm_boot.hostname, sizeof(gcm_boot.hostname) - 1)
               != 0) {
        snprintf(gcm_boot.hostname, sizeof(gcm_boot.hostname), "localhost");
    }

    gcm_boot.kind = gcm_boot_choose();
    switch (gcm_boot.kind) {
    case GCM_BOOT_PMI1:
        status = gcm_boot_pmi1_init(&gcm_boot.rank, &gcm_boot.size,
                                    gcm_boot.jobid, sizeof(gcm_boot.jobid),
                                    &gcm_boot.ops);
        break;
    case GCM_BOOT_PMIX:
        status = gcm_boot_pmix_init(&gcm_boot.rank, &gcm_boot.size,
                                    gcm_boot.jobid, sizeof(gcm_boot.jobid),
                                    &gcm_boot.ops);
        break;
    case GCM_BOOT_SIM:
        status = gcm_boot_sim_init(&gcm_boot.rank, &gcm_boot.size,
                                   gcm_boot.jobid, sizeof(gcm_boot.jobid),
                                   &gcm_boot.ops);
        if (status == GCM_OK) {
            status = gcm_boot_sim_host(gcm_boot.rank, gcm_boot.hostname,
                                       sizeof(gcm_boot.hostname));
        }
        break;
    default:
        gcm_boot.rank = 0;
        gcm_boot.size = 1;
        snprintf(gcm_boot.jobid, sizeof(gcm_boot.jobid), "singleton-%d",
                 (int)getpid());
        status = GCM_OK;
        break;
    }
    if ((status == GCM_OK) && (gcm_boot.rank == 0)) {
        /* Visible to the others after the first fence. */
        gcm_random_kernel_bytes(gcm_boot.secret, sizeof(gcm_boot.secret));
        gcm_boot.have_secret = 1;
        status = gcm_boot_put(GCM_BOOT_SECRET_KEY, gcm_boot.secret,
                              sizeof(gcm_boot.secret));
        if (status != GCM_OK) {
            gcm_boot_finalize();
            return gcm_fail(status, "gcm_init", "cannot publish the job's "
                            "secret through the launcher");
        }
    }
    if (status == GCM_OK) {
        gcm_debug("boot: %s, rank %d of %d, job %s, host %s",
                  gcm_boot_kind_name(), gcm_boot.rank, gcm_boot.size,
                  gcm_boot.jobid, gcm_boot.hostname);
    }
    return status;
}

gcm_status_t gcm_boot_secret_fetch(void)
{
    size_t len = sizeof(gcm_boot.secret);
    gcm_status_t status = GCM_OK;

    if (!gcm_boot.have_secret) {
        status = gcm_boot_get(0, GCM_BOOT_SECRET_KEY, gcm_boot.secret, &len);
        if ((status == GCM_OK) && (len != sizeof(gcm_boot.secret))) {
            status = GCM_ERR_BOOT;
        }
        if (status != GCM_OK) {
            memset(gcm_boot.secret, 0, sizeof(gcm_boot.secret));
            return gcm_fail(GCM_ERR_BOOT, "gcm_init", "the launcher gave no "
                            "job secret of %d bytes from process 0",
                            GCM_BOOT_SECRET_SIZE);
        }
        gcm_boot.have_secret = 1;
    }
    gcm_boot.job_ident = gcm_prf64(gcm_boot.secret, GCM_BOOT_PRF_IDENT, 0);
    if (gcm_boot.job_ident == 0) {
        gcm_boot.job_ident = 1;
    }
    return status;
}

const unsigned char *gcm_boot_secret(void)
{
    return gcm_boot.secret;
}

uint64_t gcm_boot_job_ident(void)
{
    return gcm_boot.job_ident;
}

void gcm_boot_finalize(void)
{
    gcm_boot_kv_t *kv;

    if (gcm_boot.ops != NULL) {
        gcm_boot.ops->finalize();
        gcm_boot.ops = NULL;
    }
    while (gcm_boot.local_kvs != NULL) {
        kv = gcm_boot.local_kvs;
        gcm_boot.local_kvs = kv->next;
        free(kv->key);
        free(kv);
    }
    memset(gcm_boot.secret, 0, sizeof(gcm_boot.secret));
    gcm_boot.have_secret = 0;
}

int gcm_boot_rank(void)
{
    return gcm_boot.rank;
}

int gcm_boot_size(void)
{
    return gcm_boot.size;
}

gcm_boot_kind_t gcm_boot_kind(void)
{
    return gcm_boot.kind;
}

const char *gcm_boot_kind_name(void)
{
    switch (gcm_boot.kind) {
    case GCM_BOOT_PMI1:
        return "pmi1";
    case GCM_BOOT_PMIX:
        return "pmix";
    case GCM_BOOT_SIM:
        return "sim";
    default:
        return "singleton";
    }
}

const char *gcm_boot_jobid(void)
{
    return gcm_boot.jobid;
}

const char *gcm_boot_hostname(void)
{
    return gcm_boot.hostname;
}

gcm_status_t gcm_boot_host_of(int rank, char *buf, size_t len)
{
    if ((gcm_boot.kind != GCM_BOOT_SIM) || (rank < 0) ||
        (rank >= gcm_boot.size)) {
        return GCM_ERR_BOOT;
    }
    return gcm_boot_sim_host(rank, buf, len);
}

gcm_status_t gcm_boot_put(const char *key, const void *value, size_t len)
{
    if (gcm_boot.ops != NULL) {
        return gcm_boot.ops->put(key, value, len);
    }
    return gcm_boot_local_put(key, value, len);
}

gcm_status_t gcm_boot_local_put(const char *key, const void *value,
                                size_t len)
{
    gcm_boot_kv_t *kv;

    kv = malloc(sizeof(*kv) + len);
    if (kv == NULL) {
        return GCM_ERR_NO_MEMORY;
    }
    kv->key = strdup(key);
    if (kv->key == NULL) {
        free(kv);
        return GCM_ERR_NO_MEMORY;
    }
    kv->len = len;
    memcpy(kv->value, value, len);
    kv->next = gcm_boot.local_kvs;
    gcm_boot.local_kvs = kv;
    return GCM_OK;
}

gcm_status_t gcm_boot_fence(void)
{
    return (gcm_boot.ops != NULL) ? gcm_boot.ops->fence() : GCM_OK;
}

gcm_status_t gcm_boot_get(int rank, const char *key, void *buf,
                          size_t *len_p)
{
    if ((rank < 0) || (rank >= gcm_boot.size)) {
        return GCM_ERR_INVALID_PARAM;
    }
    if (gcm_boot.ops != NULL) {
        return gcm_boot.ops->get(rank, key, buf, len_p);
    }
    return gcm_boot_local_get(key, buf, len_p);
}

gcm_status_t gcm_boot_local_get(const char *key, void *buf, size_t *len_p)
{
    gcm_boot_kv_t *kv;

    for (kv = gcm_boot.local_kvs; kv != NULL; kv = kv->next) {
        if (strcmp(kv->key, key) == 0) {
            if (kv->len > *len_p) {
                return GCM_ERR_TRUNCATED;
            }
            memcpy(buf, kv->value, kv->len);
            *len_p = kv->len;
            return GCM_OK;
        }
    }
    return GCM_ERR_BOOT;
}

int gcm_boot_has_names(void)
{
    return (gcm_boot.ops != NULL) && (gcm_boot.ops->publish != NULL);
}

gcm_status_t gcm_boot_publish(const char *service, const char *port)
{
    if (!gcm_boot_has_names()) {
        return gcm_fail(GCM_ERR_BOOT, "publish", "the launcher has no name "
                        "service");
    }
    return gcm_boot.ops->publish(service, port);
}

gcm_status_t gcm_boot_lookup(const char *service, char *port, size_t len)
{
    if (!gcm_boot_has_names()) {
        return gcm_fail(GCM_ERR_BOOT, "lookup", "the launcher has no name "
                        "service");
    }
    return gcm_boot.ops->lookup(service, port, len);
}

gcm_status_t gcm_boot_unpublish(const char *service)
{
    if (!gcm_boot_has_names()) {
        return gcm_fail(GCM_ERR_BOOT, "unpublish", "the launcher has no "
                        "name service");
    }
    return gcm_boot.ops->unpublish(service);
}

gcm_status_t gcm_boot_spawn(int count, const gcm_boot_spawn_cmd_t cmds[],
                            const char *parent_port, int errcodes[])
{
    if ((gcm_boot.ops == NULL) || (gcm_boot.ops->spawn == NULL)) {
        return gcm_fail(GCM_ERR_BOOT, "spawn", "a process started without "
                        "a launcher (%s) cannot spawn: start it with gcrun, "
                        "mpiexec or mpirun", gcm_boot_kind_name());
    }
    return gcm_boot.ops->spawn(count, cmds, parent_port, errcodes);
}

gcm_status_t gcm_boot_parent_port(char *port, size_t len)
{
    if ((gcm_boot.ops == NULL) || (gcm_boot.ops->parent_port == NULL)) {
        return GCM_ERR_BOOT;
    }
    return gcm_boot.ops->parent_port(port, len);
}

int gcm_boot_appnum(void)
{
    return ((gcm_boot.ops != NULL) && (gcm_boot.ops->appnum != NULL)) ?
           gcm_boot.ops->appnum() : 0;
}

int gcm_boot_universe(void)
{
    return ((gcm_boot.ops != NULL) && (gcm_boot.ops->universe != NULL)) ?
           gcm_boot.ops->universe() : 0;
}

int gcm_boot_event_fd(void)
{
    return ((gcm_boot.ops != NULL) && (gcm_boot.ops->event_fd != NULL)) ?
           gcm_boot.ops->event_fd() : -1;
}

void gcm_boot_poll_events(void)
{
    if ((gcm_boot.ops != NULL) && (gcm_boot.ops->poll_events != NULL)) {
        gcm_boot.ops->poll_events();
    }
}

void gcm_boot_set_peer_died_cb(gcm_boot_peer_died_func_t cb, void *arg)
{
    gcm_boot.peer_died_arg = arg;
    gcm_boot.peer_died_cb  = cb;
}

int gcm_boot_job_aborting(void)
{
    return atomic_load(&gcm_boot.job_aborting);
}

void gcm_boot_report_job_aborting(void)
{
    atomic_store(&gcm_boot.job_aborting, 1);
}

void gcm_boot_note_failed(int rank)
{
    int none = 0;

    if ((rank >= 0) && (rank < gcm_boot.size) && (rank != gcm_boot.rank)) {
        (void)atomic_compare_exchange_strong(&gcm_boot.first_failed, &none,
                                             rank + 1);
    }
}

void gcm_boot_report_peer_died(int rank)
{
    gcm_debug("boot: launcher reports rank %d died", rank);
    gcm_boot_note_failed(rank);
    if (gcm_boot.peer_died_cb != NULL) {
        gcm_boot.peer_died_cb(rank, gcm_boot.peer_died_arg);
    }
}

void gcm_boot_abort(int code, const char *msg)
{
    fflush(stdout);
    if ((gcm_boot.ops != NULL) && (gcm_boot.ops->abort != NULL)) {
        gcm_boot.ops->abort(code, atomic_load(&gcm_boot.first_failed) - 1,
                            msg);
    }
    /* The launcher sees a non-zero exit and ends the rest of the job. */
    _exit((code != 0) ? code : 1);
}
