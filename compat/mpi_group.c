/*
 * compat/mpi_group.c: MPI process groups (MPI-3.1 section 6.3).
 *
 * A group is an ordered set of world process indices. Groups are shared by
 * communicators, so they are reference counted and immutable once built.
 *
 * Two layouts:
 * - compact: the members form an arithmetic progression (the world group,
 *   its reversal, every k-th process...). Only first and stride are kept,
 *   so a world group of a million processes costs a few bytes and rank <->
 *   process translation is O(1) both ways.
 * - array: procs[rank] for any other order. Process -> rank lookups go
 *   through a sorted index built on first need (and only for groups larger
 *   than a few members), so translate_ranks, compare and the set
 *   operations are O(n log n), never O(n^2).
 */
#include "config.h"

#include "compat/mpi_impl.h"

#include <limits.h>
#include <stdalign.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* One entry of the process -> rank index of an array group. */
typedef struct gcm_mpi_group_entry {
    int proc;
    int rank;
} gcm_mpi_group_entry_t;

struct gcm_mpi_group {
    uint32_t magic;          /* GCM_MPI_MAGIC_GROUP while alive */
    int predefined;          /* MPI_GROUP_EMPTY: never freed */
    atomic_int refcount;     /* user handles + communicators */
    /* The user's handles not freed yet: each MPI_Comm_group of a
     * communicator hands out its cached group once more, and a free
     * beyond them (a stale copy) must not drop the communicator's
     * reference. */
    atomic_int handles;
    int size;
    int myrank;              /* this process's rank, or MPI_UNDEFINED */
    int myproc;              /* this process's world index (to derive) */
    int first;               /* compact layout: proc(r) = first + r*stride */
    int stride;
    int *procs;              /* array layout; NULL when compact or empty */
    /* Sorted by proc; built lazily, published once with a CAS so that
     * threads sharing the group may race to build it. */
    gcm_mpi_group_entry_t *_Atomic index;
};

struct gcm_mpi_group gcm_mpi_group_empty = {
    .magic      = GCM_MPI_MAGIC_GROUP,
    .predefined = 1,
    .refcount   = 1,
    .handles    = 1,
    .size       = 0,
    .myrank     = MPI_UNDEFINED,
    .myproc     = MPI_UNDEFINED,
    .first      = 0,
    .stride     = 1,
    .procs      = NULL,
    .index      = NULL,
};

/* Below this size a linear scan beats building and searching an index. */
#define GCM_MPI_GROUP_SCAN_MAX 16

/* ---- object basics ------------------------------------------------------- */

/* A live group object (communicators may hold groups whose handles the
 * user has all freed). */
static int group_alive(MPI_Group group)
{
    uintptr_t addr = (uintptr_t)group;

    /* Cheap guards first, so that small integers or misaligned garbage
     * passed as a handle are refused instead of dereferenced. */
    if (group == MPI_GROUP_NULL || addr < 4096u ||
        (addr % alignof(struct gcm_mpi_group)) != 0) {
        return 0;
    }
    if (group->magic != GCM_MPI_MAGIC_GROUP) {
        return 0;
    }
    return (atomic_load_explicit(&group->refcount, memory_order_relaxed) > 0);
}

/* A group the user may name: alive, and with a handle not yet freed. */
static int group_valid(MPI_Group group)
{
    return group_alive(group) &&
           ((group->predefined != 0) ||
            (atomic_load_explicit(&group->handles, memory_order_relaxed) >
             0));
}

/* Checks a group argument, raising MPI_ERR_GROUP naming the argument. */
static int check_group(MPI_Group group, const char *call, const char *what)
{
    if (group == MPI_GROUP_NULL) {
        return gcm_mpi_raise(NULL, MPI_ERR_GROUP, call, "%s is MPI_GROUP_NULL",
                             what);
    }
    if (group_valid(group) == 0) {
        return gcm_mpi_raise(NULL, MPI_ERR_GROUP, call,
                             "%s is not a valid group (freed already, or "
                             "never a group)", what);
    }
    return MPI_SUCCESS;
}

/* check_group, then out (the argument named what) must not be NULL. */
static int check_group_out(MPI_Group group, const void *out,
                           const char *what, const char *call)
{
    int err = check_group(group, call, "group");

    if ((err == MPI_SUCCESS) && (out == NULL)) {
        err = gcm_mpi_raise(NULL, MPI_ERR_ARG, call, "%s is NULL", what);
    }
    return err;
}

static inline int group_proc(MPI_Group group, int rank)
{
    if (group->procs != NULL) {
        return group->procs[rank];
    }
    return (int)((long long)group->first + (long long)rank * group->stride);
}

static void group_destroy(MPI_Group group)
{
    gcm_mpi_group_entry_t *index;

    /* A stale handle reads a cleared magic: the memory is never reused
     * (util/util_handle.c). */
    index = atomic_load_explicit(&group->index, memory_order_acquire);
    free(index);
    free(group->procs);
    gcm_mpi_handle_free(group);
}

/* Drops one reference (the predefined empty group has none to drop). */
void gcm_mpi_group_release(MPI_Group group)
{
    if (group->predefined != 0) {
        return;
    }
    if (atomic_fetch_sub_explicit(&group->refcount, 1,
                                  memory_order_acq_rel) == 1) {
        group_destroy(group);
    }
}

/* ---- process -> rank lookup ---------------------------------------------- */

static int entry_cmp(const void *a, const void *b)
{
    const gcm_mpi_group_entry_t *ea = a;
    const gcm_mpi_group_entry_t *eb = b;

    if (ea->proc < eb->proc) {
        return -1;
    }
    return (ea->proc > eb->proc) ? 1 : 0;
}

/* The sorted index of an array group, or NULL if memory ran out (the
 * caller then scans: slower, but never wrong). */
static const gcm_mpi_group_entry_t *group_index(MPI_Group group)
{
    gcm_mpi_group_entry_t *index, *expected = NULL;
    int r;

    index = atomic_load_explicit(&group->index, memory_order_acquire);
    if (index != NULL) {
        return index;
    }
    index = malloc((size_t)group->size * sizeof(*index));
    if (index == NULL) {
        return NULL;
    }
    for (r = 0; r < group->size; r++) {
        index[r].proc = group->procs[r];
        index[r].rank = r;
    }
    qsort(index, (size_t)group->size, sizeof(*index), entry_cmp);
    if (atomic_compare_exchange_strong_explicit(&group->index, &expected,
                                                index, memory_order_acq_rel,
                                                memory_order_acquire) ==
        0) {
        /* Another thread published its index first; use that one. */
        free(index);
        return expected;
    }
    return index;
}

/* The rank of world process proc in group, or MPI_UNDEFINED. */
static int group_rank_of(MPI_Group group, int proc)
{
    const gcm_mpi_group_entry_t *index;
    int lo, hi, r;

    if (group->size == 0) {
        return MPI_UNDEFINED;
    }
    if (group->procs == NULL) {
        long long d = (long long)proc - group->first;

        if ((d % group->stride) != 0) {
            return MPI_UNDEFINED;
        }
        d /= group->stride;
        return (d >= 0 && d < group->size) ? (int)d : MPI_UNDEFINED;
    }
    index = NULL;
    if (group->size > GCM_MPI_GROUP_SCAN_MAX) {
        index = group_index(group);
    }
    if (index == NULL) {
        for (r = 0; r < group->size; r++) {
            if (group->procs[r] == proc) {
                return r;
            }
        }
        return MPI_UNDEFINED;
    }
    lo = 0;
    hi = group->size - 1;
    while (lo <= hi) {
        int mid = lo + (hi - lo) / 2;

        if (index[mid].proc == proc) {
            return index[mid].rank;
        }
        if (index[mid].proc < proc) {
            lo = mid + 1;
        } else {
            hi = mid - 1;
        }
    }
    return MPI_UNDEFINED;
}

/* ---- construction -------------------------------------------------------- */

/*
 * Builds a group of n members from procs (distinct, non-negative). If
 * owned, procs was malloc'ed by the caller and is adopted or freed here,
 * on success and failure alike, to spare a copy. An empty result is
 * MPI_GROUP_EMPTY itself (MPI-3.1 6.3.2 says so for MPI_Group_incl of
 * none; programs compare the results of excl and range_excl of every
 * rank with it too), which MPI_Group_free accepts.
 */
static int group_make(int n, int *procs, int owned, int myproc,
                      const char *call, MPI_Group *group_p)
{
    MPI_Group group;
    int compact = 1, stride = 1, i;

    if (n == 0) {
        if (owned != 0) {
            free(procs);
        }
        *group_p = MPI_GROUP_EMPTY;
        return MPI_SUCCESS;
    }
    group = gcm_mpi_handle_alloc(sizeof(*group));
    if (group == NULL) {
        if (owned != 0) {
            free(procs);
        }
        return gcm_mpi_raise(NULL, MPI_ERR_NO_MEM, call,
                             "out of memory for a group of %d", n);
    }
    if (n >= 2) {
        stride = procs[1] - procs[0];
        for (i = 2; i < n && compact != 0; i++) {
            if (procs[i] - procs[i - 1] != stride) {
                compact = 0;
            }
        }
        /* Distinct members never give stride 0; refuse to encode one so
         * that the O(1) lookup never divides by zero. */
        if (stride == 0) {
            compact = 0;
        }
    }
    group->magic      = GCM_MPI_MAGIC_GROUP;
    group->predefined = 0;
    atomic_init(&group->refcount, 1);
    atomic_init(&group->handles, 1);
    group->size   = n;
    group->myproc = myproc;
    group->first  = (n > 0) ? procs[0] : 0;
    group->stride = (compact != 0) ? stride : 1;
    atomic_init(&group->index, NULL);
    if (n == 0 || compact != 0) {
        group->procs = NULL;
        if (owned != 0) {
            free(procs);
        }
    } else if (owned != 0) {
        group->procs = procs;
    } else {
        group->procs = malloc((size_t)n * sizeof(int));
        if (group->procs == NULL) {
            gcm_mpi_handle_free(group);
            return gcm_mpi_raise(NULL, MPI_ERR_NO_MEM, call,
                                 "out of memory for a group of %d", n);
        }
        memcpy(group->procs, procs, (size_t)n * sizeof(int));
    }
    /* A linear scan here costs no more than the copy did; it keeps the
     * index lazy for groups nobody translates against. */
    group->myrank = MPI_UNDEFINED;
    if (group->procs == NULL) {
        group->myrank = group_rank_of(group, myproc);
    } else {
        for (i = 0; i < n; i++) {
            if (group->procs[i] == myproc) {
                group->myrank = i;
                break;
            }
        }
    }
    *group_p = group;
    return MPI_SUCCESS;
}

/* The process index of this process, as known to the groups an operation
 * derives from (MPI_GROUP_EMPTY knows none). */
static int derived_myproc(MPI_Group group1, MPI_Group group2)
{
    if (group1->predefined == 0) {
        return group1->myproc;
    }
    if (group2 != NULL) {
        return group2->myproc;
    }
    return MPI_UNDEFINED;
}

/* Room for up to n process indices (n may be 0: one int so that malloc
 * never returns a NULL that reads as failure). */
static int *procs_alloc(size_t n, const char *call, int *err)
{
    int *procs = malloc(((n > 0) ? n : 1) * sizeof(int));

    if (procs == NULL) {
        *err = gcm_mpi_raise(NULL, MPI_ERR_NO_MEM, call,
                             "out of memory for %zu ranks", n);
    }
    return procs;
}

/* ---- internal interface (mpi_impl.h) ------------------------------------- */

int gcm_mpi_group_create(int n, const int procs[], int myproc,
                         MPI_Group *group_p)
{
    static const char call[] = "gcm_mpi_group_create";
    int i;

    if (group_p == NULL) {
        return gcm_mpi_raise(NULL, MPI_ERR_ARG, call, "group_p is NULL");
    }
    if (n < 0) {
        return gcm_mpi_raise(NULL, MPI_ERR_ARG, call, "n = %d is negative",
                             n);
    }
    if (n > 0 && procs == NULL) {
        return gcm_mpi_raise(NULL, MPI_ERR_ARG, call,
                             "procs is NULL for %d members", n);
    }
    for (i = 0; i < n; i++) {
        if (procs[i] < 0) {
            return gcm_mpi_raise(NULL, MPI_ERR_ARG, call,
                                 "procs[%d] = %d is not a process index", i,
                                 procs[i]);
        }
    }
    /* The cast drops const only in type: owned = 0 means procs is only
     * read (and copied if it is not a progression). */
    return group_make(n, (int *)(uintptr_t)procs, 0, myproc, call, group_p);
}

int gcm_mpi_group_check(MPI_Group group)
{
    return (group_valid(group) != 0) ? MPI_SUCCESS : MPI_ERR_GROUP;
}

int gcm_mpi_group_proc(MPI_Group group, int rank)
{
    if (group_alive(group) == 0 || rank < 0 || rank >= group->size) {
        return MPI_UNDEFINED;
    }
    return group_proc(group, rank);
}

void gcm_mpi_group_retain(MPI_Group group)
{
    if (group_alive(group) == 0 || group->predefined != 0) {
        return;
    }
    atomic_fetch_add_explicit(&group->refcount, 1, memory_order_relaxed);
}

void gcm_mpi_group_handles_add(MPI_Group group, int delta)
{
    if (group->predefined == 0) {
        atomic_fetch_add_explicit(&group->handles, delta,
                                  memory_order_relaxed);
    }
}

/* ---- size, rank, translation, comparison --------------------------------- */

int PMPI_Group_size(MPI_Group group, int *size)
{
    static const char call[] = "MPI_Group_size";
    int err = check_group_out(group, size, "size", call);

    if (err == MPI_SUCCESS) {
        *size = group->size;
    }
    return err;
}
GCM_MPI_ALIAS(Group_size)

int PMPI_Group_rank(MPI_Group group, int *rank)
{
    static const char call[] = "MPI_Group_rank";
    int err = check_group_out(group, rank, "rank", call);

    if (err == MPI_SUCCESS) {
        *rank = group->myrank;
    }
    return err;
}
GCM_MPI_ALIAS(Group_rank)

int PMPI_Group_translate_ranks(MPI_Group group1, int n, const int ranks1[],
                               MPI_Group group2, int ranks2[])
{
    static const char call[] = "MPI_Group_translate_ranks";
    int err, i;

    err = check_group(group1, call, "group1");
    if (err == MPI_SUCCESS) {
        err = check_group(group2, call, "group2");
    }
    if (err != MPI_SUCCESS) {
        return err;
    }
    if (n < 0) {
        return gcm_mpi_raise(NULL, MPI_ERR_ARG, call, "n = %d is negative",
                             n);
    }
    if (n > 0 && (ranks1 == NULL || ranks2 == NULL)) {
        return gcm_mpi_raise(NULL, MPI_ERR_ARG, call, "%s is NULL",
                             (ranks1 == NULL) ? "ranks1" : "ranks2");
    }
    /* Validate everything before writing, so that an error leaves ranks2
     * as it was (ranks1 and ranks2 may even be the same array). */
    for (i = 0; i < n; i++) {
        if (ranks1[i] != MPI_PROC_NULL &&
            (ranks1[i] < 0 || ranks1[i] >= group1->size)) {
            return gcm_mpi_raise(NULL, MPI_ERR_RANK, call,
                                 "ranks1[%d] = %d is not a rank of group1 "
                                 "(size %d)",
                                 i, ranks1[i], group1->size);
        }
    }
    for (i = 0; i < n; i++) {
        int r = ranks1[i];

        if (r == MPI_PROC_NULL) {
            ranks2[i] = MPI_PROC_NULL;
        } else if (group1 == group2) {
            ranks2[i] = r;
        } else {
            ranks2[i] = group_rank_of(group2, group_proc(group1, r));
        }
    }
    return MPI_SUCCESS;
}
GCM_MPI_ALIAS(Group_translate_ranks)

int gcm_mpi_group_compare(MPI_Group group1, MPI_Group group2)
{
    int r, same_order = 1;

    if (group1 == group2) {
        return MPI_IDENT;
    }
    if (group1->size != group2->size) {
        return MPI_UNEQUAL;
    }
    /* Two progressions of equal size are identical iff they start and
     * step alike: O(1) for world-like groups. */
    if (group1->procs == NULL && group2->procs == NULL &&
        group1->size > 0 && group1->first == group2->first &&
        (group1->size == 1 || group1->stride == group2->stride)) {
        return MPI_IDENT;
    }
    for (r = 0; r < group1->size && same_order != 0; r++) {
        if (group_proc(group1, r) != group_proc(group2, r)) {
            same_order = 0;
        }
    }
    if (same_order != 0) {
        return MPI_IDENT;
    }
    /* Equal sizes and distinct members: same set iff every member of
     * group1 is in group2. */
    for (r = 0; r < group1->size; r++) {
        if (group_rank_of(group2, group_proc(group1, r)) == MPI_UNDEFINED) {
            return MPI_UNEQUAL;
        }
    }
    return MPI_SIMILAR;
}

int PMPI_Group_compare(MPI_Group group1, MPI_Group group2, int *result)
{
    static const char call[] = "MPI_Group_compare";
    int err;

    err = check_group(group1, call, "group1");
    if (err == MPI_SUCCESS) {
        err = check_group(group2, call, "group2");
    }
    if (err != MPI_SUCCESS) {
        return err;
    }
    if (result == NULL) {
        return gcm_mpi_raise(NULL, MPI_ERR_ARG, call, "result is NULL");
    }
    *result = gcm_mpi_group_compare(group1, group2);
    return MPI_SUCCESS;
}
GCM_MPI_ALIAS(Group_compare)

/* ---- set operations ------------------------------------------------------ */

/* Checks the arguments shared by union, intersection and difference. */
static int check_set_args(MPI_Group group1, MPI_Group group2,
                          MPI_Group *newgroup, const char *call)
{
    int err = check_group(group1, call, "group1");

    if (err == MPI_SUCCESS) {
        err = check_group(group2, call, "group2");
    }
    if (err == MPI_SUCCESS && newgroup == NULL) {
        err = gcm_mpi_raise(NULL, MPI_ERR_ARG, call, "newgroup is NULL");
    }
    return err;
}

int PMPI_Group_union(MPI_Group group1, MPI_Group group2,
                     MPI_Group *newgroup)
{
    static const char call[] = "MPI_Group_union";
    int err, *procs, n = 0, r;

    err = check_set_args(group1, group2, newgroup, call);
    if (err != MPI_SUCCESS) {
        return err;
    }
    procs = procs_alloc((size_t)group1->size + (size_t)group2->size, call,
                        &err);
    if (procs == NULL) {
        return err;
    }
    /* All of group1 in its order, then what group2 adds, in its order. */
    for (r = 0; r < group1->size; r++) {
        procs[n++] = group_proc(group1, r);
    }
    for (r = 0; r < group2->size; r++) {
        int p = group_proc(group2, r);

        if (group_rank_of(group1, p) == MPI_UNDEFINED) {
            procs[n++] = p;
        }
    }
    return group_make(n, procs, 1, derived_myproc(group1, group2), call,
                      newgroup);
}
GCM_MPI_ALIAS(Group_union)

/* Members of group1, in group1's order, that are (keep_common) or are not
 * in group2. */
static int group_filter(MPI_Group group1, MPI_Group group2, int keep_common,
                        MPI_Group *newgroup, const char *call)
{
    int err, *procs, n = 0, r;

    err = check_set_args(group1, group2, newgroup, call);
    if (err != MPI_SUCCESS) {
        return err;
    }
    procs = procs_alloc((size_t)group1->size, call, &err);
    if (procs == NULL) {
        return err;
    }
    for (r = 0; r < group1->size; r++) {
        int p     = group_proc(group1, r);
        int found = (group_rank_of(group2, p) != MPI_UNDEFINED);

        if (found == (keep_common != 0)) {
            procs[n++] = p;
        }
    }
    return group_make(n, procs, 1, derived_myproc(group1, group2), call,
                      newgroup);
}

int PMPI_Group_intersection(MPI_Group group1, MPI_Group group2,
                            MPI_Group *newgroup)
{
    return group_filter(group1, group2, 1, newgroup,
                        "MPI_Group_intersection");
}
GCM_MPI_ALIAS(Group_intersection)

int PMPI_Group_difference(MPI_Group group1, MPI_Group group2,
                          MPI_Group *newgroup)
{
    return group_filter(group1, group2, 0, newgroup, "MPI_Group_difference");
}
GCM_MPI_ALIAS(Group_difference)

/* ---- inclusion and exclusion by rank ------------------------------------- */

/* One bit per rank of a group, to find duplicates and excluded ranks in
 * O(n + size) without sorting. */
static uint8_t *bitmap_alloc(int size, const char *call, int *err)
{
    uint8_t *bits = calloc(((size_t)size + 7u) / 8u + 1u, 1);

    if (bits == NULL) {
        *err = gcm_mpi_raise(NULL, MPI_ERR_NO_MEM, call,
                             "out of memory for a group of %d", size);
    }
    return bits;
}

static inline int bit_test_and_set(uint8_t *bits, int r)
{
    uint8_t mask = (uint8_t)(1u << ((unsigned)r % 8u));
    int was      = ((bits[(unsigned)r / 8u] & mask) != 0);

    bits[(unsigned)r / 8u] |= mask;
    return was;
}

static inline int bit_test(const uint8_t *bits, int r)
{
    return ((bits[(unsigned)r / 8u] >> ((unsigned)r % 8u)) & 1u) != 0;
}

/* The arguments incl/excl and range_incl/range_excl share: the group,
 * newgroup, n and the list of n entries (named what). */
static int check_subset_args(MPI_Group group, int n, const void *list,
                             const char *what, MPI_Group *newgroup,
                             const char *call)
{
    int err;

    err = check_group(group, call, "group");
    if (err != MPI_SUCCESS) {
        return err;
    }
    if (newgroup == NULL) {
        return gcm_mpi_raise(NULL, MPI_ERR_ARG, call, "newgroup is NULL");
    }
    if (n < 0) {
        return gcm_mpi_raise(NULL, MPI_ERR_ARG, call, "n = %d is negative",
                             n);
    }
    if (n > 0 && list == NULL) {
        return gcm_mpi_raise(NULL, MPI_ERR_ARG, call, "%s is NULL", what);
    }
    return MPI_SUCCESS;
}

/* Checks group, n, ranks and newgroup of incl/excl and marks the ranks in
 * a new bitmap (*bits_p): each must be a valid, distinct rank. */
static int mark_ranks(MPI_Group group, int n, const int ranks[],
                      MPI_Group *newgroup, const char *call, uint8_t **bits_p)
{
    uint8_t *bits;
    int err, i;

    err = check_subset_args(group, n, ranks, "ranks", newgroup, call);
    if (err != MPI_SUCCESS) {
        return err;
    }
    bits = bitmap_alloc(group->size, call, &err);
    if (bits == NULL) {
        return err;
    }
    /* n > size necessarily repeats or leaves the group, so the loop below
     * reports it before reading more than size + 1 entries. */
    for (i = 0; i < n; i++) {
        int r = ranks[i];

        if (r < 0 || r >= group->size) {
            free(bits);
            return gcm_mpi_raise(NULL, MPI_ERR_RANK, call,
                                 "ranks[%d] = %d is not a rank of the group "
                                 "(size %d)",
                                 i, r, group->size);
        }
        if (bit_test_and_set(bits, r) != 0) {
            free(bits);
            return gcm_mpi_raise(NULL, MPI_ERR_RANK, call,
                                 "rank %d appears twice", r);
        }
    }
    *bits_p = bits;
    return MPI_SUCCESS;
}

/* The members of group whose rank is not marked in bits, in rank order. */
static int group_keep_unmarked(MPI_Group group, const uint8_t *bits,
                               int nmarked, MPI_Group *newgroup,
                               const char *call)
{
    int err, *procs, n = 0, r;

    procs = procs_alloc((size_t)(group->size - nmarked), call, &err);
    if (procs == NULL) {
        return err;
    }
    for (r = 0; r < group->size; r++) {
        if (bit_test(bits, r) == 0) {
            procs[n++] = group_proc(group, r);
        }
    }
    return group_make(n, procs, 1, derived_myproc(group, NULL), call,
                      newgroup);
}

int PMPI_Group_incl(MPI_Group group, int n, const int ranks[],
                    MPI_Group *newgroup)
{
    static const char call[] = "MPI_Group_incl";
    uint8_t *bits = NULL;
    int err, *procs, i;

    err = mark_ranks(group, n, ranks, newgroup, call, &bits);
    if (err != MPI_SUCCESS) {
        return err;
    }
    free(bits);
    procs = procs_alloc((size_t)n, call, &err);
    if (procs == NULL) {
        return err;
    }
    for (i = 0; i < n; i++) {
        procs[i] = group_proc(group, ranks[i]);
    }
    return group_make(n, procs, 1, derived_myproc(group, NULL), call,
                      newgroup);
}
GCM_MPI_ALIAS(Group_incl)

int PMPI_Group_excl(MPI_Group group, int n, const int ranks[],
                    MPI_Group *newgroup)
{
    static const char call[] = "MPI_Group_excl";
    uint8_t *bits = NULL;
    int err;

    err = mark_ranks(group, n, ranks, newgroup, call, &bits);
    if (err != MPI_SUCCESS) {
        return err;
    }
    err = group_keep_unmarked(group, bits, n, newgroup, call);
    free(bits);
    return err;
}
GCM_MPI_ALIAS(Group_excl)

/* ---- inclusion and exclusion by ranges ----------------------------------- */

/* How many ranks the triplet (first, last, stride) names: first,
 * first + stride, ... up to last. stride != 0 and the triplet runs towards
 * last (checked by the caller). */
static long long range_count(const int range[3])
{
    return ((long long)range[1] - range[0]) / range[2] + 1;
}

/*
 * Checks the arguments of range_incl/excl and marks every rank the ranges
 * name in a new bitmap (*bits_p); *total_p is how many. As MPI-3.1 says,
 * a triplet stands for the ranks first + i*stride, i = 0 ..
 * floor((last - first) / stride); each must be a valid rank and all must
 * be distinct. Only the ranks named must be valid, not last itself: (0, 9,
 * 4) in a group of 9 names 0, 4 and 8.
 */
static int mark_ranges(MPI_Group group, int n, int ranges[][3],
                       MPI_Group *newgroup, const char *call,
                       uint8_t **bits_p, int *total_p)
{
    uint8_t *bits;
    long long total = 0;
    int err, i;

    err = check_subset_args(group, n, ranges, "ranges", newgroup, call);
    if (err != MPI_SUCCESS) {
        return err;
    }
    /* Shape and bounds of every triplet first, in O(n): a triplet may
     * name billions of ranks, which must be refused without walking. */
    for (i = 0; i < n; i++) {
        int first = ranges[i][0], last = ranges[i][1], stride = ranges[i][2];
        long long end;

        if (stride == 0) {
            return gcm_mpi_raise(NULL, MPI_ERR_ARG, call,
                                 "ranges[%d] = (%d, %d, %d) has stride 0", i,
                                 first, last, stride);
        }
        if ((stride > 0 && first > last) || (stride < 0 && first < last)) {
            /* The standard's formula names no rank then; MPICH and Open
             * MPI refuse such triplets, and so do we: it is a bug in the
             * caller far more often than a wish for nothing. */
            return gcm_mpi_raise(NULL, MPI_ERR_ARG, call,
                                 "ranges[%d] = (%d, %d, %d) steps away from "
                                 "its last rank",
                                 i, first, last, stride);
        }
        end = (long long)first + (range_count(ranges[i]) - 1) * stride;
        if (first < 0 || first >= group->size || end < 0 ||
            end >= group->size) {
            return gcm_mpi_raise(NULL, MPI_ERR_RANK, call,
                                 "ranges[%d] = (%d, %d, %d) names rank %lld, "
                                 "not a rank of the group (size %d)",
                                 i, first, last, stride,
                                 (first < 0 || first >= group->size)
                                     ? (long long)first
                                     : end,
                                 group->size);
        }
        total += range_count(ranges[i]);
        if (total > group->size) {
            /* All ranks valid, yet more than size of them: some repeat;
             * the walk below names one. Stop adding to avoid overflow. */
            break;
        }
    }
    bits = bitmap_alloc(group->size, call, &err);
    if (bits == NULL) {
        return err;
    }
    /* Every triplet now names valid ranks; with total capped near size the
     * walk stops at the first repeat, so it is O(size) at most. */
    total = 0;
    for (i = 0; i < n; i++) {
        long long k, count = range_count(ranges[i]);

        for (k = 0; k < count; k++) {
            int r = (int)(ranges[i][0] + k * ranges[i][2]);

            if (bit_test_and_set(bits, r) != 0) {
                free(bits);
                return gcm_mpi_raise(NULL, MPI_ERR_RANK, call,
                                     "rank %d appears twice (again in "
                                     "ranges[%d])",
                                     r, i);
            }
            total++;
        }
    }
    *bits_p  = bits;
    *total_p = (int)total;
    return MPI_SUCCESS;
}

int PMPI_Group_range_incl(MPI_Group group, int n, int ranges[][3],
                          MPI_Group *newgroup)
{
    static const char call[] = "MPI_Group_range_incl";
    uint8_t *bits = NULL;
    int err, *procs, total = 0, m = 0, i;

    err = mark_ranges(group, n, ranges, newgroup, call, &bits, &total);
    if (err != MPI_SUCCESS) {
        return err;
    }
    free(bits);
    procs = procs_alloc((size_t)total, call, &err);
    if (procs == NULL) {
        return err;
    }
    /* The order of the ranges, then of each triplet, as MPI_Group_incl
     * on the expanded list would give. */
    for (i = 0; i < n; i++) {
        long long k, count = range_count(ranges[i]);

        for (k = 0; k < count; k++) {
            int r = (int)(ranges[i][0] + k * ranges[i][2]);

            procs[m++] = group_proc(group, r);
        }
    }
    return group_make(m, procs, 1, derived_myproc(group, NULL), call,
                      newgroup);
}
GCM_MPI_ALIAS(Group_range_incl)

int PMPI_Group_range_excl(MPI_Group group, int n, int ranges[][3],
                          MPI_Group *newgroup)
{
    static const char call[] = "MPI_Group_range_excl";
    uint8_t *bits = NULL;
    int err, total = 0;

    err = mark_ranges(group, n, ranges, newgroup, call, &bits, &total);
    if (err != MPI_SUCCESS) {
        return err;
    }
    err = group_keep_unmarked(group, bits, total, newgroup, call);
    free(bits);
    return err;
}
GCM_MPI_ALIAS(Group_range_excl)

/* ---- freeing ------------------------------------------------------------- */

int PMPI_Group_free(MPI_Group *group)
{
    static const char call[] = "MPI_Group_free";
    int err, n;

    if (group == NULL) {
        return gcm_mpi_raise(NULL, MPI_ERR_ARG, call, "group is NULL");
    }
    err = check_group(*group, call, "*group");
    if (err != MPI_SUCCESS) {
        return err;
    }
    /* MPI_GROUP_EMPTY, which every empty result is, is never released
     * (MPICH also lets it be freed: programs free every group they were
     * given). Any other: one handle fewer. A free beyond the handles
     * given out (a stale copy racing this one) is refused: it would drop
     * a reference a communicator holds. Communicators built on the group
     * keep their own references; the object goes when the last of them
     * does. */
    if ((*group)->predefined == 0) {
        n = atomic_load_explicit(&(*group)->handles, memory_order_relaxed);
        do {
            if (n <= 0) {
                return gcm_mpi_raise(NULL, MPI_ERR_GROUP, call,
                                     "*group is not a valid group (freed "
                                     "already, or never a group)");
            }
        } while (!atomic_compare_exchange_weak_explicit(
                     &(*group)->handles, &n, n - 1, memory_order_relaxed,
                     memory_order_relaxed));
        gcm_mpi_group_release(*group);
    }
    *group = MPI_GROUP_NULL;
    return MPI_SUCCESS;
}
GCM_MPI_ALIAS(Group_free)
