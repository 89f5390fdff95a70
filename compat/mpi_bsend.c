/*
 * compat/mpi_bsend.c: buffered sends (MPI-3.1 section 3.6): the attached
 * buffer, first-fit blocks for the messages in flight.
 */
#include "config.h"

#include "compat/mpi_impl.h"
#include "compat/mpi_pt2pt_impl.h"

#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* ---- buffered sends ---------------------------------------------------- */

/* A message copied into the attached buffer, in flight. Blocks are kept
 * in address order so that free space is found first-fit. */
typedef struct gcm_mpi_bblock {
    size_t                 offset;
    size_t                 size;
    gcm_request_h          req;
    struct gcm_mpi_bblock *next;
} gcm_mpi_bblock_t;

static struct {
    pthread_mutex_t   lock;
    char             *base;
    size_t            size;
    gcm_mpi_bblock_t *blocks;
} gcm_mpi_bsend = { PTHREAD_MUTEX_INITIALIZER, NULL, 0, NULL };

/* Frees the blocks whose sends completed. Lock held. */
static void gcm_mpi_bsend_reap(void)
{
    gcm_mpi_bblock_t **pp = &gcm_mpi_bsend.blocks, *b;

    while ((b = *pp) != NULL) {
        if (gcm_lco_req_done(b->req)) {
            gcm_wait(&b->req, NULL);
            *pp = b->next;
            free(b);
        } else {
            pp = &b->next;
        }
    }
}

static int gcm_mpi_bsend_all_done(void *arg)
{
    int done;

    (void)arg;
    pthread_mutex_lock(&gcm_mpi_bsend.lock);
    gcm_mpi_bsend_reap();
    done = (gcm_mpi_bsend.blocks == NULL);
    pthread_mutex_unlock(&gcm_mpi_bsend.lock);
    return done;
}

void gcm_mpi_bsend_drain(void)
{
    gcm_lco_wait_until(gcm_mpi_bsend_all_done, NULL);
}

int gcm_mpi_bsend_start(const void *buf, int count,
                        MPI_Datatype datatype, int dest, int tag,
                        MPI_Comm comm, const char *call)
{
    size_t len = (size_t)gcm_mpi_type_size(datatype) * (size_t)count;
    size_t need = len + MPI_BSEND_OVERHEAD, at = 0;
    gcm_mpi_bblock_t **pp, *b, *nb;
    gcm_status_t status;
    char *data;

    nb = malloc(sizeof(*nb));
    if (nb == NULL) {
        return gcm_mpi_raise(comm, MPI_ERR_NO_MEM, call, "out of memory");
    }
    pthread_mutex_lock(&gcm_mpi_bsend.lock);
    gcm_mpi_bsend_reap();
    if (gcm_mpi_bsend.base == NULL) {
        pthread_mutex_unlock(&gcm_mpi_bsend.lock);
        free(nb);
        return gcm_mpi_raise(comm, MPI_ERR_BUFFER, call,
                             "no buffer is attached (MPI_Buffer_attach)");
    }
    /* First fit between the blocks in flight. */
    for (pp = &gcm_mpi_bsend.blocks; (b = *pp) != NULL; pp = &b->next) {
        if (b->offset - at >= need) {
            break;
        }
        at = b->offset + b->size;
    }
    if ((b == NULL) && (gcm_mpi_bsend.size - at < need)) {
        pthread_mutex_unlock(&gcm_mpi_bsend.lock);
        free(nb);
        return gcm_mpi_raise(comm, MPI_ERR_BUFFER, call,
                             "the attached buffer (%zu bytes) has no room "
                             "for %zu more bytes (message plus "
                             "MPI_BSEND_OVERHEAD)", gcm_mpi_bsend.size,
                             need);
    }
    data = gcm_mpi_bsend.base + at + MPI_BSEND_OVERHEAD;
    if (len > 0) {
        gcm_mpi_type_pack(datatype, count, buf, data);
    }
    status = gcm_lco_isend_x(comm->lco, data, len, dest, tag, 0, &nb->req);
    if (status != GCM_OK) {
        pthread_mutex_unlock(&gcm_mpi_bsend.lock);
        free(nb);
        return gcm_mpi_native_error(comm, status, call);
    }
    nb->offset = at;
    nb->size   = need;
    nb->next   = b;
    *pp        = nb;
    pthread_mutex_unlock(&gcm_mpi_bsend.lock);
    return MPI_SUCCESS;
}

int PMPI_Buffer_attach(void *buffer, int size)
{
    static const char *call = "MPI_Buffer_attach";
    int rc;

    if ((rc = gcm_mpi_check_init(call)) != MPI_SUCCESS) {
        return rc;
    }
    if ((size < 0) || ((buffer == NULL) && (size > 0))) {
        return gcm_mpi_raise(NULL, MPI_ERR_ARG, call,
                             "buffer %p of size %d is not valid", buffer,
                             size);
    }
    pthread_mutex_lock(&gcm_mpi_bsend.lock);
    if (gcm_mpi_bsend.base != NULL) {
        pthread_mutex_unlock(&gcm_mpi_bsend.lock);
        return gcm_mpi_raise(NULL, MPI_ERR_BUFFER, call,
                             "a buffer is already attached");
    }
    gcm_mpi_bsend.base = buffer;
    gcm_mpi_bsend.size = (size_t)size;
    pthread_mutex_unlock(&gcm_mpi_bsend.lock);
    return MPI_SUCCESS;
}
GCM_MPI_ALIAS(Buffer_attach)

int PMPI_Buffer_detach(void *buffer_addr, int *size)
{
    static const char *call = "MPI_Buffer_detach";
    int rc;

    if ((rc = gcm_mpi_check_init(call)) != MPI_SUCCESS) {
        return rc;
    }
    if ((buffer_addr == NULL) || (size == NULL)) {
        return gcm_mpi_raise(NULL, MPI_ERR_ARG, call,
                             "buffer_addr or size is NULL");
    }
    /* Detach waits until every message in the buffer is on its way. */
    gcm_mpi_bsend_drain();
    pthread_mutex_lock(&gcm_mpi_bsend.lock);
    *(void **)buffer_addr = gcm_mpi_bsend.base;
    *size = (int)gcm_mpi_bsend.size;
    gcm_mpi_bsend.base = NULL;
    gcm_mpi_bsend.size = 0;
    pthread_mutex_unlock(&gcm_mpi_bsend.lock);
    return MPI_SUCCESS;
}
GCM_MPI_ALIAS(Buffer_detach)
