# bench/plot.gp: draw bench/results/latest.csv (written by bench/run).
#
# gnuplot -e "csv='bench/results/latest.csv'; out='latest.png'" bench/plot.gp
#
# Left: one-way latency against message size; right: bandwidth against
# message size; one line per implementation (gencomm-mpi included: the MPI
# layer), log-scaled size axis; comm_dup is in the table only. The 0-byte
# latency cannot sit on a log axis: it is in the table only.

if (!exists("csv")) {
    csv = "bench/results/latest.csv"
}
if (!exists("out")) {
    out = "bench/results/latest.png"
}

# pngcairo draws better; plain png (libgd) is what gnuplot-nox may have.
if (strstrt(GPVAL_TERMINALS, "pngcairo") > 0) {
    set terminal pngcairo size 1200,500 font ",10"
} else {
    set terminal png size 1200,500
}
set output out

impls = "ucx gencomm gencomm-mpi openmpi mpich"

# Rows of one benchmark and implementation as "size value", size > 0.
rows(bench, impl) = sprintf("< awk -F, '$1==\"%s\" && $3==\"%s\" && $2>0 " \
    . "{print $2, $4}' '%s'", bench, impl, csv)

set datafile separator whitespace
set logscale x 2
set format x "%.0b%B"
set xlabel "message size (bytes)"
set grid
set key top left reverse Left
set multiplot layout 1,2

set title "one-way latency (lower is better)"
set ylabel "microseconds"
set logscale y
plot for [i = 1:words(impls)] rows("latency", word(impls, i)) \
    using 1:2 with linespoints title word(impls, i)

set title "streaming bandwidth, window of 64 (higher is better)"
set ylabel "MB/s (1e6 bytes/s)"
unset logscale y
set yrange [0:*]
set key bottom right
plot for [i = 1:words(impls)] rows("bandwidth", word(impls, i)) \
    using 1:2 with linespoints title word(impls, i)

unset multiplot
