/*
 * tools/gcrun_pmi.c: the PMI-1 server: the ranks' requests,
 * the key-value space, barriers, aborts and peer-death notices.
 */
#include "tools/gcrun.h"
#include "boot/boot_pmi1_line.h"

/* ------------------------------------------------------------------------ */
/* PMI protocol                                                             */
/* ------------------------------------------------------------------------ */

struct pmi_req {
    int ntok;
    char *keys[PMI_MAX_TOKENS];
    char *vals[PMI_MAX_TOKENS];
};

void gcrun_pmi_close(struct rank *rk)
{
    gcrun_close_fd(&rk->pmi_fd);
    gcrun_buf_free(&rk->pmi_in);
    gcrun_buf_free(&rk->pmi_out);
}

/* Writes as much queued reply data as the socket takes without blocking. */
void gcrun_pmi_flush(struct rank *rk)
{
    if (rk->pmi_fd >= 0 &&
        gcrun_buf_drain(&rk->pmi_out, rk->pmi_fd, true) != 0) {
        /* The rank closed its end or died: nobody to answer. */
        gcrun_pmi_close(rk);
    }
}

static void pmi_send(struct rank *rk, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

void gcrun_pmi_send_line(struct rank *rk, const char *line)
{
    pmi_send(rk, "%s", line);
}

static void pmi_send(struct rank *rk, const char *fmt, ...)
{
    char line[PMI_LINE_MAX + 512];
    va_list ap;
    int len;

    if (rk->pmi_fd < 0) {
        return;
    }
    va_start(ap, fmt);
    len = vsnprintf(line, sizeof(line) - 1, fmt, ap);
    va_end(ap);
    if (len < 0) {
        return;
    }
    if (len > (int)sizeof(line) - 2) {
        len = (int)sizeof(line) - 2;
    }
    line[len++] = '\n';
    gcrun_buf_append(&rk->pmi_out, line, (size_t)len);
    gcrun_pmi_flush(rk);
}

/* Splits "cmd=x a=b c" in place into key/value pairs
 * (boot/boot_pmi1_line.h). */
static void pmi_parse(char *line, struct pmi_req *req)
{
    req->ntok = gcm_boot_pmi1_split(line, req->keys, req->vals,
                                    PMI_MAX_TOKENS);
}

static const char *req_get(const struct pmi_req *req, const char *key)
{
    int i;

    for (i = 0; i < req->ntok; i++) {
        if (strcmp(req->keys[i], key) == 0) {
            return req->vals[i];
        }
    }
    return NULL;
}

void gcrun_notify_peer_died(struct job *job, const struct rank *dead)
{
    int r;

    for (r = 0; r < job->opt.nprocs; r++) {
        struct rank *rk = &job->ranks[r];

        if (rk != dead && rk->alive && rk->pmi_fd >= 0) {
            /* reason=abort lets the survivors end without reporting the
             * failures the abort causes them as errors of their own. */
            pmi_send(rk, "cmd=peer_died rank=%d%s", dead->id,
                     dead->aborted ? " reason=abort" : "");
        }
    }
}

/* Starts ending the job after a failure: the survivors get the grace period
 * to notice (through peer_died) and exit by themselves, then SIGTERM. */
void gcrun_begin_ending(struct job *job)
{
    if (job->state != JOB_RUNNING) {
        return;
    }
    job->state = JOB_ENDING;
    job->term_at = gcrun_now_ms() + job->grace_ms;
}

/* Returns false when the request names a KVS other than ours. A missing
 * kvsname is accepted: the job has only one KVS. */
static bool pmi_kvsname_ok(const struct job *job, const struct pmi_req *req)
{
    const char *name = req_get(req, "kvsname");

    return name == NULL || strcmp(name, job->kvsname) == 0;
}

static void pmi_do_init(struct job *job, struct rank *rk,
                        const struct pmi_req *req)
{
    const char *ver = req_get(req, "pmi_version");

    (void)job;
    rk->pmi_init = true;
    if (ver != NULL && strcmp(ver, "1") != 0) {
        pmi_send(rk, "cmd=response_to_init pmi_version=1 pmi_subversion=1 "
                     "rc=-1 msg=unsupported_version");
        return;
    }
    pmi_send(rk, "cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=0");
}

static void pmi_do_maxes(struct job *job, struct rank *rk,
                         const struct pmi_req *req)
{
    (void)job;
    (void)req;
    pmi_send(rk, "cmd=maxes kvsname_max=%d keylen_max=%d vallen_max=%d",
             PMI_KVSNAME_MAX, PMI_KEY_MAX, PMI_VAL_MAX);
}

static void pmi_do_appnum(struct job *job, struct rank *rk,
                          const struct pmi_req *req)
{
    (void)job;
    (void)req;
    pmi_send(rk, "cmd=appnum appnum=%d", rk->app);
}

static void pmi_do_kvsname(struct job *job, struct rank *rk,
                           const struct pmi_req *req)
{
    (void)req;
    pmi_send(rk, "cmd=my_kvsname kvsname=%s", job->kvsname);
}

static void pmi_do_universe(struct job *job, struct rank *rk,
                            const struct pmi_req *req)
{
    (void)req;
    pmi_send(rk, "cmd=universe_size size=%d", gcrun_universe(job));
}

static void pmi_do_put(struct job *job, struct rank *rk,
                       const struct pmi_req *req)
{
    const char *key = req_get(req, "key");
    const char *value = req_get(req, "value");
    const char *err = NULL;

    if (!pmi_kvsname_ok(job, req)) {
        err = "unknown_kvsname";
    } else if (key == NULL || key[0] == '\0') {
        err = "missing_key";
    } else if (value == NULL) {
        err = "missing_value";
    } else if (strlen(key) > PMI_KEY_MAX) {
        err = "key_too_long";
    } else if (strlen(value) > PMI_VAL_MAX) {
        err = "value_too_long";
    } else if (gcrun_kvs_put(&job->kvs, key, value) != 0) {
        err = "gcrun_out_of_memory";
    }
    if (err != NULL) {
        pmi_send(rk, "cmd=put_result rc=-1 msg=%s", err);
    } else {
        pmi_send(rk, "cmd=put_result rc=0 msg=success");
    }
}

static void pmi_do_get(struct job *job, struct rank *rk,
                       const struct pmi_req *req)
{
    const char *key = req_get(req, "key");
    const char *value;

    if (!pmi_kvsname_ok(job, req)) {
        pmi_send(rk, "cmd=get_result rc=-1 msg=unknown_kvsname "
                     "value=unknown");
        return;
    }
    if (key == NULL || key[0] == '\0') {
        pmi_send(rk, "cmd=get_result rc=-1 msg=missing_key value=unknown");
        return;
    }
    value = gcrun_kvs_get(&job->kvs, key);
    if (value == NULL) {
        pmi_send(rk, "cmd=get_result rc=-1 msg=key_not_found "
                     "value=unknown");
        return;
    }
    pmi_send(rk, "cmd=get_result rc=0 msg=success value=%s", value);
}

static void pmi_do_barrier(struct job *job, struct rank *rk,
                           const struct pmi_req *req)
{
    int r;

    (void)req;
    if (!rk->in_barrier) {
        rk->in_barrier = true;
        job->nbarrier++;
    }
    if (job->nbarrier < job->opt.nprocs) {
        return;
    }
    job->nbarrier = 0;
    for (r = 0; r < job->opt.nprocs; r++) {
        job->ranks[r].in_barrier = false;
        pmi_send(&job->ranks[r], "cmd=barrier_out");
    }
}

static void pmi_do_finalize(struct job *job, struct rank *rk,
                            const struct pmi_req *req)
{
    (void)job;
    (void)req;
    rk->finalized = true;
    pmi_send(rk, "cmd=finalize_ack");
}

static void pmi_do_abort(struct job *job, struct rank *rk,
                         const struct pmi_req *req)
{
    const char *code_s = req_get(req, "exitcode");
    const char *cause_s = req_get(req, "cause");
    long code = 1;
    long cause = -1;
    int status;

    if (rk->aborted) {
        return;
    }
    if (code_s != NULL && !gcrun_parse_long(code_s, &code)) {
        code = 1;
    }
    /* cause=R: the rank ends the job because rank R failed (the library
     * says so when it knows of a failed peer); only another rank of the
     * job can be a cause. */
    if (cause_s != NULL &&
        (!gcrun_parse_long(cause_s, &cause) || cause < 0 ||
         cause >= job->opt.nprocs || cause == rk->id)) {
        cause = -1;
    }
    rk->aborted = true;
    if (job->aborting) {
        return;   /* a survivor ending after another rank's abort */
    }
    job->aborting = true;
    /* Only the low 8 bits survive exit(); a code that would read as
     * success still has to fail the job. */
    status = (int)(code & 0xff);
    if (status == 0) {
        status = 1;
    }
    if (cause >= 0) {
        job->abort_cause = (int)cause;
        gcrun_msg("rank %ld failed: rank %d ended the job (exit code %ld)",
                  cause, rk->id, code);
        gcrun_record_consequence(job, status);
    } else {
        gcrun_msg("rank %d called abort with exit code %ld", rk->id, code);
        gcrun_record_status(job, status);
    }
    gcrun_notify_peer_died(job, rk);
    gcrun_begin_ending(job);
}

typedef void (*pmi_handler)(struct job *, struct rank *,
                            const struct pmi_req *);

static const struct {
    const char *name;
    const char *reply; /* name of the answer, for error replies */
    pmi_handler fn;
} pmi_cmds[] = {
    { "init", "response_to_init", pmi_do_init },
    { "get_maxes", "maxes", pmi_do_maxes },
    { "get_appnum", "appnum", pmi_do_appnum },
    { "get_my_kvsname", "my_kvsname", pmi_do_kvsname },
    { "get_universe_size", "universe_size", pmi_do_universe },
    { "put", "put_result", pmi_do_put },
    { "get", "get_result", pmi_do_get },
    { "barrier_in", "barrier_out", pmi_do_barrier },
    { "finalize", "finalize_ack", pmi_do_finalize },
    { "abort", "abort_result", pmi_do_abort },
};

#define PMI_NCMDS (sizeof(pmi_cmds) / sizeof(pmi_cmds[0]))

static void pmi_reply_error(struct rank *rk, const char *cmd,
                            const char *msg)
{
    size_t i;

    for (i = 0; i < PMI_NCMDS; i++) {
        if (strcmp(pmi_cmds[i].name, cmd) == 0) {
            pmi_send(rk, "cmd=%s rc=-1 msg=%s", pmi_cmds[i].reply, msg);
            return;
        }
    }
    pmi_send(rk, "cmd=%s_result rc=-1 msg=%s", cmd, msg);
}

static void pmi_handle_line(struct job *job, struct rank *rk, char *line)
{
    struct pmi_req req;
    const char *cmd;
    size_t len = strlen(line);
    size_t i;

    if (len > 0 && line[len - 1] == '\r') {
        line[--len] = '\0';
    }

    /* Multi-line requests: spawn (gcrun_spawn.c) is the one there is;
     * another is swallowed up to its "endcmd" and answered once, so the
     * client is not left waiting. */
    if (rk->in_mcmd) {
        bool spawn = (strcmp(rk->mcmd, "spawn") == 0);

        if (strcmp(line, "endcmd") == 0) {
            rk->in_mcmd = false;
            if (spawn) {
                gcrun_spawn_end(job, rk);
            } else {
                pmi_reply_error(rk, rk->mcmd, "unknown_command");
            }
        } else if (spawn) {
            gcrun_spawn_line(job, rk, line);
        }
        return;
    }
    if (strncmp(line, "mcmd=", 5) == 0) {
        gcm_boot_pmi1_peek_cmd(line, len, rk->mcmd, sizeof(rk->mcmd));
        rk->in_mcmd = true;
        if (strcmp(rk->mcmd, "spawn") == 0) {
            gcrun_spawn_begin(job, rk);
        }
        return;
    }

    pmi_parse(line, &req);
    if (req.ntok == 0) {
        return; /* blank line */
    }
    cmd = req_get(&req, "cmd");
    if (cmd == NULL || cmd[0] == '\0') {
        pmi_send(rk, "cmd=unknown_result rc=-1 msg=missing_cmd");
        return;
    }
    for (i = 0; i < PMI_NCMDS; i++) {
        if (strcmp(pmi_cmds[i].name, cmd) == 0) {
            pmi_cmds[i].fn(job, rk, &req);
            return;
        }
    }
    pmi_send(rk, "cmd=%s_result rc=-1 msg=unknown_command", cmd);
}

/* Handles every complete line in rk->pmi_in. Each line is copied out before
 * it is handled because a handler may close this very connection. */
static void pmi_process_input(struct job *job, struct rank *rk)
{
    char line[PMI_LINE_MAX + 1];

    while (rk->pmi_fd >= 0 && gcrun_buf_len(&rk->pmi_in) > 0) {
        char *head = gcrun_buf_head(&rk->pmi_in);
        size_t len = gcrun_buf_len(&rk->pmi_in);
        char *nl = memchr(head, '\n', len);
        size_t linelen;

        if (rk->discarding) {
            if (nl == NULL) {
                gcrun_buf_consume(&rk->pmi_in, len);
                return;
            }
            gcrun_buf_consume(&rk->pmi_in, (size_t)(nl - head) + 1);
            rk->discarding = false;
            pmi_reply_error(rk, rk->discard_cmd, "line_too_long");
            continue;
        }
        if (nl == NULL) {
            if (len > PMI_LINE_MAX) {
                gcm_boot_pmi1_peek_cmd(head, len, rk->discard_cmd,
                                       sizeof(rk->discard_cmd));
                rk->discarding = true;
                gcrun_buf_consume(&rk->pmi_in, len);
            }
            return;
        }
        linelen = (size_t)(nl - head);
        if (linelen > PMI_LINE_MAX) {
            gcm_boot_pmi1_peek_cmd(head, linelen, rk->discard_cmd,
                                   sizeof(rk->discard_cmd));
            gcrun_buf_consume(&rk->pmi_in, linelen + 1);
            pmi_reply_error(rk, rk->discard_cmd, "line_too_long");
            continue;
        }
        memcpy(line, head, linelen);
        line[linelen] = '\0';
        gcrun_buf_consume(&rk->pmi_in, linelen + 1);
        pmi_handle_line(job, rk, line);
    }
}

/* Reads requests from a rank. With drain, keeps reading until the socket is
 * empty (used when the rank has exited, to catch its last words). */
void gcrun_pmi_read(struct job *job, struct rank *rk, bool drain)
{
    size_t total = 0;

    while (rk->pmi_fd >= 0) {
        ssize_t n = read(rk->pmi_fd, job->readbuf, READ_CHUNK);

        if (n > 0) {
            gcrun_buf_append(&rk->pmi_in, job->readbuf, (size_t)n);
            pmi_process_input(job, rk);
            total += (size_t)n;
            if (!drain || total > DRAIN_MAX) {
                return;
            }
        } else if (n == 0) {
            /* EOF: the rank is done with PMI. That is not an error by
             * itself; its exit status tells whether it failed. */
            gcrun_pmi_flush(rk);
            gcrun_pmi_close(rk);
        } else if (errno == EINTR) {
            continue;
        } else if (errno == EAGAIN || errno == EWOULDBLOCK) {
            return;
        } else {
            gcrun_pmi_close(rk);
        }
    }
}
