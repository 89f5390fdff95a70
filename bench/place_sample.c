/*
 * place_sample: where the kernel runs the 4 processes of one launch of a
 * benchmark on a 2-core host, sampled from outside (not run by bench/run,
 * not built by make; coll/README.md, "Large calls at 4 processes by
 * placement", has what it found).
 *
 *     gcc -O2 -o /tmp/place_sample bench/place_sample.c
 *     /tmp/place_sample mpi_coll_bench & tools/gcrun -n 4 --bind-to none \
 *         bench/mpi_coll_bench.gencomm gencomm-mpi --ops reduce; wait
 *
 * It waits for 4 processes whose command name starts with the argument
 * and whose environment names their rank (PMI_RANK: gcrun;
 * OMPI_COMM_WORLD_RANK: Open MPI's mpirun), then every millisecond reads
 * the CPU each last ran on and its state (/proc/PID/stat, fields 39 and
 * 3) until one of them exits. Each sample is a placement class: two on
 * each core as a = {0,1}{2,3}, b = {0,2}{1,3} or c = {0,3}{1,2}, t = three
 * on one core, f = all four on one. It prints the share of each class
 * over the whole launch ("place") and over its last 250 samples ("tail":
 * the last size measured, 1 MiB in mpi_coll_bench, and finalize), the
 * mean number of running or runnable processes in the tail (nR), and
 * each rank's CPU changes and share of samples running or runnable.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define NRANK 4
#define NCLASS 5
#define TAIL 250
#define MAXS 200000

static const char *class_name = "abctf";

/* /proc/PID/WHAT into buf (NUL-terminated): its length, or -1. */
static long read_proc(int pid, const char *what, char *buf, size_t size)
{
    char path[64];
    size_t n;
    FILE *f;

    snprintf(path, sizeof(path), "/proc/%d/%s", pid, what);
    f = fopen(path, "r");
    if (f == NULL) {
        return -1;
    }
    n = fread(buf, 1, size - 1, f);
    fclose(f);
    buf[n] = '\0';
    return (long)n;
}

static int rank_of(int pid)
{
    static const char *keys[] = { "PMI_RANK=", "OMPI_COMM_WORLD_RANK=" };
    static char env[65536];
    long n = read_proc(pid, "environ", env, sizeof(env));

    for (long i = 0; i < n; i += (long)strlen(env + i) + 1) {
        for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
            if (strncmp(env + i, keys[k], strlen(keys[k])) == 0) {
                return atoi(env + i + strlen(keys[k]));
            }
        }
    }
    return -1;
}

/* The CPU pid last ran on (stat field 39), its state in *state. */
static int cpu_of(int pid, char *state)
{
    char buf[1024], *q;
    int field = 3;

    if (read_proc(pid, "stat", buf, sizeof(buf)) < 0) {
        return -1;
    }
    q = strrchr(buf, ')');
    if (q == NULL || q[1] == '\0') {
        return -1;
    }
    q += 2;
    *state = *q;
    while (*q != '\0' && field < 39) {
        field += (*q == ' ');
        q++;
    }
    return atoi(q);
}

static int find_ranks(const char *name, int pid[NRANK])
{
    struct dirent *e;
    int found = 0;
    DIR *d = opendir("/proc");

    memset(pid, 0, NRANK * sizeof(pid[0]));
    while (d != NULL && (e = readdir(d)) != NULL) {
        char comm[64];
        int p = atoi(e->d_name), r;

        if (p <= 0 || read_proc(p, "comm", comm, sizeof(comm)) < 0 ||
            strncmp(comm, name, strlen(name)) != 0) {
            continue;
        }
        r = rank_of(p);
        if (r >= 0 && r < NRANK && pid[r] == 0) {
            pid[r] = p;
            found++;
        }
    }
    if (d != NULL) {
        closedir(d);
    }
    return found;
}

static int classify(const int c[NRANK])
{
    int on0 = 0;

    if (c[0] == c[1] && c[2] == c[3] && c[0] != c[2]) {
        return 0;
    }
    if (c[0] == c[2] && c[1] == c[3] && c[0] != c[1]) {
        return 1;
    }
    if (c[0] == c[3] && c[1] == c[2] && c[0] != c[1]) {
        return 2;
    }
    for (int r = 0; r < NRANK; r++) {
        on0 += (c[r] == c[0]);
    }
    return (on0 == 1 || on0 == 3) ? 3 : 4;
}

int main(int argc, char **argv)
{
    static unsigned char cls[MAXS], nrun[MAXS];
    const char *name = argc > 1 ? argv[1] : "mpi_coll_bench";
    struct timespec ms = { 0, 1000000 };
    long count[NCLASS] = { 0 }, tail[NCLASS] = { 0 }, n = 0, from, m;
    long moves[NRANK] = { 0 }, run[NRANK] = { 0 }, tail_run = 0;
    int pid[NRANK], last[NRANK] = { -1, -1, -1, -1 }, found = 0;

    for (int tries = 0; tries < 4000 && found < NRANK; tries++) {
        found = find_ranks(name, pid);
        if (found < NRANK) {
            usleep(2000);
        }
    }
    if (found < NRANK) {
        printf("place_sample: found %d of %d ranks\n", found, NRANK);
        return 1;
    }
    for (;;) {
        int c[NRANK], k, r, q = 0;
        char st[NRANK];

        for (r = 0; r < NRANK; r++) {
            c[r] = cpu_of(pid[r], &st[r]);
            if (c[r] < 0) {
                break;
            }
        }
        if (r < NRANK) {
            break;
        }
        for (r = 0; r < NRANK; r++) {
            moves[r] += (last[r] >= 0 && c[r] != last[r]);
            last[r] = c[r];
            run[r] += (st[r] == 'R');
            q += (st[r] == 'R');
        }
        k = classify(c);
        count[k]++;
        if (n < MAXS) {
            cls[n] = (unsigned char)k;
            nrun[n] = (unsigned char)q;
        }
        n++;
        nanosleep(&ms, NULL);
    }
    m = n < MAXS ? n : MAXS;
    from = m > TAIL ? m - TAIL : 0;
    for (long i = from; i < m; i++) {
        tail[cls[i]]++;
        tail_run += nrun[i];
    }
    if (n == 0) {
        n = 1;
    }
    printf("tail");
    for (int k = 0; k < NCLASS; k++) {
        printf(" %c=%.2f", class_name[k],
               (double)tail[k] / (double)(m > from ? m - from : 1));
    }
    printf(" nR=%.2f\nplace", (double)tail_run /
           (double)(m > from ? m - from : 1));
    for (int k = 0; k < NCLASS; k++) {
        printf(" %c=%.2f", class_name[k], (double)count[k] / (double)n);
    }
    printf(" n=%ld moves=%ld,%ld,%ld,%ld runfrac=%.2f,%.2f,%.2f,%.2f\n", n,
           moves[0], moves[1], moves[2], moves[3], (double)run[0] / n,
           (double)run[1] / n, (double)run[2] / n, (double)run[3] / n);
    return 0;
}
