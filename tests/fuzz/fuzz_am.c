/*
 * tests/fuzz/fuzz_am.c: the headers of the active messages another
 * process sends (slots/: the message envelope and the control message;
 * threads/: the HELLO of another job's process and the worker address a
 * HELLO or a contact reply carries), and what the receiver decides from
 * an envelope alone: whether the port it names takes it
 * (gcm_slots_validate) and from that sender (gcm_slots_sender_ok).
 *
 * Input: one byte choosing (modulo 4), then
 *   0: the port's shape (3 bytes: flags 0x1 pattern, 0x2 ranks map to
 *      processes through a table, 0x4 freed; then its receive slot count,
 *      modulo 16; then a byte whose bit i gives slot i a token), then the
 *      envelope's bytes;
 *   1: the control message's bytes;
 *   2: the worker address's bytes;
 *   3: a HELLO: its header's length (one byte), its header, its data (a
 *      worker address), from a job other than FUZZ_JOB.
 * The port has generation FUZZ_GEN and token FUZZ_TOKEN; receive slot i,
 * token FUZZ_RTOKEN + i when it has one, and is rank i, process
 * FUZZ_PROC0 + i when ranks map through the table.
 */
#include "config.h"

#include "tests/fuzz/fuzz.h"
#include "slots/slots_impl.h"
#include "util/util.h"

#include <string.h>

int fuzz_verdict;

#define FUZZ_GEN    7u
#define FUZZ_TOKEN  0x1122334455667788ull
#define FUZZ_RTOKEN 0xa0a1a2a3a4a5a600ull
#define FUZZ_PROC0  10
#define FUZZ_JOB    0x0123456789abcdefull

static void fuzz_env(const uint8_t *data, size_t size)
{
    gcm_port_t port;
    gcm_slots_env_t env;
    gcm_status_t status;
    int i, ok;

    if (size < 3) {
        return;
    }
    memset(&port, 0, sizeof(port));
    port.id      = 42;
    port.gen     = FUZZ_GEN;
    port.token   = FUZZ_TOKEN;
    port.pattern = !!(data[0] & 0x1);
    port.freed   = !!(data[0] & 0x4);
    port.nrecv   = data[1] % 16;
    /* Exactly nrecv entries, so that an index past them is seen. */
    if (data[0] & 0x2) {
        port.procs = malloc(sizeof(int) * (size_t)(port.nrecv + !port.nrecv));
        for (i = 0; i < port.nrecv; i++) {
            port.procs[i] = FUZZ_PROC0 + i;
        }
    }
    if (!port.pattern) {
        port.rtokens = malloc(sizeof(uint64_t) *
                              (size_t)(port.nrecv + !port.nrecv));
        for (i = 0; i < port.nrecv; i++) {
            port.rtokens[i] = (data[2] & (1u << (i % 8))) ?
                              FUZZ_RTOKEN + (uint64_t)i : 0;
        }
    }
    if (gcm_slots_env_decode(data + 3, size - 3, &env) != GCM_OK) {
        FUZZ_REQUIRE(size - 3 != sizeof(env));
        fuzz_verdict = FUZZ_REFUSED;
        goto out;
    }
    FUZZ_REQUIRE(size - 3 == sizeof(env));
    FUZZ_REQUIRE(memcmp(&env, data + 3, sizeof(env)) == 0);
    status = gcm_slots_validate(&port, &env);
    ok = (status == GCM_OK) && gcm_slots_sender_ok(&port, &env);
    fuzz_verdict = ok ? FUZZ_ACCEPTED : FUZZ_REFUSED;
    if (status == GCM_OK) {
        FUZZ_REQUIRE(!port.freed && (env.dst_gen == port.gen));
        if (env.token == port.token) {
            FUZZ_REQUIRE(!port.pattern ||
                         ((env.rslot >= 0) && (env.rslot < port.nrecv)));
        } else {
            /* A slot's own token: that slot's, and only when it has one. */
            FUZZ_REQUIRE(!port.pattern && (env.rslot >= 0) &&
                         (env.rslot < port.nrecv) &&
                         (env.token == FUZZ_RTOKEN + (uint64_t)env.rslot));
        }
    } else {
        FUZZ_REQUIRE((status == GCM_ERR_NO_SUCH_LCO) ||
                     (status == GCM_ERR_NO_SUCH_SLOT) ||
                     (status == GCM_ERR_BAD_TOKEN));
    }
    if (ok && port.pattern) {
        /* A pattern's receive slot r takes only rank r's process. */
        FUZZ_REQUIRE((int64_t)env.src_proc ==
                     ((port.procs != NULL) ? FUZZ_PROC0 + env.rslot :
                                             env.rslot));
    }
out:
    free(port.procs);
    free(port.rtokens);
}

static void fuzz_ctrl(const uint8_t *data, size_t size)
{
    gcm_slots_ctrl_t ctrl;

    if (gcm_slots_ctrl_decode(data, size, &ctrl) != GCM_OK) {
        FUZZ_REQUIRE(size != sizeof(ctrl));
        fuzz_verdict = FUZZ_REFUSED;
        return;
    }
    FUZZ_REQUIRE(size == sizeof(ctrl));
    FUZZ_REQUIRE(memcmp(&ctrl, data, sizeof(ctrl)) == 0);
    fuzz_verdict = FUZZ_ACCEPTED;
}

/* A HELLO: its header's length (a byte), its header, then its data. */
static void fuzz_hello(const uint8_t *data, size_t size)
{
    gcm_thr_hello_t hello;
    const char *why = NULL;
    size_t hlen, alen;

    if ((size < 1) || ((size_t)data[0] > size - 1)) {
        return;
    }
    hlen = data[0];
    if (gcm_thr_hello_decode(data + 1, hlen, size - 1 - hlen, FUZZ_JOB,
                             &hello, &why) != GCM_OK) {
        FUZZ_REQUIRE((why != NULL) && (why[0] != '\0'));
        fuzz_verdict = FUZZ_REFUSED;
        return;
    }
    FUZZ_REQUIRE(hlen == sizeof(hello));
    FUZZ_REQUIRE(hello.addr_len == size - 1 - hlen);
    FUZZ_REQUIRE((hello.neps >= 1) && (hello.neps <= GCM_MAX_ENDPOINTS) &&
                 (hello.ep < hello.neps));
    FUZZ_REQUIRE((hello.job != FUZZ_JOB) && (hello.job != 0));
    /* The receiver then checks the address it carries. */
    fuzz_verdict = (gcm_thr_addr_decode(data + 1 + hlen, size - 1 - hlen,
                                        &alen, &why) == GCM_OK) ?
                   FUZZ_ACCEPTED : FUZZ_REFUSED;
}

static void fuzz_addr(const uint8_t *data, size_t size)
{
    const char *why = NULL;
    size_t alen = 0;
    uint64_t check;

    if (gcm_thr_addr_decode(size ? data : NULL, size, &alen, &why) !=
        GCM_OK) {
        /* A refusal says why (it goes into the error message). */
        FUZZ_REQUIRE((why != NULL) && (why[0] != '\0'));
        fuzz_verdict = FUZZ_REFUSED;
        return;
    }
    fuzz_verdict = FUZZ_ACCEPTED;
    /* What UCX is handed lies in the bytes, after the header, and is what
     * the header's check sum covers. */
    FUZZ_REQUIRE((size >= 16) && (alen == size - 16) && (alen > 0));
    memcpy(&check, data + 8, sizeof(check));
    FUZZ_REQUIRE(gcm_hash64(data + 16, alen) == check);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const fuzz_part_t parts[] = { fuzz_env, fuzz_ctrl, fuzz_addr,
                                         fuzz_hello };

    fuzz_dispatch(data, size, parts, sizeof(parts) / sizeof(parts[0]));
    return 0;
}
