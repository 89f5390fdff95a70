/*
 * compat/mpi_redist.c: relations between communicators and data
 * redistribution after a remapping (Träff 2003, "SMP-aware message
 * passing", section 3.2 and appendices A and B): MPIX_Comm_relate,
 * MPIX_Comm_map and MPIX_Permute.
 *
 * A topology call with reorder returns a sub-communicator of its base
 * whose ranks may be other processes than the base's same ranks; the
 * data of base rank i then belongs to the process of rank i in the new
 * communicator. MPIX_Comm_map tells each process of the base where its
 * data goes (torank) and whence its new data comes (fromrank), both as
 * base ranks; MPIX_Permute moves it, like MPI_Sendrecv(outbuf -> torank,
 * inbuf <- fromrank) but collective.
 *
 * MPIX_Comm_map does what the seed's figure 2 computes with one
 * allgather of (subcomm rank, subcomm size) over the base instead of an
 * allreduce and a receive from MPI_ANY_SOURCE: every member then checks
 * that the processes passing a subcomm form one (ranks 0..size-1, each
 * once, one size), so a process passing another communicator, or a
 * subcomm with members outside the base, is an error on every process
 * rather than a hang, and a member's bad arguments reach all of them.
 */
#include "config.h"

#include "compat/mpi_impl.h"

#include <stdlib.h>
#include <string.h>

/* ---- MPIX_Comm_relate ------------------------------------------------------ */

/* The seed's figure 1: MPI_Comm_compare, and when that finds the groups
 * unequal, whether one holds the other (group intersections: A is a
 * subset of B iff A = A n B; MPI_IDENT of the intersection taken in the
 * larger group's order means the same order, a strict relation). */
int PMPIX_Comm_relate(MPI_Comm comm1, MPI_Comm comm2, int *result)
{
    static const char call[] = "MPIX_Comm_relate";
    MPI_Group g1 = MPI_GROUP_NULL, g2 = MPI_GROUP_NULL;
    MPI_Group inter = MPI_GROUP_NULL;
    int rc, cmp, rel;

    if ((rc = gcm_mpi_check_init(call)) != MPI_SUCCESS) {
        return rc;
    }
    if ((rc = gcm_mpi_comm_check(comm1, call)) != MPI_SUCCESS ||
        (rc = gcm_mpi_comm_check(comm2, call)) != MPI_SUCCESS) {
        return rc;
    }
    if (result == NULL) {
        return gcm_mpi_raise(comm1, MPI_ERR_ARG, call, "result is NULL");
    }
    rc = PMPI_Comm_compare(comm1, comm2, &cmp);
    if (rc != MPI_SUCCESS || cmp != MPI_UNEQUAL) {
        if (rc == MPI_SUCCESS) {
            *result = cmp;
        }
        return rc;
    }
    rc = PMPI_Comm_group(comm1, &g1);
    if (rc == MPI_SUCCESS) {
        rc = PMPI_Comm_group(comm2, &g2);
    }
    /* comm2 inside comm1: comm1 is the super-communicator. */
    if (rc == MPI_SUCCESS) {
        rc = PMPI_Group_intersection(g1, g2, &inter);
    }
    if (rc == MPI_SUCCESS) {
        rc = PMPI_Group_compare(inter, g2, &rel);
    }
    if (rc == MPI_SUCCESS) {
        if (rel == MPI_IDENT || rel == MPI_SIMILAR) {
            cmp = (rel == MPI_IDENT) ? MPIX_SUPERCOMM_STRICT :
                                       MPIX_SUPERCOMM;
        } else {
            (void)PMPI_Group_free(&inter);
            rc = PMPI_Group_intersection(g2, g1, &inter);
            if (rc == MPI_SUCCESS) {
                rc = PMPI_Group_compare(inter, g1, &rel);
            }
            if (rc == MPI_SUCCESS && (rel == MPI_IDENT ||
                                      rel == MPI_SIMILAR)) {
                cmp = (rel == MPI_IDENT) ? MPIX_SUBCOMM_STRICT :
                                           MPIX_SUBCOMM;
            }
        }
    }
    if (inter != MPI_GROUP_NULL) {
        (void)PMPI_Group_free(&inter);
    }
    if (g1 != MPI_GROUP_NULL) {
        (void)PMPI_Group_free(&g1);
    }
    if (g2 != MPI_GROUP_NULL) {
        (void)PMPI_Group_free(&g2);
    }
    if (rc == MPI_SUCCESS) {
        *result = cmp;
    }
    return rc;
}
GCM_MPIX_ALIAS(Comm_relate)

/* ---- MPIX_Comm_map -------------------------------------------------------- */

/* What each process of the base contributes (same layout everywhere). */
typedef struct redist_rec {
    int32_t err;       /* MPI error class of its own checks, or 0 */
    int32_t subrank;   /* its rank in subcomm, -1 if it passed none */
    int32_t subsize;   /* subcomm's size, 0 if it passed none */
} redist_rec_t;

static int check_intra_comm(MPI_Comm comm, const char *call, const char *what)
{
    if (comm->kind != GCM_MPI_COMM_INTRA) {
        return gcm_mpi_raise(comm, MPI_ERR_COMM, call,
                             "%s is not an intracommunicator made by the "
                             "library", what);
    }
    return MPI_SUCCESS;
}

int PMPIX_Comm_map(MPI_Comm basecomm, MPI_Comm subcomm, int *torank,
                   int *fromrank)
{
    static const char call[] = "MPIX_Comm_map";
    redist_rec_t mine = { 0, -1, 0 }, *all = NULL;
    int rc, n, r, members = 0, common = 0, bad = -1, to = MPI_PROC_NULL;
    unsigned char *seen = NULL;

    if ((rc = gcm_mpi_check_init(call)) != MPI_SUCCESS) {
        return rc;
    }
    if ((rc = gcm_mpi_comm_check(basecomm, call)) != MPI_SUCCESS) {
        return rc;
    }
    if ((rc = check_intra_comm(basecomm, call, "basecomm")) != MPI_SUCCESS) {
        return rc;
    }
    /* From here every member takes part in the exchange, whatever its
     * own checks found, so that all of them return the same verdict. */
    if (torank == NULL || fromrank == NULL) {
        mine.err = gcm_mpi_raise(basecomm, MPI_ERR_ARG, call,
                                 "torank or fromrank is NULL");
    } else if (subcomm != MPI_COMM_NULL) {
        mine.err = gcm_mpi_comm_check(subcomm, call);
        if (mine.err == MPI_SUCCESS) {
            mine.err = check_intra_comm(subcomm, call, "subcomm");
        }
        if (mine.err == MPI_SUCCESS) {
            mine.subrank = subcomm->rank;
            mine.subsize = subcomm->size;
        }
    }
    n   = basecomm->size;
    all = malloc((size_t)n * sizeof(*all));
    if (all == NULL) {
        /* The others are in the exchange already. */
        return gcm_mpi_raise(basecomm, MPI_ERR_NO_MEM, call,
                             "out of memory");
    }
    rc = PMPI_Allgather(&mine, (int)sizeof(mine), MPI_BYTE, all,
                        (int)sizeof(mine), MPI_BYTE, basecomm);
    if (rc != MPI_SUCCESS) {
        free(all);
        return rc;
    }
    if (mine.err != MPI_SUCCESS) {
        free(all);
        return mine.err;
    }
    for (r = 0; r < n; r++) {
        if (all[r].err != MPI_SUCCESS) {
            rc = gcm_mpi_raise(basecomm, all[r].err, call,
                               "rank %d of basecomm passed invalid "
                               "arguments", r);
            free(all);
            return rc;
        }
    }
    /* The members: one size, ranks 0..size-1 each once. */
    seen = calloc((size_t)n + 1, 1);
    if (seen == NULL) {
        free(all);
        return gcm_mpi_raise(basecomm, MPI_ERR_NO_MEM, call,
                             "out of memory");
    }
    for (r = 0; r < n && bad < 0; r++) {
        if (all[r].subrank < 0) {
            continue;
        }
        members++;
        if (all[r].subsize > n || all[r].subrank >= all[r].subsize ||
            (members > 1 && all[r].subsize != common) ||
            seen[all[r].subrank]) {
            bad = r;
        } else {
            seen[all[r].subrank] = 1;
            common = all[r].subsize;
        }
    }
    if (bad < 0 && members != common) {
        bad = n;
    }
    if (bad >= 0) {
        free(all);
        free(seen);
        return gcm_mpi_raise(basecomm, MPI_ERR_COMM, call,
                             "the processes passing subcomm do not form "
                             "one sub-communicator of basecomm (%s)",
                             (bad < n) ? "their ranks or sizes disagree" :
                             "some of its processes are not in basecomm");
    }
    /* torank: the base rank of the member with subcomm rank = my base
     * rank; fromrank: my subcomm rank (base rank i sends to subcomm
     * rank i). */
    for (r = 0; r < n; r++) {
        if (all[r].subrank == basecomm->rank) {
            to = r;
        }
    }
    *torank   = to;
    *fromrank = (all[basecomm->rank].subrank >= 0) ?
                all[basecomm->rank].subrank : MPI_PROC_NULL;
    free(all);
    free(seen);
    return MPI_SUCCESS;
}
GCM_MPIX_ALIAS(Comm_map)

/* ---- MPIX_Permute ------------------------------------------------------------ */

/* Checks one side of MPIX_Permute: a count, a type, a buffer and a rank
 * (what names it in messages). */
static int check_side(MPI_Comm comm, const void *buf, int count,
                      MPI_Datatype type, int rank, const char *what,
                      const char *call)
{
    if (rank == MPI_PROC_NULL) {
        return MPI_SUCCESS;
    }
    if (rank < 0 || rank >= comm->size) {
        return gcm_mpi_raise(comm, MPI_ERR_RANK, call,
                             "%s %d is not a rank (0..%d) or MPI_PROC_NULL",
                             (what[0] == 'i') ? "fromrank" : "torank", rank,
                             comm->size - 1);
    }
    if (count < 0) {
        return gcm_mpi_raise(comm, MPI_ERR_COUNT, call,
                             "%scount is negative (%d)", what, count);
    }
    if (gcm_mpi_type_check(type) != MPI_SUCCESS) {
        return gcm_mpi_raise(comm, MPI_ERR_TYPE, call,
                             "%stype is not a committed datatype", what);
    }
    if (buf == NULL && count > 0 && gcm_mpi_type_size(type) > 0) {
        return gcm_mpi_raise(comm, MPI_ERR_BUFFER, call,
                             "%sbuf is NULL with %d elements", what, count);
    }
    return MPI_SUCCESS;
}

int PMPIX_Permute(void *inbuf, int incount, MPI_Datatype intype,
                  int fromrank, void *outbuf, int outcount,
                  MPI_Datatype outtype, int torank, MPI_Comm comm)
{
    static const char call[] = "MPIX_Permute";
    gcm_request_h reqs[2] = { GCM_REQUEST_NULL, GCM_REQUEST_NULL };
    gcm_msg_status_t st[2];
    const void *sstart = NULL;
    void *rstart = NULL, *stmp = NULL, *rtmp = NULL;
    size_t slen = 0, rlen = 0;
    gcm_status_t status = GCM_OK;
    int rc, tag;

    if ((rc = gcm_mpi_check_init(call)) != MPI_SUCCESS) {
        return rc;
    }
    if ((rc = gcm_mpi_comm_check(comm, call)) != MPI_SUCCESS) {
        return rc;
    }
    if ((rc = check_intra_comm(comm, call, "comm")) != MPI_SUCCESS ||
        (rc = check_side(comm, inbuf, incount, intype, fromrank, "in",
                         call)) != MPI_SUCCESS ||
        (rc = check_side(comm, outbuf, outcount, outtype, torank, "out",
                         call)) != MPI_SUCCESS) {
        return rc;
    }
    rc = GCM_MPI_COLL_VERIFY(comm, call, .kind = GCM_MPI_COLL_PERMUTE,
                             .sbuf = outbuf, .scount = outcount,
                             .stype = outtype, .rbuf = inbuf,
                             .rcount = incount, .rtype = intype,
                             .torank = torank, .fromrank = fromrank);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    tag = gcm_mpi_coll_tag(comm);
    if (torank != MPI_PROC_NULL) {
        slen = (size_t)outcount * (size_t)gcm_mpi_type_size(outtype);
        if (!gcm_mpi_type_is_contiguous(outtype, outcount, outbuf, &sstart)) {
            stmp = malloc(slen > 0 ? slen : 1u);
            if (stmp == NULL) {
                return gcm_mpi_raise(comm, MPI_ERR_NO_MEM, call,
                                     "out of memory for packing");
            }
            gcm_mpi_type_pack(outtype, outcount, outbuf, stmp);
            sstart = stmp;
        }
    }
    if (fromrank != MPI_PROC_NULL) {
        const void *start = NULL;

        rlen = (size_t)incount * (size_t)gcm_mpi_type_size(intype);
        if (gcm_mpi_type_is_contiguous(intype, incount, inbuf, &start)) {
            rstart = (void *)start;
        } else {
            rtmp = malloc(rlen > 0 ? rlen : 1u);
            if (rtmp == NULL) {
                free(stmp);
                return gcm_mpi_raise(comm, MPI_ERR_NO_MEM, call,
                                     "out of memory for unpacking");
            }
            rstart = rtmp;
        }
        status = gcm_mpi_irecv_bytes(comm, rstart, rlen, fromrank, tag,
                                     &reqs[0]);
    }
    if (status == GCM_OK && torank != MPI_PROC_NULL) {
        status = gcm_mpi_isend_bytes(comm, sstart, slen, torank, tag,
                                     &reqs[1]);
    }
    if (status != GCM_OK && reqs[0] != GCM_REQUEST_NULL) {
        gcm_lco_cancel(reqs[0]);
    }
    if (status == GCM_OK) {
        status = gcm_waitall(2, reqs, st);
    } else {
        (void)gcm_waitall(2, reqs, NULL);
    }
    if (status == GCM_OK && rtmp != NULL) {
        gcm_mpi_type_unpack(intype, incount, rtmp, st[0].count, inbuf);
    }
    free(stmp);
    free(rtmp);
    if (status == GCM_ERR_TRUNCATED) {
        return gcm_mpi_raise(comm, MPI_ERR_TRUNCATE, call,
                             "rank %d sent more than incount (%d) elements",
                             fromrank, incount);
    }
    if (status != GCM_OK) {
        return gcm_mpi_raise_native(comm, status, call, "the transfer");
    }
    return MPI_SUCCESS;
}
GCM_MPIX_ALIAS(Permute)
