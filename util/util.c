/*
 * util/util.c: logging, error text, random bytes and time (the settings
 * are in util_config.c).
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

int gcm_log_level_parse(const char *text)
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

const char *gcm_log_level_name(int level)
{
    if ((level < 0) ||
        ((size_t)level >= sizeof(gcm_log_level_names) /
                           sizeof(gcm_log_level_names[0]))) {
        return "?";
    }
    return gcm_log_level_names[level];
}

void gcm_log_open(const char *file)
{
    if ((file == NULL) || (file[0] == '\0') || (gcm_log_stream != NULL)) {
        return;
    }
    gcm_log_stream = fopen(file, "a");
    if (gcm_log_stream == NULL) {
        fprintf(stderr, "gencomm: cannot open GENCOMM_LOG_FILE %s: %s\n",
                file, strerror(errno));
    } else {
        setvbuf(gcm_log_stream, NULL, _IOLBF, 0);
    }
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

/* ---- version ---------------------------------------------------------- */

#if (GENCOMM_VERSION_MAJOR != GCM_CONF_VERSION_MAJOR) || \
    (GENCOMM_VERSION_MINOR != GCM_CONF_VERSION_MINOR) || \
    (GENCOMM_VERSION_PATCH != GCM_CONF_VERSION_PATCH)
#error "include/gencomm.h's GENCOMM_VERSION_* differ from configure.ac's version"
#endif

const char *gcm_version(int *major, int *minor, int *patch)
{
    if (major != NULL) {
        *major = GENCOMM_VERSION_MAJOR;
    }
    if (minor != NULL) {
        *minor = GENCOMM_VERSION_MINOR;
    }
    if (patch != NULL) {
        *patch = GENCOMM_VERSION_PATCH;
    }
    return PACKAGE_VERSION;
}

const char *gcm_last_error(void)
{
    return gcm_last_error_text;
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
