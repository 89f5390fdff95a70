/*
 * slots/slot_shm.h: what the same-host path reads from outside the
 * process (notes on its sockets, cells of its rings, the header of a
 * peer's segment) and the functions that decode it. Each decoder is a
 * function of the bytes and their length only, so that it can be called
 * alone (a fuzzer, a unit test); what the bytes claim about their sender
 * is checked by the caller against what the kernel says.
 */
#ifndef GCM_SLOT_SHM_H
#define GCM_SLOT_SHM_H

#include "slots/slots_impl.h"

/* The layout of a segment: a header page (sizes, counters, then from
 * GCM_SLOTS_SHM_OWNERS_OFF one owner word per ring), then the rings, each
 * a header, a lane of GCM_SLOTS_SHM_NLINES lines and GCM_SLOTS_SHM_NCELLS
 * cells. Every process of a job is built from the same sources, so the
 * sizes are constants; a segment whose header says otherwise is refused.
 *
 * A message of up to GCM_SLOTS_SHM_LINE_DATA bytes that needs no answer
 * is one line of the lane (its envelope, data and full flag in one cache
 * line, the next message on the next page of the lane: see
 * gcm_slots_shm_line_at); anything else is a cell,
 * which says itself where it falls among the lines: its lpos is the
 * count of lines written before it, so the consumer takes it once it
 * has taken that many lines (one sequence orders both, and a cell costs
 * no line). */
#define GCM_SLOTS_SHM_NCELLS     32
#define GCM_SLOTS_SHM_NLINES     128
#define GCM_SLOTS_SHM_LINE_SIZE  64
#define GCM_SLOTS_SHM_LINE_DATA  16
/* The lane spans GCM_SLOTS_SHM_LANE_PAGES pages, each holding
 * GCM_SLOTS_SHM_LANE_SLOTS slots of GCM_SLOTS_SHM_LANE_GAP bytes, one line
 * at the start of each (gcm_slots_shm_line_at). */
#define GCM_SLOTS_SHM_PAGE       4096
#define GCM_SLOTS_SHM_LANE_PAGES 4
#define GCM_SLOTS_SHM_LANE_SLOTS \
    (GCM_SLOTS_SHM_NLINES / GCM_SLOTS_SHM_LANE_PAGES)
#define GCM_SLOTS_SHM_LANE_GAP   \
    (GCM_SLOTS_SHM_PAGE / GCM_SLOTS_SHM_LANE_SLOTS)
#define GCM_SLOTS_SHM_LANE_STEP  7
#define GCM_SLOTS_SHM_LANE_BYTES \
    (GCM_SLOTS_SHM_LANE_PAGES * GCM_SLOTS_SHM_PAGE)
#define GCM_SLOTS_SHM_CELL_HDR   96
#define GCM_SLOTS_SHM_CELL_SIZE  \
    ((GCM_SLOTS_SHM_CELL_HDR + GCM_SLOTS_SHM_CELL_DATA + 63) / 64 * 64)
#define GCM_SLOTS_SHM_SEG_HDR    4096
#define GCM_SLOTS_SHM_RING_HDR   GCM_SLOTS_SHM_PAGE
#define GCM_SLOTS_SHM_RING_BYTES \
    (GCM_SLOTS_SHM_RING_HDR + GCM_SLOTS_SHM_LANE_BYTES + \
     (uint64_t)GCM_SLOTS_SHM_NCELLS * GCM_SLOTS_SHM_CELL_SIZE)
#define GCM_SLOTS_SHM_OWNERS_OFF 256
#define GCM_SLOTS_SHM_MAX_RINGS  \
    ((GCM_SLOTS_SHM_SEG_HDR - GCM_SLOTS_SHM_OWNERS_OFF) / 4)
/* A ring's owner word: the sending process + 1 in the low 24 bits, its
 * endpoint in the high 8 (GCM_MAX_ENDPOINTS fits). */
#define GCM_SLOTS_SHM_OWNER_PROC_BITS 24
/* Random bytes naming an endpoint's two sockets (published at init). */
#define GCM_SLOTS_SHM_SOCK_ID    16

/* The segment's first page. */
typedef struct gcm_slots_shm_seg {
    uint64_t                  magic;
    uint32_t                  nrings;
    uint32_t                  ncells;
    uint64_t                  ring_bytes;
    /* Changed by each sender that claims a ring. */
    _Alignas(64) _Atomic uint32_t attach_gen;
    /* Threads of the owner asleep (or about to be). */
    _Alignas(64) _Atomic int32_t  sleeping;
} gcm_slots_shm_seg_t;

typedef struct gcm_slots_shm_ring {
    /* The consumer's counts of cells and of lane lines taken. */
    _Alignas(128) _Atomic uint64_t tail;
    _Atomic uint64_t               ltail;
    _Alignas(128) _Atomic int32_t  tx_waiting;
    /* Set by the consumer when it refused the claim of this ring: the
     * producer's messages in it will never be read. */
    _Atomic int32_t                refused;
    /* Written by the producer while it reads the consumer's memory: until
     * when (in ns of CLOCK_MONOTONIC) the consumer should expect the data
     * notice and spin rather than sleep; 0 when no read is under way. */
    _Alignas(128) _Atomic uint64_t read_until;
    /* A cooperative copy of a large message (slot_shm_coop.c), set up by
     * the consumer of the ring the data's receiver produces into: the
     * generation of the copy in the high 32 bits and the next chunk to
     * take in the low 32 (both sides take chunks), the chunks its sender
     * finished (same layout), and the generation of a copy in which a
     * write of the sender failed. */
    _Alignas(128) _Atomic uint64_t coop_next;
    _Atomic uint64_t               coop_done;
    _Atomic uint64_t               coop_fail;
} gcm_slots_shm_ring_t;

/* A cell is full when its seq is the producer's count of cells written
 * (index + 1). lpos is the low 32 bits of the producer's count of lane
 * lines written when it wrote the cell: the cell comes after those lines
 * and before the next one. */
typedef struct gcm_slots_shm_cell {
    _Atomic uint64_t seq;
    uint32_t        kind;   /* GCM_SLOTS_SHM_EAGER, _CMA, _CTRL or _COOP */
    uint32_t        len;    /* EAGER: data bytes */
    int32_t         pid;    /* CMA: the sender (not believed) */
    uint32_t        lpos;   /* lane lines written before it */
    uint64_t        addr;   /* CMA: the sender's buffer */
    gcm_slots_env_t env;
} gcm_slots_shm_cell_t;

/* A lane line is full when its seq is the low 32 bits of the producer's
 * count of lines written (index + 1): the consumer polls the next line
 * itself (and the next cell's seq), so a small message costs it one
 * cache line, and the line after it is the next one's. SMALL: the
 * envelope but its sender (the ring's owner), sreq (0) and size (len),
 * then the data. */
typedef struct gcm_slots_shm_line {
    _Atomic uint32_t seq;
    uint8_t          kind;      /* GCM_SLOTS_SHM_LINE_SMALL */
    uint8_t          len;       /* SMALL: data bytes */
    uint16_t         flags;
    uint32_t         dst_id;
    uint32_t         dst_gen;
    uint64_t         token;
    int32_t          rslot;
    int32_t          tag;
    uint64_t         mseq;
    uint32_t         src_id;
    int32_t          src_slot;
    uint8_t          data[GCM_SLOTS_SHM_LINE_DATA];
} gcm_slots_shm_line_t;

/* Kind 2 was a line announcing a cell (stop 27); it is refused now. */
enum { GCM_SLOTS_SHM_LINE_SMALL = 1 };

/* What a ring's consumer takes next (gcm_slots_shm_next). */
enum {
    GCM_SLOTS_SHM_TAKE_NONE = 0,
    GCM_SLOTS_SHM_TAKE_LINE = 1,
    GCM_SLOTS_SHM_TAKE_CELL = 2
};

/* Which of a ring's next lane line and next cell comes first, from
 * whether the line is full (its seq loaded first, acquire), whether the
 * cell is full (loaded after: a cell written before the line is then
 * seen), the cell's lpos and the consumer's count of lines taken. The
 * cell comes once that many lines were taken; one stamped before lines
 * already taken comes at once (only a writer that lies about it stamps
 * one so; its own messages are all it can disorder). */
static inline int gcm_slots_shm_next(int lfull, int cfull, uint32_t lpos,
                                     uint64_t ltail)
{
    if (cfull && ((int32_t)(lpos - (uint32_t)ltail) <= 0)) {
        return GCM_SLOTS_SHM_TAKE_CELL;
    }
    return lfull ? GCM_SLOTS_SHM_TAKE_LINE : GCM_SLOTS_SHM_TAKE_NONE;
}

/* Ring i of a segment: its place follows from the constants, never from
 * what the segment's header says. */
static inline gcm_slots_shm_ring_t *
gcm_slots_shm_ring_at(gcm_slots_shm_seg_t *seg, uint32_t i)
{
    return (gcm_slots_shm_ring_t *)((char *)seg + GCM_SLOTS_SHM_SEG_HDR +
                                    (size_t)i * GCM_SLOTS_SHM_RING_BYTES);
}

/* The lane line of a ring that counter idx (monotonic) falls on. Line j
 * of the lane is on page j % LANE_PAGES, in slot (j / LANE_PAGES) *
 * LANE_STEP (mod LANE_SLOTS, the step odd: every slot is taken once).
 * Consecutive lines are on different pages, and the lines of one page
 * come LANE_PAGES messages apart, in no ascending order (the next one
 * 896 or 3,200 bytes away): the consumer's hardware prefetchers, which
 * follow an ascending read inside a page, then do not hold the lines
 * the producer writes next, which each such write had to take back
 * from the consumer's cache (slots/README.md, "The lane"). */
static inline gcm_slots_shm_line_t *
gcm_slots_shm_line_at(gcm_slots_shm_ring_t *ring, uint64_t idx)
{
    uint64_t j    = idx % GCM_SLOTS_SHM_NLINES;
    uint64_t slot = (j / GCM_SLOTS_SHM_LANE_PAGES) * GCM_SLOTS_SHM_LANE_STEP %
                    GCM_SLOTS_SHM_LANE_SLOTS;

    return (gcm_slots_shm_line_t *)((char *)ring + GCM_SLOTS_SHM_RING_HDR +
                                    (size_t)(j % GCM_SLOTS_SHM_LANE_PAGES) *
                                    GCM_SLOTS_SHM_PAGE +
                                    (size_t)slot * GCM_SLOTS_SHM_LANE_GAP);
}

/* The line GCM_SLOTS_SHM_LANE_PAGES after a line of a ring's lane (line
 * idx + LANE_PAGES for line_at(ring, idx)): on the same page, LANE_STEP
 * slots on. The ring, and so its lane, starts on a page. */
static inline gcm_slots_shm_line_t *
gcm_slots_shm_line_ahead(gcm_slots_shm_line_t *line)
{
    const uintptr_t in_page = GCM_SLOTS_SHM_PAGE - 1;
    uintptr_t p = (uintptr_t)line;

    return (gcm_slots_shm_line_t *)((p & ~in_page) |
                                    ((p + GCM_SLOTS_SHM_LANE_STEP *
                                      GCM_SLOTS_SHM_LANE_GAP) & in_page));
}

/* The cell of a ring that counter idx (monotonic) falls on. */
static inline gcm_slots_shm_cell_t *
gcm_slots_shm_cell_at(gcm_slots_shm_ring_t *ring, uint64_t idx)
{
    return (gcm_slots_shm_cell_t *)((char *)ring + GCM_SLOTS_SHM_RING_HDR +
                                    GCM_SLOTS_SHM_LANE_BYTES +
                                    (size_t)(idx % GCM_SLOTS_SHM_NCELLS) *
                                    GCM_SLOTS_SHM_CELL_SIZE);
}

_Static_assert(sizeof(gcm_slots_shm_seg_t) <= GCM_SLOTS_SHM_OWNERS_OFF,
               "seg header");
_Static_assert(sizeof(gcm_slots_shm_ring_t) <= GCM_SLOTS_SHM_RING_HDR,
               "ring header");
_Static_assert(sizeof(gcm_slots_shm_cell_t) <= GCM_SLOTS_SHM_CELL_HDR,
               "cell header");
_Static_assert(sizeof(gcm_slots_shm_line_t) == GCM_SLOTS_SHM_LINE_SIZE,
               "lane line");
_Static_assert((GCM_SLOTS_SHM_NLINES % GCM_SLOTS_SHM_LANE_PAGES == 0) &&
               ((GCM_SLOTS_SHM_LANE_SLOTS &
                 (GCM_SLOTS_SHM_LANE_SLOTS - 1)) == 0) &&
               (GCM_SLOTS_SHM_LANE_STEP % 2 == 1) &&
               (GCM_SLOTS_SHM_LANE_GAP >= GCM_SLOTS_SHM_LINE_SIZE),
               "lane pages");
_Static_assert((GCM_SLOTS_SHM_SEG_HDR % GCM_SLOTS_SHM_PAGE == 0) &&
               (GCM_SLOTS_SHM_RING_BYTES % GCM_SLOTS_SHM_PAGE == 0),
               "rings and their lanes start on a page");
_Static_assert(offsetof(gcm_slots_shm_line_t, mseq) -
               offsetof(gcm_slots_shm_line_t, dst_id) ==
               offsetof(gcm_slots_env_t, seq) &&
               offsetof(gcm_slots_env_t, seq) + 8 ==
               offsetof(gcm_slots_env_t, sreq), "line and envelope heads");
_Static_assert(sizeof(gcm_slots_ctrl_t) <= GCM_SLOTS_SHM_CELL_DATA, "ctrl");

/* A note on an endpoint's sockets: a wakeup (datagram socket) or the
 * claim of a ring of its segment (seqpacket socket). */
#define GCM_SLOTS_SHM_NOTE_MAGIC 0x67636d6eu /* "gcmn" */

enum { GCM_SLOTS_SHM_WAKE = 1, GCM_SLOTS_SHM_CLAIM = 2 };

typedef struct gcm_slots_shm_note {
    uint32_t magic;
    uint16_t kind;      /* GCM_SLOTS_SHM_WAKE or GCM_SLOTS_SHM_CLAIM */
    uint16_t ep;        /* the sender's endpoint */
    int32_t  proc;      /* the sender's process in the job */
    uint32_t ring;      /* CLAIM: the ring it claimed; WAKE: 0 */
} gcm_slots_shm_note_t;

_Static_assert(sizeof(gcm_slots_shm_note_t) == 16, "note");

/* GCM_OK and *note_p when buf holds a well-formed note; else
 * GCM_ERR_INVALID_PARAM. Ranges that depend on the job (proc below the
 * job's size, ring below the segment's count) are the caller's. */
gcm_status_t gcm_slots_shm_note_decode(const void *buf, size_t len,
                                       gcm_slots_shm_note_t *note_p)
    GCM_INTERNAL;

/* What a cell of a ring holds, once decoded. */
enum {
    GCM_SLOTS_SHM_EAGER = 1,
    GCM_SLOTS_SHM_CMA   = 2,
    GCM_SLOTS_SHM_CTRL  = 3,
    GCM_SLOTS_SHM_COOP  = 4
};

/* A receiver's offer to its sender to copy part of a large message (cell
 * data of a GCM_SLOTS_SHM_COOP cell): the send it is about (the cookie of
 * its descriptor), where the data goes in the receiver's memory and how
 * many bytes (at most the send's), the generation of the ring's chunk
 * counter it set up, and the chunk: 0 for gcm_slots_shm_coop_chunk(len),
 * which both sides compute alone, else the size of the pieces of a
 * folded receive (slots.h, gcm_slots_fold_t; at least
 * GCM_SLOTS_SHM_COOP_CHUNK_LEAST, else the sender ignores the offer). */
typedef struct gcm_slots_shm_coop {
    uint64_t sreq;
    uint64_t addr;
    uint64_t len;
    uint32_t gen;
    uint32_t chunk;
} gcm_slots_shm_coop_t;

/* The chunk of a cooperative copy of len bytes: len / 4 rounded up to a
 * multiple of 64 KiB (so at most 4 chunks up to 4 MiB), within
 * [128 KiB, 1 MiB] (slots/README.md, "Cooperative copy chunks": 1 and
 * 4 MiB move fastest in 4 chunks); a message under 256 KiB is two
 * halves, the first rounded up to a 4 KiB page (64 KiB: one copy of
 * 32 KiB on each side). Both sides compute it from the offer's length,
 * so it is never sent. */
#define GCM_SLOTS_SHM_COOP_CHUNK_MIN  ((uint64_t)128 * 1024)
#define GCM_SLOTS_SHM_COOP_CHUNK_MAX  ((uint64_t)1024 * 1024)
#define GCM_SLOTS_SHM_COOP_CHUNK_STEP ((uint64_t)64 * 1024)
#define GCM_SLOTS_SHM_COOP_HALF_STEP  ((uint64_t)4096)
#define GCM_SLOTS_SHM_COOP_SPLIT      4
/* The smallest chunk an offer may name: no finer copies for a sender. */
#define GCM_SLOTS_SHM_COOP_CHUNK_LEAST ((uint64_t)4096)
static inline uint64_t gcm_slots_shm_coop_chunk(uint64_t len)
{
    uint64_t c = len / GCM_SLOTS_SHM_COOP_SPLIT +
                 ((len % GCM_SLOTS_SHM_COOP_SPLIT) != 0);

    if (len < 2 * GCM_SLOTS_SHM_COOP_CHUNK_MIN) {
        c = len / 2 + (len % 2);
        c = (c + GCM_SLOTS_SHM_COOP_HALF_STEP - 1) /
            GCM_SLOTS_SHM_COOP_HALF_STEP * GCM_SLOTS_SHM_COOP_HALF_STEP;
        return (c == 0) ? GCM_SLOTS_SHM_COOP_HALF_STEP : c;
    }
    c = (c + GCM_SLOTS_SHM_COOP_CHUNK_STEP - 1) /
        GCM_SLOTS_SHM_COOP_CHUNK_STEP * GCM_SLOTS_SHM_COOP_CHUNK_STEP;
    if (c < GCM_SLOTS_SHM_COOP_CHUNK_MIN) {
        return GCM_SLOTS_SHM_COOP_CHUNK_MIN;
    }
    return (c > GCM_SLOTS_SHM_COOP_CHUNK_MAX) ? GCM_SLOTS_SHM_COOP_CHUNK_MAX
                                              : c;
}

/* The chunk of a folded receive's offer of n bytes whose fold reads
 * piece bytes at a time (elements of unit bytes): the piece, larger
 * where n would have more than GCM_SLOTS_SHM_COOP_FOLD_CHUNKS of them (so
 * that the receiver can note which are its own), a multiple of the unit;
 * 0 where no offer can name it. */
#define GCM_SLOTS_SHM_COOP_FOLD_CHUNKS 512
static inline uint64_t gcm_slots_shm_coop_fold_chunk(uint64_t piece,
                                                     uint64_t unit,
                                                     uint64_t n)
{
    uint64_t chunk = piece;

    if ((chunk == 0) ||
        ((n + chunk - 1) / chunk > GCM_SLOTS_SHM_COOP_FOLD_CHUNKS)) {
        chunk = (n + GCM_SLOTS_SHM_COOP_FOLD_CHUNKS - 1) /
                GCM_SLOTS_SHM_COOP_FOLD_CHUNKS;
        if (unit > 1) {
            chunk = (chunk + unit - 1) / unit * unit;
        }
    }
    if ((chunk < GCM_SLOTS_SHM_COOP_CHUNK_LEAST) || (chunk > UINT32_MAX)) {
        return 0;
    }
    return chunk;
}

/* The chunk an offer (from the receiver: not believed) asks its sender
 * to copy by: gcm_slots_shm_coop_chunk(len) where it names none, the one
 * it names where that is at least GCM_SLOTS_SHM_COOP_CHUNK_LEAST and at
 * most len, else 0 (the offer is ignored). */
static inline uint64_t gcm_slots_shm_coop_offer_chunk(
    const gcm_slots_shm_coop_t *coop)
{
    if (coop->chunk == 0) {
        return gcm_slots_shm_coop_chunk(coop->len);
    }
    if ((coop->chunk < GCM_SLOTS_SHM_COOP_CHUNK_LEAST) ||
        (coop->chunk > coop->len)) {
        return 0;
    }
    return coop->chunk;
}

typedef struct gcm_slots_shm_cell_msg {
    uint32_t         kind;     /* GCM_SLOTS_SHM_EAGER, _CMA, _CTRL, _COOP */
    gcm_slots_env_t  env;      /* EAGER, CMA */
    size_t           data_off; /* EAGER: where the data starts in the cell */
    size_t           len;      /* EAGER: data bytes */
    uint64_t         addr;     /* CMA: the data, in the sender's memory */
    gcm_slots_ctrl_t ctrl;     /* CTRL */
    gcm_slots_shm_coop_t coop; /* COOP */
} gcm_slots_shm_cell_msg_t;

/* Copies field of the cell out (once: see below). */
#define GCM_SHM_FIELD(dst, cell, field) \
    memcpy((dst), (const char *)(cell) + \
           offsetof(gcm_slots_shm_cell_t, field), \
           sizeof(((gcm_slots_shm_cell_t *)0)->field))

/* Decodes the cell at cell (len bytes mapped there: a whole cell) into
 * *msg_p. GCM_ERR_INVALID_PARAM for an unknown kind or a cell shorter
 * than its header, and *msg_p is left as it was. Only kind and the fields
 * of that kind are written. The sender's identity in the envelope is not
 * believed: the caller sets it from the ring the cell came through.
 * Inline: the ring's drain decodes every message with len a constant. */
static inline gcm_status_t
gcm_slots_shm_cell_decode(const void *cell, size_t len,
                          gcm_slots_shm_cell_msg_t *msg_p)
{
    uint32_t kind, n;

    if ((cell == NULL) || (len < GCM_SLOTS_SHM_CELL_HDR)) {
        return GCM_ERR_INVALID_PARAM;
    }
    /* The producer may write the cell while we read it: each field is
     * copied out once, and only the fields of its kind (a small message
     * costs the kind, its length and the envelope, not a copy of the
     * whole header and of every kind's fields). */
    GCM_SHM_FIELD(&kind, cell, kind);
    switch (kind) {
    case GCM_SLOTS_SHM_EAGER:
        GCM_SHM_FIELD(&n, cell, len);
        GCM_SHM_FIELD(&msg_p->env, cell, env);
        msg_p->data_off = GCM_SLOTS_SHM_CELL_HDR;
        msg_p->len      = n;
        if (msg_p->len > len - GCM_SLOTS_SHM_CELL_HDR) {
            msg_p->len = len - GCM_SLOTS_SHM_CELL_HDR;
        }
        if (msg_p->len > GCM_SLOTS_SHM_CELL_DATA) {
            msg_p->len = GCM_SLOTS_SHM_CELL_DATA;
        }
        break;
    case GCM_SLOTS_SHM_CMA:
        GCM_SHM_FIELD(&msg_p->env, cell, env);
        GCM_SHM_FIELD(&msg_p->addr, cell, addr);
        break;
    case GCM_SLOTS_SHM_CTRL:
        if (len < GCM_SLOTS_SHM_CELL_HDR + sizeof(msg_p->ctrl)) {
            return GCM_ERR_INVALID_PARAM;
        }
        memcpy(&msg_p->ctrl, (const char *)cell + GCM_SLOTS_SHM_CELL_HDR,
               sizeof(msg_p->ctrl));
        break;
    case GCM_SLOTS_SHM_COOP:
        if (len < GCM_SLOTS_SHM_CELL_HDR + sizeof(msg_p->coop)) {
            return GCM_ERR_INVALID_PARAM;
        }
        memcpy(&msg_p->coop, (const char *)cell + GCM_SLOTS_SHM_CELL_HDR,
               sizeof(msg_p->coop));
        break;
    default:
        return GCM_ERR_INVALID_PARAM;
    }
    msg_p->kind = kind;
    return GCM_OK;
}

/* Copies field of the line out (once, as GCM_SHM_FIELD). */
#define GCM_SHM_LFIELD(dst, line, field) \
    memcpy((dst), (const char *)(line) + \
           offsetof(gcm_slots_shm_line_t, field), \
           sizeof(((gcm_slots_shm_line_t *)0)->field))

/* Decodes the lane line at line (len bytes mapped there: a whole line)
 * into *msg_p: a SMALL line as a GCM_SLOTS_SHM_EAGER message whose data
 * lies at data_off in the line (env.src_proc/src_ep 0: the caller sets
 * them). GCM_ERR_INVALID_PARAM for an unknown kind or a short line,
 * *msg_p left as it was. Inline, as the cell's: the drain calls it for
 * every line. */
static inline gcm_status_t
gcm_slots_shm_line_decode(const void *line, size_t len,
                          gcm_slots_shm_cell_msg_t *msg_p)
{
    uint8_t kind, n;

    if ((line == NULL) || (len < GCM_SLOTS_SHM_LINE_SIZE)) {
        return GCM_ERR_INVALID_PARAM;
    }
    GCM_SHM_LFIELD(&kind, line, kind);
    if (kind != GCM_SLOTS_SHM_LINE_SMALL) {
        return GCM_ERR_INVALID_PARAM;
    }
    GCM_SHM_LFIELD(&n, line, len);
    if (n > GCM_SLOTS_SHM_LINE_DATA) {
        n = GCM_SLOTS_SHM_LINE_DATA;
    }
    /* dst_id .. mseq lie as in the envelope, dst_id .. seq. */
    memcpy(&msg_p->env, (const char *)line +
           offsetof(gcm_slots_shm_line_t, dst_id),
           offsetof(gcm_slots_env_t, sreq));
    GCM_SHM_LFIELD(&msg_p->env.flags, line, flags);
    GCM_SHM_LFIELD(&msg_p->env.src_id, line, src_id);
    GCM_SHM_LFIELD(&msg_p->env.src_slot, line, src_slot);
    msg_p->env.sreq     = 0;
    msg_p->env.src_proc = 0;
    msg_p->env.src_ep   = 0;
    msg_p->env.size     = n;
    msg_p->data_off     = offsetof(gcm_slots_shm_line_t, data);
    msg_p->len          = n;
    msg_p->kind         = GCM_SLOTS_SHM_EAGER;
    return GCM_OK;
}

/* Writes a small message (len at most GCM_SLOTS_SHM_LINE_DATA, env->sreq
 * 0) into line, all but its seq: the producer's half of
 * gcm_slots_shm_line_decode. */
static inline void gcm_slots_shm_line_encode(gcm_slots_shm_line_t *line,
                                             const gcm_slots_env_t *env,
                                             const void *buf, size_t len)
{
    line->kind     = GCM_SLOTS_SHM_LINE_SMALL;
    line->len      = (uint8_t)len;
    line->flags    = env->flags;
    /* dst_id .. seq lie as in the envelope. */
    memcpy(&line->dst_id, env, offsetof(gcm_slots_env_t, sreq));
    line->src_id   = env->src_id;
    line->src_slot = env->src_slot;
    if (len > 0) {
        memcpy(line->data, buf, len);
    }
}

/* Checks the header of a peer's segment (the first hdr_len bytes of it,
 * copied), mapped_len bytes long, published with magic: GCM_OK and its
 * ring count in *nrings_p, else GCM_ERR_INVALID_PARAM. */
gcm_status_t gcm_slots_shm_seg_check(const void *hdr, size_t hdr_len,
                                     uint64_t mapped_len, uint64_t magic,
                                     uint32_t *nrings_p) GCM_INTERNAL;

#endif /* GCM_SLOT_SHM_H */
