#!/bin/bash
# The MPI-standard tool names in the build tree: a legacy MPI program builds
# with tools/mpicc (in one step, and with -c then a link), -show and its
# kin print what they would run, and the program runs with tools/mpiexec
# -n N and tools/mpirun -np N without LD_LIBRARY_PATH. Never the plain
# `mpicc` of PATH: Debian's Open MPI or MPICH may own that name.
set -u
b=$(cd "${top_builddir:-.}" && pwd)
s=$(cd "${top_srcdir:-$b}" && pwd)
src="$s/tests/integration/legacy_hello.c"
mpicc="$b/tools/mpicc"
fail=0

work=$(mktemp -d "${TMPDIR:-/tmp}/gencomm-wrappers.XXXXXX")
trap 'rm -rf "$work"' EXIT
unset LD_LIBRARY_PATH

bad() {
    echo "FAIL: $*"
    fail=1
}

for t in mpicc mpicxx mpiexec mpirun; do
    [ -x "$b/tools/$t" ] || bad "$b/tools/$t missing or not executable"
done
[ $fail -eq 0 ] || exit 1

# ---- -show and its kin ------------------------------------------------------

show=$("$mpicc" -show -o prog prog.c)
case $show in
    *" -o prog prog.c "*) ;;
    *) bad "-show does not keep the arguments in place: $show" ;;
esac
# The folders named by -I, -L and the rpath hold what they should (the
# source folders may be spelt relative to the build tree: compare files).
incs=$(tr ' ' '\n' <<<"$show" | sed -n 's/^-I//p')
has() {
    local f=$1 d
    shift
    for d in "$@"; do
        [ -f "$d/$f" ] && return 0
    done
    return 1
}
# shellcheck disable=SC2086
has mpi.h $incs || bad "-show has no -I of mpi.h: $show"
# shellcheck disable=SC2086
has gencomm.h $incs || bad "-show has no -I of gencomm.h: $show"
grep -q -- "-L$b/.libs " <<<"$show" || bad "-show lacks -L: $show"
grep -q -- "-Wl,-rpath,$b/.libs " <<<"$show" || bad "-show lacks rpath: $show"
grep -q -- "-lgencomm$" <<<"$show" || bad "-show does not end in -lgencomm"
[ "$("$mpicc" -showme -o prog prog.c)" = "$show" ] ||
    bad "-showme differs from -show"
[ "$(GENCOMM_CC=clang-nonexistent "$mpicc" -show x.c | cut -d' ' -f1)" = \
    clang-nonexistent ] || bad "GENCOMM_CC is not used"

for opt in -c -E -S -M -MM; do
    out=$("$mpicc" -show $opt x.c)
    case $out in
        *-lgencomm* | *-rpath* | *" -L"*) bad "-show $opt links: $out" ;;
    esac
    grep -q -- " $opt x.c" <<<"$out" || bad "-show $opt drops $opt: $out"
done
out=$("$mpicc" -showme:compile)
case $out in
    *-lgencomm*) bad "-showme:compile has link flags: $out" ;;
    *-I*) ;;
    *) bad "-showme:compile lacks -I: $out" ;;
esac
out=$("$mpicc" -showme:link)
case $out in
    *-lgencomm*) ;;
    *) bad "-showme:link lacks -lgencomm: $out" ;;
esac
"$mpicc" -showme:bogus >/dev/null 2>&1 && bad "-showme:bogus accepted"
out=$("$b/tools/mpicxx" -show -c x.cc)
case $out in
    "c++ "* | "${GENCOMM_CXX:-c++} "*) ;;
    *) bad "mpicxx -show does not run a C++ compiler: $out" ;;
esac

# ---- building -----------------------------------------------------------------

if ! "$mpicc" -std=gnu11 -Wall -Werror -o "$work/hello" "$src"; then
    bad "mpicc could not build legacy_hello.c in one step"
fi
if ! (cd "$work" && "$mpicc" -std=gnu11 -Wall -Werror -c "$src" &&
      [ -f legacy_hello.o ] && "$mpicc" -o hello2 legacy_hello.o); then
    bad "mpicc -c then link failed"
fi
if command -v "${GENCOMM_CXX:-c++}" >/dev/null 2>&1; then
    # C++ sees the C API through extern "C": the same source, as C++.
    if ! "$b/tools/mpicxx" -x c++ -Wall -o "$work/hello_cxx" "$src"; then
        bad "mpicxx could not build legacy_hello.c as C++"
    fi
else
    echo "skip: no C++ compiler for mpicxx"
fi
if readelf -d "$work/hello" 2>/dev/null | grep -q 'R.*PATH.*\.libs'; then
    echo "ok: the program carries an rpath to the build tree"
else
    bad "no rpath to $b/.libs in the program"
fi
[ $fail -eq 0 ] || exit 1
echo "ok: mpicc -show/-showme/-c, building in one step and in two"

# ---- running --------------------------------------------------------------------

run() {
    local what=$1 n=$2 out rc
    shift 2
    out=$(timeout 60 "$@" 2>&1)
    rc=$?
    if [ $rc -ne 0 ]; then
        bad "$what: exit status $rc"; echo "$out"; return
    fi
    if [ "$(grep -c "^hello from rank [0-9]* of $n\$" <<<"$out")" -ne "$n" ]
    then
        bad "$what: expected $n hello lines"; echo "$out"; return
    fi
    echo "ok: $what"
}

run "mpiexec -n 3" 3 "$b/tools/mpiexec" -n 3 "$work/hello" 3
run "mpirun -np 2" 2 "$b/tools/mpirun" -np 2 "$work/hello" 2
run "mpiexec -n 1" 1 "$b/tools/mpiexec" -n 1 "$work/hello2" 1
run "mpiexec -n 4, two-step build" 4 "$b/tools/mpiexec" -n 4 \
    "$work/hello2" 4
if [ -x "$work/hello_cxx" ]; then
    run "mpirun -np 2, C++ build" 2 "$b/tools/mpirun" -np 2 \
        "$work/hello_cxx" 2
fi
out=$("$b/tools/mpiexec" --help 2>&1)
grep -q -- "-np" <<<"$out" || bad "mpiexec --help does not show gcrun's help"
exit $fail
