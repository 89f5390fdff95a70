/*
 * jobs_names: names across separately launched jobs (native API).
 *
 *   jobs_names serve FILE N    every process writes the name of an LCO of
 *                              its own to FILE.<rank> and answers N
 *                              requests on it (value + 1, sent to the
 *                              name in the request), then waits for N
 *                              goodbyes and ends
 *   jobs_names ask FILE N      every process reads the name in FILE.<r>
 *                              (r: its rank modulo N), sends one request
 *                              (a value and the name of its own reply
 *                              LCO) and checks the answer; then sends on
 *                              a copy of the name with one byte of its
 *                              token changed, which must be refused
 *                              (GCM_ERR_BAD_TOKEN) and never answered;
 *                              then on a copy made a pattern LCO's name
 *                              (derived id) with a token nobody holds:
 *                              kept by the receiver for a pattern not made
 *                              yet, it must be refused
 *                              (GCM_ERR_NO_SUCH_LCO) once the receiver's
 *                              GENCOMM_CONNECT_TIMEOUT has passed
 *   jobs_names stale FILE      reads FILE.0 of a job that has ended: the
 *                              send must fail with GCM_ERR_PEER_FAILED
 *                              within seconds, never hang
 *   jobs_names impostor FILE HOW  the same, but the name's contact leads
 *                              to another program (a child of this one,
 *                              listening on the contact's address at a
 *                              port of its own, written into the name),
 *                              which, HOW:
 *                              "close": closes each connection at once;
 *                              "silent": never answers; "garbage":
 *                              answers bytes that are no reply. The send
 *                              fails with GCM_ERR_PEER_FAILED within
 *                              seconds (the connection's error, which
 *                              says what the contact did, is in the debug
 *                              log: test_jobs.sh reads it)
 *
 * Prints one "jobs_names: ..." line per check that passed; exits 1 on a
 * failure.
 */
#include <gencomm.h>

#include "gcm_test.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define T_REQ 1
#define T_REP 2
#define T_BYE 3
#define TOKEN_OFFSET 20   /* lco/lco_name.c */
#define ID_OFFSET    12
#define PORT_OFFSET  10
#define IP4_OFFSET   28

typedef struct {
    int        value;
    gcm_name_t reply;
} request_t;

static double now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void write_name(const char *file, int rank, const gcm_name_t *name)
{
    char path[4096], tmp[4200];
    FILE *f;

    snprintf(path, sizeof(path), "%s.%d", file, rank);
    snprintf(tmp, sizeof(tmp), "%s.tmp", path);
    f = fopen(tmp, "wb");
    if ((f == NULL) || (fwrite(name, sizeof(*name), 1, f) != 1) ||
        (fclose(f) != 0) || (rename(tmp, path) != 0)) {
        fprintf(stderr, "jobs_names: cannot write %s\n", path);
        exit(1);
    }
}

/* Waits up to 30 s for the file to appear. */
static int read_name(const char *file, int rank, gcm_name_t *name)
{
    char path[4096];
    double end = now() + 30.0;

    snprintf(path, sizeof(path), "%s.%d", file, rank);
    while (now() < end) {
        FILE *f = fopen(path, "rb");
        if (f != NULL) {
            size_t n = fread(name, sizeof(*name), 1, f);
            fclose(f);
            if (n == 1) {
                return 0;
            }
        }
        usleep(20000);
    }
    gcm_test_fail("no name in %s", path);
    return -1;
}

static gcm_status_t send_to(const gcm_name_t *name, const void *buf,
                            size_t len, int tag)
{
    gcm_lco_h tx = NULL;
    int rslot = 0;
    gcm_status_t status;

    status = gcm_lco_create(&tx);
    if (status == GCM_OK) {
        status = gcm_lco_add_send_slots(tx, 1, name, &rslot);
    }
    if (status == GCM_OK) {
        status = gcm_send(tx, buf, len, 0, tag);
    }
    if (tx != NULL) {
        gcm_lco_free(&tx);
    }
    return status;
}

static void serve(const char *file, int n)
{
    gcm_lco_h rx;
    gcm_name_t name;
    request_t req;
    int i, answer;

    gcm_test_ok(gcm_lco_create(&rx), "create");
    gcm_test_ok(gcm_lco_add_recv_slots(rx, 1), "add recv slots");
    gcm_test_ok(gcm_lco_name(rx, &name), "name");
    write_name(file, gcm_proc_rank(), &name);
    for (i = 0; i < n; i++) {
        CHECK(gcm_recv(rx, &req, sizeof(req), 0, T_REQ, NULL) == GCM_OK,
              "receive request %d", i);
        answer = req.value + 1;
        CHECK(send_to(&req.reply, &answer, sizeof(answer), T_REP) == GCM_OK,
              "answer request %d", i);
    }
    for (i = 0; i < n; i++) {
        CHECK(gcm_recv(rx, &req, sizeof(req), 0, T_BYE, NULL) == GCM_OK,
              "receive goodbye %d", i);
    }
    if (gcm_test_failed() == 0) {
        printf("jobs_names: P%d served %d requests from another job\n",
               gcm_proc_rank(), n);
    }
    gcm_lco_free(&rx);
}

static void ask(const char *file, int n)
{
    gcm_lco_h rx;
    gcm_name_t name, forged, parked;
    request_t req;
    gcm_status_t status;
    int answer = 0, flag = 1;
    double t0;

    if (read_name(file, gcm_proc_rank() % n, &name) != 0) {
        return;
    }
    gcm_test_ok(gcm_lco_create(&rx), "create");
    gcm_test_ok(gcm_lco_add_recv_slots(rx, 1), "add recv slots");
    memset(&req, 0, sizeof(req));
    req.value = 1000 + gcm_proc_rank();
    gcm_test_ok(gcm_lco_name(rx, &req.reply), "name");
    t0 = now();
    status = send_to(&name, &req, sizeof(req), T_REQ);
    CHECK(status == GCM_OK, "request to the other job: %s",
          gcm_status_string(status));
    CHECK(gcm_recv(rx, &answer, sizeof(answer), 0, T_REP, NULL) == GCM_OK,
          "receive the answer");
    CHECK(answer == req.value + 1, "answer %d, expected %d", answer,
          req.value + 1);
    if (gcm_test_failed() == 0) {
        printf("jobs_names: P%d asked another job and got its answer "
               "(%.1f ms)\n", gcm_proc_rank(), (now() - t0) * 1e3);
    }

    forged = name;
    forged.bytes[TOKEN_OFFSET + 3] ^= 0x40;
    status = send_to(&forged, &req, sizeof(req), T_REQ);
    CHECK(status == GCM_ERR_BAD_TOKEN, "forged token: %s, expected a "
          "refusal", gcm_status_string(status));
    usleep(100000);
    gcm_iprobe(rx, 0, GCM_ANY_TAG, &flag, NULL);
    CHECK(flag == 0, "the forged request was answered");
    if (status == GCM_ERR_BAD_TOKEN) {
        printf("jobs_names: P%d forged name refused: %s\n", gcm_proc_rank(),
               gcm_last_error());
    }
    /* The high bit of the id makes it a pattern's (derived) id. */
    parked = name;
    parked.bytes[ID_OFFSET + 3] |= 0x80;
    parked.bytes[TOKEN_OFFSET] ^= 0x5a;
    t0 = now();
    status = send_to(&parked, &req, sizeof(req), T_REQ);
    CHECK(status == GCM_ERR_NO_SUCH_LCO, "a pattern nobody made: %s, "
          "expected a refusal", gcm_status_string(status));
    if (status == GCM_ERR_NO_SUCH_LCO) {
        printf("jobs_names: P%d message to a pattern never made refused "
               "after %.1f s: %s\n", gcm_proc_rank(), now() - t0,
               gcm_last_error());
    }
    gcm_test_ok(send_to(&name, &req, sizeof(req), T_BYE), "goodbye");
    gcm_lco_free(&rx);
}

static void stale(const char *file)
{
    gcm_name_t name;
    gcm_status_t status;
    int v = 7;
    double t0;

    if (read_name(file, 0, &name) != 0) {
        return;
    }
    t0 = now();
    status = send_to(&name, &v, sizeof(v), T_REQ);
    CHECK(status == GCM_ERR_PEER_FAILED, "send to a job that ended: %s, "
          "expected GCM_ERR_PEER_FAILED", gcm_status_string(status));
    CHECK(now() - t0 < 10.0, "the refusal took %.1f s", now() - t0);
    if (status == GCM_ERR_PEER_FAILED) {
        printf("jobs_names: P%d stale name refused in %.1f ms: %s\n",
               gcm_proc_rank(), (now() - t0) * 1e3, gcm_last_error());
    }
}

/* Listens on the contact's address in the name in FILE.0, at a port of
 * its own (in *port_p, so that the name can be made to lead there: the
 * ended process's port may still be held by its closed connections), and
 * serves each connection as how says, until killed: the listener's pid,
 * or -1. */
static pid_t impostor_start(const char *file, const char *how,
                            uint16_t *port_p)
{
    const unsigned char *b;
    struct sockaddr_in sa;
    socklen_t salen = sizeof(sa);
    gcm_name_t name;
    int lfd;
    pid_t pid;

    if (read_name(file, 0, &name) != 0) {
        return -1;
    }
    b = (const unsigned char *)&name;
    memset(&sa, 0, sizeof(sa));
    sa.sin_family = AF_INET;
    sa.sin_addr.s_addr = htonl((uint32_t)b[IP4_OFFSET] |
                               ((uint32_t)b[IP4_OFFSET + 1] << 8) |
                               ((uint32_t)b[IP4_OFFSET + 2] << 16) |
                               ((uint32_t)b[IP4_OFFSET + 3] << 24));
    lfd = socket(AF_INET, SOCK_STREAM, 0);
    if ((lfd < 0) || (bind(lfd, (struct sockaddr *)&sa, sizeof(sa)) != 0) ||
        (listen(lfd, 8) != 0) ||
        (getsockname(lfd, (struct sockaddr *)&sa, &salen) != 0)) {
        perror("jobs_names: impostor: listening on the contact address");
        return -1;
    }
    *port_p = ntohs(sa.sin_port);
    pid = fork();
    if (pid != 0) {
        close(lfd);
        return pid;
    }
    for (;;) {
        static const char junk[64] = "HTTP/1.0 400 Bad Request\r\n\r\n";
        int fd = accept(lfd, NULL, NULL);

        if (fd < 0) {
            continue;
        }
        if (strcmp(how, "garbage") == 0) {
            (void)!write(fd, junk, sizeof(junk));
        } else if (strcmp(how, "silent") == 0) {
            /* Held open, never answered. */
            continue;
        }
        close(fd);
    }
}

static void impostor(const char *file, const char *how, pid_t listener,
                     uint16_t port)
{
    gcm_name_t name;
    gcm_status_t status;
    int v = 7;
    double t0;

    if ((listener < 0) || (read_name(file, 0, &name) != 0)) {
        gcm_test_fail("impostor: no listener or no name");
        return;
    }
    ((unsigned char *)&name)[PORT_OFFSET]     = (unsigned char)port;
    ((unsigned char *)&name)[PORT_OFFSET + 1] = (unsigned char)(port >> 8);
    t0 = now();
    status = send_to(&name, &v, sizeof(v), T_REQ);
    CHECK(status == GCM_ERR_PEER_FAILED, "send to a contact that is not "
          "one (%s): %s, expected GCM_ERR_PEER_FAILED", how,
          gcm_status_string(status));
    CHECK(now() - t0 < 10.0, "the refusal took %.1f s", now() - t0);
    if (gcm_test_failed() == 0) {
        printf("jobs_names: P%d %s contact refused in %.1f ms: %s\n",
               gcm_proc_rank(), how, (now() - t0) * 1e3, gcm_last_error());
    }
}

int main(int argc, char **argv)
{
    pid_t listener = -1;
    uint16_t port = 0;

    if (argc < 3) {
        fprintf(stderr, "usage: jobs_names serve|ask|stale FILE [N] | "
                        "impostor FILE close|silent|garbage\n");
        return 2;
    }
    /* The impostor listens from a child forked before the library
     * starts its threads. */
    if ((argc > 3) && (strcmp(argv[1], "impostor") == 0)) {
        listener = impostor_start(argv[2], argv[3], &port);
    }
    if (!gcm_test_init(&argc, &argv, "jobs_names")) {
        if (listener > 0) {
            kill(listener, SIGKILL);
        }
        return 2;
    }
    if (strcmp(argv[1], "serve") == 0) {
        serve(argv[2], (argc > 3) ? atoi(argv[3]) : 1);
    } else if (strcmp(argv[1], "ask") == 0) {
        ask(argv[2], (argc > 3) ? atoi(argv[3]) : 1);
    } else if (strcmp(argv[1], "impostor") == 0) {
        impostor(argv[2], (argc > 3) ? argv[3] : "", listener, port);
    } else {
        stale(argv[2]);
    }
    if (listener > 0) {
        kill(listener, SIGKILL);
        waitpid(listener, NULL, 0);
    }
    return gcm_test_finish();
}
