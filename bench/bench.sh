#!/bin/sh
# Load-time benchmark: opscope vs Python's json.load and gzip -dc on scaled real traces.
#
#   bench/bench.sh [-s SIZES_MB] [-o OUTDIR] [-b OPSCOPE] [-r REPEATS] [-t TRACES] [-z] [-P MB]
#
#   -s SIZES_MB sizes of the scaled traces, e.g. "300 1000 4000" (default 300;
#               MB = 10^6 bytes of JSON)
#   -z          also time gzip'd copies of each, made with gzip -1 and gzip -6
#               (the level users get by default) and kept; GZ_LEVELS="1 6"
#               picks the levels
#   -P MB       skip python above this size (default 2000: json.load needs
#               about 5x the file in memory, more than a 24 GB box has at 4 GB)
#   -o OUTDIR   where scaled traces are written and kept (default bench/out,
#               git-ignored); an existing file of the same name is reused
#   -b OPSCOPE  binary to time (default: build a release one in build-bench/)
#   -r REPEATS  runs per measurement, best time kept (default 1)
#   -t TRACES   which to run: kineto, ort or "kineto ort" (default both)
#
# The traces are real ones from SHARED/traces scaled up with
# SHARED/tools/scale_trace.py (copies of whole iterations with shifted times
# and fresh correlation ids), SHARED being $OPSCOPE_SHARED, else ../shared
# next to the checkout: Kineto from HTA's trace_diff/control (35 MB, 6
# ProfilerSteps, GPU kernels) and ORT from generated/ort-bert-mini-dyn-opt.json
# (33 model_run). Override with KINETO_SRC / ORT_SRC and SCALE_TRACE.
#
# Prints the load average and how fast the machine hands out fresh memory
# (bench/fresh_memory.py: page faults can cost more than the parse), then
# one table: file, size MB, events, opscope s
# (`report --format csv`), python s (`json.load`), their ratio, gzip -dc s
# (gz rows: opscope s / gzip s in the ratio column, marked "gz"), opscope
# peak RSS MB and RSS/size (size uncompressed). Events are counted by opscope
# info (kept events + metadata). Times are the best of REPEATS, measured in
# the same run; compare ratios, not seconds, across machines.
# Peak RSS comes from the child's rusage (bench/measure.py), so GNU time is
# not needed. Runs on a 2-core 24 GB machine: python json.load of the 300 MB
# Kineto trace peaks at about 1.5 GB, opscope under 0.3 GB; scaling takes
# about a minute per trace the first time. ratio = python s / opscope s.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
size=300
outdir="$root/bench/out"
bin=""
repeats=1
which="kineto ort"
gz=0
pymax=2000
while getopts s:o:b:r:t:zP:h opt; do
	case $opt in
	s) size=$OPTARG ;;
	z) gz=1 ;;
	P) pymax=$OPTARG ;;
	o) outdir=$OPTARG ;;
	b) bin=$OPTARG ;;
	r) repeats=$OPTARG ;;
	t) which=$OPTARG ;;
	*) sed -n '2,32s/^# \{0,1\}//p' "$0"; exit 2 ;;
	esac
done

shared=${OPSCOPE_SHARED:-$root/../shared}
scale=${SCALE_TRACE:-$shared/tools/scale_trace.py}
kineto_src=${KINETO_SRC:-$shared/traces/hta/trace_diff/control.json.gz}
ort_src=${ORT_SRC:-$shared/traces/generated/ort-bert-mini-dyn-opt.json}
[ -f "$scale" ] || { echo "bench: scale_trace.py not found (set SCALE_TRACE)" >&2; exit 2; }

if [ -z "$bin" ]; then
	if [ ! -f "$root/build-bench/build.ninja" ]; then
		meson setup "$root/build-bench" "$root" --buildtype=release >/dev/null
	fi
	ninja -C "$root/build-bench" src/cli/opscope >/dev/null
	bin="$root/build-bench/src/cli/opscope"
fi
[ -x "$bin" ] || { echo "bench: $bin is not executable" >&2; exit 2; }
mkdir -p "$outdir"

measure() { python3 "$here/measure.py" -r "$repeats" -- "$@" 2>&1 >/dev/null | tail -n 1; }

rows=""
for mb in $size; do
for kind in $which; do
	case $kind in
	kineto) src=$kineto_src ;;
	ort) src=$ort_src ;;
	*) echo "bench: unknown trace kind $kind" >&2; exit 2 ;;
	esac
	[ -f "$src" ] || { echo "bench: $src missing, skipping $kind" >&2; continue; }
	f="$outdir/$kind-${mb}MB.json"
	if [ ! -f "$f" ]; then
		echo "bench: scaling $(basename "$src") to $mb MB -> $f" >&2
		python3 "$scale" --target-mb "$mb" -q "$src" "$f.tmp"
		mv "$f.tmp" "$f"
	fi
	bytes=$(stat -c %s "$f")
	events=$("$bin" info "$f" 2>/dev/null | awk '/^events/ { gsub(/[^0-9]/, "", $2); print $2; exit }')
	[ -n "$events" ] || events=0
	echo "bench: timing $f" >&2
	cat "$f" >/dev/null # same page-cache state for every tool
	set -- $(measure "$bin" report --format csv "$f")
	o_s=$1 o_rss=$2
	p_s=-
	if [ "$mb" -le "$pymax" ]; then
		set -- $(measure python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$f")
		p_s=$1
	fi
	rows="$rows$(basename "$f") $bytes $events $o_s $p_s - $o_rss
"
	[ "$gz" = 1 ] || continue
	for level in ${GZ_LEVELS:-1 6}; do
		g="$outdir/$kind-${mb}MB-gz$level.json.gz"
		if [ ! -f "$g" ]; then
			echo "bench: gzip -$level $f" >&2
			gzip -"$level" -c "$f" >"$g.tmp" && mv "$g.tmp" "$g"
		fi
		cat "$g" >/dev/null
		set -- $(measure "$bin" report --format csv "$g")
		o_s=$1 o_rss=$2
		set -- $(measure gzip -dc "$g")
		rows="$rows$(basename "$g") $bytes $events $o_s - $1 $o_rss
"
	done
done
done

echo "load average: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores"
python3 "$here/fresh_memory.py"
printf '%s' "$rows" | awk '
BEGIN { printf "%-28s %8s %10s %10s %9s %8s %9s %12s %8s\n", "file", "size MB", "events",
	"opscope s", "python s", "ratio", "gzip -dc", "peak RSS MB", "RSS/size" }
NF == 7 { mb = $2 / 1e6
	if ($5 != "-") ratio = sprintf("%.1fx", $5 / $4)
	else if ($6 != "-") ratio = sprintf("gz %.2f", $4 / $6)
	else ratio = "-"
	printf "%-28s %8.1f %10d %10.2f %9s %8s %9s %12.1f %8.2f\n", $1, mb, $3, $4, $5,
		ratio, $6, $7, $7 / mb }'
