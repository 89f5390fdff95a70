/*
 * compat/mpi_dpm_group.c: the groups of a connection: gathering each side's
 * identities, sharing the root's outcome, making the intercommunicator.
 */
#include "config.h"

#include "compat/mpi_dpm_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Every member's own identity, in rank order of comm (this process's
 * contact service starts). n * GCM_LCO_PROCID_SIZE bytes, malloc'd. */
int gcm_mpi_dpm_gather_group(MPI_Comm comm, unsigned char **out_p)
{
    unsigned char mine[GCM_LCO_PROCID_SIZE];
    gcm_lco_procid_t id;
    unsigned char *all;
    int rc;

    if (gcm_lco_proc_ident(gcm_mpi_comm_proc(comm, comm->rank), &id) !=
        GCM_OK) {
        return MPI_ERR_INTERN;
    }
    if (id.port == 0) {
        /* Nobody could reach this process from another job. */
        return MPI_ERR_OTHER;
    }
    gcm_lco_procid_encode(&id, mine);
    all = malloc((size_t)comm->size * GCM_LCO_PROCID_SIZE);
    if (all == NULL) {
        return MPI_ERR_NO_MEM;
    }
    if (comm->size == 1) {
        memcpy(all, mine, sizeof(mine));
        rc = MPI_SUCCESS;
    } else {
        rc = PMPI_Allgather(mine, GCM_LCO_PROCID_SIZE, MPI_BYTE, all,
                            GCM_LCO_PROCID_SIZE, MPI_BYTE, comm);
    }
    if (rc != MPI_SUCCESS) {
        free(all);
        return rc;
    }
    *out_p = all;
    return MPI_SUCCESS;
}

/* The root hands the outcome (and the remote group) to comm's members. */
static int dpm_share(MPI_Comm comm, int root, gcm_mpi_dpm_outcome_t *out,
                     unsigned char **remote_p)
{
    int rc;

    if (comm->size == 1) {
        return MPI_SUCCESS;
    }
    rc = PMPI_Bcast(out, (int)sizeof(*out), MPI_BYTE, root, comm);
    if ((rc != MPI_SUCCESS) || (out->errclass != MPI_SUCCESS)) {
        return rc;
    }
    if (comm->rank != root) {
        *remote_p = malloc((size_t)out->n * GCM_LCO_PROCID_SIZE);
        if (*remote_p == NULL) {
            return MPI_ERR_NO_MEM;
        }
    }
    return PMPI_Bcast(*remote_p, (int)(out->n * GCM_LCO_PROCID_SIZE),
                      MPI_BYTE, root, comm);
}

/* Every member makes the intercommunicator of the outcome. */
static int dpm_make_inter(MPI_Comm comm, const gcm_mpi_dpm_outcome_t *out,
                          const unsigned char *remote, const char *call,
                          MPI_Comm *newcomm)
{
    int *procs = NULL, *rprocs = NULL;
    gcm_lco_procid_t id;
    gcm_status_t status;
    gcm_lco_h lco = NULL;
    MPI_Comm inter;
    uint32_t r;
    int rc;

    procs  = malloc((size_t)comm->size * sizeof(int));
    rprocs = malloc((size_t)out->n * sizeof(int));
    if ((procs == NULL) || (rprocs == NULL)) {
        free(procs);
        free(rprocs);
        return gcm_mpi_raise(comm, MPI_ERR_NO_MEM, call, "out of memory");
    }
    for (r = 0; r < (uint32_t)comm->size; r++) {
        procs[r] = gcm_mpi_comm_proc(comm, (int)r);
    }
    for (r = 0; r < out->n; r++) {
        gcm_lco_procid_decode(remote + (size_t)r * GCM_LCO_PROCID_SIZE, &id);
        rprocs[r] = gcm_lco_proc_lookup(&id);
        if (rprocs[r] < 0) {
            free(procs);
            free(rprocs);
            return gcm_mpi_raise(comm, MPI_ERR_OTHER, call, "remote process "
                                 "%u: %s", r, gcm_last_error());
        }
    }
    status = gcm_lco_create_pattern_x(out->id, out->gen, 0, out->token,
                                      (int)out->n, rprocs, comm->rank, &lco);
    if (status != GCM_OK) {
        free(procs);
        free(rprocs);
        return gcm_mpi_raise_native(comm, status, call, "cannot create the "
                                    "intercommunicator's LCO");
    }
    inter = gcm_mpi_comm_alloc(GCM_MPI_COMM_INTER, lco);
    if (inter == NULL) {
        gcm_lco_free(&lco);
        free(procs);
        free(rprocs);
        return gcm_mpi_raise(comm, MPI_ERR_NO_MEM, call, "out of memory");
    }
    inter->rank        = comm->rank;
    inter->size        = comm->size;
    inter->procs       = procs;
    inter->remote_size = (int)out->n;
    inter->rprocs      = rprocs;
    inter->prank       = comm->rank;
    inter->psize       = (int)out->n;
    inter->errh        = comm->errh;
    gcm_mpi_errh_retain(inter->errh);
    /* The collectives' local phases run on a copy of the local group. */
    rc = gcm_mpi_comm_derive(comm, comm->size, procs, comm->rank, call,
                             &inter->local_comm);
    if (rc != MPI_SUCCESS) {
        gcm_mpi_comm_destroy(inter);
        return rc;
    }
    *newcomm = inter;
    return MPI_SUCCESS;
}

/* The seconds connect waits: the info key "timeout", else
 * GENCOMM_CONNECT_TIMEOUT. -1 for a value that is not a positive
 * number. */
double gcm_mpi_dpm_timeout(MPI_Info info)
{
    char value[MPI_MAX_INFO_VAL + 1];
    char *end;
    double t;
    int flag = 0;

    if ((info != MPI_INFO_NULL) &&
        (PMPI_Info_get(info, "timeout", MPI_MAX_INFO_VAL, value, &flag) ==
         MPI_SUCCESS) && flag) {
        t = strtod(value, &end);
        if ((end == value) || (*end != '\0') || !(t > 0)) {
            return -1;
        }
        return t;
    }
    return gcm_lco_connect_timeout();
}

/* After the root's part: every member learns the outcome and makes the
 * intercommunicator (verb: what the root did, for the error). The root
 * expects the intercommunicator's messages from its reply or request on,
 * until its LCO is made here. */
int gcm_mpi_dpm_finish(MPI_Comm comm, int root, gcm_mpi_dpm_outcome_t *out,
                       unsigned char *remote, const char *why,
                       const char *verb, const char *call, MPI_Comm *newcomm)
{
    int held = (comm->rank == root) && (out->errclass == MPI_SUCCESS);
    int rc = dpm_share(comm, root, out, &remote);

    if ((rc == MPI_SUCCESS) && (out->errclass != MPI_SUCCESS)) {
        free(remote);
        if (why[0] != '\0') {
            return gcm_mpi_raise(comm, out->errclass, call, "%s", why);
        }
        return gcm_mpi_raise(comm, out->errclass, call, "the root could "
                             "not %s", verb);
    }
    if (rc == MPI_SUCCESS) {
        rc = dpm_make_inter(comm, out, remote, call, newcomm);
    } else {
        rc = gcm_mpi_raise(comm, rc, call, "the root's outcome did not "
                           "reach every member");
    }
    if (held) {
        gcm_lco_token_unexpect(out->token);
    }
    free(remote);
    return rc;
}

int gcm_mpi_dpm_check(const char *call, MPI_Info info, int root,
                      MPI_Comm comm, MPI_Comm *newcomm, const char *what)
{
    int rc;

    if ((rc = gcm_mpi_check_init(call)) != MPI_SUCCESS) {
        return rc;
    }
    if ((rc = gcm_mpi_comm_check(comm, call)) != MPI_SUCCESS) {
        return rc;
    }
    if (comm->kind != GCM_MPI_COMM_INTRA) {
        return gcm_mpi_raise(comm, MPI_ERR_COMM, call,
                             "comm is not an intracommunicator");
    }
    if (newcomm == NULL) {
        return gcm_mpi_raise(comm, MPI_ERR_ARG, call, "%s is NULL", what);
    }
    if ((root < 0) || (root >= comm->size)) {
        return gcm_mpi_raise(comm, MPI_ERR_ROOT, call, "root %d is not a "
                             "rank of comm (size %d)", root, comm->size);
    }
    if ((info != MPI_INFO_NULL) && (gcm_mpi_info_check(info) != 0)) {
        return gcm_mpi_raise(comm, MPI_ERR_INFO, call, "invalid info");
    }
    return MPI_SUCCESS;
}

int gcm_mpi_dpm_pair(const char *port_name, double timeout, int root,
                     MPI_Comm comm, gcm_mpi_dpm_root_fn *root_part,
                     const char *verb, const char *call, MPI_Comm *newcomm)
{
    unsigned char *group = NULL, *remote = NULL;
    gcm_mpi_dpm_outcome_t out;
    char why[200] = "";
    int rc;

    *newcomm = MPI_COMM_NULL;
    memset(&out, 0, sizeof(out));
    rc = gcm_mpi_dpm_gather_group(comm, &group);
    if (rc != MPI_SUCCESS) {
        return gcm_mpi_raise(comm, rc, call, "cannot gather the group's "
                             "contacts");
    }
    if (comm->rank == root) {
        root_part(port_name, timeout, comm, group, &out, &remote, why,
                  sizeof(why));
    }
    free(group);
    return gcm_mpi_dpm_finish(comm, root, &out, remote, why, verb, call,
                              newcomm);
}
