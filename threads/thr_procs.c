/*
 * threads/thr_procs.c: processes of other jobs, their contacts, and who is
 * on a connection that one of them opens.
 *
 * The table: a process of another job gets the next index from the job
 * size up, once per (job identity, rank). Its contact comes with the
 * name, port or handshake that made us learn of it; its endpoint count
 * and worker addresses are asked from the contact when first needed, or
 * taken from the HELLO it sends when it connects first.
 *
 * The contact service: a TCP socket on the address UCX would use (the
 * first device of UCX_NET_DEVICES, else the first interface that is up
 * and not loopback, else loopback), started at the first call that needs
 * this process's contact (a name, a port), and a thread that answers each
 * connection with one reply: this process's job identity, rank, endpoint
 * count, pid and the worker address of the endpoint asked for. The thread
 * blocks in accept(); finalize shuts the socket down, which wakes it.
 *
 *   request (8 bytes):  "GCMC", u16 version 1, u16 endpoint
 *   reply  (32 bytes):  "GCMR", u16 version 1, u16 status (0 ok, 1 no
 *                       such endpoint), u64 job, u32 rank, u16 endpoint
 *                       count, u16 0, u32 pid, u32 address length, then
 *                       the address (at most GCM_THR_ADDR_MAX bytes)
 *
 * all little-endian. A client checks the reply's job and rank against the
 * process it meant: a contact of a process that is gone may be another
 * process's by now.
 *
 * HELLO: the process that opens a UCX connection to another job's process
 * first sends GCM_AM_HELLO (its job identity, rank, endpoint, endpoint
 * count, contact and that endpoint's worker address). The receiver makes
 * its own UCX endpoint to that address: UCX pairs the two ends of a
 * connection between two workers (one endpoint per pair), so the endpoint
 * it gets is the one the HELLO came on only if the sender owns that
 * worker. Then the connection is known, and every later message on that
 * UCX endpoint is that process's, whatever its envelope says.
 */
#define _GNU_SOURCE
#include "config.h"

#include "threads/thr_impl.h"
#include "boot/boot.h"

#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define GCM_CONTACT_REQ_SIZE  8
#define GCM_CONTACT_REP_SIZE  32
#define GCM_CONTACT_VERSION   1
/* How often the contact of a process of another job is asked whether it
 * lives while its connection is being set up, and how long one question
 * may take (it is asked with the endpoint's lock held). */
#define GCM_THR_PROBE_S       1.0
#define GCM_THR_PROBE_WAIT_S  0.1
#define GCM_CONTACT_ADDR_MAX  8192
#define GCM_HELLO_MAGIC       0x48434d47u  /* "GMCH" little-endian */
#define GCM_HELLO_VERSION     1

typedef struct gcm_thr_other {
    uint64_t          job;
    uint32_t          rank;
    gcm_thr_contact_t contact;
    int               neps;    /* 0 until known */
    void             *addr[GCM_MAX_ENDPOINTS];
    size_t            addr_len[GCM_MAX_ENDPOINTS];
} gcm_thr_other_t;

static struct {
    /* Protects the table and what is filled in later. */
    pthread_mutex_t   lock;
    int               job_size;
    int               nother;
    gcm_thr_other_t  *other[GCM_THR_MAX_OTHER];
    /* The contact service (contact_lock: starting and stopping it). */
    pthread_mutex_t   contact_lock;
    int               contact_up;
    int               lfd;
    pthread_t         thread;
    gcm_thr_contact_t self;
} gcm_procs = { .lock = PTHREAD_MUTEX_INITIALIZER,
                .contact_lock = PTHREAD_MUTEX_INITIALIZER, .lfd = -1 };

static void gcm_put_le(unsigned char *p, uint64_t v, int n)
{
    int i;

    for (i = 0; i < n; i++) {
        p[i] = (unsigned char)(v >> (8 * i));
    }
}

static uint64_t gcm_get_le(const unsigned char *p, int n)
{
    uint64_t v = 0;
    int i;

    for (i = 0; i < n; i++) {
        v |= (uint64_t)p[i] << (8 * i);
    }
    return v;
}

/* ---- the table ------------------------------------------------------------ */

gcm_status_t gcm_thr_procs_init(int job_size)
{
    pthread_mutex_lock(&gcm_procs.lock);
    gcm_procs.job_size = job_size;
    gcm_procs.nother   = 0;
    pthread_mutex_unlock(&gcm_procs.lock);
    return GCM_OK;
}

static void gcm_thr_contact_stop(void);

void gcm_thr_procs_finalize(void)
{
    int i, k;

    gcm_thr_contact_stop();
    pthread_mutex_lock(&gcm_procs.lock);
    for (i = 0; i < gcm_procs.nother; i++) {
        gcm_thr_other_t *o = gcm_procs.other[i];
        for (k = 0; k < GCM_MAX_ENDPOINTS; k++) {
            free(o->addr[k]);
        }
        free(o);
        gcm_procs.other[i] = NULL;
    }
    gcm_procs.nother = 0;
    pthread_mutex_unlock(&gcm_procs.lock);
}

int gcm_thr_procs_cap(void)
{
    return gcm_procs.job_size + GCM_THR_MAX_OTHER;
}

int gcm_thr_proc_other(int proc)
{
    return proc >= gcm_procs.job_size;
}

/* Lock held. */
static gcm_thr_other_t *gcm_thr_other_of(int proc)
{
    int i = proc - gcm_procs.job_size;

    if ((i < 0) || (i >= gcm_procs.nother)) {
        return NULL;
    }
    return gcm_procs.other[i];
}

int gcm_thr_proc_lookup(uint64_t job, uint32_t rank,
                        const gcm_thr_contact_t *contact)
{
    gcm_thr_other_t *o;
    int i, proc = -1;

    if (job == gcm_boot_job_ident()) {
        if (rank >= (uint32_t)gcm_procs.job_size) {
            gcm_fail(GCM_ERR_INVALID_PARAM, "connect", "rank %u of this "
                     "job, which has %d processes", rank,
                     gcm_procs.job_size);
            return -1;
        }
        return (int)rank;
    }
    pthread_mutex_lock(&gcm_procs.lock);
    for (i = 0; i < gcm_procs.nother; i++) {
        o = gcm_procs.other[i];
        if ((o->job == job) && (o->rank == rank)) {
            if ((o->contact.port == 0) && (contact != NULL)) {
                o->contact = *contact;
            }
            proc = gcm_procs.job_size + i;
            goto out;
        }
    }
    if (gcm_procs.nother == GCM_THR_MAX_OTHER) {
        gcm_fail(GCM_ERR_NO_MEMORY, "connect", "this process knows %d "
                 "processes of other jobs already, the most it can",
                 GCM_THR_MAX_OTHER);
        goto out;
    }
    o = calloc(1, sizeof(*o));
    if (o == NULL) {
        gcm_fail(GCM_ERR_NO_MEMORY, "connect", "no memory for a process "
                 "of another job");
        goto out;
    }
    o->job  = job;
    o->rank = rank;
    if (contact != NULL) {
        o->contact = *contact;
    }
    gcm_procs.other[gcm_procs.nother] = o;
    proc = gcm_procs.job_size + gcm_procs.nother;
    gcm_procs.nother++;
    gcm_debug("process %d is rank %u of job %016llx", proc, rank,
              (unsigned long long)job);
out:
    pthread_mutex_unlock(&gcm_procs.lock);
    return proc;
}

void gcm_thr_proc_ident(int proc, uint64_t *job_p, uint32_t *rank_p,
                        gcm_thr_contact_t *contact_p)
{
    gcm_thr_other_t *o;

    if (!gcm_thr_proc_other(proc)) {
        *job_p  = gcm_boot_job_ident();
        *rank_p = (uint32_t)proc;
        if (proc == gcm_boot_rank()) {
            if (gcm_thr_contact_self(contact_p) != GCM_OK) {
                memset(contact_p, 0, sizeof(*contact_p));
            }
        } else {
            /* Another job reaches this job's other processes through
             * their own names. */
            memset(contact_p, 0, sizeof(*contact_p));
        }
        return;
    }
    pthread_mutex_lock(&gcm_procs.lock);
    o = gcm_thr_other_of(proc);
    if (o != NULL) {
        *job_p     = o->job;
        *rank_p    = o->rank;
        *contact_p = o->contact;
    } else {
        *job_p  = 0;
        *rank_p = 0;
        memset(contact_p, 0, sizeof(*contact_p));
    }
    pthread_mutex_unlock(&gcm_procs.lock);
}

/* ---- asking a contact --------------------------------------------------- */

/* Waits until fd is ready for events or the deadline passes. */
static int gcm_contact_wait(int fd, short events, double deadline)
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

/* Reads exactly len bytes before the deadline. */
static gcm_status_t gcm_contact_read(int fd, void *buf, size_t len,
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
            return GCM_ERR_PEER_FAILED;
        }
        if (errno == EINTR) {
            continue;
        }
        if ((errno != EAGAIN) && (errno != EWOULDBLOCK)) {
            return GCM_ERR_PEER_FAILED;
        }
        if (!gcm_contact_wait(fd, POLLIN, deadline)) {
            return GCM_ERR_PEER_FAILED;
        }
    }
    return GCM_OK;
}

static gcm_status_t gcm_contact_write(int fd, const void *buf, size_t len,
                                      double deadline)
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
        if ((n < 0) && ((errno == EAGAIN) || (errno == EWOULDBLOCK)) &&
            gcm_contact_wait(fd, POLLOUT, deadline)) {
            continue;
        }
        return GCM_ERR_PEER_FAILED;
    }
    return GCM_OK;
}

/* A connection to contact, made before the deadline: the socket, or -1
 * and *err_p the errno that says why (ETIMEDOUT if time ran out), or -2
 * and *err_p if no socket could be made. */
static int gcm_contact_open(const gcm_thr_contact_t *contact,
                            double deadline, int *err_p)
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
    } else if (!gcm_contact_wait(fd, POLLOUT, deadline)) {
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

/* Sends the request for endpoint ep on a contact connection and reads
 * the reply's fixed part into rep: GCM_OK if it is a reply of this
 * version. */
static gcm_status_t gcm_contact_request(int fd, int ep, unsigned char *rep,
                                        double deadline)
{
    unsigned char req[GCM_CONTACT_REQ_SIZE];
    gcm_status_t status;

    memcpy(req, "GCMC", 4);
    gcm_put_le(req + 4, GCM_CONTACT_VERSION, 2);
    gcm_put_le(req + 6, (uint64_t)ep, 2);
    status = gcm_contact_write(fd, req, sizeof(req), deadline);
    if (status == GCM_OK) {
        status = gcm_contact_read(fd, rep, GCM_CONTACT_REP_SIZE, deadline);
    }
    if ((status == GCM_OK) && ((memcmp(rep, "GCMR", 4) != 0) ||
                               (gcm_get_le(rep + 4, 2) !=
                                GCM_CONTACT_VERSION))) {
        status = GCM_ERR_PEER_FAILED;
    }
    return status;
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
    gcm_status_t status;
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
    fd = gcm_contact_open(contact, deadline, &err);
    if (fd == -2) {
        return gcm_fail(GCM_ERR_TRANSPORT, "connect", "socket: %s",
                        strerror(err));
    }
    if (fd < 0) {
        return gcm_fail(GCM_ERR_PEER_FAILED, "connect", "rank %u of job "
                        "%016llx does not answer at %u.%u.%u.%u:%u (%s): "
                        "it has ended, or never existed", rank,
                        (unsigned long long)job, contact->ip4 >> 24,
                        (contact->ip4 >> 16) & 0xff,
                        (contact->ip4 >> 8) & 0xff, contact->ip4 & 0xff,
                        contact->port, strerror(err));
    }
    status = gcm_contact_request(fd, ep, rep, deadline);
    if (status != GCM_OK) {
        close(fd);
        return gcm_fail(GCM_ERR_PEER_FAILED, "connect", "no valid answer "
                        "from the contact of rank %u of job %016llx within "
                        "%u s (GENCOMM_CONNECT_TIMEOUT)", rank,
                        (unsigned long long)job,
                        gcm_thr_config.connect_timeout);
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
    status = gcm_contact_read(fd, addr, len, deadline);
    close(fd);
    if (status != GCM_OK) {
        free(addr);
        return gcm_fail(status, "connect", "the contact of rank %u of job "
                        "%016llx closed before its whole reply", rank,
                        (unsigned long long)job);
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
    pthread_mutex_lock(&gcm_procs.lock);
    o = gcm_thr_other_of(proc);
    if (o->neps == 0) {
        o->neps = neps;
    }
    if ((rep < GCM_MAX_ENDPOINTS) && (o->addr[rep] == NULL)) {
        o->addr[rep]     = addr;
        o->addr_len[rep] = len;
        addr = NULL;
    }
    pthread_mutex_unlock(&gcm_procs.lock);
    free(addr);
    return GCM_OK;
}

int gcm_thr_proc_other_endpoints(int proc)
{
    gcm_thr_other_t *o;
    int neps;

    pthread_mutex_lock(&gcm_procs.lock);
    o = gcm_thr_other_of(proc);
    neps = (o != NULL) ? o->neps : 1;
    pthread_mutex_unlock(&gcm_procs.lock);
    if (neps > 0) {
        return neps;
    }
    if (gcm_thr_other_fetch(proc, 0) != GCM_OK) {
        return 1;
    }
    pthread_mutex_lock(&gcm_procs.lock);
    neps = gcm_thr_other_of(proc)->neps;
    pthread_mutex_unlock(&gcm_procs.lock);
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
        pthread_mutex_lock(&gcm_procs.lock);
        o = gcm_thr_other_of(proc);
        if (o == NULL) {
            pthread_mutex_unlock(&gcm_procs.lock);
            return gcm_fail(GCM_ERR_INVALID_PARAM, "connect",
                            "no process %d", proc);
        }
        if ((o->neps > 0) && (rep >= o->neps)) {
            pthread_mutex_unlock(&gcm_procs.lock);
            return gcm_fail(GCM_ERR_NO_SUCH_LCO, "connect", "rank %u of "
                            "job %016llx has no endpoint %d (it has %d)",
                            o->rank, (unsigned long long)o->job, rep,
                            o->neps);
        }
        if (o->addr[rep] != NULL) {
            *addr_p = malloc(o->addr_len[rep]);
            if (*addr_p == NULL) {
                pthread_mutex_unlock(&gcm_procs.lock);
                return GCM_ERR_NO_MEMORY;
            }
            memcpy(*addr_p, o->addr[rep], o->addr_len[rep]);
            *len_p = o->addr_len[rep];
            pthread_mutex_unlock(&gcm_procs.lock);
            return GCM_OK;
        }
        pthread_mutex_unlock(&gcm_procs.lock);
        status = gcm_thr_other_fetch(proc, rep);
        if (status != GCM_OK) {
            return status;
        }
    }
    return gcm_fail(GCM_ERR_PEER_FAILED, "connect", "no address for "
                    "endpoint %d of process %d", rep, proc);
}

/* ---- the contact service -------------------------------------------------- */

/* The IPv4 address the contact listens on: the first device of
 * UCX_NET_DEVICES that has one, else the first interface that is up and
 * not loopback, else loopback. */
static uint32_t gcm_contact_pick_ip(void)
{
    const char *devs = getenv("UCX_NET_DEVICES");
    struct ifaddrs *ifs, *ifa;
    uint32_t ip = INADDR_LOOPBACK;
    char dev[IF_NAMESIZE + 1];
    int found = 0;

    if (getifaddrs(&ifs) != 0) {
        return ip;
    }
    while ((devs != NULL) && (*devs != '\0') && !found &&
           (strcmp(devs, "all") != 0)) {
        size_t n = strcspn(devs, ",:");
        snprintf(dev, sizeof(dev), "%.*s", (int)n, devs);
        for (ifa = ifs; ifa != NULL; ifa = ifa->ifa_next) {
            if ((ifa->ifa_addr != NULL) &&
                (ifa->ifa_addr->sa_family == AF_INET) &&
                (strcmp(ifa->ifa_name, dev) == 0)) {
                ip = ntohl(((struct sockaddr_in *)ifa->ifa_addr)
                           ->sin_addr.s_addr);
                found = 1;
                break;
            }
        }
        devs = strchr(devs, ',');
        devs = (devs != NULL) ? devs + 1 : NULL;
    }
    for (ifa = ifs; (ifa != NULL) && !found && (devs == NULL);
         ifa = ifa->ifa_next) {
        if ((ifa->ifa_addr != NULL) &&
            (ifa->ifa_addr->sa_family == AF_INET) &&
            (ifa->ifa_flags & IFF_UP) && !(ifa->ifa_flags & IFF_LOOPBACK)) {
            ip = ntohl(((struct sockaddr_in *)ifa->ifa_addr)
                       ->sin_addr.s_addr);
            found = 1;
        }
    }
    freeifaddrs(ifs);
    return ip;
}

/* Answers one request on a connection the service accepted. */
static void gcm_contact_serve(int fd)
{
    unsigned char req[GCM_CONTACT_REQ_SIZE];
    unsigned char rep[GCM_CONTACT_REP_SIZE];
    double deadline = gcm_time_now() + 1.0;
    const void *addr = NULL;
    size_t len = 0;
    int ep;

    if ((gcm_contact_read(fd, req, sizeof(req), deadline) != GCM_OK) ||
        (memcmp(req, "GCMC", 4) != 0) ||
        (gcm_get_le(req + 4, 2) != GCM_CONTACT_VERSION)) {
        return;
    }
    ep = (int)gcm_get_le(req + 6, 2);
    if (ep < gcm_thr_num_endpoints()) {
        addr = gcm_thr_self_address(ep, &len);
    }
    memset(rep, 0, sizeof(rep));
    memcpy(rep, "GCMR", 4);
    gcm_put_le(rep + 4, GCM_CONTACT_VERSION, 2);
    gcm_put_le(rep + 6, (addr != NULL) ? 0 : 1, 2);
    gcm_put_le(rep + 8, gcm_boot_job_ident(), 8);
    gcm_put_le(rep + 16, (uint64_t)gcm_boot_rank(), 4);
    gcm_put_le(rep + 20, (uint64_t)gcm_thr_num_endpoints(), 2);
    gcm_put_le(rep + 24, (uint64_t)getpid(), 4);
    gcm_put_le(rep + 28, (uint64_t)len, 4);
    if ((gcm_contact_write(fd, rep, sizeof(rep), deadline) == GCM_OK) &&
        (len > 0)) {
        (void)gcm_contact_write(fd, addr, len, deadline);
    }
}

static void *gcm_contact_thread(void *arg)
{
    int lfd = (int)(intptr_t)arg;

    for (;;) {
        int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
        if (fd < 0) {
            if ((errno == EINTR) || (errno == ECONNABORTED) ||
                (errno == EAGAIN) || (errno == EMFILE) ||
                (errno == ENFILE) || (errno == ENOBUFS) ||
                (errno == ENOMEM)) {
                if ((errno == EMFILE) || (errno == ENFILE)) {
                    usleep(10000);
                }
                continue;
            }
            /* Shut down by finalize (EINVAL). */
            return NULL;
        }
        gcm_contact_serve(fd);
        close(fd);
    }
}

gcm_status_t gcm_thr_contact_self(gcm_thr_contact_t *contact_p)
{
    struct sockaddr_in sa;
    socklen_t salen = sizeof(sa);
    int lfd, one = 1;

    pthread_mutex_lock(&gcm_procs.contact_lock);
    if (gcm_procs.contact_up) {
        *contact_p = gcm_procs.self;
        pthread_mutex_unlock(&gcm_procs.contact_lock);
        return GCM_OK;
    }
    lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (lfd < 0) {
        goto fail;
    }
    (void)setsockopt(lfd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    memset(&sa, 0, sizeof(sa));
    sa.sin_family      = AF_INET;
    sa.sin_addr.s_addr = htonl(gcm_contact_pick_ip());
    if ((bind(lfd, (struct sockaddr *)&sa, sizeof(sa)) != 0) ||
        (listen(lfd, 64) != 0) ||
        (getsockname(lfd, (struct sockaddr *)&sa, &salen) != 0)) {
        close(lfd);
        goto fail;
    }
    if (pthread_create(&gcm_procs.thread, NULL, gcm_contact_thread,
                       (void *)(intptr_t)lfd) != 0) {
        close(lfd);
        goto fail;
    }
    gcm_procs.lfd        = lfd;
    gcm_procs.self.ip4   = ntohl(sa.sin_addr.s_addr);
    gcm_procs.self.port  = ntohs(sa.sin_port);
    gcm_procs.contact_up = 1;
    *contact_p = gcm_procs.self;
    pthread_mutex_unlock(&gcm_procs.contact_lock);
    gcm_debug("contact at %u.%u.%u.%u:%u", contact_p->ip4 >> 24,
              (contact_p->ip4 >> 16) & 0xff, (contact_p->ip4 >> 8) & 0xff,
              contact_p->ip4 & 0xff, contact_p->port);
    return GCM_OK;

fail:
    pthread_mutex_unlock(&gcm_procs.contact_lock);
    memset(contact_p, 0, sizeof(*contact_p));
    return gcm_fail(GCM_ERR_TRANSPORT, "contact", "cannot open this "
                    "process's contact socket: %s", strerror(errno));
}

static void gcm_thr_contact_stop(void)
{
    pthread_mutex_lock(&gcm_procs.contact_lock);
    if (gcm_procs.contact_up) {
        /* Wakes the thread's accept() with EINVAL. */
        shutdown(gcm_procs.lfd, SHUT_RDWR);
        pthread_join(gcm_procs.thread, NULL);
        close(gcm_procs.lfd);
        gcm_procs.lfd        = -1;
        gcm_procs.contact_up = 0;
    }
    pthread_mutex_unlock(&gcm_procs.contact_lock);
}

/* ---- watching new connections to other jobs ------------------------------ */

int gcm_thr_proc_gone(int proc, double wait_s)
{
    double deadline = gcm_time_now() + wait_s;
    unsigned char rep[GCM_CONTACT_REP_SIZE];
    gcm_thr_contact_t contact;
    gcm_status_t status;
    uint64_t job;
    uint32_t rank;
    int fd, err = 0;

    gcm_thr_proc_ident(proc, &job, &rank, &contact);
    if (contact.port == 0) {
        return 0;
    }
    fd = gcm_contact_open(&contact, deadline, &err);
    if (fd < 0) {
        /* Refused: nobody listens there any more. */
        return (fd == -1) && (err == ECONNREFUSED);
    }
    status = gcm_contact_request(fd, 0, rep, deadline);
    close(fd);
    if (status != GCM_OK) {
        /* Closed without a reply (a process ending), else too slow to
         * tell. */
        return gcm_time_now() < deadline;
    }
    /* A contact that answers for another process: the port was reused. */
    return (gcm_get_le(rep + 8, 8) != job) ||
           (gcm_get_le(rep + 16, 4) != rank);
}

/*
 * UCX sets a connection up (wire-up) and watches its peer (keepalive,
 * UCP_ERR_HANDLING_MODE_PEER) only as traffic goes on it: a connection
 * made only to wait for a receive from a process that then dies may
 * never hear of its death. So a new connection to another job's process
 * is flushed at once (the flush completes when the set-up has), and
 * until then its peer's contact is asked every GCM_THR_PROBE_S whether
 * the process lives. Within a job the launcher reports deaths.
 */
struct gcm_thr_conn_flush {
    gcm_thr_conn_t *conn;    /* NULL once the connection is closed */
};

static void gcm_thr_conn_flushed(void *ucx_req, ucs_status_t ucs,
                                 void *user_data)
{
    struct gcm_thr_conn_flush *flush = user_data;

    (void)ucs;   /* a failure reaches the connection's error handler */
    if (flush->conn != NULL) {
        gcm_thr_conn_unwatch(flush->conn);
    }
    free(flush);
    ucp_request_free(ucx_req);
}

gcm_status_t gcm_thr_conn_watch(gcm_thr_endpoint_t *endpoint,
                                gcm_thr_conn_t *conn)
{
    struct gcm_thr_conn_flush *flush;
    ucp_request_param_t param;
    void *ucx_req;

    if ((conn->flush != NULL) || (conn->ucp_ep == NULL)) {
        return GCM_OK;
    }
    flush = calloc(1, sizeof(*flush));
    if (flush == NULL) {
        return GCM_ERR_NO_MEMORY;
    }
    memset(&param, 0, sizeof(param));
    param.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK |
                         UCP_OP_ATTR_FIELD_USER_DATA;
    param.cb.send      = gcm_thr_conn_flushed;
    param.user_data    = flush;
    ucx_req = ucp_ep_flush_nbx(conn->ucp_ep, &param);
    if (!UCS_PTR_IS_PTR(ucx_req)) {
        /* Set up already (or failed: its error handler says so). */
        free(flush);
        return GCM_OK;
    }
    flush->conn    = conn;
    conn->flush    = flush;
    conn->probe_at = gcm_time_now() + GCM_THR_PROBE_S;
    endpoint->nflushing++;
    return GCM_OK;
}

void gcm_thr_conn_unwatch(gcm_thr_conn_t *conn)
{
    if (conn->flush != NULL) {
        /* Its callback, whenever UCX runs it, frees it. */
        conn->flush->conn = NULL;
        conn->flush = NULL;
        conn->owner->nflushing--;
    }
}

void gcm_thr_conns_probe(gcm_thr_endpoint_t *endpoint)
{
    gcm_thr_conn_t *conn;
    double now;

    if (gcm_likely(endpoint->nflushing == 0)) {
        return;
    }
    now = gcm_time_now();
    for (conn = endpoint->others; conn != NULL; conn = conn->next_other) {
        if ((conn->flush == NULL) || (conn->failed != GCM_OK) ||
            (now < conn->probe_at)) {
            continue;
        }
        conn->probe_at = now + GCM_THR_PROBE_S;
        if (gcm_thr_proc_gone(conn->proc, GCM_THR_PROBE_WAIT_S)) {
            gcm_debug("process %d of another job is gone (its contact "
                      "says so) before its connection was set up",
                      conn->proc);
            gcm_thr_peer_failed(endpoint, conn->proc, GCM_ERR_PEER_FAILED);
            /* The list may have changed under the failure's upcalls. */
            return;
        }
    }
}

/* ---- HELLO ---------------------------------------------------------------- */

static void gcm_thr_hello_sent_cb(void *ucx_req, ucs_status_t ucs,
                                  void *user_data)
{
    (void)ucs;
    free(user_data);
    ucp_request_free(ucx_req);
}

gcm_status_t gcm_thr_hello_send(gcm_thr_endpoint_t *endpoint,
                                gcm_thr_conn_t *conn)
{
    gcm_thr_contact_t contact;
    ucp_request_param_t param;
    gcm_thr_hello_t *hello;
    const void *addr;
    size_t len;
    void *ucx_req;

    addr = gcm_thr_self_address(endpoint->index, &len);
    if ((addr == NULL) || (gcm_thr_contact_self(&contact) != GCM_OK)) {
        return GCM_ERR_TRANSPORT;
    }
    /* Header and address live until UCX is done with them. */
    hello = malloc(sizeof(*hello) + len);
    if (hello == NULL) {
        return GCM_ERR_NO_MEMORY;
    }
    memset(hello, 0, sizeof(*hello));
    hello->magic    = GCM_HELLO_MAGIC;
    hello->version  = GCM_HELLO_VERSION;
    hello->ep       = (uint16_t)endpoint->index;
    hello->job      = gcm_boot_job_ident();
    hello->rank     = (uint32_t)gcm_boot_rank();
    hello->neps     = (uint16_t)gcm_thr_num_endpoints();
    hello->port     = contact.port;
    hello->ip4      = contact.ip4;
    hello->addr_len = (uint32_t)len;
    memcpy(hello + 1, addr, len);
    memset(&param, 0, sizeof(param));
    param.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK |
                         UCP_OP_ATTR_FIELD_USER_DATA |
                         UCP_OP_ATTR_FIELD_FLAGS;
    param.cb.send      = gcm_thr_hello_sent_cb;
    param.user_data    = hello;
    param.flags        = UCP_AM_SEND_FLAG_EAGER | UCP_AM_SEND_FLAG_REPLY;
    ucx_req = ucp_am_send_nbx(conn->ucp_ep, GCM_AM_HELLO, hello,
                              sizeof(*hello), hello + 1, len, &param);
    if (!UCS_PTR_IS_PTR(ucx_req)) {
        free(hello);
        if (UCS_PTR_IS_ERR(ucx_req)) {
            return gcm_thr_status(UCS_PTR_STATUS(ucx_req));
        }
    }
    conn->known = 1;
    return GCM_OK;
}

gcm_status_t gcm_thr_hello_decode(const void *header, size_t header_length,
                                  size_t data_length, uint64_t own_job,
                                  gcm_thr_hello_t *hello_p,
                                  const char **why_p)
{
    gcm_thr_hello_t hello;

    if ((header == NULL) || (header_length != sizeof(hello))) {
        *why_p = "a header of the wrong size";
        return GCM_ERR_INVALID_PARAM;
    }
    memcpy(&hello, header, sizeof(hello));
    if ((hello.magic != GCM_HELLO_MAGIC) ||
        (hello.version != GCM_HELLO_VERSION)) {
        *why_p = "not a HELLO of this version";
        return GCM_ERR_INVALID_PARAM;
    }
    if ((hello.addr_len != data_length) || (data_length == 0) ||
        (data_length > GCM_CONTACT_ADDR_MAX)) {
        *why_p = "its address is not of the length it says";
        return GCM_ERR_INVALID_PARAM;
    }
    if ((hello.neps < 1) || (hello.neps > GCM_MAX_ENDPOINTS) ||
        (hello.ep >= hello.neps)) {
        *why_p = "endpoints out of range";
        return GCM_ERR_INVALID_PARAM;
    }
    if ((hello.job == own_job) || (hello.job == 0)) {
        *why_p = "not from another job";
        return GCM_ERR_INVALID_PARAM;
    }
    *hello_p = hello;
    return GCM_OK;
}

ucs_status_t gcm_thr_hello_in(void *arg, const void *header,
                              size_t header_length, void *data,
                              size_t length,
                              const ucp_am_recv_param_t *param)
{
    gcm_thr_endpoint_t *endpoint = arg;
    gcm_thr_contact_t contact;
    gcm_thr_hello_t hello;
    gcm_thr_other_t *o;
    gcm_thr_conn_t *conn, *c;
    const char *why;
    size_t alen;
    int proc;

    if ((param->recv_attr & UCP_AM_RECV_ATTR_FLAG_RNDV) ||
        !(param->recv_attr & UCP_AM_RECV_ATTR_FIELD_REPLY_EP)) {
        gcm_warn("malformed HELLO ignored (not an eager reply message)");
        return UCS_OK;
    }
    if (gcm_thr_hello_decode(header, header_length, length,
                             gcm_boot_job_ident(), &hello, &why) != GCM_OK) {
        gcm_warn("malformed HELLO ignored (%s)", why);
        return UCS_OK;
    }
    if (gcm_thr_addr_decode(data, length, &alen, &why) != GCM_OK) {
        gcm_warn("a HELLO with a malformed worker address (%s) ignored",
                 why);
        return UCS_OK;
    }
    contact.ip4  = hello.ip4;
    contact.port = hello.port;
    proc = gcm_thr_proc_lookup(hello.job, hello.rank, &contact);
    if (proc < 0) {
        gcm_warn("HELLO from rank %u of job %016llx ignored: %s", hello.rank,
                 (unsigned long long)hello.job, gcm_last_error());
        return UCS_OK;
    }
    pthread_mutex_lock(&gcm_procs.lock);
    o = gcm_thr_other_of(proc);
    if (o->neps == 0) {
        o->neps = hello.neps;
    }
    if (o->addr[hello.ep] == NULL) {
        o->addr[hello.ep] = malloc(length);
        if (o->addr[hello.ep] != NULL) {
            memcpy(o->addr[hello.ep], data, length);
            o->addr_len[hello.ep] = length;
        }
    }
    pthread_mutex_unlock(&gcm_procs.lock);

    conn = gcm_thr_conn_get(endpoint, proc, hello.ep);
    if (conn == NULL) {
        return UCS_OK;
    }
    if (conn->ucp_ep == NULL) {
        /* Ours pairs with the sender's if the address is the sender's;
         * we owe no HELLO on it. */
        conn->known = 1;
        if (gcm_thr_conn_connect(endpoint, conn) != GCM_OK) {
            conn->known = 0;
            return UCS_OK;
        }
    }
    if (conn->ucp_ep != param->reply_ep) {
        gcm_warn("a HELLO saying it is rank %u of job %016llx came on a "
                 "connection that is not that process's: ignored",
                 hello.rank, (unsigned long long)hello.job);
        return UCS_OK;
    }
    conn->known = 1;
    for (c = endpoint->others; (c != NULL) && (c != conn);
         c = c->next_other) {
    }
    if (c == NULL) {
        conn->next_other = endpoint->others;
        endpoint->others = conn;
    }
    gcm_debug("connection from rank %u of job %016llx (process %d) "
              "endpoint %u", hello.rank, (unsigned long long)hello.job, proc,
              hello.ep);
    return UCS_OK;
}
