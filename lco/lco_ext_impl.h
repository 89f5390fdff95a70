/*
 * lco/lco_ext_impl.h: what the files of the definitions file
 * (lco/lco_ext.c, lco/lco_ext_walk.c, lco/lco_ext_xml.c) share.
 */
#ifndef GCM_LCO_EXT_IMPL_H
#define GCM_LCO_EXT_IMPL_H

#include "lco/lco_ext.h"

#include <libxml/tree.h>

/* The walk over a validated tree (lco_ext_walk.c). */
typedef struct ext_walk {
    gcm_lco_ext_t *ext;
    int            oom;
} ext_walk_t;

/* What validation collects (lco_ext_xml.c). */
typedef struct ext_verrors {
    gcm_lco_ext_t *ext;
    xmlNodePtr     root;
    xmlNodePtr    *defnodes;   /* the element of each definition */
    int            oom;
} ext_verrors_t;

/* ---- small helpers (lco_ext_walk.c) ------------------------------------- */

/* "file:line: " + the formatted text, malloc'd (NULL without memory).
 * Trailing newlines (libxml2 ends its messages with one) are dropped. */
char *gcm_lco_ext_msg(const char *file, long line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4))) GCM_INTERNAL;
/* The line of node (at least 1). */
long gcm_lco_ext_line(xmlNodePtr node) GCM_INTERNAL;
/* Is node the element name? */
int gcm_lco_ext_is(xmlNodePtr node, const char *name) GCM_INTERNAL;
/* A definition's name attribute, blanks trimmed ("" when absent: the
 * schema has reported that). */
char *gcm_lco_ext_name_prop(xmlNodePtr node, int *oom_p) GCM_INTERNAL;

/* ---- the walk (lco_ext_walk.c) ------------------------------------------ */

void gcm_lco_ext_walk_comm(ext_walk_t *w, gcm_ext_def_t *def,
                           xmlNodePtr node) GCM_INTERNAL;
void gcm_lco_ext_walk_intercomm(ext_walk_t *w, gcm_ext_def_t *def,
                                xmlNodePtr node) GCM_INTERNAL;
/* Checks what refers across definitions: the two groups of every
 * intercommunicator. */
void gcm_lco_ext_check_intercomms(ext_walk_t *w, xmlNodePtr *nodes)
    GCM_INTERNAL;
/* A name defined twice: both definitions carry the error. */
void gcm_lco_ext_check_duplicates(ext_walk_t *w, xmlNodePtr *nodes)
    GCM_INTERNAL;
void gcm_lco_ext_scope_free(gcm_ext_scope_t *scope) GCM_INTERNAL;
void gcm_lco_ext_cluster_free(gcm_ext_cluster_t *c) GCM_INTERNAL;

/* ---- libxml2 (lco_ext_xml.c) -------------------------------------------- */

/* Validates doc against the schema; errors land on the definitions. */
gcm_status_t gcm_lco_ext_validate(ext_verrors_t *v, xmlDocPtr doc)
    GCM_INTERNAL;
/* The document of bytes, or NULL with why and *status_p set. */
xmlDocPtr gcm_lco_ext_read(const char *bytes, size_t len, const char *file,
                           char *why, size_t whylen, gcm_status_t *status_p)
    GCM_INTERNAL;

#endif /* GCM_LCO_EXT_IMPL_H */
