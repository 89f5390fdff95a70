/*
 * tools/gcrun.h: what the files of gcrun share.
 *
 * gcrun - start N processes of a program on this machine and act as their
 * PMI-1 server.
 *
 * gcrun speaks the "simple PMI" wire protocol (version 1.1, the one MPICH's
 * Hydra uses): every rank gets one end of a socketpair in PMI_FD and sends
 * newline-terminated "cmd=... key=value" lines on it. gcrun answers them,
 * keeps the key-value space, runs the barriers, forwards the ranks'
 * stdout/stderr line by line, forwards its own stdin to rank 0, binds ranks
 * to cores with hwloc and ends the whole job when one rank fails.
 *
 * Everything runs in one thread: a poll() loop over the PMI sockets, the
 * output pipes, stdin and a self-pipe that the signal handlers write to.
 *
 * Files: gcrun_util.c (utilities, byte buffers), gcrun_args.c (arguments),
 * gcrun_kvs.c (key-value space), gcrun_pmi.c (PMI protocol), gcrun_io.c
 * (I/O forwarding), gcrun_launch.c (child management), gcrun_bind.c
 * (binding), gcrun_main.c (main loop); the job state is below.
 */
#ifndef GCRUN_H
#define GCRUN_H

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

#include <hwloc.h>

#ifndef PACKAGE_VERSION
#define PACKAGE_VERSION "unknown"
#endif

/* Limits announced in cmd=maxes and enforced on put. */
#define PMI_KVSNAME_MAX 256
#define PMI_KEY_MAX 256
#define PMI_VAL_MAX 1024
/* Longest request line we keep; a put at the limits is about 1.6 KiB. */
#define PMI_LINE_MAX 4096
#define PMI_MAX_TOKENS 32
/* Stop reading a client's requests while this much reply data is queued. */
#define PMI_OUT_HIGH (1024 * 1024)

/* A rank's output line longer than this is forwarded in pieces. */
#define IO_LINE_MAX (64 * 1024)
#define READ_CHUNK (64 * 1024)
/* Upper bound for one "read until empty" pass, so a busy writer cannot
 * keep gcrun inside a single drain forever. */
#define DRAIN_MAX (4 * 1024 * 1024)

#define DEFAULT_GRACE_MS 1000
#define KILL_DELAY_MS 2000
/* After the last rank is reaped, wait at most this long for EOF on output
 * pipes that a rank's own children may still hold open. */
#define LINGER_MS 500
#define MAX_NPROCS 1000000

enum bind_policy {
    BIND_AUTO,
    BIND_NONE,
    BIND_CORE,
    BIND_NUMA
};

/* Longest emulated host name (boot/ keeps 255 characters). */
#define HOST_NAME_LEN_MAX 255

/* A program of a spawned job (MPMD: the ranks of app i follow those of
 * app i - 1). */
struct app {
    int nprocs;
    char *path;    /* resolved */
    char **argv;   /* argc entries and NULL */
    int argc;
    char *wdir;    /* NULL: gcrun's */
    char **env;    /* NAME=value added to the ranks' environment */
    int nenv;
};

struct options {
    int nprocs;
    int universe;           /* --universe N; 0: not given */
    /* A spawned job (--spawn-plan): its number among the jobs of the
     * first gcrun (output tags "[world.rank]"), its programs and the
     * key-value pairs its space starts with. */
    int world;
    struct app *apps;
    int napps;
    char **preput_keys;
    char **preput_vals;
    int npreput;
    bool tag_output;
    enum bind_policy bind;
    /* --hosts / --nodes: the host names (nhosts of them) and, per rank,
     * the index of its host; NULL when neither was given. */
    const char *hosts_arg;
    long nodes_arg;         /* 0: no --nodes */
    char **hosts;
    int nhosts;
    int *host_of;
    char **argv; /* program and its arguments; points into main's argv */
};

/* One job has one KVS; a chained hash table keeps put and get O(1) however
 * many keys the ranks publish. */
struct kvs_entry {
    struct kvs_entry *next;
    uint32_t hash;
    char *key;
    char *value;
};

struct kvs {
    struct kvs_entry **buckets;
    size_t nbuckets; /* always a power of two */
    size_t count;
};

/* A FIFO of bytes: data[start, end) is the content. */
struct buf {
    char *data;
    size_t start;
    size_t end;
    size_t cap;
};

/* One of a rank's output pipes. */
struct stream {
    int fd;       /* our read end; -1 after EOF */
    int dest;     /* STDOUT_FILENO or STDERR_FILENO */
    bool midline; /* part of the current line was already forwarded */
    struct buf pending;
};

struct rank {
    int id;
    pid_t pid;       /* 0 when never started */
    bool alive;      /* started and not yet reaped */
    bool signalled;  /* we sent it SIGTERM or SIGKILL */
    bool exec_failed;
    bool aborted;
    bool pmi_init;   /* it said cmd=init: a job member, not any program */
    bool finalized;  /* it said cmd=finalize */
    bool in_barrier;
    /* PMI connection */
    int pmi_fd; /* our end of the socketpair; -1 when closed */
    struct buf pmi_in;
    struct buf pmi_out;
    bool discarding;       /* skipping the rest of an over-long line */
    char discard_cmd[32];  /* the cmd= of that line, for the reply */
    bool in_mcmd;          /* inside a multi-line "mcmd=" request */
    char mcmd[32];
    int app;               /* index of its program (appnum) */
    struct stream out;
    struct stream err;
};

enum job_state {
    JOB_RUNNING,
    JOB_ENDING
};

struct job {
    struct options opt;
    struct rank *ranks;
    int nalive;
    int nbarrier;
    char kvsname[64];
    struct kvs kvs;

    /* stdin forwarding to rank 0 */
    bool stdin_open; /* still reading our own stdin */
    int stdin_pipe;  /* write end of rank 0's stdin; -1 when closed */
    struct buf stdin_buf;

    /* termination */
    enum job_state state;
    bool aborting;    /* a rank called abort: the others' deaths are
                       * consequences, not news */
    int abort_cause;  /* the rank the abort named as its cause, or -1: its
                       * death is news all the same */
    /* The job's exit status is that of its first failure that was no
     * consequence of another (a rank that died, exited with an error or
     * without finalizing while the job ran, an abort naming no cause, a
     * signal to gcrun, the timeout); only without one, that of the first
     * consequence (an abort naming the rank that failed first, a rank
     * that failed while the job was ending). So it does not depend on the
     * order in which gcrun learns of them. */
    int exit_status;
    bool status_set;
    int conseq_status;
    bool conseq_set;
    /* MPIEXEC_TIMEOUT: when the job is ended, or -1. */
    int64_t timeout_at;
    long timeout_s;
    int got_signal;   /* first SIGINT/SIGTERM/SIGHUP we received */
    int64_t grace_ms;
    int64_t term_at;  /* when to SIGTERM the survivors; -1 = not armed */
    int64_t kill_at;  /* when to SIGKILL them; -1 = not armed */
    int64_t linger_until;
    pid_t pgid;

    struct gcrun_spawn *spawn; /* spawned jobs (gcrun_spawn.c) */

    char *readbuf; /* READ_CHUNK bytes */
    struct buf scratch;
    struct pollfd *pfds;
    struct pollref *refs;
    size_t poll_cap;
};

#define RANK_ENV_VARS 6

/* envp is the filtered environment plus RANK_ENV_VARS slots that point at
 * the per-rank strings (and one for GENCOMM_HOSTNAME with --hosts or
 * --nodes), refilled before each fork. */
struct rank_env {
    char **envp;
    size_t nbase;
    char vars[RANK_ENV_VARS][64];
    bool with_host;
    char host[HOST_NAME_LEN_MAX + 32];
};

struct launch {
    const char *path;
    struct rank_env env;
    const char *gcrun_bind_name;
    hwloc_topology_t topo;
    hwloc_const_cpuset_t *cpusets; /* per rank; NULL entries: unbound */
    int report[2];
    int devnull;
    bool forward_stdin;
    sigset_t orig_mask;
    struct rlimit orig_nofile;
    bool nofile_raised;
};
struct binding {
    hwloc_topology_t topo; /* NULL when not loaded */
    enum bind_policy used;
    hwloc_const_cpuset_t *sets;
};

/* Set by the signal handlers' self-pipe setup; read by the main loop. */
extern int gcrun_sig_pipe[2];

/* Starts ending the job after a failure: the survivors get the grace period
 * to notice (through peer_died) and exit by themselves, then SIGTERM. */
void gcrun_begin_ending(struct job *job);

const char *gcrun_bind_name(enum bind_policy p);

void gcrun_binding_free(struct binding *b);

void gcrun_binding_plan(struct binding *b, enum bind_policy want,
                        int nprocs);

void gcrun_buf_append(struct buf *b, const void *p, size_t n);

void gcrun_buf_consume(struct buf *b, size_t n);

/* Writes what b holds to fd until b is empty or fd would block: 0; -1
 * when fd is closed or failed (the caller closes it). sock: fd is a
 * socket, written with send(MSG_NOSIGNAL) so that a peer gone raises no
 * SIGPIPE. */
int gcrun_buf_drain(struct buf *b, int fd, bool sock);

void gcrun_buf_free(struct buf *b);

char *gcrun_buf_head(struct buf *b);

size_t gcrun_buf_len(const struct buf *b);

void gcrun_check_timers(struct job *job);

void gcrun_close_fd(int *fd);

/* Makes sure descriptors 0-2 are open, so the pipes and sockets we create
 * never end up on them and get mistaken for stdio. */
void gcrun_ensure_std_fds(void);

/* The shell convention: 127 when the program is not there, 126 when it is
 * there but cannot be run. */
int gcrun_exec_failure_status(int err);

void gcrun_handle_signal_pipe(struct job *job);

void gcrun_kvs_free(struct kvs *kvs);

const char *gcrun_kvs_get(const struct kvs *kvs, const char *key);

void gcrun_kvs_init(struct kvs *kvs);

/* Stores or replaces key; returns -1 when out of memory. */
int gcrun_kvs_put(struct kvs *kvs, const char *key, const char *value);

/* Starts all ranks, then waits until each has exec'd or reported why it
 * could not. */
void gcrun_launch_ranks(struct job *job, struct launch *ln);

void gcrun_notify_peer_died(struct job *job, const struct rank *dead);

int64_t gcrun_now_ms(void);

void gcrun_out_of_memory(void);

/* Options end at "--" or at the first word that is not an option, so that
 * the program's own options are never taken for ours. */
void gcrun_parse_args(int argc, char **argv, struct options *opt);

/* Parses a whole decimal string into a long; false on junk or overflow. */
bool gcrun_parse_long(const char *s, long *out);

void gcrun_pmi_close(struct rank *rk);

/* Writes as much queued reply data as the socket takes without blocking. */
void gcrun_pmi_flush(struct rank *rk);

/* Reads requests from a rank. With drain, keeps reading until the socket is
 * empty (used when the rank has exited, to catch its last words). */
void gcrun_pmi_read(struct job *job, struct rank *rk, bool drain);

/* Remembers the first non-zero status of a failure that is no
 * consequence of another: the job's exit status. */
void gcrun_record_status(struct job *job, int status);

/* Remembers the first non-zero status of a consequence of a failure: the
 * job's exit status only if no other failure is recorded. */
void gcrun_record_consequence(struct job *job, int status);

/* The status gcrun exits with (see struct job). */
int gcrun_final_status(const struct job *job);

/* Reads MPIEXEC_TIMEOUT into job (0 or unset: no limit); false, with a
 * message, when it is not a whole number of seconds. */
bool gcrun_timeout_from_env(struct job *job);

/* The status of a job ended by MPIEXEC_TIMEOUT (that of timeout(1)). */
#define GCRUN_TIMEOUT_STATUS 124

/* Finds prog the way execvp would: as given when it contains a slash,
 * else in each PATH directory. Returns the path to run, or NULL with *err
 * set (EACCES wins over ENOENT when some candidate was not executable). */
char *gcrun_resolve_program(const char *prog, int *err);

int gcrun_set_nonblock(int fd);

void gcrun_setup_signals(void);

const char *gcrun_signal_name(int sig, char *buf, size_t size);

/* Sends sig to every rank that has not been reaped. Each pid is signalled
 * individually: simple, and it cannot hit an unrelated process group. */
void gcrun_signal_ranks(struct job *job, int sig);

/* Writes all of data to fd (1 or 2). Blocks if the reader is slow: that
 * back-pressure is what a terminal or pipe expects from us. */
void gcrun_sink_write(int fd, const char *data, size_t len);

void gcrun_stdin_flush(struct job *job);

void gcrun_stdin_read(struct job *job);

void gcrun_stdin_stop(struct job *job);

void gcrun_stream_close(struct job *job, struct rank *rk, struct stream *st);

void gcrun_stream_read(struct job *job, struct rank *rk, struct stream *st,
                       bool drain);

void *gcrun_xcalloc(size_t count, size_t size);

void *gcrun_xmalloc(size_t size);

void *gcrun_xrealloc(void *old, size_t size);

/* ---- spawn (gcrun_spawn.c) --------------------------------------------- */

/* The lines of an mcmd=spawn block of rk (after its first line), its
 * "endcmd", and the answer once the last block is in. */
void gcrun_spawn_begin(struct job *job, struct rank *rk);
void gcrun_spawn_line(struct job *job, struct rank *rk, const char *line);
void gcrun_spawn_end(struct job *job, struct rank *rk);
/* A child pid that is the gcrun of a spawned job: true when it was. */
bool gcrun_spawn_reap(struct job *job, pid_t pid, int wstatus);
/* How many spawned jobs still run; sig to all of them. */
int gcrun_spawn_alive(const struct job *job);
void gcrun_spawn_signal(struct job *job, int sig);
void gcrun_spawn_free(struct job *job);
/* MPI_UNIVERSE_SIZE: --universe, else the online cores, never less than
 * the job. */
int gcrun_universe(const struct job *job);
/* --spawn-plan: the plan of a spawned job (programs, preputs, world). */
void gcrun_plan_read(int fd, struct options *opt);
void gcrun_plan_free(struct options *opt);
/* The program of rank (its index in *index_p, the appnum); NULL without a
 * plan. */
const struct app *gcrun_app_of(const struct job *job, int rank,
                               int *index_p);
/* Queues one whole reply line (without its newline) for rk. */
void gcrun_pmi_send_line(struct rank *rk, const char *line);

/* Prints "gcrun: <message>\n" to stderr with a single write so that it
 * never lands in the middle of a forwarded line. */
void gcrun_msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif /* GCRUN_H */
