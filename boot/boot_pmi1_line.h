/*
 * boot/boot_pmi1_line.h: the words of a PMI-1 wire-protocol line
 * ("cmd=get kvsname=k key=x"), read the same way by the client
 * (boot_pmi1.c), the server (tools/gcrun_pmi.c) and the test probe
 * (tests/integration/gcrun_probe.c). It needs nothing but the C library,
 * so that gcrun and the probe build it without the library.
 *
 * A line is words separated by blanks (space, tab, CR, LF); a word is a
 * key, then '=' and a value that runs to the next blank and may itself
 * hold '='. A word without '=' has an empty value. The bytes come from
 * another process: nothing here reads past the line's NUL or writes past
 * the caller's buffer.
 */
#ifndef GCM_BOOT_PMI1_LINE_H
#define GCM_BOOT_PMI1_LINE_H

#include <stddef.h>

typedef struct gcm_boot_pmi1_word {
    const char *key;
    size_t      klen;
    const char *val;   /* empty (vlen 0) for a word without '=' */
    size_t      vlen;
} gcm_boot_pmi1_word_t;

/* Takes the next word of a line from *pos and moves *pos past it and the
 * one blank that ends it (so that a server parsing in place may write a
 * NUL at key[klen] and at val[vlen]). Returns 0 when no word is left. */
int gcm_boot_pmi1_word_next(const char **pos, gcm_boot_pmi1_word_t *w);

/* Splits a line in place into its words (gcrun reading a client's
 * command): writes a NUL at the end of each key and each value and points
 * keys[i], vals[i] at them (a word without '=' gets an empty value), at
 * most max words. Returns how many. */
int gcm_boot_pmi1_split(char *line, char **keys, char **vals, int max);

/* Copies the value of a leading "cmd=" or "mcmd=" word of the first len
 * bytes at line (which need not end in a NUL: the start of a line too long
 * to keep) into out (size bytes, NUL-terminated, truncated), or "unknown"
 * when there is none. */
void gcm_boot_pmi1_peek_cmd(const char *line, size_t len, char *out,
                            size_t size);

/* Copies the value of the first word whose key is key into out (outlen
 * bytes, NUL-terminated, truncated to outlen - 1). Returns 1 when the key
 * is there, 0 when it is not (out is then left alone). */
int gcm_boot_pmi1_field(const char *line, const char *key, char *out,
                        size_t outlen);

/* Reads text, all of it, as a decimal integer in [min, max] (an optional
 * '-', digits, nothing else: no blanks, no sign '+', no overflow). Returns
 * 1 with *out_p set, 0 otherwise (*out_p left alone). Values from a
 * launcher (PMI_RANK, vallen_max=, rank=) go through this. */
int gcm_boot_pmi1_number(const char *text, long min, long max, long *out_p);

#endif /* GCM_BOOT_PMI1_LINE_H */
