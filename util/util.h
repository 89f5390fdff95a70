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

typedef struct gcm_config {
    int      log_level;        /* GENCOMM_LOG_LEVEL */
    size_t   eager_limit;      /* GENCOMM_EAGER_LIMIT */
    unsigned spin_count;       /* GENCOMM_SPIN_COUNT */
    unsigned wait_timeout_ms;  /* GENCOMM_WAIT_TIMEOUT_MS */
    int      print_config;     /* GENCOMM_PRINT_CONFIG */
    int      shm;              /* GENCOMM_SHM */
    int      hier_hwloc;       /* GENCOMM_HIER_HWLOC */
    int      check_collectives; /* GENCOMM_CHECK_COLLECTIVES */
    /* Collectives (coll/): which algorithm, as the index of the chosen
     * word in the setting's list (0 is "auto" everywhere; coll/coll_impl.h
     * names the others in the same order), and the thresholds of the
     * automatic choice. */
    int      coll_hier;             /* GENCOMM_COLL_HIER */
    int      coll_barrier;          /* GENCOMM_COLL_BARRIER */
    int      coll_bcast;            /* GENCOMM_COLL_BCAST */
    int      coll_reduce;           /* GENCOMM_COLL_REDUCE */
    int      coll_allreduce;        /* GENCOMM_COLL_ALLREDUCE */
    int      coll_reduce_scatter;   /* GENCOMM_COLL_REDUCE_SCATTER */
    int      coll_scan;             /* GENCOMM_COLL_SCAN */
    int      coll_gather;           /* GENCOMM_COLL_GATHER */
    int      coll_allgather;        /* GENCOMM_COLL_ALLGATHER */
    int      coll_alltoall;         /* GENCOMM_COLL_ALLTOALL */
    size_t   coll_bcast_large;      /* GENCOMM_COLL_BCAST_LARGE */
    size_t   coll_reduce_large;     /* GENCOMM_COLL_REDUCE_LARGE */
    size_t   coll_gather_large;     /* GENCOMM_COLL_GATHER_LARGE */
    size_t   coll_allgather_large;  /* GENCOMM_COLL_ALLGATHER_LARGE */
    size_t   coll_alltoall_small;   /* GENCOMM_COLL_ALLTOALL_SMALL */
    unsigned coll_scan_linear_max;  /* GENCOMM_COLL_SCAN_LINEAR_MAX */
    unsigned coll_barrier_linear_max; /* GENCOMM_COLL_BARRIER_LINEAR_MAX */
    unsigned coll_bcast_linear_max; /* GENCOMM_COLL_BCAST_LINEAR_MAX */
    size_t   coll_segment;          /* GENCOMM_COLL_SEGMENT */
    unsigned max_endpoints;    /* GENCOMM_MAX_ENDPOINTS */
    int      progress_thread;  /* GENCOMM_PROGRESS_THREAD */
    /* Reaching processes of other jobs (threads/thr_procs.c). */
    unsigned connect_timeout;  /* GENCOMM_CONNECT_TIMEOUT (seconds) */
} gcm_config_t;

/*
 * Defaults of the collectives' thresholds (bytes, or processes for the
 * scan): the settings table takes them as text, coll/README.md says where
 * they come from. Data of at least BCAST_LARGE bytes is broadcast by
 * scatter and allgather; reductions of at least REDUCE_LARGE bytes use
 * recursive halving (commutative operators); gather and scatter blocks of
 * at least GATHER_LARGE bytes go straight to and from the root; allgather
 * of a total of at least ALLGATHER_LARGE bytes runs in a ring; all-to-all
 * blocks of at most ALLTOALL_SMALL bytes take Bruck's algorithm; scans
 * over at most SCAN_LINEAR_MAX processes run as a pipeline of SEGMENT-byte
 * pieces; barriers over 3 to BARRIER_LINEAR_MAX processes gather at rank
 * 0, which releases the others; broadcasts below BCAST_LARGE bytes over at
 * most BCAST_LINEAR_MAX processes go from the root to each.
 */
#define GCM_COLL_BCAST_LARGE      32768
#define GCM_COLL_REDUCE_LARGE     16384
#define GCM_COLL_GATHER_LARGE     65536
#define GCM_COLL_ALLGATHER_LARGE  65536
#define GCM_COLL_ALLTOALL_SMALL   256
#define GCM_COLL_SCAN_LINEAR_MAX  4
#define GCM_COLL_BARRIER_LINEAR_MAX 4
#define GCM_COLL_BCAST_LINEAR_MAX 4
#define GCM_COLL_SEGMENT          65536

/* The most endpoints a process may have (GENCOMM_MAX_ENDPOINTS's bound;
 * endpoint indices travel in 16 bits, and a shared-memory ring owner word
 * keeps 8 bits for them). */
#define GCM_MAX_ENDPOINTS 64

extern gcm_config_t gcm_config GCM_INTERNAL;

/* Reads every GENCOMM_* setting once; prints them if asked to. */
void gcm_config_load(void) GCM_INTERNAL;

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
/* Is p, aligned to align, inside memory gcm_handle_alloc_stable gave out
 * (and so safe to read)? Thread-safe. */
int gcm_handle_is_stable(const void *p, size_t align) GCM_INTERNAL;

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

/* FNV-1a 64-bit hash of a byte string. */
uint64_t gcm_hash64(const void *data, size_t len) GCM_INTERNAL;

#endif /* GCM_UTIL_H */
