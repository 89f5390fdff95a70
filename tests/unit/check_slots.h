/*
 * tests/unit/check_slots.h: what the two files of check_slots share
 * (check_slots.c: matching, ordering, truncation, refusals, the reorder
 * list, duplicates and patterns; check_slots_msg.c: synchronous sends,
 * cancel, matched probes, handlers, offers): the fixture, the pair of
 * LCOs most tests use, an internal tag, and the second file's tests.
 */
#ifndef GCM_CHECK_SLOTS_H
#define GCM_CHECK_SLOTS_H

#include <gencomm.h>

#include <check.h>

/* A tag above GCM_TAG_UB: the library's own traffic. */
#define GCM_CHECK_SLOTS_ITAG (GCM_TAG_UB + 7)

/* gcm_init as a singleton job, and gcm_finalize (a checked fixture). */
void gcm_check_slots_setup(void);
void gcm_check_slots_teardown(void);
/* A receiver with nrecv receive slots and a sender with one send slot to
 * each of them. */
void gcm_check_slots_pair(int nrecv, gcm_lco_h *rx, gcm_lco_h *tx);

/* The tests of check_slots_msg.c (a list ended by NULL), run under the
 * fixture above. */
const TTest *const *gcm_check_slots_msg_tests(void);

#endif
