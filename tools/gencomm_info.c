/*
 * tools/gencomm_info.c: what this gencomm is and what it would do here,
 * like ompi_info and ucx_info. It prints the version and the build's
 * configuration, the UCX version and the transports UCX opens on this
 * host, every GENCOMM_* setting with its value in force and its
 * description (from the tables the layers register), and this host's
 * hierarchy levels from hwloc. docs/tools.md describes the output.
 *
 * It starts the library as a process of its own (no launcher), so the
 * settings and transports are those a one-process job would get here
 * under the same environment.
 */
#include "config.h"

#include "util/util.h"
#include "threads/thr.h"
#include "lco/lco.h"

#include <hwloc.h>
#include <pmix.h>
#include <scotch.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum {
    GCM_INFO_VERSION   = 1 << 0,
    GCM_INFO_BUILD     = 1 << 1,
    GCM_INFO_UCX       = 1 << 2,
    GCM_INFO_SETTINGS  = 1 << 3,
    GCM_INFO_HIERARCHY = 1 << 4,
    GCM_INFO_ALL       = (1 << 5) - 1
};

static void gcm_info_usage(FILE *fp)
{
    fprintf(fp,
            "usage: gencomm_info [options]\n"
            "  -a, --all        everything below (the default)\n"
            "  -v, --version    the version only\n"
            "  -b, --build      the build's configuration\n"
            "  -u, --ucx        the UCX version and the transports used here\n"
            "  -s, --settings   every GENCOMM_* setting: value in force, "
            "description\n"
            "  -H, --hierarchy  this host's hierarchy levels (hwloc)\n"
            "  -g, --graph-merge FILE...\n"
            "                   one Graphviz DOT graph on stdout of the LCOs "
            "drawn in\n"
            "                   the FILEs (by gcm_lco_graph_write, "
            "MPIX_Comm_graph_write)\n"
            "  -h, --help       this text\n");
}

static void gcm_info_build(void)
{
    unsigned hw = hwloc_get_api_version();

    printf("# ---- build\n");
    printf("version: %s\n", gcm_version(NULL, NULL, NULL));
    printf("configure options: %s\n", GCM_BUILD_CONFIGURE_ARGS);
    printf("compiler: %s\n", GCM_BUILD_CC);
    printf("compiler version: %s\n", GCM_BUILD_CC_VERSION);
    printf("compiler flags: %s\n", GCM_BUILD_CFLAGS);
#ifdef GCM_ENABLE_ASSERT
    printf("internal assertions: yes\n");
#else
    printf("internal assertions: no\n");
#endif
    printf("built against: %s\n", GCM_BUILD_DEPS);
    printf("hwloc API: %u.%u.%u\n", hw >> 16, (hw >> 8) & 0xff,
           hw & 0xff);
    printf("PMIx: %s\n", PMIx_Get_version());
    printf("Scotch: %d.%d.%d\n", SCOTCH_VERSION, SCOTCH_RELEASE,
           SCOTCH_PATCHLEVEL);
}

static void gcm_info_ucx(int up)
{
    printf("# ---- ucx\n");
    printf("UCX version: %s\n", gcm_thr_transport_version());
    if (!up) {
        printf("transports: unknown (%s)\n", gcm_last_error());
        return;
    }
    printf("# transport/device, one per line, as UCX opened them here\n");
    if (gcm_thr_transports_print(stdout) != GCM_OK) {
        printf("transports: unknown (%s)\n", gcm_last_error());
    }
}

static void gcm_info_hierarchy(void)
{
    int32_t idx[GCM_HIER_HW_LEVELS];
    int32_t count[GCM_HIER_HW_LEVELS];
    char host[256];
    int i;

    if (gethostname(host, sizeof(host)) != 0) {
        snprintf(host, sizeof(host), "?");
    }
    host[sizeof(host) - 1] = '\0';
    gcm_lco_hier_hw_indices(idx);
    gcm_lco_hier_hw_counts(count);
    printf("# ---- hierarchy (outermost first; \"here\": this process's "
           "object, -1 when its binding spans several)\n");
    printf("level 0: job\n");
    printf("level 1: host %s\n", host);
    for (i = 0; i < GCM_HIER_HW_LEVELS; i++) {
        printf("level %d: %s, %d on this host, here %d\n", i + 2,
               gcm_lco_hier_hw_name(i), (int)count[i], (int)idx[i]);
    }
    printf("level %d: process\n", GCM_HIER_HW_LEVELS + 2);
}

/* ---- --graph-merge ---------------------------------------------------- */

typedef struct {
    uint32_t *w;
    size_t    n, cap;
} gcm_info_words_t;

static int gcm_info_words_add(gcm_info_words_t *v, uint32_t x)
{
    if (v->n == v->cap) {
        size_t cap = (v->cap == 0) ? 1024 : 2 * v->cap;
        uint32_t *w = realloc(v->w, cap * sizeof(*w));

        if (w == NULL) {
            return -1;
        }
        v->w   = w;
        v->cap = cap;
    }
    v->w[v->n++] = x;
    return 0;
}

/* Is the LCO whose identity starts at id4 already among v's
 * descriptions? */
static int gcm_info_words_has(const gcm_info_words_t *v, size_t end,
                              const uint32_t *id4)
{
    size_t at = 0;

    while (at + 6 <= end) {
        if (memcmp(&v->w[at], id4, 4 * sizeof(*id4)) == 0) {
            return 1;
        }
        at += 6 + (size_t)v->w[at + 4] * 5;
    }
    return 0;
}

/* Appends the descriptions ("// lco" lines) of file to v; -1 with a
 * message on a line that is no description. */
static int gcm_info_graph_read(const char *file, gcm_info_words_t *v)
{
    FILE *fp = fopen(file, "r");
    char *line = NULL;
    size_t cap = 0;
    long lineno = 0;
    int rc = 0;

    if (fp == NULL) {
        fprintf(stderr, "gencomm_info: cannot open %s\n", file);
        return -1;
    }
    while ((rc == 0) && (getline(&line, &cap, fp) >= 0)) {
        const char *p = line;
        size_t start = v->n;
        char *end;

        lineno++;
        p += strspn(p, " \t");
        if (strncmp(p, "// lco ", 7) != 0) {
            continue;
        }
        p += 7;
        for (;;) {
            unsigned long x;

            p += strspn(p, " \t");
            if ((*p == '\n') || (*p == '\0')) {
                break;
            }
            errno = 0;
            x = strtoul(p, &end, 10);
            if ((end == p) || (errno != 0) || (x > UINT32_MAX) ||
                (gcm_info_words_add(v, (uint32_t)x) != 0)) {
                rc = -1;
                break;
            }
            p = end;
        }
        if ((rc != 0) || (v->n - start < 6) ||
            (v->n - start != 6 + (size_t)v->w[start + 4] * 5)) {
            fprintf(stderr, "gencomm_info: %s:%ld: not an LCO's "
                    "description\n", file, lineno);
            rc = -1;
        } else if (gcm_info_words_has(v, start, &v->w[start])) {
            v->n = start;   /* drawn by another file already */
        }
    }
    free(line);
    fclose(fp);
    return rc;
}

static int gcm_info_graph_merge(int nfiles, char **files)
{
    gcm_info_words_t v = { NULL, 0, 0 };
    int i, rc = 0;

    for (i = 0; (i < nfiles) && (rc == 0); i++) {
        rc = gcm_info_graph_read(files[i], &v);
    }
    if ((rc == 0) && (v.n == 0)) {
        fprintf(stderr, "gencomm_info: no LCO drawn in the files\n");
        rc = -1;
    }
    if ((rc == 0) &&
        (gcm_lco_graph_write_words(v.w, v.n, NULL, stdout,
                                   "gencomm_info --graph-merge") != GCM_OK)) {
        fprintf(stderr, "gencomm_info: %s\n", gcm_last_error());
        rc = -1;
    }
    free(v.w);
    return (rc == 0) ? 0 : 1;
}

static int gcm_info_option(const char *arg)
{
    static const struct {
        const char *s, *l;
        int what;
    } opts[] = {
        { "-a", "--all",       GCM_INFO_ALL },
        { "-v", "--version",   GCM_INFO_VERSION },
        { "-b", "--build",     GCM_INFO_BUILD },
        { "-u", "--ucx",       GCM_INFO_UCX },
        { "-s", "--settings",  GCM_INFO_SETTINGS },
        { "-H", "--hierarchy", GCM_INFO_HIERARCHY },
    };
    size_t i;

    for (i = 0; i < sizeof(opts) / sizeof(opts[0]); i++) {
        if ((strcmp(arg, opts[i].s) == 0) || (strcmp(arg, opts[i].l) == 0)) {
            return opts[i].what;
        }
    }
    return 0;
}

int main(int argc, char **argv)
{
    int what = 0;
    int up = 0;
    int failed = 0;
    int i;

    for (i = 1; i < argc; i++) {
        int w = gcm_info_option(argv[i]);

        if ((strcmp(argv[i], "-h") == 0) ||
            (strcmp(argv[i], "--help") == 0)) {
            gcm_info_usage(stdout);
            return 0;
        }
        if ((strcmp(argv[i], "-g") == 0) ||
            (strcmp(argv[i], "--graph-merge") == 0)) {
            if ((i + 1 >= argc) || (what != 0)) {
                fprintf(stderr, "gencomm_info: --graph-merge takes files, "
                        "and no other option\n");
                return 2;
            }
            return gcm_info_graph_merge(argc - i - 1, argv + i + 1);
        }
        if (w == 0) {
            fprintf(stderr, "gencomm_info: unknown option '%s'\n", argv[i]);
            gcm_info_usage(stderr);
            return 2;
        }
        what |= w;
    }
    if (what == 0) {
        what = GCM_INFO_ALL;
    }
    if (what == GCM_INFO_VERSION) {
        printf("gencomm %s\n", gcm_version(NULL, NULL, NULL));
        return 0;
    }
    printf("gencomm %s\n", gcm_version(NULL, NULL, NULL));
    if (what & (GCM_INFO_UCX | GCM_INFO_SETTINGS | GCM_INFO_HIERARCHY)) {
        gcm_status_t status = gcm_init(NULL, NULL);

        up = (status == GCM_OK);
        failed = !up;
        if (!up) {
            fprintf(stderr, "gencomm_info: gcm_init failed: %s\n",
                    gcm_last_error());
        }
    }
    if (what & GCM_INFO_BUILD) {
        gcm_info_build();
    }
    if (what & GCM_INFO_UCX) {
        gcm_info_ucx(up);
    }
    if (what & GCM_INFO_SETTINGS) {
        printf("# ---- settings (each: its description, then NAME=value "
               "in force)\n");
        gcm_config_print(stdout);
    }
    if (what & GCM_INFO_HIERARCHY) {
        gcm_info_hierarchy();
    }
    if (up) {
        (void)gcm_finalize();
    }
    return (failed != 0) ? 1 : 0;
}
