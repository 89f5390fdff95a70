/*
 * compat/mpi_lco.c: the seed's LCO extensions (Foster, Kesselman and Snir,
 * "Generalized Communicators in the Message Passing Interface", 1996,
 * section 4), as MPIX_ calls on MPI_Comm handles.
 *
 * An LCO the user builds slot by slot is an MPI_Comm of kind
 * GCM_MPI_COMM_LCO. Point-to-point ranks on it are slot indices (the core's
 * MPI_Send uses send slot dest, MPI_Recv receive slot source), and the
 * process group that MPI_Comm_size, MPI_Comm_rank and MPI_Comm_group report
 * is the seed's (section 4.2): "the list of processes referenced by its
 * send slots, with duplicates removed", in the order of the first slot that
 * references each. This file keeps that group, and the point-to-point view
 * (prank: the send slot that targets this LCO itself; psize: the number of
 * send slots) that collectives use, up to date as send slots are added.
 *
 * Which calls accept which communicators (a decision the seed leaves
 * open, since in it every communicator is an LCO):
 * - the queries (MPIX_Num_send_slots, MPIX_Num_receive_slots,
 *   MPIX_Comm_lco_rank) accept every communicator, so that code written
 *   against the seed, such as its Figure 3 applied to MPI_COMM_WORLD,
 *   runs unchanged. An intracommunicator of n processes has n send and n
 *   receive slots and its LCO rank is its rank; an intercommunicator has
 *   one send and one receive slot per remote process and no LCO rank
 *   (none of its send slots targets itself).
 * - the calls that hand out capabilities or change slots (MPIX_Comm_name,
 *   MPIX_Slot_name, MPIX_Add_send_slots, MPIX_Add_send_slot,
 *   MPIX_Add_receive_slots) accept only LCOs made by
 *   MPIX_Comm_create_local, and raise MPI_ERR_COMM on the others. The
 *   slots of a communicator the library built belong to the library:
 *   adding slots would break its collectives, and its name would let
 *   whoever holds it inject messages that receivers take for rank r's.
 */
#include "config.h"

#include "compat/mpi_impl.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

/* gencomm.h and mpi.h each size names; the MPIX types are the native ones
 * under another name, so they are copied byte for byte. */
_Static_assert(sizeof(MPIX_Cname) == sizeof(gcm_name_t),
               "MPIX_Cname and gcm_name_t differ in size");
_Static_assert(sizeof(MPIX_Slotname) == sizeof(gcm_slotname_t),
               "MPIX_Slotname and gcm_slotname_t differ in size");
_Static_assert(MPIX_MAX_SLOTS == GCM_MAX_SLOTS,
               "MPIX_MAX_SLOTS and GCM_MAX_SLOTS differ");

/*
 * Serialises the calls that add send slots and recompute the group, so
 * that two threads adding slots to LCOs at once cannot interleave the
 * native add and the recompute (the group of one LCO would then miss the
 * other's slots). Adding is rare next to sending; one lock is enough.
 */
static pthread_mutex_t gcm_mpi_lco_lock = PTHREAD_MUTEX_INITIALIZER;

/* ---- helpers --------------------------------------------------------- */

/* Checks that comm is live (MPI_ERR_COMM on MPI_COMM_WORLD if not) and,
 * where what names it, that the argument out is not NULL. */
static int lco_check_comm(MPI_Comm comm, const void *out, const char *what,
                          const char *call)
{
    int rc = gcm_mpi_check_init(call);

    if (rc != MPI_SUCCESS) {
        return rc;
    }
    return (what == NULL) ? gcm_mpi_comm_check(comm, call) :
           gcm_mpi_comm_check_ptr(comm, out, what, call);
}

/* As lco_check_comm, and comm must be an LCO built slot by slot. */
static int lco_check_lco(MPI_Comm comm, const char *call)
{
    int rc = lco_check_comm(comm, NULL, NULL, call);

    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if ((comm->kind != GCM_MPI_COMM_LCO) || comm->sealed) {
        return gcm_mpi_raise(comm, MPI_ERR_COMM, call,
                             "the communicator is not an LCO made by "
                             "MPIX_Comm_create_local: its slots and name "
                             "belong to the library");
    }
    return MPI_SUCCESS;
}

/* lco_check_lco, and the name argument (either way) is not NULL. */
static int lco_check_lco_name(MPI_Comm comm, const void *name,
                              const char *call)
{
    int rc = lco_check_lco(comm, call);

    if ((rc == MPI_SUCCESS) && (name == NULL)) {
        rc = gcm_mpi_raise(comm, MPI_ERR_ARG, call, "name is NULL");
    }
    return rc;
}

/* Raises the error of a failed native call (its text names the reason). */
static int lco_raise_native(MPI_Comm comm, gcm_status_t status,
                            const char *call)
{
    return gcm_mpi_raise(comm, gcm_mpi_errclass(status), call, "%s",
                         gcm_last_error());
}

/* One send slot and the process it targets, to sort. */
typedef struct lco_slot_proc {
    int proc;
    int slot;
} lco_slot_proc_t;

static int by_proc_then_slot(const void *a, const void *b)
{
    const lco_slot_proc_t *x = a;
    const lco_slot_proc_t *y = b;

    if (x->proc != y->proc) {
        return (x->proc < y->proc) ? -1 : 1;
    }
    return (x->slot < y->slot) ? -1 : (x->slot > y->slot);
}

static int by_slot(const void *a, const void *b)
{
    const lco_slot_proc_t *x = a;
    const lco_slot_proc_t *y = b;

    return (x->slot < y->slot) ? -1 : (x->slot > y->slot);
}

/*
 * Recomputes comm's process group and point-to-point view from its send
 * slots (see the top of the file). O(n log n) in the number of send slots:
 * sorting by process finds the first slot of each process, sorting those
 * by slot restores the seed's order. Called with gcm_mpi_lco_lock held.
 */
static int lco_regroup(MPI_Comm comm, const char *call)
{
    lco_slot_proc_t *pairs = NULL;
    int *procs = NULL;
    int *old_procs;
    MPI_Group old_group;
    int me = gcm_proc_rank();
    int nsend = 0;
    int self = MPI_UNDEFINED;
    int rank = MPI_UNDEFINED;
    int n = 0;
    int i;

    gcm_lco_num_send_slots(comm->lco, &nsend);
    if (nsend > 0) {
        pairs = malloc((size_t)nsend * sizeof(*pairs));
        procs = malloc((size_t)nsend * sizeof(*procs));
        if ((pairs == NULL) || (procs == NULL)) {
            free(pairs);
            free(procs);
            return gcm_mpi_raise(comm, MPI_ERR_NO_MEM, call,
                                 "out of memory for the group of an LCO "
                                 "with %d send slots", nsend);
        }
    }
    for (i = 0; i < nsend; i++) {
        pairs[i].proc = gcm_lco_send_slot_proc(comm->lco, i);
        pairs[i].slot = i;
        if ((self == MPI_UNDEFINED) &&
            (gcm_lco_send_slot_is_self(comm->lco, i) != 0)) {
            self = i;
        }
    }
    if (nsend > 1) {
        qsort(pairs, (size_t)nsend, sizeof(*pairs), by_proc_then_slot);
    }
    for (i = 0; i < nsend; i++) {
        if ((i == 0) || (pairs[i].proc != pairs[n - 1].proc)) {
            pairs[n++] = pairs[i];
        }
    }
    if (n > 1) {
        qsort(pairs, (size_t)n, sizeof(*pairs), by_slot);
    }
    for (i = 0; i < n; i++) {
        procs[i] = pairs[i].proc;
        if (procs[i] == me) {
            rank = i;
        }
    }
    free(pairs);

    /*
     * The cached MPI_Comm_group describes the old group: drop it (a user
     * handle to it keeps its own reference). Sends check their slot
     * against psize, so psize grows last, once the slots exist.
     */
    old_procs   = comm->procs;
    old_group   = comm->group;
    comm->procs = procs;
    comm->group = MPI_GROUP_NULL;
    comm->size  = n;
    comm->rank  = rank;
    comm->prank = self;
    comm->psize = nsend;
    free(old_procs);
    if (old_group != MPI_GROUP_NULL) {
        gcm_mpi_group_release(old_group);
    }
    return MPI_SUCCESS;
}

/* ---- creating an LCO ------------------------------------------------- */

/*
 * MPI_COMM_CREATE_LOCAL(lcomm): an LCO with no slots. Local (no message).
 * It has no parent to inherit an error handler from, so it takes
 * MPI_COMM_WORLD's, as every communicator derived from the world would.
 */
int PMPIX_Comm_create_local(MPI_Comm *lcomm)
{
    static const char *call = "MPIX_Comm_create_local";
    MPI_Comm comm;
    gcm_lco_h lco;
    gcm_status_t status;
    int rc;

    rc = gcm_mpi_check_init(call);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (lcomm == NULL) {
        return gcm_mpi_raise(NULL, MPI_ERR_ARG, call, "lcomm is NULL");
    }
    status = gcm_lco_create(&lco);
    if (status != GCM_OK) {
        return lco_raise_native(NULL, status, call);
    }
    /* Registered with the core, so MPI_Finalize frees it if the program
     * does not; MPI_Comm_free frees it like any communicator. */
    comm = gcm_mpi_comm_alloc(GCM_MPI_COMM_LCO, lco);
    if (comm == NULL) {
        gcm_lco_free(&lco);
        return gcm_mpi_raise(NULL, MPI_ERR_NO_MEM, call,
                             "out of memory for the communicator");
    }
    /* No send slots yet: an empty group, no rank, no slot to itself. */
    comm->rank  = MPI_UNDEFINED;
    comm->size  = 0;
    comm->prank = MPI_UNDEFINED;
    comm->psize = 0;
    comm->errh  = MPI_COMM_WORLD->errh;
    gcm_mpi_errh_retain(comm->errh);
    *lcomm = comm;
    return MPI_SUCCESS;
}
GCM_MPIX_ALIAS(Comm_create_local)

/* ---- names ----------------------------------------------------------- */

/* MPI_COMM_NAME(lcomm, name): the LCO's name, a capability to add send
 * slots that target any of its receive slots. */
int PMPIX_Comm_name(MPI_Comm lcomm, MPIX_Cname *name)
{
    static const char *call = "MPIX_Comm_name";
    gcm_name_t native;
    gcm_status_t status;
    int rc;

    rc = lco_check_lco_name(lcomm, name, call);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    status = gcm_lco_name(lcomm->lco, &native);
    if (status != GCM_OK) {
        return lco_raise_native(lcomm, status, call);
    }
    memcpy(name->bytes, native.bytes, sizeof(name->bytes));
    return MPI_SUCCESS;
}
GCM_MPIX_ALIAS(Comm_name)

/* The seed's alternative design (section 4.1): a capability for one
 * receive slot alone. */
int PMPIX_Slot_name(MPI_Comm lcomm, int recv_slot, MPIX_Slotname *name)
{
    static const char *call = "MPIX_Slot_name";
    gcm_slotname_t native;
    gcm_status_t status;
    int rc;
    int nrecv = 0;

    rc = lco_check_lco_name(lcomm, name, call);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    gcm_lco_num_recv_slots(lcomm->lco, &nrecv);
    if ((recv_slot < 0) || (recv_slot >= nrecv)) {
        /* A slot index is what a rank is on an LCO: MPI_ERR_RANK, as
         * MPI_Recv on that slot would raise. */
        return gcm_mpi_raise(lcomm, MPI_ERR_RANK, call,
                             "receive slot %d out of range (the LCO has %d "
                             "receive slots)", recv_slot, nrecv);
    }
    status = gcm_slot_name(lcomm->lco, recv_slot, &native);
    if (status != GCM_OK) {
        return lco_raise_native(lcomm, status, call);
    }
    memcpy(name->bytes, native.bytes, sizeof(name->bytes));
    return MPI_SUCCESS;
}
GCM_MPIX_ALIAS(Slot_name)

/* ---- adding slots ---------------------------------------------------- */

/* MPI_ERR_COUNT when count more slots than an LCO may have (MPIX_MAX_SLOTS
 * of each kind) would be added to the n it has. */
static int lco_check_room(MPI_Comm lcomm, int count, int n, const char *what,
                          const char *call)
{
    if (count > MPIX_MAX_SLOTS - n) {
        return gcm_mpi_raise(lcomm, MPI_ERR_COUNT, call,
                             "%d more %s slots on top of %d are more than "
                             "an LCO may have (MPIX_MAX_SLOTS, %d)", count,
                             what, n, MPIX_MAX_SLOTS);
    }
    return MPI_SUCCESS;
}

/* Takes gcm_mpi_lco_lock for adding count send slots, if there is room
 * for them (else releases it and returns the error). The MPIX_ calls add
 * slots under this lock: the count read here stays true until the
 * addition. */
static int lco_lock_send_room(MPI_Comm lcomm, int count, const char *call)
{
    int n = 0;
    int rc;

    pthread_mutex_lock(&gcm_mpi_lco_lock);
    (void)gcm_lco_num_send_slots(lcomm->lco, &n);
    rc = lco_check_room(lcomm, count, n, "send", call);
    if (rc != MPI_SUCCESS) {
        pthread_mutex_unlock(&gcm_mpi_lco_lock);
    }
    return rc;
}

/* After the addition of send slots (status) under gcm_mpi_lco_lock: the
 * group made again, or the error raised, and the lock released. Bytes
 * that are no name (or a name from another job) are a bad argument,
 * whatever the native class. */
static int lco_sends_added(MPI_Comm lcomm, gcm_status_t status,
                           const char *call)
{
    int rc;

    if (status == GCM_OK) {
        rc = lco_regroup(lcomm, call);
    } else {
        rc = gcm_mpi_raise(lcomm, (status == GCM_ERR_INVALID_PARAM) ?
                           MPI_ERR_ARG : gcm_mpi_errclass(status), call,
                           "%s", gcm_last_error());
    }
    pthread_mutex_unlock(&gcm_mpi_lco_lock);
    return rc;
}

/*
 * MPI_ADD_SEND_SLOTS(lcomm, count, lcos, slots): send slot n+i targets
 * receive slot slots[i] of the LCO named lcos[i] (which need not exist
 * yet). All names are checked before any slot is added. Local.
 */
int PMPIX_Add_send_slots(MPI_Comm lcomm, int count, const MPIX_Cname lcos[],
                         const int slots[])
{
    static const char *call = "MPIX_Add_send_slots";
    gcm_status_t status;
    int rc;
    int i;

    rc = lco_check_lco(lcomm, call);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (count < 0) {
        return gcm_mpi_raise(lcomm, MPI_ERR_COUNT, call,
                             "count %d is negative", count);
    }
    if (count == 0) {
        return MPI_SUCCESS;
    }
    if ((lcos == NULL) || (slots == NULL)) {
        return gcm_mpi_raise(lcomm, MPI_ERR_ARG, call, "%s is NULL",
                             (lcos == NULL) ? "lcos" : "slots");
    }
    if ((rc = lco_check_room(lcomm, count, 0, "send", call)) !=
        MPI_SUCCESS) {
        return rc;
    }
    for (i = 0; i < count; i++) {
        if (slots[i] < 0) {
            return gcm_mpi_raise(lcomm, MPI_ERR_RANK, call,
                                 "slots[%d] = %d is negative", i, slots[i]);
        }
    }
    if ((rc = lco_lock_send_room(lcomm, count, call)) != MPI_SUCCESS) {
        return rc;
    }
    /* MPIX_Cname is gcm_name_t byte for byte (checked above). */
    status = gcm_lco_add_send_slots(lcomm->lco, count,
                                    (const gcm_name_t *)(const void *)lcos,
                                    slots);
    return lco_sends_added(lcomm, status, call);
}
GCM_MPIX_ALIAS(Add_send_slots)

/* MPI_ADD_SEND_SLOT(lcomm, slot-reference): one send slot from a slot
 * name (section 4.1). */
int PMPIX_Add_send_slot(MPI_Comm lcomm, const MPIX_Slotname *name)
{
    static const char *call = "MPIX_Add_send_slot";
    gcm_status_t status;
    int rc;

    rc = lco_check_lco_name(lcomm, name, call);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if ((rc = lco_lock_send_room(lcomm, 1, call)) != MPI_SUCCESS) {
        return rc;
    }
    status = gcm_lco_add_send_slot(lcomm->lco,
                                   (const gcm_slotname_t *)(const void *)name);
    return lco_sends_added(lcomm, status, call);
}
GCM_MPIX_ALIAS(Add_send_slot)

/* MPI_ADD_RECEIVE_SLOTS(lcomm, count). The group depends on send slots
 * only, so nothing else changes. */
int PMPIX_Add_receive_slots(MPI_Comm lcomm, int count)
{
    static const char *call = "MPIX_Add_receive_slots";
    gcm_status_t status;
    int rc, n;

    rc = lco_check_lco(lcomm, call);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (count < 0) {
        return gcm_mpi_raise(lcomm, MPI_ERR_COUNT, call,
                             "count %d is negative", count);
    }
    pthread_mutex_lock(&gcm_mpi_lco_lock);
    (void)gcm_lco_num_recv_slots(lcomm->lco, &n);
    rc = lco_check_room(lcomm, count, n, "receive", call);
    if (rc == MPI_SUCCESS) {
        status = gcm_lco_add_recv_slots(lcomm->lco, count);
        if (status != GCM_OK) {
            rc = lco_raise_native(lcomm, status, call);
        }
    }
    pthread_mutex_unlock(&gcm_mpi_lco_lock);
    return rc;
}
GCM_MPIX_ALIAS(Add_receive_slots)

/* ---- queries (any communicator) -------------------------------------- */

/* A slot count of any communicator's LCO, by the native query. */
static int lco_num_slots(MPI_Comm lcomm, int *count,
                         gcm_status_t (*query)(gcm_lco_h, int *),
                         const char *call)
{
    gcm_status_t status;
    int rc;

    rc = lco_check_comm(lcomm, count, "count", call);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    status = query(lcomm->lco, count);
    if (status != GCM_OK) {
        return lco_raise_native(lcomm, status, call);
    }
    return MPI_SUCCESS;
}

int PMPIX_Num_send_slots(MPI_Comm lcomm, int *count)
{
    return lco_num_slots(lcomm, count, gcm_lco_num_send_slots,
                         "MPIX_Num_send_slots");
}
GCM_MPIX_ALIAS(Num_send_slots)

int PMPIX_Num_receive_slots(MPI_Comm lcomm, int *count)
{
    return lco_num_slots(lcomm, count, gcm_lco_num_recv_slots,
                         "MPIX_Num_receive_slots");
}
GCM_MPIX_ALIAS(Num_receive_slots)

/*
 * The index of the send slot that targets this LCO itself: the rank
 * collectives use on an LCO (MPI_Comm_rank is the process's rank in the
 * process group, which differs when the LCO has several slots per process
 * or slots to other processes first). MPI_UNDEFINED when no slot targets
 * the LCO, and for intercommunicators.
 */
int PMPIX_Comm_lco_rank(MPI_Comm lcomm, int *rank)
{
    static const char *call = "MPIX_Comm_lco_rank";
    int rc;

    rc = lco_check_comm(lcomm, rank, "rank", call);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    switch (lcomm->kind) {
    case GCM_MPI_COMM_LCO:
        pthread_mutex_lock(&gcm_mpi_lco_lock);
        *rank = lcomm->prank;
        pthread_mutex_unlock(&gcm_mpi_lco_lock);
        break;
    case GCM_MPI_COMM_INTER:
        *rank = MPI_UNDEFINED;
        break;
    default:
        *rank = lcomm->rank;
        break;
    }
    return MPI_SUCCESS;
}
GCM_MPIX_ALIAS(Comm_lco_rank)
