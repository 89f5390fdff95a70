/*
 * compat/mpi_spawn.c: MPI_Comm_spawn, MPI_Comm_spawn_multiple and
 * MPI_Comm_get_parent (MPI-3.1 section 10.3).
 *
 * Spawning is a connect and accept (mpi_dpm_*.c) with a launcher in the
 * middle: the parents' root opens a port and asks the launcher (boot/:
 * the PMI-1 "spawn" command under gcrun and Hydra, PMIx_Spawn under Open
 * MPI and Slurm) to start the children with that port in hand; the
 * parents accept, and each child's MPI_Init connects to the port over its
 * own MPI_COMM_WORLD. So the intercommunicator is an LCO graph like any
 * other. The launcher starts all the children or none: when a program
 * cannot start (missing, not executable, a bad working directory or host)
 * spawn fails with MPI_ERR_SPAWN, array_of_errcodes saying which, and
 * nothing runs. Children that were started but do not connect within
 * GENCOMM_CONNECT_TIMEOUT make spawn fail the same way.
 *
 * Info keys: "host", "wdir", "path" (directories to find the program in
 * before PATH) and "env" (newline-separated NAME=value, added to the
 * children's environment); others are ignored, as MPI allows.
 */
#include "config.h"

#include "compat/mpi_impl.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct {
    pthread_mutex_t lock;
    MPI_Comm        parent;    /* MPI_COMM_NULL: none, or freed */
} gcm_mpi_spawn = { .lock = PTHREAD_MUTEX_INITIALIZER };

void gcm_mpi_spawn_forget(MPI_Comm comm)
{
    pthread_mutex_lock(&gcm_mpi_spawn.lock);
    if (gcm_mpi_spawn.parent == comm) {
        gcm_mpi_spawn.parent = MPI_COMM_NULL;
    }
    pthread_mutex_unlock(&gcm_mpi_spawn.lock);
}

int gcm_mpi_spawn_init(void)
{
    char port[MPI_MAX_PORT_NAME];
    MPI_Comm parent = MPI_COMM_NULL;
    int rc;

    if (gcm_lco_parent_port(port, sizeof(port)) != GCM_OK) {
        return MPI_SUCCESS;   /* not a spawned job */
    }
    port[sizeof(port) - 1] = '\0';
    rc = gcm_mpi_dpm_connect(port, gcm_lco_connect_timeout(), 0,
                             MPI_COMM_WORLD, "MPI_Init", &parent);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    snprintf(parent->name, sizeof(parent->name), "MPI_COMM_PARENT");
    pthread_mutex_lock(&gcm_mpi_spawn.lock);
    gcm_mpi_spawn.parent = parent;
    pthread_mutex_unlock(&gcm_mpi_spawn.lock);
    return MPI_SUCCESS;
}

int PMPI_Comm_get_parent(MPI_Comm *parent)
{
    int rc;

    if ((rc = gcm_mpi_check_init("MPI_Comm_get_parent")) != MPI_SUCCESS) {
        return rc;
    }
    if (parent == NULL) {
        return gcm_mpi_raise(NULL, MPI_ERR_ARG, "MPI_Comm_get_parent",
                             "parent is NULL");
    }
    pthread_mutex_lock(&gcm_mpi_spawn.lock);
    *parent = gcm_mpi_spawn.parent;
    pthread_mutex_unlock(&gcm_mpi_spawn.lock);
    return MPI_SUCCESS;
}
GCM_MPI_ALIAS(Comm_get_parent)

/* The info keys of a command the launcher takes; "env" once per
 * variable. Returns the number of entries (keys and vals malloc'd, each
 * value its own string), or -1 without memory or for a bad info. */
static int spawn_info(MPI_Info info, char ***keys_p, char ***vals_p)
{
    static const char *const known[] = { "host", "wdir", "path", "env" };
    char value[MPI_MAX_INFO_VAL + 1];
    char **keys = NULL, **vals = NULL;
    size_t k;
    int n = 0, flag;

    *keys_p = NULL;
    *vals_p = NULL;
    if (info == MPI_INFO_NULL) {
        return 0;
    }
    if (gcm_mpi_info_check(info) != 0) {
        return -1;
    }
    keys = calloc(64, sizeof(char *));
    vals = calloc(64, sizeof(char *));
    if ((keys == NULL) || (vals == NULL)) {
        goto fail;
    }
    for (k = 0; k < sizeof(known) / sizeof(known[0]); k++) {
        const char *p = value;

        flag = 0;
        if ((PMPI_Info_get(info, known[k], MPI_MAX_INFO_VAL, value,
                           &flag) != MPI_SUCCESS) || !flag) {
            continue;
        }
        /* env: one entry per NAME=value line. */
        while ((*p != '\0') && (n < 63)) {
            size_t len = (k == 3) ? strcspn(p, "\n") : strlen(p);

            if (len > 0) {
                keys[n] = strdup(known[k]);
                vals[n] = strndup(p, len);
                if ((keys[n] == NULL) || (vals[n] == NULL)) {
                    n++;
                    goto fail;
                }
                n++;
            }
            p += len;
            p += (*p == '\n');
        }
    }
    *keys_p = keys;
    *vals_p = vals;
    return n;

fail:
    while (n-- > 0) {
        free(keys[n]);
        free(vals[n]);
    }
    free(keys);
    free(vals);
    return -1;
}

static void spawn_info_free(char **keys, char **vals, int n)
{
    int i;

    for (i = 0; i < n; i++) {
        free(keys[i]);
        free(vals[i]);
    }
    free(keys);
    free(vals);
}

/* The root asks the launcher: MPI_SUCCESS, or an error class with why and
 * errs[] (one per process) filled. */
static int spawn_root(int count, char *cmds[], char **argvs[],
                      const int maxprocs[], const MPI_Info infos[],
                      const char *port, int total, int errs[], char *why,
                      size_t whylen)
{
    gcm_lco_spawn_cmd_t *c = calloc((size_t)count, sizeof(*c));
    char ***keys = calloc((size_t)count, sizeof(char **));
    char ***vals = calloc((size_t)count, sizeof(char **));
    gcm_status_t status;
    int i, rc = MPI_SUCCESS;

    if ((c == NULL) || (keys == NULL) || (vals == NULL)) {
        rc = MPI_ERR_NO_MEM;
        snprintf(why, whylen, "out of memory");
        goto out;
    }
    for (i = 0; i < count; i++) {
        c[i].command  = cmds[i];
        c[i].argv     = (argvs != MPI_ARGVS_NULL) ? argvs[i] : NULL;
        c[i].maxprocs = maxprocs[i];
        c[i].ninfo    = spawn_info((infos != NULL) ? infos[i] :
                                   MPI_INFO_NULL, &keys[i], &vals[i]);
        if (c[i].ninfo < 0) {
            c[i].ninfo = 0;
            rc = MPI_ERR_INFO;
            snprintf(why, whylen, "the info of command %d is not valid", i);
            goto out;
        }
        c[i].info_keys = (const char *const *)keys[i];
        c[i].info_vals = (const char *const *)vals[i];
    }
    status = gcm_lco_spawn(count, c, port, errs);
    if (status != GCM_OK) {
        rc = MPI_ERR_SPAWN;
        snprintf(why, whylen, "%s", gcm_last_error());
    }
out:
    if ((rc != MPI_SUCCESS) && (rc != MPI_ERR_SPAWN)) {
        for (i = 0; i < total; i++) {
            errs[i] = -1;
        }
    }
    for (i = 0; (c != NULL) && (i < count); i++) {
        spawn_info_free(keys[i], vals[i], c[i].ninfo);
    }
    free(c);
    free(keys);
    free(vals);
    return rc;
}

int PMPI_Comm_spawn_multiple(int count, char *array_of_commands[],
                             char **array_of_argv[],
                             const int array_of_maxprocs[],
                             const MPI_Info array_of_info[], int root,
                             MPI_Comm comm, MPI_Comm *intercomm,
                             int array_of_errcodes[])
{
    static const char *call = "MPI_Comm_spawn_multiple";
    char port[MPI_MAX_PORT_NAME] = "";
    char why[300] = "";
    int head[2] = { MPI_SUCCESS, 0 };   /* error class, processes */
    int *errs = NULL;
    int rc, i;

    /* The info of each command counts at the root only (below). */
    if ((rc = gcm_mpi_dpm_check(call, MPI_INFO_NULL, root, comm, intercomm,
                                "intercomm")) != MPI_SUCCESS) {
        return rc;
    }
    *intercomm = MPI_COMM_NULL;
    if (comm->rank == root) {
        /* The arguments count at the root only. */
        if ((count < 1) || (array_of_commands == NULL) ||
            (array_of_maxprocs == NULL)) {
            head[0] = MPI_ERR_ARG;
            snprintf(why, sizeof(why), "count %d, or no commands or "
                     "maxprocs", count);
        }
        for (i = 0; (head[0] == MPI_SUCCESS) && (i < count); i++) {
            if ((array_of_commands[i] == NULL) ||
                (array_of_maxprocs[i] < 1) ||
                (array_of_maxprocs[i] > GCM_LCO_SPAWN_MAX - head[1])) {
                head[0] = MPI_ERR_ARG;
                snprintf(why, sizeof(why), "command %d: no program, or "
                         "maxprocs %d not in 1..%d altogether", i,
                         array_of_commands[i] ? array_of_maxprocs[i] : 0,
                         GCM_LCO_SPAWN_MAX);
            } else {
                head[1] += array_of_maxprocs[i];
            }
        }
        if ((head[0] == MPI_SUCCESS) &&
            ((errs = calloc((size_t)head[1], sizeof(int))) == NULL)) {
            head[0] = MPI_ERR_NO_MEM;
        }
        if ((head[0] == MPI_SUCCESS) &&
            (PMPI_Open_port(MPI_INFO_NULL, port) != MPI_SUCCESS)) {
            head[0] = MPI_ERR_OTHER;
            snprintf(why, sizeof(why), "cannot open a port for the "
                     "children");
        }
        if (head[0] == MPI_SUCCESS) {
            head[0] = spawn_root(count, array_of_commands, array_of_argv,
                                 array_of_maxprocs, array_of_info, port,
                                 head[1], errs, why, sizeof(why));
        }
    }
    /* Everybody learns the outcome, and the error codes. */
    if (comm->size > 1) {
        rc = PMPI_Bcast(head, 2, MPI_INT, root, comm);
        if ((rc == MPI_SUCCESS) && (head[0] == MPI_ERR_SPAWN) &&
            (comm->rank != root)) {
            errs = calloc((size_t)head[1], sizeof(int));
            rc = (errs == NULL) ? MPI_ERR_NO_MEM : MPI_SUCCESS;
        }
        if ((rc == MPI_SUCCESS) && (head[0] == MPI_ERR_SPAWN)) {
            rc = PMPI_Bcast(errs, head[1], MPI_INT, root, comm);
        }
        if (rc != MPI_SUCCESS) {
            free(errs);
            return rc;
        }
    }
    if ((array_of_errcodes != MPI_ERRCODES_IGNORE) && (head[1] > 0)) {
        for (i = 0; i < head[1]; i++) {
            array_of_errcodes[i] = ((head[0] == MPI_ERR_SPAWN) &&
                                    (errs[i] != 0)) ? MPI_ERR_SPAWN :
                                   (head[0] == MPI_SUCCESS) ? MPI_SUCCESS :
                                   head[0];
        }
    }
    free(errs);
    if (head[0] != MPI_SUCCESS) {
        if (port[0] != '\0') {
            (void)PMPI_Close_port(port);
        }
        return gcm_mpi_raise(comm, head[0], call, "%s",
                             (why[0] != '\0') ? why :
                             "the root could not spawn the processes");
    }
    /* The children connect from their MPI_Init. */
    rc = gcm_mpi_dpm_accept(port, gcm_lco_connect_timeout(), root,
                            comm, call, intercomm);
    if (port[0] != '\0') {
        (void)PMPI_Close_port(port);
    }
    return rc;
}
GCM_MPI_ALIAS(Comm_spawn_multiple)

int PMPI_Comm_spawn(const char *command, char *argv[], int maxprocs,
                    MPI_Info info, int root, MPI_Comm comm,
                    MPI_Comm *intercomm, int array_of_errcodes[])
{
    char *cmds[1];
    char **argvs[1];

    cmds[0]  = (char *)command;
    argvs[0] = argv;
    return PMPI_Comm_spawn_multiple(1, cmds, argvs, &maxprocs, &info, root,
                                    comm, intercomm, array_of_errcodes);
}
GCM_MPI_ALIAS(Comm_spawn)
