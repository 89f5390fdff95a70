/* bsendlog.c: a buffered-send event logger and a synchronous handshake.
 *
 * Every rank packs log records (MPI_Pack: an int header and a string) and
 * sends them to rank 0 with MPI_Bsend from a buffer sized with
 * MPI_Pack_size + MPI_BSEND_OVERHEAD and attached with MPI_Buffer_attach,
 * so that it never waits for the logger. Rank 0 takes them from
 * MPI_ANY_SOURCE (MPI_Iprobe polling, then MPI_Recv of MPI_PACKED),
 * unpacks, sorts and prints them. Then neighbours shake hands with
 * MPI_Ssend in an order that cannot deadlock (even ranks send first), and
 * MPI_Sendrecv_replace passes a token around the ring. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NREC 5
#define TEXT 32
#define TAG_LOG 11

struct rec {
    int rank, seq, value;
    char text[TEXT];
};

static int cmp_rec(const void *a, const void *b)
{
    const struct rec *x = a, *y = b;

    if (x->rank != y->rank) {
        return x->rank - y->rank;
    }
    return x->seq - y->seq;
}

int main(int argc, char **argv)
{
    int rank, size, i, s1, s2, bufsize, detsize, position, token;
    char packed[256], *buffer, *detached;
    struct rec *recs = NULL;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    MPI_Pack_size(3, MPI_INT, MPI_COMM_WORLD, &s1);
    MPI_Pack_size(TEXT, MPI_CHAR, MPI_COMM_WORLD, &s2);
    bufsize = NREC * (s1 + s2 + MPI_BSEND_OVERHEAD);
    buffer = malloc(bufsize);
    MPI_Buffer_attach(buffer, bufsize);

    for (i = 0; i < NREC; i++) {
        int hdr[3] = {rank, i, rank * 1000 + i * i};
        char text[TEXT];

        memset(text, 0, TEXT);
        snprintf(text, TEXT, "event-%c%d", 'a' + i, rank);
        position = 0;
        MPI_Pack(hdr, 3, MPI_INT, packed, sizeof(packed), &position,
                 MPI_COMM_WORLD);
        MPI_Pack(text, TEXT, MPI_CHAR, packed, sizeof(packed), &position,
                 MPI_COMM_WORLD);
        MPI_Bsend(packed, position, MPI_PACKED, 0, TAG_LOG, MPI_COMM_WORLD);
    }

    if (rank == 0) {
        int n = 0, flag, count, polls = 0;
        MPI_Status st;

        recs = malloc(sizeof(*recs) * NREC * size);
        while (n < NREC * size) {
            MPI_Iprobe(MPI_ANY_SOURCE, TAG_LOG, MPI_COMM_WORLD, &flag, &st);
            polls++;
            if (!flag) {
                continue;
            }
            MPI_Get_count(&st, MPI_PACKED, &count);
            MPI_Recv(packed, count, MPI_PACKED, st.MPI_SOURCE, TAG_LOG,
                     MPI_COMM_WORLD, &st);
            position = 0;
            MPI_Unpack(packed, count, &position, &recs[n].rank, 1, MPI_INT,
                       MPI_COMM_WORLD);
            MPI_Unpack(packed, count, &position, &recs[n].seq, 1, MPI_INT,
                       MPI_COMM_WORLD);
            MPI_Unpack(packed, count, &position, &recs[n].value, 1, MPI_INT,
                       MPI_COMM_WORLD);
            MPI_Unpack(packed, count, &position, recs[n].text, TEXT,
                       MPI_CHAR, MPI_COMM_WORLD);
            if (recs[n].rank != st.MPI_SOURCE) {
                printf("record from %d claims rank %d\n", st.MPI_SOURCE,
                       recs[n].rank);
            }
            n++;
        }
        /* Messages from one sender arrive in order (non-overtaking). */
        for (i = 1; i < n; i++) {
            int j;
            for (j = i - 1; j >= 0; j--) {
                if (recs[j].rank == recs[i].rank) {
                    if (recs[j].seq + 1 != recs[i].seq) {
                        printf("rank %d: seq %d after %d (overtaken)\n",
                               recs[i].rank, recs[i].seq, recs[j].seq);
                    }
                    break;
                }
            }
        }
        qsort(recs, n, sizeof(*recs), cmp_rec);
        for (i = 0; i < n; i++) {
            printf("log %d.%d value %5d %s\n", recs[i].rank, recs[i].seq,
                   recs[i].value, recs[i].text);
        }
        free(recs);
    }

    /* Detach waits until every buffered message has gone. */
    MPI_Buffer_detach(&detached, &detsize);
    if (rank == 0) {
        printf("detached the attached buffer: %s\n",
               detached == buffer && detsize == bufsize ? "yes" : "no");
    }
    free(buffer);

    /* Handshake with both neighbours by synchronous sends. */
    if (size > 1) {
        int right = (rank + 1) % size, left = (rank + size - 1) % size;
        int mine = rank + 500, from_left = -1;

        if (rank % 2 == 0) {
            MPI_Ssend(&mine, 1, MPI_INT, right, 21, MPI_COMM_WORLD);
            MPI_Recv(&from_left, 1, MPI_INT, left, 21, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(&from_left, 1, MPI_INT, left, 21, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
            MPI_Ssend(&mine, 1, MPI_INT, right, 21, MPI_COMM_WORLD);
        }
        /* An odd-sized ring has two evens side by side (last and 0): the
         * last one's Ssend waits for rank 0's Recv, which comes after rank
         * 0's own Ssend to rank 1 completes, so no cycle of waits. */
        if (from_left != left + 500) {
            printf("rank %d: handshake got %d\n", rank, from_left);
        }
    }

    /* A token around the ring in place. */
    token = rank;
    for (i = 0; i < size; i++) {
        MPI_Sendrecv_replace(&token, 1, MPI_INT, (rank + 1) % size, 31,
                             (rank + size - 1) % size, 31, MPI_COMM_WORLD,
                             MPI_STATUS_IGNORE);
        token = token * 2 + 1;
    }
    {
        int total = 0;
        MPI_Reduce(&token, &total, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
        if (rank == 0) {
            printf("ring token total %d over %d processes\n", total, size);
        }
    }

    MPI_Finalize();
    return 0;
}
