# bench/plot.gp: draw bench/results/latest.csv (written by bench/run).
#
# gnuplot -e "csv='bench/results/latest.csv'; out='latest.png'" bench/plot.gp
#
# Top: one-way latency and bandwidth against message size (the 0-byte
# latency cannot sit on a log axis: it is in the table only), and the
# message rate against the number of threads per process. Bottom: allreduce
# and bcast against size at 2 (solid) and 4 (dashed) processes, and both on
# 2 emulated nodes x 2 processes (allreduce solid, bcast dashed). One colour
# per implementation throughout; comm_dup, channel creation, thread latency
# and the other collectives are in the table only. A panel with nothing
# measured says so.

if (!exists("csv")) {
    csv = "bench/results/latest.csv"
}
if (!exists("out")) {
    out = "bench/results/latest.png"
}

# pngcairo draws better; plain png (libgd) is what gnuplot-nox may have.
if (strstrt(GPVAL_TERMINALS, "pngcairo") > 0) {
    set terminal pngcairo size 1500,900 font ",10"
} else {
    set terminal png size 1500,900
}
set output out

# Every implementation, in the order that gives each its colour.
all = "ucx gencomm gencomm-mpi gencomm-mpix gencomm-mpi-flat " \
    . "gencomm-mpi-hier openmpi mpich"
colour(impl) = words(substr(" " . all . " ", 1, \
    strstrt(" " . all . " ", " " . impl . " "))) + 1
set linetype 1 lc rgb "#808080" lw 1.5 pt 1
set linetype 2 lc rgb "#1f4e9c" lw 2 pt 7
set linetype 3 lc rgb "#3d9ad1" lw 2 pt 5
set linetype 4 lc rgb "#6cc6c0" lw 2 pt 9
set linetype 5 lc rgb "#8e44ad" lw 2 pt 11
set linetype 6 lc rgb "#1f4e9c" lw 2 pt 13
set linetype 7 lc rgb "#e06c1f" lw 1.5 pt 4
set linetype 8 lc rgb "#3a9b3a" lw 1.5 pt 6

# The implementations (in that order) with a figure for a benchmark that
# matches the awk regular expression re.
present(re) = system(sprintf("awk -F, -v all='%s' " \
    . "'NR > 1 && $1 ~ /%s/ && $4 != \"\" { have[$3] = 1 } " \
    . "END { n = split(all, a, \" \"); " \
    . "for (i = 1; i <= n; i++) if (a[i] in have) printf \"%%s \", a[i] }' " \
    . "'%s'", all, re, csv))

# Rows of one benchmark and implementation as "size value", size > 0.
rows(bench, impl) = sprintf("< awk -F, '$1==\"%s\" && $3==\"%s\" && $2>0 " \
    . "&& $4 != \"\" {print $2, $4}' '%s'", bench, impl, csv)
# Message-rate rows of one implementation as "threads value".
rate_rows(impl) = sprintf("< awk -F, '$1 ~ /^msgrate_t/ && $3==\"%s\" " \
    . "&& $4 != \"\" {print substr($1, 10), $4}' '%s' | sort -n", impl, csv)

# An empty panel that says why it is empty.
nothing(what) = sprintf("set label 1 '%s: not measured' at graph 0.5, " \
    . "0.5 center; unset border; unset tics; unset xlabel; unset ylabel; " \
    . "unset logscale; set xrange [0:1]; set yrange [0:1]; plot -1 notitle; " \
    . "unset label 1; set border; set tics; set autoscale", what)

set datafile separator whitespace
set grid
set multiplot layout 2,3

# ---- latency and bandwidth against size ----
set title "one-way latency (lower is better)"
L = present("^latency$")
if (words(L) > 0) {
    set logscale x 2
    set format x "%.0b%B"
    set xlabel "message size (bytes)"
    set key top left reverse Left
    set ylabel "microseconds"
    set logscale y
    plot for [i = 1:words(L)] rows("latency", word(L, i)) \
        using 1:2 with linespoints lt colour(word(L, i)) title word(L, i)
} else {
    eval nothing("latency")
}

set title "streaming bandwidth, window of 64 (higher is better)"
L = present("^bandwidth$")
if (words(L) > 0) {
    set logscale x 2
    set format x "%.0b%B"
    set xlabel "message size (bytes)"
    set ylabel "MB/s (1e6 bytes/s)"
    unset logscale y
    set yrange [0:*]
    set key bottom right
    plot for [i = 1:words(L)] rows("bandwidth", word(L, i)) \
        using 1:2 with linespoints lt colour(word(L, i)) title word(L, i)
    set autoscale y
} else {
    eval nothing("bandwidth")
}

# ---- message rate against threads ----
set title "message rate, 8 B, T thread pairs (higher is better)"
L = present("^msgrate_t")
if (words(L) > 0) {
    unset logscale x
    set format x "%g"
    set xtics (1, 2, 4)
    set xrange [0.8:4.2]
    set xlabel "threads per process"
    set ylabel "million messages/s"
    set logscale y
    set key top right
    plot for [i = 1:words(L)] rate_rows(word(L, i)) \
        using 1:2 with linespoints lt colour(word(L, i)) title word(L, i)
    set autoscale x
    set xtics autofreq
} else {
    eval nothing("message rate")
}

# ---- collectives against size ----
by_size = "set logscale x 2; set format x '%.0b%B'; " \
    . "set xlabel 'bytes per process'; " \
    . "set ylabel 'microseconds, slowest rank'; set logscale y; " \
    . "set key top left reverse Left"
nps = "np2 np4"

set title "allreduce: 2 processes solid, 4 dashed (lower is better)"
L = present("^allreduce_np")
if (words(L) > 0) {
    eval by_size
    plot for [i = 1:words(L)] for [j = 1:2] \
        rows("allreduce_" . word(nps, j), word(L, i)) \
        using 1:2 with linespoints lt colour(word(L, i)) dt j \
        title word(L, i) . " " . word(nps, j)
} else {
    eval nothing("allreduce")
}

set title "bcast: 2 processes solid, 4 dashed (lower is better)"
L = present("^bcast_np")
if (words(L) > 0) {
    eval by_size
    plot for [i = 1:words(L)] for [j = 1:2] \
        rows("bcast_" . word(nps, j), word(L, i)) \
        using 1:2 with linespoints lt colour(word(L, i)) dt j \
        title word(L, i) . " " . word(nps, j)
} else {
    eval nothing("bcast")
}

set title "2 emulated nodes x 2: allreduce solid, bcast dashed"
L = present("_2x2$")
ops = "allreduce bcast"
if (words(L) > 0) {
    eval by_size
    plot for [i = 1:words(L)] for [j = 1:2] \
        rows(word(ops, j) . "_2x2", word(L, i)) \
        using 1:2 with linespoints lt colour(word(L, i)) dt j \
        title word(L, i) . " " . word(ops, j)
} else {
    eval nothing("2 nodes x 2")
}

unset multiplot
