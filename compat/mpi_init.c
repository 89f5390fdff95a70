/*
 * compat/mpi_init.c: starting and ending the MPI layer, and the
 * environment inquiries (MPI-3.1 sections 8.1, 8.6, 8.7, 12.4).
 *
 * MPI_Init starts gencomm (gcm_init) unless the program already did, so
 * native and MPI calls mix in one program. The library always provides
 * MPI_THREAD_MULTIPLE: every native call is thread-safe.
 */
#include "config.h"

#include "boot/boot.h"
#include "compat/mpi_impl.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

gcm_mpi_config_t gcm_mpi_config;

static const gcm_config_entry_t gcm_mpi_config_entries[] = {
    GCM_CFG("GENCOMM_CHECK_COLLECTIVES", "0", GCM_CFG_INT,
            gcm_mpi_config.check_collectives,
            "1: the members of every MPI collective first check that they "
            "made the same call with matching arguments"),
    GCM_CFG_TEXT("GENCOMM_EXTERNAL", gcm_mpi_config.external,
                 "the XML file of external communicators "
                 "(docs/external.md)"),
    GCM_CFG_TEXT("GENCOMM_NAME_DIR", gcm_mpi_config.name_dir,
                 "directory of MPI_Publish_name's names outside PMIx "
                 "launchers (mode 0700, this user's)"),
    GCM_CFG_TEXT("GENCOMM_GRAPH_DIR", gcm_mpi_config.graph_dir,
                 "draw every communicator made into this folder as "
                 "Graphviz DOT, one file each"),
};
GCM_CONFIG_REGISTER(compat, gcm_mpi_config_entries)

/*
 * Two models may start the layer (MPI-4 section 11): MPI_Init (the world
 * model) and MPI_Session_init (sessions), in any order and mix. The
 * layer is up while either has a user: MPI_Init counts one, each open
 * session one; the first start brings it up (collective over all
 * processes: gcm_init, the world, the hierarchy, external definitions),
 * the last of MPI_Finalize and MPI_Session_finalize ends it (collective
 * too), and it cannot start again after that.
 */
static struct {
    atomic_int      state;       /* world model: GCM_MPI_NEVER...FINALIZED */
    int             users;       /* MPI_Init + open sessions */
    pthread_mutex_t lock;        /* layer changes and users */
    int             started_gcm; /* the layer called gcm_init */
    int             thread_level;
    pthread_t       main_thread;
} gcm_mpi_env = { .lock = PTHREAD_MUTEX_INITIALIZER };

enum { GCM_MPI_NEVER = 0, GCM_MPI_RUNNING = 1, GCM_MPI_FINALIZED = 2 };
atomic_int gcm_mpi_layer;

int gcm_mpi_check_init(const char *call)
{
    int layer = atomic_load_explicit(&gcm_mpi_layer,
                                     memory_order_acquire);

    if (gcm_likely(layer == GCM_MPI_LAYER_UP)) {
        return MPI_SUCCESS;
    }
    /* Nothing can run without MPI_Init: as MPICH and Open MPI do, say so
     * and end the program rather than return into undefined state. */
    fprintf(stderr, "gencomm: %s called %s\n", call,
            (layer == GCM_MPI_LAYER_DOWN) ?
            "before MPI_Init (or MPI_Session_init)" :
            (layer == GCM_MPI_LAYER_FAILED) ?
            "after MPI_Init (or MPI_Session_init) failed" :
            "after MPI_Finalize (and the last MPI_Session_finalize)");
    gcm_mpi_abort_job(MPI_ERR_OTHER, NULL);
}

/* Brings the layer up: collective over all processes. errh (not NULL)
 * handles MPI_COMM_WORLD's errors meanwhile. */
static int gcm_mpi_layer_up(int *argc, char ***argv, MPI_Errhandler errh,
                            const char *call)
{
    gcm_status_t status;
    int rc;

    if (!gcm_initialized()) {
        status = gcm_init(argc, argv);
        if (status != GCM_OK) {
            fprintf(stderr, "gencomm: %s: %s\n", call, gcm_last_error());
            return gcm_mpi_errclass(status);
        }
        gcm_mpi_env.started_gcm = 1;
    }
    rc = gcm_mpi_comm_init_world();
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (errh != NULL) {
        MPI_COMM_WORLD->errh = errh;
    }
    gcm_mpi_info_env_init((argc != NULL) ? *argc : 0,
                          (argv != NULL) ? *argv : NULL);
    gcm_mpi_env.thread_level = MPI_THREAD_MULTIPLE;
    gcm_mpi_env.main_thread  = pthread_self();
    atomic_store_explicit(&gcm_mpi_layer, GCM_MPI_LAYER_UP,
                          memory_order_release);
    /* The SMP hierarchy: built now because MPIX_Comm_node is not
     * collective (it needs MPI running: it sets an attribute). */
    rc = gcm_mpi_hier_init();
    if (rc == MPI_SUCCESS) {
        gcm_mpi_graph_auto(MPI_COMM_WORLD);
        gcm_mpi_graph_auto(MPI_COMM_SELF);
        /* External communicators (GENCOMM_EXTERNAL): collective too.
         * A simulation (GENCOMM_BOOT=sim) has no other process to agree
         * with: without a file it has nothing to do, with one it cannot
         * learn the others' processor names. */
        if (gcm_boot_kind() != GCM_BOOT_SIM) {
            rc = gcm_mpi_ext_init(call);
        } else if (gcm_mpi_config.external != NULL) {
            rc = gcm_mpi_raise(NULL, MPI_ERR_OTHER, call, "GENCOMM_EXTERNAL "
                               "needs the other processes' names, which a "
                               "simulation (GENCOMM_BOOT=sim) does not "
                               "have");
        }
    }
    MPI_COMM_WORLD->errh = MPI_ERRORS_ARE_FATAL;
    return rc;
}

/* Ends the layer (the lock held): collective over all processes. */
static gcm_status_t gcm_mpi_layer_down(void)
{
    gcm_status_t status = GCM_OK;

    /* Buffered sends still in flight must reach their receivers. */
    gcm_mpi_bsend_drain();
    gcm_mpi_requests_finalize();
    gcm_mpi_dpm_finalize();
    gcm_mpi_win_finalize();
    gcm_mpi_ext_finalize();
    gcm_mpi_hier_finalize();
    gcm_mpi_comm_finalize();
    gcm_mpi_req_cache_flush();
    if (gcm_mpi_env.started_gcm) {
        status = gcm_finalize();
    }
    return status;
}

int gcm_mpi_layer_start(int *argc, char ***argv, MPI_Errhandler errh,
                        const char *call)
{
    int rc = MPI_SUCCESS;

    pthread_mutex_lock(&gcm_mpi_env.lock);
    switch (atomic_load(&gcm_mpi_layer)) {
    case GCM_MPI_LAYER_UP:
        gcm_mpi_env.users++;
        break;
    case GCM_MPI_LAYER_DOWN:
        rc = gcm_mpi_layer_up(argc, argv, errh, call);
        if (rc == MPI_SUCCESS) {
            /* The launcher's last replies woke every process on its
             * CPU. */
            gcm_lco_spread();
            gcm_mpi_env.users = 1;
            break;
        }
        /* Once the layer is up, what can fail (the definitions file
         * unreadable or different) fails on every process alike, after
         * the same exchanges: all of them take it down again, so that a
         * program that goes on after the error (MPI_ERRORS_RETURN) leaves
         * nothing behind. */
        if (atomic_load(&gcm_mpi_layer) == GCM_MPI_LAYER_UP) {
            (void)gcm_mpi_layer_down();
        }
        atomic_store(&gcm_mpi_layer, GCM_MPI_LAYER_FAILED);
        break;
    default:
        pthread_mutex_unlock(&gcm_mpi_env.lock);
        return gcm_mpi_raise_on(errh != NULL ? errh : MPI_ERRORS_RETURN,
                                "MPI", NULL, MPI_ERR_OTHER, call,
                                "MPI %s and cannot be started again",
                                (atomic_load(&gcm_mpi_layer) ==
                                 GCM_MPI_LAYER_FAILED) ? "failed to start" :
                                "has ended (MPI_Finalize and the last "
                                "MPI_Session_finalize)");
    }
    pthread_mutex_unlock(&gcm_mpi_env.lock);
    return rc;
}

int gcm_mpi_layer_stop(const char *call)
{
    gcm_status_t status = GCM_OK;

    pthread_mutex_lock(&gcm_mpi_env.lock);
    if (--gcm_mpi_env.users > 0) {
        pthread_mutex_unlock(&gcm_mpi_env.lock);
        return MPI_SUCCESS;
    }
    status = gcm_mpi_layer_down();
    atomic_store(&gcm_mpi_layer, GCM_MPI_LAYER_ENDED);
    pthread_mutex_unlock(&gcm_mpi_env.lock);
    if (status != GCM_OK) {
        fprintf(stderr, "gencomm: %s: %s\n", call, gcm_last_error());
        return gcm_mpi_errclass(status);
    }
    return MPI_SUCCESS;
}

static int gcm_mpi_init_common(int *argc, char ***argv, int required,
                               int *provided, const char *call)
{
    int rc;

    if (atomic_load(&gcm_mpi_env.state) != GCM_MPI_NEVER) {
        return gcm_mpi_raise(NULL, MPI_ERR_OTHER, call,
                             "MPI is already %s",
                             (atomic_load(&gcm_mpi_env.state) ==
                              GCM_MPI_RUNNING) ? "initialized" :
                             "finalized (it cannot be initialized again)");
    }
    if ((required < MPI_THREAD_SINGLE) || (required > MPI_THREAD_MULTIPLE)) {
        return gcm_mpi_raise(NULL, MPI_ERR_ARG, call,
                             "required thread level %d is not one of "
                             "MPI_THREAD_SINGLE..MPI_THREAD_MULTIPLE",
                             required);
    }
    rc = gcm_mpi_layer_start(argc, argv, NULL, call);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (provided != NULL) {
        *provided = MPI_THREAD_MULTIPLE;
    }
    atomic_store_explicit(&gcm_mpi_env.state, GCM_MPI_RUNNING,
                          memory_order_release);
    /* A spawned job connects to its parents (MPI_Comm_get_parent). */
    return gcm_mpi_spawn_init();
}

int PMPI_Init(int *argc, char ***argv)
{
    return gcm_mpi_init_common(argc, argv, MPI_THREAD_SINGLE, NULL,
                               "MPI_Init");
}
GCM_MPI_ALIAS(Init)

int PMPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    if (provided == NULL) {
        return gcm_mpi_raise(NULL, MPI_ERR_ARG, "MPI_Init_thread",
                             "provided is NULL");
    }
    return gcm_mpi_init_common(argc, argv, required, provided,
                               "MPI_Init_thread");
}
GCM_MPI_ALIAS(Init_thread)

int PMPI_Initialized(int *flag)
{
    if (flag == NULL) {
        return gcm_mpi_raise(NULL, MPI_ERR_ARG, "MPI_Initialized",
                             "flag is NULL");
    }
    *flag = (atomic_load(&gcm_mpi_env.state) != GCM_MPI_NEVER);
    return MPI_SUCCESS;
}
GCM_MPI_ALIAS(Initialized)

int PMPI_Finalized(int *flag)
{
    if (flag == NULL) {
        return gcm_mpi_raise(NULL, MPI_ERR_ARG, "MPI_Finalized",
                             "flag is NULL");
    }
    *flag = (atomic_load(&gcm_mpi_env.state) == GCM_MPI_FINALIZED);
    return MPI_SUCCESS;
}
GCM_MPI_ALIAS(Finalized)

int PMPI_Finalize(void)
{
    int rc;

    if ((rc = gcm_mpi_check_init("MPI_Finalize")) != MPI_SUCCESS) {
        return rc;
    }
    if (atomic_load(&gcm_mpi_env.state) != GCM_MPI_RUNNING) {
        /* Sessions keep the layer up, but this program never called
         * MPI_Init (or finalized already). */
        return gcm_mpi_raise(NULL, MPI_ERR_OTHER, "MPI_Finalize",
                             "MPI_Init was not called, or MPI_Finalize "
                             "was called already");
    }
    /* First of all, as if MPI_COMM_SELF were freed (MPI-3.1 8.7.1): its
     * attributes' delete callbacks run newest first while everything
     * still works (MPI_Finalized still says no), so that libraries can
     * clean up there. */
    (void)gcm_mpi_attr_delete_all(MPI_COMM_SELF);
    atomic_store(&gcm_mpi_env.state, GCM_MPI_FINALIZED);
    return gcm_mpi_layer_stop("MPI_Finalize");
}
GCM_MPI_ALIAS(Finalize)

int PMPI_Abort(MPI_Comm comm, int errorcode)
{
    char msg[160];

    /* Any communicator ends the whole job: the launcher cannot end only
     * a subset (MPI-3.1 8.7 allows this). */
    (void)comm;
    snprintf(msg, sizeof(msg),
             "gencomm: MPI_Abort called by process %d with error code %d: "
             "ending the job", gcm_initialized() ? gcm_proc_rank() : 0,
             errorcode);
    gcm_mpi_abort_job(errorcode, msg);
}
GCM_MPI_ALIAS(Abort)

double PMPI_Wtime(void)
{
    return gcm_time_now();
}
GCM_MPI_ALIAS(Wtime)

double PMPI_Wtick(void)
{
    struct timespec res;

    if (clock_getres(CLOCK_MONOTONIC, &res) != 0) {
        return 1e-9;
    }
    return (double)res.tv_sec + (double)res.tv_nsec * 1e-9;
}
GCM_MPI_ALIAS(Wtick)

int PMPI_Get_processor_name(char *name, int *resultlen)
{
    const char *host;

    if ((name == NULL) || (resultlen == NULL)) {
        return gcm_mpi_raise(NULL, MPI_ERR_ARG, "MPI_Get_processor_name",
                             "name or resultlen is NULL");
    }
    host = gcm_initialized() ? gcm_boot_hostname() : "localhost";
    snprintf(name, MPI_MAX_PROCESSOR_NAME, "%s", host);
    *resultlen = (int)strlen(name);
    return MPI_SUCCESS;
}
GCM_MPI_ALIAS(Get_processor_name)

int PMPI_Get_version(int *version, int *subversion)
{
    if ((version == NULL) || (subversion == NULL)) {
        return gcm_mpi_raise(NULL, MPI_ERR_ARG, "MPI_Get_version",
                             "version or subversion is NULL");
    }
    *version    = MPI_VERSION;
    *subversion = MPI_SUBVERSION;
    return MPI_SUCCESS;
}
GCM_MPI_ALIAS(Get_version)

int PMPI_Get_library_version(char *version, int *resultlen)
{
    if ((version == NULL) || (resultlen == NULL)) {
        return gcm_mpi_raise(NULL, MPI_ERR_ARG, "MPI_Get_library_version",
                             "version or resultlen is NULL");
    }
    snprintf(version, MPI_MAX_LIBRARY_VERSION_STRING,
             "gencomm %s (MPI %d.%d, UCX %s)", gcm_version(NULL, NULL, NULL),
             MPI_VERSION, MPI_SUBVERSION, gcm_lco_transport_version());
    *resultlen = (int)strlen(version);
    return MPI_SUCCESS;
}
GCM_MPI_ALIAS(Get_library_version)

int PMPI_Query_thread(int *provided)
{
    int rc;

    if ((rc = gcm_mpi_check_init("MPI_Query_thread")) != MPI_SUCCESS) {
        return rc;
    }
    if (provided == NULL) {
        return gcm_mpi_raise(NULL, MPI_ERR_ARG, "MPI_Query_thread",
                             "provided is NULL");
    }
    *provided = gcm_mpi_env.thread_level;
    return MPI_SUCCESS;
}
GCM_MPI_ALIAS(Query_thread)

int PMPI_Is_thread_main(int *flag)
{
    int rc;

    if ((rc = gcm_mpi_check_init("MPI_Is_thread_main")) != MPI_SUCCESS) {
        return rc;
    }
    if (flag == NULL) {
        return gcm_mpi_raise(NULL, MPI_ERR_ARG, "MPI_Is_thread_main",
                             "flag is NULL");
    }
    *flag = pthread_equal(pthread_self(), gcm_mpi_env.main_thread);
    return MPI_SUCCESS;
}
GCM_MPI_ALIAS(Is_thread_main)

int PMPI_Pcontrol(const int level, ...)
{
    /* No profiling library is built in: a profiler that defines
     * MPI_Pcontrol receives the call instead. */
    (void)level;
    return MPI_SUCCESS;
}
GCM_MPI_ALIAS(Pcontrol)
