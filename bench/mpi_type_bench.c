/*
 * mpi_type_bench: what building and using a derived datatype costs, in
 * plain MPI (one process).
 *
 *   type_vector:  MPI_Type_vector(N, 1, 2, MPI_DOUBLE) plus MPI_Type_commit,
 *                 for N = 2^10, 2^20, 2^26 and INT_MAX blocks: the time
 *                 (us, the median of up to BUILD_REPS builds, each freed
 *                 before the next, while they take under a second in all)
 *                 and the memory the process grew by across the first
 *                 (resident set, KiB). A datatype is a description:
 *                 neither should grow with N. The first build alone is
 *                 also printed (_first, us): it pays for the library's
 *                 first touch of its own code and data, which a single
 *                 timing would otherwise mistake for the build's cost.
 *   type_struct:  the same for a struct of 3 blocks (int, double, 5 chars)
 *                 resized to 32 bytes, a type of the common small kind.
 *   pack_vector:  MPI_Pack of one element of vector(N, 1, 2, MPI_DOUBLE),
 *                 N = 2^16 (1 MiB of data), in MB/s of packed bytes;
 *   pack_struct:  MPI_Pack of 2^15 elements of the struct, in MB/s.
 *
 * The memory of a build is measured as the rise of the resident set across
 * it; a build that takes more than a few seconds would go on for ever at
 * INT_MAX blocks: N above 2^26 is run in a child process given a time
 * limit (--limit seconds, 20 by default), and a child that does not finish
 * prints an empty value with the unit "missing (over the time limit)".
 *
 * Output, one line per measurement: benchmark,size_bytes,implementation,
 * value,unit (size_bytes: N for the builds, bytes per pack call for the
 * packs).
 *
 * Usage: mpi_type_bench IMPLEMENTATION_NAME [--quick] [--limit S]
 */
#define _GNU_SOURCE
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <mpi.h>

#include "bench_util.h"

/* Resident set size, KiB. */
static long rss_kib(void)
{
    long pages = 0, resident = 0;
    FILE *f = fopen("/proc/self/statm", "r");

    if (f == NULL) {
        return -1;
    }
    if (fscanf(f, "%ld %ld", &pages, &resident) != 2) {
        resident = -1;
    }
    fclose(f);
    return (resident < 0) ? -1 : resident * (sysconf(_SC_PAGESIZE) / 1024);
}

static MPI_Datatype make_struct(void)
{
    int blens[3] = { 1, 1, 5 };
    MPI_Aint disps[3] = { 0, 8, 16 };
    MPI_Datatype types[3] = { MPI_INT, MPI_DOUBLE, MPI_CHAR };
    MPI_Datatype s, r;

    MPI_Type_create_struct(3, blens, disps, types, &s);
    MPI_Type_create_resized(s, 0, 32, &r);
    MPI_Type_free(&s);
    return r;
}

/* Builds and commits the type (n blocks of a vector, or the struct). */
static MPI_Datatype make(long n)
{
    MPI_Datatype t;

    if (n > 0) {
        MPI_Type_vector((int)n, 1, 2, MPI_DOUBLE, &t);
    } else {
        t = make_struct();
    }
    MPI_Type_commit(&t);
    return t;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return (x > y) - (x < y);
}

#define BUILD_REPS 201

/* Builds the type: the first build's time and memory, then the median
 * time of that and further builds while they take under a second. */
static void build(const char *impl, const char *bench, long n)
{
    MPI_Datatype t;
    long before = rss_kib(), after;
    double t0 = now_s(), dt[BUILD_REPS], spent;
    int k = 1;

    t = make(n);
    dt[0] = now_s() - t0;
    after = rss_kib();
    MPI_Type_free(&t);
    spent = dt[0];
    while (k < BUILD_REPS && spent < 1.0) {
        t0 = now_s();
        t = make(n);
        dt[k] = now_s() - t0;
        MPI_Type_free(&t);
        spent += dt[k++];
    }
    printf("%s_first,%ld,%s,%.3f,us\n", bench, (n > 0) ? n : 3, impl,
           dt[0] * 1e6);
    qsort(dt, (size_t)k, sizeof(dt[0]), cmp_double);
    printf("%s,%ld,%s,%.3f,us\n", bench, (n > 0) ? n : 3, impl,
           dt[k / 2] * 1e6);
    printf("%s_mem,%ld,%s,%ld,KiB\n", bench, (n > 0) ? n : 3, impl,
           (before >= 0 && after >= before) ? after - before : 0);
    fflush(stdout);
}

/* The same in a child with a time limit (a build that may not end). */
static void build_limited(const char *impl, const char *bench, long n,
                          int limit)
{
    int status = 0;
    pid_t pid;

    fflush(stdout);
    pid = fork();
    if (pid == 0) {
        alarm((unsigned)limit);
        build(impl, bench, n);
        _exit(0);
    }
    if (pid < 0 || waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) ||
        WEXITSTATUS(status) != 0) {
        printf("%s,%ld,%s,,missing (over the time limit of %d s)\n", bench,
               n, impl, limit);
        printf("%s_first,%ld,%s,,missing (over the time limit of %d s)\n",
               bench, n, impl, limit);
        printf("%s_mem,%ld,%s,,missing (over the time limit of %d s)\n",
               bench, n, impl, limit);
    }
}

static void pack(const char *impl, const char *bench, MPI_Datatype t,
                 int count, int reps)
{
    MPI_Aint lb, ext;
    int size, pos, r;
    char *in, *out;
    double t0, dt;

    MPI_Type_get_extent(t, &lb, &ext);
    MPI_Pack_size(count, t, MPI_COMM_WORLD, &size);
    in = calloc(1, (size_t)ext * (size_t)count + 64);
    out = malloc((size_t)size);
    if (in == NULL || out == NULL) {
        printf("%s,%d,%s,,missing (out of memory)\n", bench, size, impl);
        return;
    }
    pos = 0;
    MPI_Pack(in, count, t, out, size, &pos, MPI_COMM_WORLD);  /* warm */
    t0 = now_s();
    for (r = 0; r < reps; r++) {
        pos = 0;
        MPI_Pack(in, count, t, out, size, &pos, MPI_COMM_WORLD);
    }
    dt = now_s() - t0;
    printf("%s,%d,%s,%.2f,MB/s\n", bench, size, impl,
           (double)size * reps / dt / 1e6);
    free(in);
    free(out);
}

int main(int argc, char **argv)
{
    const char *impl = "mpi";
    int quick = 0, limit = 20, reps, i;
    MPI_Datatype t;

    for (i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--quick") == 0) {
            quick = 1;
        } else if (strcmp(argv[i], "--limit") == 0 && i + 1 < argc) {
            limit = atoi(argv[++i]);
        } else {
            impl = argv[i];
        }
    }
    MPI_Init(&argc, &argv);
    reps = quick ? 3 : 50;
    build(impl, "type_struct", 0);
    build(impl, "type_vector", 1L << 10);
    build(impl, "type_vector", 1L << 20);
    build_limited(impl, "type_vector", 1L << 26, limit);
    if (!quick) {
        build_limited(impl, "type_vector", INT_MAX, limit);
    }
    MPI_Type_vector(1 << 16, 1, 2, MPI_DOUBLE, &t);
    MPI_Type_commit(&t);
    pack(impl, "pack_vector", t, 1, reps);
    MPI_Type_free(&t);
    t = make_struct();
    MPI_Type_commit(&t);
    pack(impl, "pack_struct", t, 1 << 15, reps);
    MPI_Type_free(&t);
    MPI_Finalize();
    return 0;
}
