/*
 * compat/mpi_rma_runs.c: the target data of a one-sided operation as
 * runs of bytes, checked against the target's window (its size, or the
 * regions attached to a dynamic window), and applied there: copies, and
 * accumulates under the target's accumulate lock (mpi_win.h says why),
 * element by element in the basic type of the operation, with the
 * reduction loops of mpi_op.c.
 *
 * An operation names its target data as (displacement, count, datatype):
 * the runs of bytes that count elements of the datatype cover
 * (gcm_mpi_type_runs) at displacement times the target's disp_unit from
 * the start of its window (an address for dynamic windows).
 */
#include "config.h"

#include "compat/mpi_win.h"

#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

static int gcm_win_runs_add(void *ctx, MPI_Aint disp, MPI_Aint len)
{
    gcm_win_runs_t *r = ctx;

    if (r->n == r->cap) {
        gcm_win_run_t *more;
        int cap = 2 * r->cap;

        more = malloc((size_t)cap * sizeof(*more));
        if (more == NULL) {
            return MPI_ERR_NO_MEM;
        }
        memcpy(more, r->run, (size_t)r->n * sizeof(*more));
        if (r->run != r->inl) {
            free(r->run);
        }
        r->run = more;
        r->cap = cap;
    }
    r->run[r->n].off = disp;
    r->run[r->n].len = len;
    r->n++;
    r->nbytes += (size_t)len;
    return 0;
}

int gcm_mpi_win_runs_of(MPI_Datatype type, int count, gcm_win_runs_t *r)
{
    const void *start;

    r->run    = r->inl;
    r->n      = 0;
    r->cap    = (int)(sizeof(r->inl) / sizeof(r->inl[0]));
    r->nbytes = 0;
    if (gcm_mpi_type_is_contiguous(type, count, NULL, &start)) {
        /* The common case without a walk: one run from the true lb. */
        r->run[0].off = (int64_t)(intptr_t)start;
        r->run[0].len = (int64_t)gcm_mpi_type_size(type) * count;
        r->n      = (r->run[0].len > 0);
        r->nbytes = (size_t)r->run[0].len;
        return MPI_SUCCESS;
    }
    return gcm_mpi_type_runs(type, count, gcm_win_runs_add, r);
}

void gcm_mpi_win_runs_free(gcm_win_runs_t *r)
{
    if (r->run != r->inl) {
        free(r->run);
    }
}

int gcm_mpi_win_runs_inside(const gcm_win_runs_t *r, int64_t disp,
                            int64_t size)
{
    int i;

    for (i = 0; i < r->n; i++) {
        int64_t a;

        /* disp and the runs may come from another process: a sum past
         * int64_t lies outside whatever it would wrap to. */
        if (__builtin_add_overflow(disp, r->run[i].off, &a) ||
            (r->run[i].len < 0) || (a < 0) || (a > size) ||
            (r->run[i].len > size - a)) {
            return 0;
        }
    }
    return 1;
}

/* Does [addr, addr + len) lie in one region of a dynamic window's control
 * block (this host: read from shared memory)? */
static int gcm_win_attached(gcm_win_ctl_t *ctl, uint64_t addr, uint64_t len)
{
    int i;

    for (i = 0; i < GCM_WIN_MAX_ATTACH; i++) {
        uint64_t l = atomic_load_explicit(&ctl->attach[i].len,
                                          memory_order_acquire);
        uint64_t b = atomic_load_explicit(&ctl->attach[i].base,
                                          memory_order_relaxed);

        if ((l != 0) && (addr >= b) && (addr - b <= l) &&
            (len <= l - (addr - b))) {
            return 1;
        }
    }
    return 0;
}

int gcm_mpi_win_runs_attached(gcm_win_ctl_t *ctl, const gcm_win_runs_t *r,
                              int64_t disp)
{
    int i;

    for (i = 0; i < r->n; i++) {
        int64_t a;

        if (__builtin_add_overflow(disp, r->run[i].off, &a) ||
            (r->run[i].len < 0) ||
            !gcm_win_attached(ctl, (uint64_t)a, (uint64_t)r->run[i].len)) {
            return 0;
        }
    }
    return 1;
}

/* ---- the accumulate lock and applying operations ------------------------ */

static int gcm_win_acc_free(void *arg)
{
    gcm_win_ctl_t *ctl = arg;
    uint32_t zero = 0;

    return atomic_compare_exchange_strong_explicit(&ctl->acc, &zero, 1,
                                                   memory_order_acquire,
                                                   memory_order_relaxed);
}

void gcm_mpi_win_acc_lock(MPI_Win win, gcm_win_ctl_t *ctl)
{
    unsigned i;

    /* Held for a few copies only: spin, then yield (never sleep long, and
     * never progress: a handler may be what takes it). */
    for (i = 0; !gcm_win_acc_free(ctl); i++) {
        if (i > 64) {
            sched_yield();
        }
    }
    (void)win;
}

void gcm_mpi_win_acc_unlock(gcm_win_ctl_t *ctl)
{
    atomic_store_explicit(&ctl->acc, 0, memory_order_release);
}

/*
 * Applies an accumulate at base (memory of this process, or mapped here)
 * over the runs: old data to out (if not NULL), then in op old into it
 * (kind: the elements' basic type). The caller holds the accumulate
 * lock. CAS when cmp is not NULL: one element, replaced by in if it
 * equals cmp.
 */
void gcm_mpi_win_apply(char *base, int64_t disp, const gcm_win_runs_t *r,
                       MPI_Op op, MPI_Datatype kind, size_t esize,
                       const char *in, const char *cmp, char *out)
{
    size_t done = 0;
    int i;

    for (i = 0; i < r->n; i++) {
        /* Through integers: a dynamic window's base is address 0. */
        char *p = (char *)((uintptr_t)base + (uintptr_t)(disp +
                                                         r->run[i].off));
        size_t len = (size_t)r->run[i].len;

        if (out != NULL) {
            memcpy(out + done, p, len);
        }
        if (cmp != NULL) {
            if (memcmp(p, cmp + done, len) == 0) {
                memcpy(p, in + done, len);
            }
        } else if (op == MPI_REPLACE) {
            memcpy(p, in + done, len);
        } else if ((op != MPI_NO_OP) && (len > 0)) {
            gcm_mpi_op_apply(op, in + done, p, (int)(len / esize), kind);
        }
        done += len;
    }
}
