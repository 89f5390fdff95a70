/*
 * threads/thr_rma.c: UCX one-sided operations for the windows of the MPI
 * layer: memory registered with the context (ucp_mem_map), its remote key
 * packed for peers and unpacked on the connection to the owner's endpoint,
 * puts and gets on it (ucp_put_nbx, ucp_get_nbx) and the flush that
 * completes them at the target (ucp_ep_flush_nbx).
 *
 * Puts and gets are started without a completion callback: their UCX
 * requests are released at once (UCX frees them when they complete), and
 * the flush of the connection is what completes them, at the target for
 * puts and here for gets (MPI completes one-sided operations only at
 * synchronization calls). The flush runs a callback that sets a flag, so
 * its caller can wait for it with the lock released, sleeping like any
 * other wait, instead of spinning on the worker with the lock held.
 */
#include "config.h"

#include "threads/thr_impl.h"

#include <stdlib.h>
#include <string.h>

struct gcm_thr_rma_mem {
    ucp_mem_h memh;
};

struct gcm_thr_rkey {
    ucp_rkey_h      rkey;
    gcm_thr_conn_t *conn;
};

gcm_status_t gcm_thr_rma_map(void *base, size_t len,
                             gcm_thr_rma_mem_t **mem_p, void **key_p,
                             size_t *keylen_p)
{
    ucp_mem_map_params_t params;
    gcm_thr_rma_mem_t *mem;
    ucs_status_t ucs;
    void *key;
    size_t keylen;

    mem = calloc(1, sizeof(*mem));
    if (mem == NULL) {
        return gcm_fail(GCM_ERR_NO_MEMORY, "gcm_thr_rma_map",
                        "out of memory");
    }
    memset(&params, 0, sizeof(params));
    params.field_mask = UCP_MEM_MAP_PARAM_FIELD_ADDRESS |
                        UCP_MEM_MAP_PARAM_FIELD_LENGTH;
    params.address    = base;
    params.length     = (len > 0) ? len : 1;
    ucs = ucp_mem_map(gcm_thr_context(), &params, &mem->memh);
    if (ucs != UCS_OK) {
        free(mem);
        return gcm_fail(gcm_thr_status(ucs), "gcm_thr_rma_map",
                        "ucp_mem_map of %zu bytes failed: %s", len,
                        ucs_status_string(ucs));
    }
    ucs = ucp_rkey_pack(gcm_thr_context(), mem->memh, &key, &keylen);
    if (ucs != UCS_OK) {
        (void)ucp_mem_unmap(gcm_thr_context(), mem->memh);
        free(mem);
        return gcm_fail(gcm_thr_status(ucs), "gcm_thr_rma_map",
                        "ucp_rkey_pack failed: %s", ucs_status_string(ucs));
    }
    /* The packed key is handed to the caller in memory of ours, so that
     * it is freed like the rest (free()). */
    *key_p = malloc(keylen);
    if (*key_p == NULL) {
        ucp_rkey_buffer_release(key);
        (void)ucp_mem_unmap(gcm_thr_context(), mem->memh);
        free(mem);
        return gcm_fail(GCM_ERR_NO_MEMORY, "gcm_thr_rma_map",
                        "out of memory");
    }
    memcpy(*key_p, key, keylen);
    ucp_rkey_buffer_release(key);
    *keylen_p = keylen;
    *mem_p = mem;
    return GCM_OK;
}

void gcm_thr_rma_unmap(gcm_thr_rma_mem_t *mem)
{
    ucs_status_t ucs;

    if (mem == NULL) {
        return;
    }
    ucs = ucp_mem_unmap(gcm_thr_context(), mem->memh);
    if (ucs != UCS_OK) {
        gcm_warn("ucp_mem_unmap failed: %s", ucs_status_string(ucs));
    }
    free(mem);
}

gcm_status_t gcm_thr_rma_rkey(gcm_thr_endpoint_t *endpoint, int proc,
                              int rep, const void *key, size_t keylen,
                              gcm_thr_rkey_t **rkey_p)
{
    gcm_thr_rkey_t *rkey;
    gcm_thr_conn_t *conn;
    gcm_status_t status;
    ucs_status_t ucs;

    conn = gcm_thr_conn_get(endpoint, proc, rep);
    if (conn == NULL) {
        return gcm_fail(GCM_ERR_NO_MEMORY, "gcm_thr_rma_rkey",
                        "out of memory");
    }
    status = gcm_thr_conn_connect(endpoint, conn);
    if (status != GCM_OK) {
        return status;
    }
    rkey = calloc(1, sizeof(*rkey));
    if (rkey == NULL) {
        return gcm_fail(GCM_ERR_NO_MEMORY, "gcm_thr_rma_rkey",
                        "out of memory");
    }
    ucs = ucp_ep_rkey_unpack(conn->ucp_ep, key, &rkey->rkey);
    if (ucs != UCS_OK) {
        free(rkey);
        return gcm_fail(gcm_thr_status(ucs), "gcm_thr_rma_rkey",
                        "ucp_ep_rkey_unpack (process %d) failed: %s", proc,
                        ucs_status_string(ucs));
    }
    rkey->conn = conn;
    *rkey_p = rkey;
    return GCM_OK;
}

void gcm_thr_rma_rkey_free(gcm_thr_rkey_t *rkey)
{
    if (rkey != NULL) {
        ucp_rkey_destroy(rkey->rkey);
        free(rkey);
    }
}

/* A put or get: the request (if any) goes back to UCX at once, the flush
 * completes it. */
static gcm_status_t gcm_thr_rma_started(ucs_status_ptr_t req, const char *what,
                                        int proc)
{
    if (UCS_PTR_IS_ERR(req)) {
        return gcm_fail(gcm_thr_status(UCS_PTR_STATUS(req)), what,
                        "to process %d failed: %s", proc,
                        ucs_status_string(UCS_PTR_STATUS(req)));
    }
    if (req != NULL) {
        ucp_request_free(req);
    }
    return GCM_OK;
}

gcm_status_t gcm_thr_rma_put(gcm_thr_rkey_t *rkey, const void *buf,
                             size_t len, uint64_t raddr)
{
    ucp_request_param_t param;

    if (rkey->conn->failed != GCM_OK) {
        return rkey->conn->failed;
    }
    memset(&param, 0, sizeof(param));
    return gcm_thr_rma_started(ucp_put_nbx(rkey->conn->ucp_ep, buf, len,
                                           raddr, rkey->rkey, &param),
                               "ucp_put_nbx", rkey->conn->proc);
}

gcm_status_t gcm_thr_rma_get(gcm_thr_rkey_t *rkey, void *buf, size_t len,
                             uint64_t raddr)
{
    ucp_request_param_t param;

    if (rkey->conn->failed != GCM_OK) {
        return rkey->conn->failed;
    }
    memset(&param, 0, sizeof(param));
    return gcm_thr_rma_started(ucp_get_nbx(rkey->conn->ucp_ep, buf, len,
                                           raddr, rkey->rkey, &param),
                               "ucp_get_nbx", rkey->conn->proc);
}

static void gcm_thr_rma_flush_cb(void *request, ucs_status_t status,
                                 void *user_data)
{
    gcm_thr_rma_flush_t *flush = user_data;

    (void)request;
    flush->status = gcm_thr_status(status);
    atomic_store_explicit(&flush->done, 1, memory_order_release);
}

gcm_status_t gcm_thr_rma_flush_start(gcm_thr_rkey_t *rkey,
                                     gcm_thr_rma_flush_t *flush)
{
    ucp_request_param_t param;
    ucs_status_ptr_t req;

    atomic_init(&flush->done, 0);
    flush->status = GCM_OK;
    flush->req    = NULL;
    if (rkey->conn->failed != GCM_OK) {
        flush->status = rkey->conn->failed;
        atomic_store(&flush->done, 1);
        return flush->status;
    }
    memset(&param, 0, sizeof(param));
    param.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK |
                         UCP_OP_ATTR_FIELD_USER_DATA;
    param.cb.send      = gcm_thr_rma_flush_cb;
    param.user_data    = flush;
    req = ucp_ep_flush_nbx(rkey->conn->ucp_ep, &param);
    if (UCS_PTR_IS_ERR(req)) {
        flush->status = gcm_fail(gcm_thr_status(UCS_PTR_STATUS(req)),
                                 "ucp_ep_flush_nbx",
                                 "to process %d failed: %s",
                                 rkey->conn->proc,
                                 ucs_status_string(UCS_PTR_STATUS(req)));
        atomic_store(&flush->done, 1);
        return flush->status;
    }
    if (req == NULL) {
        atomic_store(&flush->done, 1);
        return GCM_OK;
    }
    flush->req = req;
    return GCM_INPROGRESS;
}

void gcm_thr_rma_flush_end(gcm_thr_rma_flush_t *flush)
{
    if (flush->req != NULL) {
        ucp_request_free(flush->req);
        flush->req = NULL;
    }
}
