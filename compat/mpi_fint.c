/*
 * compat/mpi_fint.c: handle conversion (MPI-3.1 17.2.4): MPI_Fint and the
 * MPI_X_c2f / MPI_X_f2c pairs, for C libraries (profilers, language
 * bindings) that store handles as Fortran integers.
 *
 * A handle gets its integer on its first c2f: a slot of one table, shared
 * by every kind, found again through a hash of the handle. The integer is
 * the slot with a generation of the slot above it, and the slot keeps the
 * kind's magic, so that f2c of an integer whose object was freed (its
 * slot reused since) or of another kind gives the kind's null handle, never
 * a newer object. Freeing an object forgets its integer
 * (gcm_mpi_fint_forget, called by gcm_mpi_handle_free and by the request
 * family). Null handles are 0; the predefined objects are numbered first,
 * in a fixed order, so their integers are the same in every process.
 */
#include "config.h"

#include "compat/mpi_impl.h"
#include "compat/mpi_win.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* An integer: slot (low bits) and the slot's generation. */
#define GCM_MPI_FINT_SLOT_BITS 22
#define GCM_MPI_FINT_SLOTS     (1 << GCM_MPI_FINT_SLOT_BITS)
#define GCM_MPI_FINT_GEN_MASK  0x1ff   /* 31 - 22 bits */

typedef struct gcm_mpi_fint_slot {
    uintptr_t handle;   /* 0: free */
    uint32_t  magic;    /* the kind */
    uint16_t  gen;
    int       next_free;
} gcm_mpi_fint_slot_t;

static struct {
    pthread_mutex_t      lock;
    int                  ready;
    gcm_mpi_fint_slot_t *slots;
    int                  nslots;     /* slots used so far (1.. ) */
    int                  cap;
    int                  free_head;  /* -1: none */
    int                  npredef;    /* slots 1..npredef: predefined */
    /* handle -> slot, open addressing; 0: empty, -1: deleted */
    uintptr_t           *keys;
    int                 *vals;
    size_t               hcap;       /* power of two */
    size_t               hused;      /* keys that are not empty */
    _Atomic int          nuser;      /* slots of objects that can be freed */
} gcm_mpi_fint = { .lock = PTHREAD_MUTEX_INITIALIZER, .free_head = -1 };

#define GCM_MPI_FINT_DELETED ((uintptr_t)-1)

static size_t fint_hash(uintptr_t key, size_t cap)
{
    uint64_t h = (uint64_t)key * 0x9e3779b97f4a7c15ull;

    return (size_t)(h >> 17) & (cap - 1);
}

/* The hash index of key, or of the place to put it. Lock held. */
static size_t fint_find(uintptr_t key, int *found)
{
    size_t cap = gcm_mpi_fint.hcap, i = fint_hash(key, cap);
    size_t tomb = (size_t)-1;

    for (;;) {
        uintptr_t k = gcm_mpi_fint.keys[i];

        if (k == key) {
            *found = 1;
            return i;
        }
        if (k == 0) {
            *found = 0;
            return (tomb != (size_t)-1) ? tomb : i;
        }
        if ((k == GCM_MPI_FINT_DELETED) && (tomb == (size_t)-1)) {
            tomb = i;
        }
        i = (i + 1) & (cap - 1);
    }
}

/* Doubles the hash (or drops its deleted keys). Lock held. */
static int fint_rehash(void)
{
    uintptr_t *okeys = gcm_mpi_fint.keys;
    int *ovals = gcm_mpi_fint.vals;
    size_t ocap = gcm_mpi_fint.hcap, ncap = (ocap == 0) ? 256 : 2 * ocap;
    size_t i;
    int found;

    gcm_mpi_fint.keys = calloc(ncap, sizeof(*gcm_mpi_fint.keys));
    gcm_mpi_fint.vals = calloc(ncap, sizeof(*gcm_mpi_fint.vals));
    if ((gcm_mpi_fint.keys == NULL) || (gcm_mpi_fint.vals == NULL)) {
        free(gcm_mpi_fint.keys);
        free(gcm_mpi_fint.vals);
        gcm_mpi_fint.keys = okeys;
        gcm_mpi_fint.vals = ovals;
        return -1;
    }
    gcm_mpi_fint.hcap  = ncap;
    gcm_mpi_fint.hused = 0;
    for (i = 0; i < ocap; i++) {
        if ((okeys[i] != 0) && (okeys[i] != GCM_MPI_FINT_DELETED)) {
            size_t at = fint_find(okeys[i], &found);

            gcm_mpi_fint.keys[at] = okeys[i];
            gcm_mpi_fint.vals[at] = ovals[i];
            gcm_mpi_fint.hused++;
        }
    }
    free(okeys);
    free(ovals);
    return 0;
}

/* A slot for handle of kind magic; its integer, or 0 without memory (or
 * with every slot taken). Lock held. */
static MPI_Fint fint_add(uintptr_t handle, uint32_t magic)
{
    gcm_mpi_fint_slot_t *slot;
    size_t at;
    int idx, found;

    if ((gcm_mpi_fint.hused + 1) * 2 > gcm_mpi_fint.hcap) {
        if (fint_rehash() != 0) {
            return 0;
        }
    }
    if (gcm_mpi_fint.free_head >= 0) {
        idx = gcm_mpi_fint.free_head;
        gcm_mpi_fint.free_head = gcm_mpi_fint.slots[idx].next_free;
    } else {
        if (gcm_mpi_fint.nslots >= gcm_mpi_fint.cap) {
            int cap = (gcm_mpi_fint.cap == 0) ? 256 : 2 * gcm_mpi_fint.cap;
            gcm_mpi_fint_slot_t *grown;

            if (cap > GCM_MPI_FINT_SLOTS) {
                cap = GCM_MPI_FINT_SLOTS;
            }
            if (cap == gcm_mpi_fint.cap) {
                gcm_warn("MPI handle conversion: all %d Fortran integers "
                         "are in use", GCM_MPI_FINT_SLOTS);
                return 0;
            }
            grown = realloc(gcm_mpi_fint.slots, (size_t)cap * sizeof(*grown));
            if (grown == NULL) {
                return 0;
            }
            gcm_mpi_fint.slots = grown;
            gcm_mpi_fint.cap   = cap;
        }
        idx = gcm_mpi_fint.nslots++;
        gcm_mpi_fint.slots[idx].gen = 0;
    }
    slot = &gcm_mpi_fint.slots[idx];
    slot->handle    = handle;
    slot->magic     = magic;
    slot->next_free = -1;
    at = fint_find(handle, &found);
    if (gcm_mpi_fint.keys[at] == 0) {
        gcm_mpi_fint.hused++;
    }
    gcm_mpi_fint.keys[at] = handle;
    gcm_mpi_fint.vals[at] = idx;
    return (MPI_Fint)(((unsigned)slot->gen << GCM_MPI_FINT_SLOT_BITS) |
                      (unsigned)idx);
}

/* Numbers the predefined objects, once. Lock held. */
static void fint_ready(void)
{
    if (gcm_mpi_fint.ready) {
        return;
    }
    gcm_mpi_fint.ready = 1;
    gcm_mpi_fint.nslots = 1;   /* slot 0: the null handles */
#define GCM_MPI_FINT_TYPE(_name, _sym) \
    (void)fint_add((uintptr_t)(_name), GCM_MPI_MAGIC_TYPE);
    GCM_MPI_FOREACH_PREDEFINED_TYPE(GCM_MPI_FINT_TYPE)
#undef GCM_MPI_FINT_TYPE
#define GCM_MPI_FINT_OP(_name, _sym) \
    (void)fint_add((uintptr_t)(_name), GCM_MPI_MAGIC_OP);
    GCM_MPI_FOREACH_PREDEFINED_OP(GCM_MPI_FINT_OP)
#undef GCM_MPI_FINT_OP
    (void)fint_add((uintptr_t)MPI_COMM_WORLD, GCM_MPI_MAGIC_COMM);
    (void)fint_add((uintptr_t)MPI_COMM_SELF, GCM_MPI_MAGIC_COMM);
    (void)fint_add((uintptr_t)MPI_GROUP_EMPTY, GCM_MPI_MAGIC_GROUP);
    (void)fint_add((uintptr_t)MPI_ERRORS_ARE_FATAL, GCM_MPI_MAGIC_ERRH);
    (void)fint_add((uintptr_t)MPI_ERRORS_RETURN, GCM_MPI_MAGIC_ERRH);
    (void)fint_add((uintptr_t)MPI_INFO_ENV, GCM_MPI_MAGIC_INFO);
    (void)fint_add((uintptr_t)MPI_MESSAGE_NO_PROC, GCM_MPI_MAGIC_MSG);
    gcm_mpi_fint.npredef = gcm_mpi_fint.nslots - 1;
}

MPI_Fint gcm_mpi_fint_of(const void *handle, uint32_t magic)
{
    uintptr_t key = (uintptr_t)handle;
    MPI_Fint f;
    size_t at;
    int found;

    if (handle == NULL) {
        return 0;
    }
    if ((magic != GCM_MPI_MAGIC_REQ) &&
        (*(const uint32_t *)handle != magic)) {
        /* Freed, or no object of this kind: no integer. */
        return 0;
    }
    pthread_mutex_lock(&gcm_mpi_fint.lock);
    fint_ready();
    if (gcm_mpi_fint.hcap > 0) {
        at = fint_find(key, &found);
        if (found) {
            int idx = gcm_mpi_fint.vals[at];

            f = (MPI_Fint)(((unsigned)gcm_mpi_fint.slots[idx].gen <<
                            GCM_MPI_FINT_SLOT_BITS) | (unsigned)idx);
            pthread_mutex_unlock(&gcm_mpi_fint.lock);
            return f;
        }
    }
    f = fint_add(key, magic);
    if (f != 0) {
        atomic_fetch_add_explicit(&gcm_mpi_fint.nuser, 1,
                                  memory_order_relaxed);
    }
    pthread_mutex_unlock(&gcm_mpi_fint.lock);
    return f;
}

const void *gcm_mpi_fint_handle(MPI_Fint f, uint32_t magic)
{
    unsigned idx = (unsigned)f & (GCM_MPI_FINT_SLOTS - 1);
    unsigned gen = ((unsigned)f >> GCM_MPI_FINT_SLOT_BITS) &
                   GCM_MPI_FINT_GEN_MASK;
    const void *handle = NULL;

    if (f <= 0) {
        return NULL;
    }
    pthread_mutex_lock(&gcm_mpi_fint.lock);
    fint_ready();
    if ((idx < (unsigned)gcm_mpi_fint.nslots) &&
        (gcm_mpi_fint.slots[idx].handle != 0) &&
        (gcm_mpi_fint.slots[idx].gen == gen) &&
        (gcm_mpi_fint.slots[idx].magic == magic)) {
        handle = (const void *)gcm_mpi_fint.slots[idx].handle;
    }
    pthread_mutex_unlock(&gcm_mpi_fint.lock);
    return handle;
}

void gcm_mpi_fint_forget(const void *handle)
{
    size_t at;
    int found, idx;

    if (atomic_load_explicit(&gcm_mpi_fint.nuser, memory_order_relaxed) ==
        0) {
        return;
    }
    pthread_mutex_lock(&gcm_mpi_fint.lock);
    if (gcm_mpi_fint.hcap > 0) {
        at = fint_find((uintptr_t)handle, &found);
        if (found && (gcm_mpi_fint.vals[at] > gcm_mpi_fint.npredef)) {
            idx = gcm_mpi_fint.vals[at];
            gcm_mpi_fint.keys[at] = GCM_MPI_FINT_DELETED;
            gcm_mpi_fint.slots[idx].handle = 0;
            gcm_mpi_fint.slots[idx].gen =
                (uint16_t)((gcm_mpi_fint.slots[idx].gen + 1) &
                           GCM_MPI_FINT_GEN_MASK);
            gcm_mpi_fint.slots[idx].next_free = gcm_mpi_fint.free_head;
            gcm_mpi_fint.free_head = idx;
            atomic_fetch_sub_explicit(&gcm_mpi_fint.nuser, 1,
                                      memory_order_relaxed);
        }
    }
    pthread_mutex_unlock(&gcm_mpi_fint.lock);
}

/* ---- the MPI calls ------------------------------------------------------ */

/* A kind whose objects are plain handles. */
#define GCM_MPI_FINT_PAIR(_kind, _type, _magic, _null) \
    MPI_Fint PMPI_##_kind##_c2f(_type handle) \
    { \
        return gcm_mpi_fint_of((const void *)handle, (_magic)); \
    } \
    GCM_MPI_ALIAS(_kind##_c2f) \
    _type PMPI_##_kind##_f2c(MPI_Fint f) \
    { \
        const void *h = gcm_mpi_fint_handle(f, (_magic)); \
        return (h != NULL) ? (_type)(uintptr_t)h : (_null); \
    } \
    GCM_MPI_ALIAS(_kind##_f2c)

GCM_MPI_FINT_PAIR(Comm, MPI_Comm, GCM_MPI_MAGIC_COMM, MPI_COMM_NULL)
GCM_MPI_FINT_PAIR(Type, MPI_Datatype, GCM_MPI_MAGIC_TYPE, MPI_DATATYPE_NULL)
GCM_MPI_FINT_PAIR(Group, MPI_Group, GCM_MPI_MAGIC_GROUP, MPI_GROUP_NULL)
GCM_MPI_FINT_PAIR(Op, MPI_Op, GCM_MPI_MAGIC_OP, MPI_OP_NULL)
GCM_MPI_FINT_PAIR(Info, MPI_Info, GCM_MPI_MAGIC_INFO, MPI_INFO_NULL)
GCM_MPI_FINT_PAIR(Errhandler, MPI_Errhandler, GCM_MPI_MAGIC_ERRH,
                  MPI_ERRHANDLER_NULL)
GCM_MPI_FINT_PAIR(Message, MPI_Message, GCM_MPI_MAGIC_MSG,
                  MPI_MESSAGE_NULL)
GCM_MPI_FINT_PAIR(Win, MPI_Win, GCM_MPI_MAGIC_WIN, MPI_WIN_NULL)

/* A request's integer names the handle (with its generation); the
 * request family forgets it when the request is freed. */
MPI_Fint PMPI_Request_c2f(MPI_Request request)
{
    gcm_mpi_req_t *req = gcm_mpi_req_get(request);

    if (req == NULL) {
        return 0;
    }
    req->has_fint = 1;
    return gcm_mpi_fint_of((const void *)request, GCM_MPI_MAGIC_REQ);
}
GCM_MPI_ALIAS(Request_c2f)

MPI_Request PMPI_Request_f2c(MPI_Fint f)
{
    const void *h = gcm_mpi_fint_handle(f, GCM_MPI_MAGIC_REQ);

    return (h != NULL) ? (MPI_Request)(uintptr_t)h : MPI_REQUEST_NULL;
}
GCM_MPI_ALIAS(Request_f2c)

/* A status as Fortran integers: MPI_SOURCE, MPI_TAG, MPI_ERROR, then the
 * private fields (cancelled, and the count in two halves). */
int PMPI_Status_c2f(const MPI_Status *c_status, MPI_Fint *f_status)
{
    static const char call[] = "MPI_Status_c2f";
    unsigned long long count;

    if ((c_status == NULL) || (f_status == NULL)) {
        return gcm_mpi_raise(NULL, MPI_ERR_ARG, call,
                             "c_status or f_status is NULL (the ignore "
                             "constants are no statuses)");
    }
    count = (unsigned long long)c_status->gcm_count;
    f_status[0] = c_status->MPI_SOURCE;
    f_status[1] = c_status->MPI_TAG;
    f_status[2] = c_status->MPI_ERROR;
    f_status[3] = c_status->gcm_cancelled;
    f_status[4] = (MPI_Fint)(uint32_t)(count & 0xffffffffu);
    f_status[5] = (MPI_Fint)(uint32_t)(count >> 32);
    return MPI_SUCCESS;
}
GCM_MPI_ALIAS(Status_c2f)

int PMPI_Status_f2c(const MPI_Fint *f_status, MPI_Status *c_status)
{
    static const char call[] = "MPI_Status_f2c";

    if ((c_status == NULL) || (f_status == NULL)) {
        return gcm_mpi_raise(NULL, MPI_ERR_ARG, call,
                             "f_status or c_status is NULL (the ignore "
                             "constants are no statuses)");
    }
    c_status->MPI_SOURCE    = f_status[0];
    c_status->MPI_TAG       = f_status[1];
    c_status->MPI_ERROR     = f_status[2];
    c_status->gcm_cancelled = f_status[3];
    c_status->gcm_count     = (MPI_Count)(((unsigned long long)(uint32_t)
                                           f_status[5] << 32) |
                                          (uint32_t)f_status[4]);
    return MPI_SUCCESS;
}
GCM_MPI_ALIAS(Status_f2c)
