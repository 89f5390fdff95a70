/*
 * tests/mpi/err_coll.c: under MPI_ERRORS_RETURN, collectives refuse an
 * invalid root (MPI_ERR_ROOT) and operation (MPI_ERR_OP), naming the call
 * in the error text. All processes make the same erroneous calls, so none
 * waits for another.
 */
#include <mpi.h>

#include <stdio.h>
#include <string.h>

static int rank;
static int failures;

static void expect(int line, int rc, int want, const char *call,
                   const char *what)
{
    char text[MPI_MAX_ERROR_STRING];
    int cls = -1, len = -1;

    MPI_Error_class(rc, &cls);
    if (cls != want) {
        printf("FAIL: line %d (rank %d): %s: class %d, want %d\n", line,
               rank, what, cls, want);
        failures++;
        return;
    }
    text[0] = '\0';
    MPI_Error_string(rc, text, &len);
    if (len <= 0 || strstr(text, call) == NULL) {
        printf("FAIL: line %d (rank %d): %s: text \"%s\" does not name %s\n",
               line, rank, what, text, call);
        failures++;
    }
    fflush(stdout);
}

#define EXPECT(_rc, _class, _call, _what) \
    expect(__LINE__, (_rc), (_class), (_call), (_what))

int main(int argc, char **argv)
{
    int size, rc, in = 1, out = 0;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

    rc = MPI_Bcast(&in, 1, MPI_INT, size, MPI_COMM_WORLD);
    EXPECT(rc, MPI_ERR_ROOT, "MPI_Bcast", "root = size");
    rc = MPI_Bcast(&in, 1, MPI_INT, -1, MPI_COMM_WORLD);
    EXPECT(rc, MPI_ERR_ROOT, "MPI_Bcast", "root = -1");
    rc = MPI_Bcast(&in, -1, MPI_INT, 0, MPI_COMM_WORLD);
    EXPECT(rc, MPI_ERR_COUNT, "MPI_Bcast", "count -1");
    rc = MPI_Bcast(&in, 1, MPI_INT, 0, MPI_COMM_NULL);
    EXPECT(rc, MPI_ERR_COMM, "MPI_Bcast", "MPI_COMM_NULL");
    rc = MPI_Reduce(&in, &out, 1, MPI_INT, MPI_OP_NULL, 0, MPI_COMM_WORLD);
    EXPECT(rc, MPI_ERR_OP, "MPI_Reduce", "MPI_OP_NULL");
    rc = MPI_Reduce(&in, &out, 1, MPI_INT, MPI_SUM, size, MPI_COMM_WORLD);
    EXPECT(rc, MPI_ERR_ROOT, "MPI_Reduce", "root = size");
    rc = MPI_Reduce(&in, &out, 1, MPI_DATATYPE_NULL, MPI_SUM, 0,
                    MPI_COMM_WORLD);
    EXPECT(rc, MPI_ERR_TYPE, "MPI_Reduce", "MPI_DATATYPE_NULL");

    /* After the refused calls, the collectives still work. */
    in = rank + 1;
    rc = MPI_Reduce(&in, &out, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rc != MPI_SUCCESS || (rank == 0 && out != size * (size + 1) / 2)) {
        printf("FAIL: reduce after errors: rc %d sum %d (rank %d)\n", rc,
               out, rank);
        failures++;
    }
    MPI_Finalize();
    return (failures == 0) ? 0 : 1;
}
