#!/bin/sh
# Job benchmark (issue 18): N ranks of SIZE MB against one rank, and a
# directory of many summary files.
#
#   bench/jobs.sh [-n RANKS] [-s SIZE_MB] [-m SUMMARIES] [-o OUTDIR] [-b OPSCOPE] [-r REPEATS]
#
#   -n RANKS      ranks of the job (default 8)
#   -s SIZE_MB    size of each rank's trace (default 300; MB = 10^6 bytes of JSON)
#   -m SUMMARIES  summary files of the second measurement (default 1024)
#   -o OUTDIR     where the traces and summaries are written and kept
#                 (default bench/out/jobs, git-ignored)
#   -b OPSCOPE    binary to time (default: a release build in build-bench/)
#   -r REPEATS    runs per measurement, best time kept (default 1)
#
# The ranks are one real rank (tests/data/ranks/sampled_rank-0.json.gz, HTA's)
# grown with SHARED/tools/scale_trace.py ($OPSCOPE_SHARED, else ../shared) and
# copied once per rank with its distributedInfo rank set, so each load does
# the same work. Prints the load average and how fast the machine hands out
# fresh memory (bench/fresh_memory.py), then wall seconds and peak RSS
# (bench/measure.py) of: one rank's `report`, the same rank as a job of one
# (`report --by rank DIR`), the N ranks, the N ranks with -j 1; and of
# `report --by rank` on M copies of one rank's summary file (`opscope
# summary` of the unscaled rank, two ProfilerSteps), with the ratios the
# issue asks for: N ranks over one rank (job and plain), peak RSS over the
# ranks' total size.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
ranks=8 size=300 sums=1024 outdir="$root/bench/out/jobs" bin="" repeats=1
while getopts n:s:m:o:b:r:h opt; do
	case $opt in
	n) ranks=$OPTARG ;;
	s) size=$OPTARG ;;
	m) sums=$OPTARG ;;
	o) outdir=$OPTARG ;;
	b) bin=$OPTARG ;;
	r) repeats=$OPTARG ;;
	*) sed -n '2,24s/^# \{0,1\}//p' "$0"; exit 2 ;;
	esac
done
shared=${OPSCOPE_SHARED:-$root/../shared}
scale=${SCALE_TRACE:-$shared/tools/scale_trace.py}
src="$root/tests/data/ranks/sampled_rank-0.json.gz"
[ -f "$scale" ] || { echo "bench: scale_trace.py not found (set SCALE_TRACE)" >&2; exit 2; }
if [ -z "$bin" ]; then
	[ -f "$root/build-bench/build.ninja" ] ||
		meson setup "$root/build-bench" "$root" --buildtype=release >/dev/null
	ninja -C "$root/build-bench" src/cli/opscope >/dev/null
	bin="$root/build-bench/src/cli/opscope"
fi
measure() { python3 "$here/measure.py" -r "$repeats" -- "$@" 2>&1 >/dev/null | tail -n 1; }

job="$outdir/ranks-$ranks-x$size"
one="$outdir/one-x$size"
mkdir -p "$job" "$one"
base="$outdir/base-${size}MB.json"
if [ ! -f "$base" ]; then
	echo "bench: scaling $(basename "$src") to $size MB" >&2
	python3 "$scale" "$src" "$base.tmp" --target-mb "$size" >/dev/null
	mv "$base.tmp" "$base"
fi
r=0
while [ "$r" -lt "$ranks" ]; do
	[ -f "$job/rank$r.json" ] ||
		sed "3s/\"rank\":0/\"rank\":$r/" "$base" >"$job/rank$r.json"
	r=$((r + 1))
done
[ -e "$one/rank0.json" ] || ln -s "$job/rank0.json" "$one/rank0.json"
total=$(cat "$job"/rank*.json | wc -c)

sumdir="$outdir/summaries-$sums"
if [ ! -f "$sumdir/rank$((sums - 1)).csv" ]; then
	mkdir -p "$sumdir"
	"$bin" summary "$src" 2>/dev/null >"$outdir/summary0.csv"
	python3 - "$outdir/summary0.csv" "$sumdir" "$sums" <<'PY'
import csv, io, sys
rows = list(csv.reader(open(sys.argv[1], newline="")))
for r in range(int(sys.argv[3])):
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    w.writerow(rows[0])
    for row in rows[1:]:
        row[3] = str(r)
        w.writerow(row)
    open("%s/rank%d.csv" % (sys.argv[2], r), "w").write(out.getvalue())
PY
fi

echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
python3 "$here/fresh_memory.py"
cat "$job"/rank*.json "$sumdir"/*.csv >/dev/null
set -- $(measure "$bin" report --format csv "$job/rank0.json"); plain_s=$1 plain_rss=$2
set -- $(measure "$bin" report --by rank --format csv "$one"); one_s=$1 one_rss=$2
set -- $(measure "$bin" report --by rank --format csv "$job"); all_s=$1 all_rss=$2
set -- $(measure "$bin" report -j 1 --by rank --format csv "$job"); j1_s=$1 j1_rss=$2
set -- $(measure "$bin" report --by rank --format csv "$sumdir"); sum_s=$1 sum_rss=$2
awk -v ps="$plain_s" -v pr="$plain_rss" -v os="$one_s" -v or="$one_rss" -v as="$all_s" \
    -v ar="$all_rss" -v js="$j1_s" -v jr="$j1_rss" -v ss="$sum_s" -v sr="$sum_rss" \
    -v n="$ranks" -v mb="$size" -v m="$sums" -v tot="$total" 'BEGIN {
	printf "%-44s %8s %9s\n", "measurement", "wall s", "RSS MB"
	printf "%-44s %8.2f %9.0f\n", "one rank: report", ps, pr
	printf "%-44s %8.2f %9.0f\n", "one rank as a job: report --by rank", os, or
	printf "%-44s %8.2f %9.0f\n", n " ranks x " mb " MB: report --by rank", as, ar
	printf "%-44s %8.2f %9.0f\n", n " ranks, -j 1", js, jr
	printf "%-44s %8.2f %9.0f\n", m " summary files: report --by rank", ss, sr
	printf "ratios: %d ranks / one rank as a job %.2fx, / one rank report %.2fx; " \
	       "peak RSS / ranks size %.2fx\n", n, as / os, as / ps, ar * 1048576 / tot
}'
