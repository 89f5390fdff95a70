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
 * Attributes are strings: one keyval per key (made on first use, kept in
 * a table so that MPIX_Keyval_external and the conversions from and to
 * info find it), each communicator holding its own copy of the value
 * (copied by MPI_Comm_dup, freed with the communicator). The <info>
 * entries that apply to a process hang off its communicator as an info
 * object under a keyval of the library's own.
 */
#include "config.h"

#include "boot/boot.h"
#include "compat/mpi_impl.h"
#include "lco/lco_ext.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* The largest definitions file read (bytes). */
#define GCM_EXT_MAX_FILE (16u << 20)

typedef struct ext_key {
    char *key;
    int   keyval;
} ext_key_t;

static struct {
    pthread_mutex_t lock;         /* keys, nkeys, info_keyval */
    gcm_lco_ext_t  *ext;          /* NULL: no file */
    int             nprocs;
    char          **names;        /* processor name of each process */
    char           *namebuf;
    const char     *myname;
    ext_key_t      *keys;
    int             nkeys;
    int             info_keyval;
} gcm_ext = { PTHREAD_MUTEX_INITIALIZER, NULL, 0, NULL, NULL, NULL, NULL, 0,
              MPI_KEYVAL_INVALID };

/* ---- keyvals ------------------------------------------------------------- */

static int ext_copy_str(MPI_Comm oldcomm, int keyval, void *extra,
                        void *in, void *out, int *flag)
{
    char *c = strdup(in);

    (void)oldcomm;
    (void)keyval;
    (void)extra;
    if (c == NULL) {
        return MPI_ERR_NO_MEM;
    }
    *(void **)out = c;
    *flag         = 1;
    return MPI_SUCCESS;
}

static int ext_delete_str(MPI_Comm comm, int keyval, void *value,
                          void *extra)
{
    (void)comm;
    (void)keyval;
    (void)extra;
    free(value);
    return MPI_SUCCESS;
}

static int ext_copy_info(MPI_Comm oldcomm, int keyval, void *extra,
                         void *in, void *out, int *flag)
{
    MPI_Info dup;
    int rc;

    (void)oldcomm;
    (void)keyval;
    (void)extra;
    rc = PMPI_Info_dup((MPI_Info)in, &dup);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    *(void **)out = dup;
    *flag         = 1;
    return MPI_SUCCESS;
}

static int ext_delete_info(MPI_Comm comm, int keyval, void *value,
                           void *extra)
{
    MPI_Info info = value;

    (void)comm;
    (void)keyval;
    (void)extra;
    return PMPI_Info_free(&info);
}

/* Does some definition of the file give attribute key? */
static int ext_file_has_key(const char *key)
{
    const gcm_lco_ext_t *ext = gcm_ext.ext;
    int d, i, j;

    for (d = 0; ext != NULL && d < ext->ndefs; d++) {
        const gcm_ext_def_t *def = &ext->defs[d];

        for (i = 0; i < def->scope.nattrs; i++) {
            if (strcmp(def->scope.attrs[i].key, key) == 0) {
                return 1;
            }
        }
        for (j = 0; j < def->nclusters; j++) {
            for (i = 0; i < def->clusters[j].scope.nattrs; i++) {
                if (strcmp(def->clusters[j].scope.attrs[i].key, key) == 0) {
                    return 1;
                }
            }
        }
        for (j = 0; j < def->nnodes; j++) {
            for (i = 0; i < def->nodes[j].scope.nattrs; i++) {
                if (strcmp(def->nodes[j].scope.attrs[i].key, key) == 0) {
                    return 1;
                }
            }
        }
    }
    return 0;
}

/* The keyval of external attribute key: MPI_SUCCESS with *keyval_p, or
 * MPI_KEYVAL_INVALID in it when there is none and create is 0; an error
 * class when one cannot be made. */
static int ext_keyval(const char *key, int create, int *keyval_p)
{
    ext_key_t *keys;
    char *copy;
    int i, kv, rc;

    *keyval_p = MPI_KEYVAL_INVALID;
    pthread_mutex_lock(&gcm_ext.lock);
    for (i = 0; i < gcm_ext.nkeys; i++) {
        if (strcmp(gcm_ext.keys[i].key, key) == 0) {
            *keyval_p = gcm_ext.keys[i].keyval;
            pthread_mutex_unlock(&gcm_ext.lock);
            return MPI_SUCCESS;
        }
    }
    if (!create) {
        pthread_mutex_unlock(&gcm_ext.lock);
        return MPI_SUCCESS;
    }
    keys = realloc(gcm_ext.keys, ((size_t)gcm_ext.nkeys + 1) *
                   sizeof(*keys));
    copy = strdup(key);
    if (keys != NULL) {
        gcm_ext.keys = keys;
    }
    if (keys == NULL || copy == NULL) {
        free(copy);
        pthread_mutex_unlock(&gcm_ext.lock);
        return MPI_ERR_NO_MEM;
    }
    rc = PMPI_Comm_create_keyval(ext_copy_str, ext_delete_str, &kv, NULL);
    if (rc != MPI_SUCCESS) {
        free(copy);
        pthread_mutex_unlock(&gcm_ext.lock);
        return rc;
    }
    gcm_ext.keys[gcm_ext.nkeys].key    = copy;
    gcm_ext.keys[gcm_ext.nkeys].keyval = kv;
    gcm_ext.nkeys++;
    *keyval_p = kv;
    pthread_mutex_unlock(&gcm_ext.lock);
    return MPI_SUCCESS;
}

/* Sets attribute key = value (a copy) on comm. */
static int ext_set_attr(MPI_Comm comm, const char *key, const char *value)
{
    char *copy;
    int kv, rc;

    rc = ext_keyval(key, 1, &kv);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    copy = strdup(value);
    if (copy == NULL) {
        return MPI_ERR_NO_MEM;
    }
    rc = PMPI_Comm_set_attr(comm, kv, copy);
    if (rc != MPI_SUCCESS) {
        free(copy);
    }
    return rc;
}

/* ---- what applies to this process ---------------------------------------- */

/* Hangs the attributes and info of def that apply to this process off
 * comm. An error class on failure (memory). */
static int ext_apply(MPI_Comm comm, const gcm_ext_def_t *def)
{
    const gcm_ext_kv_t **kv = NULL;
    MPI_Info info = MPI_INFO_NULL;
    int n = 0, i, rc, created;

    if (gcm_lco_ext_scoped(def, gcm_ext.myname, 0, &kv, &n) != 0) {
        return MPI_ERR_NO_MEM;
    }
    for (i = 0, rc = MPI_SUCCESS; i < n && rc == MPI_SUCCESS; i++) {
        rc = ext_set_attr(comm, kv[i]->key, kv[i]->value);
    }
    free(kv);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (gcm_lco_ext_scoped(def, gcm_ext.myname, 1, &kv, &n) != 0) {
        return MPI_ERR_NO_MEM;
    }
    if (n == 0) {
        free(kv);
        return MPI_SUCCESS;
    }
    pthread_mutex_lock(&gcm_ext.lock);
    created = MPI_SUCCESS;
    if (gcm_ext.info_keyval == MPI_KEYVAL_INVALID) {
        created = PMPI_Comm_create_keyval(ext_copy_info, ext_delete_info,
                                          &gcm_ext.info_keyval, NULL);
    }
    pthread_mutex_unlock(&gcm_ext.lock);
    rc = created;
    if (rc == MPI_SUCCESS) {
        rc = PMPI_Info_create(&info);
    }
    for (i = 0; i < n && rc == MPI_SUCCESS; i++) {
        rc = PMPI_Info_set(info, kv[i]->key, kv[i]->value);
    }
    if (rc == MPI_SUCCESS) {
        rc = PMPI_Comm_set_attr(comm, gcm_ext.info_keyval, info);
    }
    if (rc != MPI_SUCCESS && info != MPI_INFO_NULL) {
        PMPI_Info_free(&info);
    }
    free(kv);
    return rc;
}

static int ext_raise_def(const char *call, const gcm_ext_def_t *def)
{
    return gcm_mpi_raise(MPI_COMM_WORLD, MPI_ERR_OTHER, call, "%s",
                         def->error);
}

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
    int n = gcm_ext.nprocs, p, rc;
    int *counts = malloc(((size_t)n + 1) * sizeof(int));
    int *displs = malloc(((size_t)n + 1) * sizeof(int));
    size_t total = 0;

    gcm_ext.names = calloc((size_t)n + 1, sizeof(char *));
    if (counts == NULL || displs == NULL || gcm_ext.names == NULL) {
        free(counts);
        free(displs);
        return MPI_ERR_NO_MEM;
    }
    for (p = 0; p < n; p++) {
        counts[p] = (int)all[p].namelen;
        displs[p] = (int)total;
        total    += all[p].namelen;
    }
    gcm_ext.namebuf = malloc(total + 1);
    if (gcm_ext.namebuf == NULL) {
        free(counts);
        free(displs);
        return MPI_ERR_NO_MEM;
    }
    rc = PMPI_Allgatherv(myname, (int)mylen, MPI_CHAR, gcm_ext.namebuf,
                         counts, displs, MPI_CHAR, MPI_COMM_WORLD);
    for (p = 0; rc == MPI_SUCCESS && p < n; p++) {
        gcm_ext.names[p] = gcm_ext.namebuf + displs[p];
        /* The bytes came from another process: terminate each name. */
        gcm_ext.names[p][counts[p] - 1] = '\0';
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
    gcm_ext.ext    = ext;
    gcm_ext.nprocs = n;
    rc = ext_gather_names(all, myname, mine.namelen);
    free(all);
    if (rc != MPI_SUCCESS) {
        gcm_mpi_ext_finalize();
        return gcm_mpi_raise(NULL, rc, call, "cannot gather the processor "
                             "names for GENCOMM_EXTERNAL");
    }
    gcm_ext.myname = gcm_ext.names[me];
    /* MPI_COMM_WORLD's own attributes and info. A broken definition of
     * it is reported by the calls that ask for them, not here. */
    world = gcm_lco_ext_find(ext, "MPI_COMM_WORLD");
    if (world != NULL && world->kind == GCM_EXT_DEF_COMM &&
        world->error == NULL && ext->error == NULL) {
        rc = ext_apply(MPI_COMM_WORLD, world);
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

    pthread_mutex_lock(&gcm_ext.lock);
    for (i = 0; i < gcm_ext.nkeys; i++) {
        /* Attributes still set keep their keyval until they go. */
        (void)PMPI_Comm_free_keyval(&gcm_ext.keys[i].keyval);
        free(gcm_ext.keys[i].key);
    }
    free(gcm_ext.keys);
    gcm_ext.keys  = NULL;
    gcm_ext.nkeys = 0;
    if (gcm_ext.info_keyval != MPI_KEYVAL_INVALID) {
        (void)PMPI_Comm_free_keyval(&gcm_ext.info_keyval);
        gcm_ext.info_keyval = MPI_KEYVAL_INVALID;
    }
    pthread_mutex_unlock(&gcm_ext.lock);
    gcm_lco_ext_free(gcm_ext.ext);
    gcm_ext.ext = NULL;
    free(gcm_ext.names);
    free(gcm_ext.namebuf);
    gcm_ext.names   = NULL;
    gcm_ext.namebuf = NULL;
    gcm_ext.myname  = NULL;
    gcm_ext.nprocs  = 0;
}

/* ---- MPIX_Comm_external ------------------------------------------------- */

/* Members of def in their order (procs: nprocs ints); 0, or -1 with why
 * (the definition's own error, or one its evaluation found). */
static int ext_members(const gcm_ext_def_t *def, int *procs, int *n_p,
                       char *why, size_t whylen)
{
    if (def->error != NULL) {
        snprintf(why, whylen, "%s", def->error);
        return -1;
    }
    return gcm_lco_ext_members(gcm_ext.ext, def, gcm_ext.nprocs,
                               (const char *const *)gcm_ext.names, procs,
                               n_p, why, whylen);
}

/* Is this process a member of def? (The clusters of a definition whose
 * error is not "everywhere" compiled, so this can be told.) */
static int ext_is_member(const gcm_ext_def_t *def)
{
    return gcm_lco_ext_is_member(def, gcm_ext.myname);
}

static int ext_rank_of(const int *procs, int n, int proc)
{
    int r;

    for (r = 0; r < n; r++) {
        if (procs[r] == proc) {
            return r;
        }
    }
    return -1;
}

/* The members of <comm> def in order (procs: nprocs ints) and, when it
 * has a virtual topology, its edges; with reorder="true", the members
 * placed on the physical topology or else on the hierarchy, here rather
 * than in MPI_Graph_create so that the process set has the order too.
 * 0, or -1 with why. */
static int ext_shape(const gcm_ext_def_t *def, int *procs, int *n_p,
                     int **index_p, int **edges_p, char *why, size_t whylen)
{
    gcm_lco_map_target_t tree, *hier = NULL;
    gcm_lco_map_result_t res;
    uint64_t *keys = NULL;
    int nedges, err, L = 0;

    *index_p = NULL;
    *edges_p = NULL;
    err = ext_members(def, procs, n_p, why, whylen);
    if (err == 0 && def->vtopo.present) {
        err = gcm_lco_ext_vtopo(gcm_ext.ext, def, gcm_ext.nprocs,
                                (const char *const *)gcm_ext.names, *n_p,
                                procs, index_p, edges_p, &nedges, why,
                                whylen);
    }
    if (err == 0 && def->vtopo.present && def->vtopo.reorder &&
        !def->ptopo.present && *n_p > 1) {
        keys = malloc((size_t)*n_p * GCM_MPI_HIER_LEVELS_MAX *
                      sizeof(uint64_t));
        if (keys == NULL) {
            snprintf(why, whylen, "out of memory");
            err = -1;
        } else if (gcm_mpi_hier_target(*n_p, procs, keys, &L) == 0) {
            tree = (gcm_lco_map_target_t){ .kind = GCM_LCO_MAP_TREE,
                                           .nslots = *n_p, .nlevels = L,
                                           .keys = keys };
            hier = &tree;
        }
    }
    if (err == 0) {
        err = gcm_lco_ext_place(gcm_ext.ext, def,
                                (const char *const *)gcm_ext.names, *n_p,
                                procs, *index_p, *edges_p, hier, &res, why,
                                whylen);
        if (err == 0 && strcmp(res.how, "identity") != 0) {
            gcm_debug("%s placed on %s (%s): cost %lld, %lld in the order "
                      "given", def->name, def->ptopo.present ? "its "
                      "physical topology" : "the hierarchy", res.how,
                      (long long)res.cost[0], (long long)res.identity[0]);
        }
    }
    free(keys);
    return err;
}

/* Completes *comm, just made over def's members in their order (by its
 * members only, collectively): the virtual topology (a communicator
 * made from it by MPI_Graph_create without reorder replaces it: ext_shape
 * has placed it), the name, the attributes and info. */
static int ext_finish(const gcm_ext_def_t *def, MPI_Comm *comm,
                      const int *index, const int *edges, const char *call)
{
    MPI_Comm g;
    int rc, n;

    if (def->vtopo.present) {
        PMPI_Comm_size(*comm, &n);
        rc = PMPI_Graph_create(*comm, n, index, edges, 0, &g);
        if (rc != MPI_SUCCESS) {
            PMPI_Comm_free(comm);
            return rc;
        }
        PMPI_Comm_free(comm);
        *comm = g;
    }
    (void)PMPI_Comm_set_name(*comm, def->name);
    rc = ext_apply(*comm, def);
    if (rc != MPI_SUCCESS) {
        PMPI_Comm_free(comm);
        return gcm_mpi_raise(MPI_COMM_WORLD, rc, call, "cannot set the "
                             "attributes of %s", def->name);
    }
    return MPI_SUCCESS;
}

/* Makes <comm> def. Collective over the world. */
static int ext_make_comm(const gcm_ext_def_t *def, const char *call,
                         MPI_Comm *comm, int *flag)
{
    char why[GCM_EXT_ERRLEN];
    int *procs, *index = NULL, *edges = NULL;
    int n = 0, myrank, rc;
    MPI_Comm c = MPI_COMM_NULL;

    procs = malloc(((size_t)gcm_ext.nprocs + 1) * sizeof(int));
    if (procs == NULL) {
        return gcm_mpi_raise(MPI_COMM_WORLD, MPI_ERR_NO_MEM, call,
                             "out of memory");
    }
    if (ext_shape(def, procs, &n, &index, &edges, why, sizeof(why)) != 0) {
        /* Every process found the same: the members report it. */
        free(procs);
        if (ext_is_member(def) || def->error_everywhere) {
            return gcm_mpi_raise(MPI_COMM_WORLD, MPI_ERR_OTHER, call, "%s",
                                 why);
        }
        return MPI_SUCCESS;
    }
    myrank = ext_rank_of(procs, n, MPI_COMM_WORLD->rank);
    rc = gcm_mpi_comm_derive(MPI_COMM_WORLD, (myrank >= 0) ? n : 0, procs,
                             myrank, call, &c);
    free(procs);
    if (rc == MPI_SUCCESS && c != MPI_COMM_NULL) {
        rc = ext_finish(def, &c, index, edges, call);
    }
    free(index);
    free(edges);
    if (rc == MPI_SUCCESS && c != MPI_COMM_NULL) {
        *comm = c;
        *flag = 1;
    }
    return rc;
}

/* Makes <intercomm> def. Collective over the world. */
static int ext_make_inter(const gcm_ext_def_t *def, const char *call,
                          MPI_Comm *comm, int *flag)
{
    const gcm_ext_def_t *side[2];
    char why[GCM_EXT_ERRLEN];
    int *procs[2], n[2] = { 0, 0 }, in[2], s, r, me, mine, rank, rc;
    int failed = 0, overlap = -1;

    me = MPI_COMM_WORLD->rank;
    side[0] = gcm_lco_ext_find(gcm_ext.ext, def->first);
    side[1] = gcm_lco_ext_find(gcm_ext.ext, def->second);
    procs[0] = malloc(((size_t)gcm_ext.nprocs + 1) * sizeof(int));
    procs[1] = malloc(((size_t)gcm_ext.nprocs + 1) * sizeof(int));
    if (procs[0] == NULL || procs[1] == NULL) {
        free(procs[0]);
        free(procs[1]);
        return gcm_mpi_raise(MPI_COMM_WORLD, MPI_ERR_NO_MEM, call,
                             "out of memory");
    }
    /* Who reports a failure: the members of either group, or everybody
     * when a group's members cannot be told. */
    for (s = 0; s < 2; s++) {
        in[s] = side[s]->error_everywhere || ext_is_member(side[s]);
    }
    for (s = 0; s < 2 && !failed; s++) {
        failed = ext_members(side[s], procs[s], &n[s], why, sizeof(why)) != 0;
    }
    if (!failed) {
        in[0] = ext_rank_of(procs[0], n[0], me) >= 0;
        in[1] = ext_rank_of(procs[1], n[1], me) >= 0;
        for (r = 0; r < n[0] && overlap < 0; r++) {
            if (ext_rank_of(procs[1], n[1], procs[0][r]) >= 0) {
                overlap = procs[0][r];
            }
        }
        if (overlap >= 0) {
            snprintf(why, sizeof(why), "%s:%d: the groups of "
                     "intercommunicator %s overlap: process %d (%.100s) is "
                     "in both %s and %s", gcm_ext.ext->file, def->line,
                     def->name, overlap, gcm_ext.names[overlap],
                     def->first, def->second);
            failed = 1;
        } else if (n[0] == 0 || n[1] == 0) {
            snprintf(why, sizeof(why), "%s:%d: intercommunicator %s: %s "
                     "has no process in this job", gcm_ext.ext->file,
                     def->line, def->name,
                     (n[0] == 0) ? def->first : def->second);
            failed = 1;
        }
    }
    if (failed) {
        free(procs[0]);
        free(procs[1]);
        if (in[0] || in[1]) {
            return gcm_mpi_raise(MPI_COMM_WORLD, MPI_ERR_OTHER, call, "%s",
                                 why);
        }
        return MPI_SUCCESS;
    }
    mine = in[0] ? 0 : in[1] ? 1 : -1;
    rank = (mine < 0) ? 0 : ext_rank_of(procs[mine], n[mine], me);
    /* Every process derives, members of neither with no group. */
    rc = gcm_mpi_inter_make(MPI_COMM_WORLD, MPI_COMM_WORLD,
                            (mine < 0) ? 0 : n[mine],
                            procs[(mine < 0) ? 0 : mine], rank,
                            (mine < 0) ? 0 : n[1 - mine],
                            procs[(mine < 0) ? 1 : 1 - mine], call, comm);
    free(procs[0]);
    free(procs[1]);
    if (rc == MPI_SUCCESS && *comm != MPI_COMM_NULL) {
        (void)PMPI_Comm_set_name(*comm, def->name);
        *flag = 1;
    }
    return rc;
}

int PMPIX_Comm_external(MPI_Comm *comm, const char *name, int *flag)
{
    static const char *call = "MPIX_Comm_external";
    const gcm_ext_def_t *def;
    int rc;

    if ((rc = gcm_mpi_check_init(call)) != MPI_SUCCESS) {
        return rc;
    }
    if (comm == NULL || name == NULL || flag == NULL) {
        return gcm_mpi_raise(NULL, MPI_ERR_ARG, call, "%s is NULL",
                             (comm == NULL) ? "comm" :
                             (name == NULL) ? "name" : "flag");
    }
    *comm = MPI_COMM_NULL;
    *flag = 0;
    if (gcm_ext.ext == NULL) {
        return MPI_SUCCESS;   /* no file: no external communicators */
    }
    if (gcm_ext.ext->error != NULL) {
        return gcm_mpi_raise(NULL, MPI_ERR_OTHER, call, "%s",
                             gcm_ext.ext->error);
    }
    def = gcm_lco_ext_find(gcm_ext.ext, name);
    if (def == NULL) {
        return MPI_SUCCESS;
    }
    if (def->error != NULL && def->kind == GCM_EXT_DEF_INTER) {
        return ext_raise_def(call, def);
    }
    if (strcmp(def->name, "MPI_COMM_WORLD") == 0) {
        if (def->error != NULL) {
            return ext_raise_def(call, def);
        }
        *comm = MPI_COMM_WORLD;
        *flag = 1;
        return MPI_SUCCESS;
    }
    if (def->kind == GCM_EXT_DEF_INTER) {
        return ext_make_inter(def, call, comm, flag);
    }
    return ext_make_comm(def, call, comm, flag);
}
GCM_MPIX_ALIAS(Comm_external)

/* ---- keyvals, info and the conversions -------------------------------- */

int PMPIX_Keyval_external(int *keyval, const char *name, int *flag)
{
    static const char *call = "MPIX_Keyval_external";
    const gcm_ext_def_t *world;
    int rc;

    if ((rc = gcm_mpi_check_init(call)) != MPI_SUCCESS) {
        return rc;
    }
    if (keyval == NULL || name == NULL || flag == NULL) {
        return gcm_mpi_raise(NULL, MPI_ERR_ARG, call, "%s is NULL",
                             (keyval == NULL) ? "keyval" :
                             (name == NULL) ? "name" : "flag");
    }
    *flag = 0;
    if (gcm_ext.ext != NULL && gcm_ext.ext->error != NULL) {
        return gcm_mpi_raise(NULL, MPI_ERR_OTHER, call, "%s",
                             gcm_ext.ext->error);
    }
    world = gcm_lco_ext_find(gcm_ext.ext, "MPI_COMM_WORLD");
    if (world != NULL && world->error != NULL) {
        /* Its attributes, on MPI_COMM_WORLD, were not set. */
        return ext_raise_def(call, world);
    }
    /* A key of the file, or one MPIX_Info_to_attrs made. */
    rc = ext_keyval(name, gcm_ext.ext != NULL && ext_file_has_key(name),
                    keyval);
    if (rc != MPI_SUCCESS) {
        return gcm_mpi_raise(NULL, rc, call, "cannot make the keyval of "
                             "%.100s", name);
    }
    *flag = (*keyval != MPI_KEYVAL_INVALID);
    return MPI_SUCCESS;
}
GCM_MPIX_ALIAS(Keyval_external)

int PMPIX_Info_external(MPI_Comm comm, MPI_Info *info)
{
    static const char *call = "MPIX_Info_external";
    const gcm_ext_def_t *world;
    MPI_Info held;
    int rc, kv, found = 0;

    if ((rc = gcm_mpi_check_init(call)) != MPI_SUCCESS ||
        (rc = gcm_mpi_comm_check(comm, call)) != MPI_SUCCESS) {
        return rc;
    }
    if (info == NULL) {
        return gcm_mpi_raise(comm, MPI_ERR_ARG, call, "info is NULL");
    }
    world = gcm_lco_ext_find(gcm_ext.ext, "MPI_COMM_WORLD");
    if (comm == MPI_COMM_WORLD && world != NULL && world->error != NULL) {
        return ext_raise_def(call, world);
    }
    pthread_mutex_lock(&gcm_ext.lock);
    kv = gcm_ext.info_keyval;
    pthread_mutex_unlock(&gcm_ext.lock);
    if (kv != MPI_KEYVAL_INVALID) {
        rc = PMPI_Comm_get_attr(comm, kv, &held, &found);
        if (rc != MPI_SUCCESS) {
            return rc;
        }
    }
    /* A new object the caller frees, empty when nothing applies. */
    rc = found ? PMPI_Info_dup(held, info) : PMPI_Info_create(info);
    if (rc != MPI_SUCCESS) {
        return gcm_mpi_raise(comm, rc, call, "cannot make the info object");
    }
    return MPI_SUCCESS;
}
GCM_MPIX_ALIAS(Info_external)

int PMPIX_Comm_attrs_to_info(MPI_Comm comm, MPI_Info *info)
{
    static const char *call = "MPIX_Comm_attrs_to_info";
    MPI_Info out;
    char *value;
    int i, rc, found, kv;

    if ((rc = gcm_mpi_check_init(call)) != MPI_SUCCESS ||
        (rc = gcm_mpi_comm_check(comm, call)) != MPI_SUCCESS) {
        return rc;
    }
    if (info == NULL) {
        return gcm_mpi_raise(comm, MPI_ERR_ARG, call, "info is NULL");
    }
    rc = PMPI_Info_create(&out);
    if (rc != MPI_SUCCESS) {
        return gcm_mpi_raise(comm, rc, call, "cannot make the info object");
    }
    pthread_mutex_lock(&gcm_ext.lock);
    for (i = 0; i < gcm_ext.nkeys && rc == MPI_SUCCESS; i++) {
        kv = gcm_ext.keys[i].keyval;
        rc = PMPI_Comm_get_attr(comm, kv, &value, &found);
        if (rc == MPI_SUCCESS && found) {
            rc = PMPI_Info_set(out, gcm_ext.keys[i].key, value);
        }
    }
    pthread_mutex_unlock(&gcm_ext.lock);
    if (rc != MPI_SUCCESS) {
        PMPI_Info_free(&out);
        return gcm_mpi_raise(comm, rc, call, "cannot fill the info object");
    }
    *info = out;
    return MPI_SUCCESS;
}
GCM_MPIX_ALIAS(Comm_attrs_to_info)

int PMPIX_Info_to_attrs(MPI_Comm comm, MPI_Info info)
{
    static const char *call = "MPIX_Info_to_attrs";
    char key[MPI_MAX_INFO_KEY + 1], *value;
    int i, n, len, flag, rc;

    if ((rc = gcm_mpi_check_init(call)) != MPI_SUCCESS ||
        (rc = gcm_mpi_comm_check(comm, call)) != MPI_SUCCESS) {
        return rc;
    }
    if (gcm_mpi_info_check(info) != MPI_SUCCESS) {
        return gcm_mpi_raise(comm, MPI_ERR_INFO, call,
                             "info is not a valid info object");
    }
    PMPI_Info_get_nkeys(info, &n);
    for (i = 0; i < n; i++) {
        PMPI_Info_get_nthkey(info, i, key);
        PMPI_Info_get_valuelen(info, key, &len, &flag);
        value = malloc((size_t)len + 1);
        if (value == NULL) {
            return gcm_mpi_raise(comm, MPI_ERR_NO_MEM, call,
                                 "out of memory");
        }
        PMPI_Info_get(info, key, len, value, &flag);
        value[len] = '\0';
        rc = ext_set_attr(comm, key, value);
        free(value);
        if (rc != MPI_SUCCESS) {
            return gcm_mpi_raise(comm, rc, call, "cannot set attribute "
                                 "%.100s", key);
        }
    }
    return MPI_SUCCESS;
}
GCM_MPIX_ALIAS(Info_to_attrs)

/* ---- process sets (MPI-4 sessions, mpi_session.c) ---------------------- */

/* The <comm> definitions that are process sets: all but
 * MPI_COMM_WORLD's own (mpi://WORLD already). */
static const gcm_ext_def_t *ext_pset_def(int i)
{
    int d;

    for (d = 0; gcm_ext.ext != NULL && d < gcm_ext.ext->ndefs; d++) {
        const gcm_ext_def_t *def = &gcm_ext.ext->defs[d];

        if (def->kind == GCM_EXT_DEF_COMM &&
            strcmp(def->name, "MPI_COMM_WORLD") != 0 && i-- == 0) {
            return def;
        }
    }
    return NULL;
}

int gcm_mpi_ext_pset_count(void)
{
    int n = 0;

    while (ext_pset_def(n) != NULL) {
        n++;
    }
    return n;
}

const char *gcm_mpi_ext_pset_name(int i)
{
    const gcm_ext_def_t *def = ext_pset_def(i);

    return (def != NULL) ? def->name : NULL;
}

/* The process-set definition called name, or NULL. */
static const gcm_ext_def_t *ext_pset_find(const char *name)
{
    const gcm_ext_def_t *def = gcm_lco_ext_find(gcm_ext.ext, name);

    if (def == NULL || def->kind != GCM_EXT_DEF_COMM ||
        strcmp(def->name, "MPI_COMM_WORLD") == 0) {
        return NULL;
    }
    return def;
}

int gcm_mpi_ext_pset_members(const char *name, int **procs_p, int *n_p,
                             char *why, size_t whylen)
{
    const gcm_ext_def_t *def;
    int *index, *edges;

    *procs_p = NULL;
    if (gcm_ext.ext == NULL) {
        return 1;
    }
    if (gcm_ext.ext->error != NULL) {
        snprintf(why, whylen, "%s", gcm_ext.ext->error);
        return -1;
    }
    def = ext_pset_find(name);
    if (def == NULL) {
        return 1;
    }
    *procs_p = malloc(((size_t)gcm_ext.nprocs + 1) * sizeof(int));
    if (*procs_p == NULL) {
        snprintf(why, whylen, "out of memory");
        return -1;
    }
    /* In the definition's full order, placement on a physical topology
     * included, as MPIX_Comm_external's communicator has it. */
    if (ext_shape(def, *procs_p, n_p, &index, &edges, why, whylen) != 0) {
        free(*procs_p);
        *procs_p = NULL;
        return -1;
    }
    free(index);
    free(edges);
    return 0;
}

int gcm_mpi_ext_pset_info(const char *name, MPI_Info info)
{
    const gcm_ext_def_t *def = ext_pset_find(name);
    const gcm_ext_kv_t **kv;
    int n, i, rc = MPI_SUCCESS;

    if (def == NULL || def->error != NULL ||
        !gcm_lco_ext_is_member(def, gcm_ext.myname)) {
        return MPI_SUCCESS;
    }
    if (gcm_lco_ext_scoped(def, gcm_ext.myname, 1, &kv, &n) != 0) {
        return MPI_ERR_NO_MEM;
    }
    for (i = 0; i < n && rc == MPI_SUCCESS; i++) {
        rc = PMPI_Info_set(info, kv[i]->key, kv[i]->value);
    }
    free(kv);
    return rc;
}

int gcm_mpi_ext_pset_attach(const char *name, MPI_Comm *comm,
                            const char *call)
{
    const gcm_ext_def_t *def = ext_pset_find(name);
    char why[GCM_EXT_ERRLEN];
    int *procs, *index, *edges, n, r, same, rc;

    if (def == NULL || def->error != NULL || gcm_ext.ext->error != NULL) {
        return MPI_SUCCESS;
    }
    procs = malloc(((size_t)gcm_ext.nprocs + 1) * sizeof(int));
    if (procs == NULL) {
        return MPI_ERR_NO_MEM;
    }
    if (ext_shape(def, procs, &n, &index, &edges, why, sizeof(why)) != 0) {
        free(procs);
        return gcm_mpi_raise(*comm, MPI_ERR_OTHER, call, "%s", why);
    }
    /* Only the process set's own group, in its order, is the
     * definition's communicator: the same on every member. */
    same = ((*comm)->size == n);
    for (r = 0; same && r < n; r++) {
        same = (gcm_mpi_comm_proc(*comm, r) == procs[r]);
    }
    free(procs);
    rc = same ? ext_finish(def, comm, index, edges, call) : MPI_SUCCESS;
    free(index);
    free(edges);
    return rc;
}
