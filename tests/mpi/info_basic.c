/*
 * tests/mpi/info_basic.c: info objects (MPI-3.1 9) as a program uses them:
 * key order, overwrite, delete, dup independence, value lengths, values
 * cut to valuelen on get, the limits on keys and values, MPI_INFO_ENV
 * (readable, read-only, filled by MPI_Init), MPI-4's MPI_Info_get_string,
 * a communicator's hints through set_info, get_info, dup, idup and
 * (i)dup_with_info, and the error classes.
 */
#include <mpi.h>

#include "mpitest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int rank;

static int errclass(int code)
{
    int cls = -1;

    MPI_Error_class(code, &cls);
    return cls;
}

/* The value of key in info, or NULL (static buffer). */
static const char *get(MPI_Info info, const char *key)
{
    static char value[MPI_MAX_INFO_VAL + 1];
    int flag = -1, rc;

    rc = MPI_Info_get(info, key, MPI_MAX_INFO_VAL, value, &flag);
    CHECK(rc == MPI_SUCCESS, "MPI_Info_get(%s) rc %d", key, rc);
    return (flag == 1) ? value : NULL;
}

static void check_keys(MPI_Info info, int n, const char *const keys[],
                       const char *what)
{
    char key[MPI_MAX_INFO_KEY + 1];
    int nkeys = -1, i;

    MPI_Info_get_nkeys(info, &nkeys);
    CHECK(nkeys == n, "%s: %d keys, want %d", what, nkeys, n);
    for (i = 0; i < n && i < nkeys; i++) {
        key[0] = '\0';
        MPI_Info_get_nthkey(info, i, key);
        CHECK(strcmp(key, keys[i]) == 0, "%s: key %d is \"%s\", want \"%s\"",
              what, i, key, keys[i]);
    }
}

static void test_basic(void)
{
    static const char *const k3[] = { "zeta", "alpha", "mid" };
    static const char *const k2[] = { "zeta", "mid" };
    static const char *const k4[] = { "zeta", "mid", "alpha", "new" };
    MPI_Info info, dup;
    const char *v;
    int len, flag;

    MPI_Info_create(&info);
    check_keys(info, 0, NULL, "empty");
    CHECK(get(info, "nothing") == NULL, "key found in an empty info");

    /* Insertion order, not sorted. */
    MPI_Info_set(info, "zeta", "1");
    MPI_Info_set(info, "alpha", "two");
    MPI_Info_set(info, "mid", "3");
    check_keys(info, 3, k3, "three sets");
    v = get(info, "alpha");
    CHECK(v != NULL && strcmp(v, "two") == 0, "alpha");

    /* Overwrite keeps the place and replaces the value. */
    MPI_Info_set(info, "alpha", "a much longer second value");
    check_keys(info, 3, k3, "after overwrite");
    v = get(info, "alpha");
    CHECK(v != NULL && strcmp(v, "a much longer second value") == 0,
          "overwritten alpha");
    MPI_Info_get_valuelen(info, "alpha", &len, &flag);
    CHECK(flag == 1 && len == 26, "valuelen %d flag %d", len, flag);
    flag = 1;
    MPI_Info_get_valuelen(info, "beta", &len, &flag);
    CHECK(flag == 0, "valuelen of a missing key");

    /* Keys are case-sensitive strings. */
    CHECK(get(info, "ALPHA") == NULL, "keys compared without case");

    /* Dup is independent both ways. */
    MPI_Info_dup(info, &dup);
    check_keys(dup, 3, k3, "dup");
    MPI_Info_delete(info, "alpha");
    check_keys(info, 2, k2, "after delete");
    check_keys(dup, 3, k3, "dup after delete in original");
    MPI_Info_set(dup, "mid", "changed");
    v = get(info, "mid");
    CHECK(v != NULL && strcmp(v, "3") == 0, "dup's set changed original");

    /* A deleted key set again goes to the end. */
    MPI_Info_set(info, "alpha", "back");
    MPI_Info_set(info, "new", "");
    check_keys(info, 4, k4, "re-added");
    v = get(info, "new");
    CHECK(v != NULL && v[0] == '\0', "empty value");

    MPI_Info_free(&dup);
    CHECK(dup == MPI_INFO_NULL, "free did not reset the handle");
    MPI_Info_free(&info);
    CHECK(info == MPI_INFO_NULL, "free did not reset the handle");
}

static void test_lengths(void)
{
    char key[MPI_MAX_INFO_KEY + 2], value[MPI_MAX_INFO_VAL + 2];
    char out[MPI_MAX_INFO_VAL + 1], nth[MPI_MAX_INFO_KEY + 1];
    MPI_Info info;
    int flag, len, rc;

    MPI_Info_create(&info);
    /* Truncation on get: valuelen characters, then the null. */
    MPI_Info_set(info, "k", "0123456789");
    memset(out, 'X', sizeof(out));
    flag = 0;
    MPI_Info_get(info, "k", 4, out, &flag);
    CHECK(flag == 1 && strcmp(out, "0123") == 0, "cut to 4: \"%.12s\"",
          out);
    CHECK(out[5] == 'X', "wrote past valuelen + 1");
    MPI_Info_get(info, "k", 0, out, &flag);
    CHECK(flag == 1 && out[0] == '\0', "cut to 0");
    MPI_Info_get(info, "k", 10, out, &flag);
    CHECK(flag == 1 && strcmp(out, "0123456789") == 0, "exact length");

    /* The longest key and value are accepted, one more is not. */
    memset(key, 'k', MPI_MAX_INFO_KEY);
    key[MPI_MAX_INFO_KEY] = '\0';
    memset(value, 'v', MPI_MAX_INFO_VAL);
    value[MPI_MAX_INFO_VAL] = '\0';
    rc = MPI_Info_set(info, key, value);
    CHECK(rc == MPI_SUCCESS, "longest key and value: %d", rc);
    MPI_Info_get_valuelen(info, key, &len, &flag);
    CHECK(flag == 1 && len == MPI_MAX_INFO_VAL, "longest value length %d",
          len);
    MPI_Info_get_nthkey(info, 1, nth);
    CHECK(strcmp(nth, key) == 0, "longest key back from get_nthkey");
    MPI_Info_get(info, key, MPI_MAX_INFO_VAL, out, &flag);
    CHECK(flag == 1 && strcmp(out, value) == 0, "longest value back");

    key[MPI_MAX_INFO_KEY]     = 'k';
    key[MPI_MAX_INFO_KEY + 1] = '\0';
    rc = MPI_Info_set(info, key, "v");
    CHECK(errclass(rc) == MPI_ERR_INFO_KEY, "key too long: %d", rc);
    rc = MPI_Info_get(info, key, 10, out, &flag);
    CHECK(errclass(rc) == MPI_ERR_INFO_KEY, "get, key too long: %d", rc);
    value[MPI_MAX_INFO_VAL]     = 'v';
    value[MPI_MAX_INFO_VAL + 1] = '\0';
    rc = MPI_Info_set(info, "k", value);
    CHECK(errclass(rc) == MPI_ERR_INFO_VALUE, "value too long: %d", rc);
    MPI_Info_get(info, "k", MPI_MAX_INFO_VAL, out, &flag);
    CHECK(flag == 1 && strcmp(out, "0123456789") == 0,
          "failed set changed the value");
    MPI_Info_free(&info);
}

/* MPI_Info_get_string (MPI-4): buflen counts the null both ways. */
static void test_get_string(void)
{
    char out[16];
    MPI_Info info;
    int flag, buflen, rc;

    MPI_Info_create(&info);
    MPI_Info_set(info, "k", "0123456789");
    memset(out, 'X', sizeof(out));
    buflen = 16;
    flag = 0;
    rc = MPI_Info_get_string(info, "k", &buflen, out, &flag);
    CHECK(rc == MPI_SUCCESS && flag == 1 && strcmp(out, "0123456789") == 0 &&
          buflen == 11, "whole: \"%.16s\" buflen %d", out, buflen);
    /* Cut to buflen - 1 characters and the null; buflen says the need. */
    memset(out, 'X', sizeof(out));
    buflen = 5;
    rc = MPI_Info_get_string(info, "k", &buflen, out, &flag);
    CHECK(rc == MPI_SUCCESS && flag == 1 && strcmp(out, "0123") == 0 &&
          buflen == 11 && out[5] == 'X', "cut to 5: \"%.16s\" buflen %d",
          out, buflen);
    /* buflen 0: the size needed only, nothing written. */
    memset(out, 'X', sizeof(out));
    buflen = 0;
    rc = MPI_Info_get_string(info, "k", &buflen, NULL, &flag);
    CHECK(rc == MPI_SUCCESS && flag == 1 && buflen == 11,
          "buflen 0: flag %d buflen %d", flag, buflen);
    /* A missing key: flag 0, buflen and value untouched. */
    buflen = 7;
    rc = MPI_Info_get_string(info, "missing", &buflen, out, &flag);
    CHECK(rc == MPI_SUCCESS && flag == 0 && buflen == 7 && out[0] == 'X',
          "missing: flag %d buflen %d", flag, buflen);
    buflen = -1;
    rc = MPI_Info_get_string(info, "k", &buflen, out, &flag);
    CHECK(errclass(rc) == MPI_ERR_ARG, "negative buflen: %d", rc);
    rc = MPI_Info_get_string(info, "k", NULL, out, &flag);
    CHECK(errclass(rc) == MPI_ERR_ARG, "NULL buflen: %d", rc);
    buflen = 4;
    rc = MPI_Info_get_string(MPI_INFO_NULL, "k", &buflen, out, &flag);
    CHECK(errclass(rc) == MPI_ERR_INFO, "MPI_INFO_NULL: %d", rc);
    MPI_Info_free(&info);
}

/* A communicator's hints (MPI-3.1 6.4.2, 6.4.4): MPI_Comm_set_info and
 * _get_info, duplicated with it by MPI_Comm_dup and MPI_Comm_idup,
 * replaced by MPI_Comm_(i)dup_with_info's own. */
static void test_comm_info(void)
{
    MPI_Comm dup, idup, wdup;
    MPI_Request req;
    MPI_Info hints, other, got;
    const char *v;
    int n = -1;

    MPI_Info_create(&hints);
    MPI_Info_set(hints, "mylib_hint", "fast");
    MPI_Info_create(&other);
    MPI_Info_set(other, "other_hint", "slow");
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    CHECK(MPI_Comm_set_info(dup, hints) == MPI_SUCCESS, "set_info");
    MPI_Info_set(hints, "mylib_hint", "changed later");
    MPI_Comm_get_info(dup, &got);
    v = get(got, "mylib_hint");
    CHECK(v != NULL && strcmp(v, "fast") == 0, "get_info: \"%s\"",
          v ? v : "(unset)");
    MPI_Info_free(&got);

    MPI_Comm_dup(dup, &wdup);
    MPI_Comm_get_info(wdup, &got);
    v = get(got, "mylib_hint");
    CHECK(v != NULL && strcmp(v, "fast") == 0, "dup's hint: \"%s\"",
          v ? v : "(unset)");
    MPI_Info_free(&got);
    MPI_Comm_free(&wdup);

    MPI_Comm_idup(dup, &idup, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    MPI_Comm_get_info(idup, &got);
    v = get(got, "mylib_hint");
    CHECK(v != NULL && strcmp(v, "fast") == 0, "idup's hint: \"%s\"",
          v ? v : "(unset)");
    MPI_Info_free(&got);
    MPI_Comm_free(&idup);

    MPI_Comm_idup_with_info(dup, other, &wdup, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    MPI_Comm_get_info(wdup, &got);
    CHECK(get(got, "mylib_hint") == NULL, "idup_with_info kept the old "
          "hint");
    v = get(got, "other_hint");
    CHECK(v != NULL && strcmp(v, "slow") == 0, "idup_with_info's hint");
    MPI_Info_free(&got);
    MPI_Comm_free(&wdup);

    MPI_Comm_dup_with_info(dup, other, &wdup);
    MPI_Comm_get_info(wdup, &got);
    CHECK(get(got, "mylib_hint") == NULL, "dup_with_info kept the old "
          "hint");
    v = get(got, "other_hint");
    CHECK(v != NULL && strcmp(v, "slow") == 0, "dup_with_info's hint");
    MPI_Info_get_nkeys(got, &n);
    CHECK(n == 1, "dup_with_info: %d hints", n);
    MPI_Info_free(&got);
    MPI_Comm_free(&wdup);

    MPI_Comm_free(&dup);
    MPI_Info_free(&hints);
    MPI_Info_free(&other);
}

static void test_errors(void)
{
    char out[MPI_MAX_INFO_VAL + 1], key[MPI_MAX_INFO_KEY + 1];
    MPI_Info info, env = MPI_INFO_ENV, null = MPI_INFO_NULL;
    int rc, flag, n;

    MPI_Info_create(&info);
    MPI_Info_set(info, "a", "1");

    rc = MPI_Info_set(MPI_INFO_NULL, "a", "1");
    CHECK(errclass(rc) == MPI_ERR_INFO, "set on MPI_INFO_NULL: %d", rc);
    rc = MPI_Info_get(MPI_INFO_NULL, "a", 10, out, &flag);
    CHECK(errclass(rc) == MPI_ERR_INFO, "get on MPI_INFO_NULL: %d", rc);
    rc = MPI_Info_get_nkeys(MPI_INFO_NULL, &n);
    CHECK(errclass(rc) == MPI_ERR_INFO, "nkeys on MPI_INFO_NULL: %d", rc);
    rc = MPI_Info_dup(MPI_INFO_NULL, &info);
    CHECK(errclass(rc) == MPI_ERR_INFO, "dup of MPI_INFO_NULL: %d", rc);
    rc = MPI_Info_free(&null);
    CHECK(errclass(rc) == MPI_ERR_INFO, "free of MPI_INFO_NULL: %d", rc);

    rc = MPI_Info_set(info, "", "1");
    CHECK(errclass(rc) == MPI_ERR_INFO_KEY, "empty key: %d", rc);
    rc = MPI_Info_set(info, NULL, "1");
    CHECK(errclass(rc) == MPI_ERR_INFO_KEY, "NULL key: %d", rc);
    rc = MPI_Info_set(info, "b", NULL);
    CHECK(errclass(rc) == MPI_ERR_INFO_VALUE, "NULL value: %d", rc);
    rc = MPI_Info_delete(info, "missing");
    CHECK(errclass(rc) == MPI_ERR_INFO_NOKEY, "delete missing: %d", rc);
    rc = MPI_Info_delete(info, "");
    CHECK(errclass(rc) == MPI_ERR_INFO_KEY, "delete empty key: %d", rc);
    rc = MPI_Info_get_nthkey(info, 1, key);
    CHECK(errclass(rc) == MPI_ERR_ARG, "nthkey 1 of 1: %d", rc);
    rc = MPI_Info_get_nthkey(info, -1, key);
    CHECK(errclass(rc) == MPI_ERR_ARG, "nthkey -1: %d", rc);
    rc = MPI_Info_get(info, "a", -1, out, &flag);
    CHECK(errclass(rc) == MPI_ERR_ARG, "negative valuelen: %d", rc);
    rc = MPI_Info_get(info, "a", 10, out, NULL);
    CHECK(errclass(rc) == MPI_ERR_ARG, "NULL flag: %d", rc);
    rc = MPI_Info_create(NULL);
    CHECK(errclass(rc) == MPI_ERR_ARG, "create(NULL): %d", rc);

    /* MPI_INFO_ENV is read-only and cannot be freed. */
    rc = MPI_Info_set(MPI_INFO_ENV, "command", "x");
    CHECK(errclass(rc) == MPI_ERR_INFO, "set on MPI_INFO_ENV: %d", rc);
    rc = MPI_Info_set(MPI_INFO_ENV, "brand-new", "x");
    CHECK(errclass(rc) == MPI_ERR_INFO, "new key on MPI_INFO_ENV: %d", rc);
    rc = MPI_Info_delete(MPI_INFO_ENV, "host");
    CHECK(errclass(rc) == MPI_ERR_INFO, "delete on MPI_INFO_ENV: %d", rc);
    rc = MPI_Info_free(&env);
    CHECK(errclass(rc) == MPI_ERR_INFO && env == MPI_INFO_ENV,
          "free of MPI_INFO_ENV: %d", rc);

    /* After all that, the info is as it was. */
    MPI_Info_get_nkeys(info, &n);
    CHECK(n == 1, "%d keys after failed calls", n);
    MPI_Info_free(&info);
}

static void test_env(int argc, char **argv, int size)
{
    char host[MPI_MAX_INFO_VAL + 1], wdir[MPI_MAX_INFO_VAL + 1];
    const char *v;
    MPI_Info copy;
    int n = 0, n2 = 0;

    v = get(MPI_INFO_ENV, "command");
    CHECK(v != NULL && argc > 0 && strcmp(v, argv[0]) == 0,
          "command \"%s\"", v ? v : "(unset)");
    v = get(MPI_INFO_ENV, "maxprocs");
    CHECK(v != NULL && atoi(v) == size, "maxprocs \"%s\" for %d processes",
          v ? v : "(unset)", size);
    gethostname(host, sizeof(host));
    host[sizeof(host) - 1] = '\0';
    v = get(MPI_INFO_ENV, "host");
    CHECK(v != NULL && strcmp(v, host) == 0, "host \"%s\"",
          v ? v : "(unset)");
    if (getcwd(wdir, sizeof(wdir)) != NULL) {
        v = get(MPI_INFO_ENV, "wdir");
        CHECK(v != NULL && strcmp(v, wdir) == 0, "wdir \"%s\"",
              v ? v : "(unset)");
    }
    v = get(MPI_INFO_ENV, "arch");
    CHECK(v != NULL && v[0] != '\0', "arch unset");
    v = get(MPI_INFO_ENV, "thread_level");
    CHECK(v != NULL && strncmp(v, "MPI_THREAD_", 11) == 0,
          "thread_level \"%s\"", v ? v : "(unset)");
    v = get(MPI_INFO_ENV, "argv");
    CHECK(v != NULL && v[0] == '\0', "argv \"%s\" (no arguments given)",
          v ? v : "(unset)");

    /* A dup of MPI_INFO_ENV is an ordinary, writable info. */
    MPI_Info_get_nkeys(MPI_INFO_ENV, &n);
    MPI_Info_dup(MPI_INFO_ENV, &copy);
    MPI_Info_get_nkeys(copy, &n2);
    CHECK(n == n2 && n >= 7, "env has %d keys, its dup %d", n, n2);
    CHECK(MPI_Info_set(copy, "host", "elsewhere") == MPI_SUCCESS,
          "set on a dup of MPI_INFO_ENV");
    v = get(MPI_INFO_ENV, "host");
    CHECK(v != NULL && strcmp(v, host) == 0, "env changed through its dup");
    MPI_Info_free(&copy);
}

int main(int argc, char **argv)
{
    int size;

    mpitest_init(&argc, &argv, "info_basic", 1);
    mpitest_world(&rank, &size);

    test_basic();
    test_lengths();
    test_get_string();
    test_comm_info();
    test_errors();
    test_env(argc, argv, size);

    return mpitest_finish();
}
