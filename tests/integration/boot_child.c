/*
 * tests/integration/boot_child.c: what a launcher's values and a rank's
 * children see.
 *
 *   boot_child init     gcm_init, then finalize: prints "boot_init: ok"
 *                       and exits 0, or "boot_init: <error>" and exits 3
 *                       (pmi_liar runs it with lies; a rank's child runs
 *                       it with what it inherited)
 *   boot_child fds      lists the descriptors it inherited beyond 0-2
 *                       ("boot_child: inherited fd N: LINK"); exits 1 if
 *                       any, else 0
 *   boot_child job      under gcrun, 2 processes: rank 0 exchanges a
 *                       message with rank 1, then starts "boot_child fds"
 *                       with system() and with fork and exec, and "boot_child
 *                       init" with system(); the children must have
 *                       inherited none of the library's descriptors, and
 *                       the child's gcm_init must fail without disturbing
 *                       the job, which then exchanges a message again.
 *                       Prints "boot_child: OK" from rank 0.
 */
#define _GNU_SOURCE
#include <gencomm.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static int child_fds(void)
{
    DIR *d = opendir("/proc/self/fd");
    struct dirent *e;
    int bad = 0;

    if (d == NULL) {
        perror("boot_child: /proc/self/fd");
        return 2;
    }
    while ((e = readdir(d)) != NULL) {
        char path[300], link[256];
        ssize_t n;
        int fd;

        if (e->d_name[0] == '.') {
            continue;
        }
        fd = atoi(e->d_name);
        if ((fd <= 2) || (fd == dirfd(d))) {
            continue;
        }
        snprintf(path, sizeof(path), "/proc/self/fd/%s", e->d_name);
        n = readlink(path, link, sizeof(link) - 1);
        link[(n > 0) ? n : 0] = '\0';
        printf("boot_child: inherited fd %d: %s\n", fd, link);
        bad = 1;
    }
    closedir(d);
    return bad;
}

static int child_init(int argc, char **argv)
{
    if (gcm_init(&argc, &argv) != GCM_OK) {
        printf("boot_init: %s\n", gcm_last_error());
        return 3;
    }
    printf("boot_init: ok\n");
    fflush(stdout);
    return (gcm_finalize() == GCM_OK) ? 0 : 1;
}

static void exchange(gcm_lco_h world, int rank)
{
    int v = rank;

    if ((gcm_send(world, &v, sizeof(v), 1 - rank, 5) != GCM_OK) ||
        (gcm_recv(world, &v, sizeof(v), 1 - rank, 5, NULL) != GCM_OK) ||
        (v != 1 - rank)) {
        fprintf(stderr, "boot_child: exchange failed: %s\n",
                gcm_last_error());
        exit(1);
    }
}

/* Runs "self word" through the shell; its exit status. */
static int run_system(const char *self, const char *word)
{
    char cmd[4200];
    int st;

    snprintf(cmd, sizeof(cmd), "'%s' %s", self, word);
    st = system(cmd);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

static int run_fork_exec(const char *self)
{
    int st;
    pid_t pid = fork();

    if (pid == 0) {
        execl(self, self, "fds", (char *)NULL);
        _exit(127);
    }
    if ((pid < 0) || (waitpid(pid, &st, 0) != pid)) {
        return 128;
    }
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

static int job(int argc, char **argv)
{
    gcm_lco_h world;
    int rank, failures = 0, rc;

    if (gcm_init(&argc, &argv) != GCM_OK) {
        fprintf(stderr, "boot_child: gcm_init: %s\n", gcm_last_error());
        return 1;
    }
    world = gcm_world();
    rank  = gcm_proc_rank();
    if (gcm_proc_count() != 2) {
        fprintf(stderr, "boot_child: run with 2 processes\n");
        return 2;
    }
    exchange(world, rank);
    if (rank == 0) {
        char self[4096];
        ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

        if (n <= 0) {
            perror("boot_child: /proc/self/exe");
            return 1;
        }
        self[n] = '\0';
        fflush(stdout);
        if ((rc = run_system(self, "fds")) != 0) {
            printf("boot_child: FAIL: a child started with system() "
                   "inherited descriptors (exit %d)\n", rc);
            failures++;
        }
        if ((rc = run_fork_exec(self)) != 0) {
            printf("boot_child: FAIL: a child started with fork and exec "
                   "inherited descriptors (exit %d)\n", rc);
            failures++;
        }
        if ((rc = run_system(self, "init")) != 3) {
            printf("boot_child: FAIL: a child's gcm_init did not fail "
                   "(exit %d)\n", rc);
            failures++;
        }
    }
    exchange(world, rank);
    if (gcm_finalize() != GCM_OK) {
        fprintf(stderr, "boot_child: gcm_finalize: %s\n", gcm_last_error());
        return 1;
    }
    if ((rank == 0) && (failures == 0)) {
        printf("boot_child: OK\n");
    }
    return (failures == 0) ? 0 : 1;
}

int main(int argc, char **argv)
{
    if ((argc == 2) && (strcmp(argv[1], "fds") == 0)) {
        return child_fds();
    }
    if ((argc == 2) && (strcmp(argv[1], "init") == 0)) {
        return child_init(argc, argv);
    }
    if ((argc == 2) && (strcmp(argv[1], "job") == 0)) {
        return job(argc, argv);
    }
    fprintf(stderr, "usage: boot_child init|fds|job\n");
    return 2;
}
