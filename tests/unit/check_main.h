/*
 * tests/unit/check_main.h: the suite builder and the main() of every
 * unit-test program. Each program defines make_suite(), which lists its
 * test cases in a table and returns gcm_check_suite(name, table); output
 * is Check's normal summary, and the exit status is the number of
 * failures (0: pass).
 */
#ifndef GCM_CHECK_MAIN_H
#define GCM_CHECK_MAIN_H

#include <check.h>
#include <stdlib.h>

/*
 * One test case: its name, its tests (a list ended by NULL) and what each
 * of them runs under. A table of cases ends with {0}.
 */
struct gcm_check_case {
    const char *name;
    const TTest *const *tests;
    int timeout;        /* seconds; 0 keeps Check's default */
    SFun setup;         /* checked fixture around each test, or NULL */
    SFun teardown;
    int loop_start;     /* loop_end > 0: each test runs once for every */
    int loop_end;       /* _i in [loop_start, loop_end) */
};

static Suite *gcm_check_suite(const char *name,
                              const struct gcm_check_case *cases)
{
    Suite *s = suite_create(name);

    for (; cases->name != NULL; cases++) {
        TCase *tc = tcase_create(cases->name);
        const TTest *const *t;

        if (cases->timeout > 0) {
            tcase_set_timeout(tc, cases->timeout);
        }
        if (cases->setup != NULL || cases->teardown != NULL) {
            tcase_add_checked_fixture(tc, cases->setup, cases->teardown);
        }
        for (t = cases->tests; *t != NULL; t++) {
            if (cases->loop_end > 0) {
                tcase_add_loop_test(tc, *t, cases->loop_start,
                                    cases->loop_end);
            } else {
                tcase_add_test(tc, *t);
            }
        }
        suite_add_tcase(s, tc);
    }
    return s;
}

static Suite *make_suite(void);

int main(void)
{
    SRunner *sr = srunner_create(make_suite());
    int failed;

    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return (failed == 0) ? EXIT_SUCCESS : EXIT_FAILURE;
}

#endif
