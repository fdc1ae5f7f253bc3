#!/bin/sh
# SQLite load benchmark (issue 19 goal 4): opscope on an nsys-shaped export
# against sqlite3 reading the same rows.
#
#   bench/sqlite.sh [-k KERNELS] [-o OUTDIR] [-b OPSCOPE] [-r REPEATS]
#
#   -k KERNELS  kernels of the export (default 1000000: ~2.4 runtime rows
#               each, ~150 MB; bench/make_nsys_bench_db.py writes it once)
#   -o OUTDIR   where the database is kept (default bench/out, git-ignored)
#   -b OPSCOPE  binary to time (default: a release build in build-bench/)
#   -r REPEATS  runs of each command, best wall time kept (default 5; the
#               two commands alternate so load on the machine hits both)
#
# Prints the load average and how fast the machine hands out fresh memory
# (bench/fresh_memory.py), then wall and CPU seconds and peak RSS of
# `opscope report -F csv DB` and
# of `sqlite3 DB` running the SELECTs the nsys loader runs (same tables,
# columns and StringIds joins, every value read by an aggregate, so no time
# goes to printing rows), then the issue's ratios: opscope wall over
# sqlite3 wall, and opscope peak RSS over the database's size.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
kernels=1000000 outdir="$root/bench/out" bin="" repeats=5
while getopts k:o:b:r:h opt; do
	case $opt in
	k) kernels=$OPTARG ;;
	o) outdir=$OPTARG ;;
	b) bin=$OPTARG ;;
	r) repeats=$OPTARG ;;
	*) sed -n '2,18s/^# \{0,1\}//p' "$0"; exit 2 ;;
	esac
done
if [ -z "$bin" ]; then
	[ -f "$root/build-bench/build.ninja" ] ||
		meson setup "$root/build-bench" "$root" --buildtype=release >/dev/null
	ninja -C "$root/build-bench" src/cli/opscope >/dev/null
	bin="$root/build-bench/src/cli/opscope"
fi
mkdir -p "$outdir"
db="$outdir/nsys-$kernels.sqlite"
if [ ! -f "$db" ]; then
	echo "bench: writing $db" >&2
	python3 "$here/make_nsys_bench_db.py" "$db.tmp" "$kernels"
	mv "$db.tmp" "$db"
fi
sql="$outdir/nsys-read.sql"
cat >"$sql" <<'SQL'
SELECT count(*), max(r.start), max(r.end), max(r.globalTid), max(r.correlationId), max(s.value) FROM CUPTI_ACTIVITY_KIND_RUNTIME r LEFT JOIN StringIds s ON s.id = r.nameId;
SELECT count(*), max(k.start), max(k.end), max(k.deviceId), max(k.streamId), max(k.correlationId), max(k.registersPerThread), max(k.gridX), max(k.gridY), max(k.gridZ), max(k.blockX), max(k.blockY), max(k.blockZ), max(k.staticSharedMemory), max(k.dynamicSharedMemory), max(COALESCE(d.value, s.value)) FROM CUPTI_ACTIVITY_KIND_KERNEL k LEFT JOIN StringIds d ON d.id = k.demangledName LEFT JOIN StringIds s ON s.id = k.shortName;
SELECT count(*), max(c.start), max(c.end), max(c.deviceId), max(c.streamId), max(c.correlationId), max(c.bytes), max(c.copyKind) FROM CUPTI_ACTIVITY_KIND_MEMCPY c;
SELECT count(*), max(n.start), max(n.end), max(n.eventType), max(n.globalTid), max(n.domainId), max(n.text), max(s.value) FROM NVTX_EVENTS n LEFT JOIN StringIds s ON s.id = n.textId WHERE n.eventType IN (34, 59, 60);
SQL

# time1 CMD...: "wall user+sys rss_kib" of one run
time1() {
	/usr/bin/time -f '%e %U %S %M' -o "$outdir/time.txt" "$@" >/dev/null 2>&1
	awk '{ printf "%s %.2f %s\n", $1, $2 + $3, $4 }' "$outdir/time.txt"
}
# best OLD NEW: the run with the lower wall time (RSS: the larger)
best() {
	if [ -z "$1" ]; then echo "$2"; return; fi
	echo "$1 $2" | awk '{ w = $1 < $4 ? $1 : $4; c = $1 < $4 ? $2 : $5;
		r = $3 > $6 ? $3 : $6; print w, c, r }'
}
ours="" theirs=""
i=0
while [ $i -lt "$repeats" ]; do
	ours=$(best "$ours" "$(time1 "$bin" report -F csv "$db")")
	theirs=$(best "$theirs" "$(time1 sqlite3 "$db" ".read $sql")")
	i=$((i + 1))
done
size=$(wc -c <"$db")
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
python3 "$here/fresh_memory.py"
echo "database: $db ($(awk -v s="$size" 'BEGIN { printf "%.1f", s / 1048576 }') MiB)"
printf '%-8s %8s %8s %10s\n' "" wall_s cpu_s rss_MiB
echo "opscope $ours" | awk '{ printf "%-8s %8.2f %8.2f %10.1f\n", $1, $2, $3, $4 / 1024 }'
echo "sqlite3 $theirs" | awk '{ printf "%-8s %8.2f %8.2f %10.1f\n", $1, $2, $3, $4 / 1024 }'
echo "$ours $theirs" | awk -v s="$size" '{
	printf "opscope/sqlite3 wall: %.2fx (goal <= 2)\n", $1 / $4
	printf "opscope RSS / database: %.2fx (goal <= 0.3)\n", $3 * 1024 / s }'
