/*
 * compat/mpi_coll_build.c: the builders shared by the blocking and
 * nonblocking forms of the collectives.
 */
#include "config.h"

#include "compat/mpi_coll_impl.h"

#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ---- builders shared by blocking and nonblocking forms -------------------
 *
 * An intracommunicator's call goes to coll/'s entry, which chooses the
 * algorithm; an intercommunicator's is put together here from transfers
 * across and the local group's collectives.
 */

void gcm_mpi_coll_build_barrier(coll_sched_t *s, MPI_Comm comm)
{
    coll_grp_t g, lg;

    if (gcm_mpi_coll_is_inter(comm) == 0) {
        g = gcm_mpi_coll_grp(comm);
        gcm_coll_barrier(s, &g, gcm_mpi_coll_hier_of(comm));
        return;
    }
    /* Everyone in my group has entered once my group's barrier is done;
     * the leaders swap that news, and each tells its group. */
    gcm_mpi_coll_grp_inter(comm, &g, &lg);
    gcm_coll_barrier(s, &lg, NULL);
    if (lg.rank == 0) {
        gcm_coll_send_raw(s, &g, NULL, 0, 0);
        gcm_coll_recv_raw(s, &g, NULL, 0, 0);
        gcm_coll_fence(s);
    }
    gcm_coll_bcast_raw(s, &lg, NULL, 0, 0);
}

void gcm_mpi_coll_build_bcast(coll_sched_t *s, void *buf, int count,
                              MPI_Datatype type, int root, MPI_Comm comm)
{
    coll_grp_t g, lg;

    if (gcm_mpi_coll_is_inter(comm) == 0) {
        g = gcm_mpi_coll_grp(comm);
        gcm_coll_bcast(s, &g, gcm_mpi_coll_hier_of(comm), buf, count, CT(type),
                       root);
        return;
    }
    gcm_mpi_coll_grp_inter(comm, &g, &lg);
    if (root == MPI_PROC_NULL) {
        return;
    }
    if (root == MPI_ROOT) {
        gcm_coll_send(s, &g, buf, count, CT(type), 0);
        gcm_coll_fence(s);
        return;
    }
    if (lg.rank == 0) {
        gcm_coll_recv(s, &g, buf, count, CT(type), root);
        gcm_coll_fence(s);
    }
    gcm_coll_bcast(s, &lg, NULL, buf, count, CT(type), 0);
}

void gcm_mpi_coll_build_reduce(coll_sched_t *s, const void *sbuf,
                               void *rbuf, int count, MPI_Datatype type,
                               MPI_Op op, int root, MPI_Comm comm)
{
    coll_grp_t g, lg;
    void *tmp = NULL;

    if (gcm_mpi_coll_is_inter(comm) == 0) {
        g = gcm_mpi_coll_grp(comm);
        gcm_coll_reduce(s, &g, gcm_mpi_coll_hier_of(comm),
                        (sbuf == MPI_IN_PLACE) ? rbuf : sbuf, rbuf, count,
                        CT(type), CO(op), root);
        return;
    }
    gcm_mpi_coll_grp_inter(comm, &g, &lg);
    if (root == MPI_PROC_NULL) {
        return;
    }
    if (root == MPI_ROOT) {
        gcm_coll_recv(s, &g, rbuf, count, CT(type), 0);
        gcm_coll_fence(s);
        return;
    }
    if (lg.rank == 0) {
        tmp = gcm_coll_alloc_type(s, count, CT(type));
    }
    gcm_coll_reduce(s, &lg, NULL, sbuf, tmp, count, CT(type), CO(op), 0);
    if (lg.rank == 0) {
        gcm_coll_send(s, &g, tmp, count, CT(type), root);
        gcm_coll_fence(s);
    }
}

void gcm_mpi_coll_build_allreduce(coll_sched_t *s, const void *sbuf,
                                  void *rbuf, int count, MPI_Datatype type,
                                  MPI_Op op, MPI_Comm comm)
{
    coll_grp_t g, lg;
    void *tmp = NULL;

    if (gcm_mpi_coll_is_inter(comm) == 0) {
        g = gcm_mpi_coll_grp(comm);
        gcm_coll_allreduce(s, &g, gcm_mpi_coll_hier_of(comm), sbuf, rbuf, count,
                           CT(type), CO(op));
        return;
    }
    /* Each group reduces its data to its leader; the leaders swap, and
     * each spreads the other group's result in its own group. */
    gcm_mpi_coll_grp_inter(comm, &g, &lg);
    if (lg.rank == 0) {
        tmp = gcm_coll_alloc_type(s, count, CT(type));
    }
    gcm_coll_reduce(s, &lg, NULL, sbuf, tmp, count, CT(type), CO(op), 0);
    if (lg.rank == 0) {
        gcm_coll_send(s, &g, tmp, count, CT(type), 0);
        gcm_coll_recv(s, &g, rbuf, count, CT(type), 0);
        gcm_coll_fence(s);
    }
    gcm_coll_bcast(s, &lg, NULL, rbuf, count, CT(type), 0);
}

void gcm_mpi_coll_build_scan(coll_sched_t *s, const void *sbuf, void *rbuf,
                             int count, MPI_Datatype type, MPI_Op op,
                             MPI_Comm comm, int exclusive)
{
    coll_grp_t g = gcm_mpi_coll_grp(comm);

    gcm_coll_scan(s, &g, sbuf, rbuf, count, CT(type), CO(op), exclusive);
}

void gcm_mpi_coll_build_reduce_scatter(coll_sched_t *s, const void *sbuf,
                                       void *rbuf, int rcount,
                                       const int *rcounts, MPI_Datatype type,
                                       MPI_Op op, MPI_Comm comm)
{
    coll_layout_t l = { NULL, rcount, rcounts, NULL, CT(type) };
    void *mine = NULL;
    int *displs = NULL, total = 0, i;
    coll_grp_t g, lg;

    if (gcm_mpi_coll_is_inter(comm) == 0) {
        g = gcm_mpi_coll_grp(comm);
        gcm_coll_reduce_scatter(s, &g, sbuf, rbuf, rcount, rcounts, CT(type),
                                CO(op));
        return;
    }
    /* Each group reduces its vectors to its leader; the leaders swap the
     * results, and each scatters the other group's over its own group by
     * its own counts (the totals are the same in both groups). */
    gcm_mpi_coll_grp_inter(comm, &g, &lg);
    for (i = 0; i < lg.size; i++) {
        total += (rcounts != NULL) ? rcounts[i] : rcount;
    }
    if (lg.rank == 0) {
        mine = gcm_coll_alloc_type(s, total, CT(type));
        l.buf = gcm_coll_alloc_type(s, total, CT(type));
        if (rcounts != NULL) {
            displs = gcm_coll_alloc(s, (size_t)lg.size * sizeof(int));
        }
        if (mine == NULL || l.buf == NULL ||
            (rcounts != NULL && displs == NULL)) {
            return;
        }
        for (i = 0; displs != NULL && i < lg.size; i++) {
            displs[i] = (i == 0) ? 0 : displs[i - 1] + rcounts[i - 1];
        }
        l.displs = displs;
    }
    gcm_coll_reduce(s, &lg, NULL, sbuf, mine, total, CT(type), CO(op), 0);
    if (lg.rank == 0) {
        gcm_coll_send(s, &g, mine, total, CT(type), 0);
        gcm_coll_recv(s, &g, l.buf, total, CT(type), 0);
        gcm_coll_fence(s);
    }
    gcm_coll_gather(s, &lg, NULL, 0, rcounts != NULL, rbuf,
                    (rcounts != NULL) ? rcounts[lg.rank] : rcount, CT(type),
                    &l, 0, 0);
}

/* Gather, gatherv, scatter, scatterv (see gcm_mpi_coll_rooted). */
void gcm_mpi_coll_build_rooted(coll_sched_t *s, int is_gather, int is_v,
                               void *mbuf, int mcount, MPI_Datatype mtype,
                               const coll_layout_t *l, int root, int in_place,
                               MPI_Comm comm)
{
    coll_grp_t g, lg;

    if (gcm_mpi_coll_is_inter(comm)) {
        gcm_mpi_coll_grp_inter(comm, &g, &lg);
        gcm_coll_gather_linear(s, &g, 1, is_gather, mbuf, mcount, CT(mtype),
                               l, gcm_mpi_coll_root(root), in_place);
        return;
    }
    g = gcm_mpi_coll_grp(comm);
    gcm_coll_gather(s, &g, gcm_mpi_coll_hier_of(comm), is_gather, is_v, mbuf,
                    mcount, CT(mtype), l, root, in_place);
}

/* Allgather and allgatherv (counts/displs NULL: allgather). */
void gcm_mpi_coll_build_allgather(coll_sched_t *s, const void *sbuf,
                                  int scount, MPI_Datatype stype, void *rbuf,
                                  int rcount, const int *rcounts,
                                  const int *displs, MPI_Datatype rtype,
                                  MPI_Comm comm)
{
    coll_layout_t l = { rbuf, rcount, rcounts, displs, CT(rtype) };
    coll_grp_t g, lg;
    size_t total = 0, off;
    char *tmp;
    int i;

    if (gcm_mpi_coll_is_inter(comm) == 0) {
        g = gcm_mpi_coll_grp(comm);
        gcm_coll_allgather(s, &g, gcm_mpi_coll_hier_of(comm), sbuf, scount,
                           CT(stype), &l);
        return;
    }
    /* Every process sends to the remote leader, which gathers its remote
     * group's blocks and spreads them (packed) in its own group. */
    gcm_mpi_coll_grp_inter(comm, &g, &lg);
    gcm_coll_send(s, &g, sbuf, scount, CT(stype), 0);
    if (lg.rank == 0) {
        for (i = 0; i < g.size; i++) {
            gcm_coll_recv(s, &g, gcm_coll_blk(s, &l, i),
                          gcm_mpi_coll_cnt(&l, i), CT(rtype), i);
        }
    }
    gcm_coll_fence(s);
    if (lg.size == 1) {
        return;
    }
    for (i = 0; i < g.size; i++) {
        total += gcm_coll_bytes(s, CT(rtype), gcm_mpi_coll_cnt(&l, i), 0);
    }
    tmp = gcm_coll_alloc(s, total);
    if (tmp == NULL) {
        return;
    }
    for (i = 0, off = 0; lg.rank == 0 && i < g.size; i++) {
        size_t n = gcm_coll_bytes(s, CT(rtype), gcm_mpi_coll_cnt(&l, i), 0);

        gcm_coll_copy(s, gcm_coll_blk(s, &l, i), gcm_mpi_coll_cnt(&l, i),
                      CT(rtype), 0, tmp + off, 0, NULL, n);
        off += n;
    }
    gcm_coll_bcast_raw(s, &lg, tmp, total, 0);
    for (i = 0, off = 0; lg.rank != 0 && i < g.size; i++) {
        size_t n = gcm_coll_bytes(s, CT(rtype), gcm_mpi_coll_cnt(&l, i), 0);

        gcm_coll_copy(s, tmp + off, 0, NULL, n, gcm_coll_blk(s, &l, i),
                      gcm_mpi_coll_cnt(&l, i), CT(rtype), 0);
        off += n;
    }
}

static void coll_a2a_fill(coll_sched_t *s, const coll_a2a_side_t *d, int n,
                          coll_blocks_t *b)
{
    int i;

    for (i = 0; i < n; i++) {
        b->count[i] = (d->counts != NULL) ? d->counts[i] : d->count;
        if (d->types != NULL) {
            b->type[i] = CT(d->types[i]);
            b->ptr[i] = gcm_coll_off(d->buf, d->displs[i]);
        } else {
            MPI_Aint disp = (d->displs != NULL) ? d->displs[i] :
                            (MPI_Aint)i * d->count;

            b->type[i] = CT(d->type);
            b->ptr[i] = gcm_coll_at(s, d->buf, disp, CT(d->type));
        }
    }
}

void gcm_mpi_coll_build_alltoall(coll_sched_t *s, const coll_a2a_side_t *sd,
                                 const coll_a2a_side_t *rd, MPI_Comm comm)
{
    coll_blocks_t sb, rb;
    coll_grp_t g, lg;
    int inter    = gcm_mpi_coll_is_inter(comm),
        in_place = (sd->buf == MPI_IN_PLACE);
    int uniform = (rd->counts == NULL);

    if (inter != 0) {
        gcm_mpi_coll_grp_inter(comm, &g, &lg);
    } else {
        g = gcm_mpi_coll_grp(comm);
    }
    if (gcm_coll_blocks_alloc(s, g.size, &sb) != 0 ||
        gcm_coll_blocks_alloc(s, g.size, &rb) != 0) {
        return;
    }
    coll_a2a_fill(s, rd, g.size, &rb);
    if (in_place != 0) {
        gcm_mpi_coll_alltoall_inplace_copy(s, g.size, &rb, &sb);
    } else {
        coll_a2a_fill(s, sd, g.size, &sb);
    }
    if (inter != 0) {
        gcm_coll_alltoall_pairwise(s, &g, 1, &sb, &rb, in_place);
    } else {
        gcm_coll_alltoall(s, &g, gcm_mpi_coll_hier_of(comm), &sb, &rb, in_place,
                          uniform);
    }
}
