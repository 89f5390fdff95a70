/* p2pmisc.c: point-to-point habits of older application codes.
 *
 * - MPI_Waitany / MPI_Testsome over receives from every other rank;
 * - a message shorter than the receive (MPI_Get_count, MPI_Get_elements on
 *   a derived type that is only partly filled);
 * - a message longer than the receive under MPI_ERRORS_RETURN: the error
 *   class is MPI_ERR_TRUNCATE;
 * - cancelling a receive that nothing matches (MPI_Cancel,
 *   MPI_Test_cancelled);
 * - MPI_Issend completing only once matched (MPI_Test loop), MPI_Rsend to
 *   a receive known to be posted (a barrier in between);
 * - an indexed type and an hvector type, and a struct of absolute
 *   addresses sent from MPI_BOTTOM;
 * - message order from one sender with MPI_ANY_TAG (non-overtaking);
 * - MPI_Keyval_create / MPI_Attr_put with a copy callback through
 *   MPI_Comm_dup (MPI-1 attribute caching).
 * Rank 0 prints everything. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int copies, deletes;

static int copy_fn(MPI_Comm comm, int key, void *extra, void *in, void *out,
                   int *flag)
{
    copies++;
    *(void **)out = (void *)((char *)in + 1000);
    *flag = 1;
    return MPI_SUCCESS;
}

static int delete_fn(MPI_Comm comm, int key, void *val, void *extra)
{
    deletes++;
    return MPI_SUCCESS;
}

int main(int argc, char **argv)
{
    int rank, size, i, j, report[16], *reports = NULL;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    memset(report, 0, sizeof(report));

    /* Waitany over a receive from every other rank; every rank sends its
     * rank squared to every other rank with MPI_Isend. */
    {
        MPI_Request *rr = malloc(sizeof(MPI_Request) * 2 * size);
        int *in = malloc(sizeof(int) * size), out = rank * rank, idx;
        int sum = 0, n = 0;
        MPI_Status st;

        for (i = 0; i < size; i++) {
            rr[i] = MPI_REQUEST_NULL;
            rr[size + i] = MPI_REQUEST_NULL;
            if (i != rank) {
                MPI_Irecv(&in[i], 1, MPI_INT, i, 40, MPI_COMM_WORLD, &rr[i]);
                MPI_Isend(&out, 1, MPI_INT, i, 40, MPI_COMM_WORLD,
                          &rr[size + i]);
            }
        }
        for (;;) {
            MPI_Waitany(size, rr, &idx, &st);
            if (idx == MPI_UNDEFINED) {
                break;
            }
            if (st.MPI_SOURCE != idx) {
                sum -= 100000;
            }
            sum += in[idx];
            n++;
        }
        /* The sends, with MPI_Testsome until none are left. */
        for (;;) {
            int outcount, *idxs = malloc(sizeof(int) * size);
            MPI_Testsome(size, rr + size, &outcount, idxs,
                         MPI_STATUSES_IGNORE);
            free(idxs);
            if (outcount == MPI_UNDEFINED) {
                break;
            }
        }
        report[0] = sum;
        report[1] = n;
        free(rr);
        free(in);
    }

    /* Short message into a longer receive of a derived type. */
    if (size > 1 && rank < 2) {
        MPI_Datatype pair;
        MPI_Type_contiguous(2, MPI_SHORT, &pair);
        MPI_Type_commit(&pair);
        if (rank == 1) {
            short s[7] = {1, 2, 3, 4, 5, 6, 7};
            MPI_Send(s, 7, MPI_SHORT, 0, 41, MPI_COMM_WORLD);
        } else {
            short r[10];
            MPI_Status st;
            int count, elems;
            MPI_Recv(r, 5, pair, 1, 41, MPI_COMM_WORLD, &st);
            MPI_Get_count(&st, pair, &count);
            MPI_Get_elements(&st, pair, &elems);
            report[2] = count == MPI_UNDEFINED ? -1 : count;
            report[3] = elems;
            report[4] = r[6];
        }
        MPI_Type_free(&pair);
    }

    /* Truncation under MPI_ERRORS_RETURN. */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    if (size > 1 && rank < 2) {
        if (rank == 1) {
            int big[6] = {9, 9, 9, 9, 9, 9};
            MPI_Send(big, 6, MPI_INT, 0, 42, MPI_COMM_WORLD);
        } else {
            int small[3], err, cls;
            MPI_Status st;
            err = MPI_Recv(small, 3, MPI_INT, 1, 42, MPI_COMM_WORLD, &st);
            MPI_Error_class(err, &cls);
            report[5] = (cls == MPI_ERR_TRUNCATE) ? 1 : -cls;
        }
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);

    /* Cancel an unmatched receive. */
    {
        MPI_Request r;
        MPI_Status st;
        int buf, cancelled = 0;
        MPI_Irecv(&buf, 1, MPI_INT, MPI_ANY_SOURCE, 999, MPI_COMM_WORLD, &r);
        MPI_Cancel(&r);
        MPI_Wait(&r, &st);
        MPI_Test_cancelled(&st, &cancelled);
        report[6] = cancelled;
    }

    /* Issend completes only when matched: rank 1 receives after a
     * barrier, so rank 0's MPI_Test cannot succeed before it. */
    if (size > 1) {
        if (rank == 0) {
            int v = 77, flag = 0, before = 0;
            MPI_Request r;
            MPI_Issend(&v, 1, MPI_INT, 1, 43, MPI_COMM_WORLD, &r);
            MPI_Test(&r, &flag, MPI_STATUS_IGNORE);
            before = flag;
            MPI_Barrier(MPI_COMM_WORLD);
            while (!flag) {
                MPI_Test(&r, &flag, MPI_STATUS_IGNORE);
            }
            report[7] = before ? -1 : 1;
        } else {
            MPI_Barrier(MPI_COMM_WORLD);
            if (rank == 1) {
                int v;
                MPI_Recv(&v, 1, MPI_INT, 0, 43, MPI_COMM_WORLD,
                         MPI_STATUS_IGNORE);
                report[7] = v;
            }
        }
    }

    /* Rsend to a receive posted before a barrier. */
    if (size > 1) {
        int v = 0;
        MPI_Request r = MPI_REQUEST_NULL;
        if (rank == 1) {
            MPI_Irecv(&v, 1, MPI_INT, 0, 44, MPI_COMM_WORLD, &r);
        }
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == 0) {
            v = 4242;
            MPI_Rsend(&v, 1, MPI_INT, 1, 44, MPI_COMM_WORLD);
        }
        MPI_Wait(&r, MPI_STATUS_IGNORE);
        if (rank == 1) {
            report[8] = v;
        }
    }

    /* Indexed and hvector types, then a struct of absolute addresses. */
    if (size > 1 && rank < 2) {
        int lens[3] = {2, 1, 3}, displs[3] = {0, 4, 7};
        MPI_Datatype idx, hv;
        MPI_Type_indexed(3, lens, displs, MPI_INT, &idx);
        MPI_Type_commit(&idx);
        MPI_Type_create_hvector(3, 2, 5 * sizeof(double), MPI_DOUBLE, &hv);
        MPI_Type_commit(&hv);
        if (rank == 0) {
            int a[12];
            double d[15];
            for (i = 0; i < 12; i++) {
                a[i] = -1;
            }
            for (i = 0; i < 15; i++) {
                d[i] = -1.0;
            }
            MPI_Recv(a, 1, idx, 1, 45, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Recv(d, 1, hv, 1, 46, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            for (i = 0; i < 12; i++) {
                report[9] = report[9] * 3 + a[i] + 1;
            }
            for (i = 0; i < 15; i++) {
                report[10] = report[10] * 2 + (int)(d[i] * 4.0);
            }
        } else {
            int a[12];
            double d[15];
            for (i = 0; i < 12; i++) {
                a[i] = i % 3;
            }
            for (i = 0; i < 15; i++) {
                d[i] = 0.25 * (i % 4);
            }
            MPI_Send(a, 1, idx, 0, 45, MPI_COMM_WORLD);
            MPI_Send(d, 1, hv, 0, 46, MPI_COMM_WORLD);
        }
        MPI_Type_free(&idx);
        MPI_Type_free(&hv);
    }
    {
        /* Absolute addresses, sent and received at MPI_BOTTOM. */
        int n1 = rank + 5, n2 = -1;
        double x1 = rank * 0.5, x2 = -1.0;
        int bl[2] = {1, 1};
        MPI_Aint ad[2];
        MPI_Datatype ty[2] = {MPI_INT, MPI_DOUBLE}, sendt, recvt;
        MPI_Get_address(&n1, &ad[0]);
        MPI_Get_address(&x1, &ad[1]);
        MPI_Type_create_struct(2, bl, ad, ty, &sendt);
        MPI_Type_commit(&sendt);
        MPI_Get_address(&n2, &ad[0]);
        MPI_Get_address(&x2, &ad[1]);
        MPI_Type_create_struct(2, bl, ad, ty, &recvt);
        MPI_Type_commit(&recvt);
        MPI_Sendrecv(MPI_BOTTOM, 1, sendt, (rank + 1) % size, 47, MPI_BOTTOM,
                     1, recvt, (rank + size - 1) % size, 47, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        report[11] = n2 * 10 + (int)(x2 * 2.0);
        MPI_Type_free(&sendt);
        MPI_Type_free(&recvt);
    }

    /* Non-overtaking with MPI_ANY_TAG: tags 3, 1, 2 arrive in order. */
    if (size > 1 && rank < 2) {
        if (rank == 1) {
            int t;
            for (t = 3; t >= 1; t--) {
                int v = t * 11;
                MPI_Send(&v, 1, MPI_INT, 0, t == 3 ? 3 : 3 - t, MPI_COMM_WORLD);
            }
        } else {
            for (j = 0; j < 3; j++) {
                int v;
                MPI_Status st;
                MPI_Recv(&v, 1, MPI_INT, 1, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
                report[12] = report[12] * 100 + v + st.MPI_TAG;
            }
        }
    }

    /* MPI-1 attribute caching with a copy callback. */
    {
        int key, flag = 0, flag2 = 0;
        void *val = NULL;
        MPI_Comm dup;
        MPI_Keyval_create(copy_fn, delete_fn, &key, NULL);
        MPI_Attr_put(MPI_COMM_WORLD, key, (void *)(size_t)(rank + 7));
        MPI_Comm_dup(MPI_COMM_WORLD, &dup);
        MPI_Attr_get(dup, key, &val, &flag);
        report[13] = flag ? (int)(size_t)val : -1;
        MPI_Attr_delete(MPI_COMM_WORLD, key);
        MPI_Attr_get(MPI_COMM_WORLD, key, &val, &flag2);
        MPI_Comm_free(&dup);
        MPI_Keyval_free(&key);
        report[14] = copies * 100 + deletes * 10 + flag2;
    }

    if (rank == 0) {
        reports = malloc(sizeof(report) * size);
    }
    MPI_Gather(report, 16, MPI_INT, reports, 16, MPI_INT, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        for (i = 0; i < size; i++) {
            printf("rank %d:", i);
            for (j = 0; j < 15; j++) {
                printf(" %d", reports[16 * i + j]);
            }
            printf("\n");
        }
        free(reports);
    }
    MPI_Finalize();
    return 0;
}
