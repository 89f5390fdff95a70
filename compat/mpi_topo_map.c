/*
 * compat/mpi_topo_map.c: reordering of the topology calls. What every
 * creation call shares: the mapinfo hints, one exchange in which the
 * processes agree (or all fail alike), and the mapping of the call's
 * communication graph onto the SMP hierarchy (mpi_hier.c) by
 * lco/lco_map.c.
 *
 * The agreement: every process of the old communicator contributes one
 * fixed-size record (an allgather): the verdict of its own argument
 * checks, its reorder, the counts the call needs (an MPIX_Graph_create
 * degree, a distributed graph's in- and out-degrees), its hints, and a
 * hash of the arguments that must be the same everywhere (a grid, a whole
 * graph). Afterwards every process knows the same things, so a bad
 * argument or a mismatch fails on every process with the same class
 * instead of hanging one of them, and reorder is local: a process that
 * passes 0 keeps its rank, whatever the others pass.
 *
 * The mapping: vertex v of the graph is rank v of the new communicator;
 * slot s is the process of old rank slots[s]. The hierarchy's keys of the
 * slot processes (the host, then the hwloc levels kept) are the target,
 * a tree compared level by level: first the weight of the edges between
 * hosts, then between packages, and so on. lco/lco_map.c returns the
 * identity unless it finds better, and the same result on every process
 * given the same input, so the new communicator's ranks need no further
 * message. The hints used are rank 0's.
 */
#include "config.h"

#include "compat/mpi_topo_impl.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- hints ------------------------------------------------------------------ */

int gcm_mpi_topo_hints(MPI_Comm comm, MPI_Info info, const char *call,
                       gcm_mpi_topo_hints_t *h)
{
    char value[MPI_MAX_INFO_VAL + 1];
    int flag = 0;

    h->method = GCM_LCO_MAP_SCOTCH;
    h->time   = GCM_LCO_MAP_TIME_DEFAULT;
    if (info == MPI_INFO_NULL) {
        return MPI_SUCCESS;
    }
    if (gcm_mpi_info_check(info) != 0) {
        return gcm_mpi_raise(comm, MPI_ERR_INFO, call,
                             "mapinfo is not a valid info object");
    }
    if (PMPI_Info_get(info, "gencomm_map", MPI_MAX_INFO_VAL, value,
                      &flag) == MPI_SUCCESS && flag) {
        if (strcmp(value, "scotch") == 0) {
            h->method = GCM_LCO_MAP_SCOTCH;
        } else if (strcmp(value, "identity") == 0) {
            h->method = GCM_LCO_MAP_IDENTITY;
        } else {
            return gcm_mpi_raise(comm, MPI_ERR_INFO_VALUE, call,
                                 "gencomm_map is \"%s\", not \"scotch\" or "
                                 "\"identity\"", value);
        }
    }
    flag = 0;
    if (PMPI_Info_get(info, "gencomm_map_time", MPI_MAX_INFO_VAL, value,
                      &flag) == MPI_SUCCESS && flag) {
        char *end = NULL;
        double t;

        errno = 0;
        t = strtod(value, &end);
        if (end == value || *end != '\0' || errno != 0 || !isfinite(t) ||
            t < 0 || t > 3600) {
            return gcm_mpi_raise(comm, MPI_ERR_INFO_VALUE, call,
                                 "gencomm_map_time is \"%s\", not a number "
                                 "of seconds from 0 to 3600", value);
        }
        h->time = t;
    }
    return MPI_SUCCESS;
}

/* ---- agreement --------------------------------------------------------------- */

uint64_t gcm_mpi_topo_hash_ints(uint64_t h, const int *a, int n)
{
    uint64_t buf[2];

    buf[0] = h;
    buf[1] = (uint64_t)(uint32_t)n;
    h = gcm_hash64(buf, sizeof(buf));
    if (n > 0 && a != NULL) {
        buf[0] = h;
        buf[1] = gcm_hash64(a, (size_t)n * sizeof(int));
        h = gcm_hash64(buf, sizeof(buf));
    }
    return h;
}

int gcm_mpi_topo_agree(MPI_Comm comm, const gcm_mpi_topo_rec_t *mine,
                       int args_class, const char *args_what,
                       const char *call, gcm_mpi_topo_rec_t **all_p)
{
    gcm_mpi_topo_rec_t *all;
    int n = comm->size, r, rc;

    *all_p = NULL;
    all = malloc((size_t)n * sizeof(*all));
    if (all == NULL) {
        /* The others are in the exchange already. */
        return gcm_mpi_topo_no_mem(comm, call);
    }
    rc = PMPI_Allgather(mine, (int)sizeof(*mine), MPI_BYTE, all,
                        (int)sizeof(*mine), MPI_BYTE, comm);
    if (rc != MPI_SUCCESS) {
        free(all);
        return rc;
    }
    /* A process whose own checks failed raised its error already. */
    if (mine->err != MPI_SUCCESS) {
        free(all);
        return mine->err;
    }
    for (r = 0; r < n; r++) {
        if (all[r].err != MPI_SUCCESS) {
            rc = gcm_mpi_raise(comm, all[r].err, call,
                               "rank %d passed invalid arguments", r);
            free(all);
            return rc;
        }
    }
    for (r = 1; r < n; r++) {
        if (all[r].args != all[0].args) {
            rc = gcm_mpi_raise(comm, args_class, call,
                               "%s differ between processes (rank %d and "
                               "rank 0)", args_what, r);
            free(all);
            return rc;
        }
    }
    *all_p = all;
    return MPI_SUCCESS;
}

int gcm_mpi_topo_gather_ints(MPI_Comm comm, const int *mine,
                             const int *counts, long long limit,
                             const char *call, int **all_p, int **displs_p,
                             long long *total_p)
{
    int n = comm->size, r, rc;
    int *displs = malloc((size_t)n * sizeof(int));
    int *all = NULL;
    long long total = 0;

    *all_p    = NULL;
    *displs_p = NULL;
    if (displs == NULL) {
        return gcm_mpi_topo_no_mem(comm, call);
    }
    for (r = 0; r < n; r++) {
        displs[r] = (int)total;
        total    += counts[r];
        if (total > limit) {
            /* Every process sees the same counts: the same verdict. */
            free(displs);
            return gcm_mpi_raise(comm, MPI_ERR_COUNT, call,
                                 "the graph's lists hold more than %lld "
                                 "entries", limit);
        }
    }
    all = malloc((total > 0 ? (size_t)total : 1u) * sizeof(int));
    if (all == NULL) {
        free(displs);
        return gcm_mpi_topo_no_mem(comm, call);
    }
    rc = PMPI_Allgatherv(mine, counts[comm->rank], MPI_INT, all,
                         (int *)counts, displs, MPI_INT, comm);
    if (rc != MPI_SUCCESS) {
        free(all);
        free(displs);
        return rc;
    }
    *all_p    = all;
    *displs_p = displs;
    if (total_p != NULL) {
        *total_p = total;
    }
    return MPI_SUCCESS;
}

/* ---- mapping ------------------------------------------------------------------ */

/* The tree target of the slot processes: world indices in sprocs, keys
 * (n * GCM_MPI_HIER_LEVELS_MAX). -1 without a hierarchy. */
static int slot_target(MPI_Comm comm, int n, const int *slots, int *sprocs,
                       uint64_t *keys, int *nlevels_p)
{
    int s;

    for (s = 0; s < n; s++) {
        sprocs[s] = gcm_mpi_comm_proc(comm, slots[s]);
    }
    return gcm_mpi_hier_target(n, sprocs, keys, nlevels_p);
}

int gcm_mpi_topo_wants_map(MPI_Comm comm, const gcm_mpi_topo_rec_t *all,
                           int n, const int *slots)
{
    int *sprocs, s, l, L = 0, any = 0, split = 0;
    uint64_t *keys;

    if (n < 2 || all[0].method != GCM_LCO_MAP_SCOTCH || all[0].time <= 0) {
        return 0;
    }
    for (s = 0; s < n && !any; s++) {
        any = all[slots[s]].reorder != 0;
    }
    if (!any) {
        return 0;
    }
    /* One group at every level: every placement costs the same. */
    sprocs = malloc((size_t)n * sizeof(int));
    keys   = malloc((size_t)n * GCM_MPI_HIER_LEVELS_MAX * sizeof(uint64_t));
    if (sprocs != NULL && keys != NULL &&
        slot_target(comm, n, slots, sprocs, keys, &L) == 0) {
        for (s = 1; s < n && !split; s++) {
            for (l = 0; l < L; l++) {
                if (keys[(size_t)s * L + l] != keys[l]) {
                    split = 1;
                    break;
                }
            }
        }
    } else {
        split = 1;   /* let the mapping decide (and report) */
    }
    free(sprocs);
    free(keys);
    return split;
}

int gcm_mpi_topo_map(MPI_Comm comm, const gcm_lco_map_graph_t *g, int n,
                     const int *slots, const gcm_mpi_topo_rec_t *all,
                     const char *call, int *procs, int *myrank_p)
{
    return gcm_mpi_topo_map_onto(comm, g, n, slots, all, NULL, call, procs,
                                 myrank_p);
}

int gcm_mpi_topo_map_onto(MPI_Comm comm, const gcm_lco_map_graph_t *g, int n,
                          const int *slots, const gcm_mpi_topo_rec_t *all,
                          const gcm_lco_map_target_t *given,
                          const char *call, int *procs, int *myrank_p)
{
    gcm_lco_map_target_t target;
    gcm_lco_map_opts_t opts;
    gcm_lco_map_result_t res;
    unsigned char *fixed = NULL;
    int *sprocs, *slot_of;
    uint64_t *keys;
    gcm_status_t status;
    int s, v, L = 0, rc = MPI_SUCCESS;
    double t0 = gcm_time_now();

    sprocs  = malloc((n > 0 ? (size_t)n : 1u) * sizeof(int));
    slot_of = malloc((n > 0 ? (size_t)n : 1u) * sizeof(int));
    keys    = malloc((n > 0 ? (size_t)n : 1u) * GCM_MPI_HIER_LEVELS_MAX *
                     sizeof(uint64_t));
    if (all != NULL) {
        fixed = malloc(n > 0 ? (size_t)n : 1u);
    }
    if (sprocs == NULL || slot_of == NULL || keys == NULL ||
        (all != NULL && fixed == NULL)) {
        rc = gcm_mpi_topo_no_mem(comm, call);
        goto out;
    }
    memset(&opts, 0, sizeof(opts));
    opts.method = (all != NULL) ? all[0].method : GCM_LCO_MAP_SCOTCH;
    opts.time   = (all != NULL) ? all[0].time : GCM_LCO_MAP_TIME_DEFAULT;
    if (all != NULL) {
        for (s = 0; s < n; s++) {
            fixed[s] = all[slots[s]].reorder == 0;
        }
        opts.fixed = fixed;
    }
    if (slot_target(comm, n, slots, sprocs, keys, &L) != 0 &&
        given == NULL) {
        opts.method = GCM_LCO_MAP_IDENTITY;   /* no hierarchy: nothing known */
        L = 0;
    }
    target = (gcm_lco_map_target_t){ .kind = GCM_LCO_MAP_TREE, .nslots = n,
                                     .nlevels = L, .keys = keys };
    status = gcm_lco_map_compute(g, (given != NULL) ? given : &target, &opts,
                                 slot_of, &res);
    if (status != GCM_OK) {
        rc = gcm_mpi_raise_native(comm, status, call, "the mapping");
        goto out;
    }
    *myrank_p = -1;
    for (v = 0; v < n; v++) {
        procs[v] = sprocs[slot_of[v]];
        if (slots[slot_of[v]] == comm->rank) {
            *myrank_p = v;
        }
    }
    gcm_debug("topo: %s mapped %d ranks (%s): edges between hosts %lld, "
              "identity %lld, %.3f ms", call, n, res.how,
              (long long)(res.ncost > 0 ? res.cost[0] : 0),
              (long long)(res.ncost > 0 ? res.identity[0] : 0),
              (gcm_time_now() - t0) * 1e3);
out:
    free(sprocs);
    free(slot_of);
    free(keys);
    free(fixed);
    return rc;
}
