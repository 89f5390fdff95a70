#!/bin/sh
# tests/external/test_listings.sh: the seed's listings (and extras.xml)
# through tests/external/ext_listings, on hosts named cluster:node that
# gcrun --hosts emulates, at 4 to 9 processes and several layouts: the seed's two
# clusters in order, smaller, shuffled with a process in neither
# cluster, two processes on one node, an odd number in foo.
set -u
. "${top_srcdir:-.}/tests/lib.sh"
srcdir=${top_srcdir:-.}
prog="$builddir/tests/external/ext_listings"
listings="$srcdir/tests/external/listings"
unset GENCOMM_HOSTNAME

L8=foo:00,foo:01,foo:02,foo:03,bar:00,bar:01,bar:02,bar:03
L4=foo:00,foo:01,bar:00,bar:01
L9=bar:03,foo:00,baz:00,bar:00,foo:01,foo:03,bar:01,foo:02,bar:02
L6=foo:01,foo:00,foo:01,bar:00,bar:00,bar:02
L5=foo:00,foo:01,foo:02,bar:01,bar:00

# listing WHICH FILE LAYOUT [ARG]
listing() {
    GENCOMM_EXTERNAL="$listings/$2" on_hosts "ext_listings $1 ($2) on $3" \
        "$3" "$prog" "$1" ${4:+"$4"} </dev/null
}

for layout in "$L8" "$L4" "$L9" "$L6"; do
    listing 1 listing1.xml "$layout"
done
for layout in "$L8" "$L5" "$L6" "$L9"; do
    listing 3 listing3.xml "$layout"
done
for layout in "$L8" "$L4" "$L9"; do
    listing 4 listing4.xml "$layout"
done
# Each cluster's processes alternate between its two nodes: in the order
# given each chain crosses between nodes 3 times, placed (reorder="true")
# once.
L8m=foo:00,bar:00,foo:01,bar:01,foo:00,bar:00,foo:01,bar:01
listing 4 listing4.xml "$L8m" 1
L8r=bar:02,foo:00,bar:00,foo:03,foo:01,bar:03,foo:02,bar:01
for layout in "$L8" "$L8r" "$L4" "$L5"; do
    listing 5 listing5.xml "$layout"
done
for layout in "$L8" "$L9"; do
    listing extras extras.xml "$layout"
done
finish
