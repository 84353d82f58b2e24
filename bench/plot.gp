# SPDX-License-Identifier: GPL-2.0
# plot.gp - bar chart of a bench run (called by scripts/bench.sh):
#   gnuplot -e "dir='bench/out/<run>'; out='bench/results.png'; ttl='...'" bench/plot.gp
# Reads dir/plot-{insn,mbps}-v{4,6}.dat: one row per cell, columns stock offload module
# ("-" = not measured). Clear rows carry their value in the first column.
# Top row: guest instructions per payload byte (native-equivalent, the measure);
# bottom row: TCG throughput (secondary).
if (!exists("dir")) dir = "."
if (!exists("out")) out = "results.png"
if (!exists("ttl")) ttl = "esp_swoffload benchmark"
if (!exists("fams")) fams = "4 6"

if (strstrt(GPVAL_TERMINALS, "pngcairo") > 0) {
	set terminal pngcairo size 1500,1000 font "sans,10" noenhanced
} else {
	set terminal png size 1500,1000 noenhanced
}
set output out
set datafile missing "-"
set style data histogram
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set boxwidth 0.9
set grid ytics
set key below horizontal maxrows 1
set logscale y
set xtics scale 0 font ",9"
set multiplot layout 2,words(fams) title ttl

# bar i (0..2) of cluster k is centred at k + (i-1)*0.25 with 3 bars and gap 1
lab(c) = (valid(c) ? sprintf("%.0f", column(c)) : "")
lab1(c) = (valid(c) ? sprintf("%.1f", column(c)) : "")

do for [fam in fams] {
	f = sprintf("%s/plot-insn-v%s.dat", dir, fam)
	set title sprintf("IPv%s guest instructions per payload byte, both ends (native-equivalent; log scale, lower is better)", fam)
	set yrange [0.5:*]	# clear TCP with TSO on is under 1
	plot f using 2:xtic(1) title "stock esp4/6 (clear rows: no IPsec)" lc rgb "#888888", \
	     '' using 3 title "+ esp4/6_offload" lc rgb "#e69f00", \
	     '' using 4 title "+ esp_swoffload" lc rgb "#0072b2", \
	     '' using ($0-0.25):2:(lab1(2)) with labels offset 0,0.6 font ",8" notitle, \
	     '' using ($0):3:(lab1(3)) with labels offset 0,0.6 font ",8" notitle, \
	     '' using ($0+0.25):4:(lab1(4)) with labels offset 0,0.6 font ",8" notitle
}
do for [fam in fams] {
	f = sprintf("%s/plot-mbps-v%s.dat", dir, fam)
	set title sprintf("IPv%s throughput under TCG, Mbit/s (secondary; log scale, higher is better)", fam)
	set yrange [1:*]
	plot f using 2:xtic(1) title "stock esp4/6 (clear rows: no IPsec)" lc rgb "#888888", \
	     '' using 3 title "+ esp4/6_offload" lc rgb "#e69f00", \
	     '' using 4 title "+ esp_swoffload" lc rgb "#0072b2", \
	     '' using ($0-0.25):2:(lab(2)) with labels offset 0,0.6 font ",8" notitle, \
	     '' using ($0):3:(lab(3)) with labels offset 0,0.6 font ",8" notitle, \
	     '' using ($0+0.25):4:(lab(4)) with labels offset 0,0.6 font ",8" notitle
}
unset multiplot
