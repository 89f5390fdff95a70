/*
 * boot/boot_pmix.c: PMIx client, for Open MPI's mpirun and Slurm's
 * srun --mpi=pmix. Values travel as PMIx byte objects.
 */
#include "config.h"

#include "boot/boot_impl.h"

#include <pmix.h>
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
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

/*
 * Leaving only once the server has read this process's close.
 *
 * Open MPI 4.1's mpirun (its PMIx 4.2 server) has two ways to drop a
 * client: it reads the client's close, or it sees the process end first
 * and deregisters it. The second closes the socket but leaves its event
 * behind, so the next client the kernel gives the same descriptor number
 * is never read: a process spawned later hangs in PMIx_Init and its
 * parents' MPI_Comm_spawn times out (1 spawn in 5 to 15 here when the
 * previous children exited right after PMIx_Finalize). PMIx_Finalize
 * shuts the connection down; a duplicate of the socket held across it
 * shows (TCP_INFO) when the server has closed its end too.
 */

/* The server's address in a PMIX_SERVER_URI value: "NSPACE.RANK;tcp4://
 * A.B.C.D:PORT" or "...;tcp6://[ADDR]:PORT". Anything else (a Unix
 * socket, a malformed or overlong value) is not matched. */
static int gcm_pmix_uri_addr(const char *uri, struct sockaddr_storage *sa)
{
    const char *p = (uri != NULL) ? strchr(uri, ';') : NULL;
    char host[INET6_ADDRSTRLEN + 1];
    const char *colon, *h;
    size_t hl;
    char *end;
    long port;
    int six;

    if (p == NULL) {
        return -1;
    }
    p++;
    if (strncmp(p, "tcp4://", 7) == 0) {
        six = 0;
    } else if (strncmp(p, "tcp6://", 7) == 0) {
        six = 1;
    } else {
        return -1;
    }
    h = p + 7;
    colon = strrchr(h, ':');
    if (colon == NULL) {
        return -1;
    }
    hl = (size_t)(colon - h);
    if (six) {
        if ((hl < 2) || (h[0] != '[') || (h[hl - 1] != ']')) {
            return -1;
        }
        h++;
        hl -= 2;
    }
    if ((hl == 0) || (hl >= sizeof(host))) {
        return -1;
    }
    memcpy(host, h, hl);
    host[hl] = '\0';
    errno = 0;
    port = strtol(colon + 1, &end, 10);
    if ((errno != 0) || (end == colon + 1) || (*end != '\0') ||
        (port < 1) || (port > 65535)) {
        return -1;
    }
    memset(sa, 0, sizeof(*sa));
    if (six) {
        struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)sa;

        s6->sin6_family = AF_INET6;
        s6->sin6_port   = htons((uint16_t)port);
        return (inet_pton(AF_INET6, host, &s6->sin6_addr) == 1) ? 0 : -1;
    } else {
        struct sockaddr_in *s4 = (struct sockaddr_in *)sa;

        s4->sin_family = AF_INET;
        s4->sin_port   = htons((uint16_t)port);
        return (inet_pton(AF_INET, host, &s4->sin_addr) == 1) ? 0 : -1;
    }
}

static int gcm_pmix_same_peer(const struct sockaddr_storage *a,
                              const struct sockaddr_storage *b)
{
    if (a->ss_family != b->ss_family) {
        return 0;
    }
    if (a->ss_family == AF_INET) {
        const struct sockaddr_in *x = (const void *)a, *y = (const void *)b;

        return (x->sin_port == y->sin_port) &&
               (x->sin_addr.s_addr == y->sin_addr.s_addr);
    }
    if (a->ss_family == AF_INET6) {
        const struct sockaddr_in6 *x = (const void *)a, *y = (const void *)b;

        return (x->sin6_port == y->sin6_port) &&
               (memcmp(&x->sin6_addr, &y->sin6_addr,
                       sizeof(x->sin6_addr)) == 0);
    }
    return 0;
}

int gcm_boot_pmix_hold_server(const char *uri)
{
    struct sockaddr_storage want, peer;
    struct dirent *e;
    DIR *d;
    int held = -1;

    if (gcm_pmix_uri_addr(uri, &want) != 0) {
        return -1;
    }
    d = opendir("/proc/self/fd");
    if (d == NULL) {
        return -1;
    }
    while ((held < 0) && ((e = readdir(d)) != NULL)) {
        socklen_t plen = sizeof(peer);
        struct stat st;
        char *end;
        long fd;

        errno = 0;
        fd = strtol(e->d_name, &end, 10);
        if ((errno != 0) || (end == e->d_name) || (*end != '\0') ||
            (fd < 0) || (fd > INT_MAX) || ((int)fd == dirfd(d)) ||
            (fstat((int)fd, &st) != 0) || !S_ISSOCK(st.st_mode)) {
            continue;
        }
        memset(&peer, 0, sizeof(peer));
        if ((getpeername((int)fd, (struct sockaddr *)&peer, &plen) == 0) &&
            gcm_pmix_same_peer(&want, &peer)) {
            held = fcntl((int)fd, F_DUPFD_CLOEXEC, 0);
        }
    }
    closedir(d);
    return held;
}

int gcm_boot_pmix_await_close(int held, int timeout_ms)
{
    struct timespec now, end, nap = { 0, 200000 };
    int closed = 0;

    clock_gettime(CLOCK_MONOTONIC, &end);
    end.tv_sec  += timeout_ms / 1000;
    end.tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
    if (end.tv_nsec >= 1000000000L) {
        end.tv_sec++;
        end.tv_nsec -= 1000000000L;
    }
    /* What PMIx_Finalize did to the connection, done again if it did not
     * (a shutdown of a socket already shut down changes nothing). */
    (void)shutdown(held, SHUT_WR);
    for (;;) {
        struct tcp_info ti;
        socklen_t len = sizeof(ti);

        memset(&ti, 0, sizeof(ti));
        if ((getsockopt(held, IPPROTO_TCP, TCP_INFO, &ti, &len) != 0) ||
            ((ti.tcpi_state != TCP_ESTABLISHED) &&
             (ti.tcpi_state != TCP_FIN_WAIT1) &&
             (ti.tcpi_state != TCP_FIN_WAIT2))) {
            closed = 1;
            break;
        }
        clock_gettime(CLOCK_MONOTONIC, &now);
        if ((now.tv_sec > end.tv_sec) ||
            ((now.tv_sec == end.tv_sec) && (now.tv_nsec >= end.tv_nsec))) {
            break;
        }
        nanosleep(&nap, NULL);
    }
    close(held);
    return closed;
}

static void gcm_pmix_finalize(void)
{
    static const char *const vars[] = { "PMIX_SERVER_URI41",
        "PMIX_SERVER_URI4", "PMIX_SERVER_URI3", "PMIX_SERVER_URI21",
        "PMIX_SERVER_URI2" };
    size_t i;
    int held = -1;

    for (i = 0; (i < sizeof(vars) / sizeof(vars[0])) && (held < 0); i++) {
        held = gcm_boot_pmix_hold_server(getenv(vars[i]));
    }
    PMIx_Finalize(NULL, 0);
    if ((held >= 0) && !gcm_boot_pmix_await_close(held, 2000)) {
        gcm_debug("pmix: the server had not closed its connection 2 s "
                  "after PMIx_Finalize");
    }
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
