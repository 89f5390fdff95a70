/*
 * tests/fuzz/fuzz_pmi1.c: the PMI-1 line parser (boot/boot_pmi1_line.h)
 * as both its readers use it: gcrun's server splits a client's command
 * in place into words (writing NULs at their ends), and the client reads
 * fields and numbers from gcrun's replies.
 *
 * Input: one byte (the size of the client's field buffer, 0 to 255),
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

#define FUZZ_MAX_WORDS 64

/* gcrun's split: every word's key and value lie in the line, and the
 * NULs it writes stay inside it too. Returns whether the line has a
 * command gcrun would dispatch on. */
static int fuzz_server_split(char *line, size_t len)
{
    const char *pos = line;
    gcm_boot_pmi1_word_t w;
    int nwords = 0, has_cmd = 0;

    while ((nwords < FUZZ_MAX_WORDS) && gcm_boot_pmi1_word_next(&pos, &w)) {
        char *key = line + (w.key - line);
        char *val = line + (w.val - line);

        FUZZ_REQUIRE((w.key >= line) && (w.klen <= len) &&
                     (w.key + w.klen <= line + len));
        FUZZ_REQUIRE((w.val >= line) && (w.val + w.vlen <= line + len));
        FUZZ_REQUIRE((pos > w.key) && (pos <= line + len));
        key[w.klen] = '\0';
        val[w.vlen] = '\0';
        /* gcrun dispatches on the first "cmd" word, if not empty. */
        if ((has_cmd == 0) && (strcmp(key, "cmd") == 0)) {
            has_cmd = (val[0] != '\0') ? 1 : -1;
        }
        nwords++;
    }
    return has_cmd == 1;
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

    /* The server, in place (last: it writes into the line). */
    fuzz_verdict = fuzz_server_split(line, len) ? FUZZ_ACCEPTED :
                                                  FUZZ_REFUSED;
    free(line);
    return 0;
}
