/*
 * gencomm: generalized communicators.
 *
 * The one public header of libgencomm. A local communicator object (LCO) is
 * an ordered set of send slots and an ordered set of receive slots. A send
 * slot references one receive slot of some LCO, in this process or another.
 * An LCO's name is plain data: copy it, send it as bytes, and whoever holds it
 * can add a send slot that targets the LCO.
 *
 * Thread safety: each call's comment says who may make it. "Thread-safe"
 * calls may be made from any thread, also at once, once gcm_init() has
 * returned (the MPI_THREAD_MULTIPLE model); gcm_init() and gcm_finalize()
 * are made by the main thread, once each; gcm_coll_general() by the owner
 * thread of the LCO it is called on only.
 */
#ifndef GENCOMM_H
#define GENCOMM_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/** The version of gencomm this header belongs to (configure's, checked
 * when the library is built). gcm_version() gives the library's own. */
#define GENCOMM_VERSION_MAJOR 0
#define GENCOMM_VERSION_MINOR 1
#define GENCOMM_VERSION_PATCH 0

#if defined(__GNUC__) && __GNUC__ >= 4
#define GCM_EXPORT __attribute__((visibility("default")))
#else
#define GCM_EXPORT
#endif

/**
 * Status codes. The list is an X-macro so that the enum and
 * gcm_status_string() never drift apart.
 */
#define GCM_FOREACH_STATUS(_) \
    _(GCM_OK,                  0, "success") \
    _(GCM_INPROGRESS,          1, "operation in progress") \
    _(GCM_ERR_NO_MEMORY,      -1, "out of memory") \
    _(GCM_ERR_INVALID_PARAM,  -2, "invalid parameter") \
    _(GCM_ERR_NOT_INITIALIZED,-3, "gencomm is not initialized") \
    _(GCM_ERR_TRUNCATED,      -4, "message truncated: receive buffer too small") \
    _(GCM_ERR_NO_SUCH_LCO,    -5, "destination LCO does not exist (freed or never created)") \
    _(GCM_ERR_BAD_TOKEN,      -6, "name refused: capability token not issued by the receiver") \
    _(GCM_ERR_NO_SUCH_SLOT,   -7, "slot index out of range") \
    _(GCM_ERR_PEER_FAILED,    -8, "peer process failed or exited") \
    _(GCM_ERR_TRANSPORT,      -9, "transport error") \
    _(GCM_ERR_BOOT,          -10, "bootstrap (process manager) error") \
    _(GCM_ERR_BUSY,          -11, "object still in use") \
    _(GCM_ERR_CANCELED,      -12, "request canceled") \
    _(GCM_ERR_INTERNAL,      -13, "internal error")

#define GCM_STATUS_ENUM_ENTRY(_name, _value, _text) _name = _value,
/** Result of every call; negative values are errors. */
typedef enum {
    GCM_FOREACH_STATUS(GCM_STATUS_ENUM_ENTRY)
} gcm_status_t;
#undef GCM_STATUS_ENUM_ENTRY

/** Wildcards for receives and probes. */
#define GCM_ANY_SLOT (-1)
#define GCM_ANY_TAG  (-1)
/** Largest tag a user may pass (tags are non-negative). */
#define GCM_TAG_UB   0x3fffffff

/**
 * The most send slots, and the most receive slots, one LCO may have
 * (2^24). Adding beyond it fails at once with GCM_ERR_INVALID_PARAM and
 * adds nothing.
 */
#define GCM_MAX_SLOTS (1 << 24)

/** Size in bytes of an LCO name and of a slot name. */
#define GCM_NAME_SIZE     48
#define GCM_SLOTNAME_SIZE 56

/** Opaque handle of a local communicator object. */
typedef struct gcm_lco *gcm_lco_h;
/**
 * Opaque handle of a nonblocking operation. It names one request for that
 * request's life: once gcm_wait() or gcm_test() has released it, a copy of
 * the handle is refused (GCM_ERR_INVALID_PARAM), also after a newer request
 * reuses its memory.
 */
typedef struct gcm_request_handle *gcm_request_h;
#define GCM_REQUEST_NULL ((gcm_request_h)0)

/**
 * The name of an LCO: a plain-data capability to send to it. Copy it with
 * memcpy or send it as GCM_NAME_SIZE bytes. It carries the identity of the
 * job that made it (64 random bits: two jobs never share one), the rank of
 * the process and the endpoint the LCO lives on, the LCO's id, generation
 * and capability token, and a contact (IPv4 address and port) where a
 * process of another job asks for the endpoint's worker address: a name
 * works in any job of any host that can reach that address, sent as bytes
 * over anything. Its exact layout is fixed (little-endian, lco/lco_name.c)
 * but not part of the interface.
 */
typedef struct gcm_name {
    unsigned char bytes[GCM_NAME_SIZE];
} gcm_name_t;

/** A capability for exactly one receive slot of one LCO (plain data). */
typedef struct gcm_slotname {
    unsigned char bytes[GCM_SLOTNAME_SIZE];
} gcm_slotname_t;

/** What a completed receive (or a probe) found. */
typedef struct gcm_msg_status {
    int          slot;  /**< receive slot the message arrived on */
    int          tag;   /**< tag of the message */
    size_t       count; /**< bytes delivered (or, for a probe, bytes sent) */
    gcm_status_t error; /**< GCM_OK, or why the operation failed */
} gcm_msg_status_t;

/** Counters of this process, for tests and tools. */
typedef struct gcm_stats {
    uint64_t msgs_sent_remote; /**< messages handed to UCX */
    uint64_t msgs_sent_local;  /**< messages delivered in-process */
    uint64_t msgs_received;    /**< messages matched to receives */
    uint64_t control_sent;     /**< acknowledgements and refusals sent */
    uint64_t connections;      /**< UCX connections open now */
} gcm_stats_t;

/**
 * @brief Start gencomm in this process: bootstrap with the launcher (PMIx,
 * PMI-1 or none), open UCX and build the world LCO.
 * @param[in,out] argc_p may be NULL
 * @param[in,out] argv_p may be NULL
 * @return GCM_OK or an error; calling it twice returns GCM_ERR_INVALID_PARAM.
 * Main thread only.
 */
GCM_EXPORT gcm_status_t gcm_init(int *argc_p, char ***argv_p);

/**
 * @brief Stop gencomm: waits for outstanding sends, synchronizes with the
 * other processes, frees every LCO and closes UCX. Main thread only.
 */
GCM_EXPORT gcm_status_t gcm_finalize(void);

/** @brief Nonzero between gcm_init() and gcm_finalize(). Thread-safe. */
GCM_EXPORT int gcm_initialized(void);

/** @brief Index of this process in the job (0..nprocs-1). Thread-safe. */
GCM_EXPORT int gcm_proc_rank(void);

/** @brief Number of processes in the job. Thread-safe. */
GCM_EXPORT int gcm_proc_count(void);

/**
 * @brief The world LCO: fully connected over all processes. Send slot i and
 * receive slot i both refer to process i. Owned by the library; never free
 * it. Thread-safe.
 */
GCM_EXPORT gcm_lco_h gcm_world(void);

/** @brief Text for a status code (never NULL). Thread-safe. */
GCM_EXPORT const char *gcm_status_string(gcm_status_t status);

/**
 * @brief Text of the most recent error this thread got from gencomm,
 * naming the call and the reason (e.g. "gcm_send: slot 4 out of range (LCO
 * has 2 send slots)"). Thread-safe (per-thread).
 */
GCM_EXPORT const char *gcm_last_error(void);

/**
 * @brief The version of the library in use (which may differ from the
 * GENCOMM_VERSION_* of the header a program was built with).
 * @param[out] major, minor, patch may each be NULL
 * @return the version as text, "major.minor.patch"; static storage.
 * Thread-safe; may be called before gcm_init().
 */
GCM_EXPORT const char *gcm_version(int *major, int *minor, int *patch);

/** @brief Read this process's counters. Thread-safe. */
GCM_EXPORT void gcm_get_stats(gcm_stats_t *stats_p);

/**
 * @brief Create an LCO with no slots, homed on the calling thread's
 * endpoint. Local: sends no message. Thread-safe.
 */
GCM_EXPORT gcm_status_t gcm_lco_create(gcm_lco_h *lco_p);

/**
 * @brief Free an LCO. Pending receives on it complete with
 * GCM_ERR_CANCELED; later messages to its name are refused. Sets *lco_p to
 * NULL. Freeing the world LCO is an error. Thread-safe.
 */
GCM_EXPORT gcm_status_t gcm_lco_free(gcm_lco_h *lco_p);

/**
 * @brief Duplicate a fully connected LCO the library built (the world, or
 * a duplicate): the new LCO has the same group and slot numbering, and
 * traffic on it never matches receives on the original.
 *
 * Collective: every process of the LCO's group calls it, in the same order
 * for the same parent. It sends no message: every member derives the new
 * LCO's identity alone, and a message that arrives before this process
 * made its copy waits for it. LCOs built slot by slot cannot be duplicated
 * this way (GCM_ERR_INVALID_PARAM): build a copy with their names, as in
 * the seed's Figure 3. Thread-safe.
 */
GCM_EXPORT gcm_status_t gcm_lco_dup(gcm_lco_h lco, gcm_lco_h *newlco_p);

/** @brief The plain-data name of an LCO. Local. Thread-safe. */
GCM_EXPORT gcm_status_t gcm_lco_name(gcm_lco_h lco, gcm_name_t *name_p);

/**
 * @brief Append count send slots; slot i targets receive slot rslots[i] of
 * the LCO named names[i]. The receive slot need not exist yet. Local: sends
 * no message. A name may come from another job (started separately, on
 * this host or another): the first send on its slot asks the name's
 * contact for the endpoint's address and connects, and fails with
 * GCM_ERR_PEER_FAILED if that process has ended (within
 * GENCOMM_CONNECT_TIMEOUT seconds when nothing answers). More than
 * GCM_MAX_SLOTS send slots in all is GCM_ERR_INVALID_PARAM, and adds none.
 * Thread-safe.
 */
GCM_EXPORT gcm_status_t gcm_lco_add_send_slots(gcm_lco_h lco, int count,
                                               const gcm_name_t names[],
                                               const int rslots[]);

/**
 * @brief Append count receive slots. Local. More than GCM_MAX_SLOTS receive
 * slots in all is GCM_ERR_INVALID_PARAM (and no memory
 * GCM_ERR_NO_MEMORY): nothing is added. Thread-safe.
 */
GCM_EXPORT gcm_status_t gcm_lco_add_recv_slots(gcm_lco_h lco, int count);

/** @brief Number of send slots. Thread-safe. */
GCM_EXPORT gcm_status_t gcm_lco_num_send_slots(gcm_lco_h lco, int *count_p);

/** @brief Number of receive slots. Thread-safe. */
GCM_EXPORT gcm_status_t gcm_lco_num_recv_slots(gcm_lco_h lco, int *count_p);

/**
 * @brief A capability for receive slot rslot of lco alone (the seed's
 * alternative interface). Each receive slot has its own secret, so holding a
 * slot name gives no access to the LCO's other slots. Thread-safe.
 */
GCM_EXPORT gcm_status_t gcm_slot_name(gcm_lco_h lco, int rslot,
                                      gcm_slotname_t *name_p);

/**
 * @brief Append one send slot targeting the slot a slot name names.
 * Thread-safe.
 */
GCM_EXPORT gcm_status_t gcm_lco_add_send_slot(gcm_lco_h lco,
                                              const gcm_slotname_t *name);

/**
 * @brief Start sending len bytes on send slot slot with tag tag.
 *
 * Messages on one send slot are received in the order sent, whatever their
 * sizes. Small messages go eagerly; large ones by UCX rendezvous, zero copy.
 * The first message on a send slot is acknowledged by the receiver; a
 * receiver that refuses it (freed LCO, forged token) makes the request
 * complete with GCM_ERR_NO_SUCH_LCO or GCM_ERR_BAD_TOKEN, and every later
 * send on that slot fails with the same code. Thread-safe.
 */
GCM_EXPORT gcm_status_t gcm_isend(gcm_lco_h lco, const void *buf, size_t len,
                                  int slot, int tag, gcm_request_h *req_p);

/**
 * @brief Start receiving up to len bytes on receive slot slot (or
 * GCM_ANY_SLOT) with tag tag (or GCM_ANY_TAG). If several receives match a
 * message, the one posted first gets it. A longer message completes the
 * request with GCM_ERR_TRUNCATED after delivering len bytes. Thread-safe.
 */
GCM_EXPORT gcm_status_t gcm_irecv(gcm_lco_h lco, void *buf, size_t len,
                                  int slot, int tag, gcm_request_h *req_p);

/** @brief Blocking send: gcm_isend() then gcm_wait(). Thread-safe. */
GCM_EXPORT gcm_status_t gcm_send(gcm_lco_h lco, const void *buf, size_t len,
                                 int slot, int tag);

/** @brief Blocking receive: gcm_irecv() then gcm_wait(). Thread-safe. */
GCM_EXPORT gcm_status_t gcm_recv(gcm_lco_h lco, void *buf, size_t len,
                                 int slot, int tag,
                                 gcm_msg_status_t *status_p);

/**
 * @brief If the request is complete, free it, set *req_p to
 * GCM_REQUEST_NULL, set *flag_p and fill *status_p (may be NULL); return the
 * request's result. A NULL request counts as complete. Thread-safe.
 */
GCM_EXPORT gcm_status_t gcm_test(gcm_request_h *req_p, int *flag_p,
                                 gcm_msg_status_t *status_p);

/**
 * @brief Wait for the request, free it and return its result. Waiting spins
 * briefly, then sleeps on the endpoint's event file descriptor.
 * Thread-safe (each request waited on by one thread).
 */
GCM_EXPORT gcm_status_t gcm_wait(gcm_request_h *req_p,
                                 gcm_msg_status_t *status_p);

/**
 * @brief Wait for all; statuses may be NULL. Returns GCM_OK, or the first
 * error found (each status holds its own result). Thread-safe.
 */
GCM_EXPORT gcm_status_t gcm_waitall(int count, gcm_request_h reqs[],
                                    gcm_msg_status_t statuses[]);

/**
 * @brief Wait for one; *index_p is its index, or -1 if all are NULL.
 * Thread-safe.
 */
GCM_EXPORT gcm_status_t gcm_waitany(int count, gcm_request_h reqs[],
                                    int *index_p, gcm_msg_status_t *status_p);

/**
 * @brief Is a message matching (slot, tag) waiting to be received? Does not
 * receive it. count in the status is the message's full size.
 * Thread-safe.
 */
GCM_EXPORT gcm_status_t gcm_iprobe(gcm_lco_h lco, int slot, int tag,
                                   int *flag_p, gcm_msg_status_t *status_p);

/** @brief Blocking form of gcm_iprobe(). Thread-safe. */
GCM_EXPORT gcm_status_t gcm_probe(gcm_lco_h lco, int slot, int tag,
                                  gcm_msg_status_t *status_p);

/**
 * A receive-slot handler: called with a message that arrived on receive
 * slot slot of lco, with its tag and its data (len bytes, valid only
 * during the call), and the arg given to gcm_lco_set_handler().
 */
typedef void (*gcm_handler_func_t)(gcm_lco_h lco, int slot, int tag,
                                   const void *data, size_t len, void *arg);

/**
 * @brief Attach handler fn (with arg) to receive slot rslot of lco, or
 * remove it (fn NULL): then messages are queued for receives again.
 *
 * A message with a user tag (0..GCM_TAG_UB) that arrives on a slot with a
 * handler is not queued for receives (receives and probes on the slot never
 * see it): fn runs with its data on the progress of the endpoint lco is
 * homed on, inside whichever thread progresses it (a thread in
 * gcm_wait(), gcm_test(), gcm_progress() or any other waiting call), with
 * no gencomm lock held, so it may send. Handler calls of one endpoint run
 * one at a time, in the order their messages were matched (so in the order
 * sent, per sender), whatever their sizes: a large message is first
 * fetched into a temporary buffer, and later messages wait for it.
 * Messages already queued on the slot are handed to fn, in order, before
 * this call returns or at the next progress. A synchronous send to the
 * slot completes once fn has returned. A same-process small send completes
 * at once and its handler runs at the next progress of the endpoint.
 *
 * fn must not wait for messages (receives, probes, synchronous sends to a
 * handler slot): handlers do not run while a handler runs, so nothing it
 * waits for that needs another handler can happen, and a receive it waits
 * for may have been taken by a handler. Sends (gcm_send() included) and
 * gcm_progress() are fine. Calls already queued when a handler is removed
 * or replaced still run with the handler they were queued for; after
 * gcm_lco_free() no handler of the LCO runs. Thread-safe.
 */
GCM_EXPORT gcm_status_t gcm_lco_set_handler(gcm_lco_h lco, int rslot,
                                            gcm_handler_func_t fn, void *arg);

/**
 * @brief Offer receive slot rslot of target to whoever receives on the
 * other end of send slot via_slot of via: sends target's slot name
 * (gcm_slot_name()) as a GCM_SLOTNAME_SIZE-byte message with tag tag and
 * waits until it is sent. The receiver turns it into a send slot with
 * gcm_lco_accept_offer(). Thread-safe.
 *
 * This pair is the native call that connects two LCOs given any existing
 * path that can carry the name (the world, a channel made before, an LCO
 * the threads of a process share): the seed's Figure 2 without code that
 * passes names by hand. For a connection both ways, each end offers one
 * of its receive slots and accepts the other's offer (examples/offer.c,
 * examples/thread_channels.c).
 */
GCM_EXPORT gcm_status_t gcm_lco_offer(gcm_lco_h via, int via_slot, int tag,
                                      gcm_lco_h target, int rslot);

/**
 * @brief Receive an offer (gcm_lco_offer()) on receive slot via_rslot of
 * via with tag tag (blocking) and append to lco a send slot that targets
 * the offered slot; its index is stored in *slot_p.
 *
 * A message that is not a slot name gives GCM_ERR_INVALID_PARAM (the
 * message is consumed, no slot is added); a slot name of another job
 * targets that job's slot. A
 * well-formed name the target's process did not issue (forged or stale
 * token, freed LCO) adds the slot; the first send on it fails with
 * GCM_ERR_BAD_TOKEN or GCM_ERR_NO_SUCH_LCO. Thread-safe; the index is
 * the slot added by this call even if other threads add slots to lco at
 * the same time.
 */
GCM_EXPORT gcm_status_t gcm_lco_accept_offer(gcm_lco_h via, int via_rslot,
                                             int tag, gcm_lco_h lco,
                                             int *slot_p);

/**
 * @brief Advance communication of the calling thread's endpoint.
 * Thread-safe.
 */
GCM_EXPORT gcm_status_t gcm_progress(void);

/**
 * @brief Write lco as a Graphviz DOT digraph on fp: a node for the LCO
 * with its receive slots (r0, r1, ...) and send slots (s0, s1, ...), in a
 * cluster for its process and one for its endpoint (thread), and an edge
 * from each send slot to the receive slot it reaches; the LCOs reached
 * are drawn as dashed nodes (this process knows only their names). Render
 * with `dot -Tpng`. MPIX_Comm_graph_write draws a whole communicator.
 * @return GCM_OK, GCM_ERR_INVALID_PARAM for a bad handle, a NULL fp or a
 * write error on fp. Thread-safe.
 */
GCM_EXPORT gcm_status_t gcm_lco_graph_write(gcm_lco_h lco, FILE *fp);

/**
 * Combine function of gcm_coll_general(): inout = in (+) inout over len
 * bytes, where in holds what the earlier senders (in the order of the
 * senders array) contributed and inout what the later ones did. The
 * operation must be associative; it need not be commutative.
 */
typedef void (*gcm_combine_func_t)(void *inout, const void *in, size_t len,
                                   void *arg);

/** Largest tag gcm_coll_general() takes. */
#define GCM_COLL_TAG_UB 0x07ffffff

/**
 * @brief Generalized collective (Foster, Kesselman and Snir, section 6):
 * combines the len-byte contributions of a set of sender LCOs with fn and
 * delivers the result to a set of receiver LCOs.
 *
 * The members are those of a fully connected LCO graph in which send slot
 * i of every member reaches member i and receive slot i hears it: the
 * world, its duplicates (gcm_lco_dup()), or an LCO built that way. Members
 * are named by that index. senders[0..nsend-1] and
 * receivers[0..nrecv-1] are member indices, each at most once per array;
 * a member may be in both. The result is
 * c[senders[0]] (+) c[senders[1]] (+) ... (+) c[senders[nsend-1]],
 * combined in that order whatever fn is (a tree along the senders, then a
 * broadcast to the receivers), so every receiver gets the same bytes.
 *
 * Collective over the senders and receivers: each calls it on its own LCO
 * of the graph with the same arrays, len, tag and an equivalent fn and
 * arg; other members need not call it (a call from one returns GCM_OK at
 * once). sendbuf is read at senders, recvbuf written at receivers (it may
 * be sendbuf). The call's messages use internal tags derived from tag
 * (0..GCM_COLL_TAG_UB), which never match user receives: calls that may
 * be in flight at once on one graph need different tags. len is at most
 * INT_MAX bytes. Blocking; owner thread of lco only.
 *
 * @param[in]  lco        this member's LCO of the graph
 * @param[in]  nsend      number of senders (at least 1)
 * @param[in]  senders    member indices of the senders, in combining order
 * @param[in]  nrecv      number of receivers (at least 1)
 * @param[in]  receivers  member indices of the receivers
 * @param[in]  sendbuf    this member's contribution (senders)
 * @param[out] recvbuf    the result (receivers)
 * @param[in]  len        bytes of each contribution and of the result
 * @param[in]  fn         the combine function
 * @param[in]  arg        passed to fn
 * @param[in]  tag        0..GCM_COLL_TAG_UB
 * @return GCM_OK; GCM_ERR_INVALID_PARAM for bad arguments (the reason in
 * gcm_last_error()); a transfer's error otherwise.
 */
GCM_EXPORT gcm_status_t gcm_coll_general(gcm_lco_h lco, int nsend,
                                         const int senders[], int nrecv,
                                         const int receivers[],
                                         const void *sendbuf, void *recvbuf,
                                         size_t len, gcm_combine_func_t fn,
                                         void *arg, int tag);

#ifdef __cplusplus
}
#endif

#endif /* GENCOMM_H */
