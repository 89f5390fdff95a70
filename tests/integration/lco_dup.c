/*
 * lco_dup.c: gcm_lco_dup over several processes. Duplicates are made
 * without messages; traffic on a duplicate never matches receives on the
 * original or on another duplicate; a message sent on a duplicate that
 * its receiver has not made yet waits for it (the receiver dups late).
 */
#include <gencomm.h>

#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>

#define NDUPS 4

static void check(gcm_status_t status, const char *what)
{
    if (status != GCM_OK) {
        fprintf(stderr, "lco_dup: P%d: %s: %s (%s)\n", gcm_proc_rank(), what,
                gcm_status_string(status), gcm_last_error());
        exit(1);
    }
}

static void make_dups(gcm_lco_h dups[])
{
    int k;

    for (k = 0; k < NDUPS; k++) {
        check(gcm_lco_dup(gcm_world(), &dups[k]), "gcm_lco_dup");
    }
}

/* Everyone sends to everyone on every duplicate, tag = dup index. */
static void send_all(gcm_lco_h dups[], int me, int n)
{
    int k, peer, v;

    for (k = NDUPS - 1; k >= 0; k--) {
        for (peer = 0; peer < n; peer++) {
            v = 1000 * k + me;
            check(gcm_send(dups[k], &v, sizeof(v), peer, k), "gcm_send");
        }
    }
}

int main(int argc, char **argv)
{
    gcm_lco_h world, dups[NDUPS];
    gcm_stats_t before, after;
    gcm_msg_status_t st;
    int me, n, k, peer, flag, v;

    check(gcm_init(&argc, &argv), "gcm_init");
    world = gcm_world();
    me = gcm_proc_rank();
    n = gcm_proc_count();

    /*
     * Even ranks duplicate and send at once, then tell each odd rank "go"
     * on the world. Odd ranks wait for every "go" before they duplicate:
     * the messages sent to them on the duplicates arrive first (same
     * connection, earlier in order) and must wait for the duplicates, not
     * be refused or land on the world.
     */
    gcm_get_stats(&before);
    if (me % 2 == 0) {
        make_dups(dups);
        send_all(dups, me, n);
        for (peer = 1; peer < n; peer += 2) {
            v = -1;
            check(gcm_send(world, &v, sizeof(v), peer, 99), "gcm_send go");
        }
    } else {
        for (peer = 0; peer < n; peer += 2) {
            check(gcm_recv(world, &v, sizeof(v), peer, 99, &st), "recv go");
        }
        make_dups(dups);
        send_all(dups, me, n);
    }
    gcm_get_stats(&after);
    /* The only messages: the sends above and the "go"s. */
    if (after.msgs_sent_remote + after.msgs_sent_local -
        before.msgs_sent_remote - before.msgs_sent_local !=
        (uint64_t)(NDUPS * n + ((me % 2 == 0) ? n / 2 : 0))) {
        fprintf(stderr, "lco_dup: P%d: duplicates sent messages\n", me);
        return 1;
    }

    for (k = 0; k < NDUPS; k++) {
        for (peer = 0; peer < n; peer++) {
            check(gcm_recv(dups[k], &v, sizeof(v), peer, GCM_ANY_TAG, &st),
                  "gcm_recv");
            if ((v != 1000 * k + peer) || (st.tag != k) || (st.slot != peer)) {
                fprintf(stderr, "lco_dup: P%d: dup %d slot %d got %d tag %d\n",
                        me, k, peer, v, st.tag);
                return 1;
            }
        }
    }
    check(gcm_iprobe(world, GCM_ANY_SLOT, GCM_ANY_TAG, &flag, NULL),
          "gcm_iprobe");
    if (flag) {
        fprintf(stderr, "lco_dup: P%d: a message leaked to the world\n", me);
        return 1;
    }
    for (k = 0; k < NDUPS; k++) {
        check(gcm_lco_free(&dups[k]), "gcm_lco_free");
    }
    printf("lco_dup: P%d: %d duplicates of %d processes ok\n", me, NDUPS, n);
    check(gcm_finalize(), "gcm_finalize");
    return 0;
}
