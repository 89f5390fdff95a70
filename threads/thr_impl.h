/*
 * threads/thr_impl.h: what the files of threads/ share and no other layer
 * sees: UCX itself. Only this folder includes a UCX header.
 */
#ifndef GCM_THR_IMPL_H
#define GCM_THR_IMPL_H

#include "threads/thr.h"

#include <ucp/api/ucp.h>

/* threads/'s settings (thr_endpoint.c). */
typedef struct gcm_thr_config {
    unsigned spin_count;       /* GENCOMM_SPIN_COUNT */
    unsigned wait_timeout_ms;  /* GENCOMM_WAIT_TIMEOUT_MS */
    unsigned poll_yield_us;    /* GENCOMM_POLL_YIELD_US */
    unsigned max_endpoints;    /* GENCOMM_MAX_ENDPOINTS */
    unsigned progress_thread;  /* GENCOMM_PROGRESS_THREAD */
    /* Reaching processes of other jobs (thr_procs.c). */
    unsigned connect_timeout;  /* GENCOMM_CONNECT_TIMEOUT (seconds) */
} gcm_thr_config_t;

extern gcm_thr_config_t gcm_thr_config GCM_INTERNAL;

/* The one place ucs_status_t becomes gcm_status_t. */
gcm_status_t gcm_thr_status(ucs_status_t status) GCM_INTERNAL;

/* Waits for a UCX request made on endpoint (lock held on entry and exit);
 * returns its status and frees it. */
gcm_status_t gcm_thr_wait_ucx(gcm_thr_endpoint_t *endpoint, void *ucx_req)
    GCM_INTERNAL;

/* The UCX receive callback of every active message id: calls the upper
 * layer's handler for the id (arg: the endpoint's entry for the id). */
ucs_status_t gcm_thr_am_cb(void *arg, const void *header,
                           size_t header_length, void *data, size_t length,
                           const ucp_am_recv_param_t *param) GCM_INTERNAL;

/* The UCX context (thr_rma.c registers memory with it). */
ucp_context_h gcm_thr_context(void) GCM_INTERNAL;

/* The UCX handler of GCM_AM_HELLO (thr_procs.c; arg: the endpoint). */
ucs_status_t gcm_thr_hello_in(void *arg, const void *header,
                              size_t header_length, void *data,
                              size_t length,
                              const ucp_am_recv_param_t *param) GCM_INTERNAL;

#endif /* GCM_THR_IMPL_H */
