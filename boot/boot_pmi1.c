/*
 * boot/boot_pmi1.c: client of the PMI-1 "simple" wire protocol, spoken by
 * gcrun and by MPICH's Hydra mpiexec: newline-terminated "cmd=... key=value"
 * lines over the socket whose number is in PMI_FD.
 *
 * Values are text without spaces and at most vallen_max long, so a binary
 * value travels as hex in chunks: "<key>" holds its length, "<key>.<i>" the
 * chunks. gcrun may also send "cmd=peer_died rank=R" at any time; every read
 * of a reply files such lines away before it looks for the reply.
 */
#include "config.h"

#include "boot/boot_impl.h"
#include "boot/boot_pmi1_line.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdarg.h>
#include <stdint.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#define GCM_PMI1_LINE_MAX 2048

static struct {
    int             fd;
    int             closed;     /* the launcher closed its end */
    pthread_mutex_t lock;       /* protects the socket and rbuf */
    char            kvsname[256];
    size_t          vallen_max;
    size_t          keylen_max;
    char            rbuf[4 * GCM_PMI1_LINE_MAX];
    size_t          rlen;
} gcm_pmi1 = { .fd = -1, .lock = PTHREAD_MUTEX_INITIALIZER };

static gcm_status_t gcm_pmi1_write(const char *line)
{
    size_t len = strlen(line);
    size_t done = 0;

    /* send, not write: a launcher that is gone makes the call fail,
     * where write would kill the process with SIGPIPE (PMI_FD is a
     * socket: gcm_boot_pmi1_init checks it). */
    while (done < len) {
        ssize_t n = send(gcm_pmi1.fd, line + done, len - done,
                         MSG_NOSIGNAL);
        if (n < 0) {
            if (errno == EINTR) {
                continue;
            }
            gcm_error("pmi1: write to launcher failed: %m");
            return GCM_ERR_BOOT;
        }
        done += (size_t)n;
    }
    return GCM_OK;
}

static void gcm_pmi1_handle_event(const char *line)
{
    char rank[32], reason[16];

    if (gcm_boot_pmi1_field(line, "reason", reason, sizeof(reason)) &&
        (strcmp(reason, "abort") == 0)) {
        gcm_boot_report_job_aborting();
    }
    if (gcm_boot_pmi1_field(line, "rank", rank, sizeof(rank))) {
        long r;
        if (gcm_boot_pmi1_number(rank, 0, (long)gcm_boot_size() - 1, &r)) {
            gcm_boot_report_peer_died((int)r);
        } else {
            gcm_warn("pmi1: launcher reported the death of rank '%s', "
                     "which is none of the job's: ignored", rank);
        }
    }
}

/*
 * Takes one complete line out of rbuf if there is one. Lines that are
 * launcher events are handled and skipped. Returns 1 with a reply line,
 * 0 when no whole line is in yet, -1 (the line dropped) for one longer
 * than linelen: no launcher of ours sends one, and what it would have
 * said is lost, so the caller fails rather than wait for it forever.
 */
static int gcm_pmi1_take_line(char *line, size_t linelen)
{
    for (;;) {
        char *nl = memchr(gcm_pmi1.rbuf, '\n', gcm_pmi1.rlen);
        size_t n;
        int fits;

        if (nl == NULL) {
            return 0;
        }
        n = (size_t)(nl - gcm_pmi1.rbuf) + 1;
        fits = (n < linelen);
        if (fits) {
            memcpy(line, gcm_pmi1.rbuf, n);
            line[n] = '\0';
        }
        memmove(gcm_pmi1.rbuf, gcm_pmi1.rbuf + n, gcm_pmi1.rlen - n);
        gcm_pmi1.rlen -= n;
        if (!fits) {
            gcm_error("pmi1: the launcher sent a line of %zu bytes, longer "
                      "than any it may send (%zu)", n, linelen - 1);
            return -1;
        }
        if (strncmp(line, "cmd=peer_died", 13) == 0) {
            gcm_pmi1_handle_event(line);
            continue;
        }
        return 1;
    }
}

/* Reads whatever is available (blocking if block) into rbuf. */
static gcm_status_t gcm_pmi1_fill(int block)
{
    ssize_t n;

    if (gcm_pmi1.rlen == sizeof(gcm_pmi1.rbuf)) {
        gcm_error("pmi1: the launcher sent %zu bytes without an end of "
                  "line", gcm_pmi1.rlen);
        gcm_pmi1.rlen = 0;
        return GCM_ERR_BOOT;
    }
    if (!block) {
        struct pollfd pfd = { .fd = gcm_pmi1.fd, .events = POLLIN };
        if (poll(&pfd, 1, 0) <= 0) {
            return GCM_OK;
        }
    }
    do {
        n = read(gcm_pmi1.fd, gcm_pmi1.rbuf + gcm_pmi1.rlen,
                 sizeof(gcm_pmi1.rbuf) - gcm_pmi1.rlen);
    } while ((n < 0) && (errno == EINTR));
    if (n <= 0) {
        return GCM_ERR_BOOT;
    }
    gcm_pmi1.rlen += (size_t)n;
    return GCM_OK;
}

/* Sends request and waits for the reply whose cmd is expect. */
static gcm_status_t gcm_pmi1_call(const char *request, const char *expect,
                                  char *reply, size_t replylen)
{
    char cmd[64];
    gcm_status_t status = gcm_pmi1_write(request);

    while (status == GCM_OK) {
        int got = gcm_pmi1_take_line(reply, replylen);
        if (got < 0) {
            return GCM_ERR_BOOT;
        }
        if (got > 0) {
            if (gcm_boot_pmi1_field(reply, "cmd", cmd, sizeof(cmd)) &&
                (strcmp(cmd, expect) == 0)) {
                return GCM_OK;
            }
            gcm_warn("pmi1: unexpected launcher line: %s", reply);
            continue;
        }
        status = gcm_pmi1_fill(1);
        if (status != GCM_OK) {
            gcm_error("pmi1: launcher closed the connection while waiting "
                      "for %s", expect);
        }
    }
    return status;
}

static int gcm_pmi1_rc_ok(const char *reply)
{
    char rc[16];
    long v;

    return gcm_boot_pmi1_field(reply, "rc", rc, sizeof(rc)) &&
           gcm_boot_pmi1_number(rc, 0, 0, &v);
}

static gcm_status_t gcm_pmi1_put_text(const char *key, const char *value)
{
    char *req = malloc(GCM_PMI1_LINE_MAX + strlen(value));
    char reply[GCM_PMI1_LINE_MAX];
    gcm_status_t status;

    if (req == NULL) {
        return GCM_ERR_NO_MEMORY;
    }
    sprintf(req, "cmd=put kvsname=%s key=%s value=%s\n", gcm_pmi1.kvsname,
            key, value);
    status = gcm_pmi1_call(req, "put_result", reply, sizeof(reply));
    free(req);
    if ((status == GCM_OK) && !gcm_pmi1_rc_ok(reply)) {
        gcm_error("pmi1: launcher refused put of %s: %s", key, reply);
        status = GCM_ERR_BOOT;
    }
    return status;
}

static gcm_status_t gcm_pmi1_get_text(int rank, const char *key, char *value,
                                      size_t valuelen)
{
    char req[GCM_PMI1_LINE_MAX];
    char reply[GCM_PMI1_LINE_MAX];
    gcm_status_t status;

    (void)rank; /* PMI-1 keys are global; the caller put the rank in them */
    snprintf(req, sizeof(req), "cmd=get kvsname=%s key=%s\n",
             gcm_pmi1.kvsname, key);
    status = gcm_pmi1_call(req, "get_result", reply, sizeof(reply));
    if (status != GCM_OK) {
        return status;
    }
    if (!gcm_pmi1_rc_ok(reply) ||
        !gcm_boot_pmi1_field(reply, "value", value, valuelen)) {
        gcm_error("pmi1: key %s not found: %s", key, reply);
        return GCM_ERR_BOOT;
    }
    return GCM_OK;
}

/* ---- binary values as hex chunks ---------------------------------------- */

static size_t gcm_pmi1_chunk(void)
{
    /* Two hex digits a byte, and room for the terminator. */
    size_t chunk = (gcm_pmi1.vallen_max - 1) / 2;

    return (chunk > 480) ? 480 : chunk;
}

static gcm_status_t gcm_pmi1_put(const char *key, const void *value,
                                 size_t len)
{
    static const char hex[] = "0123456789abcdef";
    const unsigned char *v = value;
    char k[256];
    char text[1024];
    size_t chunk = gcm_pmi1_chunk();
    size_t off, i;
    gcm_status_t status;

    pthread_mutex_lock(&gcm_pmi1.lock);
    snprintf(k, sizeof(k), "%s-%d", key, gcm_boot_rank());
    snprintf(text, sizeof(text), "%zu", len);
    status = gcm_pmi1_put_text(k, text);
    for (off = 0; (status == GCM_OK) && (off < len); off += chunk) {
        size_t n = ((len - off) < chunk) ? (len - off) : chunk;
        for (i = 0; i < n; i++) {
            text[2 * i]     = hex[v[off + i] >> 4];
            text[2 * i + 1] = hex[v[off + i] & 0xf];
        }
        text[2 * n] = '\0';
        snprintf(k, sizeof(k), "%s-%d.%zu", key, gcm_boot_rank(), off / chunk);
        status = gcm_pmi1_put_text(k, text);
    }
    pthread_mutex_unlock(&gcm_pmi1.lock);
    return status;
}

static int gcm_pmi1_hexval(char c)
{
    if ((c >= '0') && (c <= '9')) {
        return c - '0';
    }
    if ((c >= 'a') && (c <= 'f')) {
        return c - 'a' + 10;
    }
    return -1;
}

static gcm_status_t gcm_pmi1_get(int rank, const char *key, void *buf,
                                 size_t *len_p)
{
    unsigned char *out = buf;
    char k[256];
    char text[1024];
    size_t chunk = gcm_pmi1_chunk();
    size_t len, off, i;
    gcm_status_t status;

    pthread_mutex_lock(&gcm_pmi1.lock);
    snprintf(k, sizeof(k), "%s-%d", key, rank);
    status = gcm_pmi1_get_text(rank, k, text, sizeof(text));
    if (status != GCM_OK) {
        goto out;
    }
    {
        long l;
        if (!gcm_boot_pmi1_number(text, 0, LONG_MAX, &l)) {
            gcm_error("pmi1: the length of %s is '%s', not a number", k,
                      text);
            status = GCM_ERR_BOOT;
            goto out;
        }
        len = (size_t)l;
    }
    if (len > *len_p) {
        status = GCM_ERR_TRUNCATED;
        goto out;
    }
    for (off = 0; off < len; off += chunk) {
        size_t n = ((len - off) < chunk) ? (len - off) : chunk;
        snprintf(k, sizeof(k), "%s-%d.%zu", key, rank, off / chunk);
        status = gcm_pmi1_get_text(rank, k, text, sizeof(text));
        if (status != GCM_OK) {
            goto out;
        }
        if (strlen(text) != 2 * n) {
            gcm_error("pmi1: value of %s has the wrong length", k);
            status = GCM_ERR_BOOT;
            goto out;
        }
        for (i = 0; i < n; i++) {
            int hi = gcm_pmi1_hexval(text[2 * i]);
            int lo = gcm_pmi1_hexval(text[2 * i + 1]);
            if ((hi < 0) || (lo < 0)) {
                gcm_error("pmi1: value of %s is not hex", k);
                status = GCM_ERR_BOOT;
                goto out;
            }
            out[off + i] = (unsigned char)((hi << 4) | lo);
        }
    }
    *len_p = len;
out:
    pthread_mutex_unlock(&gcm_pmi1.lock);
    return status;
}

static gcm_status_t gcm_pmi1_fence(void)
{
    char reply[GCM_PMI1_LINE_MAX];
    gcm_status_t status;

    pthread_mutex_lock(&gcm_pmi1.lock);
    status = gcm_pmi1_call("cmd=barrier_in\n", "barrier_out", reply,
                           sizeof(reply));
    pthread_mutex_unlock(&gcm_pmi1.lock);
    return status;
}

static int gcm_pmi1_event_fd(void)
{
    /* Once the launcher is gone its socket stays readable: stop polling. */
    return gcm_pmi1.closed ? -1 : gcm_pmi1.fd;
}

static void gcm_pmi1_poll_events(void)
{
    char line[GCM_PMI1_LINE_MAX];

    /* Another thread in a call reads the socket and files events itself. */
    if (pthread_mutex_trylock(&gcm_pmi1.lock) != 0) {
        return;
    }
    if (gcm_pmi1_fill(0) == GCM_OK) {
        int got;
        while ((got = gcm_pmi1_take_line(line, sizeof(line))) != 0) {
            if (got > 0) {
                gcm_warn("pmi1: unexpected launcher line: %s", line);
            }
        }
    } else {
        gcm_pmi1.closed = 1;
    }
    pthread_mutex_unlock(&gcm_pmi1.lock);
}

static void gcm_pmi1_abort(int code, int cause, const char *msg)
{
    char req[GCM_PMI1_LINE_MAX];

    (void)msg;
    /* gcrun names the failed rank instead of the one that gives up;
     * other PMI-1 servers ignore the word. */
    if (cause >= 0) {
        snprintf(req, sizeof(req), "cmd=abort exitcode=%d cause=%d\n", code,
                 cause);
    } else {
        snprintf(req, sizeof(req), "cmd=abort exitcode=%d\n", code);
    }
    /* No lock: abort may come from any state; the line is written whole. */
    (void)gcm_pmi1_write(req);
}

static void gcm_pmi1_finalize(void)
{
    char reply[GCM_PMI1_LINE_MAX];

    pthread_mutex_lock(&gcm_pmi1.lock);
    (void)gcm_pmi1_call("cmd=finalize\n", "finalize_ack", reply,
                        sizeof(reply));
    close(gcm_pmi1.fd);
    gcm_pmi1.fd   = -1;
    gcm_pmi1.rlen = 0;
    pthread_mutex_unlock(&gcm_pmi1.lock);
}

/* ---- dynamic processes ----------------------------------------------------- */

/* Appends "key=value\n" to a request being built; -1 when it would not fit
 * a line or the value spans lines. */
static int gcm_pmi1_line_add(char *buf, size_t cap, size_t *len,
                             const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int gcm_pmi1_line_add(char *buf, size_t cap, size_t *len,
                             const char *fmt, ...)
{
    va_list ap;
    int n;

    va_start(ap, fmt);
    n = vsnprintf(buf + *len, cap - *len, fmt, ap);
    va_end(ap);
    if ((n < 0) || ((size_t)n >= cap - *len) ||
        (memchr(buf + *len, '\n', (size_t)n) !=
         buf + *len + n - 1)) {
        return -1;
    }
    *len += (size_t)n;
    return 0;
}

static gcm_status_t gcm_pmi1_spawn(int count, const gcm_boot_spawn_cmd_t cmds[],
                                   const char *parent_port, int errcodes[])
{
    char reply[GCM_PMI1_LINE_MAX];
    char codes[GCM_PMI1_LINE_MAX];
    char msg[256];
    char *req;
    size_t cap = 4096, len = 0;
    gcm_status_t status;
    int c, i, total = 0, bad = 0;
    const char *p;

    for (c = 0; c < count; c++) {
        total += cmds[c].maxprocs;
        cap += 1024 + strlen(cmds[c].command) + strlen(parent_port);
        for (i = 0; (cmds[c].argv != NULL) && (cmds[c].argv[i] != NULL);
             i++) {
            cap += strlen(cmds[c].argv[i]) + 32;
        }
        for (i = 0; i < cmds[c].ninfo; i++) {
            cap += strlen(cmds[c].info_keys[i]) +
                   strlen(cmds[c].info_vals[i]) + 64;
        }
    }
    if (total > GCM_BOOT_SPAWN_MAX) {
        return gcm_fail(GCM_ERR_INVALID_PARAM, "spawn", "%d processes: at "
                        "most %d a spawn under PMI-1", total,
                        GCM_BOOT_SPAWN_MAX);
    }
    req = malloc(cap);
    if (req == NULL) {
        return GCM_ERR_NO_MEMORY;
    }
    /* Every block is built before any is sent: the launcher answers only
     * once it has the last one. Each line is a key=value; a value with a
     * line break cannot travel (the MPI layer sends each environment
     * variable as an "env" entry of its own). */
    for (c = 0; (c < count) && !bad; c++) {
        bad = gcm_pmi1_line_add(req, cap, &len, "mcmd=spawn\n") ||
              gcm_pmi1_line_add(req, cap, &len, "nprocs=%d\n",
                                cmds[c].maxprocs) ||
              gcm_pmi1_line_add(req, cap, &len, "execname=%s\n",
                                cmds[c].command) ||
              gcm_pmi1_line_add(req, cap, &len, "totspawns=%d\n", count) ||
              gcm_pmi1_line_add(req, cap, &len, "spawnssofar=%d\n", c + 1);
        for (i = 0; !bad && (cmds[c].argv != NULL) &&
                    (cmds[c].argv[i] != NULL); i++) {
            bad = gcm_pmi1_line_add(req, cap, &len, "arg%d=%s\n", i + 1,
                                    cmds[c].argv[i]);
        }
        bad = bad ||
              gcm_pmi1_line_add(req, cap, &len, "argcnt=%d\n", i) ||
              gcm_pmi1_line_add(req, cap, &len, "preput_num=1\n") ||
              gcm_pmi1_line_add(req, cap, &len,
                                "preput_key_0=PARENT_ROOT_PORT_NAME\n") ||
              gcm_pmi1_line_add(req, cap, &len, "preput_val_0=%s\n",
                                parent_port) ||
              gcm_pmi1_line_add(req, cap, &len, "info_num=%d\n",
                                cmds[c].ninfo);
        for (i = 0; !bad && (i < cmds[c].ninfo); i++) {
            bad = gcm_pmi1_line_add(req, cap, &len, "info_key_%d=%s\n", i,
                                    cmds[c].info_keys[i]) ||
                  gcm_pmi1_line_add(req, cap, &len, "info_val_%d=%s\n", i,
                                    cmds[c].info_vals[i]);
        }
        bad = bad || gcm_pmi1_line_add(req, cap, &len, "endcmd\n");
    }
    if (bad) {
        free(req);
        return gcm_fail(GCM_ERR_INVALID_PARAM, "spawn", "a command, "
                        "argument or info value does not fit the PMI-1 "
                        "protocol (a line break, or too long)");
    }
    pthread_mutex_lock(&gcm_pmi1.lock);
    status = gcm_pmi1_call(req, "spawn_result", reply, sizeof(reply));
    pthread_mutex_unlock(&gcm_pmi1.lock);
    free(req);
    if (status != GCM_OK) {
        return status;
    }
    for (i = 0; i < total; i++) {
        errcodes[i] = 0;
    }
    if (gcm_boot_pmi1_field(reply, "errcodes", codes, sizeof(codes))) {
        for (i = 0, p = codes; (i < total) && (*p != '\0'); i++) {
            errcodes[i] = atoi(p);
            p += strcspn(p, ",");
            p += (*p == ',');
        }
    }
    if (!gcm_pmi1_rc_ok(reply)) {
        for (i = 0; i < total; i++) {
            if (errcodes[i] == 0) {
                errcodes[i] = -1;
            }
        }
        msg[0] = '\0';
        (void)gcm_boot_pmi1_field(reply, "msg", msg, sizeof(msg));
        return gcm_fail(GCM_ERR_BOOT, "spawn", "the launcher could not "
                        "start the processes (%s)", msg);
    }
    return GCM_OK;
}

static gcm_status_t gcm_pmi1_parent_port(char *port, size_t len)
{
    const char *spawned = getenv("PMI_SPAWNED");
    gcm_status_t status;

    if ((spawned == NULL) || (atoi(spawned) != 1)) {
        return GCM_ERR_BOOT;
    }
    pthread_mutex_lock(&gcm_pmi1.lock);
    status = gcm_pmi1_get_text(0, "PARENT_ROOT_PORT_NAME", port, len);
    pthread_mutex_unlock(&gcm_pmi1.lock);
    return status;
}

/* The integer field of the reply to a one-word request; -1 if none. */
static int gcm_pmi1_ask_int(const char *request, const char *expect,
                            const char *field)
{
    char reply[GCM_PMI1_LINE_MAX];
    char value[32];
    gcm_status_t status;
    long v = -1;

    pthread_mutex_lock(&gcm_pmi1.lock);
    status = gcm_pmi1_call(request, expect, reply, sizeof(reply));
    pthread_mutex_unlock(&gcm_pmi1.lock);
    if ((status == GCM_OK) &&
        gcm_boot_pmi1_field(reply, field, value, sizeof(value))) {
        char *end;

        v = strtol(value, &end, 10);
        if ((end == value) || (*end != '\0') || (v < 0) || (v > INT32_MAX)) {
            v = -1;
        }
    }
    return (int)v;
}

static int gcm_pmi1_appnum(void)
{
    int v = gcm_pmi1_ask_int("cmd=get_appnum\n", "appnum", "appnum");

    return (v < 0) ? 0 : v;
}

static int gcm_pmi1_universe(void)
{
    int v = gcm_pmi1_ask_int("cmd=get_universe_size\n", "universe_size",
                             "size");

    return (v < 0) ? 0 : v;
}

static const gcm_boot_ops_t gcm_pmi1_ops = {
    .put         = gcm_pmi1_put,
    .fence       = gcm_pmi1_fence,
    .get         = gcm_pmi1_get,
    .event_fd    = gcm_pmi1_event_fd,
    .poll_events = gcm_pmi1_poll_events,
    .abort       = gcm_pmi1_abort,
    .finalize    = gcm_pmi1_finalize,
    .spawn       = gcm_pmi1_spawn,
    .parent_port = gcm_pmi1_parent_port,
    .appnum      = gcm_pmi1_appnum,
    .universe    = gcm_pmi1_universe,
};

/* Reads the environment variable name as a number in [min, max]. */
static gcm_status_t gcm_pmi1_env_number(const char *name, long min, long max,
                                        long *out_p)
{
    const char *text = getenv(name);

    if (text == NULL) {
        return gcm_fail(GCM_ERR_BOOT, "gcm_init",
                        "PMI_FD, PMI_RANK and PMI_SIZE must all be set for "
                        "a PMI-1 launch (%s is not)", name);
    }
    if (!gcm_boot_pmi1_number(text, min, max, out_p)) {
        return gcm_fail(GCM_ERR_BOOT, "gcm_init",
                        "%s='%.64s' is not a number from %ld to %ld", name,
                        text, min, max);
    }
    return GCM_OK;
}

gcm_status_t gcm_boot_pmi1_init(int *rank_p, int *size_p, char *jobid,
                                size_t jobid_len, const gcm_boot_ops_t **ops_p)
{
    char reply[GCM_PMI1_LINE_MAX];
    char value[256];
    char kvsname[sizeof(gcm_pmi1.kvsname) + 1];
    struct stat st;
    gcm_status_t status;
    long fd, rank, size, vallen;
    int flags;

    /* Every value from the launcher is checked before it is used: a rank
     * beyond the size would index past the tables sized by it. */
    if (((status = gcm_pmi1_env_number("PMI_FD", 0, INT_MAX, &fd)) !=
         GCM_OK) ||
        ((status = gcm_pmi1_env_number("PMI_SIZE", 1, INT_MAX, &size)) !=
         GCM_OK) ||
        ((status = gcm_pmi1_env_number("PMI_RANK", 0, INT_MAX, &rank)) !=
         GCM_OK)) {
        return status;
    }
    if (rank >= size) {
        return gcm_fail(GCM_ERR_BOOT, "gcm_init",
                        "PMI_RANK=%ld is not below PMI_SIZE=%ld", rank,
                        size);
    }
    if ((fstat((int)fd, &st) != 0) || !S_ISSOCK(st.st_mode)) {
        return gcm_fail(GCM_ERR_BOOT, "gcm_init",
                        "PMI_FD=%ld is not an open socket (a program "
                        "started by a process of a job inherits its "
                        "environment but not its launcher socket: unset "
                        "PMI_FD to run it alone)", fd);
    }
    /* Ours alone: a program this process starts (system(), fork and
     * exec) must not talk to the launcher in its name. */
    flags = fcntl((int)fd, F_GETFD);
    if ((flags < 0) || (fcntl((int)fd, F_SETFD, flags | FD_CLOEXEC) != 0)) {
        return gcm_fail(GCM_ERR_BOOT, "gcm_init",
                        "cannot make PMI_FD=%ld close-on-exec: %s", fd,
                        strerror(errno));
    }
    gcm_pmi1.fd         = (int)fd;
    gcm_pmi1.rlen       = 0;
    gcm_pmi1.vallen_max = 1024;
    gcm_pmi1.keylen_max = 64;

    status = gcm_pmi1_call("cmd=init pmi_version=1 pmi_subversion=1\n",
                           "response_to_init", reply, sizeof(reply));
    if (status != GCM_OK) {
        return gcm_fail(GCM_ERR_BOOT, "gcm_init",
                        "no readable answer to init from the PMI-1 "
                        "launcher on fd %ld", fd);
    }
    if (!gcm_pmi1_rc_ok(reply)) {
        return gcm_fail(GCM_ERR_BOOT, "gcm_init",
                        "PMI-1 launcher refused init on fd %ld", fd);
    }
    status = gcm_pmi1_call("cmd=get_maxes\n", "maxes", reply, sizeof(reply));
    if (status != GCM_OK) {
        return gcm_fail(status, "gcm_init", "PMI-1 launcher gave no maxes");
    }
    if (gcm_boot_pmi1_field(reply, "vallen_max", value, sizeof(value))) {
        if (!gcm_boot_pmi1_number(value, 64, 1 << 20, &vallen)) {
            return gcm_fail(GCM_ERR_BOOT, "gcm_init",
                            "PMI-1 launcher's vallen_max='%.32s' is not a "
                            "number from 64 to %d", value, 1 << 20);
        }
        gcm_pmi1.vallen_max = (size_t)vallen;
    }
    status = gcm_pmi1_call("cmd=get_my_kvsname\n", "my_kvsname", reply,
                           sizeof(reply));
    if ((status != GCM_OK) ||
        !gcm_boot_pmi1_field(reply, "kvsname", kvsname, sizeof(kvsname)) ||
        (kvsname[0] == '\0') ||
        (strlen(kvsname) >= sizeof(gcm_pmi1.kvsname))) {
        return gcm_fail(GCM_ERR_BOOT, "gcm_init",
                        "PMI-1 launcher gave no kvs name (or an empty one, "
                        "or one longer than %zu bytes)",
                        sizeof(gcm_pmi1.kvsname) - 1);
    }
    memcpy(gcm_pmi1.kvsname, kvsname, strlen(kvsname) + 1);
    snprintf(jobid, jobid_len, "%s", gcm_pmi1.kvsname);
    *rank_p = (int)rank;
    *size_p = (int)size;
    *ops_p  = &gcm_pmi1_ops;
    return GCM_OK;
}
