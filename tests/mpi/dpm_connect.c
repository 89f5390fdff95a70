/*
 * dpm_connect.c: MPI ports, MPI_Comm_accept and MPI_Comm_connect between
 * two separately launched jobs (tests/mpi/test_dpm.sh starts them).
 *
 *   dpm_connect accept FILE N    opens a port, writes its name to FILE and
 *                                accepts N connections in turn
 *   dpm_connect connect FILE N   reads FILE and connects N times
 *
 * FILE may be "name:SERVICE": the accepting side publishes its port
 * under that service name (MPI_Publish_name) and unpublishes it at the
 * end, the connecting side looks it up (MPI_Lookup_name, until it is
 * there).
 *
 * On each connection both sides check the intercommunicator (sizes, ranks
 * of both groups), exchange a message with every remote rank, merge it
 * (MPI_Intercomm_merge, the accepting group first, and again with the
 * same flag on both sides) and run an MPI_Allreduce over the merged
 * communicators, then MPI_Comm_disconnect.
 * With N > 3, in the cycle after the first quarter (caches fill during
 * the first ones) and in the last, each process records its open file
 * descriptors, the bytes malloc has handed out and the library's open
 * connections, while every process of both jobs waits between two
 * barriers on the intercommunicator (so that no message is in flight);
 * none of them may grow in between (the library's caches of free
 * requests emptied first).
 *
 *   dpm_connect errors [FILE]    (one process, no partner) connect
 *                                fails with MPI_ERR_PORT, on every
 *                                process, for a name that is no port, a
 *                                port whose token is wrong, a closed port,
 *                                a port nobody accepts on (info key
 *                                "timeout" of 1 s), and, given FILE, the
 *                                port of a job that has ended; accept on
 *                                a port not opened fails too; the
 *                                name service: an unknown name gives
 *                                MPI_ERR_NAME, publishing a name twice
 *                                or unpublishing one not published
 *                                MPI_ERR_SERVICE
 *   dpm_connect join             (two processes) MPI_Comm_join over a
 *                                TCP connection between them
 *   dpm_connect inner N          (two processes of one job) N times: rank
 *                                0 accepts on MPI_COMM_SELF, rank 1
 *                                connects and sends at once; the message
 *                                must arrive (it may come before rank 0
 *                                has made its side of the communicator)
 *   dpm_connect merged N         (three processes of one job) N times:
 *                                ranks 0 and 1 accept together, rank 2
 *                                connects, and all three merge the
 *                                intercommunicator and run an
 *                                MPI_Allreduce over it at once: the root
 *                                of the accepting side may send on the
 *                                merged communicator before rank 1 has
 *                                heard from it (the message must wait for
 *                                rank 1's side, never be lost)
 *   dpm_connect stale DIR N      (two processes of one job, DIR the
 *                                name directory, GENCOMM_NAME_DIR) N
 *                                times: a record of a service whose
 *                                publisher is gone lies in DIR; rank 0
 *                                publishes that service while rank 1
 *                                looks it up without pause: rank 1 must
 *                                find rank 0's port within 5 s (a lookup
 *                                that met the gone publisher's record
 *                                must never remove the new one)
 *   dpm_connect victim FILE      accepts one connection, then is killed
 *   dpm_connect silent FILE      accepts one connection, writes its pid
 *                                to FILE.pid and waits in pause(), never
 *                                progressing (its contact still answers),
 *                                for the test to kill once the survivors
 *                                wait for it
 *   dpm_connect survivor FILE    connects to the victim and waits for a
 *                                message from it: the receive must fail
 *                                with MPI_ERR_PROC_FAILED, not hang (each
 *                                rank makes FILE.wait<rank> once its
 *                                receive is posted)
 *
 * Prints "dpm_connect: ..." lines for the checks that passed.
 */
#include <gencomm.h>
#include <mpi.h>

#include "mpitest.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <malloc.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int me, np;

static int count_fds(void)
{
    DIR *d = opendir("/proc/self/fd");
    struct dirent *e;
    int n = 0;

    if (d == NULL) {
        return -1;
    }
    while ((e = readdir(d)) != NULL) {
        n += (e->d_name[0] != '.');
    }
    closedir(d);
    return n - 1;   /* the directory's own */
}

/* The library's caches of free requests (this thread's), so that what
 * they keep is not counted as heap in use: from the internal library
 * this test links. */
void gcm_slots_req_cache_flush(void);
void gcm_mpi_req_cache_flush(void);

/* Heap growth over the measured cycles that is not counted as a leak. */
#define HEAP_SLACK 256

typedef struct usage {
    int    fds;
    size_t heap;
    unsigned long long conns;
} usage_t;

static void measure(usage_t *u)
{
    struct mallinfo2 mi;
    gcm_stats_t st;

    gcm_get_stats(&st);
    gcm_mpi_req_cache_flush();
    gcm_slots_req_cache_flush();
    mi       = mallinfo2();
    u->fds   = count_fds();
    u->heap  = mi.uordblks;
    u->conns = (unsigned long long)st.connections;
}

/* One use of a new intercommunicator; accepting: this side's group comes
 * first in the merged one. */
static void use_inter(MPI_Comm inter, int accepting)
{
    int flag = 0, lsize, rsize, rank, q, msize, mrank, sum = 0, want;
    int mine = (accepting ? 1000 : 2000) + me;
    int theirs = -1;
    MPI_Comm merged;

    MPI_Comm_test_inter(inter, &flag);
    CHECK(flag, "not an intercommunicator");
    MPI_Comm_size(inter, &lsize);
    MPI_Comm_rank(inter, &rank);
    MPI_Comm_remote_size(inter, &rsize);
    CHECK((lsize == np) && (rank == me), "local group %d/%d, expected "
          "%d/%d", rank, lsize, me, np);
    /* Every rank sends to every remote rank and receives from each. */
    for (q = 0; q < rsize; q++) {
        CHECK(MPI_Sendrecv(&mine, 1, MPI_INT, q, 7, &theirs, 1, MPI_INT, q,
                           7, inter, MPI_STATUS_IGNORE) == MPI_SUCCESS,
              "exchange with remote rank %d", q);
        CHECK(theirs == (accepting ? 2000 : 1000) + q, "remote rank %d "
              "sent %d", q, theirs);
    }
    CHECK(MPI_Intercomm_merge(inter, accepting ? 0 : 1, &merged) ==
          MPI_SUCCESS, "merge");
    MPI_Comm_size(merged, &msize);
    MPI_Comm_rank(merged, &mrank);
    CHECK(msize == lsize + rsize, "merged size %d", msize);
    CHECK(mrank == (accepting ? me : rsize + me), "merged rank %d", mrank);
    MPI_Allreduce(&mrank, &sum, 1, MPI_INT, MPI_SUM, merged);
    want = msize * (msize - 1) / 2;
    CHECK(sum == want, "allreduce over the merged communicator: %d, "
          "expected %d", sum, want);
    MPI_Comm_free(&merged);
    /* Both groups with the same high flag: the order is the library's,
     * the same in both jobs (so the ranks are a permutation). */
    CHECK(MPI_Intercomm_merge(inter, 0, &merged) == MPI_SUCCESS, "merge");
    MPI_Comm_rank(merged, &mrank);
    MPI_Allreduce(&mrank, &sum, 1, MPI_INT, MPI_SUM, merged);
    CHECK(sum == want, "tied merge: ranks sum to %d, expected %d", sum,
          want);
    MPI_Comm_free(&merged);
}

static void cycles(const char *file, int n, int accepting)
{
    char port[MPI_MAX_PORT_NAME] = "";
    usage_t before, after;
    MPI_Comm inter;
    double t0, t;
    /* Caches (requests, UCX's pools) fill during the first cycles. */
    int warm = (n > 8) ? n / 4 : 2;
    int i, rc;

    if (accepting) {
        CHECK(MPI_Open_port(MPI_INFO_NULL, port) == MPI_SUCCESS, "open");
        if ((me == 0) && (strncmp(file, "name:", 5) == 0)) {
            CHECK(MPI_Publish_name(file + 5, MPI_INFO_NULL, port) ==
                  MPI_SUCCESS, "publish %s", file + 5);
        } else if (me == 0) {
            char tmp[4200];
            FILE *f;

            snprintf(tmp, sizeof(tmp), "%s.tmp", file);
            f = fopen(tmp, "w");
            if ((f == NULL) || (fprintf(f, "%s\n", port) < 0) ||
                (fclose(f) != 0) || (rename(tmp, file) != 0)) {
                printf("FAIL: cannot write %s\n", file);
                MPI_Abort(MPI_COMM_WORLD, 1);
            }
        }
    } else if (strncmp(file, "name:", 5) == 0) {
        if (me == 0) {
            MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
            for (i = 0; i < 1500; i++) {
                if (MPI_Lookup_name(file + 5, MPI_INFO_NULL, port) ==
                    MPI_SUCCESS) {
                    break;
                }
                usleep(20000);
            }
            MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
            CHECK(port[0] != '\0', "no port published as %s", file + 5);
            if (port[0] != '\0') {
                printf("dpm_connect: looked up %s\n", file + 5);
            }
        }
    } else {
        if (me == 0) {
            for (i = 0; i < 1500; i++) {
                FILE *f = fopen(file, "r");
                if (f != NULL) {
                    if (fgets(port, sizeof(port), f) != NULL) {
                        port[strcspn(port, "\n")] = '\0';
                    }
                    fclose(f);
                    if (port[0] != '\0') {
                        break;
                    }
                }
                usleep(20000);
            }
        }
        /* Only the root's port_name matters. */
    }
    t0 = MPI_Wtime();
    for (i = 0; i < n; i++) {
        t = MPI_Wtime();
        rc = accepting ?
             MPI_Comm_accept(port, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter) :
             MPI_Comm_connect(port, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter);
        if (rc != MPI_SUCCESS) {
            char text[MPI_MAX_ERROR_STRING];
            int len = 0;

            MPI_Error_string(rc, text, &len);
            CHECK(0, "cycle %d: %s failed: %s", i,
                  accepting ? "accept" : "connect", text);
            return;
        }
        if ((i == 0) && (me == 0)) {
            printf("dpm_connect: first %s in %.2f ms\n",
                   accepting ? "accept" : "connect",
                   (MPI_Wtime() - t) * 1e3);
        }
        use_inter(inter, accepting);
        if ((n > 3) && ((i == warm) || (i == n - 1))) {
            /* Every process of both jobs is done with this cycle's
             * traffic, and none starts more until all have measured (a
             * message that came early would be counted as heap). */
            MPI_Barrier(inter);
            measure((i == warm) ? &before : &after);
            usleep(300000);
            MPI_Barrier(inter);
        }
        CHECK(MPI_Comm_disconnect(&inter) == MPI_SUCCESS, "disconnect");
        CHECK(inter == MPI_COMM_NULL, "disconnect left the handle");
    }
    t = MPI_Wtime() - t0;
    if (n > 3) {
        CHECK(after.fds == before.fds, "%d file descriptors before the "
              "last %d cycles, %d after", before.fds, n - 1 - warm,
              after.fds);
        /* UCX's own threads allocate and free now and then, so the heap
         * in use may differ by a chunk or two between two quiet moments;
         * a leak of one allocation (32 bytes at least) in every fourth
         * cycle would already exceed the slack. */
        CHECK(after.heap <= before.heap + HEAP_SLACK, "%zu heap bytes in "
              "use before the last %d cycles, %zu after (more than %d "
              "bytes more)", before.heap, n - 1 - warm, after.heap,
              HEAP_SLACK);
        CHECK(after.conns == before.conns, "%llu connections before the "
              "last %d cycles, %llu after", before.conns, n - 1 - warm,
              after.conns);
        if (mpitest_failures == 0) {
            printf("dpm_connect: rank %d: %d cycles, %d fds, %zu/%zu heap "
                   "bytes, %llu connections before and after the last %d\n",
                   me, n, after.fds, before.heap, after.heap, after.conns,
                   n - 1 - warm);
        }
    }
    if ((mpitest_failures == 0) && (me == 0)) {
        printf("dpm_connect: %s %d times (%.1f us per cycle with its use)\n",
               accepting ? "accepted" : "connected", n, t * 1e6 / n);
    }
    if (accepting) {
        if ((me == 0) && (strncmp(file, "name:", 5) == 0)) {
            CHECK(MPI_Unpublish_name(file + 5, MPI_INFO_NULL, port) ==
                  MPI_SUCCESS, "unpublish %s", file + 5);
        }
        CHECK(MPI_Close_port(port) == MPI_SUCCESS, "close");
    }
}

/* connect to port must fail with MPI_ERR_PORT within limit seconds. */
static void expect_port_error(const char *what, const char *port,
                              MPI_Info info, double limit)
{
    MPI_Comm inter = MPI_COMM_NULL;
    double t = MPI_Wtime();
    int rc = MPI_Comm_connect(port, info, 0, MPI_COMM_WORLD, &inter);
    char text[MPI_MAX_ERROR_STRING] = "";
    int len = 0;

    t = MPI_Wtime() - t;
    if (rc != MPI_SUCCESS) {
        MPI_Error_string(rc, text, &len);
    }
    CHECK(mpitest_class(rc) == MPI_ERR_PORT, "%s: class %d (%s), expected "
          "MPI_ERR_PORT", what, mpitest_class(rc), text);
    CHECK(inter == MPI_COMM_NULL, "%s: a communicator came back", what);
    CHECK(t < limit, "%s: took %.1f s", what, t);
    if ((mpitest_class(rc) == MPI_ERR_PORT) && (me == 0)) {
        printf("dpm_connect: %s refused in %.2f s: %s\n", what, t, text);
    }
}

static void errors(const char *file)
{
    char port[MPI_MAX_PORT_NAME], bad[MPI_MAX_PORT_NAME];
    MPI_Comm inter = MPI_COMM_NULL;
    MPI_Info info;
    size_t k;

    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    expect_port_error("a name that is no port", "no such port", MPI_INFO_NULL,
                      5.0);
    CHECK(MPI_Open_port(MPI_INFO_NULL, port) == MPI_SUCCESS, "open");
    /* The token sits in the slot name's bytes 20..27 (hex digits 40..55
     * after the prefix): change one of them. */
    strcpy(bad, port);
    k = strlen(bad) - 2 * GCM_SLOTNAME_SIZE + 2 * 20 + 3;
    bad[k] = (bad[k] == '0') ? '1' : '0';
    expect_port_error("a port with a wrong token", bad, MPI_INFO_NULL, 5.0);
    MPI_Info_create(&info);
    MPI_Info_set(info, "timeout", "1");
    expect_port_error("a port nobody accepts on (timeout 1 s)", port, info,
                      5.0);
    MPI_Info_set(info, "timeout", "soon");
    {
        int rc = MPI_Comm_connect(port, info, 0, MPI_COMM_WORLD, &inter);
        CHECK(mpitest_class(rc) == MPI_ERR_INFO_VALUE, "timeout 'soon': "
              "class %d", mpitest_class(rc));
    }
    MPI_Info_free(&info);
    CHECK(MPI_Close_port(port) == MPI_SUCCESS, "close");
    expect_port_error("a closed port", port, MPI_INFO_NULL, 5.0);
    CHECK(mpitest_class(MPI_Comm_accept(port, MPI_INFO_NULL, 0,
                                      MPI_COMM_WORLD, &inter)) ==
          MPI_ERR_PORT, "accept on a port not opened");
    CHECK(mpitest_class(MPI_Close_port(port)) == MPI_ERR_PORT,
          "closing a closed port");
    /* The name service. */
    {
        char service[64], found[MPI_MAX_PORT_NAME];

        snprintf(service, sizeof(service), "dpm-errors-%ld-%d",
                 (long)getpid(), me);
        CHECK(mpitest_class(MPI_Lookup_name(service, MPI_INFO_NULL, found)) ==
              MPI_ERR_NAME, "lookup of an unknown name");
        CHECK(MPI_Publish_name(service, MPI_INFO_NULL, "some-port") ==
              MPI_SUCCESS, "publish");
        CHECK(mpitest_class(MPI_Publish_name(service, MPI_INFO_NULL,
                                           "some-port")) == MPI_ERR_SERVICE,
              "publishing a name twice");
        CHECK((MPI_Lookup_name(service, MPI_INFO_NULL, found) ==
               MPI_SUCCESS) && (strcmp(found, "some-port") == 0),
              "lookup of a published name");
        CHECK(mpitest_class(MPI_Unpublish_name(service, MPI_INFO_NULL,
                                             "other-port")) ==
              MPI_ERR_SERVICE, "unpublishing with another port");
        CHECK(MPI_Unpublish_name(service, MPI_INFO_NULL, "some-port") ==
              MPI_SUCCESS, "unpublish");
        CHECK(mpitest_class(MPI_Lookup_name(service, MPI_INFO_NULL, found)) ==
              MPI_ERR_NAME, "lookup of an unpublished name");
        CHECK(mpitest_class(MPI_Unpublish_name(service, MPI_INFO_NULL,
                                             "some-port")) ==
              MPI_ERR_SERVICE, "unpublishing a name not published");
        if ((mpitest_failures == 0) && (me == 0)) {
            printf("dpm_connect: name service errors ok\n");
        }
    }
    if (file != NULL) {
        FILE *f = fopen(file, "r");

        port[0] = '\0';
        if ((f != NULL) && (fgets(port, sizeof(port), f) != NULL)) {
            port[strcspn(port, "\n")] = '\0';
        }
        if (f != NULL) {
            fclose(f);
        }
        expect_port_error("the port of a job that has ended", port,
                          MPI_INFO_NULL, 10.0);
    }
}

/* MPI_Comm_join over a TCP connection on the loopback between ranks 0
 * and 1. */
static void join(void)
{
    struct sockaddr_in sa;
    socklen_t salen = sizeof(sa);
    MPI_Comm inter = MPI_COMM_NULL;
    int fd = -1, lfd, port = 0, rsize = 0, v = me, got = -1;

    memset(&sa, 0, sizeof(sa));
    sa.sin_family      = AF_INET;
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (me == 0) {
        lfd = socket(AF_INET, SOCK_STREAM, 0);
        CHECK((lfd >= 0) && (bind(lfd, (struct sockaddr *)&sa,
                                  sizeof(sa)) == 0) &&
              (listen(lfd, 1) == 0) &&
              (getsockname(lfd, (struct sockaddr *)&sa, &salen) == 0),
              "listen");
        port = ntohs(sa.sin_port);
        MPI_Send(&port, 1, MPI_INT, 1, 1, MPI_COMM_WORLD);
        fd = accept(lfd, NULL, NULL);
        close(lfd);
    } else if (me == 1) {
        MPI_Recv(&port, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        sa.sin_port = htons((uint16_t)port);
        fd = socket(AF_INET, SOCK_STREAM, 0);
        CHECK(connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0,
              "connect to rank 0");
    }
    if (me > 1) {
        return;
    }
    CHECK(MPI_Comm_join(fd, &inter) == MPI_SUCCESS, "join");
    close(fd);
    MPI_Comm_remote_size(inter, &rsize);
    CHECK(rsize == 1, "remote size %d", rsize);
    MPI_Sendrecv(&v, 1, MPI_INT, 0, 2, &got, 1, MPI_INT, 0, 2, inter,
                 MPI_STATUS_IGNORE);
    CHECK(got == 1 - me, "got %d from the joined process", got);
    CHECK(MPI_Comm_disconnect(&inter) == MPI_SUCCESS, "disconnect");
    if ((mpitest_failures == 0) && (me == 0)) {
        printf("dpm_connect: joined over a socket\n");
    }
}

static void inner(int n)
{
    char port[MPI_MAX_PORT_NAME];
    MPI_Comm inter;
    int i, v;

    for (i = 0; (i < n) && (me < 2); i++) {
        v = -1;
        if (me == 0) {
            MPI_Open_port(MPI_INFO_NULL, port);
            MPI_Send(port, MPI_MAX_PORT_NAME, MPI_CHAR, 1, 8, MPI_COMM_WORLD);
            MPI_Comm_accept(port, MPI_INFO_NULL, 0, MPI_COMM_SELF, &inter);
            MPI_Recv(&v, 1, MPI_INT, 0, 8, inter, MPI_STATUS_IGNORE);
            CHECK(v == i, "cycle %d: got %d", i, v);
            MPI_Close_port(port);
        } else {
            MPI_Recv(port, MPI_MAX_PORT_NAME, MPI_CHAR, 0, 8, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
            MPI_Comm_connect(port, MPI_INFO_NULL, 0, MPI_COMM_SELF, &inter);
            MPI_Send(&i, 1, MPI_INT, 0, 8, inter);
        }
        MPI_Comm_disconnect(&inter);
    }
    if ((mpitest_failures == 0) && (me == 0)) {
        printf("dpm_connect: %d connections within a job, each used at "
               "once\n", n);
    }
}

static void merged(int n)
{
    char port[MPI_MAX_PORT_NAME];
    MPI_Comm side, inter, all;
    int i, sum;

    MPI_Comm_split(MPI_COMM_WORLD, me < 2, me, &side);
    for (i = 0; (i < n) && (np == 3); i++) {
        if (me == 0) {
            MPI_Open_port(MPI_INFO_NULL, port);
            MPI_Send(port, MPI_MAX_PORT_NAME, MPI_CHAR, 2, 9, MPI_COMM_WORLD);
        }
        if (me < 2) {
            MPI_Comm_accept(port, MPI_INFO_NULL, 0, side, &inter);
        } else {
            MPI_Recv(port, MPI_MAX_PORT_NAME, MPI_CHAR, 0, 9, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
            MPI_Comm_connect(port, MPI_INFO_NULL, 0, side, &inter);
        }
        MPI_Intercomm_merge(inter, me == 2, &all);
        sum = -1;
        MPI_Allreduce(&me, &sum, 1, MPI_INT, MPI_SUM, all);
        CHECK(sum == 3, "cycle %d: the sum over the merged group is %d", i,
              sum);
        MPI_Comm_free(&all);
        MPI_Comm_disconnect(&inter);
        if (me == 0) {
            MPI_Close_port(port);
        }
    }
    MPI_Comm_free(&side);
    CHECK(np == 3, "merged needs 3 processes, not %d", np);
    if ((mpitest_failures == 0) && (me == 0)) {
        printf("dpm_connect: %d connections within a job merged and "
               "reduced at once\n", n);
    }
}

/* A record of service "stale" in dir as a publisher on this host that
 * is gone (no process has pid 999999999) would leave it. */
static void stale_record(const char *dir)
{
    char host[MPI_MAX_PROCESSOR_NAME], tmp[4200], path[4200];
    FILE *f;
    int len;

    MPI_Get_processor_name(host, &len);
    snprintf(tmp, sizeof(tmp), "%s/.stale.tmp", dir);
    snprintf(path, sizeof(path), "%s/stale", dir);
    f = fopen(tmp, "w");
    CHECK(f != NULL, "cannot write %s", tmp);
    if (f != NULL) {
        fprintf(f, "gencomm-port-of-the-dead\n%s 999999999\n", host);
        fclose(f);
        CHECK(rename(tmp, path) == 0, "cannot rename %s", tmp);
    }
}

static void stale_names(const char *dir, int n)
{
    char port[MPI_MAX_PORT_NAME], found[MPI_MAX_PORT_NAME];
    double t0;
    int i, got;

    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    for (i = 0; (i < n) && (me < 2) && (mpitest_failures == 0); i++) {
        snprintf(port, sizeof(port), "stale-test-port-%d", i);
        if (me == 0) {
            stale_record(dir);
        }
        MPI_Barrier(MPI_COMM_WORLD);
        if (me == 0) {
            CHECK(MPI_Publish_name("stale", MPI_INFO_NULL, port) ==
                  MPI_SUCCESS, "round %d: publishing over a gone "
                  "publisher's record failed", i);
        } else {
            got = 0;
            t0 = MPI_Wtime();
            while (!got && (MPI_Wtime() - t0 < 5.0)) {
                got = (MPI_Lookup_name("stale", MPI_INFO_NULL, found) ==
                       MPI_SUCCESS) && (strcmp(found, port) == 0);
            }
            CHECK(got, "round %d: the port published never became "
                  "visible (a lookup removed it)", i);
        }
        MPI_Barrier(MPI_COMM_WORLD);
        if (me == 0) {
            CHECK(MPI_Unpublish_name("stale", MPI_INFO_NULL, port) ==
                  MPI_SUCCESS, "round %d: unpublish", i);
        }
    }
    if ((mpitest_failures == 0) && (me == 0)) {
        printf("dpm_connect: %d names published over a gone publisher's "
               "record, found by a concurrent lookup\n", n);
    }
}

/* The victim's port is FILE's; the victim dies once connected (silent:
 * it waits for the test to kill it, progressing nothing). */
static void victim(const char *file, int is_victim, int stop)
{
    MPI_Request req;
    char port[MPI_MAX_PORT_NAME] = "";
    MPI_Comm inter;
    double t;
    int v = 0, rc, i;

    if (is_victim) {
        FILE *f;
        char tmp[4200];

        MPI_Open_port(MPI_INFO_NULL, port);
        snprintf(tmp, sizeof(tmp), "%s.tmp", file);
        f = fopen(tmp, "w");
        if ((f == NULL) || (fprintf(f, "%s\n", port) < 0) ||
            (fclose(f) != 0) || (rename(tmp, file) != 0)) {
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        MPI_Comm_accept(port, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter);
        if (stop) {
            /* Alive but silent while the other side connects to it and
             * waits (UCX never completes the set-up of their connections
             * to it); the test kills it then. */
            snprintf(tmp, sizeof(tmp), "%s.pid", file);
            f = fopen(tmp, "w");
            if ((f == NULL) || (fprintf(f, "%d\n", (int)getpid()) < 0) ||
                (fclose(f) != 0)) {
                MPI_Abort(MPI_COMM_WORLD, 1);
            }
            for (;;) {
                pause();
            }
        }
        /* Connected: now it is gone, whatever the other side waits for. */
        raise(SIGKILL);
    }
    for (i = 0; (i < 1500) && (port[0] == '\0'); i++) {
        FILE *f = fopen(file, "r");
        if (f != NULL) {
            if (fgets(port, sizeof(port), f) != NULL) {
                port[strcspn(port, "\n")] = '\0';
            }
            fclose(f);
        }
        if (port[0] == '\0') {
            usleep(20000);
        }
    }
    MPI_Comm_connect(port, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter);
    MPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN);
    t = MPI_Wtime();
    rc = MPI_Irecv(&v, 1, MPI_INT, 0, 9, inter, &req);
    if (rc == MPI_SUCCESS) {
        char mark[4200];
        FILE *f;

        snprintf(mark, sizeof(mark), "%s.wait%d", file, me);
        f = fopen(mark, "w");
        CHECK((f != NULL) && (fclose(f) == 0), "cannot make %s", mark);
        rc = MPI_Wait(&req, MPI_STATUS_IGNORE);
    }
    t = MPI_Wtime() - t;
    CHECK(mpitest_class(rc) == MPI_ERR_PROC_FAILED, "receive from a killed "
          "job: class %d", mpitest_class(rc));
    if (mpitest_class(rc) == MPI_ERR_PROC_FAILED) {
        printf("dpm_connect: receive from a killed job failed in %.2f s "
               "with MPI_ERR_PROC_FAILED\n", t);
    }
    MPI_Comm_free(&inter);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    if ((argc >= 4) && (strcmp(argv[1], "accept") == 0)) {
        cycles(argv[2], atoi(argv[3]), 1);
    } else if ((argc >= 4) && (strcmp(argv[1], "connect") == 0)) {
        cycles(argv[2], atoi(argv[3]), 0);
    } else if ((argc >= 3) && ((strcmp(argv[1], "victim") == 0) ||
                               (strcmp(argv[1], "silent") == 0) ||
                               (strcmp(argv[1], "survivor") == 0))) {
        victim(argv[2], strcmp(argv[1], "survivor") != 0,
               strcmp(argv[1], "silent") == 0);
    } else if ((argc >= 3) && (strcmp(argv[1], "inner") == 0)) {
        inner(atoi(argv[2]));
    } else if ((argc >= 3) && (strcmp(argv[1], "merged") == 0)) {
        merged(atoi(argv[2]));
    } else if ((argc >= 4) && (strcmp(argv[1], "stale") == 0)) {
        stale_names(argv[2], atoi(argv[3]));
    } else if ((argc >= 2) && (strcmp(argv[1], "join") == 0)) {
        join();
    } else if ((argc >= 2) && (strcmp(argv[1], "errors") == 0)) {
        errors((argc >= 3) ? argv[2] : NULL);
    } else {
        printf("usage: dpm_connect accept|connect FILE N | errors [FILE]\n");
        mpitest_failures++;
    }
    MPI_Finalize();
    if (mpitest_failures == 0) {
        printf("dpm_connect: rank %d ok\n", me);
    }
    return (mpitest_failures == 0) ? 0 : 1;
}
