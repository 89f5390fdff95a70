/*
 * compat/mpi_session.c: MPI-4 sessions (MPI-4.0 section 11.3): process
 * sets and communicators made from groups, so that portable MPI-4 code
 * reaches the external communicators (docs/external.md) and the levels
 * of the hierarchy without an MPIX_ call.
 *
 * The process sets, in the order MPI_Session_get_nth_pset gives them:
 *
 *     mpi://WORLD              every process
 *     mpi://SELF               this process
 *     mpix://node/0 ... /D     MPIX_Comm_node(level)'s group, D being
 *                              MPIX_MAX_DEPTH (0 the world, then the
 *                              cluster if kept, the host, ...:
 *                              docs/launch.md)
 *     mpix://external/NAME     each <comm> of GENCOMM_EXTERNAL but
 *                              MPI_COMM_WORLD's own, in file order
 *
 * The scheme and path (mpi://, mpix://node/, mpix://external/) are
 * matched without regard to case, NAME exactly.
 *
 * A session counts as one user of the MPI layer (mpi_init.c): the first
 * MPI_Session_init or MPI_Init starts it, the last MPI_Session_finalize
 * or MPI_Finalize ends it; both models mix freely in one program.
 * MPI_Comm_create_from_group needs no parent communicator: the new
 * identity is derived from the world's with a key made of the group and
 * the string tag, counted per key so that repeated calls stay apart, as
 * MPI_Comm_create_group does with its tag. When the string tag is the
 * name of an external process set and the group is that set's, the new
 * communicator also gets the definition's virtual topology, name,
 * attributes and info, as MPIX_Comm_external's does.
 */
#include "config.h"

#include "compat/mpi_impl.h"

#include <pthread.h>
#include <stdalign.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define GCM_MPI_MAGIC_SESSION 0x53455353u  /* "SESS" */

#define PSET_WORLD    "mpi://WORLD"
#define PSET_SELF     "mpi://SELF"
#define PSET_NODE     "mpix://node/"
#define PSET_EXTERNAL "mpix://external/"

struct gcm_mpi_session {
    uint32_t                magic;   /* GCM_MPI_MAGIC_SESSION while open */
    MPI_Errhandler          errh;
    MPI_Info                info;
    struct gcm_mpi_session *next;    /* every session ever made */
};

/* Sessions are never given back to malloc, so that a call on a finalized
 * handle reads a dead object and reports it instead of reading freed
 * memory; finalized ones are reused. Counts of MPI_Comm_create_from_group
 * per key (group and string tag). */
typedef struct session_key_count {
    uint64_t                  key;
    uint32_t                  count;
    struct session_key_count *next;
} session_key_count_t;

static struct {
    pthread_mutex_t         lock;
    struct gcm_mpi_session *all;
    session_key_count_t    *counts;
} gcm_sessions = { PTHREAD_MUTEX_INITIALIZER, NULL, NULL };

/* ---- objects ------------------------------------------------------------ */

static int session_valid(MPI_Session session)
{
    uintptr_t addr = (uintptr_t)session;

    if (session == MPI_SESSION_NULL || addr < 4096u ||
        (addr % alignof(struct gcm_mpi_session)) != 0) {
        return 0;
    }
    return session->magic == GCM_MPI_MAGIC_SESSION;
}

/* Checks the layer runs and session is an open session; raises on the
 * world's handler otherwise (there is no session's to run). */
static int session_check(MPI_Session session, const char *call)
{
    int rc = gcm_mpi_check_init(call);

    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (!session_valid(session)) {
        return gcm_mpi_raise(NULL, MPI_ERR_ARG, call, "%s",
                             (session == MPI_SESSION_NULL) ?
                             "session is MPI_SESSION_NULL" :
                             "session is not an open session (finalized or "
                             "garbage)");
    }
    return MPI_SUCCESS;
}

#define SESSION_RAISE(_s, _class, _call, ...) \
    gcm_mpi_raise_on((_s)->errh, "a session", &(_s), (_class), (_call), \
                     __VA_ARGS__)

static struct gcm_mpi_session *session_obtain(void)
{
    struct gcm_mpi_session *s;

    pthread_mutex_lock(&gcm_sessions.lock);
    for (s = gcm_sessions.all; s != NULL; s = s->next) {
        if (s->magic != GCM_MPI_MAGIC_SESSION) {
            break;
        }
    }
    if (s == NULL) {
        s = calloc(1, sizeof(*s));
        if (s != NULL) {
            s->next = gcm_sessions.all;
            gcm_sessions.all = s;
        }
    }
    if (s != NULL) {
        s->magic = GCM_MPI_MAGIC_SESSION;
    }
    pthread_mutex_unlock(&gcm_sessions.lock);
    return s;
}

static int errh_predefined(MPI_Errhandler errh)
{
    return errh == MPI_ERRORS_ARE_FATAL || errh == MPI_ERRORS_RETURN;
}

int PMPI_Session_init(MPI_Info info, MPI_Errhandler errhandler,
                      MPI_Session *session)
{
    static const char *call = "MPI_Session_init";
    MPI_Session none = MPI_SESSION_NULL;
    struct gcm_mpi_session *s;
    int rc;

    /* Before any session exists, errors go to the handler given (or
     * are returned, when it is not one). */
    if (gcm_mpi_errh_check(errhandler) != MPI_SUCCESS) {
        return gcm_mpi_raise_on(MPI_ERRORS_RETURN, "a session", &none,
                                MPI_ERR_ARG, call, "errhandler is not a "
                                "valid error handler");
    }
    if (session == NULL) {
        return gcm_mpi_raise_on(errhandler, "a session", &none, MPI_ERR_ARG,
                                call, "session is NULL");
    }
    if (info != MPI_INFO_NULL && gcm_mpi_info_check(info) != MPI_SUCCESS) {
        return gcm_mpi_raise_on(errhandler, "a session", &none, MPI_ERR_INFO,
                                call, "info is not a valid info object");
    }
    /* Starting the layer may fail (GENCOMM_EXTERNAL that cannot be
     * read): the error goes to this handler, a user's one after the
     * start has given up. */
    rc = gcm_mpi_layer_start(NULL, NULL, errh_predefined(errhandler) ?
                             errhandler : MPI_ERRORS_RETURN, call);
    if (rc != MPI_SUCCESS) {
        return errh_predefined(errhandler) ? rc :
               gcm_mpi_errh_pass(errhandler, "a session", &none, rc);
    }
    s = session_obtain();
    if (s == NULL) {
        gcm_mpi_layer_stop(call);
        return gcm_mpi_raise_on(errhandler, "a session", &none,
                                MPI_ERR_NO_MEM, call, "out of memory");
    }
    rc = (info != MPI_INFO_NULL) ? PMPI_Info_dup(info, &s->info) :
         PMPI_Info_create(&s->info);
    if (rc == MPI_SUCCESS) {
        /* MPI-4.0 11.3.1: the thread level the session provides. */
        rc = PMPI_Info_set(s->info, "mpi_thread_support_level",
                           "MPI_THREAD_MULTIPLE");
    }
    if (rc != MPI_SUCCESS) {
        s->magic = 0;
        gcm_mpi_layer_stop(call);
        return gcm_mpi_raise_on(errhandler, "a session", &none, rc, call,
                                "cannot keep the session's info");
    }
    gcm_mpi_errh_retain(errhandler);
    s->errh  = errhandler;
    *session = s;
    return MPI_SUCCESS;
}
GCM_MPI_ALIAS(Session_init)

int PMPI_Session_finalize(MPI_Session *session)
{
    static const char *call = "MPI_Session_finalize";
    MPI_Session s;
    int rc;

    if (session == NULL) {
        return gcm_mpi_raise(NULL, MPI_ERR_ARG, call, "session is NULL");
    }
    if ((rc = session_check(*session, call)) != MPI_SUCCESS) {
        return rc;
    }
    s = *session;
    pthread_mutex_lock(&gcm_sessions.lock);
    s->magic = 0;
    pthread_mutex_unlock(&gcm_sessions.lock);
    PMPI_Info_free(&s->info);
    gcm_mpi_errh_release(s->errh);
    s->errh  = MPI_ERRHANDLER_NULL;
    *session = MPI_SESSION_NULL;
    return gcm_mpi_layer_stop(call);
}
GCM_MPI_ALIAS(Session_finalize)

int PMPI_Session_get_info(MPI_Session session, MPI_Info *info_used)
{
    static const char *call = "MPI_Session_get_info";
    int rc;

    if ((rc = session_check(session, call)) != MPI_SUCCESS) {
        return rc;
    }
    if (info_used == NULL) {
        return SESSION_RAISE(session, MPI_ERR_ARG, call,
                             "info_used is NULL");
    }
    return PMPI_Info_dup(session->info, info_used);
}
GCM_MPI_ALIAS(Session_get_info)

int PMPI_Session_create_errhandler(MPI_Session_errhandler_function *fn,
                                   MPI_Errhandler *errhandler)
{
    /* The same object as a communicator's: the function is called with
     * the session's handle instead. */
    return PMPI_Comm_create_errhandler((MPI_Comm_errhandler_function *)fn,
                                       errhandler);
}
GCM_MPI_ALIAS(Session_create_errhandler)

/* ---- process sets --------------------------------------------------------- */

static int max_depth(void)
{
    const int *d = gcm_mpi_hier_attr(MPIX_MAX_DEPTH);

    return (d != NULL) ? *d : 0;
}

static int pset_count(void)
{
    return 2 + (max_depth() + 1) + gcm_mpi_ext_pset_count();
}

/* The name of process set i into buf; its length (without the NUL). */
static int pset_name(int i, char *buf, size_t len)
{
    int levels = max_depth() + 1;

    if (i == 0) {
        return snprintf(buf, len, "%s", PSET_WORLD);
    }
    if (i == 1) {
        return snprintf(buf, len, "%s", PSET_SELF);
    }
    if (i < 2 + levels) {
        return snprintf(buf, len, "%s%d", PSET_NODE, i - 2);
    }
    return snprintf(buf, len, "%s%s", PSET_EXTERNAL,
                    gcm_mpi_ext_pset_name(i - 2 - levels));
}

int PMPI_Session_get_num_psets(MPI_Session session, MPI_Info info,
                               int *npset_names)
{
    static const char *call = "MPI_Session_get_num_psets";
    int rc;

    (void)info;   /* no key selects among the sets */
    if ((rc = session_check(session, call)) != MPI_SUCCESS) {
        return rc;
    }
    if (npset_names == NULL) {
        return SESSION_RAISE(session, MPI_ERR_ARG, call,
                             "npset_names is NULL");
    }
    *npset_names = pset_count();
    return MPI_SUCCESS;
}
GCM_MPI_ALIAS(Session_get_num_psets)

int PMPI_Session_get_nth_pset(MPI_Session session, MPI_Info info, int n,
                              int *pset_len, char *pset_name_out)
{
    static const char *call = "MPI_Session_get_nth_pset";
    char name[MPI_MAX_PSET_NAME_LEN + 32];
    int rc, len;

    (void)info;
    if ((rc = session_check(session, call)) != MPI_SUCCESS) {
        return rc;
    }
    if (pset_len == NULL || *pset_len < 0 ||
        (*pset_len > 0 && pset_name_out == NULL)) {
        return SESSION_RAISE(session, MPI_ERR_ARG, call, "%s",
                             (pset_len == NULL) ? "pset_len is NULL" :
                             (*pset_len < 0) ? "pset_len is negative" :
                             "pset_name is NULL");
    }
    if (n < 0 || n >= pset_count()) {
        return SESSION_RAISE(session, MPI_ERR_ARG, call, "n = %d is not "
                             "the index of a process set (0..%d)", n,
                             pset_count() - 1);
    }
    len = pset_name(n, name, sizeof(name));
    /* Length 0 asks for the length; otherwise the name, cut to fit and
     * always terminated. Either way the size it needs comes back. */
    if (*pset_len > 0) {
        snprintf(pset_name_out, (size_t)*pset_len, "%s", name);
    }
    *pset_len = len + 1;
    return MPI_SUCCESS;
}
GCM_MPI_ALIAS(Session_get_nth_pset)

/* The group of process set name: MPI_SUCCESS with *group (a new
 * reference), or the error raised on session. */
static int pset_group(MPI_Session session, const char *name,
                      const char *call, MPI_Group *group)
{
    size_t nlen = strlen(PSET_NODE), xlen = strlen(PSET_EXTERNAL);
    char why[MPI_MAX_ERROR_STRING / 2], *end;
    MPI_Comm node;
    long level;
    int *procs, n, rc;

    if (strcasecmp(name, PSET_WORLD) == 0) {
        return PMPI_Comm_group(MPI_COMM_WORLD, group);
    }
    if (strcasecmp(name, PSET_SELF) == 0) {
        return PMPI_Comm_group(MPI_COMM_SELF, group);
    }
    if (strncasecmp(name, PSET_NODE, nlen) == 0) {
        level = strtol(name + nlen, &end, 10);
        if (name[nlen] >= '0' && name[nlen] <= '9' && *end == '\0' &&
            level >= 0 && level <= max_depth()) {
            rc = PMPIX_Comm_node((int)level, &node);
            return (rc == MPI_SUCCESS) ? PMPI_Comm_group(node, group) : rc;
        }
    } else if (strncasecmp(name, PSET_EXTERNAL, xlen) == 0) {
        rc = gcm_mpi_ext_pset_members(name + xlen, &procs, &n, why,
                                      sizeof(why));
        if (rc < 0) {
            return SESSION_RAISE(session, MPI_ERR_OTHER, call, "%s", why);
        }
        if (rc == 0) {
            rc = gcm_mpi_group_create(n, procs, MPI_COMM_WORLD->rank, group);
            free(procs);
            if (rc != MPI_SUCCESS) {
                return SESSION_RAISE(session, rc, call, "cannot make the "
                                     "group of %.200s", name);
            }
            return MPI_SUCCESS;
        }
    }
    return SESSION_RAISE(session, MPI_ERR_ARG, call, "no process set is "
                         "named \"%.200s\" (MPI_Session_get_nth_pset lists "
                         "them)", name);
}

int PMPI_Group_from_session_pset(MPI_Session session, const char *pset_name,
                                 MPI_Group *newgroup)
{
    static const char *call = "MPI_Group_from_session_pset";
    int rc;

    if ((rc = session_check(session, call)) != MPI_SUCCESS) {
        return rc;
    }
    if (pset_name == NULL || newgroup == NULL) {
        return SESSION_RAISE(session, MPI_ERR_ARG, call, "%s is NULL",
                             (pset_name == NULL) ? "pset_name" :
                             "newgroup");
    }
    return pset_group(session, pset_name, call, newgroup);
}
GCM_MPI_ALIAS(Group_from_session_pset)

int PMPI_Session_get_pset_info(MPI_Session session, const char *pset_name,
                               MPI_Info *info)
{
    static const char *call = "MPI_Session_get_pset_info";
    size_t xlen = strlen(PSET_EXTERNAL);
    MPI_Group group;
    MPI_Info out;
    char size[32];
    int rc, n;

    if ((rc = session_check(session, call)) != MPI_SUCCESS) {
        return rc;
    }
    if (pset_name == NULL || info == NULL) {
        return SESSION_RAISE(session, MPI_ERR_ARG, call, "%s is NULL",
                             (pset_name == NULL) ? "pset_name" : "info");
    }
    rc = pset_group(session, pset_name, call, &group);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    PMPI_Group_size(group, &n);
    PMPI_Group_free(&group);
    snprintf(size, sizeof(size), "%d", n);
    rc = PMPI_Info_create(&out);
    if (rc == MPI_SUCCESS) {
        rc = PMPI_Info_set(out, "mpi_size", size);
    }
    /* An external set also carries the <info> that applies here. */
    if (rc == MPI_SUCCESS && strncasecmp(pset_name, PSET_EXTERNAL, xlen) == 0) {
        rc = gcm_mpi_ext_pset_info(pset_name + xlen, out);
    }
    if (rc != MPI_SUCCESS) {
        return SESSION_RAISE(session, rc, call, "cannot fill the info "
                             "object");
    }
    *info = out;
    return MPI_SUCCESS;
}
GCM_MPI_ALIAS(Session_get_pset_info)

/* ---- MPI_Comm_create_from_group ------------------------------------------ */

/* How many times key was used before (and one more use of it). */
static uint32_t key_use(uint64_t key, int *oom_p)
{
    session_key_count_t *c;
    uint32_t count = 0;

    pthread_mutex_lock(&gcm_sessions.lock);
    for (c = gcm_sessions.counts; c != NULL; c = c->next) {
        if (c->key == key) {
            break;
        }
    }
    if (c == NULL) {
        c = calloc(1, sizeof(*c));
        if (c != NULL) {
            c->key = key;
            c->next = gcm_sessions.counts;
            gcm_sessions.counts = c;
        }
    }
    if (c != NULL) {
        count = c->count++;
    } else {
        *oom_p = 1;
    }
    pthread_mutex_unlock(&gcm_sessions.lock);
    return count;
}

int PMPI_Comm_create_from_group(MPI_Group group, const char *stringtag,
                                MPI_Info info, MPI_Errhandler errhandler,
                                MPI_Comm *newcomm)
{
    static const char *call = "MPI_Comm_create_from_group";
    size_t xlen = strlen(PSET_EXTERNAL);
    MPI_Comm none = MPI_COMM_NULL;
    MPI_Errhandler eh = errhandler;
    uint64_t key, mix[2];
    uint32_t count;
    int *procs, n, myrank, r, rc, oom = 0;

    if ((rc = gcm_mpi_check_init(call)) != MPI_SUCCESS) {
        return rc;
    }
    /* No communicator exists yet: errors go to the handler given. */
    if (gcm_mpi_errh_check(errhandler) != MPI_SUCCESS) {
        eh = MPI_ERRORS_RETURN;
        return gcm_mpi_raise_on(eh, "MPI_COMM_NULL", &none, MPI_ERR_ARG,
                                call, "errhandler is not a valid error "
                                "handler");
    }
    if (gcm_mpi_group_check(group) != MPI_SUCCESS) {
        return gcm_mpi_raise_on(eh, "MPI_COMM_NULL", &none, MPI_ERR_GROUP,
                                call, "not a valid group");
    }
    if (stringtag == NULL || newcomm == NULL) {
        return gcm_mpi_raise_on(eh, "MPI_COMM_NULL", &none, MPI_ERR_ARG,
                                call, "%s is NULL", (stringtag == NULL) ?
                                "stringtag" : "newcomm");
    }
    if (strnlen(stringtag, MPI_MAX_STRINGTAG_LEN) >= MPI_MAX_STRINGTAG_LEN) {
        return gcm_mpi_raise_on(eh, "MPI_COMM_NULL", &none, MPI_ERR_ARG,
                                call, "stringtag is longer than "
                                "MPI_MAX_STRINGTAG_LEN - 1 (%d)",
                                MPI_MAX_STRINGTAG_LEN - 1);
    }
    if (info != MPI_INFO_NULL && gcm_mpi_info_check(info) != MPI_SUCCESS) {
        return gcm_mpi_raise_on(eh, "MPI_COMM_NULL", &none, MPI_ERR_INFO,
                                call, "info is not a valid info object");
    }
    PMPI_Group_size(group, &n);
    PMPI_Group_rank(group, &myrank);
    if (myrank == MPI_UNDEFINED) {
        return gcm_mpi_raise_on(eh, "MPI_COMM_NULL", &none, MPI_ERR_GROUP,
                                call, "the calling process is not in the "
                                "group");
    }
    procs = malloc(((size_t)n + 1) * sizeof(int));
    if (procs == NULL) {
        return gcm_mpi_raise_on(eh, "MPI_COMM_NULL", &none, MPI_ERR_NO_MEM,
                                call, "out of memory");
    }
    for (r = 0; r < n; r++) {
        procs[r] = gcm_mpi_group_proc(group, r);
    }
    /* Only the group calls: the identity comes from the group, the tag
     * and how often they were used together, the same in every member
     * (MPI-4 requires a tag that no concurrent call on an overlapping
     * group uses). The mark keeps these keys apart from
     * MPI_Comm_create_group's. */
    mix[0] = gcm_hash64(procs, (size_t)n * sizeof(int));
    mix[1] = gcm_hash64(stringtag, strlen(stringtag)) ^
             UINT64_C(0x53455353494f4e21);
    key    = gcm_hash64(mix, sizeof(mix));
    count  = key_use(key, &oom);
    if (oom) {
        free(procs);
        return gcm_mpi_raise_on(eh, "MPI_COMM_NULL", &none, MPI_ERR_NO_MEM,
                                call, "out of memory");
    }
    rc = gcm_mpi_comm_make_keyed(MPI_COMM_WORLD, key, count, n, procs,
                                 myrank, MPI_COMM_WORLD, call, newcomm);
    free(procs);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    gcm_mpi_errh_retain(eh);
    gcm_mpi_errh_release((*newcomm)->errh);
    (*newcomm)->errh = eh;
    if (info != MPI_INFO_NULL) {
        rc = PMPI_Comm_set_info(*newcomm, info);
    }
    if (rc == MPI_SUCCESS &&
        strncasecmp(stringtag, PSET_EXTERNAL, xlen) == 0) {
        rc = gcm_mpi_ext_pset_attach(stringtag + xlen, newcomm, call);
    }
    if (rc != MPI_SUCCESS && *newcomm != MPI_COMM_NULL) {
        PMPI_Comm_free(newcomm);
    }
    return rc;
}
GCM_MPI_ALIAS(Comm_create_from_group)
