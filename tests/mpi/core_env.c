/*
 * tests/mpi/core_env.c: MPI_Init_thread, the thread level, the environment
 * inquiries and MPI_Finalize (MPI-3.1 sections 8.1, 8.6, 8.7, 12.4).
 */
#include <mpi.h>

#include "mpitest.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>

static int myrank = -1;

static void *thread_main_probe(void *arg)
{
    int *flag = arg;

    if (MPI_Is_thread_main(flag) != MPI_SUCCESS) {
        *flag = -1;
    }
    return NULL;
}

int main(int argc, char **argv)
{
    char name[MPI_MAX_PROCESSOR_NAME];
    char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    int flag = -1, provided = -1, queried = -1, len = -1, size = 0;
    int version = 0, subversion = -1, i, rc, pflag;
    double t0, t1, prev, tick;
    pthread_t thr;

    /* Before MPI_Init: these four may be called (MPI-3.1 8.7). */
    CHECK(MPI_Initialized(&flag) == MPI_SUCCESS && flag == 0,
          "MPI_Initialized before MPI_Init is false");
    flag = -1;
    CHECK(MPI_Finalized(&flag) == MPI_SUCCESS && flag == 0,
          "MPI_Finalized before MPI_Init is false");
    CHECK(MPI_Get_version(&version, &subversion) == MPI_SUCCESS &&
          version == 3 && subversion == 1,
          "MPI_Get_version before MPI_Init gives 3.1");

    CHECK(MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided) ==
          MPI_SUCCESS, "MPI_Init_thread succeeds");
    MPI_Comm_rank(MPI_COMM_WORLD, &myrank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    CHECK(size >= 1 && myrank >= 0 && myrank < size,
          "world rank within world size");

    CHECK(provided == MPI_THREAD_MULTIPLE,
          "MPI_Init_thread provides MPI_THREAD_MULTIPLE");
    CHECK(MPI_Query_thread(&queried) == MPI_SUCCESS &&
          queried == provided, "MPI_Query_thread gives what was provided");
    flag = -1;
    CHECK(MPI_Initialized(&flag) == MPI_SUCCESS && flag != 0,
          "MPI_Initialized after MPI_Init is true");
    flag = -1;
    CHECK(MPI_Finalized(&flag) == MPI_SUCCESS && flag == 0,
          "MPI_Finalized before MPI_Finalize is false");

    /* A second initialisation is an error, reported (ERRORS_RETURN). */
    rc = MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &pflag);
    CHECK(rc != MPI_SUCCESS, "second MPI_Init_thread fails");
    rc = MPI_Init(&argc, &argv);
    CHECK(rc != MPI_SUCCESS, "MPI_Init after MPI_Init_thread fails");

    flag = -1;
    CHECK(MPI_Is_thread_main(&flag) == MPI_SUCCESS && flag != 0,
          "MPI_Is_thread_main is true in main");
    flag = -1;
    CHECK(pthread_create(&thr, NULL, thread_main_probe, &flag) == 0,
          "pthread_create");
    pthread_join(thr, NULL);
    CHECK(flag == 0, "MPI_Is_thread_main is false in another thread");

    /* Wtime never goes backwards; Wtick is a positive resolution. */
    tick = MPI_Wtick();
    CHECK(tick > 0.0 && tick < 1.0, "0 < MPI_Wtick < 1");
    t0 = prev = MPI_Wtime();
    for (i = 0; i < 100000; i++) {
        t1 = MPI_Wtime();
        if (t1 < prev) {
            CHECK(0, "MPI_Wtime is monotonic");
            break;
        }
        prev = t1;
    }
    CHECK(prev >= t0, "MPI_Wtime after a loop >= before");

    memset(name, 0, sizeof(name));
    CHECK(MPI_Get_processor_name(name, &len) == MPI_SUCCESS,
          "MPI_Get_processor_name succeeds");
    CHECK(len > 0 && len < MPI_MAX_PROCESSOR_NAME &&
          (size_t)len == strlen(name),
          "processor name non-empty, resultlen is its length");

    memset(lib, 0, sizeof(lib));
    len = -1;
    CHECK(MPI_Get_library_version(lib, &len) == MPI_SUCCESS,
          "MPI_Get_library_version succeeds");
    CHECK(len > 0 && (size_t)len == strlen(lib) &&
          strstr(lib, "gencomm") != NULL,
          "library version mentions gencomm");

    /* Argument errors come back under MPI_ERRORS_RETURN. */
    CHECK(MPI_Query_thread(NULL) == MPI_ERR_ARG,
          "MPI_Query_thread(NULL) gives MPI_ERR_ARG");
    CHECK(MPI_Get_processor_name(NULL, &len) == MPI_ERR_ARG,
          "MPI_Get_processor_name(NULL) gives MPI_ERR_ARG");
    CHECK(MPI_Initialized(NULL) == MPI_ERR_ARG,
          "MPI_Initialized(NULL) gives MPI_ERR_ARG");

    CHECK(MPI_Finalize() == MPI_SUCCESS, "MPI_Finalize succeeds");
    flag = -1;
    CHECK(MPI_Finalized(&flag) == MPI_SUCCESS && flag != 0,
          "MPI_Finalized after MPI_Finalize is true");
    flag = -1;
    CHECK(MPI_Initialized(&flag) == MPI_SUCCESS && flag != 0,
          "MPI_Initialized stays true after MPI_Finalize");
    version = 0;
    CHECK(MPI_Get_version(&version, &subversion) == MPI_SUCCESS &&
          version == 3, "MPI_Get_version after MPI_Finalize");
    return (mpitest_failures == 0) ? 0 : 1;
}
