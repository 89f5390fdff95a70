/*
 * tests/unit/check_util.c: util/ below every layer: the settings engine
 * (each kind of entry from the environment, bad values refused with a
 * warning naming the setting and the default kept, ranges clamped, the
 * printed table), log levels, the log file, intrusive lists and the
 * hash. No network, no gcm_init.
 */
#include "config.h"

#include "util/util.h"
#include "check_main.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A table of this test's own, registered like a layer's (it prints
 * after the layers it does not name). */
static struct {
    unsigned    count;
    unsigned    ranged;
    size_t      bytes;
    int         choice;
    int         level;
    const char *text;
} cu;

static const gcm_config_entry_t cu_entries[] = {
    GCM_CFG("CHECK_UTIL_COUNT", "7", GCM_CFG_INT, cu.count, "a count"),
    GCM_CFG_RANGE("CHECK_UTIL_RANGED", "4", cu.ranged, 2, 16,
                  "a count from 2 to 16"),
    GCM_CFG("CHECK_UTIL_BYTES", "64k", GCM_CFG_SIZE, cu.bytes, "a size"),
    GCM_CFG_WORDS("CHECK_UTIL_CHOICE", "alpha|beta|gamma_delta", cu.choice,
                  "a choice"),
    GCM_CFG("CHECK_UTIL_LEVEL", "info", GCM_CFG_LEVEL, cu.level, "a level"),
    GCM_CFG_TEXT("CHECK_UTIL_TEXT", cu.text, "a text"),
};
GCM_CONFIG_REGISTER(check_util, cu_entries)

static const char *const cu_names[] = {
    "CHECK_UTIL_COUNT", "CHECK_UTIL_RANGED", "CHECK_UTIL_BYTES",
    "CHECK_UTIL_CHOICE", "CHECK_UTIL_LEVEL", "CHECK_UTIL_TEXT",
};

/* What the engine wrote to stderr while loading. */
static char cu_err[8192];

static void cu_load(void)
{
    FILE *tmp = tmpfile();
    int saved = dup(STDERR_FILENO);
    size_t n;

    ck_assert_ptr_nonnull(tmp);
    ck_assert_int_ge(saved, 0);
    fflush(stderr);
    ck_assert_int_ge(dup2(fileno(tmp), STDERR_FILENO), 0);
    gcm_config_load();
    fflush(stderr);
    ck_assert_int_ge(dup2(saved, STDERR_FILENO), 0);
    close(saved);
    rewind(tmp);
    n = fread(cu_err, 1, sizeof(cu_err) - 1, tmp);
    cu_err[n] = '\0';
    fclose(tmp);
}

static void cu_clear(void)
{
    size_t i;

    for (i = 0; i < sizeof(cu_names) / sizeof(cu_names[0]); i++) {
        unsetenv(cu_names[i]);
    }
    unsetenv("GENCOMM_LOG_FILE");
}

/* Loads with name=value alone set and checks that it was refused with a
 * warning naming it (the field then holds its default). */
static void cu_refused(const char *name, const char *value)
{
    char want[128];

    cu_clear();
    setenv(name, value, 1);
    cu_load();
    snprintf(want, sizeof(want), "%s='%s'", name, value);
    ck_assert_msg(strstr(cu_err, want) != NULL,
                  "%s=%s: no warning naming it (stderr: %s)", name, value,
                  cu_err);
    ck_assert_ptr_nonnull(strstr(cu_err, "using"));
    unsetenv(name);
}

START_TEST(test_util_config_defaults)
{
    cu_clear();
    cu_load();
    ck_assert_str_eq(cu_err, "");
    ck_assert_uint_eq(cu.count, 7);
    ck_assert_uint_eq(cu.ranged, 4);
    ck_assert_uint_eq(cu.bytes, 64 * 1024);
    ck_assert_int_eq(cu.choice, 0);
    ck_assert_int_eq(cu.level, GCM_LOG_INFO);
    ck_assert_ptr_null(cu.text);
}
END_TEST

START_TEST(test_util_config_good_values)
{
    cu_clear();
    setenv("CHECK_UTIL_COUNT", "0x10", 1);
    setenv("CHECK_UTIL_RANGED", "16", 1);
    setenv("CHECK_UTIL_BYTES", "3M", 1);
    setenv("CHECK_UTIL_CHOICE", "GAMMA_delta", 1);
    setenv("CHECK_UTIL_LEVEL", "trace", 1);
    setenv("CHECK_UTIL_TEXT", "some words", 1);
    cu_load();
    ck_assert_str_eq(cu_err, "");
    ck_assert_uint_eq(cu.count, 16);
    ck_assert_uint_eq(cu.ranged, 16);
    ck_assert_uint_eq(cu.bytes, 3 * 1024 * 1024);
    ck_assert_int_eq(cu.choice, 2);
    ck_assert_int_eq(cu.level, GCM_LOG_TRACE);
    ck_assert_str_eq(cu.text, "some words");

    /* Suffixes of both cases; a count may carry one too. */
    setenv("CHECK_UTIL_BYTES", "2g", 1);
    setenv("CHECK_UTIL_COUNT", "1K", 1);
    cu_load();
    ck_assert_uint_eq(cu.bytes, (size_t)2 << 30);
    ck_assert_uint_eq(cu.count, 1024);

    /* Unset again: back to the defaults, not the last values. */
    cu_clear();
    cu_load();
    ck_assert_uint_eq(cu.count, 7);
    ck_assert_ptr_null(cu.text);
}
END_TEST

START_TEST(test_util_config_bad_values_keep_default)
{
    static const char *const bad_numbers[] = {
        "", "abc", "12x", "4kb", "k", "-1", "+3", " -2",
        "99999999999999999999", "0x", "1.5",
    };
    size_t i;

    for (i = 0; i < sizeof(bad_numbers) / sizeof(bad_numbers[0]); i++) {
        cu_refused("CHECK_UTIL_COUNT", bad_numbers[i]);
        ck_assert_uint_eq(cu.count, 7);
        cu_refused("CHECK_UTIL_BYTES", bad_numbers[i]);
        ck_assert_uint_eq(cu.bytes, 64 * 1024);
    }
    /* Past what the field holds, once the suffix is applied. */
    cu_refused("CHECK_UTIL_COUNT", "4294967296");
    ck_assert_uint_eq(cu.count, 7);
    cu_refused("CHECK_UTIL_COUNT", "5g");
    ck_assert_uint_eq(cu.count, 7);
    cu_refused("CHECK_UTIL_BYTES", "18446744073709551615k");
    ck_assert_uint_eq(cu.bytes, 64 * 1024);
    cu_refused("CHECK_UTIL_BYTES", "17179869184g");
    ck_assert_uint_eq(cu.bytes, 64 * 1024);

    cu_refused("CHECK_UTIL_CHOICE", "delta");
    ck_assert_int_eq(cu.choice, 0);
    ck_assert_ptr_nonnull(strstr(cu_err, "alpha|beta|gamma_delta"));
    cu_refused("CHECK_UTIL_CHOICE", "alph");
    cu_refused("CHECK_UTIL_CHOICE", "alpha|beta");
    ck_assert_int_eq(cu.choice, 0);
    cu_refused("CHECK_UTIL_CHOICE", "");

    cu_refused("CHECK_UTIL_LEVEL", "loud");
    ck_assert_int_eq(cu.level, GCM_LOG_INFO);
}
END_TEST

START_TEST(test_util_config_range_clamped)
{
    cu_refused("CHECK_UTIL_RANGED", "1");
    ck_assert_uint_eq(cu.ranged, 2);
    ck_assert_ptr_nonnull(strstr(cu_err, "outside 2..16"));
    cu_refused("CHECK_UTIL_RANGED", "17");
    ck_assert_uint_eq(cu.ranged, 16);
    cu_refused("CHECK_UTIL_RANGED", "1k");
    ck_assert_uint_eq(cu.ranged, 16);
    /* Not a number at all: the default, not a bound. */
    cu_refused("CHECK_UTIL_RANGED", "many");
    ck_assert_uint_eq(cu.ranged, 4);
}
END_TEST

START_TEST(test_util_config_print)
{
    char buf[65536];
    FILE *fp = tmpfile();
    size_t n;
    const char *util, *mine;

    cu_clear();
    setenv("CHECK_UTIL_CHOICE", "beta", 1);
    setenv("CHECK_UTIL_BYTES", "1k", 1);
    cu_load();
    ck_assert_ptr_nonnull(fp);
    gcm_config_print(fp);
    rewind(fp);
    n = fread(buf, 1, sizeof(buf) - 1, fp);
    buf[n] = '\0';
    fclose(fp);
    /* The value in force of each entry, its description, the words of
     * a choice; util/ first, an unknown layer last. */
    ck_assert_ptr_nonnull(strstr(buf, "\nCHECK_UTIL_COUNT=7\n"));
    ck_assert_ptr_nonnull(strstr(buf, "\nCHECK_UTIL_BYTES=1024\n"));
    ck_assert_ptr_nonnull(strstr(buf, "\nCHECK_UTIL_CHOICE=beta\n"));
    ck_assert_ptr_nonnull(strstr(buf, "\nCHECK_UTIL_LEVEL=info\n"));
    ck_assert_ptr_nonnull(strstr(buf, "\nCHECK_UTIL_TEXT=\n"));
    ck_assert_ptr_nonnull(strstr(buf, "# a choice (alpha|beta|gamma_delta)"));
    ck_assert_ptr_nonnull(strstr(buf, "# a count from 2 to 16\n"));
    util = strstr(buf, "# ---- util/");
    mine = strstr(buf, "# ---- check_util/");
    ck_assert_ptr_nonnull(util);
    ck_assert_ptr_nonnull(mine);
    ck_assert_ptr_eq(util, buf);
    ck_assert(mine > util);
    ck_assert_ptr_nonnull(strstr(buf, "\nGENCOMM_LOG_LEVEL="));
}
END_TEST

START_TEST(test_util_log_levels)
{
    static const char *const names[] = {
        "error", "warn", "info", "debug", "trace"
    };
    int i;

    for (i = 0; i < 5; i++) {
        ck_assert_int_eq(gcm_log_level_parse(names[i]), i);
        ck_assert_str_eq(gcm_log_level_name(i), names[i]);
    }
    ck_assert_int_eq(gcm_log_level_parse("DEBUG"), GCM_LOG_DEBUG);
    ck_assert_int_lt(gcm_log_level_parse("verbose"), 0);
    ck_assert_int_lt(gcm_log_level_parse(""), 0);
    ck_assert_str_eq(gcm_log_level_name(99), "?");
    ck_assert_str_eq(gcm_log_level_name(-1), "?");
}
END_TEST

/* GENCOMM_LOG_FILE: lines go there; a file that cannot be opened says
 * so on stderr and logging stays on stderr. */
START_TEST(test_util_log_file)
{
    char path[] = "/tmp/check_util_logXXXXXX";
    char buf[1024];
    int fd = mkstemp(path);
    FILE *fp;
    size_t n;

    ck_assert_int_ge(fd, 0);
    close(fd);
    cu_clear();
    setenv("GENCOMM_LOG_FILE", path, 1);
    setenv("GENCOMM_LOG_LEVEL", "info", 1);
    cu_load();
    gcm_info("check_util line %d", 42);
    gcm_debug("check_util hidden");
    fp = fopen(path, "r");
    ck_assert_ptr_nonnull(fp);
    n = fread(buf, 1, sizeof(buf) - 1, fp);
    buf[n] = '\0';
    fclose(fp);
    unlink(path);
    ck_assert_ptr_nonnull(strstr(buf, "check_util line 42"));
    ck_assert_ptr_null(strstr(buf, "hidden"));
    unsetenv("GENCOMM_LOG_FILE");
    unsetenv("GENCOMM_LOG_LEVEL");
}
END_TEST

START_TEST(test_util_log_file_unopenable)
{
    cu_clear();
    setenv("GENCOMM_LOG_FILE", "/nonexistent-dir/x/log", 1);
    cu_load();
    ck_assert_ptr_nonnull(strstr(cu_err, "GENCOMM_LOG_FILE"));
    ck_assert_ptr_nonnull(strstr(cu_err, "/nonexistent-dir/x/log"));
    unsetenv("GENCOMM_LOG_FILE");
}
END_TEST

typedef struct cu_item {
    gcm_list_t link;
    int        value;
} cu_item_t;

START_TEST(test_util_list)
{
    cu_item_t items[5];
    gcm_list_t head, *pos, *tmp;
    int i, seen[5], n = 0;

    gcm_list_init(&head);
    ck_assert(gcm_list_empty(&head));
    for (i = 0; i < 5; i++) {
        items[i].value = i;
        gcm_list_push_back(&head, &items[i].link);
    }
    ck_assert(!gcm_list_empty(&head));
    /* Deleting while walking: the odd ones go. */
    gcm_list_for_each_safe(pos, tmp, &head) {
        cu_item_t *it = gcm_container_of(pos, cu_item_t, link);

        if (it->value % 2 != 0) {
            gcm_list_del(pos);
        }
    }
    gcm_list_insert_before(&items[2].link, &items[1].link);
    gcm_list_for_each_safe(pos, tmp, &head) {
        seen[n++] = gcm_container_of(pos, cu_item_t, link)->value;
    }
    ck_assert_int_eq(n, 4);
    ck_assert_int_eq(seen[0], 0);
    ck_assert_int_eq(seen[1], 1);
    ck_assert_int_eq(seen[2], 2);
    ck_assert_int_eq(seen[3], 4);
    for (i = 0; i < 5; i++) {
        if (i != 3) {
            gcm_list_del(&items[i].link);
        }
    }
    ck_assert(gcm_list_empty(&head));
}
END_TEST

/* util.h's hash, computed here step by step: its basis and prime, every
 * byte, in order. */
static uint64_t cu_hash(const char *s, size_t len)
{
    uint64_t h = 1469598103934665603ULL;
    size_t i;

    for (i = 0; i < len; i++) {
        h = (h ^ (unsigned char)s[i]) * 1099511628211ULL;
    }
    return h;
}

START_TEST(test_util_hash64)
{
    static const char *const in[] = { "a", "foobar", "\377\0\1" };
    size_t i;

    ck_assert(gcm_hash64("", 0) == 1469598103934665603ULL);
    for (i = 0; i < 2; i++) {
        ck_assert(gcm_hash64(in[i], strlen(in[i])) ==
                  cu_hash(in[i], strlen(in[i])));
    }
    /* Bytes above 127 and zero bytes count. */
    ck_assert(gcm_hash64(in[2], 3) == cu_hash(in[2], 3));
    ck_assert(gcm_hash64(in[2], 3) != gcm_hash64(in[2], 2));
    ck_assert(gcm_hash64("ab", 2) != gcm_hash64("ba", 2));
}
END_TEST

START_TEST(test_util_time_monotonic)
{
    double a = gcm_time_now(), b;

    usleep(2000);
    b = gcm_time_now();
    ck_assert(b > a);
    ck_assert(b - a >= 0.0015);
    ck_assert(b - a < 5.0);
}
END_TEST

static Suite *make_suite(void)
{
    const TTest *config[] = {test_util_config_defaults,
        test_util_config_good_values, test_util_config_bad_values_keep_default,
        test_util_config_range_clamped, test_util_config_print, NULL};
    const TTest *misc[] = {test_util_log_levels, test_util_log_file,
        test_util_log_file_unopenable, test_util_list, test_util_hash64,
        test_util_time_monotonic, NULL};
    const struct gcm_check_case cases[] = {
        {"config", .tests = config},
        {"misc", .tests = misc},
        {0},
    };

    return gcm_check_suite("util", cases);
}
