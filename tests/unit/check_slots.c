/*
 * tests/unit/check_slots.c: matching, ordering, truncation, refusals and
 * the reorder list, in one process (singleton: same-process path, no
 * network). UCX is set up in a checked fixture, so in the forked child.
 * Synchronous sends, cancel, matched probes, handlers and offers: the
 * case "messages", in check_slots_msg.c.
 */
#include "config.h"

#include "lco/lco.h"
#include "slots/slots_impl.h"
#include "check_main.h"
#include "check_slots.h"

#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

void gcm_check_slots_setup(void)
{
    setenv("GENCOMM_BOOT", "singleton", 1);
    ck_assert_int_eq(gcm_init(NULL, NULL), GCM_OK);
}

void gcm_check_slots_teardown(void)
{
    ck_assert_int_eq(gcm_finalize(), GCM_OK);
}

void gcm_check_slots_pair(int nrecv, gcm_lco_h *rx, gcm_lco_h *tx)
{
    gcm_name_t names[8];
    int slots[8];
    int i;

    ck_assert_int_le(nrecv, 8);
    ck_assert_int_eq(gcm_lco_create(rx), GCM_OK);
    ck_assert_int_eq(gcm_lco_add_recv_slots(*rx, nrecv), GCM_OK);
    ck_assert_int_eq(gcm_lco_create(tx), GCM_OK);
    for (i = 0; i < nrecv; i++) {
        ck_assert_int_eq(gcm_lco_name(*rx, &names[i]), GCM_OK);
        slots[i] = i;
    }
    ck_assert_int_eq(gcm_lco_add_send_slots(*tx, nrecv, names, slots),
                     GCM_OK);
}

START_TEST(test_slots_matches_truth_table)
{
    ck_assert(gcm_slots_matches(GCM_ANY_SLOT, GCM_ANY_TAG, 3, 9));
    ck_assert(gcm_slots_matches(3, GCM_ANY_TAG, 3, 9));
    ck_assert(gcm_slots_matches(GCM_ANY_SLOT, 9, 3, 9));
    ck_assert(gcm_slots_matches(3, 9, 3, 9));
    ck_assert(!gcm_slots_matches(2, GCM_ANY_TAG, 3, 9));
    ck_assert(!gcm_slots_matches(GCM_ANY_SLOT, 8, 3, 9));
    ck_assert(!gcm_slots_matches(3, 8, 3, 9));
    /* The library's own tags: named only. */
    ck_assert(!gcm_slots_matches(GCM_ANY_SLOT, GCM_ANY_TAG, 3,
                                 GCM_TAG_UB + 1));
    ck_assert(!gcm_slots_matches(3, GCM_ANY_TAG, 3, 0x7fffffff));
    ck_assert(gcm_slots_matches(3, GCM_TAG_UB + 1, 3, GCM_TAG_UB + 1));
    ck_assert(gcm_slots_matches(GCM_ANY_SLOT, 0x7fffffff, 3, 0x7fffffff));
    ck_assert(gcm_slots_matches(3, GCM_ANY_TAG, 3, GCM_TAG_UB));
}
END_TEST

/* A peer killed while we attach or send to it is told apart from a
 * transport error by its state: alive, exiting (a zombie here), reaped. */
START_TEST(test_slots_pid_dying_tells_dead_from_alive)
{
    int pipefd[2];
    char c;
    pid_t child;

    ck_assert(!gcm_slots_pid_dying(getpid()));
    ck_assert_int_eq(pipe(pipefd), 0);
    child = fork();
    ck_assert_int_ge(child, 0);
    if (child == 0) {
        close(pipefd[1]);
        (void)read(pipefd[0], &c, 1);   /* until the parent closes it */
        _exit(0);
    }
    close(pipefd[0]);
    ck_assert(!gcm_slots_pid_dying(child));
    ck_assert_int_eq(kill(child, SIGKILL), 0);
    /* Not reaped: a zombie, or still exiting; either way dying. */
    for (int i = 0; (i < 1000) && !gcm_slots_pid_dying(child); i++) {
        usleep(1000);
    }
    ck_assert(gcm_slots_pid_dying(child));
    ck_assert_int_eq(waitpid(child, NULL, 0), child);
    ck_assert(gcm_slots_pid_dying(child));
    close(pipefd[1]);
}
END_TEST

START_TEST(test_slots_park_keeps_sequence_order)
{
    static const uint64_t arrivals[] = { 7, 3, 9, 4, 8, 5 };
    gcm_thr_conn_t conn;
    gcm_slots_umsg_t msgs[6];
    gcm_list_t *pos;
    uint64_t last = 0;
    int i, n = 0;

    memset(&conn, 0, sizeof(conn));
    gcm_list_init(&conn.parked);
    for (i = 0; i < 6; i++) {
        memset(&msgs[i], 0, sizeof(msgs[i]));
        msgs[i].env.seq = arrivals[i];
        gcm_slots_park(&conn, &msgs[i]);
    }
    for (pos = conn.parked.next; pos != &conn.parked; pos = pos->next) {
        gcm_slots_umsg_t *m = gcm_container_of(pos, gcm_slots_umsg_t, elem);
        ck_assert(m->env.seq > last);
        last = m->env.seq;
        n++;
    }
    ck_assert_int_eq(n, 6);
    ck_assert(last == 9);
}
END_TEST

START_TEST(test_slots_order_and_any_slot)
{
    gcm_lco_h rx, tx;
    gcm_msg_status_t st;
    int i, v, next[2] = { 0, 0 };

    gcm_check_slots_pair(2, &rx, &tx);
    /* Interleave two edges; each must arrive in its own order. */
    for (i = 0; i < 20; i++) {
        v = i;
        ck_assert_int_eq(gcm_send(tx, &v, sizeof(v), i % 2, 100 + i % 2),
                         GCM_OK);
    }
    for (i = 0; i < 20; i++) {
        ck_assert_int_eq(gcm_recv(rx, &v, sizeof(v), GCM_ANY_SLOT,
                                  GCM_ANY_TAG, &st), GCM_OK);
        ck_assert_int_eq(st.tag, 100 + st.slot);
        ck_assert_int_eq(st.count, sizeof(v));
        ck_assert_int_eq(v % 2, st.slot);
        ck_assert_int_eq(v, 2 * next[st.slot] + st.slot);
        next[st.slot]++;
    }
    ck_assert_int_eq(next[0], 10);
    ck_assert_int_eq(next[1], 10);
}
END_TEST

START_TEST(test_slots_tag_selects_among_unexpected)
{
    gcm_lco_h rx, tx;
    gcm_msg_status_t st;
    int a = 1, b = 2, v = 0;

    gcm_check_slots_pair(1, &rx, &tx);
    ck_assert_int_eq(gcm_send(tx, &a, sizeof(a), 0, 5), GCM_OK);
    ck_assert_int_eq(gcm_send(tx, &b, sizeof(b), 0, 6), GCM_OK);
    ck_assert_int_eq(gcm_recv(rx, &v, sizeof(v), 0, 6, &st), GCM_OK);
    ck_assert_int_eq(v, 2);
    ck_assert_int_eq(gcm_recv(rx, &v, sizeof(v), 0, GCM_ANY_TAG, &st),
                     GCM_OK);
    ck_assert_int_eq(v, 1);
    ck_assert_int_eq(st.tag, 5);
}
END_TEST

START_TEST(test_slots_first_posted_receive_wins)
{
    gcm_lco_h rx, tx;
    gcm_request_h r1, r2;
    gcm_msg_status_t st;
    int b1 = 0, b2 = 0, v = 42, flag = 0;

    gcm_check_slots_pair(1, &rx, &tx);
    ck_assert_int_eq(gcm_irecv(rx, &b1, sizeof(b1), 0, GCM_ANY_TAG, &r1),
                     GCM_OK);
    ck_assert_int_eq(gcm_irecv(rx, &b2, sizeof(b2), GCM_ANY_SLOT, 0, &r2),
                     GCM_OK);
    ck_assert_int_eq(gcm_send(tx, &v, sizeof(v), 0, 0), GCM_OK);
    ck_assert_int_eq(gcm_test(&r2, &flag, &st), GCM_OK);
    ck_assert_int_eq(flag, 0);
    ck_assert_int_eq(gcm_wait(&r1, &st), GCM_OK);
    ck_assert_int_eq(b1, 42);
    ck_assert_ptr_null(r1);
    v = 43;
    ck_assert_int_eq(gcm_send(tx, &v, sizeof(v), 0, 0), GCM_OK);
    ck_assert_int_eq(gcm_wait(&r2, &st), GCM_OK);
    ck_assert_int_eq(b2, 43);
}
END_TEST

/* A released request is refused by every call that takes a handle, also
 * once newer requests reuse its memory: waiting on it twice used to put
 * it in the per-thread cache twice, making the next two requests one
 * object. */
START_TEST(test_slots_released_request_refused)
{
    gcm_lco_h rx, tx;
    gcm_request_h r, stale, r2, r3, arr[2];
    gcm_msg_status_t st;
    int v = 7, b = 0, b2 = 0, flag = -1, index = -2;

    gcm_check_slots_pair(1, &rx, &tx);
    ck_assert_int_eq(gcm_isend(tx, &v, sizeof(v), 0, 1, &r), GCM_OK);
    stale = r;
    ck_assert_int_eq(gcm_wait(&r, NULL), GCM_OK);
    ck_assert_ptr_null(r);
    ck_assert_int_eq(gcm_wait(&stale, NULL), GCM_ERR_INVALID_PARAM);
    ck_assert_ptr_nonnull(strstr(gcm_last_error(), "released already"));
    ck_assert_int_eq(gcm_test(&stale, &flag, NULL), GCM_ERR_INVALID_PARAM);
    arr[0] = stale;
    arr[1] = GCM_REQUEST_NULL;
    ck_assert_int_eq(gcm_waitall(2, arr, NULL), GCM_ERR_INVALID_PARAM);
    ck_assert_int_eq(gcm_waitany(2, arr, &index, NULL),
                     GCM_ERR_INVALID_PARAM);
    /* Two new requests (one reuses the released memory) are distinct
     * and both work; the stale handle still reaches neither. */
    ck_assert_int_eq(gcm_irecv(rx, &b, sizeof(b), 0, 2, &r2), GCM_OK);
    ck_assert_int_eq(gcm_irecv(rx, &b2, sizeof(b2), 0, 3, &r3), GCM_OK);
    ck_assert_ptr_ne(r2, r3);
    ck_assert_int_eq(gcm_test(&stale, &flag, NULL), GCM_ERR_INVALID_PARAM);
    ck_assert_int_eq(gcm_lco_cancel(stale), GCM_ERR_INVALID_PARAM);
    v = 8;
    ck_assert_int_eq(gcm_send(tx, &v, sizeof(v), 0, 3), GCM_OK);
    v = 9;
    ck_assert_int_eq(gcm_send(tx, &v, sizeof(v), 0, 2), GCM_OK);
    ck_assert_int_eq(gcm_wait(&r3, &st), GCM_OK);
    ck_assert_int_eq(b2, 8);
    ck_assert_int_eq(gcm_wait(&r2, &st), GCM_OK);
    ck_assert_int_eq(b, 9);
}
END_TEST

START_TEST(test_slots_truncation_then_next_intact)
{
    gcm_lco_h rx, tx;
    gcm_msg_status_t st;
    size_t big = 1 << 20;
    unsigned char *src = malloc(big), small[16], *dst = malloc(big);
    gcm_request_h sreq;
    size_t i;

    ck_assert_ptr_nonnull(src);
    ck_assert_ptr_nonnull(dst);
    for (i = 0; i < big; i++) {
        src[i] = (unsigned char)(i * 7);
    }
    gcm_check_slots_pair(1, &rx, &tx);
    /* Eager size into a too small buffer. */
    ck_assert_int_eq(gcm_send(tx, src, 100, 0, 1), GCM_OK);
    ck_assert_int_eq(gcm_recv(rx, small, 10, 0, 1, &st), GCM_ERR_TRUNCATED);
    ck_assert_int_eq(st.count, 10);
    ck_assert_int_eq(st.error, GCM_ERR_TRUNCATED);
    ck_assert_mem_eq(small, src, 10);
    /* A large message held in the sender's buffer, truncated too. */
    ck_assert_int_eq(gcm_isend(tx, src, big, 0, 2, &sreq), GCM_OK);
    ck_assert_int_eq(gcm_recv(rx, small, sizeof(small), 0, 2, &st),
                     GCM_ERR_TRUNCATED);
    ck_assert_mem_eq(small, src, sizeof(small));
    ck_assert_int_eq(gcm_wait(&sreq, NULL), GCM_OK);
    /* The edge still works. (A large send completes only once received,
     * as MPI allows, so it is started before the receive.) */
    ck_assert_int_eq(gcm_isend(tx, src, big, 0, 3, &sreq), GCM_OK);
    ck_assert_int_eq(gcm_recv(rx, dst, big, 0, 3, &st), GCM_OK);
    ck_assert_int_eq(gcm_wait(&sreq, NULL), GCM_OK);
    ck_assert_int_eq(st.count, big);
    ck_assert_mem_eq(dst, src, big);
    free(src);
    free(dst);
}
END_TEST

START_TEST(test_slots_large_local_send_waits_for_receive)
{
    gcm_lco_h rx, tx;
    size_t big = 4 << 20;
    char *src = calloc(1, big), *dst = calloc(1, big);
    gcm_request_h sreq;
    int flag = 1;

    gcm_check_slots_pair(1, &rx, &tx);
    src[big - 1] = 'z';
    ck_assert_int_eq(gcm_isend(tx, src, big, 0, 0, &sreq), GCM_OK);
    /* Zero-copy: the sender's buffer is the only copy until received. */
    ck_assert_int_eq(gcm_test(&sreq, &flag, NULL), GCM_OK);
    ck_assert_int_eq(flag, 0);
    ck_assert_int_eq(gcm_recv(rx, dst, big, 0, 0, NULL), GCM_OK);
    ck_assert_int_eq(gcm_wait(&sreq, NULL), GCM_OK);
    ck_assert_int_eq(dst[big - 1], 'z');
    free(src);
    free(dst);
}
END_TEST

START_TEST(test_slots_stale_name_refused_and_sticky)
{
    gcm_lco_h rx, tx;
    int v = 1;

    gcm_check_slots_pair(1, &rx, &tx);
    ck_assert_int_eq(gcm_lco_free(&rx), GCM_OK);
    ck_assert_ptr_null(rx);
    ck_assert_int_eq(gcm_send(tx, &v, sizeof(v), 0, 0),
                     GCM_ERR_NO_SUCH_LCO);
    ck_assert_ptr_nonnull(strstr(gcm_last_error(), "gcm_"));
    ck_assert_int_eq(gcm_send(tx, &v, sizeof(v), 0, 0),
                     GCM_ERR_NO_SUCH_LCO);
}
END_TEST

START_TEST(test_slots_forged_token_refused)
{
    gcm_lco_h rx, tx, other;
    gcm_name_t name;
    gcm_msg_status_t st;
    int slot = 0, v = 5, flag = 1;

    ck_assert_int_eq(gcm_lco_create(&rx), GCM_OK);
    ck_assert_int_eq(gcm_lco_add_recv_slots(rx, 1), GCM_OK);
    ck_assert_int_eq(gcm_lco_name(rx, &name), GCM_OK);
    name.bytes[22] ^= 0x01;   /* inside the capability token */
    ck_assert_int_eq(gcm_lco_create(&tx), GCM_OK);
    ck_assert_int_eq(gcm_lco_add_send_slots(tx, 1, &name, &slot), GCM_OK);
    ck_assert_int_eq(gcm_send(tx, &v, sizeof(v), 0, 0), GCM_ERR_BAD_TOKEN);
    /* Nothing reached the receiver. */
    ck_assert_int_eq(gcm_iprobe(rx, GCM_ANY_SLOT, GCM_ANY_TAG, &flag, &st),
                     GCM_OK);
    ck_assert_int_eq(flag, 0);
    /* A correct sender still gets through. */
    gcm_check_slots_pair(1, &other, &tx);
    ck_assert_int_eq(gcm_send(tx, &v, sizeof(v), 0, 0), GCM_OK);
    ck_assert_int_eq(gcm_recv(other, &v, sizeof(v), 0, 0, NULL), GCM_OK);
}
END_TEST

START_TEST(test_slots_slot_name_reaches_one_slot)
{
    gcm_lco_h rx, tx;
    gcm_slotname_t sname;
    gcm_msg_status_t st;
    int v = 9, got = 0, nsend = 0;

    ck_assert_int_eq(gcm_lco_create(&rx), GCM_OK);
    ck_assert_int_eq(gcm_lco_add_recv_slots(rx, 3), GCM_OK);
    ck_assert_int_eq(gcm_slot_name(rx, 1, &sname), GCM_OK);
    ck_assert_int_eq(gcm_slot_name(rx, 3, &sname), GCM_ERR_NO_SUCH_SLOT);
    ck_assert_int_eq(gcm_slot_name(rx, 1, &sname), GCM_OK);
    ck_assert_int_eq(gcm_lco_create(&tx), GCM_OK);
    ck_assert_int_eq(gcm_lco_add_send_slot(tx, &sname), GCM_OK);
    ck_assert_int_eq(gcm_lco_num_send_slots(tx, &nsend), GCM_OK);
    ck_assert_int_eq(nsend, 1);
    ck_assert_int_eq(gcm_send(tx, &v, sizeof(v), 0, 4), GCM_OK);
    ck_assert_int_eq(gcm_recv(rx, &got, sizeof(got), GCM_ANY_SLOT, 4, &st),
                     GCM_OK);
    ck_assert_int_eq(st.slot, 1);
    ck_assert_int_eq(got, 9);
}
END_TEST

START_TEST(test_slots_slot_name_does_not_open_other_slots)
{
    gcm_lco_h rx, tx;
    gcm_slotname_t sname;
    gcm_name_t forged;
    int v = 1, slot = 0, flag = 1;

    ck_assert_int_eq(gcm_lco_create(&rx), GCM_OK);
    ck_assert_int_eq(gcm_lco_add_recv_slots(rx, 2), GCM_OK);
    ck_assert_int_eq(gcm_slot_name(rx, 1, &sname), GCM_OK);
    /* Turn the slot name into an LCO name aimed at slot 0: its token is
     * slot 1's secret only, so slot 0 refuses it. */
    memcpy(forged.bytes, sname.bytes, sizeof(forged.bytes));
    forged.bytes[3] = GCM_DEST_LCO;
    ck_assert_int_eq(gcm_lco_create(&tx), GCM_OK);
    ck_assert_int_eq(gcm_lco_add_send_slots(tx, 1, &forged, &slot), GCM_OK);
    ck_assert_int_eq(gcm_send(tx, &v, sizeof(v), 0, 0), GCM_ERR_BAD_TOKEN);
    ck_assert_int_eq(gcm_iprobe(rx, GCM_ANY_SLOT, GCM_ANY_TAG, &flag, NULL),
                     GCM_OK);
    ck_assert_int_eq(flag, 0);
}
END_TEST

/* A slot's secret is drawn when its first slot name is made: before
 * that, a slot name carrying no secret (zero) must not open it. */
START_TEST(test_slots_unnamed_slot_refuses_zero_token)
{
    gcm_lco_h rx, tx;
    gcm_slotname_t sname;
    int v = 1, flag = 1;

    ck_assert_int_eq(gcm_lco_create(&rx), GCM_OK);
    ck_assert_int_eq(gcm_lco_add_recv_slots(rx, 2), GCM_OK);
    ck_assert_int_eq(gcm_slot_name(rx, 0, &sname), GCM_OK);
    /* Aim it at slot 1, never named, with a token of zero (bytes 20..27,
     * lco/lco_name.c). */
    memset(sname.bytes + 20, 0, 8);
    sname.bytes[GCM_NAME_SIZE] = 1;
    ck_assert_int_eq(gcm_lco_create(&tx), GCM_OK);
    ck_assert_int_eq(gcm_lco_add_send_slot(tx, &sname), GCM_OK);
    ck_assert_int_eq(gcm_send(tx, &v, sizeof(v), 0, 0), GCM_ERR_BAD_TOKEN);
    ck_assert_int_eq(gcm_iprobe(rx, GCM_ANY_SLOT, GCM_ANY_TAG, &flag, NULL),
                     GCM_OK);
    ck_assert_int_eq(flag, 0);
    /* Named now, its slot name opens it, and stays the same. */
    {
        gcm_slotname_t a, b;
        gcm_lco_h tx2;

        ck_assert_int_eq(gcm_slot_name(rx, 1, &a), GCM_OK);
        ck_assert_int_eq(gcm_slot_name(rx, 1, &b), GCM_OK);
        ck_assert_mem_eq(a.bytes, b.bytes, sizeof(a.bytes));
        ck_assert_int_eq(gcm_lco_create(&tx2), GCM_OK);
        ck_assert_int_eq(gcm_lco_add_send_slot(tx2, &a), GCM_OK);
        ck_assert_int_eq(gcm_send(tx2, &v, sizeof(v), 0, 0), GCM_OK);
        ck_assert_int_eq(gcm_recv(rx, &v, sizeof(v), 1, 0, NULL), GCM_OK);
    }
}
END_TEST

START_TEST(test_slots_bad_input_is_refused)
{
    gcm_lco_h rx, tx;
    gcm_request_h req;
    gcm_name_t junk;
    int v = 0, slot = 0;

    gcm_check_slots_pair(1, &rx, &tx);
    ck_assert_int_eq(gcm_send(NULL, &v, sizeof(v), 0, 0),
                     GCM_ERR_INVALID_PARAM);
    ck_assert_int_eq(gcm_send(tx, &v, sizeof(v), 1, 0), GCM_ERR_NO_SUCH_SLOT);
    ck_assert_ptr_nonnull(strstr(gcm_last_error(), "slot 1 out of range"));
    ck_assert_int_eq(gcm_send(tx, &v, sizeof(v), -1, 0),
                     GCM_ERR_NO_SUCH_SLOT);
    ck_assert_int_eq(gcm_send(tx, &v, sizeof(v), 0, -5),
                     GCM_ERR_INVALID_PARAM);
    ck_assert_int_eq(gcm_send(tx, NULL, 4, 0, 0), GCM_ERR_INVALID_PARAM);
    ck_assert_int_eq(gcm_isend(tx, &v, sizeof(v), 0, 0, NULL),
                     GCM_ERR_INVALID_PARAM);
    ck_assert_int_eq(gcm_irecv(rx, &v, sizeof(v), 2, 0, &req),
                     GCM_ERR_NO_SUCH_SLOT);
    ck_assert_int_eq(gcm_lco_add_recv_slots(rx, -1), GCM_ERR_INVALID_PARAM);
    ck_assert_int_eq(gcm_lco_add_send_slots(tx, -1, NULL, NULL),
                     GCM_ERR_INVALID_PARAM);
    /* Slot counts beyond GCM_MAX_SLOTS fail at once and add nothing: an
     * INT_MAX count used to spin with the endpoint lock held, 1 then
     * INT_MAX made the count negative. */
    ck_assert_int_eq(gcm_lco_add_recv_slots(rx, INT_MAX),
                     GCM_ERR_INVALID_PARAM);
    ck_assert_ptr_nonnull(strstr(gcm_last_error(), "GCM_MAX_SLOTS"));
    ck_assert_int_eq(gcm_lco_add_recv_slots(rx, (1 << 30) + 1),
                     GCM_ERR_INVALID_PARAM);
    ck_assert_int_eq(gcm_lco_add_recv_slots(rx, GCM_MAX_SLOTS),
                     GCM_ERR_INVALID_PARAM);
    ck_assert_int_eq(gcm_lco_num_recv_slots(rx, &v), GCM_OK);
    ck_assert_int_eq(v, 1);
    ck_assert_int_eq(gcm_lco_add_recv_slots(rx, 100), GCM_OK);
    ck_assert_int_eq(gcm_lco_num_recv_slots(rx, &v), GCM_OK);
    ck_assert_int_eq(v, 101);
    ck_assert_int_eq(gcm_lco_add_send_slots(tx, INT_MAX, &junk, &slot),
                     GCM_ERR_INVALID_PARAM);
    ck_assert_int_eq(gcm_lco_num_send_slots(tx, &v), GCM_OK);
    ck_assert_int_eq(v, 1);
    v = 0;
    memset(&junk, 0xab, sizeof(junk));
    ck_assert_int_eq(gcm_lco_add_send_slots(tx, 1, &junk, &slot),
                     GCM_ERR_INVALID_PARAM);
    ck_assert_ptr_nonnull(strstr(gcm_last_error(), "not a gencomm name"));
    ck_assert_int_eq(gcm_lco_free(NULL), GCM_ERR_INVALID_PARAM);
    {
        gcm_lco_h world = gcm_world();
        ck_assert_int_eq(gcm_lco_free(&world), GCM_ERR_INVALID_PARAM);
    }
}
END_TEST

START_TEST(test_slots_building_sends_no_message)
{
    gcm_stats_t before, after;
    gcm_lco_h a, b;
    gcm_name_t name;
    gcm_slotname_t sname;
    int slot = 0;

    gcm_get_stats(&before);
    ck_assert_int_eq(gcm_lco_create(&a), GCM_OK);
    ck_assert_int_eq(gcm_lco_create(&b), GCM_OK);
    ck_assert_int_eq(gcm_lco_add_recv_slots(a, 4), GCM_OK);
    ck_assert_int_eq(gcm_lco_name(a, &name), GCM_OK);
    ck_assert_int_eq(gcm_lco_add_send_slots(b, 1, &name, &slot), GCM_OK);
    ck_assert_int_eq(gcm_slot_name(a, 2, &sname), GCM_OK);
    ck_assert_int_eq(gcm_lco_add_send_slot(b, &sname), GCM_OK);
    gcm_get_stats(&after);
    ck_assert(memcmp(&before, &after, sizeof(before)) == 0);
}
END_TEST

START_TEST(test_slots_probe_reports_size_and_waitany)
{
    gcm_lco_h rx, tx;
    gcm_msg_status_t st;
    gcm_request_h reqs[2];
    char buf[64] = "hello probe";
    int flag = 0, idx = -1;

    gcm_check_slots_pair(2, &rx, &tx);
    ck_assert_int_eq(gcm_send(tx, buf, 11, 1, 77), GCM_OK);
    ck_assert_int_eq(gcm_iprobe(rx, GCM_ANY_SLOT, 77, &flag, &st), GCM_OK);
    ck_assert_int_eq(flag, 1);
    ck_assert_int_eq(st.slot, 1);
    ck_assert_int_eq(st.count, 11);
    ck_assert_int_eq(gcm_probe(rx, 1, GCM_ANY_TAG, &st), GCM_OK);
    ck_assert_int_eq(st.tag, 77);
    ck_assert_int_eq(gcm_irecv(rx, buf, sizeof(buf), 0, GCM_ANY_TAG,
                               &reqs[0]), GCM_OK);
    ck_assert_int_eq(gcm_irecv(rx, buf, sizeof(buf), 1, GCM_ANY_TAG,
                               &reqs[1]), GCM_OK);
    ck_assert_int_eq(gcm_waitany(2, reqs, &idx, &st), GCM_OK);
    ck_assert_int_eq(idx, 1);
    ck_assert_ptr_null(reqs[1]);
    ck_assert_ptr_nonnull(reqs[0]);
    ck_assert_int_eq(gcm_send(tx, buf, 3, 0, 1), GCM_OK);
    ck_assert_int_eq(gcm_waitall(2, reqs, NULL), GCM_OK);
    ck_assert_ptr_null(reqs[0]);
}
END_TEST

START_TEST(test_slots_free_cancels_pending_receive)
{
    gcm_lco_h rx, tx;
    gcm_request_h req;
    int v;

    gcm_check_slots_pair(1, &rx, &tx);
    ck_assert_int_eq(gcm_irecv(rx, &v, sizeof(v), 0, 0, &req), GCM_OK);
    ck_assert_int_eq(gcm_lco_free(&rx), GCM_OK);
    ck_assert_int_eq(gcm_wait(&req, NULL), GCM_ERR_CANCELED);
}
END_TEST

START_TEST(test_slots_dup_is_separate_and_silent)
{
    gcm_lco_h world = gcm_world(), d1, d2, d3;
    gcm_stats_t before, after;
    gcm_msg_status_t st;
    int v = 7, flag = 1, n = 0;

    gcm_get_stats(&before);
    ck_assert_int_eq(gcm_lco_dup(world, &d1), GCM_OK);
    ck_assert_int_eq(gcm_lco_dup(world, &d2), GCM_OK);
    ck_assert_int_eq(gcm_lco_dup(d1, &d3), GCM_OK);
    gcm_get_stats(&after);
    ck_assert(memcmp(&before, &after, sizeof(before)) == 0);
    ck_assert_int_eq(gcm_lco_num_send_slots(d3, &n), GCM_OK);
    ck_assert_int_eq(n, 1);

    /* Each duplicate has its own traffic. */
    ck_assert_int_eq(gcm_send(d2, &v, sizeof(v), 0, 3), GCM_OK);
    ck_assert_int_eq(gcm_iprobe(world, GCM_ANY_SLOT, GCM_ANY_TAG, &flag,
                                NULL), GCM_OK);
    ck_assert_int_eq(flag, 0);
    ck_assert_int_eq(gcm_iprobe(d1, GCM_ANY_SLOT, GCM_ANY_TAG, &flag, NULL),
                     GCM_OK);
    ck_assert_int_eq(flag, 0);
    ck_assert_int_eq(gcm_iprobe(d3, GCM_ANY_SLOT, GCM_ANY_TAG, &flag, NULL),
                     GCM_OK);
    ck_assert_int_eq(flag, 0);
    v = 0;
    ck_assert_int_eq(gcm_recv(d2, &v, sizeof(v), 0, 3, &st), GCM_OK);
    ck_assert_int_eq(v, 7);
    ck_assert_int_eq(st.slot, 0);
    ck_assert_int_eq(gcm_lco_free(&d1), GCM_OK);
    ck_assert_int_eq(gcm_lco_free(&d2), GCM_OK);
    ck_assert_int_eq(gcm_lco_free(&d3), GCM_OK);
}
END_TEST

START_TEST(test_slots_dup_refuses_built_lco)
{
    gcm_lco_h rx, tx, d = NULL;

    gcm_check_slots_pair(1, &rx, &tx);
    ck_assert_int_eq(gcm_lco_dup(tx, &d), GCM_ERR_INVALID_PARAM);
    ck_assert_ptr_null(d);
    ck_assert_ptr_nonnull(strstr(gcm_last_error(), "gcm_lco_dup"));
    ck_assert_int_eq(gcm_lco_dup(gcm_world(), NULL), GCM_ERR_INVALID_PARAM);
}
END_TEST

START_TEST(test_slots_pattern_with_given_identity)
{
    gcm_lco_h world = gcm_world(), p1, p2 = NULL, odd;
    gcm_msg_status_t st;
    const int procs[1] = { 0 };
    const int *gp = NULL;
    uint32_t id, gen, id2, gen2, kid, kgen, kid2, kgen2;
    int v = 11, n = 0, me = -1;

    gcm_lco_derive_id(world, &id, &gen);
    ck_assert(id & GCM_PORT_ID_DERIVED);
    gcm_lco_derive_id(world, &id2, &gen2);
    ck_assert(id != id2);
    gcm_lco_derive_id_keyed(world, 42, &kid, &kgen);
    gcm_lco_derive_id_keyed(world, 42, &kid2, &kgen2);
    ck_assert(kid & GCM_PORT_ID_DERIVED);
    ck_assert(kid == kid2 && kgen == kgen2);
    gcm_lco_derive_id_keyed(world, 43, &kid2, &kgen2);
    ck_assert(kid != kid2);

    ck_assert_int_eq(gcm_lco_create_pattern(id, gen, 1, procs, 0, &p1),
                     GCM_OK);
    ck_assert(gcm_lco_pattern_of(p1, &n, &gp, &me));
    ck_assert_int_eq(n, 1);
    ck_assert_int_eq(me, 0);
    /* { 0 } is the whole job in order: stored as the world's group is,
     * as nothing (the identity). */
    ck_assert_ptr_null(gp);
    ck_assert_int_eq(gcm_lco_send_slot_proc(p1, 0), 0);
    ck_assert_int_eq(gcm_lco_send_slot_proc(p1, 1), -1);
    ck_assert(gcm_lco_send_slot_is_self(p1, 0));
    ck_assert(gcm_lco_send_slot_is_self(world, 0));
    ck_assert(!gcm_lco_pattern_of(NULL, &n, &gp, &me));

    /* One identity, one LCO. */
    ck_assert_int_eq(gcm_lco_create_pattern(id, gen, 1, NULL, 0, &p2),
                     GCM_ERR_BUSY);
    ck_assert_ptr_nonnull(strstr(gcm_last_error(), "gcm_lco_create_pattern"));
    ck_assert_ptr_null(p2);
    ck_assert_int_eq(gcm_lco_create_pattern(5, gen, 1, NULL, 0, &p2),
                     GCM_ERR_INVALID_PARAM);
    ck_assert_int_eq(gcm_lco_create_pattern(id2, gen2, 2, NULL, 0, &p2),
                     GCM_ERR_INVALID_PARAM);
    ck_assert_int_eq(gcm_lco_create_pattern(id2, gen2, 1, NULL, -1, &p2),
                     GCM_ERR_INVALID_PARAM);

    /* Separate traffic from the world. */
    ck_assert_int_eq(gcm_send(p1, &v, sizeof(v), 0, 1), GCM_OK);
    v = 0;
    ck_assert_int_eq(gcm_recv(p1, &v, sizeof(v), 0, 1, &st), GCM_OK);
    ck_assert_int_eq(v, 11);

    /* An intercommunicator-like pattern whose local rank (3) is no receive
     * slot of the receiving port (1 slot) is refused, not queued. */
    ck_assert_int_eq(gcm_lco_create_pattern(id2, gen2, 1, NULL, 3, &odd),
                     GCM_OK);
    ck_assert_int_eq(gcm_send(odd, &v, sizeof(v), 0, 1),
                     GCM_ERR_NO_SUCH_SLOT);
    ck_assert_int_eq(gcm_lco_free(&odd), GCM_OK);
    ck_assert_int_eq(gcm_lco_free(&p1), GCM_OK);
}
END_TEST

START_TEST(test_slots_any_tag_skips_internal_tags)
{
    gcm_lco_h rx, tx;
    gcm_request_h any, sreq;
    gcm_msg_status_t st;
    int a = 1, b = 2, v = 0, flag = 1;

    gcm_check_slots_pair(1, &rx, &tx);
    /* A wildcard receive posted first does not take an internal tag. */
    ck_assert_int_eq(gcm_irecv(rx, &v, sizeof(v), GCM_ANY_SLOT, GCM_ANY_TAG,
                               &any), GCM_OK);
    ck_assert_int_eq(gcm_lco_isend_x(tx, &a, sizeof(a), 0, GCM_CHECK_SLOTS_ITAG, 0, &sreq),
                     GCM_OK);
    ck_assert_int_eq(gcm_wait(&sreq, NULL), GCM_OK);
    ck_assert(!gcm_lco_req_done(any));
    /* Nor does a wildcard probe see it, public or internal. */
    ck_assert_int_eq(gcm_iprobe(rx, GCM_ANY_SLOT, GCM_ANY_TAG, &flag, &st),
                     GCM_OK);
    ck_assert_int_eq(flag, 0);
    ck_assert_int_eq(gcm_lco_iprobe_x(rx, 0, GCM_ANY_TAG, &flag, &st),
                     GCM_OK);
    ck_assert_int_eq(flag, 0);
    ck_assert_int_eq(gcm_lco_iprobe_x(rx, 0, GCM_CHECK_SLOTS_ITAG, &flag, &st), GCM_OK);
    ck_assert_int_eq(flag, 1);
    ck_assert_int_eq(st.tag, GCM_CHECK_SLOTS_ITAG);
    /* A user message behind it goes to the wildcard receive. */
    ck_assert_int_eq(gcm_send(tx, &b, sizeof(b), 0, 5), GCM_OK);
    ck_assert_int_eq(gcm_wait(&any, &st), GCM_OK);
    ck_assert_int_eq(v, 2);
    ck_assert_int_eq(st.tag, 5);
    /* The exact internal tag takes it. */
    ck_assert_int_eq(gcm_lco_irecv_x(rx, &v, sizeof(v), GCM_ANY_SLOT, GCM_CHECK_SLOTS_ITAG,
                                     &any), GCM_OK);
    ck_assert_int_eq(gcm_wait(&any, &st), GCM_OK);
    ck_assert_int_eq(v, 1);
    ck_assert_int_eq(st.tag, GCM_CHECK_SLOTS_ITAG);
    /* Unexpected queue then wildcard receive: the same. */
    ck_assert_int_eq(gcm_lco_isend_x(tx, &a, sizeof(a), 0, 0x7fffffff, 0,
                                     &sreq), GCM_OK);
    ck_assert_int_eq(gcm_wait(&sreq, NULL), GCM_OK);
    ck_assert_int_eq(gcm_irecv(rx, &v, sizeof(v), 0, GCM_ANY_TAG, &any),
                     GCM_OK);
    ck_assert(!gcm_lco_req_done(any));
    ck_assert_int_eq(gcm_lco_cancel(any), GCM_OK);
    ck_assert_int_eq(gcm_wait(&any, NULL), GCM_ERR_CANCELED);
    ck_assert_int_eq(gcm_lco_irecv_x(rx, &v, sizeof(v), 0, 0x7fffffff, &any),
                     GCM_OK);
    ck_assert_int_eq(gcm_wait(&any, NULL), GCM_OK);

    /* The public calls keep refusing the library's tags; the internal
     * ones check slots and sign with their own names. */
    ck_assert_int_eq(gcm_isend(tx, &a, sizeof(a), 0, GCM_CHECK_SLOTS_ITAG, &sreq),
                     GCM_ERR_INVALID_PARAM);
    ck_assert_int_eq(gcm_lco_isend_x(tx, &a, sizeof(a), 0, -3, 0, &sreq),
                     GCM_ERR_INVALID_PARAM);
    ck_assert_ptr_nonnull(strstr(gcm_last_error(), "gcm_lco_isend_x"));
    ck_assert_int_eq(gcm_lco_isend_x(tx, &a, sizeof(a), 0, GCM_ANY_TAG, 0,
                                     &sreq), GCM_ERR_INVALID_PARAM);
    ck_assert_int_eq(gcm_lco_isend_x(tx, &a, sizeof(a), 4, GCM_CHECK_SLOTS_ITAG, 0, &sreq),
                     GCM_ERR_NO_SUCH_SLOT);
    ck_assert_ptr_nonnull(strstr(gcm_last_error(),
                                 "gcm_lco_isend_x: send slot 4 out of range"));
    ck_assert_int_eq(gcm_lco_isend_x(tx, &a, sizeof(a), 0, GCM_CHECK_SLOTS_ITAG, 0x10,
                                     &sreq), GCM_ERR_INVALID_PARAM);
    ck_assert_int_eq(gcm_lco_irecv_x(rx, &v, sizeof(v), 1, GCM_CHECK_SLOTS_ITAG, &any),
                     GCM_ERR_NO_SUCH_SLOT);
    ck_assert_ptr_nonnull(strstr(gcm_last_error(), "gcm_lco_irecv_x"));
    ck_assert_int_eq(gcm_lco_iprobe_x(rx, 3, GCM_CHECK_SLOTS_ITAG, &flag, NULL),
                     GCM_ERR_NO_SUCH_SLOT);
    ck_assert_int_eq(gcm_lco_iprobe_x(rx, 0, -2, &flag, NULL),
                     GCM_ERR_INVALID_PARAM);

    /* The checks both internal transfers share: LCO, request, buffer. */
    ck_assert_int_eq(gcm_lco_isend_x(NULL, &a, sizeof(a), 0, GCM_CHECK_SLOTS_ITAG, 0, &sreq),
                     GCM_ERR_INVALID_PARAM);
    ck_assert_ptr_nonnull(strstr(gcm_last_error(),
                                 "gcm_lco_isend_x: not a valid LCO"));
    ck_assert_int_eq(gcm_lco_isend_x(tx, &a, sizeof(a), 0, GCM_CHECK_SLOTS_ITAG, 0, NULL),
                     GCM_ERR_INVALID_PARAM);
    ck_assert_ptr_nonnull(strstr(gcm_last_error(),
                                 "gcm_lco_isend_x: req_p is NULL"));
    ck_assert_int_eq(gcm_lco_isend_x(tx, NULL, 4, 0, GCM_CHECK_SLOTS_ITAG, 0, &sreq),
                     GCM_ERR_INVALID_PARAM);
    ck_assert_ptr_nonnull(strstr(gcm_last_error(),
                                 "gcm_lco_isend_x: buf is NULL but len is 4"));
    ck_assert_int_eq(gcm_lco_irecv_x(NULL, &v, sizeof(v), 0, GCM_CHECK_SLOTS_ITAG, &any),
                     GCM_ERR_INVALID_PARAM);
    ck_assert_ptr_nonnull(strstr(gcm_last_error(),
                                 "gcm_lco_irecv_x: not a valid LCO"));
    ck_assert_int_eq(gcm_lco_irecv_x(rx, &v, sizeof(v), 0, GCM_CHECK_SLOTS_ITAG, NULL),
                     GCM_ERR_INVALID_PARAM);
    ck_assert_ptr_nonnull(strstr(gcm_last_error(),
                                 "gcm_lco_irecv_x: req_p is NULL"));
    ck_assert_int_eq(gcm_lco_irecv_x(rx, NULL, 4, 0, GCM_CHECK_SLOTS_ITAG, &any),
                     GCM_ERR_INVALID_PARAM);
    ck_assert_ptr_nonnull(strstr(gcm_last_error(),
                                 "gcm_lco_irecv_x: buf is NULL but len is 4"));
}
END_TEST

static Suite *make_suite(void)
{
    const TTest *pure[] = {test_slots_matches_truth_table,
        test_slots_park_keeps_sequence_order,
        test_slots_pid_dying_tells_dead_from_alive, NULL};
    const TTest *local[] = {test_slots_order_and_any_slot,
        test_slots_tag_selects_among_unexpected,
        test_slots_first_posted_receive_wins,
        test_slots_released_request_refused,
        test_slots_truncation_then_next_intact,
        test_slots_large_local_send_waits_for_receive,
        test_slots_stale_name_refused_and_sticky,
        test_slots_forged_token_refused, test_slots_slot_name_reaches_one_slot,
        test_slots_slot_name_does_not_open_other_slots,
        test_slots_unnamed_slot_refuses_zero_token,
        test_slots_bad_input_is_refused, test_slots_building_sends_no_message,
        test_slots_probe_reports_size_and_waitany,
        test_slots_free_cancels_pending_receive,
        test_slots_dup_is_separate_and_silent, test_slots_dup_refuses_built_lco,
        test_slots_pattern_with_given_identity,
        test_slots_any_tag_skips_internal_tags, NULL};
    const struct gcm_check_case cases[] = {
        {"pure", .tests = pure},
        {"local", .tests = local, .timeout = 30,
            .setup = gcm_check_slots_setup,
            .teardown = gcm_check_slots_teardown},
        {"messages", .tests = gcm_check_slots_msg_tests(), .timeout = 30,
            .setup = gcm_check_slots_setup,
            .teardown = gcm_check_slots_teardown},
        {0},
    };

    return gcm_check_suite("slots", cases);
}
