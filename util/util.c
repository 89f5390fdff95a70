/*
 * util/util.c: logging, settings, error text, random bytes and time.
 */
#include "config.h"

#include "util/util.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

int gcm_log_level_current = GCM_LOG_WARN;
gcm_config_t gcm_config;

static FILE *gcm_log_stream;

static const char *const gcm_log_level_names[] = {
    "error", "warn", "info", "debug", "trace"
};

void gcm_log_emit(gcm_log_level_t level, const char *file, int line,
                  const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    FILE *stream = (gcm_log_stream != NULL) ? gcm_log_stream : stderr;
    const char *base = strrchr(file, '/');

    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    /* One fprintf per line so that lines of different threads do not mix. */
    fprintf(stream, "[gencomm %d %s:%d] %s: %s\n", (int)getpid(),
            (base != NULL) ? base + 1 : file, line,
            gcm_log_level_names[level], msg);
}

/* ---- errors ----------------------------------------------------------- */

static __thread char gcm_last_error_text[512];

#define GCM_STATUS_STRING_CASE(_name, _value, _text) case _name: return _text;

const char *gcm_status_string(gcm_status_t status)
{
    switch (status) {
    GCM_FOREACH_STATUS(GCM_STATUS_STRING_CASE)
    default:
        return "unknown status code";
    }
}

gcm_status_t gcm_fail(gcm_status_t status, const char *call,
                      const char *fmt, ...)
{
    char reason[400];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(reason, sizeof(reason), fmt, ap);
    va_end(ap);
    snprintf(gcm_last_error_text, sizeof(gcm_last_error_text),
             "%s: %s (%s)", call, reason, gcm_status_string(status));
    gcm_debug("%s", gcm_last_error_text);
    return status;
}

const char *gcm_last_error(void)
{
    return gcm_last_error_text;
}

/* ---- settings ---------------------------------------------------------- */

typedef enum {
    GCM_CFG_INT,
    GCM_CFG_SIZE,
    GCM_CFG_LEVEL,
    GCM_CFG_CHOICE    /* one word of a list: the field is its index */
} gcm_cfg_kind_t;

typedef struct gcm_config_entry {
    const char     *name;
    const char     *dflt;
    gcm_cfg_kind_t  kind;
    size_t          offset;
    const char     *doc;
    const char     *words;   /* GCM_CFG_CHOICE: the list, '|' between */
    /* GCM_CFG_INT only: the accepted range when max > 0; a value outside
     * is clamped into it, with a warning. */
    unsigned        min;
    unsigned        max;
} gcm_config_entry_t;

#define GCM_CFG(_name, _dflt, _kind, _field, _doc) \
    { _name, _dflt, _kind, offsetof(gcm_config_t, _field), _doc, NULL, \
      0, 0 }
#define GCM_CFG_RANGE(_name, _dflt, _field, _min, _max, _doc) \
    { _name, _dflt, GCM_CFG_INT, offsetof(gcm_config_t, _field), _doc, \
      NULL, _min, _max }

/* A choice whose first word is the default. */
#define GCM_CFG_WORDS(_name, _words, _field, _doc) \
    { _name, NULL, GCM_CFG_CHOICE, offsetof(gcm_config_t, _field), _doc, \
      _words, 0, 0 }

#define GCM_STR_(_x) #_x
#define GCM_STR(_x)  GCM_STR_(_x)

/* Every GENCOMM_* setting the library reads; docs/env.md lists the same. */
static const gcm_config_entry_t gcm_config_table[] = {
    GCM_CFG("GENCOMM_LOG_LEVEL", "warn", GCM_CFG_LEVEL, log_level,
            "error, warn, info, debug or trace"),
    GCM_CFG("GENCOMM_EAGER_LIMIT", "8192", GCM_CFG_SIZE, eager_limit,
            "largest message sent eagerly; larger ones use rendezvous"),
    GCM_CFG("GENCOMM_SPIN_COUNT", "2000", GCM_CFG_INT, spin_count,
            "progress rounds a waiting thread spins before it sleeps"),
    GCM_CFG("GENCOMM_WAIT_TIMEOUT_MS", "100", GCM_CFG_INT, wait_timeout_ms,
            "longest single sleep of a waiting thread (ms)"),
    GCM_CFG("GENCOMM_PRINT_CONFIG", "0", GCM_CFG_INT, print_config,
            "print every setting at init when 1"),
    GCM_CFG("GENCOMM_SHM", "1", GCM_CFG_INT, shm,
            "1: processes on one host talk through shared memory; "
            "0: over UCX"),
    GCM_CFG("GENCOMM_HIER_HWLOC", "1", GCM_CFG_INT, hier_hwloc,
            "1: hierarchy levels below the host from hwloc; 0: host only"),
    GCM_CFG("GENCOMM_CHECK_COLLECTIVES", "0", GCM_CFG_INT, check_collectives,
            "1: the members of every MPI collective first check that they "
            "made the same call with matching arguments"),
    /* The collectives' choices: the word lists are in the order of the
     * names in coll/coll_impl.h. */
    GCM_CFG_WORDS("GENCOMM_COLL_HIER", "auto|0|1", coll_hier,
                  "hierarchical collectives (node, leaders, node): auto "
                  "when a communicator spans several nodes and some node "
                  "holds several of its members; 0 never; 1 always"),
    GCM_CFG_WORDS("GENCOMM_COLL_BARRIER", "auto|dissemination|linear",
                  coll_barrier, "barrier algorithm"),
    GCM_CFG_WORDS("GENCOMM_COLL_BCAST",
                  "auto|binomial|scatter_allgather|linear", coll_bcast,
                  "broadcast algorithm"),
    GCM_CFG_WORDS("GENCOMM_COLL_REDUCE", "auto|binomial|rabenseifner",
                  coll_reduce, "reduce algorithm (rabenseifner: "
                  "commutative operators only)"),
    GCM_CFG_WORDS("GENCOMM_COLL_ALLREDUCE",
                  "auto|recursive_doubling|rabenseifner", coll_allreduce,
                  "allreduce algorithm (rabenseifner: commutative "
                  "operators only)"),
    GCM_CFG_WORDS("GENCOMM_COLL_REDUCE_SCATTER",
                  "auto|recursive_halving|reduce_scatterv",
                  coll_reduce_scatter, "reduce_scatter algorithm "
                  "(recursive_halving: commutative operators only)"),
    GCM_CFG_WORDS("GENCOMM_COLL_SCAN", "auto|linear|recursive_doubling",
                  coll_scan, "scan and exscan algorithm"),
    GCM_CFG_WORDS("GENCOMM_COLL_GATHER", "auto|binomial|linear",
                  coll_gather, "gather and scatter algorithm"),
    GCM_CFG_WORDS("GENCOMM_COLL_ALLGATHER",
                  "auto|recursive_doubling|bruck|ring", coll_allgather,
                  "allgather algorithm (recursive_doubling: powers of "
                  "two only)"),
    GCM_CFG_WORDS("GENCOMM_COLL_ALLTOALL", "auto|bruck|pairwise",
                  coll_alltoall, "alltoall algorithm"),
    GCM_CFG("GENCOMM_COLL_BCAST_LARGE", GCM_STR(GCM_COLL_BCAST_LARGE),
            GCM_CFG_SIZE, coll_bcast_large,
            "broadcasts of this many bytes and more: scatter + allgather"),
    GCM_CFG("GENCOMM_COLL_REDUCE_LARGE", GCM_STR(GCM_COLL_REDUCE_LARGE),
            GCM_CFG_SIZE, coll_reduce_large,
            "reduce and allreduce of this many bytes and more: recursive "
            "halving (Rabenseifner) for commutative operators"),
    GCM_CFG("GENCOMM_COLL_GATHER_LARGE", GCM_STR(GCM_COLL_GATHER_LARGE),
            GCM_CFG_SIZE, coll_gather_large,
            "gather/scatter blocks of this many bytes and more: linear"),
    GCM_CFG("GENCOMM_COLL_ALLGATHER_LARGE",
            GCM_STR(GCM_COLL_ALLGATHER_LARGE), GCM_CFG_SIZE,
            coll_allgather_large,
            "allgather of this many bytes in all and more: ring"),
    GCM_CFG("GENCOMM_COLL_ALLTOALL_SMALL", GCM_STR(GCM_COLL_ALLTOALL_SMALL),
            GCM_CFG_SIZE, coll_alltoall_small,
            "alltoall blocks of at most this many bytes: Bruck"),
    GCM_CFG("GENCOMM_COLL_SCAN_LINEAR_MAX",
            GCM_STR(GCM_COLL_SCAN_LINEAR_MAX), GCM_CFG_INT,
            coll_scan_linear_max,
            "scans over at most this many processes: linear pipeline"),
    GCM_CFG("GENCOMM_COLL_BCAST_LINEAR_MAX",
            GCM_STR(GCM_COLL_BCAST_LINEAR_MAX), GCM_CFG_INT,
            coll_bcast_linear_max,
            "broadcasts below GENCOMM_COLL_BCAST_LARGE over at most this "
            "many processes: linear (the root sends to each)"),
    GCM_CFG("GENCOMM_COLL_BARRIER_LINEAR_MAX",
            GCM_STR(GCM_COLL_BARRIER_LINEAR_MAX), GCM_CFG_INT,
            coll_barrier_linear_max,
            "barriers over 3 to this many processes: linear (gather at "
            "rank 0, then release)"),
    GCM_CFG("GENCOMM_COLL_SEGMENT", GCM_STR(GCM_COLL_SEGMENT),
            GCM_CFG_SIZE, coll_segment,
            "piece size of the pipelined scan (bytes)"),
    GCM_CFG_RANGE("GENCOMM_MAX_ENDPOINTS", "8", max_endpoints, 1,
                  GCM_MAX_ENDPOINTS,
                  "endpoints (UCX workers) per process, made at init: "
                  "threads and communicators spread over them"),
    GCM_CFG("GENCOMM_PROGRESS_THREAD", "0", GCM_CFG_INT, progress_thread,
            "1: a thread per process progresses the endpoints nobody "
            "waits on; 0: only calls into the library progress"),
    GCM_CFG_RANGE("GENCOMM_CONNECT_TIMEOUT", "30", connect_timeout, 1,
                  86400,
                  "seconds to reach a process of another job (a name's "
                  "contact, MPI_Comm_connect) before giving up"),
};

static int gcm_config_parse_level(const char *text)
{
    size_t i;

    for (i = 0; i < sizeof(gcm_log_level_names) /
                    sizeof(gcm_log_level_names[0]); i++) {
        if (strcasecmp(text, gcm_log_level_names[i]) == 0) {
            return (int)i;
        }
    }
    return -1;
}

static size_t gcm_config_parse_size(const char *text, int *ok_p)
{
    char *end;
    unsigned long long value = strtoull(text, &end, 0);

    *ok_p = (end != text);
    switch (*end) {
    case 'k': case 'K': value <<= 10; end++; break;
    case 'm': case 'M': value <<= 20; end++; break;
    case 'g': case 'G': value <<= 30; end++; break;
    default: break;
    }
    if (*end != '\0') {
        *ok_p = 0;
    }
    return (size_t)value;
}

/* The index of word in the '|'-separated list words, or -1. */
static int gcm_config_parse_word(const char *words, const char *word)
{
    size_t n = strlen(word);
    const char *p = words;
    int i = 0;

    while (p != NULL) {
        const char *bar = strchr(p, '|');
        size_t len = (bar != NULL) ? (size_t)(bar - p) : strlen(p);

        if ((len == n) && (strncasecmp(p, word, n) == 0)) {
            return i;
        }
        p = (bar != NULL) ? bar + 1 : NULL;
        i++;
    }
    return -1;
}

/* The default text of an entry (a choice's first word). */
static const char *gcm_config_default(const gcm_config_entry_t *e,
                                      char *buf, size_t len)
{
    size_t n;

    if (e->kind != GCM_CFG_CHOICE) {
        return e->dflt;
    }
    n = strcspn(e->words, "|");
    snprintf(buf, len, "%.*s", (int)n, e->words);
    return buf;
}

static void gcm_config_set(const gcm_config_entry_t *e, const char *text,
                           int from_env)
{
    char *field = (char *)&gcm_config + e->offset;
    char dflt[64];
    int ok = 1;
    int level;
    size_t value;

    switch (e->kind) {
    case GCM_CFG_CHOICE:
        level = gcm_config_parse_word(e->words, text);
        if (level < 0) {
            ok    = 0;
            level = 0;
        }
        *(int *)field = level;
        break;
    case GCM_CFG_LEVEL:
        level = gcm_config_parse_level(text);
        if (level < 0) {
            ok    = 0;
            level = GCM_LOG_WARN;
        }
        *(int *)field = level;
        break;
    case GCM_CFG_SIZE:
        value = gcm_config_parse_size(text, &ok);
        *(size_t *)field = value;
        break;
    case GCM_CFG_INT:
        value = gcm_config_parse_size(text, &ok);
        if (ok && (e->max > 0) && ((value < e->min) || (value > e->max))) {
            size_t clamped = (value < e->min) ? e->min : e->max;
            fprintf(stderr, "gencomm: warning: %s='%s' is outside %u..%u, "
                    "using %zu\n", e->name, text, e->min, e->max, clamped);
            value = clamped;
        }
        *(unsigned *)field = (unsigned)value;
        break;
    }
    if (!ok && from_env) {
        const char *d = gcm_config_default(e, dflt, sizeof(dflt));

        if (e->kind == GCM_CFG_CHOICE) {
            fprintf(stderr, "gencomm: warning: %s='%s' is not one of %s, "
                    "using %s\n", e->name, text, e->words, d);
        } else {
            fprintf(stderr, "gencomm: warning: %s='%s' is not valid, "
                    "using %s\n", e->name, text, d);
        }
        gcm_config_set(e, d, 0);
    }
}

void gcm_config_load(void)
{
    size_t n = sizeof(gcm_config_table) / sizeof(gcm_config_table[0]);
    const char *file;
    size_t i;

    for (i = 0; i < n; i++) {
        const char *env = getenv(gcm_config_table[i].name);
        char dflt[64];

        gcm_config_set(&gcm_config_table[i],
                       gcm_config_default(&gcm_config_table[i], dflt,
                                          sizeof(dflt)), 0);
        if (env != NULL) {
            gcm_config_set(&gcm_config_table[i], env, 1);
        }
    }
    gcm_log_level_current = gcm_config.log_level;

    file = getenv("GENCOMM_LOG_FILE");
    if ((file != NULL) && (gcm_log_stream == NULL)) {
        gcm_log_stream = fopen(file, "a");
        if (gcm_log_stream == NULL) {
            fprintf(stderr, "gencomm: cannot open GENCOMM_LOG_FILE %s: %s\n",
                    file, strerror(errno));
        } else {
            setvbuf(gcm_log_stream, NULL, _IOLBF, 0);
        }
    }

    if (gcm_config.print_config) {
        for (i = 0; i < n; i++) {
            const gcm_config_entry_t *e = &gcm_config_table[i];
            const char *env = getenv(e->name);
            char dflt[64];

            if (e->kind == GCM_CFG_CHOICE) {
                printf("# %s (%s)\n", e->doc, e->words);
            } else {
                printf("# %s\n", e->doc);
            }
            printf("%s=%s\n", e->name, (env != NULL) ? env :
                   gcm_config_default(e, dflt, sizeof(dflt)));
        }
    }
}

/* ---- misc -------------------------------------------------------------- */

/* ---- ChaCha20 (RFC 8439, section 2.3) ---------------------------------- */

static uint32_t gcm_rotl32(uint32_t v, int n)
{
    return (v << n) | (v >> (32 - n));
}

static uint32_t gcm_load32(const unsigned char *p)
{
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) |
           ((uint32_t)p[3] << 24);
}

#define GCM_CHACHA_QR(_a, _b, _c, _d) \
    do { \
        _a += _b; _d = gcm_rotl32(_d ^ _a, 16); \
        _c += _d; _b = gcm_rotl32(_b ^ _c, 12); \
        _a += _b; _d = gcm_rotl32(_d ^ _a, 8); \
        _c += _d; _b = gcm_rotl32(_b ^ _c, 7); \
    } while (0)

void gcm_chacha20_block(const unsigned char key[32], uint32_t counter,
                        const unsigned char nonce[12], unsigned char out[64])
{
    uint32_t in[16], x[16];
    int i;

    in[0] = 0x61707865u;   /* "expand 32-byte k" */
    in[1] = 0x3320646eu;
    in[2] = 0x79622d32u;
    in[3] = 0x6b206574u;
    for (i = 0; i < 8; i++) {
        in[4 + i] = gcm_load32(key + 4 * i);
    }
    in[12] = counter;
    for (i = 0; i < 3; i++) {
        in[13 + i] = gcm_load32(nonce + 4 * i);
    }
    memcpy(x, in, sizeof(x));
    for (i = 0; i < 10; i++) {
        GCM_CHACHA_QR(x[0], x[4], x[8], x[12]);
        GCM_CHACHA_QR(x[1], x[5], x[9], x[13]);
        GCM_CHACHA_QR(x[2], x[6], x[10], x[14]);
        GCM_CHACHA_QR(x[3], x[7], x[11], x[15]);
        GCM_CHACHA_QR(x[0], x[5], x[10], x[15]);
        GCM_CHACHA_QR(x[1], x[6], x[11], x[12]);
        GCM_CHACHA_QR(x[2], x[7], x[8], x[13]);
        GCM_CHACHA_QR(x[3], x[4], x[9], x[14]);
    }
    for (i = 0; i < 16; i++) {
        uint32_t v = x[i] + in[i];

        out[4 * i]     = (unsigned char)v;
        out[4 * i + 1] = (unsigned char)(v >> 8);
        out[4 * i + 2] = (unsigned char)(v >> 16);
        out[4 * i + 3] = (unsigned char)(v >> 24);
    }
}

/*
 * Random bytes. A getrandom call is a system call, and the kernel's
 * generator costs some 6 ns a byte on top (about 1.6 us for 256 bytes in
 * a virtual machine); every LCO draws its generation, its token and a
 * token per receive slot, and one call each made channel creation cost
 * several microseconds. So each thread runs a fast-key-erasure generator
 * (as OpenBSD's arc4random): a ChaCha20 key from the kernel makes a few
 * blocks, the first 32 bytes of which replace the key at once, the rest
 * being handed out once each and wiped. Bytes handed out never tell the
 * key that made them nor the next one. The key is taken from the kernel
 * again every GCM_RANDOM_RESEED refills, and after a fork: a child must
 * not repeat its parent's draws.
 */
#define GCM_RANDOM_BLOCKS 5
#define GCM_RANDOM_POOL   (GCM_RANDOM_BLOCKS * 64 - 32)
#define GCM_RANDOM_RESEED 1024

typedef struct gcm_random_state {
    unsigned char key[32];
    unsigned char pool[GCM_RANDOM_POOL];
    size_t        left;     /* unused bytes at the start of pool */
    unsigned      refills;  /* until the kernel gives a new key: 0 */
} gcm_random_state_t;

static __thread gcm_random_state_t gcm_random_state;
static pthread_once_t gcm_random_once = PTHREAD_ONCE_INIT;

/* Fills buf straight from the kernel. */
static void gcm_random_kernel(unsigned char *p, size_t len)
{
    while (len > 0) {
        ssize_t got = getrandom(p, len, 0);
        if (got < 0) {
            if (errno == EINTR) {
                continue;
            }
            /* No entropy source at all: fall back to time and address. */
            uint64_t x = (uint64_t)(gcm_time_now() * 1e9) ^ (uintptr_t)p;
            size_t k = (len < sizeof(x)) ? len : sizeof(x);
            memcpy(p, &x, k);
            got = (ssize_t)k;
        }
        p   += got;
        len -= (size_t)got;
    }
}

void gcm_random_kernel_bytes(void *buf, size_t len)
{
    gcm_random_kernel(buf, len);
}

uint64_t gcm_prf64(const unsigned char key[32], uint32_t label, uint64_t x)
{
    unsigned char nonce[12], out[64];
    uint64_t v = 0;
    int i;

    for (i = 0; i < 4; i++) {
        nonce[i] = (unsigned char)(label >> (8 * i));
    }
    for (i = 0; i < 8; i++) {
        nonce[4 + i] = (unsigned char)(x >> (8 * i));
    }
    gcm_chacha20_block(key, 0, nonce, out);
    for (i = 0; i < 8; i++) {
        v |= (uint64_t)out[i] << (8 * i);
    }
    return v;
}

static void gcm_random_forked(void)
{
    gcm_random_state_t *st = &gcm_random_state;

    st->left    = 0;
    st->refills = 0;
}

static void gcm_random_atfork(void)
{
    pthread_atfork(NULL, NULL, gcm_random_forked);
}

static void gcm_random_refill(gcm_random_state_t *st)
{
    static const unsigned char nonce[12];
    unsigned char out[GCM_RANDOM_BLOCKS * 64];
    uint32_t b;

    if (st->refills == 0) {
        gcm_random_kernel(st->key, sizeof(st->key));
        st->refills = GCM_RANDOM_RESEED;
    }
    st->refills--;
    /* Each key makes one batch only, so nonce and counter may repeat. */
    for (b = 0; b < GCM_RANDOM_BLOCKS; b++) {
        gcm_chacha20_block(st->key, b, nonce, out + 64 * b);
    }
    memcpy(st->key, out, sizeof(st->key));
    memcpy(st->pool, out + sizeof(st->key), sizeof(st->pool));
    memset(out, 0, sizeof(out));
    st->left = sizeof(st->pool);
}

void gcm_random_bytes(void *buf, size_t len)
{
    gcm_random_state_t *st = &gcm_random_state;
    unsigned char *p = buf;

    pthread_once(&gcm_random_once, gcm_random_atfork);
    while (len > 0) {
        size_t k;

        if (st->left == 0) {
            gcm_random_refill(st);
        }
        k = (len < st->left) ? len : st->left;
        /* Taken from the end and wiped: a byte handed out once is gone. */
        st->left -= k;
        memcpy(p, st->pool + st->left, k);
        memset(st->pool + st->left, 0, k);
        p   += k;
        len -= k;
    }
}

double gcm_time_now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

uint64_t gcm_hash64(const void *data, size_t len)
{
    const unsigned char *p = data;
    uint64_t h = 1469598103934665603ULL;
    size_t i;

    for (i = 0; i < len; i++) {
        h ^= p[i];
        h *= 1099511628211ULL;
    }
    return h;
}
