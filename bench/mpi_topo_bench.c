/*
 * mpi_topo_bench: the time of MPIX_Graph_create (gencomm's MPI layer
 * only) for a random graph in which every process lists DEGREE
 * neighbours, with reorder 0 and with reorder 1.
 *
 * Each process draws its neighbours (other ranks, repeats allowed: they
 * are weights) from a generator seeded with its rank, the same in every
 * run. A call is timed between two barriers; the figure is the slowest
 * rank's average over the timed calls, after warm-up calls, in
 * microseconds. Run it on emulated hosts laid out round-robin (gcrun
 * --hosts a,b,a,b,...) so that reorder 1 really maps the graph; on one
 * host the mapping is skipped (nothing to gain) and both rows cost the
 * same.
 *
 * Output, on rank 0's stdout:
 *     graph_create_r0_npN,0,IMPLEMENTATION,us,us
 *     graph_create_r1_npN,0,IMPLEMENTATION,us,us
 *
 * Usage: gcrun -n N --hosts ... mpi_topo_bench IMPLEMENTATION [--quick]
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "bench_util.h"

#define DEGREE 8
#define WARMUP 5
#define ITERS  50

static unsigned next_rand(unsigned *state)
{
    *state = *state * 1103515245u + 12345u;
    return (*state >> 16) & 0x7fff;
}

int main(int argc, char **argv)
{
    const char *impl = (argc > 1) ? argv[1] : "mpi";
    int quick = argc > 2 && strcmp(argv[2], "--quick") == 0;
    int rank, size, nb[DEGREE], reorder, k;
    unsigned seed;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    seed = 977u * (unsigned)rank + 1u;
    for (k = 0; k < DEGREE; k++) {
        nb[k] = (size > 1) ?
                (rank + 1 + (int)(next_rand(&seed) % (unsigned)(size - 1))) %
                    size :
                0;
    }
    for (reorder = 0; reorder <= 1; reorder++) {
#ifdef MPIX_CNAME
        int warm = quick ? 1 : WARMUP, iters = quick ? 3 : ITERS, i;
        double total = 0, mine, worst;

        for (i = 0; i < warm + iters; i++) {
            MPI_Comm g;
            double t0;

            MPI_Barrier(MPI_COMM_WORLD);
            t0 = now_s();
            MPIX_Graph_create(MPI_COMM_WORLD, DEGREE, nb, reorder,
                              MPI_INFO_NULL, &g);
            if (i >= warm) {
                total += now_s() - t0;
            }
            MPI_Comm_free(&g);
        }
        mine = total / iters * 1e6;
        MPI_Reduce(&mine, &worst, 1, MPI_DOUBLE, MPI_MAX, 0,
                   MPI_COMM_WORLD);
        if (rank == 0) {
            printf("graph_create_r%d_np%d,0,%s,%.2f,us\n", reorder, size,
                   impl, worst);
        }
#else
        (void)quick;
        (void)nb;
        if (rank == 0) {
            printf("graph_create_r%d_np%d,0,%s,,missing (no "
                   "MPIX_Graph_create)\n", reorder, size, impl);
        }
#endif
    }
    MPI_Finalize();
    return 0;
}
