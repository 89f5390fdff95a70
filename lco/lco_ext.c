/*
 * lco/lco_ext.c: the definitions file of external communicators
 * (GENCOMM_EXTERNAL, docs/external.md), parsed with libxml2 and validated
 * against the schema docs/mpixternal.xsd, which the library carries
 * (lco_ext_xsd.c is made from it at build time).
 *
 * What goes wrong is kept where it belongs, as "file:line: what is
 * wrong":
 *
 * - bytes that are not a well-formed XML document (or carry a DOCTYPE:
 *   no DTDs, no entities): gcm_lco_ext_parse fails, and with it MPI_Init;
 * - a schema error, or one this file finds (an expression that does not
 *   parse, a regular expression that does not compile, two <reorder>s,
 *   an edge end with both rank and expr...) inside a <comm> or
 *   <intercomm>: kept on that definition, reported by the calls that ask
 *   for it, while the other definitions work;
 * - a schema error outside every definition (the root element, an
 *   unknown element between definitions, two definitions of one name):
 *   kept on the file, reported by every call that asks for a definition,
 *   since any of them could be the one misspelt.
 *
 * The input is untrusted: no network access, no DTD, no entity
 * substitution, big line numbers kept; libxml2's own limits bound the
 * rest. The parser takes (bytes, length, file name) and opens nothing,
 * so that a fuzzer can call it alone.
 */
#include "config.h"

#include "lco/lco_ext_impl.h"

#include <libxml/parser.h>
#include <libxml/tree.h>
#include <libxml/xmlerror.h>
#include <libxml/xmlschemas.h>
#include <libxml/xmlversion.h>

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static pthread_once_t gcm_ext_xml_once = PTHREAD_ONCE_INIT;

static void ext_xml_init(void)
{
    xmlInitParser();
}

/* ---- the parse ------------------------------------------------------------ */

static gcm_status_t ext_collect(ext_walk_t *w, xmlNodePtr root,
                                xmlNodePtr **nodes_p)
{
    gcm_lco_ext_t *ext = w->ext;
    xmlNodePtr k, *nodes;
    int n = 0;

    for (k = root->children; k != NULL; k = k->next) {
        n += gcm_lco_ext_is(k, "comm") || gcm_lco_ext_is(k, "intercomm");
    }
    ext->defs = calloc((size_t)n + 1, sizeof(*ext->defs));
    nodes     = calloc((size_t)n + 1, sizeof(*nodes));
    *nodes_p  = nodes;
    if (ext->defs == NULL || nodes == NULL) {
        return GCM_ERR_NO_MEMORY;
    }
    for (k = root->children; k != NULL; k = k->next) {
        gcm_ext_def_t *def;

        if (!gcm_lco_ext_is(k, "comm") && !gcm_lco_ext_is(k, "intercomm")) {
            continue;
        }
        def = &ext->defs[ext->ndefs];
        nodes[ext->ndefs] = k;
        ext->ndefs++;
        def->kind = gcm_lco_ext_is(k, "comm") ? GCM_EXT_DEF_COMM :
                    GCM_EXT_DEF_INTER;
        def->line = (int)gcm_lco_ext_line(k);
        def->name = gcm_lco_ext_name_prop(k, &w->oom);
    }
    return w->oom ? GCM_ERR_NO_MEMORY : GCM_OK;
}

gcm_status_t gcm_lco_ext_parse(const char *bytes, size_t len,
                               const char *file, gcm_lco_ext_t **ext_p,
                               char *why, size_t whylen)
{
    ext_verrors_t verr;
    ext_walk_t walk;
    gcm_lco_ext_t *ext;
    xmlNodePtr root, *nodes = NULL;
    gcm_status_t status;
    xmlDocPtr doc;
    int i;

    pthread_once(&gcm_ext_xml_once, ext_xml_init);
    *ext_p = NULL;
    doc = gcm_lco_ext_read(bytes, len, file, why, whylen, &status);
    if (doc == NULL) {
        return status;
    }
    ext = calloc(1, sizeof(*ext));
    if (ext == NULL || (ext->file = strdup(file)) == NULL) {
        free(ext);
        xmlFreeDoc(doc);
        snprintf(why, whylen, "%s: out of memory", file);
        return GCM_ERR_NO_MEMORY;
    }
    ext->hash = gcm_hash64(bytes, len);
    memset(&walk, 0, sizeof(walk));
    walk.ext = ext;
    root = xmlDocGetRootElement(doc);
    status = ext_collect(&walk, root, &nodes);
    if (status == GCM_OK) {
        memset(&verr, 0, sizeof(verr));
        verr.ext      = ext;
        verr.root     = root;
        verr.defnodes = nodes;
        status = gcm_lco_ext_validate(&verr, doc);
    }
    if (status == GCM_OK && !gcm_lco_ext_is(root, "mpixternal") &&
        ext->error == NULL) {
        ext->error = gcm_lco_ext_msg(file, gcm_lco_ext_line(root),
                                     "the root element is <%.100s>, not "
                                     "<mpixternal>", (const char *)root->name);
    }
    for (i = 0; status == GCM_OK && i < ext->ndefs; i++) {
        gcm_ext_def_t *def = &ext->defs[i];

        /* A definition the schema refused is not walked: its content
         * may lack what the walk relies on. */
        if (def->error != NULL) {
            continue;
        }
        if (def->kind == GCM_EXT_DEF_COMM) {
            gcm_lco_ext_walk_comm(&walk, def, nodes[i]);
        } else {
            gcm_lco_ext_walk_intercomm(&walk, def, nodes[i]);
        }
        if (walk.oom) {
            status = GCM_ERR_NO_MEMORY;
        }
    }
    if (status == GCM_OK) {
        gcm_lco_ext_check_duplicates(&walk, nodes);
        gcm_lco_ext_check_intercomms(&walk, nodes);
        if (walk.oom) {
            status = GCM_ERR_NO_MEMORY;
        }
    }
    free(nodes);
    xmlFreeDoc(doc);
    if (status != GCM_OK) {
        gcm_lco_ext_free(ext);
        snprintf(why, whylen, "%s: %s", file,
                 (status == GCM_ERR_NO_MEMORY) ? "out of memory" :
                 gcm_last_error());
        return status;
    }
    *ext_p = ext;
    return GCM_OK;
}

/* ---- lookup and teardown -------------------------------------------------- */

const gcm_ext_def_t *gcm_lco_ext_find(const gcm_lco_ext_t *ext,
                                      const char *name)
{
    int i;

    for (i = 0; ext != NULL && i < ext->ndefs; i++) {
        if (ext->defs[i].name != NULL &&
            strcmp(ext->defs[i].name, name) == 0) {
            return &ext->defs[i];
        }
    }
    return NULL;
}

static void end_free(gcm_ext_end_t *end)
{
    gcm_lco_expr_free(end->expr);
    free(end->node);
}

static void topo_free(gcm_ext_topo_t *t)
{
    int i;

    for (i = 0; i < t->nedges; i++) {
        end_free(&t->edges[i].first);
        end_free(&t->edges[i].second);
    }
    free(t->edges);
    for (i = 0; i < t->nclusters; i++) {
        gcm_lco_ext_cluster_free(&t->clusters[i]);
    }
    free(t->clusters);
    for (i = 0; i < t->nnodes; i++) {
        free(t->nodes[i]);
    }
    free(t->nodes);
}

void gcm_lco_ext_free(gcm_lco_ext_t *ext)
{
    int i, j;

    if (ext == NULL) {
        return;
    }
    for (i = 0; i < ext->ndefs; i++) {
        gcm_ext_def_t *def = &ext->defs[i];

        free(def->name);
        free(def->error);
        gcm_lco_ext_scope_free(&def->scope);
        for (j = 0; j < def->nclusters; j++) {
            gcm_lco_ext_cluster_free(&def->clusters[j]);
        }
        free(def->clusters);
        for (j = 0; j < def->nnodes; j++) {
            free(def->nodes[j].name);
            gcm_lco_ext_scope_free(&def->nodes[j].scope);
        }
        free(def->nodes);
        gcm_lco_expr_free(def->reorder);
        topo_free(&def->vtopo);
        topo_free(&def->ptopo);
        free(def->first);
        free(def->second);
    }
    free(ext->defs);
    free(ext->error);
    free(ext->file);
    free(ext);
}
