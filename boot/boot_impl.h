/*
 * boot/boot_impl.h: what the files of boot/ share and no other layer sees:
 * the backends' table of operations and their entry points.
 */
#ifndef GCM_BOOT_IMPL_H
#define GCM_BOOT_IMPL_H

#include "boot/boot.h"

/* boot/'s settings (boot.c). */
enum {
    GCM_BOOT_DETECT = 0,
    GCM_BOOT_FORCE_PMIX,
    GCM_BOOT_FORCE_PMI1,
    GCM_BOOT_FORCE_SINGLETON,
    GCM_BOOT_FORCE_SIM
};
typedef struct gcm_boot_config {
    int         boot;       /* GENCOMM_BOOT: GCM_BOOT_DETECT or FORCE_* */
    const char *hostname;   /* GENCOMM_HOSTNAME (NULL: gethostname()) */
} gcm_boot_config_t;

extern gcm_boot_config_t gcm_boot_config GCM_INTERNAL;

/* The key under which process 0 publishes the job's secret. */
#define GCM_BOOT_SECRET_KEY "gcm-sec"

/* This process's own key-value store (boot.c): the singleton's whole
 * exchange, and what the simulation reads back of its own values. */
gcm_status_t gcm_boot_local_put(const char *key, const void *value,
                                size_t len) GCM_INTERNAL;
gcm_status_t gcm_boot_local_get(const char *key, void *buf, size_t *len_p)
    GCM_INTERNAL;

/* ---- backends (boot_pmi1.c, boot_pmix.c, boot_sim.c) -------------------------------- */

typedef struct gcm_boot_ops {
    gcm_status_t (*put)(const char *key, const void *value, size_t len);
    gcm_status_t (*fence)(void);
    gcm_status_t (*get)(int rank, const char *key, void *buf, size_t *len_p);
    int          (*event_fd)(void);
    void         (*poll_events)(void);
    /* cause: the rank whose failure this abort follows, or -1. */
    void         (*abort)(int code, int cause, const char *msg);
    void         (*finalize)(void);
    /* The name service (NULL: none). */
    gcm_status_t (*publish)(const char *service, const char *port);
    gcm_status_t (*lookup)(const char *service, char *port, size_t len);
    gcm_status_t (*unpublish)(const char *service);
    /* Dynamic processes (NULL: not supported). */
    gcm_status_t (*spawn)(int count, const gcm_boot_spawn_cmd_t cmds[],
                          const char *parent_port, int errcodes[]);
    gcm_status_t (*parent_port)(char *port, size_t len);
    int          (*appnum)(void);
    int          (*universe)(void);
} gcm_boot_ops_t;

/* Each backend's init returns GCM_OK and fills rank, size and jobid. */
gcm_status_t gcm_boot_pmi1_init(int *rank_p, int *size_p, char *jobid,
                                size_t jobid_len, const gcm_boot_ops_t **ops_p)
    GCM_INTERNAL;
gcm_status_t gcm_boot_pmix_init(int *rank_p, int *size_p, char *jobid,
                                size_t jobid_len, const gcm_boot_ops_t **ops_p)
    GCM_INTERNAL;
/* The simulation (boot_sim.c): one process as rank r of a job of any
 * size; gcm_boot_sim_host gives the simulated host of any rank (valid
 * after a successful gcm_boot_sim_init). */
gcm_status_t gcm_boot_sim_init(int *rank_p, int *size_p, char *jobid,
                               size_t jobid_len, const gcm_boot_ops_t **ops_p)
    GCM_INTERNAL;
gcm_status_t gcm_boot_sim_host(int rank, char *buf, size_t len) GCM_INTERNAL;
/* boot_pmix.c's leaving (tested alone): a duplicate of this process's
 * TCP connection to the PMIx server whose PMIX_SERVER_URI value is uri
 * (-1: uri names no TCP address, or no socket is connected to it); and
 * the wait, at most timeout_ms, until the server has closed its end of
 * that duplicate, which it then closes: 1 when the server closed, 0 when
 * the time ran out. */
int gcm_boot_pmix_hold_server(const char *uri) GCM_INTERNAL;
int gcm_boot_pmix_await_close(int held, int timeout_ms) GCM_INTERNAL;
/* Backends report a dead peer through this. */
void gcm_boot_report_peer_died(int rank) GCM_INTERNAL;

#endif /* GCM_BOOT_IMPL_H */
