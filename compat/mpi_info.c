/*
 * compat/mpi_info.c: info objects (MPI-3.1 section 9).
 *
 * An info object is an ordered list of (key, value) strings: keys keep the
 * order of their first MPI_Info_set (MPI_Info_get_nthkey enumerates them
 * in that order; overwriting a value keeps the key's place). Info objects
 * hold a handful of hints, so lookups are linear scans of an array.
 *
 * MPI's rule is that one info object is used by one thread at a time, so
 * user objects have no lock. The one shared object is MPI_INFO_ENV: it is
 * filled by MPI_Init (gcm_mpi_info_env_init) before any other thread can
 * use MPI, and is read-only to users afterwards. Its "thread_level" entry
 * is only known once MPI_Init(_thread) has settled the level, so it is
 * added on the first read after MPI_Init, under a lock (env_finish).
 */
#include "config.h"

#include "compat/mpi_impl.h"

#include <pthread.h>
#include <stdalign.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

typedef struct gcm_mpi_info_entry {
    char *key;
    char *value;
} gcm_mpi_info_entry_t;

struct gcm_mpi_info {
    uint32_t magic;                  /* GCM_MPI_MAGIC_INFO while alive */
    int predefined;                  /* MPI_INFO_ENV: read-only, not freed */
    int nkeys;
    int capacity;
    gcm_mpi_info_entry_t *entries;   /* in insertion order */
};

struct gcm_mpi_info gcm_mpi_info_env = {
    .magic      = GCM_MPI_MAGIC_INFO,
    .predefined = 1,
    .nkeys      = 0,
    .capacity   = 0,
    .entries    = NULL,
};

/* Guards the lazy completion of MPI_INFO_ENV; env_done is set (release)
 * once no more entries will be added, so readers that see it skip the
 * lock. */
static pthread_mutex_t gcm_info_env_lock = PTHREAD_MUTEX_INITIALIZER;
static atomic_int gcm_info_env_done;

/* ---- object basics ------------------------------------------------------- */

static int info_valid(MPI_Info info)
{
    uintptr_t addr = (uintptr_t)info;

    /* Small integers or misaligned garbage passed as a handle are refused
     * before they are dereferenced. */
    if (info == MPI_INFO_NULL || addr < 4096u ||
        (addr % alignof(struct gcm_mpi_info)) != 0) {
        return 0;
    }
    return info->magic == GCM_MPI_MAGIC_INFO;
}

int gcm_mpi_info_check(MPI_Info info)
{
    return (info_valid(info) != 0) ? MPI_SUCCESS : MPI_ERR_INFO;
}

int gcm_mpi_info_replace(MPI_Info *held, MPI_Info info)
{
    MPI_Info copy;
    int rc = PMPI_Info_dup(info, &copy);

    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (*held != MPI_INFO_NULL) {
        PMPI_Info_free(held);
    }
    *held = copy;
    return MPI_SUCCESS;
}

int gcm_mpi_info_hand_out(MPI_Info held, MPI_Info *info_used)
{
    return (held != MPI_INFO_NULL) ? PMPI_Info_dup(held, info_used) :
           PMPI_Info_create(info_used);
}

static int check_info(MPI_Info info, const char *call)
{
    if (info == MPI_INFO_NULL) {
        return gcm_mpi_raise(NULL, MPI_ERR_INFO, call, "info is MPI_INFO_NULL");
    }
    if (info_valid(info) == 0) {
        return gcm_mpi_raise(NULL, MPI_ERR_INFO, call,
                             "info is not a valid info object (freed or "
                             "garbage)");
    }
    return MPI_SUCCESS;
}

/* Checks an info that the call modifies: MPI_INFO_ENV is read-only. */
static int check_info_writable(MPI_Info info, const char *call)
{
    int rc = check_info(info, call);

    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (info->predefined != 0) {
        return gcm_mpi_raise(NULL, MPI_ERR_INFO, call,
                             "MPI_INFO_ENV is read-only");
    }
    return MPI_SUCCESS;
}

/* Checks a key: not NULL, 1 to MPI_MAX_INFO_KEY characters. */
static int check_key(const char *key, const char *call)
{
    size_t len;

    if (key == NULL) {
        return gcm_mpi_raise(NULL, MPI_ERR_INFO_KEY, call, "key is NULL");
    }
    len = strnlen(key, MPI_MAX_INFO_KEY + 1);
    if (len == 0) {
        return gcm_mpi_raise(NULL, MPI_ERR_INFO_KEY, call, "key is empty");
    }
    if (len > MPI_MAX_INFO_KEY) {
        return gcm_mpi_raise(NULL, MPI_ERR_INFO_KEY, call,
                             "key is longer than MPI_MAX_INFO_KEY (%d)",
                             MPI_MAX_INFO_KEY);
    }
    return MPI_SUCCESS;
}

static int info_find(MPI_Info info, const char *key)
{
    int i;

    for (i = 0; i < info->nkeys; i++) {
        if (strcmp(info->entries[i].key, key) == 0) {
            return i;
        }
    }
    return -1;
}

static char *str_dup(const char *s)
{
    size_t len = strlen(s) + 1;
    char *copy = malloc(len);

    if (copy != NULL) {
        memcpy(copy, s, len);
    }
    return copy;
}

/* Sets key to value (both already checked). Returns 0, or -1 when memory
 * ran out (the info is then unchanged). */
static int info_put(MPI_Info info, const char *key, const char *value)
{
    gcm_mpi_info_entry_t *entries;
    char *k, *v;
    int i, capacity;

    v = str_dup(value);
    if (v == NULL) {
        return -1;
    }
    i = info_find(info, key);
    if (i >= 0) {
        /* Overwriting keeps the key's place in the order. */
        free(info->entries[i].value);
        info->entries[i].value = v;
        return 0;
    }
    if (info->nkeys == info->capacity) {
        capacity = (info->capacity == 0) ? 8 : 2 * info->capacity;
        entries  = realloc(info->entries,
                           (size_t)capacity * sizeof(*entries));
        if (entries == NULL) {
            free(v);
            return -1;
        }
        info->entries  = entries;
        info->capacity = capacity;
    }
    k = str_dup(key);
    if (k == NULL) {
        free(v);
        return -1;
    }
    info->entries[info->nkeys].key   = k;
    info->entries[info->nkeys].value = v;
    info->nkeys++;
    return 0;
}

static void info_clear(MPI_Info info)
{
    int i;

    for (i = 0; i < info->nkeys; i++) {
        free(info->entries[i].key);
        free(info->entries[i].value);
    }
    free(info->entries);
    info->entries  = NULL;
    info->nkeys    = 0;
    info->capacity = 0;
}

/* ---- MPI_INFO_ENV -------------------------------------------------------- */

static const char *thread_level_name(int level)
{
    switch (level) {
    case MPI_THREAD_SINGLE:
        return "MPI_THREAD_SINGLE";
    case MPI_THREAD_FUNNELED:
        return "MPI_THREAD_FUNNELED";
    case MPI_THREAD_SERIALIZED:
        return "MPI_THREAD_SERIALIZED";
    default:
        return "MPI_THREAD_MULTIPLE";
    }
}

/* Adds "thread_level" once MPI is initialized (the level is settled by
 * then). Before MPI_Init, or if the level cannot be read, nothing is
 * added and a later read tries again. */
static void env_finish(void)
{
    MPI_Info env = MPI_INFO_ENV;
    int initialized = 0, finalized = 0, provided;

    pthread_mutex_lock(&gcm_info_env_lock);
    if (atomic_load_explicit(&gcm_info_env_done, memory_order_relaxed) == 0 &&
        PMPI_Initialized(&initialized) == MPI_SUCCESS && initialized != 0 &&
        PMPI_Finalized(&finalized) == MPI_SUCCESS && finalized == 0 &&
        PMPI_Query_thread(&provided) == MPI_SUCCESS) {
        if (info_find(env, "thread_level") < 0) {
            (void)info_put(env, "thread_level", thread_level_name(provided));
        }
        atomic_store_explicit(&gcm_info_env_done, 1, memory_order_release);
    }
    pthread_mutex_unlock(&gcm_info_env_lock);
}

/* Every read of an info goes through here first. */
static void info_ready(MPI_Info info)
{
    if (info == MPI_INFO_ENV &&
        atomic_load_explicit(&gcm_info_env_done, memory_order_acquire) == 0) {
        env_finish();
    }
}

/* check_info, then out (the argument named what) must not be NULL; the
 * info is ready to read. */
static int check_info_out(MPI_Info info, const void *out, const char *what,
                          const char *call)
{
    int rc = check_info(info, call);

    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (out == NULL) {
        return gcm_mpi_raise(NULL, MPI_ERR_ARG, call, "%s is NULL", what);
    }
    info_ready(info);
    return MPI_SUCCESS;
}

/* Appends s to buf (of size cap, holding len characters), truncating at
 * the end of the buffer. Returns the new length. */
static size_t append(char *buf, size_t cap, size_t len, const char *s)
{
    size_t n = strlen(s);

    if (len + 1 >= cap) {
        return len;
    }
    if (n > cap - 1 - len) {
        n = cap - 1 - len;
    }
    memcpy(buf + len, s, n);
    buf[len + n] = '\0';
    return len + n;
}

void gcm_mpi_info_env_init(int argc, char **argv)
{
    MPI_Info env = MPI_INFO_ENV;
    char buf[MPI_MAX_INFO_VAL + 1];
    struct utsname uts;
    size_t len;
    int i;

    pthread_mutex_lock(&gcm_info_env_lock);
    info_clear(env);
    atomic_store_explicit(&gcm_info_env_done, 0, memory_order_relaxed);
    /* The keys MPI-3.1 9.1.1 reserves for MPI_INFO_ENV (what mpiexec
     * would have been given), in the standard's order. Values longer than
     * MPI_MAX_INFO_VAL are cut there. */
    if (argv != NULL && argc > 0 && argv[0] != NULL) {
        buf[0] = '\0';
        (void)append(buf, sizeof(buf), 0, argv[0]);
        (void)info_put(env, "command", buf);
        buf[0] = '\0';
        len    = 0;
        for (i = 1; i < argc && argv[i] != NULL; i++) {
            if (i > 1) {
                len = append(buf, sizeof(buf), len, " ");
            }
            len = append(buf, sizeof(buf), len, argv[i]);
        }
        (void)info_put(env, "argv", buf);
    }
    snprintf(buf, sizeof(buf), "%d", gcm_proc_count());
    (void)info_put(env, "maxprocs", buf);
    if (gethostname(buf, sizeof(buf) - 1) == 0) {
        buf[sizeof(buf) - 1] = '\0';
        (void)info_put(env, "host", buf);
    }
    if (uname(&uts) == 0) {
        buf[0] = '\0';
        (void)append(buf, sizeof(buf), 0, uts.machine);
        (void)info_put(env, "arch", buf);
    }
    if (getcwd(buf, sizeof(buf)) != NULL) {
        (void)info_put(env, "wdir", buf);
    }
    pthread_mutex_unlock(&gcm_info_env_lock);
}

/* ---- MPI_Info_* ---------------------------------------------------------- */

int PMPI_Info_create(MPI_Info *info)
{
    static const char call[] = "MPI_Info_create";
    MPI_Info obj;

    if (info == NULL) {
        return gcm_mpi_raise(NULL, MPI_ERR_ARG, call, "info is NULL");
    }
    obj = gcm_mpi_handle_alloc(sizeof(*obj));
    if (obj == NULL) {
        return gcm_mpi_raise(NULL, MPI_ERR_NO_MEM, call, "out of memory");
    }
    obj->magic = GCM_MPI_MAGIC_INFO;
    *info      = obj;
    return MPI_SUCCESS;
}
GCM_MPI_ALIAS(Info_create)

int PMPI_Info_set(MPI_Info info, const char *key, const char *value)
{
    static const char call[] = "MPI_Info_set";
    int rc;

    rc = check_info_writable(info, call);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    rc = check_key(key, call);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (value == NULL) {
        return gcm_mpi_raise(NULL, MPI_ERR_INFO_VALUE, call, "value is NULL");
    }
    if (strnlen(value, MPI_MAX_INFO_VAL + 1) > MPI_MAX_INFO_VAL) {
        return gcm_mpi_raise(NULL, MPI_ERR_INFO_VALUE, call,
                             "value of key \"%s\" is longer than "
                             "MPI_MAX_INFO_VAL (%d)", key, MPI_MAX_INFO_VAL);
    }
    if (info_put(info, key, value) != 0) {
        return gcm_mpi_raise(NULL, MPI_ERR_NO_MEM, call, "out of memory");
    }
    return MPI_SUCCESS;
}
GCM_MPI_ALIAS(Info_set)

/* The checks of the calls that look a key up. */
static int check_info_key(MPI_Info info, const char *key, const char *call)
{
    int rc = check_info(info, call);

    return (rc != MPI_SUCCESS) ? rc : check_key(key, call);
}

int PMPI_Info_get(MPI_Info info, const char *key, int valuelen, char *value,
                  int *flag)
{
    static const char call[] = "MPI_Info_get";
    const char *v;
    size_t n;
    int rc, i;

    rc = check_info_key(info, key, call);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (valuelen < 0) {
        return gcm_mpi_raise(NULL, MPI_ERR_ARG, call,
                             "valuelen %d is negative", valuelen);
    }
    if (value == NULL || flag == NULL) {
        return gcm_mpi_raise(NULL, MPI_ERR_ARG, call, "%s is NULL",
                             (value == NULL) ? "value" : "flag");
    }
    info_ready(info);
    i = info_find(info, key);
    if (i < 0) {
        *flag = 0;
        return MPI_SUCCESS;
    }
    /* valuelen excludes the terminating null (MPI-3.1 9): the buffer holds
     * valuelen + 1 characters, and a longer value is cut to valuelen. */
    v = info->entries[i].value;
    n = strlen(v);
    if (n > (size_t)valuelen) {
        n = (size_t)valuelen;
    }
    memcpy(value, v, n);
    value[n] = '\0';
    *flag    = 1;
    return MPI_SUCCESS;
}
GCM_MPI_ALIAS(Info_get)

/* MPI-4.0 9.2: *buflen counts the terminating null both ways; the value
 * is cut to fit (a buflen of 0 writes nothing) and *buflen becomes the
 * size the whole value needs. */
int PMPI_Info_get_string(MPI_Info info, const char *key, int *buflen,
                         char *value, int *flag)
{
    static const char call[] = "MPI_Info_get_string";
    const char *v;
    size_t n;
    int rc, i;

    rc = check_info_key(info, key, call);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (buflen == NULL || flag == NULL) {
        return gcm_mpi_raise(NULL, MPI_ERR_ARG, call, "%s is NULL",
                             (buflen == NULL) ? "buflen" : "flag");
    }
    if (*buflen < 0) {
        return gcm_mpi_raise(NULL, MPI_ERR_ARG, call,
                             "*buflen %d is negative", *buflen);
    }
    if (*buflen > 0 && value == NULL) {
        return gcm_mpi_raise(NULL, MPI_ERR_ARG, call,
                             "value is NULL with *buflen %d", *buflen);
    }
    info_ready(info);
    i = info_find(info, key);
    if (i < 0) {
        *flag = 0;
        return MPI_SUCCESS;
    }
    v = info->entries[i].value;
    n = strlen(v);
    if (*buflen > 0) {
        size_t cut = (n < (size_t)*buflen) ? n : (size_t)*buflen - 1;

        memcpy(value, v, cut);
        value[cut] = '\0';
    }
    *buflen = (int)n + 1;
    *flag   = 1;
    return MPI_SUCCESS;
}
GCM_MPI_ALIAS(Info_get_string)

int PMPI_Info_get_valuelen(MPI_Info info, const char *key, int *valuelen,
                           int *flag)
{
    static const char call[] = "MPI_Info_get_valuelen";
    int rc, i;

    rc = check_info_key(info, key, call);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (valuelen == NULL || flag == NULL) {
        return gcm_mpi_raise(NULL, MPI_ERR_ARG, call, "%s is NULL",
                             (valuelen == NULL) ? "valuelen" : "flag");
    }
    info_ready(info);
    i = info_find(info, key);
    if (i < 0) {
        *flag = 0;
        return MPI_SUCCESS;
    }
    *valuelen = (int)strlen(info->entries[i].value);
    *flag     = 1;
    return MPI_SUCCESS;
}
GCM_MPI_ALIAS(Info_get_valuelen)

int PMPI_Info_get_nkeys(MPI_Info info, int *nkeys)
{
    static const char call[] = "MPI_Info_get_nkeys";
    int rc;

    rc = check_info_out(info, nkeys, "nkeys", call);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    *nkeys = info->nkeys;
    return MPI_SUCCESS;
}
GCM_MPI_ALIAS(Info_get_nkeys)

int PMPI_Info_get_nthkey(MPI_Info info, int n, char *key)
{
    static const char call[] = "MPI_Info_get_nthkey";
    int rc;

    rc = check_info_out(info, key, "key", call);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (n < 0 || n >= info->nkeys) {
        return gcm_mpi_raise(NULL, MPI_ERR_ARG, call,
                             "n %d is out of range (the info has %d keys)",
                             n, info->nkeys);
    }
    /* Keys are at most MPI_MAX_INFO_KEY characters (checked on set), so
     * they fit the MPI_MAX_INFO_KEY + 1 bytes the caller provides. */
    strcpy(key, info->entries[n].key);
    return MPI_SUCCESS;
}
GCM_MPI_ALIAS(Info_get_nthkey)

int PMPI_Info_delete(MPI_Info info, const char *key)
{
    static const char call[] = "MPI_Info_delete";
    int rc, i;

    rc = check_info_writable(info, call);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    rc = check_key(key, call);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    i = info_find(info, key);
    if (i < 0) {
        return gcm_mpi_raise(NULL, MPI_ERR_INFO_NOKEY, call,
                             "key \"%s\" is not in the info", key);
    }
    free(info->entries[i].key);
    free(info->entries[i].value);
    /* Shift the rest down: the order of the other keys is kept. */
    memmove(&info->entries[i], &info->entries[i + 1],
            (size_t)(info->nkeys - i - 1) * sizeof(info->entries[0]));
    info->nkeys--;
    return MPI_SUCCESS;
}
GCM_MPI_ALIAS(Info_delete)

int PMPI_Info_dup(MPI_Info info, MPI_Info *newinfo)
{
    static const char call[] = "MPI_Info_dup";
    MPI_Info obj;
    int rc, i;

    rc = check_info_out(info, newinfo, "newinfo", call);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    obj = gcm_mpi_handle_alloc(sizeof(*obj));
    if (obj == NULL) {
        return gcm_mpi_raise(NULL, MPI_ERR_NO_MEM, call, "out of memory");
    }
    obj->magic = GCM_MPI_MAGIC_INFO;
    for (i = 0; i < info->nkeys; i++) {
        if (info_put(obj, info->entries[i].key, info->entries[i].value) !=
            0) {
            info_clear(obj);
            gcm_mpi_handle_free(obj);
            return gcm_mpi_raise(NULL, MPI_ERR_NO_MEM, call,
                                 "out of memory");
        }
    }
    *newinfo = obj;
    return MPI_SUCCESS;
}
GCM_MPI_ALIAS(Info_dup)

int PMPI_Info_free(MPI_Info *info)
{
    static const char call[] = "MPI_Info_free";
    MPI_Info obj;
    int rc;

    if (info == NULL) {
        return gcm_mpi_raise(NULL, MPI_ERR_ARG, call, "info is NULL");
    }
    obj = *info;
    rc  = check_info(obj, call);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (obj->predefined != 0) {
        return gcm_mpi_raise(NULL, MPI_ERR_INFO, call,
                             "MPI_INFO_ENV cannot be freed");
    }
    /* Clear the magic first, so that a stale copy of the handle reads
     * as no info object (handle memory is never reused: util/util_handle.c). */
    obj->magic = 0;
    info_clear(obj);
    gcm_mpi_handle_free(obj);
    *info = MPI_INFO_NULL;
    return MPI_SUCCESS;
}
GCM_MPI_ALIAS(Info_free)
