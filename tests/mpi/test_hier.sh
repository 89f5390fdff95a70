#!/bin/sh
# tests/mpi/test_hier.sh: tests/mpi/hier_basic under gcrun's emulated
# hosts (--hosts, --nodes), balanced, unbalanced and interleaved, and on
# the real machine with hwloc's levels. Each line gives hier_basic the
# host name gcrun should give each rank.
set -u
. "${top_srcdir:-.}/tests/lib.sh"
prog="${top_builddir:-.}/tests/mpi/hier_basic"
# The host names must come from gcrun (or gethostname), not from outside.
unset GENCOMM_HOSTNAME
me=$(hostname)

# hier WHAT EXPECTED-HOSTS [exact] -- GCRUN-OPTIONS...
hier() {
    _what=$1
    _hosts=$2
    _mode=$3
    shift 4
    # shellcheck disable=SC2086 # an empty mode is no argument
    run "hier_basic $_what" "$gcrun" --tag-output "$@" "$prog" "$_hosts" \
        $_mode
}

n0="$me-node0"
n1="$me-node1"
n2="$me-node2"
hier "--nodes 2 -n 5 (3+2)" "$n0,$n0,$n0,$n1,$n1" exact -- \
    --bind-to none --nodes 2 -n 5
hier "--hosts a,a,b,b,b" "a,a,b,b,b" exact -- \
    --bind-to none --hosts a,a,b,b,b -n 5
hier "--hosts a,b,a,b (interleaved)" "a,b,a,b" exact -- \
    --bind-to none --hosts a,b,a,b -n 4
# cluster:node names: a cluster level above the hosts.
hier "--hosts foo:00,foo:01,bar:00,bar:01" "foo:00,foo:01,bar:00,bar:01" \
    exact -- --bind-to none --hosts foo:00,foo:01,bar:00,bar:01 -n 4
hier "--hosts foo:00,foo:00,foo:01,bar:00,baz:00 (a cluster of one)" \
    "foo:00,foo:00,foo:01,bar:00,baz:00" exact -- \
    --bind-to none --hosts foo:00,foo:00,foo:01,bar:00,baz:00 -n 5
hier "--hosts a:0,b:0,c:0 (no cluster has two hosts: no level)" \
    "a:0,b:0,c:0" exact -- --bind-to none --hosts a:0,b:0,c:0 -n 3
hier "--hosts a,b,c -n 6 (block-wise)" "a,a,b,b,c,c" exact -- \
    --bind-to none --hosts a,b,c -n 6
hier "--hosts 3+1+2" "a,a,a,b,c,c" exact -- \
    --bind-to none --hosts a,a,a,b,c,c -n 6
hier "--nodes 3 -n 3 (one per host)" "$n0,$n1,$n2" exact -- \
    --nodes 3 -n 3
hier "-n 1 --hosts solo" "solo" exact -- --hosts solo -n 1
# The real machine: hwloc's levels with gcrun's default binding.
hier "-n 2 default binding" "$me,$me" "" -- -n 2
hier "-n 4 default binding" "$me,$me,$me,$me" "" -- -n 4
hier "--nodes 2 -n 4 default binding" "$n0,$n0,$n1,$n1" "" -- --nodes 2 -n 4
# Round-robin binding: with 2 cores, ranks 0 and 2 share core 0 and 1 and
# 3 core 1, so the core level splits the host (world, host, core, self).
ncores=$(lscpu -p=CORE 2>/dev/null | grep -v '^#' | sort -u | grep -c .)
if [ "$ncores" = 2 ]; then
    depth=maxdepth=3
else
    depth=""
fi
hier "--bind-to core -n 4 (a core level on 2 cores)" "$me,$me,$me,$me" \
    "$depth" -- --bind-to core -n 4
export GENCOMM_HIER_HWLOC=0
hier "-n 3 GENCOMM_HIER_HWLOC=0" "$me,$me,$me" exact -- -n 3
finish
