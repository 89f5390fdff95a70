/*
 * tests/integration/pmi_liar.c: a PMI-1 launcher that lies. It starts one
 * process of PROGRAM (a gencomm program) as a job of one, with the
 * environment and the answers of a scenario, and checks that gcm_init
 * fails with a clear error, in bounded time, without a crash:
 *
 *   pmi_liar SCENARIO PROGRAM
 *
 * Scenarios: what the process reads from its environment (rank_ge_size,
 * rank_garbage, size_negative, size_zero, fd_garbage, fd_closed,
 * fd_not_socket) and what the launcher answers (long_line: a reply longer
 * than a client's line; no_newline: 9000 bytes without an end of line;
 * bad_rc: rc=0x; bad_maxes: vallen_max=12abc; empty_kvsname;
 * long_kvsname), and "good", where everything is as it should be and
 * gcm_init must succeed (so that the scenarios fail for their lie and not
 * for the liar).
 *
 * PROGRAM is run with the word "init": it must print "boot_init: ..." and
 * exit 0 when gcm_init succeeded, 3 when it failed. Exit 0 when the
 * outcome is the expected one.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define LIMIT_S 20

static const char *scenario;

static int is(const char *name)
{
    return strcmp(scenario, name) == 0;
}

static void say(int fd, const char *text)
{
    size_t len = strlen(text), done = 0;

    while (done < len) {
        ssize_t n = write(fd, text + done, len - done);
        if (n < 0) {
            if (errno == EINTR) {
                continue;
            }
            return;    /* the client left: its exit says the rest */
        }
        done += (size_t)n;
    }
}

/* The answer to one request line; a tiny key-value space for "good". */
static char kv_key[64][300], kv_val[64][1100];
static int nkv;

static void answer(int fd, const char *line)
{
    static char big[12000];
    char out[1400], key[300], val[1100];
    const char *p;
    int i;

    if (strncmp(line, "cmd=init", 8) == 0) {
        if (is("long_line")) {
            /* Fits the client's read buffer, not its line buffer. */
            memset(big, 'x', 3000);
            big[3000] = '\0';
            snprintf(out, sizeof(out), "cmd=response_to_init rc=0 pad=");
            say(fd, out);
            say(fd, big);
            say(fd, "\n");
        } else if (is("no_newline")) {
            memset(big, 'y', 9000);
            big[9000] = '\0';
            say(fd, "cmd=response_to_init rc=0 pad=");
            say(fd, big);
        } else if (is("bad_rc")) {
            say(fd, "cmd=response_to_init pmi_version=1 rc=0x\n");
        } else {
            say(fd, "cmd=response_to_init pmi_version=1 pmi_subversion=1 "
                    "rc=0\n");
        }
    } else if (strncmp(line, "cmd=get_maxes", 13) == 0) {
        say(fd, is("bad_maxes") ?
                "cmd=maxes kvsname_max=256 keylen_max=64 vallen_max=12abc\n" :
                "cmd=maxes kvsname_max=256 keylen_max=64 vallen_max=1024\n");
    } else if (strncmp(line, "cmd=get_my_kvsname", 18) == 0) {
        if (is("empty_kvsname")) {
            say(fd, "cmd=my_kvsname kvsname=\n");
        } else if (is("long_kvsname")) {
            memset(big, 'k', 600);
            big[600] = '\0';
            say(fd, "cmd=my_kvsname kvsname=");
            say(fd, big);
            say(fd, "\n");
        } else {
            say(fd, "cmd=my_kvsname kvsname=liar_kvs\n");
        }
    } else if (strncmp(line, "cmd=put", 7) == 0) {
        p = strstr(line, " key=");
        if ((p != NULL) && (sscanf(p, " key=%299s", key) == 1) &&
            ((p = strstr(line, " value=")) != NULL) &&
            (sscanf(p, " value=%1099s", val) == 1) && (nkv < 64)) {
            snprintf(kv_key[nkv], sizeof(kv_key[0]), "%s", key);
            snprintf(kv_val[nkv], sizeof(kv_val[0]), "%s", val);
            nkv++;
        }
        say(fd, "cmd=put_result rc=0 msg=success\n");
    } else if (strncmp(line, "cmd=get", 7) == 0) {
        p = strstr(line, " key=");
        if ((p != NULL) && (sscanf(p, " key=%299s", key) == 1)) {
            for (i = nkv - 1; i >= 0; i--) {
                if (strcmp(kv_key[i], key) == 0) {
                    snprintf(out, sizeof(out), "cmd=get_result rc=0 "
                             "msg=success value=%s\n", kv_val[i]);
                    say(fd, out);
                    return;
                }
            }
        }
        say(fd, "cmd=get_result rc=-1 msg=key_not_found value=unknown\n");
    } else if (strncmp(line, "cmd=barrier_in", 14) == 0) {
        say(fd, "cmd=barrier_out\n");
    } else if (strncmp(line, "cmd=finalize", 12) == 0) {
        say(fd, "cmd=finalize_ack\n");
    } else if (strncmp(line, "cmd=abort", 9) == 0) {
        /* Nothing to answer. */
    } else {
        fprintf(stderr, "pmi_liar: unexpected request: %s\n", line);
    }
}

int main(int argc, char **argv)
{
    static char rbuf[65536];
    size_t rlen = 0;
    char fdtext[16], outfile[] = "/tmp/pmi_liar.XXXXXX", text[8192];
    int sv[2], outfd, wstatus = 0, init_failed, ok;
    const char *rank = "0", *size = "1";
    time_t start = time(NULL);
    pid_t pid;
    ssize_t n;

    if (argc != 3) {
        fprintf(stderr, "usage: pmi_liar SCENARIO PROGRAM\n");
        return 2;
    }
    scenario = argv[1];
    signal(SIGPIPE, SIG_IGN);
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0) {
        perror("pmi_liar: socketpair");
        return 1;
    }
    outfd = mkstemp(outfile);
    if (outfd < 0) {
        perror("pmi_liar: mkstemp");
        return 1;
    }
    unlink(outfile);
    snprintf(fdtext, sizeof(fdtext), "%d", sv[1]);
    if (is("rank_ge_size")) {
        rank = "1";
    } else if (is("rank_garbage")) {
        rank = "zero";
    } else if (is("size_negative")) {
        size = "-4";
    } else if (is("size_zero")) {
        size = "0";
    } else if (is("fd_garbage")) {
        snprintf(fdtext, sizeof(fdtext), "%s", "7x");
    } else if (is("fd_closed")) {
        snprintf(fdtext, sizeof(fdtext), "%d", 1000);
    } else if (is("fd_not_socket")) {
        snprintf(fdtext, sizeof(fdtext), "%d", outfd);
    }
    pid = fork();
    if (pid < 0) {
        perror("pmi_liar: fork");
        return 1;
    }
    if (pid == 0) {
        close(sv[0]);
        dup2(outfd, STDOUT_FILENO);
        dup2(outfd, STDERR_FILENO);
        setenv("PMI_FD", fdtext, 1);
        setenv("PMI_RANK", rank, 1);
        setenv("PMI_SIZE", size, 1);
        unsetenv("PMIX_NAMESPACE");
        unsetenv("PMIX_RANK");
        unsetenv("GENCOMM_BOOT");
        execl(argv[2], argv[2], "init", (char *)NULL);
        perror("pmi_liar: exec");
        _exit(127);
    }
    close(sv[1]);
    for (;;) {
        struct pollfd pfd = { .fd = sv[0], .events = POLLIN };
        pid_t done = waitpid(pid, &wstatus, WNOHANG);

        if (done == pid) {
            break;
        }
        if (time(NULL) - start > LIMIT_S) {
            kill(pid, SIGKILL);
            waitpid(pid, &wstatus, 0);
            fprintf(stderr, "pmi_liar: %s: the process still ran after %d "
                    "s (it waits for what will never come)\n", scenario,
                    LIMIT_S);
            return 1;
        }
        if (poll(&pfd, 1, 100) <= 0) {
            continue;
        }
        n = read(sv[0], rbuf + rlen, sizeof(rbuf) - 1 - rlen);
        if (n <= 0) {
            /* Closed: wait for the exit only. */
            close(sv[0]);
            sv[0] = -1;
            if (waitpid(pid, &wstatus, 0) != pid) {
                return 1;
            }
            break;
        }
        rlen += (size_t)n;
        rbuf[rlen] = '\0';
        for (;;) {
            char *nl = memchr(rbuf, '\n', rlen);
            size_t len;
            if (nl == NULL) {
                break;
            }
            *nl = '\0';
            answer(sv[0], rbuf);
            len = (size_t)(nl - rbuf) + 1;
            memmove(rbuf, rbuf + len, rlen - len);
            rlen -= len;
        }
    }
    lseek(outfd, 0, SEEK_SET);
    n = read(outfd, text, sizeof(text) - 1);
    text[(n > 0) ? n : 0] = '\0';
    printf("pmi_liar: %s: the process said:\n%s", scenario, text);
    if (WIFSIGNALED(wstatus)) {
        printf("pmi_liar: %s: FAIL: killed by signal %d\n", scenario,
               WTERMSIG(wstatus));
        return 1;
    }
    init_failed = WIFEXITED(wstatus) && (WEXITSTATUS(wstatus) == 3);
    if (is("good")) {
        ok = WIFEXITED(wstatus) && (WEXITSTATUS(wstatus) == 0);
    } else {
        ok = init_failed && (strstr(text, "gcm_init") != NULL);
    }
    printf("pmi_liar: %s: %s (exit %d)\n", scenario, ok ? "ok" : "FAIL",
           WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : -1);
    return ok ? 0 : 1;
}
