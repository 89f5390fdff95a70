/*
 * shm_floor: what moving 1 MiB between two processes of one host can cost,
 * whoever runs it: the floor under the same-host collectives at 2
 * processes (coll/README.md, "1 MiB at 2 processes").
 *
 * Two processes (it forks its peer: parent = rank 0, child = rank 1),
 * bound to a core each, no library: only the system calls and copies a
 * scheme needs, with a spinning barrier on a shared mapping between the
 * steps. Each figure is the fastest of REPS calls, a call's time being
 * the slower rank's, after WARMUP calls.
 *
 * - allreduce of 1 MiB of doubles (sum), three ways:
 *   cma_read: Rabenseifner's two steps as the library runs them: each
 *   reads the partner's copy of the half it keeps with process_vm_readv in
 *   pieces of PIECE bytes, adds its own into each piece while it is in
 *   cache; then each reads the partner's reduced half into its result;
 *   cma_write: one step: the same reads and sums, and each reduced piece
 *   written at once into the partner's result with process_vm_writev;
 *   staged: through a shared mapping: each copies the half it gives into
 *   it, sums the partner's copy with its own into its result (and into
 *   the mapping), then copies the partner's reduced half out;
 * - exchange of 1 MiB each way (MPI_Sendrecv's work), two ways:
 *   cma_read (each reads the partner's buffer) and staged (each copies
 *   into the mapping, then out of it);
 * - allgather of 1 MiB blocks (alltoall's work at 2 processes too): each
 *   copies its own block into its result and reads the partner's
 *   (cma_read).
 *
 * Output, one line per figure, on rank 0's stdout:
 *     benchmark,size_bytes,implementation,value,unit
 *
 * Usage: shm_floor [--quick]
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench_util.h"

#define SIZE   ((size_t)1 << 20)
#define HALF   (SIZE / 2)
#define PIECE  ((size_t)128 * 1024)
#define WARMUP 30
#define REPS   300
#define QUICK_REPS 30

/* A peer that hangs must not hang a run for ever. */
#define RUN_TIMEOUT_S 120

enum { ALLREDUCE_CMA_READ, ALLREDUCE_CMA_WRITE, ALLREDUCE_STAGED,
       EXCHANGE_CMA_READ, EXCHANGE_STAGED, ALLGATHER_CMA_READ, NSCHEMES };

static const struct {
    const char *bench;
    const char *impl;
} schemes[NSCHEMES] = {
    { "allreduce_floor", "cma_read" },
    { "allreduce_floor", "cma_write" },
    { "allreduce_floor", "staged" },
    { "exchange_floor", "cma_read" },
    { "exchange_floor", "staged" },
    { "allgather_floor", "cma_read" },
};

/* The shared mapping: the barrier, what each rank tells the other, each
 * rank's staging areas, each call's time per rank. */
typedef struct {
    atomic_uint arrived[2];
    pid_t       pid[2];
    uintptr_t   sbuf[2];
    uintptr_t   rbuf[2];
    char        in[2][SIZE];     /* what a rank gives, copied in */
    char        out[2][HALF];    /* a rank's reduced half */
    double      t[2][REPS];
} shared_t;

static shared_t *sh;
static int me;
static unsigned gen;

/* Both ranks arrive before either leaves; the core is given away now and
 * then, so that an oversubscribed run still moves. */
static void barrier(void)
{
    unsigned spins = 0;

    gen++;
    atomic_store_explicit(&sh->arrived[me], gen, memory_order_release);
    while (atomic_load_explicit(&sh->arrived[1 - me],
                                memory_order_acquire) < gen) {
        if ((++spins & 63) == 0) {
            sched_yield();
        }
    }
}

static void cma(int write, void *local, uintptr_t remote, size_t len)
{
    struct iovec l = { local, len };
    struct iovec r = { (void *)remote, len };
    ssize_t got = write ?
        process_vm_writev(sh->pid[1 - me], &l, 1, &r, 1, 0) :
        process_vm_readv(sh->pid[1 - me], &l, 1, &r, 1, 0);

    if (got != (ssize_t)len) {
        bench_die("%s of %zu bytes: %s",
                  write ? "process_vm_writev" : "process_vm_readv", len,
                  (got < 0) ? strerror(errno) : "short copy");
    }
}

static void sum(double *acc, const double *a, const double *b, size_t bytes)
{
    for (size_t i = 0; i < bytes / sizeof(double); i++) {
        acc[i] = a[i] + b[i];
    }
}

/* One call of a scheme. Rank 0 keeps the lower half, rank 1 the upper. */
static void run(int scheme, char *sbuf, char *rbuf, char *gbuf)
{
    size_t keep = me ? HALF : 0, give = me ? 0 : HALF;
    uintptr_t psbuf = sh->sbuf[1 - me], prbuf = sh->rbuf[1 - me];
    size_t off;

    switch (scheme) {
    case ALLREDUCE_CMA_READ:
    case ALLREDUCE_CMA_WRITE:
        for (off = keep; off < keep + HALF; off += PIECE) {
            cma(0, rbuf + off, psbuf + off, PIECE);
            sum((double *)(rbuf + off), (double *)(rbuf + off),
                (double *)(sbuf + off), PIECE);
            if (scheme == ALLREDUCE_CMA_WRITE) {
                cma(1, rbuf + off, prbuf + off, PIECE);
            }
        }
        barrier();
        if (scheme == ALLREDUCE_CMA_READ) {
            cma(0, rbuf + give, prbuf + give, HALF);
            barrier();
        }
        break;
    case ALLREDUCE_STAGED:
        memcpy(sh->in[me], sbuf + give, HALF);
        barrier();
        for (off = 0; off < HALF; off += PIECE) {
            sum((double *)(rbuf + keep + off), (double *)(sbuf + keep + off),
                (double *)(sh->in[1 - me] + off), PIECE);
            memcpy(sh->out[me] + off, rbuf + keep + off, PIECE);
        }
        barrier();
        memcpy(rbuf + give, sh->out[1 - me], HALF);
        barrier();
        break;
    case EXCHANGE_CMA_READ:
        cma(0, rbuf, psbuf, SIZE);
        barrier();
        break;
    case EXCHANGE_STAGED:
        memcpy(sh->in[me], sbuf, SIZE);
        barrier();
        memcpy(rbuf, sh->in[1 - me], SIZE);
        barrier();
        break;
    case ALLGATHER_CMA_READ:
        memcpy(gbuf + (size_t)me * SIZE, sbuf, SIZE);
        cma(0, gbuf + (size_t)(1 - me) * SIZE, psbuf, SIZE);
        barrier();
        break;
    }
}

/* rbuf (gbuf: the allgather) holds what the scheme must leave there. */
static void verify(int scheme, const char *rbuf, const char *gbuf)
{
    const double *r = (const double *)
                      ((scheme == ALLGATHER_CMA_READ) ? gbuf : rbuf);
    size_t n = ((scheme == ALLGATHER_CMA_READ) ? 2 : 1) * SIZE /
               sizeof(double);

    for (size_t i = 0; i < n; i++) {
        size_t j = i % (SIZE / sizeof(double));
        double want;

        if (scheme == ALLGATHER_CMA_READ) {
            want = (double)j + (double)(i / (SIZE / sizeof(double)));
        } else if (scheme >= EXCHANGE_CMA_READ) {
            want = (double)i + (1 - me);
        } else {
            want = 2.0 * (double)i + 1;
        }

        if (r[i] != want) {
            bench_die("%s %s: element %zu is %g, not %g",
                      schemes[scheme].bench, schemes[scheme].impl, i, r[i],
                      want);
        }
    }
}

static void rank_main(int reps)
{
    char *sbuf = malloc(SIZE), *rbuf = malloc(SIZE);
    char *gbuf = malloc(2 * SIZE);
    int scheme;

    if ((sbuf == NULL) || (rbuf == NULL) || (gbuf == NULL)) {
        bench_die("out of memory");
    }
    for (size_t i = 0; i < SIZE / sizeof(double); i++) {
        ((double *)sbuf)[i] = (double)i + me;    /* the sum: 2i + 1 */
    }
    memset(rbuf, 0, SIZE);
    memset(gbuf, 0, 2 * SIZE);
    sh->pid[me] = getpid();
    sh->sbuf[me] = (uintptr_t)sbuf;
    sh->rbuf[me] = (uintptr_t)rbuf;
    barrier();

    for (scheme = 0; scheme < NSCHEMES; scheme++) {
        double best = -1;

        for (int k = -WARMUP; k < reps; k++) {
            double t0;

            barrier();
            t0 = now_s();
            run(scheme, sbuf, rbuf, gbuf);
            if (k >= 0) {
                sh->t[me][k] = now_s() - t0;
            }
        }
        barrier();
        verify(scheme, rbuf, gbuf);
        memset(rbuf, 0, SIZE);
        memset(gbuf, 0, 2 * SIZE);
        if (me == 0) {
            for (int k = 0; k < reps; k++) {
                double t = (sh->t[0][k] > sh->t[1][k]) ? sh->t[0][k] :
                           sh->t[1][k];

                if ((best < 0) || (t < best)) {
                    best = t;
                }
            }
            printf("%s,%zu,%s,%.1f,us\n", schemes[scheme].bench, SIZE,
                   schemes[scheme].impl, best * 1e6);
            fflush(stdout);
        }
        barrier();
    }
    free(sbuf);
    free(rbuf);
    free(gbuf);
}

int main(int argc, char **argv)
{
    int reps = REPS, status;
    pid_t child;

    bench_name = "shm_floor";
    if ((argc == 2) && (strcmp(argv[1], "--quick") == 0)) {
        reps = QUICK_REPS;
    } else if (argc != 1) {
        fprintf(stderr, "usage: shm_floor [--quick]\n");
        return 2;
    }
    sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
              MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (sh == MAP_FAILED) {
        perror("shm_floor: mmap");
        return 1;
    }
    /* Where Yama restricts it, each may read the other's memory. */
    (void)prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0);
    child = fork();
    if (child < 0) {
        perror("shm_floor: fork");
        return 1;
    }
    me = (child == 0) ? 1 : 0;
    bench_rank = me;
    if (me == 1) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
    }
    alarm(RUN_TIMEOUT_S);
    (void)bind_thread(me);
    rank_main(reps);
    if (me == 1) {
        return 0;
    }
    if ((waitpid(child, &status, 0) != child) || !WIFEXITED(status) ||
        (WEXITSTATUS(status) != 0)) {
        fprintf(stderr, "shm_floor: rank 1 failed\n");
        return 1;
    }
    return 0;
}
