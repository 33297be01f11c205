#!/usr/bin/env bash
# Compare the mock of another build with the working tree's, interleaved on
# one machine.
#
#   scripts/bench-compare.sh [-n RUNS] [-d DURATION] [-l LONG_DURATION] [-r LONG_ROUNDS] [-D DIALECTS] [-V] REV
#
# -V gives every first-turn request a user text of its own (the bench's
# --vary): no build then answers from what it decoded of an identical
# body before.
#
# DIALECTS defaults to the four dialects every build since the first
# serves; name bedrock (-D …,bedrock) only against a build that has it.
#
# Builds `toolwire` at REV (from `git archive`, so no worktree is added to
# the repository) and from the working tree, and the working tree's
# toolwire-bench once. Then, RUNS times, alternating which build goes
# first, it starts each build's `toolwire serve` on a free loopback port
# and loads it with that one toolwire-bench (--mock-url): the same load
# generator, the same baseline processes, the same requests for both
# builds, so an older build needs no bench flags of its own and the long-
# conversation table is measured for it too. Each run is a fresh serve
# process, whose CPU time the bench reads from /proc (--mock-pid). Prints,
# per dialect, both builds' first-turn (headline) and long-conversation
# ratios, by throughput and by server CPU per request (steadier when
# others share the machine), medians of the runs, and new ÷ old.
#
# The ratios here are `toolwire serve`'s (default flags, request log off),
# not the in-bench mock `make bench` measures; compare them with each
# other, not with bench.json from `make bench`.
set -euo pipefail

runs=3 duration=1s long_duration=1s long_rounds=0,10,100,400 dialects=openai-chat,openai-responses,anthropic,gemini vary=
while getopts "n:d:l:r:D:Vh" opt; do
	case $opt in
	n) runs=$OPTARG ;;
	d) duration=$OPTARG ;;
	l) long_duration=$OPTARG ;;
	r) long_rounds=$OPTARG ;;
	D) dialects=$OPTARG ;;
	V) vary=--vary ;;
	*)
		sed -n '2,/^set /{/^set /d;s/^# \{0,1\}//;p;}' "$0"
		exit 2
		;;
	esac
done
shift $((OPTIND - 1))
if [ $# -ne 1 ]; then
	echo "usage: $0 [-n RUNS] [-d DURATION] [-l LONG_DURATION] [-r LONG_ROUNDS] [-D DIALECTS] [-V] REV" >&2
	exit 2
fi
rev=$1
root=$(git rev-parse --show-toplevel)
short=$(git -C "$root" rev-parse --short "$rev^{commit}")
tmp=$(mktemp -d "${TMPDIR:-/tmp}/toolwire-bench-compare.XXXXXX")
serve_pid=
cleanup() {
	if [ -n "$serve_pid" ]; then
		kill "$serve_pid" 2>/dev/null || true
		wait "$serve_pid" 2>/dev/null || true
	fi
	rm -rf "$tmp"
}
trap cleanup EXIT

echo "building toolwire at $short and at the working tree, and the working tree's toolwire-bench (in $tmp)"
mkdir "$tmp/src-old"
git -C "$root" archive "$short" | tar -x -C "$tmp/src-old"
(cd "$tmp/src-old" && go build -o "$tmp/toolwire-old" ./cmd/toolwire)
(cd "$root" && go build -o "$tmp/toolwire-new" ./cmd/toolwire && go build -o "$tmp/toolwire-bench" ./cmd/toolwire-bench)

# start_serve BIN LOG: starts BIN serve on a free loopback port, sets
# serve_pid and serve_url.
start_serve() {
	local bin=$1 log=$2 args=(serve --addr 127.0.0.1:0)
	# An older build may lack --log-level; its request log then goes to
	# the log file, which costs it a little.
	if "$bin" serve --help 2>&1 | grep -q -- '--log-level'; then
		args+=(--log-level off)
	fi
	"$bin" "${args[@]}" >"$log" 2>&1 &
	serve_pid=$!
	serve_url=
	for _ in $(seq 100); do
		serve_url=$(sed -n 's/.* mock provider on \([^ ]*\) .*/http:\/\/\1/p' "$log" | head -n1)
		[ -n "$serve_url" ] && return 0
		kill -0 "$serve_pid" 2>/dev/null || break
		sleep 0.1
	done
	echo "$bin serve did not start:" >&2
	cat "$log" >&2
	return 1
}

stop_serve() {
	kill "$serve_pid" 2>/dev/null || true
	wait "$serve_pid" 2>/dev/null || true
	serve_pid=
}

old_files= new_files=
for i in $(seq "$runs"); do
	order="old new"
	[ $((i % 2)) -eq 0 ] && order="new old"
	for which in $order; do
		echo "run $i/$runs: $which"
		start_serve "$tmp/toolwire-$which" "$tmp/serve-$which-$i.log"
		out="$tmp/$which-$i.json"
		if ! "$tmp/toolwire-bench" --mock-url "$serve_url" --mock-pid "$serve_pid" --concurrency 64 --no-stream --rounds 3 --dialects "$dialects" $vary \
			--duration "$duration" --soak-requests 0 --long-rounds "$long_rounds" --long-reps 1 \
			--long-duration "$long_duration" --out "$out" >"$tmp/bench-$which-$i.log" 2>&1; then
			cat "$tmp/bench-$which-$i.log" >&2
			exit 1
		fi
		stop_serve
		if [ "$which" = old ]; then old_files=${old_files:+$old_files,}$out; else new_files=${new_files:+$new_files,}$out; fi
	done
done

echo
echo "machine: $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg); $runs runs per build, alternating; toolwire serve of each build loaded by the working tree's toolwire-bench"
"$tmp/toolwire-bench" compare "$short=$old_files" "working-tree=$new_files"
