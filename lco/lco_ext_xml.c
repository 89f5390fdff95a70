/*
 * lco/lco_ext_xml.c: the definitions file as libxml2 reads it (lco_ext.c):
 * the document, refused unless well-formed (no DTD, no entities, no
 * network), and its validation against the schema, each schema error
 * kept on the definition that holds it or on the file.
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

/* libxml2 2.12 made the error of structured handlers const. */
#if LIBXML_VERSION >= 21200
typedef const xmlError gcm_xml_error_t;
#else
typedef xmlError gcm_xml_error_t;
#endif

/* ---- schema errors -------------------------------------------------------- */

/* The definition that holds node (a child of the root or below), or -1
 * when it is outside every definition. */
static int ext_def_of(ext_verrors_t *v, xmlNodePtr node)
{
    int i;

    while (node != NULL && node->parent != NULL &&
           node->parent != v->root) {
        if (node->parent->type != XML_ELEMENT_NODE) {
            return -1;
        }
        node = node->parent;
    }
    if (node == NULL || node == v->root) {
        return -1;
    }
    for (i = 0; i < v->ext->ndefs; i++) {
        if (v->defnodes[i] == node) {
            return i;
        }
    }
    return -1;
}

static void ext_schema_error(void *ctx, gcm_xml_error_t *err)
{
    ext_verrors_t *v = ctx;
    xmlNodePtr node;
    long line;
    char **slot;
    int d;

    if (err == NULL || err->level < XML_ERR_ERROR) {
        return;
    }
    node = (err->node != NULL) ? (xmlNodePtr)err->node : NULL;
    line = (node != NULL) ? gcm_lco_ext_line(node) :
           (err->line > 0 ? err->line : 1);
    d = (node != NULL) ? ext_def_of(v, node) : -1;
    if (d >= 0) {
        v->ext->defs[d].error_everywhere = 1;
        slot = &v->ext->defs[d].error;
    } else {
        slot = &v->ext->error;
    }
    if (*slot != NULL) {
        return;
    }
    *slot = gcm_lco_ext_msg(v->ext->file, line, "%s",
                            (err->message != NULL) ? err->message :
                            "not valid");
    if (*slot == NULL) {
        v->oom = 1;
    }
}

/* Validates doc against the schema; errors land on the definitions. */
gcm_status_t gcm_lco_ext_validate(ext_verrors_t *v, xmlDocPtr doc)
{
    xmlSchemaParserCtxtPtr pctx;
    xmlSchemaValidCtxtPtr vctx = NULL;
    xmlSchemaPtr schema = NULL;
    gcm_status_t status = GCM_ERR_INTERNAL;
    int rc;

    pctx = xmlSchemaNewMemParserCtxt(gcm_lco_ext_xsd,
                                     (int)strlen(gcm_lco_ext_xsd));
    if (pctx == NULL) {
        return GCM_ERR_NO_MEMORY;
    }
    xmlSchemaSetParserStructuredErrors(pctx, NULL, NULL);
    schema = xmlSchemaParse(pctx);
    xmlSchemaFreeParserCtxt(pctx);
    if (schema == NULL) {
        return gcm_fail(GCM_ERR_INTERNAL, "gcm_lco_ext_parse",
                        "the built-in schema does not compile");
    }
    vctx = xmlSchemaNewValidCtxt(schema);
    if (vctx == NULL) {
        status = GCM_ERR_NO_MEMORY;
        goto out;
    }
    xmlSchemaSetValidStructuredErrors(vctx,
                                      (xmlStructuredErrorFunc)ext_schema_error,
                                      v);
    rc = xmlSchemaValidateDoc(vctx, doc);
    if (rc < 0) {
        status = gcm_fail(GCM_ERR_INTERNAL, "gcm_lco_ext_parse",
                          "libxml2 could not validate the document");
        goto out;
    }
    if (rc > 0 && v->ext->error == NULL) {
        int i, any = 0;

        /* Invalid, yet no error reached us with a place: say so on the
         * file rather than pass it as valid. */
        for (i = 0; i < v->ext->ndefs; i++) {
            any |= (v->ext->defs[i].error != NULL);
        }
        if (!any) {
            v->ext->error = gcm_lco_ext_msg(v->ext->file, 1, "the file does "
                                            "not follow the schema "
                                            "mpixternal.xsd");
        }
    }
    status = v->oom ? GCM_ERR_NO_MEMORY : GCM_OK;
out:
    if (vctx != NULL) {
        xmlSchemaFreeValidCtxt(vctx);
    }
    xmlSchemaFree(schema);
    return status;
}

/* ---- well-formedness ------------------------------------------------------ */

typedef struct ext_perror {
    char  *why;
    size_t whylen;
    const char *file;
    int    seen;
} ext_perror_t;

/* The parser's structured errors: the first error is the one to report
 * (what follows is often its consequence). */
static void ext_parse_error(void *ctx, gcm_xml_error_t *err)
{
    xmlParserCtxtPtr pctxt = ctx;
    ext_perror_t *p = (pctxt != NULL) ? pctxt->_private : NULL;
    char *m;

    if (p == NULL || err == NULL || err->level < XML_ERR_ERROR || p->seen) {
        return;
    }
    p->seen = 1;
    m = gcm_lco_ext_msg(p->file, (err->line > 0) ? err->line : 1, "%s",
                        (err->message != NULL) ? err->message :
                        "not well formed");
    snprintf(p->why, p->whylen, "%s", (m != NULL) ? m : "out of memory");
    free(m);
}

xmlDocPtr gcm_lco_ext_read(const char *bytes, size_t len, const char *file,
                           char *why, size_t whylen, gcm_status_t *status_p)
{
    xmlParserCtxtPtr ctxt;
    xmlDocPtr doc;
    ext_perror_t perr = { why, whylen, file, 0 };

    *status_p = GCM_ERR_INVALID_PARAM;
    if (len > (size_t)INT_MAX) {
        snprintf(why, whylen, "%s:1: the file is too large (%zu bytes)",
                 file, len);
        return NULL;
    }
    ctxt = xmlNewParserCtxt();
    if (ctxt == NULL) {
        *status_p = GCM_ERR_NO_MEMORY;
        snprintf(why, whylen, "%s: out of memory", file);
        return NULL;
    }
    ctxt->_private      = &perr;
    ctxt->sax->serror   = (xmlStructuredErrorFunc)ext_parse_error;
    ctxt->vctxt.error   = NULL;
    ctxt->vctxt.warning = NULL;
    doc = xmlCtxtReadMemory(ctxt, bytes, (int)len, file, NULL,
                            XML_PARSE_NONET | XML_PARSE_NOERROR |
                            XML_PARSE_NOWARNING | XML_PARSE_BIG_LINES |
                            XML_PARSE_NOCDATA);
    if (doc == NULL || !ctxt->wellFormed) {
        if (!perr.seen) {
            snprintf(why, whylen, "%s:%d: not a well-formed XML document",
                     file, (ctxt->input != NULL && ctxt->input->line > 0) ?
                     ctxt->input->line : 1);
        }
        if (doc != NULL) {
            xmlFreeDoc(doc);
        }
        xmlFreeParserCtxt(ctxt);
        return NULL;
    }
    xmlFreeParserCtxt(ctxt);
    if (doc->intSubset != NULL || doc->extSubset != NULL) {
        /* libxml2 keeps no line for a DTD: count up to the keyword. */
        long line = 1;
        size_t i;

        for (i = 0; i + 9 <= len && memcmp(bytes + i, "<!DOCTYPE", 9) != 0;
             i++) {
            line += (bytes[i] == '\n');
        }
        snprintf(why, whylen, "%s:%ld: a DOCTYPE declaration is not "
                 "accepted (no DTD, no entities)", file, line);
        xmlFreeDoc(doc);
        return NULL;
    }
    if (xmlDocGetRootElement(doc) == NULL) {
        snprintf(why, whylen, "%s:1: the document has no root element",
                 file);
        xmlFreeDoc(doc);
        return NULL;
    }
    *status_p = GCM_OK;
    return doc;
}
