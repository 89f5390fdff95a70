/*
 * tests/fuzz/fuzz_shm.c: the decoders of what the same-host path reads
 * from outside the process (slots/slot_shm.h): notes on an endpoint's
 * sockets, cells and lane lines of its rings, and the header of a peer's
 * segment.
 *
 * Input: one byte choosing the decoder (modulo 4), then
 *   0: a note (its bytes, any length);
 *   1: a cell (its bytes, any length: the decoder is told that length);
 *   2: the segment's mapped length (8 bytes, little-endian), the magic it
 *      was published with (8 bytes), then the header's bytes;
 *   3: a lane line (its bytes, any length: the decoder is told that
 *      length).
 */
#include "config.h"

#include "tests/fuzz/fuzz.h"
#include "slots/slot_shm.h"

#include <string.h>

int fuzz_verdict;

static uint64_t fuzz_le64(const uint8_t *p)
{
    uint64_t v = 0;

    for (int i = 7; i >= 0; i--) {
        v = (v << 8) | p[i];
    }
    return v;
}

static void fuzz_note(const uint8_t *data, size_t size)
{
    gcm_slots_shm_note_t note;

    if (gcm_slots_shm_note_decode(data, size, &note) != GCM_OK) {
        fuzz_verdict = FUZZ_REFUSED;
        return;
    }
    fuzz_verdict = FUZZ_ACCEPTED;
    FUZZ_REQUIRE(size == sizeof(note));
    FUZZ_REQUIRE(note.magic == GCM_SLOTS_SHM_NOTE_MAGIC);
    FUZZ_REQUIRE(note.proc >= 0);
    FUZZ_REQUIRE(note.ep < GCM_MAX_ENDPOINTS);
    FUZZ_REQUIRE(((note.kind == GCM_SLOTS_SHM_WAKE) && (note.ring == 0)) ||
                 ((note.kind == GCM_SLOTS_SHM_CLAIM) &&
                  (note.ring < GCM_SLOTS_SHM_MAX_RINGS)));
}

static void fuzz_cell(const uint8_t *data, size_t size)
{
    gcm_slots_shm_cell_msg_t msg;
    volatile uint8_t sum = 0;

    if (gcm_slots_shm_cell_decode(data, size, &msg) != GCM_OK) {
        fuzz_verdict = FUZZ_REFUSED;
        return;
    }
    fuzz_verdict = FUZZ_ACCEPTED;
    FUZZ_REQUIRE(size >= GCM_SLOTS_SHM_CELL_HDR);
    switch (msg.kind) {
    case GCM_SLOTS_SHM_EAGER:
        /* What the receiver copies out must lie in the cell. */
        FUZZ_REQUIRE(msg.data_off >= GCM_SLOTS_SHM_CELL_HDR);
        FUZZ_REQUIRE(msg.data_off <= size);
        FUZZ_REQUIRE(msg.len <= size - msg.data_off);
        FUZZ_REQUIRE(msg.len <= GCM_SLOTS_SHM_CELL_DATA);
        for (size_t i = 0; i < msg.len; i++) {
            sum += data[msg.data_off + i];
        }
        break;
    case GCM_SLOTS_SHM_CMA:
        break;
    case GCM_SLOTS_SHM_CTRL:
        FUZZ_REQUIRE(size >= GCM_SLOTS_SHM_CELL_HDR + sizeof(msg.ctrl));
        break;
    case GCM_SLOTS_SHM_COOP:
        /* Its numbers are checked by the sender against its send. */
        FUZZ_REQUIRE(size >= GCM_SLOTS_SHM_CELL_HDR + sizeof(msg.coop));
        break;
    default:
        FUZZ_REQUIRE(!"an unknown kind of cell was accepted");
    }
    (void)sum;
}

static void fuzz_line(const uint8_t *data, size_t size)
{
    gcm_slots_shm_cell_msg_t msg;
    volatile uint8_t sum = 0;

    if (gcm_slots_shm_line_decode(data, size, &msg) != GCM_OK) {
        fuzz_verdict = FUZZ_REFUSED;
        return;
    }
    fuzz_verdict = FUZZ_ACCEPTED;
    FUZZ_REQUIRE(size >= GCM_SLOTS_SHM_LINE_SIZE);
    switch (msg.kind) {
    case GCM_SLOTS_SHM_EAGER:
        /* What the receiver copies out must lie in the line. */
        FUZZ_REQUIRE(msg.data_off + msg.len <= GCM_SLOTS_SHM_LINE_SIZE);
        FUZZ_REQUIRE(msg.len <= GCM_SLOTS_SHM_LINE_DATA);
        FUZZ_REQUIRE(msg.env.size == msg.len);
        FUZZ_REQUIRE(msg.env.sreq == 0);
        for (size_t i = 0; i < msg.len; i++) {
            sum += data[msg.data_off + i];
        }
        break;
    default:
        FUZZ_REQUIRE(!"an unknown kind of lane line was accepted");
    }
    (void)sum;
}

static void fuzz_seg(const uint8_t *data, size_t size)
{
    uint64_t mapped_len, magic;
    uint32_t nrings = 0;

    if (size < 16) {
        fuzz_verdict = FUZZ_NONE;
        return;
    }
    mapped_len = fuzz_le64(data);
    magic      = fuzz_le64(data + 8);
    if (gcm_slots_shm_seg_check(data + 16, size - 16, mapped_len, magic,
                                &nrings) != GCM_OK) {
        fuzz_verdict = FUZZ_REFUSED;
        return;
    }
    fuzz_verdict = FUZZ_ACCEPTED;
    FUZZ_REQUIRE((nrings >= 1) && (nrings <= GCM_SLOTS_SHM_MAX_RINGS));
    /* Every ring the header claims lies in the mapping. */
    FUZZ_REQUIRE(mapped_len >= GCM_SLOTS_SHM_SEG_HDR);
    FUZZ_REQUIRE((mapped_len - GCM_SLOTS_SHM_SEG_HDR) /
                 GCM_SLOTS_SHM_RING_BYTES >= nrings);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const fuzz_part_t parts[] = { fuzz_note, fuzz_cell, fuzz_seg,
                                         fuzz_line };

    fuzz_dispatch(data, size, parts, sizeof(parts) / sizeof(parts[0]));
    return 0;
}
