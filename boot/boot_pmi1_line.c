/*
 * boot/boot_pmi1_line.c: the words of a PMI-1 wire-protocol line
 * (boot_pmi1_line.h).
 */
#include "config.h"

#include "boot/boot_pmi1_line.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

static int gcm_boot_pmi1_blank(char c)
{
    return (c == ' ') || (c == '\t') || (c == '\r') || (c == '\n');
}

int gcm_boot_pmi1_word_next(const char **pos, gcm_boot_pmi1_word_t *w)
{
    const char *p = *pos;
    const char *end;
    const char *eq;

    while (gcm_boot_pmi1_blank(*p)) {
        p++;
    }
    if (*p == '\0') {
        *pos = p;
        return 0;
    }
    end = p;
    while ((*end != '\0') && !gcm_boot_pmi1_blank(*end)) {
        end++;
    }
    eq = memchr(p, '=', (size_t)(end - p));
    w->key = p;
    if (eq != NULL) {
        w->klen = (size_t)(eq - p);
        w->val  = eq + 1;
        w->vlen = (size_t)(end - eq - 1);
    } else {
        w->klen = (size_t)(end - p);
        w->val  = end;
        w->vlen = 0;
    }
    *pos = (*end != '\0') ? end + 1 : end;
    return 1;
}

int gcm_boot_pmi1_split(char *line, char **keys, char **vals, int max)
{
    const char *pos = line;
    gcm_boot_pmi1_word_t w;
    int n = 0;

    while ((n < max) && gcm_boot_pmi1_word_next(&pos, &w)) {
        char *key = line + (w.key - line);
        char *val = line + (w.val - line);

        key[w.klen] = '\0';
        val[w.vlen] = '\0';
        keys[n] = key;
        vals[n] = val;
        n++;
    }
    return n;
}

void gcm_boot_pmi1_peek_cmd(const char *line, size_t len, char *out,
                            size_t size)
{
    size_t skip = 0;
    size_t n = 0;

    if (size == 0) {
        return;
    }
    if ((len >= 4) && (memcmp(line, "cmd=", 4) == 0)) {
        skip = 4;
    } else if ((len >= 5) && (memcmp(line, "mcmd=", 5) == 0)) {
        skip = 5;
    }
    while ((skip > 0) && (skip + n < len) && (n + 1 < size) &&
           (line[skip + n] != ' ') && (line[skip + n] != '\n') &&
           (line[skip + n] != '\0')) {
        out[n] = line[skip + n];
        n++;
    }
    out[n] = '\0';
    if (n == 0) {
        snprintf(out, size, "unknown");
    }
}

int gcm_boot_pmi1_field(const char *line, const char *key, char *out,
                        size_t outlen)
{
    size_t klen = strlen(key);
    gcm_boot_pmi1_word_t w;

    while (gcm_boot_pmi1_word_next(&line, &w)) {
        if ((w.klen == klen) && (memcmp(w.key, key, klen) == 0) &&
            (w.val != w.key + w.klen)) {
            size_t n;

            if (outlen == 0) {
                return 1;
            }
            n = (w.vlen < outlen) ? w.vlen : outlen - 1;
            memcpy(out, w.val, n);
            out[n] = '\0';
            return 1;
        }
    }
    return 0;
}

int gcm_boot_pmi1_number(const char *text, long min, long max, long *out_p)
{
    const char *p = text;
    unsigned long mag = 0;
    int neg = 0;

    if ((p == NULL) || (*p == '\0')) {
        return 0;
    }
    if (*p == '-') {
        neg = 1;
        p++;
    }
    if (*p == '\0') {
        return 0;
    }
    for (; *p != '\0'; p++) {
        unsigned d;

        if ((*p < '0') || (*p > '9')) {
            return 0;
        }
        d = (unsigned)(*p - '0');
        if (mag > ((unsigned long)LONG_MAX + 1 - d) / 10) {
            return 0;
        }
        mag = mag * 10 + d;
    }
    if (!neg && (mag > (unsigned long)LONG_MAX)) {
        return 0;
    }
    if (neg) {
        long v = (mag == (unsigned long)LONG_MAX + 1) ? LONG_MIN :
                                                         -(long)mag;
        if ((v < min) || (v > max)) {
            return 0;
        }
        *out_p = v;
        return 1;
    }
    if (((long)mag < min) || ((long)mag > max)) {
        return 0;
    }
    *out_p = (long)mag;
    return 1;
}
