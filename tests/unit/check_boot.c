/*
 * tests/unit/check_boot.c: boot/'s PMI-1 client (boot_pmi1.c) against a
 * fake launcher: a thread speaking the PMI-1 wire protocol on the other
 * end of a socketpair, with a small key-value space. Good exchanges
 * (init, puts and gets of binary values in hex chunks, fences, appnum,
 * universe, events between replies, finalize), then replies that are
 * malformed, oversized, truncated or refused: each must end in an error
 * status with a message, never a crash or a hang.
 *
 * Then the PMIx client's leaving (boot_pmix.c): finding its connection to
 * the server from the server's URI (malformed URIs match nothing) and
 * waiting, after the connection is shut down, until the server has closed
 * its end, or the time given has run out.
 */
#include "config.h"

#include "boot/boot.h"
#include "boot/boot_impl.h"
#include "boot/boot_pmi1_line.h"
#include "check_main.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#define FK_KEYS 64

/* The fake launcher. One reply can be replaced: the one to the nth
 * (from 0) request of command bad_cmd gets bad_reply (bad_len bytes, or
 * its length) instead, and the socket is closed after it if bad_close. */
typedef struct fake {
    int         fd;
    pthread_t   thread;
    const char *maxes;       /* the maxes reply (NULL: the usual) */
    const char *bad_cmd;
    int         bad_nth;
    const char *bad_reply;
    size_t      bad_len;
    int         bad_close;
    int         nseen;       /* requests of bad_cmd so far */
    char        keys[FK_KEYS][128];
    char        vals[FK_KEYS][1100];
    int         nkv;
    int         nbarrier;
    int         finalized;
    char        abort_line[256];
} fake_t;

static fake_t fk;
static int fk_client = -1;

static void fk_send(fake_t *f, const char *text, size_t len)
{
    size_t done = 0;

    while (done < len) {
        ssize_t n = write(f->fd, text + done, len - done);

        if (n <= 0) {
            return;    /* the client is gone: its test says why */
        }
        done += (size_t)n;
    }
}

static void fk_sendf(fake_t *f, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void fk_sendf(fake_t *f, const char *fmt, ...)
{
    char line[2048];
    va_list ap;
    int n;

    va_start(ap, fmt);
    n = vsnprintf(line, sizeof(line), fmt, ap);
    va_end(ap);
    fk_send(f, line, (size_t)n);
}

static const char *fk_lookup(const fake_t *f, const char *key)
{
    int i;

    for (i = 0; i < f->nkv; i++) {
        if (strcmp(f->keys[i], key) == 0) {
            return f->vals[i];
        }
    }
    return NULL;
}

static void fk_store(fake_t *f, const char *key, const char *val)
{
    if (f->nkv < FK_KEYS) {
        snprintf(f->keys[f->nkv], sizeof(f->keys[0]), "%s", key);
        snprintf(f->vals[f->nkv], sizeof(f->vals[0]), "%s", val);
        f->nkv++;
    }
}

/* Stores a binary value as the client lays it out: "<key>-<rank>" its
 * length, "<key>-<rank>.<i>" chunks of chunk bytes in hex. */
static void fk_store_bin(fake_t *f, const char *key, int rank,
                         const void *value, size_t len, size_t chunk)
{
    const unsigned char *v = value;
    char k[128], text[1100];
    size_t off, i;

    snprintf(k, sizeof(k), "%s-%d", key, rank);
    snprintf(text, sizeof(text), "%zu", len);
    fk_store(f, k, text);
    for (off = 0; off < len; off += chunk) {
        size_t n = (len - off < chunk) ? len - off : chunk;

        for (i = 0; i < n; i++) {
            sprintf(text + 2 * i, "%02x", v[off + i]);
        }
        snprintf(k, sizeof(k), "%s-%d.%zu", key, rank, off / chunk);
        fk_store(f, k, text);
    }
}

/* Answers one request line; returns 0 once the conversation is over. */
static int fk_answer(fake_t *f, const char *line)
{
    char cmd[64], key[128], val[1100];

    if (!gcm_boot_pmi1_field(line, "cmd", cmd, sizeof(cmd))) {
        return 1;
    }
    if (f->bad_cmd != NULL && strcmp(cmd, f->bad_cmd) == 0 &&
        f->nseen++ == f->bad_nth) {
        if (f->bad_reply != NULL) {
            fk_send(f, f->bad_reply, (f->bad_len != 0) ? f->bad_len :
                                     strlen(f->bad_reply));
        }
        return !f->bad_close;
    }
    if (strcmp(cmd, "init") == 0) {
        fk_sendf(f, "cmd=response_to_init pmi_version=1 pmi_subversion=1 "
                 "rc=0\n");
    } else if (strcmp(cmd, "get_maxes") == 0) {
        fk_sendf(f, "%s", (f->maxes != NULL) ? f->maxes :
                 "cmd=maxes rc=0 kvsname_max=256 keylen_max=64 "
                 "vallen_max=1024\n");
    } else if (strcmp(cmd, "get_my_kvsname") == 0) {
        fk_sendf(f, "cmd=my_kvsname rc=0 kvsname=kvs_42\n");
    } else if (strcmp(cmd, "put") == 0) {
        if (gcm_boot_pmi1_field(line, "key", key, sizeof(key)) &&
            gcm_boot_pmi1_field(line, "value", val, sizeof(val))) {
            fk_store(f, key, val);
            fk_sendf(f, "cmd=put_result rc=0\n");
        } else {
            fk_sendf(f, "cmd=put_result rc=-1 msg=bad_put\n");
        }
    } else if (strcmp(cmd, "get") == 0) {
        const char *v = NULL;

        if (gcm_boot_pmi1_field(line, "key", key, sizeof(key))) {
            v = fk_lookup(f, key);
        }
        if (v != NULL) {
            fk_sendf(f, "cmd=get_result rc=0 value=%s\n", v);
        } else {
            fk_sendf(f, "cmd=get_result rc=-1 msg=key_not_found\n");
        }
    } else if (strcmp(cmd, "barrier_in") == 0) {
        f->nbarrier++;
        fk_sendf(f, "cmd=barrier_out\n");
    } else if (strcmp(cmd, "get_appnum") == 0) {
        fk_sendf(f, "cmd=appnum appnum=3\n");
    } else if (strcmp(cmd, "get_universe_size") == 0) {
        fk_sendf(f, "cmd=universe_size size=8\n");
    } else if (strcmp(cmd, "abort") == 0) {
        snprintf(f->abort_line, sizeof(f->abort_line), "%.200s", line);
    } else if (strcmp(cmd, "finalize") == 0) {
        f->finalized = 1;
        fk_sendf(f, "cmd=finalize_ack\n");
    }
    return 1;
}

static void *fk_main(void *arg)
{
    fake_t *f = arg;
    char buf[16384];
    size_t len = 0;

    for (;;) {
        ssize_t n = read(f->fd, buf + len, sizeof(buf) - 1 - len);
        char *nl;

        if (n <= 0) {
            break;
        }
        len += (size_t)n;
        buf[len] = '\0';
        while ((nl = strchr(buf, '\n')) != NULL) {
            *nl = '\0';
            if (!fk_answer(f, buf)) {
                goto out;
            }
            len -= (size_t)(nl + 1 - buf);
            memmove(buf, nl + 1, len + 1);
        }
    }
out:
    close(f->fd);
    return NULL;
}

/* The launcher's environment for rank of size, and the fake behind
 * PMI_FD (started by fk_start once the test has set it up). */
static void fk_setup(void)
{
    int sv[2];
    char text[32];

    memset(&fk, 0, sizeof(fk));
    ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    fk.fd = sv[1];
    fk_client = sv[0];
    snprintf(text, sizeof(text), "%d", sv[0]);
    setenv("PMI_FD", text, 1);
    setenv("PMI_RANK", "0", 1);
    setenv("PMI_SIZE", "2", 1);
    unsetenv("PMIX_NAMESPACE");
}

static void fk_start(void)
{
    ck_assert_int_eq(pthread_create(&fk.thread, NULL, fk_main, &fk), 0);
}

/* After a failure: the client's end closed, the fake ends. */
static void fk_stop(void)
{
    shutdown(fk_client, SHUT_RDWR);
    ck_assert_int_eq(pthread_join(fk.thread, NULL), 0);
}

/* ---- good exchanges ---------------------------------------------------- */

static int died_rank = -1;

static void on_peer_died(int rank, void *arg)
{
    (void)arg;
    died_rank = rank;
}

static void fill(unsigned char *p, size_t len, unsigned seed)
{
    size_t i;

    for (i = 0; i < len; i++) {
        p[i] = (unsigned char)(i * 31u + seed);
    }
}

START_TEST(test_boot_pmi1_good_exchange)
{
    unsigned char out[1500], in[1500], peer[700];
    size_t len;

    fk_setup();
    fill(peer, sizeof(peer), 7);
    fk_store_bin(&fk, "peer", 1, peer, sizeof(peer), 480);
    fk_start();
    ck_assert_int_eq(gcm_boot_init(), GCM_OK);
    ck_assert_int_eq(gcm_boot_kind(), GCM_BOOT_PMI1);
    ck_assert_int_eq(gcm_boot_rank(), 0);
    ck_assert_int_eq(gcm_boot_size(), 2);
    ck_assert_str_eq(gcm_boot_jobid(), "kvs_42");

    /* 1500 bytes: three chunks of at most 480 bytes and a short one. */
    fill(out, sizeof(out), 1);
    ck_assert_int_eq(gcm_boot_put("blob", out, sizeof(out)), GCM_OK);
    ck_assert_int_eq(gcm_boot_fence(), GCM_OK);
    ck_assert_int_eq(fk.nbarrier, 1);
    len = sizeof(in);
    ck_assert_int_eq(gcm_boot_get(0, "blob", in, &len), GCM_OK);
    ck_assert_uint_eq(len, sizeof(out));
    ck_assert_mem_eq(in, out, sizeof(out));
    ck_assert_str_eq(fk_lookup(&fk, "blob-0"), "1500");
    ck_assert_ptr_nonnull(fk_lookup(&fk, "blob-0.3"));
    ck_assert_ptr_null(fk_lookup(&fk, "blob-0.4"));

    /* What the other rank put, as it laid it out. */
    len = sizeof(in);
    ck_assert_int_eq(gcm_boot_get(1, "peer", in, &len), GCM_OK);
    ck_assert_uint_eq(len, sizeof(peer));
    ck_assert_mem_eq(in, peer, sizeof(peer));
    /* A buffer too small: truncation, not an overflow. */
    len = 10;
    ck_assert_int_eq(gcm_boot_get(1, "peer", in, &len), GCM_ERR_TRUNCATED);
    /* No such key, no such rank. */
    len = sizeof(in);
    ck_assert_int_eq(gcm_boot_get(1, "nothing", in, &len), GCM_ERR_BOOT);
    ck_assert_int_eq(gcm_boot_get(2, "peer", in, &len),
                     GCM_ERR_INVALID_PARAM);

    ck_assert_int_eq(gcm_boot_appnum(), 3);
    ck_assert_int_eq(gcm_boot_universe(), 8);
    /* Rank 0 published the job secret. */
    ck_assert_int_eq(gcm_boot_secret_fetch(), GCM_OK);
    gcm_boot_finalize();
    ck_assert_int_eq(fk.finalized, 1);
    ck_assert_int_eq(pthread_join(fk.thread, NULL), 0);
}
END_TEST

/* The smallest vallen_max a launcher may give: 31-byte chunks. */
START_TEST(test_boot_pmi1_small_values)
{
    unsigned char out[200], in[200];
    size_t len = sizeof(in);

    fk_setup();
    fk.maxes = "cmd=maxes rc=0 kvsname_max=256 keylen_max=64 vallen_max=64\n";
    fk_start();
    ck_assert_int_eq(gcm_boot_init(), GCM_OK);
    fill(out, sizeof(out), 3);
    ck_assert_int_eq(gcm_boot_put("small", out, sizeof(out)), GCM_OK);
    ck_assert_int_eq(gcm_boot_get(0, "small", in, &len), GCM_OK);
    ck_assert_uint_eq(len, sizeof(out));
    ck_assert_mem_eq(in, out, sizeof(out));
    ck_assert_uint_eq(strlen(fk_lookup(&fk, "small-0.0")), 62);
    ck_assert_ptr_nonnull(fk_lookup(&fk, "small-0.6"));
    gcm_boot_finalize();
    ck_assert_int_eq(pthread_join(fk.thread, NULL), 0);
}
END_TEST

/* Events may come before any reply: a death of a rank of the job is
 * reported, one of no such rank ignored; the reply is still found. */
START_TEST(test_boot_pmi1_events_between_replies)
{
    fk_setup();
    fk.bad_cmd = "barrier_in";
    fk.bad_nth = 0;
    fk.bad_reply = "cmd=peer_died rank=99\ncmd=peer_died rank=x\n"
                   "cmd=peer_died rank=1\ncmd=barrier_out\n";
    fk_start();
    ck_assert_int_eq(gcm_boot_init(), GCM_OK);
    gcm_boot_set_peer_died_cb(on_peer_died, NULL);
    ck_assert_int_eq(gcm_boot_fence(), GCM_OK);
    ck_assert_int_eq(died_rank, 1);
    gcm_boot_finalize();
    ck_assert_int_eq(pthread_join(fk.thread, NULL), 0);
}
END_TEST

/* ---- replies refused --------------------------------------------------- */

typedef struct bad_case {
    const char *cmd;      /* the request whose reply is replaced */
    int         nth;
    const char *reply;    /* NULL: a line of 3000 bytes; "" nothing */
    int         close;
    const char *why;      /* in gcm_last_error() or NULL */
} bad_case_t;

/* Replies during gcm_boot_init. */
static const bad_case_t init_cases[] = {
    { "init", 0, "cmd=response_to_init rc=-1\n", 0, "refused init" },
    { "init", 0, "cmd=response_to_init rc=0x0\n", 0, "refused init" },
    { "init", 0, "cmd=response_to_init\n", 0, "refused init" },
    { "init", 0, "cmd=response_to_in", 1, "no readable answer" },
    { "init", 0, "", 1, "no readable answer" },
    { "init", 0, NULL, 0, "no readable answer" },
    { "get_maxes", 0, "cmd=maxes vallen_max=5\n", 0, "vallen_max" },
    { "get_maxes", 0, "cmd=maxes vallen_max=abc\n", 0, "vallen_max" },
    { "get_maxes", 0, "cmd=maxes vallen_max=-1024\n", 0, "vallen_max" },
    { "get_maxes", 0, "cmd=maxes vallen_max=99999999999999999999999\n", 0,
      "vallen_max" },
    { "get_maxes", 0, "", 1, "no maxes" },
    { "get_my_kvsname", 0, "cmd=my_kvsname kvsname=\n", 0, "kvs name" },
    { "get_my_kvsname", 0, "cmd=my_kvsname\n", 0, "kvs name" },
    { "get_my_kvsname", 0, "cmd=my_kvsname kvsname="
      "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
      "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
      "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
      "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
      "\n", 0, "kvs name" },
    /* The secret's put (rank 0) refused, or its reply cut. */
    { "put", 0, "cmd=put_result rc=1 msg=full\n", 0, "secret" },
    { "put", 0, "cmd=put_res", 1, "secret" },
};

/* A line longer than any a launcher may send (2048 bytes). */
static char long_line[3001];

static void send_case(const bad_case_t *c)
{
    fk.bad_cmd = c->cmd;
    fk.bad_nth = c->nth;
    fk.bad_close = c->close;
    if (c->reply == NULL) {
        memset(long_line, 'v', sizeof(long_line) - 2);
        memcpy(long_line, "cmd=x value=", 12);
        long_line[sizeof(long_line) - 2] = '\n';
        fk.bad_reply = long_line;
    } else {
        fk.bad_reply = c->reply;
    }
}

START_TEST(test_boot_pmi1_init_bad_reply)
{
    const bad_case_t *c = &init_cases[_i];

    fk_setup();
    send_case(c);
    fk_start();
    ck_assert_msg(gcm_boot_init() == GCM_ERR_BOOT,
                  "case %d (%s): init did not fail", _i, c->cmd);
    ck_assert_msg(strstr(gcm_last_error(), c->why) != NULL,
                  "case %d: '%s' does not say '%s'", _i, gcm_last_error(),
                  c->why);
    fk_stop();
}
END_TEST

/* Replies to the gets of a value of rank 1 (10 bytes: its length, then
 * one chunk). */
static const bad_case_t get_cases[] = {
    { "get", 0, "cmd=get_result rc=0 value=ten\n", 0, NULL },
    { "get", 0, "cmd=get_result rc=0 value=-5\n", 0, NULL },
    { "get", 0, "cmd=get_result rc=0 value=99999999999999999999999\n", 0,
      NULL },
    { "get", 0, "cmd=get_result rc=0 value=\n", 0, NULL },
    { "get", 0, "cmd=get_result rc=0\n", 0, NULL },
    { "get", 0, "cmd=get_result rc=-1 value=10\n", 0, NULL },
    { "get", 1, "cmd=get_result rc=0 value=zz0102030405060708ab\n", 0, NULL },
    { "get", 1, "cmd=get_result rc=0 value=00010203\n", 0, NULL },
    { "get", 1, "cmd=get_result rc=0 value=000102030405060708090a0b\n", 0,
      NULL },
    { "get", 1, "cmd=get_result rc=0 value=00010203040506070809X\n", 0,
      NULL },
    { "get", 1, "cmd=get_result rc=0 value=0001020304050607080\n", 0, NULL },
    { "get", 1, NULL, 0, NULL },
    { "get", 1, "cmd=get_result rc=0 val", 1, NULL },
    /* No end of line within the client's whole buffer (8 KiB). */
    { "get", 1, "", 0, NULL },
};

START_TEST(test_boot_pmi1_get_bad_reply)
{
    const bad_case_t *c = &get_cases[_i];
    unsigned char in[64], peer[10];
    char *flood = NULL;
    size_t len = sizeof(in);

    fk_setup();
    fill(peer, sizeof(peer), 0);
    fk_store_bin(&fk, "peer", 1, peer, sizeof(peer), 480);
    send_case(c);
    if (c->reply != NULL && c->reply[0] == '\0') {
        flood = malloc(9000);
        ck_assert_ptr_nonnull(flood);
        memset(flood, 'f', 9000);
        fk.bad_reply = flood;
        fk.bad_len = 9000;
    }
    fk_start();
    ck_assert_int_eq(gcm_boot_init(), GCM_OK);
    ck_assert_msg(gcm_boot_get(1, "peer", in, &len) == GCM_ERR_BOOT,
                  "case %d: the get did not fail", _i);
    /* What it was given stays as it was. */
    ck_assert_uint_eq(len, sizeof(in));
    fk_stop();
    free(flood);
}
END_TEST

/* ---- the environment from the launcher --------------------------------- */

START_TEST(test_boot_pmi1_bad_environment)
{
    static const char *const bad[][3] = {
        /* PMI_FD, PMI_RANK, PMI_SIZE */
        { NULL, "0", "2" },
        { "x", "0", "2" },
        { "-1", "0", "2" },
        { "S", "2", "2" },
        { "S", "-1", "2" },
        { "S", "0", "0" },
        { "S", "0", "99999999999999999999" },
        { "S", "one", "2" },
        { "P", "0", "2" },       /* a pipe, not a socket */
        { "999", "0", "2" },     /* not open */
    };
    char text[32];
    int pfd[2];
    size_t i;

    ck_assert_int_eq(pipe(pfd), 0);
    for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        fk_setup();
        if (bad[i][0] == NULL) {
            unsetenv("PMI_FD");
            setenv("GENCOMM_BOOT", "pmi1", 1);
            gcm_config_load();
        } else if (strcmp(bad[i][0], "S") != 0) {
            snprintf(text, sizeof(text), "%d", pfd[0]);
            setenv("PMI_FD", strcmp(bad[i][0], "P") == 0 ? text : bad[i][0],
                   1);
        }
        setenv("PMI_RANK", bad[i][1], 1);
        setenv("PMI_SIZE", bad[i][2], 1);
        ck_assert_msg(gcm_boot_init() == GCM_ERR_BOOT,
                      "environment %zu accepted", i);
        ck_assert_ptr_nonnull(strstr(gcm_last_error(), "PMI_"));
        unsetenv("GENCOMM_BOOT");
        gcm_config_load();
        close(fk.fd);
        close(fk_client);
    }
    close(pfd[0]);
    close(pfd[1]);
}
END_TEST

/* abort names the failed rank; the launcher gets it whole. */
START_TEST(test_boot_pmi1_abort_line)
{
    fk_setup();
    fk_start();
    ck_assert_int_eq(gcm_boot_init(), GCM_OK);
    gcm_boot_set_peer_died_cb(on_peer_died, NULL);
    /* gcm_boot_abort exits: fork so that the test survives it. */
    {
        pid_t child = fork();
        int st = 0;

        ck_assert_int_ge(child, 0);
        if (child == 0) {
            gcm_boot_abort(5, "check_boot");
        }
        ck_assert_int_eq(waitpid(child, &st, 0), child);
    }
    ck_assert_int_eq(gcm_boot_fence(), GCM_OK);
    ck_assert_ptr_nonnull(strstr(fk.abort_line, "cmd=abort"));
    ck_assert_ptr_nonnull(strstr(fk.abort_line, "exitcode=5"));
    gcm_boot_finalize();
    ck_assert_int_eq(pthread_join(fk.thread, NULL), 0);
}
END_TEST

/* ---- the PMIx client's leaving ------------------------------------- */

/* URIs that name no TCP address: each matches nothing. */
static const char *const bad_uris[] = {
    NULL, "", "1.0", "1.0;usock:/tmp/pmix-sock", "1.0;tcp4://127.0.0.1",
    "1.0;tcp4://127.0.0.1:", "1.0;tcp4://127.0.0.1:0",
    "1.0;tcp4://127.0.0.1:65536", "1.0;tcp4://127.0.0.1:12x",
    "1.0;tcp4://127.0.0.1:-5", "1.0;tcp4://:5000", "1.0;tcp4://999.1.1.1:5",
    "1.0;tcp6://::1:5000", "1.0;tcp6://[]:5000", "1.0;tcp6://[::1:5000",
    "1.0;tcp4://127.0.0.1111111111111111111111111111111111111111111111111"
    "11111111111111111111111111111111111111111111111111111111111111111:5",
    "tcp4://127.0.0.1:5000",
};

START_TEST(test_boot_pmix_bad_uri)
{
    ck_assert_int_eq(gcm_boot_pmix_hold_server(bad_uris[_i]), -1);
}
END_TEST

/* A server on the loopback: its listener, the client's end and its own
 * end of one connection, and the URI naming it. */
typedef struct pmix_pair {
    int          listener, client, server;
    char         uri[128];
    atomic_int   server_closed;
    int          linger_ms;     /* before the server reads and closes */
} pmix_pair_t;

static void pmix_pair_open(pmix_pair_t *p)
{
    struct sockaddr_in a;
    socklen_t alen = sizeof(a);

    memset(p, 0, sizeof(*p));
    memset(&a, 0, sizeof(a));
    a.sin_family      = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    p->listener = socket(AF_INET, SOCK_STREAM, 0);
    ck_assert_int_ge(p->listener, 0);
    ck_assert_int_eq(bind(p->listener, (struct sockaddr *)&a, sizeof(a)), 0);
    ck_assert_int_eq(listen(p->listener, 1), 0);
    ck_assert_int_eq(getsockname(p->listener, (struct sockaddr *)&a, &alen),
                     0);
    snprintf(p->uri, sizeof(p->uri), "4077.0;tcp4://127.0.0.1:%u",
             (unsigned)ntohs(a.sin_port));
    /* No connection yet: the URI's address is only listened on. */
    ck_assert_int_eq(gcm_boot_pmix_hold_server(p->uri), -1);
    p->client = socket(AF_INET, SOCK_STREAM, 0);
    ck_assert_int_ge(p->client, 0);
    ck_assert_int_eq(connect(p->client, (struct sockaddr *)&a, sizeof(a)),
                     0);
    p->server = accept(p->listener, NULL, NULL);
    ck_assert_int_ge(p->server, 0);
}

/* The server's reading thread: after linger_ms, reads the client's close
 * and closes its own end, as a PMIx server does. */
static void *pmix_server_reader(void *arg)
{
    pmix_pair_t *p = arg;
    char c;

    usleep((useconds_t)p->linger_ms * 1000);
    while (read(p->server, &c, 1) > 0) {
    }
    atomic_store(&p->server_closed, 1);
    close(p->server);
    return NULL;
}

/* The client leaves as PMIx_Finalize does; the wait returns once the
 * server has closed its end, not before. */
START_TEST(test_boot_pmix_await_server_close)
{
    pmix_pair_t p;
    pthread_t th;
    int held, closed;

    pmix_pair_open(&p);
    held = gcm_boot_pmix_hold_server(p.uri);
    ck_assert_int_ge(held, 0);
    ck_assert_int_ne(held, p.client);
    p.linger_ms = 300;
    ck_assert_int_eq(pthread_create(&th, NULL, pmix_server_reader, &p), 0);
    shutdown(p.client, SHUT_RDWR);
    close(p.client);
    ck_assert_int_eq(gcm_boot_pmix_await_close(held, 10000), 1);
    closed = atomic_load(&p.server_closed);
    ck_assert_int_eq(closed, 1);
    ck_assert_int_eq(pthread_join(th, NULL), 0);
    close(p.listener);
}
END_TEST

/* A server that never closes: the wait gives up when its time is over,
 * says so, and closes the duplicate all the same. */
START_TEST(test_boot_pmix_await_timeout)
{
    pmix_pair_t p;
    int held;
    char c;

    pmix_pair_open(&p);
    held = gcm_boot_pmix_hold_server(p.uri);
    ck_assert_int_ge(held, 0);
    shutdown(p.client, SHUT_RDWR);
    close(p.client);
    ck_assert_int_eq(gcm_boot_pmix_await_close(held, 200), 0);
    ck_assert_int_eq(fcntl(held, F_GETFD), -1);
    /* The client's side is fully gone now: the server reads its end. */
    ck_assert_int_eq(read(p.server, &c, 1), 0);
    close(p.server);
    close(p.listener);
}
END_TEST

static Suite *make_suite(void)
{
    const TTest *good[] = {test_boot_pmi1_good_exchange,
        test_boot_pmi1_small_values, test_boot_pmi1_events_between_replies,
        test_boot_pmi1_abort_line, NULL};
    const TTest *bad_init[] = {test_boot_pmi1_init_bad_reply, NULL};
    const TTest *bad_get[] = {test_boot_pmi1_get_bad_reply, NULL};
    const TTest *bad[] = {test_boot_pmi1_bad_environment, NULL};
    const TTest *pmix_bad[] = {test_boot_pmix_bad_uri, NULL};
    const TTest *pmix_leave[] = {test_boot_pmix_await_server_close,
        test_boot_pmix_await_timeout, NULL};
    const struct gcm_check_case cases[] = {
        {"good", .tests = good, .timeout = 20},
        {"bad init", .tests = bad_init, .timeout = 20,
            .loop_end = (int)(sizeof(init_cases) / sizeof(init_cases[0]))},
        {"bad get", .tests = bad_get, .timeout = 20,
            .loop_end = (int)(sizeof(get_cases) / sizeof(get_cases[0]))},
        {"bad", .tests = bad, .timeout = 20},
        {"pmix bad uri", .tests = pmix_bad, .timeout = 20,
            .loop_end = (int)(sizeof(bad_uris) / sizeof(bad_uris[0]))},
        {"pmix leaving", .tests = pmix_leave, .timeout = 30},
        {0},
    };

    return gcm_check_suite("boot", cases);
}
