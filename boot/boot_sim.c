/*
 * boot/boot_sim.c: the simulation backend (GENCOMM_BOOT=sim). One real
 * process believes it is rank GENCOMM_SIM_RANK of GENCOMM_SIM_SIZE, with
 * GENCOMM_SIM_PPN processes per host, so that what the library builds for
 * a large job (communicators, hierarchies, schedules) can be measured on
 * one machine (bench/scale_sim).
 *
 * No other process exists and none is ever reached:
 * - the fence returns at once, as if every process had arrived;
 * - this process reads back what it published itself;
 * - the job's secret, published by process 0, is drawn here when this
 *   process is not 0 (as process 0 would have drawn it);
 * - any other value of another process (a worker address, a
 *   shared-memory segment) is refused with GCM_ERR_BOOT and a message
 *   that says it is a simulation, so that a send to a peer fails at once
 *   instead of waiting for a process that does not exist (a receive
 *   from another process fails when posted: slots/slot_recv.c);
 * - host names follow the layout: process r is on host
 *   "<GENCOMM_SIM_HOST><r / GENCOMM_SIM_PPN>" (gcm_boot_host_of).
 */
#include "config.h"

#include "boot/boot_impl.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

typedef struct gcm_boot_sim_config {
    unsigned    size;   /* GENCOMM_SIM_SIZE (0: unset) */
    unsigned    rank;   /* GENCOMM_SIM_RANK */
    unsigned    ppn;    /* GENCOMM_SIM_PPN */
    const char *host;   /* GENCOMM_SIM_HOST (NULL: "sim") */
} gcm_boot_sim_config_t;

static gcm_boot_sim_config_t gcm_boot_sim_config;

static const gcm_config_entry_t gcm_boot_sim_config_entries[] = {
    GCM_CFG("GENCOMM_SIM_SIZE", "0", GCM_CFG_INT, gcm_boot_sim_config.size,
            "GENCOMM_BOOT=sim: the simulated job's size"),
    GCM_CFG("GENCOMM_SIM_RANK", "0", GCM_CFG_INT, gcm_boot_sim_config.rank,
            "GENCOMM_BOOT=sim: this process's simulated rank"),
    GCM_CFG("GENCOMM_SIM_PPN", "1", GCM_CFG_INT, gcm_boot_sim_config.ppn,
            "GENCOMM_BOOT=sim: simulated processes per host"),
    GCM_CFG_TEXT("GENCOMM_SIM_HOST", gcm_boot_sim_config.host,
                 "GENCOMM_BOOT=sim: the prefix of the simulated host names"),
};
GCM_CONFIG_REGISTER(boot_sim, gcm_boot_sim_config_entries)

/* The longest host-name prefix: the name and its number fit 256 bytes. */
#define GCM_BOOT_SIM_PREFIX_MAX 200

static struct {
    int           rank;
    int           size;
    int           ppn;
    const char   *host;
    /* The secret process 0 would have published (this process is not 0). */
    unsigned char secret[GCM_BOOT_SECRET_SIZE];
} gcm_boot_sim;

static gcm_status_t gcm_boot_sim_put(const char *key, const void *value,
                                     size_t len)
{
    return gcm_boot_local_put(key, value, len);
}

static gcm_status_t gcm_boot_sim_fence(void)
{
    /* Simulation: every other process is taken to have arrived. */
    return GCM_OK;
}

static gcm_status_t gcm_boot_sim_get(int rank, const char *key, void *buf,
                                     size_t *len_p)
{
    if (rank == gcm_boot_sim.rank) {
        return gcm_boot_local_get(key, buf, len_p);
    }
    if ((rank == 0) && (strcmp(key, GCM_BOOT_SECRET_KEY) == 0)) {
        if (*len_p < sizeof(gcm_boot_sim.secret)) {
            return GCM_ERR_TRUNCATED;
        }
        memcpy(buf, gcm_boot_sim.secret, sizeof(gcm_boot_sim.secret));
        *len_p = sizeof(gcm_boot_sim.secret);
        return GCM_OK;
    }
    return gcm_fail(GCM_ERR_BOOT, "boot", "simulation (GENCOMM_BOOT=sim): "
                    "process %d of %d does not exist, so its value '%s' "
                    "cannot be read and it cannot be reached", rank,
                    gcm_boot_sim.size, key);
}

static void gcm_boot_sim_finalize(void)
{
    memset(gcm_boot_sim.secret, 0, sizeof(gcm_boot_sim.secret));
}

static const gcm_boot_ops_t gcm_boot_sim_ops = {
    .put      = gcm_boot_sim_put,
    .fence    = gcm_boot_sim_fence,
    .get      = gcm_boot_sim_get,
    .finalize = gcm_boot_sim_finalize,
};

gcm_status_t gcm_boot_sim_init(int *rank_p, int *size_p, char *jobid,
                               size_t jobid_len, const gcm_boot_ops_t **ops_p)
{
    const gcm_boot_sim_config_t *c = &gcm_boot_sim_config;
    const char *host = (c->host != NULL) ? c->host : "sim";

    if ((c->size < 1) || (c->size > INT_MAX)) {
        return gcm_fail(GCM_ERR_BOOT, "gcm_init", "GENCOMM_BOOT=sim needs "
                        "GENCOMM_SIM_SIZE between 1 and %d (it is %u)",
                        INT_MAX, c->size);
    }
    if (c->rank >= c->size) {
        return gcm_fail(GCM_ERR_BOOT, "gcm_init", "GENCOMM_SIM_RANK %u is "
                        "not below GENCOMM_SIM_SIZE %u", c->rank, c->size);
    }
    if ((c->ppn < 1) || (c->ppn > c->size)) {
        return gcm_fail(GCM_ERR_BOOT, "gcm_init", "GENCOMM_SIM_PPN %u is not "
                        "between 1 and GENCOMM_SIM_SIZE %u", c->ppn,
                        c->size);
    }
    if ((host[0] == '\0') || (strlen(host) > GCM_BOOT_SIM_PREFIX_MAX)) {
        return gcm_fail(GCM_ERR_BOOT, "gcm_init", "GENCOMM_SIM_HOST must "
                        "have 1 to %d characters", GCM_BOOT_SIM_PREFIX_MAX);
    }
    memset(&gcm_boot_sim, 0, sizeof(gcm_boot_sim));
    gcm_boot_sim.rank = (int)c->rank;
    gcm_boot_sim.size = (int)c->size;
    gcm_boot_sim.ppn  = (int)c->ppn;
    gcm_boot_sim.host = host;
    if (gcm_boot_sim.rank != 0) {
        gcm_random_kernel_bytes(gcm_boot_sim.secret,
                                sizeof(gcm_boot_sim.secret));
    }
    *rank_p = gcm_boot_sim.rank;
    *size_p = gcm_boot_sim.size;
    snprintf(jobid, jobid_len, "sim-%d", (int)getpid());
    *ops_p = &gcm_boot_sim_ops;
    return GCM_OK;
}

gcm_status_t gcm_boot_sim_host(int rank, char *buf, size_t len)
{
    int n = snprintf(buf, len, "%s%d", gcm_boot_sim.host,
                     rank / gcm_boot_sim.ppn);

    return ((n < 0) || ((size_t)n >= len)) ? GCM_ERR_TRUNCATED : GCM_OK;
}
