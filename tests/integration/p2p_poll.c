/*
 * p2p_poll: a process that polls while it shares its core gives the core
 * away (internal header, internal library).
 *
 * Run by gcrun --bind-to none: both processes put themselves on the first
 * CPU of their mask before gcm_init, so the job has one core for two
 * processes (oversubscribed). Process 1 then polls as HPL's broadcast
 * does, computing between polls (busy for GAP_US each time, longer than
 * GENCOMM_POLL_YIELD_US): with gcm_iprobe for a message nobody has sent,
 * and with gcm_test on a receive nobody has matched. Every such poll
 * after the first finds nothing and yields (the count of the thread's
 * poll yields). Then it tests that receive in a tight loop while
 * process 0, on the same core, computes and then sends: the message comes,
 * and the loop yielded.
 *
 * Usage: gcrun --bind-to none -n 2 p2p_poll [keep]. With "keep" (run with
 * a GENCOMM_POLL_YIELD_US longer than the test), no poll may yield.
 * Process 0 prints "p2p_poll: all checks passed" when no process failed.
 */
#define _GNU_SOURCE /* gcm_test_one_cpu (gcm_test.h) */
#include "config.h"

#include "lco/lco.h"
#include "threads/thr.h"

#include "gcm_test.h"

#include <sched.h>
#include <stdio.h>
#include <string.h>

#define POLLS      16
#define GAP_US     500
#define NONE_TAG   1
#define GO_TAG     2
#define LATE_TAG   3
#define WORK_MS    20
#define LIMIT_S    10.0

/* Computes (spins on the clock) for us microseconds. */
static void busy(double us)
{
    double end = gcm_time_now() + us * 1e-6;

    while (gcm_time_now() < end) {
    }
}

static void poller(int keep)
{
    unsigned long before, yields;
    gcm_request_h req;
    double deadline;
    int flag = 0, got = 0, i;
    char c = 'g';

    /* Probes between pieces of work, for a message nobody sent. */
    before = gcm_thr_poll_yields();
    for (i = 0; i < POLLS; i++) {
        busy(GAP_US);
        gcm_test_ok(gcm_iprobe(gcm_world(), 0, NONE_TAG, &flag, NULL),
                    "gcm_iprobe");
        CHECK(!flag, "gcm_iprobe found a message nobody sent");
    }
    yields = gcm_thr_poll_yields() - before;
    if (keep) {
        CHECK(yields == 0, "%lu of %d probes yielded", yields, POLLS);
    } else {
        CHECK(yields >= POLLS - 1, "only %lu of %d probes %d us apart "
              "yielded", yields, POLLS, GAP_US);
    }
    /* Tests between pieces of work, of a receive nobody matches yet. */
    if (!gcm_test_ok(gcm_irecv(gcm_world(), &got, sizeof(got), 0, LATE_TAG,
                               &req), "gcm_irecv")) {
        return;
    }
    before = gcm_thr_poll_yields();
    for (i = 0; i < POLLS; i++) {
        busy(GAP_US);
        gcm_test_ok(gcm_test(&req, &flag, NULL), "gcm_test");
        CHECK(!flag, "a receive nobody matched is complete");
    }
    yields = gcm_thr_poll_yields() - before;
    if (keep) {
        CHECK(yields == 0, "%lu of %d tests yielded", yields, POLLS);
    } else {
        CHECK(yields >= POLLS - 1, "only %lu of %d tests %d us apart "
              "yielded", yields, POLLS, GAP_US);
    }
    /* A tight loop of tests of that receive, which process 0 matches
     * after computing on the same core. */
    gcm_test_ok(gcm_send(gcm_world(), &c, 1, 0, GO_TAG), "gcm_send (go)");
    before   = gcm_thr_poll_yields();
    deadline = gcm_time_now() + LIMIT_S;
    flag     = 0;
    while (!flag && (gcm_time_now() < deadline)) {
        gcm_test_ok(gcm_test(&req, &flag, NULL), "gcm_test");
    }
    yields = gcm_thr_poll_yields() - before;
    CHECK(flag, "no message after %.0f s of polling", LIMIT_S);
    if (keep) {
        CHECK(yields == 0, "a polling loop yielded %lu times", yields);
    } else {
        CHECK(yields > 0, "a polling loop that waited for a process on "
              "its core never yielded");
    }
    if (!flag) {
        (void)gcm_lco_cancel(req);
        (void)gcm_wait(&req, NULL);
        return;
    }
    CHECK(got == 42, "got %d, not 42", got);
}

static void worker(void)
{
    char c;
    int v = 42;

    gcm_test_ok(gcm_recv(gcm_world(), &c, 1, 1, GO_TAG, NULL),
                "gcm_recv (go)");
    busy(WORK_MS * 1000.0);
    gcm_test_ok(gcm_send(gcm_world(), &v, sizeof(v), 1, LATE_TAG),
                "gcm_send");
}

int main(int argc, char **argv)
{
    int keep = (argc > 1) && (strcmp(argv[1], "keep") == 0);

    /* Both processes on one CPU before gcm_init counts the cores. */
    gcm_test_one_cpu();
    if (!gcm_test_init(&argc, &argv, "p2p_poll")) {
        return 1;
    }
    if (gcm_proc_count() != 2) {
        gcm_test_fail("needs 2 processes, got %d", gcm_proc_count());
    } else if (!gcm_thr_is_oversubscribed()) {
        gcm_test_fail("two processes on one core not seen as more "
                      "processes than cores (run with --bind-to none)");
    } else if (gcm_test_me == 1) {
        poller(keep);
    } else {
        worker();
    }
    return gcm_test_finish();
}
