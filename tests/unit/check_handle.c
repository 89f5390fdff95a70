/*
 * tests/unit/check_handle.c: the memory of handle objects
 * (util/util_handle.c): once-only addresses are never handed out twice,
 * a freed object reads as dead for ever, the memory of freed objects goes
 * back to the system, and recycled (stable) memory is recognised.
 */
#include "config.h"

#include "util/util.h"
#include "check_main.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static int addr_cmp(const void *a, const void *b)
{
    uintptr_t x = *(const uintptr_t *)a, y = *(const uintptr_t *)b;

    return (x < y) ? -1 : (x > y);
}

/* Objects made and freed in turn (as a loop that creates and frees a
 * datatype makes them) never share an address. */
START_TEST(test_handle_addresses_unique)
{
    enum { N = 150000 };
    uintptr_t *seen = malloc(N * sizeof(*seen));
    int i;

    ck_assert_ptr_nonnull(seen);
    for (i = 0; i < N; i++) {
        uint32_t *obj = gcm_handle_alloc(64 + (size_t)(i % 7) * 100);

        ck_assert_ptr_nonnull(obj);
        ck_assert_uint_eq(obj[0], 0);
        ck_assert_uint_eq((uintptr_t)obj % 64, 0);
        obj[0] = 0x54595045u;
        seen[i] = (uintptr_t)obj;
        gcm_handle_free(obj);
        /* Dead at once, whatever happens to its page. */
        ck_assert_uint_eq(obj[0], 0);
    }
    qsort(seen, N, sizeof(*seen), addr_cmp);
    for (i = 1; i < N; i++) {
        ck_assert_msg(seen[i] != seen[i - 1], "address %p handed out twice",
                      (void *)seen[i]);
    }
    /* Every old handle still reads as dead. */
    for (i = 0; i < N; i += 97) {
        ck_assert_uint_eq(*(const uint32_t *)seen[i], 0);
    }
    free(seen);
}
END_TEST

/* Pages whose objects are all freed stop taking memory: after freeing
 * every object of several chunks' worth, the first chunk has no page in
 * memory, while a live object keeps its own page. */
START_TEST(test_handle_memory_returned)
{
    enum { N = 3 * 65536 };
    void **objs = malloc(N * sizeof(*objs));
    long pagesize = sysconf(_SC_PAGESIZE);
    unsigned char vec[1024];
    uint32_t *keep;
    char *chunk;
    size_t i, resident = 0;

    ck_assert_ptr_nonnull(objs);
    keep = gcm_handle_alloc(200);
    ck_assert_ptr_nonnull(keep);
    keep[0] = 0x4f504f50u;
    for (i = 0; i < N; i++) {
        objs[i] = gcm_handle_alloc(64);
        ck_assert_ptr_nonnull(objs[i]);
        memset(objs[i], 0xab, 64);
    }
    chunk = (char *)((uintptr_t)objs[0] & ~(uintptr_t)((4u << 20) - 1));
    for (i = 0; i < N; i++) {
        gcm_handle_free(objs[i]);
    }
    if (pagesize == 4096) {
        /* The arena's page; on other page sizes memory goes back only
         * with whole chunks. */
        ck_assert_int_eq(mincore(chunk, 4u << 20, vec), 0);
        for (i = 1; i < (4u << 20) / 4096; i++) {
            resident += (vec[i] & 1);
        }
        /* The object kept alive is in this chunk or an earlier one: at
         * most its page stays. */
        ck_assert_uint_le(resident, 1);
    }
    ck_assert_uint_eq(keep[0], 0x4f504f50u);
    for (i = 0; i < N; i += 4096) {
        ck_assert_uint_eq(*(const uint32_t *)objs[i], 0);
    }
    gcm_handle_free(keep);
    free(objs);
}
END_TEST

/* A loop that makes and frees objects in turn (a datatype built and
 * freed again and again) keeps only a few pages of the chunk it fills in
 * memory: those made ready ahead, the emptied ones not given back yet
 * and the spare run kept to be moved ahead (each at most a run of 16),
 * the chunk's first page and the page being filled. */
START_TEST(test_handle_churn_bounded)
{
    long pagesize = sysconf(_SC_PAGESIZE);
    unsigned char vec[1024];
    size_t i, resident = 0;
    char *chunk = NULL;

    for (i = 0; i < 20000; i++) {
        uint32_t *obj = gcm_handle_alloc(448);

        ck_assert_ptr_nonnull(obj);
        ck_assert_uint_eq(obj[0], 0);
        obj[0] = 0x54595045u;
        chunk = (char *)((uintptr_t)obj & ~(uintptr_t)((4u << 20) - 1));
        gcm_handle_free(obj);
        ck_assert_uint_eq(obj[0], 0);
    }
    if (pagesize == 4096) {
        ck_assert_int_eq(mincore(chunk, 4u << 20, vec), 0);
        for (i = 0; i < (4u << 20) / 4096; i++) {
            resident += (vec[i] & 1);
        }
        ck_assert_uint_le(resident, 3 * 16 + 2);
    }
}
END_TEST

/* Where emptied pages are moved ahead of the fill point rather than
 * given back, the objects put on them come cleared, though the dead
 * objects there were written all over, and the dead objects' addresses
 * read as dead. */
START_TEST(test_handle_recycled_cleared)
{
    enum { N = 40000, SIZE = 256 };
    uintptr_t *seen = malloc(N * sizeof(*seen));
    size_t i, j;

    ck_assert_ptr_nonnull(seen);
    for (i = 0; i < N; i++) {
        unsigned char *obj = gcm_handle_alloc(SIZE);

        ck_assert_ptr_nonnull(obj);
        for (j = 0; j < SIZE; j++) {
            ck_assert_msg(obj[j] == 0, "object %zu at %p: byte %zu is %#x",
                          i, (void *)obj, j, obj[j]);
        }
        memset(obj, 0xab, SIZE);
        seen[i] = (uintptr_t)obj;
        gcm_handle_free(obj);
    }
    for (i = 0; i < N; i++) {
        ck_assert_uint_eq(*(const uint32_t *)seen[i], 0);
    }
    qsort(seen, N, sizeof(*seen), addr_cmp);
    for (i = 1; i < N; i++) {
        ck_assert_msg(seen[i] != seen[i - 1], "address %p handed out twice",
                      (void *)seen[i]);
    }
    free(seen);
}
END_TEST

/* gcm_handle_prepare (gcm_init) maps the chunk the next objects go to;
 * with one there already it changes nothing: the objects made around
 * it are neighbours, in the prepared chunk's first page or after. */
START_TEST(test_handle_prepare)
{
    uint32_t *a, *b, *c;
    uintptr_t chunk;

    gcm_handle_prepare();
    gcm_handle_prepare();
    a = gcm_handle_alloc(64);
    ck_assert_ptr_nonnull(a);
    chunk = (uintptr_t)a & ~(uintptr_t)((4u << 20) - 1);
    /* The chunk's first page holds its counts, never an object. */
    ck_assert_uint_ge((uintptr_t)a - chunk, 4096);
    gcm_handle_prepare();
    b = gcm_handle_alloc(64);
    gcm_handle_prepare();
    c = gcm_handle_alloc(64);
    ck_assert_ptr_nonnull(b);
    ck_assert_ptr_nonnull(c);
    ck_assert_ptr_eq((char *)b, (char *)a + 64);
    ck_assert_ptr_eq((char *)c, (char *)b + 64);
    ck_assert_uint_eq(b[0], 0);
    gcm_handle_free(a);
    gcm_handle_free(b);
    gcm_handle_free(c);
    ck_assert_uint_eq(a[0], 0);
}
END_TEST

START_TEST(test_handle_limits)
{
    ck_assert_ptr_null(gcm_handle_alloc(GCM_HANDLE_MAX + 1));
    ck_assert_ptr_nonnull(gcm_handle_alloc(GCM_HANDLE_MAX));
    gcm_handle_free(NULL);
}
END_TEST

/* Stable memory is recognised (so a request handle can be checked before
 * it is read); other addresses are not. */
START_TEST(test_handle_stable)
{
    char *a = gcm_handle_alloc_stable(200);
    char *b = gcm_handle_alloc_stable(200);
    void *once = gcm_handle_alloc(200);
    int local = 0;

    ck_assert_ptr_nonnull(a);
    ck_assert_ptr_nonnull(b);
    ck_assert_ptr_ne(a, b);
    ck_assert_int_eq(gcm_handle_is_stable(a, 64), 1);
    ck_assert_int_eq(gcm_handle_is_stable(b, 64), 1);
    ck_assert_int_eq(gcm_handle_is_stable(a + 8, 64), 0);
    ck_assert_int_eq(gcm_handle_is_stable(once, 64), 0);
    ck_assert_int_eq(gcm_handle_is_stable(&local, 1), 0);
    ck_assert_int_eq(gcm_handle_is_stable(NULL, 64), 0);
    gcm_handle_free(once);
}
END_TEST

static Suite *make_suite(void)
{
    const TTest *tests[] = {test_handle_addresses_unique,
        test_handle_memory_returned, test_handle_churn_bounded,
        test_handle_recycled_cleared, test_handle_prepare, test_handle_limits,
        test_handle_stable, NULL};
    const struct gcm_check_case cases[] = {
        {"handle", .tests = tests, .timeout = 60},
        {0},
    };

    return gcm_check_suite("handle", cases);
}
