/*
 * tests/unit/check_shm.c: the decoders of what the same-host path reads
 * from outside the process (slots/slot_shm.h): notes on its sockets, ring
 * cells, the header of a peer's segment. Bytes alone, no job.
 */
#include "config.h"

#include "slots/slot_shm.h"
#include "check_main.h"

#include <stdint.h>
#include <string.h>

static gcm_slots_shm_note_t good_note(uint16_t kind)
{
    gcm_slots_shm_note_t note;

    memset(&note, 0, sizeof(note));
    note.magic = GCM_SLOTS_SHM_NOTE_MAGIC;
    note.kind  = kind;
    note.ep    = 3;
    note.proc  = 5;
    note.ring  = (kind == GCM_SLOTS_SHM_CLAIM) ? 7 : 0;
    return note;
}

START_TEST(test_shm_note_decode_takes_well_formed_notes)
{
    gcm_slots_shm_note_t in = good_note(GCM_SLOTS_SHM_CLAIM), out;

    ck_assert_int_eq(gcm_slots_shm_note_decode(&in, sizeof(in), &out),
                     GCM_OK);
    ck_assert_int_eq(out.proc, 5);
    ck_assert_int_eq(out.ep, 3);
    ck_assert_uint_eq(out.ring, 7);
    in = good_note(GCM_SLOTS_SHM_WAKE);
    ck_assert_int_eq(gcm_slots_shm_note_decode(&in, sizeof(in), &out),
                     GCM_OK);
    ck_assert_int_eq(out.kind, GCM_SLOTS_SHM_WAKE);
}
END_TEST

START_TEST(test_shm_note_decode_refuses_malformed_notes)
{
    gcm_slots_shm_note_t in, out;
    unsigned char big[sizeof(in) + 1];

    in = good_note(GCM_SLOTS_SHM_CLAIM);
    ck_assert_int_ne(gcm_slots_shm_note_decode(&in, sizeof(in) - 1, &out),
                     GCM_OK);
    memset(big, 0, sizeof(big));
    memcpy(big, &in, sizeof(in));
    ck_assert_int_ne(gcm_slots_shm_note_decode(big, sizeof(big), &out),
                     GCM_OK);
    ck_assert_int_ne(gcm_slots_shm_note_decode(NULL, sizeof(in), &out),
                     GCM_OK);
    ck_assert_int_ne(gcm_slots_shm_note_decode("w", 1, &out), GCM_OK);
    in.magic ^= 1;
    ck_assert_int_ne(gcm_slots_shm_note_decode(&in, sizeof(in), &out),
                     GCM_OK);
    in = good_note(GCM_SLOTS_SHM_CLAIM);
    in.kind = 9;
    ck_assert_int_ne(gcm_slots_shm_note_decode(&in, sizeof(in), &out),
                     GCM_OK);
    in = good_note(GCM_SLOTS_SHM_CLAIM);
    in.proc = -1;
    ck_assert_int_ne(gcm_slots_shm_note_decode(&in, sizeof(in), &out),
                     GCM_OK);
    in = good_note(GCM_SLOTS_SHM_CLAIM);
    in.ep = GCM_MAX_ENDPOINTS;
    ck_assert_int_ne(gcm_slots_shm_note_decode(&in, sizeof(in), &out),
                     GCM_OK);
    in = good_note(GCM_SLOTS_SHM_CLAIM);
    in.ring = GCM_SLOTS_SHM_MAX_RINGS;
    ck_assert_int_ne(gcm_slots_shm_note_decode(&in, sizeof(in), &out),
                     GCM_OK);
    in = good_note(GCM_SLOTS_SHM_WAKE);
    in.ring = 1;
    ck_assert_int_ne(gcm_slots_shm_note_decode(&in, sizeof(in), &out),
                     GCM_OK);
}
END_TEST

START_TEST(test_shm_cell_decode_bounds_lengths_and_kinds)
{
    static _Alignas(128) unsigned char cell[GCM_SLOTS_SHM_CELL_SIZE];
    gcm_slots_shm_cell_t *hdr = (gcm_slots_shm_cell_t *)cell;
    gcm_slots_shm_cell_msg_t msg;

    memset(cell, 0, sizeof(cell));
    hdr->kind = GCM_SLOTS_SHM_EAGER;
    hdr->len  = 100;
    hdr->env.tag = 42;
    ck_assert_int_eq(gcm_slots_shm_cell_decode(cell, sizeof(cell), &msg),
                     GCM_OK);
    ck_assert_uint_eq(msg.len, 100);
    ck_assert_uint_eq(msg.data_off, GCM_SLOTS_SHM_CELL_HDR);
    ck_assert_int_eq(msg.env.tag, 42);
    /* A length beyond the cell is cut to what the cell holds. */
    hdr->len = UINT32_MAX;
    ck_assert_int_eq(gcm_slots_shm_cell_decode(cell, sizeof(cell), &msg),
                     GCM_OK);
    ck_assert_uint_le(msg.data_off + msg.len, sizeof(cell));
    ck_assert_int_eq(gcm_slots_shm_cell_decode(cell, 200, &msg), GCM_OK);
    ck_assert_uint_le(msg.data_off + msg.len, 200);
    hdr->kind = 77;
    ck_assert_int_ne(gcm_slots_shm_cell_decode(cell, sizeof(cell), &msg),
                     GCM_OK);
    hdr->kind = GCM_SLOTS_SHM_CTRL;
    ck_assert_int_eq(gcm_slots_shm_cell_decode(cell, sizeof(cell), &msg),
                     GCM_OK);
    ck_assert_int_ne(gcm_slots_shm_cell_decode(cell,
                                               GCM_SLOTS_SHM_CELL_HDR + 1,
                                               &msg), GCM_OK);
    ck_assert_int_ne(gcm_slots_shm_cell_decode(cell, 10, &msg), GCM_OK);
    /* A cooperative copy's offer: whole, or refused. */
    hdr->kind = GCM_SLOTS_SHM_COOP;
    ((gcm_slots_shm_coop_t *)(cell + GCM_SLOTS_SHM_CELL_HDR))->len = 12345;
    ck_assert_int_eq(gcm_slots_shm_cell_decode(cell, sizeof(cell), &msg),
                     GCM_OK);
    ck_assert_uint_eq(msg.coop.len, 12345);
    ck_assert_int_ne(gcm_slots_shm_cell_decode(cell,
                                               GCM_SLOTS_SHM_CELL_HDR +
                                               sizeof(gcm_slots_shm_coop_t) -
                                               1, &msg), GCM_OK);
}
END_TEST

START_TEST(test_shm_line_decode_bounds_lengths_and_kinds)
{
    static _Alignas(64) unsigned char buf[GCM_SLOTS_SHM_LINE_SIZE];
    gcm_slots_shm_line_t *line = (gcm_slots_shm_line_t *)buf;
    gcm_slots_shm_cell_msg_t msg;

    memset(buf, 0, sizeof(buf));
    line->kind     = GCM_SLOTS_SHM_LINE_SMALL;
    line->len      = 8;
    line->flags    = GCM_ENV_FLAG_ACK;
    line->dst_id   = 11;
    line->dst_gen  = 12;
    line->token    = 0x1122334455667788ULL;
    line->rslot    = 13;
    line->tag      = 42;
    line->mseq     = 99;
    line->src_id   = 14;
    line->src_slot = 15;
    memcpy(line->data, "12345678", 8);
    msg.env.sreq = 7;
    ck_assert_int_eq(gcm_slots_shm_line_decode(buf, sizeof(buf), &msg),
                     GCM_OK);
    ck_assert_uint_eq(msg.kind, GCM_SLOTS_SHM_EAGER);
    ck_assert_uint_eq(msg.len, 8);
    ck_assert_uint_eq(msg.env.size, 8);
    ck_assert_uint_eq(msg.env.sreq, 0);
    ck_assert_uint_eq(msg.env.flags, GCM_ENV_FLAG_ACK);
    ck_assert_uint_eq(msg.env.dst_id, 11);
    ck_assert_uint_eq(msg.env.dst_gen, 12);
    ck_assert_uint_eq(msg.env.token, 0x1122334455667788ULL);
    ck_assert_int_eq(msg.env.rslot, 13);
    ck_assert_int_eq(msg.env.tag, 42);
    ck_assert_uint_eq(msg.env.seq, 99);
    ck_assert_uint_eq(msg.env.src_id, 14);
    ck_assert_int_eq(msg.env.src_slot, 15);
    ck_assert_mem_eq(buf + msg.data_off, "12345678", 8);
    /* A length beyond the line is cut to what the line holds. */
    line->len = 255;
    ck_assert_int_eq(gcm_slots_shm_line_decode(buf, sizeof(buf), &msg),
                     GCM_OK);
    ck_assert_uint_eq(msg.len, GCM_SLOTS_SHM_LINE_DATA);
    ck_assert_uint_le(msg.data_off + msg.len, sizeof(buf));
    /* A short line or an unknown kind: refused. */
    ck_assert_int_ne(gcm_slots_shm_line_decode(buf, sizeof(buf) - 1, &msg),
                     GCM_OK);
    ck_assert_int_ne(gcm_slots_shm_line_decode(NULL, sizeof(buf), &msg),
                     GCM_OK);
    line->kind = 0;
    ck_assert_int_ne(gcm_slots_shm_line_decode(buf, sizeof(buf), &msg),
                     GCM_OK);
    line->kind = 77;
    ck_assert_int_ne(gcm_slots_shm_line_decode(buf, sizeof(buf), &msg),
                     GCM_OK);
    /* Kind 2 announced a cell until cells said where they fall among
     * the lines themselves: refused now. */
    line->kind = 2;
    ck_assert_int_ne(gcm_slots_shm_line_decode(buf, sizeof(buf), &msg),
                     GCM_OK);
}
END_TEST

START_TEST(test_shm_seg_check_refuses_sizes_beyond_the_mapping)
{
    static _Alignas(128) unsigned char page[GCM_SLOTS_SHM_SEG_HDR];
    gcm_slots_shm_seg_t *seg = (gcm_slots_shm_seg_t *)page;
    uint64_t len = GCM_SLOTS_SHM_SEG_HDR + 4 * GCM_SLOTS_SHM_RING_BYTES;
    uint32_t nrings = 0;

    memset(page, 0, sizeof(page));
    seg->magic      = 0x1234;
    seg->nrings     = 4;
    seg->ncells     = GCM_SLOTS_SHM_NCELLS;
    seg->ring_bytes = GCM_SLOTS_SHM_RING_BYTES;
    ck_assert_int_eq(gcm_slots_shm_seg_check(page, sizeof(page), len, 0x1234,
                                             &nrings), GCM_OK);
    ck_assert_uint_eq(nrings, 4);
    ck_assert_int_ne(gcm_slots_shm_seg_check(page, sizeof(page), len - 1,
                                             0x1234, &nrings), GCM_OK);
    ck_assert_int_ne(gcm_slots_shm_seg_check(page, sizeof(page), len, 0x1235,
                                             &nrings), GCM_OK);
    seg->nrings = UINT32_MAX;
    ck_assert_int_ne(gcm_slots_shm_seg_check(page, sizeof(page), len, 0x1234,
                                             &nrings), GCM_OK);
    seg->nrings = 0;
    ck_assert_int_ne(gcm_slots_shm_seg_check(page, sizeof(page), len, 0x1234,
                                             &nrings), GCM_OK);
    seg->nrings     = 4;
    seg->ring_bytes = (uint64_t)1 << 40;
    ck_assert_int_ne(gcm_slots_shm_seg_check(page, sizeof(page), len, 0x1234,
                                             &nrings), GCM_OK);
    seg->ring_bytes = 1;
    ck_assert_int_ne(gcm_slots_shm_seg_check(page, sizeof(page), len, 0x1234,
                                             &nrings), GCM_OK);
    seg->ring_bytes = GCM_SLOTS_SHM_RING_BYTES;
    seg->ncells     = 1;
    ck_assert_int_ne(gcm_slots_shm_seg_check(page, sizeof(page), len, 0x1234,
                                             &nrings), GCM_OK);
    ck_assert_int_ne(gcm_slots_shm_seg_check(page, 8, len, 0x1234, &nrings),
                     GCM_OK);
    ck_assert_int_ne(gcm_slots_shm_seg_check(page, sizeof(page), 100, 0x1234,
                                             &nrings), GCM_OK);
}
END_TEST

/* Both sides cut a cooperative copy by the length alone: from 256 KiB
 * 64 KiB multiples, at most 4 chunks up to 4 MiB, never below 128 KiB nor
 * above 1 MiB; under 256 KiB two halves, the first rounded up to a page
 * (so a 64 KiB message gives each side 32 KiB). */
START_TEST(test_shm_coop_chunk_grows_with_the_message)
{
    static const uint64_t lens[] = {
        1, 4096, 4097, 8193, 16384, 65536, 65537, 131072, 200001,
        262143, 262144, (1 << 20) - 1, 1 << 20, (1 << 20) + 1, 2 << 20,
        (2 << 20) + 65537, 4 << 20, (4 << 20) + 13, 8 << 20,
        (9 << 20) + 5, (uint64_t)512 << 20, (uint64_t)1 << 40
    };
    size_t i;

    ck_assert_uint_eq(gcm_slots_shm_coop_chunk(1), 4096);
    ck_assert_uint_eq(gcm_slots_shm_coop_chunk(8193), 8192);
    ck_assert_uint_eq(gcm_slots_shm_coop_chunk(16384), 8192);
    ck_assert_uint_eq(gcm_slots_shm_coop_chunk(65536), 32 * 1024);
    ck_assert_uint_eq(gcm_slots_shm_coop_chunk(65537), 36 * 1024);
    ck_assert_uint_eq(gcm_slots_shm_coop_chunk(200000), 100 * 1024);
    ck_assert_uint_eq(gcm_slots_shm_coop_chunk(262143), 128 * 1024);
    ck_assert_uint_eq(gcm_slots_shm_coop_chunk(262144), 128 * 1024);
    ck_assert_uint_eq(gcm_slots_shm_coop_chunk(393223), 128 * 1024);
    ck_assert_uint_eq(gcm_slots_shm_coop_chunk(1 << 20), 256 * 1024);
    ck_assert_uint_eq(gcm_slots_shm_coop_chunk((1 << 20) + 4093),
                      320 * 1024);
    ck_assert_uint_eq(gcm_slots_shm_coop_chunk(2 << 20), 512 * 1024);
    ck_assert_uint_eq(gcm_slots_shm_coop_chunk(4 << 20), 1024 * 1024);
    ck_assert_uint_eq(gcm_slots_shm_coop_chunk((4 << 20) + 13), 1024 * 1024);
    ck_assert_uint_eq(gcm_slots_shm_coop_chunk(9 << 20), 1024 * 1024);
    for (i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
        uint64_t c = gcm_slots_shm_coop_chunk(lens[i]);

        if (lens[i] < 262144) {
            ck_assert_uint_eq(c % 4096, 0);
            ck_assert_uint_ge(2 * c, lens[i]);
            if (lens[i] > 4096) {
                ck_assert_uint_lt(c, lens[i]);    /* two chunks */
            }
            continue;
        }
        ck_assert_uint_eq(c % (64 * 1024), 0);
        ck_assert_uint_ge(c, 128 * 1024);
        ck_assert_uint_le(c, 1024 * 1024);
        if (lens[i] <= ((uint64_t)4 << 20)) {
            ck_assert_uint_le((lens[i] + c - 1) / c, 4);
        }
    }
}
END_TEST

/* A folded receive's offer is cut into its fold's pieces, at most 512 of
 * them (larger pieces beyond 64 MiB of 128 KiB ones), each a whole
 * number of elements; none where a piece would be under a page. */
START_TEST(test_shm_coop_fold_chunk_keeps_elements_whole)
{
    static const uint64_t units[] = { 1, 8, 12, 24, 32 };
    static const uint64_t lens[] = {
        262144, (1 << 20) + 8, 64 << 20, (64 << 20) + 1, (uint64_t)1 << 30,
        ((uint64_t)1 << 30) + 12, (uint64_t)1 << 38
    };
    size_t i, k;

    ck_assert_uint_eq(gcm_slots_shm_coop_fold_chunk(131072, 8, 1 << 20),
                      131072);
    ck_assert_uint_eq(gcm_slots_shm_coop_fold_chunk(131064, 24, 1 << 20),
                      131064);
    ck_assert_uint_eq(gcm_slots_shm_coop_fold_chunk(131072, 8,
                                                    (uint64_t)1 << 30),
                      (uint64_t)2 << 20);
    ck_assert_uint_eq(gcm_slots_shm_coop_fold_chunk(1000, 8, 1 << 20), 0);
    ck_assert_uint_eq(gcm_slots_shm_coop_fold_chunk(131072, 8,
                                                    (uint64_t)1 << 42), 0);
    for (k = 0; k < sizeof(units) / sizeof(units[0]); k++) {
        uint64_t piece = 131072 - 131072 % units[k];

        for (i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
            uint64_t c = gcm_slots_shm_coop_fold_chunk(piece, units[k],
                                                       lens[i]);

            ck_assert_uint_ge(c, piece);
            ck_assert_uint_eq(c % units[k], 0);
            ck_assert_uint_le((lens[i] + c - 1) / c, 512);
        }
    }
}
END_TEST

/* What an offer names is not believed: a chunk under a page or beyond the
 * offered length makes the sender ignore the offer, none means the
 * length's own. */
START_TEST(test_shm_coop_offer_chunk_is_checked)
{
    gcm_slots_shm_coop_t coop;

    memset(&coop, 0, sizeof(coop));
    coop.len = 1 << 20;
    ck_assert_uint_eq(gcm_slots_shm_coop_offer_chunk(&coop),
                      gcm_slots_shm_coop_chunk(1 << 20));
    coop.chunk = 131072;
    ck_assert_uint_eq(gcm_slots_shm_coop_offer_chunk(&coop), 131072);
    coop.chunk = 4096;
    ck_assert_uint_eq(gcm_slots_shm_coop_offer_chunk(&coop), 4096);
    coop.chunk = 4095;
    ck_assert_uint_eq(gcm_slots_shm_coop_offer_chunk(&coop), 0);
    coop.chunk = 1;
    ck_assert_uint_eq(gcm_slots_shm_coop_offer_chunk(&coop), 0);
    coop.len = 8192;
    coop.chunk = 8193;
    ck_assert_uint_eq(gcm_slots_shm_coop_offer_chunk(&coop), 0);
    coop.chunk = 8192;
    ck_assert_uint_eq(gcm_slots_shm_coop_offer_chunk(&coop), 8192);
}
END_TEST

/* A ring's lines and cells come in the order they were written: a cell
 * stamped with lpos lines comes after the lpos-th line and before the
 * next, whatever else is full. */
START_TEST(test_shm_next_orders_lines_and_cells)
{
    const uint64_t big = ((uint64_t)1 << 32) + 5; /* lpos wraps */

    /* Nothing full. */
    ck_assert_int_eq(gcm_slots_shm_next(0, 0, 0, 0), GCM_SLOTS_SHM_TAKE_NONE);
    /* A cell written when 3 lines were: after line 3 is taken, before
     * line 4, even when line 4 is full already. */
    ck_assert_int_eq(gcm_slots_shm_next(1, 1, 4, 3), GCM_SLOTS_SHM_TAKE_LINE);
    ck_assert_int_eq(gcm_slots_shm_next(1, 1, 4, 4), GCM_SLOTS_SHM_TAKE_CELL);
    ck_assert_int_eq(gcm_slots_shm_next(0, 1, 4, 4), GCM_SLOTS_SHM_TAKE_CELL);
    /* Its lines not all seen yet: wait for them. */
    ck_assert_int_eq(gcm_slots_shm_next(0, 1, 4, 3), GCM_SLOTS_SHM_TAKE_NONE);
    /* A full line and no full cell. */
    ck_assert_int_eq(gcm_slots_shm_next(1, 0, 0, 9), GCM_SLOTS_SHM_TAKE_LINE);
    /* The stamp is the low 32 bits of the count. */
    ck_assert_int_eq(gcm_slots_shm_next(1, 1, 5, big),
                     GCM_SLOTS_SHM_TAKE_CELL);
    ck_assert_int_eq(gcm_slots_shm_next(1, 1, 6, big),
                     GCM_SLOTS_SHM_TAKE_LINE);
    ck_assert_int_eq(gcm_slots_shm_next(1, 1, 0, big - 6),
                     GCM_SLOTS_SHM_TAKE_LINE);
    ck_assert_int_eq(gcm_slots_shm_next(1, 1, 0, big - 5),
                     GCM_SLOTS_SHM_TAKE_CELL);
    /* A stamp before lines already taken (a lie): the cell comes now,
     * nothing waits on it. */
    ck_assert_int_eq(gcm_slots_shm_next(1, 1, 2, 9), GCM_SLOTS_SHM_TAKE_CELL);
    ck_assert_int_eq(gcm_slots_shm_next(0, 1, 0, big),
                     GCM_SLOTS_SHM_TAKE_CELL);
}
END_TEST

/* The lane's lines: all in the lane, none shared, each of the next
 * GCM_SLOTS_SHM_LANE_PAGES - 1 lines after a line on another page, and
 * the lines of one page that come within 4 * LANE_PAGES messages of each
 * other at least 512 bytes apart (what the consumer's prefetchers take
 * ahead of it stays out of the producer's way). */
START_TEST(test_shm_lane_spreads_lines_over_pages)
{
    static _Alignas(4096) unsigned char ring[GCM_SLOTS_SHM_RING_HDR +
                                             GCM_SLOTS_SHM_LANE_BYTES];
    gcm_slots_shm_ring_t *r = (gcm_slots_shm_ring_t *)ring;
    unsigned char seen[GCM_SLOTS_SHM_LANE_BYTES / GCM_SLOTS_SHM_LINE_SIZE];
    size_t off[GCM_SLOTS_SHM_NLINES];
    uint64_t i, k;

    memset(seen, 0, sizeof(seen));
    for (i = 0; i < GCM_SLOTS_SHM_NLINES; i++) {
        off[i] = (size_t)((unsigned char *)gcm_slots_shm_line_at(r, i) -
                          ring);
        ck_assert_uint_ge(off[i], GCM_SLOTS_SHM_RING_HDR);
        ck_assert_uint_le(off[i] + GCM_SLOTS_SHM_LINE_SIZE,
                          GCM_SLOTS_SHM_RING_HDR + GCM_SLOTS_SHM_LANE_BYTES);
        ck_assert_uint_eq(off[i] % GCM_SLOTS_SHM_LINE_SIZE, 0);
        k = (off[i] - GCM_SLOTS_SHM_RING_HDR) / GCM_SLOTS_SHM_LINE_SIZE;
        ck_assert_uint_eq(seen[k], 0);
        seen[k] = 1;
        ck_assert_ptr_eq(gcm_slots_shm_line_ahead(
                             gcm_slots_shm_line_at(r, i + 5 *
                                                   GCM_SLOTS_SHM_NLINES)),
                         gcm_slots_shm_line_at(r, i +
                                               GCM_SLOTS_SHM_LANE_PAGES));
        /* The counter wraps onto the same line. */
        ck_assert_ptr_eq(gcm_slots_shm_line_at(r, i),
                         gcm_slots_shm_line_at(r, i + 3 *
                                               GCM_SLOTS_SHM_NLINES));
    }
    ck_assert_uint_ge(GCM_SLOTS_SHM_LANE_PAGES, 4);
    for (i = 0; i < GCM_SLOTS_SHM_NLINES; i++) {
        for (k = 1; k < GCM_SLOTS_SHM_NLINES; k++) {
            size_t a = off[i], b = off[(i + k) % GCM_SLOTS_SHM_NLINES];

            if (a / 4096 != b / 4096) {
                continue;
            }
            ck_assert_uint_ge(k, GCM_SLOTS_SHM_LANE_PAGES);
            if (k < 4 * GCM_SLOTS_SHM_LANE_PAGES) {
                ck_assert_uint_ge(a > b ? a - b : b - a, 512);
            }
        }
    }
    /* The cells follow the lane. */
    ck_assert_ptr_eq(gcm_slots_shm_cell_at(r, 0),
                     ring + GCM_SLOTS_SHM_RING_HDR + GCM_SLOTS_SHM_LANE_BYTES);
}
END_TEST

static Suite *make_suite(void)
{
    const TTest *decode[] = {test_shm_note_decode_takes_well_formed_notes,
        test_shm_note_decode_refuses_malformed_notes,
        test_shm_cell_decode_bounds_lengths_and_kinds,
        test_shm_line_decode_bounds_lengths_and_kinds,
        test_shm_seg_check_refuses_sizes_beyond_the_mapping, NULL};
    const TTest *coop[] = {test_shm_coop_chunk_grows_with_the_message,
                           test_shm_coop_fold_chunk_keeps_elements_whole,
                           test_shm_coop_offer_chunk_is_checked, NULL};
    const TTest *order[] = {test_shm_next_orders_lines_and_cells,
        test_shm_lane_spreads_lines_over_pages, NULL};
    const struct gcm_check_case cases[] = {
        {"decode", .tests = decode},
        {"order", .tests = order},
        {"coop", .tests = coop},
        {0},
    };

    return gcm_check_suite("shm", cases);
}
