/*
 * compat/mpi_inter.c: intercommunicator construction (MPI-3.1 section
 * 6.6): MPI_Intercomm_create and MPI_Intercomm_merge, and the
 * intercommunicator forms of MPI_Comm_split and MPI_Comm_create (6.4.2).
 *
 * An intercommunicator is, in the seed's terms (its section 3, "Example:
 * Intercommunicator"), a set of LCOs in two groups where each LCO's send
 * slots target the LCOs of the other group. Here it is a pattern LCO over
 * the REMOTE group (lco/lco.h): send slot i goes to remote rank i and
 * arrives on receive slot "my local rank" there, so receive slot j of an
 * LCO holds what remote rank j sent. Every member of both groups makes it
 * with the same identity, so no message is needed to connect the slots;
 * only the two group lists and that identity travel, between the leaders
 * and then down each local group.
 *
 * The identity comes from the leader of lower world index, derived from
 * its local communicator with a key (gcm_lco_derive_id_keyed): keyed
 * derivation advances no counter, so the other members of its group,
 * which do not derive, stay in step for later derivations.
 */
#include "config.h"

#include "compat/mpi_impl.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

/*
 * The leaders' exchange over peer_comm happens on a tag beyond the user
 * range, so that it can never match a user's receive on peer_comm (which
 * MPI lets the application use concurrently); the user's tag picks the
 * internal one, so that concurrent MPI_Intercomm_create calls between the
 * same leaders on different tags stay apart, as MPI requires. The range
 * is the top quarter of the internal tags, which the collectives'
 * sequence tags (gcm_mpi_coll_tag) do not reach.
 */
#define INTER_PEER_TAG_BASE GCM_MPI_TAG_FIXED
#define INTER_PEER_TAG_MASK 0x0fffffff
#define INTER_PEER_TAG(_tag) \
    (INTER_PEER_TAG_BASE + ((_tag) & INTER_PEER_TAG_MASK))

/* Keys of the identities this file derives: the top bit keeps them apart
 * from other keyed derivations (MPI_Comm_create_group), then the
 * leader's world index and a per-process count of creations. */
#define INTER_KEY_MARK (UINT64_C(1) << 63)

static atomic_uint gcm_mpi_inter_count;

/* What the leaders exchange, and what each leader broadcasts in its
 * group (followed by size world indices). */
typedef struct inter_hdr {
    int32_t  errclass;  /* MPI_SUCCESS, or the error every member raises */
    int32_t  size;      /* of the group whose list follows */
    int32_t  leader;    /* world index of that group's leader */
    uint32_t id;        /* the intercommunicator's identity */
    uint32_t gen;
} inter_hdr_t;

/* ---- helpers --------------------------------------------------------- */

/*
 * Broadcast of hdr and then hdr->size ints in *procs_p from root over
 * comm (MPI_Bcast, which raises its own failures on comm). Non-roots get
 * *procs_p malloc'ed (NULL when the list is empty).
 */
static int bcast_list(MPI_Comm comm, int root, inter_hdr_t *hdr,
                      int **procs_p, const char *call)
{
    int rc = PMPI_Bcast(hdr, (int)sizeof(*hdr), MPI_BYTE, root, comm);

    if ((rc != MPI_SUCCESS) || (hdr->size <= 0)) {
        return rc;
    }
    if (comm->rank != root) {
        *procs_p = malloc((size_t)hdr->size * sizeof(int));
        if (*procs_p == NULL) {
            return gcm_mpi_raise(comm, MPI_ERR_NO_MEM, call,
                                 "out of memory for a group of %d",
                                 hdr->size);
        }
    }
    return PMPI_Bcast(*procs_p, hdr->size, MPI_INT, root, comm);
}

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a;
    int y = *(const int *)b;

    return (x < y) ? -1 : (x > y);
}

/* Nonzero if the two lists share a process (MPI requires disjoint
 * groups). O((n + m) log(n + m)). */
static int lists_overlap(int n, const int a[], int m, const int b[],
                         int *overlap_p)
{
    int *all;
    int i;
    int found = 0;

    all = malloc(((size_t)n + (size_t)m) * sizeof(int));
    if (all == NULL) {
        return -1;
    }
    memcpy(all, a, (size_t)n * sizeof(int));
    memcpy(all + n, b, (size_t)m * sizeof(int));
    qsort(all, (size_t)n + (size_t)m, sizeof(int), cmp_int);
    for (i = 1; (i < n + m) && (found == 0); i++) {
        if (all[i] == all[i - 1]) {
            found = 1;
            *overlap_p = all[i];
        }
    }
    free(all);
    return found;
}

/*
 * The leader's half of MPI_Intercomm_create: exchanges hdr and the local
 * list with the remote leader over peer_comm, and fills *rhdr and
 * *rprocs_p with the remote group's. Returns MPI_SUCCESS or an error
 * class (with *why set) for the caller to broadcast and raise.
 */
static int leader_exchange(MPI_Comm peer_comm, int remote_leader, int tag,
                           const inter_hdr_t *hdr, const int procs[],
                           inter_hdr_t *rhdr, int **rprocs_p,
                           const char **why)
{
    int ptag = INTER_PEER_TAG(tag);
    gcm_status_t status;

    *rprocs_p = NULL;
    status = gcm_mpi_sendrecv_bytes(peer_comm, hdr, sizeof(*hdr),
                                    remote_leader, rhdr, sizeof(*rhdr),
                                    remote_leader, ptag);
    if (status != GCM_OK) {
        *why = "exchange of group sizes with the remote leader failed";
        return gcm_mpi_errclass(status);
    }
    if (rhdr->errclass != MPI_SUCCESS) {
        /* The remote leader found an error and sends no list. */
        *why = "the remote group's leader reported an error";
        return rhdr->errclass;
    }
    if ((rhdr->size <= 0) || (rhdr->leader < 0)) {
        *why = "the remote leader sent a malformed group header";
        return MPI_ERR_INTERN;
    }
    *rprocs_p = malloc((size_t)rhdr->size * sizeof(int));
    if (*rprocs_p == NULL) {
        *why = "out of memory for the remote group";
        return MPI_ERR_NO_MEM;
    }
    status = gcm_mpi_sendrecv_bytes(peer_comm, procs,
                                    (size_t)hdr->size * sizeof(int),
                                    remote_leader, *rprocs_p,
                                    (size_t)rhdr->size * sizeof(int),
                                    remote_leader, ptag);
    if (status != GCM_OK) {
        *why = "exchange of group lists with the remote leader failed";
        return gcm_mpi_errclass(status);
    }
    return MPI_SUCCESS;
}

/* ---- MPI_Intercomm_create -------------------------------------------- */

int PMPI_Intercomm_create(MPI_Comm local_comm, int local_leader,
                          MPI_Comm peer_comm, int remote_leader, int tag,
                          MPI_Comm *newintercomm)
{
    static const char *call = "MPI_Intercomm_create";
    inter_hdr_t hdr, rhdr;
    int *procs = NULL;
    int *rprocs = NULL;
    const char *why = NULL;
    int errclass = MPI_SUCCESS;
    MPI_Comm comm = MPI_COMM_NULL;
    gcm_lco_h lco = NULL;
    gcm_status_t status;
    int rc, r, me, overlap = -1;

    rc = gcm_mpi_check_init(call);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    rc = gcm_mpi_comm_check(local_comm, call);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (local_comm->kind != GCM_MPI_COMM_INTRA) {
        return gcm_mpi_raise(local_comm, MPI_ERR_COMM, call,
                             "local_comm is not an intracommunicator");
    }
    if (newintercomm == NULL) {
        return gcm_mpi_raise(local_comm, MPI_ERR_ARG, call,
                             "newintercomm is NULL");
    }
    if ((local_leader < 0) || (local_leader >= local_comm->size)) {
        return gcm_mpi_raise(local_comm, MPI_ERR_RANK, call,
                             "local_leader %d is not a rank of local_comm "
                             "(size %d)", local_leader, local_comm->size);
    }
    me = local_comm->rank;

    procs = malloc((size_t)local_comm->size * sizeof(int));
    if (procs == NULL) {
        return gcm_mpi_raise(local_comm, MPI_ERR_NO_MEM, call,
                             "out of memory for a group of %d",
                             local_comm->size);
    }
    for (r = 0; r < local_comm->size; r++) {
        procs[r] = gcm_mpi_comm_proc(local_comm, r);
    }

    memset(&hdr, 0, sizeof(hdr));
    memset(&rhdr, 0, sizeof(rhdr));
    if (me == local_leader) {
        /* peer_comm, remote_leader and tag matter at the leader only. */
        int can_talk = 0;

        if (gcm_mpi_comm_check(peer_comm, call) != MPI_SUCCESS) {
            errclass = MPI_ERR_COMM;
            why = "peer_comm is not a valid communicator";
        } else if ((remote_leader < 0) ||
                   (remote_leader >= peer_comm->psize)) {
            errclass = MPI_ERR_RANK;
            why = "remote_leader is not a rank of peer_comm";
        } else if ((tag < 0) || (tag > GCM_TAG_UB)) {
            /* No internal tag to meet the remote leader on. */
            errclass = MPI_ERR_TAG;
            why = "tag is outside 0..MPI_TAG_UB";
        } else {
            can_talk = 1;
        }
        hdr.errclass = errclass;
        hdr.size     = local_comm->size;
        hdr.leader   = procs[me];
        if (can_talk != 0) {
            uint64_t key = INTER_KEY_MARK |
                           ((uint64_t)(uint32_t)procs[me] << 32) |
                           atomic_fetch_add(&gcm_mpi_inter_count, 1u);

            gcm_lco_derive_id_keyed(local_comm->lco, key, &hdr.id, &hdr.gen);
            errclass = leader_exchange(peer_comm, remote_leader, tag, &hdr,
                                       procs, &rhdr, &rprocs, &why);
        }
        if ((errclass == MPI_SUCCESS) &&
            (lists_overlap(hdr.size, procs, rhdr.size, rprocs, &overlap) !=
             0)) {
            errclass = (overlap < 0) ? MPI_ERR_NO_MEM : MPI_ERR_COMM;
            why = (overlap < 0) ? "out of memory" :
                  "the local and remote groups overlap";
        }
        /* The lower world index's identity, so both groups take the
         * same. */
        if ((errclass == MPI_SUCCESS) && (rhdr.leader < hdr.leader)) {
            hdr.id  = rhdr.id;
            hdr.gen = rhdr.gen;
        }
        rhdr.errclass = errclass;
        rhdr.id       = hdr.id;
        rhdr.gen      = hdr.gen;
        if (errclass != MPI_SUCCESS) {
            rhdr.size = 0;
        }
    }

    /* The leader hands the remote list and the identity to its group. */
    rc = bcast_list(local_comm, local_leader, &rhdr, &rprocs, call);
    if (rc != MPI_SUCCESS) {
        free(procs);
        free(rprocs);
        return rc;
    }
    if (rhdr.errclass != MPI_SUCCESS) {
        free(procs);
        free(rprocs);
        if (why == NULL) {
            why = "the local leader reported an error";
        }
        if (overlap >= 0) {
            return gcm_mpi_raise(local_comm, rhdr.errclass, call,
                                 "%s (process %d is in both)", why, overlap);
        }
        return gcm_mpi_raise(local_comm, rhdr.errclass, call, "%s", why);
    }

    status = gcm_lco_create_pattern(rhdr.id, rhdr.gen, rhdr.size, rprocs,
                                    me, &lco);
    if (status != GCM_OK) {
        free(procs);
        free(rprocs);
        return gcm_mpi_raise_native(local_comm, status, call,
                                    "cannot create the "
                                    "intercommunicator's LCO");
    }
    comm = gcm_mpi_comm_alloc(GCM_MPI_COMM_INTER, lco);
    if (comm == NULL) {
        gcm_lco_free(&lco);
        free(procs);
        free(rprocs);
        return gcm_mpi_raise(local_comm, MPI_ERR_NO_MEM, call,
                             "out of memory for the communicator");
    }
    /* From here gcm_mpi_comm_destroy frees procs and rprocs with it. */
    comm->rank        = me;
    comm->size        = local_comm->size;
    comm->procs       = procs;
    comm->remote_size = rhdr.size;
    comm->rprocs      = rprocs;
    comm->prank       = me;
    comm->psize       = rhdr.size;
    comm->errh        = local_comm->errh;
    gcm_mpi_errh_retain(comm->errh);

    /* The collectives' local phases run on a copy of the local group. */
    rc = gcm_mpi_comm_derive(local_comm, local_comm->size, procs, me, call,
                             &comm->local_comm);
    if (rc != MPI_SUCCESS) {
        gcm_mpi_comm_destroy(comm);
        return rc;
    }
    *newintercomm = comm;
    gcm_mpi_graph_auto(comm);
    return MPI_SUCCESS;
}
GCM_MPI_ALIAS(Intercomm_create)

/* ---- MPI_Intercomm_merge --------------------------------------------- */

/* An order of processes every member agrees on, those of other jobs
 * included (whose indices differ from one job to the other): by job
 * identity, then rank in the job. */
static int gcm_mpi_proc_before(int a, int b)
{
    gcm_lco_procid_t ia, ib;

    if (!gcm_lco_proc_other(a) && !gcm_lco_proc_other(b)) {
        return a < b;
    }
    gcm_lco_proc_ident(a, &ia);
    gcm_lco_proc_ident(b, &ib);
    return (ia.job < ib.job) || ((ia.job == ib.job) && (ia.rank < ib.rank));
}

/*
 * Each group's leader (local rank 0) sends its group's high flag to every
 * member of the other group, on the intercommunicator itself, so every
 * member learns the remote flag from one message. The group that passed
 * high = false comes first; when both passed the same value (MPI leaves
 * the order arbitrary) the group whose leader has the lower world index
 * comes first, which both sides can tell without asking.
 */
int PMPI_Intercomm_merge(MPI_Comm intercomm, int high,
                         MPI_Comm *newintracomm)
{
    static const char *call = "MPI_Intercomm_merge";
    gcm_request_h *reqs = NULL;
    gcm_request_h rreq = GCM_REQUEST_NULL;
    int32_t mine = (high != 0) ? 1 : 0;
    int32_t theirs = -1;
    int *procs = NULL;
    int nreq = 0, first, n, myrank, tag, rc, r;
    gcm_status_t status;

    rc = gcm_mpi_check_init(call);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    rc = gcm_mpi_comm_check(intercomm, call);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (intercomm->kind != GCM_MPI_COMM_INTER) {
        return gcm_mpi_raise(intercomm, MPI_ERR_COMM, call,
                             "not an intercommunicator");
    }
    if (newintracomm == NULL) {
        return gcm_mpi_raise(intercomm, MPI_ERR_ARG, call,
                             "newintracomm is NULL");
    }

    tag = gcm_mpi_coll_tag(intercomm);
    status = gcm_mpi_irecv_bytes(intercomm, &theirs, sizeof(theirs), 0, tag,
                                 &rreq);
    if ((status == GCM_OK) && (intercomm->rank == 0)) {
        reqs = malloc((size_t)intercomm->remote_size * sizeof(*reqs));
        if (reqs == NULL) {
            status = GCM_ERR_NO_MEMORY;
        }
        for (r = 0; (status == GCM_OK) && (r < intercomm->remote_size);
             r++) {
            status = gcm_mpi_isend_bytes(intercomm, &mine, sizeof(mine), r,
                                         tag, &reqs[r]);
            if (status == GCM_OK) {
                nreq++;
            }
        }
    }
    if (nreq > 0) {
        gcm_status_t s2 = gcm_waitall(nreq, reqs, NULL);

        if (status == GCM_OK) {
            status = s2;
        }
    }
    free(reqs);
    if (rreq != GCM_REQUEST_NULL) {
        gcm_status_t s2 = gcm_wait(&rreq, NULL);

        if (status == GCM_OK) {
            status = s2;
        }
    }
    if (status != GCM_OK) {
        return gcm_mpi_raise_native(intercomm, status, call,
                                    "exchange of the high flags failed");
    }

    first = (mine < theirs) ||
            ((mine == theirs) &&
             gcm_mpi_proc_before(gcm_mpi_comm_proc(intercomm, 0),
                                 gcm_mpi_comm_rproc(intercomm, 0)));
    n = intercomm->size + intercomm->remote_size;
    procs = malloc((size_t)n * sizeof(int));
    if (procs == NULL) {
        return gcm_mpi_raise(intercomm, MPI_ERR_NO_MEM, call,
                             "out of memory for a group of %d", n);
    }
    for (r = 0; r < intercomm->size; r++) {
        procs[(first ? 0 : intercomm->remote_size) + r] =
            gcm_mpi_comm_proc(intercomm, r);
    }
    for (r = 0; r < intercomm->remote_size; r++) {
        procs[(first ? intercomm->size : 0) + r] =
            gcm_mpi_comm_rproc(intercomm, r);
    }
    myrank = (first ? 0 : intercomm->remote_size) + intercomm->rank;
    /* Every member of both groups derives from the intercommunicator's
     * identity, which they share, once: the new identity agrees. */
    rc = gcm_mpi_comm_derive(intercomm, n, procs, myrank, call,
                             newintracomm);
    free(procs);
    if (rc == MPI_SUCCESS) {
        gcm_mpi_graph_auto(*newintracomm);
    }
    return rc;
}
GCM_MPI_ALIAS(Intercomm_merge)

/* ---- MPI_Comm_split and MPI_Comm_create on intercommunicators -------- */

/*
 * The intercommunicator between nl processes of comm's local group
 * (lprocs, in rank order; this process is lrank) and nr of its remote
 * group (rprocs), or MPI_COMM_NULL when this process is in no such pair
 * (nl or nr is 0). Collective over both groups, in the same order, as
 * MPI_Comm_dup of an intercommunicator is: every member derives the new
 * identity from comm's once, and a new local communicator from comm's
 * local one (members of no pair pass nl = 0 so the counts stay in step).
 * The pairs of different callers (the colors of a split) are disjoint,
 * so they may share the identity.
 */
static int inter_make(MPI_Comm comm, int nl, const int lprocs[], int lrank,
                      int nr, const int rprocs[], const char *call,
                      MPI_Comm *newcomm)
{
    return gcm_mpi_inter_make(comm, comm->local_comm, nl, lprocs, lrank, nr,
                              rprocs, call, newcomm);
}

int gcm_mpi_inter_make(MPI_Comm comm, MPI_Comm local_parent, int nl,
                       const int lprocs[], int lrank, int nr,
                       const int rprocs[], const char *call,
                       MPI_Comm *newcomm)
{
    MPI_Comm local = MPI_COMM_NULL, inter;
    gcm_status_t status;
    gcm_lco_h lco;
    uint32_t id, gen;
    int rc;

    gcm_lco_derive_id(comm->lco, &id, &gen);
    if (nr == 0) {
        nl = 0;
    }
    rc = gcm_mpi_comm_derive(local_parent, nl, lprocs, lrank, call, &local);
    if ((rc != MPI_SUCCESS) || (local == MPI_COMM_NULL)) {
        *newcomm = MPI_COMM_NULL;
        return rc;
    }
    status = gcm_lco_create_pattern(id, gen, nr, rprocs, lrank, &lco);
    if (status != GCM_OK) {
        gcm_mpi_comm_destroy(local);
        return gcm_mpi_raise_native(comm, status, call,
                                    "cannot create the "
                                    "intercommunicator's LCO");
    }
    inter = gcm_mpi_comm_alloc(GCM_MPI_COMM_INTER, lco);
    if (inter == NULL) {
        gcm_lco_free(&lco);
        gcm_mpi_comm_destroy(local);
        return gcm_mpi_raise(comm, MPI_ERR_NO_MEM, call,
                             "out of memory for the communicator");
    }
    inter->local_comm = local;
    inter->procs  = malloc((size_t)nl * sizeof(int));
    inter->rprocs = malloc((size_t)nr * sizeof(int));
    if ((inter->procs == NULL) || (inter->rprocs == NULL)) {
        gcm_mpi_comm_destroy(inter);
        return gcm_mpi_raise(comm, MPI_ERR_NO_MEM, call,
                             "out of memory for the groups");
    }
    memcpy(inter->procs, lprocs, (size_t)nl * sizeof(int));
    memcpy(inter->rprocs, rprocs, (size_t)nr * sizeof(int));
    inter->rank        = lrank;
    inter->size        = nl;
    inter->remote_size = nr;
    inter->prank       = lrank;
    inter->psize       = nr;
    inter->errh        = comm->errh;
    gcm_mpi_errh_retain(inter->errh);
    *newcomm = inter;
    return MPI_SUCCESS;
}

/* The members of all[0..n) with color, by (key, old rank), as world
 * indices (of the local or remote group) in procs; returns how many, and
 * sets *me_p to the new rank of old rank me (if among them). */
static int split_select(gcm_mpi_split_entry_t *all, int n, int64_t color,
                        MPI_Comm comm, int remote, int me, int procs[],
                        int *me_p)
{
    int m = 0, i;

    for (i = 0; i < n; i++) {
        if (all[i].color == color) {
            all[m++] = all[i];
        }
    }
    qsort(all, (size_t)m, sizeof(*all), gcm_mpi_split_cmp);
    for (i = 0; i < m; i++) {
        procs[i] = remote ? gcm_mpi_comm_rproc(comm, all[i].rank) :
                   gcm_mpi_comm_proc(comm, all[i].rank);
        if (all[i].rank == me) {
            *me_p = i;
        }
    }
    return m;
}

int gcm_mpi_inter_split(MPI_Comm comm, int color, int key, const char *call,
                        MPI_Comm *newcomm)
{
    gcm_mpi_split_entry_t mine, *local, *remote;
    int *lprocs, *rprocs, nl = 0, nr = 0, lrank = 0, rc;

    mine.color = color;
    mine.key   = key;
    mine.rank  = comm->rank;
    local  = malloc((size_t)comm->size * sizeof(*local));
    remote = malloc((size_t)comm->remote_size * sizeof(*remote));
    lprocs = malloc(((size_t)comm->size + 1) * sizeof(int));
    rprocs = malloc(((size_t)comm->remote_size + 1) * sizeof(int));
    if ((local == NULL) || (remote == NULL) || (lprocs == NULL) ||
        (rprocs == NULL)) {
        rc = gcm_mpi_raise(comm, MPI_ERR_NO_MEM, call, "out of memory");
        goto out;
    }
    /* The local group's choices, then the remote group's (an allgather
     * on an intercommunicator gathers the other group's): the
     * collectives raise their own failures on their communicator. */
    rc = PMPI_Allgather(&mine, (int)sizeof(mine), MPI_BYTE, local,
                        (int)sizeof(mine), MPI_BYTE, comm->local_comm);
    if (rc != MPI_SUCCESS) {
        goto out;
    }
    rc = PMPI_Allgather(&mine, (int)sizeof(mine), MPI_BYTE, remote,
                        (int)sizeof(mine), MPI_BYTE, comm);
    if (rc != MPI_SUCCESS) {
        goto out;
    }
    /* A color chosen on one side only gives MPI_COMM_NULL there. */
    if (color != MPI_UNDEFINED) {
        nl = split_select(local, comm->size, color, comm, 0, comm->rank,
                          lprocs, &lrank);
        nr = split_select(remote, comm->remote_size, color, comm, 1, -1,
                          rprocs, &lrank);
    }
    rc = inter_make(comm, nl, lprocs, lrank, nr, rprocs, call, newcomm);
out:
    free(local);
    free(remote);
    free(lprocs);
    free(rprocs);
    return rc;
}

int gcm_mpi_inter_create(MPI_Comm comm, int nl, const int lprocs[],
                         int lrank, const char *call, MPI_Comm *newcomm)
{
    int *counts, *displs = NULL, *rprocs = NULL, nr, r, rc;

    /* Each group passed its own part of the local group; each learns the
     * other's: its size from every remote member, its list from remote
     * rank 0 (the others contribute nothing). */
    counts = malloc((size_t)comm->remote_size * sizeof(int));
    if (counts == NULL) {
        return gcm_mpi_raise(comm, MPI_ERR_NO_MEM, call, "out of memory");
    }
    rc = PMPI_Allgather(&nl, 1, MPI_INT, counts, 1, MPI_INT, comm);
    if (rc != MPI_SUCCESS) {
        free(counts);
        return rc;
    }
    nr = counts[0];
    displs = calloc((size_t)comm->remote_size, sizeof(int));
    rprocs = malloc(((size_t)nr + 1) * sizeof(int));
    if ((displs == NULL) || (rprocs == NULL)) {
        free(counts);
        free(displs);
        free(rprocs);
        return gcm_mpi_raise(comm, MPI_ERR_NO_MEM, call, "out of memory");
    }
    for (r = 1; r < comm->remote_size; r++) {
        counts[r] = 0;
    }
    rc = PMPI_Allgatherv(lprocs, (comm->rank == 0) ? nl : 0, MPI_INT, rprocs,
                         counts, displs, MPI_INT, comm);
    if (rc == MPI_SUCCESS) {
        /* Not in its group: MPI_COMM_NULL, yet it derives like the
         * others. */
        rc = inter_make(comm, (lrank == MPI_UNDEFINED) ? 0 : nl, lprocs,
                        (lrank == MPI_UNDEFINED) ? 0 : lrank, nr, rprocs,
                        call, newcomm);
    }
    free(counts);
    free(displs);
    free(rprocs);
    return rc;
}
