/*
 * tests/fuzz/fuzz_pmi1.c: the PMI-1 line parser (boot/boot_pmi1_line.h)
 * as both its readers use it: gcrun's server splits a client's command
 * in place into words (writing NULs at their ends) and peeks at the
 * command of a line too long to keep, and the client reads fields and
 * numbers from gcrun's replies.
 *
 * Input: one byte (the size of the client's field buffer and of gcrun's
 * command buffer, 0 to 255),
 * then the line. A line is accepted when its first "cmd" word has a value
 * (what the server dispatches on).
 */
#include "config.h"

#include "tests/fuzz/fuzz.h"
#include "boot/boot_pmi1_line.h"

#include <errno.h>
#include <limits.h>
#include <string.h>

int fuzz_verdict;

/* As many words as gcrun takes (tools/gcrun.h, PMI_MAX_TOKENS). */
#define FUZZ_MAX_WORDS 32

/* The words as both sides walk them: each lies in the line, and each
 * step moves on. */
static void fuzz_words(const char *line, size_t len)
{
    const char *pos = line;
    gcm_boot_pmi1_word_t w;

    while (gcm_boot_pmi1_word_next(&pos, &w)) {
        FUZZ_REQUIRE((w.key >= line) && (w.klen <= len) &&
                     (w.key + w.klen <= line + len));
        FUZZ_REQUIRE((w.val >= line) && (w.val + w.vlen <= line + len));
        FUZZ_REQUIRE((pos > w.key) && (pos <= line + len));
    }
}

/* gcrun's split, in place: every key and value it returns lies in the
 * line. Returns whether the line has a command gcrun dispatches on (its
 * first "cmd" word, with a value). */
static int fuzz_server_split(char *line, size_t len)
{
    char *keys[FUZZ_MAX_WORDS], *vals[FUZZ_MAX_WORDS];
    int n = gcm_boot_pmi1_split(line, keys, vals, FUZZ_MAX_WORDS);

    FUZZ_REQUIRE((n >= 0) && (n <= FUZZ_MAX_WORDS));
    for (int i = 0; i < n; i++) {
        FUZZ_REQUIRE((keys[i] >= line) && (keys[i] + strlen(keys[i]) <=
                                           line + len));
        FUZZ_REQUIRE((vals[i] >= line) && (vals[i] + strlen(vals[i]) <=
                                           line + len));
    }
    for (int i = 0; i < n; i++) {
        if (strcmp(keys[i], "cmd") == 0) {
            return vals[i][0] != '\0';
        }
    }
    return 0;
}

/* gcrun's look at the start of a line too long to keep: raw bytes (no
 * NUL), into a buffer of exactly size bytes. */
static void fuzz_peek(const uint8_t *data, size_t len, size_t size)
{
    char *raw = fuzz_copy(data, len, 0);
    char *out = malloc(size ? size : 1);

    if (out == NULL) {
        abort();
    }
    gcm_boot_pmi1_peek_cmd(raw, len, out, size);
    if (size > 0) {
        FUZZ_REQUIRE(strlen(out) < size);
    }
    free(out);
    free(raw);
}

/* The client's number: accepted only as strtol would read all of it. */
static void fuzz_number(const char *text)
{
    static const long bounds[][2] = {
        { LONG_MIN, LONG_MAX }, { 0, INT_MAX }, { -1, 1 }, { 1, 1 << 20 }
    };

    for (size_t i = 0; i < sizeof(bounds) / sizeof(bounds[0]); i++) {
        long v = 12345, ref;
        char *end;

        if (!gcm_boot_pmi1_number(text, bounds[i][0], bounds[i][1], &v)) {
            FUZZ_REQUIRE(v == 12345);
            continue;
        }
        FUZZ_REQUIRE((v >= bounds[i][0]) && (v <= bounds[i][1]));
        FUZZ_REQUIRE((text[0] == '-') || ((text[0] >= '0') &&
                                          (text[0] <= '9')));
        errno = 0;
        ref = strtol(text, &end, 10);
        FUZZ_REQUIRE((errno == 0) && (*end == '\0') && (ref == v));
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const keys[] = {
        "cmd", "rc", "kvsname", "key", "value", "size", "rank", "msg",
        "vallen_max", "pmi_version", ""
    };
    size_t outlen, len;
    char *line, *out;

    fuzz_verdict = FUZZ_NONE;
    if (size < 1) {
        return 0;
    }
    outlen = data[0];
    len = size - 1;
    /* A line ends at its first NUL, as the readers see it. */
    line = fuzz_copy(data + 1, len, 1);
    len = strlen(line);

    /* The client: each field into a buffer of exactly outlen bytes. */
    out = malloc(outlen ? outlen : 1);
    if (out == NULL) {
        abort();
    }
    for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
        if (gcm_boot_pmi1_field(line, keys[k], out, outlen) && outlen > 0) {
            FUZZ_REQUIRE(strlen(out) < outlen);
            fuzz_number(out);
        }
    }
    fuzz_number(line);
    free(out);
    fuzz_words(line, len);
    fuzz_peek(data + 1, size - 1, outlen);

    /* The server, in place (last: it writes into the line). */
    fuzz_verdict = fuzz_server_split(line, len) ? FUZZ_ACCEPTED :
                                                  FUZZ_REFUSED;
    free(line);
    return 0;
}
