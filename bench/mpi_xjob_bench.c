/*
 * mpi_xjob_bench: MPI_Comm_connect/MPI_Comm_accept between two separately
 * launched jobs of one process each (bench/run starts them side by side
 * with bench/xjob_pair.sh).
 *
 *   comm_connect_xjob: one cycle is MPI_Comm_connect (the accepting job
 *              waits in MPI_Comm_accept), one int from the connecting
 *              side received by the accepting side, which answers one
 *              int (the first message both ways), then MPI_Comm_disconnect
 *              on both sides. The figure is the time per cycle on the
 *              connecting side.
 *
 * The accepting job opens a port and writes its name to FILE (written
 * aside, then renamed, so that the connecting side never reads half a
 * name); the connecting job waits for FILE. A cycle that fails ends both
 * with a row that says so.
 *
 * Output, on the connecting side's stdout:
 *     benchmark,size_bytes,implementation,value,unit
 *
 * Usage: mpi_xjob_bench NAME accept|connect FILE [--quick]
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <mpi.h>

#include "bench_util.h"

#define TAG_DATA 1

static const char *impl = "mpi";

static void accept_side(const char *file, int cycles)
{
    char port[MPI_MAX_PORT_NAME], tmp[4096];
    FILE *f;
    int v;

    check(MPI_Open_port(MPI_INFO_NULL, port), "MPI_Open_port");
    snprintf(tmp, sizeof(tmp), "%s.tmp", file);
    f = fopen(tmp, "w");
    if ((f == NULL) || (fprintf(f, "%s\n", port) < 0) || (fclose(f) != 0) ||
        (rename(tmp, file) != 0)) {
        perror("mpi_xjob_bench: writing the port name");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    for (int c = 0; c < cycles; c++) {
        MPI_Comm inter;

        check(MPI_Comm_accept(port, MPI_INFO_NULL, 0, MPI_COMM_SELF,
                              &inter), "MPI_Comm_accept");
        check(MPI_Recv(&v, 1, MPI_INT, 0, TAG_DATA, inter,
                       MPI_STATUS_IGNORE), "MPI_Recv");
        check(MPI_Send(&v, 1, MPI_INT, 0, TAG_DATA, inter), "MPI_Send");
        check(MPI_Comm_disconnect(&inter), "MPI_Comm_disconnect");
    }
    check(MPI_Close_port(port), "MPI_Close_port");
}

static void connect_side(const char *file, int warmup, int cycles)
{
    char port[MPI_MAX_PORT_NAME] = "";
    double t0 = 0.0, give_up = now_s() + 60.0;
    FILE *f;
    int v = 1;

    while ((f = fopen(file, "r")) == NULL) {
        struct timespec ts = { 0, 10 * 1000 * 1000 };

        if (now_s() > give_up) {
            fprintf(stderr, "mpi_xjob_bench: no port name in %s\n", file);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        nanosleep(&ts, NULL);
    }
    if (fgets(port, sizeof(port), f) == NULL) {
        port[0] = '\0';
    }
    fclose(f);
    port[strcspn(port, "\n")] = '\0';
    for (int c = 0; c < warmup + cycles; c++) {
        MPI_Comm inter;

        if (c == warmup) {
            t0 = now_s();
        }
        check(MPI_Comm_connect(port, MPI_INFO_NULL, 0, MPI_COMM_SELF,
                               &inter), "MPI_Comm_connect");
        check(MPI_Send(&v, 1, MPI_INT, 0, TAG_DATA, inter), "MPI_Send");
        check(MPI_Recv(&v, 1, MPI_INT, 0, TAG_DATA, inter,
                       MPI_STATUS_IGNORE), "MPI_Recv");
        check(MPI_Comm_disconnect(&inter), "MPI_Comm_disconnect");
    }
    printf("comm_connect_xjob,0,%s,%.3f,us\n", impl,
           (now_s() - t0) * 1e6 / cycles);
    fflush(stdout);
}

int main(int argc, char **argv)
{
    int quick = 0, warmup, cycles;

    check(MPI_Init(&argc, &argv), "MPI_Init");
    if ((argc < 4) || ((strcmp(argv[2], "accept") != 0) &&
                       (strcmp(argv[2], "connect") != 0)) ||
        ((argc == 5) && (strcmp(argv[4], "--quick") != 0)) || (argc > 5)) {
        fprintf(stderr, "usage: mpi_xjob_bench NAME accept|connect FILE "
                        "[--quick]\n");
        MPI_Finalize();
        return 2;
    }
    impl   = argv[1];
    quick  = (argc == 5);
    warmup = quick ? 1 : 5;
    cycles = quick ? 5 : 50;
    if (strcmp(argv[2], "accept") == 0) {
        accept_side(argv[3], warmup + cycles);
    } else {
        connect_side(argv[3], warmup, cycles);
    }
    MPI_Finalize();
    return 0;
}
