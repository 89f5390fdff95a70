/*
 * tests/unit/check_heap.h: heap_in_use(), the bytes the process has
 * allocated now (ASan's count under AddressSanitizer, glibc's otherwise),
 * for tests that bound what an object costs.
 */
#ifndef GCM_CHECK_HEAP_H
#define GCM_CHECK_HEAP_H

#include <stddef.h>

#if defined(__has_feature)
#if __has_feature(address_sanitizer) && !defined(__SANITIZE_ADDRESS__)
#define __SANITIZE_ADDRESS__ 1
#endif
#endif

#if defined(__SANITIZE_ADDRESS__)
/* From ASan's runtime; declared here since not every compiler installs
 * <sanitizer/allocator_interface.h>. */
size_t __sanitizer_get_current_allocated_bytes(void);
#else
#include <malloc.h>
#endif

static inline size_t heap_in_use(void)
{
#if defined(__SANITIZE_ADDRESS__)
    return __sanitizer_get_current_allocated_bytes();
#else
    return mallinfo2().uordblks;
#endif
}

#endif
