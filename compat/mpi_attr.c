/*
 * compat/mpi_attr.c: attribute caching (MPI-3.1 6.7) on communicators and
 * windows (and, through the same calls, any kind of object: a host names
 * the object, its kind and its list, gcm_mpi_attr_host_t).
 *
 * Keyvals live in one table, indexed by slot. A keyval number encodes its
 * slot and the slot's generation, so that a stale number (a keyval freed
 * and its slot reused) is refused instead of reaching someone else's
 * keyval. A keyval belongs to one kind of object (a communicator keyval
 * on a window is MPI_ERR_KEYVAL). A keyval counts its references: the
 * user's handle and one per
 * attribute that uses it. MPI_Comm_free_keyval drops the user's one and
 * marks the keyval freed (no new attribute with it; the attributes it
 * still has can be read and deleted, MPI-3.1 6.7.2); the slot is recycled
 * when the last attribute goes, so attributes already set keep their
 * callbacks.
 *
 * Each object holds its attributes in a singly linked list (comm->attrs,
 * win->attrs), newest first: deleting them all (MPI_Comm_free, and
 * MPI_Finalize on MPI_COMM_SELF, MPI-3.1 8.7.1) goes in the reverse order
 * of their setting. MPI_THREAD_MULTIPLE
 * lets any thread create keyvals and touch attributes, so one lock guards
 * the keyval table and every list. User callbacks run with the lock
 * released (they may call attribute functions themselves); the keyval is
 * pinned by a reference meanwhile, and the list is searched again
 * afterwards instead of trusting a pointer kept across the call.
 *
 * Predefined attributes (MPI_TAG_UB ... MPI_LASTUSEDCODE) are not stored:
 * MPI_Comm_get_attr answers them from constants. MPI_TAG_UB, MPI_HOST,
 * MPI_IO and MPI_WTIME_IS_GLOBAL are answered on every communicator (as
 * MPICH and Open MPI do), the others on MPI_COMM_WORLD only.
 */
#include "config.h"

#include "compat/mpi_impl.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* Keyval numbers: GCM_KEYVAL_BASE + slot + GCM_KEYVAL_SLOTS * generation,
 * all below INT_MAX. Numbers below the base are the predefined keys
 * (MPI_TAG_UB = 0 ... MPI_LASTUSEDCODE = 6) or invalid. */
#define GCM_KEYVAL_BASE  16
#define GCM_KEYVAL_SLOTS 65536
#define GCM_KEYVAL_GENS  32766

/* A keyval's callbacks, of its kind's types. */
typedef union gcm_mpi_attr_copy_fn {
    MPI_Comm_copy_attr_function *comm;
    MPI_Win_copy_attr_function  *win;
    MPI_Type_copy_attr_function *type;
} gcm_mpi_attr_copy_fn_t;

typedef union gcm_mpi_attr_delete_fn {
    MPI_Comm_delete_attr_function *comm;
    MPI_Win_delete_attr_function  *win;
    MPI_Type_delete_attr_function *type;
} gcm_mpi_attr_delete_fn_t;

typedef struct gcm_mpi_keyval {
    int in_use;      /* the slot holds a keyval (refs > 0) */
    int freed;       /* MPI_Comm_free_keyval was called: no new use */
    int refs;        /* user handle + attributes + pinned callbacks */
    int gen;         /* bumped when the slot is recycled */
    gcm_mpi_attr_kind_t      kind;
    gcm_mpi_attr_copy_fn_t   copy_fn;    /* members NULL: none */
    gcm_mpi_attr_delete_fn_t delete_fn;
    void *extra_state;
} gcm_mpi_keyval_t;

/* One attribute; comm->attrs points to the first. */
struct gcm_mpi_attr_list {
    int keyval;
    void *value;
    struct gcm_mpi_attr_list *next;
};

static pthread_mutex_t gcm_attr_lock = PTHREAD_MUTEX_INITIALIZER;
static gcm_mpi_keyval_t *gcm_keyvals;   /* guarded by gcm_attr_lock */
static int gcm_keyvals_len;             /* slots ever used */
static int gcm_keyvals_cap;

/* ---- predefined callbacks ------------------------------------------------ */

/* MPI_<KIND>_NULL_COPY_FN (copies nothing), MPI_<KIND>_DUP_FN (copies the
 * value) and MPI_<KIND>_NULL_DELETE_FN of one kind of host, whose handle
 * type is _host. Windows are never duplicated: their copy callbacks exist
 * for the standard's sake and never run. */
#define GCM_MPI_ATTR_PREDEFINED_FNS(_kind, _host) \
    int gcm_mpi_##_kind##_null_copy_fn(_host old, int keyval, \
                                       void *extra_state, void *value_in, \
                                       void *value_out, int *flag) \
    { \
        (void)old; \
        (void)keyval; \
        (void)extra_state; \
        (void)value_in; \
        (void)value_out; \
        *flag = 0; \
        return MPI_SUCCESS; \
    } \
    \
    int gcm_mpi_##_kind##_dup_fn(_host old, int keyval, void *extra_state, \
                                 void *value_in, void *value_out, int *flag) \
    { \
        (void)old; \
        (void)keyval; \
        (void)extra_state; \
        *(void **)value_out = value_in; \
        *flag = 1; \
        return MPI_SUCCESS; \
    } \
    \
    int gcm_mpi_##_kind##_null_delete_fn(_host handle, int keyval, \
                                         void *value, void *extra_state) \
    { \
        (void)handle; \
        (void)keyval; \
        (void)value; \
        (void)extra_state; \
        return MPI_SUCCESS; \
    }

GCM_MPI_ATTR_PREDEFINED_FNS(comm, MPI_Comm)
GCM_MPI_ATTR_PREDEFINED_FNS(win, MPI_Win)
GCM_MPI_ATTR_PREDEFINED_FNS(type, MPI_Datatype)

/* ---- predefined attributes ----------------------------------------------- */

static const int gcm_attr_tag_ub       = GCM_TAG_UB;
static const int gcm_attr_host         = MPI_PROC_NULL;
static const int gcm_attr_io           = MPI_ANY_SOURCE; /* all can do I/O */
static const int gcm_attr_wtime_global = 0;
static int gcm_attr_appnum;
static int gcm_attr_universe_size;
static pthread_once_t gcm_attr_universe_once = PTHREAD_ONCE_INIT;

/* Asked from the launcher once: the index of this process's command
 * (spawn_multiple, or a launcher's MPMD command line), and how many
 * processes may run (gcrun --universe, else the host's cores), never
 * less than the job. */
static void universe_init(void)
{
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    int u = gcm_lco_universe();

    if (u <= 0) {
        u = (cores > 0) ? (int)cores : 1;
    }
    gcm_attr_universe_size = (u < gcm_proc_count()) ? gcm_proc_count() : u;
    gcm_attr_appnum = gcm_lco_appnum();
}

static int is_predefined(int keyval)
{
    return keyval >= MPI_TAG_UB && keyval <= MPIX_MAX_DEPTH;
}

/* The value of predefined key keyval on comm, or NULL if comm has none. */
static const int *predefined_value(MPI_Comm comm, int keyval)
{
    int world = (comm == MPI_COMM_WORLD);

    switch (keyval) {
    case MPI_TAG_UB:
        return &gcm_attr_tag_ub;
    case MPI_HOST:
        return &gcm_attr_host;
    case MPI_IO:
        return &gcm_attr_io;
    case MPI_WTIME_IS_GLOBAL:
        return &gcm_attr_wtime_global;
    case MPI_APPNUM:
        if (world == 0) {
            return NULL;
        }
        pthread_once(&gcm_attr_universe_once, universe_init);
        return &gcm_attr_appnum;
    case MPI_UNIVERSE_SIZE:
        if (world == 0) {
            return NULL;
        }
        pthread_once(&gcm_attr_universe_once, universe_init);
        return &gcm_attr_universe_size;
    case MPI_LASTUSEDCODE:
        return world ? gcm_mpi_err_lastused() : NULL;
    case MPIX_DEPTH:
        return (comm == MPI_COMM_SELF) ? gcm_mpi_hier_attr(keyval) : NULL;
    case MPIX_MAX_DEPTH:
        return world ? gcm_mpi_hier_attr(keyval) : NULL;
    default:
        return NULL;
    }
}

/* ---- keyval table (all with gcm_attr_lock held) -------------------------- */

/* The slot of a live keyval number of kind (in use, freed or not), or
 * -1. */
static int kv_slot(int keyval, gcm_mpi_attr_kind_t kind)
{
    int v, slot, gen;

    if (keyval < GCM_KEYVAL_BASE) {
        return -1;
    }
    v    = keyval - GCM_KEYVAL_BASE;
    slot = v % GCM_KEYVAL_SLOTS;
    gen  = v / GCM_KEYVAL_SLOTS;
    if (slot >= gcm_keyvals_len || gcm_keyvals[slot].in_use == 0 ||
        gcm_keyvals[slot].gen != gen || gcm_keyvals[slot].kind != kind) {
        return -1;
    }
    return slot;
}

/* The slot of a keyval the user may still use (not freed), or -1. */
static int kv_user_slot(int keyval, gcm_mpi_attr_kind_t kind)
{
    int slot = kv_slot(keyval, kind);

    return (slot >= 0 && gcm_keyvals[slot].freed == 0) ? slot : -1;
}

static void kv_unref(int slot)
{
    gcm_mpi_keyval_t *kv = &gcm_keyvals[slot];

    if (--kv->refs == 0) {
        kv->in_use = 0;
        kv->gen    = (kv->gen + 1) % GCM_KEYVAL_GENS;
    }
}

/* A free slot (growing the table if needed), or -1 when none is left. */
static int kv_alloc(void)
{
    gcm_mpi_keyval_t *table;
    int slot, cap;

    for (slot = 0; slot < gcm_keyvals_len; slot++) {
        if (gcm_keyvals[slot].in_use == 0) {
            return slot;
        }
    }
    if (gcm_keyvals_len == GCM_KEYVAL_SLOTS) {
        return -1;
    }
    if (gcm_keyvals_len == gcm_keyvals_cap) {
        cap   = (gcm_keyvals_cap == 0) ? 16 : 2 * gcm_keyvals_cap;
        table = realloc(gcm_keyvals, (size_t)cap * sizeof(*table));
        if (table == NULL) {
            return -1;
        }
        gcm_keyvals     = table;
        gcm_keyvals_cap = cap;
    }
    slot = gcm_keyvals_len++;
    gcm_keyvals[slot].gen = 0;
    return slot;
}

/* ---- attribute lists (with gcm_attr_lock held) --------------------------- */

static struct gcm_mpi_attr_list *attr_find(const gcm_mpi_attr_host_t *h,
                                           int keyval)
{
    struct gcm_mpi_attr_list *a;

    for (a = *h->attrs; a != NULL; a = a->next) {
        if (a->keyval == keyval) {
            return a;
        }
    }
    return NULL;
}

/* Adds an attribute (first in the list: the newest); the caller has
 * taken the keyval reference it holds. Returns 0 or -1 (out of memory). */
static int attr_push(const gcm_mpi_attr_host_t *h, int keyval, void *value)
{
    struct gcm_mpi_attr_list *a;

    a = malloc(sizeof(*a));
    if (a == NULL) {
        return -1;
    }
    a->keyval = keyval;
    a->value  = value;
    a->next   = *h->attrs;
    *h->attrs = a;
    return 0;
}

/* Removes the attribute of keyval if it still holds value; drops its
 * keyval reference. */
static void attr_unlink(const gcm_mpi_attr_host_t *h, int keyval,
                        void *value)
{
    struct gcm_mpi_attr_list *a, **pos;

    for (pos = h->attrs; *pos != NULL; pos = &(*pos)->next) {
        a = *pos;
        if (a->keyval == keyval) {
            if (a->value == value) {
                *pos = a->next;
                kv_unref(kv_slot(keyval, h->kind));
                free(a);
            }
            return;
        }
    }
}

/* Runs the delete callback of the attribute (keyval, value) of h, whose
 * keyval slot the caller pinned. Called without the lock. */
static int attr_call_delete(const gcm_mpi_attr_host_t *h, int keyval,
                            gcm_mpi_attr_delete_fn_t delete_fn, void *value,
                            void *extra_state)
{
    switch (h->kind) {
    case GCM_MPI_ATTR_COMM:
        return (delete_fn.comm == NULL) ? MPI_SUCCESS :
               delete_fn.comm((MPI_Comm)h->handle, keyval, value,
                              extra_state);
    case GCM_MPI_ATTR_WIN:
        return (delete_fn.win == NULL) ? MPI_SUCCESS :
               delete_fn.win((MPI_Win)h->handle, keyval, value, extra_state);
    case GCM_MPI_ATTR_TYPE:
    default:
        return (delete_fn.type == NULL) ? MPI_SUCCESS :
               delete_fn.type((MPI_Datatype)h->handle, keyval, value,
                              extra_state);
    }
}

/* Deletes the attribute keyval (in keyval slot slot) of h, whose value is
 * value: called with gcm_attr_lock held, it returns with the lock
 * released. The delete callback runs unlocked, the keyval held by a
 * reference meanwhile; the attribute goes only if the callback agrees
 * (its error is returned). */
static int attr_delete_held(const gcm_mpi_attr_host_t *h, int keyval,
                            int slot, void *value)
{
    gcm_mpi_attr_delete_fn_t delete_fn = gcm_keyvals[slot].delete_fn;
    void *extra_state = gcm_keyvals[slot].extra_state;
    int rc;

    gcm_keyvals[slot].refs++;
    pthread_mutex_unlock(&gcm_attr_lock);
    rc = attr_call_delete(h, keyval, delete_fn, value, extra_state);
    pthread_mutex_lock(&gcm_attr_lock);
    if (rc == MPI_SUCCESS) {
        attr_unlink(h, keyval, value);
    }
    kv_unref(slot);
    pthread_mutex_unlock(&gcm_attr_lock);
    return rc;
}

/* Raises an error on the host object (its error handler). */
static int attr_raise(const gcm_mpi_attr_host_t *h, int errclass,
                      const char *call, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int attr_raise(const gcm_mpi_attr_host_t *h, int errclass,
                      const char *call, const char *fmt, ...)
{
    char reason[MPI_MAX_ERROR_STRING / 2];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(reason, sizeof(reason), fmt, ap);
    va_end(ap);
    if ((h != NULL) && (h->kind == GCM_MPI_ATTR_WIN)) {
        return gcm_mpi_win_raise((MPI_Win)h->handle, errclass, call, "%s",
                                 reason);
    }
    return gcm_mpi_raise(((h != NULL) && (h->kind == GCM_MPI_ATTR_COMM)) ?
                         (MPI_Comm)h->handle : NULL, errclass, call, "%s",
                         reason);
}

/* ---- keyvals ------------------------------------------------------------- */

int gcm_mpi_attr_keyval_create(gcm_mpi_attr_kind_t kind, void (*copy_fn)(void),
                               void (*delete_fn)(void), int *keyval,
                               void *extra_state, const char *call)
{
    gcm_mpi_keyval_t *kv;
    int slot;

    if (keyval == NULL) {
        return gcm_mpi_raise(NULL, MPI_ERR_ARG, call, "keyval is NULL");
    }
    pthread_mutex_lock(&gcm_attr_lock);
    slot = kv_alloc();
    if (slot < 0) {
        pthread_mutex_unlock(&gcm_attr_lock);
        return gcm_mpi_raise(NULL, MPI_ERR_NO_MEM, call,
                             "no keyval left (%d in use at most)",
                             GCM_KEYVAL_SLOTS);
    }
    kv = &gcm_keyvals[slot];
    kv->in_use = 1;
    kv->freed  = 0;
    kv->refs   = 1;
    kv->kind   = kind;
    /* NULL callbacks are taken as the null ones (MPICH does the same):
     * the attribute is not copied, nothing runs on delete. The generic
     * pointers are of the kind's types (the callers' casts are undone). */
    switch (kind) {
    case GCM_MPI_ATTR_COMM:
        kv->copy_fn.comm   = (MPI_Comm_copy_attr_function *)copy_fn;
        kv->delete_fn.comm = (MPI_Comm_delete_attr_function *)delete_fn;
        break;
    case GCM_MPI_ATTR_WIN:
        kv->copy_fn.win   = (MPI_Win_copy_attr_function *)copy_fn;
        kv->delete_fn.win = (MPI_Win_delete_attr_function *)delete_fn;
        break;
    case GCM_MPI_ATTR_TYPE:
    default:
        kv->copy_fn.type   = (MPI_Type_copy_attr_function *)copy_fn;
        kv->delete_fn.type = (MPI_Type_delete_attr_function *)delete_fn;
        break;
    }
    kv->extra_state = extra_state;
    *keyval = GCM_KEYVAL_BASE + slot + GCM_KEYVAL_SLOTS * kv->gen;
    pthread_mutex_unlock(&gcm_attr_lock);
    return MPI_SUCCESS;
}

int gcm_mpi_attr_keyval_free(gcm_mpi_attr_kind_t kind, int *keyval,
                             const char *call)
{
    int slot;

    if (keyval == NULL) {
        return gcm_mpi_raise(NULL, MPI_ERR_ARG, call, "keyval is NULL");
    }
    if (is_predefined(*keyval)) {
        return gcm_mpi_raise(NULL, MPI_ERR_KEYVAL, call,
                             "keyval %d is predefined", *keyval);
    }
    pthread_mutex_lock(&gcm_attr_lock);
    slot = kv_user_slot(*keyval, kind);
    if (slot < 0) {
        pthread_mutex_unlock(&gcm_attr_lock);
        return gcm_mpi_raise(NULL, MPI_ERR_KEYVAL, call,
                             "keyval %d is not a valid keyval of this kind "
                             "of object (never created, or freed)",
                             *keyval);
    }
    /* Attributes still set keep the keyval (and its callbacks) alive. */
    gcm_keyvals[slot].freed = 1;
    kv_unref(slot);
    pthread_mutex_unlock(&gcm_attr_lock);
    *keyval = MPI_KEYVAL_INVALID;
    return MPI_SUCCESS;
}

int PMPI_Comm_create_keyval(MPI_Comm_copy_attr_function *copy_fn,
                            MPI_Comm_delete_attr_function *del_fn,
                            int *comm_keyval, void *extra_state)
{
    return gcm_mpi_attr_keyval_create(GCM_MPI_ATTR_COMM, (void (*)(void))copy_fn,
                                      (void (*)(void))del_fn, comm_keyval,
                                      extra_state, "MPI_Comm_create_keyval");
}
GCM_MPI_ALIAS(Comm_create_keyval)

int PMPI_Comm_free_keyval(int *comm_keyval)
{
    return gcm_mpi_attr_keyval_free(GCM_MPI_ATTR_COMM, comm_keyval,
                                    "MPI_Comm_free_keyval");
}
GCM_MPI_ALIAS(Comm_free_keyval)

int PMPI_Keyval_create(MPI_Copy_function *copy_fn,
                       MPI_Delete_function *delete_fn, int *keyval,
                       void *extra_state)
{
    return gcm_mpi_attr_keyval_create(GCM_MPI_ATTR_COMM,
                                      (void (*)(void))copy_fn,
                                      (void (*)(void))delete_fn, keyval,
                                      extra_state, "MPI_Keyval_create");
}
GCM_MPI_ALIAS(Keyval_create)

int PMPI_Keyval_free(int *keyval)
{
    return gcm_mpi_attr_keyval_free(GCM_MPI_ATTR_COMM, keyval,
                                    "MPI_Keyval_free");
}
GCM_MPI_ALIAS(Keyval_free)

/* ---- attributes ---------------------------------------------------------- */

static int keyval_error(const gcm_mpi_attr_host_t *h, int keyval,
                        const char *call)
{
    if (is_predefined(keyval)) {
        return attr_raise(h, MPI_ERR_KEYVAL, call,
                          "keyval %d is predefined (read-only)", keyval);
    }
    return attr_raise(h, MPI_ERR_KEYVAL, call,
                      "keyval %d is not a valid keyval of this kind of "
                      "object (never created, or freed)", keyval);
}

int gcm_mpi_attr_set(const gcm_mpi_attr_host_t *h, int keyval, void *value,
                     const char *call)
{
    gcm_mpi_attr_delete_fn_t delete_fn;
    struct gcm_mpi_attr_list *a;
    void *old, *extra_state;
    int rc, slot;

    pthread_mutex_lock(&gcm_attr_lock);
    slot = kv_user_slot(keyval, h->kind);
    if (slot < 0) {
        pthread_mutex_unlock(&gcm_attr_lock);
        return keyval_error(h, keyval, call);
    }
    /* The slot pin: the attribute's reference if a new one is added,
     * else held across the delete callback and dropped below. */
    gcm_keyvals[slot].refs++;
    a = attr_find(h, keyval);
    if (a != NULL) {
        /* As if MPI_Comm_delete_attr ran first (MPI-3.1 6.7.2): the old
         * value's delete callback runs, and its error fails the call. */
        old         = a->value;
        delete_fn   = gcm_keyvals[slot].delete_fn;
        extra_state = gcm_keyvals[slot].extra_state;
        pthread_mutex_unlock(&gcm_attr_lock);
        rc = attr_call_delete(h, keyval, delete_fn, old, extra_state);
        pthread_mutex_lock(&gcm_attr_lock);
        if (rc != MPI_SUCCESS) {
            kv_unref(slot);
            pthread_mutex_unlock(&gcm_attr_lock);
            return attr_raise(h, rc, call, "the delete callback of keyval "
                              "%d returned error %d", keyval, rc);
        }
        a = attr_find(h, keyval);
    }
    if (a != NULL) {
        a->value = value;
        kv_unref(slot);
    } else if (attr_push(h, keyval, value) != 0) {
        kv_unref(slot);
        pthread_mutex_unlock(&gcm_attr_lock);
        return attr_raise(h, MPI_ERR_NO_MEM, call, "out of memory");
    }
    pthread_mutex_unlock(&gcm_attr_lock);
    return MPI_SUCCESS;
}

int gcm_mpi_attr_get(const gcm_mpi_attr_host_t *h, int keyval,
                     void *attribute_val, int *flag, const char *call)
{
    struct gcm_mpi_attr_list *a;

    if (attribute_val == NULL || flag == NULL) {
        return attr_raise(h, MPI_ERR_ARG, call, "%s is NULL",
                          (attribute_val == NULL) ? "attribute_val" : "flag");
    }
    pthread_mutex_lock(&gcm_attr_lock);
    /* A freed keyval still reads the attributes it has. */
    if (kv_slot(keyval, h->kind) < 0) {
        pthread_mutex_unlock(&gcm_attr_lock);
        return keyval_error(h, keyval, call);
    }
    a     = attr_find(h, keyval);
    *flag = (a != NULL);
    if (a != NULL) {
        *(void **)attribute_val = a->value;
    }
    pthread_mutex_unlock(&gcm_attr_lock);
    return MPI_SUCCESS;
}

int gcm_mpi_attr_delete(const gcm_mpi_attr_host_t *h, int keyval,
                        const char *call)
{
    struct gcm_mpi_attr_list *a;
    int rc, slot;

    pthread_mutex_lock(&gcm_attr_lock);
    /* A freed keyval still deletes the attributes it has (the last one
     * takes the keyval with it). */
    slot = kv_slot(keyval, h->kind);
    if (slot < 0) {
        pthread_mutex_unlock(&gcm_attr_lock);
        return keyval_error(h, keyval, call);
    }
    a = attr_find(h, keyval);
    if (a == NULL) {
        /* Nothing to delete is not an error (MPICH agrees). */
        pthread_mutex_unlock(&gcm_attr_lock);
        return MPI_SUCCESS;
    }
    rc = attr_delete_held(h, keyval, slot, a->value);
    if (rc != MPI_SUCCESS) {
        /* The attribute stays: the callback refused to let it go. */
        return attr_raise(h, rc, call, "the delete callback of keyval %d "
                          "returned error %d", keyval, rc);
    }
    return MPI_SUCCESS;
}

/* The host of a communicator's attributes. */
static gcm_mpi_attr_host_t comm_host(MPI_Comm comm)
{
    gcm_mpi_attr_host_t h;

    h.kind   = GCM_MPI_ATTR_COMM;
    h.handle = comm;
    h.attrs  = &comm->attrs;
    return h;
}

static int comm_attr_set(MPI_Comm comm, int keyval, void *value,
                         const char *call)
{
    gcm_mpi_attr_host_t h;
    int rc;

    if ((rc = gcm_mpi_check_init(call)) != MPI_SUCCESS ||
        (rc = gcm_mpi_comm_check(comm, call)) != MPI_SUCCESS) {
        return rc;
    }
    h = comm_host(comm);
    return gcm_mpi_attr_set(&h, keyval, value, call);
}

static int comm_attr_get(MPI_Comm comm, int keyval, void *attribute_val,
                         int *flag, const char *call)
{
    gcm_mpi_attr_host_t h;
    const int *pre;
    int rc;

    if ((rc = gcm_mpi_check_init(call)) != MPI_SUCCESS ||
        (rc = gcm_mpi_comm_check(comm, call)) != MPI_SUCCESS) {
        return rc;
    }
    if (attribute_val == NULL || flag == NULL) {
        return gcm_mpi_raise(comm, MPI_ERR_ARG, call, "%s is NULL",
                             (attribute_val == NULL) ? "attribute_val" :
                             "flag");
    }
    if (is_predefined(keyval)) {
        /* The value is a pointer to the int (MPI-3.1 8.1.2). */
        pre   = predefined_value(comm, keyval);
        *flag = (pre != NULL);
        if (pre != NULL) {
            *(const int **)attribute_val = pre;
        }
        return MPI_SUCCESS;
    }
    h = comm_host(comm);
    return gcm_mpi_attr_get(&h, keyval, attribute_val, flag, call);
}

static int comm_attr_delete(MPI_Comm comm, int keyval, const char *call)
{
    gcm_mpi_attr_host_t h;
    int rc;

    if ((rc = gcm_mpi_check_init(call)) != MPI_SUCCESS ||
        (rc = gcm_mpi_comm_check(comm, call)) != MPI_SUCCESS) {
        return rc;
    }
    h = comm_host(comm);
    return gcm_mpi_attr_delete(&h, keyval, call);
}

int PMPI_Comm_set_attr(MPI_Comm comm, int comm_keyval, void *attribute_val)
{
    return comm_attr_set(comm, comm_keyval, attribute_val,
                         "MPI_Comm_set_attr");
}
GCM_MPI_ALIAS(Comm_set_attr)

int PMPI_Comm_get_attr(MPI_Comm comm, int comm_keyval, void *attribute_val,
                       int *flag)
{
    return comm_attr_get(comm, comm_keyval, attribute_val, flag,
                         "MPI_Comm_get_attr");
}
GCM_MPI_ALIAS(Comm_get_attr)

int PMPI_Comm_delete_attr(MPI_Comm comm, int comm_keyval)
{
    return comm_attr_delete(comm, comm_keyval, "MPI_Comm_delete_attr");
}
GCM_MPI_ALIAS(Comm_delete_attr)

int PMPI_Attr_put(MPI_Comm comm, int keyval, void *attribute_val)
{
    return comm_attr_set(comm, keyval, attribute_val, "MPI_Attr_put");
}
GCM_MPI_ALIAS(Attr_put)

int PMPI_Attr_get(MPI_Comm comm, int keyval, void *attribute_val, int *flag)
{
    return comm_attr_get(comm, keyval, attribute_val, flag, "MPI_Attr_get");
}
GCM_MPI_ALIAS(Attr_get)

int PMPI_Attr_delete(MPI_Comm comm, int keyval)
{
    return comm_attr_delete(comm, keyval, "MPI_Attr_delete");
}
GCM_MPI_ALIAS(Attr_delete)

/* ---- copies (MPI_Comm_dup) and deleting everything (the frees) ---------- */

/* One attribute of the old object, copied out under the lock. */
typedef struct gcm_mpi_attr_snap {
    int keyval;
    int slot;
    void *value;
    gcm_mpi_attr_copy_fn_t copy_fn;
    void *extra_state;
} gcm_mpi_attr_snap_t;

/* Runs a snapshot's copy callback (COMM: the only kind duplicated so
 * far); 0 with *flag 0 when there is none. */
static int attr_call_copy(const gcm_mpi_attr_host_t *old,
                          const gcm_mpi_attr_snap_t *snap, void *out,
                          int *flag)
{
    switch (old->kind) {
    case GCM_MPI_ATTR_COMM:
        if ((snap->copy_fn.comm == NULL) ||
            (snap->copy_fn.comm == gcm_mpi_comm_null_copy_fn)) {
            return MPI_SUCCESS;
        }
        return snap->copy_fn.comm((MPI_Comm)old->handle, snap->keyval,
                                  snap->extra_state, snap->value, out, flag);
    case GCM_MPI_ATTR_WIN:
        if (snap->copy_fn.win == NULL) {
            return MPI_SUCCESS;
        }
        return snap->copy_fn.win((MPI_Win)old->handle, snap->keyval,
                                 snap->extra_state, snap->value, out, flag);
    case GCM_MPI_ATTR_TYPE:
    default:
        if (snap->copy_fn.type == NULL) {
            return MPI_SUCCESS;
        }
        return snap->copy_fn.type((MPI_Datatype)old->handle, snap->keyval,
                                  snap->extra_state, snap->value, out, flag);
    }
}

int gcm_mpi_attr_copy_all(const gcm_mpi_attr_host_t *old,
                          const gcm_mpi_attr_host_t *new)
{
    gcm_mpi_attr_snap_t *snap;
    struct gcm_mpi_attr_list *a;
    void *out;
    int n = 0, i, flag, rc = MPI_SUCCESS, slot;

    pthread_mutex_lock(&gcm_attr_lock);
    for (a = *old->attrs; a != NULL; a = a->next) {
        n++;
    }
    if (n == 0) {
        pthread_mutex_unlock(&gcm_attr_lock);
        return MPI_SUCCESS;
    }
    snap = malloc((size_t)n * sizeof(*snap));
    if (snap == NULL) {
        pthread_mutex_unlock(&gcm_attr_lock);
        return MPI_ERR_NO_MEM;
    }
    /* Each snapshot pins its keyval: the callbacks run unlocked, while
     * another thread may free the keyval and delete the attribute. */
    for (i = 0, a = *old->attrs; a != NULL; a = a->next, i++) {
        slot                = kv_slot(a->keyval, old->kind);
        snap[i].keyval      = a->keyval;
        snap[i].slot        = slot;
        snap[i].value       = a->value;
        snap[i].copy_fn     = gcm_keyvals[slot].copy_fn;
        snap[i].extra_state = gcm_keyvals[slot].extra_state;
        gcm_keyvals[slot].refs++;
    }
    pthread_mutex_unlock(&gcm_attr_lock);

    /* Oldest first, each pushed in front: the new list keeps the order
     * of setting. */
    for (i = n - 1; i >= 0; i--) {
        out  = NULL;
        flag = 0;
        if (rc == MPI_SUCCESS) {
            rc = attr_call_copy(old, &snap[i], &out, &flag);
        }
        pthread_mutex_lock(&gcm_attr_lock);
        if (rc == MPI_SUCCESS && flag != 0) {
            /* The pin becomes the new attribute's reference. */
            if (attr_push(new, snap[i].keyval, out) != 0) {
                kv_unref(snap[i].slot);
                rc = MPI_ERR_NO_MEM;
            }
        } else {
            kv_unref(snap[i].slot);
        }
        pthread_mutex_unlock(&gcm_attr_lock);
    }
    free(snap);
    if (rc != MPI_SUCCESS) {
        (void)gcm_mpi_attr_delete_every(new);
    }
    return rc;
}

int gcm_mpi_attr_delete_every(const gcm_mpi_attr_host_t *h)
{
    int keyval, rc;

    /* An object that never had an attribute (the common case) is freed
     * without the lock: setting an attribute on an object while another
     * thread frees it is the program's race, not one to guard. */
    if (__atomic_load_n(h->attrs, __ATOMIC_ACQUIRE) == NULL) {
        return MPI_SUCCESS;
    }
    for (;;) {
        pthread_mutex_lock(&gcm_attr_lock);
        if (*h->attrs == NULL) {
            pthread_mutex_unlock(&gcm_attr_lock);
            return MPI_SUCCESS;
        }
        keyval = (*h->attrs)->keyval;
        rc = attr_delete_held(h, keyval, kv_slot(keyval, h->kind),
                              (*h->attrs)->value);
        if (rc != MPI_SUCCESS) {
            return rc;
        }
    }
}

int gcm_mpi_attr_copy(MPI_Comm oldcomm, MPI_Comm newcomm)
{
    gcm_mpi_attr_host_t o = comm_host(oldcomm), n = comm_host(newcomm);

    return gcm_mpi_attr_copy_all(&o, &n);
}

int gcm_mpi_attr_delete_all(MPI_Comm comm)
{
    gcm_mpi_attr_host_t h = comm_host(comm);

    return gcm_mpi_attr_delete_every(&h);
}
