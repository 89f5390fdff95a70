/*
 * util/: the base every layer stands on: logging, the table of GENCOMM_*
 * settings, per-thread error text, intrusive lists and small helpers.
 * Includes nothing of the other layers.
 */
#ifndef GCM_UTIL_H
#define GCM_UTIL_H

#include <gencomm.h>

#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdatomic.h>

#define GCM_INTERNAL __attribute__((visibility("hidden")))

#define gcm_container_of(_ptr, _type, _member) \
    ((_type *)((char *)(_ptr) - offsetof(_type, _member)))

/* Thread-local variables read on every message: the initial-exec model
 * finds them at a fixed offset from the thread pointer, where the default
 * model of a shared library calls __tls_get_addr each time. They take a
 * few bytes of glibc's static TLS reserve, which is there for this. */
#define GCM_TLS_HOT __attribute__((tls_model("initial-exec")))

#define gcm_likely(_x)   __builtin_expect(!!(_x), 1)
#define gcm_unlikely(_x) __builtin_expect(!!(_x), 0)
/* A function kept out of its callers: a fast path that inlined its
 * slow one would save and restore the slow one's registers every call. */
#define GCM_NOINLINE __attribute__((noinline))
/* A body shared by a few entry points, each of which it must become part
 * of (arguments that are constants there fold away). */
#define GCM_ALWAYS_INLINE inline __attribute__((always_inline))

/* ---- logging ---------------------------------------------------------- */

typedef enum {
    GCM_LOG_ERROR = 0,
    GCM_LOG_WARN  = 1,
    GCM_LOG_INFO  = 2,
    GCM_LOG_DEBUG = 3,
    GCM_LOG_TRACE = 4
} gcm_log_level_t;

extern int gcm_log_level_current GCM_INTERNAL;

void gcm_log_emit(gcm_log_level_t level, const char *file, int line,
                  const char *fmt, ...)
    __attribute__((format(printf, 4, 5))) GCM_INTERNAL;

/* The level is checked before the arguments are evaluated or formatted. */
#define gcm_log(_level, ...) \
    do { \
        if (gcm_unlikely((int)(_level) <= gcm_log_level_current)) { \
            gcm_log_emit((_level), __FILE__, __LINE__, __VA_ARGS__); \
        } \
    } while (0)

#define gcm_error(...) gcm_log(GCM_LOG_ERROR, __VA_ARGS__)
#define gcm_warn(...)  gcm_log(GCM_LOG_WARN, __VA_ARGS__)
#define gcm_info(...)  gcm_log(GCM_LOG_INFO, __VA_ARGS__)
#define gcm_debug(...) gcm_log(GCM_LOG_DEBUG, __VA_ARGS__)
#define gcm_trace(...) gcm_log(GCM_LOG_TRACE, __VA_ARGS__)

#ifdef GCM_ENABLE_ASSERT
#define gcm_assert(_cond) \
    do { \
        if (!(_cond)) { \
            gcm_log_emit(GCM_LOG_ERROR, __FILE__, __LINE__, \
                         "assertion failed: %s", #_cond); \
            abort(); \
        } \
    } while (0)
#else
#define gcm_assert(_cond) do { } while (0)
#endif

/* ---- errors ----------------------------------------------------------- */

/*
 * Records "call: reason" as the calling thread's last error (read back with
 * gcm_last_error()), logs it at debug level and returns status, so that a
 * check reads: return gcm_fail(GCM_ERR_INVALID_PARAM, __func__, "...").
 */
gcm_status_t gcm_fail(gcm_status_t status, const char *call,
                      const char *fmt, ...)
    __attribute__((format(printf, 3, 4))) GCM_INTERNAL;

/* ---- settings (GENCOMM_* environment variables) ----------------------- */

/*
 * Each layer keeps its settings in a struct of its own and describes them
 * in a table it registers with GCM_CONFIG_REGISTER (from a constructor,
 * before main): util/ knows no layer above it. gcm_config_load() (in
 * gcm_init) sets every registered field from its default and the
 * environment; GENCOMM_PRINT_CONFIG=1 prints them all, layer by layer,
 * with the values in force.
 * docs/env.md lists the same settings (tests/test_env.sh compares).
 */
typedef enum {
    GCM_CFG_INT,      /* unsigned; k/m/g suffixes; range-checked if max */
    GCM_CFG_SIZE,     /* size_t; k/m/g suffixes */
    GCM_CFG_LEVEL,    /* int: a log level by name */
    GCM_CFG_CHOICE,   /* int: the index of one word of a list */
    GCM_CFG_TEXT      /* const char *: the text as set, NULL when unset */
} gcm_cfg_kind_t;

typedef struct gcm_config_entry {
    const char     *name;
    const char     *dflt;    /* NULL: a choice's first word, or unset text */
    gcm_cfg_kind_t  kind;
    void           *field;
    const char     *doc;
    const char     *words;   /* GCM_CFG_CHOICE: the list, '|' between */
    /* GCM_CFG_INT only: the accepted range when max > 0; a value outside
     * is clamped into it, with a warning. */
    unsigned        min;
    unsigned        max;
} gcm_config_entry_t;

typedef struct gcm_config_table {
    const char               *layer;    /* the folder: util, boot, ... */
    const gcm_config_entry_t *entries;
    size_t                    count;
    struct gcm_config_table  *next;     /* util/'s list, in layer order */
} gcm_config_table_t;

#define GCM_CFG(_name, _dflt, _kind, _field, _doc) \
    { _name, _dflt, _kind, &(_field), _doc, NULL, 0, 0 }
#define GCM_CFG_RANGE(_name, _dflt, _field, _min, _max, _doc) \
    { _name, _dflt, GCM_CFG_INT, &(_field), _doc, NULL, _min, _max }
/* A choice whose first word is the default. */
#define GCM_CFG_WORDS(_name, _words, _field, _doc) \
    { _name, NULL, GCM_CFG_CHOICE, &(_field), _doc, _words, 0, 0 }
#define GCM_CFG_TEXT(_name, _field, _doc) \
    { _name, NULL, GCM_CFG_TEXT, &(_field), _doc, NULL, 0, 0 }

#define GCM_STR_(_x) #_x
#define GCM_STR(_x)  GCM_STR_(_x)

/* Adds a layer's table (layer: its folder's name, unquoted) to the
 * settings gcm_config_load reads. */
#define GCM_CONFIG_REGISTER(_layer, _entries) \
    static gcm_config_table_t gcm_config_table_##_layer = { \
        #_layer, _entries, sizeof(_entries) / sizeof((_entries)[0]), NULL \
    }; \
    static void __attribute__((constructor)) \
    gcm_config_register_##_layer(void) \
    { \
        gcm_config_register(&gcm_config_table_##_layer); \
    }

void gcm_config_register(gcm_config_table_t *table) GCM_INTERNAL;

/* Reads every registered setting; prints them if asked to. */
void gcm_config_load(void) GCM_INTERNAL;
/* Prints every registered setting on fp, layer by layer: its description
 * as a comment line, then NAME=value in force (GENCOMM_PRINT_CONFIG,
 * gencomm_info). */
void gcm_config_print(FILE *fp) GCM_INTERNAL;

/* util/'s own settings. */
typedef struct gcm_util_config {
    int         log_level;     /* GENCOMM_LOG_LEVEL */
    int         print_config;  /* GENCOMM_PRINT_CONFIG */
    const char *log_file;      /* GENCOMM_LOG_FILE */
} gcm_util_config_t;

extern gcm_util_config_t gcm_util_config GCM_INTERNAL;

/* The log level named text (error, warn, info, debug, trace; any case),
 * or -1. */
int gcm_log_level_parse(const char *text) GCM_INTERNAL;
/* The name of a log level ("?" out of range). */
const char *gcm_log_level_name(int level) GCM_INTERNAL;
/* Appends log lines to file from now on (stderr when it cannot be
 * opened, with a message why). */
void gcm_log_open(const char *file) GCM_INTERNAL;

/* The most endpoints a process may have (GENCOMM_MAX_ENDPOINTS's bound;
 * endpoint indices travel in 16 bits, and a shared-memory ring owner word
 * keeps 8 bits for them). */
#define GCM_MAX_ENDPOINTS 64

/* ---- clearing the head of an object ----------------------------------- */

/* Sixteen bytes stored at once, at an address 8-byte aligned at least. */
typedef uint64_t gcm_zero16_t
    __attribute__((vector_size(16), aligned(8), may_alias));

/* Clears the first n bytes of p, n a constant multiple of 8, with 16-byte
 * stores in place: memset with a constant size of a few hundred bytes
 * becomes `rep stos` (a slow start, and an instruction per word), with a
 * size the compiler cannot see a call of memset. */
static GCM_ALWAYS_INLINE void gcm_zero_head(void *p, size_t n)
{
    const gcm_zero16_t zero = {0, 0};
    char *c = (char *)p;
    size_t off;

#pragma GCC unroll 32
    for (off = 0; off + 16 <= n; off += 16) {
        *(gcm_zero16_t *)(void *)(c + off) = zero;
    }
    if ((n % 16) != 0) {
        *(uint64_t *)(void *)(c + n - 8) = 0;
    }
}

/* ---- intrusive doubly linked list ------------------------------------- */

typedef struct gcm_list {
    struct gcm_list *prev;
    struct gcm_list *next;
} gcm_list_t;

static inline void gcm_list_init(gcm_list_t *head)
{
    head->prev = head;
    head->next = head;
}

static inline int gcm_list_empty(const gcm_list_t *head)
{
    return head->next == head;
}

static inline void gcm_list_insert_before(gcm_list_t *pos, gcm_list_t *elem)
{
    elem->next       = pos;
    elem->prev       = pos->prev;
    pos->prev->next  = elem;
    pos->prev        = elem;
}

static inline void gcm_list_push_back(gcm_list_t *head, gcm_list_t *elem)
{
    gcm_list_insert_before(head, elem);
}

static inline void gcm_list_del(gcm_list_t *elem)
{
    elem->prev->next = elem->next;
    elem->next->prev = elem->prev;
    elem->prev       = elem;
    elem->next       = elem;
}

#define gcm_list_for_each_safe(_pos, _tmp, _head) \
    for ((_pos) = (_head)->next, (_tmp) = (_pos)->next; (_pos) != (_head); \
         (_pos) = (_tmp), (_tmp) = (_pos)->next)

/* ---- handle memory (util_handle.c) ------------------------------------
 *
 * Where the objects behind handles live, so that a stale handle is
 * refused and never reaches a newer object (util_handle.c says how).
 */

/* The largest object gcm_handle_alloc gives (a page less a line). */
#define GCM_HANDLE_MAX 4032

/* Maps the first chunk of once-only objects now, if there is none yet
 * (gcm_init): otherwise the process's first object paid for it (the
 * first MPI_Type_create_struct took 33-43 us, 5.6-6.4 once gcm_init did
 * this; bench/README.md, "Datatypes"). Without memory the first
 * gcm_handle_alloc tries again. Thread-safe. */
void gcm_handle_prepare(void) GCM_INTERNAL;
/* Zeroed memory for an object of size bytes (at most GCM_HANDLE_MAX),
 * whose first field is its uint32_t magic, at an address no other object
 * of this process has had or will have; NULL without memory.
 * Thread-safe. */
void *gcm_handle_alloc(size_t size) GCM_INTERNAL;
/* Frees such an object: clears its magic; the address is never used
 * again. Thread-safe. */
void gcm_handle_free(void *obj) GCM_INTERNAL;
/* Zeroed memory (at most 4096 bytes, 64-byte aligned) that keeps its use
 * for ever: for objects a family recycles itself at message rate, with a
 * generation in their handles. NULL without memory. Thread-safe. */
void *gcm_handle_alloc_stable(size_t size) GCM_INTERNAL;
/* The size of a chunk of such memory. */
#define GCM_HANDLE_STABLE_CHUNK (16u << 20)
/* The start of the chunk of stable memory the calling thread last found
 * a handle in (0: none yet). Chunks are never unmapped: an address inside
 * one stays stable memory for ever, and a handle check at message rate
 * finds its chunk here without the look through all of them. */
extern __thread uintptr_t gcm_handle_stable_hint GCM_TLS_HOT GCM_INTERNAL;
/* gcm_handle_is_stable without the hint (and setting it on a hit). */
int gcm_handle_is_stable_slow(const void *p, size_t align) GCM_INTERNAL;
/* Is p, aligned to align, inside memory gcm_handle_alloc_stable gave out
 * (and so safe to read)? Thread-safe. */
static inline int gcm_handle_is_stable(const void *p, size_t align)
{
    uintptr_t addr = (uintptr_t)p;

    if (gcm_likely((gcm_handle_stable_hint != 0) && ((addr % align) == 0) &&
                   (addr - gcm_handle_stable_hint <
                    GCM_HANDLE_STABLE_CHUNK))) {
        return 1;
    }
    return gcm_handle_is_stable_slow(p, align);
}

/*
 * Handles with a generation, for recycled objects: the object's address
 * with a 16-bit generation in the top bits (user addresses stay below
 * 2^48 on Linux unless asked for more), so that a stale handle names a
 * generation its object no longer has.
 */
#define GCM_HANDLE_GEN_SHIFT 48
#define GCM_HANDLE_ADDR_MASK (((uintptr_t)1 << GCM_HANDLE_GEN_SHIFT) - 1)
_Static_assert(sizeof(uintptr_t) == 8, "handles keep a generation in the "
               "top 16 bits of a 64-bit address");

static inline uintptr_t gcm_handle_tag(const void *obj, uint16_t gen)
{
    return (uintptr_t)obj | ((uintptr_t)gen << GCM_HANDLE_GEN_SHIFT);
}

static inline void *gcm_handle_untag(uintptr_t handle)
{
    return (void *)(handle & GCM_HANDLE_ADDR_MASK);
}

static inline uint16_t gcm_handle_gen(uintptr_t handle)
{
    return (uint16_t)(handle >> GCM_HANDLE_GEN_SHIFT);
}

/*
 * A shared list of recycled objects of one kind, in stable memory, behind
 * the per-thread caches of their family; the objects link through a
 * pointer field at offset link.
 */
typedef struct gcm_handle_pool {
    pthread_mutex_t lock;
    void           *head;
    size_t          size;
    size_t          link;
} gcm_handle_pool_t;

#define GCM_HANDLE_POOL_INIT(_type, _member) \
    { PTHREAD_MUTEX_INITIALIZER, NULL, sizeof(_type), offsetof(_type, _member) }

/* An object from the list, or from new stable memory (64-byte aligned,
 * below 2^48); not zeroed. NULL without memory. Thread-safe. */
void *gcm_handle_pool_get(gcm_handle_pool_t *pool) GCM_INTERNAL;
/* Puts the chain that starts at first (linked, NULL-terminated) on the
 * list. Thread-safe. */
void gcm_handle_pool_put(gcm_handle_pool_t *pool, void *first) GCM_INTERNAL;

/* ---- misc -------------------------------------------------------------- */

/* Fills buf with unpredictable bytes (never fails silently): a
 * per-thread ChaCha20 generator keyed by the kernel (util.c). */
void gcm_random_bytes(void *buf, size_t len) GCM_INTERNAL;
/* One ChaCha20 block (RFC 8439, 2.3): 64 bytes of key stream. */
void gcm_chacha20_block(const unsigned char key[32], uint32_t counter,
                        const unsigned char nonce[12], unsigned char out[64])
    GCM_INTERNAL;

/* Fills buf straight from the kernel (getrandom): for secrets that
 * outlive a thread's generator, such as a job's secret. */
void gcm_random_kernel_bytes(void *buf, size_t len) GCM_INTERNAL;
/* A keyed pseudo-random function: 64 bits of the ChaCha20 block keyed by
 * key for (label, x). Without the key its values cannot be predicted from
 * others, so values derived this way from a secret are secrets too. */
uint64_t gcm_prf64(const unsigned char key[32], uint32_t label, uint64_t x)
    GCM_INTERNAL;

/* Monotonic time in seconds. */
double gcm_time_now(void) GCM_INTERNAL;

/* A 64-bit hash of a byte string: FNV-1a's steps (xor a byte, multiply
 * by 1099511628211) from the offset basis 1469598103934665603, which is
 * not FNV's published one (14695981039346656037): the check word of a
 * published worker address (threads/) is this hash, so changing it
 * changes the bytes one build accepts from another. */
uint64_t gcm_hash64(const void *data, size_t len) GCM_INTERNAL;

#endif /* GCM_UTIL_H */
