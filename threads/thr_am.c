/*
 * threads/thr_am.c: active messages on UCX for the layer above: sends,
 * rendezvous fetches, kept data given back, and the receive callback
 * that hands each message to the upper layer's handler. UCX's requests,
 * parameters and statuses stay here.
 */
#include "config.h"

#include "threads/thr_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

ucs_status_t gcm_thr_am_cb(void *arg, const void *header,
                           size_t header_length, void *data, size_t length,
                           const ucp_am_recv_param_t *param)
{
    const struct gcm_thr_am_arg *am = arg;
    unsigned flags = 0;

    if (param->recv_attr & UCP_AM_RECV_ATTR_FLAG_RNDV) {
        flags |= GCM_THR_AM_RNDV;
    } else if (param->recv_attr & UCP_AM_RECV_ATTR_FLAG_DATA) {
        flags |= GCM_THR_AM_HOLD;
    }
    return am->fn(am->endpoint, header, header_length, data, length, flags,
                  (param->recv_attr & UCP_AM_RECV_ATTR_FIELD_REPLY_EP) ?
                  param->reply_ep : NULL) ?
           UCS_INPROGRESS : UCS_OK;
}

static void gcm_thr_am_sent_cb(void *ucx_req, ucs_status_t ucs,
                               void *user_data)
{
    gcm_thr_op_t *op = user_data;

    ucp_request_free(ucx_req);
    op->done(op, gcm_thr_status(ucs));
}

static void gcm_thr_am_recvd_cb(void *ucx_req, ucs_status_t ucs,
                                size_t length, void *user_data)
{
    gcm_thr_op_t *op = user_data;

    ucp_request_free(ucx_req);
    op->done(op, gcm_thr_status(ucs));
}

/* What a UCX call that returns a request came to. */
static gcm_status_t gcm_thr_am_started(void *ucx_req)
{
    if (ucx_req == NULL) {
        return GCM_OK;
    }
    if (UCS_PTR_IS_ERR(ucx_req)) {
        return gcm_thr_status(UCS_PTR_STATUS(ucx_req));
    }
    return GCM_INPROGRESS;
}

gcm_status_t gcm_thr_am_send(gcm_thr_conn_t *conn, int id, const void *hdr,
                             size_t hlen, const void *data, size_t len,
                             unsigned flags, gcm_thr_op_t *op)
{
    ucp_request_param_t param;

    memset(&param, 0, sizeof(param));
    /* Host memory said outright spares UCX a memory-type lookup. */
    param.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK |
                         UCP_OP_ATTR_FIELD_USER_DATA |
                         UCP_OP_ATTR_FIELD_FLAGS |
                         UCP_OP_ATTR_FIELD_MEMORY_TYPE;
    param.memory_type  = UCS_MEMORY_TYPE_HOST;
    param.cb.send      = gcm_thr_am_sent_cb;
    param.user_data    = op;
    /* REPLY: the receiver learns from UCX which connection it came on
     * (gcm_thr_conn_identify), never from what the message says. */
    param.flags        = UCP_AM_SEND_FLAG_REPLY |
                         ((flags & GCM_THR_SEND_RNDV) ?
                          UCP_AM_SEND_FLAG_RNDV : UCP_AM_SEND_FLAG_EAGER);
    return gcm_thr_am_started(ucp_am_send_nbx(conn->ucp_ep, (unsigned)id,
                                              hdr, hlen, data, len, &param));
}

gcm_status_t gcm_thr_am_recv_data(gcm_thr_endpoint_t *endpoint, void *desc,
                                  void *buf, size_t len, gcm_thr_op_t *op)
{
    ucp_request_param_t param;

    memset(&param, 0, sizeof(param));
    param.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK |
                         UCP_OP_ATTR_FIELD_USER_DATA |
                         UCP_OP_ATTR_FIELD_MEMORY_TYPE;
    param.memory_type  = UCS_MEMORY_TYPE_HOST;
    param.cb.recv_am   = gcm_thr_am_recvd_cb;
    param.user_data    = op;
    return gcm_thr_am_started(ucp_am_recv_data_nbx(endpoint->worker, desc,
                                                   buf, len, &param));
}

void gcm_thr_am_data_release(gcm_thr_endpoint_t *endpoint, void *data)
{
    ucp_am_data_release(endpoint->worker, data);
}

void gcm_thr_drain(gcm_thr_endpoint_t *endpoint)
{
    while (ucp_worker_progress(endpoint->worker) != 0) {
    }
}

const char *gcm_thr_transport_version(void)
{
    return ucp_get_version_string();
}

/*
 * The transports of this process's UCX context, "transport/device" one
 * per line on fp, as UCX lists its resources (the ones UCX opened under
 * the configuration gcm_init gave it: GENCOMM's defaults, the UCX_*
 * variables and the loopback restriction of a one-host job).
 */
gcm_status_t gcm_thr_transports_print(FILE *fp)
{
    static const char mark[] = "flags -- ";
    char *text = NULL;
    size_t len = 0;
    FILE *mem;
    char *line, *save = NULL;

    if (gcm_thr_context() == NULL) {
        return gcm_fail(GCM_ERR_NOT_INITIALIZED, "gcm_thr_transports_print",
                        "UCX is not initialized");
    }
    mem = open_memstream(&text, &len);
    if (mem == NULL) {
        return GCM_ERR_NO_MEMORY;
    }
    ucp_context_print_info(gcm_thr_context(), mem);
    fclose(mem);
    for (line = strtok_r(text, "\n", &save); line != NULL;
         line = strtok_r(NULL, "\n", &save)) {
        const char *tl = strstr(line, mark);

        if ((strstr(line, "resource") != NULL) && (tl != NULL)) {
            fprintf(fp, "%s\n", tl + sizeof(mark) - 1);
        }
    }
    free(text);
    return GCM_OK;
}
