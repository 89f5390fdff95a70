/*
 * tests/mpi/netns_check.c: an MPI job across hosts, as
 * tests/mpi/test_netns.sh makes them (network namespaces joined by veth
 * pairs, each with its own host name, started by MPICH's Hydra or Open
 * MPI's mpirun through an ssh stand-in).
 *
 * Usage: netns_check HOSTS BYTES
 *   HOSTS  the host each rank must run on, comma-separated in rank order
 *   BYTES  size of the message every rank sends to every other rank
 *
 * Checks that the processes see the hosts the launcher put them on
 * (MPI_Get_processor_name, MPI_COMM_TYPE_SHARED, MPIX_Comm_node(1),
 * MPIX_Comm_level), then moves data between all pairs (so across the
 * namespaces, over UCX's TCP transport), and runs a broadcast from the
 * last rank and an allreduce. Prints "netns_check: OK" on rank 0 when
 * all is well; every failure prints a FAIL line with the rank.
 */
#include <mpi.h>

#include "mpitest.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, size;

static char **hosts;    /* expected host of each rank */

static int parse_hosts(char *list)
{
    char *save = NULL, *h;
    int n = 0;

    hosts = calloc((unsigned)size, sizeof(char *));
    for (h = strtok_r(list, ",", &save); h != NULL;
         h = strtok_r(NULL, ",", &save)) {
        if (n < size) {
            hosts[n] = h;
        }
        n++;
    }
    return n;
}

/* The byte at offset i of what rank src sends to rank dst. */
static unsigned char pattern(int src, int dst, size_t i)
{
    return (unsigned char)((i * 131u) ^ ((unsigned)src * 29u) ^
                           ((unsigned)dst * 7u) ^ (i >> 12));
}

static void check_hosts(void)
{
    char name[MPI_MAX_PROCESSOR_NAME], *all;
    int len = 0, r, nsame = 0, ssize = 0, level, i;
    MPI_Comm shared, node;
    MPI_Group wg, sg, ng;
    int *ranks, *trans, cmp;

    OK(MPI_Get_processor_name(name, &len));
    CHECK(strcmp(name, hosts[rank]) == 0,
          "MPI_Get_processor_name gives %s, expected %s", name,
          hosts[rank]);

    /* Everybody's name, as everybody sees it. */
    all = calloc((unsigned)size, MPI_MAX_PROCESSOR_NAME);
    OK(MPI_Allgather(name, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, all,
                     MPI_MAX_PROCESSOR_NAME, MPI_CHAR, MPI_COMM_WORLD));
    for (r = 0; r < size; r++) {
        CHECK(strcmp(all + (size_t)r * MPI_MAX_PROCESSOR_NAME, hosts[r]) ==
              0, "rank %d reports host %s, expected %s", r,
              all + (size_t)r * MPI_MAX_PROCESSOR_NAME, hosts[r]);
    }
    free(all);

    /* MPI_COMM_TYPE_SHARED: exactly the ranks of this host, in order. */
    ranks = calloc((unsigned)size, sizeof(int));
    trans = calloc((unsigned)size, sizeof(int));
    for (r = 0; r < size; r++) {
        if (strcmp(hosts[r], hosts[rank]) == 0) {
            ranks[nsame++] = r;
        }
    }
    OK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0,
                           MPI_INFO_NULL, &shared));
    OK(MPI_Comm_size(shared, &ssize));
    CHECK(ssize == nsame, "MPI_COMM_TYPE_SHARED has %d processes, host %s "
          "has %d", ssize, hosts[rank], nsame);
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    MPI_Comm_group(shared, &sg);
    if (ssize == nsame) {
        for (i = 0; i < ssize; i++) {
            trans[i] = i;
        }
        MPI_Group_translate_ranks(sg, ssize, trans, wg, trans);
        for (i = 0; i < ssize; i++) {
            CHECK(trans[i] == ranks[i], "MPI_COMM_TYPE_SHARED rank %d is "
                  "world rank %d, expected %d", i, trans[i], ranks[i]);
        }
    }

    /* The hierarchy's level 1 is the host: the same group. */
    OK(MPIX_Comm_node(1, &node));
    MPI_Comm_group(node, &ng);
    MPI_Group_compare(sg, ng, &cmp);
    CHECK(cmp == MPI_IDENT, "MPIX_Comm_node(1) is not the host's group "
          "(comparison %d)", cmp);
    for (r = 0; r < size; r++) {
        OK(MPIX_Comm_level(MPI_COMM_WORLD, rank, r, &level));
        if (strcmp(hosts[r], hosts[rank]) != 0) {
            CHECK(level == 0, "MPIX_Comm_level(%d, %d) = %d across hosts",
                  rank, r, level);
        } else {
            CHECK(level >= 1, "MPIX_Comm_level(%d, %d) = %d on one host",
                  rank, r, level);
        }
    }
    MPI_Group_free(&ng);
    MPI_Group_free(&sg);
    MPI_Group_free(&wg);
    MPI_Comm_free(&shared);
    free(ranks);
    free(trans);
}

/* Every rank sends bytes to every other rank at once, then checks what
 * it got. */
static void check_all_pairs(size_t bytes)
{
    unsigned char *sbuf = malloc((unsigned)size * bytes + 1);
    unsigned char *rbuf = malloc((unsigned)size * bytes + 1);
    MPI_Request *reqs = malloc(2 * (size_t)size * sizeof(MPI_Request));
    int r, n = 0;
    size_t i, bad;

    for (r = 0; r < size; r++) {
        for (i = 0; i < bytes; i++) {
            sbuf[(size_t)r * bytes + i] = pattern(rank, r, i);
        }
    }
    memset(rbuf, 0, (size_t)size * bytes);
    for (r = 0; r < size; r++) {
        if (r != rank) {
            OK(MPI_Irecv(rbuf + (size_t)r * bytes, (int)bytes, MPI_BYTE, r,
                         11, MPI_COMM_WORLD, &reqs[n++]));
        }
    }
    for (r = 0; r < size; r++) {
        if (r != rank) {
            OK(MPI_Isend(sbuf + (size_t)r * bytes, (int)bytes, MPI_BYTE, r,
                         11, MPI_COMM_WORLD, &reqs[n++]));
        }
    }
    OK(MPI_Waitall(n, reqs, MPI_STATUSES_IGNORE));
    for (r = 0; r < size; r++) {
        if (r == rank) {
            continue;
        }
        for (i = 0, bad = 0; i < bytes; i++) {
            bad += (rbuf[(size_t)r * bytes + i] != pattern(r, rank, i));
        }
        CHECK(bad == 0, "%zu of %zu bytes from rank %d (host %s) wrong", bad,
              bytes, r, hosts[r]);
    }
    free(reqs);
    free(rbuf);
    free(sbuf);
}

static void check_collectives(void)
{
    const int n = 100003;
    double *d = malloc(n * sizeof(double)), *sum = malloc(n * sizeof(double));
    int i, root = size - 1, bad = 0;

    for (i = 0; i < n; i++) {
        d[i] = (rank == root) ? (double)(i % 1000) : -1.0;
    }
    OK(MPI_Bcast(d, n, MPI_DOUBLE, root, MPI_COMM_WORLD));
    for (i = 0; i < n; i++) {
        bad += (d[i] != (double)(i % 1000));
    }
    CHECK(bad == 0, "bcast from rank %d: %d of %d wrong", root, bad, n);

    /* Sum over ranks of (rank + 1) * (i % 7): exact in doubles. */
    for (i = 0; i < n; i++) {
        d[i] = (double)(rank + 1) * (i % 7);
    }
    OK(MPI_Allreduce(d, sum, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
    for (i = 0, bad = 0; i < n; i++) {
        bad += (sum[i] != (double)size * (size + 1) / 2 * (i % 7));
    }
    CHECK(bad == 0, "allreduce: %d of %d wrong", bad, n);
    free(sum);
    free(d);
}

int main(int argc, char **argv)
{
    size_t bytes;
    int total = 0, nhosts;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc != 3) {
        if (rank == 0) {
            fprintf(stderr, "usage: netns_check HOSTS BYTES\n");
        }
        MPI_Finalize();
        return 2;
    }
    nhosts = parse_hosts(argv[1]);
    if (nhosts != size) {
        if (rank == 0) {
            fprintf(stderr, "netns_check: %d hosts named for %d processes\n",
                    nhosts, size);
        }
        MPI_Finalize();
        return 2;
    }
    bytes = strtoul(argv[2], NULL, 10);

    check_hosts();
    check_all_pairs(bytes);
    check_collectives();

    MPI_Allreduce(&mpitest_failures, &total, 1, MPI_INT, MPI_SUM,
                  MPI_COMM_WORLD);
    if ((rank == 0) && (total == 0)) {
        printf("netns_check: OK (%d processes)\n", size);
    }
    free(hosts);
    MPI_Finalize();
    return (mpitest_failures > 0) ? 1 : 0;
}
