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
