/*
 * compat/mpi_dpm_msg.c: the handshake's messages: building, checking, waiting
 * for and taking them.
 */
#include "config.h"

#include "compat/mpi_dpm_impl.h"

#include <stdlib.h>
#include <string.h>

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

unsigned char *gcm_mpi_dpm_msg_build(const gcm_mpi_dpm_msg_t *m, size_t *len_p)
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
int gcm_mpi_dpm_msg_parse(unsigned char *p, size_t len, int kind,
                          gcm_mpi_dpm_msg_t *m)
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

int gcm_mpi_dpm_wait_cb(void *arg)
{
    gcm_mpi_dpm_wait_t *w = arg;
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

int gcm_mpi_dpm_send_cb(void *arg)
{
    gcm_mpi_dpm_send_wait_t *sw = arg;

    return gcm_lco_req_done(sw->req) || (gcm_time_now() >= sw->deadline);
}

/* Takes the message gcm_mpi_dpm_wait_cb matched into a new buffer. */
gcm_status_t gcm_mpi_dpm_take(gcm_mpi_dpm_wait_t *w, unsigned char **buf_p,
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
