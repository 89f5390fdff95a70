/*
 * lco/: the LCO object and its names; the public native API.
 */
#ifndef GCM_LCO_H
#define GCM_LCO_H

#include "slots/slots.h"

#define GCM_LCO_MAGIC 0x4c434f31u  /* "LCO1": catches handles that are not */

struct gcm_lco {
    uint32_t     magic;
    gcm_port_t  *port;
    gcm_list_t   elem;   /* every live LCO, for finalize */
};

/* Decoded form of a name or slot name. */
typedef struct gcm_lco_ref {
    int      kind;      /* GCM_DEST_LCO or GCM_DEST_SLOT */
    uint32_t proc;
    uint16_t ep;
    uint32_t id;
    uint32_t gen;
    uint64_t token;
    uint64_t job;       /* the job's identity (boot/: never 0) */
    uint32_t ip4;       /* contact of the named process (threads/) */
    uint16_t port;
    int32_t  rslot;     /* slot names only */
} gcm_lco_ref_t;

/* Name encoding: fixed little-endian layout, independent of the host. */
void gcm_lco_name_encode(const gcm_lco_ref_t *ref, gcm_name_t *name)
    GCM_INTERNAL;
void gcm_lco_slotname_encode(const gcm_lco_ref_t *ref, gcm_slotname_t *name)
    GCM_INTERNAL;
/* Return GCM_ERR_INVALID_PARAM (with the reason in *why) for bytes that
 * are no name of this library. */
gcm_status_t gcm_lco_name_decode(const gcm_name_t *name, gcm_lco_ref_t *ref,
                                 const char **why) GCM_INTERNAL;
gcm_status_t gcm_lco_slotname_decode(const gcm_slotname_t *name,
                                     gcm_lco_ref_t *ref, const char **why)
    GCM_INTERNAL;


/* ---- internal calls for the MPI layer (compat/) and collectives ------------
 *
 * These skip the public checks on tags: tags above GCM_TAG_UB are the
 * library's own (collective traffic on a user's LCO), and a GCM_ANY_TAG
 * receive or probe never matches them.
 */

/* Transfer flags. SYNC (sends): the request completes only once a
 * receive on the destination has matched the message (MPI_Ssend). NOREQ:
 * a transfer that completed without error while it was posted returns
 * GCM_REQUEST_NULL instead of a request (a receive's status in *info_p of
 * gcm_lco_irecv_xf); nothing is left to wait for. */
enum { GCM_LCO_SEND_SYNC = 0x1, GCM_LCO_XFER_NOREQ = 0x2 };

gcm_status_t gcm_lco_isend_x(gcm_lco_h lco, const void *buf, size_t len,
                             int slot, int tag, int flags,
                             gcm_request_h *req_p) GCM_INTERNAL;
gcm_status_t gcm_lco_irecv_x(gcm_lco_h lco, void *buf, size_t len, int slot,
                             int tag, gcm_request_h *req_p) GCM_INTERNAL;
gcm_status_t gcm_lco_irecv_xf(gcm_lco_h lco, void *buf, size_t len,
                              int slot, int tag, int flags,
                              gcm_msg_status_t *info_p,
                              gcm_request_h *req_p) GCM_INTERNAL;
/* The same with a fold (slots.h, gcm_slots_fold_t): the data goes to
 * fold->fn as it arrives, buf is scratch for it. */
gcm_status_t gcm_lco_irecv_fold(gcm_lco_h lco, void *buf, size_t len,
                                int slot, int tag, int flags,
                                const gcm_slots_fold_t *fold,
                                gcm_msg_status_t *info_p,
                                gcm_request_h *req_p) GCM_INTERNAL;
gcm_status_t gcm_lco_iprobe_x(gcm_lco_h lco, int slot, int tag, int *flag_p,
                              gcm_msg_status_t *status_p) GCM_INTERNAL;
/* gcm_lco_iprobe_x for a caller that has checked the LCO, the tag and
 * flag_p (the MPI layer's probes): one poll and a look at the queue of
 * unexpected messages, no checks (a slot out of range matches nothing). */
gcm_status_t gcm_lco_iprobe_nr(gcm_lco_h lco, int slot, int tag, int *flag_p,
                               gcm_msg_status_t *status_p) GCM_INTERNAL;
/* gcm_lco_isend_x and gcm_lco_irecv_xf with GCM_LCO_XFER_NOREQ, for
 * callers whose arguments are right by construction (a collective's
 * schedule: its group's LCO and slots, a library tag, a buffer wherever
 * len > 0): only the LCO handle and the tag's sign are checked (else the
 * checked call runs and reports); the slot is checked where it is read. */
gcm_status_t gcm_lco_isend_nr(gcm_lco_h lco, const void *buf, size_t len,
                              int slot, int tag, gcm_request_h *req_p)
    GCM_INTERNAL;
gcm_status_t gcm_lco_irecv_nr(gcm_lco_h lco, void *buf, size_t len,
                              int slot, int tag, gcm_msg_status_t *info_p,
                              gcm_request_h *req_p) GCM_INTERNAL;
/* gcm_lco_isend_nr for a caller that sends on slot again and again and
 * keeps keep for it (a schedule's send step): a small message to another
 * process of the host reuses keep's envelope and connection
 * (gcm_slots_isend_kept). keep empty (port NULL) at first. */
gcm_status_t gcm_lco_isend_kept(gcm_lco_h lco, const void *buf, size_t len,
                                int slot, int tag,
                                gcm_slots_send_keep_t *keep,
                                gcm_request_h *req_p) GCM_INTERNAL;
/* gcm_lco_irecv_nr (with a fold, or NULL) for a caller that owns the
 * storage of its receive, rec (a schedule step's record): a receive that
 * does not complete as it is posted runs in rec instead of a request of
 * its own (gcm_slots_irecv_rec); *req_p is then rec's handle, for
 * gcm_lco_req_done, gcm_lco_req_take, gcm_lco_req_wait and
 * gcm_lco_req_cancel, and rec must stay in place until it is waited for
 * or taken. The MPI layer's fast path (its arguments checked already)
 * receives so too: into its MPI request (MPI_Irecv), or on its stack
 * (MPI_Recv). */
gcm_status_t gcm_lco_irecv_rec(gcm_lco_h lco, void *buf, size_t len,
                               int slot, int tag,
                               const gcm_slots_fold_t *fold,
                               gcm_msg_status_t *info_p,
                               struct gcm_request *rec, gcm_request_h *req_p)
    GCM_INTERNAL;
/* A blocking exchange with the process of slot under library tag tag:
 * sends slen bytes of sbuf, receives at most rlen bytes into rbuf, and
 * waits for both (a failure of either, a dead peer's included, is the
 * result). Arguments as for gcm_lco_isend_nr (right by construction);
 * neither transfer takes a request when it completes as it is posted,
 * and a receive that must wait runs in rec, the caller's storage (its
 * stack will do: the call returns only when the receive is over;
 * gcm_lco_irecv_rec), so nothing is allocated. keep (or NULL) is the
 * caller's for the sends on slot (gcm_lco_isend_kept; one thread at a
 * time). The MPI layer's two-process barrier: one exchange of empty
 * messages without a schedule. */
gcm_status_t gcm_lco_exchange_nr(gcm_lco_h lco, const void *sbuf,
                                 size_t slen, void *rbuf, size_t rlen,
                                 int slot, int tag,
                                 gcm_slots_send_keep_t *keep,
                                 struct gcm_request *rec) GCM_INTERNAL;
/* The staging area of a pair (slots/, gcm_slots_stage_create): two
 * exchanges with the process of slot under library tag tag (each side's
 * offer, then whether each mapped the other's); *st_p is the area when
 * both sides could map each other's, else NULL (both then agree on NULL).
 * A failure of an exchange is the result (and *st_p NULL). */
gcm_status_t gcm_lco_stage_open(gcm_lco_h lco, int slot, int tag,
                                gcm_slots_stage_t **st_p) GCM_INTERNAL;
/* gcm_slots_stage_allreduce and gcm_slots_stage_free, for the MPI layer. */
gcm_status_t gcm_lco_stage_allreduce(gcm_slots_stage_t *st, int rank,
                                     const void *sbuf, void *rbuf,
                                     size_t count, size_t esize,
                                     gcm_slots_stage_combine_func_t *fn,
                                     void *ctx) GCM_INTERNAL;
void gcm_lco_stage_free(gcm_slots_stage_t *st) GCM_INTERNAL;
/* The most slots gcm_lco_fan_nr serves (a linear barrier over up to
 * this many ranks). */
#define GCM_LCO_FAN_MAX 4
/* Rank 0's part of a linear barrier over nslots ranks (2 to
 * GCM_LCO_FAN_MAX; arguments right by construction): receives an empty
 * message under library tag tag from each of slots 1 .. nslots - 1, each
 * that must wait in recs[slot - 1] (the caller's storage, its stack will
 * do), then sends one to each, with keeps[slot - 1] (or keeps NULL), and
 * waits for all. Nothing is allocated. The first failure is the result;
 * after a failed arrival no release is sent. The other ranks' part is
 * gcm_lco_exchange_nr with slot 0. */
gcm_status_t gcm_lco_fan_nr(gcm_lco_h lco, int nslots, int tag,
                            gcm_slots_send_keep_t *keeps,
                            struct gcm_request *recs) GCM_INTERNAL;
/* Its first half, for the nonblocking barrier, with empty messages:
 * posts the send (with keep, as above), then the receive (one that must
 * wait runs in rec, the caller's storage, which must stay in place until
 * the receive is waited for or taken: gcm_lco_irecv_rec), and returns at
 * once; *sreq_p and *rreq_p are the requests of what did not complete as
 * it was posted (else GCM_REQUEST_NULL), for gcm_lco_req_done/take/wait.
 * A failure to post is the result (the receive is not posted when the
 * send failed). */
gcm_status_t gcm_lco_exchange_post(gcm_lco_h lco, int slot, int tag,
                                   gcm_slots_send_keep_t *keep,
                                   struct gcm_request *rec,
                                   gcm_request_h *sreq_p,
                                   gcm_request_h *rreq_p) GCM_INTERNAL;

/* Creates an LCO (as gcm_lco_create) homed on endpoint endpoint_index
 * instead of the calling thread's endpoint: the thread LCOs of
 * MPIX_Comm_create_threads, each on its own endpoint. */
gcm_status_t gcm_lco_create_on(int endpoint_index, gcm_lco_h *lco_p)
    GCM_INTERNAL;
/* The endpoint the next thread LCO should live on: a distinct one per
 * call while endpoints no thread or thread LCO uses remain, then shared
 * ones, round robin. */
int gcm_lco_endpoint_reserve(void) GCM_INTERNAL;

/* ---- LCOs used by several threads (lco_thread.c) ----------------------- */

/* The index of the endpoint lco lives on (-1 for no LCO). */
int gcm_lco_endpoint_of(gcm_lco_h lco) GCM_INTERNAL;
/* Send slots first..first+count-1 of lco ask for no acceptance: their
 * receivers are known to exist (names gathered after every LCO of a
 * structure was made). GCM_ERR_NO_SUCH_SLOT out of range. */
gcm_status_t gcm_lco_trust_send_slots(gcm_lco_h lco, int first, int count)
    GCM_INTERNAL;

/* Is the request complete? (does not progress, does not free). As
 * gcm_test, no request is a complete one. The MPI layer asks about handles
 * it holds, in every round of its waits' scans: inline, no checks. */
static inline int gcm_lco_req_done(gcm_request_h req)
{
    return (req == GCM_REQUEST_NULL) ||
           gcm_slots_req_done(gcm_slots_req_of(req));
}

/* For a request gcm_lco_req_done found complete: its status (the text of
 * a failure in gcm_last_error), *status_p filled (may be NULL), the
 * request freed and *req_p GCM_REQUEST_NULL. */
gcm_status_t gcm_lco_req_take(gcm_request_h *req_p,
                              gcm_msg_status_t *status_p) GCM_INTERNAL;
/* gcm_wait on a request the caller's own transfer returned and no one
 * else has (a collective's step): the handle is not checked. */
gcm_status_t gcm_lco_req_wait(gcm_request_h *req_p,
                              gcm_msg_status_t *status_p) GCM_INTERNAL;

/* Cancels a receive no message has matched yet: it completes with
 * GCM_ERR_CANCELED. Returns GCM_OK if cancelled, GCM_ERR_BUSY if a
 * message matched it already (it will complete normally), and
 * GCM_ERR_INVALID_PARAM for a send. The request is still freed by
 * wait/test. */
gcm_status_t gcm_lco_cancel(gcm_request_h req) GCM_INTERNAL;
/* gcm_lco_cancel of a handle the caller's own transfer returned, which
 * no one else has (the MPI layer's, a request in the caller's storage
 * included, which gcm_lco_cancel's check refuses): not checked. */
gcm_status_t gcm_lco_req_cancel(gcm_request_h req) GCM_INTERNAL;

/* A matched message (MPI_Mprobe): removed from the unexpected queue so
 * that no other receive can take it; received with gcm_lco_imrecv. */
typedef struct gcm_slots_umsg *gcm_message_h;
gcm_status_t gcm_lco_improbe(gcm_lco_h lco, int slot, int tag, int *flag_p,
                             gcm_message_h *msg_p,
                             gcm_msg_status_t *status_p) GCM_INTERNAL;
/* Receives a matched message into buf (truncation as for gcm_irecv);
 * consumes msg. */
gcm_status_t gcm_lco_imrecv(gcm_lco_h lco, gcm_message_h msg, void *buf,
                            size_t len, gcm_request_h *req_p) GCM_INTERNAL;

/* A function every wait of the library calls on each round while it
 * waits, in the waiting thread with no lock held (the MPI layer advances
 * its nonblocking collectives with it, MPI-3.1 5.12: a wait on anything
 * lets them progress). NULL removes it. */
void gcm_lco_set_wait_hook(void (*hook)(void)) GCM_INTERNAL;

/* The transport's version, as the transport spells it (UCX's). */
const char *gcm_lco_transport_version(void) GCM_INTERNAL;
/* With more processes on the host than CPUs: moves this process once to
 * the CPU of its local rank, leaving it unbound (GENCOMM_SPREAD). */
void gcm_lco_spread(void) GCM_INTERNAL;
/* gcm_thr_wait with the wait hook: what every wait of lco/ calls. */
void gcm_lco_thr_wait(gcm_thr_endpoint_t *endpoint, int (*done)(void *arg),
                      void *arg) GCM_INTERNAL;

/* Waits until done(arg) is true, progressing the calling thread's
 * endpoint and sleeping when nothing moves (as gcm_wait does). done may
 * be called again after it returned true: it must stay true without
 * further effect. */
void gcm_lco_wait_until(int (*done)(void *arg), void *arg) GCM_INTERNAL;
/* The same progressing the endpoint lco lives on (the calling thread's
 * for NULL): where the requests and messages of lco complete, so that
 * waits on LCOs of different endpoints never share a lock. */
void gcm_lco_wait_on(gcm_lco_h lco, int (*done)(void *arg), void *arg)
    GCM_INTERNAL;
/* One round of progress on lco's endpoint (the calling thread's for
 * NULL). */
void gcm_lco_progress(gcm_lco_h lco) GCM_INTERNAL;
/* Wakes every thread asleep in a wait of the library, whatever endpoint
 * it sleeps on, so that it checks its condition again: for a condition
 * that no message makes true (the MPI layer's generalized requests,
 * which the program completes from any thread). Any thread. */
void gcm_lco_wake_waiters(void) GCM_INTERNAL;

/* Pattern LCOs: fully connected over a group of n processes (world
 * indices procs[], NULL for 0..n-1), this process being rank myrank
 * (send slot i and receive slot i are rank i; sends arrive on receive
 * slot myrank). Every member makes it with the same (id, gen). For an
 * intercommunicator, procs is the remote group and myrank the rank in the
 * local group: the pattern is the same. */
gcm_status_t gcm_lco_create_pattern(uint32_t id, uint32_t gen, int n,
                                    const int procs[], int myrank,
                                    gcm_lco_h *lco_p) GCM_INTERNAL;
/* The same with a home key (gcm_lco_derive_id_homed): in every member
 * the LCO lives on endpoint gcm_thr_home_index(home, its endpoint
 * count), 1 + (home - 1) % (count - 1); home 0 (gcm_lco_create_pattern)
 * is endpoint 0 everywhere. Every member must pass the same home. */
gcm_status_t gcm_lco_create_pattern_homed(uint32_t id, uint32_t gen,
                                          uint32_t home, int n,
                                          const int procs[], int myrank,
                                          gcm_lco_h *lco_p) GCM_INTERNAL;
/* The same with a token: 0 for the job's (every pattern within a job),
 * else one shared with the members of another job (an
 * intercommunicator made by connect, accept or spawn); procs[] may then
 * name processes of other jobs (gcm_lco_proc_lookup). */
gcm_status_t gcm_lco_create_pattern_x(uint32_t id, uint32_t gen,
                                      uint32_t home, uint64_t token, int n,
                                      const int procs[], int myrank,
                                      gcm_lco_h *lco_p) GCM_INTERNAL;
/* Expecting messages for a pattern LCO of token not made yet (they wait
 * for it instead of being refused); unexpect once it is made, or will
 * not be. */
gcm_status_t gcm_lco_token_expect(uint64_t token) GCM_INTERNAL;
void gcm_lco_token_unexpect(uint64_t token) GCM_INTERNAL;
/* The token of a pattern LCO for gcm_lco_create_pattern_x: 0 when it is
 * the job's (or lco is no pattern). What is derived from a pattern
 * takes its token. */
uint64_t gcm_lco_token_of(gcm_lco_h lco) GCM_INTERNAL;
/* The next identity derived from parent (the same in every member that
 * derives from it in the same order). */
void gcm_lco_derive_id(gcm_lco_h parent, uint32_t *id_p, uint32_t *gen_p)
    GCM_INTERNAL;
/* The same, and *home_p (if not NULL) the derived LCO's home key
 * (gcm_slots_derive_id): successive derivations from the world
 * (MPI_Comm_dup T times) land on different endpoints, the first child of
 * another LCO on its parent's. */
void gcm_lco_derive_id_homed(gcm_lco_h parent, uint32_t *id_p,
                             uint32_t *gen_p, uint32_t *home_p)
    GCM_INTERNAL;
/* An identity derived from parent and key alone (no counter): for calls
 * not all of parent's members make (MPI_Comm_create_group); the caller
 * makes key unique among such calls. */
void gcm_lco_derive_id_keyed(gcm_lco_h parent, uint64_t key, uint32_t *id_p,
                             uint32_t *gen_p) GCM_INTERNAL;
/* Nonzero for a pattern LCO; then *n_p, *procs_p (NULL: identity) and
 * *myrank_p describe it. */
int gcm_lco_pattern_of(gcm_lco_h lco, int *n_p, const int **procs_p,
                       int *myrank_p) GCM_INTERNAL;
/* The process send slot slot targets (-1 if out of range). */
int gcm_lco_send_slot_proc(gcm_lco_h lco, int slot) GCM_INTERNAL;
/* Nonzero if send slot slot targets lco itself. */
int gcm_lco_send_slot_is_self(gcm_lco_h lco, int slot) GCM_INTERNAL;

/* ---- processes of other jobs (lco_jobs.c) -------------------------------
 *
 * Within a job a process is its rank; between jobs it is (job identity,
 * rank in that job, contact), which gcm_lco_proc_lookup turns into an
 * index of this process (from the job size up for another job's), valid
 * in patterns (gcm_lco_create_pattern_x) and names. */
typedef struct gcm_lco_procid {
    uint64_t job;
    uint32_t rank;
    uint32_t ip4;
    uint16_t port;
} gcm_lco_procid_t;
/* Its size on the wire (gcm_lco_procid_encode: little-endian). */
#define GCM_LCO_PROCID_SIZE 24

uint64_t gcm_lco_job_ident(void) GCM_INTERNAL;
int gcm_lco_proc_other(int proc) GCM_INTERNAL;
/* The identity of process index proc (this process's starts its contact
 * service). */
gcm_status_t gcm_lco_proc_ident(int proc, gcm_lco_procid_t *id)
    GCM_INTERNAL;
/* The index of the process id names; -1 with gcm_last_error() set. */
int gcm_lco_proc_lookup(const gcm_lco_procid_t *id) GCM_INTERNAL;
void gcm_lco_procid_encode(const gcm_lco_procid_t *id, unsigned char *p)
    GCM_INTERNAL;
void gcm_lco_procid_decode(const unsigned char *p, gcm_lco_procid_t *id)
    GCM_INTERNAL;

/* A command of a spawn: boot/boot.h's gcm_boot_spawn_cmd_t. */
typedef struct gcm_lco_spawn_cmd {
    const char         *command;
    char *const        *argv;
    int                 maxprocs;
    int                 ninfo;
    const char *const  *info_keys;
    const char *const  *info_vals;
} gcm_lco_spawn_cmd_t;
#define GCM_LCO_SPAWN_MAX 512

/* The launcher's name service (PMIx_Publish and friends), when it has
 * one (a PMIx launcher); else the MPI layer keeps names itself. */
int gcm_lco_launcher_names(void) GCM_INTERNAL;
gcm_status_t gcm_lco_name_publish(const char *service, const char *port)
    GCM_INTERNAL;
gcm_status_t gcm_lco_name_lookup(const char *service, char *port,
                                 size_t len) GCM_INTERNAL;
gcm_status_t gcm_lco_name_unpublish(const char *service) GCM_INTERNAL;
/* Spawning a job (boot/boot.h: gcm_boot_spawn) and what the launcher
 * says of this one: its parent's port, appnum, universe size. */
gcm_status_t gcm_lco_spawn(int count, const gcm_lco_spawn_cmd_t cmds[],
                           const char *parent_port, int errcodes[])
    GCM_INTERNAL;
gcm_status_t gcm_lco_parent_port(char *port, size_t len) GCM_INTERNAL;
int gcm_lco_appnum(void) GCM_INTERNAL;
int gcm_lco_universe(void) GCM_INTERNAL;
/* How long to wait for a process of another job, in seconds
 * (GENCOMM_CONNECT_TIMEOUT). */
double gcm_lco_connect_timeout(void) GCM_INTERNAL;
/* This process's host name (boot/: GENCOMM_HOSTNAME or gethostname). */
const char *gcm_lco_hostname(void) GCM_INTERNAL;
/* ---- one-sided communication (lco_rma.c) -------------------------------
 *
 * For the MPI layer's windows: shared-memory segments the processes of a
 * host map, copies into another process's memory by the kernel, UCX puts
 * and gets between hosts, and an LCO whose endpoint is kept progressed.
 */
struct iovec;

/* A memfd of len bytes (zeroed), mapped here; another process of the host
 * maps it with gcm_lco_seg_map(its pid, gcm_lco_seg_fd(seg), len). */
typedef struct gcm_lco_seg gcm_lco_seg_t;
gcm_status_t gcm_lco_seg_create(size_t len, gcm_lco_seg_t **seg_p)
    GCM_INTERNAL;
void *gcm_lco_seg_base(const gcm_lco_seg_t *seg) GCM_INTERNAL;
int gcm_lco_seg_fd(const gcm_lco_seg_t *seg) GCM_INTERNAL;
size_t gcm_lco_seg_len(const gcm_lco_seg_t *seg) GCM_INTERNAL;
void gcm_lco_seg_destroy(gcm_lco_seg_t *seg) GCM_INTERNAL;
/* Maps segment fd of process pid, of len bytes (NULL if it cannot be
 * opened, or is not what its owner said). */
void *gcm_lco_seg_map(int pid, int fd, size_t len) GCM_INTERNAL;
void gcm_lco_seg_unmap(void *base, size_t len) GCM_INTERNAL;

/* Copies between buf (contiguous, as many bytes as the remote ranges
 * hold) and the nremote ranges of process pid's memory: write into them,
 * or read from them. */
gcm_status_t gcm_lco_cma(int pid, int write, void *buf,
                         const struct iovec *remote, size_t nremote)
    GCM_INTERNAL;

/* Memory registered for UCX puts and gets; *key_p (malloc'd, *keylen_p
 * bytes) is what a peer opens with gcm_lco_rkey_open. */
typedef struct gcm_lco_rmem gcm_lco_rmem_t;
gcm_status_t gcm_lco_rmem_register(void *base, size_t len,
                                   gcm_lco_rmem_t **mem_p, void **key_p,
                                   size_t *keylen_p) GCM_INTERNAL;
void gcm_lco_rmem_deregister(gcm_lco_rmem_t *mem) GCM_INTERNAL;
/* A peer's key, on the connection from lco's endpoint to the endpoint of
 * the LCO that send slot rank reaches. */
typedef struct gcm_lco_rkey gcm_lco_rkey_t;
gcm_status_t gcm_lco_rkey_open(gcm_lco_h lco, int rank, const void *key,
                               size_t keylen, gcm_lco_rkey_t **rkey_p)
    GCM_INTERNAL;
void gcm_lco_rkey_close(gcm_lco_rkey_t *rkey) GCM_INTERNAL;
/* Start a put or get at raddr of the peer's memory; complete (at the
 * peer, and here for gets) once gcm_lco_rflush returns. */
gcm_status_t gcm_lco_rput(gcm_lco_rkey_t *rkey, const void *buf, size_t len,
                          uint64_t raddr) GCM_INTERNAL;
gcm_status_t gcm_lco_rget(gcm_lco_rkey_t *rkey, void *buf, size_t len,
                          uint64_t raddr) GCM_INTERNAL;
gcm_status_t gcm_lco_rflush(gcm_lco_rkey_t *rkey) GCM_INTERNAL;

/* on: lco's endpoint counts as having a pending request (so waits on
 * other endpoints and the progress thread advance it), and the progress
 * thread runs; off: undoes one on. */
gcm_status_t gcm_lco_keep_progressed(gcm_lco_h lco, int on) GCM_INTERNAL;
/* Wakes the threads asleep in a wait on lco's endpoint: after a handler
 * changed what they wait for (it may run in another thread). */
void gcm_lco_wake(gcm_lco_h lco) GCM_INTERNAL;

/* ---- LCO graphs as Graphviz DOT (lco_graph.c) --------------------------
 *
 * lco described as words (malloc'd, the caller frees): what a process
 * gathers from others to draw a structure they share. The writer draws
 * the concatenated descriptions of any number of LCOs, after checking
 * every count against nwords (the words may come from elsewhere); title
 * may be NULL; call names the caller in errors.
 */
gcm_status_t gcm_lco_graph_describe(gcm_lco_h lco, uint32_t **words_p,
                                    size_t *nwords_p) GCM_INTERNAL;
gcm_status_t gcm_lco_graph_write_words(const uint32_t *words, size_t nwords,
                                       const char *title, FILE *fp,
                                       const char *call) GCM_INTERNAL;

/* ---- hierarchy inside a host (lco_hier.c) -------------------------------
 *
 * The hwloc levels of the hierarchy, outermost first: 0 Package,
 * 1 NUMANode, 2 L3Cache, 3 Core (hwloc's names of the types). */
#define GCM_HIER_HW_LEVELS 4
/* hwloc's name of level level, NULL out of range. */
const char *gcm_lco_hier_hw_name(int level) GCM_INTERNAL;
/* For each level, the logical index of the object holding this process's
 * whole CPU binding, or -1 when no single object does (unbound on a
 * machine with several, bound across two, hwloc unusable, or
 * GENCOMM_HIER_HWLOC=0). Loads the topology on the first call only. */
void gcm_lco_hier_hw_indices(int32_t idx[GCM_HIER_HW_LEVELS]) GCM_INTERNAL;
/* The number of objects of each level on this host (all 0 under
 * GENCOMM_HIER_HWLOC=0 or when hwloc fails). */
void gcm_lco_hier_hw_counts(int32_t count[GCM_HIER_HW_LEVELS])
    GCM_INTERNAL;

#endif /* GCM_LCO_H */
