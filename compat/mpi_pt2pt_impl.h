/*
 * compat/mpi_pt2pt_impl.h: what the point-to-point files share
 * (mpi_pt2pt.c: checks, data layout, sends and receives; mpi_bsend.c:
 * buffered sends; mpi_probe.c: probes and matched probes).
 */
#ifndef GCM_MPI_PT2PT_IMPL_H
#define GCM_MPI_PT2PT_IMPL_H

#include "compat/mpi_impl.h"

enum {
    GCM_MPI_MODE_STANDARD = 'S',
    GCM_MPI_MODE_SYNC     = 'Y',
    GCM_MPI_MODE_BUFFERED = 'B',
    GCM_MPI_MODE_READY    = 'R'
};

struct gcm_mpi_message {
    uint32_t         magic;
    MPI_Comm         comm;
    gcm_message_h    msg;
    gcm_msg_status_t info;
};

/* Are the communicator, peer and tag of a send (recv = 0), or of a
 * receive or probe, plainly valid (the layer up)? One test per argument;
 * a call that fails one takes its checked path, which says what is
 * wrong. A receive names a receive slot: on a sealed LCO (the thread
 * LCOs, duplicates made by names) there are as many as send slots, psize,
 * for ever; an LCO built slot by slot may have any number, growing while
 * other threads receive, so its receives are checked against its count
 * of receive slots (gcm_mpi_check_source), never plainly valid here. */
static inline int gcm_mpi_fast_peer(MPI_Comm comm, int peer, int tag,
                                    int recv)
{
    return gcm_likely(gcm_mpi_is_up()) &&
           (comm != MPI_COMM_NULL) && (comm->magic == GCM_MPI_MAGIC_COMM) &&
           (recv ? ((comm->kind != GCM_MPI_COMM_LCO) || comm->sealed) &&
                   (((unsigned)peer < (unsigned)comm->psize) ||
                    (peer == MPI_ANY_SOURCE)) &&
                   (((unsigned)tag <= (unsigned)GCM_TAG_UB) ||
                    (tag == MPI_ANY_TAG)) :
                   ((unsigned)peer < (unsigned)comm->psize) &&
                   ((unsigned)tag <= (unsigned)GCM_TAG_UB));
}

/* Checks (buf, count, datatype); after it, count * size fits a size_t
 * (the lengths below are made without checks). */
int gcm_mpi_check_buffer(MPI_Comm comm, const void *buf, int count,
                         MPI_Datatype datatype, const char *call) GCM_INTERNAL;
int gcm_mpi_check_tag(MPI_Comm comm, int tag, int wild, const char *call)
    GCM_INTERNAL;
/* The receive slot count of an LCO may differ from its send slot count:
 * a receive names a receive slot. */
int gcm_mpi_check_source(MPI_Comm comm, int source, const char *call)
    GCM_INTERNAL;
/* A native status raised through comm's error handler, with the native
 * layer's last error as the message. */
int gcm_mpi_native_error(MPI_Comm comm, gcm_status_t status,
                         const char *call) GCM_INTERNAL;

/* Where a receive lands: the buffer itself when contiguous, else a
 * temporary unpacked on completion. */
int gcm_mpi_recv_data(void *buf, int count, MPI_Datatype datatype,
                      void **data_p, size_t *len_p, void **tmp_p)
    GCM_INTERNAL;
/* The status of a receive or probe (MPI_ERROR left as the caller had
 * it). */
void gcm_mpi_status_fill(MPI_Status *status, const gcm_msg_status_t *info,
                         gcm_status_t result) GCM_INTERNAL;
/* MPI_PROC_NULL's status (MPI_ERROR left alone, as above). */
void gcm_mpi_status_proc_null(MPI_Status *status) GCM_INTERNAL;

/* A point-to-point request of kind, holding references on comm and
 * datatype; gcm_mpi_req_discard frees one that never started. */
gcm_mpi_req_t *gcm_mpi_req_new(int kind, void *buf, int count,
                               MPI_Datatype datatype, int peer, int tag,
                               MPI_Comm comm, int mode) GCM_INTERNAL;
void gcm_mpi_req_discard(gcm_mpi_req_t *req) GCM_INTERNAL;

/* A buffered send: copied into the attached buffer and started; done
 * when this returns. */
int gcm_mpi_bsend_start(const void *buf, int count, MPI_Datatype datatype,
                        int dest, int tag, MPI_Comm comm, const char *call)
    GCM_INTERNAL;

#endif /* GCM_MPI_PT2PT_IMPL_H */
