/*
 * phase_probe: how fast one cache line crosses between two cores of this
 * machine right now, with no library at all (bench/README.md, "Phases at
 * 2 processes, 8 bytes").
 *
 * On this kind of virtual machine the same two processes pass a cache
 * line back and forth in about 0.05 us one way in one phase and 3-5
 * times slower in another, and the host switches between them on its own
 * every few seconds to minutes. Every sub-microsecond row of bench/run
 * moves with it, for every library alike. bench/run runs this before and
 * after each launch, so that a launch can be read with the phase it ran
 * in (latest-runs.csv) and libraries compared within one phase.
 *
 * Two processes (a fork), pinned to the first two CPUs the process may
 * use, pass a counter in one cache line of a shared mapping: ROUNDS round
 * trips in 5 windows, each window timed as a whole. The figure is the
 * median window's time per one-way transfer, in microseconds, on stdout
 * ("%.3f\n"). Nothing is printed, and the exit status is 1, with fewer
 * than two CPUs or when the other process stops answering for a second
 * (it lost its CPU for that long: no phase to report).
 *
 * Usage: phase_probe [ROUNDS]   (10000 by default, 100 to 10^7)
 */
#define _GNU_SOURCE
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define WINDOWS    5
#define GIVE_UP_NS 1000000000ull

typedef struct {
    _Alignas(64) _Atomic uint64_t turn;   /* odd: the child's, even: ours */
    _Alignas(64) _Atomic int      quit;   /* the parent gave up */
} probe_line_t;

static uint64_t now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int pin(int cpu)
{
    cpu_set_t set;

    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    return sched_setaffinity(0, sizeof(set), &set);
}

/* Waits until turn reaches want; 0, or -1 after GIVE_UP_NS or a quit. */
static int wait_turn(probe_line_t *p, uint64_t want)
{
    uint64_t start = 0;
    unsigned spins = 0;

    while (atomic_load_explicit(&p->turn, memory_order_acquire) != want) {
        if ((++spins & 4095u) == 0) {
            uint64_t t = now_ns();

            if (start == 0) {
                start = t;
            } else if (t - start > GIVE_UP_NS ||
                       atomic_load_explicit(&p->quit,
                                            memory_order_relaxed)) {
                return -1;
            }
        }
    }
    return 0;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    long rounds = 10000;
    int cpus[2], n = 0, c, w, status;
    cpu_set_t allowed;
    probe_line_t *p;
    double t[WINDOWS];
    pid_t child;
    uint64_t turn = 0;

    if (argc > 1) {
        char *end;

        rounds = strtol(argv[1], &end, 10);
        if (*end != '\0' || rounds < 100 || rounds > 10000000) {
            fprintf(stderr, "phase_probe: ROUNDS must be 100 to 10^7, "
                    "not '%s'\n", argv[1]);
            return 2;
        }
    }
    if (sched_getaffinity(0, sizeof(allowed), &allowed) != 0) {
        perror("phase_probe: sched_getaffinity");
        return 1;
    }
    for (c = 0; c < CPU_SETSIZE && n < 2; c++) {
        if (CPU_ISSET(c, &allowed)) {
            cpus[n++] = c;
        }
    }
    if (n < 2) {
        fprintf(stderr, "phase_probe: fewer than 2 CPUs to run on\n");
        return 1;
    }
    p = mmap(NULL, sizeof(*p), PROT_READ | PROT_WRITE,
             MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
        perror("phase_probe: mmap");
        return 1;
    }
    memset(p, 0, sizeof(*p));
    child = fork();
    if (child < 0) {
        perror("phase_probe: fork");
        return 1;
    }
    if (child == 0) {
        /* The child answers each odd turn with the next even one. */
        uint64_t mine = 1;

        if (pin(cpus[1]) != 0) {
            _exit(1);
        }
        for (;;) {
            if (wait_turn(p, mine) != 0) {
                _exit(0);
            }
            atomic_store_explicit(&p->turn, mine + 1, memory_order_release);
            mine += 2;
        }
    }
    if (pin(cpus[0]) != 0) {
        perror("phase_probe: sched_setaffinity");
        goto fail;
    }
    /* A warm-up window, then the timed ones. */
    for (w = -1; w < WINDOWS; w++) {
        long per = rounds / WINDOWS, i;
        uint64_t start = now_ns();

        for (i = 0; i < per; i++) {
            atomic_store_explicit(&p->turn, turn + 1, memory_order_release);
            turn += 2;
            if (wait_turn(p, turn) != 0) {
                fprintf(stderr, "phase_probe: no answer for 1 s\n");
                goto fail;
            }
        }
        if (w >= 0) {
            t[w] = (double)(now_ns() - start) / 1e3 / (2.0 * (double)per);
        }
    }
    atomic_store_explicit(&p->quit, 1, memory_order_relaxed);
    kill(child, SIGKILL);
    waitpid(child, &status, 0);
    qsort(t, WINDOWS, sizeof(t[0]), cmp_double);
    printf("%.3f\n", t[WINDOWS / 2]);
    return 0;

fail:
    atomic_store_explicit(&p->quit, 1, memory_order_relaxed);
    kill(child, SIGKILL);
    waitpid(child, &status, 0);
    return 1;
}
