/*
 * coll/coll_config.c: coll/'s settings: which algorithm each collective
 * runs (GENCOMM_COLL_*, word lists made from the X-macros of
 * coll_impl.h) and the thresholds of the automatic choice.
 */
#include "config.h"

#include "coll/coll_impl.h"

gcm_coll_config_t gcm_coll_config;

static const gcm_config_entry_t gcm_coll_config_entries[] = {
    GCM_CFG_WORDS("GENCOMM_COLL_HIER",
                  GCM_COLL_CHOICE_WORDS(GCM_COLL_HIER_CHOICES),
                  gcm_coll_config.hier,
                  "hierarchical collectives (node, leaders, node): auto "
                  "when a communicator spans several nodes and some node "
                  "holds several of its members; 0 never; 1 always"),
    GCM_CFG_WORDS("GENCOMM_COLL_BARRIER",
                  GCM_COLL_CHOICE_WORDS(GCM_COLL_BARRIER_CHOICES),
                  gcm_coll_config.barrier, "barrier algorithm"),
    GCM_CFG_WORDS("GENCOMM_COLL_BCAST",
                  GCM_COLL_CHOICE_WORDS(GCM_COLL_BCAST_CHOICES),
                  gcm_coll_config.bcast, "broadcast algorithm"),
    GCM_CFG_WORDS("GENCOMM_COLL_REDUCE",
                  GCM_COLL_CHOICE_WORDS(GCM_COLL_REDUCE_CHOICES),
                  gcm_coll_config.reduce,
                  "reduce algorithm (rabenseifner: commutative operators "
                  "only)"),
    GCM_CFG_WORDS("GENCOMM_COLL_ALLREDUCE",
                  GCM_COLL_CHOICE_WORDS(GCM_COLL_ALLREDUCE_CHOICES),
                  gcm_coll_config.allreduce,
                  "allreduce algorithm (rabenseifner: commutative "
                  "operators only)"),
    GCM_CFG_WORDS("GENCOMM_COLL_REDUCE_SCATTER",
                  GCM_COLL_CHOICE_WORDS(GCM_COLL_RS_CHOICES),
                  gcm_coll_config.reduce_scatter,
                  "reduce_scatter algorithm (recursive_halving: "
                  "commutative operators only)"),
    GCM_CFG_WORDS("GENCOMM_COLL_SCAN",
                  GCM_COLL_CHOICE_WORDS(GCM_COLL_SCAN_CHOICES),
                  gcm_coll_config.scan, "scan and exscan algorithm"),
    GCM_CFG_WORDS("GENCOMM_COLL_GATHER",
                  GCM_COLL_CHOICE_WORDS(GCM_COLL_GATHER_CHOICES),
                  gcm_coll_config.gather, "gather and scatter algorithm"),
    GCM_CFG_WORDS("GENCOMM_COLL_ALLGATHER",
                  GCM_COLL_CHOICE_WORDS(GCM_COLL_ALLGATHER_CHOICES),
                  gcm_coll_config.allgather,
                  "allgather algorithm (recursive_doubling: powers of two "
                  "only)"),
    GCM_CFG_WORDS("GENCOMM_COLL_ALLTOALL",
                  GCM_COLL_CHOICE_WORDS(GCM_COLL_ALLTOALL_CHOICES),
                  gcm_coll_config.alltoall, "alltoall algorithm"),
    GCM_CFG("GENCOMM_COLL_BCAST_LARGE", GCM_STR(GCM_COLL_BCAST_LARGE),
            GCM_CFG_SIZE, gcm_coll_config.bcast_large,
            "broadcasts of this many bytes and more over more than "
            "GENCOMM_COLL_BCAST_LINEAR_MAX processes: scatter + allgather"),
    GCM_CFG("GENCOMM_COLL_REDUCE_LARGE", GCM_STR(GCM_COLL_REDUCE_LARGE),
            GCM_CFG_SIZE, gcm_coll_config.reduce_large,
            "reduce and allreduce of this many bytes and more: recursive "
            "halving (Rabenseifner) for commutative operators"),
    GCM_CFG("GENCOMM_COLL_GATHER_LARGE", GCM_STR(GCM_COLL_GATHER_LARGE),
            GCM_CFG_SIZE, gcm_coll_config.gather_large,
            "gather/scatter blocks of this many bytes and more: linear"),
    GCM_CFG("GENCOMM_COLL_GATHER_LINEAR_MAX",
            GCM_STR(GCM_COLL_GATHER_LINEAR_MAX), GCM_CFG_INT,
            gcm_coll_config.gather_linear_max,
            "gather/scatter over at most this many processes: linear (the "
            "root sends to or receives from each), whatever their size"),
    GCM_CFG("GENCOMM_COLL_ALLGATHER_LARGE",
            GCM_STR(GCM_COLL_ALLGATHER_LARGE), GCM_CFG_SIZE,
            gcm_coll_config.allgather_large,
            "allgather of this many bytes in all and more: ring"),
    GCM_CFG("GENCOMM_COLL_ALLGATHER_POF2_LARGE",
            GCM_STR(GCM_COLL_ALLGATHER_POF2_LARGE), GCM_CFG_SIZE,
            gcm_coll_config.allgather_pof2_large,
            "allgather over a power of two of processes of this many bytes "
            "in all and more: ring (below: recursive doubling)"),
    GCM_CFG("GENCOMM_COLL_ALLTOALL_SMALL", GCM_STR(GCM_COLL_ALLTOALL_SMALL),
            GCM_CFG_SIZE, gcm_coll_config.alltoall_small,
            "alltoall blocks of at most this many bytes: Bruck"),
    GCM_CFG("GENCOMM_COLL_SCAN_LINEAR_MAX",
            GCM_STR(GCM_COLL_SCAN_LINEAR_MAX), GCM_CFG_INT,
            gcm_coll_config.scan_linear_max,
            "scans over at most this many processes: linear pipeline"),
    GCM_CFG("GENCOMM_COLL_BCAST_LINEAR_MAX",
            GCM_STR(GCM_COLL_BCAST_LINEAR_MAX), GCM_CFG_INT,
            gcm_coll_config.bcast_linear_max,
            "broadcasts over at most this many processes: linear (the "
            "root sends to each), whatever their size"),
    GCM_CFG("GENCOMM_COLL_REDUCE_TREE_MAX",
            GCM_STR(GCM_COLL_REDUCE_TREE_MAX), GCM_CFG_INT,
            gcm_coll_config.reduce_tree_max,
            "reduce over at most this many processes: binomial tree at "
            "every size"),
    GCM_CFG("GENCOMM_COLL_REDUCE_SMALL", GCM_STR(GCM_COLL_REDUCE_SMALL),
            GCM_CFG_SIZE, gcm_coll_config.reduce_small,
            "reduce of at most this many bytes over 3 to "
            "GENCOMM_COLL_REDUCE_TREE_MAX processes: linear (each straight "
            "to the root)"),
    GCM_CFG("GENCOMM_COLL_REDUCE_FOLD_MAX", GCM_STR(GCM_COLL_REDUCE_FOLD_MAX),
            GCM_CFG_SIZE, gcm_coll_config.reduce_fold_max,
            "binomial reduce below this many bytes: each child's vector "
            "read by its parent alone and combined as it lands; from it on "
            "the child may copy a share (same host)"),
    GCM_CFG_RANGE("GENCOMM_COLL_REDUCE_SHARE_FOLD",
                  GCM_STR(GCM_COLL_REDUCE_SHARE_FOLD),
                  gcm_coll_config.reduce_share_fold, 0, 1,
                  "binomial reduce from GENCOMM_COLL_REDUCE_FOLD_MAX bytes "
                  "on: 1 combines the parent's own pieces of a child's "
                  "vector as they land and the child's share once it is "
                  "in, 0 the whole vector once it is in"),
    GCM_CFG("GENCOMM_COLL_ALLGATHER_LINEAR_MAX",
            GCM_STR(GCM_COLL_ALLGATHER_LINEAR_MAX), GCM_CFG_INT,
            gcm_coll_config.allgather_linear_max,
            "allgather below GENCOMM_COLL_ALLGATHER_LARGE over at most "
            "this many processes: linear (every block to every process "
            "at once)"),
    GCM_CFG("GENCOMM_COLL_ALLTOALL_LINEAR_MAX",
            GCM_STR(GCM_COLL_ALLTOALL_LINEAR_MAX), GCM_CFG_INT,
            gcm_coll_config.alltoall_linear_max,
            "alltoall over at most this many processes: linear (every "
            "block posted at once)"),
    GCM_CFG("GENCOMM_COLL_ALLTOALL_PAIRWISE_MIN",
            GCM_STR(GCM_COLL_ALLTOALL_PAIRWISE_MIN), GCM_CFG_INT,
            gcm_coll_config.alltoall_pairwise_min,
            "alltoall blocks above GENCOMM_COLL_ALLTOALL_SMALL: pairwise "
            "over at least this many processes, linear over fewer"),
    GCM_CFG("GENCOMM_COLL_BARRIER_LINEAR_MAX",
            GCM_STR(GCM_COLL_BARRIER_LINEAR_MAX), GCM_CFG_INT,
            gcm_coll_config.barrier_linear_max,
            "barriers over 3 to this many processes: linear (gather at "
            "rank 0, then release)"),
    GCM_CFG("GENCOMM_COLL_SEGMENT", GCM_STR(GCM_COLL_SEGMENT),
            GCM_CFG_SIZE, gcm_coll_config.segment,
            "piece size of the pipelined scan (bytes)"),
    GCM_CFG("GENCOMM_COLL_ALLREDUCE_STAGED_MIN",
            GCM_STR(GCM_COLL_ALLREDUCE_STAGED_MIN), GCM_CFG_SIZE,
            gcm_coll_config.allreduce_staged_min,
            "blocking allreduces of this many bytes and more between 2 "
            "processes of one host (predefined operator and type, "
            "GENCOMM_COLL_ALLREDUCE=auto): through a shared staging area "
            "of the pair; 0 never"),
};
GCM_CONFIG_REGISTER(coll, gcm_coll_config_entries)
