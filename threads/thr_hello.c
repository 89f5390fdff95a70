/*
 * threads/thr_hello.c: HELLO, the first message on a connection opened
 * to another job's process: who is on it (see thr_procs.h).
 */
#define _GNU_SOURCE
#include "config.h"

#include "threads/thr_procs.h"
#include "boot/boot.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

static void gcm_thr_hello_sent_cb(void *ucx_req, ucs_status_t ucs,
                                  void *user_data)
{
    (void)ucs;
    free(user_data);
    ucp_request_free(ucx_req);
}

gcm_status_t gcm_thr_hello_send(gcm_thr_endpoint_t *endpoint,
                                gcm_thr_conn_t *conn)
{
    gcm_thr_contact_t contact;
    ucp_request_param_t param;
    gcm_thr_hello_t *hello;
    const void *addr;
    size_t len;
    void *ucx_req;

    addr = gcm_thr_self_address(endpoint->index, &len);
    if ((addr == NULL) || (gcm_thr_contact_self(&contact) != GCM_OK)) {
        return GCM_ERR_TRANSPORT;
    }
    /* Header and address live until UCX is done with them. */
    hello = malloc(sizeof(*hello) + len);
    if (hello == NULL) {
        return GCM_ERR_NO_MEMORY;
    }
    memset(hello, 0, sizeof(*hello));
    hello->magic    = GCM_HELLO_MAGIC;
    hello->version  = GCM_HELLO_VERSION;
    hello->ep       = (uint16_t)endpoint->index;
    hello->job      = gcm_boot_job_ident();
    hello->rank     = (uint32_t)gcm_boot_rank();
    hello->neps     = (uint16_t)gcm_thr_num_endpoints();
    hello->port     = contact.port;
    hello->ip4      = contact.ip4;
    hello->addr_len = (uint32_t)len;
    memcpy(hello + 1, addr, len);
    memset(&param, 0, sizeof(param));
    param.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK |
                         UCP_OP_ATTR_FIELD_USER_DATA |
                         UCP_OP_ATTR_FIELD_FLAGS;
    param.cb.send      = gcm_thr_hello_sent_cb;
    param.user_data    = hello;
    param.flags        = UCP_AM_SEND_FLAG_EAGER | UCP_AM_SEND_FLAG_REPLY;
    ucx_req = ucp_am_send_nbx(conn->ucp_ep, GCM_AM_HELLO, hello,
                              sizeof(*hello), hello + 1, len, &param);
    if (!UCS_PTR_IS_PTR(ucx_req)) {
        free(hello);
        if (UCS_PTR_IS_ERR(ucx_req)) {
            return gcm_thr_status(UCS_PTR_STATUS(ucx_req));
        }
    }
    conn->known = 1;
    return GCM_OK;
}

gcm_status_t gcm_thr_hello_decode(const void *header, size_t header_length,
                                  size_t data_length, uint64_t own_job,
                                  gcm_thr_hello_t *hello_p,
                                  const char **why_p)
{
    gcm_thr_hello_t hello;

    if ((header == NULL) || (header_length != sizeof(hello))) {
        *why_p = "a header of the wrong size";
        return GCM_ERR_INVALID_PARAM;
    }
    memcpy(&hello, header, sizeof(hello));
    if ((hello.magic != GCM_HELLO_MAGIC) ||
        (hello.version != GCM_HELLO_VERSION)) {
        *why_p = "not a HELLO of this version";
        return GCM_ERR_INVALID_PARAM;
    }
    if ((hello.addr_len != data_length) || (data_length == 0) ||
        (data_length > GCM_CONTACT_ADDR_MAX)) {
        *why_p = "its address is not of the length it says";
        return GCM_ERR_INVALID_PARAM;
    }
    if ((hello.neps < 1) || (hello.neps > GCM_MAX_ENDPOINTS) ||
        (hello.ep >= hello.neps)) {
        *why_p = "endpoints out of range";
        return GCM_ERR_INVALID_PARAM;
    }
    if ((hello.job == own_job) || (hello.job == 0)) {
        *why_p = "not from another job";
        return GCM_ERR_INVALID_PARAM;
    }
    *hello_p = hello;
    return GCM_OK;
}

ucs_status_t gcm_thr_hello_in(void *arg, const void *header,
                              size_t header_length, void *data,
                              size_t length,
                              const ucp_am_recv_param_t *param)
{
    gcm_thr_endpoint_t *endpoint = arg;
    gcm_thr_contact_t contact;
    gcm_thr_hello_t hello;
    gcm_thr_other_t *o;
    gcm_thr_conn_t *conn, *c;
    const char *why;
    size_t alen;
    int proc;

    if ((param->recv_attr & UCP_AM_RECV_ATTR_FLAG_RNDV) ||
        !(param->recv_attr & UCP_AM_RECV_ATTR_FIELD_REPLY_EP)) {
        gcm_warn("malformed HELLO ignored (not an eager reply message)");
        return UCS_OK;
    }
    if (gcm_thr_hello_decode(header, header_length, length,
                             gcm_boot_job_ident(), &hello, &why) != GCM_OK) {
        gcm_warn("malformed HELLO ignored (%s)", why);
        return UCS_OK;
    }
    if (gcm_thr_addr_decode(data, length, &alen, &why) != GCM_OK) {
        gcm_warn("a HELLO with a malformed worker address (%s) ignored",
                 why);
        return UCS_OK;
    }
    contact.ip4  = hello.ip4;
    contact.port = hello.port;
    proc = gcm_thr_proc_lookup(hello.job, hello.rank, &contact);
    if (proc < 0) {
        gcm_warn("HELLO from rank %u of job %016llx ignored: %s", hello.rank,
                 (unsigned long long)hello.job, gcm_last_error());
        return UCS_OK;
    }
    pthread_mutex_lock(&gcm_thr_procs.lock);
    o = gcm_thr_other_of(proc);
    if (o->neps == 0) {
        o->neps = hello.neps;
    }
    if (o->addr[hello.ep] == NULL) {
        o->addr[hello.ep] = malloc(length);
        if (o->addr[hello.ep] != NULL) {
            memcpy(o->addr[hello.ep], data, length);
            o->addr_len[hello.ep] = length;
        }
    }
    pthread_mutex_unlock(&gcm_thr_procs.lock);

    conn = gcm_thr_conn_get(endpoint, proc, hello.ep);
    if (conn == NULL) {
        return UCS_OK;
    }
    if (conn->ucp_ep == NULL) {
        /* Ours pairs with the sender's if the address is the sender's;
         * we owe no HELLO on it. */
        conn->known = 1;
        if (gcm_thr_conn_connect(endpoint, conn) != GCM_OK) {
            conn->known = 0;
            return UCS_OK;
        }
    }
    if (conn->ucp_ep != param->reply_ep) {
        gcm_warn("a HELLO saying it is rank %u of job %016llx came on a "
                 "connection that is not that process's: ignored",
                 hello.rank, (unsigned long long)hello.job);
        return UCS_OK;
    }
    conn->known = 1;
    for (c = endpoint->others; (c != NULL) && (c != conn);
         c = c->next_other) {
    }
    if (c == NULL) {
        conn->next_other = endpoint->others;
        endpoint->others = conn;
    }
    gcm_debug("connection from rank %u of job %016llx (process %d) "
              "endpoint %u", hello.rank, (unsigned long long)hello.job, proc,
              hello.ep);
    return UCS_OK;
}
