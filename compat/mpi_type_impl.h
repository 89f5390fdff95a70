/*
 * compat/mpi_type_impl.h: what the files of MPI datatypes (MPI-3.1
 * chapter 4, compat/mpi_type_*.c) share: the type object and the steps
 * that call each other across files.
 *
 * A derived type keeps its constructor arguments (the envelope) and holds a
 * reference to every type it is built from; it costs memory and time in
 * proportion to that description, never to the elements it describes
 * (MPI_Type_vector of INT_MAX blocks is as cheap as of 4). Everything else
 * (size, bounds, element counts, basic kind, type signature, how many
 * blocks one element has at most) is computed once, when it is
 * constructed, from the description by arithmetic on runs (n copies of a
 * child at a stride: mpi_type_layout.c). Its "entries", the runs of one
 * child at a displacement, are what flattening and walking go through.
 *
 * At commit a type of at most GCM_TYPE_FLAT_MAX blocks is flattened into
 * the list of (displacement, length) byte blocks of one element, adjacent
 * blocks merged, so that pack and unpack are a loop of memcpy. Blocks all
 * of one length at one stride (stride) keep only the first, and pack and
 * unpack are a loop of fixed-size copies; a vector of a dense type, or a
 * duplicate or resized copy of a strided type, is strided without being
 * flattened, whatever its count. Any other larger type is not flattened:
 * pack and unpack walk its entries per message (walk).
 *
 * Predefined types are static objects so that they are usable before
 * MPI_Init and in static initialisers.
 */
#ifndef GCM_MPI_TYPE_IMPL_H
#define GCM_MPI_TYPE_IMPL_H

#include "compat/mpi_impl.h"

#include <pthread.h>
#include <stdatomic.h>

/* MPI-3.1 has MPI_COMBINER_HINDEXED_BLOCK; mpi.h lacks it for now. */
#ifndef MPI_COMBINER_HINDEXED_BLOCK
#define MPI_COMBINER_HINDEXED_BLOCK 11
#endif

/* Magic of a handle the user has freed (its object may live on while other
 * types still use it), so that a stale copy of the handle is refused. */
#define GCM_MPI_MAGIC_DEAD 0x44454144u  /* "DEAD" */

/* Entry callbacks return 0 to go on, an MPI error class to fail, or this
 * to stop the walk early without an error. */
#define GCM_TYPE_WALK_STOP (-1)

/* Subarrays of up to this many dimensions are walked without malloc. */
#define GCM_TYPE_SUBARRAY_STACK_DIMS 16

/* Types of more blocks than this are not flattened at commit (1 MiB of
 * blocks): pack and unpack walk them. */
#define GCM_TYPE_FLAT_MAX (1 << 16)

typedef struct gcm_mpi_block {
    MPI_Aint disp;
    MPI_Aint len;
} gcm_mpi_block_t;

struct gcm_mpi_datatype {
    /* Fields are ordered by size so that the object takes 256 bytes, four
     * lines of the handle arena: a loop that builds and frees types pays
     * a page of the arena every 16 of them. */
    uint32_t         magic;
    atomic_int       committed;    /* GCM_MPI_TYPE_COMMITTED (release) once
                                    * blocks are built */
    atomic_int       refcount;     /* user handles + types built on it +
                                    * pending operations */
    /* The user's handles (constructors give one, MPI_Type_get_contents one
     * more); the magic is GCM_MPI_MAGIC_DEAD while there are none. */
    atomic_int       handles;
    uint8_t          predefined;
    uint8_t          explicit_bounds; /* lb/ub set by resize (sticky) */
    uint8_t          dense;        /* one block, and extent == size */
    uint8_t          contig;       /* derived: one block from true_lb */
    uint8_t          walk;         /* committed, not flattened: walked */
    atomic_int       sig_known;    /* sig below is valid */
    gcm_mpi_basic_t  basic;
    int              combiner;
    int              ni;
    int              na;
    int              nd;
    MPI_Count        size;         /* bytes of data in one element */
    MPI_Aint         lb;
    MPI_Aint         ub;           /* extent = ub - lb */
    MPI_Aint         true_lb;
    MPI_Aint         true_ub;
    size_t           align;        /* largest alignment of basic parts */
    MPI_Count        nblocks_max;  /* derived: blocks of one element, at
                                    * most (before merging) */
    MPI_Count        xsize;        /* derived: bytes of one element in
                                    * external32 (mpi_type_external.c) */
    /* MPI_COMBINER_DARRAY: the same layout made of simpler constructors,
     * which layout, flattening and walking go through. */
    struct gcm_mpi_datatype *impl;
    MPI_Count        nelem;        /* basic elements in one element */
    /* derived when first asked for (gcm_mpi_type_sig_of): the hash of
     * one element's type signature (type_sig_*), valid once sig_known */
    _Atomic uint64_t sig;
    MPI_Count        pair_vsize;   /* pair types: bytes of the value part */
    MPI_Count        basic_count;
    int             *ints;
    MPI_Aint        *addrs;
    MPI_Datatype    *types;
    void            *envelope;     /* the one allocation the three are in */
    /* The predefined types' standard names (static); a derived type's
     * name from MPI_Type_set_name (allocated), NULL while it has none. */
    const char      *name;
    struct gcm_mpi_attr_list *attrs;  /* mpi_type_attr.c (mpi_attr.c's) */
    size_t           nblocks;
    gcm_mpi_block_t *blocks;       /* NULL: the blocks are in inl */
    gcm_mpi_block_t  inl[2];
    /* Derived at commit: nonzero when the blocks (at least 2) are all as
     * long as the first and each starts stride bytes after the one before
     * (a vector's layout): pack and unpack step through them instead of
     * reading the list. */
    MPI_Aint         stride;
};

/* A type's committed state. A commit builds the blocks of its type only
 * (it reads its child types, committed or not, and writes none), so two
 * commits of one type take turns through this state, and commits of
 * different types never wait for each other. */
enum {
    GCM_MPI_TYPE_UNCOMMITTED = 0,
    GCM_MPI_TYPE_COMMITTED   = 1,
    GCM_MPI_TYPE_COMMITTING  = 2   /* a commit builds its blocks now */
};

/* A callback of gcm_mpi_type_foreach_entry: n copies of child at disp. */
typedef int (*gcm_mpi_type_entry_fn)(void *ctx,
                                     struct gcm_mpi_datatype *child,
                                     MPI_Aint disp, MPI_Count n);

MPI_Aint gcm_mpi_type_ext(const struct gcm_mpi_datatype *t) GCM_INTERNAL;

/* Address arithmetic goes through integers: buffers may be MPI_BOTTOM
 * (NULL) with absolute displacements, where pointer arithmetic is UB. */
char *gcm_mpi_type_addr(const void *base, MPI_Aint off) GCM_INTERNAL;

const gcm_mpi_block_t *gcm_mpi_type_blocks(const struct gcm_mpi_datatype *t)
    GCM_INTERNAL;

int gcm_mpi_type_is_committed(const struct gcm_mpi_datatype *t) GCM_INTERNAL;

/* 0 if t is a live datatype handle, else why not (for the message). */
const char *gcm_mpi_type_invalid(MPI_Datatype t) GCM_INTERNAL;

int gcm_mpi_type_check_valid(MPI_Datatype t, const char *call) GCM_INTERNAL;

/* Attributes (mpi_type_attr.c): MPI_Type_dup copies them by their copy
 * callbacks (on an error the new type keeps none); the free of a type's
 * last handle deletes them all (the first failing delete callback's code,
 * the others stay). */
int gcm_mpi_type_attr_copy(MPI_Datatype oldtype, MPI_Datatype newtype)
    GCM_INTERNAL;
int gcm_mpi_type_attr_delete_all(MPI_Datatype t) GCM_INTERNAL;

int gcm_mpi_type_check_committed(MPI_Datatype t, const char *call)
    GCM_INTERNAL;

/* Calls fn for each entry of t, in type-map order; stops at the first
 * nonzero return and returns it. */
int gcm_mpi_type_foreach_entry(const struct gcm_mpi_datatype *t,
                               gcm_mpi_type_entry_fn fn,
                               void *ctx) GCM_INTERNAL;

/* The hash of n copies of a sequence of hash h and length len:
 * h * (1 + q + ... + q^(n-1)) with q = B^len, the sum built bit by bit
 * from the top (S(2m) = S(m) * (1 + q^m), S(m + 1) = S(m) * q + 1). */
uint64_t gcm_mpi_type_sig_repeat(uint64_t h, MPI_Count len, MPI_Count n)
    GCM_INTERNAL;

uint64_t gcm_mpi_type_sig_of(const struct gcm_mpi_datatype *t) GCM_INTERNAL;

/* Computes everything but the blocks of t from its envelope. */
int gcm_mpi_type_compute_props(struct gcm_mpi_datatype *t) GCM_INTERNAL;

/* Drops one reference; the last one frees t and its references. */
void gcm_mpi_type_release(struct gcm_mpi_datatype *t) GCM_INTERNAL;

/* The external32 size of one element of a predefined type. */
MPI_Count gcm_mpi_type_named_xsize(const struct gcm_mpi_datatype *t)
    GCM_INTERNAL;

/* A reference on a type built on t (or a user handle's). */
void gcm_mpi_type_retain(struct gcm_mpi_datatype *t) GCM_INTERNAL;

/* A new, empty derived type with room for its envelope. */
struct gcm_mpi_datatype *gcm_mpi_type_alloc(int combiner, int ni, int na,
                                            int nd) GCM_INTERNAL;

/* Finishes a type whose envelope is filled: computes its properties,
 * takes references on its children and hands it out. */
int gcm_mpi_type_finish(struct gcm_mpi_datatype *t, MPI_Datatype *newtype,
                        const char *call) GCM_INTERNAL;

int gcm_mpi_type_no_mem(const char *call) GCM_INTERNAL;

/* Builds the blocks of t (GCM_MPI_TYPE_COMMITTING, by the caller). */
int gcm_mpi_type_build_blocks(struct gcm_mpi_datatype *t) GCM_INTERNAL;
/* How many times the process has built a type's blocks (tests). */
unsigned long gcm_mpi_type_builds(void) GCM_INTERNAL;

/* Basic elements in the first bytes of a packed stream of t elements,
 * counting only elements that are complete. */
MPI_Count gcm_mpi_type_elements(const struct gcm_mpi_datatype *t,
                                MPI_Count bytes) GCM_INTERNAL;

int gcm_mpi_type_check_count(int count, const char *call) GCM_INTERNAL;

int gcm_mpi_type_check_out(const void *p, const char *what, const char *call)
    GCM_INTERNAL;

#endif /* GCM_MPI_TYPE_IMPL_H */
