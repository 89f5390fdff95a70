/* taskfarm.c: master/worker task farm with variable-size results.
 *
 * The master (rank 0) hands out task numbers; a worker answers with the
 * Collatz sequence of the task's seed, whose length it does not announce:
 * the master takes results from MPI_ANY_SOURCE with MPI_ANY_TAG, sizes them
 * with MPI_Probe + MPI_Get_count, and sends more work to whoever answered,
 * until a stop tag ends every worker. Which worker did which task varies
 * from run to run, so the master prints the results in task order. Alone,
 * the master does the work itself. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define NTASKS 40
#define MAXLEN 400
#define TAG_WORK 1
#define TAG_STOP 2
#define TAG_RESULT_BASE 100 /* result tag = base + task number */

static int collatz(int task, int *seq)
{
    long long x = 27LL + 7LL * task * task;
    int n = 0;

    seq[n++] = (int)x;
    while (x != 1 && n < MAXLEN) {
        x = (x % 2 == 0) ? x / 2 : 3 * x + 1;
        seq[n++] = (int)x;
    }
    return n;
}

static void record(int task, const int *seq, int n, int *len, long long *sum,
                   int *peak)
{
    int i;

    len[task] = n;
    sum[task] = 0;
    peak[task] = 0;
    for (i = 0; i < n; i++) {
        sum[task] += seq[i];
        if (seq[i] > peak[task]) {
            peak[task] = seq[i];
        }
    }
}

int main(int argc, char **argv)
{
    int rank, size, seq[MAXLEN];

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    if (rank == 0) {
        int len[NTASKS], peak[NTASKS], done[NTASKS] = {0};
        long long sum[NTASKS], total = 0;
        int next = 0, outstanding = 0, w, t, count, by_self = 0;
        MPI_Status st;

        if (size == 1) {
            for (t = 0; t < NTASKS; t++) {
                record(t, seq, collatz(t, seq), len, sum, peak);
                done[t]++;
                by_self++;
            }
        }
        /* Prime every worker (some may get a stop at once when there are
         * more workers than tasks; not here, but kept general). */
        for (w = 1; w < size; w++) {
            if (next < NTASKS) {
                MPI_Send(&next, 1, MPI_INT, w, TAG_WORK, MPI_COMM_WORLD);
                next++;
                outstanding++;
            } else {
                MPI_Send(&next, 0, MPI_INT, w, TAG_STOP, MPI_COMM_WORLD);
            }
        }
        while (outstanding > 0) {
            MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
            MPI_Get_count(&st, MPI_INT, &count);
            t = st.MPI_TAG - TAG_RESULT_BASE;
            if (t < 0 || t >= NTASKS || count < 1 || count > MAXLEN) {
                fprintf(stderr, "bad result: tag %d count %d\n", st.MPI_TAG,
                        count);
                MPI_Abort(MPI_COMM_WORLD, 1);
            }
            MPI_Recv(seq, count, MPI_INT, st.MPI_SOURCE, st.MPI_TAG,
                     MPI_COMM_WORLD, &st);
            record(t, seq, count, len, sum, peak);
            done[t]++;
            outstanding--;
            if (next < NTASKS) {
                MPI_Send(&next, 1, MPI_INT, st.MPI_SOURCE, TAG_WORK,
                         MPI_COMM_WORLD);
                next++;
                outstanding++;
            } else {
                MPI_Send(&next, 0, MPI_INT, st.MPI_SOURCE, TAG_STOP,
                         MPI_COMM_WORLD);
            }
        }
        for (t = 0; t < NTASKS; t++) {
            if (done[t] != 1) {
                printf("task %d done %d times\n", t, done[t]);
            }
            printf("task %2d seed %6d steps %3d peak %8d sum %10lld\n", t,
                   27 + 7 * t * t, len[t], peak[t], sum[t]);
            total += sum[t];
        }
        printf("tasks %d total %lld (master did %s)\n", NTASKS, total,
               by_self ? "all" : "none");
    } else {
        MPI_Status st;
        int task, n;

        for (;;) {
            MPI_Recv(&task, 1, MPI_INT, 0, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
            if (st.MPI_TAG == TAG_STOP) {
                break;
            }
            n = collatz(task, seq);
            MPI_Send(seq, n, MPI_INT, 0, TAG_RESULT_BASE + task,
                     MPI_COMM_WORLD);
        }
    }

    MPI_Finalize();
    return 0;
}
