#!/bin/sh
# tests/check_layers.sh: the layering of docs/design.md ("Headers and the
# allowed skips"), checked on what was built. Every folder of the library
# is a layer; a layer may use itself, the layer just below it and the
# skips the design lists, never a layer above. Two views are checked:
#
#   - the #include "folder/..." lines of each folder's .c and .h files;
#   - the undefined symbols (nm) of each folder's built objects, each
#     matched to the folder whose objects define it.
#
# A UCX header or an undefined UCX symbol (ucp_, ucs_, uct_) above
# threads/ fails too. Folders are read whole, so files added later are
# checked without being listed. Then a self-test builds small trees that
# break each rule and makes sure each is caught, and one that breaks none.
#
# Run from the build directory (automake's test driver does), or set
# top_srcdir and top_builddir. Exit status: 0 pass, 1 fail, 77 skipped.

set -u

srcdir=${top_srcdir:-.}
builddir=${top_builddir:-.}

if ! command -v nm >/dev/null 2>&1; then
    echo "SKIP: nm is not available"
    exit 77
fi

# check_tree SRC BUILD DESIGN: prints each violation, returns 1 if any.
check_tree() {
    src=$1
    build=$2
    design=$3

    rules=$(sed -n 's/^order: *//p; s/^skip: *\([^ ]*\) *-> *\([^ ]*\).*/skip \1 \2/p' "$design")
    order=$(printf '%s\n' "$rules" | sed -n 1p)
    if [ -z "$order" ] || ! printf '%s\n' "$rules" | grep -q '^skip '; then
        echo "check_layers: no 'order:' and 'skip:' lines in $design"
        return 1
    fi

    tmpd=$(mktemp -d "${TMPDIR:-/tmp}/check_layers.XXXXXX") || return 1
    : >"$tmpd/edges"
    : >"$tmpd/incmap"
    : >"$tmpd/defs"
    : >"$tmpd/undefs"
    for layer in $order; do
        if [ ! -d "$src/$layer" ]; then
            echo "check_layers: no folder $src/$layer"
            rm -rf "$tmpd"
            return 1
        fi
        # Includes: "<layer> <used> <file>"; UCX headers count as "ucx".
        for f in "$src/$layer"/*.c "$src/$layer"/*.h; do
            [ -f "$f" ] || continue
            sed -n 's|^[[:space:]]*#[[:space:]]*include[[:space:]]*["<]\([^">]*\)[">].*|\1|p' \
                "$f" | while read -r inc; do
                echo "${f#"$src"/} $inc" >>"$tmpd/incmap"
                case $inc in
                    ucp/* | ucs/* | uct/*) echo "$layer ucx ${f#"$src"/} includes <$inc>" ;;
                    */*) echo "$layer ${inc%%/*} ${f#"$src"/} includes \"$inc\"" ;;
                esac
            done >>"$tmpd/edges"
        done
        # Objects: what each folder defines and what it needs.
        objs=$(find "$build/$layer" -maxdepth 2 -name '*.o' 2>/dev/null)
        if [ -z "$objs" ]; then
            echo "check_layers: no objects under $build/$layer (build first)"
            rm -rf "$tmpd"
            return 1
        fi
        for o in $objs; do
            # Only objects of sources that still exist (a build tree keeps
            # the objects of removed files).
            b=$(basename "$o" .o)
            [ -f "$src/$layer/${b##*-}.c" ] || continue
            nm -P -g --defined-only "$o" 2>/dev/null |
                awk -v l="$layer" '{ print $1, l }' >>"$tmpd/defs"
            nm -P -u "$o" 2>/dev/null |
                awk -v l="$layer" -v o="${o#"$build"/}" '{ print l, $1, o }' \
                    >>"$tmpd/undefs"
        done
    done

    # A header of a lower layer that brings UCX in with it (itself or
    # through the headers it includes) counts as a UCX header.
    awk '{ inc[NR] = $2; file[NR] = $1
           if ($2 ~ /^(ucp|ucs|uct)\//) ucx[$1] = $2 }
         END {
             do {
                 more = 0
                 for (i = 1; i <= NR; i++)
                     if ((inc[i] in ucx) && !(file[i] in ucx)) {
                         ucx[file[i]] = ucx[inc[i]]; more = 1
                     }
             } while (more)
             for (i = 1; i <= NR; i++)
                 if ((inc[i] in ucx) && inc[i] !~ /^(ucp|ucs|uct)\//) {
                     split(file[i], p, "/")
                     print p[1], "ucx", file[i], "includes", inc[i], \
                           "(which brings in <" ucx[inc[i]] ">)"
                 }
         }' "$tmpd/incmap" >>"$tmpd/edges"

    # Symbols: "<layer> <defining layer> <object> uses <symbol>".
    awk 'NR == FNR { if (!($1 in def)) def[$1] = $2; next }
         $2 ~ /^(ucp|ucs|uct)_/ { print $1, "ucx", $3, "uses", $2; next }
         ($2 in def) { print $1, def[$2], $3, "uses", $2 }' \
        "$tmpd/defs" "$tmpd/undefs" >>"$tmpd/edges"

    awk -v rules="$rules" '
        BEGIN {
            nr = split(rules, lines, "\n")
            n = split(lines[1], o, " ")
            for (i = 1; i <= n; i++) rank[o[i]] = i
            for (i = 2; i <= nr; i++) {
                split(lines[i], w, " ")
                if (w[1] == "skip") skip[w[2] " " w[3]] = 1
            }
            bad = 0
        }
        {
            from = $1; to = $2
            what = $3; for (i = 4; i <= NF; i++) what = what " " $i
            if (to == from) next
            if (to == "ucx") {
                if (rank[from] > rank["threads"]) {
                    why = "UCX above threads/"
                } else next
            } else if (!(to in rank)) {
                next
            } else if (rank[to] > rank[from]) {
                why = "upward: " from "/ uses " to "/"
            } else if (rank[to] == rank[from] - 1 || (from " " to) in skip ||
                       ("* " to) in skip) {
                next
            } else {
                why = "unlisted skip: " from "/ uses " to "/"
            }
            key = why
            if (count[key]++ < 3) print "check_layers: " why ": " what
            bad = 1
        }
        END { exit bad }' "$tmpd/edges"
    rc=$?
    rm -rf "$tmpd"
    return $rc
}

# --- the tree that was built ------------------------------------------------

fail=0
if check_tree "$srcdir" "$builddir" "$srcdir/docs/design.md"; then
    echo "ok: the layers of docs/design.md hold (includes and symbols)"
else
    echo "FAIL: the layering of docs/design.md is broken (above)"
    fail=1
fi

# --- self-test: each rule catches what breaks it ----------------------------

cc=${CC:-cc}
if ! command -v "$cc" >/dev/null 2>&1; then
    echo "SKIP (self-test): no C compiler $cc"
    exit $fail
fi
st=$(mktemp -d "${TMPDIR:-/tmp}/check_layers_self.XXXXXX") || exit 1
trap 'rm -rf "$st"' EXIT

cat >"$st/design.md" <<'EOF'
order: util boot threads slots lco coll compat
skip: * -> util
skip: compat -> lco
EOF
# make_tree DIR: a tree whose layers use only what the design allows:
# each the one below, lco/ and compat/ util/ and lco/ by skips.
make_tree() {
    below=
    for l in util boot threads slots lco coll compat; do
        mkdir -p "$1/$l"
        case $l in
            util) body="return 0;" ;;
            lco) body="return gcm_${below}_f() + gcm_util_f();" ;;
            compat) body="return gcm_${below}_f() + gcm_lco_f();" ;;
            *) body="return gcm_${below}_f();" ;;
        esac
        {
            echo "#include \"$l/$l.h\""
            for u in util boot threads slots lco coll compat; do
                echo "int gcm_${u}_f(void);"
            done
            echo "int gcm_${l}_f(void) { $body }"
        } >"$1/$l/$l.c"
        : >"$1/$l/$l.h"
        below=$l
    done
}
compile_tree() {
    for l in util boot threads slots lco coll compat; do
        "$cc" -c -I"$1" -o "$1/$l/$l.o" "$1/$l/$l.c" || return 1
    done
}
# expect NAME SHOULD_PASS DIR
expect() {
    if check_tree "$3" "$3" "$st/design.md" >"$st/out" 2>&1; then got=1; else got=0; fi
    if [ "$got" = "$2" ]; then
        echo "ok (self-test): $1"
    else
        echo "FAIL (self-test): $1"
        cat "$st/out"
        fail=1
    fi
}

make_tree "$st/clean" && compile_tree "$st/clean" || { echo "FAIL: self-test tree does not build"; exit 1; }
expect "a tree that keeps the rules passes" 1 "$st/clean"

cp -r "$st/clean" "$st/up_inc"
echo '#include "coll/coll.h"' >>"$st/up_inc/util/util.h"
expect "an upward #include fails" 0 "$st/up_inc"

cp -r "$st/clean" "$st/skip_inc"
echo '#include "threads/threads.h"' >>"$st/skip_inc/compat/compat.h"
expect "an unlisted skip in an #include fails" 0 "$st/skip_inc"

cp -r "$st/clean" "$st/ucx_inc"
echo '#include <ucp/api/ucp.h>' >>"$st/ucx_inc/slots/slots.h"
expect "a UCX header above threads/ fails" 0 "$st/ucx_inc"

cp -r "$st/clean" "$st/ucx_deep"
echo '#include <ucs/type/status.h>' >>"$st/ucx_deep/threads/threads.h"
echo '#include "threads/threads.h"' >>"$st/ucx_deep/slots/slots.h"
echo '#include "slots/slots.h"' >>"$st/ucx_deep/lco/lco.h"
expect "a UCX header reached through lower layers' headers fails" 0 "$st/ucx_deep"

cp -r "$st/clean" "$st/up_sym"
echo 'int gcm_util_g(void) { return gcm_coll_f(); }' >>"$st/up_sym/util/util.c"
compile_tree "$st/up_sym" 2>/dev/null
expect "an upward symbol fails" 0 "$st/up_sym"

cp -r "$st/clean" "$st/skip_sym"
echo 'int gcm_lco_g(void) { return gcm_boot_f(); }' >>"$st/skip_sym/lco/lco.c"
compile_tree "$st/skip_sym" 2>/dev/null
expect "an unlisted skip in a symbol fails" 0 "$st/skip_sym"

cp -r "$st/clean" "$st/ucx_sym"
echo 'int ucp_init_version(void); int gcm_coll_g(void) { return ucp_init_version(); }' >>"$st/ucx_sym/coll/coll.c"
compile_tree "$st/ucx_sym" 2>/dev/null
expect "a UCX symbol above threads/ fails" 0 "$st/ucx_sym"

exit $fail
