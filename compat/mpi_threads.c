/*
 * compat/mpi_threads.c: one LCO per thread (MPIX_Comm_create_threads).
 *
 * The processes of an intracommunicator comm each ask for their own
 * number of LCOs, 0 included. The N LCOs of all of them are ranked by
 * (rank of their process in comm, local index), and together form the
 * seed's fully connected structure (its Figure 3) with several LCOs per
 * process: the LCO of rank g has N receive slots and N send slots, send
 * slot j targeting receive slot g of the LCO of rank j. Each LCO is an
 * MPI_Comm of kind LCO, so the rest of the layer needs nothing new:
 * point-to-point ranks are LCO ranks (send slot j reaches LCO j, receive
 * slot j hears from it), and every collective runs among the N LCOs (a
 * thread's MPI_Allreduce on its LCO reduces over all threads of all
 * processes). MPIX_Comm_lco_rank is g, MPIX_Num_send_slots is N, and
 * MPI_Comm_size and MPI_Comm_rank describe the process group as for any
 * LCO (the seed's rule): the processes that hold LCOs of the structure,
 * in comm's order, and this process's place among them.
 *
 * Each LCO is homed on an endpoint of its own (gcm_lco_endpoint_reserve),
 * so threads that use different LCOs never share an endpoint lock while
 * free endpoints remain. LCOs of one process reach each other through the
 * same-process path; those of other processes through UCX or shared
 * memory, as any LCO does.
 *
 * Every LCO exists, with its receive slots, before its name is sent, so
 * no message can reach an LCO not made yet, and the gathered names cannot
 * be stale or forged: the send slots are trusted (gcm_lco_trust_send_slots)
 * and a first message on an edge completes like any later one, without
 * waiting for the receiver's acceptance.
 */
#include "config.h"

#include "compat/mpi_impl.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* gencomm.h and mpi.h each size names: copied byte for byte. */
_Static_assert(sizeof(MPIX_Cname) == sizeof(gcm_name_t),
               "MPIX_Cname and gcm_name_t differ in size");

/* A new LCO on endpoint ep with n receive slots; its name in *name. */
static gcm_status_t threads_lco_new(int ep, int n, gcm_lco_h *lco_p,
                                    MPIX_Cname *name)
{
    gcm_status_t status;
    gcm_lco_h lco;

    status = gcm_lco_create_on(ep, &lco);
    if (status != GCM_OK) {
        return status;
    }
    status = gcm_lco_add_recv_slots(lco, n);
    if (status == GCM_OK) {
        status = gcm_lco_name(lco, (gcm_name_t *)(void *)name);
    }
    if (status != GCM_OK) {
        gcm_lco_free(&lco);
        return status;
    }
    *lco_p = lco;
    return GCM_OK;
}

/*
 * Makes lco the member of rank g of the structure named by names[0..n-1]
 * (send slot j targets receive slot g of names[j]) and wraps it in a
 * communicator whose process group is procs[0..nprocs-1] (this process
 * being myproc) and whose error handler is errh_from's. On success the
 * communicator owns lco; on failure lco is left to the caller.
 */
static int threads_comm_make(gcm_lco_h lco, int n, const MPIX_Cname names[],
                             int g, int nprocs, const int procs[],
                             int myproc, MPI_Comm errh_from,
                             const char *call, MPI_Comm *comm_p)
{
    gcm_status_t status;
    MPI_Comm comm;
    int *rslots, i;

    rslots = malloc((size_t)n * sizeof(*rslots));
    if (rslots == NULL) {
        return gcm_mpi_raise(errh_from, MPI_ERR_NO_MEM, call,
                             "out of memory for %d send slots", n);
    }
    for (i = 0; i < n; i++) {
        rslots[i] = g;
    }
    /* MPIX_Cname is gcm_name_t byte for byte (checked above). */
    status = gcm_lco_add_send_slots(lco, n,
                                    (const gcm_name_t *)(const void *)names,
                                    rslots);
    free(rslots);
    if (status == GCM_OK) {
        status = gcm_lco_trust_send_slots(lco, 0, n);
    }
    if (status != GCM_OK) {
        return gcm_mpi_raise_native(errh_from, status, call,
                                    "cannot connect an LCO");
    }
    comm = gcm_mpi_comm_alloc(GCM_MPI_COMM_LCO, lco);
    if (comm == NULL) {
        return gcm_mpi_raise(errh_from, MPI_ERR_NO_MEM, call,
                             "out of memory for the communicator");
    }
    comm->procs = malloc(((size_t)nprocs + 1) * sizeof(int));
    if (comm->procs == NULL) {
        comm->lco = NULL;   /* the caller frees it */
        gcm_mpi_comm_destroy(comm);
        return gcm_mpi_raise(errh_from, MPI_ERR_NO_MEM, call,
                             "out of memory for the group");
    }
    memcpy(comm->procs, procs, (size_t)nprocs * sizeof(int));
    comm->size   = nprocs;
    comm->rank   = myproc;
    comm->prank  = g;
    comm->psize  = n;
    /* n receive slots (threads_lco_new) and n send slots, for ever. */
    comm->sealed = 1;
    comm->errh   = errh_from->errh;
    gcm_mpi_errh_retain(comm->errh);
    *comm_p = comm;
    return MPI_SUCCESS;
}

/*
 * Agrees over comm whether every member got this far (ok nonzero): a
 * member that failed alone must not leave the others waiting for its
 * names, nor connected to LCOs it freed. Returns 0 when all did.
 */
static int threads_agree(MPI_Comm comm, int ok, int *rc_p)
{
    int failed = !ok, any = 0;

    *rc_p = PMPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, comm);
    return (*rc_p != MPI_SUCCESS) || (any != 0);
}

int PMPIX_Comm_create_threads(MPI_Comm comm, int nthreads, MPI_Comm lcomms[])
{
    static const char *call = "MPIX_Comm_create_threads";
    MPIX_Cname *mine = NULL, *names = NULL;
    gcm_lco_h *lcos = NULL;
    gcm_status_t status = GCM_OK;
    int *counts = NULL, *displs = NULL, *procs = NULL;
    int np, me, arg, first = 0, total = 0, nprocs = 0, myproc = 0;
    int64_t sum = 0;
    int made = 0, connected = 0;
    int rc, r, i;

    rc = gcm_mpi_comm_check(comm, call);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (comm->kind == GCM_MPI_COMM_INTER) {
        return gcm_mpi_raise(comm, MPI_ERR_COMM, call,
                             "comm is an intercommunicator: the LCOs are "
                             "made over the processes of an "
                             "intracommunicator");
    }
    if (comm->kind == GCM_MPI_COMM_LCO) {
        return gcm_mpi_raise(comm, MPI_ERR_COMM, call,
                             "comm is an LCO, whose collectives run among "
                             "LCOs, not processes: pass an "
                             "intracommunicator");
    }
    np = comm->size;
    me = comm->rank;
    counts = malloc((size_t)np * sizeof(int));
    displs = malloc((size_t)np * sizeof(int));
    procs  = malloc((size_t)np * sizeof(int));
    if ((counts == NULL) || (displs == NULL) || (procs == NULL)) {
        free(counts);
        free(displs);
        free(procs);
        return gcm_mpi_raise(comm, MPI_ERR_NO_MEM, call,
                             "out of memory for %d processes", np);
    }

    /*
     * Every member learns every count, and with it whether some member
     * passed bad arguments (-1): then all raise an error, none waits for
     * an exchange that would never come.
     */
    arg = ((nthreads < 0) || ((nthreads > 0) && (lcomms == NULL))) ? -1 :
          nthreads;
    rc = PMPI_Allgather(&arg, 1, MPI_INT, counts, 1, MPI_INT, comm);
    if (rc != MPI_SUCCESS) {
        goto out;
    }
    if (nthreads < 0) {
        rc = gcm_mpi_raise(comm, MPI_ERR_ARG, call, "nthreads %d is "
                           "negative", nthreads);
        goto out;
    }
    if (arg < 0) {
        rc = gcm_mpi_raise(comm, MPI_ERR_ARG, call, "lcomms is NULL but "
                           "nthreads is %d", nthreads);
        goto out;
    }
    for (r = 0; r < np; r++) {
        if (counts[r] < 0) {
            rc = gcm_mpi_raise(comm, MPI_ERR_ARG, call, "process %d of comm "
                               "passed a bad nthreads or lcomms (its error "
                               "says which); no LCO was made", r);
            goto out;
        }
        displs[r] = (int)sum;
        sum += counts[r];
        if (sum > INT_MAX / (int64_t)sizeof(MPIX_Cname)) {
            rc = gcm_mpi_raise(comm, MPI_ERR_ARG, call, "%lld LCOs in all "
                               "by process %d: too many for one structure",
                               (long long)sum, r);
            goto out;
        }
        if (counts[r] > 0) {
            if (r == me) {
                myproc = nprocs;
            }
            procs[nprocs++] = gcm_mpi_comm_proc(comm, r);
        }
    }
    total = (int)sum;
    first = displs[me];
    if (total == 0) {
        rc = MPI_SUCCESS;   /* nobody asked for an LCO */
        goto out;
    }

    /* This process's LCOs, each on an endpoint of its own. */
    if (nthreads > 0) {
        lcos  = calloc((size_t)nthreads, sizeof(*lcos));
        mine  = malloc((size_t)nthreads * sizeof(*mine));
        if ((lcos == NULL) || (mine == NULL)) {
            status = GCM_ERR_NO_MEMORY;
        }
    }
    names = malloc((size_t)total * sizeof(*names));
    if (names == NULL) {
        status = GCM_ERR_NO_MEMORY;
    }
    for (i = 0; (i < nthreads) && (status == GCM_OK); i++) {
        status = threads_lco_new(gcm_lco_endpoint_reserve(), total, &lcos[i],
                                 &mine[i]);
        made += (status == GCM_OK);
    }
    if (threads_agree(comm, status == GCM_OK, &rc)) {
        if (rc == MPI_SUCCESS) {
            rc = (status != GCM_OK) ?
                 gcm_mpi_raise_native(comm, status, call,
                                      "cannot make this process's LCOs") :
                 gcm_mpi_raise(comm, MPI_ERR_OTHER, call, "another process "
                               "could not make its LCOs; none was made");
        }
        goto out;
    }
    rc = PMPI_Allgatherv(mine, nthreads, MPIX_CNAME, names, counts, displs,
                         MPIX_CNAME, comm);
    if (rc != MPI_SUCCESS) {
        goto out;
    }
    for (i = 0; i < nthreads; i++) {
        rc = threads_comm_make(lcos[i], total, names, first + i, nprocs,
                               procs, myproc, comm, call, &lcomms[i]);
        if (rc != MPI_SUCCESS) {
            break;
        }
        lcos[i] = NULL;   /* the communicator owns it */
        connected++;
    }

out:
    if (rc != MPI_SUCCESS) {
        for (i = 0; i < connected; i++) {
            gcm_mpi_comm_destroy(lcomms[i]);
            lcomms[i] = MPI_COMM_NULL;
        }
        for (i = connected; i < made; i++) {
            if (lcos[i] != NULL) {
                gcm_lco_free(&lcos[i]);
            }
        }
    }
    free(lcos);
    free(mine);
    free(names);
    free(counts);
    free(displs);
    free(procs);
    return rc;
}
GCM_MPIX_ALIAS(Comm_create_threads)

int gcm_mpi_lco_dup_by_names(MPI_Comm comm, const char *call,
                             MPI_Comm *newcomm)
{
    MPIX_Cname mine, *names;
    gcm_status_t status;
    gcm_lco_h lco = NULL;
    int n = comm->psize;
    int *procs;
    int rc, i;

    names = malloc((size_t)n * sizeof(*names));
    procs = malloc(((size_t)comm->size + 1) * sizeof(int));
    status = ((names == NULL) || (procs == NULL)) ? GCM_ERR_NO_MEMORY :
             threads_lco_new(gcm_lco_endpoint_of(comm->lco), n, &lco,
                             &mine);
    /* As in MPIX_Comm_create_threads: all members made theirs, or all
     * give up. The new LCO lives where the old one does: the thread that
     * uses one uses the other. */
    if (threads_agree(comm, status == GCM_OK, &rc)) {
        if (rc == MPI_SUCCESS) {
            rc = (status != GCM_OK) ?
                 gcm_mpi_raise_native(comm, status, call,
                                      "cannot make the duplicate's LCO") :
                 gcm_mpi_raise(comm, MPI_ERR_OTHER, call, "another member "
                               "could not make its LCO of the duplicate");
        }
        goto out;
    }
    rc = PMPI_Allgather(&mine, 1, MPIX_CNAME, names, 1, MPIX_CNAME, comm);
    if (rc != MPI_SUCCESS) {
        goto out;
    }
    for (i = 0; i < comm->size; i++) {
        procs[i] = gcm_mpi_comm_proc(comm, i);
    }
    rc = threads_comm_make(lco, n, names, comm->prank, comm->size, procs,
                           comm->rank, comm, call, newcomm);
    if (rc == MPI_SUCCESS) {
        lco = NULL;
    }

out:
    if (lco != NULL) {
        gcm_lco_free(&lco);
    }
    free(names);
    free(procs);
    return rc;
}
