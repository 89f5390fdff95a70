/*
 * lco/lco_impl.h: what the files of lco/ share and no other layer sees:
 * the process's state of this layer and the argument checks of the
 * public calls.
 */
#ifndef GCM_LCO_IMPL_H
#define GCM_LCO_IMPL_H

#include "lco/lco.h"

#include <pthread.h>

/* lco/'s settings (lco_init.c). */
typedef struct gcm_lco_config {
    unsigned hier_hwloc;   /* GENCOMM_HIER_HWLOC */
} gcm_lco_config_t;

extern gcm_lco_config_t gcm_lco_config GCM_INTERNAL;

/* The process's state of this layer (lco_init.c). */
struct gcm_lco_proc {
    atomic_int       initialized;
    struct gcm_lco   world;
    uint64_t         job;        /* the job's identity (boot/) */
    int              rank;
    int              size;
    pthread_mutex_t  list_lock;  /* protects lcos */
    gcm_list_t       lcos;       /* every user LCO still alive */
};
extern struct gcm_lco_proc gcm_lco_proc GCM_INTERNAL;

#define GCM_CHECK_INIT(_call) \
    do { \
        if (!atomic_load_explicit(&gcm_lco_proc.initialized, \
                                  memory_order_acquire)) { \
            return gcm_fail(GCM_ERR_NOT_INITIALIZED, (_call), \
                            "call gcm_init() first"); \
        } \
    } while (0)

#define GCM_CHECK_LCO(_call, _lco) \
    do { \
        GCM_CHECK_INIT(_call); \
        if (((_lco) == NULL) || ((_lco)->magic != GCM_LCO_MAGIC)) { \
            return gcm_fail(GCM_ERR_INVALID_PARAM, (_call), \
                            "not a valid LCO handle"); \
        } \
    } while (0)

/* A pattern LCO with identity (id, gen) and token (0: the job's) on
 * endpoint, in the list of live LCOs (lco_object.c). */
gcm_status_t gcm_lco_pattern_new(gcm_thr_endpoint_t *endpoint, uint32_t id,
                                 uint32_t gen, uint64_t token,
                                 const gcm_slots_pattern_t *group,
                                 const char *call, gcm_lco_h *lco_p)
    GCM_INTERNAL;
/* Nonzero if lco is a live LCO handle and the library is initialized
 * (lco_pattern.c). */
int gcm_lco_valid(gcm_lco_h lco) GCM_INTERNAL;

#endif /* GCM_LCO_IMPL_H */
