/*
 * tests/external/ext_catalogue.c: one broken definitions file (named by
 * GENCOMM_EXTERNAL) as a program meets it: every call that asks for a
 * broken definition fails with the file:line message on the processes
 * that should report it, the others go on, and nothing waits for ever.
 *
 * Usage: ext_catalogue SPEC...   each SPEC one of
 *   fail:NAME:WHO:TEXT  MPIX_Comm_external(NAME) fails on WHO, its
 *                       message (MPI_Error_string) holding TEXT; the
 *                       other processes get MPI_SUCCESS and flag 0
 *   ok:NAME:WHO         MPIX_Comm_external(NAME) succeeds everywhere,
 *                       flag 1 exactly on WHO
 *   keyfail:KEY:TEXT    MPIX_Keyval_external(KEY) fails everywhere with
 *                       TEXT
 * WHO is "all" or a cluster name (the processes whose processor name is
 * CLUSTER:...). MPI_COMM_WORLD's handler is MPI_ERRORS_RETURN.
 */
#include <mpi.h>

#include "../mpi/mpitest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char myname[MPI_MAX_PROCESSOR_NAME];

static int is_who(const char *who)
{
    size_t n = strlen(who);

    return strcmp(who, "all") == 0 ||
           (strncmp(myname, who, n) == 0 && myname[n] == ':');
}

/* Splits "a:b:rest" into up to count fields at the first count-1
 * colons (the last field keeps its own colons). */
static int split(char *s, char *field[], int count)
{
    int n = 0;

    while (n < count - 1) {
        char *colon = strchr(s, ':');

        if (colon == NULL) {
            break;
        }
        *colon = '\0';
        field[n++] = s;
        s = colon + 1;
    }
    field[n++] = s;
    return n;
}

static void check_message(int rc, const char *what, const char *text)
{
    char msg[MPI_MAX_ERROR_STRING];
    int len;

    CHECK(rc != MPI_SUCCESS, "%s succeeded; expected \"%s\"", what, text);
    if (rc == MPI_SUCCESS) {
        return;
    }
    MPI_Error_string(rc, msg, &len);
    CHECK(strstr(msg, text) != NULL, "%s: \"%s\" lacks \"%s\"", what, msg,
          text);
}

int main(int argc, char **argv)
{
    char *field[4];
    MPI_Comm c;
    int i, n, rc, flag, kv, len;

    mpitest_init(&argc, &argv, "ext_catalogue", 1);
    MPI_Get_processor_name(myname, &len);
    for (i = 1; i < argc; i++) {
        char *spec = strdup(argv[i]);

        n = split(spec, field, (strncmp(spec, "fail:", 5) == 0) ? 4 : 3);
        flag = -1;
        c    = MPI_COMM_NULL;
        if (strcmp(field[0], "fail") == 0 && n == 4) {
            rc = MPIX_Comm_external(&c, field[1], &flag);
            if (is_who(field[2])) {
                check_message(rc, field[1], field[3]);
            } else {
                CHECK(rc == MPI_SUCCESS && flag == 0 && c == MPI_COMM_NULL,
                      "%s outside %s: rc %d flag %d", field[1], field[2],
                      rc, flag);
            }
        } else if (strcmp(field[0], "ok") == 0 && n >= 3) {
            rc = MPIX_Comm_external(&c, field[1], &flag);
            CHECK(rc == MPI_SUCCESS && flag == is_who(field[2]),
                  "%s: rc %d flag %d", field[1], rc, flag);
        } else if (strcmp(field[0], "keyfail") == 0 && n >= 3) {
            rc = MPIX_Keyval_external(&kv, field[1], &flag);
            check_message(rc, field[1], field[2]);
        } else {
            mpitest_fail(__LINE__, "bad spec %s", argv[i]);
        }
        if (c != MPI_COMM_NULL && c != MPI_COMM_WORLD) {
            MPI_Comm_free(&c);
        }
        free(spec);
    }
    /* Nobody was left behind: the world still works. */
    rc = MPI_Barrier(MPI_COMM_WORLD);
    CHECK(rc == MPI_SUCCESS, "the closing barrier failed");
    return mpitest_finish();
}
