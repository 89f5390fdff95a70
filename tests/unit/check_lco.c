/*
 * tests/unit/check_lco.c: names (encoding, validation), status strings,
 * error text, and the random draws behind generations and tokens. No
 * network.
 */
#include "config.h"

#include "lco/lco.h"
#include "check_main.h"

#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static gcm_lco_ref_t sample_ref(void)
{
    gcm_lco_ref_t ref;

    memset(&ref, 0, sizeof(ref));
    ref.kind  = GCM_DEST_LCO;
    ref.proc  = 0x01020304;
    ref.ep    = 7;
    ref.id    = 0xa1b2c3d4;
    ref.gen   = 0x11223344;
    ref.token = 0x0102030405060708ULL;
    ref.job   = 0x1122334455667788ULL;
    ref.ip4   = 0x7f000001;
    ref.port  = 4242;
    return ref;
}

START_TEST(test_lco_name_round_trip)
{
    gcm_lco_ref_t in = sample_ref(), out;
    gcm_name_t name;
    const char *why = NULL;

    gcm_lco_name_encode(&in, &name);
    ck_assert_int_eq(gcm_lco_name_decode(&name, &out, &why), GCM_OK);
    ck_assert_uint_eq(out.proc, in.proc);
    ck_assert_uint_eq(out.ep, in.ep);
    ck_assert_uint_eq(out.id, in.id);
    ck_assert_uint_eq(out.gen, in.gen);
    ck_assert(out.token == in.token);
    ck_assert(out.job == in.job);
    ck_assert_uint_eq(out.ip4, in.ip4);
    ck_assert_uint_eq(out.port, in.port);
    ck_assert_int_eq(out.kind, GCM_DEST_LCO);
}
END_TEST

START_TEST(test_lco_name_layout_is_little_endian)
{
    gcm_lco_ref_t in = sample_ref();
    gcm_name_t name;

    /* The layout is fixed whatever the host: process at bytes 4..7. */
    gcm_lco_name_encode(&in, &name);
    ck_assert_uint_eq(name.bytes[4], 0x04);
    ck_assert_uint_eq(name.bytes[7], 0x01);
    ck_assert_uint_eq(name.bytes[20], 0x08);
    ck_assert_uint_eq(sizeof(gcm_name_t), GCM_NAME_SIZE);
}
END_TEST

START_TEST(test_lco_name_rejects_garbage)
{
    gcm_lco_ref_t in = sample_ref(), out;
    gcm_name_t name, bad;
    const char *why = NULL;
    int i;

    gcm_lco_name_encode(&in, &name);
    /* Every corruption of the header bytes (magic, version, kind,
     * reserved) is refused with a reason. */
    for (i = 0; i < 4; i++) {
        bad = name;
        bad.bytes[i] ^= 0x5a;
        why = NULL;
        ck_assert_int_eq(gcm_lco_name_decode(&bad, &out, &why),
                         GCM_ERR_INVALID_PARAM);
        ck_assert_ptr_nonnull(why);
    }
    bad = name;
    bad.bytes[40] = 1;
    ck_assert_int_eq(gcm_lco_name_decode(&bad, &out, &why),
                     GCM_ERR_INVALID_PARAM);
    /* A name must say which job made it. */
    bad = name;
    memset(bad.bytes + 32, 0, 8);
    ck_assert_int_eq(gcm_lco_name_decode(&bad, &out, &why),
                     GCM_ERR_INVALID_PARAM);
    memset(&bad, 0, sizeof(bad));
    ck_assert_int_eq(gcm_lco_name_decode(&bad, &out, &why),
                     GCM_ERR_INVALID_PARAM);
}
END_TEST

START_TEST(test_lco_slotname_round_trip_and_kind)
{
    gcm_lco_ref_t in = sample_ref(), out;
    gcm_slotname_t sname;
    gcm_name_t as_name;
    const char *why = NULL;

    in.rslot = 5;
    gcm_lco_slotname_encode(&in, &sname);
    ck_assert_int_eq(gcm_lco_slotname_decode(&sname, &out, &why), GCM_OK);
    ck_assert_int_eq(out.rslot, 5);
    ck_assert_int_eq(out.kind, GCM_DEST_SLOT);
    ck_assert(out.token == in.token);

    /* A slot name's first bytes are not an LCO name. */
    memcpy(as_name.bytes, sname.bytes, sizeof(as_name.bytes));
    ck_assert_int_eq(gcm_lco_name_decode(&as_name, &out, &why),
                     GCM_ERR_INVALID_PARAM);

    in.rslot = -1;
    gcm_lco_slotname_encode(&in, &sname);
    ck_assert_int_eq(gcm_lco_slotname_decode(&sname, &out, &why),
                     GCM_ERR_INVALID_PARAM);
}
END_TEST

#define CHECK_STATUS_TEXT(_name, _value, _text) \
    ck_assert_str_eq(gcm_status_string(_name), _text); \
    ck_assert_int_eq((int)_name, _value);

START_TEST(test_lco_status_strings)
{
    GCM_FOREACH_STATUS(CHECK_STATUS_TEXT)
    ck_assert_str_eq(gcm_status_string((gcm_status_t)-999),
                     "unknown status code");
    ck_assert_str_ne(gcm_status_string(GCM_ERR_TRUNCATED),
                     gcm_status_string(GCM_ERR_BAD_TOKEN));
}
END_TEST

START_TEST(test_lco_fail_records_call_and_reason)
{
    gcm_status_t status = gcm_fail(GCM_ERR_NO_SUCH_SLOT, "gcm_isend",
                                   "slot %d out of range", 9);

    ck_assert_int_eq(status, GCM_ERR_NO_SUCH_SLOT);
    ck_assert_ptr_nonnull(strstr(gcm_last_error(), "gcm_isend"));
    ck_assert_ptr_nonnull(strstr(gcm_last_error(), "slot 9 out of range"));
    ck_assert_ptr_nonnull(strstr(gcm_last_error(),
                                 gcm_status_string(GCM_ERR_NO_SUCH_SLOT)));
}
END_TEST

START_TEST(test_lco_calls_before_init_fail_cleanly)
{
    gcm_lco_h lco = NULL;

    ck_assert_int_eq(gcm_lco_create(&lco), GCM_ERR_NOT_INITIALIZED);
    ck_assert_ptr_null(lco);
    ck_assert_ptr_nonnull(strstr(gcm_last_error(), "gcm_lco_create"));
    ck_assert_ptr_null(gcm_world());
    ck_assert_int_eq(gcm_finalize(), GCM_ERR_NOT_INITIALIZED);
}
END_TEST

/* RFC 8439, 2.3.2: the block function's test vector. */
START_TEST(test_lco_chacha20_block_vector)
{
    static const unsigned char expect[64] = {
        0x10, 0xf1, 0xe7, 0xe4, 0xd1, 0x3b, 0x59, 0x15,
        0x50, 0x0f, 0xdd, 0x1f, 0xa3, 0x20, 0x71, 0xc4,
        0xc7, 0xd1, 0xf4, 0xc7, 0x33, 0xc0, 0x68, 0x03,
        0x04, 0x22, 0xaa, 0x9a, 0xc3, 0xd4, 0x6c, 0x4e,
        0xd2, 0x82, 0x64, 0x46, 0x07, 0x9f, 0xaa, 0x09,
        0x14, 0xc2, 0xd7, 0x05, 0xd9, 0x8b, 0x02, 0xa2,
        0xb5, 0x12, 0x9c, 0xd1, 0xde, 0x16, 0x4e, 0xb9,
        0xcb, 0xd0, 0x83, 0xe8, 0xa2, 0x50, 0x3c, 0x4e
    };
    static const unsigned char nonce[12] = {
        0x00, 0x00, 0x00, 0x09, 0x00, 0x00, 0x00, 0x4a, 0x00, 0x00, 0x00, 0x00
    };
    unsigned char key[32];
    unsigned char out[64];
    int i;

    for (i = 0; i < 32; i++) {
        key[i] = (unsigned char)i;
    }
    gcm_chacha20_block(key, 1, nonce, out);
    ck_assert_mem_eq(out, expect, sizeof(expect));
}
END_TEST

/* Random draws come from a per-thread generator refilled in batches: no
 * draw may hand out bytes another draw had, across refills too. */
START_TEST(test_lco_random_draws_never_repeat)
{
    enum { DRAWS = 1000 };
    static uint64_t seen[DRAWS];
    unsigned char big[2][700];
    int i, j;

    for (i = 0; i < DRAWS; i++) {
        gcm_random_bytes(&seen[i], sizeof(seen[i]));
        for (j = 0; j < i; j++) {
            /* A plain test first: half a million assertion calls took
             * longer than the case's time limit on a loaded machine. */
            if (seen[i] == seen[j]) {
                ck_abort_msg("draw %d repeats draw %d", i, j);
            }
        }
    }
    /* Draws larger than a batch span several. */
    gcm_random_bytes(big[0], sizeof(big[0]));
    gcm_random_bytes(big[1], sizeof(big[1]));
    for (i = 0; i + 8 <= (int)sizeof(big[0]); i += 8) {
        ck_assert(memcmp(big[0] + i, big[1] + i, 8) != 0);
        ck_assert(memcmp(big[0] + i, seen, 8) != 0);
    }
}
END_TEST

/* A forked child must not draw what its parent draws next (the same
 * tokens in two processes). */
START_TEST(test_lco_random_differs_after_fork)
{
    uint64_t first, mine, childs = 0;
    int fds[2];
    int wstatus;
    pid_t pid;

    gcm_random_bytes(&first, sizeof(first));   /* the pool is filled */
    ck_assert_int_eq(pipe(fds), 0);
    pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        gcm_random_bytes(&mine, sizeof(mine));
        _exit((write(fds[1], &mine, sizeof(mine)) == sizeof(mine)) ? 0 : 1);
    }
    gcm_random_bytes(&mine, sizeof(mine));
    ck_assert_int_eq(read(fds[0], &childs, sizeof(childs)), sizeof(childs));
    ck_assert_int_eq(waitpid(pid, &wstatus, 0), pid);
    ck_assert(WIFEXITED(wstatus) && (WEXITSTATUS(wstatus) == 0));
    close(fds[0]);
    close(fds[1]);
    ck_assert_msg(childs != mine, "the child drew its parent's next value");
    ck_assert(mine != first);
}
END_TEST

static Suite *make_suite(void)
{
    const TTest *names[] = {test_lco_name_round_trip,
        test_lco_name_layout_is_little_endian, test_lco_name_rejects_garbage,
        test_lco_slotname_round_trip_and_kind, test_lco_status_strings,
        test_lco_fail_records_call_and_reason,
        test_lco_calls_before_init_fail_cleanly, NULL};
    const TTest *random[] = {test_lco_chacha20_block_vector,
        test_lco_random_draws_never_repeat, test_lco_random_differs_after_fork,
        NULL};
    const struct gcm_check_case cases[] = {
        {"names", .tests = names},
        {"random", .tests = random},
        {0},
    };

    return gcm_check_suite("lco", cases);
}
