/*
 * tests/unit/check_pmi1_line.c: the words of a PMI-1 line
 * (boot/boot_pmi1_line.h), as the client, gcrun and the probe read them:
 * blanks, values holding '=', words without '=', keys that are the tail
 * of another key or sit inside a value, truncation, and bytes past what
 * the line holds.
 */
#include "config.h"

#include "boot/boot_pmi1_line.h"
#include "check_main.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

/* The words of line as "key|value" strings joined by ','. */
static void words_of(const char *line, char *out, size_t cap)
{
    const char *pos = line;
    gcm_boot_pmi1_word_t w;
    size_t n = 0;

    out[0] = '\0';
    while (gcm_boot_pmi1_word_next(&pos, &w)) {
        n += (size_t)snprintf(out + n, cap - n, "%s%.*s|%.*s",
                              (n > 0) ? "," : "", (int)w.klen, w.key,
                              (int)w.vlen, w.val);
        ck_assert_uint_lt(n, cap);
    }
}

START_TEST(test_pmi1_words)
{
    char got[256];

    words_of("cmd=put kvsname=k0 key=a value=b", got, sizeof(got));
    ck_assert_str_eq(got, "cmd|put,kvsname|k0,key|a,value|b");
    /* Blanks of every kind, runs of them, at both ends. */
    words_of("  cmd=get\tkey=x  \r\n", got, sizeof(got));
    ck_assert_str_eq(got, "cmd|get,key|x");
    /* A value runs to the next blank and may hold '='. */
    words_of("cmd=abort msg=a=b=c", got, sizeof(got));
    ck_assert_str_eq(got, "cmd|abort,msg|a=b=c");
    /* A word without '=' has an empty value; so has "key=". */
    words_of("endcmd key=", got, sizeof(got));
    ck_assert_str_eq(got, "endcmd|,key|");
    words_of("", got, sizeof(got));
    ck_assert_str_eq(got, "");
    words_of(" \t\n", got, sizeof(got));
    ck_assert_str_eq(got, "");
}
END_TEST

START_TEST(test_pmi1_parse_in_place)
{
    /* What gcrun does (gcm_boot_pmi1_split): NULs at the end of each key
     * and value, then the next word is still found. */
    char line[] = "cmd=put key=k value=v=1 flag";
    char *keys[4], *vals[4];
    int n = gcm_boot_pmi1_split(line, keys, vals, 4);

    ck_assert_int_eq(n, 4);
    ck_assert_str_eq(keys[0], "cmd");
    ck_assert_str_eq(vals[0], "put");
    ck_assert_str_eq(keys[2], "value");
    ck_assert_str_eq(vals[2], "v=1");
    ck_assert_str_eq(keys[3], "flag");
    ck_assert_str_eq(vals[3], "");
    /* At most max words; the rest of the line stays as it was. */
    {
        char three[] = "a=1 b=2 c=3";

        ck_assert_int_eq(gcm_boot_pmi1_split(three, keys, vals, 2), 2);
        ck_assert_str_eq(vals[1], "2");
        ck_assert_str_eq(three + 8, "c=3");
    }
}
END_TEST

START_TEST(test_pmi1_field)
{
    char v[16];

    ck_assert_int_eq(gcm_boot_pmi1_field("cmd=get_result rc=0 value=ab12",
                                         "value", v, sizeof(v)), 1);
    ck_assert_str_eq(v, "ab12");
    /* The first word with the key wins. */
    ck_assert_int_eq(gcm_boot_pmi1_field("rc=1 rc=0", "rc", v, sizeof(v)),
                     1);
    ck_assert_str_eq(v, "1");
    /* A key that ends another key, or stands inside a value, is not it. */
    ck_assert_int_eq(gcm_boot_pmi1_field("cmd=peer_died xrank=3 rank=5",
                                         "rank", v, sizeof(v)), 1);
    ck_assert_str_eq(v, "5");
    strcpy(v, "untouched");
    ck_assert_int_eq(gcm_boot_pmi1_field("cmd=x msg=rank=5", "rank", v,
                                         sizeof(v)), 0);
    ck_assert_int_eq(gcm_boot_pmi1_field("cmd=x rank", "rank", v,
                                         sizeof(v)), 0);
    ck_assert_int_eq(gcm_boot_pmi1_field("cmd=x ranks=1", "rank", v,
                                         sizeof(v)), 0);
    ck_assert_str_eq(v, "untouched");
    /* The value stops at the line's end, a newline included. */
    ck_assert_int_eq(gcm_boot_pmi1_field("cmd=barrier_out\n", "cmd", v,
                                         sizeof(v)), 1);
    ck_assert_str_eq(v, "barrier_out");
    ck_assert_int_eq(gcm_boot_pmi1_field("key=", "key", v, sizeof(v)), 1);
    ck_assert_str_eq(v, "");
}
END_TEST

START_TEST(test_pmi1_field_bounds)
{
    char big[64];
    char v[8];

    /* A value longer than the buffer is cut to fit, never overrun. */
    memset(v, 'Z', sizeof(v));
    ck_assert_int_eq(gcm_boot_pmi1_field("kvsname=0123456789abcdef",
                                         "kvsname", v, 5), 1);
    ck_assert_str_eq(v, "0123");
    ck_assert_int_eq(v[5], 'Z');
    /* No room at all: found, nothing written. */
    ck_assert_int_eq(gcm_boot_pmi1_field("a=b", "a", v + 7, 0), 1);
    ck_assert_int_eq(v[7], 'Z');
    /* The line's NUL ends the last value (nothing past it is read). */
    memset(big, 0, sizeof(big));
    memcpy(big, "cmd=get value=xyz", 17);
    ck_assert_int_eq(gcm_boot_pmi1_field(big, "value", v, sizeof(v)), 1);
    ck_assert_str_eq(v, "xyz");
}
END_TEST

/* Numbers from a launcher: all of the text, in range, no overflow. */
START_TEST(test_pmi1_number)
{
    long v = 42;

    ck_assert(gcm_boot_pmi1_number("0", 0, 10, &v) && (v == 0));
    ck_assert(gcm_boot_pmi1_number("10", 0, 10, &v) && (v == 10));
    ck_assert(gcm_boot_pmi1_number("-3", -5, 5, &v) && (v == -3));
    ck_assert(gcm_boot_pmi1_number("9223372036854775807", 0, LONG_MAX, &v) &&
              (v == LONG_MAX));
    ck_assert(gcm_boot_pmi1_number("-9223372036854775808", LONG_MIN, 0,
                                   &v) && (v == LONG_MIN));
    v = 42;
    ck_assert(!gcm_boot_pmi1_number("11", 0, 10, &v));
    ck_assert(!gcm_boot_pmi1_number("-1", 0, 10, &v));
    ck_assert(!gcm_boot_pmi1_number("9223372036854775808", 0, LONG_MAX,
                                    &v));
    ck_assert(!gcm_boot_pmi1_number("99999999999999999999", 0, LONG_MAX,
                                    &v));
    ck_assert(!gcm_boot_pmi1_number("", 0, 10, &v));
    ck_assert(!gcm_boot_pmi1_number("-", 0, 10, &v));
    ck_assert(!gcm_boot_pmi1_number("abc", 0, 10, &v));
    ck_assert(!gcm_boot_pmi1_number("3x", 0, 10, &v));
    ck_assert(!gcm_boot_pmi1_number(" 3", 0, 10, &v));
    ck_assert(!gcm_boot_pmi1_number("+3", 0, 10, &v));
    ck_assert(!gcm_boot_pmi1_number(NULL, 0, 10, &v));
    ck_assert_int_eq(v, 42);
}
END_TEST

static Suite *make_suite(void)
{
    const TTest *words[] = {test_pmi1_words, test_pmi1_parse_in_place,
        test_pmi1_field, test_pmi1_field_bounds, test_pmi1_number, NULL};
    const struct gcm_check_case cases[] = {
        {"words", .tests = words},
        {0},
    };

    return gcm_check_suite("pmi1_line", cases);
}
