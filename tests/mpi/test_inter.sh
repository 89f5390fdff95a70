#!/bin/sh
# Intercommunicators: create, merge, dup, and split and create of one, at
# 1 to 4 processes (groups of unequal size at 3). tests/mpi/inter_basic.c.
top_builddir=${top_builddir:-.}
export top_builddir
run="${top_srcdir:-.}/tests/mpi/run_mpi.sh"
sh "$run" "$top_builddir/tests/mpi/inter_basic" 1 2 3 4
