#!/bin/sh
# tests/integration/test_boot.sh: every value from a PMI-1 launcher is
# checked at init (pmi_liar: a launcher that lies, scenario by scenario:
# a clear error from gcm_init, never a crash or an endless wait), and a
# rank's children inherit none of the library's descriptors, so that one
# started with system() or fork and exec cannot talk to the launcher in
# the rank's name (boot_child job).
# Exit status: 0 passed, 1 failed, 77 skipped.
set -u
builddir=${top_builddir:-.}
GCRUN=$builddir/tools/gcrun
LIAR=$builddir/tests/integration/pmi_liar
CHILD=$builddir/tests/integration/boot_child

for f in "$GCRUN" "$LIAR" "$CHILD"; do
    if [ ! -x "$f" ]; then
        echo "SKIP: $f has not been built"
        exit 77
    fi
done
unset GENCOMM_BOOT PMI_FD PMI_RANK PMI_SIZE
status=0

for s in good rank_ge_size rank_garbage size_negative size_zero \
         fd_garbage fd_closed fd_not_socket long_line no_newline bad_rc \
         bad_maxes empty_kvsname long_kvsname; do
    if ! "$LIAR" "$s" "$CHILD"; then
        echo "FAIL: launcher scenario $s"
        status=1
    fi
done

# With shared memory, and without (UCX connections made at run time).
for shm in 1 0; do
    out=$(GENCOMM_SHM=$shm timeout -k 5 60 "$GCRUN" -n 2 "$CHILD" job 2>&1)
    rc=$?
    echo "$out"
    if [ $rc -ne 0 ] || ! echo "$out" | grep -q "boot_child: OK"; then
        echo "FAIL: a rank's children, GENCOMM_SHM=$shm (exit $rc)"
        status=1
    fi
done
[ $status -eq 0 ] && echo "ok: launcher values checked, children apart"
exit $status
