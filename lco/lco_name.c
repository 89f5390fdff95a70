/*
 * lco/lco_name.c: names are plain bytes in a fixed little-endian layout,
 *
 *   0  u16 magic 0x4347 ("GC")   2  u8 version 2  3  u8 kind (1 LCO, 2 slot)
 *   4  u32 process (its rank in its job)
 *   8  u16 endpoint              10 u16 contact port (0: none)
 *   12 u32 LCO id                16 u32 generation
 *   20 u64 capability token      28 u32 contact IPv4 address
 *   32 u64 job identity          40 u64 reserved (0)
 *   slot names add: 48 i32 receive slot, 52 u32 reserved (0)
 *
 * so that a name copied between processes of different builds still reads
 * the same, and so that bytes that are not a name are recognised as such.
 * The job identity tells a name of this job from one of another; the
 * contact is where a process of another job asks for the worker address
 * of the named endpoint (threads/thr_ask.c).
 */
#include "config.h"

#include "lco/lco.h"

#include <string.h>

#define GCM_NAME_MAGIC   0x4347u
#define GCM_NAME_VERSION 2u

static void gcm_put16(unsigned char *p, uint16_t v)
{
    p[0] = (unsigned char)v;
    p[1] = (unsigned char)(v >> 8);
}

static void gcm_put32(unsigned char *p, uint32_t v)
{
    int i;

    for (i = 0; i < 4; i++) {
        p[i] = (unsigned char)(v >> (8 * i));
    }
}

static void gcm_put64(unsigned char *p, uint64_t v)
{
    int i;

    for (i = 0; i < 8; i++) {
        p[i] = (unsigned char)(v >> (8 * i));
    }
}

static uint16_t gcm_get16(const unsigned char *p)
{
    return (uint16_t)(p[0] | (p[1] << 8));
}

static uint32_t gcm_get32(const unsigned char *p)
{
    uint32_t v = 0;
    int i;

    for (i = 0; i < 4; i++) {
        v |= (uint32_t)p[i] << (8 * i);
    }
    return v;
}

static uint64_t gcm_get64(const unsigned char *p)
{
    uint64_t v = 0;
    int i;

    for (i = 0; i < 8; i++) {
        v |= (uint64_t)p[i] << (8 * i);
    }
    return v;
}

static void gcm_lco_encode_common(const gcm_lco_ref_t *ref, int kind,
                                  unsigned char *p)
{
    gcm_put16(p + 0, GCM_NAME_MAGIC);
    p[2] = GCM_NAME_VERSION;
    p[3] = (unsigned char)kind;
    gcm_put32(p + 4, ref->proc);
    gcm_put16(p + 8, ref->ep);
    gcm_put16(p + 10, ref->port);
    gcm_put32(p + 12, ref->id);
    gcm_put32(p + 16, ref->gen);
    gcm_put64(p + 20, ref->token);
    gcm_put32(p + 28, ref->ip4);
    gcm_put64(p + 32, ref->job);
    gcm_put64(p + 40, 0);
}

static gcm_status_t gcm_lco_decode_common(const unsigned char *p, int kind,
                                          gcm_lco_ref_t *ref,
                                          const char **why)
{
    if (gcm_get16(p) != GCM_NAME_MAGIC) {
        *why = "not a gencomm name (bad magic)";
        return GCM_ERR_INVALID_PARAM;
    }
    if (p[2] != GCM_NAME_VERSION) {
        *why = "name of an unknown version";
        return GCM_ERR_INVALID_PARAM;
    }
    if (p[3] != kind) {
        *why = (kind == GCM_DEST_LCO) ? "a slot name where an LCO name "
               "belongs" : "an LCO name where a slot name belongs";
        return GCM_ERR_INVALID_PARAM;
    }
    if (gcm_get64(p + 40) != 0) {
        *why = "reserved bytes of the name are not zero";
        return GCM_ERR_INVALID_PARAM;
    }
    if (gcm_get64(p + 32) == 0) {
        *why = "a name of no job";
        return GCM_ERR_INVALID_PARAM;
    }
    ref->kind  = kind;
    ref->proc  = gcm_get32(p + 4);
    ref->ep    = gcm_get16(p + 8);
    ref->id    = gcm_get32(p + 12);
    ref->gen   = gcm_get32(p + 16);
    ref->token = gcm_get64(p + 20);
    ref->port  = gcm_get16(p + 10);
    ref->ip4   = gcm_get32(p + 28);
    ref->job   = gcm_get64(p + 32);
    ref->rslot = 0;
    return GCM_OK;
}

void gcm_lco_name_encode(const gcm_lco_ref_t *ref, gcm_name_t *name)
{
    gcm_lco_encode_common(ref, GCM_DEST_LCO, name->bytes);
}

void gcm_lco_slotname_encode(const gcm_lco_ref_t *ref, gcm_slotname_t *name)
{
    gcm_lco_encode_common(ref, GCM_DEST_SLOT, name->bytes);
    gcm_put32(name->bytes + GCM_NAME_SIZE, (uint32_t)ref->rslot);
    gcm_put32(name->bytes + GCM_NAME_SIZE + 4, 0);
}

gcm_status_t gcm_lco_name_decode(const gcm_name_t *name, gcm_lco_ref_t *ref,
                                 const char **why)
{
    return gcm_lco_decode_common(name->bytes, GCM_DEST_LCO, ref, why);
}

gcm_status_t gcm_lco_slotname_decode(const gcm_slotname_t *name,
                                     gcm_lco_ref_t *ref, const char **why)
{
    gcm_status_t status = gcm_lco_decode_common(name->bytes, GCM_DEST_SLOT,
                                                ref, why);

    if (status != GCM_OK) {
        return status;
    }
    ref->rslot = (int32_t)gcm_get32(name->bytes + GCM_NAME_SIZE);
    if ((ref->rslot < 0) ||
        (gcm_get32(name->bytes + GCM_NAME_SIZE + 4) != 0)) {
        *why = "slot name with a negative slot or non-zero reserved bytes";
        return GCM_ERR_INVALID_PARAM;
    }
    return GCM_OK;
}
