/*
 * intercomm: the seed's intercommunicator, two groups of LCOs where each
 * LCO of one group can send to and receive from each LCO of the other.
 *
 * The first half of the processes is group A, the second half group B.
 * Send slot j of an LCO targets the LCO of remote process j, at the receive
 * slot equal to the sender's index in its own group, so receive slot i
 * means "remote process i", as a source rank does in an MPI
 * intercommunicator. With 4 processes:
 *
 *     P0 = {<P2[0],P3[0]>, <+,+>}    P2 = {<P0[0],P1[0]>, <+,+>}
 *     P1 = {<P2[1],P3[1]>, <+,+>}    P3 = {<P0[1],P1[1]>, <+,+>}
 *
 * The seed's figure prints P0 and P1 both as {<P2[0],P3[1]>, <+,+>}: both
 * senders would then share receive slot 0 of P2 (and slot 1 of P3), so P2
 * could not tell P0's messages from P1's, and P2's receive slot 1 would
 * never be used. Its own example calls ("send on P0's slot 1 is received on
 * P3's slot 0") only hold with the indexing above, which this program uses.
 *
 * Needs an even number of processes. Run with: gcrun -n 4 examples/intercomm
 */
#define EXAMPLE_NAME "intercomm"
#include "example.h"

#include <stdio.h>
#include <stdlib.h>

#define NAME_TAG 1
#define DATA_TAG 2

/* What each message carries, so the receiver can check where it came from. */
typedef struct {
    int rank;   /* sender's process */
    int index;  /* sender's index in its group */
    int dest;   /* the remote index it was sent to */
} ic_msg_t;

static void print_notation(int me, int idx, int remote_base, int half)
{
    char line[4096];
    size_t len = 0;
    int j;

    len += (size_t)snprintf(line + len, sizeof(line) - len, "P%d = {<", me);
    for (j = 0; (j < half) && (len < sizeof(line)); j++) {
        len += (size_t)snprintf(line + len, sizeof(line) - len, "%sP%d[%d]",
                                (j > 0) ? "," : "", remote_base + j, idx);
    }
    if (len < sizeof(line)) {
        len += (size_t)snprintf(line + len, sizeof(line) - len, ">, <");
    }
    for (j = 0; (j < half) && (len < sizeof(line)); j++) {
        len += (size_t)snprintf(line + len, sizeof(line) - len, "%s+",
                                (j > 0) ? "," : "");
    }
    if (len < sizeof(line)) {
        snprintf(line + len, sizeof(line) - len, ">}");
    }
    printf("intercomm: %s\n", line);
}

static int run(int me, int n)
{
    int half = n / 2;
    int in_a = (me < half);
    int idx = in_a ? me : me - half;           /* index in my group */
    int remote_base = in_a ? half : 0;         /* first remote process */
    gcm_lco_h lco = NULL;
    gcm_name_t myname;
    gcm_name_t *names = NULL;
    int *rslots = NULL;
    ic_msg_t *out = NULL;
    ic_msg_t *in = NULL;
    gcm_request_h *reqs = NULL;
    gcm_msg_status_t *sts = NULL;
    int ok = 1;
    int j;

    names = calloc((size_t)half, sizeof(*names));
    rslots = calloc((size_t)half, sizeof(*rslots));
    out = calloc((size_t)half, sizeof(*out));
    in = calloc((size_t)half, sizeof(*in));
    reqs = calloc(2 * (size_t)half, sizeof(*reqs));
    sts = calloc(2 * (size_t)half, sizeof(*sts));
    if ((names == NULL) || (rslots == NULL) || (out == NULL) ||
        (in == NULL) || (reqs == NULL) || (sts == NULL)) {
        fprintf(stderr, "intercomm: out of memory\n");
        ok = 0;
        goto out;
    }

    /* One receive slot per process of the other group. */
    if ((check(gcm_lco_create(&lco), "gcm_lco_create") != 0) ||
        (check(gcm_lco_add_recv_slots(lco, half),
               "gcm_lco_add_recv_slots") != 0) ||
        (check(gcm_lco_name(lco, &myname), "gcm_lco_name") != 0)) {
        ok = 0;
        goto out;
    }

    /* Only the other group needs my name: exchange names across groups. */
    for (j = 0; j < half; j++) {
        if ((check(gcm_irecv(gcm_world(), &names[j], sizeof(names[j]),
                             remote_base + j, NAME_TAG, &reqs[j]),
                   "gcm_irecv(name)") != 0) ||
            (check(gcm_isend(gcm_world(), &myname, sizeof(myname),
                             remote_base + j, NAME_TAG, &reqs[half + j]),
                   "gcm_isend(name)") != 0)) {
            ok = 0;
        }
    }
    if ((check(gcm_waitall(2 * half, reqs, NULL), "gcm_waitall(names)") != 0)
        || (ok == 0)) {
        ok = 0;
        goto out;
    }

    /* Send slot j -> receive slot "my index" of remote process j. */
    for (j = 0; j < half; j++) {
        rslots[j] = idx;
    }
    if (check(gcm_lco_add_send_slots(lco, half, names, rslots),
              "gcm_lco_add_send_slots") != 0) {
        ok = 0;
        goto out;
    }

    /* All-to-all across the groups. */
    for (j = 0; j < half; j++) {
        in[j].rank = -1;
        if (check(gcm_irecv(lco, &in[j], sizeof(in[j]), j, DATA_TAG,
                            &reqs[j]), "gcm_irecv") != 0) {
            ok = 0;
        }
    }
    for (j = 0; j < half; j++) {
        out[j].rank = me;
        out[j].index = idx;
        out[j].dest = j;
        if (check(gcm_isend(lco, &out[j], sizeof(out[j]), j, DATA_TAG,
                            &reqs[half + j]), "gcm_isend") != 0) {
            ok = 0;
        }
    }
    if (check(gcm_waitall(2 * half, reqs, sts), "gcm_waitall") != 0) {
        ok = 0;
    }

    /* Receive slot j must hold the message of remote process j. */
    for (j = 0; j < half; j++) {
        if ((sts[j].slot != j) || (sts[j].count != sizeof(ic_msg_t)) ||
            (in[j].rank != remote_base + j) || (in[j].index != j) ||
            (in[j].dest != idx)) {
            fprintf(stderr, "intercomm: P%d: receive slot %d got rank %d "
                    "index %d dest %d (slot %d, %zu bytes)\n", me, j,
                    in[j].rank, in[j].index, in[j].dest, sts[j].slot,
                    sts[j].count);
            ok = 0;
        }
    }
    if (ok != 0) {
        print_notation(me, idx, remote_base, half);
        printf("intercomm: P%d (group %c, index %d) received from all %d "
               "LCOs of group %c, receive slot i = remote index i\n", me,
               in_a ? 'A' : 'B', idx, half, in_a ? 'B' : 'A');
        if ((n == 4) && (me == 3)) {
            /* The seed's example: P0 sends on slot 1, P3 receives on 0. */
            printf("intercomm: P3 receive slot 0 got P%d's send slot %d, "
                   "as in the seed's example\n", in[0].rank, in[0].dest);
        }
    }

out:
    if ((lco != NULL) && (check(gcm_lco_free(&lco), "gcm_lco_free") != 0)) {
        ok = 0;
    }
    free(names);
    free(rslots);
    free(out);
    free(in);
    free(reqs);
    free(sts);
    return (ok != 0) ? 0 : -1;
}

int main(int argc, char **argv)
{
    int n;
    int rc;

    if (example_init(&argc, &argv, NULL) != 0) {
        return 1;
    }
    n = gcm_proc_count();
    if ((n < 2) || ((n % 2) != 0)) {
        if (gcm_proc_rank() == 0) {
            fprintf(stderr, "intercomm: needs an even number of processes "
                    "(got %d)\n", n);
        }
        rc = -1;
    } else {
        rc = run(gcm_proc_rank(), n);
    }
    if (check(gcm_finalize(), "gcm_finalize") != 0) {
        rc = -1;
    }
    return (rc == 0) ? 0 : 1;
}
