#!/bin/sh
# tests/mpi/test_graph.sh: tests/mpi/graph_write draws known structures
# with MPIX_Comm_graph_write; the DOT files are parsed here and their
# LCOs (record nodes) and edges counted against the structure: n LCOs and
# n*n edges for an intracommunicator of n, send slot i of rank p reaching
# receive slot p of rank i in the world, a+b LCOs and 2ab edges that
# all cross between the groups for an intercommunicator of a and b.
# Then GENCOMM_GRAPH_DIR draws every communicator a program makes, and
# gcm_lco_graph_write draws native LCOs, merged by gencomm_info.
. "${top_srcdir:-.}/tests/lib.sh"
prog=$builddir/tests/mpi/graph_write
need_progs "$prog"
unset GENCOMM_GRAPH_DIR
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gcm_graph.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT INT TERM

# count FILE: "LCOS EDGES PROCESS-CLUSTERS STUBS" of a DOT file.
count() {
    awk '/ \[label=<<TABLE/ { n++ } / -> / { e++ }
        /subgraph cluster_p[0-9]+ \{/ { c++ } /shape=box/ { s++ }
        END { printf "%d %d %d %d\n", n, e, c, s }' "$1"
}

# check WHAT FILE LCOS EDGES PROCESSES
check() {
    if [ ! -s "$2" ]; then
        fail "$1: $2 was not written"
        return
    fi
    got=$(count "$2")
    want="$3 $4 $5 0"
    if [ "$got" != "$want" ]; then
        fail "$1: $2 has (LCOs edges processes stubs) $got, expected $want"
        return
    fi
    head -1 "$2" | grep -q '^digraph gencomm {$' || fail "$1: not a digraph"
    tail -1 "$2" | grep -q '^}$' || fail "$1: not closed"
    echo "ok: $1 ($got)"
}

# Every edge of a world graph: L<p>_..:s<i> -> L<q>_..:r<j> with q = i,
# j = p; and no two edges alike.
world_edges() {
    sed -n 's/^ *"L\([0-9]*\)_[^"]*":s\([0-9]*\) -> "L\([0-9]*\)_[^"]*":r\([0-9]*\);$/\1 \2 \3 \4/p' "$1" |
        awk '$3 != $2 || $4 != $1 { bad++ } { seen[$0]++ }
            END { for (k in seen) if (seen[k] > 1) bad++; exit bad > 0 }'
}

# Edges of an intercommunicator between the ranks of even and odd world
# rank: every edge crosses (the processes' parities differ).
inter_edges() {
    sed -n 's/^ *"L\([0-9]*\)_[^"]*":s[0-9]* -> "L\([0-9]*\)_[^"]*":r[0-9]*;$/\1 \2/p' "$1" |
        awk '($1 % 2) == ($2 % 2) { bad++ } END { exit bad > 0 }'
}

for n in 1 2 4 5; do
    rm -rf "${tmp:?}"/*
    run "graph_write -n $n" "$gcrun" -n "$n" --bind-to none "$prog" "$tmp"
    check "world of $n" "$tmp/world.dot" "$n" $((n * n)) "$n"
    world_edges "$tmp/world.dot" ||
        fail "world of $n: an edge does not reach its rank's receive slot"
    check "dup of $n" "$tmp/dup.dot" "$n" $((n * n)) "$n"
    even=$(((n + 1) / 2))
    odd=$((n / 2))
    check "split of $n, even ranks" "$tmp/split0.dot" "$even" \
        $((even * even)) "$even"
    if [ "$odd" -gt 0 ]; then
        check "split of $n, odd ranks" "$tmp/split1.dot" "$odd" \
            $((odd * odd)) "$odd"
        check "intercommunicator $even+$odd" "$tmp/inter.dot" "$n" \
            $((2 * even * odd)) "$n"
        inter_edges "$tmp/inter.dot" ||
            fail "intercommunicator of $n: an edge stays inside a group"
    fi
    check "host communicator of $n" "$tmp/node-0.dot" "$n" $((n * n)) "$n"
    check "MPI_COMM_SELF of $n" "$tmp/self-0.dot" 1 1 1
done

# Two emulated hosts: a host communicator per host.
rm -rf "${tmp:?}"/*
run "graph_write --nodes 2 -n 5" "$gcrun" --nodes 2 -n 5 --bind-to none \
    "$prog" "$tmp"
check "host communicator of host 0 (3 of 5)" "$tmp/node-0.dot" 3 9 3
check "host communicator of host 1 (2 of 5)" "$tmp/node-3.dot" 2 4 2

# GENCOMM_GRAPH_DIR: one file per communicator made (the world, each
# process's MPI_COMM_SELF, the duplicate, the two halves, the
# intercommunicator), none without it.
rm -rf "${tmp:?}"/*
mkdir "$tmp/auto" "$tmp/out"
GENCOMM_GRAPH_DIR=$tmp/auto run "GENCOMM_GRAPH_DIR, -n 4" \
    "$gcrun" -n 4 --bind-to none "$prog" "$tmp/out"
files=$(ls "$tmp/auto" | grep -c '^comm-.*\.dot$')
[ "$files" -eq 9 ] || fail "GENCOMM_GRAPH_DIR: $files files, expected 9"
world=$(grep -l 'label="MPI_COMM_WORLD"' "$tmp/auto"/*.dot)
if [ -n "$world" ]; then
    check "GENCOMM_GRAPH_DIR's MPI_COMM_WORLD" "$world" 4 16 4
else
    fail "GENCOMM_GRAPH_DIR: no file of MPI_COMM_WORLD"
fi
rm -rf "${tmp:?}/auto"/*
run "no GENCOMM_GRAPH_DIR, -n 2" "$gcrun" -n 2 --bind-to none "$prog" \
    "$tmp/out"
[ -z "$(ls "$tmp/auto")" ] || fail "files written without GENCOMM_GRAPH_DIR"

# A folder that cannot be written: a warning, never a failure.
GENCOMM_GRAPH_DIR=$tmp/missing run "GENCOMM_GRAPH_DIR not a folder" \
    "$gcrun" -n 2 --bind-to none "$prog" "$tmp/out"
printf '%s\n' "$out" | grep -q "warning: GENCOMM_GRAPH_DIR: cannot open" ||
    fail "no warning for a GENCOMM_GRAPH_DIR that cannot be written"

# The native writer (tests/integration/lco_graph.c checks its output and
# errors in each process).
native=$builddir/tests/integration/lco_graph
info=$builddir/tools/gencomm_info
need_progs "$native" "$info" "$builddir/examples/two_senders"
for n in 2 3; do
    run "lco_graph -n $n" "$gcrun" -n "$n" --bind-to none "$native"
    printf '%s\n' "$out" | grep -q '^lco_graph: all checks passed$' ||
        fail "lco_graph -n $n: no pass line"
done

# The seed's Figure 1(e) from its example: each process draws its LCO,
# gencomm_info --graph-merge joins them. Two senders' send slot 0 reach
# receive slots 0 and 1 of the receiver; drawn alone, a sender's file
# names the receiver only (a stub).
run "two_senders --graph" "$gcrun" -n 3 --bind-to none \
    "$builddir/examples/two_senders" --graph "$tmp/f1e"
run "gencomm_info --graph-merge" "$info" --graph-merge "$tmp"/f1e.*.dot
printf '%s\n' "$out" >"$tmp/f1e.dot"
check "Figure 1(e) merged" "$tmp/f1e.dot" 3 2 3
for s in 1:0 2:1; do
    grep -q "^ *\"L${s%:*}_[^\"]*\":s0 -> \"L0_[^\"]*\":r${s#*:};\$" \
        "$tmp/f1e.dot" || fail "Figure 1(e): P${s%:*} does not reach r${s#*:}"
done
[ "$(count "$tmp/f1e.1.0.dot")" = "1 1 1 1" ] ||
    fail "a sender drawn alone: $(count "$tmp/f1e.1.0.dot"), expected 1 1 1 1"
# Descriptions that do not add up are refused, whatever the file says.
printf '      // lco 0 0 16 1 2 0 0 0 16 1 0\n' >"$tmp/bad.dot"
expect "--graph-merge of a short description" 1 "$info" --graph-merge \
    "$tmp/bad.dot"
printf '%s\n' "$out" | grep -q "bad.dot:1: not an LCO's description" ||
    fail "the short description is not named"
printf '      // lco 0 0 16 1 1 0 0 0 16 1 99999999\n' >"$tmp/bad.dot"
expect "--graph-merge of an impossible receive slot" 1 "$info" \
    --graph-merge "$tmp/bad.dot"
printf '%s\n' "$out" | grep -q "impossible receive slot" ||
    fail "the impossible receive slot is not named"

# Graphviz reads what we write, where it is installed.
if command -v dot >/dev/null 2>&1; then
    run "dot reads a world graph" dot -Tsvg -o "$tmp/world.svg" \
        "$tmp/out/world.dot"
fi
finish
