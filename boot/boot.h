/*
 * boot/: how a process learns its place in the job and exchanges the data
 * (UCX worker addresses, host names) the other layers need to connect.
 *
 * Four backends behind one interface: a PMIx client (Open MPI's mpirun,
 * Slurm srun --mpi=pmix), a PMI-1 "simple" wire-protocol client (gcrun,
 * MPICH's Hydra mpiexec), a singleton (started alone: size 1) and a
 * simulation (GENCOMM_BOOT=sim: one process that believes it is rank r
 * of a job of any size, reaching no other; boot_sim.c).
 *
 * Thread-safe: the backends serialize their calls with one lock.
 */
#ifndef GCM_BOOT_H
#define GCM_BOOT_H

#include "util/util.h"

typedef enum {
    GCM_BOOT_SINGLETON,
    GCM_BOOT_PMI1,
    GCM_BOOT_PMIX,
    GCM_BOOT_SIM
} gcm_boot_kind_t;

/* Called (from gcm_boot_poll_events) when the launcher reports that a
 * process of the job died. */
typedef void (*gcm_boot_peer_died_func_t)(int rank, void *arg);

gcm_status_t gcm_boot_init(void) GCM_INTERNAL;
void gcm_boot_finalize(void) GCM_INTERNAL;

int gcm_boot_rank(void) GCM_INTERNAL;
int gcm_boot_size(void) GCM_INTERNAL;
gcm_boot_kind_t gcm_boot_kind(void) GCM_INTERNAL;
const char *gcm_boot_kind_name(void) GCM_INTERNAL;
/* A string that is the same in every process of the job and differs
 * between jobs (the PMI kvs name or PMIx namespace). */
const char *gcm_boot_jobid(void) GCM_INTERNAL;
/*
 * The job's secret: 32 bytes process 0 draws from the kernel in
 * gcm_boot_init and publishes (key GCM_BOOT_SECRET_KEY); the others read it
 * with gcm_boot_secret_fetch after the first fence. Tokens of the
 * communicators the library builds are derived from it (gcm_prf64), so
 * that nobody outside the job can make them from public facts (a pid, the
 * launcher's job id, a counter). The job's identity, which names carry and
 * which two jobs never share (64 random bits), is derived from it too.
 */
#define GCM_BOOT_SECRET_SIZE 32
gcm_status_t gcm_boot_secret_fetch(void) GCM_INTERNAL;
/* GCM_BOOT_SECRET_SIZE bytes, valid after gcm_boot_secret_fetch. */
const unsigned char *gcm_boot_secret(void) GCM_INTERNAL;
/* The job's public identity (never 0), valid after gcm_boot_secret_fetch. */
uint64_t gcm_boot_job_ident(void) GCM_INTERNAL;
/* Labels of the values derived from the secret with gcm_prf64. */
enum {
    GCM_BOOT_PRF_IDENT = 1,   /* the job's identity */
    GCM_BOOT_PRF_TOKEN = 2    /* the token of the job's own patterns */
};

/* This process's host name: GENCOMM_HOSTNAME if set, else gethostname();
 * under the simulation, its simulated host. */
const char *gcm_boot_hostname(void) GCM_INTERNAL;
/* The host name of process rank when the bootstrap knows it without
 * asking anyone (the simulation's layout): GCM_OK, or GCM_ERR_BOOT for
 * every other backend (the host names are then exchanged by messages). */
gcm_status_t gcm_boot_host_of(int rank, char *buf, size_t len) GCM_INTERNAL;

/* Publish key = value (binary, any length) for the other processes; it
 * becomes visible to them after the next gcm_boot_fence(). */
gcm_status_t gcm_boot_put(const char *key, const void *value, size_t len)
    GCM_INTERNAL;
/* Collective over all processes of the job. */
gcm_status_t gcm_boot_fence(void) GCM_INTERNAL;
/* Read what process rank published under key into buf (capacity *len_p);
 * *len_p becomes the value's length. */
gcm_status_t gcm_boot_get(int rank, const char *key, void *buf,
                          size_t *len_p) GCM_INTERNAL;

/* The launcher's name service (MPI_Publish_name): PMIx launchers have
 * one; under the others gcm_boot_has_names() is 0 and the calls fail
 * with GCM_ERR_BOOT. lookup copies at most len bytes (terminated). */
int gcm_boot_has_names(void) GCM_INTERNAL;
gcm_status_t gcm_boot_publish(const char *service, const char *port)
    GCM_INTERNAL;
gcm_status_t gcm_boot_lookup(const char *service, char *port, size_t len)
    GCM_INTERNAL;
gcm_status_t gcm_boot_unpublish(const char *service) GCM_INTERNAL;

/*
 * Dynamic processes: starting a job of count commands (MPI_Comm_spawn(_
 * multiple)) whose processes find parent_port, this job's port, with
 * gcm_boot_parent_port; errcodes[] gets a code per process (0: it was
 * started; else why not, an errno value), nothing being started when any
 * fails. PMI-1 (gcrun, Hydra): the "spawn" command, the port preput as
 * PARENT_ROOT_PORT_NAME in the new job's key-value space; PMIx:
 * PMIx_Spawn, the port in GENCOMM_PARENT_PORT. info_keys[i] / info_vals[i]:
 * host, wdir, path, env (newline-separated NAME=value).
 */
#define GCM_BOOT_SPAWN_MAX 512   /* processes per spawn */
typedef struct gcm_boot_spawn_cmd {
    const char         *command;
    char *const        *argv;     /* NULL-terminated, without argv[0] */
    int                 maxprocs;
    int                 ninfo;
    const char *const  *info_keys;
    const char *const  *info_vals;
} gcm_boot_spawn_cmd_t;
gcm_status_t gcm_boot_spawn(int count, const gcm_boot_spawn_cmd_t cmds[],
                            const char *parent_port, int errcodes[])
    GCM_INTERNAL;
/* The port of the job that spawned this one; GCM_ERR_BOOT when none. */
gcm_status_t gcm_boot_parent_port(char *port, size_t len) GCM_INTERNAL;
/* MPI_APPNUM (the index of this process's command; 0 when not known)
 * and MPI_UNIVERSE_SIZE (what the launcher says; 0 when not known). */
int gcm_boot_appnum(void) GCM_INTERNAL;
int gcm_boot_universe(void) GCM_INTERNAL;

/* A file descriptor that becomes readable when the launcher has something
 * to say (peer died), or -1; waiters poll it beside the UCX event fd. */
int gcm_boot_event_fd(void) GCM_INTERNAL;
void gcm_boot_poll_events(void) GCM_INTERNAL;
void gcm_boot_set_peer_died_cb(gcm_boot_peer_died_func_t cb, void *arg)
    GCM_INTERNAL;

/* Nonzero once the launcher said another process called abort: the
 * failures that follow are its consequences (the MPI layer then ends
 * quietly instead of reporting them as errors of its own). */
int gcm_boot_job_aborting(void) GCM_INTERNAL;
void gcm_boot_report_job_aborting(void) GCM_INTERNAL;

/* A process of the job failed (the launcher said so, or a layer above
 * found it dead): the first one is named to the launcher by an abort
 * that follows, as the job's cause. */
void gcm_boot_note_failed(int rank) GCM_INTERNAL;

/* Ends the whole job with code (never returns). */
void gcm_boot_abort(int code, const char *msg) GCM_INTERNAL
    __attribute__((noreturn));

#endif /* GCM_BOOT_H */
