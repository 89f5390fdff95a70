/*
 * compat/mpi_external_comm.c: MPIX_Comm_external, and the definitions
 * that are process sets of MPI-4 sessions (mpi_session.c).
 *
 * Every process computes alone, and alike, every definition's members,
 * order, attributes and edges (lco/lco_ext_eval.c), so MPIX_Comm_external
 * needs no message beyond what making a communicator costs (none:
 * gcm_mpi_comm_derive), and an error in a definition is found by every
 * process alike, which all fail the same way instead of leaving some
 * waiting.
 */
#include "config.h"

#include "boot/boot.h"
#include "compat/mpi_external_impl.h"
#include "lco/lco_ext.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* ---- MPIX_Comm_external ------------------------------------------------- */

/* Members of def in their order (procs: nprocs ints); 0, or -1 with why
 * (the definition's own error, or one its evaluation found). */
static int ext_members(const gcm_ext_def_t *def, int *procs, int *n_p,
                       char *why, size_t whylen)
{
    if (def->error != NULL) {
        snprintf(why, whylen, "%s", def->error);
        return -1;
    }
    return gcm_lco_ext_members(gcm_mpi_ext.ext, def, gcm_mpi_ext.nprocs,
                               (const char *const *)gcm_mpi_ext.names, procs,
                               n_p, why, whylen);
}

/* Is this process a member of def? (The clusters of a definition whose
 * error is not "everywhere" compiled, so this can be told.) */
static int ext_is_member(const gcm_ext_def_t *def)
{
    return gcm_lco_ext_is_member(def, gcm_mpi_ext.myname);
}

static int ext_rank_of(const int *procs, int n, int proc)
{
    int r;

    for (r = 0; r < n; r++) {
        if (procs[r] == proc) {
            return r;
        }
    }
    return -1;
}

/* The members of <comm> def in order (procs: nprocs ints) and, when it
 * has a virtual topology, its edges; with reorder="true", the members
 * placed on the physical topology or else on the hierarchy, here rather
 * than in MPI_Graph_create so that the process set has the order too.
 * 0, or -1 with why. */
static int ext_shape(const gcm_ext_def_t *def, int *procs, int *n_p,
                     int **index_p, int **edges_p, char *why, size_t whylen)
{
    gcm_lco_map_target_t tree, *hier = NULL;
    gcm_lco_map_result_t res;
    uint64_t *keys = NULL;
    int nedges, err, L = 0;

    *index_p = NULL;
    *edges_p = NULL;
    err = ext_members(def, procs, n_p, why, whylen);
    if (err == 0 && def->vtopo.present) {
        err = gcm_lco_ext_vtopo(gcm_mpi_ext.ext, def, gcm_mpi_ext.nprocs,
                                (const char *const *)gcm_mpi_ext.names, *n_p,
                                procs, index_p, edges_p, &nedges, why,
                                whylen);
    }
    if (err == 0 && def->vtopo.present && def->vtopo.reorder &&
        !def->ptopo.present && *n_p > 1) {
        keys = malloc((size_t)*n_p * GCM_MPI_HIER_LEVELS_MAX *
                      sizeof(uint64_t));
        if (keys == NULL) {
            snprintf(why, whylen, "out of memory");
            err = -1;
        } else if (gcm_mpi_hier_target(*n_p, procs, keys, &L) == 0) {
            tree = (gcm_lco_map_target_t){ .kind = GCM_LCO_MAP_TREE,
                                           .nslots = *n_p, .nlevels = L,
                                           .keys = keys };
            hier = &tree;
        }
    }
    if (err == 0) {
        err = gcm_lco_ext_place(gcm_mpi_ext.ext, def,
                                (const char *const *)gcm_mpi_ext.names, *n_p,
                                procs, *index_p, *edges_p, hier, &res, why,
                                whylen);
        if (err == 0 && strcmp(res.how, "identity") != 0) {
            gcm_debug("%s placed on %s (%s): cost %lld, %lld in the order "
                      "given", def->name, def->ptopo.present ? "its "
                      "physical topology" : "the hierarchy", res.how,
                      (long long)res.cost[0], (long long)res.identity[0]);
        }
    }
    free(keys);
    return err;
}

/* Completes *comm, just made over def's members in their order (by its
 * members only, collectively): the virtual topology (a communicator
 * made from it by MPI_Graph_create without reorder replaces it: ext_shape
 * has placed it), the name, the attributes and info. */
static int ext_finish(const gcm_ext_def_t *def, MPI_Comm *comm,
                      const int *index, const int *edges, const char *call)
{
    MPI_Comm g;
    int rc, n;

    if (def->vtopo.present) {
        PMPI_Comm_size(*comm, &n);
        rc = PMPI_Graph_create(*comm, n, index, edges, 0, &g);
        if (rc != MPI_SUCCESS) {
            PMPI_Comm_free(comm);
            return rc;
        }
        PMPI_Comm_free(comm);
        *comm = g;
    }
    (void)PMPI_Comm_set_name(*comm, def->name);
    rc = gcm_mpi_ext_apply(*comm, def);
    if (rc != MPI_SUCCESS) {
        PMPI_Comm_free(comm);
        return gcm_mpi_raise(MPI_COMM_WORLD, rc, call, "cannot set the "
                             "attributes of %s", def->name);
    }
    return MPI_SUCCESS;
}

/* Makes <comm> def. Collective over the world. */
static int ext_make_comm(const gcm_ext_def_t *def, const char *call,
                         MPI_Comm *comm, int *flag)
{
    char why[GCM_EXT_ERRLEN];
    int *procs, *index = NULL, *edges = NULL;
    int n = 0, myrank, rc;
    MPI_Comm c = MPI_COMM_NULL;

    procs = malloc(((size_t)gcm_mpi_ext.nprocs + 1) * sizeof(int));
    if (procs == NULL) {
        return gcm_mpi_raise(MPI_COMM_WORLD, MPI_ERR_NO_MEM, call,
                             "out of memory");
    }
    if (ext_shape(def, procs, &n, &index, &edges, why, sizeof(why)) != 0) {
        /* Every process found the same: the members report it. */
        free(procs);
        if (ext_is_member(def) || def->error_everywhere) {
            return gcm_mpi_raise(MPI_COMM_WORLD, MPI_ERR_OTHER, call, "%s",
                                 why);
        }
        return MPI_SUCCESS;
    }
    myrank = ext_rank_of(procs, n, MPI_COMM_WORLD->rank);
    rc = gcm_mpi_comm_derive(MPI_COMM_WORLD, (myrank >= 0) ? n : 0, procs,
                             myrank, call, &c);
    free(procs);
    if (rc == MPI_SUCCESS && c != MPI_COMM_NULL) {
        rc = ext_finish(def, &c, index, edges, call);
    }
    free(index);
    free(edges);
    if (rc == MPI_SUCCESS && c != MPI_COMM_NULL) {
        *comm = c;
        *flag = 1;
    }
    return rc;
}

/* Makes <intercomm> def. Collective over the world. */
static int ext_make_inter(const gcm_ext_def_t *def, const char *call,
                          MPI_Comm *comm, int *flag)
{
    const gcm_ext_def_t *side[2];
    char why[GCM_EXT_ERRLEN];
    int *procs[2], n[2] = { 0, 0 }, in[2], s, r, me, mine, rank, rc;
    int failed = 0, overlap = -1;

    me = MPI_COMM_WORLD->rank;
    side[0] = gcm_lco_ext_find(gcm_mpi_ext.ext, def->first);
    side[1] = gcm_lco_ext_find(gcm_mpi_ext.ext, def->second);
    procs[0] = malloc(((size_t)gcm_mpi_ext.nprocs + 1) * sizeof(int));
    procs[1] = malloc(((size_t)gcm_mpi_ext.nprocs + 1) * sizeof(int));
    if (procs[0] == NULL || procs[1] == NULL) {
        free(procs[0]);
        free(procs[1]);
        return gcm_mpi_raise(MPI_COMM_WORLD, MPI_ERR_NO_MEM, call,
                             "out of memory");
    }
    /* Who reports a failure: the members of either group, or everybody
     * when a group's members cannot be told. */
    for (s = 0; s < 2; s++) {
        in[s] = side[s]->error_everywhere || ext_is_member(side[s]);
    }
    for (s = 0; s < 2 && !failed; s++) {
        failed = ext_members(side[s], procs[s], &n[s], why, sizeof(why)) != 0;
    }
    if (!failed) {
        in[0] = ext_rank_of(procs[0], n[0], me) >= 0;
        in[1] = ext_rank_of(procs[1], n[1], me) >= 0;
        for (r = 0; r < n[0] && overlap < 0; r++) {
            if (ext_rank_of(procs[1], n[1], procs[0][r]) >= 0) {
                overlap = procs[0][r];
            }
        }
        if (overlap >= 0) {
            snprintf(why, sizeof(why), "%s:%d: the groups of "
                     "intercommunicator %s overlap: process %d (%.100s) is "
                     "in both %s and %s", gcm_mpi_ext.ext->file, def->line,
                     def->name, overlap, gcm_mpi_ext.names[overlap],
                     def->first, def->second);
            failed = 1;
        } else if (n[0] == 0 || n[1] == 0) {
            snprintf(why, sizeof(why), "%s:%d: intercommunicator %s: %s "
                     "has no process in this job", gcm_mpi_ext.ext->file,
                     def->line, def->name,
                     (n[0] == 0) ? def->first : def->second);
            failed = 1;
        }
    }
    if (failed) {
        free(procs[0]);
        free(procs[1]);
        if (in[0] || in[1]) {
            return gcm_mpi_raise(MPI_COMM_WORLD, MPI_ERR_OTHER, call, "%s",
                                 why);
        }
        return MPI_SUCCESS;
    }
    mine = in[0] ? 0 : in[1] ? 1 : -1;
    rank = (mine < 0) ? 0 : ext_rank_of(procs[mine], n[mine], me);
    /* Every process derives, members of neither with no group. */
    rc = gcm_mpi_inter_make(MPI_COMM_WORLD, MPI_COMM_WORLD,
                            (mine < 0) ? 0 : n[mine],
                            procs[(mine < 0) ? 0 : mine], rank,
                            (mine < 0) ? 0 : n[1 - mine],
                            procs[(mine < 0) ? 1 : 1 - mine], call, comm);
    free(procs[0]);
    free(procs[1]);
    if (rc == MPI_SUCCESS && *comm != MPI_COMM_NULL) {
        (void)PMPI_Comm_set_name(*comm, def->name);
        *flag = 1;
    }
    return rc;
}

int PMPIX_Comm_external(MPI_Comm *comm, const char *name, int *flag)
{
    static const char *call = "MPIX_Comm_external";
    const gcm_ext_def_t *def;
    int rc;

    if ((rc = gcm_mpi_check_init(call)) != MPI_SUCCESS) {
        return rc;
    }
    if (comm == NULL || name == NULL || flag == NULL) {
        return gcm_mpi_raise(NULL, MPI_ERR_ARG, call, "%s is NULL",
                             (comm == NULL) ? "comm" :
                             (name == NULL) ? "name" : "flag");
    }
    *comm = MPI_COMM_NULL;
    *flag = 0;
    if (gcm_mpi_ext.ext == NULL) {
        return MPI_SUCCESS;   /* no file: no external communicators */
    }
    if (gcm_mpi_ext.ext->error != NULL) {
        return gcm_mpi_raise(NULL, MPI_ERR_OTHER, call, "%s",
                             gcm_mpi_ext.ext->error);
    }
    def = gcm_lco_ext_find(gcm_mpi_ext.ext, name);
    if (def == NULL) {
        return MPI_SUCCESS;
    }
    if (def->error != NULL && def->kind == GCM_EXT_DEF_INTER) {
        return gcm_mpi_ext_raise_def(call, def);
    }
    if (strcmp(def->name, "MPI_COMM_WORLD") == 0) {
        if (def->error != NULL) {
            return gcm_mpi_ext_raise_def(call, def);
        }
        *comm = MPI_COMM_WORLD;
        *flag = 1;
        return MPI_SUCCESS;
    }
    if (def->kind == GCM_EXT_DEF_INTER) {
        return ext_make_inter(def, call, comm, flag);
    }
    return ext_make_comm(def, call, comm, flag);
}
GCM_MPIX_ALIAS(Comm_external)

/* ---- process sets (MPI-4 sessions, mpi_session.c) ---------------------- */

/* The <comm> definitions that are process sets: all but
 * MPI_COMM_WORLD's own (mpi://WORLD already). */
static const gcm_ext_def_t *ext_pset_def(int i)
{
    int d;

    for (d = 0; gcm_mpi_ext.ext != NULL && d < gcm_mpi_ext.ext->ndefs; d++) {
        const gcm_ext_def_t *def = &gcm_mpi_ext.ext->defs[d];

        if (def->kind == GCM_EXT_DEF_COMM &&
            strcmp(def->name, "MPI_COMM_WORLD") != 0 && i-- == 0) {
            return def;
        }
    }
    return NULL;
}

int gcm_mpi_ext_pset_count(void)
{
    int n = 0;

    while (ext_pset_def(n) != NULL) {
        n++;
    }
    return n;
}

const char *gcm_mpi_ext_pset_name(int i)
{
    const gcm_ext_def_t *def = ext_pset_def(i);

    return (def != NULL) ? def->name : NULL;
}

/* The process-set definition called name, or NULL. */
static const gcm_ext_def_t *ext_pset_find(const char *name)
{
    const gcm_ext_def_t *def = gcm_lco_ext_find(gcm_mpi_ext.ext, name);

    if (def == NULL || def->kind != GCM_EXT_DEF_COMM ||
        strcmp(def->name, "MPI_COMM_WORLD") == 0) {
        return NULL;
    }
    return def;
}

int gcm_mpi_ext_pset_members(const char *name, int **procs_p, int *n_p,
                             char *why, size_t whylen)
{
    const gcm_ext_def_t *def;
    int *index, *edges;

    *procs_p = NULL;
    if (gcm_mpi_ext.ext == NULL) {
        return 1;
    }
    if (gcm_mpi_ext.ext->error != NULL) {
        snprintf(why, whylen, "%s", gcm_mpi_ext.ext->error);
        return -1;
    }
    def = ext_pset_find(name);
    if (def == NULL) {
        return 1;
    }
    *procs_p = malloc(((size_t)gcm_mpi_ext.nprocs + 1) * sizeof(int));
    if (*procs_p == NULL) {
        snprintf(why, whylen, "out of memory");
        return -1;
    }
    /* In the definition's full order, placement on a physical topology
     * included, as MPIX_Comm_external's communicator has it. */
    if (ext_shape(def, *procs_p, n_p, &index, &edges, why, whylen) != 0) {
        free(*procs_p);
        *procs_p = NULL;
        return -1;
    }
    free(index);
    free(edges);
    return 0;
}

int gcm_mpi_ext_pset_info(const char *name, MPI_Info info)
{
    const gcm_ext_def_t *def = ext_pset_find(name);
    const gcm_ext_kv_t **kv;
    int n, i, rc = MPI_SUCCESS;

    if (def == NULL || def->error != NULL ||
        !gcm_lco_ext_is_member(def, gcm_mpi_ext.myname)) {
        return MPI_SUCCESS;
    }
    if (gcm_lco_ext_scoped(def, gcm_mpi_ext.myname, 1, &kv, &n) != 0) {
        return MPI_ERR_NO_MEM;
    }
    for (i = 0; i < n && rc == MPI_SUCCESS; i++) {
        rc = PMPI_Info_set(info, kv[i]->key, kv[i]->value);
    }
    free(kv);
    return rc;
}

int gcm_mpi_ext_pset_attach(const char *name, MPI_Comm *comm,
                            const char *call)
{
    const gcm_ext_def_t *def = ext_pset_find(name);
    char why[GCM_EXT_ERRLEN];
    int *procs, *index, *edges, n, r, same, rc;

    if (def == NULL || def->error != NULL || gcm_mpi_ext.ext->error != NULL) {
        return MPI_SUCCESS;
    }
    procs = malloc(((size_t)gcm_mpi_ext.nprocs + 1) * sizeof(int));
    if (procs == NULL) {
        return MPI_ERR_NO_MEM;
    }
    if (ext_shape(def, procs, &n, &index, &edges, why, sizeof(why)) != 0) {
        free(procs);
        return gcm_mpi_raise(*comm, MPI_ERR_OTHER, call, "%s", why);
    }
    /* Only the process set's own group, in its order, is the
     * definition's communicator: the same on every member. */
    same = ((*comm)->size == n);
    for (r = 0; same && r < n; r++) {
        same = (gcm_mpi_comm_proc(*comm, r) == procs[r]);
    }
    free(procs);
    rc = same ? ext_finish(def, comm, index, edges, call) : MPI_SUCCESS;
    free(index);
    free(edges);
    return rc;
}
