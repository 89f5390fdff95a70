/*
 * p2p_threads: several threads of each of processes 0 and 1 exchange
 * messages at once (thread t uses tag t), all waiting on the same endpoint,
 * so that one thread's progress completes another's requests and wakeups
 * reach threads asleep in the same endpoint. A request is freed and reused
 * by its thread as soon as it completes, while the completing thread may
 * still be in the library.
 *
 * Usage: p2p_threads [ROUNDS]. Prints "p2p_threads: P<i> ok". Other
 * processes only join the finalize.
 */
#include <gencomm.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#define NTHREADS 3

static int g_me;
static int g_rounds;
static atomic_int g_errors;

static void *pingpong(void *arg)
{
    int t = (int)(long)arg;
    int peer = 1 - g_me;
    gcm_msg_status_t st;
    int i;
    int v;

    for (i = 0; i < g_rounds; i++) {
        if (g_me == 0) {
            v = i * NTHREADS + t;
            if ((gcm_send(gcm_world(), &v, sizeof(v), peer, t) != GCM_OK) ||
                (gcm_recv(gcm_world(), &v, sizeof(v), peer, t, &st) !=
                 GCM_OK) || (v != -(i * NTHREADS + t))) {
                atomic_fetch_add(&g_errors, 1);
            }
        } else {
            if ((gcm_recv(gcm_world(), &v, sizeof(v), peer, t, &st) !=
                 GCM_OK) || (v != i * NTHREADS + t)) {
                atomic_fetch_add(&g_errors, 1);
            }
            v = -v;
            if (gcm_send(gcm_world(), &v, sizeof(v), peer, t) != GCM_OK) {
                atomic_fetch_add(&g_errors, 1);
            }
        }
    }
    return NULL;
}

int main(int argc, char **argv)
{
    pthread_t threads[NTHREADS];
    long t;

    if (gcm_init(&argc, &argv) != GCM_OK) {
        fprintf(stderr, "p2p_threads: gcm_init: %s\n", gcm_last_error());
        return 1;
    }
    g_me     = gcm_proc_rank();
    g_rounds = (argc > 1) ? atoi(argv[1]) : 2000;
    if (gcm_proc_count() < 2) {
        fprintf(stderr, "p2p_threads: needs 2 processes\n");
        gcm_finalize();
        return 1;
    }
    if (g_me < 2) {
        for (t = 0; t < NTHREADS; t++) {
            pthread_create(&threads[t], NULL, pingpong, (void *)t);
        }
        for (t = 0; t < NTHREADS; t++) {
            pthread_join(threads[t], NULL);
        }
        if (atomic_load(&g_errors) == 0) {
            printf("p2p_threads: P%d ok\n", g_me);
        } else {
            printf("p2p_threads: P%d: %d errors\n", g_me,
                   atomic_load(&g_errors));
        }
    }
    fflush(stdout);
    gcm_finalize();
    return (atomic_load(&g_errors) == 0) ? 0 : 1;
}
