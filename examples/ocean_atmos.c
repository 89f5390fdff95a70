/*
 * examples/ocean_atmos.c: the coupled simulation of the MPIXternal seed
 * (Clauss, Lankes and Bemmerl): an ocean model on one cluster and an
 * atmosphere model on another, coupled at the sea surface. The program
 * names no host: which processes model what, their order, the ocean's
 * ring and the machine's facts (depth, CPU speeds) come from the file
 * GENCOMM_EXTERNAL names (examples/ocean_atmos.xml):
 *
 *     GENCOMM_EXTERNAL=examples/ocean_atmos.xml gcrun -n 8 --hosts \
 *         foo:00,foo:01,foo:02,foo:03,bar:00,bar:01,bar:02,bar:03 \
 *         examples/ocean_atmos
 *
 * Each ocean process holds a strip of sea-surface temperature, each
 * atmosphere process a strip of air temperature. Every step the ocean
 * smooths its strip with its two ring neighbours (a halo exchange; the
 * file attaches that ring as the communicator's graph topology), then ocean rank r and atmosphere rank r
 * trade their surface values across MPI_COMM_INTER and each side relaxes
 * toward the other. At the end each process prints what it found and
 * rank 0 of each model the mean temperature.
 */
#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CELLS 16
#define STEPS 20

/* The value of external attribute key on comm, or "?". */
static const char *attr(MPI_Comm comm, const char *key)
{
    char *value = NULL;
    int keyval, flag = 0;

    MPIX_Keyval_external(&keyval, key, &flag);
    if (flag) {
        MPI_Comm_get_attr(comm, keyval, &value, &flag);
    }
    return flag ? value : "?";
}

/* The ocean's halo exchange on its ring (left and right of each rank;
 * the ring the file attaches says these are its graph neighbours). */
static void ocean_smooth(MPI_Comm ocean, double t[CELLS + 2])
{
    int me, n, left, right, i;
    double next[CELLS + 2];

    MPI_Comm_rank(ocean, &me);
    MPI_Comm_size(ocean, &n);
    left  = (me + n - 1) % n;
    right = (me + 1) % n;
    /* Cells 1..CELLS are ours; 0 and CELLS + 1 are the halos. */
    MPI_Sendrecv(&t[CELLS], 1, MPI_DOUBLE, right, 1, &t[0], 1, MPI_DOUBLE,
                 left, 1, ocean, MPI_STATUS_IGNORE);
    MPI_Sendrecv(&t[1], 1, MPI_DOUBLE, left, 2, &t[CELLS + 1], 1,
                 MPI_DOUBLE, right, 2, ocean, MPI_STATUS_IGNORE);
    for (i = 1; i <= CELLS; i++) {
        next[i] = 0.25 * t[i - 1] + 0.5 * t[i] + 0.25 * t[i + 1];
    }
    memcpy(&t[1], &next[1], CELLS * sizeof(double));
}

/* Is the ocean's topology the ring the smoothing assumes? */
static int ocean_is_ring(MPI_Comm ocean)
{
    int me, n, status, count, nbrs[2], i, ok;

    MPI_Comm_rank(ocean, &me);
    MPI_Comm_size(ocean, &n);
    MPI_Topo_test(ocean, &status);
    if (status != MPI_GRAPH) {
        return 0;
    }
    MPI_Graph_neighbors_count(ocean, me, &count);
    if (count != ((n > 2) ? 2 : n - 1)) {
        return 0;
    }
    MPI_Graph_neighbors(ocean, me, 2, nbrs);
    for (i = 0, ok = 1; i < count; i++) {
        ok &= (nbrs[i] == (me + 1) % n || nbrs[i] == (me + n - 1) % n);
    }
    return ok;
}

int main(int argc, char **argv)
{
    MPI_Comm MPI_COMM_OCEAN = MPI_COMM_NULL, MPI_COMM_ATMOS = MPI_COMM_NULL;
    MPI_Comm MPI_COMM_INTER = MPI_COMM_NULL, model;
    char host[MPI_MAX_PROCESSOR_NAME], hint[64];
    double t[CELLS + 2], theirs[CELLS], sum, mean;
    int in_ocean, in_atmos, in_inter, len, rank, mrank, msize, rsize, flag;
    int partner, step, i, wrank;
    MPI_Info info;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Get_processor_name(host, &len);

    MPIX_Comm_external_(MPI_COMM_OCEAN, &in_ocean);
    MPIX_Comm_external_(MPI_COMM_ATMOS, &in_atmos);
    MPIX_Comm_external_(MPI_COMM_INTER, &in_inter);
    if (!in_ocean && !in_atmos) {
        printf("process %d on %s: in neither model (run with "
               "GENCOMM_EXTERNAL=examples/ocean_atmos.xml and hosts "
               "foo:NN and bar:NN)\n", wrank, host);
        MPI_Finalize();
        return 0;
    }
    model = in_ocean ? MPI_COMM_OCEAN : MPI_COMM_ATMOS;
    MPI_Comm_rank(model, &mrank);
    MPI_Comm_size(model, &msize);
    rank = mrank;

    /* What the file told this process. */
    if (in_ocean) {
        printf("process %d on %s: ocean rank %d of %d, depth %s, CPU speed "
               "%s, model %s, %s\n", wrank, host, rank, msize,
               attr(MPI_COMM_OCEAN, "DEPTH"), attr(MPI_COMM_OCEAN,
                                                   "CPU_SPEED"),
               attr(MPI_COMM_WORLD, "MODEL"),
               ocean_is_ring(MPI_COMM_OCEAN) ? "on a ring" : "no ring");
    } else {
        MPIX_Info_external(MPI_COMM_ATMOS, &info);
        MPI_Info_get(info, "timestep", sizeof(hint) - 1, hint, &flag);
        MPI_Info_free(&info);
        printf("process %d on %s: atmosphere rank %d of %d, pressure %s, "
               "CPU speed %s, time step %s\n", wrank, host, rank, msize,
               attr(MPI_COMM_ATMOS, "PRESSURE"),
               attr(MPI_COMM_ATMOS, "CPU_SPEED"), flag ? hint : "?");
    }

    /* Warm sea, cold air. */
    for (i = 1; i <= CELLS; i++) {
        t[i] = in_ocean ? 20.0 + (rank * CELLS + i) % 7 : 5.0;
    }
    MPI_Comm_remote_size(MPI_COMM_INTER, &rsize);
    partner = rank % rsize;
    for (step = 0; step < STEPS; step++) {
        if (in_ocean) {
            ocean_smooth(MPI_COMM_OCEAN, t);
        }
        /* The surface: ocean rank r and atmosphere rank r trade strips;
         * a side larger than the other pairs up modulo. */
        if (rank < rsize) {
            MPI_Sendrecv(&t[1], CELLS, MPI_DOUBLE, partner, 3, theirs,
                         CELLS, MPI_DOUBLE, partner, 3, MPI_COMM_INTER,
                         MPI_STATUS_IGNORE);
        } else {
            memcpy(theirs, &t[1], sizeof(theirs));
        }
        for (i = 1; i <= CELLS; i++) {
            t[i] += (in_ocean ? 0.05 : 0.2) * (theirs[i - 1] - t[i]);
        }
    }
    for (i = 1, sum = 0.0; i <= CELLS; i++) {
        sum += t[i];
    }
    MPI_Reduce(&sum, &mean, 1, MPI_DOUBLE, MPI_SUM, 0, model);
    if (rank == 0) {
        printf("%s: mean temperature %.2f after %d steps, coupled with %d "
               "remote processes\n", in_ocean ? "ocean" : "atmosphere",
               mean / (msize * CELLS), STEPS, rsize);
    }
    MPI_Comm_free(&MPI_COMM_INTER);
    MPI_Comm_free(&model);
    MPI_Finalize();
    return 0;
}
