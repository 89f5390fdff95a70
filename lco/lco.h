/*
 * lco/: the LCO object and its names; the public native API.
 */
#ifndef GCM_LCO_H
#define GCM_LCO_H

#include "slots/slots.h"

#define GCM_LCO_MAGIC 0x4c434f31u  /* "LCO1": catches handles that are not */

struct gcm_lco {
    uint32_t     magic;
    gcm_port_t  *port;
    gcm_list_t   elem;   /* every live LCO, for finalize */
};

/* Decoded form of a name or slot name. */
typedef struct gcm_lco_ref {
    int      kind;      /* GCM_DEST_LCO or GCM_DEST_SLOT */
    uint32_t proc;
    uint16_t ep;
    uint32_t id;
    uint32_t gen;
    uint64_t token;
    uint32_t job;       /* hash of the job id: names do not cross jobs */
    int32_t  rslot;     /* slot names only */
} gcm_lco_ref_t;

/* Name encoding: fixed little-endian layout, independent of the host. */
void gcm_lco_name_encode(const gcm_lco_ref_t *ref, gcm_name_t *name)
    GCM_INTERNAL;
void gcm_lco_slotname_encode(const gcm_lco_ref_t *ref, gcm_slotname_t *name)
    GCM_INTERNAL;
/* Return GCM_ERR_INVALID_PARAM (with the reason in *why) for bytes that
 * are no name of this library. */
gcm_status_t gcm_lco_name_decode(const gcm_name_t *name, gcm_lco_ref_t *ref,
                                 const char **why) GCM_INTERNAL;
gcm_status_t gcm_lco_slotname_decode(const gcm_slotname_t *name,
                                     gcm_lco_ref_t *ref, const char **why)
    GCM_INTERNAL;

#endif /* GCM_LCO_H */
