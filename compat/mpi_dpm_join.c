/*
 * compat/mpi_dpm_join.c: MPI_Comm_disconnect and MPI_Comm_join.
 */
#include "config.h"

#include "compat/mpi_dpm_impl.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

typedef struct dpm_idle {
    MPI_Comm comm;
} dpm_idle_t;

static int dpm_idle_cb(void *arg)
{
    dpm_idle_t *d = arg;

    /* Only the user's handle left: nothing pending on comm (the kept
     * schedules installed on it, which hold references of their own,
     * taken out once no request runs them). */
    return !gcm_mpi_coll_nb_uninstall(d->comm) &&
           atomic_load(&d->comm->refs) <= 1;
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
