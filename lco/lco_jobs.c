/*
 * lco/lco_jobs.c: processes of other jobs, for the MPI layer's dynamic
 * processes (ports, connect and accept, spawn): a process's identity as
 * it travels between jobs (job identity, rank in it, contact), and the
 * index this process gives it (threads/thr_procs.c).
 */
#include "config.h"

#include "lco/lco_impl.h"
#include "boot/boot.h"

#include <stdlib.h>
#include <string.h>

uint64_t gcm_lco_job_ident(void)
{
    return gcm_lco_proc.job;
}

int gcm_lco_proc_other(int proc)
{
    return gcm_thr_proc_other(proc);
}

gcm_status_t gcm_lco_proc_ident(int proc, gcm_lco_procid_t *id)
{
    gcm_thr_contact_t contact;

    memset(id, 0, sizeof(*id));
    if ((proc < 0) || (proc >= gcm_thr_procs_cap())) {
        return gcm_fail(GCM_ERR_INVALID_PARAM, "gcm_lco_proc_ident",
                        "no process %d", proc);
    }
    gcm_thr_proc_ident(proc, &id->job, &id->rank, &contact);
    id->ip4  = contact.ip4;
    id->port = contact.port;
    return GCM_OK;
}

int gcm_lco_proc_lookup(const gcm_lco_procid_t *id)
{
    gcm_thr_contact_t contact;

    if (id->job == 0) {
        gcm_fail(GCM_ERR_INVALID_PARAM, "connect", "a process of no job");
        return -1;
    }
    contact.ip4  = id->ip4;
    contact.port = id->port;
    return gcm_thr_proc_lookup(id->job, id->rank, &contact);
}

void gcm_lco_procid_encode(const gcm_lco_procid_t *id, unsigned char *p)
{
    int i;

    for (i = 0; i < 8; i++) {
        p[i] = (unsigned char)(id->job >> (8 * i));
    }
    for (i = 0; i < 4; i++) {
        p[8 + i]  = (unsigned char)(id->rank >> (8 * i));
        p[12 + i] = (unsigned char)(id->ip4 >> (8 * i));
    }
    p[16] = (unsigned char)id->port;
    p[17] = (unsigned char)(id->port >> 8);
    memset(p + 18, 0, GCM_LCO_PROCID_SIZE - 18);
}

void gcm_lco_procid_decode(const unsigned char *p, gcm_lco_procid_t *id)
{
    int i;

    memset(id, 0, sizeof(*id));
    for (i = 0; i < 8; i++) {
        id->job |= (uint64_t)p[i] << (8 * i);
    }
    for (i = 0; i < 4; i++) {
        id->rank |= (uint32_t)p[8 + i] << (8 * i);
        id->ip4  |= (uint32_t)p[12 + i] << (8 * i);
    }
    id->port = (uint16_t)(p[16] | (p[17] << 8));
}

int gcm_lco_launcher_names(void)
{
    return gcm_boot_has_names();
}

gcm_status_t gcm_lco_name_publish(const char *service, const char *port)
{
    return gcm_boot_publish(service, port);
}

gcm_status_t gcm_lco_name_lookup(const char *service, char *port,
                                 size_t len)
{
    return gcm_boot_lookup(service, port, len);
}

gcm_status_t gcm_lco_name_unpublish(const char *service)
{
    return gcm_boot_unpublish(service);
}

const char *gcm_lco_hostname(void)
{
    return gcm_boot_hostname();
}

_Static_assert(sizeof(gcm_lco_spawn_cmd_t) == sizeof(gcm_boot_spawn_cmd_t),
               "a spawn command is the same for lco/ and boot/");
_Static_assert(GCM_LCO_SPAWN_MAX == GCM_BOOT_SPAWN_MAX, "spawn's bound");

gcm_status_t gcm_lco_spawn(int count, const gcm_lco_spawn_cmd_t cmds[],
                           const char *parent_port, int errcodes[])
{
    gcm_boot_spawn_cmd_t *b = malloc((size_t)count * sizeof(*b));
    gcm_status_t status;
    int i;

    if (b == NULL) {
        return GCM_ERR_NO_MEMORY;
    }
    for (i = 0; i < count; i++) {
        b[i].command   = cmds[i].command;
        b[i].argv      = cmds[i].argv;
        b[i].maxprocs  = cmds[i].maxprocs;
        b[i].ninfo     = cmds[i].ninfo;
        b[i].info_keys = cmds[i].info_keys;
        b[i].info_vals = cmds[i].info_vals;
    }
    status = gcm_boot_spawn(count, b, parent_port, errcodes);
    free(b);
    return status;
}

gcm_status_t gcm_lco_parent_port(char *port, size_t len)
{
    return gcm_boot_parent_port(port, len);
}

int gcm_lco_appnum(void)
{
    return gcm_boot_appnum();
}

int gcm_lco_universe(void)
{
    return gcm_boot_universe();
}

double gcm_lco_connect_timeout(void)
{
    return (double)gcm_thr_connect_timeout();
}
