#!/bin/sh
# Fuzz every loader with libFuzzer (clang, ASan + UBSan) for a while.
#
#   bench/fuzz.sh [-t SECONDS] [-j JOBS]
#
#   -t SECONDS  time per target (default 180)
#   -j JOBS     parallel fuzzing jobs per target (default 1)
#
# Builds build-fuzz/ with CC=clang -Dfuzz=true, seeds each target's corpus
# (bench/out/fuzz-corpus/<target>, git-ignored) from ../shared/traces and
# samples/ (chrome: the traces under 300 kB, gzip ones as they are; sqlite:
# trimmed copies of the nsys and nvprof databases), and runs it: fuzz_chrome
# (trace-event JSON) and fuzz_sqlite (nsys and nvprof databases). Crashes,
# leaks and timeouts are written to tests/data/crashers/ as
# <target>-crash-<sha1>; test_load replays every file there, so commit each
# one together with its fix. Exits 1 when a target found something.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
secs=180
jobs=1
while getopts t:j:h opt; do
	case $opt in
	t) secs=$OPTARG ;;
	j) jobs=$OPTARG ;;
	*) sed -n '2,17s/^# \{0,1\}//p' "$0"; exit 2 ;;
	esac
done

build="$root/build-fuzz"
if [ ! -f "$build/build.ninja" ]; then
	CC=clang meson setup "$build" "$root" -Dfuzz=true -Db_lundef=false >/dev/null
fi
ninja -C "$build" >/dev/null

shared="$root/../shared/traces"
[ -d "$shared" ] || shared=/work/shared/traces
crashers="$root/tests/data/crashers"
mkdir -p "$crashers"
status=0
# Seed a corpus: the small real traces for chrome; for sqlite, trimmed copies
# of the real databases (schema and the first rows of every table) and the
# bundled gzip'd nvprof sample.
seed() {
	target=$1 corpus=$2
	case $target in
	chrome)
		find "$shared" "$root/samples" -type f \( -name '*.json' -o -name '*.json.gz' \) \
			-size -300k -exec cp {} "$corpus/" \; ;;
	sqlite)
		cp "$root/samples/"*.sql.gz "$corpus/" 2>/dev/null || true
		python3 - "$corpus" "$shared" <<'PY'
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

for target in chrome sqlite; do
	corpus="$root/bench/out/fuzz-corpus/$target"
	mkdir -p "$corpus"
	[ -d "$shared" ] && seed "$target" "$corpus"
	echo "fuzz: $target for ${secs}s ($(ls "$corpus" | wc -l) inputs in the corpus)" >&2
	"$build/tests/fuzz/fuzz_$target" -max_total_time="$secs" -jobs="$jobs" \
		-workers="$jobs" -timeout=10 -rss_limit_mb=2048 -max_len=1048576 \
		-artifact_prefix="$crashers/$target-" -print_final_stats=1 "$corpus" \
		>"$root/bench/out/fuzz-$target.log" 2>&1 || status=1
	tail -n 12 "$root/bench/out/fuzz-$target.log" >&2
done
[ "$status" -eq 0 ] || echo "fuzz: findings in $crashers" >&2
exit "$status"
