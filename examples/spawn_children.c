/*
 * spawn_children: the seed's introduction, "a master process connects two
 * dynamically created child processes".
 *
 * The master spawns two children at run time, one MPI_Comm_spawn each, so
 * each child is a job of its own (its own MPI_COMM_WORLD). Each child
 * makes an LCO with one receive slot and sends its name (MPIX_CNAME) to
 * the master over its parent intercommunicator. The master hands each
 * child the name of the other's LCO; then the children talk directly,
 * across their two jobs, on the native API: each adds a send slot to the
 * other's name, sends NUM_MSGS messages and receives the other's. The
 * master relays nothing: its counters show the names it forwarded and
 * the children's reports only. Run with: gcrun -n 1 examples/spawn_children
 */
#include <gencomm.h>
#include <mpi.h>

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NAME_TAG   1
#define REPORT_TAG 2
#define DATA_TAG   3
#define NUM_MSGS   20

static int child(MPI_Comm parent)
{
    MPIX_Cname mine, theirs;
    gcm_lco_h rx, tx;
    int rslot = 0, i, ok = 1, report;
    long v;

    /* An LCO of this child's, and its name to the master. */
    gcm_lco_create(&rx);
    gcm_lco_add_recv_slots(rx, 1);
    gcm_lco_name(rx, (gcm_name_t *)&mine);
    MPI_Send(&mine, 1, MPIX_CNAME, 0, NAME_TAG, parent);
    /* The other child's, from the master: a send slot straight to it. */
    MPI_Recv(&theirs, 1, MPIX_CNAME, 0, NAME_TAG, parent, MPI_STATUS_IGNORE);
    gcm_lco_create(&tx);
    if (gcm_lco_add_send_slots(tx, 1, (gcm_name_t *)&theirs, &rslot) !=
        GCM_OK) {
        fprintf(stderr, "spawn_children: %s\n", gcm_last_error());
        return 1;
    }
    for (i = 0; i < NUM_MSGS; i++) {
        gcm_request_h req;

        v = 1000L * getpid() + i;
        gcm_isend(tx, &v, sizeof(v), 0, DATA_TAG, &req);
        if (gcm_recv(rx, &v, sizeof(v), 0, DATA_TAG, NULL) != GCM_OK) {
            ok = 0;
        } else if (v % 1000 != i) {
            ok = 0;   /* out of order */
        }
        if (gcm_wait(&req, NULL) != GCM_OK) {
            ok = 0;
        }
    }
    report = ok ? NUM_MSGS : -1;
    MPI_Send(&report, 1, MPI_INT, 0, REPORT_TAG, parent);
    gcm_lco_free(&tx);
    gcm_lco_free(&rx);
    MPI_Comm_disconnect(&parent);
    return ok ? 0 : 1;
}

int main(int argc, char **argv)
{
    char self[PATH_MAX];
    char *cargv[] = { "child", NULL };
    MPIX_Cname names[2];
    MPI_Comm kids[2], parent;
    gcm_stats_t before, after;
    int k, reports[2], ok = 1;

    if (realpath(argv[0], self) == NULL) {
        snprintf(self, sizeof(self), "%s", argv[0]);
    }
    MPI_Init(&argc, &argv);
    MPI_Comm_get_parent(&parent);
    if (parent != MPI_COMM_NULL) {
        k = child(parent);
        MPI_Finalize();
        return k;
    }
    /* Two children, made at run time, each a job of its own. */
    for (k = 0; k < 2; k++) {
        MPI_Comm_spawn(self, cargv, 1, MPI_INFO_NULL, 0, MPI_COMM_SELF,
                       &kids[k], MPI_ERRCODES_IGNORE);
        MPI_Recv(&names[k], 1, MPIX_CNAME, 0, NAME_TAG, kids[k],
                 MPI_STATUS_IGNORE);
    }
    printf("spawn_children: master spawned two children\n");
    gcm_get_stats(&before);
    /* Introductions, then nothing but the reports. */
    MPI_Send(&names[1], 1, MPIX_CNAME, 0, NAME_TAG, kids[0]);
    MPI_Send(&names[0], 1, MPIX_CNAME, 0, NAME_TAG, kids[1]);
    for (k = 0; k < 2; k++) {
        MPI_Recv(&reports[k], 1, MPI_INT, 0, REPORT_TAG, kids[k],
                 MPI_STATUS_IGNORE);
        printf("spawn_children: child %d exchanged %d messages with the "
               "other directly\n", k, reports[k]);
        ok = ok && (reports[k] == NUM_MSGS);
    }
    gcm_get_stats(&after);
    printf("spawn_children: the master sent %llu and received %llu "
           "messages meanwhile (2 introductions, 2 reports)\n",
           (unsigned long long)(after.msgs_sent_remote -
                                before.msgs_sent_remote),
           (unsigned long long)(after.msgs_received - before.msgs_received));
    ok = ok && (after.msgs_sent_remote - before.msgs_sent_remote == 2) &&
         (after.msgs_received - before.msgs_received == 2);
    for (k = 0; k < 2; k++) {
        MPI_Comm_disconnect(&kids[k]);
    }
    MPI_Finalize();
    printf("spawn_children: %s\n", ok ? "ok" : "FAILED");
    return ok ? 0 : 1;
}
