/*
 * tools/gcrun_spawn.c: the PMI-1 "spawn" command (MPI_Comm_spawn and
 * MPI_Comm_spawn_multiple through the simple protocol, as Hydra has it),
 * and the other side of it: a gcrun started to run a spawned job.
 *
 * A rank sends one block per command of the spawn,
 *
 *   mcmd=spawn
 *   nprocs=N  execname=PROG  totspawns=K  spawnssofar=I
 *   arg1=... argcnt=M  preput_num=P preput_key_0=... preput_val_0=...
 *   info_num=Q info_key_0=... info_val_0=...
 *   endcmd
 *
 * (one key=value a line; a value runs to the end of its line), and gets
 * one answer after the last: "cmd=spawn_result rc=0 errcodes=0,0,..." or,
 * when some command cannot start (no such program, not executable, a
 * working directory that is not there, a host that is not this one, a bad
 * env info), "rc=-1" and an error code per process (an errno value, 0 for
 * the processes that could have started), and nothing is started at all.
 * The info keys: "host" (this host's name, "localhost" or, with --hosts
 * or --nodes, one of the emulated hosts), "wdir", "path" (directories
 * searched for the program before PATH) and "env" (NAME=value lines added
 * to the processes' environment; the key may come several times).
 *
 * The spawned job is run by another gcrun, started here with the plan of
 * the job on a pipe (--spawn-plan FD): its own PMI-1 server and key-value
 * space (with the preput pairs in it; MPI finds its parent's port there as
 * PARENT_ROOT_PORT_NAME), its ranks' output forwarded like ours and tagged
 * "[W.r]" (W: the number of the job, 1 for the first spawned one), appnum
 * the index of the command, PMI_SPAWNED=1. This gcrun waits for it before
 * it ends, counts its failure in the exit status, and ends it when this
 * job ends on a failure.
 *
 * The plan, one item a line, every string in hex:
 *   world W | universe U | preput KEY VALUE | app NPROCS PATH
 *   | arg A | wdir D | env NAME=VALUE        (arg, wdir, env: of the last app)
 */
#include "tools/gcrun.h"

/* The most processes one spawn may start. */
#define SPAWN_MAX_PROCS 4096
#define SPAWN_MAX_CMDS  64
#define SPAWN_PLAN_MAX  (16 * 1024 * 1024)

struct spawn_seg {
    long nprocs;
    char *execname;
    char **args;      /* argN, by N */
    int nargs;
    char **info_keys;
    char **info_vals;
    int ninfo;
};

/* What one rank is sending: its segments so far. */
struct spawn_req {
    int rank;
    int total;        /* totspawns */
    int nsegs;
    struct spawn_seg segs[SPAWN_MAX_CMDS];
    char **preput_keys;
    char **preput_vals;
    int npreput;
    bool bad;         /* a malformed block: answered rc=-1 at the end */
    struct spawn_seg cur;
    char **cur_pkeys; /* preputs of the block being read */
    char **cur_pvals;
    int cur_npreput;
    int cur_total;
    int cur_sofar;
};

struct spawned {
    pid_t pid;
    bool alive;
    int world;
};

struct gcrun_spawn {
    struct spawn_req **reqs;   /* by rank, NULL when none in progress */
    int nreqs;
    struct spawned *jobs;
    int njobs;
    int nalive;
    int next_world;
};

static struct gcrun_spawn *spawn_state(struct job *job)
{
    if (job->spawn == NULL) {
        job->spawn = gcrun_xcalloc(1, sizeof(*job->spawn));
        job->spawn->reqs = gcrun_xcalloc((size_t)job->opt.nprocs,
                                         sizeof(*job->spawn->reqs));
        job->spawn->nreqs = job->opt.nprocs;
        job->spawn->next_world = job->opt.world + 1;
    }
    return job->spawn;
}

static char *xstrdup(const char *s)
{
    char *d = strdup(s);

    if (d == NULL) {
        gcrun_out_of_memory();
    }
    return d;
}

static void strv_push(char ***v, int *n, const char *s)
{
    *v = gcrun_xrealloc(*v, ((size_t)*n + 2) * sizeof(char *));
    (*v)[(*n)++] = xstrdup(s);
    (*v)[*n] = NULL;
}

static void strv_free(char **v, int n)
{
    int i;

    for (i = 0; i < n; i++) {
        free(v[i]);
    }
    free(v);
}

static void seg_free(struct spawn_seg *s)
{
    free(s->execname);
    strv_free(s->args, s->nargs);
    strv_free(s->info_keys, s->ninfo);
    strv_free(s->info_vals, s->ninfo);
    memset(s, 0, sizeof(*s));
}

static void req_free(struct spawn_req *r)
{
    int i;

    for (i = 0; i < r->nsegs; i++) {
        seg_free(&r->segs[i]);
    }
    seg_free(&r->cur);
    strv_free(r->preput_keys, r->npreput);
    strv_free(r->preput_vals, r->npreput);
    strv_free(r->cur_pkeys, r->cur_npreput);
    strv_free(r->cur_pvals, r->cur_npreput);
    free(r);
}

/* ---- the requesting side ----------------------------------------------- */

void gcrun_spawn_begin(struct job *job, struct rank *rk)
{
    struct gcrun_spawn *sp = spawn_state(job);
    struct spawn_req *r = sp->reqs[rk->id];

    if (r == NULL) {
        r = gcrun_xcalloc(1, sizeof(*r));
        r->rank = rk->id;
        sp->reqs[rk->id] = r;
    }
    seg_free(&r->cur);
    strv_free(r->cur_pkeys, r->cur_npreput);
    strv_free(r->cur_pvals, r->cur_npreput);
    r->cur_pkeys = NULL;
    r->cur_pvals = NULL;
    r->cur_npreput = 0;
    r->cur_total = 0;
    r->cur_sofar = 0;
}

/* A "key=value" line of a block: the value runs to the end of the line. */
void gcrun_spawn_line(struct job *job, struct rank *rk, const char *line)
{
    struct spawn_req *r = spawn_state(job)->reqs[rk->id];
    struct spawn_seg *s;
    const char *eq = strchr(line, '=');
    char key[64];
    const char *val;
    long n;
    size_t klen;

    if ((r == NULL) || (eq == NULL)) {
        return;
    }
    s = &r->cur;
    klen = (size_t)(eq - line);
    if (klen >= sizeof(key)) {
        r->bad = true;
        return;
    }
    memcpy(key, line, klen);
    key[klen] = '\0';
    val = eq + 1;
    if (strcmp(key, "nprocs") == 0) {
        if (!gcrun_parse_long(val, &n) || (n < 1) ||
            (n > SPAWN_MAX_PROCS)) {
            r->bad = true;
        }
        s->nprocs = n;
    } else if (strcmp(key, "execname") == 0) {
        free(s->execname);
        s->execname = xstrdup(val);
    } else if (strcmp(key, "totspawns") == 0) {
        if (!gcrun_parse_long(val, &n) || (n < 1) || (n > SPAWN_MAX_CMDS)) {
            r->bad = true;
            n = 1;
        }
        r->cur_total = (int)n;
    } else if (strcmp(key, "spawnssofar") == 0) {
        if (!gcrun_parse_long(val, &n) || (n < 1) || (n > SPAWN_MAX_CMDS)) {
            r->bad = true;
            n = 1;
        }
        r->cur_sofar = (int)n;
    } else if ((strncmp(key, "arg", 3) == 0) &&
               gcrun_parse_long(key + 3, &n) && (n >= 1) && (n <= 4096)) {
        /* argN: kept in the order N says. */
        while (s->nargs < n) {
            strv_push(&s->args, &s->nargs, "");
        }
        free(s->args[n - 1]);
        s->args[n - 1] = xstrdup(val);
    } else if (strncmp(key, "info_key_", 9) == 0) {
        strv_push(&s->info_keys, &s->ninfo, val);
        s->ninfo--;
        strv_push(&s->info_vals, &s->ninfo, "");
    } else if ((strncmp(key, "info_val_", 9) == 0) && (s->ninfo > 0)) {
        free(s->info_vals[s->ninfo - 1]);
        s->info_vals[s->ninfo - 1] = xstrdup(val);
    } else if (strncmp(key, "preput_key_", 11) == 0) {
        strv_push(&r->cur_pkeys, &r->cur_npreput, val);
        r->cur_npreput--;
        strv_push(&r->cur_pvals, &r->cur_npreput, "");
    } else if ((strncmp(key, "preput_val_", 11) == 0) &&
               (r->cur_npreput > 0)) {
        free(r->cur_pvals[r->cur_npreput - 1]);
        r->cur_pvals[r->cur_npreput - 1] = xstrdup(val);
    }
    /* argcnt, preput_num, info_num: the entries themselves count. */
}

static const char *seg_info(const struct spawn_seg *s, const char *key)
{
    int i;

    for (i = 0; i < s->ninfo; i++) {
        if (strcmp(s->info_keys[i], key) == 0) {
            return s->info_vals[i];
        }
    }
    return NULL;
}

/* Is the program executable at path? 0 or an errno value. */
static int check_exec(const char *path)
{
    struct stat sb;

    if (stat(path, &sb) != 0) {
        return errno;
    }
    if (S_ISDIR(sb.st_mode)) {
        return EISDIR;
    }
    return (access(path, X_OK) == 0) ? 0 : errno;
}

/* The program of segment s, found as execvp would (the info's "path"
 * directories first; a relative name with a '/' from "wdir"). NULL and
 * *err when it cannot run. */
static char *seg_program(const struct spawn_seg *s, int *err)
{
    const char *dirs = seg_info(s, "path");
    const char *wdir = seg_info(s, "wdir");
    char *found = NULL;

    if ((s->execname == NULL) || (s->execname[0] == '\0')) {
        *err = ENOENT;
        return NULL;
    }
    if (strchr(s->execname, '/') != NULL) {
        size_t len = strlen(s->execname) + ((wdir != NULL) ?
                                            strlen(wdir) : 0) + 2;
        char *p = gcrun_xmalloc(len);

        if ((s->execname[0] != '/') && (wdir != NULL)) {
            snprintf(p, len, "%s/%s", wdir, s->execname);
        } else {
            snprintf(p, len, "%s", s->execname);
        }
        *err = check_exec(p);
        if (*err != 0) {
            free(p);
            return NULL;
        }
        return p;
    }
    while ((dirs != NULL) && (*dirs != '\0')) {
        size_t dlen = strcspn(dirs, ":");
        size_t len = dlen + strlen(s->execname) + 2;
        char *p = gcrun_xmalloc(len);

        snprintf(p, len, "%.*s/%s", (int)dlen, dirs, s->execname);
        if (check_exec(p) == 0) {
            return p;
        }
        free(p);
        dirs += dlen;
        dirs += (*dirs == ':');
    }
    found = gcrun_resolve_program(s->execname, err);
    return found;
}

/* 0, or why segment s cannot start (an errno value). */
static int seg_check(const struct job *job, const struct spawn_seg *s,
                     char **path_p)
{
    const char *wdir = seg_info(s, "wdir");
    const char *host = seg_info(s, "host");
    char me[HOST_NAME_LEN_MAX + 1];
    struct stat sb;
    int err = 0, i;

    if ((wdir != NULL) && ((stat(wdir, &sb) != 0) || !S_ISDIR(sb.st_mode))) {
        return ENOTDIR;
    }
    if (host != NULL) {
        bool ok = (strcmp(host, "localhost") == 0);

        if (!ok && (gethostname(me, sizeof(me) - 1) == 0)) {
            me[sizeof(me) - 1] = '\0';
            ok = (strcmp(host, me) == 0);
        }
        for (i = 0; !ok && (i < job->opt.nhosts); i++) {
            ok = (strcmp(host, job->opt.hosts[i]) == 0);
        }
        if (!ok) {
            return EHOSTUNREACH;
        }
    }
    for (i = 0; i < s->ninfo; i++) {
        const char *env = s->info_vals[i];

        if (strcmp(s->info_keys[i], "env") != 0) {
            continue;
        }
        while (*env != '\0') {
            size_t len = strcspn(env, "\n");
            const char *eq = memchr(env, '=', len);

            if ((len > 0) && ((eq == NULL) || (eq == env))) {
                return EINVAL;
            }
            env += len;
            env += (*env == '\n');
        }
    }
    *path_p = seg_program(s, &err);
    return (*path_p == NULL) ? ((err != 0) ? err : ENOENT) : 0;
}

/* Plan lines: strings as hex. */
static void plan_hex(struct buf *b, const char *s)
{
    static const char hex[] = "0123456789abcdef";
    char two[2];

    if (*s == '\0') {
        gcrun_buf_append(b, "-", 1);
        return;
    }
    for (; *s != '\0'; s++) {
        two[0] = hex[(unsigned char)*s >> 4];
        two[1] = hex[(unsigned char)*s & 0xf];
        gcrun_buf_append(b, two, 2);
    }
}

static void plan_item(struct buf *b, const char *word, const char *a,
                      const char *c)
{
    gcrun_buf_append(b, word, strlen(word));
    if (a != NULL) {
        gcrun_buf_append(b, " ", 1);
        plan_hex(b, a);
    }
    if (c != NULL) {
        gcrun_buf_append(b, " ", 1);
        plan_hex(b, c);
    }
    gcrun_buf_append(b, "\n", 1);
}

/* Starts the gcrun of a spawned job with plan on a pipe; its pid or -1. */
static pid_t start_launcher(struct job *job, const struct buf *plan,
                            const char *hosts)
{
    char self[PATH_MAX];
    char fdarg[16];
    const char *argv[12];
    int argc = 0;
    int p[2];
    ssize_t n;
    pid_t pid;
    size_t off = 0;

    n = readlink("/proc/self/exe", self, sizeof(self) - 1);
    if (n <= 0) {
        gcrun_msg("spawn: cannot find gcrun's own program: %s",
                  strerror(errno));
        return -1;
    }
    self[n] = '\0';
    if (pipe2(p, O_CLOEXEC) != 0) {
        gcrun_msg("spawn: pipe: %s", strerror(errno));
        return -1;
    }
    snprintf(fdarg, sizeof(fdarg), "%d", p[0]);
    argv[argc++] = "gcrun";
    argv[argc++] = "--spawn-plan";
    argv[argc++] = fdarg;
    /* The parents may be bound to the first cores already. */
    argv[argc++] = "--bind-to";
    argv[argc++] = "none";
    if (job->opt.tag_output) {
        argv[argc++] = "--tag-output";
    }
    if (hosts != NULL) {
        argv[argc++] = "--hosts";
        argv[argc++] = hosts;
    }
    argv[argc] = NULL;
    pid = fork();
    if (pid < 0) {
        gcrun_msg("spawn: fork: %s", strerror(errno));
        close(p[0]);
        close(p[1]);
        return -1;
    }
    if (pid == 0) {
        sigset_t none;

#ifdef __linux__
        (void)prctl(PR_SET_PDEATHSIG, SIGTERM);
#endif
        /* The plan's descriptor stays open across exec; stdin is
         * nobody's. */
        if ((fcntl(p[0], F_SETFD, 0) != 0) ||
            (dup2(open("/dev/null", O_RDONLY), STDIN_FILENO) < 0)) {
            _exit(127);
        }
        signal(SIGCHLD, SIG_DFL);
        signal(SIGINT, SIG_DFL);
        signal(SIGTERM, SIG_DFL);
        signal(SIGHUP, SIG_DFL);
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
        execv(self, (char *const *)argv);
        _exit(127);
    }
    close(p[0]);
    while (off < gcrun_buf_len(plan)) {
        n = write(p[1], plan->data + plan->start + off,
                  gcrun_buf_len(plan) - off);
        if (n < 0) {
            if (errno == EINTR) {
                continue;
            }
            break;
        }
        off += (size_t)n;
    }
    close(p[1]);
    return pid;
}

static void spawn_reply(struct rank *rk, int rc, const int *errs, int n,
                        const char *msg)
{
    struct buf b;
    char num[32];
    int i;

    memset(&b, 0, sizeof(b));
    snprintf(num, sizeof(num), "cmd=spawn_result rc=%d", rc);
    gcrun_buf_append(&b, num, strlen(num));
    if (n > 0) {
        gcrun_buf_append(&b, " errcodes=", 10);
        for (i = 0; i < n; i++) {
            snprintf(num, sizeof(num), "%s%d", (i > 0) ? "," : "", errs[i]);
            gcrun_buf_append(&b, num, strlen(num));
        }
    }
    if (msg != NULL) {
        gcrun_buf_append(&b, " msg=", 5);
        gcrun_buf_append(&b, msg, strlen(msg));
    }
    gcrun_buf_append(&b, "", 1);
    gcrun_pmi_send_line(rk, gcrun_buf_head(&b));
    gcrun_buf_free(&b);
}

/* All blocks are in: checks every command, starts them all or none. */
static void spawn_run(struct job *job, struct rank *rk, struct spawn_req *r)
{
    struct gcrun_spawn *sp = spawn_state(job);
    char *paths[SPAWN_MAX_CMDS];
    struct buf plan, hosts;
    int *errs;
    long total = 0;
    int i, k, p = 0, failed = 0, world;
    char num[64];
    pid_t pid;

    memset(paths, 0, sizeof(paths));
    for (i = 0; i < r->nsegs; i++) {
        total += r->segs[i].nprocs;
    }
    if (r->bad || (r->nsegs == 0) || (total < 1) ||
        (total > SPAWN_MAX_PROCS)) {
        spawn_reply(rk, -1, NULL, 0, "malformed_spawn");
        return;
    }
    errs = gcrun_xcalloc((size_t)total, sizeof(int));
    for (i = 0; i < r->nsegs; i++) {
        int err = seg_check(job, &r->segs[i], &paths[i]);

        for (k = 0; k < r->segs[i].nprocs; k++) {
            errs[p++] = err;
        }
        if (err != 0) {
            gcrun_msg("spawn: cannot start '%s': %s",
                      (r->segs[i].execname != NULL) ? r->segs[i].execname :
                      "", strerror(err));
            failed = 1;
        }
    }
    if (failed) {
        /* Nothing starts when anything cannot. The message names the
         * first that cannot (a PMI value has no blanks). */
        char msg[256];
        size_t m;

        for (i = 0; (i < r->nsegs) && (paths[i] != NULL); i++) {
        }
        for (p = 0, k = 0; k < i; k++) {
            p += (int)r->segs[k].nprocs;
        }
        snprintf(msg, sizeof(msg), "cannot_start_%.150s:%s",
                 (r->segs[i].execname != NULL) ? r->segs[i].execname : "",
                 strerror(errs[p]));
        for (m = 0; msg[m] != '\0'; m++) {
            if (isspace((unsigned char)msg[m])) {
                msg[m] = '_';
            }
        }
        spawn_reply(rk, -1, errs, (int)total, msg);
        goto out;
    }
    memset(&plan, 0, sizeof(plan));
    memset(&hosts, 0, sizeof(hosts));
    world = sp->next_world++;
    snprintf(num, sizeof(num), "world %d\nuniverse %d\n", world,
             gcrun_universe(job));
    gcrun_buf_append(&plan, num, strlen(num));
    for (i = 0; i < r->npreput; i++) {
        plan_item(&plan, "preput", r->preput_keys[i], r->preput_vals[i]);
    }
    for (i = 0; i < r->nsegs; i++) {
        const struct spawn_seg *s = &r->segs[i];
        const char *wdir = seg_info(s, "wdir");
        const char *host = seg_info(s, "host");
        int e;

        snprintf(num, sizeof(num), "app %ld ", s->nprocs);
        gcrun_buf_append(&plan, num, strlen(num));
        plan_hex(&plan, paths[i]);
        gcrun_buf_append(&plan, "\n", 1);
        plan_item(&plan, "arg", s->execname, NULL);
        for (k = 0; k < s->nargs; k++) {
            plan_item(&plan, "arg", s->args[k], NULL);
        }
        if (wdir != NULL) {
            plan_item(&plan, "wdir", wdir, NULL);
        }
        /* Each "env" entry: NAME=value lines. */
        for (e = 0; e < s->ninfo; e++) {
            const char *env = s->info_vals[e];

            while ((strcmp(s->info_keys[e], "env") == 0) &&
                   (*env != '\0')) {
                size_t len = strcspn(env, "\n");
                char *one = gcrun_xmalloc(len + 1);

                memcpy(one, env, len);
                one[len] = '\0';
                if (len > 0) {
                    plan_item(&plan, "env", one, NULL);
                }
                free(one);
                env += len;
                env += (*env == '\n');
            }
        }
        /* Emulated hosts: one name per process, the command's own or,
         * without one, this gcrun's first. */
        for (k = 0; (job->opt.nhosts > 0) && (k < s->nprocs); k++) {
            const char *h = (host != NULL) ? host : job->opt.hosts[0];

            if (gcrun_buf_len(&hosts) > 0) {
                gcrun_buf_append(&hosts, ",", 1);
            }
            gcrun_buf_append(&hosts, h, strlen(h));
        }
    }
    gcrun_buf_append(&hosts, "", 1);
    pid = start_launcher(job, &plan, (job->opt.nhosts > 0) ?
                         gcrun_buf_head(&hosts) : NULL);
    gcrun_buf_free(&plan);
    gcrun_buf_free(&hosts);
    if (pid < 0) {
        for (p = 0; p < total; p++) {
            errs[p] = EAGAIN;
        }
        spawn_reply(rk, -1, errs, (int)total, "cannot_start_launcher");
        goto out;
    }
    sp->jobs = gcrun_xrealloc(sp->jobs, ((size_t)sp->njobs + 1) *
                              sizeof(*sp->jobs));
    sp->jobs[sp->njobs].pid   = pid;
    sp->jobs[sp->njobs].alive = true;
    sp->jobs[sp->njobs].world = world;
    sp->njobs++;
    sp->nalive++;
    spawn_reply(rk, 0, errs, (int)total, NULL);
out:
    for (i = 0; i < SPAWN_MAX_CMDS; i++) {
        free(paths[i]);
    }
    free(errs);
}

void gcrun_spawn_end(struct job *job, struct rank *rk)
{
    struct gcrun_spawn *sp = spawn_state(job);
    struct spawn_req *r = sp->reqs[rk->id];
    int i;

    if (r == NULL) {
        return;
    }
    if ((r->cur_total < 1) || (r->cur_sofar != r->nsegs + 1) ||
        ((r->total != 0) && (r->total != r->cur_total)) ||
        (r->cur.nprocs < 1) || (r->cur.execname == NULL)) {
        r->bad = true;
    }
    if (r->total == 0) {
        r->total = (r->cur_total > 0) ? r->cur_total : 1;
    }
    /* Hydra takes the preputs of the first block; each block repeats
     * them. */
    if (r->nsegs == 0) {
        for (i = 0; i < r->cur_npreput; i++) {
            strv_push(&r->preput_keys, &r->npreput, r->cur_pkeys[i]);
            r->npreput--;
            strv_push(&r->preput_vals, &r->npreput, r->cur_pvals[i]);
        }
    }
    if (r->nsegs < SPAWN_MAX_CMDS) {
        r->segs[r->nsegs++] = r->cur;
        memset(&r->cur, 0, sizeof(r->cur));
    } else {
        r->bad = true;
    }
    if (r->bad || (r->nsegs >= r->total)) {
        spawn_run(job, rk, r);
        req_free(r);
        sp->reqs[rk->id] = NULL;
    }
}

bool gcrun_spawn_reap(struct job *job, pid_t pid, int wstatus)
{
    struct gcrun_spawn *sp = job->spawn;
    int i;

    for (i = 0; (sp != NULL) && (i < sp->njobs); i++) {
        if (sp->jobs[i].alive && (sp->jobs[i].pid == pid)) {
            int status = WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) :
                         128 + WTERMSIG(wstatus);

            sp->jobs[i].alive = false;
            sp->nalive--;
            if (status != 0) {
                gcrun_msg("spawned job %d failed (status %d)",
                          sp->jobs[i].world, status);
                gcrun_record_status(job, status);
            }
            return true;
        }
    }
    return false;
}

int gcrun_spawn_alive(const struct job *job)
{
    return (job->spawn != NULL) ? job->spawn->nalive : 0;
}

void gcrun_spawn_signal(struct job *job, int sig)
{
    struct gcrun_spawn *sp = job->spawn;
    int i;

    for (i = 0; (sp != NULL) && (i < sp->njobs); i++) {
        if (sp->jobs[i].alive) {
            (void)kill(sp->jobs[i].pid, sig);
        }
    }
}

void gcrun_spawn_free(struct job *job)
{
    struct gcrun_spawn *sp = job->spawn;
    int i;

    if (sp == NULL) {
        return;
    }
    for (i = 0; i < sp->nreqs; i++) {
        if (sp->reqs[i] != NULL) {
            req_free(sp->reqs[i]);
        }
    }
    free(sp->reqs);
    free(sp->jobs);
    free(sp);
    job->spawn = NULL;
}

int gcrun_universe(const struct job *job)
{
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    int u = job->opt.universe;

    if (u <= 0) {
        u = (cores > 0) ? (int)cores : 1;
    }
    return (u < job->opt.nprocs) ? job->opt.nprocs : u;
}

/* ---- the spawned side: reading the plan ------------------------------------ */

static int unhex(const char *s, char **out)
{
    size_t n = strlen(s), i;
    char *d;

    if (strcmp(s, "-") == 0) {
        *out = xstrdup("");
        return 0;
    }
    if ((n % 2) != 0) {
        return -1;
    }
    d = gcrun_xmalloc(n / 2 + 1);
    for (i = 0; i < n / 2; i++) {
        int hi = isxdigit((unsigned char)s[2 * i]) ?
                 (isdigit((unsigned char)s[2 * i]) ? s[2 * i] - '0' :
                  (tolower((unsigned char)s[2 * i]) - 'a' + 10)) : -1;
        int lo = isxdigit((unsigned char)s[2 * i + 1]) ?
                 (isdigit((unsigned char)s[2 * i + 1]) ? s[2 * i + 1] - '0' :
                  (tolower((unsigned char)s[2 * i + 1]) - 'a' + 10)) : -1;

        if ((hi < 0) || (lo < 0) || ((hi | lo) == 0)) {
            free(d);
            return -1;
        }
        d[i] = (char)((hi << 4) | lo);
    }
    d[n / 2] = '\0';
    *out = d;
    return 0;
}

static void plan_bad(const char *why) __attribute__((noreturn));

static void plan_bad(const char *why)
{
    gcrun_msg("--spawn-plan: %s", why);
    exit(2);
}

void gcrun_plan_read(int fd, struct options *opt)
{
    struct buf in;
    char chunk[4096];
    char *line, *save = NULL;
    struct app *app = NULL;
    ssize_t n;
    long v;
    int i;

    memset(&in, 0, sizeof(in));
    for (;;) {
        n = read(fd, chunk, sizeof(chunk));
        if ((n < 0) && (errno == EINTR)) {
            continue;
        }
        if (n <= 0) {
            break;
        }
        gcrun_buf_append(&in, chunk, (size_t)n);
        if (gcrun_buf_len(&in) > SPAWN_PLAN_MAX) {
            plan_bad("the plan is too long");
        }
    }
    close(fd);
    gcrun_buf_append(&in, "", 1);
    opt->nprocs = 0;
    for (line = strtok_r(gcrun_buf_head(&in), "\n", &save); line != NULL;
         line = strtok_r(NULL, "\n", &save)) {
        char word[16], *sa = NULL, *sb = NULL;
        char *sp1 = strchr(line, ' ');
        char *sp2;

        if ((sp1 == NULL) || ((size_t)(sp1 - line) >= sizeof(word))) {
            plan_bad("malformed line");
        }
        memcpy(word, line, (size_t)(sp1 - line));
        word[sp1 - line] = '\0';
        sp1++;
        sp2 = strchr(sp1, ' ');
        if (sp2 != NULL) {
            *sp2++ = '\0';
        }
        if ((strcmp(word, "world") == 0) || (strcmp(word, "universe") == 0)) {
            if (!gcrun_parse_long(sp1, &v) || (v < 0) || (v > INT_MAX)) {
                plan_bad("malformed number");
            }
            if (word[0] == 'w') {
                opt->world = (int)v;
            } else {
                opt->universe = (int)v;
            }
        } else if (strcmp(word, "preput") == 0) {
            if ((sp2 == NULL) || (unhex(sp1, &sa) != 0) ||
                (unhex(sp2, &sb) != 0)) {
                plan_bad("malformed preput");
            }
            opt->preput_keys = gcrun_xrealloc(opt->preput_keys,
                                              ((size_t)opt->npreput + 1) *
                                              sizeof(char *));
            opt->preput_vals = gcrun_xrealloc(opt->preput_vals,
                                              ((size_t)opt->npreput + 1) *
                                              sizeof(char *));
            opt->preput_keys[opt->npreput] = sa;
            opt->preput_vals[opt->npreput] = sb;
            opt->npreput++;
        } else if (strcmp(word, "app") == 0) {
            if ((sp2 == NULL) || !gcrun_parse_long(sp1, &v) || (v < 1) ||
                (v > SPAWN_MAX_PROCS) || (unhex(sp2, &sa) != 0)) {
                plan_bad("malformed app");
            }
            opt->apps = gcrun_xrealloc(opt->apps, ((size_t)opt->napps + 1) *
                                       sizeof(*opt->apps));
            app = &opt->apps[opt->napps++];
            memset(app, 0, sizeof(*app));
            app->nprocs = (int)v;
            app->path   = sa;
            opt->nprocs += (int)v;
        } else if ((app != NULL) && ((strcmp(word, "arg") == 0) ||
                                     (strcmp(word, "env") == 0) ||
                                     (strcmp(word, "wdir") == 0))) {
            if (unhex(sp1, &sa) != 0) {
                plan_bad("malformed string");
            }
            if (word[0] == 'w') {
                free(app->wdir);
                app->wdir = sa;
            } else if (word[0] == 'a') {
                app->argv = gcrun_xrealloc(app->argv,
                                           ((size_t)app->argc + 2) *
                                           sizeof(char *));
                app->argv[app->argc++] = sa;
                app->argv[app->argc] = NULL;
            } else {
                app->env = gcrun_xrealloc(app->env,
                                          ((size_t)app->nenv + 2) *
                                          sizeof(char *));
                app->env[app->nenv++] = sa;
                app->env[app->nenv] = NULL;
            }
        } else {
            plan_bad("unknown item");
        }
    }
    gcrun_buf_free(&in);
    if ((opt->napps == 0) || (opt->nprocs < 1)) {
        plan_bad("no program");
    }
    for (i = 0; i < opt->napps; i++) {
        if (opt->apps[i].argc == 0) {
            plan_bad("a program without argv[0]");
        }
    }
    opt->argv = opt->apps[0].argv;
}

const struct app *gcrun_app_of(const struct job *job, int rank, int *index_p)
{
    int i, first = 0;

    for (i = 0; i < job->opt.napps; i++) {
        if (rank < first + job->opt.apps[i].nprocs) {
            if (index_p != NULL) {
                *index_p = i;
            }
            return &job->opt.apps[i];
        }
        first += job->opt.apps[i].nprocs;
    }
    if (index_p != NULL) {
        *index_p = 0;
    }
    return NULL;
}

void gcrun_plan_free(struct options *opt)
{
    int i;

    for (i = 0; i < opt->napps; i++) {
        strv_free(opt->apps[i].argv, opt->apps[i].argc);
        strv_free(opt->apps[i].env, opt->apps[i].nenv);
        free(opt->apps[i].path);
        free(opt->apps[i].wdir);
    }
    free(opt->apps);
    strv_free(opt->preput_keys, opt->npreput);
    strv_free(opt->preput_vals, opt->npreput);
    opt->apps = NULL;
    opt->napps = 0;
}
