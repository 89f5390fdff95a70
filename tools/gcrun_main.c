/*
 * tools/gcrun_main.c: the main loop: one poll() over the PMI
 * sockets, the output pipes, stdin and the signal self-pipe; the job's
 * set-up and end.
 */
#include "tools/gcrun.h"

/* ------------------------------------------------------------------------ */
/* Main loop                                                                */
/* ------------------------------------------------------------------------ */

enum ref_kind {
    REF_SIGNAL,
    REF_STDIN,
    REF_STDIN_PIPE,
    REF_PMI,
    REF_OUT,
    REF_ERR
};

struct pollref {
    enum ref_kind kind;
    int rank;
};

static void poll_add(struct job *job, size_t *n, int fd, short events,
                     enum ref_kind kind, int rank)
{
    job->pfds[*n].fd = fd;
    job->pfds[*n].events = events;
    job->pfds[*n].revents = 0;
    job->refs[*n].kind = kind;
    job->refs[*n].rank = rank;
    (*n)++;
}

static size_t poll_build(struct job *job)
{
    size_t n = 0;
    int r;

    poll_add(job, &n, gcrun_sig_pipe[0], POLLIN, REF_SIGNAL, -1);
    if (job->stdin_pipe >= 0) {
        if (gcrun_buf_len(&job->stdin_buf) > 0) {
            poll_add(job, &n, job->stdin_pipe, POLLOUT, REF_STDIN_PIPE, 0);
        } else if (job->stdin_open) {
            poll_add(job, &n, STDIN_FILENO, POLLIN, REF_STDIN, 0);
        }
    }
    for (r = 0; r < job->opt.nprocs; r++) {
        struct rank *rk = &job->ranks[r];

        if (rk->pmi_fd >= 0 && job->nalive > 0) {
            short ev = 0;

            if (gcrun_buf_len(&rk->pmi_out) < PMI_OUT_HIGH) {
                ev |= POLLIN;
            }
            if (gcrun_buf_len(&rk->pmi_out) > 0) {
                ev |= POLLOUT;
            }
            poll_add(job, &n, rk->pmi_fd, ev, REF_PMI, r);
        }
        if (rk->out.fd >= 0) {
            poll_add(job, &n, rk->out.fd, POLLIN, REF_OUT, r);
        }
        if (rk->err.fd >= 0) {
            poll_add(job, &n, rk->err.fd, POLLIN, REF_ERR, r);
        }
    }
    return n;
}

static bool streams_open(const struct job *job)
{
    int r;

    for (r = 0; r < job->opt.nprocs; r++) {
        if (job->ranks[r].out.fd >= 0 || job->ranks[r].err.fd >= 0) {
            return true;
        }
    }
    return false;
}

static int poll_timeout(const struct job *job)
{
    int64_t deadline = -1;
    int64_t now = gcrun_now_ms();
    int64_t wait;

    if (job->term_at >= 0) {
        deadline = job->term_at;
    }
    if (job->kill_at >= 0 && (deadline < 0 || job->kill_at < deadline)) {
        deadline = job->kill_at;
    }
    if (job->nalive == 0 &&
        (deadline < 0 || job->linger_until < deadline)) {
        deadline = job->linger_until;
    }
    if (job->timeout_at >= 0 &&
        (deadline < 0 || job->timeout_at < deadline)) {
        deadline = job->timeout_at;
    }
    if (deadline < 0) {
        return -1;
    }
    wait = deadline - now;
    if (wait < 0) {
        return 0;
    }
    return wait > INT_MAX ? INT_MAX : (int)wait;
}

/* Handles what poll reported for one descriptor. The descriptor is
 * checked against the current state first: an earlier handler in the same
 * round may have closed it. */
static void dispatch(struct job *job, const struct pollfd *p,
                     const struct pollref *ref)
{
    struct rank *rk = ref->rank >= 0 ? &job->ranks[ref->rank] : NULL;

    switch (ref->kind) {
    case REF_SIGNAL:
        break; /* handled after all descriptors */
    case REF_STDIN:
        if (job->stdin_open && job->stdin_pipe >= 0) {
            gcrun_stdin_read(job);
        }
        break;
    case REF_STDIN_PIPE:
        if (job->stdin_pipe == p->fd) {
            gcrun_stdin_flush(job);
        }
        break;
    case REF_PMI:
        if (rk->pmi_fd == p->fd && (p->revents & (POLLOUT | POLLERR)) != 0) {
            gcrun_pmi_flush(rk);
        }
        if (rk->pmi_fd == p->fd &&
            (p->revents & (POLLIN | POLLHUP | POLLERR)) != 0) {
            gcrun_pmi_read(job, rk, false);
        }
        break;
    case REF_OUT:
        if (rk->out.fd == p->fd) {
            gcrun_stream_read(job, rk, &rk->out, false);
        }
        break;
    case REF_ERR:
        if (rk->err.fd == p->fd) {
            gcrun_stream_read(job, rk, &rk->err, false);
        }
        break;
    }
}

static void main_loop(struct job *job)
{
    for (;;) {
        size_t n;
        size_t i;
        int rc;

        if (job->nalive == 0 && gcrun_spawn_alive(job) == 0 &&
            (!streams_open(job) || gcrun_now_ms() >= job->linger_until)) {
            break;
        }
        n = poll_build(job);
        rc = poll(job->pfds, (nfds_t)n, poll_timeout(job));
        if (rc < 0 && errno != EINTR) {
            gcrun_msg("poll: %s", strerror(errno));
            gcrun_signal_ranks(job, SIGKILL);
            gcrun_record_status(job, 1);
            break;
        }
        for (i = 0; rc > 0 && i < n; i++) {
            if (job->pfds[i].revents != 0) {
                dispatch(job, &job->pfds[i], &job->refs[i]);
            }
        }
        /* Signals last: output and requests that were already waiting
         * are handled before a death is reported. pfds[0] is always the
         * self-pipe (see poll_build). */
        if (rc > 0 && (job->pfds[0].revents & POLLIN) != 0) {
            gcrun_handle_signal_pipe(job);
        }
        gcrun_check_timers(job);
    }
}

static int64_t grace_from_env(void)
{
    const char *s = getenv("GENCOMM_KILL_GRACE_MS");
    long v;

    if (s == NULL || *s == '\0') {
        return DEFAULT_GRACE_MS;
    }
    if (!gcrun_parse_long(s, &v) || v < 0) {
        gcrun_msg("warning: ignoring invalid GENCOMM_KILL_GRACE_MS='%s'", s);
        return DEFAULT_GRACE_MS;
    }
    return v;
}

static void job_init(struct job *job)
{
    int r;

    job->ranks = gcrun_xcalloc((size_t)job->opt.nprocs, sizeof(*job->ranks));
    for (r = 0; r < job->opt.nprocs; r++) {
        struct rank *rk = &job->ranks[r];

        rk->id = r;
        (void)gcrun_app_of(job, r, &rk->app);
        rk->pmi_fd = -1;
        rk->out.fd = -1;
        rk->out.dest = STDOUT_FILENO;
        rk->err.fd = -1;
        rk->err.dest = STDERR_FILENO;
    }
    snprintf(job->kvsname, sizeof(job->kvsname), "gcrun_%ld",
             (long)getpid());
    gcrun_kvs_init(&job->kvs);
    /* A spawned job's space starts with what its parents put in it
     * (PARENT_ROOT_PORT_NAME). */
    for (r = 0; r < job->opt.npreput; r++) {
        if (gcrun_kvs_put(&job->kvs, job->opt.preput_keys[r],
                          job->opt.preput_vals[r]) != 0) {
            gcrun_out_of_memory();
        }
    }
    job->stdin_pipe = -1;
    job->state = JOB_RUNNING;
    job->grace_ms = grace_from_env();
    job->term_at = -1;
    job->kill_at = -1;
    job->linger_until = -1;
    job->abort_cause = -1;
    job->timeout_at = -1;
    job->readbuf = gcrun_xmalloc(READ_CHUNK);
    job->poll_cap = 3 * (size_t)job->opt.nprocs + 4;
    job->pfds = gcrun_xcalloc(job->poll_cap, sizeof(*job->pfds));
    job->refs = gcrun_xcalloc(job->poll_cap, sizeof(*job->refs));
}

static void job_free(struct job *job)
{
    int r;

    for (r = 0; r < job->opt.nprocs; r++) {
        struct rank *rk = &job->ranks[r];

        gcrun_pmi_close(rk);
        /* A partial line still pending goes out as at EOF. */
        gcrun_stream_close(job, rk, &rk->out);
        gcrun_stream_close(job, rk, &rk->err);
    }
    gcrun_stdin_stop(job);
    gcrun_spawn_free(job);
    gcrun_plan_free(&job->opt);
    gcrun_kvs_free(&job->kvs);
    gcrun_buf_free(&job->scratch);
    free(job->ranks);
    free(job->readbuf);
    free(job->pfds);
    free(job->refs);
    for (r = 0; r < job->opt.nhosts; r++) {
        free(job->opt.hosts[r]);
    }
    free(job->opt.hosts);
    free(job->opt.host_of);
}

int main(int argc, char **argv)
{
    struct job job;
    struct launch ln;
    struct binding bind;
    char *path;
    int err = 0;
    int status;

    memset(&job, 0, sizeof(job));
    memset(&ln, 0, sizeof(ln));
    gcrun_ensure_std_fds();
    gcrun_parse_args(argc, argv, &job.opt);

    /* Catch a missing program before anything is started, with the same
     * message a failed exec in a child would give. A spawned job's
     * programs were found by the gcrun that started this one. */
    path = (job.opt.napps > 0) ? strdup(job.opt.apps[0].path) :
           gcrun_resolve_program(job.opt.argv[0], &err);
    if (path == NULL) {
        gcrun_msg("cannot execute '%s': %s", job.opt.argv[0], strerror(err));
        return gcrun_exec_failure_status(err);
    }

    job_init(&job);
    if (!gcrun_timeout_from_env(&job)) {
        job_free(&job);
        free(path);
        return 2;
    }
    gcrun_setup_signals();
    gcrun_binding_plan(&bind, job.opt.bind, job.opt.nprocs);

    ln.path = path;
    ln.gcrun_bind_name = gcrun_bind_name(bind.used);
    ln.topo = bind.topo;
    ln.cpusets = bind.sets;
    ln.report[0] = -1;
    ln.report[1] = -1;
    ln.devnull = -1;
    gcrun_launch_ranks(&job, &ln);
    if (job.nalive == 0) {
        job.linger_until = gcrun_now_ms() + LINGER_MS;
    }

    main_loop(&job);

    status = gcrun_final_status(&job);
    job_free(&job);
    gcrun_binding_free(&bind);
    free(path);
    gcrun_close_fd(&gcrun_sig_pipe[0]);
    gcrun_close_fd(&gcrun_sig_pipe[1]);
    return status;
}
