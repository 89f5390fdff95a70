#!/bin/sh
# make fuzz: builds each harness of tests/fuzz/ with libFuzzer, ASan and
# UBSan against the library's sources compiled the same way (so that the
# fuzzer sees the decoders' coverage), then runs each for FUZZ_SECONDS
# over a copy of its seed corpus and prints its executions. Called by
# the fuzz target of tests/fuzz/Makefile.inc with the build's flags in
# the environment: FUZZ_WORKS, FUZZ_CC, FUZZ_SECONDS, FUZZ_RUNS (when
# set, each runs until that many executions instead), FUZZ_TARGETS,
# FUZZ_CPPFLAGS, FUZZ_LIBS, FUZZ_LIB_SOURCES.
#
#     fuzz.sh SRCDIR BUILDDIR
set -u
src=$1
build=$2
out="$build/tests/fuzz/build"
san="-fsanitize=address,undefined -fno-sanitize-recover=undefined"
cflags="-std=gnu11 -g -O1 -fno-omit-frame-pointer -fvisibility=hidden"

if [ "${FUZZ_WORKS:-no}" != yes ]; then
    echo "make fuzz: ${FUZZ_CC:-clang} cannot build libFuzzer fuzzers" \
         "(configure found no clang with -fsanitize=fuzzer; on Debian" \
         "install clang and libclang-rt-14-dev, or set FUZZ_CC, and" \
         "run configure again)" >&2
    exit 1
fi
case "${FUZZ_SECONDS:-}" in
    ''|*[!0-9]*) echo "make fuzz: FUZZ_SECONDS must be a number of" \
                      "seconds" >&2; exit 1 ;;
esac
case "${FUZZ_RUNS:-}" in
    '') limit="-max_total_time=$FUZZ_SECONDS"; what="$FUZZ_SECONDS s" ;;
    *[!0-9]*) echo "make fuzz: FUZZ_RUNS must be a number of" \
                   "executions" >&2; exit 1 ;;
    *) limit="-runs=$FUZZ_RUNS"; what="$FUZZ_RUNS executions" ;;
esac
mkdir -p "$out/lib" || exit 1

# The library, instrumented (rebuilt when a source or config.h is newer).
objs=""
for f in $FUZZ_LIB_SOURCES; do
    case "$f" in *.c) ;; *) continue ;; esac
    o="$out/lib/$(echo "$f" | tr / _ | sed 's/\.c$/.o/')"
    # A source make generates (nodist) lies in the build tree.
    c="$src/$f"
    [ -f "$c" ] || c="$build/$f"
    if [ ! -f "$o" ] || [ "$c" -nt "$o" ] || \
       [ "$build/config.h" -nt "$o" ]; then
        echo "  FUZZCC   $f"
        # shellcheck disable=SC2086
        $FUZZ_CC $cflags $san -fsanitize=fuzzer-no-link $FUZZ_CPPFLAGS \
            -c "$c" -o "$o" || exit 1
    fi
    objs="$objs $o"
done

status=0
for t in $FUZZ_TARGETS; do
    h="$src/tests/fuzz/fuzz_$t.c"
    if [ ! -f "$h" ]; then
        echo "make fuzz: no harness $h" >&2
        exit 1
    fi
    echo "  FUZZLD   tests/fuzz/build/fuzz_$t"
    # shellcheck disable=SC2086
    $FUZZ_CC $cflags $san -fsanitize=fuzzer $FUZZ_CPPFLAGS "$h" $objs \
        $FUZZ_LIBS -o "$out/fuzz_$t" || exit 1
    # The fuzzer adds what it finds to a working copy of the seeds; what
    # crashes is written to $out/crash-$t-*.
    rm -rf "$out/corpus-$t"
    mkdir -p "$out/corpus-$t"
    cp "$src/tests/fuzz/corpus/$t/"* "$out/corpus-$t/" || exit 1
    echo "== fuzz_$t for $what"
    "$out/fuzz_$t" "$limit" -print_final_stats=1 \
        -artifact_prefix="$out/crash-$t-" "$out/corpus-$t" \
        > "$out/fuzz_$t.log" 2>&1
    rc=$?
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' \
                "$out/fuzz_$t.log")
    if [ $rc -eq 0 ]; then
        echo "fuzz_$t: ${execs:-?} executions, nothing found"
    else
        echo "fuzz_$t: FOUND a defect after ${execs:-?} executions" \
             "(exit $rc; log $out/fuzz_$t.log):"
        tail -n 40 "$out/fuzz_$t.log"
        status=1
    fi
done
exit $status
