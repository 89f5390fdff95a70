/*
 * tests/fuzz/fuzz.h: what the harnesses of tests/fuzz/ share with the
 * corpus driver (driver.c). Each harness defines LLVMFuzzerTestOneInput,
 * calls a decoder of bytes from outside the process with them, and
 * aborts when the decoder accepted something it promised to refuse (a
 * crash or a sanitizer report is the other way to fail). It says what the
 * decoder made of the input in fuzz_verdict, which the driver compares
 * with the name of a corpus file: "ok-*" must be accepted, "bad-*"
 * refused; other files are only run.
 */
#ifndef GCM_TESTS_FUZZ_H
#define GCM_TESTS_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

enum { FUZZ_REFUSED = 0, FUZZ_ACCEPTED = 1, FUZZ_NONE = -1 };

/* Set by a harness for each input (defined in each harness, so that it
 * links alone under libFuzzer too). */
extern int fuzz_verdict;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A broken promise of a decoder: say which and stop. */
#define FUZZ_REQUIRE(cond)                                                    \
    do {                                                                      \
        if (!(cond)) {                                                        \
            fprintf(stderr, "%s:%d: decoder broke its promise: %s\n",        \
                    __FILE__, __LINE__, #cond);                               \
            abort();                                                          \
        }                                                                     \
    } while (0)

/* The input copied to a buffer of exactly its size (so that a sanitizer
 * sees a read past it), NUL-terminated when text asks: the caller
 * frees it. */
static inline char *fuzz_copy(const uint8_t *data, size_t size, int text)
{
    size_t n = size + (text ? 1 : 0);
    char *p = malloc(n ? n : 1);

    if (p == NULL) {
        abort();
    }
    for (size_t i = 0; i < size; i++) {
        p[i] = (char)data[i];
    }
    if (text) {
        p[size] = '\0';
    }
    return p;
}

/* A harness of several decoders: the input's first byte chooses one
 * (modulo n), which gets the rest. */
typedef void (*fuzz_part_t)(const uint8_t *data, size_t size);

static inline void fuzz_dispatch(const uint8_t *data, size_t size,
                                 const fuzz_part_t *parts, size_t n)
{
    fuzz_verdict = FUZZ_NONE;
    if (size >= 1) {
        parts[data[0] % n](data + 1, size - 1);
    }
}

#endif /* GCM_TESTS_FUZZ_H */
