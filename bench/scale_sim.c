/*
 * bench/scale_sim.c: what one process of a job of P processes holds, for
 * large P, measured in one real process that believes it is rank r of P
 * (the simulation bootstrap, GENCOMM_BOOT=sim, boot/boot_sim.c: no other
 * process exists and none is reached).
 *
 * For each P (a child process each, as the library starts once per
 * process) it measures the heap (glibc's mallinfo2: bytes in use, arena
 * and mmapped chunks, uordblks + hblkhd, before and after) and the CPU
 * time of this thread (CLOCK_THREAD_CPUTIME_ID) of:
 *   - start-up: gcm_init (endpoints, UCX, per-process tables);
 *   - MPI_Init after it (MPI_COMM_WORLD, MPI_COMM_SELF, the SMP
 *     hierarchy's communicators and tables);
 *   - the world: the MPI_COMM_WORLD object (static: its size) and an LCO
 *     made as gcm_init makes the world's (a pattern over all P);
 *   - MPI_Comm_dup of the world, --dups times (the average);
 *   - a split of the world into --colors colours (colour = rank mod
 *     colours, key = rank): this rank's new communicator;
 *   - the SMP hierarchy (--ppn processes per host): MPI_Init's part
 *     (MPIX_Comm_node's levels, rebuilt here to be measured alone) and
 *     the collectives' node structure of the world (made on a
 *     communicator's first collective);
 *   - the schedules a rank holds: MPI_Barrier_init, MPI_Bcast_init,
 *     MPI_Allreduce_init (8 bytes), MPI_Allgather_init and
 *     MPI_Alltoall_init (8 bytes a rank): persistent collectives build
 *     their whole schedule at _init, with no message, as a blocking call
 *     builds and caches it at its first call.
 *
 * What is simulated (nothing else): MPI_Init's allgather of the
 * hierarchy's records is computed locally from the simulated host layout
 * (compat/mpi_hier.c, gcm_mpi_hier_sim_gather); the split's allgather of
 * (colour, key) is computed here as if every rank had passed colour =
 * rank mod colours and key = rank, and the communicator is then made by
 * the same call MPI_Comm_split makes after its allgather
 * (gcm_mpi_comm_derive). MPI_Comm_dup and the persistent _init calls
 * send no message and run as they are.
 *
 * Usage: scale_sim [--sizes P,P,...] [--ppn N] [--rank R|mid] [--dups N]
 *                  [--colors N] [--alltoall-max P]
 * Defaults: 1000,10000,100000,1000000; 64; 0 (a host's leader, which
 * holds the most); 1000; 1000; 10000 (the all-to-all schedule of a
 * host's leader grows as ppn x P steps: 16 KiB a rank, 16 GiB at a
 * million, so larger P are not measured unless asked). Prints a Markdown
 * table, one row per structure, one column per P.
 */
#define _GNU_SOURCE
#include "config.h"

#include "compat/mpi_coll_impl.h"
#include "compat/mpi_impl.h"
#include "lco/lco.h"

#include "bench_util.h"

#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_SIZES 8

enum {
    M_STARTUP, M_STARTUP_S, M_MPI_INIT, M_MPI_INIT_S, M_WORLD, M_DUP,
    M_DUP_S, M_SPLIT, M_SPLIT_N, M_SPLIT_PER, M_HIER_MPI, M_HIER_MPI_S,
    M_HIER_COLL, M_HIER_COLL_S, M_HIER_S, M_BARRIER, M_BCAST, M_ALLREDUCE,
    M_ALLGATHER, M_ALLTOALL, M_COUNT
};

static const struct {
    const char *label;
    int         seconds;   /* 1: seconds; 2: a ratio; 0: bytes or a count */
} metrics[M_COUNT] = {
    [M_STARTUP]     = { "start-up: gcm_init, bytes", 0 },
    [M_STARTUP_S]   = { "start-up: gcm_init, s", 1 },
    [M_MPI_INIT]    = { "MPI_Init after gcm_init, bytes", 0 },
    [M_MPI_INIT_S]  = { "MPI_Init after gcm_init, s", 1 },
    [M_WORLD]       = { "world communicator, bytes", 0 },
    [M_DUP]         = { "MPI_Comm_dup of the world, bytes each", 0 },
    [M_DUP_S]       = { "MPI_Comm_dup of the world, s each", 1 },
    [M_SPLIT]       = { "split into colours: new communicator, bytes", 0 },
    [M_SPLIT_N]     = { "split into colours: its members", 0 },
    [M_SPLIT_PER]   = { "split into colours: bytes per member", 2 },
    [M_HIER_MPI]    = { "SMP hierarchy, MPI levels (MPIX_Comm_node), bytes",
                        0 },
    [M_HIER_MPI_S]  = { "SMP hierarchy, MPI levels, s", 1 },
    [M_HIER_COLL]   = { "SMP hierarchy, collectives' node structure, bytes",
                        0 },
    [M_HIER_COLL_S] = { "SMP hierarchy, collectives' node structure, s",
                        1 },
    [M_HIER_S]      = { "SMP hierarchy set-up in all, s", 1 },
    [M_BARRIER]     = { "schedule: barrier, bytes", 0 },
    [M_BCAST]       = { "schedule: bcast 8 B, bytes", 0 },
    [M_ALLREDUCE]   = { "schedule: allreduce 8 B, bytes", 0 },
    [M_ALLGATHER]   = { "schedule: allgather 8 B a rank, bytes", 0 },
    [M_ALLTOALL]    = { "schedule: alltoall 8 B a rank, bytes", 0 },
};

static struct {
    long sizes[MAX_SIZES];
    int  nsizes;
    int  ppn;
    long rank;          /* -1: the middle of the job */
    int  dups;
    int  colors;
    long alltoall_max;  /* the alltoall schedule only up to this P */
} opt = { { 1000, 10000, 100000, 1000000 }, 4, 64, 0, 1000, 1000, 10000 };

/* Bytes in use on the heap. */
static double heap_bytes(void)
{
    struct mallinfo2 mi = mallinfo2();

    return (double)(mi.uordblks + mi.hblkhd);
}

static double cpu_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void die(const char *what)
{
    fprintf(stderr, "scale_sim: %s\n", what);
    exit(1);
}

/* A measured step: heap and CPU time around it. */
typedef struct mark {
    double heap;
    double cpu;
} mark_t;

static mark_t mark(void)
{
    mark_t m = { heap_bytes(), cpu_s() };

    return m;
}

static void since(const mark_t *m, double *bytes, double *seconds)
{
    if (seconds != NULL) {
        *seconds = cpu_s() - m->cpu;
    }
    *bytes = heap_bytes() - m->heap;
}

/* The world: MPI_COMM_WORLD is a static object; its LCO is a pattern
 * over every process, made here the way gcm_init makes the world's. */
static double measure_world(long size, int rank)
{
    gcm_lco_h lco = NULL;
    uint32_t id, gen;
    double bytes;
    mark_t m;

    gcm_lco_derive_id(gcm_world(), &id, &gen);
    m = mark();
    if (gcm_lco_create_pattern(id, gen, (int)size, NULL, rank, &lco) !=
        GCM_OK) {
        die("cannot make a pattern LCO over the world");
    }
    since(&m, &bytes, NULL);
    gcm_lco_free(&lco);
    return bytes + (double)sizeof(*MPI_COMM_WORLD);
}

static void measure_dups(double *r)
{
    MPI_Comm *dups = malloc((size_t)opt.dups * sizeof(*dups));
    double bytes, secs;
    mark_t m;
    int i;

    if (dups == NULL) {
        die("out of memory");
    }
    m = mark();
    for (i = 0; i < opt.dups; i++) {
        if (MPI_Comm_dup(MPI_COMM_WORLD, &dups[i]) != MPI_SUCCESS) {
            die("MPI_Comm_dup failed");
        }
    }
    since(&m, &bytes, &secs);
    r[M_DUP]   = bytes / opt.dups;
    r[M_DUP_S] = secs / opt.dups;
    for (i = 0; i < opt.dups; i++) {
        MPI_Comm_free(&dups[i]);
    }
    free(dups);
}

/*
 * Simulation of MPI_Comm_split(MPI_COMM_WORLD, rank % colors, rank): the
 * allgather of (colour, key) is not run (no other process exists); every
 * rank is taken to have passed that colour and key, so this rank's group
 * is the ranks of its colour in rank order. The communicator is then
 * made by the call MPI_Comm_split makes after its allgather.
 */
static void measure_split(long size, int rank, double *r)
{
    int color = rank % opt.colors, n = 0, myrank = 0;
    int *procs = malloc((size_t)size * sizeof(int));
    MPI_Comm split = MPI_COMM_NULL;
    double bytes;
    mark_t m;
    long p;

    if (procs == NULL) {
        die("out of memory");
    }
    for (p = color; p < size; p += opt.colors) {
        if (p == rank) {
            myrank = n;
        }
        procs[n++] = (int)p;
    }
    m = mark();
    if (gcm_mpi_comm_derive(MPI_COMM_WORLD, n, procs, myrank,
                            "MPI_Comm_split", &split) != MPI_SUCCESS) {
        die("cannot make the split's communicator");
    }
    since(&m, &bytes, NULL);
    free(procs);
    r[M_SPLIT]     = bytes;
    r[M_SPLIT_N]   = n;
    r[M_SPLIT_PER] = bytes / n;
    MPI_Comm_free(&split);
}

/* MPI_Init's part of the hierarchy, built again to be measured alone (the
 * communicators of the first build stay until MPI_Finalize). */
static void measure_hier(double *r)
{
    double secs;
    mark_t m;

    gcm_mpi_hier_finalize();
    m = mark();
    if (gcm_mpi_hier_init() != MPI_SUCCESS) {
        die("cannot build the SMP hierarchy");
    }
    since(&m, &r[M_HIER_MPI], &secs);
    r[M_HIER_MPI_S] = secs;
    m = mark();
    if (gcm_mpi_coll_hier_of(MPI_COMM_WORLD) == NULL) {
        die("no node structure for the world's collectives");
    }
    since(&m, &r[M_HIER_COLL], &secs);
    r[M_HIER_COLL_S] = secs;
    r[M_HIER_S] = r[M_HIER_MPI_S] + r[M_HIER_COLL_S];
}

static void measure_schedules(long size, double *r)
{
    double *sbuf = calloc((size_t)size, sizeof(double));
    double *rbuf = calloc((size_t)size, sizeof(double));
    MPI_Request req;
    int which;

    if ((sbuf == NULL) || (rbuf == NULL)) {
        die("out of memory");
    }
    for (which = M_BARRIER; which <= M_ALLTOALL; which++) {
        mark_t m = mark();
        int rc;

        if ((which == M_ALLTOALL) && (size > opt.alltoall_max)) {
            r[which] = -1;   /* not measured */
            continue;
        }
        switch (which) {
        case M_BARRIER:
            rc = MPI_Barrier_init(MPI_COMM_WORLD, MPI_INFO_NULL, &req);
            break;
        case M_BCAST:
            rc = MPI_Bcast_init(sbuf, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD,
                                MPI_INFO_NULL, &req);
            break;
        case M_ALLREDUCE:
            rc = MPI_Allreduce_init(sbuf, rbuf, 1, MPI_DOUBLE, MPI_SUM,
                                    MPI_COMM_WORLD, MPI_INFO_NULL, &req);
            break;
        case M_ALLGATHER:
            rc = MPI_Allgather_init(sbuf, 1, MPI_DOUBLE, rbuf, 1, MPI_DOUBLE,
                                    MPI_COMM_WORLD, MPI_INFO_NULL, &req);
            break;
        default:
            rc = MPI_Alltoall_init(sbuf, 1, MPI_DOUBLE, rbuf, 1, MPI_DOUBLE,
                                   MPI_COMM_WORLD, MPI_INFO_NULL, &req);
            break;
        }
        if (rc != MPI_SUCCESS) {
            die("a persistent collective's _init failed");
        }
        since(&m, &r[which], NULL);
        MPI_Request_free(&req);
    }
    free(sbuf);
    free(rbuf);
}

/* One P, in this (child) process: the results into r. */
static void measure(long size, int rank, double *r)
{
    char text[32];
    double secs;
    mark_t m;

    setenv("GENCOMM_BOOT", "sim", 1);
    snprintf(text, sizeof(text), "%ld", size);
    setenv("GENCOMM_SIM_SIZE", text, 1);
    snprintf(text, sizeof(text), "%d", rank);
    setenv("GENCOMM_SIM_RANK", text, 1);
    snprintf(text, sizeof(text), "%d", opt.ppn);
    setenv("GENCOMM_SIM_PPN", text, 1);
    /* A host of ppn processes: what a launcher would say (the
     * shared-memory rings are sized from it). */
    setenv("GENCOMM_LOCAL_SIZE", text, 1);

    m = mark();
    if (gcm_init(NULL, NULL) != GCM_OK) {
        fprintf(stderr, "scale_sim: gcm_init: %s\n", gcm_last_error());
        exit(1);
    }
    since(&m, &r[M_STARTUP], &secs);
    r[M_STARTUP_S] = secs;
    m = mark();
    if (MPI_Init(NULL, NULL) != MPI_SUCCESS) {
        die("MPI_Init failed");
    }
    since(&m, &r[M_MPI_INIT], &secs);
    r[M_MPI_INIT_S] = secs;

    r[M_WORLD] = measure_world(size, rank);
    measure_dups(r);
    measure_split(size, rank, r);
    measure_hier(r);
    measure_schedules(size, r);
    MPI_Finalize();
    gcm_finalize();
}

static void print_value(double v, int seconds)
{
    if (v < 0) {
        printf(" not measured |");
    } else if (seconds == 1) {
        printf(" %.3g |", v);
    } else if (seconds == 2) {
        printf(" %.2f |", v);
    } else if (v >= 10 * 1024 * 1024) {
        printf(" %.1f MiB |", v / (1024.0 * 1024.0));
    } else if (v >= 10 * 1024) {
        printf(" %.1f KiB |", v / 1024.0);
    } else {
        printf(" %.0f |", v);
    }
}

static void parse(int argc, char **argv)
{
    int i;

    for (i = 1; i < argc; i++) {
        const char *v = (i + 1 < argc) ? argv[i + 1] : NULL;

        if (v == NULL) {
            die("every option takes a value (see the file's comment)");
        }
        if (strcmp(argv[i], "--sizes") == 0) {
            char *copy = strdup(v), *tok, *save = NULL;

            opt.nsizes = 0;
            for (tok = strtok_r(copy, ",", &save); tok != NULL;
                 tok = strtok_r(NULL, ",", &save)) {
                if ((opt.nsizes == MAX_SIZES) || (atol(tok) < 1)) {
                    die("--sizes: up to 8 sizes of at least 1");
                }
                opt.sizes[opt.nsizes++] = atol(tok);
            }
            free(copy);
        } else if (strcmp(argv[i], "--ppn") == 0) {
            opt.ppn = atoi(v);
        } else if (strcmp(argv[i], "--rank") == 0) {
            opt.rank = (strcmp(v, "mid") == 0) ? -1 : atol(v);
        } else if (strcmp(argv[i], "--dups") == 0) {
            opt.dups = atoi(v);
        } else if (strcmp(argv[i], "--colors") == 0) {
            opt.colors = atoi(v);
        } else if (strcmp(argv[i], "--alltoall-max") == 0) {
            opt.alltoall_max = atol(v);
        } else {
            die("unknown option (see the file's comment)");
        }
        i++;
    }
    if ((opt.nsizes < 1) || (opt.ppn < 1) || (opt.dups < 1) ||
        (opt.colors < 1) || (opt.rank < -1)) {
        die("--ppn, --dups and --colors must be at least 1, --rank at "
            "least 0");
    }
}

int main(int argc, char **argv)
{
    static double results[MAX_SIZES][M_COUNT];
    int s, k;

    parse(argc, argv);
    for (s = 0; s < opt.nsizes; s++) {
        long size = opt.sizes[s];
        long rank = (opt.rank < 0) ? size / 2 : opt.rank;
        int fds[2], status;
        pid_t pid;

        if ((rank >= size) || (opt.ppn > size)) {
            die("--rank and --ppn must be below every size");
        }
        if (pipe(fds) != 0) {
            die("pipe failed");
        }
        fflush(stdout);
        pid = fork();
        if (pid < 0) {
            die("fork failed");
        }
        if (pid == 0) {
            double r[M_COUNT] = { 0 };

            close(fds[0]);
            measure(size, (int)rank, r);
            if (write(fds[1], r, sizeof(r)) != (ssize_t)sizeof(r)) {
                _exit(1);
            }
            _exit(0);
        }
        close(fds[1]);
        if ((read(fds[0], results[s], sizeof(results[s])) !=
             (ssize_t)sizeof(results[s])) ||
            (waitpid(pid, &status, 0) != pid) || !WIFEXITED(status) ||
            (WEXITSTATUS(status) != 0)) {
            fprintf(stderr, "scale_sim: the measurement of P = %ld "
                    "failed\n", size);
            return 1;
        }
        close(fds[0]);
    }

    if (opt.rank < 0) {
        printf("Simulated rank P/2 of P");
    } else {
        printf("Simulated rank %ld of P", opt.rank);
    }
    printf(", %d processes per host; %d dups, %d colours; heap by "
           "mallinfo2, seconds of this thread's CPU.\n\n", opt.ppn,
           opt.dups, opt.colors);
    printf("| structure |");
    for (s = 0; s < opt.nsizes; s++) {
        printf(" P = %ld |", opt.sizes[s]);
    }
    printf("\n|---|");
    for (s = 0; s < opt.nsizes; s++) {
        printf("---|");
    }
    printf("\n");
    for (k = 0; k < M_COUNT; k++) {
        printf("| %s |", metrics[k].label);
        for (s = 0; s < opt.nsizes; s++) {
            print_value(results[s][k], metrics[k].seconds);
        }
        printf("\n");
    }
    return 0;
}
