/*
 * threads/thr_ask.c: asking the contact of another job's process for its
 * endpoint count and the worker address of one of its endpoints (the
 * client side of the protocol in thr_procs.h).
 */
#define _GNU_SOURCE
#include "config.h"

#include "threads/thr_procs.h"
#include "boot/boot.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* Waits until fd is ready for events or the deadline passes. */
static int gcm_thr_contact_wait(int fd, short events, double deadline)
{
    struct pollfd pfd = { .fd = fd, .events = events };

    for (;;) {
        double left = deadline - gcm_time_now();
        int rc;

        if (left <= 0) {
            return 0;
        }
        rc = poll(&pfd, 1, (int)(left * 1000) + 1);
        if ((rc < 0) && (errno == EINTR)) {
            continue;
        }
        return rc > 0;
    }
}

/* Why a wait for fd gave up: the deadline, or an error of poll. */
static gcm_thr_contact_end_t gcm_thr_contact_gave_up(double deadline)
{
    return (gcm_time_now() >= deadline) ? GCM_THR_CONTACT_TIMEOUT :
                                          GCM_THR_CONTACT_CLOSED;
}

gcm_thr_contact_end_t gcm_thr_contact_read(int fd, void *buf, size_t len,
                                           double deadline)
{
    unsigned char *p = buf;

    while (len > 0) {
        ssize_t n = read(fd, p, len);
        if (n > 0) {
            p   += n;
            len -= (size_t)n;
            continue;
        }
        if (n == 0) {
            return GCM_THR_CONTACT_CLOSED;
        }
        if (errno == EINTR) {
            continue;
        }
        if ((errno != EAGAIN) && (errno != EWOULDBLOCK)) {
            return GCM_THR_CONTACT_CLOSED;
        }
        if (!gcm_thr_contact_wait(fd, POLLIN, deadline)) {
            return gcm_thr_contact_gave_up(deadline);
        }
    }
    return GCM_THR_CONTACT_DONE;
}

gcm_thr_contact_end_t gcm_thr_contact_write(int fd, const void *buf,
                                            size_t len, double deadline)
{
    const unsigned char *p = buf;

    while (len > 0) {
        ssize_t n = send(fd, p, len, MSG_NOSIGNAL);
        if (n > 0) {
            p   += n;
            len -= (size_t)n;
            continue;
        }
        if ((n < 0) && (errno == EINTR)) {
            continue;
        }
        if ((n < 0) && ((errno == EAGAIN) || (errno == EWOULDBLOCK))) {
            if (gcm_thr_contact_wait(fd, POLLOUT, deadline)) {
                continue;
            }
            return gcm_thr_contact_gave_up(deadline);
        }
        return GCM_THR_CONTACT_CLOSED;
    }
    return GCM_THR_CONTACT_DONE;
}

int gcm_thr_contact_open(const gcm_thr_contact_t *contact, double deadline,
                         int *err_p)
{
    struct sockaddr_in sa;
    socklen_t elen = sizeof(int);
    int fd, err = 0;

    fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0) {
        *err_p = errno;
        return -2;
    }
    memset(&sa, 0, sizeof(sa));
    sa.sin_family      = AF_INET;
    sa.sin_port        = htons(contact->port);
    sa.sin_addr.s_addr = htonl(contact->ip4);
    if ((connect(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0) &&
        (errno != EINPROGRESS)) {
        err = errno;
    } else if (!gcm_thr_contact_wait(fd, POLLOUT, deadline)) {
        err = ETIMEDOUT;
    } else if ((getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &elen) != 0)) {
        err = errno;
    }
    if (err != 0) {
        close(fd);
        *err_p = err;
        return -1;
    }
    return fd;
}

gcm_thr_contact_end_t gcm_thr_contact_request(int fd, int ep,
                                              unsigned char *rep,
                                              double deadline)
{
    unsigned char req[GCM_CONTACT_REQ_SIZE];
    gcm_thr_contact_end_t end;

    memcpy(req, "GCMC", 4);
    gcm_put_le(req + 4, GCM_CONTACT_VERSION, 2);
    gcm_put_le(req + 6, (uint64_t)ep, 2);
    end = gcm_thr_contact_write(fd, req, sizeof(req), deadline);
    if (end == GCM_THR_CONTACT_DONE) {
        end = gcm_thr_contact_read(fd, rep, GCM_CONTACT_REP_SIZE, deadline);
    }
    if ((end == GCM_THR_CONTACT_DONE) &&
        ((memcmp(rep, "GCMR", 4) != 0) ||
         (gcm_get_le(rep + 4, 2) != GCM_CONTACT_VERSION))) {
        end = GCM_THR_CONTACT_MALFORMED;
    }
    return end;
}

/* What an exchange that did not end well says happened (the contact
 * of rank of job, at ip:port; printf arguments after the format). */
#define GCM_CONTACT_FMT "the contact of rank %u of job %016llx at " \
                        "%u.%u.%u.%u:%u"
#define GCM_CONTACT_ARGS(_c, _job, _rank) \
    (_rank), (unsigned long long)(_job), (_c)->ip4 >> 24, \
    ((_c)->ip4 >> 16) & 0xff, ((_c)->ip4 >> 8) & 0xff, (_c)->ip4 & 0xff, \
    (_c)->port

static gcm_status_t gcm_contact_fail(gcm_thr_contact_end_t end,
                                     const gcm_thr_contact_t *contact,
                                     uint64_t job, uint32_t rank,
                                     const char *what)
{
    switch (end) {
    case GCM_THR_CONTACT_TIMEOUT:
        return gcm_fail(GCM_ERR_PEER_FAILED, "connect", GCM_CONTACT_FMT
                        " did not send its %s within %u s "
                        "(GENCOMM_CONNECT_TIMEOUT)",
                        GCM_CONTACT_ARGS(contact, job, rank), what,
                        gcm_thr_config.connect_timeout);
    case GCM_THR_CONTACT_MALFORMED:
        return gcm_fail(GCM_ERR_PEER_FAILED, "connect", GCM_CONTACT_FMT
                        " answered something that is not a contact reply: "
                        "another program listens there now",
                        GCM_CONTACT_ARGS(contact, job, rank));
    default:
        return gcm_fail(GCM_ERR_PEER_FAILED, "connect", GCM_CONTACT_FMT
                        " closed the connection before its %s: the process "
                        "is ending, or another program listens there now",
                        GCM_CONTACT_ARGS(contact, job, rank), what);
    }
}

/* Asks process (job, rank) at contact for the worker address of its
 * endpoint ep: *addr_p malloc'd. */
static gcm_status_t gcm_contact_ask(const gcm_thr_contact_t *contact,
                                    uint64_t job, uint32_t rank, int ep,
                                    int *neps_p, void **addr_p,
                                    size_t *len_p)
{
    double deadline = gcm_time_now() + gcm_thr_config.connect_timeout;
    unsigned char rep[GCM_CONTACT_REP_SIZE];
    gcm_thr_contact_end_t end;
    const char *why;
    size_t alen;
    uint32_t len;
    int fd, err = 0;
    void *addr;

    if (contact->port == 0) {
        return gcm_fail(GCM_ERR_PEER_FAILED, "connect", "rank %u of job "
                        "%016llx has no contact to reach it by", rank,
                        (unsigned long long)job);
    }
    fd = gcm_thr_contact_open(contact, deadline, &err);
    if (fd == -2) {
        return gcm_fail(GCM_ERR_TRANSPORT, "connect", "socket: %s",
                        strerror(err));
    }
    if ((fd < 0) && (err == ETIMEDOUT)) {
        return gcm_fail(GCM_ERR_PEER_FAILED, "connect", GCM_CONTACT_FMT
                        " took no connection within %u s "
                        "(GENCOMM_CONNECT_TIMEOUT)",
                        GCM_CONTACT_ARGS(contact, job, rank),
                        gcm_thr_config.connect_timeout);
    }
    if (fd < 0) {
        return gcm_fail(GCM_ERR_PEER_FAILED, "connect", GCM_CONTACT_FMT
                        " refused the connection (%s): the process has "
                        "ended, or never existed",
                        GCM_CONTACT_ARGS(contact, job, rank),
                        strerror(err));
    }
    end = gcm_thr_contact_request(fd, ep, rep, deadline);
    if (end != GCM_THR_CONTACT_DONE) {
        close(fd);
        return gcm_contact_fail(end, contact, job, rank, "reply");
    }
    if ((gcm_get_le(rep + 8, 8) != job) ||
        (gcm_get_le(rep + 16, 4) != rank)) {
        close(fd);
        return gcm_fail(GCM_ERR_PEER_FAILED, "connect", "rank %u of job "
                        "%016llx is gone: its contact now answers for "
                        "another process", rank, (unsigned long long)job);
    }
    *neps_p = (int)gcm_get_le(rep + 20, 2);
    len     = (uint32_t)gcm_get_le(rep + 28, 4);
    if (gcm_get_le(rep + 6, 2) != 0) {
        close(fd);
        return gcm_fail(GCM_ERR_NO_SUCH_LCO, "connect", "rank %u of job "
                        "%016llx has no endpoint %d", rank,
                        (unsigned long long)job, ep);
    }
    if ((*neps_p < 1) || (*neps_p > GCM_MAX_ENDPOINTS) || (len == 0) ||
        (len > GCM_CONTACT_ADDR_MAX)) {
        close(fd);
        return gcm_fail(GCM_ERR_PEER_FAILED, "connect", "the contact of "
                        "rank %u of job %016llx answered a malformed reply "
                        "(%d endpoints, a %u-byte address)", rank,
                        (unsigned long long)job, *neps_p, len);
    }
    addr = malloc(len);
    if (addr == NULL) {
        close(fd);
        return GCM_ERR_NO_MEMORY;
    }
    end = gcm_thr_contact_read(fd, addr, len, deadline);
    close(fd);
    if (end != GCM_THR_CONTACT_DONE) {
        free(addr);
        return gcm_contact_fail(end, contact, job, rank, "whole reply");
    }
    if (gcm_thr_addr_decode(addr, len, &alen, &why) != GCM_OK) {
        free(addr);
        return gcm_fail(GCM_ERR_TRANSPORT, "connect", "the contact of rank "
                        "%u of job %016llx answered a malformed worker "
                        "address (%s)", rank, (unsigned long long)job, why);
    }
    *addr_p = addr;
    *len_p  = len;
    return GCM_OK;
}

/* Fills what the contact of other process proc says about its endpoint
 * rep (lock not held). */
static gcm_status_t gcm_thr_other_fetch(int proc, int rep)
{
    gcm_thr_contact_t contact;
    uint64_t job;
    uint32_t rank;
    gcm_thr_other_t *o;
    gcm_status_t status;
    size_t len = 0;
    void *addr = NULL;
    int neps = 0;

    gcm_thr_proc_ident(proc, &job, &rank, &contact);
    status = gcm_contact_ask(&contact, job, rank, rep, &neps, &addr, &len);
    if (status != GCM_OK) {
        return status;
    }
    pthread_mutex_lock(&gcm_thr_procs.lock);
    o = gcm_thr_other_of(proc);
    if (o->neps == 0) {
        o->neps = neps;
    }
    if ((rep < GCM_MAX_ENDPOINTS) && (o->addr[rep] == NULL)) {
        o->addr[rep]     = addr;
        o->addr_len[rep] = len;
        addr = NULL;
    }
    pthread_mutex_unlock(&gcm_thr_procs.lock);
    free(addr);
    return GCM_OK;
}

int gcm_thr_proc_other_endpoints(int proc)
{
    gcm_thr_other_t *o;
    int neps;

    pthread_mutex_lock(&gcm_thr_procs.lock);
    o = gcm_thr_other_of(proc);
    neps = (o != NULL) ? o->neps : 1;
    pthread_mutex_unlock(&gcm_thr_procs.lock);
    if (neps > 0) {
        return neps;
    }
    if (gcm_thr_other_fetch(proc, 0) != GCM_OK) {
        return 1;
    }
    pthread_mutex_lock(&gcm_thr_procs.lock);
    neps = gcm_thr_other_of(proc)->neps;
    pthread_mutex_unlock(&gcm_thr_procs.lock);
    return (neps > 0) ? neps : 1;
}

gcm_status_t gcm_thr_proc_address(int proc, int rep, void **addr_p,
                                  size_t *len_p)
{
    gcm_thr_other_t *o;
    gcm_status_t status;
    int tries;

    if ((rep < 0) || (rep >= GCM_MAX_ENDPOINTS)) {
        return gcm_fail(GCM_ERR_NO_SUCH_LCO, "connect", "no endpoint %d",
                        rep);
    }
    for (tries = 0; tries < 2; tries++) {
        pthread_mutex_lock(&gcm_thr_procs.lock);
        o = gcm_thr_other_of(proc);
        if (o == NULL) {
            pthread_mutex_unlock(&gcm_thr_procs.lock);
            return gcm_fail(GCM_ERR_INVALID_PARAM, "connect",
                            "no process %d", proc);
        }
        if ((o->neps > 0) && (rep >= o->neps)) {
            pthread_mutex_unlock(&gcm_thr_procs.lock);
            return gcm_fail(GCM_ERR_NO_SUCH_LCO, "connect", "rank %u of "
                            "job %016llx has no endpoint %d (it has %d)",
                            o->rank, (unsigned long long)o->job, rep,
                            o->neps);
        }
        if (o->addr[rep] != NULL) {
            *addr_p = malloc(o->addr_len[rep]);
            if (*addr_p == NULL) {
                pthread_mutex_unlock(&gcm_thr_procs.lock);
                return GCM_ERR_NO_MEMORY;
            }
            memcpy(*addr_p, o->addr[rep], o->addr_len[rep]);
            *len_p = o->addr_len[rep];
            pthread_mutex_unlock(&gcm_thr_procs.lock);
            return GCM_OK;
        }
        pthread_mutex_unlock(&gcm_thr_procs.lock);
        status = gcm_thr_other_fetch(proc, rep);
        if (status != GCM_OK) {
            return status;
        }
    }
    return gcm_fail(GCM_ERR_PEER_FAILED, "connect", "no address for "
                    "endpoint %d of process %d", rep, proc);
}
