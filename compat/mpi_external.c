/*
 * compat/mpi_external.c: external communicators (the MPIXternal seed;
 * docs/external.md): communicators, attributes, info, rank orders and
 * virtual topologies defined in the XML file GENCOMM_EXTERNAL names, and
 * the MPIX_ calls that reach them.
 *
 * At MPI_Init every process reads and parses the file (lco/lco_ext.c),
 * and one allgather tells every process whether all of them could, and
 * whether they read the same bytes (a hash): a file that cannot be read
 * or parsed anywhere, or files that differ, make MPI_Init fail on every
 * process. A second allgather (only when there is a file) collects every
 * process's processor name: from then on each process computes alone,
 * and alike, every definition's members, order, attributes and edges
 * (lco/lco_ext_eval.c), so MPIX_Comm_external needs no message beyond
 * what making a communicator costs (none: gcm_mpi_comm_derive), and an
 * error in a definition is found by every process alike, which all fail
 * the same way instead of leaving some waiting.
 *
 * Attributes and info: mpi_external_attr.c; MPIX_Comm_external and the
 * process sets: mpi_external_comm.c.
 */
#include "config.h"

#include "boot/boot.h"
#include "compat/mpi_external_impl.h"
#include "lco/lco_ext.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* The largest definitions file read (bytes). */
#define GCM_EXT_MAX_FILE (16u << 20)

struct gcm_mpi_ext gcm_mpi_ext = { PTHREAD_MUTEX_INITIALIZER, NULL, 0, NULL,
                                   NULL, NULL, NULL, 0, MPI_KEYVAL_INVALID };

/* ---- MPI_Init -------------------------------------------------------------- */

typedef struct ext_rec {
    int32_t  state;     /* 0: no file, 1: parsed, 2: failed */
    uint32_t namelen;   /* processor name, with its terminating NUL */
    uint64_t hash;
} ext_rec_t;

/* Reads the whole file into *buf_p (malloc'd). 0, or -1 with why. */
static int ext_read_file(const char *path, char **buf_p, size_t *len_p,
                         char *why, size_t whylen)
{
    struct stat st;
    char *buf;
    size_t got;
    FILE *f;

    f = fopen(path, "rb");
    if (f == NULL) {
        snprintf(why, whylen, "%s: cannot open it: %s", path,
                 strerror(errno));
        return -1;
    }
    if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode)) {
        snprintf(why, whylen, "%s: not a regular file", path);
        fclose(f);
        return -1;
    }
    if ((unsigned long long)st.st_size > GCM_EXT_MAX_FILE) {
        snprintf(why, whylen, "%s: %lld bytes, more than the %u accepted",
                 path, (long long)st.st_size, GCM_EXT_MAX_FILE);
        fclose(f);
        return -1;
    }
    buf = malloc((size_t)st.st_size + 1);
    if (buf == NULL) {
        snprintf(why, whylen, "%s: out of memory", path);
        fclose(f);
        return -1;
    }
    got = fread(buf, 1, (size_t)st.st_size, f);
    if (ferror(f)) {
        snprintf(why, whylen, "%s: cannot read it: %s", path,
                 strerror(errno));
        free(buf);
        fclose(f);
        return -1;
    }
    fclose(f);
    *buf_p = buf;
    *len_p = got;
    return 0;
}

/* Gathers every process's processor name (the lengths came with the
 * records). */
static int ext_gather_names(const ext_rec_t *all, const char *myname,
                            uint32_t mylen)
{
    int n = gcm_mpi_ext.nprocs, p, rc;
    int *counts = malloc(((size_t)n + 1) * sizeof(int));
    int *displs = malloc(((size_t)n + 1) * sizeof(int));
    size_t total = 0;

    gcm_mpi_ext.names = calloc((size_t)n + 1, sizeof(char *));
    if (counts == NULL || displs == NULL || gcm_mpi_ext.names == NULL) {
        free(counts);
        free(displs);
        return MPI_ERR_NO_MEM;
    }
    for (p = 0; p < n; p++) {
        counts[p] = (int)all[p].namelen;
        displs[p] = (int)total;
        total    += all[p].namelen;
    }
    gcm_mpi_ext.namebuf = malloc(total + 1);
    if (gcm_mpi_ext.namebuf == NULL) {
        free(counts);
        free(displs);
        return MPI_ERR_NO_MEM;
    }
    rc = PMPI_Allgatherv(myname, (int)mylen, MPI_CHAR, gcm_mpi_ext.namebuf,
                         counts, displs, MPI_CHAR, MPI_COMM_WORLD);
    for (p = 0; rc == MPI_SUCCESS && p < n; p++) {
        gcm_mpi_ext.names[p] = gcm_mpi_ext.namebuf + displs[p];
        /* The bytes came from another process: terminate each name. */
        gcm_mpi_ext.names[p][counts[p] - 1] = '\0';
    }
    free(counts);
    free(displs);
    return rc;
}

int gcm_mpi_ext_init(const char *call)
{
    char why[GCM_EXT_ERRLEN], myname[MPI_MAX_PROCESSOR_NAME];
    const char *path = gcm_mpi_config.external;
    const gcm_ext_def_t *world;
    gcm_lco_ext_t *ext = NULL;
    ext_rec_t mine, *all;
    char *bytes = NULL;
    size_t len = 0;
    int n = MPI_COMM_WORLD->size, me = MPI_COMM_WORLD->rank, p, rc, len_i;

    memset(&mine, 0, sizeof(mine));
    PMPI_Get_processor_name(myname, &len_i);
    mine.namelen = (uint32_t)len_i + 1;
    why[0] = '\0';
    if (path != NULL && path[0] != '\0') {
        mine.state = 2;
        if (ext_read_file(path, &bytes, &len, why, sizeof(why)) == 0) {
            if (gcm_lco_ext_parse(bytes, len, path, &ext, why,
                                  sizeof(why)) == GCM_OK) {
                mine.state = 1;
                mine.hash  = ext->hash;
            }
            free(bytes);
        }
    }
    all = malloc((size_t)n * sizeof(*all));
    if (all == NULL) {
        gcm_lco_ext_free(ext);
        return gcm_mpi_raise(NULL, MPI_ERR_NO_MEM, call, "out of memory");
    }
    /* The collective raises its own failure on the world. */
    rc = PMPI_Allgather(&mine, (int)sizeof(mine), MPI_BYTE, all,
                        (int)sizeof(mine), MPI_BYTE, MPI_COMM_WORLD);
    if (rc != MPI_SUCCESS) {
        free(all);
        gcm_lco_ext_free(ext);
        return rc;
    }
    /* Every process reaches the same verdict from the same records. */
    for (p = 0; p < n; p++) {
        if (all[p].state == 2) {
            free(all);
            gcm_lco_ext_free(ext);
            if (mine.state == 2) {
                return gcm_mpi_raise(NULL, MPI_ERR_OTHER, call,
                                     "GENCOMM_EXTERNAL: %s", why);
            }
            return gcm_mpi_raise(NULL, MPI_ERR_OTHER, call,
                                 "GENCOMM_EXTERNAL: process %d could not "
                                 "read or parse its file (it says why)", p);
        }
    }
    for (p = 0; p < n; p++) {
        if (all[p].state != all[0].state || all[p].hash != all[0].hash) {
            free(all);
            gcm_lco_ext_free(ext);
            return gcm_mpi_raise(NULL, MPI_ERR_OTHER, call,
                                 "GENCOMM_EXTERNAL: processes %d and %d "
                                 "read different definitions (this one, "
                                 "%d, read %s); every process must read "
                                 "the same file", 0, p, me,
                                 (mine.state == 0) ? "none" : path);
        }
    }
    if (mine.state == 0) {
        free(all);
        return MPI_SUCCESS;
    }
    gcm_mpi_ext.ext    = ext;
    gcm_mpi_ext.nprocs = n;
    rc = ext_gather_names(all, myname, mine.namelen);
    free(all);
    if (rc != MPI_SUCCESS) {
        gcm_mpi_ext_finalize();
        return gcm_mpi_raise(NULL, rc, call, "cannot gather the processor "
                             "names for GENCOMM_EXTERNAL");
    }
    gcm_mpi_ext.myname = gcm_mpi_ext.names[me];
    /* MPI_COMM_WORLD's own attributes and info. A broken definition of
     * it is reported by the calls that ask for them, not here. */
    world = gcm_lco_ext_find(ext, "MPI_COMM_WORLD");
    if (world != NULL && world->kind == GCM_EXT_DEF_COMM &&
        world->error == NULL && ext->error == NULL) {
        rc = gcm_mpi_ext_apply(MPI_COMM_WORLD, world);
        if (rc != MPI_SUCCESS) {
            return gcm_mpi_raise(NULL, rc, call, "cannot set "
                                 "MPI_COMM_WORLD's external attributes");
        }
    }
    return MPI_SUCCESS;
}

void gcm_mpi_ext_finalize(void)
{
    int i;

    pthread_mutex_lock(&gcm_mpi_ext.lock);
    for (i = 0; i < gcm_mpi_ext.nkeys; i++) {
        /* Attributes still set keep their keyval until they go. */
        (void)PMPI_Comm_free_keyval(&gcm_mpi_ext.keys[i].keyval);
        free(gcm_mpi_ext.keys[i].key);
    }
    free(gcm_mpi_ext.keys);
    gcm_mpi_ext.keys  = NULL;
    gcm_mpi_ext.nkeys = 0;
    if (gcm_mpi_ext.info_keyval != MPI_KEYVAL_INVALID) {
        (void)PMPI_Comm_free_keyval(&gcm_mpi_ext.info_keyval);
        gcm_mpi_ext.info_keyval = MPI_KEYVAL_INVALID;
    }
    pthread_mutex_unlock(&gcm_mpi_ext.lock);
    gcm_lco_ext_free(gcm_mpi_ext.ext);
    gcm_mpi_ext.ext = NULL;
    free(gcm_mpi_ext.names);
    free(gcm_mpi_ext.namebuf);
    gcm_mpi_ext.names   = NULL;
    gcm_mpi_ext.namebuf = NULL;
    gcm_mpi_ext.myname  = NULL;
    gcm_mpi_ext.nprocs  = 0;
}
