/*
 * compat/mpi_errors.c: error classes, their texts, error handlers and
 * ending the job (MPI-3.1 section 8.3-8.5).
 *
 * Error codes are error classes (as in Open MPI): a program that compares
 * a return value with MPI_ERR_TRUNCATE works. The detail of the last error
 * a thread raised (the call and the reason) is kept per thread, and
 * MPI_Error_string adds it to the class text when asked about that code.
 */
#include "config.h"

#include "boot/boot.h"
#include "compat/mpi_impl.h"
#include "compat/mpi_win.h"

#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef enum {
    GCM_MPI_ERRH_FATAL  = 1,
    GCM_MPI_ERRH_RETURN = 2,
    GCM_MPI_ERRH_USER   = 3
} gcm_mpi_errh_kind_t;

/* refcount counts every holder: the communicators that use the handler
 * and the user's handles; handles counts the latter alone (each
 * MPI_Comm_get_errhandler gives one more), so that freeing a handle more
 * often than it was given is refused instead of freeing a communicator's
 * handler. */
struct gcm_mpi_errh {
    uint32_t                      magic;
    int                           predefined;
    atomic_int                    refcount;
    atomic_int                    handles;
    gcm_mpi_errh_kind_t           kind;
    MPI_Comm_errhandler_function *fn;
    /* User handlers of windows (MPI_Win_create_errhandler): win set,
     * fn NULL. */
    MPI_Win_errhandler_function  *win_fn;
};

struct gcm_mpi_errh gcm_mpi_errh_fatal = {
    GCM_MPI_MAGIC_ERRH, 1, 1, 1, GCM_MPI_ERRH_FATAL, NULL, NULL
};
struct gcm_mpi_errh gcm_mpi_errh_return = {
    GCM_MPI_MAGIC_ERRH, 1, 1, 1, GCM_MPI_ERRH_RETURN, NULL, NULL
};

static __thread char gcm_mpi_last_text[MPI_MAX_ERROR_STRING];
static __thread int  gcm_mpi_last_code;

static const char *const gcm_mpi_class_text[] = {
    [MPI_SUCCESS]         = "no error",
    [MPI_ERR_BUFFER]      = "invalid buffer pointer",
    [MPI_ERR_COUNT]       = "invalid count argument",
    [MPI_ERR_TYPE]        = "invalid datatype",
    [MPI_ERR_TAG]         = "invalid tag",
    [MPI_ERR_COMM]        = "invalid communicator",
    [MPI_ERR_RANK]        = "invalid rank",
    [MPI_ERR_REQUEST]     = "invalid request",
    [MPI_ERR_ROOT]        = "invalid root",
    [MPI_ERR_GROUP]       = "invalid group",
    [MPI_ERR_OP]          = "invalid reduction operation",
    [MPI_ERR_TOPOLOGY]    = "invalid topology",
    [MPI_ERR_DIMS]        = "invalid dimension argument",
    [MPI_ERR_ARG]         = "invalid argument",
    [MPI_ERR_UNKNOWN]     = "unknown error",
    [MPI_ERR_TRUNCATE]    = "message truncated",
    [MPI_ERR_OTHER]       = "other error",
    [MPI_ERR_INTERN]      = "internal error",
    [MPI_ERR_IN_STATUS]   = "error code is in status",
    [MPI_ERR_PENDING]     = "pending request",
    [MPI_ERR_KEYVAL]      = "invalid keyval",
    [MPI_ERR_NO_MEM]      = "out of memory",
    [MPI_ERR_INFO]        = "invalid info object",
    [MPI_ERR_INFO_KEY]    = "invalid info key",
    [MPI_ERR_INFO_VALUE]  = "invalid info value",
    [MPI_ERR_INFO_NOKEY]  = "info key not found",
    [MPI_ERR_PROC_FAILED] = "a peer process failed",
    [MPI_ERR_NOT_SAME]    = "collective arguments differ between processes",
    [MPI_ERR_UNSUPPORTED_OPERATION] = "unsupported operation",
    /* dynamic processes */
    [MPI_ERR_PORT]        = "invalid port name, port closed or not "
                            "answering",
    [MPI_ERR_SERVICE]     = "invalid service name or publication",
    [MPI_ERR_NAME]        = "service name not published",
    [MPI_ERR_SPAWN]       = "could not spawn processes",
    [MPI_ERR_WIN]          = "invalid window",
    [MPI_ERR_BASE]         = "invalid base address",
    [MPI_ERR_SIZE]         = "invalid size argument",
    [MPI_ERR_DISP]         = "invalid displacement argument",
    [MPI_ERR_LOCKTYPE]     = "invalid lock type",
    [MPI_ERR_ASSERT]       = "invalid assert argument",
    [MPI_ERR_RMA_CONFLICT] = "conflicting accesses to a window",
    [MPI_ERR_RMA_SYNC]     = "wrong synchronization of one-sided calls",
    [MPI_ERR_RMA_RANGE]    = "target memory is not part of the window",
    [MPI_ERR_RMA_ATTACH]   = "memory cannot be attached",
    [MPI_ERR_RMA_SHARED]   = "memory cannot be shared",
    [MPI_ERR_RMA_FLAVOR]   = "passed window has the wrong flavor for the "
                             "called function",
};

static const char *gcm_mpi_class_string(int errclass)
{
    if ((errclass >= 0) &&
        (errclass < (int)(sizeof(gcm_mpi_class_text) /
                          sizeof(gcm_mpi_class_text[0]))) &&
        (gcm_mpi_class_text[errclass] != NULL)) {
        return gcm_mpi_class_text[errclass];
    }
    return NULL;
}

/*
 * Error classes and codes the program adds (MPI-3.1 8.5): numbered from
 * MPI_ERR_LASTCODE + 1 up, in the order they are added, classes and codes
 * alike; entry i is code MPI_ERR_LASTCODE + 1 + i. A class is its own
 * class. The table only grows (MPI has no call that removes one), under
 * its lock: any thread may add one while others print theirs.
 */
typedef struct gcm_mpi_ucode {
    int   errclass;
    char *text;           /* MPI_Add_error_string; NULL: none yet */
} gcm_mpi_ucode_t;

static struct {
    pthread_mutex_t  lock;
    gcm_mpi_ucode_t *codes;
    int              n;
    int              cap;
    /* The value of the attribute MPI_LASTUSEDCODE. */
    int              lastused;
} gcm_mpi_ucodes = { PTHREAD_MUTEX_INITIALIZER, NULL, 0, 0,
                     MPI_ERR_LASTCODE };

const int *gcm_mpi_err_lastused(void)
{
    return &gcm_mpi_ucodes.lastused;
}

/* Lock held: the entry of a code the program added, or NULL. */
static gcm_mpi_ucode_t *gcm_mpi_ucode_find(int code)
{
    if ((code <= MPI_ERR_LASTCODE) ||
        (code - MPI_ERR_LASTCODE - 1 >= gcm_mpi_ucodes.n)) {
        return NULL;
    }
    return &gcm_mpi_ucodes.codes[code - MPI_ERR_LASTCODE - 1];
}

/* The class of any valid error code (a predefined class, or a class or
 * code the program added); -1 for a value that is none of these. */
static int gcm_mpi_code_class(int code)
{
    gcm_mpi_ucode_t *u;
    int errclass = -1;

    if (gcm_mpi_class_string(code) != NULL) {
        return code;
    }
    pthread_mutex_lock(&gcm_mpi_ucodes.lock);
    if ((u = gcm_mpi_ucode_find(code)) != NULL) {
        errclass = u->errclass;
    }
    pthread_mutex_unlock(&gcm_mpi_ucodes.lock);
    return errclass;
}

/* The text of a valid code into buf: the class text of a predefined
 * class, the program's text of one it added ("" when it set none).
 * 0, or -1 when code is not valid. */
static int gcm_mpi_code_text(int code, char *buf, size_t len)
{
    const char *text = gcm_mpi_class_string(code);
    gcm_mpi_ucode_t *u;
    int rc = 0;

    if (text != NULL) {
        snprintf(buf, len, "%s", text);
        return 0;
    }
    pthread_mutex_lock(&gcm_mpi_ucodes.lock);
    if ((u = gcm_mpi_ucode_find(code)) != NULL) {
        snprintf(buf, len, "%s", (u->text != NULL) ? u->text : "");
    } else {
        rc = -1;
    }
    pthread_mutex_unlock(&gcm_mpi_ucodes.lock);
    return rc;
}

/* Adds a code of class errclass (-1: a new class, its own); 0 with the
 * new value in *code_p, or -1 without memory or numbers. */
static int gcm_mpi_ucode_add(int errclass, int *code_p)
{
    gcm_mpi_ucode_t *grown;
    int rc = -1;

    pthread_mutex_lock(&gcm_mpi_ucodes.lock);
    if (gcm_mpi_ucodes.n == gcm_mpi_ucodes.cap &&
        gcm_mpi_ucodes.cap < INT_MAX / 2 - MPI_ERR_LASTCODE) {
        int cap = (gcm_mpi_ucodes.cap > 0) ? 2 * gcm_mpi_ucodes.cap : 16;

        grown = realloc(gcm_mpi_ucodes.codes, (size_t)cap * sizeof(*grown));
        if (grown != NULL) {
            gcm_mpi_ucodes.codes = grown;
            gcm_mpi_ucodes.cap = cap;
        }
    }
    if (gcm_mpi_ucodes.n < gcm_mpi_ucodes.cap) {
        int code = MPI_ERR_LASTCODE + 1 + gcm_mpi_ucodes.n;

        gcm_mpi_ucodes.codes[gcm_mpi_ucodes.n].errclass =
            (errclass < 0) ? code : errclass;
        gcm_mpi_ucodes.codes[gcm_mpi_ucodes.n].text = NULL;
        gcm_mpi_ucodes.n++;
        gcm_mpi_ucodes.lastused = code;
        *code_p = code;
        rc = 0;
    }
    pthread_mutex_unlock(&gcm_mpi_ucodes.lock);
    return rc;
}

int gcm_mpi_errclass(gcm_status_t status)
{
    switch (status) {
    case GCM_OK:
    case GCM_INPROGRESS:
        return MPI_SUCCESS;
    case GCM_ERR_NO_MEMORY:
        return MPI_ERR_NO_MEM;
    case GCM_ERR_INVALID_PARAM:
        return MPI_ERR_ARG;
    case GCM_ERR_NOT_INITIALIZED:
        return MPI_ERR_OTHER;
    case GCM_ERR_TRUNCATED:
        return MPI_ERR_TRUNCATE;
    case GCM_ERR_NO_SUCH_LCO:
    case GCM_ERR_BAD_TOKEN:
        return MPI_ERR_COMM;
    case GCM_ERR_NO_SUCH_SLOT:
        return MPI_ERR_RANK;
    case GCM_ERR_PEER_FAILED:
        return MPI_ERR_PROC_FAILED;
    case GCM_ERR_CANCELED:
        return MPI_SUCCESS;   /* a cancelled request completes normally */
    case GCM_ERR_BUSY:
        return MPI_ERR_PENDING;
    case GCM_ERR_TRANSPORT:
    case GCM_ERR_BOOT:
        return MPI_ERR_OTHER;
    case GCM_ERR_INTERNAL:
    default:
        return MPI_ERR_INTERN;
    }
}

static const char *gcm_mpi_comm_label(MPI_Comm comm, char *buf, size_t len)
{
    if (comm == MPI_COMM_WORLD) {
        return "MPI_COMM_WORLD";
    }
    if (comm == MPI_COMM_SELF) {
        return "MPI_COMM_SELF";
    }
    if ((comm != NULL) && (comm->magic == GCM_MPI_MAGIC_COMM) &&
        (comm->name[0] != '\0')) {
        return comm->name;
    }
    snprintf(buf, len, "communicator %p", (void *)comm);
    return buf;
}

void gcm_mpi_abort_job(int code, const char *msg)
{
    if (msg != NULL) {
        fprintf(stderr, "%s\n", msg);
        fflush(stderr);
    }
    if (gcm_initialized()) {
        gcm_boot_abort(code, msg);
    }
    _exit((code != 0) ? code : 1);
}

/*
 * Did another process call MPI_Abort? A peer's death can be seen (its
 * connection drops) before the launcher's word that it aborted has been
 * read, so wait for that word a little: the job is ending either way.
 */
static int gcm_mpi_abort_in_progress(void)
{
    double deadline = gcm_time_now() + 1.0;
    struct pollfd pfd;

    if (!gcm_initialized()) {
        return 0;
    }
    pfd.fd     = gcm_boot_event_fd();
    pfd.events = POLLIN;
    while (!gcm_boot_job_aborting() && (pfd.fd >= 0) &&
           (gcm_time_now() < deadline)) {
        if (poll(&pfd, 1, 50) > 0) {
            gcm_boot_poll_events();
        }
    }
    return gcm_boot_job_aborting();
}

/*
 * Runs errh for code on the object label names (a communicator, a
 * window or a session); a user handler gets handle (an MPI_Comm *, an
 * MPI_Win * or an MPI_Session *, as its kind of function expects).
 */
static int gcm_mpi_errh_dispatch(MPI_Errhandler errh, const char *label,
                                 void *handle, int code)
{
    char text[MPI_MAX_ERROR_STRING];
    char msg[MPI_MAX_ERROR_STRING + 256];

    if (errh == NULL) {
        errh = MPI_ERRORS_ARE_FATAL;
    }
    switch (errh->kind) {
    case GCM_MPI_ERRH_RETURN:
        return code;
    case GCM_MPI_ERRH_USER:
        if (errh->fn != NULL) {
            errh->fn((MPI_Comm *)handle, &code);
        } else {
            errh->win_fn((MPI_Win *)handle, &code);
        }
        return code;
    case GCM_MPI_ERRH_FATAL:
    default:
        /* A transfer that fails because a peer is gone shows as
         * MPI_ERR_PROC_FAILED, or as MPI_ERR_OTHER when a connection to
         * it could not even be made. */
        if (((code == MPI_ERR_PROC_FAILED) || (code == MPI_ERR_OTHER)) &&
            gcm_mpi_abort_in_progress()) {
            /* Another process called MPI_Abort: this failure is its
             * consequence, and the launcher reports the abort. */
            fflush(stdout);
            _exit(code);
        }
        if (gcm_mpi_last_code == code) {
            snprintf(text, sizeof(text), "%s", gcm_mpi_last_text);
        } else if (gcm_mpi_code_text(code, text, sizeof(text)) != 0 ||
                   text[0] == '\0') {
            snprintf(text, sizeof(text), "error code %d", code);
        }
        snprintf(msg, sizeof(msg),
                 "gencomm: fatal error on %s (process %d of %d): %s\n"
                 "gencomm: MPI_ERRORS_ARE_FATAL: ending the job", label,
                 gcm_initialized() ? gcm_proc_rank() : 0,
                 gcm_initialized() ? gcm_proc_count() : 1, text);
        gcm_mpi_abort_job((code > 0) ? code : 1, msg);
    }
    return code;
}

int gcm_mpi_errh_invoke(MPI_Comm comm, int code)
{
    char label[64];

    if ((comm == NULL) || (comm->magic != GCM_MPI_MAGIC_COMM)) {
        comm = MPI_COMM_WORLD;
    }
    if (comm->magic != GCM_MPI_MAGIC_COMM) {
        /* Before MPI_Init (or after MPI_Finalize) no handler exists:
         * the code is returned (the library's unit tests rely on it). */
        return code;
    }
    return gcm_mpi_errh_dispatch(comm->errh,
                                 gcm_mpi_comm_label(comm, label,
                                                    sizeof(label)),
                                 &comm, code);
}

/* Keeps "call: reason" as the calling thread's last error text. */
static void gcm_mpi_keep_text(int errclass, const char *call,
                              const char *fmt, va_list ap)
{
    char reason[MPI_MAX_ERROR_STRING / 2];

    vsnprintf(reason, sizeof(reason), fmt, ap);
    snprintf(gcm_mpi_last_text, sizeof(gcm_mpi_last_text), "%s: %s", call,
             reason);
    gcm_mpi_last_code = errclass;
    gcm_debug("%s", gcm_mpi_last_text);
}

int gcm_mpi_raise(MPI_Comm comm, int errclass, const char *call,
                  const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    gcm_mpi_keep_text(errclass, call, fmt, ap);
    va_end(ap);
    return gcm_mpi_errh_invoke(comm, errclass);
}

int gcm_mpi_raise_on(MPI_Errhandler errh, const char *label, void *handle,
                     int errclass, const char *call, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    gcm_mpi_keep_text(errclass, call, fmt, ap);
    va_end(ap);
    return gcm_mpi_errh_dispatch(errh, label, handle, errclass);
}

int gcm_mpi_errh_pass(MPI_Errhandler errh, const char *label, void *handle,
                      int code)
{
    return gcm_mpi_errh_dispatch(errh, label, handle, code);
}

int gcm_mpi_raise_native(MPI_Comm comm, gcm_status_t status,
                         const char *call, const char *what)
{
    return gcm_mpi_raise(comm, gcm_mpi_errclass(status), call, "%s: %s",
                         what, gcm_last_error());
}

int gcm_mpi_win_raise(MPI_Win win, int errclass, const char *call,
                      const char *fmt, ...)
{
    char label[MPI_MAX_OBJECT_NAME + 16];
    va_list ap;

    va_start(ap, fmt);
    gcm_mpi_keep_text(errclass, call, fmt, ap);
    va_end(ap);
    if ((win == MPI_WIN_NULL) || (win->magic != GCM_MPI_MAGIC_WIN)) {
        /* No window to tell: as for calls tied to no communicator. */
        return gcm_mpi_errh_invoke(NULL, errclass);
    }
    /* gcm_mpi_errh_set keeps communicators' handlers off windows. */
    snprintf(label, sizeof(label), "window %s",
             (win->name[0] != '\0') ? win->name : "(unnamed)");
    return gcm_mpi_errh_dispatch(win->errh, label, &win, errclass);
}

void gcm_mpi_errh_retain(MPI_Errhandler errh)
{
    if ((errh != NULL) && !errh->predefined) {
        atomic_fetch_add(&errh->refcount, 1);
    }
}

void gcm_mpi_errh_release(MPI_Errhandler errh)
{
    if ((errh != NULL) && !errh->predefined &&
        (atomic_fetch_sub(&errh->refcount, 1) == 1)) {
        gcm_mpi_handle_free(errh);
    }
}

/* Is errh a handle the user may still use: a live handler of which the
 * user holds a handle not yet freed? */
static int gcm_mpi_errh_valid(MPI_Errhandler errh)
{
    return (errh != NULL) && (errh->magic == GCM_MPI_MAGIC_ERRH) &&
           (errh->predefined || (atomic_load(&errh->handles) > 0));
}

int gcm_mpi_errh_check(MPI_Errhandler errh)
{
    return gcm_mpi_errh_valid(errh) ? MPI_SUCCESS : MPI_ERR_ARG;
}

/* A user handler: of a communicator (fn) or of a window (win_fn). */
static int gcm_mpi_errh_create(MPI_Comm_errhandler_function *fn,
                               MPI_Win_errhandler_function *win_fn,
                               MPI_Errhandler *errhandler, const char *call)
{
    struct gcm_mpi_errh *errh;

    if (((fn == NULL) && (win_fn == NULL)) || (errhandler == NULL)) {
        return gcm_mpi_raise(NULL, MPI_ERR_ARG, call,
                             "function or errhandler pointer is NULL");
    }
    errh = gcm_mpi_handle_alloc(sizeof(*errh));
    if (errh == NULL) {
        return gcm_mpi_raise(NULL, MPI_ERR_NO_MEM, call, "out of memory");
    }
    errh->magic = GCM_MPI_MAGIC_ERRH;
    atomic_init(&errh->refcount, 1);
    atomic_init(&errh->handles, 1);
    errh->kind   = GCM_MPI_ERRH_USER;
    errh->fn     = fn;
    errh->win_fn = win_fn;
    *errhandler = errh;
    return MPI_SUCCESS;
}

/* errh, as a handle of the caller's own (MPI_Errhandler_free): one
 * reference and one handle more. */
static MPI_Errhandler gcm_mpi_errh_hand_out(MPI_Errhandler errh)
{
    gcm_mpi_errh_retain(errh);
    if (!errh->predefined) {
        atomic_fetch_add(&errh->handles, 1);
    }
    return errh;
}

/* Why errhandler cannot be set on an object of that kind (win: a
 * window), or NULL if it can; then *slot takes it. */
static const char *gcm_mpi_errh_set(MPI_Errhandler *slot,
                                    MPI_Errhandler errhandler, int win)
{
    MPI_Errhandler old;

    if (!gcm_mpi_errh_valid(errhandler)) {
        return "not a valid error handler";
    }
    if (win && (errhandler->kind == GCM_MPI_ERRH_USER) &&
        (errhandler->win_fn == NULL)) {
        return "the error handler was made for communicators "
               "(MPI_Comm_create_errhandler)";
    }
    if (!win && (errhandler->win_fn != NULL)) {
        return "the error handler was made for windows "
               "(MPI_Win_create_errhandler)";
    }
    gcm_mpi_errh_retain(errhandler);
    old = *slot;
    *slot = errhandler;
    gcm_mpi_errh_release(old);
    return NULL;
}

int PMPI_Comm_create_errhandler(MPI_Comm_errhandler_function *fn,
                                MPI_Errhandler *errhandler)
{
    return gcm_mpi_errh_create(fn, NULL, errhandler,
                               "MPI_Comm_create_errhandler");
}
GCM_MPI_ALIAS(Comm_create_errhandler)

int PMPI_Comm_set_errhandler(MPI_Comm comm, MPI_Errhandler errhandler)
{
    static const char *call = "MPI_Comm_set_errhandler";
    const char *why;
    int rc;

    if ((rc = gcm_mpi_comm_check(comm, call)) != MPI_SUCCESS) {
        return rc;
    }
    why = gcm_mpi_errh_set(&comm->errh, errhandler, 0);
    if (why != NULL) {
        return gcm_mpi_raise(comm, MPI_ERR_ARG, call, "%s", why);
    }
    return MPI_SUCCESS;
}
GCM_MPI_ALIAS(Comm_set_errhandler)

int PMPI_Comm_get_errhandler(MPI_Comm comm, MPI_Errhandler *errhandler)
{
    static const char *call = "MPI_Comm_get_errhandler";
    int rc;

    if ((rc = gcm_mpi_comm_check_ptr(comm, errhandler, "errhandler", call)) !=
        MPI_SUCCESS) {
        return rc;
    }
    *errhandler = gcm_mpi_errh_hand_out(comm->errh);
    return MPI_SUCCESS;
}
GCM_MPI_ALIAS(Comm_get_errhandler)

int PMPI_Comm_call_errhandler(MPI_Comm comm, int errorcode)
{
    int rc;

    if ((rc = gcm_mpi_comm_check(comm, "MPI_Comm_call_errhandler")) !=
        MPI_SUCCESS) {
        return rc;
    }
    snprintf(gcm_mpi_last_text, sizeof(gcm_mpi_last_text),
             "MPI_Comm_call_errhandler: error code %d raised by the program",
             errorcode);
    gcm_mpi_last_code = errorcode;
    gcm_mpi_errh_invoke(comm, errorcode);
    return MPI_SUCCESS;
}
GCM_MPI_ALIAS(Comm_call_errhandler)

/* ---- error handlers of windows -------------------------------------- */

int PMPI_Win_create_errhandler(MPI_Win_errhandler_function *fn,
                               MPI_Errhandler *errhandler)
{
    return gcm_mpi_errh_create(NULL, fn, errhandler,
                               "MPI_Win_create_errhandler");
}
GCM_MPI_ALIAS(Win_create_errhandler)

int PMPI_Win_set_errhandler(MPI_Win win, MPI_Errhandler errhandler)
{
    static const char *call = "MPI_Win_set_errhandler";
    const char *why;
    int rc;

    if ((rc = gcm_mpi_win_check(win, call)) != MPI_SUCCESS) {
        return rc;
    }
    why = gcm_mpi_errh_set(&win->errh, errhandler, 1);
    if (why != NULL) {
        return gcm_mpi_win_raise(win, MPI_ERR_ARG, call, "%s", why);
    }
    return MPI_SUCCESS;
}
GCM_MPI_ALIAS(Win_set_errhandler)

int PMPI_Win_get_errhandler(MPI_Win win, MPI_Errhandler *errhandler)
{
    static const char *call = "MPI_Win_get_errhandler";
    int rc;

    if ((rc = gcm_mpi_win_check_ptr(win, errhandler, "errhandler", call)) !=
        MPI_SUCCESS) {
        return rc;
    }
    *errhandler = gcm_mpi_errh_hand_out(win->errh);
    return MPI_SUCCESS;
}
GCM_MPI_ALIAS(Win_get_errhandler)

int PMPI_Win_call_errhandler(MPI_Win win, int errorcode)
{
    int rc;

    if ((rc = gcm_mpi_win_check(win, "MPI_Win_call_errhandler")) !=
        MPI_SUCCESS) {
        return rc;
    }
    (void)gcm_mpi_win_raise(win, errorcode, "MPI_Win_call_errhandler",
                            "error code %d raised by the program",
                            errorcode);
    return MPI_SUCCESS;
}
GCM_MPI_ALIAS(Win_call_errhandler)

int PMPI_Errhandler_free(MPI_Errhandler *errhandler)
{
    MPI_Errhandler errh;
    int n;

    if ((errhandler == NULL) || !gcm_mpi_errh_valid(*errhandler)) {
        return gcm_mpi_raise(NULL, MPI_ERR_ARG, "MPI_Errhandler_free",
                             "not a valid error handler (freed already, "
                             "or never one)");
    }
    errh = *errhandler;
    if (!errh->predefined) {
        /* One handle fewer; a free beyond the handles given out (a stale
         * copy racing this one) is refused. */
        n = atomic_load(&errh->handles);
        do {
            if (n <= 0) {
                return gcm_mpi_raise(NULL, MPI_ERR_ARG,
                                     "MPI_Errhandler_free",
                                     "not a valid error handler (freed "
                                     "already, or never one)");
            }
        } while (!atomic_compare_exchange_weak(&errh->handles, &n, n - 1));
    }
    gcm_mpi_errh_release(errh);
    *errhandler = MPI_ERRHANDLER_NULL;
    return MPI_SUCCESS;
}
GCM_MPI_ALIAS(Errhandler_free)

int PMPI_Error_string(int errorcode, char *string, int *resultlen)
{
    static const char call[] = "MPI_Error_string";
    char text[MPI_MAX_ERROR_STRING];

    if ((string == NULL) || (resultlen == NULL)) {
        return gcm_mpi_raise(NULL, MPI_ERR_ARG, call,
                             "string or resultlen is NULL");
    }
    if (gcm_mpi_code_text(errorcode, text, sizeof(text)) != 0) {
        return gcm_mpi_raise(NULL, MPI_ERR_ARG, call,
                             "%d is not an error code", errorcode);
    }
    /* The detail of the last error this thread raised goes with its
     * class's text; a code the program added prints its own text. */
    if ((errorcode != MPI_SUCCESS) && (errorcode <= MPI_ERR_LASTCODE) &&
        (errorcode == gcm_mpi_last_code)) {
        snprintf(string, MPI_MAX_ERROR_STRING, "%.100s (%.400s)", text,
                 gcm_mpi_last_text);
    } else {
        snprintf(string, MPI_MAX_ERROR_STRING, "%s", text);
    }
    *resultlen = (int)strlen(string);
    return MPI_SUCCESS;
}
GCM_MPI_ALIAS(Error_string)

int PMPI_Error_class(int errorcode, int *errorclass)
{
    int errclass;

    if (errorclass == NULL) {
        return gcm_mpi_raise(NULL, MPI_ERR_ARG, "MPI_Error_class",
                             "errorclass is NULL");
    }
    errclass = gcm_mpi_code_class(errorcode);
    if (errclass < 0) {
        return gcm_mpi_raise(NULL, MPI_ERR_ARG, "MPI_Error_class",
                             "%d is not an error code", errorcode);
    }
    *errorclass = errclass;
    return MPI_SUCCESS;
}
GCM_MPI_ALIAS(Error_class)

int PMPI_Add_error_class(int *errorclass)
{
    static const char call[] = "MPI_Add_error_class";

    if (errorclass == NULL) {
        return gcm_mpi_raise(NULL, MPI_ERR_ARG, call, "errorclass is NULL");
    }
    if (gcm_mpi_ucode_add(-1, errorclass) != 0) {
        return gcm_mpi_raise(NULL, MPI_ERR_NO_MEM, call,
                             "no room for another error class");
    }
    return MPI_SUCCESS;
}
GCM_MPI_ALIAS(Add_error_class)

int PMPI_Add_error_code(int errorclass, int *errorcode)
{
    static const char call[] = "MPI_Add_error_code";

    if (errorcode == NULL) {
        return gcm_mpi_raise(NULL, MPI_ERR_ARG, call, "errorcode is NULL");
    }
    if ((errorclass == MPI_SUCCESS) ||
        (gcm_mpi_code_class(errorclass) != errorclass)) {
        return gcm_mpi_raise(NULL, MPI_ERR_ARG, call,
                             "%d is not an error class", errorclass);
    }
    if (gcm_mpi_ucode_add(errorclass, errorcode) != 0) {
        return gcm_mpi_raise(NULL, MPI_ERR_NO_MEM, call,
                             "no room for another error code");
    }
    return MPI_SUCCESS;
}
GCM_MPI_ALIAS(Add_error_code)

int PMPI_Add_error_string(int errorcode, const char *string)
{
    static const char call[] = "MPI_Add_error_string";
    gcm_mpi_ucode_t *u;
    char *copy;
    size_t len;

    if (string == NULL) {
        return gcm_mpi_raise(NULL, MPI_ERR_ARG, call, "string is NULL");
    }
    len = strnlen(string, MPI_MAX_ERROR_STRING);
    if (len >= MPI_MAX_ERROR_STRING) {
        return gcm_mpi_raise(NULL, MPI_ERR_ARG, call,
                             "the string is longer than "
                             "MPI_MAX_ERROR_STRING - 1 characters");
    }
    if (errorcode <= MPI_ERR_LASTCODE) {
        /* MPI-3.1 8.5: the library's own texts stay. */
        return gcm_mpi_raise(NULL, MPI_ERR_ARG, call,
                             "%d is a predefined error code (at most "
                             "MPI_ERR_LASTCODE)", errorcode);
    }
    copy = malloc(len + 1);
    if (copy == NULL) {
        return gcm_mpi_raise(NULL, MPI_ERR_NO_MEM, call, "out of memory");
    }
    memcpy(copy, string, len + 1);
    pthread_mutex_lock(&gcm_mpi_ucodes.lock);
    u = gcm_mpi_ucode_find(errorcode);
    if (u != NULL) {
        free(u->text);
        u->text = copy;
        copy = NULL;
    }
    pthread_mutex_unlock(&gcm_mpi_ucodes.lock);
    if (u == NULL) {
        free(copy);
        return gcm_mpi_raise(NULL, MPI_ERR_ARG, call,
                             "%d is not an error code the program added",
                             errorcode);
    }
    return MPI_SUCCESS;
}
GCM_MPI_ALIAS(Add_error_string)
