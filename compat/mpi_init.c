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
    GCM_CFG_TEXT("GENCOMM_NAME_DIR", gcm_mpi_config.name_dir,
                 "directory of MPI_Publish_name's names outside PMIx "
                 "launchers (mode 0700, this user's)"),
    GCM_CFG_TEXT("GENCOMM_GRAPH_DIR", gcm_mpi_config.graph_dir,
                 "draw every communicator made into this folder as "
                 "Graphviz DOT, one file each"),
};
GCM_CONFIG_REGISTER(compat, gcm_mpi_config_entries)

static struct {
    atomic_int state;         /* 0: never, 1: initialized, 2: finalized */
    int        started_gcm;   /* MPI_Init called gcm_init */
    int        thread_level;
    pthread_t  main_thread;
} gcm_mpi_env;

enum { GCM_MPI_NEVER = 0, GCM_MPI_RUNNING = 1, GCM_MPI_FINALIZED = 2 };

int gcm_mpi_check_init(const char *call)
{
    int state = atomic_load_explicit(&gcm_mpi_env.state,
                                     memory_order_acquire);

    if (gcm_likely(state == GCM_MPI_RUNNING)) {
        return MPI_SUCCESS;
    }
    /* Nothing can run without MPI_Init: as MPICH and Open MPI do, say so
     * and end the program rather than return into undefined state. */
    fprintf(stderr, "gencomm: %s called %s\n", call,
            (state == GCM_MPI_NEVER) ? "before MPI_Init" :
            "after MPI_Finalize");
    gcm_mpi_abort_job(MPI_ERR_OTHER, NULL);
}

static int gcm_mpi_init_common(int *argc, char ***argv, int required,
                               int *provided, const char *call)
{
    gcm_status_t status;
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
    gcm_mpi_info_env_init((argc != NULL) ? *argc : 0,
                          (argv != NULL) ? *argv : NULL);
    gcm_mpi_env.thread_level = MPI_THREAD_MULTIPLE;
    gcm_mpi_env.main_thread  = pthread_self();
    if (provided != NULL) {
        *provided = MPI_THREAD_MULTIPLE;
    }
    atomic_store_explicit(&gcm_mpi_env.state, GCM_MPI_RUNNING,
                          memory_order_release);
    /* The SMP hierarchy: built now because MPIX_Comm_node is not
     * collective (it needs MPI running: it sets an attribute). */
    rc = gcm_mpi_hier_init();
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    gcm_mpi_graph_auto(MPI_COMM_WORLD);
    gcm_mpi_graph_auto(MPI_COMM_SELF);
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
    gcm_status_t status = GCM_OK;
    int rc;

    if ((rc = gcm_mpi_check_init("MPI_Finalize")) != MPI_SUCCESS) {
        return rc;
    }
    /* First of all, as if MPI_COMM_SELF were freed (MPI-3.1 8.7.1): its
     * attributes' delete callbacks run newest first while everything
     * still works, so that libraries can clean up there. */
    (void)gcm_mpi_attr_delete_all(MPI_COMM_SELF);
    /* Buffered sends still in flight must reach their receivers. */
    gcm_mpi_bsend_drain();
    gcm_mpi_requests_finalize();
    gcm_mpi_dpm_finalize();
    gcm_mpi_win_finalize();
    gcm_mpi_hier_finalize();
    gcm_mpi_comm_finalize();
    gcm_mpi_req_cache_flush();
    atomic_store(&gcm_mpi_env.state, GCM_MPI_FINALIZED);
    if (gcm_mpi_env.started_gcm) {
        status = gcm_finalize();
    }
    if (status != GCM_OK) {
        fprintf(stderr, "gencomm: MPI_Finalize: %s\n", gcm_last_error());
        return gcm_mpi_errclass(status);
    }
    return MPI_SUCCESS;
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
