#!/bin/sh
# docs/figures/make-figures.sh: draws the seed's figures (Foster,
# Kesselman and Snir 1996: 1c, 1d, 1e, 2 and 3) from the examples that
# build them, through gcm_lco_graph_write and MPIX_Comm_graph_write, and
# renders them with Graphviz. `make figures` runs it from the build tree:
#   make-figures.sh BUILDDIR OUTDIR
# writes OUTDIR/figN.dot and OUTDIR/figN.png (docs/figures/README.md).
set -eu
b=$1
out=$2
gcrun="$b/tools/gcrun"
merge="$b/tools/gencomm_info --graph-merge"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gcm_figures.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
mkdir -p "$out"

# Native examples: each process draws its own LCOs, merged into one.
"$gcrun" -n 4 --bind-to none "$b/examples/master_children" \
    --graph "$tmp/fig1d" >/dev/null
$merge "$tmp"/fig1d.*.dot >"$out/fig1d.dot"
"$gcrun" -n 3 --bind-to none "$b/examples/two_senders" \
    --graph "$tmp/fig1e" >/dev/null
$merge "$tmp"/fig1e.*.dot >"$out/fig1e.dot"
"$gcrun" -n 2 --bind-to none "$b/examples/channel" \
    --graph "$tmp/fig2" >/dev/null
$merge "$tmp"/fig2.*.dot >"$out/fig2.dot"
# MPI examples: the communicator drawn collectively.
"$gcrun" -n 2 --bind-to none "$b/examples/thread_collectives" \
    --graph "$out/fig1c.dot" >/dev/null
"$gcrun" -n 3 --bind-to none "$b/examples/lco_dup" \
    --graph "$out/fig3.dot" >/dev/null

for f in fig1c fig1d fig1e fig2 fig3; do
    dot -Tpng -o "$out/$f.png" "$out/$f.dot"
done
