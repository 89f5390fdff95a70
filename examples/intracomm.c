/*
 * intracomm: the seed's explicit intracommunicator, built by hand.
 *
 * Every process creates one LCO with n receive slots, the processes
 * allgather the LCO names over the world LCO, and each adds n send slots
 * where send slot j targets receive slot "my index" of process j's LCO:
 *
 *     P0 = {<P0[0],P1[0],P2[0]>, <+,+,+>}
 *     P1 = {<P0[1],P1[1],P2[1]>, <+,+,+>}
 *     P2 = {<P0[2],P1[2],P2[2]>, <+,+,+>}
 *
 * So a send on send slot j reaches process j, and it arrives on the receive
 * slot that names the sender: receive slot i behaves as "source rank i".
 * Each process then sends its rank to every process and checks that what
 * arrives on receive slot j came from j. Run with: gcrun -n 3
 * examples/intracomm
 */
#define EXAMPLE_NAME "intracomm"
#include "example.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NAME_TAG 1
#define DATA_TAG 2

/*
 * Everyone sends its name to everyone (itself included) over the world LCO:
 * a hand-written allgather. Nonblocking, so no ordering between the
 * processes can deadlock.
 */
static int allgather_names(const gcm_name_t *mine, gcm_name_t *all, int n)
{
    gcm_request_h *reqs;
    gcm_msg_status_t *sts;
    gcm_status_t status;
    int ok = 1;
    int j;

    reqs = calloc(2 * (size_t)n, sizeof(*reqs));
    sts = calloc(2 * (size_t)n, sizeof(*sts));
    if ((reqs == NULL) || (sts == NULL)) {
        free(reqs);
        free(sts);
        return -1;
    }
    for (j = 0; j < n; j++) {
        if ((check(gcm_irecv(gcm_world(), &all[j], sizeof(all[j]), j,
                             NAME_TAG, &reqs[j]), "gcm_irecv(name)") != 0) ||
            (check(gcm_isend(gcm_world(), mine, sizeof(*mine), j, NAME_TAG,
                             &reqs[n + j]), "gcm_isend(name)") != 0)) {
            ok = 0;
        }
    }
    status = gcm_waitall(2 * n, reqs, sts);
    if (check(status, "gcm_waitall(names)") != 0) {
        ok = 0;
    }
    for (j = 0; j < n; j++) {
        if (sts[j].count != sizeof(gcm_name_t)) {
            fprintf(stderr, "intracomm: P%d: name from P%d has %zu bytes\n",
                    gcm_proc_rank(), j, sts[j].count);
            ok = 0;
        }
    }
    free(reqs);
    free(sts);
    return (ok != 0) ? 0 : -1;
}

/* Print this process's LCO in the seed's notation. */
static void print_notation(int me, int n)
{
    char line[4096];
    size_t len = 0;
    int j;

    len += (size_t)snprintf(line + len, sizeof(line) - len, "P%d = {<", me);
    for (j = 0; (j < n) && (len < sizeof(line)); j++) {
        len += (size_t)snprintf(line + len, sizeof(line) - len, "%sP%d[%d]",
                                (j > 0) ? "," : "", j, me);
    }
    if (len < sizeof(line)) {
        len += (size_t)snprintf(line + len, sizeof(line) - len, ">, <");
    }
    for (j = 0; (j < n) && (len < sizeof(line)); j++) {
        len += (size_t)snprintf(line + len, sizeof(line) - len, "%s+",
                                (j > 0) ? "," : "");
    }
    if (len < sizeof(line)) {
        snprintf(line + len, sizeof(line) - len, ">}");
    }
    printf("intracomm: %s\n", line);
}

static int run(int me, int n)
{
    gcm_lco_h lco = NULL;
    gcm_name_t myname;
    gcm_name_t *names = NULL;
    int *rslots = NULL;
    int *sendval = NULL;
    int *recvval = NULL;
    gcm_request_h *reqs = NULL;
    gcm_msg_status_t *sts = NULL;
    int nsend = -1;
    int nrecv = -1;
    int ok = 1;
    int j;

    names = calloc((size_t)n, sizeof(*names));
    rslots = calloc((size_t)n, sizeof(*rslots));
    sendval = calloc((size_t)n, sizeof(*sendval));
    recvval = calloc((size_t)n, sizeof(*recvval));
    reqs = calloc(2 * (size_t)n, sizeof(*reqs));
    sts = calloc(2 * (size_t)n, sizeof(*sts));
    if ((names == NULL) || (rslots == NULL) || (sendval == NULL) ||
        (recvval == NULL) || (reqs == NULL) || (sts == NULL)) {
        fprintf(stderr, "intracomm: out of memory\n");
        ok = 0;
        goto out;
    }

    /* An LCO with n receive slots, one per process that will send to it. */
    if ((check(gcm_lco_create(&lco), "gcm_lco_create") != 0) ||
        (check(gcm_lco_add_recv_slots(lco, n),
               "gcm_lco_add_recv_slots") != 0) ||
        (check(gcm_lco_name(lco, &myname), "gcm_lco_name") != 0) ||
        (allgather_names(&myname, names, n) != 0)) {
        ok = 0;
        goto out;
    }

    /* Send slot j -> receive slot "me" of process j's LCO: Pj[me]. */
    for (j = 0; j < n; j++) {
        rslots[j] = me;
    }
    if (check(gcm_lco_add_send_slots(lco, n, names, rslots),
              "gcm_lco_add_send_slots") != 0) {
        ok = 0;
        goto out;
    }

    /* As the seed notes, with this structure slot counts are the size. */
    if ((check(gcm_lco_num_send_slots(lco, &nsend), "num_send_slots") != 0) ||
        (check(gcm_lco_num_recv_slots(lco, &nrecv), "num_recv_slots") != 0) ||
        (nsend != n) || (nrecv != n)) {
        fprintf(stderr, "intracomm: P%d: %d send and %d receive slots, "
                "expected %d\n", me, nsend, nrecv, n);
        ok = 0;
        goto out;
    }

    /*
     * Post all receives first, then send my rank on every send slot. The
     * message sent on slot me comes back to this LCO's receive slot me
     * through the same-process path.
     */
    for (j = 0; j < n; j++) {
        recvval[j] = -1;
        sendval[j] = me;
        if (check(gcm_irecv(lco, &recvval[j], sizeof(recvval[j]), j,
                            DATA_TAG, &reqs[j]), "gcm_irecv") != 0) {
            ok = 0;
        }
    }
    for (j = 0; j < n; j++) {
        if (check(gcm_isend(lco, &sendval[j], sizeof(sendval[j]), j,
                            DATA_TAG, &reqs[n + j]), "gcm_isend") != 0) {
            ok = 0;
        }
    }
    if (check(gcm_waitall(2 * n, reqs, sts), "gcm_waitall") != 0) {
        ok = 0;
    }
    for (j = 0; j < n; j++) {
        if ((recvval[j] != j) || (sts[j].slot != j) ||
            (sts[j].count != sizeof(int))) {
            fprintf(stderr, "intracomm: P%d: receive slot %d got value %d "
                    "(status slot %d, %zu bytes), expected %d\n", me, j,
                    recvval[j], sts[j].slot, sts[j].count, j);
            ok = 0;
        }
    }
    if (ok != 0) {
        print_notation(me, n);
        printf("intracomm: P%d received from all %d LCOs, receive slot j "
               "= sender j\n", me, n);
    }

out:
    if ((lco != NULL) && (check(gcm_lco_free(&lco), "gcm_lco_free") != 0)) {
        ok = 0;
    }
    free(names);
    free(rslots);
    free(sendval);
    free(recvval);
    free(reqs);
    free(sts);
    return (ok != 0) ? 0 : -1;
}

int main(int argc, char **argv)
{
    int rc;

    if (example_init(&argc, &argv, NULL) != 0) {
        return 1;
    }
    rc = run(gcm_proc_rank(), gcm_proc_count());
    if (check(gcm_finalize(), "gcm_finalize") != 0) {
        rc = -1;
    }
    return (rc == 0) ? 0 : 1;
}
