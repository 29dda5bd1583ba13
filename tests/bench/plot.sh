#!/bin/sh
# tests/bench/plot.sh COLD.DAT MEM.DAT OUTDIR -- the benchmark's plots
# (gnuplot, SVG): OUTDIR/bench-coldstart.svg and OUTDIR/bench-memory.svg,
# against N, log-log.  The .dat files come from report.awk (plot_cold,
# plot_mem): "N baseline capinit s6 runit [the same, privileged]".
set -eu
cold=$1
mem=$2
out=$3
gnuplot <<EOF
set terminal svg size 760,500 dynamic font "sans,12"
set logscale xy
set grid
set key top left
set xlabel "services (N)"
set xtics (10, 100, 1000, 3000)
set style data linespoints

set output "$out/bench-coldstart.svg"
set title "Cold start: supervisor's exec to the last service's record (median)"
set ylabel "ms"
plot "$cold" using 1:2 title "baseline (posix_spawn)" lw 2 pt 7 lc rgb "#555555", \
     "" using 1:3 title "capinit" lw 2 pt 7 lc rgb "#c0392b", \
     "" using 1:4 title "s6" lw 2 pt 7 lc rgb "#2471a3", \
     "" using 1:5 title "runit" lw 2 pt 7 lc rgb "#229954", \
     "" using 1:6 title "baseline + setpriv" dt 2 pt 6 lc rgb "#555555", \
     "" using 1:7 title "capinit, privileged" dt 2 pt 6 lc rgb "#c0392b", \
     "" using 1:8 title "s6 + setpriv" dt 2 pt 6 lc rgb "#2471a3", \
     "" using 1:9 title "runit + setpriv" dt 2 pt 6 lc rgb "#229954"

set output "$out/bench-memory.svg"
set title "Supervision-tree memory: Pss + page tables (median)"
set ylabel "KiB"
plot "$mem" using 1:2 title "baseline" lw 2 pt 7 lc rgb "#555555", \
     "" using 1:3 title "capinit" lw 2 pt 7 lc rgb "#c0392b", \
     "" using 1:4 title "s6" lw 2 pt 7 lc rgb "#2471a3", \
     "" using 1:5 title "runit" lw 2 pt 7 lc rgb "#229954", \
     1024 title "1 MiB" dt 3 lc rgb "#999999"
EOF
