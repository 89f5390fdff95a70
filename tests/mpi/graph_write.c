/*
 * tests/mpi/graph_write.c: MPIX_Comm_graph_write on the structures whose
 * shape is known, each written into the folder argv[1] for
 * tests/mpi/test_graph.sh to parse: the world (world.dot), a duplicate
 * (dup.dot), the two halves of a split by rank parity (split0.dot,
 * split1.dot), the intercommunicator between them (inter.dot), the host
 * communicator (node-<world rank of its rank 0>.dot) and MPI_COMM_SELF
 * (self-<rank>.dot); then its errors, the same at every member.
 */
#include "mpitest.h"

#include <stdlib.h>

static void path_of(char *buf, size_t len, const char *dir, const char *name)
{
    snprintf(buf, len, "%s/%s.dot", dir, name);
}

int main(int argc, char **argv)
{
    MPI_Comm dup, half, inter, node;
    char path[1024], name[64];
    const char *dir;
    int nrank, wrank0;

    mpitest_init(&argc, &argv, "graph_write", 1);
    if (argc < 2) {
        CHECK(0, "usage: graph_write DIR");
        return mpitest_finish();
    }
    dir = argv[1];

    path_of(path, sizeof(path), dir, "world");
    OK(MPIX_Comm_graph_write(MPI_COMM_WORLD, path));

    OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    path_of(path, sizeof(path), dir, "dup");
    /* Only rank 0's path counts. */
    OK(MPIX_Comm_graph_write(dup, (mpitest_rank == 0) ? path : NULL));

    OK(MPI_Comm_split(MPI_COMM_WORLD, mpitest_rank % 2, mpitest_rank,
                      &half));
    snprintf(name, sizeof(name), "split%d", mpitest_rank % 2);
    path_of(path, sizeof(path), dir, name);
    OK(MPIX_Comm_graph_write(half, path));

    if (mpitest_size >= 2) {
        /* Leaders: world ranks 0 and 1. */
        OK(MPI_Intercomm_create(half, 0, MPI_COMM_WORLD,
                                1 - mpitest_rank % 2, 7, &inter));
        path_of(path, sizeof(path), dir, "inter");
        OK(MPIX_Comm_graph_write(inter, path));
        OK(MPI_Comm_free(&inter));
    }

    OK(MPIX_Comm_node(1, &node));
    OK(MPI_Comm_rank(node, &nrank));
    wrank0 = mpitest_rank;
    OK(MPI_Bcast(&wrank0, 1, MPI_INT, 0, node));
    snprintf(name, sizeof(name), "node-%d", wrank0);
    path_of(path, sizeof(path), dir, name);
    OK(MPIX_Comm_graph_write(node, path));

    snprintf(name, sizeof(name), "self-%d", mpitest_rank);
    path_of(path, sizeof(path), dir, name);
    OK(MPIX_Comm_graph_write(MPI_COMM_SELF, path));

    /* Errors: every member gets the writer's. */
    MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN);
    EXPECT_ERR(MPIX_Comm_graph_write(dup, "/nonexistent/dir/x.dot"),
               MPI_ERR_OTHER, "MPIX_Comm_graph_write",
               "a path that cannot be opened");
    EXPECT_ERR(MPIX_Comm_graph_write(dup, NULL), MPI_ERR_ARG,
               "MPIX_Comm_graph_write", "a NULL path at rank 0");
    EXPECT_ERR(MPIX_Comm_graph_write(MPI_COMM_NULL, path), MPI_ERR_COMM,
               "MPIX_Comm_graph_write", "MPI_COMM_NULL");
    /* The communicator still works after the failed calls. */
    {
        int sum = 0;

        OK(MPI_Allreduce(&mpitest_rank, &sum, 1, MPI_INT, MPI_SUM, dup));
        CHECK(sum == mpitest_size * (mpitest_size - 1) / 2,
              "allreduce after the errors gave %d", sum);
    }
    OK(MPI_Comm_free(&half));
    OK(MPI_Comm_free(&dup));
    return mpitest_finish();
}
