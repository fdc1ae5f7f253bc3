#!/bin/sh
# dev.sh - one-command set-up for opscope on Debian.
#
#   sh scripts/dev.sh run [ARGS...]   install what is missing, build, run opscope
#                                     (no ARGS: the bundled sample trace)
#   sh scripts/dev.sh test            install what is missing, build twice (plain and
#                                     ASan/UBSan, warnings as errors), run every test
#
# Packages come from Debian only; nothing else is downloaded.
set -eu

cd "$(dirname "$0")/.."

PACKAGES="meson ninja-build pkg-config gcc libncurses-dev libjson-c-dev libpcre2-dev
zlib1g-dev libzstd-dev zstd libisal-dev libsqlite3-dev libcriterion-dev libiberty-dev python3 man-db mandoc"

install_missing() {
	missing=""
	for p in $PACKAGES; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
			missing="$missing $p"
	done
	[ -z "$missing" ] && return 0
	echo "dev.sh: installing:$missing" >&2
	sudo=""
	[ "$(id -u)" -eq 0 ] || sudo="sudo"
	$sudo apt-get update -qq
	# shellcheck disable=SC2086
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq $missing >&2
}

# build DIR [MESON OPTIONS...]: configure once, then compile.
build() {
	dir=$1
	shift
	[ -f "$dir/build.ninja" ] || meson setup "$dir" "$@" >&2
	ninja -C "$dir" >&2
}

# Count the results of the last `meson test` in build dir $1 into passed/failed/skipped.
count_results() {
	python3 - "$1/meson-logs/testlog.json" <<'PY'
import json, sys
counts = {"OK": 0, "FAIL": 0, "SKIP": 0}
with open(sys.argv[1]) as f:
    for line in f:
        r = json.loads(line)["result"]
        key = "OK" if r in ("OK", "EXPECTEDFAIL") else "SKIP" if r == "SKIP" else "FAIL"
        counts[key] += 1
print(counts["OK"], counts["FAIL"], counts["SKIP"])
PY
}

cmd=${1:-run}
[ $# -gt 0 ] && shift
install_missing
case $cmd in
run)
	build build
	exec ./build/src/cli/opscope "$@"
	;;
test)
	status=0
	passed=0 failed=0 skipped=0
	for variant in plain sanitize; do
		if [ $variant = plain ]; then
			dir=build-test
			build $dir -Dwerror=true
		else
			dir=build-san
			# UBSan traps (ASan then reports the trap with its stack): no
			# libubsan, whose 6 MB of zeroed data LeakSanitizer would read at
			# every exit, and no 5 MB of check descriptors in the binary.
			# For UBSan's own message, build with -Db_sanitize=address,undefined.
			build $dir -Dwerror=true -Db_sanitize=address -Db_lundef=false \
				"-Dc_args=-fsanitize=undefined -fsanitize-undefined-trap-on-error"
		fi
		echo "== meson test ($variant build)"
		meson test -C $dir --print-errorlogs --num-processes 2 || status=1
		set -- $(count_results $dir)
		passed=$((passed + $1)) failed=$((failed + $2)) skipped=$((skipped + $3))
	done
	echo "tests: $passed passed, $failed failed, $skipped skipped"
	exit $status
	;;
*)
	echo "usage: sh scripts/dev.sh run [ARGS...] | test" >&2
	exit 2
	;;
esac
