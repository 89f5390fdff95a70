/*
 * gcrun_probe - test client for gcrun.
 *
 * Speaks PMI-1 directly on the socket in PMI_FD (no gencomm library), so
 * that gcrun can be tested on its own. Without options it runs the PMI
 * exchange below and prints "rank R of N ok". Options add failure modes
 * and checks of what gcrun sets up for its children:
 *
 *   --echo-stdin        (no PMI) print every stdin line, then the count
 *   --print-env         (no PMI) check the environment, print "env ok"
 *   --print-bind        (no PMI) print GENCOMM_BIND and Cpus_allowed_list
 *   --check-fds         (no PMI) print descriptors other than 0-2, PMI_FD
 *   --ready             after the exchange print "rank R pid P ready"
 *   --fail-rank R       rank R fails after the exchange, as chosen by:
 *     --exit-code C       exit(C)
 *     --signal S          raise(S)
 *     --abort C           send cmd=abort exitcode=C, then keep sleeping
 *       --abort-cause R     with cause=R (the rank whose failure it follows)
 *     --finalize-first    with --exit-code: finalize before exiting
 *   --wait-peer-died    other ranks wait for cmd=peer_died and print it
 *   --abort-on-peer-died C  other ranks wait for cmd=peer_died, then send
 *                       cmd=abort exitcode=C cause=<the dead rank>
 *   --die-later R MS    rank R kills itself (SIGKILL) MS ms after the
 *                       exchange
 *   --spam K            print K long lines, each in several write()s
 *   --tail              print "rank R tail" with no newline at the end
 *   --ignore-term       ignore SIGTERM
 *   --sleep S           sleep S seconds before finalizing
 */

#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "boot/boot_pmi1_line.h"

#define LINE_MAX_LEN 4096

static int rank = -1;
static int size = -1;
static int pmi_fd = -1;
static char rbuf[LINE_MAX_LEN * 2];
static size_t rlen;

static void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2),
                                                      noreturn));

static void fail(const char *fmt, ...)
{
    va_list ap;

    fprintf(stderr, "rank %d: FAIL: ", rank);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    exit(1);
}

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void say(const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    putchar('\n');
    fflush(stdout);
}

static int env_int(const char *name)
{
    const char *s = getenv(name);

    if (s == NULL) {
        return -1;
    }
    return atoi(s);
}

static void write_all(int fd, const char *s, size_t len)
{
    while (len > 0) {
        ssize_t n = write(fd, s, len);

        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            fail("write: %s", strerror(errno));
        }
        s += n;
        len -= (size_t)n;
    }
}

static void pmi_write(const char *s)
{
    write_all(pmi_fd, s, strlen(s));
}

/* Reads one line from the PMI socket (without its newline). Returns false
 * on EOF. */
static bool pmi_readline(char *out, size_t cap)
{
    for (;;) {
        char *nl = memchr(rbuf, '\n', rlen);
        ssize_t n;

        if (nl != NULL) {
            size_t len = (size_t)(nl - rbuf);

            if (len >= cap) {
                fail("reply line too long (%zu)", len);
            }
            memcpy(out, rbuf, len);
            out[len] = '\0';
            memmove(rbuf, nl + 1, rlen - len - 1);
            rlen -= len + 1;
            return true;
        }
        if (rlen == sizeof(rbuf)) {
            fail("reply line too long");
        }
        n = read(pmi_fd, rbuf + rlen, sizeof(rbuf) - rlen);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n < 0) {
            fail("read: %s", strerror(errno));
        }
        if (n == 0) {
            return false;
        }
        rlen += (size_t)n;
    }
}

static void pmi_expect(char *out, size_t cap)
{
    if (!pmi_readline(out, cap)) {
        fail("unexpected EOF on the PMI socket");
    }
}

static void expect_field(const char *line, const char *key,
                         const char *want)
{
    char v[LINE_MAX_LEN];

    if (!gcm_boot_pmi1_field(line, key, v, sizeof(v))) {
        fail("no %s= in reply '%s'", key, line);
    }
    if (want != NULL && strcmp(v, want) != 0) {
        fail("%s=%s, expected %s, in reply '%s'", key, v, want, line);
    }
}

static void call(const char *req, const char *want_cmd, char *reply,
                 size_t cap)
{
    pmi_write(req);
    /* gcrun may announce a dead peer at any time; that is not the reply. */
    do {
        pmi_expect(reply, cap);
    } while (strncmp(reply, "cmd=peer_died", 13) == 0);
    expect_field(reply, "cmd", want_cmd);
}

static void sleep_ms(long ms)
{
    struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

/* A put of key=value into kvsname, which must answer with rc want. */
static void put(const char *kvsname, const char *key, const char *value,
                const char *want)
{
    char reply[LINE_MAX_LEN];
    char req[LINE_MAX_LEN + 64];

    snprintf(req, sizeof(req), "cmd=put kvsname=%s key=%s value=%s\n",
             kvsname, key, value);
    call(req, "put_result", reply, sizeof(reply));
    expect_field(reply, "rc", want);
}

static void pmi_exchange(char *kvsname, size_t kcap)
{
    char reply[LINE_MAX_LEN];
    char req[LINE_MAX_LEN + 64];
    char big[1100];
    char key[32];
    char v[32];
    int r;

    /* Send init in two pieces so the server has to join partial reads. */
    pmi_write("cmd=init pmi_vers");
    sleep_ms(20);
    pmi_write("ion=1 pmi_subversion=1\n");
    pmi_expect(reply, sizeof(reply));
    expect_field(reply, "cmd", "response_to_init");
    expect_field(reply, "rc", "0");

    call("cmd=get_maxes\n", "maxes", reply, sizeof(reply));
    expect_field(reply, "kvsname_max", "256");
    expect_field(reply, "keylen_max", "256");
    expect_field(reply, "vallen_max", "1024");

    call("cmd=get_my_kvsname\n", "my_kvsname", reply, sizeof(reply));
    if (!gcm_boot_pmi1_field(reply, "kvsname", kvsname, kcap)) {
        fail("no kvsname in '%s'", reply);
    }

    /* Two requests in one write: both answers must come, in order. */
    pmi_write("cmd=get_appnum\ncmd=get_universe_size\n");
    pmi_expect(reply, sizeof(reply));
    expect_field(reply, "cmd", "appnum");
    expect_field(reply, "appnum", "0");
    pmi_expect(reply, sizeof(reply));
    expect_field(reply, "cmd", "universe_size");
    /* Without --universe: the host's cores, never fewer than the job. */
    if (!gcm_boot_pmi1_field(reply, "size", v, sizeof(v)) ||
        (atoi(v) < size) ||
        ((getenv("PROBE_UNIVERSE") != NULL) &&
         (atoi(v) != atoi(getenv("PROBE_UNIVERSE"))))) {
        fail("universe size '%s' in reply '%s' (job of %d)", v, reply,
             size);
    }

    snprintf(key, sizeof(key), "key-%d", rank);
    snprintf(v, sizeof(v), "val-%d", rank);
    put(kvsname, key, v, "0");

    if (rank == 0) {
        memset(big, 'x', 1024);
        big[1024] = '\0';
        put(kvsname, "big", big, "0");
        memset(big, 'y', 1025);
        big[1025] = '\0';
        put(kvsname, "big2", big, "-1");
    }

    call("cmd=barrier_in\n", "barrier_out", reply, sizeof(reply));

    for (r = 0; r < size; r++) {
        char want[32];

        if (r == rank) {
            continue;
        }
        snprintf(req, sizeof(req), "cmd=get kvsname=%s key=key-%d\n",
                 kvsname, r);
        call(req, "get_result", reply, sizeof(reply));
        expect_field(reply, "rc", "0");
        snprintf(want, sizeof(want), "val-%d", r);
        expect_field(reply, "value", want);
    }
    if (rank == size - 1) {
        snprintf(req, sizeof(req), "cmd=get kvsname=%s key=big\n", kvsname);
        call(req, "get_result", reply, sizeof(reply));
        memset(big, 'x', 1024);
        big[1024] = '\0';
        expect_field(reply, "value", big);
    }

    snprintf(req, sizeof(req), "cmd=get kvsname=%s key=no-such-key\n",
             kvsname);
    call(req, "get_result", reply, sizeof(reply));
    expect_field(reply, "rc", "-1");

    call("cmd=frobnicate\n", "frobnicate_result", reply, sizeof(reply));
    expect_field(reply, "rc", "-1");

    /* A second barrier: the server must reset its count. */
    call("cmd=barrier_in\n", "barrier_out", reply, sizeof(reply));
    say("rank %d of %d ok", rank, size);
}

static void echo_stdin(void)
{
    char line[LINE_MAX_LEN];
    int count = 0;

    while (fgets(line, sizeof(line), stdin) != NULL) {
        line[strcspn(line, "\n")] = '\0';
        say("rank %d stdin: %s", rank, line);
        count++;
    }
    say("rank %d stdin eof after %d lines", rank, count);
}

static void print_env(void)
{
    extern char **environ;
    struct stat sb;
    char **e;

    for (e = environ; *e != NULL; e++) {
        if (strncmp(*e, "PMIX_", 5) == 0 || strncmp(*e, "OMPI_", 5) == 0) {
            fail("inherited %s", *e);
        }
    }
    if (env_int("GENCOMM_LOCAL_RANK") != rank ||
        env_int("GENCOMM_LOCAL_SIZE") != size) {
        fail("GENCOMM_LOCAL_RANK/SIZE do not match PMI_RANK/SIZE");
    }
    if (fstat(pmi_fd, &sb) != 0 || !S_ISSOCK(sb.st_mode)) {
        fail("PMI_FD %d is not a socket", pmi_fd);
    }
    say("rank %d env ok", rank);
}

static void print_bind(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[LINE_MAX_LEN];
    const char *bind = getenv("GENCOMM_BIND");
    char cpus[LINE_MAX_LEN] = "?";

    if (f != NULL) {
        while (fgets(line, sizeof(line), f) != NULL) {
            if (strncmp(line, "Cpus_allowed_list:", 18) == 0) {
                snprintf(cpus, sizeof(cpus), "%s", line + 18 +
                         strspn(line + 18, " \t"));
                cpus[strcspn(cpus, "\n")] = '\0';
            }
        }
        fclose(f);
    }
    say("rank %d bind=%s cpus=%s", rank, bind == NULL ? "(unset)" : bind,
        cpus);
}

static void check_fds(void)
{
    DIR *d = opendir("/proc/self/fd");
    struct dirent *de;
    char extra[LINE_MAX_LEN] = "";

    if (d == NULL) {
        fail("opendir /proc/self/fd: %s", strerror(errno));
    }
    while ((de = readdir(d)) != NULL) {
        int fd;

        if (de->d_name[0] == '.') {
            continue;
        }
        fd = atoi(de->d_name);
        if (fd <= 2 || fd == pmi_fd || fd == dirfd(d)) {
            continue;
        }
        snprintf(extra + strlen(extra), sizeof(extra) - strlen(extra),
                 " %d", fd);
    }
    closedir(d);
    say("rank %d extra fds:%s", rank, extra[0] == '\0' ? " none" : extra);
}

/* Waits for cmd=peer_died; returns the dead rank. */
static int wait_peer_died(void)
{
    char reply[LINE_MAX_LEN];

    while (pmi_readline(reply, sizeof(reply))) {
        if (strncmp(reply, "cmd=peer_died", 13) == 0) {
            char who[32];

            if (!gcm_boot_pmi1_field(reply, "rank", who, sizeof(who))) {
                fail("peer_died without rank: '%s'", reply);
            }
            say("rank %d saw peer_died rank=%s", rank, who);
            return atoi(who);
        }
    }
    fail("EOF on the PMI socket before peer_died");
    return -1;
}

static void spam(int count)
{
    char tail[101];
    char head[64];
    int i;

    memset(tail, 'x', 100);
    tail[100] = '\n';
    for (i = 0; i < count; i++) {
        int n = snprintf(head, sizeof(head), "rank %d line %d ", rank, i);

        /* Three separate writes per line: gcrun sees partial lines. */
        write_all(STDOUT_FILENO, head, (size_t)n);
        write_all(STDOUT_FILENO, tail, 50);
        write_all(STDOUT_FILENO, tail + 50, 51);
    }
}

/* The options that set a flag, and those that take a whole number. */
typedef struct {
    const char *name;
    bool       *set;
} probe_flag_t;

typedef struct {
    const char *name;
    int        *value;
} probe_int_t;

/* Argument a (val: the one after it, or NULL) as one of these options:
 * how many arguments after a it used (0 or 1), or -1 if it is none. */
static int probe_option(const char *a, const char *val,
                        const probe_flag_t *flags, size_t nflags,
                        const probe_int_t *ints, size_t nints)
{
    size_t k;

    for (k = 0; k < nflags; k++) {
        if (strcmp(a, flags[k].name) == 0) {
            *flags[k].set = true;
            return 0;
        }
    }
    for (k = 0; k < nints && val != NULL; k++) {
        if (strcmp(a, ints[k].name) == 0) {
            *ints[k].value = atoi(val);
            return 1;
        }
    }
    return -1;
}

int main(int argc, char **argv)
{
    bool echo = false, env = false, bind = false, fds = false;
    bool ready = false, wait_died = false, tail = false;
    int fail_rank = -1, exit_code = -1, sig = 0, abort_code = -1;
    int abort_cause = -1, abort_on_died = -1, die_rank = -1, die_ms = 0;
    bool finalize_first = false;
    int spam_count = 0;
    double sleep_s = 0;
    char kvsname[300];
    char reply[LINE_MAX_LEN];
    const probe_flag_t flags[] = {
        { "--echo-stdin", &echo }, { "--print-env", &env },
        { "--print-bind", &bind }, { "--check-fds", &fds },
        { "--ready", &ready }, { "--wait-peer-died", &wait_died },
        { "--tail", &tail }, { "--finalize-first", &finalize_first },
    };
    const probe_int_t ints[] = {
        { "--fail-rank", &fail_rank }, { "--exit-code", &exit_code },
        { "--signal", &sig }, { "--abort", &abort_code },
        { "--abort-cause", &abort_cause },
        { "--abort-on-peer-died", &abort_on_died },
        { "--spam", &spam_count },
    };
    int i;

    for (i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *val = i + 1 < argc ? argv[i + 1] : NULL;
        int used = probe_option(a, val, flags,
                                sizeof(flags) / sizeof(flags[0]), ints,
                                sizeof(ints) / sizeof(ints[0]));

        if (used >= 0) {
            i += used;
        } else if (strcmp(a, "--ignore-term") == 0) {
            signal(SIGTERM, SIG_IGN);
        } else if (val != NULL && i + 2 < argc &&
                   strcmp(a, "--die-later") == 0) {
            die_rank = atoi(val);
            die_ms = atoi(argv[i + 2]);
            i += 2;
        } else if (val != NULL && strcmp(a, "--sleep") == 0) {
            sleep_s = atof(val);
            i++;
        } else {
            fprintf(stderr, "gcrun_probe: bad argument '%s'\n", a);
            return 2;
        }
    }

    rank = env_int("PMI_RANK");
    size = env_int("PMI_SIZE");
    pmi_fd = env_int("PMI_FD");
    if (rank < 0 || size < 1 || pmi_fd < 0) {
        fail("PMI_RANK, PMI_SIZE or PMI_FD missing");
    }

    if (echo || env || bind || fds) {
        if (fds) {
            check_fds();
        }
        if (env) {
            print_env();
        }
        if (bind) {
            print_bind();
        }
        if (echo) {
            echo_stdin();
        }
        return 0;
    }

    pmi_exchange(kvsname, sizeof(kvsname));
    if (ready) {
        say("rank %d pid %ld ready", rank, (long)getpid());
    }

    if (rank == fail_rank) {
        if (abort_code >= 0) {
            char req[96];

            if (abort_cause >= 0) {
                snprintf(req, sizeof(req),
                         "cmd=abort exitcode=%d cause=%d\n", abort_code,
                         abort_cause);
            } else {
                snprintf(req, sizeof(req), "cmd=abort exitcode=%d\n",
                         abort_code);
            }
            pmi_write(req);
        } else if (sig > 0) {
            raise(sig);
        } else if (exit_code >= 0) {
            if (finalize_first) {
                call("cmd=finalize\n", "finalize_ack", reply,
                     sizeof(reply));
            }
            exit(exit_code);
        }
    } else if (rank == die_rank) {
        sleep_ms(die_ms);
        raise(SIGKILL);
    } else if (abort_on_died >= 0) {
        char req[96];
        int dead = wait_peer_died();

        snprintf(req, sizeof(req), "cmd=abort exitcode=%d cause=%d\n",
                 abort_on_died, dead);
        pmi_write(req);
    } else if (wait_died) {
        wait_peer_died();
    }

    if (spam_count > 0) {
        spam(spam_count);
    }
    if (tail) {
        printf("rank %d tail", rank);
        fflush(stdout);
    }
    if (sleep_s > 0) {
        sleep_ms((long)(sleep_s * 1000));
    }

    call("cmd=finalize\n", "finalize_ack", reply, sizeof(reply));
    return 0;
}
