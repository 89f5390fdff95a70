/*
 * compat/mpi_hier.c: the SMP hierarchy (Träff 2003, "SMP-aware message
 * passing"): MPIX_Comm_node, MPIX_Comm_level, the MPIX_DEPTH and
 * MPIX_MAX_DEPTH attributes, and the colors of MPI-4's hardware split
 * types.
 *
 * Raw levels, outermost first: the job, the cluster (the part of the
 * host name before its last ':', as in the seed's cluster:node names of
 * external communicators), the host (boot/'s host name,
 * GENCOMM_HOSTNAME under gcrun --hosts/--nodes), the hwloc levels
 * package, NUMA node, L3 cache and core (lco/lco_hier.c), the process.
 * Each process has a key per raw level that chains its parent's key, so
 * that the groups of a level always refine those of the level above, and
 * a process with no hwloc object at a level (unbound, or bound across
 * two) keeps its parent's key: at that level it stays in its parent's
 * group. MPI_Init exchanges every process's keys once (one allgather of
 * 32 bytes each over the world) and builds the communicators, so that
 * MPIX_Comm_node, which is not collective, only looks them up.
 *
 * The levels of MPI_COMM_NODE[]: 0 is the world; then the cluster, kept
 * only when there are several clusters and some cluster has several
 * hosts (host names without ':' are clusters of their own, so the level
 * never shows on ordinary machines); then the host, always (so that
 * MPIX_Comm_node(1) is the shared-memory node wherever no cluster level
 * is kept); then the hwloc levels that split some host's group further
 * without leaving everybody alone; then the process level, kept only if some
 * process is not alone at the level above. Every process has the same
 * number of levels, MPIX_MAX_DEPTH + 1. A process's depth (MPIX_DEPTH) is
 * the first level from 1 at which it is alone; from there down its
 * MPI_COMM_NODE[level] is MPI_COMM_SELF (an unbalanced tree: a process
 * alone on its host has depth 1), and MPIX_Comm_level of a process with
 * itself is its depth (the seed's MPI_COMM_NODE[MPI_DEPTH] =
 * MPI_COMM_SELF). Level 0 is MPI_COMM_WORLD itself.
 *
 * The other communicators belong to the library: they are marked
 * predefined, so MPI_Comm_free refuses them with MPI_ERR_COMM, and
 * MPI_Finalize hands them back to the ordinary teardown
 * (gcm_mpi_hier_finalize).
 */
#include "config.h"

#include "boot/boot.h"
#include "compat/mpi_impl.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Raw levels: world, cluster, host, the hwloc ones, the process. */
#define GCM_HIER_CLUSTER 1
#define GCM_HIER_HOST 2
#define GCM_HIER_HW0  3
#define GCM_HIER_SELF (GCM_HIER_HW0 + GCM_HIER_HW_LEVELS)
#define GCM_HIER_RAW  (GCM_HIER_SELF + 1)
_Static_assert(GCM_HIER_RAW - 2 <= GCM_MPI_HIER_LEVELS_MAX,
               "gcm_mpi_hier_target's callers size keys too small");

/* What each process contributes at MPI_Init (same layout everywhere). */
typedef struct gcm_mpi_hier_rec {
    uint64_t cluster;                    /* hash of the host's cluster */
    uint64_t host;                       /* hash of the host name */
    int32_t  idx[GCM_HIER_HW_LEVELS];    /* hwloc logical index or -1 */
} gcm_mpi_hier_rec_t;

static struct {
    int                 ready;
    int                 nprocs;
    uint64_t           *keys;     /* nprocs * GCM_HIER_RAW chained keys */
    int                *depth_of; /* each process's depth */
    gcm_mpi_hier_rec_t  mine;
    int                 nlevels;  /* MAX_DEPTH + 1 */
    int                 raw_of[GCM_HIER_RAW];  /* level -> raw level */
    MPI_Comm            node[GCM_HIER_RAW];
    int                 depth;
    int                 max_depth;
} gcm_mpi_hier;

static uint64_t gcm_mpi_hier_mix(uint64_t parent, uint64_t v)
{
    uint64_t buf[2] = { parent, v };

    return gcm_hash64(buf, sizeof(buf));
}

/* The chained keys of one process from its record. The process level's
 * key is never compared (only ranks tell processes apart), but a
 * distinct value keeps the table uniform. */
static void gcm_mpi_hier_chain(const gcm_mpi_hier_rec_t *rec, int proc,
                               uint64_t keys[GCM_HIER_RAW])
{
    int h;

    /* A host name holds its cluster's, so hosts refine clusters. */
    keys[0]                = 0;
    keys[GCM_HIER_CLUSTER] = rec->cluster;
    keys[GCM_HIER_HOST]    = rec->host;
    for (h = 0; h < GCM_HIER_HW_LEVELS; h++) {
        uint64_t parent = keys[GCM_HIER_HW0 + h - 1];

        keys[GCM_HIER_HW0 + h] = (rec->idx[h] >= 0) ?
            gcm_mpi_hier_mix(parent, (uint64_t)rec->idx[h] + 1) : parent;
    }
    keys[GCM_HIER_SELF] = gcm_mpi_hier_mix(
        keys[GCM_HIER_SELF - 1], (uint64_t)proc + 0x8000000000000000u);
}

static uint64_t gcm_mpi_hier_key(int proc, int raw)
{
    return gcm_mpi_hier.keys[(size_t)proc * GCM_HIER_RAW + (size_t)raw];
}

static int gcm_mpi_hier_cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

    return (x > y) - (x < y);
}

/* Whether raw level raw groups the processes exactly as level below
 * does (every process has the same key at both): then it has as many
 * groups, found without a sort. Levels without hwloc objects (unbound
 * processes) and hosts whose names hold no cluster are such. */
static int gcm_mpi_hier_same(int raw, int below)
{
    int n = gcm_mpi_hier.nprocs, p;

    for (p = 0; p < n; p++) {
        if (gcm_mpi_hier_key(p, raw) != gcm_mpi_hier_key(p, below)) {
            return 0;
        }
    }
    return 1;
}

/* How many groups raw level raw has (keys refine level by level, so equal
 * counts mean equal partitions). */
static int gcm_mpi_hier_ngroups(int raw, uint64_t *scratch)
{
    int n = gcm_mpi_hier.nprocs, p, count = 1;

    for (p = 0; p < n; p++) {
        scratch[p] = gcm_mpi_hier_key(p, raw);
    }
    qsort(scratch, (size_t)n, sizeof(uint64_t), gcm_mpi_hier_cmp_u64);
    for (p = 1; p < n; p++) {
        count += scratch[p] != scratch[p - 1];
    }
    return count;
}

/* Members of this process's group at raw level raw, in world order. */
static int gcm_mpi_hier_members(int raw, int *procs, int *myrank)
{
    int me = MPI_COMM_WORLD->rank, p, n = 0;
    uint64_t mykey = gcm_mpi_hier_key(me, raw);

    for (p = 0; p < gcm_mpi_hier.nprocs; p++) {
        if ((raw == GCM_HIER_SELF) ? (p == me) :
            (gcm_mpi_hier_key(p, raw) == mykey)) {
            if (p == me) {
                *myrank = n;
            }
            procs[n++] = p;
        }
    }
    return n;
}

/* Chooses the levels from the raw ones (see the top of the file). */
static void gcm_mpi_hier_choose_levels(uint64_t *scratch)
{
    int n = gcm_mpi_hier.nprocs, prev, raw, count, last, clusters;

    gcm_mpi_hier.nlevels   = 0;
    gcm_mpi_hier.raw_of[gcm_mpi_hier.nlevels++] = 0;
    prev = gcm_mpi_hier_ngroups(GCM_HIER_HOST, scratch);
    clusters = gcm_mpi_hier_same(GCM_HIER_CLUSTER, GCM_HIER_HOST) ? prev :
               gcm_mpi_hier_ngroups(GCM_HIER_CLUSTER, scratch);
    if ((clusters > 1) && (clusters < prev)) {
        gcm_mpi_hier.raw_of[gcm_mpi_hier.nlevels++] = GCM_HIER_CLUSTER;
    }
    gcm_mpi_hier.raw_of[gcm_mpi_hier.nlevels++] = GCM_HIER_HOST;
    last = prev;
    for (raw = GCM_HIER_HW0; raw < GCM_HIER_SELF; raw++) {
        count = gcm_mpi_hier_same(raw, raw - 1) ? prev :
                gcm_mpi_hier_ngroups(raw, scratch);
        if ((count > prev) && (count < n)) {
            gcm_mpi_hier.raw_of[gcm_mpi_hier.nlevels++] = raw;
            last = count;
        }
        prev = count;
    }
    if (last < n) {
        gcm_mpi_hier.raw_of[gcm_mpi_hier.nlevels++] = GCM_HIER_SELF;
    }
    gcm_mpi_hier.max_depth = gcm_mpi_hier.nlevels - 1;
}

/* (key, process) pairs, sorted to count the members of each group. */
typedef struct gcm_mpi_hier_kp {
    uint64_t key;
    int      proc;
} gcm_mpi_hier_kp_t;

static int gcm_mpi_hier_cmp_kp(const void *a, const void *b)
{
    const gcm_mpi_hier_kp_t *x = a, *y = b;

    if (x->key != y->key) {
        return (x->key > y->key) - (x->key < y->key);
    }
    return (x->proc > y->proc) - (x->proc < y->proc);
}

/* Every process's depth: the first level from 1 at which its group has
 * it alone (the process level, when kept, has everybody alone). */
static int gcm_mpi_hier_depths(void)
{
    int n = gcm_mpi_hier.nprocs, p, i, level;
    gcm_mpi_hier_kp_t *kp = malloc((size_t)n * sizeof(*kp));

    gcm_mpi_hier.depth_of = malloc((size_t)n * sizeof(int));
    if (kp == NULL || gcm_mpi_hier.depth_of == NULL) {
        free(kp);
        return -1;
    }
    for (p = 0; p < n; p++) {
        gcm_mpi_hier.depth_of[p] = gcm_mpi_hier.max_depth;
    }
    for (level = gcm_mpi_hier.max_depth; level >= 1; level--) {
        int raw = gcm_mpi_hier.raw_of[level];

        if (raw == GCM_HIER_SELF) {
            continue;
        }
        for (p = 0; p < n; p++) {
            kp[p] = (gcm_mpi_hier_kp_t){ gcm_mpi_hier_key(p, raw), p };
        }
        qsort(kp, (size_t)n, sizeof(*kp), gcm_mpi_hier_cmp_kp);
        for (i = 0; i < n; i++) {
            if ((i == 0 || kp[i - 1].key != kp[i].key) &&
                (i == n - 1 || kp[i + 1].key != kp[i].key)) {
                gcm_mpi_hier.depth_of[kp[i].proc] = level;
            }
        }
    }
    free(kp);
    return 0;
}

void gcm_mpi_hier_finalize(void)
{
    int level;

    for (level = 0; level < gcm_mpi_hier.nlevels; level++) {
        MPI_Comm c = gcm_mpi_hier.node[level];

        if ((c != MPI_COMM_WORLD) && (c != MPI_COMM_SELF) &&
            (c != MPI_COMM_NULL)) {
            c->predefined = 0;
        }
        gcm_mpi_hier.node[level] = MPI_COMM_NULL;
    }
    free(gcm_mpi_hier.keys);
    free(gcm_mpi_hier.depth_of);
    gcm_mpi_hier.keys     = NULL;
    gcm_mpi_hier.depth_of = NULL;
    gcm_mpi_hier.ready = 0;
}

/* A record's host and cluster from a host name. */
static void gcm_mpi_hier_rec_host(gcm_mpi_hier_rec_t *rec, const char *host)
{
    const char *colon = strrchr(host, ':');

    rec->host = gcm_hash64(host, strlen(host));
    /* The seed's cluster:node names: the cluster is the part before the
     * last ':' (the whole name without one). */
    rec->cluster = gcm_hash64(host, (colon != NULL) ?
                              (size_t)(colon - host) : strlen(host));
}

/*
 * Simulation (GENCOMM_BOOT=sim, boot/boot_sim.c): no other process exists
 * to take part in the allgather, so each record is made here as process p
 * would have sent it: its host from the simulated layout
 * (gcm_boot_host_of), and this process's own place inside its host (every
 * simulated process taken to be bound alike). 1 when the records were
 * made; 0 when the bootstrap is not a simulation.
 */
static int gcm_mpi_hier_sim_gather(gcm_mpi_hier_rec_t *all, int n)
{
    char host[256], prev[256] = "";
    gcm_mpi_hier_rec_t rec = gcm_mpi_hier.mine;
    int p;

    if (gcm_boot_host_of(0, host, sizeof(host)) != GCM_OK) {
        return 0;
    }
    for (p = 0; p < n; p++) {
        if (gcm_boot_host_of(p, host, sizeof(host)) != GCM_OK) {
            snprintf(host, sizeof(host), "%s", gcm_boot_hostname());
        }
        if (strcmp(host, prev) != 0) {
            gcm_mpi_hier_rec_host(&rec, host);
            memcpy(prev, host, sizeof(prev));
        }
        all[p] = rec;
    }
    return 1;
}

int gcm_mpi_hier_init(void)
{
    static const char *call = "MPI_Init";
    MPI_Comm world = MPI_COMM_WORLD;
    gcm_mpi_hier_rec_t *all;
    uint64_t *scratch;
    int *procs;
    int n = world->size, p, level, rc = MPI_SUCCESS;

    memset(&gcm_mpi_hier, 0, sizeof(gcm_mpi_hier));
    gcm_mpi_hier.nprocs    = n;
    gcm_mpi_hier_rec_host(&gcm_mpi_hier.mine, gcm_boot_hostname());
    gcm_lco_hier_hw_indices(gcm_mpi_hier.mine.idx);

    all     = malloc((size_t)n * sizeof(*all));
    scratch = malloc((size_t)n * sizeof(*scratch));
    procs   = malloc((size_t)n * sizeof(*procs));
    gcm_mpi_hier.keys = malloc((size_t)n * GCM_HIER_RAW * sizeof(uint64_t));
    if ((all == NULL) || (scratch == NULL) || (procs == NULL) ||
        (gcm_mpi_hier.keys == NULL)) {
        rc = gcm_mpi_raise(NULL, MPI_ERR_NO_MEM, call, "out of memory");
        goto out;
    }
    /* The collective raises its own failure on the world. */
    if (!gcm_mpi_hier_sim_gather(all, n)) {
        rc = PMPI_Allgather(&gcm_mpi_hier.mine,
                            (int)sizeof(gcm_mpi_hier.mine), MPI_BYTE, all,
                            (int)sizeof(gcm_mpi_hier.mine), MPI_BYTE, world);
    }
    if (rc != MPI_SUCCESS) {
        goto out;
    }
    for (p = 0; p < n; p++) {
        gcm_mpi_hier_chain(&all[p], p,
                           &gcm_mpi_hier.keys[(size_t)p * GCM_HIER_RAW]);
    }
    gcm_mpi_hier_choose_levels(scratch);
    if (gcm_mpi_hier_depths() != 0) {
        rc = gcm_mpi_raise(NULL, MPI_ERR_NO_MEM, call, "out of memory");
        goto out;
    }

    /* Every process derives once per middle level, in the same order,
     * whatever its own group is, so the world's derivations stay in
     * step; groups equal to the world or to the process itself reuse
     * MPI_COMM_WORLD and MPI_COMM_SELF. */
    gcm_mpi_hier.node[0] = world;
    gcm_mpi_hier.depth   = gcm_mpi_hier.depth_of[world->rank];
    for (level = 1; level < gcm_mpi_hier.nlevels; level++) {
        int myrank = 0;
        int size =
            gcm_mpi_hier_members(gcm_mpi_hier.raw_of[level], procs, &myrank);
        int middle = level < gcm_mpi_hier.max_depth ||
                     gcm_mpi_hier.raw_of[level] != GCM_HIER_SELF;
        MPI_Comm c = MPI_COMM_NULL;

        if (middle) {
            rc = gcm_mpi_comm_derive(world, (size > 1 && size < n) ? size : 0,
                                     procs, myrank, call, &c);
            if (rc != MPI_SUCCESS) {
                goto out;
            }
        }
        if (c != MPI_COMM_NULL) {
            c->predefined = 1;
            snprintf(c->name, sizeof(c->name), "MPIX_COMM_NODE[%d]", level);
        } else {
            c = (size == 1) ? MPI_COMM_SELF : world;
        }
        gcm_mpi_hier.node[level] = c;
    }

    gcm_mpi_hier.ready = 1;
    rc = MPI_SUCCESS;
out:
    free(all);
    free(scratch);
    free(procs);
    return rc;
}

int gcm_mpi_hier_host(int proc, uint64_t *key_p)
{
    if (!gcm_mpi_hier.ready || proc < 0 || proc >= gcm_mpi_hier.nprocs) {
        return -1;
    }
    if (key_p != NULL) {
        *key_p = gcm_mpi_hier_key(proc, GCM_HIER_HOST);
    }
    return 0;
}

int gcm_mpi_hier_target(int n, const int procs[], uint64_t *keys,
                        int *nlevels_p)
{
    int levels[GCM_HIER_RAW], nl = 0, level, i, l;

    if (!gcm_mpi_hier.ready) {
        return -1;
    }
    for (level = 1; level < gcm_mpi_hier.nlevels; level++) {
        if (gcm_mpi_hier.raw_of[level] != GCM_HIER_SELF) {
            levels[nl++] = gcm_mpi_hier.raw_of[level];
        }
    }
    for (i = 0; i < n; i++) {
        if (procs[i] < 0 || procs[i] >= gcm_mpi_hier.nprocs) {
            return -1;
        }
        for (l = 0; l < nl; l++) {
            keys[(size_t)i * nl + l] = gcm_mpi_hier_key(procs[i], levels[l]);
        }
    }
    *nlevels_p = nl;
    return 0;
}

const int *gcm_mpi_hier_attr(int keyval)
{
    if (!gcm_mpi_hier.ready) {
        return NULL;
    }
    return (keyval == MPIX_DEPTH) ? &gcm_mpi_hier.depth
                                  : &gcm_mpi_hier.max_depth;
}

/* ---- MPI_Comm_split_type's hardware types ------------------------------ */

/* The raw level named by an mpi_hw_resource_type value, or -1. */
static int gcm_mpi_hier_raw_by_name(const char *value)
{
    int h;

    if (strcmp(value, "mpi_shared_memory") == 0) {
        return GCM_HIER_HOST;
    }
    if (strncmp(value, "hwloc://", 8) == 0) {
        value += 8;
    }
    for (h = 0; h < GCM_HIER_HW_LEVELS; h++) {
        if (strcasecmp(value, gcm_lco_hier_hw_name(h)) == 0) {
            return GCM_HIER_HW0 + h;
        }
    }
    return -1;
}

/* Colors are keys made non-negative (and so never MPI_UNDEFINED). */
static int64_t gcm_mpi_hier_color(uint64_t key)
{
    return (int64_t)(key >> 2);
}

int gcm_mpi_hier_split_color(MPI_Comm comm, int split_type, MPI_Info info,
                             int64_t *color, const char **resource)
{
    int me = MPI_COMM_WORLD->rank;
    int raw, r;

    *color    = MPI_UNDEFINED;
    *resource = NULL;
    if (!gcm_mpi_hier.ready) {
        return MPI_ERR_INTERN;
    }
    if (split_type == MPI_COMM_TYPE_HW_GUIDED) {
        char value[MPI_MAX_INFO_VAL + 1];
        int flag = 0;

        /* MPI-4 7.4.2: a missing or unknown mpi_hw_resource_type, or a
         * resource this process is not inside, gives MPI_COMM_NULL. */
        if ((info == MPI_INFO_NULL) ||
            (PMPI_Info_get(info, "mpi_hw_resource_type", MPI_MAX_INFO_VAL,
                           value, &flag) != MPI_SUCCESS) || !flag) {
            return MPI_SUCCESS;
        }
        raw = gcm_mpi_hier_raw_by_name(value);
        if ((raw < 0) ||
            ((raw >= GCM_HIER_HW0) &&
             (gcm_mpi_hier.mine.idx[raw - GCM_HIER_HW0] < 0))) {
            return MPI_SUCCESS;
        }
        *color    = gcm_mpi_hier_color(gcm_mpi_hier_key(me, raw));
        *resource = (raw == GCM_HIER_HOST) ? "mpi_shared_memory" :
                    gcm_lco_hier_hw_name(raw - GCM_HIER_HW0);
        return MPI_SUCCESS;
    }
    /* MPI_COMM_TYPE_HW_UNGUIDED: the first level whose groups split comm,
     * found alike by every member from the table of MPI_Init. */
    for (raw = GCM_HIER_HOST; raw < GCM_HIER_SELF; raw++) {
        uint64_t first = gcm_mpi_hier_key(gcm_mpi_comm_proc(comm, 0), raw);

        for (r = 1; r < comm->size; r++) {
            if (gcm_mpi_hier_key(gcm_mpi_comm_proc(comm, r), raw) != first) {
                break;
            }
        }
        if (r < comm->size) {
            *color    = gcm_mpi_hier_color(gcm_mpi_hier_key(me, raw));
            *resource = (raw == GCM_HIER_HOST) ? "mpi_shared_memory" :
                        gcm_lco_hier_hw_name(raw - GCM_HIER_HW0);
            return MPI_SUCCESS;
        }
    }
    return MPI_SUCCESS;
}

/* ---- MPIX_Comm_node, MPIX_Comm_level ----------------------------------- */

int PMPIX_Comm_node(int level, MPI_Comm *nodecomm)
{
    static const char *call = "MPIX_Comm_node";
    int rc;

    if ((rc = gcm_mpi_check_init(call)) != MPI_SUCCESS) {
        return rc;
    }
    if (nodecomm == NULL) {
        return gcm_mpi_raise(NULL, MPI_ERR_ARG, call, "nodecomm is NULL");
    }
    if (!gcm_mpi_hier.ready) {
        return gcm_mpi_raise(NULL, MPI_ERR_INTERN, call,
                             "the hierarchy was not built at MPI_Init");
    }
    if ((level < 0) || (level > gcm_mpi_hier.max_depth)) {
        return gcm_mpi_raise(NULL, MPI_ERR_ARG, call,
                             "level %d is not in 0..%d (MPIX_MAX_DEPTH)",
                             level, gcm_mpi_hier.max_depth);
    }
    *nodecomm = gcm_mpi_hier.node[level];
    return MPI_SUCCESS;
}
GCM_MPIX_ALIAS(Comm_node)

/* The deepest level holding processes pi and pj: for one process, its
 * depth (below it, its node is MPI_COMM_SELF, which holds it too, but
 * the seed stops the tree there). */
static int hier_level_procs(int pi, int pj)
{
    int l;

    if (pi == pj) {
        return gcm_mpi_hier.depth_of[pi];
    }
    for (l = gcm_mpi_hier.max_depth; l > 0; l--) {
        int raw = gcm_mpi_hier.raw_of[l];

        if ((raw != GCM_HIER_SELF) &&
            (gcm_mpi_hier_key(pi, raw) == gcm_mpi_hier_key(pj, raw))) {
            break;
        }
    }
    return l;
}

/*
 * On an LCO communicator (thread LCOs of MPIX_Comm_create_threads, or a
 * hand-built one) ranks are send slots, and the threads are one level
 * below the processes: two slots reaching LCOs of one process meet at the
 * process's level (MPIX_MAX_DEPTH), a slot with itself at the thread
 * level, MPIX_MAX_DEPTH + 1.
 */
static int hier_level_lco(MPI_Comm comm, int i, int j, int *level)
{
    static const char *call = "MPIX_Comm_level";
    int n = 0, pi, pj;

    (void)gcm_lco_num_send_slots(comm->lco, &n);
    if ((i < 0) || (i >= n) || (j < 0) || (j >= n)) {
        return gcm_mpi_raise(comm, MPI_ERR_RANK, call,
                             "ranks %d and %d are not both send slots "
                             "0..%d of the LCO", i, j, n - 1);
    }
    if (!gcm_mpi_hier.ready) {
        return gcm_mpi_raise(comm, MPI_ERR_INTERN, call,
                             "the hierarchy was not built at MPI_Init");
    }
    if (i == j) {
        *level = gcm_mpi_hier.max_depth + 1;
        return MPI_SUCCESS;
    }
    pi = gcm_lco_send_slot_proc(comm->lco, i);
    pj = gcm_lco_send_slot_proc(comm->lco, j);
    if ((pi < 0) || (pj < 0)) {
        return gcm_mpi_raise(comm, MPI_ERR_RANK, call,
                             "send slot %d does not reach a process",
                             (pi < 0) ? i : j);
    }
    *level = hier_level_procs(pi, pj);
    return MPI_SUCCESS;
}

int PMPIX_Comm_level(MPI_Comm comm, int i, int j, int *level)
{
    static const char *call = "MPIX_Comm_level";
    int rc, pi, pj;

    if ((rc = gcm_mpi_check_init(call)) != MPI_SUCCESS) {
        return rc;
    }
    if ((rc = gcm_mpi_comm_check_ptr(comm, level, "level", call)) !=
        MPI_SUCCESS) {
        return rc;
    }
    if (comm->kind == GCM_MPI_COMM_LCO) {
        return hier_level_lco(comm, i, j, level);
    }
    /* Ranks of the (local) group, as MPI_Comm_rank counts them. */
    if ((i < 0) || (i >= comm->size) || (j < 0) || (j >= comm->size)) {
        return gcm_mpi_raise(comm, MPI_ERR_RANK, call,
                             "ranks %d and %d are not both in 0..%d", i, j,
                             comm->size - 1);
    }
    if (!gcm_mpi_hier.ready) {
        return gcm_mpi_raise(comm, MPI_ERR_INTERN, call,
                             "the hierarchy was not built at MPI_Init");
    }
    pi = gcm_mpi_comm_proc(comm, i);
    pj = gcm_mpi_comm_proc(comm, j);
    *level = hier_level_procs(pi, pj);
    return MPI_SUCCESS;
}
GCM_MPIX_ALIAS(Comm_level)
