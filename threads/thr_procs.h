/*
 * threads/thr_procs.h: what the files about processes of other jobs
 * share (thr_procs.c, thr_ask.c, thr_contact.c, thr_watch.c, thr_hello.c)
 * and no other file sees.
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
#ifndef GCM_THR_PROCS_H
#define GCM_THR_PROCS_H

#include "threads/thr_impl.h"

#include <pthread.h>
#include <stdint.h>

#define GCM_CONTACT_REQ_SIZE  8
#define GCM_CONTACT_REP_SIZE  32
#define GCM_CONTACT_VERSION   1
/* How often the contact of a process of another job is asked whether it
 * lives while its connection is being set up, and how long one question
 * may take (it is asked with the endpoint's lock held). */
#define GCM_THR_PROBE_S       1.0
#define GCM_THR_PROBE_WAIT_S  0.1
/* How long a peer reported gone keeps its connections (gcm_thr_conn_lost)
 * before it is failed, at a quiet round of progress; failed at the
 * latest GCM_THR_LOST_BUSY_S later on an endpoint never quiet. */
#define GCM_THR_LOST_GRACE_S  1.0
#define GCM_THR_LOST_BUSY_S   4.0
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
/* The table and the contact service (thr_procs.c, thr_contact.c). */
typedef struct gcm_thr_procs {
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
} gcm_thr_procs_t;

extern gcm_thr_procs_t gcm_thr_procs GCM_INTERNAL;

static inline void gcm_put_le(unsigned char *p, uint64_t v, int n)
{
    int i;

    for (i = 0; i < n; i++) {
        p[i] = (unsigned char)(v >> (8 * i));
    }
}

static inline uint64_t gcm_get_le(const unsigned char *p, int n)
{
    uint64_t v = 0;
    int i;

    for (i = 0; i < n; i++) {
        v |= (uint64_t)p[i] << (8 * i);
    }
    return v;
}

/* The other process of index proc, or NULL (table lock held;
 * thr_procs.c). */
gcm_thr_other_t *gcm_thr_other_of(int proc) GCM_INTERNAL;

/* How an exchange with a contact ended: the error says which. */
typedef enum {
    GCM_THR_CONTACT_DONE = 0,
    GCM_THR_CONTACT_CLOSED,     /* closed or reset by the other side */
    GCM_THR_CONTACT_TIMEOUT,    /* the deadline passed first */
    GCM_THR_CONTACT_MALFORMED   /* an answer that is no reply of ours */
} gcm_thr_contact_end_t;

/* Asking a contact (thr_ask.c). Reads exactly len bytes before the
 * deadline. */
gcm_thr_contact_end_t gcm_thr_contact_read(int fd, void *buf, size_t len,
                                           double deadline) GCM_INTERNAL;
gcm_thr_contact_end_t gcm_thr_contact_write(int fd, const void *buf,
                                            size_t len, double deadline)
    GCM_INTERNAL;
/* A connection to contact, made before the deadline: the socket, or -1
 * and *err_p the errno that says why (ETIMEDOUT if time ran out), or -2
 * and *err_p if no socket could be made. */
int gcm_thr_contact_open(const gcm_thr_contact_t *contact, double deadline,
                         int *err_p) GCM_INTERNAL;
/* Sends the request for endpoint ep on a contact connection and reads
 * the reply's fixed part into rep: GCM_THR_CONTACT_DONE if it is a reply
 * of this version. */
gcm_thr_contact_end_t gcm_thr_contact_request(int fd, int ep,
                                              unsigned char *rep,
                                              double deadline) GCM_INTERNAL;

/* Stops the contact service (finalize; thr_contact.c). */
void gcm_thr_contact_stop(void) GCM_INTERNAL;

#endif /* GCM_THR_PROCS_H */
