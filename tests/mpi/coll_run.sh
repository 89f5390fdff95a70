#!/bin/sh
# tests/mpi/coll_run.sh: the helper of test_coll_algos.sh and
# test_coll_hier.sh, sourced. coll_run WHAT 'VAR=VALUE...' 'GCRUN-OPTIONS'
# 'PROGRAM-ARGS' 'EXPECT|...' 'ABSENT|...' runs tests/mpi/coll_algos
# through gcrun with the settings and GENCOMM_LOG_LEVEL=debug; it must exit
# 0, and every EXPECT must appear in coll/'s trace ("coll: EXPECT") and no
# ABSENT. Sets status=1 on failure.
builddir=${top_builddir:-.}
gcrun="$builddir/tools/gcrun"
prog="$builddir/tests/mpi/coll_algos"
status=0

coll_run() {
    what=$1
    vars=$2
    opts=$3
    args=$4
    expect=$5
    absent=$6
    # shellcheck disable=SC2086 # the lists split into words on purpose
    out=$(env GENCOMM_LOG_LEVEL=debug $vars timeout 180 "$gcrun" \
          --bind-to none $opts "$prog" $args 2>&1)
    rc=$?
    bad=""
    if [ $rc -ne 0 ]; then
        bad="exit $rc"
    fi
    old_ifs=$IFS
    IFS='|'
    for e in $expect; do
        if ! printf '%s\n' "$out" | grep -qF "coll: $e"; then
            bad="$bad; no 'coll: $e' in the trace"
        fi
    done
    for e in $absent; do
        if printf '%s\n' "$out" | grep -qF "coll: $e"; then
            bad="$bad; 'coll: $e' in the trace"
        fi
    done
    IFS=$old_ifs
    if [ -n "$bad" ]; then
        echo "FAIL: $what: $bad"
        printf '%s\n' "$out" | grep -v "debug:" | tail -20
        status=1
    else
        echo "ok: $what"
    fi
}
