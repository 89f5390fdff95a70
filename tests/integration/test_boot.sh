#!/bin/sh
# tests/integration/test_boot.sh: every value from a PMI-1 launcher is
# checked at init (pmi_liar: a launcher that lies, scenario by scenario:
# a clear error from gcm_init, never a crash or an endless wait), and a
# rank's children inherit none of the library's descriptors, so that one
# started with system() or fork and exec cannot talk to the launcher in
# the rank's name (boot_child job).
# Exit status: 0 passed, 1 failed, 77 skipped.
set -u
. "${top_srcdir:-.}/tests/lib.sh"
LIAR=$builddir/tests/integration/pmi_liar
CHILD=$builddir/tests/integration/boot_child
need_progs "$gcrun" "$LIAR" "$CHILD"
unset GENCOMM_BOOT PMI_FD PMI_RANK PMI_SIZE
limit=60

for s in good rank_ge_size rank_garbage size_negative size_zero \
         fd_garbage fd_closed fd_not_socket long_line no_newline bad_rc \
         bad_maxes empty_kvsname long_kvsname; do
    run "launcher scenario $s" "$LIAR" "$s" "$CHILD"
done

# With shared memory, and without (UCX connections made at run time).
for shm in 1 0; do
    GENCOMM_SHM=$shm run "a rank's children, GENCOMM_SHM=$shm" \
        "$gcrun" -n 2 "$CHILD" job && expect_line "boot_child: OK"
done
[ $status -eq 0 ] && echo "ok: launcher values checked, children apart"
finish
