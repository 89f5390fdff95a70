/*
 * compat/mpi_type_flat.c: flattening a type into byte blocks at
 * commit, element counting, and the internal interface of mpi_impl.h
 * (checks, sizes, pack and unpack for the other families).
 */
#include "config.h"

#include "compat/mpi_type_impl.h"

#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

/* ---- flattening (commit) ------------------------------------------------ */

typedef struct {
    gcm_mpi_block_t *v;
    size_t           n;
    size_t           cap;
} type_builder_t;

typedef struct {
    type_builder_t *b;
    MPI_Aint        base;
} type_flatten_t;

static int builder_add(type_builder_t *b, MPI_Aint disp, MPI_Aint len)
{
    if (len == 0) {
        return MPI_SUCCESS;
    }
    if (b->n > 0 && b->v[b->n - 1].disp + b->v[b->n - 1].len == disp) {
        b->v[b->n - 1].len += len;
        return MPI_SUCCESS;
    }
    if (b->n == b->cap) {
        size_t cap = (b->cap == 0) ? 8 : 2 * b->cap;
        gcm_mpi_block_t *v = realloc(b->v, cap * sizeof(*v));

        if (v == NULL) {
            return MPI_ERR_NO_MEM;
        }
        b->v = v;
        b->cap = cap;
    }
    b->v[b->n].disp = disp;
    b->v[b->n].len = len;
    b->n++;
    return MPI_SUCCESS;
}

static int type_flatten_entry(void *vctx, struct gcm_mpi_datatype *c,
                              MPI_Aint disp, MPI_Count n);

/* Appends the blocks of one element of t placed at base. */
static int type_flatten(type_builder_t *b, const struct gcm_mpi_datatype *t,
                        MPI_Aint base)
{
    type_flatten_t sub;
    size_t i;
    int rc;

    if (t->size == 0) {
        return MPI_SUCCESS;
    }
    if (t->dense) {
        return builder_add(b, base + t->true_lb, (MPI_Aint)t->size);
    }
    if (gcm_mpi_type_is_committed(t)) {
        const gcm_mpi_block_t *blocks = gcm_mpi_type_blocks(t);

        for (i = 0; i < t->nblocks; i++) {
            rc = builder_add(b, base + blocks[i].disp, blocks[i].len);
            if (rc != MPI_SUCCESS) {
                return rc;
            }
        }
        return MPI_SUCCESS;
    }
    sub.b = b;
    sub.base = base;
    return gcm_mpi_type_foreach_entry(t, type_flatten_entry, &sub);
}

static int type_flatten_entry(void *vctx, struct gcm_mpi_datatype *c,
                              MPI_Aint disp, MPI_Count n)
{
    type_flatten_t *f = vctx;
    MPI_Aint ext = gcm_mpi_type_ext(c);
    MPI_Count j;
    int rc;

    if (n == 0 || c->size == 0) {
        return MPI_SUCCESS;
    }
    /* n dense copies are adjacent (extent == size): one block. */
    if (c->dense) {
        return builder_add(f->b, f->base + disp + c->true_lb,
                           (MPI_Aint)(n * c->size));
    }
    for (j = 0; j < n; j++) {
        rc = type_flatten(f->b, c, f->base + disp + (MPI_Aint)j * ext);
        if (rc != MPI_SUCCESS) {
            return rc;
        }
    }
    return MPI_SUCCESS;
}

/* Builds the blocks of t (not yet committed; caller holds the lock). */
int gcm_mpi_type_build_blocks(struct gcm_mpi_datatype *t)
{
    type_builder_t b;
    type_flatten_t f;
    int rc;

    memset(&b, 0, sizeof(b));
    f.b = &b;
    f.base = 0;
    rc = gcm_mpi_type_foreach_entry(t, type_flatten_entry, &f);
    if (rc != MPI_SUCCESS) {
        free(b.v);
        return rc;
    }
    free(t->blocks);
    t->blocks = NULL;
    t->nblocks = b.n;
    /* Small layouts live in the object, saving a pointer chase. */
    if (b.n <= 2) {
        if (b.n > 0) {
            memcpy(t->inl, b.v, b.n * sizeof(*b.v));
        }
        free(b.v);
    } else {
        t->blocks = b.v;
    }
    return MPI_SUCCESS;
}

/* ---- element counting --------------------------------------------------- */

MPI_Count gcm_mpi_type_elements(const struct gcm_mpi_datatype *t,
                                MPI_Count bytes);

typedef struct {
    MPI_Count rem;
    MPI_Count count;
} type_partial_t;

static int type_partial_entry(void *vctx, struct gcm_mpi_datatype *c,
                              MPI_Aint disp, MPI_Count n)
{
    type_partial_t *p = vctx;
    MPI_Count run;

    (void)disp;
    if (n == 0 || c->size == 0) {
        return MPI_SUCCESS;
    }
    run = c->size * n;
    if (p->rem >= run) {
        p->count += c->nelem * n;
        p->rem -= run;
        return (p->rem == 0) ? GCM_TYPE_WALK_STOP : MPI_SUCCESS;
    }
    p->count += gcm_mpi_type_elements(c, p->rem);
    p->rem = 0;
    return GCM_TYPE_WALK_STOP;
}

/* Basic elements in the first bytes of a packed stream of t elements,
 * counting only elements that are complete. */
MPI_Count gcm_mpi_type_elements(const struct gcm_mpi_datatype *t,
                                MPI_Count bytes)
{
    type_partial_t p;
    MPI_Count n;

    if (t->size == 0) {
        return 0;
    }
    n = (bytes / t->size) * t->nelem;
    p.rem = bytes % t->size;
    if (p.rem == 0) {
        return n;
    }
    if (t->predefined) {
        /* Only a pair has a part smaller than itself: its value. */
        if (t->pair_vsize > 0 && p.rem >= t->pair_vsize) {
            n++;
        }
        return n;
    }
    p.count = 0;
    (void)gcm_mpi_type_foreach_entry(t, type_partial_entry, &p);
    return n + p.count;
}

/* ---- internal interface (mpi_impl.h) ------------------------------------ */

int gcm_mpi_type_check(MPI_Datatype datatype)
{
    if ((gcm_mpi_type_invalid(datatype) != NULL) ||
        !gcm_mpi_type_is_committed(datatype)) {
        return MPI_ERR_TYPE;
    }
    return MPI_SUCCESS;
}

MPI_Count gcm_mpi_type_size(MPI_Datatype datatype)
{
    return datatype->size;
}

int gcm_mpi_type_is_predefined(MPI_Datatype datatype)
{
    return datatype->predefined;
}

void gcm_mpi_type_extent(MPI_Datatype datatype, MPI_Aint *lb,
                         MPI_Aint *extent)
{
    if (lb != NULL) {
        *lb = datatype->lb;
    }
    if (extent != NULL) {
        *extent = gcm_mpi_type_ext(datatype);
    }
}

int gcm_mpi_type_is_contiguous(MPI_Datatype datatype, int count,
                               const void *buf, const void **start_p)
{
    const gcm_mpi_block_t *blocks = gcm_mpi_type_blocks(datatype);

    if (count == 0 || datatype->size == 0) {
        if (start_p != NULL) {
            *start_p = gcm_mpi_type_addr(buf, datatype->true_lb);
        }
        return 1;
    }
    if (datatype->nblocks != 1 ||
        (count > 1 && blocks[0].len != gcm_mpi_type_ext(datatype))) {
        return 0;
    }
    if (start_p != NULL) {
        *start_p = gcm_mpi_type_addr(buf, blocks[0].disp);
    }
    return 1;
}

gcm_mpi_basic_t gcm_mpi_type_basic(MPI_Datatype datatype,
                                   MPI_Count *per_element)
{
    if (per_element != NULL) {
        *per_element = datatype->basic_count;
    }
    return datatype->basic;
}

uint64_t gcm_mpi_type_sig(MPI_Datatype datatype, MPI_Count count,
                          MPI_Count *nelem_p)
{
    if (nelem_p != NULL) {
        *nelem_p = datatype->nelem * count;
    }
    return gcm_mpi_type_sig_repeat(gcm_mpi_type_sig_of(datatype),
                                   datatype->nelem, count);
}

void gcm_mpi_type_pack(MPI_Datatype datatype, int count, const void *buf,
                       void *out)
{
    const gcm_mpi_block_t *blocks = gcm_mpi_type_blocks(datatype);
    MPI_Aint ext = gcm_mpi_type_ext(datatype);
    char *o = out;
    size_t i;
    int k;

    if (count <= 0 || datatype->size == 0) {
        return;
    }
    if (datatype->nblocks == 1 && (count == 1 || blocks[0].len == ext)) {
        memcpy(o, gcm_mpi_type_addr(buf, blocks[0].disp),
               (size_t)count * (size_t)blocks[0].len);
        return;
    }
    for (k = 0; k < count; k++) {
        MPI_Aint base = (MPI_Aint)k * ext;

        for (i = 0; i < datatype->nblocks; i++) {
            memcpy(o, gcm_mpi_type_addr(buf, base + blocks[i].disp),
                   (size_t)blocks[i].len);
            o += blocks[i].len;
        }
    }
}

void gcm_mpi_type_unpack(MPI_Datatype datatype, int count, const void *in,
                         size_t nbytes, void *buf)
{
    const gcm_mpi_block_t *blocks = gcm_mpi_type_blocks(datatype);
    MPI_Aint ext = gcm_mpi_type_ext(datatype);
    const char *src = in;
    size_t total, len, i;
    int k;

    if (count <= 0 || datatype->size == 0) {
        return;
    }
    total = (size_t)count * (size_t)datatype->size;
    if (nbytes > total) {
        nbytes = total;
    }
    if (nbytes == 0) {
        return;
    }
    if (datatype->nblocks == 1 && (count == 1 || blocks[0].len == ext)) {
        memcpy(gcm_mpi_type_addr(buf, blocks[0].disp), src, nbytes);
        return;
    }
    for (k = 0; k < count && nbytes > 0; k++) {
        MPI_Aint base = (MPI_Aint)k * ext;

        for (i = 0; i < datatype->nblocks && nbytes > 0; i++) {
            len = (size_t)blocks[i].len;
            if (len > nbytes) {
                len = nbytes;
            }
            memcpy(gcm_mpi_type_addr(buf, base + blocks[i].disp), src, len);
            src += len;
            nbytes -= len;
        }
    }
}

int gcm_mpi_type_runs(MPI_Datatype datatype, int count,
                      int (*fn)(void *ctx, MPI_Aint disp, MPI_Aint len),
                      void *ctx)
{
    const gcm_mpi_block_t *blocks = gcm_mpi_type_blocks(datatype);
    MPI_Aint ext = gcm_mpi_type_ext(datatype), cur = 0, curlen = 0, d;
    size_t i;
    int k, rc;

    if (count <= 0 || datatype->size == 0) {
        return 0;
    }
    for (k = 0; k < count; k++) {
        for (i = 0; i < datatype->nblocks; i++) {
            d = (MPI_Aint)k * ext + blocks[i].disp;
            if ((curlen > 0) && (cur + curlen == d)) {
                curlen += blocks[i].len;
                continue;
            }
            if ((curlen > 0) && ((rc = fn(ctx, cur, curlen)) != 0)) {
                return rc;
            }
            cur    = d;
            curlen = blocks[i].len;
        }
    }
    return (curlen > 0) ? fn(ctx, cur, curlen) : 0;
}
