/*
 * util/util.c: logging, settings, error text, random bytes and time.
 */
#include "config.h"

#include "util/util.h"

#include <errno.h>
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

typedef enum { GCM_CFG_INT, GCM_CFG_SIZE, GCM_CFG_LEVEL } gcm_cfg_kind_t;

typedef struct gcm_config_entry {
    const char     *name;
    const char     *dflt;
    gcm_cfg_kind_t  kind;
    size_t          offset;
    const char     *doc;
    /* GCM_CFG_INT only: the accepted range when max > 0; a value outside
     * is clamped into it, with a warning. */
    unsigned        min;
    unsigned        max;
} gcm_config_entry_t;

#define GCM_CFG(_name, _dflt, _kind, _field, _doc) \
    { _name, _dflt, _kind, offsetof(gcm_config_t, _field), _doc, 0, 0 }
#define GCM_CFG_RANGE(_name, _dflt, _field, _min, _max, _doc) \
    { _name, _dflt, GCM_CFG_INT, offsetof(gcm_config_t, _field), _doc, \
      _min, _max }

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
    GCM_CFG_RANGE("GENCOMM_MAX_ENDPOINTS", "8", max_endpoints, 1,
                  GCM_MAX_ENDPOINTS,
                  "endpoints (UCX workers) per process, made at init: "
                  "threads and communicators spread over them"),
    GCM_CFG("GENCOMM_PROGRESS_THREAD", "0", GCM_CFG_INT, progress_thread,
            "1: a thread per process progresses the endpoints nobody "
            "waits on; 0: only calls into the library progress"),
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

static void gcm_config_set(const gcm_config_entry_t *e, const char *text,
                           int from_env)
{
    char *field = (char *)&gcm_config + e->offset;
    int ok = 1;
    int level;
    size_t value;

    switch (e->kind) {
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
        fprintf(stderr, "gencomm: warning: %s='%s' is not valid, using %s\n",
                e->name, text, e->dflt);
        gcm_config_set(e, e->dflt, 0);
    }
}

void gcm_config_load(void)
{
    size_t n = sizeof(gcm_config_table) / sizeof(gcm_config_table[0]);
    const char *file;
    size_t i;

    for (i = 0; i < n; i++) {
        const char *env = getenv(gcm_config_table[i].name);
        gcm_config_set(&gcm_config_table[i], gcm_config_table[i].dflt, 0);
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
            const char *env = getenv(gcm_config_table[i].name);
            printf("# %s\n%s=%s\n", gcm_config_table[i].doc,
                   gcm_config_table[i].name,
                   (env != NULL) ? env : gcm_config_table[i].dflt);
        }
    }
}

/* ---- misc -------------------------------------------------------------- */

void gcm_random_bytes(void *buf, size_t len)
{
    unsigned char *p = buf;

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
