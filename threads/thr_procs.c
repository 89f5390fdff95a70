/*
 * threads/thr_procs.c: the table of processes of other jobs: a process
 * of another job gets the next index from the job size up, once per (job
 * identity, rank), with the contact that made us learn of it.
 */
#define _GNU_SOURCE
#include "config.h"

#include "threads/thr_procs.h"
#include "boot/boot.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

gcm_thr_procs_t gcm_thr_procs = {
    .lock = PTHREAD_MUTEX_INITIALIZER,
    .contact_lock = PTHREAD_MUTEX_INITIALIZER,
    .lfd = -1
};

gcm_status_t gcm_thr_procs_init(int job_size)
{
    pthread_mutex_lock(&gcm_thr_procs.lock);
    gcm_thr_procs.job_size = job_size;
    gcm_thr_procs.nother   = 0;
    pthread_mutex_unlock(&gcm_thr_procs.lock);
    return GCM_OK;
}

void gcm_thr_procs_finalize(void)
{
    int i, k;

    gcm_thr_contact_stop();
    pthread_mutex_lock(&gcm_thr_procs.lock);
    for (i = 0; i < gcm_thr_procs.nother; i++) {
        gcm_thr_other_t *o = gcm_thr_procs.other[i];
        for (k = 0; k < GCM_MAX_ENDPOINTS; k++) {
            free(o->addr[k]);
        }
        free(o);
        gcm_thr_procs.other[i] = NULL;
    }
    gcm_thr_procs.nother = 0;
    pthread_mutex_unlock(&gcm_thr_procs.lock);
}

int gcm_thr_procs_cap(void)
{
    return gcm_thr_procs.job_size + GCM_THR_MAX_OTHER;
}

int gcm_thr_proc_other(int proc)
{
    return proc >= gcm_thr_procs.job_size;
}

gcm_thr_other_t *gcm_thr_other_of(int proc)
{
    int i = proc - gcm_thr_procs.job_size;

    if ((i < 0) || (i >= gcm_thr_procs.nother)) {
        return NULL;
    }
    return gcm_thr_procs.other[i];
}

int gcm_thr_proc_lookup(uint64_t job, uint32_t rank,
                        const gcm_thr_contact_t *contact)
{
    gcm_thr_other_t *o;
    int i, proc = -1;

    if (job == gcm_boot_job_ident()) {
        if (rank >= (uint32_t)gcm_thr_procs.job_size) {
            gcm_fail(GCM_ERR_INVALID_PARAM, "connect", "rank %u of this "
                     "job, which has %d processes", rank,
                     gcm_thr_procs.job_size);
            return -1;
        }
        return (int)rank;
    }
    pthread_mutex_lock(&gcm_thr_procs.lock);
    for (i = 0; i < gcm_thr_procs.nother; i++) {
        o = gcm_thr_procs.other[i];
        if ((o->job == job) && (o->rank == rank)) {
            if ((o->contact.port == 0) && (contact != NULL)) {
                o->contact = *contact;
            }
            proc = gcm_thr_procs.job_size + i;
            goto out;
        }
    }
    if (gcm_thr_procs.nother == GCM_THR_MAX_OTHER) {
        gcm_fail(GCM_ERR_NO_MEMORY, "connect", "this process knows %d "
                 "processes of other jobs already, the most it can",
                 GCM_THR_MAX_OTHER);
        goto out;
    }
    o = calloc(1, sizeof(*o));
    if (o == NULL) {
        gcm_fail(GCM_ERR_NO_MEMORY, "connect", "no memory for a process "
                 "of another job");
        goto out;
    }
    o->job  = job;
    o->rank = rank;
    if (contact != NULL) {
        o->contact = *contact;
    }
    gcm_thr_procs.other[gcm_thr_procs.nother] = o;
    proc = gcm_thr_procs.job_size + gcm_thr_procs.nother;
    gcm_thr_procs.nother++;
    gcm_debug("process %d is rank %u of job %016llx", proc, rank,
              (unsigned long long)job);
out:
    pthread_mutex_unlock(&gcm_thr_procs.lock);
    return proc;
}

void gcm_thr_proc_ident(int proc, uint64_t *job_p, uint32_t *rank_p,
                        gcm_thr_contact_t *contact_p)
{
    gcm_thr_other_t *o;

    if (!gcm_thr_proc_other(proc)) {
        *job_p  = gcm_boot_job_ident();
        *rank_p = (uint32_t)proc;
        if (proc == gcm_boot_rank()) {
            if (gcm_thr_contact_self(contact_p) != GCM_OK) {
                memset(contact_p, 0, sizeof(*contact_p));
            }
        } else {
            /* Another job reaches this job's other processes through
             * their own names. */
            memset(contact_p, 0, sizeof(*contact_p));
        }
        return;
    }
    pthread_mutex_lock(&gcm_thr_procs.lock);
    o = gcm_thr_other_of(proc);
    if (o != NULL) {
        *job_p     = o->job;
        *rank_p    = o->rank;
        *contact_p = o->contact;
    } else {
        *job_p  = 0;
        *rank_p = 0;
        memset(contact_p, 0, sizeof(*contact_p));
    }
    pthread_mutex_unlock(&gcm_thr_procs.lock);
}
