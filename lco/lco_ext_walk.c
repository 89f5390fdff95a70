/*
 * lco/lco_ext_walk.c: the walk over a parsed definitions file that the
 * schema has validated (lco_ext.c): each <comm> and <intercomm> becomes a
 * definition (gcm_ext_def_t); an error this walk finds (an expression
 * that does not parse, a regular expression that does not compile, two
 * <reorder>s, an edge end with both rank and expr...) is kept on that
 * definition as "file:line: what is wrong", while the others work.
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

/* The largest rank or reorder value a file may give (ranks are ints). */
#define GCM_EXT_MAX_RANK INT32_MAX

/* ---- small helpers ------------------------------------------------------ */

/* "file:line: " + the formatted text, malloc'd (NULL without memory).
 * Trailing newlines (libxml2 ends its messages with one) are dropped. */
char *gcm_lco_ext_msg(const char *file, long line, const char *fmt, ...)
{
    char text[GCM_EXT_ERRLEN];
    char *out;
    va_list ap;
    int n;
    size_t len;

    n = snprintf(text, sizeof(text), "%s:%ld: ", file, line);
    if (n < 0 || (size_t)n >= sizeof(text)) {
        n = 0;
    }
    va_start(ap, fmt);
    vsnprintf(text + n, sizeof(text) - (size_t)n, fmt, ap);
    va_end(ap);
    len = strlen(text);
    while (len > 0 && (text[len - 1] == '\n' || text[len - 1] == ' ')) {
        text[--len] = '\0';
    }
    out = malloc(len + 1);
    if (out != NULL) {
        memcpy(out, text, len + 1);
    }
    return out;
}

long gcm_lco_ext_line(xmlNodePtr node)
{
    long line = (node != NULL) ? xmlGetLineNo(node) : 0;

    return (line > 0) ? line : 1;
}

int gcm_lco_ext_is(xmlNodePtr node, const char *name)
{
    return node->type == XML_ELEMENT_NODE &&
           strcmp((const char *)node->name, name) == 0;
}

/* An attribute's value as our own string (NULL if absent; *oom_p set
 * when memory ran out). */
static char *ext_prop(xmlNodePtr node, const char *name, int *oom_p)
{
    xmlChar *v = xmlGetProp(node, (const xmlChar *)name);
    char *c;

    if (v == NULL) {
        return NULL;
    }
    c = strdup((const char *)v);
    xmlFree(v);
    if (c == NULL) {
        *oom_p = 1;
    }
    return c;
}

/* An element's text, blanks trimmed at both ends. */
static char *ext_text(xmlNodePtr node, int *oom_p)
{
    xmlChar *v = xmlNodeGetContent(node);
    const char *s;
    char *c;
    size_t n;

    if (v == NULL) {
        return NULL;
    }
    s = (const char *)v;
    while (isspace((unsigned char)*s)) {
        s++;
    }
    n = strlen(s);
    while (n > 0 && isspace((unsigned char)s[n - 1])) {
        n--;
    }
    c = malloc(n + 1);
    if (c != NULL) {
        memcpy(c, s, n);
        c[n] = '\0';
    } else {
        *oom_p = 1;
    }
    xmlFree(v);
    return c;
}

/* A definition's name attribute, blanks trimmed ("" when absent: the
 * schema has reported that). */
char *gcm_lco_ext_name_prop(xmlNodePtr node, int *oom_p)
{
    char *v = ext_prop(node, "name", oom_p);
    char *s;
    size_t n;

    if (v == NULL) {
        v = strdup("");
        if (v == NULL) {
            *oom_p = 1;
        }
        return v;
    }
    for (s = v; isspace((unsigned char)*s); s++) {
    }
    n = strlen(s);
    while (n > 0 && isspace((unsigned char)s[n - 1])) {
        n--;
    }
    memmove(v, s, n);
    v[n] = '\0';
    return v;
}

/* A non-negative integer the schema has checked the form of; -1 when it
 * is above GCM_EXT_MAX_RANK or no integer at all. */
static int64_t ext_uint(const char *s)
{
    int64_t v = 0;

    while (isspace((unsigned char)*s)) {
        s++;
    }
    if (*s == '+') {
        s++;
    }
    if (!isdigit((unsigned char)*s)) {
        return -1;
    }
    for (; isdigit((unsigned char)*s); s++) {
        v = v * 10 + (*s - '0');
        if (v > GCM_EXT_MAX_RANK) {
            return -1;
        }
    }
    while (isspace((unsigned char)*s)) {
        s++;
    }
    return (*s == '\0') ? v : -1;
}

/* ---- the walk over a valid(ated) tree ------------------------------------ */

/* Records an error on def (the first one is kept; an error that leaves
 * the members unknown makes the definition fail everywhere). */
static void def_error(ext_walk_t *w, gcm_ext_def_t *def, xmlNodePtr node,
                      int everywhere, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

static void def_error(ext_walk_t *w, gcm_ext_def_t *def, xmlNodePtr node,
                      int everywhere, const char *fmt, ...)
{
    char what[GCM_EXT_ERRLEN];
    va_list ap;

    def->error_everywhere |= everywhere;
    if (def->error != NULL) {
        return;
    }
    va_start(ap, fmt);
    vsnprintf(what, sizeof(what), fmt, ap);
    va_end(ap);
    def->error = gcm_lco_ext_msg(w->ext->file, gcm_lco_ext_line(node), "%s",
                                 what);
    if (def->error == NULL) {
        w->oom = 1;
    }
}

static int kv_add(ext_walk_t *w, gcm_ext_kv_t **arr, int *n, xmlNodePtr node)
{
    gcm_ext_kv_t *a = realloc(*arr, ((size_t)*n + 1) * sizeof(**arr));

    if (a == NULL) {
        w->oom = 1;
        return -1;
    }
    *arr = a;
    a[*n].key   = ext_prop(node, "key", &w->oom);
    a[*n].value = ext_prop(node, "value", &w->oom);
    a[*n].line  = (int)gcm_lco_ext_line(node);
    (*n)++;
    if (a[*n - 1].key == NULL || a[*n - 1].value == NULL) {
        /* The schema requires both; only memory can lack here. */
        w->oom = 1;
        return -1;
    }
    return 0;
}

/* <attribute> and <info> children of a cluster or node, or of a comm
 * (node is one of them: it is taken if it is one). */
static int scope_take(ext_walk_t *w, gcm_ext_scope_t *scope, xmlNodePtr node)
{
    if (gcm_lco_ext_is(node, "attribute")) {
        kv_add(w, &scope->attrs, &scope->nattrs, node);
        return 1;
    }
    if (gcm_lco_ext_is(node, "info")) {
        kv_add(w, &scope->infos, &scope->ninfos, node);
        return 1;
    }
    return 0;
}

void gcm_lco_ext_scope_free(gcm_ext_scope_t *scope)
{
    int i;

    for (i = 0; i < scope->nattrs; i++) {
        free(scope->attrs[i].key);
        free(scope->attrs[i].value);
    }
    for (i = 0; i < scope->ninfos; i++) {
        free(scope->infos[i].key);
        free(scope->infos[i].value);
    }
    free(scope->attrs);
    free(scope->infos);
}

/* Compiles a cluster's regular expression, anchored at both ends. */
static void cluster_compile(ext_walk_t *w, gcm_ext_def_t *def,
                            gcm_ext_cluster_t *c, xmlNodePtr node)
{
    char errbuf[256];
    size_t n = strlen(c->regex);
    char *anchored = malloc(n + 5);
    int rc;

    if (anchored == NULL) {
        w->oom = 1;
        return;
    }
    snprintf(anchored, n + 5, "^(%s)$", c->regex);
    rc = regcomp(&c->re, anchored, REG_EXTENDED | REG_NOSUB);
    free(anchored);
    if (rc != 0) {
        regerror(rc, &c->re, errbuf, sizeof(errbuf));
        def_error(w, def, node, 1,
                  "cluster name \"%.200s\" is not a valid extended regular "
                  "expression: %s", c->regex, errbuf);
        return;
    }
    c->compiled = 1;
}

static gcm_ext_cluster_t *cluster_add(ext_walk_t *w, gcm_ext_def_t *def,
                                      gcm_ext_cluster_t **arr, int *n,
                                      xmlNodePtr node)
{
    gcm_ext_cluster_t *a = realloc(*arr, ((size_t)*n + 1) * sizeof(**arr));
    gcm_ext_cluster_t *c;

    if (a == NULL) {
        w->oom = 1;
        return NULL;
    }
    *arr = a;
    c = &a[(*n)++];
    memset(c, 0, sizeof(*c));
    c->line  = (int)gcm_lco_ext_line(node);
    c->regex = ext_prop(node, "name", &w->oom);
    if (c->regex == NULL) {
        w->oom = 1;
        return NULL;
    }
    cluster_compile(w, def, c, node);
    return c;
}

void gcm_lco_ext_cluster_free(gcm_ext_cluster_t *c)
{
    if (c->compiled) {
        regfree(&c->re);
    }
    free(c->regex);
    gcm_lco_ext_scope_free(&c->scope);
}

static void walk_cluster(ext_walk_t *w, gcm_ext_def_t *def, xmlNodePtr node)
{
    gcm_ext_cluster_t *c = cluster_add(w, def, &def->clusters,
                                       &def->nclusters, node);
    xmlNodePtr k;

    if (c == NULL) {
        return;
    }
    for (k = node->children; k != NULL; k = k->next) {
        scope_take(w, &c->scope, k);
    }
}

static void walk_node(ext_walk_t *w, gcm_ext_def_t *def, xmlNodePtr node)
{
    gcm_ext_node_t *a = realloc(def->nodes,
                                ((size_t)def->nnodes + 1) * sizeof(*a));
    gcm_ext_node_t *nd;
    xmlNodePtr k;
    char *r;

    if (a == NULL) {
        w->oom = 1;
        return;
    }
    def->nodes = a;
    nd = &a[def->nnodes++];
    memset(nd, 0, sizeof(*nd));
    nd->line    = (int)gcm_lco_ext_line(node);
    nd->reorder = -1;
    nd->name    = ext_prop(node, "name", &w->oom);
    r = ext_prop(node, "reorder", &w->oom);
    if (r != NULL) {
        nd->reorder = ext_uint(r);
        if (nd->reorder < 0) {
            def_error(w, def, node, 0,
                      "reorder=\"%.40s\" of node \"%.200s\" is larger than "
                      "%d", r, nd->name ? nd->name : "", GCM_EXT_MAX_RANK);
        }
        def->node_reorder = 1;
        free(r);
    }
    for (k = node->children; k != NULL; k = k->next) {
        scope_take(w, &nd->scope, k);
    }
}

static void walk_reorder(ext_walk_t *w, gcm_ext_def_t *def, xmlNodePtr node)
{
    char why[GCM_EXT_ERRLEN];
    char *expr;

    if (def->reorder != NULL || def->reorder_line != 0) {
        def_error(w, def, node, 0, "a second <reorder> in %s (the first is "
                  "on line %d)", def->name, def->reorder_line);
        return;
    }
    def->reorder_line = (int)gcm_lco_ext_line(node);
    expr = ext_prop(node, "expr", &w->oom);
    if (expr == NULL) {
        return;
    }
    def->reorder = gcm_lco_expr_compile(expr, why, sizeof(why));
    if (def->reorder == NULL) {
        def_error(w, def, node, 0, "reorder expression \"%.200s\": %s",
                  expr, why);
    }
    free(expr);
}

/* One end of an edge: exactly one of rank, expr (virtual) or node
 * (physical). */
static void walk_end(ext_walk_t *w, gcm_ext_def_t *def, int physical,
                     gcm_ext_end_t *end, xmlNodePtr node)
{
    char why[GCM_EXT_ERRLEN];
    char *rank = ext_prop(node, "rank", &w->oom);
    char *expr = ext_prop(node, "expr", &w->oom);
    char *nd   = ext_prop(node, "node", &w->oom);
    int given  = (rank != NULL) + (expr != NULL) + (nd != NULL);
    const char *what = (const char *)node->name;

    if (given != 1) {
        def_error(w, def, node, 0, "<%s> of an edge needs exactly one of "
                  "%s (it has %d)", what,
                  physical ? "node" : "rank and expr", given);
    } else if (physical && nd == NULL) {
        def_error(w, def, node, 0, "<%s> of an edge of a physical "
                  "topology names a node (node=\"...\"), not a rank", what);
    } else if (!physical && nd != NULL) {
        def_error(w, def, node, 0, "<%s> of an edge of a virtual topology "
                  "names a rank (rank=\"..\" or expr=\"..\"), not a node",
                  what);
    } else if (rank != NULL) {
        end->kind = GCM_EXT_END_RANK;
        end->rank = ext_uint(rank);
        if (end->rank < 0) {
            def_error(w, def, node, 0, "rank \"%.40s\" is larger than %d",
                      rank, GCM_EXT_MAX_RANK);
        }
    } else if (expr != NULL) {
        end->kind = GCM_EXT_END_EXPR;
        end->expr = gcm_lco_expr_compile(expr, why, sizeof(why));
        if (end->expr == NULL) {
            def_error(w, def, node, 0, "edge expression \"%.200s\": %s",
                      expr, why);
        }
    } else {
        end->kind = GCM_EXT_END_NODE;
        end->node = nd;
        nd        = NULL;
    }
    free(rank);
    free(expr);
    free(nd);
}

static void walk_edge(ext_walk_t *w, gcm_ext_def_t *def, gcm_ext_topo_t *t,
                      int physical, xmlNodePtr node)
{
    gcm_ext_edge_t *a = realloc(t->edges,
                                ((size_t)t->nedges + 1) * sizeof(*a));
    gcm_ext_edge_t *e;
    xmlNodePtr k;

    if (a == NULL) {
        w->oom = 1;
        return;
    }
    t->edges = a;
    e = &a[t->nedges++];
    memset(e, 0, sizeof(*e));
    e->line = (int)gcm_lco_ext_line(node);
    for (k = node->children; k != NULL; k = k->next) {
        if (gcm_lco_ext_is(k, "first")) {
            walk_end(w, def, physical, &e->first, k);
        } else if (gcm_lco_ext_is(k, "second")) {
            walk_end(w, def, physical, &e->second, k);
        }
    }
    if (e->first.kind == 0 || e->second.kind == 0) {
        def_error(w, def, node, 0, "an edge needs a <first> and a "
                  "<second> end");
    }
}

static void walk_topology(ext_walk_t *w, gcm_ext_def_t *def, xmlNodePtr node)
{
    char *type = ext_prop(node, "type", &w->oom);
    char *reorder = ext_prop(node, "reorder", &w->oom);
    char *timeout = ext_prop(node, "timeout", &w->oom);
    int physical = (type != NULL && strcmp(type, "physical") == 0);
    gcm_ext_topo_t *t = physical ? &def->ptopo : &def->vtopo;
    xmlNodePtr k;
    char **nodes;

    if (t->present) {
        def_error(w, def, node, 0, "a second %s topology in %s (the first "
                  "is on line %d)", physical ? "physical" : "virtual",
                  def->name, t->line);
        goto out;
    }
    t->present = 1;
    t->line    = (int)gcm_lco_ext_line(node);
    if (physical && reorder != NULL) {
        def_error(w, def, node, 0, "a physical topology takes no reorder "
                  "(the virtual one says whether to reorder)");
    }
    if (!physical && timeout != NULL) {
        def_error(w, def, node, 0, "a virtual topology takes no timeout "
                  "(the physical one gives the mapping's time)");
    }
    if (reorder != NULL) {
        t->reorder = (strcmp(reorder, "true") == 0 ||
                      strcmp(reorder, "1") == 0);
    }
    t->timeout = (timeout != NULL) ? strtod(timeout, NULL) : 1.0;
    for (k = node->children; k != NULL; k = k->next) {
        if (gcm_lco_ext_is(k, "edge")) {
            walk_edge(w, def, t, physical, k);
        } else if (gcm_lco_ext_is(k, "cluster") || gcm_lco_ext_is(k, "node")) {
            if (!physical) {
                def_error(w, def, k, 0, "<%s> belongs in a physical "
                          "topology, not a virtual one",
                          (const char *)k->name);
            } else if (gcm_lco_ext_is(k, "cluster")) {
                cluster_add(w, def, &t->clusters, &t->nclusters, k);
            } else {
                nodes = realloc(t->nodes,
                                ((size_t)t->nnodes + 1) * sizeof(*nodes));
                if (nodes == NULL) {
                    w->oom = 1;
                    break;
                }
                t->nodes = nodes;
                t->nodes[t->nnodes] = ext_prop(k, "name", &w->oom);
                if (t->nodes[t->nnodes] != NULL) {
                    t->nnodes++;
                }
            }
        }
    }
out:
    free(type);
    free(reorder);
    free(timeout);
}

void gcm_lco_ext_walk_comm(ext_walk_t *w, gcm_ext_def_t *def, xmlNodePtr node)
{
    xmlNodePtr k;

    for (k = node->children; k != NULL && !w->oom; k = k->next) {
        if (scope_take(w, &def->scope, k)) {
            continue;
        }
        if (gcm_lco_ext_is(k, "cluster")) {
            walk_cluster(w, def, k);
        } else if (gcm_lco_ext_is(k, "node")) {
            walk_node(w, def, k);
        } else if (gcm_lco_ext_is(k, "reorder")) {
            walk_reorder(w, def, k);
        } else if (gcm_lco_ext_is(k, "topology")) {
            walk_topology(w, def, k);
        }
    }
    if (strcmp(def->name, "MPI_COMM_WORLD") == 0 &&
        (def->reorder_line != 0 || def->node_reorder ||
         def->vtopo.present || def->ptopo.present)) {
        /* Its <cluster> and <node> only scope attributes and info. */
        def_error(w, def, node, 1, "MPI_COMM_WORLD cannot be reordered or "
                  "given a topology: define a communicator of all "
                  "processes (a <comm> without <cluster> or <node>, as the "
                  "seed's MPI_COMM_REMAP) and use it instead");
    }
}

void gcm_lco_ext_walk_intercomm(ext_walk_t *w, gcm_ext_def_t *def,
                                xmlNodePtr node)
{
    xmlNodePtr k;

    for (k = node->children; k != NULL; k = k->next) {
        if (gcm_lco_ext_is(k, "first") && def->first == NULL) {
            def->first = ext_text(k, &w->oom);
        } else if (gcm_lco_ext_is(k, "second") && def->second == NULL) {
            def->second = ext_text(k, &w->oom);
        }
    }
    if (strcmp(def->name, "MPI_COMM_WORLD") == 0) {
        def_error(w, def, node, 1, "MPI_COMM_WORLD is an "
                  "intracommunicator, not an <intercomm>");
    }
}

/* Checks what refers across definitions: the two groups of every
 * intercommunicator. */
void gcm_lco_ext_check_intercomms(ext_walk_t *w, xmlNodePtr *nodes)
{
    gcm_lco_ext_t *ext = w->ext;
    const gcm_ext_def_t *ref;
    const char *side[2];
    int i, s;

    for (i = 0; i < ext->ndefs; i++) {
        gcm_ext_def_t *def = &ext->defs[i];

        if (def->kind != GCM_EXT_DEF_INTER || def->error != NULL) {
            continue;
        }
        side[0] = def->first;
        side[1] = def->second;
        for (s = 0; s < 2; s++) {
            if (side[s] == NULL) {
                continue;
            }
            ref = gcm_lco_ext_find(ext, side[s]);
            if (ref == NULL) {
                def_error(w, def, nodes[i], 1, "intercommunicator %s: no "
                          "<comm> is named %.130s", def->name, side[s]);
            } else if (ref->kind != GCM_EXT_DEF_COMM) {
                def_error(w, def, nodes[i], 1, "intercommunicator %s: %s "
                          "is an intercommunicator, not a <comm>",
                          def->name, ref->name);
            } else if (strcmp(ref->name, "MPI_COMM_WORLD") == 0) {
                def_error(w, def, nodes[i], 1, "intercommunicator %s: "
                          "MPI_COMM_WORLD overlaps every other group",
                          def->name);
            }
        }
        if (def->first != NULL && def->second != NULL &&
            strcmp(def->first, def->second) == 0 && def->error == NULL) {
            def_error(w, def, nodes[i], 0, "intercommunicator %s: its two "
                      "groups are both %s (they must not overlap)",
                      def->name, def->first);
        }
    }
}

/* A name defined twice: the schema blames the second definition, but
 * the first would be found by name, so both carry the error. */
void gcm_lco_ext_check_duplicates(ext_walk_t *w, xmlNodePtr *nodes)
{
    gcm_lco_ext_t *ext = w->ext;
    int i, j;

    for (i = 0; i < ext->ndefs; i++) {
        for (j = i + 1; j < ext->ndefs; j++) {
            if (strcmp(ext->defs[i].name, ext->defs[j].name) != 0) {
                continue;
            }
            def_error(w, &ext->defs[i], nodes[i], 1, "%s is defined more "
                      "than once (again on line %d)", ext->defs[i].name,
                      ext->defs[j].line);
            def_error(w, &ext->defs[j], nodes[j], 1, "%s is defined more "
                      "than once (first on line %d)", ext->defs[j].name,
                      ext->defs[i].line);
        }
    }
}
