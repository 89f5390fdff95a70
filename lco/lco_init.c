/*
 * lco/lco_init.c: init and finalize of the library, and
 * the process-wide queries (rank, count, world, statistics).
 */
#include "config.h"

#include "lco/lco_impl.h"
#include "boot/boot.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

gcm_lco_config_t gcm_lco_config;

static const gcm_config_entry_t gcm_lco_config_entries[] = {
    GCM_CFG("GENCOMM_HIER_HWLOC", "1", GCM_CFG_INT, gcm_lco_config.hier_hwloc,
            "1: hierarchy levels below the host from hwloc; 0: host only"),
};
GCM_CONFIG_REGISTER(lco, gcm_lco_config_entries)

struct gcm_lco_proc gcm_lco_proc = {
    .list_lock = PTHREAD_MUTEX_INITIALIZER
};

/* ---- init and finalize --------------------------------------------------- */

gcm_status_t gcm_init(int *argc_p, char ***argv_p)
{
    gcm_slots_pattern_t world;
    gcm_port_t *port;
    gcm_status_t status;

    (void)argc_p;
    (void)argv_p;
    if (atomic_load(&gcm_lco_proc.initialized)) {
        return gcm_fail(GCM_ERR_INVALID_PARAM, "gcm_init",
                        "gencomm is already initialized");
    }
    gcm_config_load();
    status = gcm_boot_init();
    if (status != GCM_OK) {
        return status;
    }
    gcm_lco_proc.rank = gcm_boot_rank();
    gcm_lco_proc.size = gcm_boot_size();
    gcm_list_init(&gcm_lco_proc.lcos);

    status = gcm_slots_init();
    if (status != GCM_OK) {
        goto err_boot;
    }
    /* The handles' arena now rather than in the first object's call. */
    gcm_handle_prepare();
    /* The world: fully connected, stored as a pattern, not as a table. */
    world.size   = gcm_lco_proc.size;
    world.procs  = NULL;
    world.myrank = gcm_lco_proc.rank;
    world.home   = 0;
    status = gcm_slots_port_create(gcm_thr_endpoint_get(0), GCM_PORT_ID_WORLD,
                                   1, 0, &world, &port);
    if (status != GCM_OK) {
        goto err_slots;
    }
    gcm_lco_proc.world.magic = GCM_LCO_MAGIC;
    gcm_lco_proc.world.port  = port;
    gcm_list_init(&gcm_lco_proc.world.elem);

    /* Worker addresses become visible to the others. */
    status = gcm_boot_fence();
    if (status != GCM_OK) {
        gcm_fail(status, "gcm_init", "exchange with the launcher failed");
        goto err_world;
    }
    /* The job's secret, from process 0 through the launcher: the tokens
     * of what the library builds, and the job's identity in names. */
    status = gcm_boot_secret_fetch();
    if (status != GCM_OK) {
        goto err_world;
    }
    gcm_lco_proc.job = gcm_boot_job_ident();
    gcm_slots_job_ready(port);
    atomic_store_explicit(&gcm_lco_proc.initialized, 1, memory_order_release);
    return GCM_OK;

err_world:
    gcm_slots_port_destroy(port);
    gcm_lco_proc.world.port = NULL;
err_slots:
    gcm_slots_finalize();
err_boot:
    gcm_boot_finalize();
    return status;
}

gcm_status_t gcm_finalize(void)
{
    gcm_status_t status;

    GCM_CHECK_INIT("gcm_finalize");
    /* Everyone has sent what it will send before anything is torn down. */
    status = gcm_slots_barrier();
    if (status != GCM_OK) {
        gcm_warn("finalize: barrier failed (%s); closing anyway",
                 gcm_status_string(status));
    }
    atomic_store_explicit(&gcm_lco_proc.initialized, 0, memory_order_release);

    pthread_mutex_lock(&gcm_lco_proc.list_lock);
    while (!gcm_list_empty(&gcm_lco_proc.lcos)) {
        struct gcm_lco *lco = gcm_container_of(gcm_lco_proc.lcos.next,
                                               struct gcm_lco, elem);
        gcm_list_del(&lco->elem);
        gcm_debug("finalize: freeing LCO %u the program did not free",
                  lco->port->id);
        gcm_slots_port_destroy(lco->port);
        lco->magic = 0;
        free(lco);
    }
    pthread_mutex_unlock(&gcm_lco_proc.list_lock);
    gcm_slots_port_destroy(gcm_lco_proc.world.port);
    gcm_lco_proc.world.port  = NULL;
    gcm_lco_proc.world.magic = 0;

    gcm_slots_finalize();
    gcm_boot_finalize();
    return status;
}

int gcm_initialized(void)
{
    return atomic_load_explicit(&gcm_lco_proc.initialized,
                                memory_order_acquire);
}

int gcm_proc_rank(void)
{
    return gcm_lco_proc.rank;
}

int gcm_proc_count(void)
{
    return gcm_lco_proc.size;
}

gcm_lco_h gcm_world(void)
{
    return gcm_initialized() ? &gcm_lco_proc.world : NULL;
}

void gcm_get_stats(gcm_stats_t *stats_p)
{
    if (stats_p == NULL) {
        return;
    }
    gcm_slots_stats(stats_p);
}

const char *gcm_lco_transport_version(void)
{
    return gcm_thr_transport_version();
}

void gcm_lco_spread(void)
{
    gcm_thr_spread();
}
