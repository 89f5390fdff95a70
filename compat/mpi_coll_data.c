/*
 * compat/mpi_coll_data.c: MPI data for coll/: MPI datatypes and
 * operators handed to coll/ through a table of functions, the groups of
 * a call, and the node structure cached on each communicator.
 */
#include "config.h"

#include "compat/mpi_coll_impl.h"

#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ---- MPI data for coll/ ------------------------------------------------- */


static size_t coll_mpi_size(gcm_coll_type_h type)
{
    return (size_t)gcm_mpi_type_size((MPI_Datatype)type);
}

static void coll_mpi_extent(gcm_coll_type_h type, ptrdiff_t *lb_p,
                            ptrdiff_t *extent_p)
{
    MPI_Aint lb, ext;

    gcm_mpi_type_extent((MPI_Datatype)type, &lb, &ext);
    *lb_p = (ptrdiff_t)lb;
    *extent_p = (ptrdiff_t)ext;
}

static void coll_mpi_true_extent(gcm_coll_type_h type, ptrdiff_t *lb_p,
                                 ptrdiff_t *extent_p)
{
    MPI_Aint lb = 0, ext = 0;

    PMPI_Type_get_true_extent((MPI_Datatype)type, &lb, &ext);
    *lb_p = (ptrdiff_t)lb;
    *extent_p = (ptrdiff_t)ext;
}

static int coll_mpi_contig(gcm_coll_type_h type, int count, const void *buf,
                           const void **start_p)
{
    return gcm_mpi_type_is_contiguous((MPI_Datatype)type, count, buf,
                                      start_p);
}

static void coll_mpi_pack(gcm_coll_type_h type, int count, const void *buf,
                          void *out)
{
    gcm_mpi_type_pack((MPI_Datatype)type, count, buf, out);
}

static void coll_mpi_unpack(gcm_coll_type_h type, int count, const void *in,
                            size_t nbytes, void *buf)
{
    gcm_mpi_type_unpack((MPI_Datatype)type, count, in, nbytes, buf);
}

static void coll_mpi_combine(gcm_coll_op_h op, const void *in, void *inout,
                             int count, gcm_coll_type_h type)
{
    gcm_mpi_op_apply((MPI_Op)op, in, inout, count, (MPI_Datatype)type);
}

static int coll_mpi_commutative(gcm_coll_op_h op)
{
    return gcm_mpi_op_is_commutative((MPI_Op)op);
}

/* The predefined operators are the library's own loops. */
static int coll_mpi_foldable(gcm_coll_op_h op)
{
    return gcm_mpi_op_id((MPI_Op)op) >= 0;
}

static const gcm_coll_type_ops_t coll_mpi_ops = {
    .size        = coll_mpi_size,
    .extent      = coll_mpi_extent,
    .true_extent = coll_mpi_true_extent,
    .contig      = coll_mpi_contig,
    .pack        = coll_mpi_pack,
    .unpack      = coll_mpi_unpack,
    .combine     = coll_mpi_combine,
    .commutative = coll_mpi_commutative,
    .foldable    = coll_mpi_foldable,
};

void gcm_mpi_coll_sched_init(coll_sched_t *s)
{
    gcm_coll_sched_init(s, &coll_mpi_ops);
}

/* The group of an intracommunicator (or LCO communicator) for this
 * call: takes the call's tag. */
coll_grp_t gcm_mpi_coll_grp(MPI_Comm comm)
{
    coll_grp_t g;

    g.lco = comm->lco;
    g.tag = gcm_mpi_coll_call_tag(comm);
    g.rank = comm->prank;
    g.size = comm->psize;
    g.slot = NULL;
    return g;
}

int gcm_mpi_coll_is_inter(MPI_Comm comm)
{
    return comm->kind == GCM_MPI_COMM_INTER;
}

/* An intercommunicator's groups: the remote one (transfers across, by
 * remote rank; rank is the local rank) and the local one. */
void gcm_mpi_coll_grp_inter(MPI_Comm comm, coll_grp_t *rg, coll_grp_t *lg)
{
    rg->lco = comm->lco;
    rg->tag = gcm_mpi_coll_call_tag(comm);
    rg->rank = comm->rank;
    rg->size = comm->remote_size;
    rg->slot = NULL;
    *lg = gcm_mpi_coll_grp(comm->local_comm);
}

/* MPI_ROOT and MPI_PROC_NULL as coll/ names them. */
int gcm_mpi_coll_root(int root)
{
    if (root == MPI_ROOT) {
        return GCM_COLL_ROOT;
    }
    return (root == MPI_PROC_NULL) ? GCM_COLL_PROC_NULL : root;
}

/* comm's cache, made on first use (NULL: out of memory). */
struct gcm_mpi_coll_cache *gcm_mpi_coll_cache_of(MPI_Comm comm)
{
    if (comm->coll_cache == NULL) {
        comm->coll_cache = calloc(1, sizeof(*comm->coll_cache));
    }
    return comm->coll_cache;
}

/*
 * The node structure of an intracommunicator, made on first use: the node
 * of a rank is its host (an LCO communicator whose slots reach some
 * process more than once: its process, the level below the host). NULL
 * when there is none to use: a single rank, the hierarchy not built yet
 * (the allgather of MPI_Init itself), GENCOMM_COLL_HIER=0, or no memory
 * (the flat algorithms are always right).
 *
 * MPI orders the collectives on a communicator, so no two threads build
 * it at once.
 */
const gcm_coll_hier_t *gcm_mpi_coll_hier_of(MPI_Comm comm)
{
    struct gcm_mpi_coll_cache *c = comm->coll_cache;
    uint64_t *node;
    int *procs, n = comm->psize, r, by_proc = 0;

    if (c != NULL && c->hier != NULL) {
        return c->hier;
    }
    if (n < 2 || comm->kind == GCM_MPI_COMM_INTER ||
        !gcm_coll_hier_enabled() ||
        gcm_mpi_hier_host(0, NULL) != 0 ||
        (c = gcm_mpi_coll_cache_of(comm)) == NULL) {
        return NULL;
    }
    node = malloc((size_t)n * sizeof(*node));
    procs = malloc((size_t)n * sizeof(*procs));
    if (node == NULL || procs == NULL) {
        free(node);
        free(procs);
        return NULL;
    }
    for (r = 0; r < n; r++) {
        procs[r] = (comm->kind == GCM_MPI_COMM_LCO) ?
                   gcm_lco_send_slot_proc(comm->lco, r) :
                   gcm_mpi_comm_proc(comm, r);
        /* Members of several jobs know the hosts of their own job's
         * processes only: they could not agree on the nodes. */
        if (gcm_lco_proc_other(procs[r])) {
            free(node);
            free(procs);
            return NULL;
        }
    }
    if (comm->kind == GCM_MPI_COMM_LCO) {
        /* Several LCOs of one process: the process is the node. */
        for (r = 0; r < n && !by_proc; r++) {
            int q;

            for (q = 0; q < r && !by_proc; q++) {
                by_proc = (procs[q] == procs[r]);
            }
        }
    }
    for (r = 0; r < n; r++) {
        if (by_proc || gcm_mpi_hier_host(procs[r], &node[r]) != 0) {
            node[r] = (uint64_t)procs[r];
        }
    }
    c->hier = gcm_coll_hier_create(comm->lco, comm->prank, n, node,
                                   (comm->kind == GCM_MPI_COMM_LCO) ?
                                   NULL : procs);
    free(node);
    free(procs);
    return c->hier;
}

/* MPI_IN_PLACE all-to-all: the data to send is the receive buffer as it
 * was, so it is packed into a temporary first (one raw block per peer);
 * the send blocks then describe that copy. */
void gcm_mpi_coll_alltoall_inplace_copy(coll_sched_t *s, int size,
                                        const coll_blocks_t *rb,
                                        coll_blocks_t *sb)
{
    size_t total = 0, off = 0;
    char *tmp;
    int i;

    for (i = 0; i < size; i++) {
        total += gcm_coll_bytes(s, rb->type[i], rb->count[i], 0);
    }
    tmp = gcm_coll_alloc(s, total);
    if (tmp == NULL) {
        return;
    }
    for (i = 0; i < size; i++) {
        size_t n = gcm_coll_bytes(s, rb->type[i], rb->count[i], 0);

        gcm_coll_copy(s, rb->ptr[i], rb->count[i], rb->type[i], 0,
                      tmp + off, (int)n, CT(MPI_BYTE), 0);
        sb->ptr[i] = tmp + off;
        sb->count[i] = (int)n;
        sb->type[i] = CT(MPI_BYTE);
        off += n;
    }
}

/* Layout helpers for the checks. */
void *gcm_mpi_coll_blk(const coll_layout_t *l, int i)
{
    MPI_Aint lb, ext;
    MPI_Aint d = (l->displs != NULL) ? l->displs[i] :
                                       (MPI_Aint)i * l->count;

    gcm_mpi_type_extent((MPI_Datatype)l->type, &lb, &ext);
    return gcm_coll_off(l->buf, d * ext);
}

int gcm_mpi_coll_cnt(const coll_layout_t *l, int i)
{
    return gcm_coll_cnt(l, i);
}

coll_vec_t *gcm_mpi_coll_vec_copy(const coll_vec_t *v)
{
    size_t total = 0;
    unsigned char *p;
    coll_vec_t *c;
    int i;

    for (i = 0; i < v->n; i++) {
        total += v->len[i];
    }
    c = malloc(sizeof(*c) + total);
    if (c == NULL) {
        return NULL;
    }
    p = (unsigned char *)(c + 1);
    c->n = v->n;
    for (i = 0; i < v->n; i++) {
        if (v->len[i] != 0) {
            memcpy(p, v->a[i], v->len[i]);
        }
        c->a[i] = p;
        c->len[i] = v->len[i];
        p += v->len[i];
    }
    return c;
}

int gcm_mpi_coll_vec_same(const coll_vec_t *a, const coll_vec_t *b)
{
    int i;

    if (a == NULL || b == NULL || a->n != b->n) {
        return a == b;
    }
    for (i = 0; i < a->n; i++) {
        if (a->len[i] != b->len[i]) {
            return 0;
        }
        if (a->len[i] != 0 &&
            (a->a[i] == NULL || b->a[i] == NULL ||
             memcmp(a->a[i], b->a[i], a->len[i]) != 0)) {
            return 0;
        }
    }
    return 1;
}

int gcm_mpi_coll_vec_predefined(const coll_vec_t *v)
{
    int i;
    size_t j;

    for (i = 2; i < v->n; i += 3) {
        const MPI_Datatype *t = v->a[i];

        for (j = 0; j < v->len[i] / sizeof(MPI_Datatype); j++) {
            if (!gcm_mpi_type_is_predefined(t[j])) {
                return 0;
            }
        }
    }
    return 1;
}
