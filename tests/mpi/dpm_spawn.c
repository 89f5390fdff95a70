/*
 * dpm_spawn.c: MPI_Comm_spawn and MPI_Comm_spawn_multiple (MPI-3.1
 * 10.3), the program spawning itself.
 *
 *   dpm_spawn parent C [UNIVERSE]   every parent process takes part in
 *       spawning C children (MPI_Comm_spawn, argv "child", info env and
 *       wdir); over the intercommunicator each parent sends to every child
 *       and back; then MPI_Intercomm_merge (parents first) and an
 *       MPI_Allreduce; then MPI_Comm_disconnect. Rank 0 checks
 *       MPI_UNIVERSE_SIZE (UNIVERSE if given, else at least the job).
 *       Then spawn_multiple of two commands (1 and 2 children, argv "A"
 *       and "B", info path to find the program by its bare name): each
 *       child checks MPI_APPNUM against its argv. Then a nested spawn (a
 *       child spawns a grandchild, which answers its parent). Then the
 *       errors (MPI_ERRORS_RETURN): a program that does not exist, alone
 *       and beside one that does (which must not run: it would make a
 *       file), gives MPI_ERR_SPAWN with every error code MPI_ERR_SPAWN
 *       (not tried when DPM_SPAWN_NO_MISSING says why).
 *   dpm_spawn dies           one process spawns a child that sends one
 *       message and then dies (SIGKILL): the parent's next receive from
 *       it fails with MPI_ERR_PROC_FAILED (MPI_ERRORS_RETURN), and the
 *       parent ends normally (gcrun's status then says the spawned job
 *       failed).
 *   dpm_spawn orphan         the reverse: the parent sends one message and
 *       dies; the child's next receive from it fails the same way.
 *   dpm_spawn child ...      what the children do (MPI_Comm_get_parent)
 *
 * Prints "dpm_spawn: ..." lines for the checks that passed.
 */
#include <mpi.h>

#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int me, np, failures;

#define CHECK(cond, ...)                                                  \
    do {                                                                  \
        if (!(cond)) {                                                    \
            printf("FAIL: ");                                             \
            printf(__VA_ARGS__);                                          \
            printf(" (%s rank %d, line %d)\n", role, me, __LINE__);       \
            failures++;                                                   \
        }                                                                 \
    } while (0)

static const char *role = "parent";
static char self[PATH_MAX];

static int error_class(int rc)
{
    int cls = MPI_SUCCESS;

    if (rc != MPI_SUCCESS) {
        MPI_Error_class(rc, &cls);
    }
    return cls;
}

/* Both sides of an intercommunicator between parents and children:
 * every process sends its rank (plus base) to every remote process and
 * checks what comes back, then merges (parents first) and reduces. */
static void talk(MPI_Comm inter, int parents)
{
    int lsize, rsize, q, v, got, msize, mrank, sum = 0;
    MPI_Comm merged;

    MPI_Comm_size(inter, &lsize);
    MPI_Comm_remote_size(inter, &rsize);
    for (q = 0; q < rsize; q++) {
        v = (parents ? 100 : 200) + me;
        got = -1;
        MPI_Sendrecv(&v, 1, MPI_INT, q, 3, &got, 1, MPI_INT, q, 3, inter,
                     MPI_STATUS_IGNORE);
        CHECK(got == (parents ? 200 : 100) + q, "remote rank %d sent %d",
              q, got);
    }
    MPI_Intercomm_merge(inter, parents ? 0 : 1, &merged);
    MPI_Comm_size(merged, &msize);
    MPI_Comm_rank(merged, &mrank);
    CHECK(msize == lsize + rsize, "merged size %d", msize);
    CHECK(mrank == (parents ? me : rsize + me), "merged rank %d", mrank);
    MPI_Allreduce(&mrank, &sum, 1, MPI_INT, MPI_SUM, merged);
    CHECK(sum == msize * (msize - 1) / 2, "allreduce %d", sum);
    MPI_Comm_free(&merged);
}

static int v_orphan;

/* A receive from a process that died: it must fail with
 * MPI_ERR_PROC_FAILED, within the test's timeout. */
static void dead_peer_recv(MPI_Comm comm, const char *who)
{
    double t0 = MPI_Wtime();
    int v = 0, rc;

    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    rc = MPI_Recv(&v, 1, MPI_INT, 0, 6, comm, MPI_STATUS_IGNORE);
    CHECK(error_class(rc) == MPI_ERR_PROC_FAILED, "a receive from %s that "
          "died: class %d", who, error_class(rc));
    if (error_class(rc) == MPI_ERR_PROC_FAILED) {
        printf("dpm_spawn: a receive from %s that died failed in %.2f s "
               "with MPI_ERR_PROC_FAILED\n", who, MPI_Wtime() - t0);
        fflush(stdout);
    }
}

static int child(int argc, char **argv, MPI_Comm parent)
{
    char cwd[PATH_MAX];
    const char *want;
    int *appnum = NULL, flag = 0, rsize = 0;

    role = "child";
    MPI_Comm_remote_size(parent, &rsize);
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_APPNUM, &appnum, &flag);
    if (argc > 2 && strcmp(argv[2], "plain") == 0) {
        /* MPI_Comm_spawn: env and wdir came through the info. */
        want = getenv("DPM_SPAWN_VAR");
        CHECK((want != NULL) && (strcmp(want, "x y=z") == 0),
              "DPM_SPAWN_VAR is '%s'", want ? want : "(unset)");
        CHECK((getcwd(cwd, sizeof(cwd)) != NULL) && (argc > 3) &&
              (strcmp(cwd, argv[3]) == 0), "working directory '%s'", cwd);
        talk(parent, 0);
    } else if (argc > 2 &&
               (strcmp(argv[2], "A") == 0 || strcmp(argv[2], "B") == 0)) {
        CHECK(flag && (*appnum == (argv[2][0] == 'A' ? 0 : 1)),
              "MPI_APPNUM %d for command %s", flag ? *appnum : -1, argv[2]);
        talk(parent, 0);
    } else if (argc > 2 && strcmp(argv[2], "nest") == 0) {
        /* A child that spawns a grandchild of its own. */
        MPI_Comm grand;
        int errs[1], v = 0;
        char *gargv[] = { "child", "grand", NULL };

        CHECK(MPI_Comm_spawn(self, gargv, 1, MPI_INFO_NULL, 0, MPI_COMM_WORLD,
                             &grand, errs) == MPI_SUCCESS,
              "nested spawn");
        if (me == 0) {
            MPI_Recv(&v, 1, MPI_INT, 0, 4, grand, MPI_STATUS_IGNORE);
            CHECK(v == 42, "grandchild said %d", v);
        }
        MPI_Comm_disconnect(&grand);
        MPI_Send(&v, 1, MPI_INT, 0, 5, parent);
    } else if (argc > 2 && strcmp(argv[2], "grand") == 0) {
        int v = 42;

        MPI_Send(&v, 1, MPI_INT, 0, 4, parent);
    } else if (argc > 2 && strcmp(argv[2], "die") == 0) {
        int v = 7;

        MPI_Send(&v, 1, MPI_INT, 0, 6, parent);
        fflush(stdout);
        raise(SIGKILL);
    } else if (argc > 2 && strcmp(argv[2], "orphan") == 0) {
        MPI_Recv(&v_orphan, 1, MPI_INT, 0, 6, parent, MPI_STATUS_IGNORE);
        CHECK(v_orphan == 8, "the parent sent %d", v_orphan);
        dead_peer_recv(parent, "the parent");
        MPI_Comm_free(&parent);
        MPI_Finalize();
        exit(failures == 0 ? 0 : 1);
    } else if (argc > 2 && strcmp(argv[2], "marker") == 0) {
        /* Must never run: its command was spawned beside a missing one. */
        FILE *f = fopen(argv[3], "w");

        if (f != NULL) {
            fclose(f);
        }
    }
    MPI_Comm_disconnect(&parent);
    return failures;
}

static void spawn_plain(int c)
{
    char *cargv[] = { "child", "plain", NULL, NULL };
    char cwd[PATH_MAX];
    MPI_Comm inter;
    MPI_Info info;
    int *errs = calloc((size_t)c, sizeof(int)), i, rsize = 0;

    /* The children run in /tmp, whatever the parents' directory. */
    cargv[2] = "/tmp";
    MPI_Info_create(&info);
    MPI_Info_set(info, "env", "DPM_SPAWN_VAR=x y=z\nDPM_OTHER=1");
    MPI_Info_set(info, "wdir", "/tmp");
    CHECK(MPI_Comm_spawn(self, cargv, c, info, 0, MPI_COMM_WORLD, &inter,
                         errs) == MPI_SUCCESS, "spawn");
    MPI_Info_free(&info);
    for (i = 0; i < c; i++) {
        CHECK(errs[i] == MPI_SUCCESS, "error code %d of child %d", errs[i],
              i);
    }
    MPI_Comm_remote_size(inter, &rsize);
    CHECK(rsize == c, "%d children, expected %d", rsize, c);
    talk(inter, 1);
    MPI_Comm_disconnect(&inter);
    (void)cwd;
    free(errs);
    if ((failures == 0) && (me == 0)) {
        printf("dpm_spawn: %d parents spawned %d children and talked to "
               "them\n", np, c);
    }
}

static void spawn_two(void)
{
    char *argva[] = { "A", NULL }, *argvb[] = { "B", NULL };
    char *cmds[2];
    char **argvs[2];
    int maxprocs[2] = { 1, 2 };
    int errs[3];
    MPI_Info infos[2];
    MPI_Comm inter;
    char dir[PATH_MAX];
    int rsize = 0;

    /* The program by its bare name, found through the info key path. */
    snprintf(dir, sizeof(dir), "%s", self);
    cmds[0] = self;
    cmds[1] = basename(self);
    argvs[0] = argva;
    argvs[1] = argvb;
    /* argv[1] of the children is "child": prepend it. */
    {
        static char *a2[] = { "child", "A", NULL }, *b2[] = { "child", "B",
                                                             NULL };
        argvs[0] = a2;
        argvs[1] = b2;
    }
    infos[0] = MPI_INFO_NULL;
    MPI_Info_create(&infos[1]);
    MPI_Info_set(infos[1], "path", dirname(dir));
    CHECK(MPI_Comm_spawn_multiple(2, cmds, argvs, maxprocs, infos, 0,
                                  MPI_COMM_WORLD, &inter, errs) ==
          MPI_SUCCESS, "spawn_multiple");
    MPI_Info_free(&infos[1]);
    MPI_Comm_remote_size(inter, &rsize);
    CHECK(rsize == 3, "%d children of spawn_multiple", rsize);
    talk(inter, 1);
    MPI_Comm_disconnect(&inter);
    if ((failures == 0) && (me == 0)) {
        printf("dpm_spawn: spawn_multiple of two commands, appnum 0 and 1\n");
    }
}

static void spawn_nested(void)
{
    char *cargv[] = { "child", "nest", NULL };
    MPI_Comm inter;
    int v = -1;

    CHECK(MPI_Comm_spawn(self, cargv, 1, MPI_INFO_NULL, 0, MPI_COMM_WORLD,
                         &inter, MPI_ERRCODES_IGNORE) == MPI_SUCCESS,
          "spawn of a spawning child");
    if (me == 0) {
        MPI_Recv(&v, 1, MPI_INT, 0, 5, inter, MPI_STATUS_IGNORE);
        CHECK(v == 42, "the child's grandchild said %d", v);
    }
    MPI_Comm_disconnect(&inter);
    if ((failures == 0) && (me == 0)) {
        printf("dpm_spawn: a child spawned a grandchild\n");
    }
}

static void spawn_missing(void)
{
    char marker[64];
    char *cmds[2] = { "/nonexistent/dpm_spawn_missing", self };
    char *margv[] = { "child", "marker", marker, NULL };
    char **argvs[2] = { MPI_ARGV_NULL, margv };
    int maxprocs[2] = { 2, 1 };
    MPI_Info infos[2] = { MPI_INFO_NULL, MPI_INFO_NULL };
    int errs[3] = { -7, -7, -7 }, i, rc;
    MPI_Comm inter = MPI_COMM_NULL;

    snprintf(marker, sizeof(marker), "/tmp/dpm_spawn_marker.%ld",
             (long)getppid());
    unlink(marker);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    rc = MPI_Comm_spawn(cmds[0], MPI_ARGV_NULL, 2, MPI_INFO_NULL, 0,
                        MPI_COMM_WORLD, &inter, errs);
    CHECK(error_class(rc) == MPI_ERR_SPAWN, "missing program: class %d",
          error_class(rc));
    CHECK((errs[0] == MPI_ERR_SPAWN) && (errs[1] == MPI_ERR_SPAWN),
          "error codes %d %d", errs[0], errs[1]);
    CHECK(inter == MPI_COMM_NULL, "an intercommunicator came back");
    rc = MPI_Comm_spawn_multiple(2, cmds, argvs, maxprocs, infos, 0,
                                 MPI_COMM_WORLD, &inter, errs);
    CHECK(error_class(rc) == MPI_ERR_SPAWN, "missing beside present: "
          "class %d", error_class(rc));
    for (i = 0; i < 3; i++) {
        CHECK(errs[i] == MPI_ERR_SPAWN, "error code %d: %d", i, errs[i]);
    }
    usleep(300000);
    CHECK(access(marker, F_OK) != 0, "the present program ran");
    unlink(marker);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    if ((failures == 0) && (me == 0)) {
        char text[MPI_MAX_ERROR_STRING];
        int len = 0;

        MPI_Error_string(rc, text, &len);
        printf("dpm_spawn: a missing program refused, nothing started: "
               "%s\n", text);
    }
}

int main(int argc, char **argv)
{
    MPI_Comm parent;
    int *usize = NULL, flag = 0, c;

    if (realpath(argv[0], self) == NULL) {
        snprintf(self, sizeof(self), "%s", argv[0]);
    }
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    MPI_Comm_get_parent(&parent);
    if (parent != MPI_COMM_NULL) {
        c = child(argc, argv, parent);
        CHECK(MPI_Comm_get_parent(&parent) == MPI_SUCCESS &&
              parent == MPI_COMM_NULL, "parent after disconnect");
        MPI_Finalize();
        return (c == 0 && failures == 0) ? 0 : 1;
    }
    if ((argc == 2) && (strcmp(argv[1], "dies") == 0 ||
                        strcmp(argv[1], "orphan") == 0)) {
        int orphan = (argv[1][0] == 'o'), v = 8;
        char *cargv[] = { "child", orphan ? "orphan" : "die", NULL };
        MPI_Comm inter;

        CHECK(MPI_Comm_spawn(self, cargv, 1, MPI_INFO_NULL, 0, MPI_COMM_SELF,
                             &inter, MPI_ERRCODES_IGNORE) == MPI_SUCCESS,
              "spawn");
        if (orphan) {
            MPI_Send(&v, 1, MPI_INT, 0, 6, inter);
            fflush(stdout);
            raise(SIGKILL);
        }
        MPI_Recv(&v, 1, MPI_INT, 0, 6, inter, MPI_STATUS_IGNORE);
        CHECK(v == 7, "the child sent %d", v);
        dead_peer_recv(inter, "a child");
        MPI_Comm_free(&inter);
        MPI_Finalize();
        return (failures == 0) ? 0 : 1;
    }
    if ((argc < 3) || (strcmp(argv[1], "parent") != 0)) {
        printf("usage: dpm_spawn parent CHILDREN [UNIVERSE]\n");
        MPI_Finalize();
        return 1;
    }
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_UNIVERSE_SIZE, &usize, &flag);
    CHECK(flag && (*usize >= np) &&
          ((argc < 4) || (*usize == atoi(argv[3]))),
          "MPI_UNIVERSE_SIZE %d", flag ? *usize : -1);
    spawn_plain(atoi(argv[2]));
    spawn_two();
    spawn_nested();
    if (getenv("DPM_SPAWN_NO_MISSING") == NULL) {
        spawn_missing();
    } else if (me == 0) {
        printf("dpm_spawn: a missing program not tried (%s)\n",
               getenv("DPM_SPAWN_NO_MISSING"));
    }
    MPI_Finalize();
    if (failures == 0) {
        printf("dpm_spawn: rank %d ok\n", me);
    }
    return (failures == 0) ? 0 : 1;
}
