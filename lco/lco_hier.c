/*
 * lco/lco_hier.c: where this process sits inside its host, from hwloc.
 *
 * The hierarchy (compat/mpi_hier.c) has the whole job, the host, then the
 * hwloc levels package, NUMA node, L3 cache and core, then the process.
 * This file answers the hwloc part for the calling process: for each of
 * those levels, the object that holds its whole CPU binding. A process
 * whose binding is not inside one object of a level (unbound on a machine
 * with several of them, or bound across two) has no object there, and the
 * hierarchy then keeps it in its parent level's group for that level.
 *
 * The topology is loaded once per process (it costs milliseconds) and only
 * the object types needed are kept; GENCOMM_HIER_HWLOC=0 skips hwloc and
 * reports no object at any level.
 */
#include "config.h"

#include "lco/lco_impl.h"

#include <hwloc.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

static const struct {
    hwloc_obj_type_t type;
    const char      *name;   /* hwloc's own name of the type */
} gcm_lco_hier_hw[GCM_HIER_HW_LEVELS] = {
    { HWLOC_OBJ_PACKAGE,  "Package"  },
    { HWLOC_OBJ_NUMANODE, "NUMANode" },
    { HWLOC_OBJ_L3CACHE,  "L3Cache"  },
    { HWLOC_OBJ_CORE,     "Core"     },
};

static int32_t gcm_lco_hier_idx[GCM_HIER_HW_LEVELS];
/* How many objects of each level the host has (0: hwloc not asked). */
static int32_t gcm_lco_hier_count[GCM_HIER_HW_LEVELS];
static pthread_once_t gcm_lco_hier_once = PTHREAD_ONCE_INIT;

const char *gcm_lco_hier_hw_name(int level)
{
    if ((level < 0) || (level >= GCM_HIER_HW_LEVELS)) {
        return NULL;
    }
    return gcm_lco_hier_hw[level].name;
}

/* Logical index of the object of type that contains set, or -1. NUMA
 * nodes are memory children in hwloc 2, outside the CPU tree, so the
 * objects are searched by type rather than by walking up from a core. */
static int32_t gcm_lco_hier_covering(hwloc_topology_t topo,
                                     hwloc_obj_type_t type,
                                     hwloc_const_cpuset_t set)
{
    int n = hwloc_get_nbobjs_by_type(topo, type);
    int i;

    for (i = 0; i < n; i++) {
        hwloc_obj_t obj = hwloc_get_obj_by_type(topo, type, (unsigned)i);

        if ((obj != NULL) && (obj->cpuset != NULL) &&
            hwloc_bitmap_isincluded(set, obj->cpuset)) {
            return (int32_t)obj->logical_index;
        }
    }
    return -1;
}

static void gcm_lco_hier_load(void)
{
    hwloc_topology_t topo;
    hwloc_bitmap_t set;
    int i;

    for (i = 0; i < GCM_HIER_HW_LEVELS; i++) {
        gcm_lco_hier_idx[i] = -1;
    }
    if (!gcm_lco_config.hier_hwloc) {
        return;
    }
    if (hwloc_topology_init(&topo) != 0) {
        return;
    }
    /* Caches other than L3, I/O and misc objects only cost load time. */
    (void)hwloc_topology_set_all_types_filter(topo,
                                              HWLOC_TYPE_FILTER_KEEP_NONE);
    (void)hwloc_topology_set_type_filter(topo, HWLOC_OBJ_L3CACHE,
                                         HWLOC_TYPE_FILTER_KEEP_ALL);
    (void)hwloc_topology_set_type_filter(topo, HWLOC_OBJ_PACKAGE,
                                         HWLOC_TYPE_FILTER_KEEP_ALL);
    (void)hwloc_topology_set_type_filter(topo, HWLOC_OBJ_CORE,
                                         HWLOC_TYPE_FILTER_KEEP_ALL);
    if (hwloc_topology_load(topo) != 0) {
        hwloc_topology_destroy(topo);
        return;
    }
    for (i = 0; i < GCM_HIER_HW_LEVELS; i++) {
        gcm_lco_hier_count[i] =
            hwloc_get_nbobjs_by_type(topo, gcm_lco_hier_hw[i].type);
    }
    set = hwloc_bitmap_alloc();
    if ((set != NULL) &&
        (hwloc_get_cpubind(topo, set, HWLOC_CPUBIND_PROCESS) == 0) &&
        !hwloc_bitmap_iszero(set)) {
        for (i = 0; i < GCM_HIER_HW_LEVELS; i++) {
            gcm_lco_hier_idx[i] =
                gcm_lco_hier_covering(topo, gcm_lco_hier_hw[i].type, set);
        }
    }
    hwloc_bitmap_free(set);
    hwloc_topology_destroy(topo);
}

void gcm_lco_hier_hw_indices(int32_t idx[GCM_HIER_HW_LEVELS])
{
    pthread_once(&gcm_lco_hier_once, gcm_lco_hier_load);
    memcpy(idx, gcm_lco_hier_idx, sizeof(gcm_lco_hier_idx));
}

void gcm_lco_hier_hw_counts(int32_t count[GCM_HIER_HW_LEVELS])
{
    pthread_once(&gcm_lco_hier_once, gcm_lco_hier_load);
    memcpy(count, gcm_lco_hier_count, sizeof(gcm_lco_hier_count));
}
