/*
 * compat/mpi_topo_nbr.c: the neighbour collectives (MPI-3.1 7.6, 7.7) in
 * their blocking, nonblocking and persistent forms (MPI-4.0 8.7), as
 * schedules of coll/ (coll/coll.h): every receive posted before any send,
 * so that a process that is its own neighbour (a periodic dimension of
 * size 1, a self-loop) cannot deadlock, then one fence. The schedule is
 * run at once, or handed to a request like any nonblocking collective's
 * (compat/mpi_coll_run.c).
 */
#include "config.h"

#include "compat/mpi_coll_impl.h"
#include "compat/mpi_topo_impl.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ---- neighbour collectives ----------------------------------------------- */

/* This process's neighbours in the order neighbour collectives use: it
 * receives block k from in[k] and sends block k to out[k]. */
typedef struct nbr_lists {
    int        indeg;
    int        outdeg;
    const int *in;
    const int *out;
    int        cart;   /* tags by direction: see nbr_build */
} nbr_lists_t;

static int get_neighbors(MPI_Comm comm, const char *call, nbr_lists_t *l)
{
    struct gcm_mpi_topo *t = NULL;
    int rc = gcm_mpi_topo_get(comm, 0, call, &t);

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
        l->indeg = l->outdeg = t->degree;
        l->in = l->out = t->nbrs;
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

/* The blocks of one side of a neighbour collective: block k is counts[k]
 * (or count) elements of types[k] (or type) at buf + displs[k] extents,
 * or, w form, at buf + bdispls[k] bytes; allgather and alltoall pass
 * their fixed strides as stride (displs NULL). */
typedef struct nbr_side {
    const void         *buf;
    MPI_Datatype        type;
    const MPI_Datatype *types;    /* w form */
    int                 n;
    const int          *counts;   /* NULL: every block has count */
    int                 count;
    const int          *displs;   /* NULL: block k at k * stride elements */
    const MPI_Aint     *bdispls;  /* w form */
    int                 stride;
} nbr_side_t;

static int side_count(const nbr_side_t *s, int k)
{
    return (s->counts != NULL) ? s->counts[k] : s->count;
}

static MPI_Datatype side_type(const nbr_side_t *s, int k)
{
    return (s->types != NULL) ? s->types[k] : s->type;
}

static void *side_block(const nbr_side_t *s, int k)
{
    MPI_Aint lb, extent;
    long long at;

    if (s->bdispls != NULL) {
        return gcm_coll_off(s->buf, (ptrdiff_t)s->bdispls[k]);
    }
    at = (s->displs != NULL) ? s->displs[k] : (long long)k * s->stride;
    gcm_mpi_type_extent(s->type, &lb, &extent);
    return gcm_coll_off(s->buf, (ptrdiff_t)(at * extent));
}

/* Checks a side's types and counts (send or receive); after it, every
 * block's length fits (the transfers make them without checks). */
static int check_side(MPI_Comm comm, const nbr_side_t *s, const char *what,
                      const char *call)
{
    size_t len;
    int k, rc;

    if (s->types == NULL && gcm_mpi_type_check(s->type) != 0) {
        return gcm_mpi_raise(comm, MPI_ERR_TYPE, call,
                             "%stype is not a valid committed datatype",
                             what);
    }
    for (k = 0; s->types != NULL && k < s->n; k++) {
        if (gcm_mpi_type_check(s->types[k]) != 0) {
            return gcm_mpi_raise(comm, MPI_ERR_TYPE, call,
                                 "%stypes[%d] is not a valid committed "
                                 "datatype", what, k);
        }
    }
    if (s->counts == NULL) {
        if (s->count < 0) {
            return gcm_mpi_raise(comm, MPI_ERR_COUNT, call,
                                 "%scount is negative (%d)", what, s->count);
        }
        return gcm_mpi_type_bytes(comm, call, s->type, s->count, &len);
    }
    if (s->n > 0 && s->displs == NULL && s->bdispls == NULL) {
        return gcm_mpi_raise(comm, MPI_ERR_ARG, call,
                             "%s displacements are NULL", what);
    }
    for (k = 0; k < s->n; k++) {
        if (s->counts[k] < 0) {
            return gcm_mpi_raise(comm, MPI_ERR_COUNT, call,
                                 "%scounts[%d] is negative (%d)", what, k,
                                 s->counts[k]);
        }
        rc = gcm_mpi_type_bytes(comm, call,
                                (s->types != NULL) ? s->types[k] : s->type,
                                s->counts[k], &len);
        if (rc != MPI_SUCCESS) {
            return rc;
        }
    }
    return MPI_SUCCESS;
}

/*
 * The schedule of the neighbour collectives: block k of send goes to
 * out[k], block k of recv comes from in[k]; MPI_PROC_NULL neighbours are
 * skipped (their receive blocks are left as they are). shared_send: every
 * out-neighbour gets the same block (allgather), packed once if it is not
 * contiguous.
 *
 * Messages between two processes are matched in the order they are posted
 * (the LCO's per-slot order), which pairs the k-th of several edges a -> b
 * at both ends. A Cartesian dimension of size 2 (or 1) with wrap-around has
 * the same process as source and destination, and there order alone would
 * pair the wrong blocks: what a process sends towards +1 arrives as its
 * neighbour's source block, and what it sends towards -1 as its
 * destination block. So Cartesian messages carry one tag per direction.
 */
static void nbr_build(coll_sched_t *s, MPI_Comm comm, const nbr_lists_t *l,
                      const nbr_side_t *send, int shared_send,
                      const nbr_side_t *recv)
{
    coll_grp_t up = gcm_mpi_coll_grp(comm);    /* sent towards +1 (or all) */
    coll_grp_t down = gcm_mpi_coll_grp(comm);  /* sent towards -1 */
    const void *shared = NULL;
    size_t shared_len = 0;
    int k, nout = 0;

    for (k = 0; k < l->indeg; k++) {
        /* Cartesian: block 2d comes from the source, which sent it
         * towards +1; block 2d + 1 from the destination, towards -1. */
        if (l->in[k] != MPI_PROC_NULL) {
            gcm_coll_recv(s, (l->cart && (k % 2) == 1) ? &down : &up,
                          side_block(recv, k), side_count(recv, k),
                          CT(side_type(recv, k)), l->in[k]);
        }
    }
    for (k = 0; k < l->outdeg; k++) {
        nout += (l->out[k] != MPI_PROC_NULL);
    }
    if (shared_send && nout > 1 &&
        !gcm_mpi_type_is_contiguous(send->type, send->count, send->buf,
                                    NULL)) {
        /* One packed copy of a block that is not contiguous, made when
         * the schedule runs (so a persistent request sends the buffer's
         * new contents); a contiguous block is sent from where it is. */
        shared_len = (size_t)send->count *
                     (size_t)gcm_mpi_type_size(send->type);
        shared = gcm_coll_alloc(s, shared_len);
        if (shared == NULL) {
            return;
        }
        gcm_coll_copy(s, send->buf, send->count, CT(send->type), 0,
                      (void *)shared, 0, NULL, shared_len);
    }
    for (k = 0; k < l->outdeg; k++) {
        /* Cartesian: block 2d goes to the source (towards -1). */
        const coll_grp_t *g = (l->cart && (k % 2) == 0) ? &down : &up;

        if (l->out[k] == MPI_PROC_NULL) {
            continue;
        }
        if (shared != NULL) {
            gcm_coll_send_raw(s, g, shared, shared_len, l->out[k]);
        } else {
            gcm_coll_send(s, g, side_block(send, shared_send ? 0 : k),
                          side_count(send, k), CT(side_type(send, k)),
                          l->out[k]);
        }
    }
    gcm_coll_fence(s);
}

/* The arrays of side (counts, displacements and, w form, datatypes) as
 * its schedule is built from them, added to v: none for a side without
 * counts (every block the same). */
static void nbr_side_vec(const nbr_side_t *side, coll_vec_t *v)
{
    size_t n = (size_t)side->n;

    if (side->counts == NULL) {
        return;
    }
    gcm_mpi_coll_vec_add(v, side->counts, n * sizeof(int));
    if (side->bdispls == NULL) {
        gcm_mpi_coll_vec_add(v, side->displs, n * sizeof(int));
        return;
    }
    /* The w form: the datatypes every third, as
     * gcm_mpi_coll_vec_predefined reads them (NULL where n is 0). */
    gcm_mpi_coll_vec_add(v, side->bdispls, n * sizeof(MPI_Aint));
    gcm_mpi_coll_vec_add(v, side->types, n * sizeof(MPI_Datatype));
}

/* The key of a nonblocking neighbour collective (the kept schedules of
 * mpi_coll_run.c): its buffers, counts and datatypes, and the arrays of
 * the v and w forms in vec (the topology, and so the degrees, are the
 * communicator's for its life). */
static coll_key_t nbr_key(const nbr_side_t *send, const nbr_side_t *recv,
                          coll_vec_t *vec)
{
    coll_key_t key;

    key.sbuf = send->buf;
    key.rbuf = (void *)recv->buf;
    key.count = send->count;
    key.type = send->type;
    key.op = MPI_OP_NULL;
    key.root = 0;
    key.rcount = recv->count;
    key.rtype = recv->type;
    key.h = NULL;
    vec->n = 0;
    nbr_side_vec(send, vec);
    nbr_side_vec(recv, vec);
    key.vec = (vec->n > 0) ? vec : NULL;
    return key;
}

/* The checks, the verification and the schedule of a neighbour
 * collective of kind, in mode, with neighbours l. A blocking or
 * nonblocking call with the arguments of the last one of its form on
 * comm (of the same collective, which) runs its schedule again, checks
 * skipped (gcm_mpi_coll_kept_find, gcm_mpi_coll_nb_again), or keeps the
 * one it builds for the next (gcm_mpi_coll_kept_get, gcm_mpi_coll_nb_get;
 * the w form's only when all its datatypes are predefined). */
static int neighbor_coll(MPI_Comm comm, int kind, int which, int mode,
                         MPI_Info info, MPI_Request *request,
                         const char *call, const nbr_lists_t *l,
                         nbr_side_t *send, int shared_send, nbr_side_t *recv)
{
    coll_sched_t stack, *s;
    coll_kept_t *k = NULL;
    coll_key_t key;
    coll_vec_t vec;
    unsigned seq0;
    int hit = 0, keep, rc;

    send->n = l->outdeg;
    recv->n = l->indeg;
    if (mode != COLL_PERSISTENT) {
        key = nbr_key(send, recv, &vec);
    }
    if (mode == COLL_NONBLOCKING) {
        rc = gcm_mpi_coll_nb_again(comm, which, &key, request);
        if (rc != GCM_MPI_COLL_MISS) {
            return rc;
        }
    } else if (mode == COLL_BLOCKING &&
               (k = gcm_mpi_coll_kept_find(comm, which, &key)) != NULL &&
               !gcm_mpi_coll_checking()) {
        return gcm_mpi_coll_kept_run(k, comm, call);
    }
    if (send->buf == MPI_IN_PLACE || recv->buf == MPI_IN_PLACE) {
        return gcm_mpi_raise(comm, MPI_ERR_BUFFER, call,
                             "MPI_IN_PLACE is not allowed in neighbour "
                             "collectives");
    }
    rc = check_side(comm, send, "send", call);
    if (rc == MPI_SUCCESS) {
        rc = check_side(comm, recv, "recv", call);
    }
    if (rc == MPI_SUCCESS) {
        rc = gcm_mpi_coll_check_mode(comm, call, mode, info, request);
    }
    if (rc == MPI_SUCCESS) {
        rc = GCM_MPI_COLL_VERIFY(comm, call, .kind = kind,
            COLL_VFY_MODE(mode), .sbuf = send->buf, .scount = send->count,
            .scounts = send->counts, .stype = send->type,
            .stypes = send->types, .rbuf = recv->buf, .rcount = recv->count,
            .rcounts = recv->counts, .rtype = recv->type,
            .rtypes = recv->types, .indeg = l->indeg, .outdeg = l->outdeg,
            .nin = l->in, .nout = l->out, .ncart = l->cart);
    }
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (k != NULL) {
        return gcm_mpi_coll_kept_run(k, comm, call);
    }
    keep = mode != COLL_PERSISTENT &&
           (kind != GCM_MPI_COLL_NEIGHBOR_ALLTOALLW ||
            gcm_mpi_coll_vec_predefined(&vec));
    if (mode == COLL_BLOCKING && keep) {
        seq0 = atomic_load_explicit(&comm->coll_seq, memory_order_relaxed);
        s = gcm_mpi_coll_kept_get(comm, which, &key, &stack, &hit);
        if (!hit) {
            nbr_build(s, comm, l, send, shared_send, recv);
        }
        return gcm_mpi_coll_finish_kept(s, comm, which, hit, seq0, call);
    }
    if (mode == COLL_NONBLOCKING && keep) {
        s = gcm_mpi_coll_nb_get(comm, which, &key, &hit, call, &rc);
    } else {
        s = gcm_mpi_coll_sched_for(mode, comm, call, &stack, &rc);
    }
    if (s == NULL) {
        return rc;
    }
    if (!hit) {
        nbr_build(s, comm, l, send, shared_send, recv);
    }
    return gcm_mpi_coll_launch(mode, s, comm, call, request);
}

/* ---- the MPI functions ----------------------------------------------------
 *
 * Each in its three forms, the arguments turned into sides first. The
 * arrays of the v and w forms may be NULL where there are no neighbours
 * to describe.
 */

static const int nbr_none[1] = { 0 };

#define NBR_UNPAREN(...) __VA_ARGS__

/* MPI_Neighbor_<name>, MPI_Ineighbor_<name> and MPI_Neighbor_<name>_init,
 * each raising errors under its own name: params are the parameters
 * before comm, and each form returns fn(args, comm, mode, info, request,
 * call). */
#define NBR_FORMS(name, fn, params, args)                                    \
    int PMPI_Neighbor_##name(NBR_UNPAREN params, MPI_Comm comm)              \
    {                                                                        \
        return fn(NBR_UNPAREN args, comm, COLL_BLOCKING, MPI_INFO_NULL,      \
                  NULL, "MPI_Neighbor_" #name);                              \
    }                                                                        \
    GCM_MPI_ALIAS(Neighbor_##name)                                           \
                                                                             \
    int PMPI_Ineighbor_##name(NBR_UNPAREN params, MPI_Comm comm,             \
                              MPI_Request *request)                          \
    {                                                                        \
        return fn(NBR_UNPAREN args, comm, COLL_NONBLOCKING, MPI_INFO_NULL,   \
                  request, "MPI_Ineighbor_" #name);                          \
    }                                                                        \
    GCM_MPI_ALIAS(Ineighbor_##name)                                          \
                                                                             \
    int PMPI_Neighbor_##name##_init(NBR_UNPAREN params, MPI_Comm comm,       \
                                    MPI_Info info, MPI_Request *request)     \
    {                                                                        \
        return fn(NBR_UNPAREN args, comm, COLL_PERSISTENT, info, request,    \
                  "MPI_Neighbor_" #name "_init");                            \
    }                                                                        \
    GCM_MPI_ALIAS(Neighbor_##name##_init)

/* Neighbour allgather (gather: every neighbour gets the one send block)
 * and alltoall (block k to out[k]). */
static int nbr_all(int gather, const void *sendbuf, int sendcount,
                   MPI_Datatype sendtype, void *recvbuf, int recvcount,
                   MPI_Datatype recvtype, MPI_Comm comm, int mode,
                   MPI_Info info, MPI_Request *request, const char *call)
{
    nbr_side_t send = { sendbuf, sendtype, NULL, 0, NULL, sendcount, NULL,
                        NULL, gather ? 0 : sendcount };
    nbr_side_t recv = { recvbuf, recvtype, NULL, 0, NULL, recvcount, NULL,
                        NULL, recvcount };
    nbr_lists_t l;
    int rc = get_neighbors(comm, call, &l);

    if (rc != MPI_SUCCESS) {
        return rc;
    }
    return neighbor_coll(comm, gather ? GCM_MPI_COLL_NEIGHBOR_ALLGATHER :
                                        GCM_MPI_COLL_NEIGHBOR_ALLTOALL,
                         gather ? COLL_KEPT_NBR_ALLGATHER :
                                  COLL_KEPT_NBR_ALLTOALL,
                         mode, info, request, call, &l, &send, gather,
                         &recv);
}

NBR_FORMS(allgather, nbr_all,
          (const void *sendbuf, int sendcount, MPI_Datatype sendtype,
           void *recvbuf, int recvcount, MPI_Datatype recvtype),
          (1, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype))

static int nbr_allgatherv(const void *sendbuf, int sendcount,
                          MPI_Datatype sendtype, void *recvbuf,
                          const int recvcounts[], const int displs[],
                          MPI_Datatype recvtype, MPI_Comm comm, int mode,
                          MPI_Info info, MPI_Request *request,
                          const char *call)
{
    nbr_side_t send = { sendbuf, sendtype, NULL, 0, NULL, sendcount, NULL,
                        NULL, 0 };
    nbr_side_t recv = { recvbuf, recvtype, NULL, 0, recvcounts, 0, displs,
                        NULL, 0 };
    nbr_lists_t l;
    int rc = get_neighbors(comm, call, &l);

    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (l.indeg > 0 && recvcounts == NULL) {
        return gcm_mpi_raise(comm, MPI_ERR_ARG, call, "recvcounts is NULL");
    }
    if (recvcounts == NULL) {
        recv.counts = nbr_none;
        recv.displs = nbr_none;
    }
    return neighbor_coll(comm, GCM_MPI_COLL_NEIGHBOR_ALLGATHERV,
                         COLL_KEPT_NBR_ALLGATHERV, mode, info, request, call,
                         &l, &send, 1, &recv);
}

NBR_FORMS(allgatherv, nbr_allgatherv,
          (const void *sendbuf, int sendcount, MPI_Datatype sendtype,
           void *recvbuf, const int recvcounts[], const int displs[],
           MPI_Datatype recvtype),
          (sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
           recvtype))

NBR_FORMS(alltoall, nbr_all,
          (const void *sendbuf, int sendcount, MPI_Datatype sendtype,
           void *recvbuf, int recvcount, MPI_Datatype recvtype),
          (0, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype))

/* A side with no neighbours, whose arrays the caller may have left NULL:
 * empty arrays of its own (w: byte displacements too). */
static void nbr_side_empty(nbr_side_t *side, int w)
{
    static const MPI_Aint none[1] = { 0 };

    side->counts = nbr_none;
    side->displs = nbr_none;
    side->bdispls = w ? none : NULL;
    side->types = NULL;
    side->type = MPI_BYTE;
}

/* The v (types NULL, element displacements) and w (byte displacements)
 * forms of neighbour alltoall. */
static int nbr_alltoallvw(int w, const void *sendbuf,
                          const int sendcounts[], const int sdispls[],
                          const MPI_Aint sbdispls[],
                          MPI_Datatype sendtype,
                          const MPI_Datatype sendtypes[], void *recvbuf,
                          const int recvcounts[], const int rdispls[],
                          const MPI_Aint rbdispls[], MPI_Datatype recvtype,
                          const MPI_Datatype recvtypes[], MPI_Comm comm,
                          int mode, MPI_Info info, MPI_Request *request,
                          const char *call)
{
    nbr_side_t send = { sendbuf, sendtype, sendtypes, 0, sendcounts, 0,
                        sdispls, sbdispls, 0 };
    nbr_side_t recv = { recvbuf, recvtype, recvtypes, 0, recvcounts, 0,
                        rdispls, rbdispls, 0 };
    nbr_lists_t l;
    int rc = get_neighbors(comm, call, &l);

    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if ((l.outdeg > 0 && (sendcounts == NULL || (w && sendtypes == NULL))) ||
        (l.indeg > 0 && (recvcounts == NULL || (w && recvtypes == NULL)))) {
        return gcm_mpi_raise(comm, MPI_ERR_ARG, call,
                             "sendcounts, recvcounts%s is NULL",
                             w ? ", sendtypes or recvtypes" : " or another "
                             "array");
    }
    if (l.outdeg == 0) {
        nbr_side_empty(&send, w);
    }
    if (l.indeg == 0) {
        nbr_side_empty(&recv, w);
    }
    return neighbor_coll(comm, w ? GCM_MPI_COLL_NEIGHBOR_ALLTOALLW :
                               GCM_MPI_COLL_NEIGHBOR_ALLTOALLV,
                         w ? COLL_KEPT_NBR_ALLTOALLW : COLL_KEPT_NBR_ALLTOALLV,
                         mode, info, request, call, &l, &send, 0, &recv);
}

NBR_FORMS(alltoallv, nbr_alltoallvw,
          (const void *sendbuf, const int sendcounts[], const int sdispls[],
           MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
           const int rdispls[], MPI_Datatype recvtype),
          (0, sendbuf, sendcounts, sdispls, NULL, sendtype, NULL, recvbuf,
           recvcounts, rdispls, NULL, recvtype, NULL))

NBR_FORMS(alltoallw, nbr_alltoallvw,
          (const void *sendbuf, const int sendcounts[],
           const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
           void *recvbuf, const int recvcounts[], const MPI_Aint rdispls[],
           const MPI_Datatype recvtypes[]),
          (1, sendbuf, sendcounts, NULL, sdispls, MPI_BYTE, sendtypes,
           recvbuf, recvcounts, NULL, rdispls, MPI_BYTE, recvtypes))
