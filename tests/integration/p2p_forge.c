/*
 * p2p_forge: nothing forged is delivered on the LCOs the library builds.
 *
 * In a job of 3, process 1 (the forger) aims two forged names at receive
 * slot 2 of process 0's world LCO, the slot of process 2:
 *
 * (a) one made from public facts: the world's fixed id and generation and
 *     a token computed from the launcher's job id ("gcrun_<pid of
 *     gcrun>", its parent, hashed with FNV-1a as tokens once were);
 * (b) the world's real name (gcm_lco_name() of the world, which carries
 *     the token every process of the job holds) with process 0 as the
 *     target: a message that would say it comes from process 2.
 *
 * Each is added as a send slot of a fresh LCO and sent on: the send must
 * fail with GCM_ERR_BAD_TOKEN, and gcm_last_error() must name the call.
 * Process 0 has posted a receive on world slot 2 before the forgeries;
 * then process 2, told by the forger, sends the one real message, and
 * process 0 must receive exactly that one, and nothing else on slot 2.
 *
 * The byte offsets of a name's fields (lco/lco_name.c: process 4, LCO id
 * 12, generation 16, token 20) are the test's knowledge of the layout,
 * as an attacker's would be.
 */
#include <gencomm.h>

#include "gcm_test.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define T_READY 1
#define T_GO    2
#define T_DATA  3
#define WORLD_ID  2   /* slots/slots.h: GCM_PORT_ID_WORLD */
#define WORLD_GEN 1

static void put32(unsigned char *p, uint32_t v)
{
    int i;

    for (i = 0; i < 4; i++) {
        p[i] = (unsigned char)(v >> (8 * i));
    }
}

static void put64(unsigned char *p, uint64_t v)
{
    int i;

    for (i = 0; i < 8; i++) {
        p[i] = (unsigned char)(v >> (8 * i));
    }
}

static uint64_t fnv1a(const char *s)
{
    uint64_t h = 1469598103934665603ULL;

    for (; *s != '\0'; s++) {
        h ^= (unsigned char)*s;
        h *= 1099511628211ULL;
    }
    return h;
}

/* Sends value on a fresh LCO whose one send slot is name's receive slot
 * rslot; returns what the send returned. */
static gcm_status_t send_forged(const gcm_name_t *name, int rslot, int value)
{
    gcm_lco_h f = NULL;
    gcm_status_t status;

    if (gcm_lco_create(&f) != GCM_OK) {
        return GCM_ERR_INTERNAL;
    }
    status = gcm_lco_add_send_slots(f, 1, name, &rslot);
    if (status == GCM_OK) {
        status = gcm_send(f, &value, sizeof(value), 0, T_DATA);
    }
    gcm_lco_free(&f);
    return status;
}

static void forger(void)
{
    gcm_name_t name;
    gcm_status_t status;
    char jobid[64];
    int token = 0;

    gcm_recv(gcm_world(), &token, sizeof(token), 0, T_READY, NULL);

    /* (a) From public facts. */
    CHECK(gcm_lco_name(gcm_world(), &name) == GCM_OK, "no world name");
    snprintf(jobid, sizeof(jobid), "gcrun_%ld", (long)getppid());
    put32(name.bytes + 4, 0);
    put32(name.bytes + 12, WORLD_ID);
    put32(name.bytes + 16, WORLD_GEN);
    put64(name.bytes + 20, fnv1a(jobid) | 1);
    status = send_forged(&name, 2, 1001);
    CHECK(status == GCM_ERR_BAD_TOKEN, "(a) name from public facts: %s, "
          "expected the token refused", gcm_status_string(status));
    if (status == GCM_ERR_BAD_TOKEN) {
        CHECK(strstr(gcm_last_error(), "gcm_send") != NULL,
              "(a) error text does not name the call: %s", gcm_last_error());
        printf("p2p_forge: (a) name from public facts refused: %s\n",
               gcm_last_error());
    }

    /* (b) The real world name, on process 2's receive slot. */
    CHECK(gcm_lco_name(gcm_world(), &name) == GCM_OK, "no world name");
    put32(name.bytes + 4, 0);
    status = send_forged(&name, 2, 1002);
    CHECK(status == GCM_ERR_BAD_TOKEN, "(b) another's slot: %s, expected "
          "a refusal", gcm_status_string(status));
    if (status == GCM_ERR_BAD_TOKEN) {
        printf("p2p_forge: (b) send on another's slot refused: %s\n",
               gcm_last_error());
    }
    /* Its own slot with the same name is fine. */
    status = send_forged(&name, 1, 1003);
    CHECK(status == GCM_OK, "own slot: %s", gcm_status_string(status));

    gcm_send(gcm_world(), &token, sizeof(token), 2, T_GO);
}

static void victim(void)
{
    gcm_request_h req;
    gcm_msg_status_t st;
    int got = -1, own = -1, flag = 1, token = 0;

    gcm_irecv(gcm_world(), &got, sizeof(got), 2, T_DATA, &req);
    gcm_send(gcm_world(), &token, sizeof(token), 1, T_READY);
    CHECK(gcm_wait(&req, &st) == GCM_OK, "receive on slot 2 failed");
    CHECK(got == 2, "slot 2 received %d, expected process 2's 2 (a "
          "forgery was delivered)", got);
    CHECK(gcm_recv(gcm_world(), &own, sizeof(own), 1, T_DATA, NULL) ==
          GCM_OK, "no message on slot 1");
    CHECK(own == 1003, "slot 1 received %d, expected 1003", own);
    gcm_iprobe(gcm_world(), 2, GCM_ANY_TAG, &flag, NULL);
    CHECK(flag == 0, "another message waits on slot 2");
    if (gcm_test_failed() == 0) {
        printf("p2p_forge: P0 received only process 2's message on slot 2\n");
    }
}

int main(int argc, char **argv)
{
    int token = 0, value = 2;

    if (!gcm_test_init(&argc, &argv, "p2p_forge")) {
        return 1;
    }
    if (gcm_proc_count() != 3) {
        gcm_test_fail("needs 3 processes");
        gcm_finalize();
        return 1;
    }
    switch (gcm_proc_rank()) {
    case 0:
        victim();
        break;
    case 1:
        forger();
        break;
    default:
        gcm_recv(gcm_world(), &token, sizeof(token), 1, T_GO, NULL);
        gcm_send(gcm_world(), &value, sizeof(value), 0, T_DATA);
        break;
    }
    return gcm_test_finish();
}
