/*
 * two_jobs: two jobs started separately (examples/two_jobs.sh starts one
 * with "serve", the other with "ask") find and talk to each other.
 *
 * Native: the serving job's process 0 makes an LCO and writes its name
 * into a file; the asking job reads it, adds a send slot to it and sends
 * a question that carries the name of its own LCO; the answer comes back
 * on that. A name is plain bytes: it travels through a file as well as
 * through a message.
 *
 * MPI: the serving job opens a port and publishes it under a service
 * name (MPI_Publish_name: a directory every job of the user on this host
 * shares); the asking job looks it up, connects, and the two jobs run a
 * collective over the merged intercommunicator before they disconnect.
 *
 *   two_jobs serve FILE SERVICE   /   two_jobs ask FILE SERVICE
 */
#include <gencomm.h>
#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct {
    char       text[64];
    gcm_name_t reply;
} question_t;

static void serve(const char *file, const char *service, int me)
{
    char port[MPI_MAX_PORT_NAME], tmp[4200];
    question_t q;
    gcm_lco_h rx, tx;
    gcm_name_t name;
    MPI_Comm inter, all;
    int rslot = 0, sum = 0, n;
    FILE *f;

    if (me == 0) {
        /* Native: a name in a file. */
        gcm_lco_create(&rx);
        gcm_lco_add_recv_slots(rx, 1);
        gcm_lco_name(rx, &name);
        snprintf(tmp, sizeof(tmp), "%s.tmp", file);
        f = fopen(tmp, "wb");
        fwrite(&name, sizeof(name), 1, f);
        fclose(f);
        rename(tmp, file);
        gcm_recv(rx, &q, sizeof(q), 0, 1, NULL);
        printf("two_jobs: serving job got \"%s\" through a name from a "
               "file\n", q.text);
        gcm_lco_create(&tx);
        gcm_lco_add_send_slots(tx, 1, &q.reply, &rslot);
        gcm_send(tx, "42", 3, 0, 2);
        gcm_lco_free(&tx);
        gcm_lco_free(&rx);
        /* MPI: a port under a published name. */
        MPI_Open_port(MPI_INFO_NULL, port);
        MPI_Publish_name(service, MPI_INFO_NULL, port);
    }
    MPI_Comm_accept(port, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter);
    MPI_Intercomm_merge(inter, 0, &all);
    MPI_Comm_size(all, &n);
    MPI_Allreduce(&me, &sum, 1, MPI_INT, MPI_SUM, all);
    if (me == 0) {
        printf("two_jobs: serving job accepted; %d processes of two jobs "
               "reduced together\n", n);
        MPI_Unpublish_name(service, MPI_INFO_NULL, port);
        MPI_Close_port(port);
    }
    MPI_Comm_free(&all);
    MPI_Comm_disconnect(&inter);
}

static void ask(const char *file, const char *service, int me)
{
    char port[MPI_MAX_PORT_NAME], answer[8] = "";
    question_t q;
    gcm_lco_h rx, tx;
    gcm_name_t name;
    MPI_Comm inter, all;
    int rslot = 0, sum = 0, i;
    FILE *f = NULL;

    if (me == 0) {
        for (i = 0; (i < 1500) && (f == NULL); i++) {
            f = fopen(file, "rb");
            if (f == NULL) {
                usleep(20000);
            }
        }
        if ((f == NULL) || (fread(&name, sizeof(name), 1, f) != 1)) {
            fprintf(stderr, "two_jobs: no name in %s\n", file);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        fclose(f);
        gcm_lco_create(&rx);
        gcm_lco_add_recv_slots(rx, 1);
        memset(&q, 0, sizeof(q));
        snprintf(q.text, sizeof(q.text), "what is the answer?");
        gcm_lco_name(rx, &q.reply);
        gcm_lco_create(&tx);
        gcm_lco_add_send_slots(tx, 1, &name, &rslot);
        gcm_send(tx, &q, sizeof(q), 0, 1);
        gcm_recv(rx, answer, sizeof(answer), 0, 2, NULL);
        printf("two_jobs: asking job got the answer %s from the other job\n",
               answer);
        gcm_lco_free(&tx);
        gcm_lco_free(&rx);
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
        for (i = 0; i < 1500; i++) {
            if (MPI_Lookup_name(service, MPI_INFO_NULL, port) ==
                MPI_SUCCESS) {
                break;
            }
            usleep(20000);
        }
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    }
    MPI_Comm_connect(port, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter);
    MPI_Intercomm_merge(inter, 1, &all);
    MPI_Allreduce(&me, &sum, 1, MPI_INT, MPI_SUM, all);
    if (me == 0) {
        printf("two_jobs: asking job connected through the name service\n");
    }
    MPI_Comm_free(&all);
    MPI_Comm_disconnect(&inter);
}

int main(int argc, char **argv)
{
    int me;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    if ((argc == 4) && (strcmp(argv[1], "serve") == 0)) {
        serve(argv[2], argv[3], me);
    } else if ((argc == 4) && (strcmp(argv[1], "ask") == 0)) {
        ask(argv[2], argv[3], me);
    } else {
        fprintf(stderr, "usage: two_jobs serve|ask FILE SERVICE\n");
        MPI_Finalize();
        return 2;
    }
    MPI_Finalize();
    return 0;
}
