/*
 * tests/unit/check_mpi_info.c: info objects in one process, without
 * MPI_Init: many keys (order kept through deletes in the middle), dup
 * independence, and MPI_INFO_ENV as gcm_mpi_info_env_init fills it from
 * argument vectors a launcher could hand over (none, several, longer than
 * MPI_MAX_INFO_VAL).
 */
#include "config.h"

#include "compat/mpi_impl.h"
#include "check_main.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *env_get(const char *key)
{
    static char value[MPI_MAX_INFO_VAL + 1];
    int flag = -1;

    ck_assert_int_eq(MPI_Info_get(MPI_INFO_ENV, key, MPI_MAX_INFO_VAL, value,
                                  &flag), MPI_SUCCESS);
    return (flag == 1) ? value : NULL;
}

START_TEST(test_info_many_keys)
{
    char key[MPI_MAX_INFO_KEY + 1], value[MPI_MAX_INFO_VAL + 1];
    char want[64];
    MPI_Info info, dup;
    int i, n, flag, j;

    ck_assert_int_eq(MPI_Info_create(&info), MPI_SUCCESS);
    for (i = 0; i < 1000; i++) {
        snprintf(key, sizeof(key), "key%d", (i * 7919) % 1000);
        snprintf(value, sizeof(value), "value%d", i);
        ck_assert_int_eq(MPI_Info_set(info, key, value), MPI_SUCCESS);
    }
    ck_assert_int_eq(MPI_Info_get_nkeys(info, &n), MPI_SUCCESS);
    ck_assert_int_eq(n, 1000);
    /* Delete every third key; the others keep their relative order. */
    for (i = 0; i < 1000; i += 3) {
        snprintf(key, sizeof(key), "key%d", (i * 7919) % 1000);
        ck_assert_int_eq(MPI_Info_delete(info, key), MPI_SUCCESS);
    }
    ck_assert_int_eq(MPI_Info_dup(info, &dup), MPI_SUCCESS);
    MPI_Info_get_nkeys(dup, &n);
    ck_assert_int_eq(n, 1000 - 334);
    for (i = 0, j = 0; i < 1000; i++) {
        if (i % 3 == 0) {
            continue;
        }
        snprintf(want, sizeof(want), "key%d", (i * 7919) % 1000);
        ck_assert_int_eq(MPI_Info_get_nthkey(dup, j, key), MPI_SUCCESS);
        ck_assert_str_eq(key, want);
        ck_assert_int_eq(MPI_Info_get(dup, key, MPI_MAX_INFO_VAL, value,
                                      &flag), MPI_SUCCESS);
        ck_assert_int_eq(flag, 1);
        snprintf(want, sizeof(want), "value%d", i);
        ck_assert_str_eq(value, want);
        j++;
    }
    ck_assert_int_eq(MPI_Info_free(&info), MPI_SUCCESS);
    /* The dup outlives its original. */
    ck_assert_int_eq(MPI_Info_get_nthkey(dup, 0, key), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Info_free(&dup), MPI_SUCCESS);
    ck_assert_ptr_eq(dup, MPI_INFO_NULL);
}
END_TEST

START_TEST(test_info_check)
{
    MPI_Info info;
    int garbage[16] = { 0 };

    ck_assert_int_eq(gcm_mpi_info_check(MPI_INFO_NULL), MPI_ERR_INFO);
    ck_assert_int_eq(gcm_mpi_info_check(MPI_INFO_ENV), MPI_SUCCESS);
    ck_assert_int_eq(gcm_mpi_info_check((MPI_Info)(void *)garbage),
                     MPI_ERR_INFO);
    ck_assert_int_eq(gcm_mpi_info_check((MPI_Info)(uintptr_t)8),
                     MPI_ERR_INFO);
    MPI_Info_create(&info);
    ck_assert_int_eq(gcm_mpi_info_check(info), MPI_SUCCESS);
    /* A handle that is not an info is refused, not used. */
    ck_assert_int_eq(MPI_Info_set((MPI_Info)(void *)garbage, "a", "b"),
                     MPI_ERR_INFO);
    MPI_Info_free(&info);
}
END_TEST

START_TEST(test_info_env_argv)
{
    char *argv[] = { "/path/to/prog", "-n", "3", "last arg", NULL };
    char cwd[MPI_MAX_INFO_VAL + 1], host[MPI_MAX_INFO_VAL + 1];
    char nprocs[32];
    const char *v;

    gcm_mpi_info_env_init(4, argv);
    v = env_get("command");
    ck_assert_ptr_nonnull(v);
    ck_assert_str_eq(v, "/path/to/prog");
    v = env_get("argv");
    ck_assert_ptr_nonnull(v);
    ck_assert_str_eq(v, "-n 3 last arg");
    snprintf(nprocs, sizeof(nprocs), "%d", gcm_proc_count());
    v = env_get("maxprocs");
    ck_assert_ptr_nonnull(v);
    ck_assert_str_eq(v, nprocs);
    ck_assert_ptr_nonnull(getcwd(cwd, sizeof(cwd)));
    v = env_get("wdir");
    ck_assert_ptr_nonnull(v);
    ck_assert_str_eq(v, cwd);
    gethostname(host, sizeof(host));
    host[sizeof(host) - 1] = '\0';
    v = env_get("host");
    ck_assert_ptr_nonnull(v);
    ck_assert_str_eq(v, host);
    ck_assert_ptr_nonnull(env_get("arch"));

    /* Still read-only. */
    ck_assert_int_eq(MPI_Info_set(MPI_INFO_ENV, "command", "x"),
                     MPI_ERR_INFO);

    /* Called again (a new vector), nothing of the old one is left. */
    gcm_mpi_info_env_init(0, NULL);
    ck_assert_ptr_null(env_get("command"));
    ck_assert_ptr_null(env_get("argv"));
    ck_assert_ptr_nonnull(env_get("maxprocs"));
}
END_TEST

START_TEST(test_info_env_long_argv)
{
    char *argv[4], *big;
    const char *v;
    size_t n = 700;

    /* Two arguments of 700 characters: the joined value is cut at
     * MPI_MAX_INFO_VAL, and so is a command that long. */
    big = malloc(2 * MPI_MAX_INFO_VAL);
    ck_assert_ptr_nonnull(big);
    memset(big, 'a', 2 * MPI_MAX_INFO_VAL - 1);
    big[2 * MPI_MAX_INFO_VAL - 1] = '\0';
    argv[0] = big;
    argv[1] = big + 2 * MPI_MAX_INFO_VAL - 1 - n;
    argv[2] = big + 2 * MPI_MAX_INFO_VAL - 1 - n;
    argv[3] = NULL;
    gcm_mpi_info_env_init(3, argv);
    v = env_get("argv");
    ck_assert_ptr_nonnull(v);
    ck_assert_uint_eq(strlen(v), MPI_MAX_INFO_VAL);
    ck_assert_int_eq(v[n], ' ');
    v = env_get("command");
    ck_assert_ptr_nonnull(v);
    ck_assert_uint_eq(strlen(v), MPI_MAX_INFO_VAL);
    free(big);
    gcm_mpi_info_env_init(0, NULL);
}
END_TEST

static Suite *make_suite(void)
{
    const TTest *objects[] = {test_info_many_keys, test_info_check, NULL};
    const TTest *env[] = {test_info_env_argv, test_info_env_long_argv, NULL};
    const struct gcm_check_case cases[] = {
        {"objects", .tests = objects},
        {"env", .tests = env},
        {0},
    };

    return gcm_check_suite("mpi_info", cases);
}
