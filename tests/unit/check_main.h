/*
 * tests/unit/check_main.h: the main() of every unit-test program. Each
 * program defines make_suite(); output is Check's normal summary, and the
 * exit status is the number of failures (0: pass).
 */
#ifndef GCM_CHECK_MAIN_H
#define GCM_CHECK_MAIN_H

#include <check.h>
#include <stdlib.h>

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
