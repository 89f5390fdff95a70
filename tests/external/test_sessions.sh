#!/bin/sh
# tests/external/test_sessions.sh: MPI-4 sessions (tests/external/
# ext_sessions) on emulated cluster:node hosts: the process sets with
# listings 1, 3 and 4, MPI_Init and sessions in one program, and
# MPI_Session_init failing on every process, each saying why, when the
# definitions cannot be parsed or differ between processes.
set -u
. "${top_srcdir:-.}/tests/lib.sh"
srcdir=${top_srcdir:-.}
prog="$builddir/tests/external/ext_sessions"
wrap="$srcdir/tests/external/per_rank.sh"
listings="$srcdir/tests/external/listings"
broken="$srcdir/tests/external/broken"
unset GENCOMM_HOSTNAME GENCOMM_EXTERNAL

L8=foo:00,foo:01,foo:02,foo:03,bar:00,bar:01,bar:02,bar:03
L6=foo:01,foo:00,foo:01,bar:00,bar:00,bar:02
L5=foo:00,foo:01,foo:02,bar:01,bar:00

# sessions MODE LAYOUT FILES [TEXT]: FILES gives each rank its file;
# with MODE initfail every process must say why.
sessions() {
    on_hosts "ext_sessions $1 on $2" "$2" "$wrap" GENCOMM_EXTERNAL "$3" \
        "$prog" "$1" ${4:+"$4"} </dev/null &&
        { [ "$1" != initfail ] ||
              expect_count "$nhosts" "failed as expected"; }
}

# each FILE N: FILE N times, comma-separated.
each() {
    i=0
    list=""
    while [ $i -lt "$2" ]; do
        list="$list${list:+,}$1"
        i=$((i + 1))
    done
    echo "$list"
}

sessions 1 "$L8" "$(each "$listings/listing1.xml" 8)"
sessions 1 "$L6" "$(each "$listings/listing1.xml" 6)"
sessions 3 "$L8" "$(each "$listings/listing3.xml" 8)"
sessions 3 "$L5" "$(each "$listings/listing3.xml" 5)"
sessions 4 "$L8" "$(each "$listings/listing4.xml" 8)"
# bar's processes alternate between two nodes: the set's order is the
# placed one, crossing once (3 times in the order given).
sessions 4 foo:00,bar:00,foo:01,bar:01,foo:00,bar:00,foo:01,bar:01 \
    "$(each "$listings/listing4.xml" 8)" 1
sessions mix "$L5" "$(each "$listings/listing1.xml" 5)"
sessions initfail "$L5" "$(each "$broken/not-well-formed.xml" 5)" \
    "not-well-formed.xml:6: Opening and ending tag mismatch"
sessions initfail "$L5" \
    "$(each "$listings/listing1.xml" 4),$listings/listing4.xml" \
    "read different definitions"
finish
