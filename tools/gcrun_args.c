/*
 * tools/gcrun_args.c: the command line: options, --hosts and
 * --nodes, the placement of ranks on emulated hosts.
 */
#include "tools/gcrun.h"

/* ------------------------------------------------------------------------ */
/* Arguments                                                                */
/* ------------------------------------------------------------------------ */

static const char usage_text[] =
    "Usage: gcrun -n N [--tag-output] [--bind-to none|core|numa]\n"
    "             [--hosts LIST | --nodes M] [--] prog [args...]\n"
    "Start N processes of prog on this machine and serve PMI-1 to them.\n"
    "\n"
    "  -n, -np, --np N     number of processes to start (N >= 1)\n"
    "  --tag-output        prefix every output line with \"[rank] \"\n"
    "  --bind-to POLICY    none, core or numa; the default binds rank r to\n"
    "                      core r when N is at most the number of cores\n"
    "                      and leaves the ranks unbound otherwise; cores\n"
    "                      other gcrun jobs are bound to come last\n"
    "  --hosts LIST        emulate hosts: comma-separated host names, one\n"
    "                      per rank in rank order (N names), or fewer names\n"
    "                      that get the ranks block-wise as --nodes does;\n"
    "                      a name CLUSTER:NODE (foo:00) is host foo:00 of\n"
    "                      cluster foo, a level above the hosts\n"
    "  --nodes M           emulate M hosts named <hostname>-node0 ...\n"
    "                      <hostname>-node<M-1>, ranks block-wise (the\n"
    "                      first N mod M hosts get one rank more)\n"
    "                      Each rank gets its host name in\n"
    "                      GENCOMM_HOSTNAME (MPI_Get_processor_name,\n"
    "                      MPI_COMM_TYPE_SHARED and MPIX_Comm_node use it)\n"
    "  --universe N        MPI_UNIVERSE_SIZE: how many processes the job\n"
    "                      and those it spawns may be (default: the\n"
    "                      number of cores, at least N)\n"
    "  -h, --help          show this help and exit\n"
    "  --version           show the version and exit\n"
    "\n"
    "When a rank fails (dies, exits non-zero, or exits without finalizing\n"
    "after PMI init), the other ranks are told and get\n"
    "GENCOMM_KILL_GRACE_MS milliseconds (default 1000) before they are\n"
    "sent SIGTERM; gcrun exits with the failed rank's status. With\n"
    "MPIEXEC_TIMEOUT=S a job still running after S seconds is ended and\n"
    "gcrun exits with 124.\n";

static void usage_error(const char *fmt, ...)
    __attribute__((format(printf, 1, 2), noreturn));

static void usage_error(const char *fmt, ...)
{
    char msg[512];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    gcrun_msg("%s", msg);
    gcrun_sink_write(STDERR_FILENO, usage_text, strlen(usage_text));
    exit(2);
}

static int parse_nprocs(const char *s)
{
    long v;

    if (!gcrun_parse_long(s, &v) || v < 1) {
        usage_error("invalid number of processes '%s' (must be a positive "
                    "integer)", s);
    }
    if (v > MAX_NPROCS) {
        usage_error("too many processes '%s' (at most %d)", s, MAX_NPROCS);
    }
    return (int)v;
}

static enum bind_policy parse_bind(const char *s)
{
    if (strcmp(s, "none") == 0) {
        return BIND_NONE;
    }
    if (strcmp(s, "core") == 0) {
        return BIND_CORE;
    }
    if (strcmp(s, "numa") == 0) {
        return BIND_NUMA;
    }
    usage_error("invalid --bind-to policy '%s' (use none, core or numa)", s);
}

static long parse_nodes(const char *s)
{
    long v;

    if (!gcrun_parse_long(s, &v) || v < 1) {
        usage_error("invalid number of nodes '%s' (must be a positive "
                    "integer)", s);
    }
    if (v > MAX_NPROCS) {
        usage_error("too many nodes '%s' (at most %d)", s, MAX_NPROCS);
    }
    return v;
}

/* One host name of --hosts, [s, s + len): checked. A name may be the
 * seed's CLUSTER:NODE (foo:00): the whole name is the host (each rank's
 * processor name), the part before the last ':' its cluster, a level of
 * the hierarchy above the hosts; so ':' only separates parts that are not
 * empty. Characters that would garble an environment entry or a PMI line
 * are refused. */
static char *host_name_dup(const char *s, size_t len, int pos)
{
    size_t i;
    char *name;

    if (len == 0) {
        usage_error("empty host name in --hosts (entry %d)", pos + 1);
    }
    for (i = 0; i < len; i++) {
        if (s[i] == ':' && (i == 0 || i + 1 == len || s[i + 1] == ':')) {
            usage_error("invalid host name '%.*s' in --hosts (entry %d): "
                        "':' separates a cluster from a node (foo:00), "
                        "neither may be empty", (int)len, s, pos + 1);
        }
        if (!isgraph((unsigned char)s[i]) || s[i] == '=' || s[i] == ';') {
            usage_error("invalid host name '%.*s' in --hosts (entry %d): "
                        "use printable characters other than '=' and ';'",
                        (int)len, s, pos + 1);
        }
    }
    if (len > HOST_NAME_LEN_MAX) {
        usage_error("host name in --hosts (entry %d) is longer than %d "
                    "characters", pos + 1, HOST_NAME_LEN_MAX);
    }
    name = gcrun_xmalloc(len + 1);
    memcpy(name, s, len);
    name[len] = '\0';
    return name;
}

/* Ranks to nhosts hosts block-wise: the first nprocs % nhosts hosts get
 * one rank more, so 5 ranks on 2 hosts are 3 + 2. */
static void assign_block(struct options *opt)
{
    int base = opt->nprocs / opt->nhosts;
    int extra = opt->nprocs % opt->nhosts;
    int h, r = 0;

    opt->host_of = gcrun_xcalloc((size_t)opt->nprocs, sizeof(int));
    for (h = 0; h < opt->nhosts; h++) {
        int k;
        int count = base + (h < extra ? 1 : 0);

        for (k = 0; k < count; k++) {
            opt->host_of[r++] = h;
        }
    }
}

/* Turns --hosts or --nodes into opt->hosts and opt->host_of. */
static void plan_hosts(struct options *opt)
{
    if (opt->hosts_arg != NULL && opt->nodes_arg != 0) {
        usage_error("--hosts and --nodes cannot be used together");
    }
    if (opt->nodes_arg != 0) {
        char self[HOST_NAME_LEN_MAX + 1];
        int h;

        if (opt->nodes_arg > opt->nprocs) {
            usage_error("--nodes %ld is more than the %d processes (every "
                        "node needs one)", opt->nodes_arg, opt->nprocs);
        }
        if (gethostname(self, sizeof(self) - 1) != 0) {
            snprintf(self, sizeof(self), "localhost");
        }
        self[sizeof(self) - 1] = '\0';
        /* Leave room for "-node<index>" within the length limit. */
        self[HOST_NAME_LEN_MAX - 20] = '\0';
        opt->nhosts = (int)opt->nodes_arg;
        opt->hosts = gcrun_xcalloc((size_t)opt->nhosts, sizeof(char *));
        for (h = 0; h < opt->nhosts; h++) {
            char name[HOST_NAME_LEN_MAX + 1];

            snprintf(name, sizeof(name), "%.*s-node%d",
                     (int)(HOST_NAME_LEN_MAX - 20), self, h);
            opt->hosts[h] = strdup(name);
            if (opt->hosts[h] == NULL) {
                gcrun_out_of_memory();
            }
        }
        assign_block(opt);
    } else if (opt->hosts_arg != NULL) {
        const char *s = opt->hosts_arg;
        int count = 1;
        int k;

        for (k = 0; s[k] != '\0'; k++) {
            count += s[k] == ',';
        }
        if (count > opt->nprocs) {
            usage_error("--hosts lists %d names for %d processes (give at "
                        "most one per process)", count, opt->nprocs);
        }
        opt->hosts = gcrun_xcalloc((size_t)count, sizeof(char *));
        for (k = 0; k < count; k++) {
            const char *end = strchr(s, ',');
            size_t len = end == NULL ? strlen(s) : (size_t)(end - s);

            opt->hosts[k] = host_name_dup(s, len, k);
            s += len + (end != NULL ? 1 : 0);
        }
        opt->nhosts = count;
        /* n names: one per rank (assign_block gives exactly that). */
        assign_block(opt);
    }
}

/* Options end at "--" or at the first word that is not an option, so that
 * the program's own options are never taken for ours. */
void gcrun_parse_args(int argc, char **argv, struct options *opt)
{
    bool have_n = false;
    int i = 1;

    opt->nprocs = 0;
    opt->tag_output = false;
    opt->bind = BIND_AUTO;
    opt->argv = NULL;
    opt->hosts_arg = NULL;
    opt->nodes_arg = 0;
    opt->hosts = NULL;
    opt->nhosts = 0;
    opt->host_of = NULL;
    opt->universe = 0;
    opt->world = 0;
    opt->apps = NULL;
    opt->napps = 0;

    while (i < argc) {
        const char *a = argv[i];

        if (strcmp(a, "--") == 0) {
            i++;
            break;
        }
        if (a[0] != '-' || a[1] == '\0') {
            break;
        }
        if (strcmp(a, "-n") == 0 || strcmp(a, "-np") == 0 ||
            strcmp(a, "--np") == 0 || strcmp(a, "--bind-to") == 0 ||
            strcmp(a, "--hosts") == 0 || strcmp(a, "--nodes") == 0 ||
            strcmp(a, "--universe") == 0 ||
            strcmp(a, "--spawn-plan") == 0) {
            if (i + 1 >= argc) {
                usage_error("option '%s' needs a value", a);
            }
            if (strcmp(a, "--bind-to") == 0) {
                opt->bind = parse_bind(argv[i + 1]);
            } else if (strcmp(a, "--hosts") == 0) {
                opt->hosts_arg = argv[i + 1];
            } else if (strcmp(a, "--nodes") == 0) {
                opt->nodes_arg = parse_nodes(argv[i + 1]);
            } else if (strcmp(a, "--universe") == 0) {
                opt->universe = parse_nprocs(argv[i + 1]);
            } else if (strcmp(a, "--spawn-plan") == 0) {
                /* Internal: how a gcrun starts the gcrun of a job its
                 * ranks spawn (gcrun_spawn.c). */
                long fd;

                if (!gcrun_parse_long(argv[i + 1], &fd) || (fd < 3) ||
                    (fd > INT_MAX)) {
                    usage_error("invalid --spawn-plan '%s'", argv[i + 1]);
                }
                gcrun_plan_read((int)fd, opt);
                have_n = true;
            } else {
                opt->nprocs = parse_nprocs(argv[i + 1]);
                have_n = true;
            }
            i += 2;
            continue;
        }
        if (strncmp(a, "--np=", 5) == 0) {
            opt->nprocs = parse_nprocs(a + 5);
            have_n = true;
        } else if (strncmp(a, "-n", 2) == 0 &&
                   isdigit((unsigned char)a[2])) {
            opt->nprocs = parse_nprocs(a + 2);
            have_n = true;
        } else if (strncmp(a, "--bind-to=", 10) == 0) {
            opt->bind = parse_bind(a + 10);
        } else if (strncmp(a, "--hosts=", 8) == 0) {
            opt->hosts_arg = a + 8;
        } else if (strncmp(a, "--nodes=", 8) == 0) {
            opt->nodes_arg = parse_nodes(a + 8);
        } else if (strcmp(a, "--tag-output") == 0) {
            opt->tag_output = true;
        } else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            gcrun_sink_write(STDOUT_FILENO, usage_text, strlen(usage_text));
            exit(0);
        } else if (strcmp(a, "--version") == 0) {
            static const char version[] = "gcrun (gencomm) "
                                          PACKAGE_VERSION "\n";

            gcrun_sink_write(STDOUT_FILENO, version, strlen(version));
            exit(0);
        } else {
            usage_error("unknown option '%s'", a);
        }
        i++;
    }

    if (!have_n) {
        usage_error("missing -n N (the number of processes)");
    }
    if (opt->napps > 0) {
        /* The plan gave the programs. */
        plan_hosts(opt);
        return;
    }
    if (i >= argc) {
        usage_error("no program given");
    }
    opt->argv = &argv[i];
    plan_hosts(opt);
}
