/*
 * examples/example.h: what the native examples share. Each defines
 * EXAMPLE_NAME (its program name, the first word of its messages) before
 * including this.
 *
 * - example_init: gcm_init, and the option --graph PREFIX of the
 *   examples that draw their LCOs;
 * - check: a failed call said with the process and the library's reason;
 * - example_draw: the LCOs of this process drawn into
 *   PREFIX.<process>.<k>.dot (gcm_lco_graph_write); gencomm_info
 *   --graph-merge makes one picture of them all (docs/figures/).
 */
#ifndef GENCOMM_EXAMPLE_H
#define GENCOMM_EXAMPLE_H

#include <gencomm.h>

#include <stdio.h>
#include <string.h>

/* gcm_init; *graph_prefix (when not NULL) is PREFIX of --graph PREFIX,
 * else NULL. 0, or -1 when the library could not start (said). */
static inline int example_init(int *argc, char ***argv,
                               const char **graph_prefix)
{
    gcm_status_t status = gcm_init(argc, argv);

    if (status != GCM_OK) {
        fprintf(stderr, EXAMPLE_NAME ": gcm_init failed: %s\n",
                gcm_status_string(status));
        return -1;
    }
    if (graph_prefix != NULL) {
        *graph_prefix = NULL;
        if ((*argc > 2) && (strcmp((*argv)[1], "--graph") == 0)) {
            *graph_prefix = (*argv)[2];
        }
    }
    return 0;
}

/* 0 if status is GCM_OK, else -1 after saying what failed. */
static inline int check(gcm_status_t status, const char *what)
{
    if (status != GCM_OK) {
        fprintf(stderr, EXAMPLE_NAME ": P%d: %s failed: %s (%s)\n",
                gcm_proc_rank(), what, gcm_status_string(status),
                gcm_last_error());
        return -1;
    }
    return 0;
}

/* Draws lco into prefix.<process>.<k>.dot (nothing when prefix is
 * NULL). */
static inline void example_draw(const char *prefix, gcm_lco_h lco, int k)
{
    char path[512];
    FILE *fp;

    if (prefix == NULL) {
        return;
    }
    snprintf(path, sizeof(path), "%s.%d.%d.dot", prefix, gcm_proc_rank(),
             k);
    fp = fopen(path, "w");
    if ((fp == NULL) || (gcm_lco_graph_write(lco, fp) != GCM_OK)) {
        fprintf(stderr, "cannot draw %s: %s\n", path, gcm_last_error());
    }
    if (fp != NULL) {
        fclose(fp);
    }
}

#endif /* GENCOMM_EXAMPLE_H */
