#!/bin/sh
# Fuzz every loader, the analyses after a load and the option parsers with
# libFuzzer (clang, ASan + UBSan, UB fatal) for a while.
#
#   bench/fuzz.sh [-t SECONDS] [-j JOBS] [TARGET...]
#
#   -t SECONDS  time per target (default 180)
#   -j JOBS     parallel fuzzing jobs per target (default 1)
#   TARGET      chrome, sqlite, pipeline, options, config, summary (default: all)
#
# gzip inputs are inflated by ISA-L when built with it: OPSCOPE_INFLATE=zlib
# in the environment fuzzes zlib's inflater instead.
#
# Builds build-fuzz/ with CC=clang -Dfuzz=true, seeds each target's corpus
# (bench/out/fuzz-corpus/<target>, git-ignored) from $OPSCOPE_SHARED/traces
# (default: ../shared next to the checkout; skipped when absent) and
# samples/ (chrome and pipeline: the traces under 300 kB, gzip ones as they
# are; sqlite: trimmed copies of the nsys and nvprof databases, which
# pipeline gets too; options: a few specs of each option), and runs it:
# fuzz_chrome (trace-event JSON, from a buffer and as a file, which must
# agree), fuzz_sqlite (nsys and nvprof databases),
# fuzz_pipeline (a loaded trace through every level, tree, kernels, what-if
# and diff) and fuzz_options (--runs, --speedup and its CSV, --filter,
# --regex, --run-range), fuzz_config (the configuration file) and
# fuzz_summary (summary files, from a few hand-written ones and
# tests/data/ranks/*.csv). Crashes, leaks, UB and timeouts are written to
# tests/data/crashers/ as <target>-crash-<sha1>; the test suite replays
# every file there through its target (replay_<target>), so commit each one
# together with its fix. Prints each target's executions and findings;
# exits 1 when a target found something.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
secs=180
jobs=1
while getopts t:j:h opt; do
	case $opt in
	t) secs=$OPTARG ;;
	j) jobs=$OPTARG ;;
	*) sed -n '2,30s/^# \{0,1\}//p' "$0"; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
targets=${*:-chrome sqlite pipeline options config summary}

build="$root/build-fuzz"
if [ ! -f "$build/build.ninja" ]; then
	CC=clang meson setup "$build" "$root" -Dfuzz=true -Db_lundef=false >/dev/null
fi
ninja -C "$build" >/dev/null

shared="${OPSCOPE_SHARED:-$root/../shared}/traces"
crashers="$root/tests/data/crashers"
mkdir -p "$crashers"
status=0
cd "$root" # libFuzzer's jobs write fuzz-N.log here (git-ignored)
# Seed a corpus: the small real traces for chrome (and zstd and pzstd copies
# of the plain samples, and gzip copies in two members, cut mid-event); for sqlite, trimmed copies
# of the real databases (schema and the first rows of every table) and the
# bundled gzip'd nvprof sample.
seed() {
	case $1 in
	chrome)
		find "$shared" "$root/samples" -type f \( -name '*.json' -o -name '*.json.gz' \) \
			-size -300k -exec cp {} "$2/" \;
		# two gzip members (the inflaters' member and trailer handling)
		for f in "$root/samples/"*.json; do
			n=$(($(wc -c <"$f") / 2))
			{ head -c "$n" "$f" | gzip -c; tail -c +"$((n + 1))" "$f" | gzip -c; } \
				>"$2/$(basename "$f").2.gz"
		done
		# zstd frames too, when the zstd command is there, and pzstd's (a
		# skippable frame before each)
		if command -v zstd >/dev/null; then
			for f in "$root/samples/"*.json; do
				zstd -q -f "$f" -o "$2/$(basename "$f").zst"
			done
		fi
		if command -v pzstd >/dev/null; then
			for f in "$root/samples/"*.json; do
				pzstd -q -f -p 2 "$f" -o "$2/$(basename "$f").p.zst"
			done
		fi ;;
	pipeline)
		seed chrome "$2"
		seed sqlite "$2" ;;
	options)
		# first byte: 0 runs, 1 speedups (and the rest as a CSV), 2 filters, 3 run-range
		i=0
		for s in '0all' '0[1,3,5]' '0-3:' '02:8:2' '0range(2,10,2)' '1Conv=2' \
			'1aten::*@float(2x2)=1.5' '1op,shape,factor\nConv,,2\n# x\n' \
			'2Conv*' '2re:^aten::(mm|add)$' '2[a-z]?x' '3step' '3^step [0-9]/1' \
			'3step/-1:2' '4(a|b)*c{2,}'; do
			printf "$s" >"$2/seed-$i"
			i=$((i + 1))
		done ;;
	config)
		i=0
		for s in 'level = kernel\nsort = self\n' 'names = short\ncolor = off\nmouse = off\n' \
			'# c\n\nbind x quit\nbind <C-x> none\nbind <F5> move-down\n' 'bind <Lt> help\n' \
			'level = nope\n' 'bind <Nope> quit\n'; do
			printf "$s" >"$2/seed-$i"
			i=$((i + 1))
		done ;;
	summary)
		cp "$root/tests/data/ranks/"*.csv "$2/" 2>/dev/null || true
		h=format,table,trace,rank,world_size,run,level,name,text,count,kernels,ts_ns,wall_ns
		h=$h,dur_ns,total_ns,self_ns,device_ns,device_total_ns,min_ns,max_ns,busy_ns,idle_ns
		h=$h,compute_ns,comm_ns,memcpy_ns,memset_ns,exposed_comm_ns,host_busy_ns
		h=$h,device_time_ns,bytes,group,group_size,seq,host_ts_ns
		meta=opscope-summary-1,meta,t.json,0,2,,
		e25=,,,,,,,,,,,,,,,,,,,,,,,,,
		run='opscope-summary-1,run,t.json,0,2,0,,"Profiler
Step#1",,5,,-1,20,,,,,,,,9,11,4,3,2,1,0,7,6,,,,,'
		row='opscope-summary-1,row,t.json,0,2,0,op,"a,""b""",,3,1,,,,30,20,10,10,1,9,,,,,,,,,,,,,,'
		call=opscope-summary-1,call,t.json,0,2,,,allreduce,Float,,,5,,2,,,,,,,,,,,,,,,
		printf '%s\n' "$h" "$meta,rank_source,distributedInfo$e25" "$meta,backend,nccl$e25" \
			"$meta,has_device,true$e25" "$run" "$row" "$call,1.5e+09,\"pg,0\",2,0,99" \
			>"$2/seed-0"
		printf '%s\r\n' "$h" "$call,,,-1,4294967295,-9223372036854775808" >"$2/seed-1"
		printf '%s\n' "$h" "$run" "$row" | gzip -c >"$2/seed-2.gz"
		# kernel rows with their recorded names, for the name styles of a job
		rest=3,3,,,,30,0,30,30,1,9,,,,,,,,,,,,,,
		k='opscope-summary-1,row,t.json,0,2,0'
		ki='"void ns::k<int>(int)"'
		kf='"void ns::k<float>(float)"'
		printf '%s\n' "$h" "$run" "$k,kernel,$ki,$ki,$rest" "$k,kernel,$kf,$kf,$rest" \
			"$k,dims,\"void ns::k<int>(int) b128x1x1,g4x1x1\",$ki,$rest" \
			"$k,mapping,\"aten::mm > foo(int)  b1x1x1,g1x1x1\",_Z3fooi,$rest" \
			>"$2/seed-3" ;;
	sqlite)
		cp "$root/samples/"*.sql.gz "$2/" 2>/dev/null || true
		python3 - "$2" "$shared" <<'PY'
import glob, os, sqlite3, sys
out, shared = sys.argv[1:]
srcs = sorted(glob.glob(os.path.join(shared, "**", "*.sqlite"), recursive=True) +
              glob.glob(os.path.join(shared, "**", "*.sql"), recursive=True))
for i, src in enumerate(srcs):
    dst = os.path.join(out, "seed-%d.sqlite" % i)
    if os.path.exists(dst):
        continue
    con = sqlite3.connect(":memory:")
    disk = sqlite3.connect(src)
    disk.backup(con)
    disk.close()
    tables = con.execute("SELECT name FROM sqlite_master WHERE type = 'table'"
                         " AND name NOT LIKE 'sqlite_%'").fetchall()
    for (name,) in tables:
        con.execute('DELETE FROM "%s" WHERE rowid NOT IN (SELECT rowid FROM "%s" LIMIT 40)'
                    % (name, name))
    con.commit()
    con.execute("VACUUM INTO ?", (dst,))
PY
		;;
	esac
}

for target in $targets; do
	corpus="$root/bench/out/fuzz-corpus/$target"
	mkdir -p "$corpus"
	if [ -d "$shared" ] || [ "$target" = options ] || [ "$target" = config ] ||
		[ "$target" = summary ]; then seed "$target" "$corpus"; fi
	echo "fuzz: $target for ${secs}s ($(ls "$corpus" | wc -l) inputs in the corpus)" >&2
	log="$root/bench/out/fuzz-$target.log"
	before=$(ls "$crashers" | grep -c "^$target-" || true)
	rm -f "$root"/fuzz-*.log
	"$build/tests/fuzz/fuzz_$target" -max_total_time="$secs" -jobs="$jobs" \
		-workers="$jobs" -timeout=10 -rss_limit_mb=2048 -max_len=1048576 \
		-artifact_prefix="$crashers/$target-" -print_final_stats=1 "$corpus" \
		>"$log" 2>&1 || status=1
	after=$(ls "$crashers" | grep -c "^$target-" || true)
	execs=$(grep -ho 'stat::number_of_executed_units: *[0-9]*' "$log" "$root"/fuzz-*.log \
		2>/dev/null | awk '{s += $2} END {print s + 0}')
	echo "fuzz: $target: $execs executions, $((after - before)) findings" >&2
	tail -n 12 "$log" >&2
done
[ "$status" -eq 0 ] || echo "fuzz: findings in $crashers" >&2
exit "$status"
