/*
 * compat/mpi_topo_nbr.c: neighbour collectives: raw nonblocking
 * transfers on internal tags, every receive posted before any send, so
 * that a process that is its own neighbour (a periodic dimension of size
 * 1, a self-loop) cannot deadlock.
 */
#include "config.h"

#include "compat/mpi_topo_impl.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ---- neighbour collectives ------------------------------------------------ */

/* This process's neighbours in the order neighbour collectives use: it
 * receives block k from in[k] and sends block k to out[k]. */
typedef struct nbr_lists {
    int        indeg;
    int        outdeg;
    const int *in;
    const int *out;
    int        cart;   /* tags by direction: see neighbor_exchange */
} nbr_lists_t;

static int get_neighbors(MPI_Comm comm, const char *call, nbr_lists_t *l)
{
    struct gcm_mpi_topo *t = NULL;
    int rc = gcm_mpi_topo_get(comm, 0, call, &t);
    int first;

    if (rc != MPI_SUCCESS) {
        return rc;
    }
    memset(l, 0, sizeof(*l));
    switch (t->kind) {
    case MPI_CART:
        l->indeg = l->outdeg = 2 * t->ndims;
        l->in = l->out = t->cart_nbrs;
        l->cart = 1;
        break;
    case MPI_GRAPH:
        gcm_mpi_topo_graph_adjacency(t, comm->rank, &first, &l->indeg);
        l->outdeg = l->indeg;
        l->in = l->out = t->edges + first;
        break;
    default:
        l->indeg  = t->indegree;
        l->outdeg = t->outdegree;
        l->in     = t->sources;
        l->out    = t->destinations;
        break;
    }
    return MPI_SUCCESS;
}

/* Byte offsets and counts of the blocks of one side of a neighbour
 * collective: block k is counts[k] elements at buf + displs[k] extents
 * (allgather and alltoall pass their fixed strides through these too). */
typedef struct nbr_side {
    const void   *buf;
    MPI_Datatype  type;
    int           n;
    const int    *counts;   /* NULL: every block has count */
    int           count;
    const int    *displs;   /* NULL: block k at k * stride elements */
    int           stride;
} nbr_side_t;

static int side_count(const nbr_side_t *s, int k)
{
    return (s->counts != NULL) ? s->counts[k] : s->count;
}

static char *side_block(const nbr_side_t *s, int k)
{
    MPI_Aint lb, extent;
    long long at = (s->displs != NULL) ? s->displs[k]
                                       : (long long)k * s->stride;

    gcm_mpi_type_extent(s->type, &lb, &extent);
    return (char *)s->buf + at * extent;
}

/* Checks a side's type and counts (send or receive); after it, every
 * block's length fits (xfer_prepare makes them without checks). */
static int check_side(MPI_Comm comm, const nbr_side_t *s, const char *what,
                      const char *call)
{
    size_t len;
    int k, rc;

    if (gcm_mpi_type_check(s->type) != 0) {
        return gcm_mpi_raise(comm, MPI_ERR_TYPE, call,
                             "%stype is not a valid committed datatype",
                             what);
    }
    if (s->counts == NULL) {
        if (s->count < 0) {
            return gcm_mpi_raise(comm, MPI_ERR_COUNT, call,
                                 "%scount is negative (%d)", what, s->count);
        }
        return gcm_mpi_type_bytes(comm, call, s->type, s->count, &len);
    }
    if (s->n > 0 && s->displs == NULL) {
        return gcm_mpi_raise(comm, MPI_ERR_ARG, call,
                             "%s displacements are NULL", what);
    }
    for (k = 0; k < s->n; k++) {
        if (s->counts[k] < 0) {
            return gcm_mpi_raise(comm, MPI_ERR_COUNT, call,
                                 "%scounts[%d] is negative (%d)", what, k,
                                 s->counts[k]);
        }
        rc = gcm_mpi_type_bytes(comm, call, s->type, s->counts[k], &len);
        if (rc != MPI_SUCCESS) {
            return rc;
        }
    }
    return MPI_SUCCESS;
}

/* What one block transfer needs: the bytes, and the packed copy when the
 * layout is not contiguous. */
typedef struct nbr_xfer {
    void   *bytes;
    size_t  len;
    void   *tmp;     /* owned; NULL when bytes points into the user's */
    char   *user;    /* receive: where to unpack tmp */
    int     count;
} nbr_xfer_t;

/* Points x at count elements of type at buf: directly when contiguous,
 * else at a buffer (packed now if pack). 0, or -1 if memory ran out. */
static int xfer_prepare(nbr_xfer_t *x, MPI_Datatype type, int count,
                        char *buf, int pack)
{
    static char empty;
    const void *start;

    x->len   = (size_t)count * (size_t)gcm_mpi_type_size(type);
    x->user  = buf;
    x->count = count;
    x->tmp   = NULL;
    if (x->len == 0) {
        x->bytes = &empty;   /* a real address for a zero-byte message */
        return 0;
    }
    if (gcm_mpi_type_is_contiguous(type, count, buf, &start)) {
        x->bytes = (void *)start;
        return 0;
    }
    x->tmp = malloc(x->len);
    if (x->tmp == NULL) {
        return -1;
    }
    if (pack) {
        gcm_mpi_type_pack(type, count, buf, x->tmp);
    }
    x->bytes = x->tmp;
    return 0;
}

/*
 * The engine of the four neighbour collectives: block k of send goes to
 * out[k], block k of recv comes from in[k]; MPI_PROC_NULL neighbours are
 * skipped (their receive blocks are left as they are). shared_send: every
 * out-neighbour gets the same block (allgather), packed once.
 *
 * Messages between two processes are matched in the order they are posted
 * (the LCO's per-slot order), which pairs the k-th of several edges a -> b
 * at both ends. A Cartesian dimension of size 2 (or 1) with wrap-around has
 * the same process as source and destination, and there order alone would
 * pair the wrong blocks: what a process sends towards +1 arrives as its
 * neighbour's source block, and what it sends towards -1 as its
 * destination block. So Cartesian messages carry one tag per direction.
 */
static int neighbor_exchange(MPI_Comm comm, const char *call,
                             const nbr_lists_t *l, const nbr_side_t *send,
                             int shared_send, const nbr_side_t *recv)
{
    int tag_up   = gcm_mpi_coll_tag(comm);  /* sent towards +1 (or all) */
    int tag_down = gcm_mpi_coll_tag(comm);  /* sent towards -1 */
    nbr_xfer_t *rx = calloc((size_t)l->indeg + 1, sizeof(*rx));
    nbr_xfer_t *sx = calloc((size_t)l->outdeg + 1, sizeof(*sx));
    gcm_request_h *reqs = calloc((size_t)l->indeg + (size_t)l->outdeg + 1,
                                 sizeof(*reqs));
    gcm_status_t st = GCM_OK;
    int k, nreq = 0, rc = MPI_SUCCESS, nsx = 0, nrx = 0;

    if (rx == NULL || sx == NULL || reqs == NULL) {
        rc = gcm_mpi_topo_no_mem(comm, call);
        goto out;
    }
    for (k = 0; k < l->indeg && st == GCM_OK; k++) {
        /* Cartesian: block 2d comes from the source, which sent it
         * towards +1; block 2d + 1 from the destination, towards -1. */
        int tag = (l->cart && (k % 2) == 1) ? tag_down : tag_up;

        if (l->in[k] == MPI_PROC_NULL) {
            continue;
        }
        if (xfer_prepare(&rx[nrx], recv->type, side_count(recv, k),
                         side_block(recv, k), 0) != 0) {
            rc = gcm_mpi_topo_no_mem(comm, call);
            goto out;
        }
        st = gcm_mpi_irecv_bytes(comm, rx[nrx].bytes, rx[nrx].len, l->in[k],
                                 tag, &reqs[nreq++]);
        nrx++;
    }
    for (k = 0; k < l->outdeg && st == GCM_OK; k++) {
        /* Cartesian: block 2d goes to the source (towards -1). */
        int tag = (l->cart && (k % 2) == 0) ? tag_down : tag_up;
        nbr_xfer_t *x;

        if (l->out[k] == MPI_PROC_NULL) {
            continue;
        }
        if (shared_send && nsx > 0) {
            x = &sx[0];
        } else {
            if (xfer_prepare(&sx[nsx], send->type, side_count(send, k),
                             side_block(send, k), 1) != 0) {
                rc = gcm_mpi_topo_no_mem(comm, call);
                goto out;
            }
            x = &sx[nsx++];
        }
        st = gcm_mpi_isend_bytes(comm, x->bytes, x->len, l->out[k], tag,
                                 &reqs[nreq++]);
    }
out:
    if (nreq > 0) {
        gcm_status_t wst = gcm_waitall(nreq, reqs, NULL);

        if (st == GCM_OK) {
            st = wst;
        }
    }
    if (rc == MPI_SUCCESS && st != GCM_OK) {
        rc = gcm_mpi_raise(comm, gcm_mpi_errclass(st), call,
                           "neighbour exchange: %s", gcm_status_string(st));
    }
    for (k = 0; k < nrx; k++) {
        if (rx[k].tmp != NULL) {
            if (rc == MPI_SUCCESS) {
                gcm_mpi_type_unpack(recv->type, rx[k].count, rx[k].tmp,
                                    rx[k].len, rx[k].user);
            }
            free(rx[k].tmp);
        }
    }
    for (k = 0; k < nsx; k++) {
        free(sx[k].tmp);
    }
    free(rx);
    free(sx);
    free(reqs);
    return rc;
}

/* The checks and the exchange common to the four calls. */
static int neighbor_coll(MPI_Comm comm, const char *call, nbr_side_t *send,
                         int shared_send, nbr_side_t *recv)
{
    nbr_lists_t l;
    int rc = get_neighbors(comm, call, &l);

    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (send->buf == MPI_IN_PLACE || recv->buf == MPI_IN_PLACE) {
        return gcm_mpi_raise(comm, MPI_ERR_BUFFER, call,
                             "MPI_IN_PLACE is not allowed in neighbour "
                             "collectives");
    }
    send->n = l.outdeg;
    recv->n = l.indeg;
    rc = check_side(comm, send, "send", call);
    if (rc == MPI_SUCCESS) {
        rc = check_side(comm, recv, "recv", call);
    }
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    return neighbor_exchange(comm, call, &l, send, shared_send, recv);
}

int PMPI_Neighbor_allgather(const void *sendbuf, int sendcount,
                            MPI_Datatype sendtype, void *recvbuf,
                            int recvcount, MPI_Datatype recvtype,
                            MPI_Comm comm)
{
    nbr_side_t send = { sendbuf, sendtype, 0, NULL, sendcount, NULL, 0 };
    nbr_side_t recv = { recvbuf, recvtype, 0, NULL, recvcount, NULL,
                        recvcount };

    return neighbor_coll(comm, "MPI_Neighbor_allgather", &send, 1, &recv);
}
GCM_MPI_ALIAS(Neighbor_allgather)

int PMPI_Neighbor_allgatherv(const void *sendbuf, int sendcount,
                             MPI_Datatype sendtype, void *recvbuf,
                             const int recvcounts[], const int displs[],
                             MPI_Datatype recvtype, MPI_Comm comm)
{
    static const char call[] = "MPI_Neighbor_allgatherv";
    static const int none[1] = { 0 };
    nbr_side_t send = { sendbuf, sendtype, 0, NULL, sendcount, NULL, 0 };
    nbr_side_t recv = { recvbuf, recvtype, 0, recvcounts, 0, displs, 0 };
    nbr_lists_t l;
    int rc = get_neighbors(comm, call, &l);

    if (rc != MPI_SUCCESS) {
        return rc;
    }
    /* The arrays may be NULL where there are no in-neighbours. */
    if (l.indeg > 0 && recvcounts == NULL) {
        return gcm_mpi_raise(comm, MPI_ERR_ARG, call, "recvcounts is NULL");
    }
    if (recvcounts == NULL) {
        recv.counts = none;
        recv.displs = none;
    }
    return neighbor_coll(comm, call, &send, 1, &recv);
}
GCM_MPI_ALIAS(Neighbor_allgatherv)

int PMPI_Neighbor_alltoall(const void *sendbuf, int sendcount,
                           MPI_Datatype sendtype, void *recvbuf,
                           int recvcount, MPI_Datatype recvtype,
                           MPI_Comm comm)
{
    nbr_side_t send = { sendbuf, sendtype, 0, NULL, sendcount, NULL,
                        sendcount };
    nbr_side_t recv = { recvbuf, recvtype, 0, NULL, recvcount, NULL,
                        recvcount };

    return neighbor_coll(comm, "MPI_Neighbor_alltoall", &send, 0, &recv);
}
GCM_MPI_ALIAS(Neighbor_alltoall)

int PMPI_Neighbor_alltoallv(const void *sendbuf, const int sendcounts[],
                            const int sdispls[], MPI_Datatype sendtype,
                            void *recvbuf, const int recvcounts[],
                            const int rdispls[], MPI_Datatype recvtype,
                            MPI_Comm comm)
{
    static const char call[] = "MPI_Neighbor_alltoallv";
    static const int none[1] = { 0 };
    nbr_side_t send = { sendbuf, sendtype, 0, sendcounts, 0, sdispls, 0 };
    nbr_side_t recv = { recvbuf, recvtype, 0, recvcounts, 0, rdispls, 0 };
    nbr_lists_t l;
    int rc = get_neighbors(comm, call, &l);

    if (rc != MPI_SUCCESS) {
        return rc;
    }
    /* Arrays may be NULL where there are no neighbours to describe. */
    if ((l.outdeg > 0 && sendcounts == NULL) ||
        (l.indeg > 0 && recvcounts == NULL)) {
        return gcm_mpi_raise(comm, MPI_ERR_ARG, call,
                             "sendcounts or recvcounts is NULL");
    }
    if (sendcounts == NULL) {
        send.counts = none;
        send.displs = none;
    }
    if (recvcounts == NULL) {
        recv.counts = none;
        recv.displs = none;
    }
    return neighbor_coll(comm, call, &send, 0, &recv);
}
GCM_MPI_ALIAS(Neighbor_alltoallv)
