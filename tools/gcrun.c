/*
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
 * Sections: utilities, arguments, key-value space, byte buffers, job state,
 * PMI protocol, I/O forwarding, child management, binding, main loop.
 */

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

/* ------------------------------------------------------------------------ */
/* Utilities                                                                */
/* ------------------------------------------------------------------------ */

/* Set by the signal handlers' self-pipe setup; read by the main loop. */
static int sig_pipe[2] = { -1, -1 };

/* Once writing to our stdout or stderr fails (e.g. EPIPE because the reader
 * went away) we stop trying, but keep draining the ranks' pipes so that
 * they do not block. */
static bool sink_broken[3];

static int64_t now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Writes all of data to fd (1 or 2). Blocks if the reader is slow: that
 * back-pressure is what a terminal or pipe expects from us. */
static void sink_write(int fd, const char *data, size_t len)
{
    while (len > 0 && !sink_broken[fd]) {
        ssize_t n = write(fd, data, len);

        if (n > 0) {
            data += n;
            len -= (size_t)n;
        } else if (n < 0 && errno == EINTR) {
            continue;
        } else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            /* Someone else made the descriptor non-blocking. */
            struct pollfd p = { .fd = fd, .events = POLLOUT };

            (void)poll(&p, 1, -1);
        } else {
            sink_broken[fd] = true;
        }
    }
}

/* Prints "gcrun: <message>\n" to stderr with a single write so that it
 * never lands in the middle of a forwarded line. */
static void gc_msg(const char *fmt, ...)
    __attribute__((format(printf, 1, 2)));

static void gc_msg(const char *fmt, ...)
{
    char line[1024];
    va_list ap;
    int len;

    len = snprintf(line, sizeof(line), "gcrun: ");
    va_start(ap, fmt);
    len += vsnprintf(line + len, sizeof(line) - (size_t)len - 1, fmt, ap);
    va_end(ap);
    if (len > (int)sizeof(line) - 2) {
        len = (int)sizeof(line) - 2;
    }
    line[len++] = '\n';
    sink_write(STDERR_FILENO, line, (size_t)len);
}

static void out_of_memory(void)
{
    gc_msg("out of memory");
    exit(1);
}

static void *xmalloc(size_t size)
{
    void *p = malloc(size == 0 ? 1 : size);

    if (p == NULL) {
        out_of_memory();
    }
    return p;
}

static void *xcalloc(size_t count, size_t size)
{
    void *p = calloc(count == 0 ? 1 : count, size == 0 ? 1 : size);

    if (p == NULL) {
        out_of_memory();
    }
    return p;
}

static void *xrealloc(void *old, size_t size)
{
    void *p = realloc(old, size == 0 ? 1 : size);

    if (p == NULL) {
        out_of_memory();
    }
    return p;
}

static int set_nonblock(int fd)
{
    int flags = fcntl(fd, F_GETFL);

    if (flags < 0) {
        return -1;
    }
    return fcntl(fd, F_SETFL, flags | O_NONBLOCK);
}

static void close_fd(int *fd)
{
    if (*fd >= 0) {
        close(*fd);
        *fd = -1;
    }
}

/* Parses a whole decimal string into a long; false on junk or overflow. */
static bool parse_long(const char *s, long *out)
{
    char *end;
    long v;

    if (s == NULL || *s == '\0') {
        return false;
    }
    errno = 0;
    v = strtol(s, &end, 10);
    if (errno != 0 || *end != '\0' || end == s) {
        return false;
    }
    *out = v;
    return true;
}

static const struct {
    int num;
    const char *name;
} signal_names[] = {
    { SIGHUP, "SIGHUP" },       { SIGINT, "SIGINT" },
    { SIGQUIT, "SIGQUIT" },     { SIGILL, "SIGILL" },
    { SIGTRAP, "SIGTRAP" },     { SIGABRT, "SIGABRT" },
    { SIGBUS, "SIGBUS" },       { SIGFPE, "SIGFPE" },
    { SIGKILL, "SIGKILL" },     { SIGUSR1, "SIGUSR1" },
    { SIGSEGV, "SIGSEGV" },     { SIGUSR2, "SIGUSR2" },
    { SIGPIPE, "SIGPIPE" },     { SIGALRM, "SIGALRM" },
    { SIGTERM, "SIGTERM" },     { SIGCHLD, "SIGCHLD" },
    { SIGCONT, "SIGCONT" },     { SIGSTOP, "SIGSTOP" },
    { SIGTSTP, "SIGTSTP" },     { SIGTTIN, "SIGTTIN" },
    { SIGTTOU, "SIGTTOU" },     { SIGURG, "SIGURG" },
    { SIGXCPU, "SIGXCPU" },     { SIGXFSZ, "SIGXFSZ" },
    { SIGVTALRM, "SIGVTALRM" }, { SIGPROF, "SIGPROF" },
    { SIGWINCH, "SIGWINCH" },   { SIGSYS, "SIGSYS" },
};

static const char *signal_name(int sig, char *buf, size_t size)
{
    size_t i;

    for (i = 0; i < sizeof(signal_names) / sizeof(signal_names[0]); i++) {
        if (signal_names[i].num == sig) {
            return signal_names[i].name;
        }
    }
#ifdef SIGRTMIN
    if (sig >= SIGRTMIN && sig <= SIGRTMAX) {
        snprintf(buf, size, "SIGRTMIN+%d", sig - SIGRTMIN);
        return buf;
    }
#endif
    snprintf(buf, size, "SIG%d", sig);
    return buf;
}

/* The shell convention: 127 when the program is not there, 126 when it is
 * there but cannot be run. */
static int exec_failure_status(int err)
{
    if (err == ENOENT || err == ENOTDIR || err == ENAMETOOLONG ||
        err == ELOOP) {
        return 127;
    }
    return 126;
}

/* Makes sure descriptors 0-2 are open, so the pipes and sockets we create
 * never end up on them and get mistaken for stdio. */
static void ensure_std_fds(void)
{
    int fd;

    for (fd = 0; fd <= 2; fd++) {
        if (fcntl(fd, F_GETFD) < 0 && errno == EBADF) {
            int nfd = open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY);

            if (nfd < 0) {
                exit(1);
            }
            if (nfd != fd) {
                dup2(nfd, fd);
                close(nfd);
            }
        }
    }
}

/* ------------------------------------------------------------------------ */
/* Arguments                                                                */
/* ------------------------------------------------------------------------ */

enum bind_policy {
    BIND_AUTO,
    BIND_NONE,
    BIND_CORE,
    BIND_NUMA
};

/* Longest emulated host name (boot/ keeps 255 characters). */
#define HOST_NAME_LEN_MAX 255

struct options {
    int nprocs;
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

static const char usage_text[] =
    "Usage: gcrun -n N [--tag-output] [--bind-to none|core|numa]\n"
    "             [--hosts LIST | --nodes M] [--] prog [args...]\n"
    "Start N processes of prog on this machine and serve PMI-1 to them.\n"
    "\n"
    "  -n, -np, --np N     number of processes to start (N >= 1)\n"
    "  --tag-output        prefix every output line with \"[rank] \"\n"
    "  --bind-to POLICY    none, core or numa; the default binds rank r to\n"
    "                      core r when N is at most the number of cores\n"
    "                      and leaves the ranks unbound otherwise\n"
    "  --hosts LIST        emulate hosts: comma-separated host names, one\n"
    "                      per rank in rank order (N names), or fewer names\n"
    "                      that get the ranks block-wise as --nodes does;\n"
    "                      a \":DIGITS\" suffix (foo:00) labels a slot and\n"
    "                      is not part of the name\n"
    "  --nodes M           emulate M hosts named <hostname>-node0 ...\n"
    "                      <hostname>-node<M-1>, ranks block-wise (the\n"
    "                      first N mod M hosts get one rank more)\n"
    "                      Each rank gets its host name in\n"
    "                      GENCOMM_HOSTNAME (MPI_Get_processor_name,\n"
    "                      MPI_COMM_TYPE_SHARED and MPIX_Comm_node use it)\n"
    "  -h, --help          show this help and exit\n"
    "  --version           show the version and exit\n"
    "\n"
    "When a rank fails, the other ranks get GENCOMM_KILL_GRACE_MS\n"
    "milliseconds (default 1000) before they are sent SIGTERM.\n";

static void usage_error(const char *fmt, ...)
    __attribute__((format(printf, 1, 2), noreturn));

static void usage_error(const char *fmt, ...)
{
    char msg[512];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    gc_msg("%s", msg);
    sink_write(STDERR_FILENO, usage_text, strlen(usage_text));
    exit(2);
}

static int parse_nprocs(const char *s)
{
    long v;

    if (!parse_long(s, &v) || v < 1) {
        usage_error("invalid number of processes '%s' (must be a positive "
                    "integer)", s);
    }
    if (v > MAX_NPROCS) {
        usage_error("too many processes '%s' (at most %d)", s, MAX_NPROCS);
    }
    return (int)v;
}

static enum bind_policy parse_bind(const char *s)
{
    if (strcmp(s, "none") == 0) {
        return BIND_NONE;
    }
    if (strcmp(s, "core") == 0) {
        return BIND_CORE;
    }
    if (strcmp(s, "numa") == 0) {
        return BIND_NUMA;
    }
    usage_error("invalid --bind-to policy '%s' (use none, core or numa)", s);
}

static long parse_nodes(const char *s)
{
    long v;

    if (!parse_long(s, &v) || v < 1) {
        usage_error("invalid number of nodes '%s' (must be a positive "
                    "integer)", s);
    }
    if (v > MAX_NPROCS) {
        usage_error("too many nodes '%s' (at most %d)", s, MAX_NPROCS);
    }
    return v;
}

/* One host name of --hosts, [s, s + len): checked, with a ":DIGITS" slot
 * label cut off. Host names never hold ':', so the label is unambiguous;
 * characters that would garble an environment entry or a PMI line are
 * refused. */
static char *host_name_dup(const char *s, size_t len, int pos)
{
    size_t i, cut = len;
    char *name;

    for (i = 0; i < len; i++) {
        if (s[i] == ':') {
            size_t j;

            for (j = i + 1; j < len && isdigit((unsigned char)s[j]); j++) {
            }
            if (j != len || j == i + 1) {
                usage_error("invalid host name '%.*s' in --hosts (entry %d):"
                            " ':' must be followed by digits only (a slot "
                            "label, as in foo:00)", (int)len, s, pos + 1);
            }
            cut = i;
            break;
        }
        if (!isgraph((unsigned char)s[i]) || s[i] == '=' || s[i] == ';') {
            usage_error("invalid host name '%.*s' in --hosts (entry %d): "
                        "use printable characters other than '=' and ';'",
                        (int)len, s, pos + 1);
        }
    }
    if (cut == 0) {
        usage_error("empty host name in --hosts (entry %d)", pos + 1);
    }
    if (cut > HOST_NAME_LEN_MAX) {
        usage_error("host name in --hosts (entry %d) is longer than %d "
                    "characters", pos + 1, HOST_NAME_LEN_MAX);
    }
    name = xmalloc(cut + 1);
    memcpy(name, s, cut);
    name[cut] = '\0';
    return name;
}

/* Ranks to nhosts hosts block-wise: the first nprocs % nhosts hosts get
 * one rank more, so 5 ranks on 2 hosts are 3 + 2. */
static void assign_block(struct options *opt)
{
    int base = opt->nprocs / opt->nhosts;
    int extra = opt->nprocs % opt->nhosts;
    int h, r = 0;

    opt->host_of = xcalloc((size_t)opt->nprocs, sizeof(int));
    for (h = 0; h < opt->nhosts; h++) {
        int k;
        int count = base + (h < extra ? 1 : 0);

        for (k = 0; k < count; k++) {
            opt->host_of[r++] = h;
        }
    }
}

/* Turns --hosts or --nodes into opt->hosts and opt->host_of. */
static void plan_hosts(struct options *opt)
{
    if (opt->hosts_arg != NULL && opt->nodes_arg != 0) {
        usage_error("--hosts and --nodes cannot be used together");
    }
    if (opt->nodes_arg != 0) {
        char self[HOST_NAME_LEN_MAX + 1];
        int h;

        if (opt->nodes_arg > opt->nprocs) {
            usage_error("--nodes %ld is more than the %d processes (every "
                        "node needs one)", opt->nodes_arg, opt->nprocs);
        }
        if (gethostname(self, sizeof(self) - 1) != 0) {
            snprintf(self, sizeof(self), "localhost");
        }
        self[sizeof(self) - 1] = '\0';
        /* Leave room for "-node<index>" within the length limit. */
        self[HOST_NAME_LEN_MAX - 20] = '\0';
        opt->nhosts = (int)opt->nodes_arg;
        opt->hosts = xcalloc((size_t)opt->nhosts, sizeof(char *));
        for (h = 0; h < opt->nhosts; h++) {
            char name[HOST_NAME_LEN_MAX + 1];

            snprintf(name, sizeof(name), "%.*s-node%d",
                     (int)(HOST_NAME_LEN_MAX - 20), self, h);
            opt->hosts[h] = strdup(name);
            if (opt->hosts[h] == NULL) {
                out_of_memory();
            }
        }
        assign_block(opt);
    } else if (opt->hosts_arg != NULL) {
        const char *s = opt->hosts_arg;
        int count = 1;
        int k;

        for (k = 0; s[k] != '\0'; k++) {
            count += s[k] == ',';
        }
        if (count > opt->nprocs) {
            usage_error("--hosts lists %d names for %d processes (give at "
                        "most one per process)", count, opt->nprocs);
        }
        opt->hosts = xcalloc((size_t)count, sizeof(char *));
        for (k = 0; k < count; k++) {
            const char *end = strchr(s, ',');
            size_t len = end == NULL ? strlen(s) : (size_t)(end - s);

            opt->hosts[k] = host_name_dup(s, len, k);
            s += len + (end != NULL ? 1 : 0);
        }
        opt->nhosts = count;
        /* n names: one per rank (assign_block gives exactly that). */
        assign_block(opt);
    }
}

/* Options end at "--" or at the first word that is not an option, so that
 * the program's own options are never taken for ours. */
static void parse_args(int argc, char **argv, struct options *opt)
{
    bool have_n = false;
    int i = 1;

    opt->nprocs = 0;
    opt->tag_output = false;
    opt->bind = BIND_AUTO;
    opt->argv = NULL;
    opt->hosts_arg = NULL;
    opt->nodes_arg = 0;
    opt->hosts = NULL;
    opt->nhosts = 0;
    opt->host_of = NULL;

    while (i < argc) {
        const char *a = argv[i];

        if (strcmp(a, "--") == 0) {
            i++;
            break;
        }
        if (a[0] != '-' || a[1] == '\0') {
            break;
        }
        if (strcmp(a, "-n") == 0 || strcmp(a, "-np") == 0 ||
            strcmp(a, "--np") == 0 || strcmp(a, "--bind-to") == 0 ||
            strcmp(a, "--hosts") == 0 || strcmp(a, "--nodes") == 0) {
            if (i + 1 >= argc) {
                usage_error("option '%s' needs a value", a);
            }
            if (strcmp(a, "--bind-to") == 0) {
                opt->bind = parse_bind(argv[i + 1]);
            } else if (strcmp(a, "--hosts") == 0) {
                opt->hosts_arg = argv[i + 1];
            } else if (strcmp(a, "--nodes") == 0) {
                opt->nodes_arg = parse_nodes(argv[i + 1]);
            } else {
                opt->nprocs = parse_nprocs(argv[i + 1]);
                have_n = true;
            }
            i += 2;
            continue;
        }
        if (strncmp(a, "--np=", 5) == 0) {
            opt->nprocs = parse_nprocs(a + 5);
            have_n = true;
        } else if (strncmp(a, "-n", 2) == 0 &&
                   isdigit((unsigned char)a[2])) {
            opt->nprocs = parse_nprocs(a + 2);
            have_n = true;
        } else if (strncmp(a, "--bind-to=", 10) == 0) {
            opt->bind = parse_bind(a + 10);
        } else if (strncmp(a, "--hosts=", 8) == 0) {
            opt->hosts_arg = a + 8;
        } else if (strncmp(a, "--nodes=", 8) == 0) {
            opt->nodes_arg = parse_nodes(a + 8);
        } else if (strcmp(a, "--tag-output") == 0) {
            opt->tag_output = true;
        } else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            sink_write(STDOUT_FILENO, usage_text, strlen(usage_text));
            exit(0);
        } else if (strcmp(a, "--version") == 0) {
            static const char version[] = "gcrun (gencomm) "
                                          PACKAGE_VERSION "\n";

            sink_write(STDOUT_FILENO, version, strlen(version));
            exit(0);
        } else {
            usage_error("unknown option '%s'", a);
        }
        i++;
    }

    if (!have_n) {
        usage_error("missing -n N (the number of processes)");
    }
    if (i >= argc) {
        usage_error("no program given");
    }
    opt->argv = &argv[i];
    plan_hosts(opt);
}

/* ------------------------------------------------------------------------ */
/* Key-value space                                                          */
/* ------------------------------------------------------------------------ */

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

static uint32_t kvs_hash(const char *s)
{
    /* FNV-1a: simple and good enough for short text keys. */
    uint32_t h = 2166136261u;

    while (*s != '\0') {
        h ^= (unsigned char)*s++;
        h *= 16777619u;
    }
    return h;
}

static void kvs_init(struct kvs *kvs)
{
    kvs->nbuckets = 64;
    kvs->buckets = xcalloc(kvs->nbuckets, sizeof(*kvs->buckets));
    kvs->count = 0;
}

static struct kvs_entry *kvs_find(const struct kvs *kvs, const char *key,
                                  uint32_t hash)
{
    struct kvs_entry *e = kvs->buckets[hash & (kvs->nbuckets - 1)];

    while (e != NULL) {
        if (e->hash == hash && strcmp(e->key, key) == 0) {
            return e;
        }
        e = e->next;
    }
    return NULL;
}

static void kvs_grow(struct kvs *kvs)
{
    size_t n = kvs->nbuckets * 2;
    struct kvs_entry **b = calloc(n, sizeof(*b));
    size_t i;

    if (b == NULL) {
        return; /* keep the old table: slower chains, still correct */
    }
    for (i = 0; i < kvs->nbuckets; i++) {
        struct kvs_entry *e = kvs->buckets[i];

        while (e != NULL) {
            struct kvs_entry *next = e->next;

            e->next = b[e->hash & (n - 1)];
            b[e->hash & (n - 1)] = e;
            e = next;
        }
    }
    free(kvs->buckets);
    kvs->buckets = b;
    kvs->nbuckets = n;
}

/* Stores or replaces key; returns -1 when out of memory. */
static int kvs_put(struct kvs *kvs, const char *key, const char *value)
{
    uint32_t hash = kvs_hash(key);
    struct kvs_entry *e = kvs_find(kvs, key, hash);
    char *v = strdup(value);

    if (v == NULL) {
        return -1;
    }
    if (e != NULL) {
        free(e->value);
        e->value = v;
        return 0;
    }
    e = malloc(sizeof(*e));
    if (e == NULL || (e->key = strdup(key)) == NULL) {
        free(e);
        free(v);
        return -1;
    }
    e->hash = hash;
    e->value = v;
    e->next = kvs->buckets[hash & (kvs->nbuckets - 1)];
    kvs->buckets[hash & (kvs->nbuckets - 1)] = e;
    kvs->count++;
    if (kvs->count > kvs->nbuckets / 4 * 3) {
        kvs_grow(kvs);
    }
    return 0;
}

static const char *kvs_get(const struct kvs *kvs, const char *key)
{
    struct kvs_entry *e = kvs_find(kvs, key, kvs_hash(key));

    return e == NULL ? NULL : e->value;
}

static void kvs_free(struct kvs *kvs)
{
    size_t i;

    for (i = 0; i < kvs->nbuckets; i++) {
        struct kvs_entry *e = kvs->buckets[i];

        while (e != NULL) {
            struct kvs_entry *next = e->next;

            free(e->key);
            free(e->value);
            free(e);
            e = next;
        }
    }
    free(kvs->buckets);
    kvs->buckets = NULL;
    kvs->nbuckets = 0;
    kvs->count = 0;
}

/* ------------------------------------------------------------------------ */
/* Byte buffers                                                             */
/* ------------------------------------------------------------------------ */

/* A FIFO of bytes: data[start, end) is the content. */
struct buf {
    char *data;
    size_t start;
    size_t end;
    size_t cap;
};

static size_t buf_len(const struct buf *b)
{
    return b->end - b->start;
}

static char *buf_head(struct buf *b)
{
    return b->data + b->start;
}

static void buf_append(struct buf *b, const void *p, size_t n)
{
    if (b->end + n > b->cap) {
        size_t len = buf_len(b);

        /* Slide the content to the front first; grow only if that is not
         * enough. */
        if (b->start > 0) {
            memmove(b->data, b->data + b->start, len);
            b->start = 0;
            b->end = len;
        }
        if (len + n > b->cap) {
            size_t cap = b->cap == 0 ? 256 : b->cap;

            while (cap < len + n) {
                cap *= 2;
            }
            b->data = xrealloc(b->data, cap);
            b->cap = cap;
        }
    }
    if (n == 0) {
        return; /* b->data may still be NULL: memcpy must not see it */
    }
    memcpy(b->data + b->end, p, n);
    b->end += n;
}

static void buf_consume(struct buf *b, size_t n)
{
    b->start += n;
    if (b->start >= b->end) {
        b->start = 0;
        b->end = 0;
    }
}

static void buf_free(struct buf *b)
{
    free(b->data);
    b->data = NULL;
    b->start = 0;
    b->end = 0;
    b->cap = 0;
}

/* ------------------------------------------------------------------------ */
/* Job state                                                                */
/* ------------------------------------------------------------------------ */

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
    bool in_barrier;
    /* PMI connection */
    int pmi_fd; /* our end of the socketpair; -1 when closed */
    struct buf pmi_in;
    struct buf pmi_out;
    bool discarding;       /* skipping the rest of an over-long line */
    char discard_cmd[32];  /* the cmd= of that line, for the reply */
    bool in_mcmd;          /* inside a multi-line "mcmd=" request */
    char mcmd[32];
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
    int exit_status;
    bool status_set;
    int got_signal;   /* first SIGINT/SIGTERM/SIGHUP we received */
    int64_t grace_ms;
    int64_t term_at;  /* when to SIGTERM the survivors; -1 = not armed */
    int64_t kill_at;  /* when to SIGKILL them; -1 = not armed */
    int64_t linger_until;
    pid_t pgid;

    char *readbuf; /* READ_CHUNK bytes */
    struct buf scratch;
    struct pollfd *pfds;
    struct pollref *refs;
    size_t poll_cap;
};

/* Remembers the first non-zero status: the job's exit status is that of
 * the first failure we detected. */
static void record_status(struct job *job, int status)
{
    if (!job->status_set && status != 0) {
        job->exit_status = status;
        job->status_set = true;
    }
}

/* ------------------------------------------------------------------------ */
/* PMI protocol                                                             */
/* ------------------------------------------------------------------------ */

struct pmi_req {
    int ntok;
    char *keys[PMI_MAX_TOKENS];
    char *vals[PMI_MAX_TOKENS];
};

static void pmi_close(struct rank *rk)
{
    close_fd(&rk->pmi_fd);
    buf_free(&rk->pmi_in);
    buf_free(&rk->pmi_out);
}

/* Writes as much queued reply data as the socket takes without blocking. */
static void pmi_flush(struct rank *rk)
{
    while (rk->pmi_fd >= 0 && buf_len(&rk->pmi_out) > 0) {
        ssize_t n = send(rk->pmi_fd, buf_head(&rk->pmi_out),
                         buf_len(&rk->pmi_out), MSG_NOSIGNAL);

        if (n > 0) {
            buf_consume(&rk->pmi_out, (size_t)n);
        } else if (n < 0 && errno == EINTR) {
            continue;
        } else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            return;
        } else {
            /* The rank closed its end or died: nobody to answer. */
            pmi_close(rk);
        }
    }
}

static void pmi_send(struct rank *rk, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

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
    buf_append(&rk->pmi_out, line, (size_t)len);
    pmi_flush(rk);
}

/* Splits "cmd=x a=b c" in place into key/value pairs; a word without '='
 * gets an empty value. Values may contain '='. */
static void pmi_parse(char *line, struct pmi_req *req)
{
    char *p = line;

    req->ntok = 0;
    while (*p != '\0' && req->ntok < PMI_MAX_TOKENS) {
        char *word;
        char *eq;

        while (*p == ' ' || *p == '\t') {
            p++;
        }
        if (*p == '\0') {
            break;
        }
        word = p;
        while (*p != '\0' && *p != ' ' && *p != '\t') {
            p++;
        }
        if (*p != '\0') {
            *p++ = '\0';
        }
        eq = strchr(word, '=');
        req->keys[req->ntok] = word;
        if (eq != NULL) {
            *eq = '\0';
            req->vals[req->ntok] = eq + 1;
        } else {
            req->vals[req->ntok] = word + strlen(word);
        }
        req->ntok++;
    }
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

static void notify_peer_died(struct job *job, const struct rank *dead)
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
static void begin_ending(struct job *job)
{
    if (job->state != JOB_RUNNING) {
        return;
    }
    job->state = JOB_ENDING;
    job->term_at = now_ms() + job->grace_ms;
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
    pmi_send(rk, "cmd=appnum appnum=0");
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
    pmi_send(rk, "cmd=universe_size size=%d", job->opt.nprocs);
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
    } else if (kvs_put(&job->kvs, key, value) != 0) {
        err = "out_of_memory";
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
    value = kvs_get(&job->kvs, key);
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
    pmi_send(rk, "cmd=finalize_ack");
}

static void pmi_do_abort(struct job *job, struct rank *rk,
                         const struct pmi_req *req)
{
    const char *code_s = req_get(req, "exitcode");
    long code = 1;
    int status;

    if (rk->aborted) {
        return;
    }
    if (code_s != NULL && !parse_long(code_s, &code)) {
        code = 1;
    }
    rk->aborted = true;
    if (job->aborting) {
        return;   /* a survivor ending after another rank's abort */
    }
    job->aborting = true;
    gc_msg("rank %d called abort with exit code %ld", rk->id, code);
    /* Only the low 8 bits survive exit(); a code that would read as
     * success still has to fail the job. */
    status = (int)(code & 0xff);
    record_status(job, status == 0 ? 1 : status);
    notify_peer_died(job, rk);
    begin_ending(job);
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

/* Copies the value of a leading "cmd=" or "mcmd=" word into out. */
static void pmi_peek_cmd(const char *line, size_t len, char *out,
                         size_t size)
{
    size_t skip = 0;
    size_t n = 0;

    if (len >= 4 && memcmp(line, "cmd=", 4) == 0) {
        skip = 4;
    } else if (len >= 5 && memcmp(line, "mcmd=", 5) == 0) {
        skip = 5;
    }
    if (skip == 0) {
        snprintf(out, size, "unknown");
        return;
    }
    while (skip + n < len && n + 1 < size && line[skip + n] != ' ' &&
           line[skip + n] != '\n' && line[skip + n] != '\0') {
        out[n] = line[skip + n];
        n++;
    }
    out[n] = '\0';
    if (n == 0) {
        snprintf(out, size, "unknown");
    }
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

    /* Multi-line requests (spawn) are not supported: swallow them up to
     * their "endcmd" and answer once, so the client is not left waiting. */
    if (rk->in_mcmd) {
        if (strcmp(line, "endcmd") == 0) {
            rk->in_mcmd = false;
            pmi_reply_error(rk, rk->mcmd, "unknown_command");
        }
        return;
    }
    if (strncmp(line, "mcmd=", 5) == 0) {
        pmi_peek_cmd(line, len, rk->mcmd, sizeof(rk->mcmd));
        rk->in_mcmd = true;
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

    while (rk->pmi_fd >= 0 && buf_len(&rk->pmi_in) > 0) {
        char *head = buf_head(&rk->pmi_in);
        size_t len = buf_len(&rk->pmi_in);
        char *nl = memchr(head, '\n', len);
        size_t linelen;

        if (rk->discarding) {
            if (nl == NULL) {
                buf_consume(&rk->pmi_in, len);
                return;
            }
            buf_consume(&rk->pmi_in, (size_t)(nl - head) + 1);
            rk->discarding = false;
            pmi_reply_error(rk, rk->discard_cmd, "line_too_long");
            continue;
        }
        if (nl == NULL) {
            if (len > PMI_LINE_MAX) {
                pmi_peek_cmd(head, len, rk->discard_cmd,
                             sizeof(rk->discard_cmd));
                rk->discarding = true;
                buf_consume(&rk->pmi_in, len);
            }
            return;
        }
        linelen = (size_t)(nl - head);
        if (linelen > PMI_LINE_MAX) {
            pmi_peek_cmd(head, linelen, rk->discard_cmd,
                         sizeof(rk->discard_cmd));
            buf_consume(&rk->pmi_in, linelen + 1);
            pmi_reply_error(rk, rk->discard_cmd, "line_too_long");
            continue;
        }
        memcpy(line, head, linelen);
        line[linelen] = '\0';
        buf_consume(&rk->pmi_in, linelen + 1);
        pmi_handle_line(job, rk, line);
    }
}

/* Reads requests from a rank. With drain, keeps reading until the socket is
 * empty (used when the rank has exited, to catch its last words). */
static void pmi_read(struct job *job, struct rank *rk, bool drain)
{
    size_t total = 0;

    while (rk->pmi_fd >= 0) {
        ssize_t n = read(rk->pmi_fd, job->readbuf, READ_CHUNK);

        if (n > 0) {
            buf_append(&rk->pmi_in, job->readbuf, (size_t)n);
            pmi_process_input(job, rk);
            total += (size_t)n;
            if (!drain || total > DRAIN_MAX) {
                return;
            }
        } else if (n == 0) {
            /* EOF: the rank is done with PMI. That is not an error by
             * itself; its exit status tells whether it failed. */
            pmi_flush(rk);
            pmi_close(rk);
        } else if (errno == EINTR) {
            continue;
        } else if (errno == EAGAIN || errno == EWOULDBLOCK) {
            return;
        } else {
            pmi_close(rk);
        }
    }
}

/* ------------------------------------------------------------------------ */
/* I/O forwarding                                                           */
/* ------------------------------------------------------------------------ */

/* Forwards the complete lines in st->pending with one write, each with its
 * tag when --tag-output is on. A partial line goes out only at EOF or when
 * it grows past IO_LINE_MAX. */
static void stream_emit(struct job *job, struct rank *rk, struct stream *st,
                        bool at_eof)
{
    struct buf *out = &job->scratch;
    char prefix[32];
    size_t plen = 0;
    size_t rest;

    if (job->opt.tag_output) {
        plen = (size_t)snprintf(prefix, sizeof(prefix), "[%d] ", rk->id);
    }
    buf_consume(out, buf_len(out));

    while (buf_len(&st->pending) > 0) {
        char *head = buf_head(&st->pending);
        char *nl = memchr(head, '\n', buf_len(&st->pending));
        size_t linelen;

        if (nl == NULL) {
            break;
        }
        linelen = (size_t)(nl - head) + 1;
        if (!st->midline) {
            buf_append(out, prefix, plen);
        }
        buf_append(out, head, linelen);
        buf_consume(&st->pending, linelen);
        st->midline = false;
    }

    rest = buf_len(&st->pending);
    if (rest > 0 && (at_eof || rest >= IO_LINE_MAX)) {
        if (!st->midline) {
            buf_append(out, prefix, plen);
        }
        buf_append(out, buf_head(&st->pending), rest);
        buf_consume(&st->pending, rest);
        st->midline = true;
        if (at_eof && job->opt.tag_output) {
            /* Without tags the bytes are passed through unchanged; with
             * tags the next rank's line must start on a line of its own. */
            buf_append(out, "\n", 1);
            st->midline = false;
        }
    }

    if (buf_len(out) > 0) {
        sink_write(st->dest, buf_head(out), buf_len(out));
    }
}

static void stream_close(struct job *job, struct rank *rk, struct stream *st)
{
    if (st->fd >= 0) {
        stream_emit(job, rk, st, true);
        close_fd(&st->fd);
    }
    buf_free(&st->pending);
}

static void stream_read(struct job *job, struct rank *rk, struct stream *st,
                        bool drain)
{
    size_t total = 0;

    while (st->fd >= 0) {
        ssize_t n = read(st->fd, job->readbuf, READ_CHUNK);

        if (n > 0) {
            buf_append(&st->pending, job->readbuf, (size_t)n);
            stream_emit(job, rk, st, false);
            total += (size_t)n;
            if (!drain || total > DRAIN_MAX) {
                return;
            }
        } else if (n == 0) {
            stream_close(job, rk, st);
        } else if (errno == EINTR) {
            continue;
        } else if (errno == EAGAIN || errno == EWOULDBLOCK) {
            return;
        } else {
            gc_msg("reading output of rank %d: %s", rk->id, strerror(errno));
            stream_close(job, rk, st);
        }
    }
}

static void stdin_stop(struct job *job)
{
    job->stdin_open = false;
    close_fd(&job->stdin_pipe);
    buf_free(&job->stdin_buf);
}

static void stdin_flush(struct job *job)
{
    while (job->stdin_pipe >= 0 && buf_len(&job->stdin_buf) > 0) {
        ssize_t n = write(job->stdin_pipe, buf_head(&job->stdin_buf),
                          buf_len(&job->stdin_buf));

        if (n > 0) {
            buf_consume(&job->stdin_buf, (size_t)n);
        } else if (n < 0 && errno == EINTR) {
            continue;
        } else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            return;
        } else {
            /* Rank 0 closed its stdin (or died): stop reading ours. */
            stdin_stop(job);
            return;
        }
    }
    if (!job->stdin_open && buf_len(&job->stdin_buf) == 0) {
        stdin_stop(job);
    }
}

static void stdin_read(struct job *job)
{
    ssize_t n = read(STDIN_FILENO, job->readbuf, READ_CHUNK);

    if (n > 0) {
        buf_append(&job->stdin_buf, job->readbuf, (size_t)n);
        stdin_flush(job);
    } else if (n == 0 ||
               (errno != EINTR && errno != EAGAIN && errno != EWOULDBLOCK)) {
        /* EOF, or an error such as EIO from a terminal we lost: either
         * way rank 0 sees end of input once the buffer is written. */
        job->stdin_open = false;
        stdin_flush(job);
    }
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
    (void)!write(sig_pipe[1], &c, 1);
    errno = saved;
}

static void setup_signals(void)
{
    struct sigaction sa;
    size_t i;

    if (pipe2(sig_pipe, O_CLOEXEC | O_NONBLOCK) != 0) {
        gc_msg("pipe: %s", strerror(errno));
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

static void rank_env_init(struct rank_env *re, bool with_host)
{
    extern char **environ;
    size_t n = 0;
    size_t i;

    while (environ[n] != NULL) {
        n++;
    }
    re->envp = xcalloc(n + RANK_ENV_VARS + 2, sizeof(char *));
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
static char *resolve_program(const char *prog, int *err)
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
        char *cand = xmalloc(size);

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
    _exit(exec_failure_status(err));
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

    if (cs->orig_nofile != NULL) {
        (void)setrlimit(RLIMIT_NOFILE, cs->orig_nofile);
    }
    sigprocmask(SIG_SETMASK, cs->orig_mask, NULL);
    execve(cs->path, cs->argv, cs->envp);
    child_fail(cs, 0, errno);
}

/* Sends sig to every rank that has not been reaped. Each pid is signalled
 * individually: simple, and it cannot hit an unrelated process group. */
static void signal_ranks(struct job *job, int sig)
{
    int r;

    for (r = 0; r < job->opt.nprocs; r++) {
        struct rank *rk = &job->ranks[r];

        if (rk->alive) {
            (void)kill(rk->pid, sig);
            rk->signalled = true;
        }
    }
}

struct launch {
    const char *path;
    struct rank_env env;
    const char *bind_name;
    hwloc_topology_t topo;
    hwloc_const_cpuset_t *cpusets; /* per rank; NULL entries: unbound */
    int report[2];
    int devnull;
    bool forward_stdin;
    sigset_t orig_mask;
    struct rlimit orig_nofile;
    bool nofile_raised;
};

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

    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
        gc_msg("socketpair: %s", strerror(errno));
        goto fail;
    }
    if (pipe2(outp, O_CLOEXEC) != 0 || pipe2(errp, O_CLOEXEC) != 0 ||
        (with_stdin && pipe2(inp, O_CLOEXEC) != 0)) {
        gc_msg("pipe: %s", strerror(errno));
        goto fail;
    }

    rank_env_fill(&ln->env, r, job->opt.nprocs, sv[1], ln->bind_name);
    if (job->opt.hosts != NULL) {
        rank_env_host(&ln->env, job->opt.hosts[job->opt.host_of[r]]);
    }
    memset(&cs, 0, sizeof(cs));
    cs.rank = r;
    cs.path = ln->path;
    cs.argv = job->opt.argv;
    cs.envp = ln->env.envp;
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
        gc_msg("fork: %s", strerror(errno));
        goto fail;
    }
    if (pid == 0) {
        child_exec(&cs);
    }

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
    close_fd(&inp[0]);
    set_nonblock(sv[0]);
    set_nonblock(outp[0]);
    set_nonblock(errp[0]);
    rk->pid = pid;
    rk->alive = true;
    rk->pmi_fd = sv[0];
    rk->out.fd = outp[0];
    rk->err.fd = errp[0];
    if (with_stdin) {
        set_nonblock(inp[1]);
        job->stdin_pipe = inp[1];
        job->stdin_open = true;
    }
    job->nalive++;
    return 0;

fail:
    close_fd(&sv[0]);
    close_fd(&sv[1]);
    close_fd(&outp[0]);
    close_fd(&outp[1]);
    close_fd(&errp[0]);
    close_fd(&errp[1]);
    close_fd(&inp[0]);
    close_fd(&inp[1]);
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
static void launch_ranks(struct job *job, struct launch *ln)
{
    sigset_t block;
    struct exec_report rep;
    bool failed = false;
    int r;

    ln->forward_stdin = want_stdin();
    rank_env_init(&ln->env, job->opt.hosts != NULL);
    raise_fd_limit(ln, job->opt.nprocs);
    if (pipe2(ln->report, O_CLOEXEC) != 0) {
        gc_msg("pipe: %s", strerror(errno));
        exit(1);
    }
    ln->devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (ln->devnull < 0) {
        gc_msg("/dev/null: %s", strerror(errno));
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
    close_fd(&ln->report[1]);
    close_fd(&ln->devnull);
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
                gc_msg("rank %d: setting up the process failed: %s",
                       rep.rank, strerror(rep.err));
            } else {
                gc_msg("cannot execute '%s': %s", job->opt.argv[0],
                       strerror(rep.err));
            }
        }
        failed = true;
        record_status(job, exec_failure_status(rep.err));
    }
    close_fd(&ln->report[0]);

    if (failed) {
        /* The job cannot work without every rank: stop the others now. */
        record_status(job, 1);
        job->state = JOB_ENDING;
        signal_ranks(job, SIGTERM);
        job->kill_at = now_ms() + KILL_DELAY_MS;
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
    bool quiet = rk->signalled || rk->exec_failed || rk->aborted ||
                 job->aborting;
    int status = 0;
    char name[32];

    rk->alive = false;
    job->nalive--;
    if (job->nalive == 0) {
        job->linger_until = now_ms() + LINGER_MS;
    }

    /* Take in what the rank said last (an abort request, its last output
     * lines) before reporting its death, so the log reads in order. */
    pmi_read(job, rk, true);
    stream_read(job, rk, &rk->out, true);
    stream_read(job, rk, &rk->err, true);
    if (rk->id == 0) {
        stdin_stop(job);
    }

    if (WIFEXITED(wstatus)) {
        status = WEXITSTATUS(wstatus);
        if (status != 0 && !quiet) {
            gc_msg("rank %d (pid %ld) exited with status %d", rk->id,
                   (long)rk->pid, status);
        }
    } else if (WIFSIGNALED(wstatus)) {
        int sig = WTERMSIG(wstatus);

        status = 128 + sig;
        if (!quiet) {
            gc_msg("rank %d (pid %ld) killed by signal %d (%s)", rk->id,
                   (long)rk->pid, sig, signal_name(sig, name, sizeof(name)));
        }
    }
    if (status == 0) {
        return; /* finishing early is normal */
    }
    record_status(job, status);
    if (!quiet) {
        notify_peer_died(job, rk);
        begin_ending(job);
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
        }
    }
}

static void on_gcrun_signal(struct job *job, int sig)
{
    if (job->got_signal != 0) {
        /* Asked twice: the user does not want to wait any longer. */
        signal_ranks(job, SIGKILL);
        job->kill_at = -1;
        return;
    }
    job->got_signal = sig;
    gc_msg("received signal %d, ending the job", sig);
    record_status(job, 128 + sig);
    job->state = JOB_ENDING;
    job->term_at = -1;
    signal_ranks(job, SIGTERM);
    job->kill_at = now_ms() + KILL_DELAY_MS;
}

static void handle_signal_pipe(struct job *job)
{
    unsigned char sigs[64];
    bool chld = false;

    for (;;) {
        ssize_t n = read(sig_pipe[0], sigs, sizeof(sigs));
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

static void check_timers(struct job *job)
{
    int64_t now = now_ms();

    if (job->term_at >= 0 && now >= job->term_at) {
        job->term_at = -1;
        signal_ranks(job, SIGTERM);
        job->kill_at = now + KILL_DELAY_MS;
    }
    if (job->kill_at >= 0 && now >= job->kill_at) {
        job->kill_at = -1;
        signal_ranks(job, SIGKILL);
    }
}

/* ------------------------------------------------------------------------ */
/* Binding                                                                  */
/* ------------------------------------------------------------------------ */

struct binding {
    hwloc_topology_t topo; /* NULL when not loaded */
    enum bind_policy used;
    hwloc_const_cpuset_t *sets;
};

static const char *bind_name(enum bind_policy p)
{
    switch (p) {
    case BIND_CORE:
        return "core";
    case BIND_NUMA:
        return "numa";
    default:
        return "none";
    }
}

/* When gcrun itself runs restricted (taskset, a batch system), the ranks
 * stay inside that set: cut the topology down to it. */
static bool restrict_to_own_binding(hwloc_topology_t topo)
{
    hwloc_bitmap_t own = hwloc_bitmap_alloc();
    bool ok = true;

    if (own == NULL) {
        return true;
    }
    if (hwloc_get_cpubind(topo, own, HWLOC_CPUBIND_PROCESS) == 0 &&
        !hwloc_bitmap_iszero(own) &&
        !hwloc_bitmap_isincluded(hwloc_topology_get_topology_cpuset(topo),
                                 own)) {
        if (hwloc_topology_restrict(topo, own, 0) != 0) {
            /* EINVAL leaves the topology as it was; ENOMEM resets it. */
            ok = errno != ENOMEM;
        }
    }
    hwloc_bitmap_free(own);
    return ok;
}

static void binding_plan(struct binding *b, enum bind_policy want,
                         int nprocs)
{
    hwloc_topology_t topo;
    hwloc_obj_type_t unit = HWLOC_OBJ_CORE;
    int nunits;
    int r;

    b->topo = NULL;
    b->used = BIND_NONE;
    b->sets = NULL;
    if (want == BIND_NONE) {
        return;
    }
    if (hwloc_topology_init(&topo) != 0) {
        gc_msg("warning: hwloc: %s; not binding", strerror(errno));
        return;
    }
    if (hwloc_topology_load(topo) != 0 || !restrict_to_own_binding(topo)) {
        gc_msg("warning: cannot load the hwloc topology; not binding");
        hwloc_topology_destroy(topo);
        return;
    }

    nunits = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE);
    if (nunits <= 0) {
        unit = HWLOC_OBJ_PU;
        nunits = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU);
    }
    if (nunits <= 0) {
        gc_msg("warning: hwloc found no processors; not binding");
        hwloc_topology_destroy(topo);
        return;
    }
    if (want == BIND_AUTO) {
        want = nprocs <= nunits ? BIND_CORE : BIND_NONE;
    }
    if (want == BIND_NONE) {
        hwloc_topology_destroy(topo);
        return;
    }

    b->sets = xcalloc((size_t)nprocs, sizeof(*b->sets));
    if (want == BIND_CORE) {
        for (r = 0; r < nprocs; r++) {
            hwloc_obj_t obj = hwloc_get_obj_by_type(topo, unit,
                                                    (unsigned)(r % nunits));

            b->sets[r] = obj == NULL ? NULL : obj->cpuset;
        }
    } else {
        /* NUMA nodes without processors (e.g. memory-only nodes) cannot
         * run a rank: use only those with a non-empty cpuset. */
        int nnodes = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_NUMANODE);
        hwloc_obj_t *nodes = xcalloc(nnodes > 0 ? (size_t)nnodes : 1,
                                     sizeof(*nodes));
        int nusable = 0;
        int i;

        for (i = 0; i < nnodes; i++) {
            hwloc_obj_t node = hwloc_get_obj_by_type(topo,
                                                     HWLOC_OBJ_NUMANODE,
                                                     (unsigned)i);

            if (node != NULL && node->cpuset != NULL &&
                !hwloc_bitmap_iszero(node->cpuset)) {
                nodes[nusable++] = node;
            }
        }
        for (r = 0; r < nprocs; r++) {
            b->sets[r] = nusable > 0
                             ? nodes[r % nusable]->cpuset
                             : hwloc_topology_get_topology_cpuset(topo);
        }
        free(nodes);
    }
    b->topo = topo;
    b->used = want;
}

static void binding_free(struct binding *b)
{
    free(b->sets);
    b->sets = NULL;
    if (b->topo != NULL) {
        hwloc_topology_destroy(b->topo);
        b->topo = NULL;
    }
}

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

    poll_add(job, &n, sig_pipe[0], POLLIN, REF_SIGNAL, -1);
    if (job->stdin_pipe >= 0) {
        if (buf_len(&job->stdin_buf) > 0) {
            poll_add(job, &n, job->stdin_pipe, POLLOUT, REF_STDIN_PIPE, 0);
        } else if (job->stdin_open) {
            poll_add(job, &n, STDIN_FILENO, POLLIN, REF_STDIN, 0);
        }
    }
    for (r = 0; r < job->opt.nprocs; r++) {
        struct rank *rk = &job->ranks[r];

        if (rk->pmi_fd >= 0 && job->nalive > 0) {
            short ev = 0;

            if (buf_len(&rk->pmi_out) < PMI_OUT_HIGH) {
                ev |= POLLIN;
            }
            if (buf_len(&rk->pmi_out) > 0) {
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
    int64_t now = now_ms();
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
            stdin_read(job);
        }
        break;
    case REF_STDIN_PIPE:
        if (job->stdin_pipe == p->fd) {
            stdin_flush(job);
        }
        break;
    case REF_PMI:
        if (rk->pmi_fd == p->fd && (p->revents & (POLLOUT | POLLERR)) != 0) {
            pmi_flush(rk);
        }
        if (rk->pmi_fd == p->fd &&
            (p->revents & (POLLIN | POLLHUP | POLLERR)) != 0) {
            pmi_read(job, rk, false);
        }
        break;
    case REF_OUT:
        if (rk->out.fd == p->fd) {
            stream_read(job, rk, &rk->out, false);
        }
        break;
    case REF_ERR:
        if (rk->err.fd == p->fd) {
            stream_read(job, rk, &rk->err, false);
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

        if (job->nalive == 0 &&
            (!streams_open(job) || now_ms() >= job->linger_until)) {
            break;
        }
        n = poll_build(job);
        rc = poll(job->pfds, (nfds_t)n, poll_timeout(job));
        if (rc < 0 && errno != EINTR) {
            gc_msg("poll: %s", strerror(errno));
            signal_ranks(job, SIGKILL);
            record_status(job, 1);
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
            handle_signal_pipe(job);
        }
        check_timers(job);
    }
}

static int64_t grace_from_env(void)
{
    const char *s = getenv("GENCOMM_KILL_GRACE_MS");
    long v;

    if (s == NULL || *s == '\0') {
        return DEFAULT_GRACE_MS;
    }
    if (!parse_long(s, &v) || v < 0) {
        gc_msg("warning: ignoring invalid GENCOMM_KILL_GRACE_MS='%s'", s);
        return DEFAULT_GRACE_MS;
    }
    return v;
}

static void job_init(struct job *job)
{
    int r;

    job->ranks = xcalloc((size_t)job->opt.nprocs, sizeof(*job->ranks));
    for (r = 0; r < job->opt.nprocs; r++) {
        struct rank *rk = &job->ranks[r];

        rk->id = r;
        rk->pmi_fd = -1;
        rk->out.fd = -1;
        rk->out.dest = STDOUT_FILENO;
        rk->err.fd = -1;
        rk->err.dest = STDERR_FILENO;
    }
    snprintf(job->kvsname, sizeof(job->kvsname), "gcrun_%ld",
             (long)getpid());
    kvs_init(&job->kvs);
    job->stdin_pipe = -1;
    job->state = JOB_RUNNING;
    job->grace_ms = grace_from_env();
    job->term_at = -1;
    job->kill_at = -1;
    job->linger_until = -1;
    job->readbuf = xmalloc(READ_CHUNK);
    job->poll_cap = 3 * (size_t)job->opt.nprocs + 4;
    job->pfds = xcalloc(job->poll_cap, sizeof(*job->pfds));
    job->refs = xcalloc(job->poll_cap, sizeof(*job->refs));
}

static void job_free(struct job *job)
{
    int r;

    for (r = 0; r < job->opt.nprocs; r++) {
        struct rank *rk = &job->ranks[r];

        pmi_close(rk);
        /* A partial line still pending goes out as at EOF. */
        stream_close(job, rk, &rk->out);
        stream_close(job, rk, &rk->err);
    }
    stdin_stop(job);
    kvs_free(&job->kvs);
    buf_free(&job->scratch);
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
    ensure_std_fds();
    parse_args(argc, argv, &job.opt);

    /* Catch a missing program before anything is started, with the same
     * message a failed exec in a child would give. */
    path = resolve_program(job.opt.argv[0], &err);
    if (path == NULL) {
        gc_msg("cannot execute '%s': %s", job.opt.argv[0], strerror(err));
        return exec_failure_status(err);
    }

    setup_signals();
    binding_plan(&bind, job.opt.bind, job.opt.nprocs);
    job_init(&job);

    ln.path = path;
    ln.bind_name = bind_name(bind.used);
    ln.topo = bind.topo;
    ln.cpusets = bind.sets;
    ln.report[0] = -1;
    ln.report[1] = -1;
    ln.devnull = -1;
    launch_ranks(&job, &ln);
    if (job.nalive == 0) {
        job.linger_until = now_ms() + LINGER_MS;
    }

    main_loop(&job);

    status = job.exit_status;
    job_free(&job);
    binding_free(&bind);
    free(path);
    close_fd(&sig_pipe[0]);
    close_fd(&sig_pipe[1]);
    return status;
}
