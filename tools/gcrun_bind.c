/*
 * tools/gcrun_bind.c: binding ranks to cores or NUMA nodes
 * (gcrun's only use of hwloc).
 */
#include "tools/gcrun.h"

#include <dirent.h>

/* ------------------------------------------------------------------------ */
/* Binding                                                                  */
/* ------------------------------------------------------------------------ */


const char *gcrun_bind_name(enum bind_policy p)
{
    switch (p) {
    case BIND_CORE:
        return "core";
    case BIND_NUMA:
        return "numa";
    default:
        return "none";
    }
}

/* When gcrun itself runs restricted (taskset, a batch system), the ranks
 * stay inside that set: cut the topology down to it. */
static bool restrict_to_own_binding(hwloc_topology_t topo)
{
    hwloc_bitmap_t own = hwloc_bitmap_alloc();
    bool ok = true;

    if (own == NULL) {
        return true;
    }
    if (hwloc_get_cpubind(topo, own, HWLOC_CPUBIND_PROCESS) == 0 &&
        !hwloc_bitmap_iszero(own) &&
        !hwloc_bitmap_isincluded(hwloc_topology_get_topology_cpuset(topo),
                                 own)) {
        if (hwloc_topology_restrict(topo, own, 0) != 0) {
            /* EINVAL leaves the topology as it was; ENOMEM resets it. */
            ok = errno != ENOMEM;
        }
    }
    hwloc_bitmap_free(own);
    return ok;
}

/* Does the environment of process pid (one of this user's) say that a
 * gcrun bound it to a core? */
static bool bound_by_gcrun(const char *pid)
{
    static const char key[] = "GENCOMM_BIND=core";
    struct buf env = { 0 };
    char path[64], chunk[4096];
    bool found = false;
    size_t start = 0, i;
    ssize_t n;
    int fd;

    snprintf(path, sizeof(path), "/proc/%s/environ", pid);
    fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        return false;
    }
    /* NUL-separated entries; no more than the kernel's argument limit. */
    while (env.end < (1u << 21) &&
           (n = read(fd, chunk, sizeof(chunk))) > 0) {
        gcrun_buf_append(&env, chunk, (size_t)n);
    }
    close(fd);
    for (i = 0; i < env.end && !found; i++) {
        if (env.data[i] == '\0') {
            found = (i - start == sizeof(key) - 1) &&
                    memcmp(env.data + start, key, sizeof(key) - 1) == 0;
            start = i + 1;
        }
    }
    free(env.data);
    return found;
}

/*
 * Counts, per unit, the processes of this user's other gcrun jobs that
 * are bound within it (their environment says GENCOMM_BIND=core). Two
 * jobs started one after the other would otherwise both bind their rank
 * 0 to the first core, and then take turns on it while another core
 * idles.
 */
static void count_bound_elsewhere(hwloc_topology_t topo,
                                  hwloc_obj_type_t unit, int nunits,
                                  int *counts)
{
    hwloc_bitmap_t set = hwloc_bitmap_alloc();
    struct dirent *de;
    struct stat st;
    char path[64];
    DIR *dir;
    int i;

    dir = (set == NULL) ? NULL : opendir("/proc");
    while (dir != NULL && (de = readdir(dir)) != NULL) {
        char *end;
        long pid = strtol(de->d_name, &end, 10);

        if (*end != '\0' || pid <= 0 || pid == (long)getpid()) {
            continue;
        }
        snprintf(path, sizeof(path), "/proc/%ld", pid);
        if (stat(path, &st) != 0 || st.st_uid != getuid() ||
            !bound_by_gcrun(de->d_name) ||
            hwloc_get_proc_cpubind(topo, (pid_t)pid, set,
                                   HWLOC_CPUBIND_PROCESS) != 0) {
            continue;
        }
        for (i = 0; i < nunits; i++) {
            hwloc_obj_t obj = hwloc_get_obj_by_type(topo, unit, (unsigned)i);

            if (obj != NULL && hwloc_bitmap_isincluded(set, obj->cpuset)) {
                counts[i]++;
                break;
            }
        }
    }
    if (dir != NULL) {
        closedir(dir);
    }
    hwloc_bitmap_free(set);
}

/* With GENCOMM_LOG_LEVEL=debug (or trace), says on stderr what the choice
 * of cores saw: each unit's CPUs and how many processes of other jobs are
 * bound there. */
static void report_counts(hwloc_topology_t topo, hwloc_obj_type_t unit,
                          int nunits, const int *counts)
{
    const char *level = getenv("GENCOMM_LOG_LEVEL");
    int i;

    if (level == NULL ||
        (strcmp(level, "debug") != 0 && strcmp(level, "trace") != 0)) {
        return;
    }
    for (i = 0; i < nunits; i++) {
        hwloc_obj_t obj = hwloc_get_obj_by_type(topo, unit, (unsigned)i);
        char *cpus = NULL;

        if (obj == NULL ||
            hwloc_bitmap_list_asprintf(&cpus, obj->cpuset) < 0) {
            continue;
        }
        gcrun_msg("debug: unit %d, cpus %s: %d bound by other jobs", i,
                  cpus, counts[i]);
        free(cpus);
    }
}

void gcrun_binding_plan(struct binding *b, enum bind_policy want,
                        int nprocs)
{
    hwloc_topology_t topo;
    hwloc_obj_type_t unit = HWLOC_OBJ_CORE;
    int nunits;
    int r;

    b->topo = NULL;
    b->used = BIND_NONE;
    b->sets = NULL;
    if (want == BIND_NONE) {
        return;
    }
    if (hwloc_topology_init(&topo) != 0) {
        gcrun_msg("warning: hwloc: %s; not binding", strerror(errno));
        return;
    }
    if (hwloc_topology_load(topo) != 0 || !restrict_to_own_binding(topo)) {
        gcrun_msg("warning: cannot load the hwloc topology; not binding");
        hwloc_topology_destroy(topo);
        return;
    }

    nunits = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE);
    if (nunits <= 0) {
        unit = HWLOC_OBJ_PU;
        nunits = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU);
    }
    if (nunits <= 0) {
        gcrun_msg("warning: hwloc found no processors; not binding");
        hwloc_topology_destroy(topo);
        return;
    }
    if (want == BIND_AUTO) {
        want = nprocs <= nunits ? BIND_CORE : BIND_NONE;
    }
    if (want == BIND_NONE) {
        hwloc_topology_destroy(topo);
        return;
    }

    b->sets = gcrun_xcalloc((size_t)nprocs, sizeof(*b->sets));
    if (want == BIND_CORE) {
        /* The units in order of how many processes of other jobs are
         * bound there, the first unit first among equals: alone, rank r
         * goes to unit r. */
        int *counts = gcrun_xcalloc((size_t)nunits, sizeof(*counts));
        int *order = gcrun_xcalloc((size_t)nunits, sizeof(*order));
        int i, j;

        count_bound_elsewhere(topo, unit, nunits, counts);
        report_counts(topo, unit, nunits, counts);
        for (i = 0; i < nunits; i++) {
            for (j = i; j > 0 && counts[order[j - 1]] > counts[i]; j--) {
                order[j] = order[j - 1];
            }
            order[j] = i;
        }
        for (r = 0; r < nprocs; r++) {
            hwloc_obj_t obj = hwloc_get_obj_by_type(
                topo, unit, (unsigned)order[r % nunits]);

            b->sets[r] = obj == NULL ? NULL : obj->cpuset;
        }
        free(counts);
        free(order);
    } else {
        /* NUMA nodes without processors (e.g. memory-only nodes) cannot
         * run a rank: use only those with a non-empty cpuset. */
        int nnodes = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_NUMANODE);
        hwloc_obj_t *nodes = gcrun_xcalloc(nnodes > 0 ? (size_t)nnodes : 1,
                                           sizeof(*nodes));
        int nusable = 0;
        int i;

        for (i = 0; i < nnodes; i++) {
            hwloc_obj_t node = hwloc_get_obj_by_type(topo,
                                                     HWLOC_OBJ_NUMANODE,
                                                     (unsigned)i);

            if (node != NULL && node->cpuset != NULL &&
                !hwloc_bitmap_iszero(node->cpuset)) {
                nodes[nusable++] = node;
            }
        }
        for (r = 0; r < nprocs; r++) {
            b->sets[r] = nusable > 0
                             ? nodes[r % nusable]->cpuset
                             : hwloc_topology_get_topology_cpuset(topo);
        }
        free(nodes);
    }
    b->topo = topo;
    b->used = want;
}

void gcrun_binding_free(struct binding *b)
{
    free(b->sets);
    b->sets = NULL;
    if (b->topo != NULL) {
        hwloc_topology_destroy(b->topo);
        b->topo = NULL;
    }
}
