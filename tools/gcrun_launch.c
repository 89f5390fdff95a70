/*
 * tools/gcrun_launch.c: starting, signalling and reaping the
 * ranks: signals, the ranks' environment, exec, exit statuses, timers.
 */
#include "tools/gcrun.h"

void gcrun_record_status(struct job *job, int status)
{
    if (!job->status_set && status != 0) {
        job->exit_status = status;
        job->status_set = true;
    }
}

void gcrun_record_consequence(struct job *job, int status)
{
    if (!job->conseq_set && status != 0) {
        job->conseq_status = status;
        job->conseq_set = true;
    }
}

int gcrun_final_status(const struct job *job)
{
    if (job->status_set) {
        return job->exit_status;
    }
    return job->conseq_set ? job->conseq_status : 0;
}

bool gcrun_timeout_from_env(struct job *job)
{
    const char *s = getenv("MPIEXEC_TIMEOUT");
    long v;

    job->timeout_at = -1;
    job->timeout_s = 0;
    if (s == NULL || *s == '\0') {
        return true;
    }
    /* A day of seconds a thousand times over is no limit anyone means;
     * the bound keeps the milliseconds far from overflow. */
    if (!gcrun_parse_long(s, &v) || v < 0 || v > 86400L * 1000) {
        gcrun_msg("MPIEXEC_TIMEOUT='%s' is not a whole number of seconds "
                  "(0 to %ld)", s, 86400L * 1000);
        return false;
    }
    if (v > 0) {
        job->timeout_s = v;
        job->timeout_at = gcrun_now_ms() + (int64_t)v * 1000;
    }
    return true;
}

/* ------------------------------------------------------------------------ */
/* Child management                                                         */
/* ------------------------------------------------------------------------ */

/* The signals gcrun handles; children get them back at their defaults. */
static const int handled_signals[] = { SIGCHLD, SIGINT, SIGTERM, SIGHUP };

#define NHANDLED (sizeof(handled_signals) / sizeof(handled_signals[0]))

static void on_signal(int sig)
{
    int saved = errno;
    unsigned char c = (unsigned char)sig;

    /* If the pipe is full the main loop has wake-ups pending anyway. */
    (void)!write(gcrun_sig_pipe[1], &c, 1);
    errno = saved;
}

void gcrun_setup_signals(void)
{
    struct sigaction sa;
    size_t i;

    if (pipe2(gcrun_sig_pipe, O_CLOEXEC | O_NONBLOCK) != 0) {
        gcrun_msg("pipe: %s", strerror(errno));
        exit(1);
    }
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = SIG_IGN;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGPIPE, &sa, NULL);

    sa.sa_handler = on_signal;
    for (i = 0; i < NHANDLED; i++) {
        sa.sa_flags = SA_RESTART;
        if (handled_signals[i] == SIGCHLD) {
            sa.sa_flags |= SA_NOCLDSTOP;
        }
        sigaction(handled_signals[i], &sa, NULL);
    }
}

/* Environment variables that must not reach the ranks from an outer
 * launcher: PMIx/Open MPI ones would make the library believe it runs
 * under PMIx, and the PMI/GENCOMM ones are set by us per rank. */
static bool env_dropped(const char *entry)
{
    static const char *const prefixes[] = { "PMIX_", "OMPI_" };
    static const char *const names[] = {
        "PMI_FD",     "PMI_PORT",           "PMI_ID",
        "PMI_RANK",   "PMI_SIZE",           "PMI_SPAWNED",
        "GENCOMM_LOCAL_RANK", "GENCOMM_LOCAL_SIZE", "GENCOMM_BIND",
    };
    size_t i;

    for (i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++) {
        if (strncmp(entry, prefixes[i], strlen(prefixes[i])) == 0) {
            return true;
        }
    }
    for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        size_t n = strlen(names[i]);

        if (strncmp(entry, names[i], n) == 0 && entry[n] == '=') {
            return true;
        }
    }
    return false;
}

static void rank_env_init(struct rank_env *re, bool with_host)
{
    extern char **environ;
    size_t n = 0;
    size_t i;

    while (environ[n] != NULL) {
        n++;
    }
    re->envp = gcrun_xcalloc(n + RANK_ENV_VARS + 2, sizeof(char *));
    re->nbase = 0;
    re->with_host = with_host;
    for (i = 0; i < n; i++) {
        /* Our own host names replace one set from outside. */
        if (!env_dropped(environ[i]) &&
            !(with_host &&
              strncmp(environ[i], "GENCOMM_HOSTNAME=", 17) == 0)) {
            re->envp[re->nbase++] = environ[i];
        }
    }
    for (i = 0; i < RANK_ENV_VARS; i++) {
        re->envp[re->nbase + i] = re->vars[i];
    }
    if (with_host) {
        re->envp[re->nbase + RANK_ENV_VARS] = re->host;
    }
    re->envp[re->nbase + RANK_ENV_VARS + (with_host ? 1 : 0)] = NULL;
}

static void rank_env_fill(struct rank_env *re, int rank, int size,
                          int pmi_fd, const char *bind)
{
    snprintf(re->vars[0], sizeof(re->vars[0]), "PMI_FD=%d", pmi_fd);
    snprintf(re->vars[1], sizeof(re->vars[1]), "PMI_RANK=%d", rank);
    snprintf(re->vars[2], sizeof(re->vars[2]), "PMI_SIZE=%d", size);
    snprintf(re->vars[3], sizeof(re->vars[3]), "GENCOMM_LOCAL_RANK=%d",
             rank);
    snprintf(re->vars[4], sizeof(re->vars[4]), "GENCOMM_LOCAL_SIZE=%d",
             size);
    snprintf(re->vars[5], sizeof(re->vars[5]), "GENCOMM_BIND=%s", bind);
}

static void rank_env_host(struct rank_env *re, const char *host)
{
    snprintf(re->host, sizeof(re->host), "GENCOMM_HOSTNAME=%s", host);
}

/* Finds prog the way execvp would: as given when it contains a slash,
 * else in each PATH directory. Returns the path to run, or NULL with *err
 * set (EACCES wins over ENOENT when some candidate was not executable). */
char *gcrun_resolve_program(const char *prog, int *err)
{
    const char *path;
    const char *p;
    bool saw_eacces = false;
    struct stat sb;

    if (prog[0] == '\0') {
        *err = ENOENT;
        return NULL;
    }
    if (strchr(prog, '/') != NULL) {
        if (stat(prog, &sb) != 0) {
            *err = errno;
            return NULL;
        }
        if (S_ISDIR(sb.st_mode)) {
            *err = EISDIR;
            return NULL;
        }
        if (access(prog, X_OK) != 0) {
            *err = errno;
            return NULL;
        }
        *err = ENOMEM;
        return strdup(prog);
    }

    path = getenv("PATH");
    if (path == NULL) {
        path = "/bin:/usr/bin";
    }
    p = path;
    for (;;) {
        const char *colon = strchr(p, ':');
        size_t dlen = colon == NULL ? strlen(p) : (size_t)(colon - p);
        size_t size = dlen + strlen(prog) + 3;
        char *cand = gcrun_xmalloc(size);

        /* An empty PATH entry means the current directory. */
        if (dlen == 0) {
            snprintf(cand, size, "./%s", prog);
        } else {
            snprintf(cand, size, "%.*s/%s", (int)dlen, p, prog);
        }
        if (stat(cand, &sb) == 0) {
            if (S_ISREG(sb.st_mode) && access(cand, X_OK) == 0) {
                return cand;
            }
            saw_eacces = true;
        }
        free(cand);
        if (colon == NULL) {
            break;
        }
        p = colon + 1;
    }
    *err = saw_eacces ? EACCES : ENOENT;
    return NULL;
}

/* What a child writes into the report pipe when it cannot run prog. */
struct exec_report {
    int rank;
    int setup; /* 1: failed before execve, 0: execve itself failed */
    int err;
};

struct child_setup {
    int rank;
    const char *path;
    const char *wdir;   /* NULL: stay in gcrun's */
    char **argv;
    char **envp;
    int stdin_fd;
    int stdout_fd;
    int stderr_fd;
    int pmi_fd;
    int report_fd;
    pid_t pgid;
    pid_t parent;
    hwloc_topology_t topo;
    hwloc_const_cpuset_t cpuset;
    const sigset_t *orig_mask;
    const struct rlimit *orig_nofile;
};

static void child_fail(const struct child_setup *cs, int setup, int err)
    __attribute__((noreturn));

static void child_fail(const struct child_setup *cs, int setup, int err)
{
    struct exec_report rep = { .rank = cs->rank, .setup = setup,
                               .err = err };

    (void)!write(cs->report_fd, &rep, sizeof(rep));
    _exit(gcrun_exec_failure_status(err));
}

/* Runs in the child between fork and exec. */
static void child_exec(const struct child_setup *cs)
    __attribute__((noreturn));

static void child_exec(const struct child_setup *cs)
{
    size_t i;

    /* Our handlers would write into gcrun's self-pipe; a signal that
     * arrives now must act on the child instead. Signals stay blocked
     * until just before execve. */
    for (i = 0; i < NHANDLED; i++) {
        signal(handled_signals[i], SIG_DFL);
    }
    signal(SIGPIPE, SIG_DFL);

    /* All ranks share one process group of their own, so a Ctrl-C on the
     * terminal reaches only gcrun, which then ends the job in order. */
    (void)setpgid(0, cs->pgid);

#ifdef __linux__
    /* If gcrun itself is killed hard, do not leave orphaned ranks. */
    (void)prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != cs->parent) {
        _exit(1);
    }
#endif

    if (dup2(cs->stdin_fd, STDIN_FILENO) < 0 ||
        dup2(cs->stdout_fd, STDOUT_FILENO) < 0 ||
        dup2(cs->stderr_fd, STDERR_FILENO) < 0) {
        child_fail(cs, 1, errno);
    }
    if (fcntl(cs->pmi_fd, F_SETFD, 0) < 0) {
        child_fail(cs, 1, errno);
    }
#ifdef CLOSE_RANGE_CLOEXEC
    /* Descriptors inherited from whoever started gcrun are not meant for
     * the ranks either: they get stdio and PMI_FD only. Errors (old
     * kernels) are harmless, all of our own descriptors are CLOEXEC. */
    if (cs->pmi_fd > 3) {
        (void)close_range(3, (unsigned int)cs->pmi_fd - 1,
                          CLOSE_RANGE_CLOEXEC);
    }
    (void)close_range((unsigned int)cs->pmi_fd + 1, ~0U,
                      CLOSE_RANGE_CLOEXEC);
#endif

    if (cs->cpuset != NULL &&
        hwloc_set_cpubind(cs->topo, cs->cpuset, HWLOC_CPUBIND_PROCESS) != 0) {
        char msg[160];
        int len = snprintf(msg, sizeof(msg),
                           "gcrun: warning: cannot bind rank %d: %s\n",
                           cs->rank, strerror(errno));

        (void)!write(STDERR_FILENO, msg, (size_t)len);
    }

    if ((cs->wdir != NULL) && (chdir(cs->wdir) != 0)) {
        child_fail(cs, 1, errno);
    }
    if (cs->orig_nofile != NULL) {
        (void)setrlimit(RLIMIT_NOFILE, cs->orig_nofile);
    }
    sigprocmask(SIG_SETMASK, cs->orig_mask, NULL);
    execve(cs->path, cs->argv, cs->envp);
    child_fail(cs, 0, errno);
}

/* Sends sig to every rank that has not been reaped. Each pid is signalled
 * individually: simple, and it cannot hit an unrelated process group. */
void gcrun_signal_ranks(struct job *job, int sig)
{
    int r;

    for (r = 0; r < job->opt.nprocs; r++) {
        struct rank *rk = &job->ranks[r];

        if (rk->alive) {
            (void)kill(rk->pid, sig);
            rk->signalled = true;
        }
    }
    /* The jobs the ranks spawned end with them. */
    gcrun_spawn_signal(job, sig);
}


/* Creates rank r's socketpair and pipes and forks it. Returns -1 (after a
 * message) when that fails; nothing is left open then. */
static int launch_rank(struct job *job, struct launch *ln, int r)
{
    struct rank *rk = &job->ranks[r];
    int sv[2] = { -1, -1 };
    int outp[2] = { -1, -1 };
    int errp[2] = { -1, -1 };
    int inp[2] = { -1, -1 };
    struct child_setup cs;
    pid_t pid;
    bool with_stdin = r == 0 && ln->forward_stdin;
    const struct app *app = gcrun_app_of(job, r, NULL);
    char **envp = NULL;

    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
        gcrun_msg("socketpair: %s", strerror(errno));
        goto fail;
    }
    if (pipe2(outp, O_CLOEXEC) != 0 || pipe2(errp, O_CLOEXEC) != 0 ||
        (with_stdin && pipe2(inp, O_CLOEXEC) != 0)) {
        gcrun_msg("pipe: %s", strerror(errno));
        goto fail;
    }

    rank_env_fill(&ln->env, r, job->opt.nprocs, sv[1], ln->gcrun_bind_name);
    if (job->opt.hosts != NULL) {
        rank_env_host(&ln->env, job->opt.hosts[job->opt.host_of[r]]);
    }
    memset(&cs, 0, sizeof(cs));
    cs.rank = r;
    cs.path = ln->path;
    cs.argv = job->opt.argv;
    cs.envp = ln->env.envp;
    if (app != NULL) {
        /* A spawned job: the rank's own program, directory and
         * variables, and PMI_SPAWNED=1 (MPI looks for its parent). */
        static char spawned[] = "PMI_SPAWNED=1";
        size_t n = 0, k;

        while (ln->env.envp[n] != NULL) {
            n++;
        }
        envp = gcrun_xcalloc(n + (size_t)app->nenv + 2, sizeof(char *));
        for (k = 0; k < (size_t)app->nenv; k++) {
            envp[k] = app->env[k];
        }
        memcpy(envp + app->nenv, ln->env.envp, n * sizeof(char *));
        envp[n + (size_t)app->nenv] = spawned;
        cs.path = app->path;
        cs.argv = app->argv;
        cs.wdir = app->wdir;
        cs.envp = envp;
    }
    cs.stdin_fd = with_stdin ? inp[0] : ln->devnull;
    cs.stdout_fd = outp[1];
    cs.stderr_fd = errp[1];
    cs.pmi_fd = sv[1];
    cs.report_fd = ln->report[1];
    cs.pgid = job->pgid;
    cs.parent = getpid();
    cs.topo = ln->topo;
    cs.cpuset = ln->cpusets == NULL ? NULL : ln->cpusets[r];
    cs.orig_mask = &ln->orig_mask;
    cs.orig_nofile = ln->nofile_raised ? &ln->orig_nofile : NULL;

    pid = fork();
    if (pid < 0) {
        gcrun_msg("fork: %s", strerror(errno));
        goto fail;
    }
    if (pid == 0) {
        child_exec(&cs);
    }
    free(envp);
    envp = NULL;

    /* Set the group from this side too, so that it is in place whichever
     * of parent and child runs first. EACCES means the child has already
     * exec'd and did it itself. */
    if (job->pgid == 0) {
        job->pgid = pid;
    }
    (void)setpgid(pid, job->pgid);

    close(sv[1]);
    close(outp[1]);
    close(errp[1]);
    gcrun_close_fd(&inp[0]);
    gcrun_set_nonblock(sv[0]);
    gcrun_set_nonblock(outp[0]);
    gcrun_set_nonblock(errp[0]);
    rk->pid = pid;
    rk->alive = true;
    rk->pmi_fd = sv[0];
    rk->out.fd = outp[0];
    rk->err.fd = errp[0];
    if (with_stdin) {
        gcrun_set_nonblock(inp[1]);
        job->stdin_pipe = inp[1];
        job->stdin_open = true;
    }
    job->nalive++;
    return 0;

fail:
    free(envp);
    gcrun_close_fd(&sv[0]);
    gcrun_close_fd(&sv[1]);
    gcrun_close_fd(&outp[0]);
    gcrun_close_fd(&outp[1]);
    gcrun_close_fd(&errp[0]);
    gcrun_close_fd(&errp[1]);
    gcrun_close_fd(&inp[0]);
    gcrun_close_fd(&inp[1]);
    return -1;
}

/* Our stdin is forwarded unless it is a terminal that belongs to another
 * foreground job: reading it would only stop gcrun with SIGTTIN. */
static bool want_stdin(void)
{
    if (isatty(STDIN_FILENO)) {
        pid_t fg = tcgetpgrp(STDIN_FILENO);

        return fg < 0 || fg == getpgrp();
    }
    return true;
}

/* Gives the file descriptor limit room for 3-4 descriptors per rank. The
 * children get the original limit back. */
static void raise_fd_limit(struct launch *ln, int nprocs)
{
    struct rlimit rl;
    rlim_t need = (rlim_t)nprocs * 4 + 32;

    ln->nofile_raised = false;
    if (getrlimit(RLIMIT_NOFILE, &ln->orig_nofile) != 0) {
        return;
    }
    rl = ln->orig_nofile;
    if (rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < need) {
        rl.rlim_cur = rl.rlim_max;
        if (rl.rlim_max != RLIM_INFINITY && rl.rlim_max > need * 2) {
            rl.rlim_cur = need * 2;
        }
        if (setrlimit(RLIMIT_NOFILE, &rl) == 0) {
            ln->nofile_raised = true;
        }
    }
}

/* Starts all ranks, then waits until each has exec'd or reported why it
 * could not. */
void gcrun_launch_ranks(struct job *job, struct launch *ln)
{
    sigset_t block;
    struct exec_report rep;
    bool failed = false;
    int r;

    ln->forward_stdin = want_stdin();
    rank_env_init(&ln->env, job->opt.hosts != NULL);
    raise_fd_limit(ln, job->opt.nprocs);
    if (pipe2(ln->report, O_CLOEXEC) != 0) {
        gcrun_msg("pipe: %s", strerror(errno));
        exit(1);
    }
    ln->devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (ln->devnull < 0) {
        gcrun_msg("/dev/null: %s", strerror(errno));
        exit(1);
    }

    /* Keep signals out of the window between fork and the child's reset
     * of its handlers; they are delivered to us right after the loop. */
    sigfillset(&block);
    sigprocmask(SIG_BLOCK, &block, &ln->orig_mask);
    for (r = 0; r < job->opt.nprocs; r++) {
        if (launch_rank(job, ln, r) != 0) {
            failed = true;
            break;
        }
    }
    sigprocmask(SIG_SETMASK, &ln->orig_mask, NULL);
    gcrun_close_fd(&ln->report[1]);
    gcrun_close_fd(&ln->devnull);
    free(ln->env.envp);
    ln->env.envp = NULL;

    /* EOF arrives once every child has exec'd (the write end is CLOEXEC)
     * or exited after writing its report. */
    for (;;) {
        ssize_t n = read(ln->report[0], &rep, sizeof(rep));

        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n != (ssize_t)sizeof(rep)) {
            break;
        }
        if (rep.rank < 0 || rep.rank >= job->opt.nprocs) {
            continue;
        }
        job->ranks[rep.rank].exec_failed = true;
        if (!failed) {
            if (rep.setup) {
                gcrun_msg("rank %d: setting up the process failed: %s",
                          rep.rank, strerror(rep.err));
            } else {
                gcrun_msg("cannot execute '%s': %s", job->opt.argv[0],
                          strerror(rep.err));
            }
        }
        failed = true;
        gcrun_record_status(job, gcrun_exec_failure_status(rep.err));
    }
    gcrun_close_fd(&ln->report[0]);

    if (failed) {
        /* The job cannot work without every rank: stop the others now. */
        gcrun_record_status(job, 1);
        job->state = JOB_ENDING;
        gcrun_signal_ranks(job, SIGTERM);
        job->kill_at = gcrun_now_ms() + KILL_DELAY_MS;
    }
}

static struct rank *rank_by_pid(struct job *job, pid_t pid)
{
    int r;

    for (r = 0; r < job->opt.nprocs; r++) {
        if (job->ranks[r].alive && job->ranks[r].pid == pid) {
            return &job->ranks[r];
        }
    }
    return NULL;
}

static void on_rank_exit(struct job *job, struct rank *rk, int wstatus)
{
    /* After an abort the others' deaths are its consequences, but for
     * the death of the rank the abort named as its cause. */
    bool quiet = rk->signalled || rk->exec_failed || rk->aborted ||
                 (job->aborting && rk->id != job->abort_cause);
    /* While the job runs, or for the named cause, a failure is news;
     * once it is ending, one follows from the failure that ends it. */
    bool root = job->state == JOB_RUNNING || rk->id == job->abort_cause;
    int status = 0;
    char name[32];

    rk->alive = false;
    job->nalive--;
    if (job->nalive == 0) {
        job->linger_until = gcrun_now_ms() + LINGER_MS;
    }

    /* Take in what the rank said last (an abort request, its last output
     * lines) before reporting its death, so the log reads in order. */
    gcrun_pmi_read(job, rk, true);
    gcrun_stream_read(job, rk, &rk->out, true);
    gcrun_stream_read(job, rk, &rk->err, true);
    if (rk->id == 0) {
        gcrun_stdin_stop(job);
    }

    if (WIFEXITED(wstatus)) {
        status = WEXITSTATUS(wstatus);
        if (status != 0 && !quiet) {
            gcrun_msg("rank %d (pid %ld) exited with status %d", rk->id,
                      (long)rk->pid, status);
        }
    } else if (WIFSIGNALED(wstatus)) {
        int sig = WTERMSIG(wstatus);

        status = 128 + sig;
        if (!quiet) {
            gcrun_msg("rank %d (pid %ld) killed by signal %d (%s)", rk->id,
                      (long)rk->pid, sig,
                      gcrun_signal_name(sig, name, sizeof(name)));
        }
    }
    if (status == 0 && rk->pmi_init && !rk->finalized && !rk->aborted) {
        /* A process of the job that leaves without finalizing leaves its
         * peers waiting for it: a failure like a crash. (Finishing early
         * after finalizing is normal; so is any program that never spoke
         * PMI.) */
        if (!quiet && root) {
            gcrun_msg("rank %d (pid %ld) exited without finalizing", rk->id,
                      (long)rk->pid);
        }
        status = 1;
    }
    if (status == 0) {
        return; /* finishing early is normal */
    }
    if (root) {
        gcrun_record_status(job, status);
    } else {
        gcrun_record_consequence(job, status);
    }
    if (!quiet) {
        gcrun_notify_peer_died(job, rk);
        gcrun_begin_ending(job);
    }
}

static void reap_children(struct job *job)
{
    for (;;) {
        int wstatus;
        pid_t pid = waitpid(-1, &wstatus, WNOHANG);
        struct rank *rk;

        if (pid < 0 && errno == EINTR) {
            continue;
        }
        if (pid <= 0) {
            return;
        }
        rk = rank_by_pid(job, pid);
        if (rk != NULL) {
            on_rank_exit(job, rk, wstatus);
        } else {
            (void)gcrun_spawn_reap(job, pid, wstatus);
        }
    }
}

static void on_gcrun_signal(struct job *job, int sig)
{
    if (job->got_signal != 0) {
        /* Asked twice: the user does not want to wait any longer. */
        gcrun_signal_ranks(job, SIGKILL);
        job->kill_at = -1;
        return;
    }
    job->got_signal = sig;
    gcrun_msg("received signal %d, ending the job", sig);
    gcrun_record_status(job, 128 + sig);
    job->state = JOB_ENDING;
    job->term_at = -1;
    gcrun_signal_ranks(job, SIGTERM);
    job->kill_at = gcrun_now_ms() + KILL_DELAY_MS;
}

void gcrun_handle_signal_pipe(struct job *job)
{
    unsigned char sigs[64];
    bool chld = false;

    for (;;) {
        ssize_t n = read(gcrun_sig_pipe[0], sigs, sizeof(sigs));
        ssize_t i;

        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            break;
        }
        for (i = 0; i < n; i++) {
            if (sigs[i] == SIGCHLD) {
                chld = true;
            } else {
                on_gcrun_signal(job, sigs[i]);
            }
        }
    }
    if (chld) {
        reap_children(job);
    }
}

void gcrun_check_timers(struct job *job)
{
    int64_t now = gcrun_now_ms();

    if (job->timeout_at >= 0 && now >= job->timeout_at) {
        job->timeout_at = -1;
        if (job->nalive > 0) {
            gcrun_msg("the job ran for MPIEXEC_TIMEOUT=%ld seconds: ending "
                      "it", job->timeout_s);
            gcrun_record_status(job, GCRUN_TIMEOUT_STATUS);
            job->state = JOB_ENDING;
            job->term_at = -1;
            gcrun_signal_ranks(job, SIGTERM);
            job->kill_at = now + KILL_DELAY_MS;
        }
    }

    if (job->term_at >= 0 && now >= job->term_at) {
        job->term_at = -1;
        gcrun_signal_ranks(job, SIGTERM);
        job->kill_at = now + KILL_DELAY_MS;
    }
    if (job->kill_at >= 0 && now >= job->kill_at) {
        job->kill_at = -1;
        gcrun_signal_ranks(job, SIGKILL);
    }
}
