/*
 * compat/mpi_dpm_impl.h: ports, MPI_Comm_connect and MPI_Comm_accept,
 * MPI_Comm_disconnect and MPI_Comm_join (MPI-3.1 sections 10.4.2-10.5.4):
 * what the files compat/mpi_dpm_*.c share.
 *
 * A port is an LCO with one receive slot; its name is that slot's slot
 * name in hex, behind "gencomm-port-1:", so it works from any job that
 * can reach the process (the slot name carries the job's identity and
 * the process's contact: docs/design.md, "Names across jobs"). A
 * connection is two messages between the roots:
 *
 *   request (connect's root to the port): the connecting group, and the
 *       slot name of a reply LCO the root made for this call;
 *   reply (accept's root to that slot name, a synchronous send): the
 *       accepting group and the intercommunicator's identity and token,
 *       drawn at random by accept's root.
 *
 * The reply is synchronous: it completes when connect's root has taken
 * it, and fails (GCM_ERR_NO_SUCH_LCO) when connect gave up first and freed
 * its reply LCO, so the two roots never disagree on whether the
 * connection was made. A request whose connect gave up waits in the
 * port's queue until accept takes it, finds its reply refused, and takes
 * the next. Each root then broadcasts the outcome in its group, and every
 * member makes the intercommunicator: a pattern LCO over the remote group
 * with the shared identity and token (lco/lco.h), whose traffic goes
 * process to process like any other. A group is a list of process
 * identities (job, rank, contact), each member's own, gathered in its
 * group first.
 *
 * Messages (little-endian):
 *   0 u32 magic "GCMD"  4 u16 version 1  6 u16 kind (1 request, 2 reply)
 *   8 i32 error class (reply)  12 u32 group size n
 *   16 u32 id  20 u32 generation  24 u64 token (reply)
 *   32 the reply slot name (request; zero in a reply)
 *   32 + GCM_SLOTNAME_SIZE: n process identities (GCM_LCO_PROCID_SIZE
 *   bytes each)
 */
#ifndef GCM_MPI_DPM_IMPL_H
#define GCM_MPI_DPM_IMPL_H

#include "compat/mpi_impl.h"

#define GCM_DPM_PREFIX   "gencomm-port-1:"
#define GCM_DPM_MAGIC    0x444d4347u   /* "GCMD" little-endian */
#define GCM_DPM_VERSION  1
#define GCM_DPM_REQUEST  1
#define GCM_DPM_REPLY    2
#define GCM_DPM_HDR      (32 + GCM_SLOTNAME_SIZE)
/* The largest group a handshake carries. */
#define GCM_DPM_MAX_GROUP (1 << 20)
/* Tags of the handshake on the private LCOs. */
#define GCM_DPM_TAG_REQ  1
#define GCM_DPM_TAG_REP  2

_Static_assert(sizeof(GCM_DPM_PREFIX) - 1 + 2 * GCM_SLOTNAME_SIZE <
               MPI_MAX_PORT_NAME, "a port name fits MPI_MAX_PORT_NAME");

/* A decoded handshake message. */
typedef struct dpm_msg {
    int              kind;
    int              errclass;
    uint32_t         n;
    uint32_t         id;
    uint32_t         gen;
    uint64_t         token;
    gcm_slotname_t   reply;
    unsigned char   *members;   /* n * GCM_LCO_PROCID_SIZE bytes */
} gcm_mpi_dpm_msg_t;

/* What a root tells its group, then each member's view of the outcome. */
typedef struct dpm_outcome {
    int32_t  errclass;
    uint32_t n;          /* remote group size */
    uint32_t id;
    uint32_t gen;
    uint64_t token;
} gcm_mpi_dpm_outcome_t;

/* Waiting for one message of tag on slot 0 of lco until a deadline (0:
 * none), or for a send to fail. */
typedef struct dpm_wait {
    gcm_lco_h        lco;
    int              tag;
    double           deadline;
    gcm_request_h    sreq;       /* NULL: none to watch */
    gcm_status_t     sstatus;    /* its result once complete */
    gcm_message_h    msg;
    gcm_msg_status_t info;
    gcm_status_t     result;
    int              got;
} gcm_mpi_dpm_wait_t;

/* Waiting for a send until a deadline. */
typedef struct dpm_send_wait {
    gcm_request_h req;
    double        deadline;
} gcm_mpi_dpm_send_wait_t;

/* ---- ports (mpi_dpm_port.c) */
/* 0 and the slot name, or -1 for text that is no port name. */
int gcm_mpi_dpm_port_parse(const char *name, gcm_slotname_t *s) GCM_INTERNAL;
/* The LCO of an open port of this process, NULL if none. */
gcm_lco_h gcm_mpi_dpm_port_lco(const char *name) GCM_INTERNAL;
/* A request the caller stops waiting for (freed once complete). */
void gcm_mpi_dpm_abandon(gcm_request_h req) GCM_INTERNAL;

/* ---- messages (mpi_dpm_msg.c) */
unsigned char *gcm_mpi_dpm_msg_build(const gcm_mpi_dpm_msg_t *m,
                                     size_t *len_p) GCM_INTERNAL;
/* Checks bytes that came from another process: 0 and m filled (members
 * point into p), else -1. */
int gcm_mpi_dpm_msg_parse(unsigned char *p, size_t len, int kind,
                          gcm_mpi_dpm_msg_t *m) GCM_INTERNAL;
/* gcm_lco_wait_on callbacks of a gcm_mpi_dpm_wait_t and a
 * gcm_mpi_dpm_send_wait_t. */
int gcm_mpi_dpm_wait_cb(void *arg) GCM_INTERNAL;
int gcm_mpi_dpm_send_cb(void *arg) GCM_INTERNAL;
/* Takes the message gcm_mpi_dpm_wait_cb matched into a new buffer. */
gcm_status_t gcm_mpi_dpm_take(gcm_mpi_dpm_wait_t *w, unsigned char **buf_p,
                              size_t *len_p) GCM_INTERNAL;

/* ---- the groups (mpi_dpm_group.c) */
/* Every member's own identity, in rank order of comm. */
int gcm_mpi_dpm_gather_group(MPI_Comm comm, unsigned char **out_p)
    GCM_INTERNAL;
/* The seconds connect waits (info "timeout", else
 * GENCOMM_CONNECT_TIMEOUT); -1 for a bad value. */
double gcm_mpi_dpm_timeout(MPI_Info info) GCM_INTERNAL;
/* The root's part of accept or connect, from the call's port name and
 * timeout: out and the remote group in *remote_p, or out->errclass and
 * why. */
typedef void gcm_mpi_dpm_root_fn(const char *port_name, double timeout,
                                 MPI_Comm comm, const unsigned char *group,
                                 gcm_mpi_dpm_outcome_t *out,
                                 unsigned char **remote_p, char *why,
                                 size_t whylen);
/* Accept or connect (verb) on comm: the members' identities gathered,
 * root_part at the root, then gcm_mpi_dpm_finish. */
int gcm_mpi_dpm_pair(const char *port_name, double timeout, int root,
                     MPI_Comm comm, gcm_mpi_dpm_root_fn *root_part,
                     const char *verb, const char *call, MPI_Comm *newcomm)
    GCM_INTERNAL;
/* After the root's part: every member learns the outcome and makes the
 * intercommunicator. */
int gcm_mpi_dpm_finish(MPI_Comm comm, int root, gcm_mpi_dpm_outcome_t *out,
                       unsigned char *remote, const char *why,
                       const char *verb, const char *call, MPI_Comm *newcomm)
    GCM_INTERNAL;

#endif
