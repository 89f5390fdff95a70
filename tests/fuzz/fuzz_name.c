/*
 * tests/fuzz/fuzz_name.c: LCO names and slot names as they arrive from
 * other processes (in messages, as MPIX_CNAME / MPIX_SLOTNAME data, from
 * files or a name service): gcm_lco_name_decode and
 * gcm_lco_slotname_decode (lco/lco_name.c). A name the decoder accepts
 * must encode back to the same bytes (nothing in it goes unchecked).
 *
 * Input: one byte choosing (even: an LCO name, odd: a slot name), then
 * the name's bytes: fewer are padded with zeros, more are cut (a name is
 * fixed-size data).
 */
#include "config.h"

#include "tests/fuzz/fuzz.h"
#include "lco/lco.h"

#include <string.h>

int fuzz_verdict;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    gcm_lco_ref_t ref;
    const char *why = NULL;
    gcm_status_t status;

    fuzz_verdict = FUZZ_NONE;
    if (size < 1) {
        return 0;
    }
    memset(&ref, 0, sizeof(ref));
    if ((data[0] & 1) == 0) {
        gcm_name_t name, again;

        memset(&name, 0, sizeof(name));
        memcpy(name.bytes, data + 1,
               (size - 1 < sizeof(name)) ? size - 1 : sizeof(name));
        status = gcm_lco_name_decode(&name, &ref, &why);
        if (status == GCM_OK) {
            FUZZ_REQUIRE(ref.kind == GCM_DEST_LCO);
            FUZZ_REQUIRE(ref.job != 0);
            gcm_lco_name_encode(&ref, &again);
            FUZZ_REQUIRE(memcmp(&name, &again, sizeof(name)) == 0);
        }
    } else {
        gcm_slotname_t name, again;

        memset(&name, 0, sizeof(name));
        memcpy(name.bytes, data + 1,
               (size - 1 < sizeof(name)) ? size - 1 : sizeof(name));
        status = gcm_lco_slotname_decode(&name, &ref, &why);
        if (status == GCM_OK) {
            FUZZ_REQUIRE(ref.kind == GCM_DEST_SLOT);
            FUZZ_REQUIRE(ref.job != 0);
            FUZZ_REQUIRE(ref.rslot >= 0);
            gcm_lco_slotname_encode(&ref, &again);
            FUZZ_REQUIRE(memcmp(&name, &again, sizeof(name)) == 0);
        }
    }
    if (status == GCM_OK) {
        fuzz_verdict = FUZZ_ACCEPTED;
    } else {
        /* A refusal is an invalid parameter, with a reason to print. */
        FUZZ_REQUIRE(status == GCM_ERR_INVALID_PARAM);
        FUZZ_REQUIRE((why != NULL) && (why[0] != '\0'));
        fuzz_verdict = FUZZ_REFUSED;
    }
    return 0;
}
