/*
 * util/util_handle.c: the memory behind handles (MPI handles, native
 * requests).
 *
 * Handles are pointers to the library's objects. A program that keeps a
 * copy of a handle after freeing it, and then uses the copy, is erroneous,
 * but it must be told so: the call must fail with a clear error, and it
 * must never reach a newer object that happens to sit where the freed one
 * was (a stale MPI_Group_free must not free somebody else's group). So the
 * objects come from an arena of address space that is never unmapped,
 * which makes reading the first word of any handle the arena gave out
 * safe, in two ways:
 *
 * - Objects made and freed at the pace of a program's set-up (MPI
 *   communicators, groups, datatypes, operations, info objects, error
 *   handlers, matched-probe messages; windows and sessions the same way):
 *   gcm_handle_alloc gives an address that no other object of the process
 *   had before or will have after, and gcm_handle_free clears the object's
 *   first word (its magic). A stale handle reads that cleared magic, or
 *   zeros once the memory has gone back to the system: a page whose
 *   objects are all freed is given back with madvise, a chunk whose pages
 *   all are is mapped afresh read-only (no memory, no commit charge).
 *   In the chunk being filled, emptied pages go back, and the pages
 *   ahead of the fill point are made ready, GCM_HANDLE_BATCH at a time:
 *   a loop that makes and frees a datatype otherwise paid a fault and a
 *   system call for every few objects. Where the system can, a run of
 *   emptied pages is not given back but moved ahead of the fill point
 *   (mremap with MREMAP_DONTUNMAP: the old addresses stay mapped, empty,
 *   and read as zeros): the loop then reuses its memory instead of
 *   having the system free, zero and charge a page every 16 datatypes.
 *   Memory in use is that of the live objects, at worst a page each;
 *   address space is what all objects ever made took, 64 bytes or more
 *   each (2^47 bytes of it on x86-64).
 *
 * - Objects made at message rate (native and MPI requests):
 *   gcm_handle_alloc_stable gives memory that stays that kind's for ever;
 *   the family recycles it itself and puts a generation into its handles
 *   (slots/slot_request.c, compat/mpi_request.c), and gcm_handle_is_stable
 *   says whether an address is such memory before anything reads it.
 *
 * Objects start on 64-byte lines and are at most a page minus a line.
 * Every once-only object's first field is its uint32_t magic.
 */
#define _GNU_SOURCE
#include "config.h"

#include "util/util.h"

#include <stdatomic.h>

#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(leak_sanitizer)
#define GCM_HANDLE_LSAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define GCM_HANDLE_LSAN 1
#endif
#ifdef GCM_HANDLE_LSAN
#include <sanitizer/lsan_interface.h>
#endif

#define GCM_HANDLE_LINE   64u
#define GCM_HANDLE_PAGE   4096u
/* A chunk of once-only objects: its first page counts what lives on the
 * others. */
#define GCM_HANDLE_CHUNK  (4u << 20)
#define GCM_HANDLE_NPAGES (GCM_HANDLE_CHUNK / GCM_HANDLE_PAGE)
/* Pages of the chunk being filled made ready ahead of the fill point, and
 * emptied pages behind it given back, in runs of this many (one call for
 * the run instead of a fault, or a call, per page). */
#define GCM_HANDLE_BATCH  16u
/* Chunks of recycled objects (GCM_HANDLE_STABLE_CHUNK bytes, util.h),
 * and how many there may be (16 GiB). */
#define GCM_HANDLE_STABLE_MAX   1024

typedef struct gcm_handle_chunk {
    uint32_t live;                            /* objects on the chunk */
    uint16_t page_live[GCM_HANDLE_NPAGES]; /* objects per page */
} gcm_handle_chunk_t;

_Static_assert(sizeof(gcm_handle_chunk_t) <= GCM_HANDLE_PAGE,
               "the chunk's counts do not fit its first page");
_Static_assert(GCM_HANDLE_PAGE / GCM_HANDLE_LINE < UINT16_MAX,
               "a page's count does not fit 16 bits");
_Static_assert(GCM_HANDLE_MAX == GCM_HANDLE_PAGE - GCM_HANDLE_LINE,
               "GCM_HANDLE_MAX is not a page less a line");

static struct {
    /* handle_lock: held for a few counts, or for the system call that
     * maps, readies or gives back pages. */
    atomic_int              lock;
    /* Once-only objects: the chunk being filled and the next free byte
     * in it (0: none yet). */
    gcm_handle_chunk_t *chunk;
    size_t                  used;
    /* Of that chunk: its pages below ready are populated; gone_lo ..
     * gone_hi - 1 are emptied pages behind the fill point not yet given
     * back (none when equal); spare_lo .. spare_lo + spare_n - 1 a
     * full run of such pages kept to be moved ahead (handle_page_ready);
     * below dirty_hi, the pages from the fill point on were moved ahead
     * and hold the bytes of dead objects (an object put there is
     * cleared; the fill point only grows, so where the run started need
     * not be kept); populate: 0 once the system has refused to populate
     * ahead; move: 0 once it has refused to move pages. */
    size_t                  ready;
    size_t                  gone_lo;
    size_t                  gone_hi;
    size_t                  spare_lo;
    size_t                  spare_n;
    size_t                  dirty_hi;
    int                     populate;
    int                     move;
    /* Recycled objects: the chunks (published with a release store of
     * nstable, read without the lock) and the next free byte of the
     * last one. */
    char                   *stable[GCM_HANDLE_STABLE_MAX];
    _Atomic int             nstable;
    size_t                  stable_used;
} gcm_handles = { .populate = 1, .move = 1 };

/* A spin lock, not a mutex: a lock and an unlock of a mutex were calls
 * with two locked instructions, about a tenth of a small vector's build
 * and commit (which makes one object); this is one locked instruction.
 * A waiter gives its core away after a few reads (the holder may be in a
 * system call, or descheduled when oversubscribed). */
static inline void handle_lock(void)
{
    unsigned spins = 0;

    while (atomic_exchange_explicit(&gcm_handles.lock, 1,
                                    memory_order_acquire)) {
        while (atomic_load_explicit(&gcm_handles.lock,
                                    memory_order_relaxed)) {
            if (++spins > 64) {
                sched_yield();
            }
        }
    }
}

static inline void handle_unlock(void)
{
    atomic_store_explicit(&gcm_handles.lock, 0, memory_order_release);
}

static void *handle_map(size_t size, size_t align)
{
    size_t extra = (align > GCM_HANDLE_PAGE) ? align : 0;
    uintptr_t start, head;
    char *p;

    p = mmap(NULL, size + extra, PROT_READ | PROT_WRITE,
             MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) {
        return NULL;
    }
    if (extra > 0) {
        /* Trim to an aligned run (mmap aligns to pages only). */
        start = ((uintptr_t)p + align - 1) & ~(uintptr_t)(align - 1);
        head  = start - (uintptr_t)p;
        if (head > 0) {
            (void)munmap(p, head);
        }
        if (extra - head > 0) {
            (void)munmap((char *)start + size, extra - head);
        }
        p = (char *)start;
    }
#ifdef GCM_HANDLE_LSAN
    /* Objects here point to malloc'd memory; without this the leak
     * checker, which scans only its own roots, calls that memory lost. */
    __lsan_register_root_region(p, size);
#endif
    return p;
}

static size_t handle_round(size_t size)
{
    return (size + GCM_HANDLE_LINE - 1) & ~(size_t)(GCM_HANDLE_LINE -
                                                         1);
}

/* Gives n pages from page on, whose objects are all freed, back to the
 * system; reading them from now on gives zeros. Lock held. */
static void handle_page_release(gcm_handle_chunk_t *chunk, size_t page,
                                size_t n)
{
    (void)madvise((char *)chunk + page * GCM_HANDLE_PAGE,
                  n * GCM_HANDLE_PAGE, MADV_DONTNEED);
}

/* Gives back the run of emptied pages of the chunk being filled. Lock
 * held. */
static void handle_gone_flush(void)
{
    if (gcm_handles.gone_hi > gcm_handles.gone_lo) {
        handle_page_release(gcm_handles.chunk, gcm_handles.gone_lo,
                            gcm_handles.gone_hi - gcm_handles.gone_lo);
    }
    gcm_handles.gone_lo = gcm_handles.gone_hi = 0;
}

/* Gives back the spare run of the chunk being filled. Lock held. */
static void handle_spare_flush(void)
{
    if (gcm_handles.spare_n > 0) {
        handle_page_release(gcm_handles.chunk, gcm_handles.spare_lo,
                            gcm_handles.spare_n);
    }
    gcm_handles.spare_n = 0;
}

/* The run of emptied pages is full: kept as the spare run when there is
 * none and pages can be moved, given back otherwise. Lock held. */
static void handle_gone_full(void)
{
#ifdef MREMAP_DONTUNMAP
    if (gcm_handles.move && (gcm_handles.spare_n == 0)) {
        gcm_handles.spare_lo = gcm_handles.gone_lo;
        gcm_handles.spare_n  = gcm_handles.gone_hi - gcm_handles.gone_lo;
        gcm_handles.gone_lo = gcm_handles.gone_hi = 0;
        return;
    }
#endif
    handle_gone_flush();
}

/* A page of the chunk being filled, behind the fill point (no object
 * will be put on it again), has nothing alive: it joins the run to give
 * back, which goes when it is GCM_HANDLE_BATCH pages long or when a page
 * that does not extend it comes. Its objects' magics are cleared
 * already, so a stale handle reads them as dead until then. Lock held. */
static void handle_page_gone(size_t page)
{
    if (gcm_handles.gone_hi > gcm_handles.gone_lo &&
        page == gcm_handles.gone_hi) {
        gcm_handles.gone_hi++;
    } else if (gcm_handles.gone_hi > gcm_handles.gone_lo &&
               page + 1 == gcm_handles.gone_lo) {
        gcm_handles.gone_lo--;
    } else {
        handle_gone_flush();
        gcm_handles.gone_lo = page;
        gcm_handles.gone_hi = page + 1;
    }
    if (gcm_handles.gone_hi - gcm_handles.gone_lo >= GCM_HANDLE_BATCH) {
        handle_gone_full();
    }
}

/* The fill point is on page: the run of pages from it is made ready at
 * once if it is not (the system's zeroed pages, as the faults of the
 * first writes would make them one by one). The run is as long as the
 * chunk's filled pages, up to GCM_HANDLE_BATCH: a process that makes few
 * objects is not given pages it will not use. Lock held. */
static void handle_page_ready(size_t page)
{
    size_t end, n;

    if (page < gcm_handles.ready) {
        return;
    }
    n = (page > GCM_HANDLE_BATCH) ? GCM_HANDLE_BATCH :
        (page > 1) ? page - 1 : 1;
    end = page + n;
    end = (end > GCM_HANDLE_NPAGES) ? GCM_HANDLE_NPAGES : end;
#ifdef MREMAP_DONTUNMAP
    if ((gcm_handles.spare_n > 0) &&
        (page + gcm_handles.spare_n <= GCM_HANDLE_NPAGES)) {
        /* The spare run's pages (their objects all dead, the memory
         * still the process's) move here, their old addresses left
         * mapped and empty: zeros to a stale handle, as a page given
         * back reads. */
        char *base = (char *)gcm_handles.chunk;
        size_t len = gcm_handles.spare_n * GCM_HANDLE_PAGE;

        /* The system call itself: UCX's memory hooks (libucm) wrap
         * mremap and do not keep the pages (the moved run then faulted
         * in page by page); this memory is never registered with UCX. */
        if ((void *)syscall(SYS_mremap,
                            base + gcm_handles.spare_lo * GCM_HANDLE_PAGE,
                            len, len,
                            MREMAP_MAYMOVE | MREMAP_FIXED | MREMAP_DONTUNMAP,
                            base + page * GCM_HANDLE_PAGE) == MAP_FAILED) {
            /* An older kernel (before 5.7), or no mapping left for the
             * split: give runs back from now on. */
            gcm_handles.move = 0;
            handle_spare_flush();
        } else {
            gcm_handles.spare_n = 0;
            gcm_handles.dirty_hi = page + len / GCM_HANDLE_PAGE;
            gcm_handles.ready = gcm_handles.dirty_hi;
            return;
        }
    }
#endif
#ifdef MADV_POPULATE_WRITE
    if (gcm_handles.populate &&
        madvise((char *)gcm_handles.chunk + page * GCM_HANDLE_PAGE,
                (end - page) * GCM_HANDLE_PAGE, MADV_POPULATE_WRITE) != 0) {
        /* An older kernel: the first writes fault the pages in. */
        gcm_handles.populate = 0;
    }
#endif
    gcm_handles.ready = end;
}

/* A chunk with nothing alive that is no longer filled: mapped afresh
 * read-only, it holds neither memory nor page tables nor commit charge,
 * and still reads as zeros. Lock held. */
static void handle_chunk_release(gcm_handle_chunk_t *chunk)
{
    void *p = mmap(chunk, GCM_HANDLE_CHUNK, PROT_READ,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED,
                   -1, 0);

    if (p == MAP_FAILED) {
        /* Still readable as it was: only its memory stays in use. */
        (void)madvise(chunk, GCM_HANDLE_CHUNK, MADV_DONTNEED);
    }
}

/* The chunk being filled is left for good. Lock held. */
static void handle_chunk_leave(void)
{
    gcm_handle_chunk_t *chunk = gcm_handles.chunk;
    size_t page;

    if (chunk == NULL) {
        return;
    }
    gcm_handles.dirty_hi = 0;
    if (chunk->live == 0) {
        gcm_handles.gone_lo = gcm_handles.gone_hi = 0;
        gcm_handles.spare_n = 0;
        gcm_handles.chunk = NULL;
        handle_chunk_release(chunk);
        return;
    }
    page = (gcm_handles.used - 1) / GCM_HANDLE_PAGE;
    if ((page > 0) && (chunk->page_live[page] == 0)) {
        handle_page_gone(page);
    }
    handle_gone_flush();
    handle_spare_flush();
    gcm_handles.chunk = NULL;
}

/* Moves the fill point of the chunk being filled to at, giving back the
 * page it leaves if nothing on it lives any more. Lock held. */
static void handle_advance(size_t at)
{
    gcm_handle_chunk_t *chunk = gcm_handles.chunk;
    size_t left = (gcm_handles.used - 1) / GCM_HANDLE_PAGE;

    if ((left != (at - 1) / GCM_HANDLE_PAGE) && (left > 0) &&
        (chunk->page_live[left] == 0)) {
        handle_page_gone(left);
    }
    gcm_handles.used = at;
}

/* A new chunk to fill, the first page after its counts made ready.
 * Returns whether there is one. Lock held. */
static int handle_chunk_new(void)
{
    gcm_handle_chunk_t *chunk = handle_map(GCM_HANDLE_CHUNK,
                                           GCM_HANDLE_CHUNK);

    if (chunk == NULL) {
        return 0;
    }
    handle_chunk_leave();
    gcm_handles.chunk = chunk;
    gcm_handles.used  = GCM_HANDLE_PAGE;
    gcm_handles.ready = 1;
    handle_page_ready(1);
    return 1;
}

void gcm_handle_prepare(void)
{
    handle_lock();
    if (gcm_handles.chunk == NULL) {
        (void)handle_chunk_new();
    }
    handle_unlock();
}

void *gcm_handle_alloc(size_t size)
{
    gcm_handle_chunk_t *chunk;
    size_t need = handle_round((size > 0) ? size : 1), at;
    void *obj;
    int dirty;

    if (need > GCM_HANDLE_MAX) {
        return NULL;
    }
    handle_lock();
    at = gcm_handles.used;
    if ((at % GCM_HANDLE_PAGE) + need > GCM_HANDLE_PAGE) {
        /* Objects never straddle pages: on to the next one. */
        at = (at / GCM_HANDLE_PAGE + 1) * GCM_HANDLE_PAGE;
    }
    if ((gcm_handles.chunk == NULL) || (at >= GCM_HANDLE_CHUNK)) {
        if (!handle_chunk_new()) {
            handle_unlock();
            return NULL;
        }
        at = GCM_HANDLE_PAGE;
    }
    chunk = gcm_handles.chunk;
    obj   = (char *)chunk + at;
    handle_page_ready(at / GCM_HANDLE_PAGE);
    dirty = (at / GCM_HANDLE_PAGE < gcm_handles.dirty_hi);
    chunk->live++;
    chunk->page_live[at / GCM_HANDLE_PAGE]++;
    handle_advance(at + need);
    handle_unlock();
    /* Fresh memory reads as zeros already; moved memory holds what dead
     * objects left. */
    if (dirty) {
        memset(obj, 0, need);
    }
    return obj;
}

void gcm_handle_free(void *obj)
{
    uintptr_t addr = (uintptr_t)obj;
    gcm_handle_chunk_t *chunk;
    size_t page;

    if (obj == NULL) {
        return;
    }
    chunk = (gcm_handle_chunk_t *)(addr & ~(uintptr_t)(
                GCM_HANDLE_CHUNK - 1));
    page = (addr - (uintptr_t)chunk) / GCM_HANDLE_PAGE;
    /* A stale handle must not read as live, even before the page goes. */
    __atomic_store_n((uint32_t *)obj, 0, __ATOMIC_RELEASE);
    handle_lock();
    chunk->live--;
    chunk->page_live[page]--;
    if (chunk != gcm_handles.chunk) {
        if (chunk->live == 0) {
            handle_chunk_release(chunk);
        } else if (chunk->page_live[page] == 0) {
            handle_page_release(chunk, page, 1);
        }
    } else if ((chunk->page_live[page] == 0) &&
               (page != (gcm_handles.used - 1) / GCM_HANDLE_PAGE)) {
        handle_page_gone(page);
    }
    handle_unlock();
}

void *gcm_handle_alloc_stable(size_t size)
{
    size_t need = handle_round((size > 0) ? size : 1);
    int n;
    char *chunk;
    void *obj;

    if (need > GCM_HANDLE_PAGE) {
        return NULL;
    }
    handle_lock();
    n = atomic_load_explicit(&gcm_handles.nstable, memory_order_relaxed);
    if ((n == 0) ||
        (gcm_handles.stable_used + need > GCM_HANDLE_STABLE_CHUNK)) {
        if (n == GCM_HANDLE_STABLE_MAX) {
            handle_unlock();
            return NULL;
        }
        chunk = handle_map(GCM_HANDLE_STABLE_CHUNK, 0);
        if (chunk == NULL) {
            handle_unlock();
            return NULL;
        }
        gcm_handles.stable[n] = chunk;
        gcm_handles.stable_used = 0;
        atomic_store_explicit(&gcm_handles.nstable, ++n,
                              memory_order_release);
    }
    obj = gcm_handles.stable[n - 1] + gcm_handles.stable_used;
    gcm_handles.stable_used += need;
    handle_unlock();
    return obj;
}

__thread uintptr_t gcm_handle_stable_hint GCM_TLS_HOT;

int gcm_handle_is_stable_slow(const void *p, size_t align)
{
    uintptr_t addr = (uintptr_t)p;
    int n = atomic_load_explicit(&gcm_handles.nstable,
                                 memory_order_acquire);
    int i;

    if ((addr % align) != 0) {
        return 0;
    }
    for (i = n - 1; i >= 0; i--) {
        uintptr_t base = (uintptr_t)gcm_handles.stable[i];

        if (addr - base < GCM_HANDLE_STABLE_CHUNK) {
            gcm_handle_stable_hint = base;
            return 1;
        }
    }
    return 0;
}

/* ---- pools of recycled objects ---------------------------------------- */

static void **pool_link(const gcm_handle_pool_t *pool, void *obj)
{
    return (void **)((char *)obj + pool->link);
}

void *gcm_handle_pool_get(gcm_handle_pool_t *pool)
{
    void *obj;

    pthread_mutex_lock(&pool->lock);
    obj = pool->head;
    if (obj != NULL) {
        pool->head = *pool_link(pool, obj);
    }
    pthread_mutex_unlock(&pool->lock);
    if (obj == NULL) {
        obj = gcm_handle_alloc_stable(pool->size);
    }
    if ((obj != NULL) && (((uintptr_t)obj & ~GCM_HANDLE_ADDR_MASK) != 0)) {
        /* Memory above 2^48 (never given by Linux without a hint) has no
         * room for the generation: leave it unused. */
        return NULL;
    }
    return obj;
}

void gcm_handle_pool_put(gcm_handle_pool_t *pool, void *first)
{
    void *last = first;

    if (first == NULL) {
        return;
    }
    while (*pool_link(pool, last) != NULL) {
        last = *pool_link(pool, last);
    }
    pthread_mutex_lock(&pool->lock);
    *pool_link(pool, last) = pool->head;
    pool->head = first;
    pthread_mutex_unlock(&pool->lock);
}
