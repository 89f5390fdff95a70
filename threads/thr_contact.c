/*
 * threads/thr_contact.c: the contact service, a TCP socket and a thread
 * answering each connection with this process's identity and the worker
 * address of the endpoint asked for (the protocol in thr_procs.h).
 */
#define _GNU_SOURCE
#include "config.h"

#include "threads/thr_procs.h"
#include "boot/boot.h"

#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

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

    if ((gcm_thr_contact_read(fd, req, sizeof(req), deadline) !=
         GCM_THR_CONTACT_DONE) ||
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
    if ((gcm_thr_contact_write(fd, rep, sizeof(rep), deadline) ==
         GCM_THR_CONTACT_DONE) &&
        (len > 0)) {
        (void)gcm_thr_contact_write(fd, addr, len, deadline);
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

    pthread_mutex_lock(&gcm_thr_procs.contact_lock);
    if (gcm_thr_procs.contact_up) {
        *contact_p = gcm_thr_procs.self;
        pthread_mutex_unlock(&gcm_thr_procs.contact_lock);
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
    if (pthread_create(&gcm_thr_procs.thread, NULL, gcm_contact_thread,
                       (void *)(intptr_t)lfd) != 0) {
        close(lfd);
        goto fail;
    }
    gcm_thr_procs.lfd        = lfd;
    gcm_thr_procs.self.ip4   = ntohl(sa.sin_addr.s_addr);
    gcm_thr_procs.self.port  = ntohs(sa.sin_port);
    gcm_thr_procs.contact_up = 1;
    *contact_p = gcm_thr_procs.self;
    pthread_mutex_unlock(&gcm_thr_procs.contact_lock);
    gcm_debug("contact at %u.%u.%u.%u:%u", contact_p->ip4 >> 24,
              (contact_p->ip4 >> 16) & 0xff, (contact_p->ip4 >> 8) & 0xff,
              contact_p->ip4 & 0xff, contact_p->port);
    return GCM_OK;

fail:
    pthread_mutex_unlock(&gcm_thr_procs.contact_lock);
    memset(contact_p, 0, sizeof(*contact_p));
    return gcm_fail(GCM_ERR_TRANSPORT, "contact", "cannot open this "
                    "process's contact socket: %s", strerror(errno));
}

void gcm_thr_contact_stop(void)
{
    pthread_mutex_lock(&gcm_thr_procs.contact_lock);
    if (gcm_thr_procs.contact_up) {
        /* Wakes the thread's accept() with EINVAL. */
        shutdown(gcm_thr_procs.lfd, SHUT_RDWR);
        pthread_join(gcm_thr_procs.thread, NULL);
        close(gcm_thr_procs.lfd);
        gcm_thr_procs.lfd        = -1;
        gcm_thr_procs.contact_up = 0;
    }
    pthread_mutex_unlock(&gcm_thr_procs.contact_lock);
}
