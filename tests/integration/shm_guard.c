/*
 * tests/integration/shm_guard.c: the victim of tests/integration/
 * shm_intruder.c (test_shm_guard.sh runs both). Two processes of one
 * host:
 *
 *   1. proc 1 sends "first" to proc 0 (through shared memory: its ring
 *      in proc 0's segment now holds a real envelope to copy);
 *   2. proc 0 writes its pid to DIR/ready and waits for a message with
 *      the same tag from any slot, while a process outside the job forges
 *      one from proc 1 (a ring of its own, a claim in proc 1's name,
 *      wakeup datagrams, a rewritten segment header);
 *   3. proc 1 waits for DIR/done (the intruder finished), then sends
 *      "second";
 *   4. proc 0 must receive "second" from slot 1, and nothing else.
 *
 * Prints "shm_guard: OK" from proc 0 when all held. With "park" after DIR
 * (the intruder writes messages that never come due into proc 1's own
 * ring), proc 0's receive from proc 1 must fail instead, and proc 1
 * sends nothing more until proc 0 has decided (DIR/over): the intruder
 * writes where proc 1 would, and a message of proc 1's finalize in the
 * lane beside the intruder's could overwrite a line not yet read, which
 * would stall the ring before the bound is reached.
 */
#include <gencomm.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define TAG 7

static void check(gcm_status_t status, const char *what)
{
    if (status != GCM_OK) {
        fprintf(stderr, "shm_guard: %s: %s (%s)\n", what,
                gcm_status_string(status), gcm_last_error());
        exit(1);
    }
}

static void wait_for_file(const char *path, double limit)
{
    struct timespec ts = { 0, 10 * 1000 * 1000 };
    struct stat st;
    double waited = 0;

    while (stat(path, &st) != 0) {
        if (waited > limit) {
            fprintf(stderr, "shm_guard: %s never came\n", path);
            exit(1);
        }
        nanosleep(&ts, NULL);
        waited += 0.01;
    }
}

/* Says proc 0 decided (the file DIR/over). */
static void say_over(const char *dir)
{
    char path[4096];
    FILE *f;

    snprintf(path, sizeof(path), "%s/over", dir);
    f = fopen(path, "w");
    if (f != NULL) {
        fclose(f);
    }
}

/* Proc 0 under the "park" attack: a receive from proc 1 must fail. It
 * has until 20 s after the intruder is done (the script's "done" file;
 * under load the intruder itself may take long), 100 s at most. */
static int expect_failure(gcm_lco_h world, const char *dir)
{
    struct timespec ts = { 0, 1000 * 1000 };
    gcm_request_h req;
    gcm_msg_status_t st;
    gcm_status_t status = GCM_OK;
    char buf[64], path[4096];
    struct stat sb;
    int i, flag = 0, after = -1;

    snprintf(path, sizeof(path), "%s/done", dir);
    check(gcm_irecv(world, buf, sizeof(buf), 1, TAG, &req), "irecv");
    for (i = 0; (i < 100000) && (after < 20000) && !flag; i++) {
        status = gcm_test(&req, &flag, &st);
        if (flag) {
            break;
        }
        nanosleep(&ts, NULL);
        if (after >= 0) {
            after++;
        } else if (stat(path, &sb) == 0) {
            after = 0;
        }
    }
    wait_for_file(path, 60.0);
    say_over(dir);
    if (!flag) {
        fprintf(stderr, "shm_guard: messages that never come due: no "
                "error in %d polls, %d after the intruder was done\n", i,
                after);
        return 1;
    }
    if ((status == GCM_OK) && (st.error == GCM_OK)) {
        fprintf(stderr, "shm_guard: received '%.*s' from proc 1\n",
                (int)st.count, buf);
        return 1;
    }
    printf("shm_guard: OK (the receive failed: %s)\n",
           gcm_status_string((status != GCM_OK) ? status : st.error));
    (void)gcm_finalize();
    return 0;
}

int main(int argc, char **argv)
{
    char path[4096], tmp[4096], buf[64];
    gcm_msg_status_t st;
    gcm_lco_h world;
    int rank, flag, park;
    FILE *f;

    if ((argc != 2) && ((argc != 3) || (strcmp(argv[2], "park") != 0))) {
        fprintf(stderr, "usage: shm_guard DIR [park]\n");
        return 2;
    }
    park = (argc == 3);
    check(gcm_init(&argc, &argv), "gcm_init");
    world = gcm_world();
    rank  = gcm_proc_rank();
    if (gcm_proc_count() != 2) {
        fprintf(stderr, "shm_guard: run with 2 processes\n");
        return 2;
    }
    if (rank == 1) {
        check(gcm_send(world, "first", 6, 0, TAG), "send first");
        snprintf(path, sizeof(path), "%s/done", argv[1]);
        wait_for_file(path, 60.0);
        if (park) {
            /* Proc 0 failed our connection; its end is not ours to see.
             * Nothing of ours goes into the ring before it decided. */
            snprintf(path, sizeof(path), "%s/over", argv[1]);
            wait_for_file(path, 140.0);
            (void)gcm_finalize();
            return 0;
        }
        check(gcm_send(world, "second", 7, 0, TAG), "send second");
    } else {
        memset(buf, 0, sizeof(buf));
        check(gcm_recv(world, buf, sizeof(buf), 1, TAG, &st), "recv first");
        if (strcmp(buf, "first") != 0) {
            fprintf(stderr, "shm_guard: first message is '%s'\n", buf);
            return 1;
        }
        snprintf(path, sizeof(path), "%s/ready.tmp", argv[1]);
        f = fopen(path, "w");
        if (f == NULL) {
            perror("shm_guard: ready file");
            return 1;
        }
        fprintf(f, "%d\n", (int)getpid());
        fclose(f);
        snprintf(tmp, sizeof(tmp), "%s", path);
        snprintf(path, sizeof(path), "%s/ready", argv[1]);
        if (rename(tmp, path) != 0) {
            perror("shm_guard: rename");
            return 1;
        }
        if (park) {
            return expect_failure(world, argv[1]);
        }
        /* Whatever comes first on this tag must be proc 1's second. */
        memset(buf, 0, sizeof(buf));
        check(gcm_recv(world, buf, sizeof(buf), GCM_ANY_SLOT, TAG, &st),
              "recv second");
        if ((st.slot != 1) || (strcmp(buf, "second") != 0)) {
            fprintf(stderr, "shm_guard: got '%s' from slot %d instead of "
                    "proc 1's second message\n", buf, st.slot);
            return 1;
        }
        check(gcm_iprobe(world, GCM_ANY_SLOT, GCM_ANY_TAG, &flag, &st),
              "iprobe");
        if (flag) {
            fprintf(stderr, "shm_guard: a message more (slot %d tag %d)\n",
                    st.slot, st.tag);
            return 1;
        }
        printf("shm_guard: OK\n");
    }
    check(gcm_finalize(), "gcm_finalize");
    return 0;
}
