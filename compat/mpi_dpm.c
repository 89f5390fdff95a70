/*
 * compat/mpi_dpm.c: ports, MPI_Comm_connect and MPI_Comm_accept,
 * MPI_Comm_disconnect and MPI_Comm_join (MPI-3.1 sections 10.4.2-10.5.4).
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
#include "config.h"

#include "compat/mpi_impl.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

typedef struct gcm_mpi_port {
    struct gcm_mpi_port *next;
    char                 name[MPI_MAX_PORT_NAME];
    gcm_lco_h            lco;
} gcm_mpi_port_t;

static struct {
    pthread_mutex_t  lock;     /* ports and abandoned */
    gcm_mpi_port_t  *ports;
    /* Requests of connects that gave up before their request was taken
     * in (they cannot be cancelled): freed once complete. */
    gcm_request_h    abandoned[64];
    int              nabandoned;
} gcm_mpi_dpm = { .lock = PTHREAD_MUTEX_INITIALIZER };

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
} dpm_msg_t;

/* What a root tells its group, then each member's view of the outcome. */
typedef struct dpm_outcome {
    int32_t  errclass;
    uint32_t n;          /* remote group size */
    uint32_t id;
    uint32_t gen;
    uint64_t token;
} dpm_outcome_t;

static void put_le(unsigned char *p, uint64_t v, int n)
{
    int i;

    for (i = 0; i < n; i++) {
        p[i] = (unsigned char)(v >> (8 * i));
    }
}

static uint64_t get_le(const unsigned char *p, int n)
{
    uint64_t v = 0;
    int i;

    for (i = 0; i < n; i++) {
        v |= (uint64_t)p[i] << (8 * i);
    }
    return v;
}

/* ---- port names ------------------------------------------------------------ */

static void dpm_port_format(const gcm_slotname_t *s, char *name)
{
    static const char hex[] = "0123456789abcdef";
    size_t off = strlen(GCM_DPM_PREFIX);
    int i;

    memcpy(name, GCM_DPM_PREFIX, off);
    for (i = 0; i < GCM_SLOTNAME_SIZE; i++) {
        name[off + 2 * (size_t)i]     = hex[s->bytes[i] >> 4];
        name[off + 2 * (size_t)i + 1] = hex[s->bytes[i] & 0xf];
    }
    name[off + 2 * GCM_SLOTNAME_SIZE] = '\0';
}

static int hexval(char c)
{
    if ((c >= '0') && (c <= '9')) {
        return c - '0';
    }
    if ((c >= 'a') && (c <= 'f')) {
        return c - 'a' + 10;
    }
    return -1;
}

/* 0 and the slot name, or -1 for text that is no port name. */
static int dpm_port_parse(const char *name, gcm_slotname_t *s)
{
    size_t off = strlen(GCM_DPM_PREFIX);
    int i;

    if ((name == NULL) ||
        (strnlen(name, MPI_MAX_PORT_NAME) !=
         off + 2 * GCM_SLOTNAME_SIZE) ||
        (strncmp(name, GCM_DPM_PREFIX, off) != 0)) {
        return -1;
    }
    for (i = 0; i < GCM_SLOTNAME_SIZE; i++) {
        int hi = hexval(name[off + 2 * (size_t)i]);
        int lo = hexval(name[off + 2 * (size_t)i + 1]);

        if ((hi < 0) || (lo < 0)) {
            return -1;
        }
        s->bytes[i] = (unsigned char)((hi << 4) | lo);
    }
    return 0;
}

int PMPI_Open_port(MPI_Info info, char *port_name)
{
    static const char *call = "MPI_Open_port";
    gcm_mpi_port_t *port;
    gcm_slotname_t s;
    gcm_status_t status;
    int rc;

    if ((rc = gcm_mpi_check_init(call)) != MPI_SUCCESS) {
        return rc;
    }
    if ((info != MPI_INFO_NULL) && (gcm_mpi_info_check(info) != 0)) {
        return gcm_mpi_raise(NULL, MPI_ERR_INFO, call, "invalid info");
    }
    if (port_name == NULL) {
        return gcm_mpi_raise(NULL, MPI_ERR_ARG, call, "port_name is NULL");
    }
    port = calloc(1, sizeof(*port));
    if (port == NULL) {
        return gcm_mpi_raise(NULL, MPI_ERR_NO_MEM, call, "out of memory");
    }
    status = gcm_lco_create(&port->lco);
    if (status == GCM_OK) {
        status = gcm_lco_add_recv_slots(port->lco, 1);
    }
    if (status == GCM_OK) {
        status = gcm_slot_name(port->lco, 0, &s);
    }
    if (status != GCM_OK) {
        if (port->lco != NULL) {
            gcm_lco_free(&port->lco);
        }
        free(port);
        return gcm_mpi_raise_native(NULL, status, call,
                                    "cannot make the port's LCO");
    }
    dpm_port_format(&s, port->name);
    pthread_mutex_lock(&gcm_mpi_dpm.lock);
    port->next = gcm_mpi_dpm.ports;
    gcm_mpi_dpm.ports = port;
    pthread_mutex_unlock(&gcm_mpi_dpm.lock);
    snprintf(port_name, MPI_MAX_PORT_NAME, "%s", port->name);
    return MPI_SUCCESS;
}
GCM_MPI_ALIAS(Open_port)

/* The LCO of an open port of this process, NULL if none. */
static gcm_lco_h dpm_port_lco(const char *name)
{
    gcm_mpi_port_t *p;
    gcm_lco_h lco = NULL;

    pthread_mutex_lock(&gcm_mpi_dpm.lock);
    for (p = gcm_mpi_dpm.ports; p != NULL; p = p->next) {
        if (strncmp(p->name, name, MPI_MAX_PORT_NAME) == 0) {
            lco = p->lco;
            break;
        }
    }
    pthread_mutex_unlock(&gcm_mpi_dpm.lock);
    return lco;
}

int PMPI_Close_port(const char *port_name)
{
    static const char *call = "MPI_Close_port";
    gcm_mpi_port_t **link, *port = NULL;
    int rc;

    if ((rc = gcm_mpi_check_init(call)) != MPI_SUCCESS) {
        return rc;
    }
    if (port_name == NULL) {
        return gcm_mpi_raise(NULL, MPI_ERR_ARG, call, "port_name is NULL");
    }
    pthread_mutex_lock(&gcm_mpi_dpm.lock);
    for (link = &gcm_mpi_dpm.ports; *link != NULL; link = &(*link)->next) {
        if (strncmp((*link)->name, port_name, MPI_MAX_PORT_NAME) == 0) {
            port  = *link;
            *link = port->next;
            break;
        }
    }
    pthread_mutex_unlock(&gcm_mpi_dpm.lock);
    if (port == NULL) {
        return gcm_mpi_raise(NULL, MPI_ERR_PORT, call, "'%.64s' is not a "
                             "port this process opened", port_name);
    }
    /* Requests still queued on it are dropped; later ones are refused
     * (GCM_ERR_NO_SUCH_LCO), which their connect reports as a closed
     * port. */
    gcm_lco_free(&port->lco);
    free(port);
    return MPI_SUCCESS;
}
GCM_MPI_ALIAS(Close_port)

/* Closes every port left open (MPI_Finalize). */
void gcm_mpi_dpm_finalize(void)
{
    gcm_mpi_port_t *port;
    double end = gcm_time_now() + 1.0;
    int i;

    gcm_mpi_names_finalize();
    pthread_mutex_lock(&gcm_mpi_dpm.lock);
    while ((port = gcm_mpi_dpm.ports) != NULL) {
        gcm_mpi_dpm.ports = port->next;
        gcm_lco_free(&port->lco);
        free(port);
    }
    /* Connects that gave up: their requests end as their receivers
     * answer or fail; what is still pending after a second is left. */
    for (i = 0; i < gcm_mpi_dpm.nabandoned; i++) {
        int flag = 0;

        while ((gcm_test(&gcm_mpi_dpm.abandoned[i], &flag, NULL), !flag) &&
               (gcm_time_now() < end)) {
            gcm_progress();
        }
        if (!flag) {
            gcm_warn("MPI_Finalize: a request of a connect that timed out "
                     "is still pending");
        }
    }
    gcm_mpi_dpm.nabandoned = 0;
    pthread_mutex_unlock(&gcm_mpi_dpm.lock);
}

/* A request the caller stops waiting for (lock not held). */
static void dpm_abandon(gcm_request_h req)
{
    int i, flag = 0;

    pthread_mutex_lock(&gcm_mpi_dpm.lock);
    for (i = 0; i < gcm_mpi_dpm.nabandoned; i++) {
        if ((gcm_test(&gcm_mpi_dpm.abandoned[i], &flag, NULL), flag)) {
            gcm_mpi_dpm.abandoned[i--] =
                gcm_mpi_dpm.abandoned[--gcm_mpi_dpm.nabandoned];
        }
    }
    if ((gcm_test(&req, &flag, NULL), !flag)) {
        if (gcm_mpi_dpm.nabandoned < (int)(sizeof(gcm_mpi_dpm.abandoned) /
                                           sizeof(gcm_mpi_dpm.abandoned[0]))) {
            gcm_mpi_dpm.abandoned[gcm_mpi_dpm.nabandoned++] = req;
        } else {
            gcm_warn("too many connects that gave up: a request is left");
        }
    }
    pthread_mutex_unlock(&gcm_mpi_dpm.lock);
}

/* ---- messages -------------------------------------------------------------- */

static unsigned char *dpm_msg_build(const dpm_msg_t *m, size_t *len_p)
{
    size_t len = GCM_DPM_HDR + (size_t)m->n * GCM_LCO_PROCID_SIZE;
    unsigned char *p = calloc(1, len);

    if (p == NULL) {
        return NULL;
    }
    put_le(p, GCM_DPM_MAGIC, 4);
    put_le(p + 4, GCM_DPM_VERSION, 2);
    put_le(p + 6, (uint64_t)m->kind, 2);
    put_le(p + 8, (uint64_t)(uint32_t)m->errclass, 4);
    put_le(p + 12, m->n, 4);
    put_le(p + 16, m->id, 4);
    put_le(p + 20, m->gen, 4);
    put_le(p + 24, m->token, 8);
    memcpy(p + 32, m->reply.bytes, GCM_SLOTNAME_SIZE);
    if (m->n > 0) {
        memcpy(p + GCM_DPM_HDR, m->members,
               (size_t)m->n * GCM_LCO_PROCID_SIZE);
    }
    *len_p = len;
    return p;
}

/* Checks bytes that came from another process (any process that holds
 * the port's name): 0 and m filled (members point into p), else -1. */
static int dpm_msg_parse(unsigned char *p, size_t len, int kind,
                         dpm_msg_t *m)
{
    memset(m, 0, sizeof(*m));
    if ((len < GCM_DPM_HDR) || (get_le(p, 4) != GCM_DPM_MAGIC) ||
        (get_le(p + 4, 2) != GCM_DPM_VERSION) ||
        ((int)get_le(p + 6, 2) != kind)) {
        return -1;
    }
    m->kind     = kind;
    m->errclass = (int32_t)get_le(p + 8, 4);
    m->n        = (uint32_t)get_le(p + 12, 4);
    m->id       = (uint32_t)get_le(p + 16, 4);
    m->gen      = (uint32_t)get_le(p + 20, 4);
    m->token    = get_le(p + 24, 8);
    memcpy(m->reply.bytes, p + 32, GCM_SLOTNAME_SIZE);
    if ((m->n == 0) || (m->n > GCM_DPM_MAX_GROUP) ||
        (len != GCM_DPM_HDR + (size_t)m->n * GCM_LCO_PROCID_SIZE)) {
        return -1;
    }
    if ((kind == GCM_DPM_REPLY) && (m->errclass == MPI_SUCCESS) &&
        (!(m->id & 0x80000000u) || (m->token == 0))) {
        return -1;
    }
    m->members = p + GCM_DPM_HDR;
    return 0;
}

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
} dpm_wait_t;

static int dpm_wait_cb(void *arg)
{
    dpm_wait_t *w = arg;
    int flag = 0;

    if (w->got || (w->result != GCM_OK) || (w->sstatus != GCM_OK)) {
        return 1;
    }
    if ((w->sreq != GCM_REQUEST_NULL) && gcm_lco_req_done(w->sreq)) {
        w->sstatus = gcm_test(&w->sreq, &flag, NULL);
        if (w->sstatus != GCM_OK) {
            return 1;
        }
    }
    w->result = gcm_lco_improbe(w->lco, 0, w->tag, &flag, &w->msg, &w->info);
    if (flag) {
        w->got = 1;
        return 1;
    }
    return (w->result != GCM_OK) ||
           ((w->deadline > 0) && (gcm_time_now() >= w->deadline));
}

/* Waiting for a send until a deadline. */
typedef struct dpm_send_wait {
    gcm_request_h req;
    double        deadline;
} dpm_send_wait_t;

static int dpm_send_cb(void *arg)
{
    dpm_send_wait_t *sw = arg;

    return gcm_lco_req_done(sw->req) || (gcm_time_now() >= sw->deadline);
}

/* Takes the message dpm_wait_cb matched into a new buffer. */
static gcm_status_t dpm_take(dpm_wait_t *w, unsigned char **buf_p,
                             size_t *len_p)
{
    gcm_request_h req;
    size_t len = w->info.count;
    unsigned char *buf = malloc((len > 0) ? len : 1);
    gcm_status_t status;

    if (buf == NULL) {
        /* Still received, so that it leaves the matched list. */
        unsigned char scratch[1];
        status = gcm_lco_imrecv(w->lco, w->msg, scratch, 0, &req);
        if (status == GCM_OK) {
            (void)gcm_wait(&req, NULL);
        }
        return GCM_ERR_NO_MEMORY;
    }
    status = gcm_lco_imrecv(w->lco, w->msg, buf, len, &req);
    if (status == GCM_OK) {
        status = gcm_wait(&req, NULL);
    }
    if (status != GCM_OK) {
        free(buf);
        return status;
    }
    *buf_p = buf;
    *len_p = len;
    return GCM_OK;
}

/* ---- the groups -------------------------------------------------------------- */

/* Every member's own identity, in rank order of comm (this process's
 * contact service starts). n * GCM_LCO_PROCID_SIZE bytes, malloc'd. */
static int dpm_gather_group(MPI_Comm comm, unsigned char **out_p)
{
    unsigned char mine[GCM_LCO_PROCID_SIZE];
    gcm_lco_procid_t id;
    unsigned char *all;
    int rc;

    if (gcm_lco_proc_ident(gcm_mpi_comm_proc(comm, comm->rank), &id) !=
        GCM_OK) {
        return MPI_ERR_INTERN;
    }
    if (id.port == 0) {
        /* Nobody could reach this process from another job. */
        return MPI_ERR_OTHER;
    }
    gcm_lco_procid_encode(&id, mine);
    all = malloc((size_t)comm->size * GCM_LCO_PROCID_SIZE);
    if (all == NULL) {
        return MPI_ERR_NO_MEM;
    }
    if (comm->size == 1) {
        memcpy(all, mine, sizeof(mine));
        rc = MPI_SUCCESS;
    } else {
        rc = PMPI_Allgather(mine, GCM_LCO_PROCID_SIZE, MPI_BYTE, all,
                            GCM_LCO_PROCID_SIZE, MPI_BYTE, comm);
    }
    if (rc != MPI_SUCCESS) {
        free(all);
        return rc;
    }
    *out_p = all;
    return MPI_SUCCESS;
}

/* The root hands the outcome (and the remote group) to comm's members. */
static int dpm_share(MPI_Comm comm, int root, dpm_outcome_t *out,
                     unsigned char **remote_p)
{
    int rc;

    if (comm->size == 1) {
        return MPI_SUCCESS;
    }
    rc = PMPI_Bcast(out, (int)sizeof(*out), MPI_BYTE, root, comm);
    if ((rc != MPI_SUCCESS) || (out->errclass != MPI_SUCCESS)) {
        return rc;
    }
    if (comm->rank != root) {
        *remote_p = malloc((size_t)out->n * GCM_LCO_PROCID_SIZE);
        if (*remote_p == NULL) {
            return MPI_ERR_NO_MEM;
        }
    }
    return PMPI_Bcast(*remote_p, (int)(out->n * GCM_LCO_PROCID_SIZE),
                      MPI_BYTE, root, comm);
}

/* Every member makes the intercommunicator of the outcome. */
static int dpm_make_inter(MPI_Comm comm, const dpm_outcome_t *out,
                          const unsigned char *remote, const char *call,
                          MPI_Comm *newcomm)
{
    int *procs = NULL, *rprocs = NULL;
    gcm_lco_procid_t id;
    gcm_status_t status;
    gcm_lco_h lco = NULL;
    MPI_Comm inter;
    uint32_t r;
    int rc;

    procs  = malloc((size_t)comm->size * sizeof(int));
    rprocs = malloc((size_t)out->n * sizeof(int));
    if ((procs == NULL) || (rprocs == NULL)) {
        free(procs);
        free(rprocs);
        return gcm_mpi_raise(comm, MPI_ERR_NO_MEM, call, "out of memory");
    }
    for (r = 0; r < (uint32_t)comm->size; r++) {
        procs[r] = gcm_mpi_comm_proc(comm, (int)r);
    }
    for (r = 0; r < out->n; r++) {
        gcm_lco_procid_decode(remote + (size_t)r * GCM_LCO_PROCID_SIZE, &id);
        rprocs[r] = gcm_lco_proc_lookup(&id);
        if (rprocs[r] < 0) {
            free(procs);
            free(rprocs);
            return gcm_mpi_raise(comm, MPI_ERR_OTHER, call, "remote process "
                                 "%u: %s", r, gcm_last_error());
        }
    }
    status = gcm_lco_create_pattern_x(out->id, out->gen, 0, out->token,
                                      (int)out->n, rprocs, comm->rank, &lco);
    if (status != GCM_OK) {
        free(procs);
        free(rprocs);
        return gcm_mpi_raise_native(comm, status, call, "cannot create the "
                                    "intercommunicator's LCO");
    }
    inter = gcm_mpi_comm_alloc(GCM_MPI_COMM_INTER, lco);
    if (inter == NULL) {
        gcm_lco_free(&lco);
        free(procs);
        free(rprocs);
        return gcm_mpi_raise(comm, MPI_ERR_NO_MEM, call, "out of memory");
    }
    inter->rank        = comm->rank;
    inter->size        = comm->size;
    inter->procs       = procs;
    inter->remote_size = (int)out->n;
    inter->rprocs      = rprocs;
    inter->prank       = comm->rank;
    inter->psize       = (int)out->n;
    inter->errh        = comm->errh;
    gcm_mpi_errh_retain(inter->errh);
    /* The collectives' local phases run on a copy of the local group. */
    rc = gcm_mpi_comm_derive(comm, comm->size, procs, comm->rank, call,
                             &inter->local_comm);
    if (rc != MPI_SUCCESS) {
        gcm_mpi_comm_destroy(inter);
        return rc;
    }
    *newcomm = inter;
    return MPI_SUCCESS;
}

/* The seconds connect waits: the info key "timeout", else
 * GENCOMM_CONNECT_TIMEOUT. -1 for a value that is not a positive
 * number. */
static double dpm_timeout(MPI_Info info)
{
    char value[MPI_MAX_INFO_VAL + 1];
    char *end;
    double t;
    int flag = 0;

    if ((info != MPI_INFO_NULL) &&
        (PMPI_Info_get(info, "timeout", MPI_MAX_INFO_VAL, value, &flag) ==
         MPI_SUCCESS) && flag) {
        t = strtod(value, &end);
        if ((end == value) || (*end != '\0') || !(t > 0)) {
            return -1;
        }
        return t;
    }
    return gcm_lco_connect_timeout();
}

/* Checks common to connect and accept. */
/* After the root's part: every member learns the outcome and makes the
 * intercommunicator (verb: what the root did, for the error). The root
 * expects the intercommunicator's messages from its reply or request on,
 * until its LCO is made here. */
static int dpm_finish(MPI_Comm comm, int root, dpm_outcome_t *out,
                      unsigned char *remote, const char *why,
                      const char *verb, const char *call, MPI_Comm *newcomm)
{
    int held = (comm->rank == root) && (out->errclass == MPI_SUCCESS);
    int rc = dpm_share(comm, root, out, &remote);

    if ((rc == MPI_SUCCESS) && (out->errclass != MPI_SUCCESS)) {
        free(remote);
        if (why[0] != '\0') {
            return gcm_mpi_raise(comm, out->errclass, call, "%s", why);
        }
        return gcm_mpi_raise(comm, out->errclass, call, "the root could "
                             "not %s", verb);
    }
    if (rc == MPI_SUCCESS) {
        rc = dpm_make_inter(comm, out, remote, call, newcomm);
    } else {
        rc = gcm_mpi_raise(comm, rc, call, "the root's outcome did not "
                           "reach every member");
    }
    if (held) {
        gcm_lco_token_unexpect(out->token);
    }
    free(remote);
    return rc;
}

int gcm_mpi_dpm_check(const char *call, MPI_Info info, int root,
                      MPI_Comm comm, MPI_Comm *newcomm, const char *what)
{
    int rc;

    if ((rc = gcm_mpi_check_init(call)) != MPI_SUCCESS) {
        return rc;
    }
    if ((rc = gcm_mpi_comm_check(comm, call)) != MPI_SUCCESS) {
        return rc;
    }
    if (comm->kind != GCM_MPI_COMM_INTRA) {
        return gcm_mpi_raise(comm, MPI_ERR_COMM, call,
                             "comm is not an intracommunicator");
    }
    if (newcomm == NULL) {
        return gcm_mpi_raise(comm, MPI_ERR_ARG, call, "%s is NULL", what);
    }
    if ((root < 0) || (root >= comm->size)) {
        return gcm_mpi_raise(comm, MPI_ERR_ROOT, call, "root %d is not a "
                             "rank of comm (size %d)", root, comm->size);
    }
    if ((info != MPI_INFO_NULL) && (gcm_mpi_info_check(info) != 0)) {
        return gcm_mpi_raise(comm, MPI_ERR_INFO, call, "invalid info");
    }
    return MPI_SUCCESS;
}

/* ---- connect ------------------------------------------------------------------ */

/* The root's side: out and the remote group, or out->errclass and why. */
static void dpm_connect_root(const char *port_name, double timeout,
                             MPI_Comm comm, const unsigned char *group,
                             dpm_outcome_t *out, unsigned char **remote_p,
                             char *why, size_t whylen)
{
    gcm_lco_h q = NULL, t = NULL;
    gcm_slotname_t target;
    gcm_request_h sreq = GCM_REQUEST_NULL;
    unsigned char *buf = NULL, *rep = NULL;
    size_t len = 0;
    dpm_msg_t m;
    dpm_wait_t w;
    gcm_status_t status;

    memset(out, 0, sizeof(*out));
    out->errclass = MPI_ERR_PORT;
    if (dpm_port_parse(port_name, &target) != 0) {
        snprintf(why, whylen, "'%.64s' is not a port name", port_name);
        return;
    }
    memset(&m, 0, sizeof(m));
    m.kind    = GCM_DPM_REQUEST;
    m.n       = (uint32_t)comm->size;
    m.members = (unsigned char *)group;
    status = gcm_lco_create(&q);
    if (status == GCM_OK) {
        status = gcm_lco_add_recv_slots(q, 1);
    }
    if (status == GCM_OK) {
        status = gcm_slot_name(q, 0, &m.reply);
    }
    if (status == GCM_OK) {
        status = gcm_lco_create(&t);
    }
    if (status == GCM_OK) {
        status = gcm_lco_add_send_slot(t, &target);
        if (status == GCM_ERR_INVALID_PARAM) {
            snprintf(why, whylen, "'%.64s' is not a port name: %s",
                     port_name, gcm_last_error());
            goto out;
        }
    }
    if ((status == GCM_OK) &&
        ((buf = dpm_msg_build(&m, &len)) == NULL)) {
        status = GCM_ERR_NO_MEMORY;
    }
    if (status == GCM_OK) {
        status = gcm_isend(t, buf, len, 0, GCM_DPM_TAG_REQ, &sreq);
    }
    if (status != GCM_OK) {
        out->errclass = gcm_mpi_errclass(status);
        snprintf(why, whylen, "cannot send the request: %s",
                 gcm_last_error());
        goto out;
    }
    /* The reply, unless the request is refused or time runs out. */
    memset(&w, 0, sizeof(w));
    w.lco      = q;
    w.tag      = GCM_DPM_TAG_REP;
    w.deadline = gcm_time_now() + timeout;
    w.sreq     = sreq;
    gcm_lco_wait_on(q, dpm_wait_cb, &w);
    sreq = w.sreq;
    if (w.sstatus != GCM_OK) {
        snprintf(why, whylen, "%s: %s",
                 (w.sstatus == GCM_ERR_NO_SUCH_LCO) ? "the port is closed" :
                 (w.sstatus == GCM_ERR_PEER_FAILED) ?
                 "the port's process is gone" : "the port refused the "
                 "request", gcm_status_string(w.sstatus));
        goto out;
    }
    if (!w.got) {
        snprintf(why, whylen, (w.result != GCM_OK) ? "waiting for the "
                 "accepting side failed" : "no accept on the port within "
                 "%.1f s", timeout);
        goto out;
    }
    status = dpm_take(&w, &rep, &len);
    if ((status != GCM_OK) || (dpm_msg_parse(rep, len, GCM_DPM_REPLY, &m)
                               != 0)) {
        snprintf(why, whylen, "the accepting side's reply is malformed");
        goto out;
    }
    if (m.errclass != MPI_SUCCESS) {
        out->errclass = m.errclass;
        snprintf(why, whylen, "the accepting side failed");
        goto out;
    }
    *remote_p = malloc((size_t)m.n * GCM_LCO_PROCID_SIZE);
    if (*remote_p == NULL) {
        out->errclass = MPI_ERR_NO_MEM;
        snprintf(why, whylen, "out of memory");
        goto out;
    }
    memcpy(*remote_p, m.members, (size_t)m.n * GCM_LCO_PROCID_SIZE);
    /* The accepting side may send as soon as its reply is taken. */
    if (gcm_lco_token_expect(m.token) != GCM_OK) {
        free(*remote_p);
        *remote_p = NULL;
        out->errclass = MPI_ERR_NO_MEM;
        snprintf(why, whylen, "out of memory");
        goto out;
    }
    out->errclass = MPI_SUCCESS;
    out->n        = m.n;
    out->id       = m.id;
    out->gen      = m.gen;
    out->token    = m.token;
out:
    if (sreq != GCM_REQUEST_NULL) {
        int flag = 0;

        /* Taken in by the accepting side once the reply came. */
        if (out->errclass == MPI_SUCCESS) {
            (void)gcm_wait(&sreq, NULL);
        } else if ((gcm_test(&sreq, &flag, NULL), !flag)) {
            dpm_abandon(sreq);
        }
    }
    free(buf);
    free(rep);
    if (t != NULL) {
        gcm_lco_free(&t);
    }
    /* A reply that comes after this is refused: the accepting side's
     * synchronous send fails and it takes the next request. */
    if (q != NULL) {
        gcm_lco_free(&q);
    }
}

int PMPI_Comm_connect(const char *port_name, MPI_Info info, int root,
                      MPI_Comm comm, MPI_Comm *newcomm)
{
    static const char *call = "MPI_Comm_connect";
    double timeout;
    int rc;

    if ((rc = gcm_mpi_dpm_check(call, info, root, comm, newcomm,
                                "newcomm")) != MPI_SUCCESS) {
        return rc;
    }
    /* Only the root's info counts; a bad one fails at the root. */
    timeout = (comm->rank == root) ? dpm_timeout(info) : 0;
    return gcm_mpi_dpm_connect(port_name, timeout, root, comm, call,
                               newcomm);
}
GCM_MPI_ALIAS(Comm_connect)

int gcm_mpi_dpm_connect(const char *port_name, double timeout, int root,
                        MPI_Comm comm, const char *call, MPI_Comm *newcomm)
{
    unsigned char *group = NULL, *remote = NULL;
    dpm_outcome_t out;
    char why[200] = "";
    int rc;

    *newcomm = MPI_COMM_NULL;
    memset(&out, 0, sizeof(out));
    rc = dpm_gather_group(comm, &group);
    if (rc != MPI_SUCCESS) {
        return gcm_mpi_raise(comm, rc, call, "cannot gather the group's "
                             "contacts");
    }
    if (comm->rank == root) {
        if (timeout < 0) {
            out.errclass = MPI_ERR_INFO_VALUE;
            snprintf(why, sizeof(why), "info key \"timeout\" is not a "
                     "positive number of seconds");
        } else {
            dpm_connect_root(port_name, timeout, comm, group, &out, &remote,
                             why, sizeof(why));
        }
    }
    free(group);
    return dpm_finish(comm, root, &out, remote, why, "connect", call, newcomm);
}

/* ---- accept --------------------------------------------------------------------- */

/* The root's side: takes requests until one is answered, or until
 * deadline (0: none) with out->errclass MPI_ERR_SPAWN. */
static void dpm_accept_root(gcm_lco_h port, double deadline, MPI_Comm comm,
                            const unsigned char *group, dpm_outcome_t *out,
                            unsigned char **remote_p, char *why,
                            size_t whylen)
{
    unsigned char *req = NULL, *buf = NULL;
    size_t len = 0;
    dpm_msg_t in, m;
    dpm_wait_t w;
    gcm_status_t status;
    gcm_request_h sreq;
    gcm_lco_h r;
    int expected = 0;

    memset(out, 0, sizeof(*out));
    for (;;) {
        memset(&w, 0, sizeof(w));
        w.lco      = port;
        w.tag      = GCM_DPM_TAG_REQ;
        w.deadline = deadline;
        gcm_lco_wait_on(port, dpm_wait_cb, &w);
        if (!w.got && (w.result == GCM_OK)) {
            /* Only spawn gives a deadline: its children never came. */
            out->errclass = MPI_ERR_SPAWN;
            snprintf(why, whylen, "the spawned processes did not connect "
                     "within %.0f s (GENCOMM_CONNECT_TIMEOUT)",
                     gcm_lco_connect_timeout());
            free(req);
            return;
        }
        if (!w.got) {
            out->errclass = gcm_mpi_errclass(w.result);
            snprintf(why, whylen, "waiting on the port failed: %s",
                     gcm_status_string(w.result));
            return;
        }
        free(req);
        req = NULL;
        if ((dpm_take(&w, &req, &len) != GCM_OK) ||
            (dpm_msg_parse(req, len, GCM_DPM_REQUEST, &in) != 0)) {
            gcm_warn("MPI_Comm_accept: a malformed request ignored");
            continue;
        }
        memset(&m, 0, sizeof(m));
        m.kind    = GCM_DPM_REPLY;
        m.n       = (uint32_t)comm->size;
        m.members = (unsigned char *)group;
        /* The intercommunicator's identity: a derived id (high bit) and
         * generation at random, and a secret token for both groups. */
        gcm_random_kernel_bytes(&m.id, sizeof(m.id));
        gcm_random_kernel_bytes(&m.gen, sizeof(m.gen));
        do {
            gcm_random_kernel_bytes(&m.token, sizeof(m.token));
        } while (m.token == 0);
        m.id |= 0x80000000u;
        buf = dpm_msg_build(&m, &len);
        r = NULL;
        /* Once connect's root has the reply its side may send at once:
         * its messages wait here for the intercommunicator (within a
         * job too, where an unknown token is refused). */
        status = (buf == NULL) ? GCM_ERR_NO_MEMORY :
                 gcm_lco_token_expect(m.token);
        if (status == GCM_OK) {
            expected = 1;
            status = gcm_lco_create(&r);
        }
        if (status == GCM_OK) {
            status = gcm_lco_add_send_slot(r, &in.reply);
        }
        if (status == GCM_OK) {
            /* Synchronous: done when connect's root has taken it. */
            status = gcm_lco_isend_x(r, buf, len, 0, GCM_DPM_TAG_REP,
                                     GCM_LCO_SEND_SYNC, &sreq);
        }
        if (status == GCM_OK) {
            /* A request naming a slot nobody takes from must not hold
             * accept forever: it waits as long as a connect would. */
            dpm_send_wait_t sw;

            sw.req      = sreq;
            sw.deadline = gcm_time_now() + gcm_lco_connect_timeout();
            gcm_lco_wait_on(r, dpm_send_cb, &sw);
            if (gcm_lco_req_done(sreq)) {
                status = gcm_wait(&sreq, NULL);
            } else {
                dpm_abandon(sreq);
                status = GCM_ERR_PEER_FAILED;
            }
        }
        if (r != NULL) {
            gcm_lco_free(&r);
        }
        free(buf);
        buf = NULL;
        if (status == GCM_OK) {
            break;
        }
        if (expected) {
            gcm_lco_token_unexpect(m.token);
            expected = 0;
        }
        /* That connect gave up (or its process is gone): the next. */
        gcm_debug("MPI_Comm_accept: a connect gave up (%s)",
                  gcm_status_string(status));
    }
    *remote_p = malloc((size_t)in.n * GCM_LCO_PROCID_SIZE);
    if (*remote_p == NULL) {
        gcm_lco_token_unexpect(m.token);
        out->errclass = MPI_ERR_NO_MEM;
        snprintf(why, whylen, "out of memory");
        free(req);
        return;
    }
    memcpy(*remote_p, in.members, (size_t)in.n * GCM_LCO_PROCID_SIZE);
    out->errclass = MPI_SUCCESS;
    out->n        = in.n;
    out->id       = m.id;
    out->gen      = m.gen;
    out->token    = m.token;
    free(req);
}

int PMPI_Comm_accept(const char *port_name, MPI_Info info, int root,
                     MPI_Comm comm, MPI_Comm *newcomm)
{
    static const char *call = "MPI_Comm_accept";
    int rc;

    if ((rc = gcm_mpi_dpm_check(call, info, root, comm, newcomm,
                                "newcomm")) != MPI_SUCCESS) {
        return rc;
    }
    return gcm_mpi_dpm_accept(port_name, 0, root, comm, call, newcomm);
}
GCM_MPI_ALIAS(Comm_accept)

int gcm_mpi_dpm_accept(const char *port_name, double timeout, int root,
                       MPI_Comm comm, const char *call, MPI_Comm *newcomm)
{
    unsigned char *group = NULL, *remote = NULL;
    dpm_outcome_t out;
    char why[200] = "";
    gcm_lco_h port;
    int rc;

    *newcomm = MPI_COMM_NULL;
    memset(&out, 0, sizeof(out));
    rc = dpm_gather_group(comm, &group);
    if (rc != MPI_SUCCESS) {
        return gcm_mpi_raise(comm, rc, call, "cannot gather the group's "
                             "contacts");
    }
    if (comm->rank == root) {
        port = (port_name != NULL) ? dpm_port_lco(port_name) : NULL;
        if (port == NULL) {
            out.errclass = MPI_ERR_PORT;
            snprintf(why, sizeof(why), "'%.64s' is not a port this process "
                     "opened", (port_name != NULL) ? port_name : "(null)");
        } else {
            dpm_accept_root(port, (timeout > 0) ? gcm_time_now() + timeout :
                            0, comm, group, &out, &remote, why, sizeof(why));
        }
    }
    free(group);
    return dpm_finish(comm, root, &out, remote, why, "accept", call, newcomm);
}

/* ---- disconnect and join --------------------------------------------------------- */

typedef struct dpm_idle {
    MPI_Comm comm;
} dpm_idle_t;

static int dpm_idle_cb(void *arg)
{
    dpm_idle_t *d = arg;

    /* Only the user's handle left: nothing pending on comm. */
    return atomic_load(&d->comm->refs) <= 1;
}

int PMPI_Comm_disconnect(MPI_Comm *comm)
{
    static const char *call = "MPI_Comm_disconnect";
    dpm_idle_t d;
    int rc;

    if ((rc = gcm_mpi_check_init(call)) != MPI_SUCCESS) {
        return rc;
    }
    if (comm == NULL) {
        return gcm_mpi_raise(NULL, MPI_ERR_ARG, call, "comm is NULL");
    }
    if ((rc = gcm_mpi_comm_check(*comm, call)) != MPI_SUCCESS) {
        return rc;
    }
    if ((*comm)->predefined) {
        return gcm_mpi_raise(*comm, MPI_ERR_COMM, call, "cannot disconnect "
                             "a predefined communicator");
    }
    /* Everything started on it completes first (MPI-3.1 10.5.4), then
     * both sides meet, so that neither frees what the other still uses. */
    d.comm = *comm;
    gcm_lco_wait_on((*comm)->lco, dpm_idle_cb, &d);
    rc = PMPI_Barrier(*comm);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    return PMPI_Comm_free(comm);
}
GCM_MPI_ALIAS(Comm_disconnect)

/* Writes and reads whole buffers on a socket. */
static int dpm_fd_write(int fd, const void *buf, size_t len)
{
    const char *p = buf;

    while (len > 0) {
        ssize_t n = write(fd, p, len);
        if (n < 0) {
            if (errno == EINTR) {
                continue;
            }
            return -1;
        }
        p   += n;
        len -= (size_t)n;
    }
    return 0;
}

static int dpm_fd_read(int fd, void *buf, size_t len)
{
    char *p = buf;

    while (len > 0) {
        ssize_t n = read(fd, p, len);
        if (n <= 0) {
            if ((n < 0) && (errno == EINTR)) {
                continue;
            }
            return -1;
        }
        p   += n;
        len -= (size_t)n;
    }
    return 0;
}

int PMPI_Comm_join(int fd, MPI_Comm *intercomm)
{
    static const char *call = "MPI_Comm_join";
    char mine[MPI_MAX_PORT_NAME], theirs[MPI_MAX_PORT_NAME];
    int rc, rc2, cmp;

    if ((rc = gcm_mpi_check_init(call)) != MPI_SUCCESS) {
        return rc;
    }
    if (intercomm == NULL) {
        return gcm_mpi_raise(MPI_COMM_SELF, MPI_ERR_ARG, call,
                             "intercomm is NULL");
    }
    *intercomm = MPI_COMM_NULL;
    rc = PMPI_Open_port(MPI_INFO_NULL, mine);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    /* Both ends send their port name, then the lower one accepts. */
    memset(theirs, 0, sizeof(theirs));
    if ((dpm_fd_write(fd, mine, sizeof(mine)) != 0) ||
        (dpm_fd_read(fd, theirs, sizeof(theirs)) != 0)) {
        (void)PMPI_Close_port(mine);
        return gcm_mpi_raise(MPI_COMM_SELF, MPI_ERR_ARG, call, "cannot "
                             "exchange port names on socket %d: %s", fd,
                             strerror(errno));
    }
    theirs[MPI_MAX_PORT_NAME - 1] = '\0';
    cmp = strcmp(mine, theirs);
    if (cmp == 0) {
        (void)PMPI_Close_port(mine);
        return gcm_mpi_raise(MPI_COMM_SELF, MPI_ERR_ARG, call, "socket %d "
                             "is connected to this same process", fd);
    }
    if (cmp < 0) {
        rc = PMPI_Comm_accept(mine, MPI_INFO_NULL, 0, MPI_COMM_SELF,
                              intercomm);
    } else {
        rc = PMPI_Comm_connect(theirs, MPI_INFO_NULL, 0, MPI_COMM_SELF,
                               intercomm);
    }
    rc2 = PMPI_Close_port(mine);
    return (rc != MPI_SUCCESS) ? rc : rc2;
}
GCM_MPI_ALIAS(Comm_join)
