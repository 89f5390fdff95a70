/*
 * lco/lco_graph.c: LCO graphs as Graphviz DOT.
 *
 * An LCO is described as plain words: its identity (process, endpoint,
 * id, generation), its slot counts, then one destination per send slot
 * (process, endpoint, id, generation, receive slot). Descriptions of many
 * LCOs, maybe gathered from other processes, are concatenated and written
 * as one digraph: a node per LCO (an HTML-like table: its receive slots
 * above, its identity, its send slots below), grouped in a cluster per
 * process and, inside, per endpoint (each thread that communicates has
 * its own), and an edge from each send slot to the receive slot it
 * reaches. A destination whose LCO was not described is drawn as a
 * dashed node of its own.
 *
 * Each node is preceded by a comment line "// lco" and its description's
 * words, so that files written by several processes can be merged into
 * one graph (gencomm_info --graph-merge).
 *
 * The words may come from other processes, so the writer believes none
 * of the counts: every description is bounds-checked against the words
 * there are.
 */
#include "config.h"

#include "lco/lco_impl.h"

#include <stdlib.h>
#include <string.h>

/* Words of an LCO's header and of each send slot's destination. */
#define GCM_GRAPH_HDR  6u
#define GCM_GRAPH_DEST 5u
/* The most slots a description may claim (the words are checked too). */
#define GCM_GRAPH_SLOTS_MAX (1u << 24)

gcm_status_t gcm_lco_graph_describe(gcm_lco_h lco, uint32_t **words_p,
                                    size_t *nwords_p)
{
    gcm_port_t *port;
    uint32_t *w;
    size_t n;
    int i;

    GCM_CHECK_LCO("gcm_lco_graph_describe", lco);
    port = lco->port;
    gcm_thr_lock(port->endpoint);
    n = GCM_GRAPH_HDR + (size_t)port->nsend * GCM_GRAPH_DEST;
    w = malloc(n * sizeof(*w));
    if (w == NULL) {
        gcm_thr_unlock(port->endpoint);
        return gcm_fail(GCM_ERR_NO_MEMORY, "gcm_lco_graph_describe",
                        "no memory for %d send slots", port->nsend);
    }
    w[0] = (uint32_t)gcm_lco_proc.rank;
    w[1] = (uint32_t)port->endpoint->index;
    w[2] = port->id;
    w[3] = port->gen;
    w[4] = (uint32_t)port->nsend;
    w[5] = (uint32_t)port->nrecv;
    for (i = 0; i < port->nsend; i++) {
        uint32_t *d = &w[GCM_GRAPH_HDR + (size_t)i * GCM_GRAPH_DEST];

        if (port->pattern) {
            /* Send slot i is rank i, on the same identity, reaching the
             * receive slot of this process's rank. */
            int proc = gcm_slots_pattern_proc(port, i);

            d[0] = (uint32_t)proc;
            d[1] = (uint32_t)gcm_slots_pattern_ep(port, proc);
            d[2] = port->id;
            d[3] = port->gen;
            d[4] = (uint32_t)port->myrank;
        } else {
            const gcm_slots_dest_t *dest = &port->edges[i]->dest;

            d[0] = dest->proc;
            d[1] = dest->ep;
            d[2] = dest->id;
            d[3] = dest->gen;
            d[4] = (uint32_t)dest->rslot;
        }
    }
    gcm_thr_unlock(port->endpoint);
    *words_p  = w;
    *nwords_p = n;
    return GCM_OK;
}

/* The LCO at words[at] checked against the nwords there are: its size in
 * words, or 0 (with *why) when it claims more than there is. */
static size_t gcm_lco_graph_check(const uint32_t *words, size_t nwords,
                                  size_t at, const char **why)
{
    size_t need;

    if (nwords - at < GCM_GRAPH_HDR) {
        *why = "a description is cut short";
        return 0;
    }
    if ((words[at + 4] > GCM_GRAPH_SLOTS_MAX) ||
        (words[at + 5] > GCM_GRAPH_SLOTS_MAX)) {
        *why = "a description claims too many slots";
        return 0;
    }
    need = GCM_GRAPH_HDR + (size_t)words[at + 4] * GCM_GRAPH_DEST;
    if (need > nwords - at) {
        *why = "a description's send slots are cut short";
        return 0;
    }
    for (size_t k = 0; k < words[at + 4]; k++) {
        if (words[at + GCM_GRAPH_HDR + k * GCM_GRAPH_DEST + 4] >
            GCM_GRAPH_SLOTS_MAX) {
            *why = "a send slot names an impossible receive slot";
            return 0;
        }
    }
    return need;
}

/* The DOT name of the LCO (proc, ep, id, gen). */
static void gcm_lco_graph_node(FILE *fp, const uint32_t *ident)
{
    fprintf(fp, "\"L%u_%u_%08x_%u\"", ident[0], ident[1], ident[2],
            ident[3]);
}

/* The start of the edge from send slot i of the LCO described at l to
 * the LCO d names; the caller ends it (a port, attributes). */
static void gcm_lco_graph_edge(FILE *fp, const uint32_t *l, uint32_t i,
                               const uint32_t *d)
{
    fprintf(fp, "  ");
    gcm_lco_graph_node(fp, l);
    fprintf(fp, ":s%u -> ", i);
    gcm_lco_graph_node(fp, d);
}

/* Is (proc, ep, id, gen) one of the described LCOs? */
static const uint32_t *gcm_lco_graph_find(const uint32_t *words,
                                          size_t nwords, const uint32_t *id4)
{
    size_t at = 0;

    while (at < nwords) {
        if (memcmp(&words[at], id4, 4 * sizeof(*id4)) == 0) {
            return &words[at];
        }
        at += GCM_GRAPH_HDR + (size_t)words[at + 4] * GCM_GRAPH_DEST;
    }
    return NULL;
}

static void gcm_lco_graph_record(FILE *fp, const uint32_t *l)
{
    size_t n = GCM_GRAPH_HDR + (size_t)l[4] * GCM_GRAPH_DEST;
    size_t k;
    uint32_t i;

    /* The description itself, for tools that merge several files
     * (gencomm_info --graph-merge). */
    fprintf(fp, "      // lco");
    for (k = 0; k < n; k++) {
        fprintf(fp, " %u", l[k]);
    }
    fprintf(fp, "\n");
    n = (l[4] > l[5]) ? l[4] : l[5];
    fprintf(fp, "      ");
    gcm_lco_graph_node(fp, l);
    fprintf(fp, " [label=<<TABLE BORDER=\"0\" CELLBORDER=\"1\" "
            "CELLSPACING=\"0\"><TR>");
    for (i = 0; i < l[5]; i++) {
        fprintf(fp, "<TD PORT=\"r%u\">r%u</TD>", i, i);
    }
    fprintf(fp, "%s</TR><TR><TD COLSPAN=\"%zu\">LCO %08x</TD></TR><TR>",
            (l[5] == 0) ? "<TD></TD>" : "", (n > 0) ? n : 1, l[2]);
    for (i = 0; i < l[4]; i++) {
        fprintf(fp, "<TD PORT=\"s%u\">s%u</TD>", i, i);
    }
    fprintf(fp, "%s</TR></TABLE>>];\n", (l[4] == 0) ? "<TD></TD>" : "");
}

gcm_status_t gcm_lco_graph_write_words(const uint32_t *words, size_t nwords,
                                       const char *title, FILE *fp,
                                       const char *call)
{
    const char *why = NULL;
    size_t at, len;
    uint32_t proc, ep;
    int open_proc, open_ep;

    if (fp == NULL) {
        return gcm_fail(GCM_ERR_INVALID_PARAM, call, "the FILE is NULL");
    }
    for (at = 0; at < nwords; at += len) {
        len = gcm_lco_graph_check(words, nwords, at, &why);
        if (len == 0) {
            return gcm_fail(GCM_ERR_INVALID_PARAM, call, "%s (word %zu of "
                            "%zu)", why, at, nwords);
        }
    }
    fprintf(fp, "digraph gencomm {\n");
    if ((title != NULL) && (title[0] != '\0')) {
        fprintf(fp, "  label=\"");
        for (; *title != '\0'; title++) {
            if ((*title == '"') || (*title == '\\')) {
                fputc('\\', fp);
            }
            fputc(*title, fp);
        }
        fprintf(fp, "\";\n  labelloc=t;\n");
    }
    fprintf(fp, "  node [shape=plaintext, fontsize=10];\n");
    /* Nodes, in a cluster per process and per endpoint inside it; the
     * descriptions come grouped by process already (one gather). */
    open_proc = open_ep = 0;
    proc = ep = 0;
    for (at = 0; at < nwords;
         at += GCM_GRAPH_HDR + (size_t)words[at + 4] * GCM_GRAPH_DEST) {
        const uint32_t *l = &words[at];

        if (!open_proc || (l[0] != proc)) {
            if (open_ep) {
                fprintf(fp, "    }\n");
            }
            if (open_proc) {
                fprintf(fp, "  }\n");
            }
            proc = l[0];
            fprintf(fp, "  subgraph cluster_p%u {\n    label=\"process "
                    "%u\";\n", proc, proc);
            open_proc = 1;
            open_ep   = 0;
        }
        if (!open_ep || (l[1] != ep)) {
            if (open_ep) {
                fprintf(fp, "    }\n");
            }
            ep = l[1];
            fprintf(fp, "    subgraph cluster_p%u_e%u {\n      label=\""
                    "endpoint %u\";\n      style=dashed;\n", proc, ep, ep);
            open_ep = 1;
        }
        gcm_lco_graph_record(fp, l);
    }
    if (open_ep) {
        fprintf(fp, "    }\n");
    }
    if (open_proc) {
        fprintf(fp, "  }\n");
    }
    /* Edges; a destination nobody described gets a node of its own. */
    for (at = 0; at < nwords;
         at += GCM_GRAPH_HDR + (size_t)words[at + 4] * GCM_GRAPH_DEST) {
        const uint32_t *l = &words[at];
        uint32_t i;

        for (i = 0; i < l[4]; i++) {
            const uint32_t *d = &l[GCM_GRAPH_HDR + (size_t)i * GCM_GRAPH_DEST];
            const uint32_t *t = gcm_lco_graph_find(words, nwords, d);

            if ((t != NULL) && (d[4] >= t[5])) {
                /* The receive slot it names is not there (yet). */
                gcm_lco_graph_edge(fp, l, i, d);
                fprintf(fp, " [label=\"r%u (none)\", color=red];\n", d[4]);
                continue;
            }
            if (t == NULL) {
                fprintf(fp, "  ");
                gcm_lco_graph_node(fp, d);
                fprintf(fp, " [shape=box, style=dashed, label=\"process %u "
                        "endpoint %u\\nLCO %08x:%u\"];\n", d[0], d[1], d[2],
                        d[3]);
                gcm_lco_graph_edge(fp, l, i, d);
                fprintf(fp, " [label=\"r%u\"];\n", d[4]);
                continue;
            }
            gcm_lco_graph_edge(fp, l, i, d);
            fprintf(fp, ":r%u;\n", d[4]);
        }
    }
    fprintf(fp, "}\n");
    if (ferror(fp) || (fflush(fp) != 0)) {
        return gcm_fail(GCM_ERR_INVALID_PARAM, call, "cannot write the "
                        "graph (a write error on the FILE)");
    }
    return GCM_OK;
}

gcm_status_t gcm_lco_graph_write(gcm_lco_h lco, FILE *fp)
{
    uint32_t *words;
    size_t nwords;
    gcm_status_t status;

    GCM_CHECK_LCO("gcm_lco_graph_write", lco);
    if (fp == NULL) {
        return gcm_fail(GCM_ERR_INVALID_PARAM, "gcm_lco_graph_write",
                        "fp is NULL");
    }
    status = gcm_lco_graph_describe(lco, &words, &nwords);
    if (status != GCM_OK) {
        return status;
    }
    status = gcm_lco_graph_write_words(words, nwords, NULL, fp,
                                       "gcm_lco_graph_write");
    free(words);
    return status;
}
