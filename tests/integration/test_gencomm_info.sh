#!/bin/sh
# gencomm_info (tools/gencomm_info.c) against what configure, docs/env.md,
# UCX and hwloc say independently.
. "${top_srcdir:-.}/tests/lib.sh"
srcdir=${top_srcdir:-.}
info=$builddir/tools/gencomm_info
need_progs "$info"

# The version: configure's, the header's macros' and the tool's agree.
version=$(sed -n 's/^#define PACKAGE_VERSION "\(.*\)"$/\1/p' \
    "$builddir/config.h")
hdr=$(for part in MAJOR MINOR PATCH; do
    sed -n "s/^#define GENCOMM_VERSION_$part \([0-9]*\)\$/\1/p" \
        "$srcdir/include/gencomm.h"; done | paste -sd.)
run "gencomm_info --version" "$info" --version
[ "$out" = "gencomm $version" ] ||
    fail "--version says '$out', configure says $version"
[ "$hdr" = "$version" ] ||
    fail "gencomm.h's GENCOMM_VERSION_* say $hdr, configure says $version"

# The build: configure's own record of its options (config.status
# quotes only the words that need it; the comparison drops the quotes).
run "gencomm_info --build" "$info" --build
conf=$(cd "$builddir" && ./config.status --config | tr -d "'")
got=$(printf '%s\n' "$out" | sed -n 's/^configure options: //p' | tr -d "'")
[ "$got" = "$conf" ] ||
    fail "the configure options ($got) are not config.status's ($conf)"
printf '%s\n' "$out" | grep -q "^compiler: " || fail "no compiler line"

# Every setting: each row of docs/env.md is printed with a value, and
# each printed setting is a row of docs/env.md; a value set in the
# environment is the one in force.
GENCOMM_EAGER_LIMIT=4k GENCOMM_COLL_BCAST=linear \
    run "gencomm_info --settings" "$info" --settings
printed=$(printf '%s\n' "$out" | sed -n 's/^\(GENCOMM_[A-Z0-9_]*\)=.*/\1/p' |
    sort -u)
documented=$(sed -n 's/^| `\(GENCOMM_[A-Z0-9_]*\)` |.*/\1/p' \
    "$srcdir/docs/env.md" | sort -u)
[ -n "$printed" ] || fail "no setting printed"
for name in $documented; do
    printf '%s\n' "$printed" | grep -qx "$name" ||
        fail "$name (docs/env.md) is not printed"
done
for name in $printed; do
    printf '%s\n' "$documented" | grep -qx "$name" ||
        fail "$name is printed but not in docs/env.md"
done
printf '%s\n' "$out" | grep -qx 'GENCOMM_EAGER_LIMIT=4096' ||
    fail "GENCOMM_EAGER_LIMIT=4k is not in force as 4096"
printf '%s\n' "$out" | grep -qx 'GENCOMM_COLL_BCAST=linear' ||
    fail "GENCOMM_COLL_BCAST=linear is not in force"
# Each setting comes after its description (a comment line).
printf '%s\n' "$out" | awk '/^GENCOMM_/ && prev !~ /^# / { bad = 1 }
    { prev = $0 } END { exit bad }' ||
    fail "a setting is printed without its description"

# UCX: the version UCX's own tool reports, and transports it opened.
run "gencomm_info --ucx" "$info" --ucx
if command -v ucx_info >/dev/null 2>&1; then
    uv=$(ucx_info -v | sed -n 's/^# Version //p')
    printf '%s\n' "$out" | grep -qxF "UCX version: $uv" ||
        fail "the UCX version is not ucx_info's ($uv)"
fi
printf '%s\n' "$out" | grep -qx 'self/[a-z0-9]*' ||
    fail "no self transport among UCX's resources"

# The hierarchy: as many cores and packages as hwloc's own tool counts.
run "gencomm_info --hierarchy" "$info" --hierarchy
if command -v hwloc-calc >/dev/null 2>&1; then
    for t in Package Core; do
        n=$(hwloc-calc -N "$t" all)
        printf '%s\n' "$out" | grep -q "^level [0-9]*: $t, $n on this host" ||
            fail "gencomm_info does not count $n $t objects (hwloc-calc)"
    done
fi
printf '%s\n' "$out" | grep -q "^level 1: host $(hostname)\$" ||
    fail "the host level does not name $(hostname)"

# Everything at once, and a bad option refused with the usage.
run "gencomm_info" "$info"
for s in build ucx settings hierarchy; do
    printf '%s\n' "$out" | grep -q "^# ---- $s" || fail "no $s section"
done
expect "gencomm_info --bogus" 2 "$info" --bogus
printf '%s\n' "$out" | grep -q "unknown option '--bogus'" ||
    fail "--bogus is not named in the error"
finish
