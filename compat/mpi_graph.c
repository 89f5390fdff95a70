/*
 * compat/mpi_graph.c: MPIX_Comm_graph_write, a communicator's LCO graph as
 * Graphviz DOT (lco/lco_graph.c draws it), and GENCOMM_GRAPH_DIR, which
 * draws every communicator the library makes.
 *
 * Every member describes its own LCO; the descriptions are gathered to
 * one process, which writes the file; the outcome is broadcast so that
 * every member returns the same. On an intercommunicator both groups are
 * drawn: the group holding the lower process of the job gathers the
 * other group's descriptions over the intercommunicator and its own over
 * the local one.
 */
#include "config.h"

#include "compat/mpi_impl.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The lowest process of the job among n ranks (procs NULL: rank r is
 * process r). */
static int gcm_mpi_graph_low(const int *procs, int n)
{
    int low = INT_MAX;
    int i;

    for (i = 0; i < n; i++) {
        int p = (procs != NULL) ? procs[i] : i;

        low = (p < low) ? p : low;
    }
    return low;
}

/*
 * Gathers the n-word description mine of every member of comm to root
 * (intercommunicator: root is MPI_ROOT, MPI_PROC_NULL or the remote
 * root, as for MPI_Gather). At the receiving root, *all_p and *nall_p
 * hold them concatenated (malloc'd).
 */
static int gcm_mpi_graph_gather(MPI_Comm comm, int inter, int root,
                                const uint32_t *mine, int n,
                                uint32_t **all_p, size_t *nall_p)
{
    /* Ranks as collectives see them (an LCO communicator's are its
     * slots). */
    int receives = inter ? (root == MPI_ROOT) : (comm->prank == root);
    int size = inter ? comm->remote_size : comm->psize;
    int *counts = NULL, *displs = NULL;
    uint32_t *all = NULL;
    size_t total = 0;
    int rc, i;

    *all_p  = NULL;
    *nall_p = 0;
    if (receives) {
        counts = malloc((size_t)size * sizeof(*counts));
        displs = malloc((size_t)size * sizeof(*displs));
        if ((counts == NULL) || (displs == NULL)) {
            free(counts);
            free(displs);
            return MPI_ERR_NO_MEM;
        }
    }
    rc = PMPI_Gather(&n, 1, MPI_INT, counts, 1, MPI_INT, root, comm);
    if (rc != MPI_SUCCESS) {
        goto out;
    }
    if (receives) {
        for (i = 0; i < size; i++) {
            if ((counts[i] < 0) ||
                (total > (size_t)INT_MAX - (size_t)counts[i])) {
                /* Bad counts: the writer sees none of it; the members
                 * still take part in the gather below. */
                counts[i] = 0;
            }
            displs[i] = (int)total;
            total += (size_t)counts[i];
        }
        all = malloc((total + 1) * sizeof(*all));
        if (all == NULL) {
            /* The others are in the gatherv already: take nothing from
             * them (their messages are cut off, never written anywhere)
             * and report. */
            static uint32_t none;

            rc = MPI_ERR_NO_MEM;
            memset(counts, 0, (size_t)size * sizeof(*counts));
            memset(displs, 0, (size_t)size * sizeof(*displs));
            (void)PMPI_Gatherv(mine, n, MPI_UINT32_T, &none, counts, displs,
                               MPI_UINT32_T, root, comm);
            goto out;
        }
    }
    rc = PMPI_Gatherv(mine, n, MPI_UINT32_T, all, counts, displs,
                      MPI_UINT32_T, root, comm);
    if ((rc == MPI_SUCCESS) && receives) {
        *all_p  = all;
        *nall_p = total;
        all = NULL;
    }
out:
    free(all);
    free(counts);
    free(displs);
    return rc;
}

/* Writes words as DOT to path; the MPI error class (0 on success), with
 * the reason in why. */
static int gcm_mpi_graph_file(const uint32_t *words, size_t nwords,
                              const char *path, const char *title,
                              char *why, size_t whylen)
{
    FILE *fp;
    gcm_status_t status;

    if (path[0] == '\0') {
        snprintf(why, whylen, "path is NULL or empty at the writing "
                 "process (rank 0)");
        return MPI_ERR_ARG;
    }
    fp = fopen(path, "w");
    if (fp == NULL) {
        snprintf(why, whylen, "cannot open %s: %s", path, strerror(errno));
        return MPI_ERR_OTHER;
    }
    status = gcm_lco_graph_write_words(words, nwords, title, fp,
                                       "MPIX_Comm_graph_write");
    if ((fclose(fp) != 0) && (status == GCM_OK)) {
        snprintf(why, whylen, "cannot write %s: %s", path, strerror(errno));
        return MPI_ERR_OTHER;
    }
    if (status != GCM_OK) {
        snprintf(why, whylen, "%s", gcm_last_error());
        return MPI_ERR_OTHER;
    }
    return 0;
}

/* The collective part: errclass 0 or the class the writer met (the same
 * at every member on return), why its reason. */
static int gcm_mpi_graph_run(MPI_Comm comm, const char *path, int *errclass,
                             char *why, size_t whylen)
{
    int inter = (comm->kind == GCM_MPI_COMM_INTER);
    MPI_Comm local = inter ? comm->local_comm : comm;
    uint32_t *mine = NULL, *theirs = NULL, *ours = NULL, *both = NULL;
    size_t nmine = 0, ntheirs = 0, nours = 0;
    int writer_group = 1;   /* this group writes (intracommunicator) */
    int writer;
    gcm_status_t status;
    char title[MPI_MAX_OBJECT_NAME + 64];
    int rc;

    *errclass = 0;
    why[0] = '\0';
    status = gcm_lco_graph_describe(comm->lco, &mine, &nmine);
    if (status != GCM_OK) {
        return gcm_mpi_raise_native(comm, status, "MPIX_Comm_graph_write",
                                    "describing this member's LCO");
    }
    if (nmine > (size_t)INT_MAX) {
        free(mine);
        return gcm_mpi_raise(comm, MPI_ERR_OTHER, "MPIX_Comm_graph_write",
                             "this member's LCO has too many slots to draw");
    }
    if (inter) {
        writer_group = gcm_mpi_graph_low(comm->procs, comm->size) <
                       gcm_mpi_graph_low(comm->rprocs, comm->remote_size);
        /* The other group's descriptions to the writing group's rank 0. */
        rc = gcm_mpi_graph_gather(comm, 1,
                                  writer_group ? ((comm->rank == 0) ?
                                                  MPI_ROOT : MPI_PROC_NULL)
                                               : 0,
                                  writer_group ? NULL : mine,
                                  writer_group ? 0 : (int)nmine,
                                  &theirs, &ntheirs);
        if (rc != MPI_SUCCESS) {
            goto out;
        }
    }
    writer = writer_group && (local->prank == 0);
    if (writer_group) {
        rc = gcm_mpi_graph_gather(local, 0, 0, mine, (int)nmine, &ours,
                                  &nours);
        if (rc != MPI_SUCCESS) {
            goto out;
        }
    }
    if (writer) {
        both = malloc((nours + ntheirs + 1) * sizeof(*both));
        if (both == NULL) {
            *errclass = MPI_ERR_NO_MEM;
            snprintf(why, whylen, "no memory for the whole graph");
        } else {
            if (nours > 0) {
                memcpy(both, ours, nours * sizeof(*both));
            }
            if (ntheirs > 0) {
                memcpy(both + nours, theirs, ntheirs * sizeof(*both));
            }
            snprintf(title, sizeof(title), "%s%s%s",
                     (comm->name[0] != '\0') ? comm->name : "communicator",
                     inter ? " (intercommunicator)" : "",
                     (comm->kind == GCM_MPI_COMM_LCO) ? " (LCOs)" : "");
            *errclass = gcm_mpi_graph_file(both, nours + ntheirs, path,
                                           title, why, whylen);
        }
    }
    /* Everyone learns the outcome and its reason. */
    {
        char msg[257];

        if (writer) {
            snprintf(msg, sizeof(msg), "%s", why);
        }
        msg[256] = '\0';
        if (inter) {
            rc = PMPI_Bcast(errclass, 1, MPI_INT,
                            writer_group ? ((comm->rank == 0) ? MPI_ROOT :
                                            MPI_PROC_NULL) : 0, comm);
            if (rc == MPI_SUCCESS) {
                rc = PMPI_Bcast(msg, 256, MPI_CHAR,
                                writer_group ? ((comm->rank == 0) ?
                                                MPI_ROOT : MPI_PROC_NULL)
                                             : 0, comm);
            }
        }
        if (writer_group || !inter) {
            rc = PMPI_Bcast(errclass, 1, MPI_INT, 0, local);
            if (rc == MPI_SUCCESS) {
                rc = PMPI_Bcast(msg, 256, MPI_CHAR, 0, local);
            }
        }
        msg[255] = '\0';
        snprintf(why, whylen, "%.200s", msg);
    }
out:
    free(mine);
    free(theirs);
    free(ours);
    free(both);
    return rc;
}

int PMPIX_Comm_graph_write(MPI_Comm comm, const char *path)
{
    static const char *call = "MPIX_Comm_graph_write";
    char why[256];
    int errclass = 0;
    int rc;

    if ((rc = gcm_mpi_comm_check(comm, call)) != MPI_SUCCESS) {
        return rc;
    }
    if (comm->lco == NULL) {
        return gcm_mpi_raise(comm, MPI_ERR_COMM, call,
                             "the communicator has no LCO to draw");
    }
    if ((comm->kind == GCM_MPI_COMM_LCO) && (comm->prank == MPI_UNDEFINED)) {
        return gcm_mpi_raise(comm, MPI_ERR_COMM, call,
                             "an LCO communicator whose slots are not a "
                             "fully connected structure has no members to "
                             "gather from: draw its LCO with "
                             "gcm_lco_graph_write");
    }
    rc = gcm_mpi_graph_run(comm, (path != NULL) ? path : "", &errclass, why,
                           sizeof(why));
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (errclass != 0) {
        return gcm_mpi_raise(comm, errclass, call, "%s", why);
    }
    return MPI_SUCCESS;
}
GCM_MPIX_ALIAS(Comm_graph_write)

/* GENCOMM_GRAPH_DIR: draws comm, just made, into that folder as
 * comm-<pid of the writer>-<its count>.dot. Collective over comm like the
 * call that made it; a failure is a warning, never the call's error. */
void gcm_mpi_graph_auto(MPI_Comm comm)
{
    static atomic_uint count;
    const char *dir = gcm_mpi_config.graph_dir;
    char path[PATH_MAX];
    char why[256];
    int errclass = 0;

    if ((dir == NULL) || (dir[0] == '\0') || (comm == MPI_COMM_NULL) ||
        (comm->lco == NULL) ||
        ((comm->kind == GCM_MPI_COMM_LCO) && (comm->prank == MPI_UNDEFINED))) {
        return;
    }
    snprintf(path, sizeof(path), "%s/comm-%ld-%u.dot", dir, (long)getpid(),
             atomic_fetch_add(&count, 1));
    if ((gcm_mpi_graph_run(comm, path, &errclass, why, sizeof(why)) !=
         MPI_SUCCESS) || (errclass != 0)) {
        fprintf(stderr, "gencomm: warning: GENCOMM_GRAPH_DIR: %s\n",
                (errclass != 0) ? why : "the gather failed");
    }
}
