/*
 * tests/integration/gcm_test_self.c: the checks of gcm_test.h check.
 * Without arguments every check holds: the names of all processes are
 * exchanged and each is the one its owner published. With "fail",
 * gcm_test_fail, gcm_test_ok and gcm_test_expect_err each meet something
 * wrong once and must report it and make the program fail
 * (tests/test_helpers.sh).
 */
#include "gcm_test.h"

#define NAME_TAG 1

int main(int argc, char **argv)
{
    int bad = (argc > 1) && (strcmp(argv[1], "fail") == 0);
    gcm_name_t mine;
    gcm_name_t *all;
    gcm_lco_h lco = NULL;
    gcm_lco_h none = NULL;
    int n;

    if (!gcm_test_init(&argc, &argv, "gcm_test_self")) {
        return 1;
    }
    n = gcm_proc_count();
    all = calloc((size_t)n, sizeof(*all));
    if (all == NULL) {
        gcm_test_fail("no memory for %d names", n);
    } else if (gcm_test_ok(gcm_lco_create(&lco), "gcm_lco_create") &&
               gcm_test_ok(gcm_lco_name(lco, &mine), "gcm_lco_name") &&
               gcm_test_exchange(&mine, sizeof(mine), all, NAME_TAG) &&
               (memcmp(&all[gcm_test_me], &mine, sizeof(mine)) != 0)) {
        gcm_test_fail("my own name came back changed");
    }
    gcm_test_expect_err("gcm_lco_free(NULL)", gcm_lco_free(&none),
                        GCM_ERR_INVALID_PARAM, GCM_ERR_INVALID_PARAM,
                        "gcm_lco_free");
    if (bad) {
        gcm_test_fail("a failure on purpose");
        gcm_test_ok(gcm_lco_free(&none), "gcm_lco_free(NULL)");
        gcm_test_expect_err("gcm_lco_name(lco)", gcm_lco_name(lco, &mine),
                            GCM_ERR_INVALID_PARAM, GCM_ERR_INVALID_PARAM,
                            "gcm_lco_name");
        if (gcm_test_failed() != 3) {
            gcm_test_fail("%d failures counted, expected 3",
                          gcm_test_failed());
        }
    }
    /* Everyone is done with the names before any LCO goes. */
    gcm_test_exchange(&mine, sizeof(mine), all, NAME_TAG);
    if (lco != NULL) {
        gcm_test_ok(gcm_lco_free(&lco), "gcm_lco_free");
    }
    free(all);
    return gcm_test_finish();
}
