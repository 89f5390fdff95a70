/*
 * compat/mpi_type_flat.c: flattening a type into byte blocks at
 * commit (strided layouts as their first block and a stride, whatever
 * their count; other types of at most GCM_TYPE_FLAT_MAX blocks as a
 * list), walking the others
 * per message, element counting, and the internal interface of mpi_impl.h
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

/* Block i of a committed, flattened type: from the list, or, for a
 * strided type (which keeps only its first block), from the stride. */
static gcm_mpi_block_t type_block(const struct gcm_mpi_datatype *t,
                                  const gcm_mpi_block_t *blocks, size_t i)
{
    gcm_mpi_block_t b = blocks[0];

    if (t->stride == 0) {
        return blocks[i];
    }
    b.disp = (MPI_Aint)((uintptr_t)b.disp + i * (uintptr_t)t->stride);
    return b;
}

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
    if (gcm_mpi_type_is_committed(t) && !t->walk) {
        const gcm_mpi_block_t *blocks = gcm_mpi_type_blocks(t);

        for (i = 0; i < t->nblocks; i++) {
            gcm_mpi_block_t bl = type_block(t, blocks, i);

            rc = builder_add(b, base + bl.disp, bl.len);
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

/* The stride of blocks all of one length, each starting the same number
 * of bytes after the one before; 0 if they are not so (or fewer than 2). */
static MPI_Aint blocks_stride(const gcm_mpi_block_t *v, size_t n)
{
    MPI_Aint stride, d;
    size_t i;

    if ((n < 2) || __builtin_sub_overflow(v[1].disp, v[0].disp, &stride) ||
        (stride == 0)) {
        return 0;
    }
    for (i = 1; i < n; i++) {
        if ((v[i].len != v[0].len) ||
            __builtin_sub_overflow(v[i].disp, v[i - 1].disp, &d) ||
            (d != stride)) {
            return 0;
        }
    }
    return stride;
}

/* The blocks of t straight from its description when they are n copies
 * of one block at a stride: a vector of a dense type, or a duplicate or
 * resized copy of a strided type. Returns 0 (t left alone) otherwise. */
static int type_strided_form(const struct gcm_mpi_datatype *t,
                             gcm_mpi_block_t *first, size_t *n,
                             MPI_Aint *stride)
{
    const struct gcm_mpi_datatype *old = (t->nd > 0) ? t->types[0] : NULL;
    MPI_Aint len, last;
    int count;

    if ((old == NULL) || (t->size == 0)) {
        return 0;
    }
    if ((t->combiner == MPI_COMBINER_DUP) ||
        (t->combiner == MPI_COMBINER_RESIZED)) {
        if (!gcm_mpi_type_is_committed(old) || old->walk ||
            (old->stride == 0)) {
            return 0;
        }
        *first = gcm_mpi_type_blocks(old)[0];
        *n = old->nblocks;
        *stride = old->stride;
        return 1;
    }
    if (((t->combiner != MPI_COMBINER_VECTOR) &&
         (t->combiner != MPI_COMBINER_HVECTOR)) || !old->dense) {
        return 0;
    }
    count = t->ints[0];
    if (t->combiner == MPI_COMBINER_HVECTOR) {
        *stride = t->addrs[0];
    } else if (__builtin_mul_overflow((MPI_Aint)t->ints[2],
                                      gcm_mpi_type_ext(old), stride)) {
        return 0;
    }
    /* Adjacent blocks merge into one (not strided); so would flattening. */
    if ((count < 2) || (*stride == 0) ||
        __builtin_mul_overflow((MPI_Aint)t->ints[1], (MPI_Aint)old->size,
                               &len) ||
        (len <= 0) || (len == *stride) ||
        __builtin_mul_overflow((MPI_Aint)(count - 1), *stride, &last) ||
        __builtin_add_overflow(last, old->true_lb, &last)) {
        return 0;
    }
    first->disp = old->true_lb;
    first->len = len;
    *n = (size_t)count;
    return 1;
}

/* Builds of blocks so far (gcm_mpi_type_builds). */
static atomic_ulong gcm_mpi_type_nbuilds;

unsigned long gcm_mpi_type_builds(void)
{
    return atomic_load_explicit(&gcm_mpi_type_nbuilds, memory_order_relaxed);
}

/* Builds the blocks of t (GCM_MPI_TYPE_COMMITTING, by the caller), or
 * marks it walked when it has more than GCM_TYPE_FLAT_MAX: the work and
 * the memory of a commit stay bounded whatever the type describes. */
int gcm_mpi_type_build_blocks(struct gcm_mpi_datatype *t)
{
    type_builder_t b;
    type_flatten_t f;
    gcm_mpi_block_t first;
    size_t n;
    MPI_Aint stride;
    int rc;

    /* No locked instruction for a test's count (a commit is a few
     * hundred cycles): builds of different types at once may count as
     * one, which the test that reads it never runs. */
    atomic_store_explicit(&gcm_mpi_type_nbuilds,
                          atomic_load_explicit(&gcm_mpi_type_nbuilds,
                                               memory_order_relaxed) + 1,
                          memory_order_relaxed);
    /* n blocks at a stride cost one block's room and no walk, whatever n. */
    if (type_strided_form(t, &first, &n, &stride)) {
        free(t->blocks);
        t->blocks = NULL;
        t->inl[0] = first;
        t->nblocks = n;
        t->stride = stride;
        t->walk = 0;
        return MPI_SUCCESS;
    }
    if (t->nblocks_max > GCM_TYPE_FLAT_MAX) {
        free(t->blocks);
        t->blocks = NULL;
        t->nblocks = 0;
        t->stride = 0;
        t->walk = 1;
        return MPI_SUCCESS;
    }
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
    t->stride = blocks_stride(b.v, b.n);
    /* Small and strided layouts live in the object, saving a pointer
     * chase (a strided one keeps its first block). */
    if ((b.n <= 2) || (t->stride != 0)) {
        if (b.n > 0) {
            memcpy(t->inl, b.v, ((b.n <= 2) ? b.n : 1) * sizeof(*b.v));
        }
        free(b.v);
    } else {
        t->blocks = b.v;
    }
    return MPI_SUCCESS;
}

/* ---- walking (types not flattened) -------------------------------------- */

/* Moving the data of a walked type: the packed side, and how many bytes
 * are still to move (an unpack of a truncated message stops early). */
typedef struct {
    char   *data;
    size_t  left;
    int     unpack;
} type_walk_t;

typedef struct {
    type_walk_t *w;
    const char  *base;
} type_walk_at_t;

static int walk_copy(type_walk_t *w, const char *at, size_t len)
{
    if (len > w->left) {
        len = w->left;
    }
    if (w->unpack) {
        memcpy((char *)at, w->data, len);
    } else {
        memcpy(w->data, at, len);
    }
    w->data += len;
    w->left -= len;
    return (w->left == 0) ? GCM_TYPE_WALK_STOP : MPI_SUCCESS;
}

static int walk_entry(void *vctx, struct gcm_mpi_datatype *c, MPI_Aint disp,
                      MPI_Count n);

/* Moves one element of t at base. */
static int walk_elem(type_walk_t *w, const struct gcm_mpi_datatype *t,
                     const char *base)
{
    type_walk_at_t at;
    size_t i;
    int rc;

    if (t->size == 0) {
        return MPI_SUCCESS;
    }
    if (t->predefined ? (t->nblocks == 1) : t->contig) {
        return walk_copy(w, gcm_mpi_type_addr(base, t->true_lb),
                         (size_t)t->size);
    }
    if (gcm_mpi_type_is_committed(t) && !t->walk) {
        const gcm_mpi_block_t *blocks = gcm_mpi_type_blocks(t);

        for (i = 0; i < t->nblocks; i++) {
            gcm_mpi_block_t bl = type_block(t, blocks, i);

            rc = walk_copy(w, gcm_mpi_type_addr(base, bl.disp),
                           (size_t)bl.len);
            if (rc != MPI_SUCCESS) {
                return rc;
            }
        }
        return MPI_SUCCESS;
    }
    at.w = w;
    at.base = base;
    return gcm_mpi_type_foreach_entry(t, walk_entry, &at);
}

static int walk_entry(void *vctx, struct gcm_mpi_datatype *c, MPI_Aint disp,
                      MPI_Count n)
{
    type_walk_at_t *at = vctx;
    const char *start = gcm_mpi_type_addr(at->base, disp);
    MPI_Aint ext = gcm_mpi_type_ext(c);
    MPI_Count j;
    int rc;

    if (n == 0 || c->size == 0) {
        return MPI_SUCCESS;
    }
    /* n dense copies are adjacent: one copy of their bytes. */
    if (c->dense) {
        return walk_copy(at->w, gcm_mpi_type_addr(start, c->true_lb),
                         (size_t)(n * c->size));
    }
    for (j = 0; j < n; j++) {
        rc = walk_elem(at->w, c, gcm_mpi_type_addr(start, (MPI_Aint)j * ext));
        if (rc != MPI_SUCCESS) {
            return rc;
        }
    }
    return MPI_SUCCESS;
}

/* Packs (or unpacks the first nbytes of) count elements of a walked
 * type. */
static void type_walk(const struct gcm_mpi_datatype *t, int count,
                      const void *buf, char *packed, size_t nbytes,
                      int unpack)
{
    MPI_Aint ext = gcm_mpi_type_ext(t);
    type_walk_t w = { packed, nbytes, unpack };
    int k;

    for (k = 0; k < count && w.left > 0; k++) {
        if (walk_elem(&w, t, gcm_mpi_type_addr(buf, (MPI_Aint)k * ext)) !=
            MPI_SUCCESS) {
            break;
        }
    }
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
    /* Entries all alike (n copies of one type each): the whole ones are
     * counted at once, not one by one. */
    switch (t->combiner) {
    case MPI_COMBINER_VECTOR:
    case MPI_COMBINER_HVECTOR:
    case MPI_COMBINER_INDEXED_BLOCK:
    case MPI_COMBINER_HINDEXED_BLOCK:
    case MPI_COMBINER_SUBARRAY: {
        const struct gcm_mpi_datatype *old = t->types[0];
        MPI_Count per = (t->combiner == MPI_COMBINER_SUBARRAY) ?
                        t->ints[2 * t->ints[0]] : t->ints[1];
        MPI_Count run = per * old->size;

        if (t->combiner == MPI_COMBINER_SUBARRAY &&
            t->ints[1 + 3 * t->ints[0]] == MPI_ORDER_FORTRAN) {
            per = t->ints[1 + t->ints[0]];   /* innermost is the first */
            run = per * old->size;
        }
        n += (p.rem / run) * per * old->nelem;
        return n + gcm_mpi_type_elements(old, p.rem % run);
    }
    default:
        break;
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

int gcm_mpi_type_bytes(MPI_Comm comm, const char *call, MPI_Datatype datatype,
                       MPI_Count count, size_t *len_p)
{
    MPI_Count size = gcm_mpi_type_size(datatype), len;

    if (gcm_unlikely(__builtin_mul_overflow(size, count, &len) ||
                     ((uint64_t)len > (uint64_t)PTRDIFF_MAX))) {
        return gcm_mpi_raise(comm, MPI_ERR_COUNT, call,
                             "%lld elements of %lld bytes are more bytes "
                             "than any buffer holds", (long long)count,
                             (long long)size);
    }
    *len_p = (size_t)len;
    return MPI_SUCCESS;
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

/* n blocks of len bytes, the i-th at at + i * stride, copied one after
 * the other into packed (pack) or from it (unpack). The lengths of basic
 * types have loops of their own, where each copy is one load and one
 * store instead of a call. Addresses are integers: the buffer may be
 * MPI_BOTTOM and the stride negative. */
#define GCM_STRIDED_LOOP(LEN, DST, SRC)                                     \
    for (i = 0; i < n; i++) {                                               \
        memcpy((DST), (SRC), (LEN));                                        \
    }

#define GCM_STRIDED_SWITCH(DST, SRC)                                        \
    switch (len) {                                                          \
    case 1:  GCM_STRIDED_LOOP(1, DST, SRC) break;                           \
    case 2:  GCM_STRIDED_LOOP(2, DST, SRC) break;                           \
    case 4:  GCM_STRIDED_LOOP(4, DST, SRC) break;                           \
    case 8:  GCM_STRIDED_LOOP(8, DST, SRC) break;                           \
    case 16: GCM_STRIDED_LOOP(16, DST, SRC) break;                          \
    default: GCM_STRIDED_LOOP(len, DST, SRC) break;                         \
    }

static void strided_pack(char *packed, uintptr_t at, MPI_Aint stride,
                         size_t len, size_t n)
{
    size_t i;

    GCM_STRIDED_SWITCH(packed + i * len,
                       (const char *)(at + i * (uintptr_t)stride))
}

static void strided_unpack(const char *packed, uintptr_t at,
                           MPI_Aint stride, size_t len, size_t n)
{
    size_t i;

    GCM_STRIDED_SWITCH((char *)(at + i * (uintptr_t)stride),
                       packed + i * len)
}

#undef GCM_STRIDED_SWITCH
#undef GCM_STRIDED_LOOP

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
    if (datatype->walk) {
        type_walk(datatype, count, buf, o,
                  (size_t)count * (size_t)datatype->size, 0);
        return;
    }
    if (datatype->nblocks == 1 && (count == 1 || blocks[0].len == ext)) {
        memcpy(o, gcm_mpi_type_addr(buf, blocks[0].disp),
               (size_t)count * (size_t)blocks[0].len);
        return;
    }
    if (datatype->stride != 0) {
        size_t len = (size_t)blocks[0].len;

        for (k = 0; k < count; k++) {
            strided_pack(o, (uintptr_t)buf + (uintptr_t)((MPI_Aint)k * ext +
                                                         blocks[0].disp),
                         datatype->stride, len, datatype->nblocks);
            o += datatype->nblocks * len;
        }
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
    if (datatype->walk) {
        type_walk(datatype, count, buf, (char *)src, nbytes, 1);
        return;
    }
    if (datatype->nblocks == 1 && (count == 1 || blocks[0].len == ext)) {
        memcpy(gcm_mpi_type_addr(buf, blocks[0].disp), src, nbytes);
        return;
    }
    if (datatype->stride != 0) {
        size_t whole;

        len = (size_t)blocks[0].len;
        for (k = 0; k < count && nbytes > 0; k++) {
            uintptr_t at = (uintptr_t)buf +
                           (uintptr_t)((MPI_Aint)k * ext + blocks[0].disp);

            whole = nbytes / len;
            if (whole > datatype->nblocks) {
                whole = datatype->nblocks;
            }
            strided_unpack(src, at, datatype->stride, len, whole);
            src += whole * len;
            nbytes -= whole * len;
            if ((whole < datatype->nblocks) && (nbytes > 0)) {
                /* A truncated message ends inside this block. */
                memcpy((char *)(at + whole * (uintptr_t)datatype->stride),
                       src, nbytes);
                nbytes = 0;
            }
        }
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
            gcm_mpi_block_t bl = type_block(datatype, blocks, i);

            d = (MPI_Aint)k * ext + bl.disp;
            if ((curlen > 0) && (cur + curlen == d)) {
                curlen += bl.len;
                continue;
            }
            if ((curlen > 0) && ((rc = fn(ctx, cur, curlen)) != 0)) {
                return rc;
            }
            cur    = d;
            curlen = bl.len;
        }
    }
    return (curlen > 0) ? fn(ctx, cur, curlen) : 0;
}
