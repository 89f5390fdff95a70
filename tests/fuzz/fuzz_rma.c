/*
 * tests/fuzz/fuzz_rma.c: the datatype of a one-sided operation as its
 * target receives it from another host (compat/mpi_rma_target.c): the message's
 * header, the runs of bytes the origin's target datatype covers, and the
 * check that they lie in the window (gcm_mpi_win_msg_runs,
 * gcm_mpi_win_runs_inside, gcm_mpi_win_runs_attached).
 *
 * Input: one byte choosing the window (even: a window of the size in the
 * next 4 bytes, little-endian; odd: a dynamic window with the regions of
 * fuzz_regions attached, and 4 bytes unused), then the message: its
 * header (gcm_win_msg_t), its runs, its data. Accepted: well-formed and
 * inside the window.
 */
#include "config.h"

#include "tests/fuzz/fuzz.h"
#include "compat/mpi_win.h"

#include <string.h>

int fuzz_verdict;

static const struct {
    uint64_t base, len;
} fuzz_regions[] = {
    { 0x10000, 4096 },
    { 0x7fff00000000ull, 1 << 20 },
    { 0x7fffffffffffff00ull, 0x100 },            /* up to INT64_MAX + 1 */
    { 0xffffffffffff0000ull, 0x10000 },          /* the top: negative */
};

#define FUZZ_NREGIONS (sizeof(fuzz_regions) / sizeof(fuzz_regions[0]))

/* Does [a, a + len) lie in [lo, lo + size), computed without wrapping? */
static int fuzz_within(__int128 a, __int128 len, __int128 lo, __int128 size)
{
    return (len >= 0) && (a >= lo) && (a + len <= lo + size);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static gcm_win_ctl_t ctl;
    gcm_win_msg_t m;
    gcm_win_runs_t r;
    const char *msg, *rest = NULL;
    size_t len, restlen = 0;
    uint32_t wsize;
    uint64_t total = 0;
    int dynamic, ok, i;

    fuzz_verdict = FUZZ_NONE;
    if (size < 5) {
        return 0;
    }
    dynamic = data[0] & 1;
    wsize = (uint32_t)data[1] | ((uint32_t)data[2] << 8) |
            ((uint32_t)data[3] << 16) | ((uint32_t)data[4] << 24);
    msg = (const char *)data + 5;
    len = size - 5;
    if (dynamic && (ctl.attach[0].len == 0)) {
        for (i = 0; i < (int)FUZZ_NREGIONS; i++) {
            ctl.attach[i].base = fuzz_regions[i].base;
            ctl.attach[i].len  = fuzz_regions[i].len;
        }
    }
    /* Shorter than a header: refused whatever the header copied says. */
    memset(&m, 0, sizeof(m));
    memcpy(&m, msg, (len < sizeof(m)) ? len : sizeof(m));
    if (!gcm_mpi_win_msg_runs(&m, msg, len, &r, &rest, &restlen)) {
        if (r.run != r.inl) {
            free(r.run);
        }
        fuzz_verdict = FUZZ_REFUSED;
        return 0;
    }
    /* The runs are the message's, all of them, and add up to nbytes. */
    FUZZ_REQUIRE(len >= sizeof(m));
    FUZZ_REQUIRE((uint64_t)r.n == m.nruns);
    FUZZ_REQUIRE(rest == msg + sizeof(m) + (size_t)r.n * sizeof(r.run[0]));
    FUZZ_REQUIRE(restlen == len - sizeof(m) - (size_t)r.n * sizeof(r.run[0]));
    for (i = 0; i < r.n; i++) {
        FUZZ_REQUIRE(r.run[i].len >= 0);
        total += (uint64_t)r.run[i].len;
    }
    FUZZ_REQUIRE((total == m.nbytes) && (r.nbytes == m.nbytes));

    ok = dynamic ? gcm_mpi_win_runs_attached(&ctl, &r, m.disp) :
                   gcm_mpi_win_runs_inside(&r, m.disp, (int64_t)wsize);
    if (ok) {
        /* Every byte an accepted operation touches is in the window. */
        for (i = 0; i < r.n; i++) {
            __int128 a = (__int128)m.disp + r.run[i].off;
            int in = 0;

            if (!dynamic) {
                in = fuzz_within(a, r.run[i].len, 0, wsize);
            }
            for (size_t k = 0; dynamic && (k < FUZZ_NREGIONS); k++) {
                in |= fuzz_within(a, r.run[i].len, fuzz_regions[k].base,
                                  fuzz_regions[k].len) ||
                      fuzz_within(a + ((__int128)1 << 64), r.run[i].len,
                                  fuzz_regions[k].base,
                                  fuzz_regions[k].len);
            }
            FUZZ_REQUIRE(in);
        }
    }
    if (r.run != r.inl) {
        free(r.run);
    }
    fuzz_verdict = ok ? FUZZ_ACCEPTED : FUZZ_REFUSED;
    return 0;
}
