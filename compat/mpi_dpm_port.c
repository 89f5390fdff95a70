/*
 * compat/mpi_dpm_port.c: ports (an LCO's slot name as text), MPI_Open_port,
 * MPI_Close_port, and the requests of connects that gave up.
 */
#include "config.h"

#include "compat/mpi_dpm_impl.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
int gcm_mpi_dpm_port_parse(const char *name, gcm_slotname_t *s)
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
gcm_lco_h gcm_mpi_dpm_port_lco(const char *name)
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
void gcm_mpi_dpm_abandon(gcm_request_h req)
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
