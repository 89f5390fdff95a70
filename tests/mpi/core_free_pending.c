/*
 * core_free_pending: MPI_Comm_free marks a communicator for deallocation;
 * operations still pending on it complete normally (MPI-3.1 6.4.3).
 *
 * Rank 0 posts a receive and a persistent receive on a duplicate, frees
 * the duplicate, and only then lets rank 1 send on its copy: both
 * receives must deliver the data, not be cancelled. The freed handle
 * itself is dead: a call on a stale copy of it reports MPI_ERR_COMM.
 *
 * Then requests that completed when they were started (a small send, a
 * receive of a message that had arrived) are waited for after their
 * communicator was freed and a new one made: they report their statuses
 * as any other.
 *
 * Datatypes too (MPI-3.1 4.1.9, and MPICH's test of it): two receives
 * with a derived type, the type freed, then MPI_Waitall must unpack into
 * the right places; a persistent receive whose type was freed still
 * receives at every start, and a persistent send whose type was freed
 * before its first MPI_Start still sends that layout at every start.
 */
#include <mpi.h>

#include "mpitest.h"
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int rank, size, x = -1, y = -1, go = 1, cancelled = -1, rc;
    MPI_Comm dup, stale;
    MPI_Request req, preq;
    MPI_Status st;

    mpitest_init(&argc, &argv, "core_free_pending", 1);
    mpitest_world(&rank, &size);
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    if (size < 2) {
        printf("core_free_pending: SKIPPED (needs 2 processes)\n");
        MPI_Comm_free(&dup);
        MPI_Finalize();
        return 0;
    }
    if (rank == 0) {
        MPI_Irecv(&x, 1, MPI_INT, 1, 5, dup, &req);
        MPI_Recv_init(&y, 1, MPI_INT, 1, 6, dup, &preq);
        MPI_Start(&preq);
        stale = dup;
        MPI_Comm_free(&dup);
        CHECK(dup == MPI_COMM_NULL, "MPI_Comm_free did not reset the handle");
        rc = MPI_Send(&go, 1, MPI_INT, 1, 0, stale);
        CHECK(rc == MPI_ERR_COMM, "send on a freed handle gave %d", rc);
        MPI_Send(&go, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
        MPI_Wait(&req, &st);
        MPI_Test_cancelled(&st, &cancelled);
        CHECK((x == 42) && !cancelled && (st.MPI_SOURCE == 1),
              "receive pending at free: x=%d cancelled=%d source=%d", x,
              cancelled, st.MPI_SOURCE);
        MPI_Wait(&preq, &st);
        MPI_Test_cancelled(&st, &cancelled);
        CHECK((y == 43) && !cancelled,
              "persistent receive pending at free: y=%d cancelled=%d", y,
              cancelled);
        MPI_Request_free(&preq);
    } else if (rank == 1) {
        MPI_Recv(&go, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        x = 42;
        y = 43;
        MPI_Send(&x, 1, MPI_INT, 0, 5, dup);
        MPI_Send(&y, 1, MPI_INT, 0, 6, dup);
        MPI_Comm_free(&dup);
    } else {
        MPI_Comm_free(&dup);
    }

    /* Collective calls (dup, free) are made by every rank alike. */
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    {
        int peer = 1 - rank, out = 70 + rank, in = -1, count = -1, flag = 0;
        MPI_Request sreq = MPI_REQUEST_NULL, rreq = MPI_REQUEST_NULL;
        MPI_Status sst, rst;
        MPI_Comm other;

        if (rank <= 1) {
            MPI_Isend(&out, 1, MPI_INT, peer, 7, dup, &sreq);
            /* The peer's message is here: the receive matches it at
             * once. */
            MPI_Probe(peer, 7, dup, MPI_STATUS_IGNORE);
            MPI_Irecv(&in, 1, MPI_INT, peer, 7, dup, &rreq);
        }
        MPI_Comm_free(&dup);
        MPI_Comm_dup(MPI_COMM_WORLD, &other);
        if (rank <= 1) {
            rc = MPI_Wait(&rreq, &rst);
            MPI_Get_count(&rst, MPI_INT, &count);
            CHECK(rc == MPI_SUCCESS && rreq == MPI_REQUEST_NULL &&
                  in == 70 + peer && rst.MPI_SOURCE == peer &&
                  rst.MPI_TAG == 7 && count == 1,
                  "receive done before its communicator was freed: rc %d, "
                  "in %d, source %d, tag %d, count %d", rc, in,
                  rst.MPI_SOURCE, rst.MPI_TAG, count);
            rc = MPI_Test(&sreq, &flag, &sst);
            while (rc == MPI_SUCCESS && !flag) {
                rc = MPI_Test(&sreq, &flag, &sst);
            }
            /* (MPI_Test leaves sst.MPI_ERROR alone: rc is the result.) */
            CHECK(rc == MPI_SUCCESS && flag && sreq == MPI_REQUEST_NULL,
                  "send started before its communicator was freed: rc %d",
                  rc);
        }
        MPI_Comm_free(&other);
    }

    /* Receives with a derived type freed before they complete. */
    {
        MPI_Datatype vec;
        MPI_Request reqs[2], preq, psend;
        int in[2][6], out[3] = { 1, 2, 3 }, sv[6] = { 0 }, i, k, ok = 1;

        MPI_Type_vector(3, 1, 2, MPI_INT, &vec);
        MPI_Type_commit(&vec);
        for (i = 0; i < 2; i++) {
            for (k = 0; k < 6; k++) {
                in[i][k] = -1;
            }
        }
        if (rank == 0) {
            MPI_Irecv(in[0], 1, vec, 1, 8, MPI_COMM_WORLD, &reqs[0]);
            MPI_Irecv(in[1], 1, vec, 1, 9, MPI_COMM_WORLD, &reqs[1]);
            MPI_Recv_init(in[0], 1, vec, 1, 10, MPI_COMM_WORLD, &preq);
            MPI_Type_free(&vec);
            MPI_Send(&go, 1, MPI_INT, 1, 11, MPI_COMM_WORLD);
            rc = MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE);
            for (i = 0; i < 2; i++) {
                for (k = 0; k < 3; k++) {
                    ok &= (in[i][2 * k] == out[k] + 10 * i) &&
                          (in[i][2 * k + 1] == -1);
                }
            }
            CHECK(rc == MPI_SUCCESS && ok, "receives whose type was freed: "
                  "rc %d, in[0] %d %d %d %d %d, in[1] %d %d %d", rc,
                  in[0][0], in[0][1], in[0][2], in[0][3], in[0][4],
                  in[1][0], in[1][2], in[1][4]);
            for (k = 0; k < 2; k++) {
                in[0][0] = in[0][2] = in[0][4] = -1;
                MPI_Start(&preq);
                rc = MPI_Wait(&preq, MPI_STATUS_IGNORE);
                CHECK(rc == MPI_SUCCESS && in[0][0] == 100 + k &&
                      in[0][2] == 2 && in[0][4] == 3,
                      "persistent receive %d with a freed type: rc %d, "
                      "%d %d %d", k, rc, in[0][0], in[0][2], in[0][4]);
            }
            MPI_Request_free(&preq);
        } else if (rank == 1) {
            /* The persistent send holds its type as the receive does. */
            MPI_Send_init(sv, 1, vec, 0, 10, MPI_COMM_WORLD, &psend);
            MPI_Type_free(&vec);
            MPI_Recv(&go, 1, MPI_INT, 0, 11, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
            MPI_Send(out, 3, MPI_INT, 0, 8, MPI_COMM_WORLD);
            for (k = 0; k < 3; k++) {
                out[k] += 10;
            }
            MPI_Send(out, 3, MPI_INT, 0, 9, MPI_COMM_WORLD);
            sv[2] = 2;
            sv[4] = 3;
            for (k = 0; k < 2; k++) {
                sv[0] = 100 + k;
                rc = MPI_Start(&psend);
                if (rc == MPI_SUCCESS) {
                    rc = MPI_Wait(&psend, MPI_STATUS_IGNORE);
                }
                CHECK(rc == MPI_SUCCESS, "persistent send %d with a freed "
                      "type: rc %d", k, rc);
            }
            MPI_Request_free(&psend);
        } else {
            MPI_Type_free(&vec);
        }
    }
    return mpitest_finish();
}
