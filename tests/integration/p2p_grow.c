/*
 * p2p_grow: an LCO gains receive slots while another thread receives on
 * it. A receive checks its slot against the LCO's count of receive slots
 * without the endpoint lock (slots/slot_recv.c), while adding slots may
 * move the slot arrays: under ThreadSanitizer (tests/tsan.sh) any race
 * between the two is reported.
 *
 * Thread G adds receive slot i to rx (i = 1..ROUNDS), a send slot of tx
 * that targets it, and sends i there. Thread R, once rx has slot i,
 * receives on it (polling, with a deadline) and must get i; it also
 * probes the newest slot, which G may be adding at that moment. Each
 * process runs this alone.
 *
 * Usage: p2p_grow [ROUNDS] (default 200). Process 0 prints "p2p_grow:
 * all checks passed" when no process failed.
 */
#include "gcm_test.h"

#include <pthread.h>
#include <sched.h>
#include <time.h>

#define DATA_TAG 4
#define LIMIT_S  120.0

static gcm_lco_h rx, tx;
static gcm_name_t rx_name;
static int rounds = 200;

static double now_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void *grower(void *unused)
{
    int i, slot;

    (void)unused;
    for (i = 1; i <= rounds; i++) {
        if (!gcm_test_ok(gcm_lco_add_recv_slots(rx, 1),
                         "gcm_lco_add_recv_slots") ||
            !gcm_test_ok(gcm_lco_add_send_slots(tx, 1, &rx_name, &i),
                         "gcm_lco_add_send_slots")) {
            break;
        }
        slot = i - 1;   /* tx's send slot i - 1 targets rx's slot i */
        if (!gcm_test_ok(gcm_send(tx, &i, sizeof(i), slot, DATA_TAG),
                         "gcm_send")) {
            break;
        }
    }
    return NULL;
}

static void *receiver(void *unused)
{
    gcm_request_h req;
    gcm_msg_status_t st;
    double limit = now_s() + LIMIT_S;
    int i, n, v, flag;

    (void)unused;
    for (i = 1; i <= rounds; i++) {
        /* Slot i appears when G adds it: poll the count (no lock). */
        do {
            if (!gcm_test_ok(gcm_lco_num_recv_slots(rx, &n),
                             "gcm_lco_num_recv_slots")) {
                return NULL;
            }
            if (n <= i) {
                if (now_s() > limit) {
                    gcm_test_fail("slot %d never appeared (%d slots)", i, n);
                    return NULL;
                }
                sched_yield();
            }
        } while (n <= i);
        /* The newest slot, maybe being added beside this probe. */
        if (!gcm_test_ok(gcm_iprobe(rx, n - 1, GCM_ANY_TAG, &flag, NULL),
                         "gcm_iprobe")) {
            return NULL;
        }
        /* Polled, with the deadline: a failed G must not hang R. */
        v = -1;
        flag = 0;
        if (!gcm_test_ok(gcm_irecv(rx, &v, sizeof(v), i, DATA_TAG, &req),
                         "gcm_irecv")) {
            return NULL;
        }
        while (!flag) {
            if (!gcm_test_ok(gcm_test(&req, &flag, &st), "gcm_test")) {
                return NULL;
            }
            if (!flag && (now_s() > limit)) {
                gcm_test_fail("no message on slot %d", i);
                return NULL;   /* the request dies with the LCO */
            }
        }
        CHECK((v == i) && (st.slot == i), "slot %d: got %d on slot %d", i,
              v, st.slot);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    pthread_t g, r;

    if (!gcm_test_init(&argc, &argv, "p2p_grow")) {
        return 1;
    }
    if (argc > 1) {
        rounds = atoi(argv[1]);
    }
    if (gcm_test_ok(gcm_lco_create(&rx), "gcm_lco_create") &&
        gcm_test_ok(gcm_lco_add_recv_slots(rx, 1), "gcm_lco_add_recv_slots") &&
        gcm_test_ok(gcm_lco_name(rx, &rx_name), "gcm_lco_name") &&
        gcm_test_ok(gcm_lco_create(&tx), "gcm_lco_create")) {
        if ((pthread_create(&r, NULL, receiver, NULL) != 0) ||
            (pthread_create(&g, NULL, grower, NULL) != 0)) {
            gcm_test_fail("pthread_create failed");
            return 1;
        }
        pthread_join(g, NULL);
        pthread_join(r, NULL);
        gcm_test_ok(gcm_lco_free(&tx), "gcm_lco_free");
        gcm_test_ok(gcm_lco_free(&rx), "gcm_lco_free");
    }
    return gcm_test_finish();
}
