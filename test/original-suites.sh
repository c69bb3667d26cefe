#!/usr/bin/env bash
# Runs the original Bash framework's own test suites against our binary (docs/COMPATIBILITY.md,
# "How it is measured"). The original's files stay outside this repository: the caller passes a
# checkout of mcp-bash-framework, which is copied into a temporary directory whose bin/mcp-bash is
# replaced by a shim that execs our binary, so the checkout itself is never modified.
#
# Every test/integration/test_*.sh, test/examples/test_*.sh and test/smoke.sh runs in turn with
# a timeout; each prints PASS or FAIL (KNOWN when it is listed in test/original-suites.known,
# with the reason). The exit status is 1 when a suite fails that the known list does not name,
# 0 otherwise. A known suite that now passes is reported so the list can shrink.
#
# usage: test/original-suites.sh PATH/TO/mcp-bash ORIGINAL-CHECKOUT [SUITE...]
#   SUITE: a suite's file name (test_tools.sh) to run only those.
# environment:
#   SUITE_TIMEOUT  seconds per suite (default 300)
#   KNOWN          the known-failures file (default: test/original-suites.known beside this script)
#   LOGS           keep each suite's output in this directory (default: a temporary one, removed
#                  unless a suite failed; its path is printed)
set -uo pipefail

usage() { echo "usage: test/original-suites.sh PATH/TO/mcp-bash ORIGINAL-CHECKOUT [SUITE...]" >&2; exit 2; }
[ $# -ge 2 ] || usage
bin="$1" orig="$2"
shift 2
if ! [ -f "$bin" ] || ! [ -x "$bin" ]; then
	echo "original-suites: $bin is not an executable" >&2
	exit 2
fi
bin="$(cd "$(dirname "$bin")" && pwd -P)/$(basename "$bin")"
[ -d "$orig/test/integration" ] || {
	echo "original-suites: $orig has no test/integration: pass a checkout of mcp-bash-framework" >&2
	exit 2
}
orig="$(cd "$orig" && pwd -P)"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)"
known="${KNOWN:-$here/original-suites.known}"
timeout_s="${SUITE_TIMEOUT:-300}"
command -v timeout >/dev/null || { echo "original-suites: needs timeout(1) (coreutils)" >&2; exit 2; }

work="$(mktemp -d)"
cleanup() { rm -rf "$work"; }
trap cleanup EXIT
child=""
# timeout(1) passes the signal on to the suite it runs.
trap '[ -z "$child" ] || kill "$child" 2>/dev/null; exit 130' INT TERM

# The suites evaluate their assertions with gojq, else jq (test/common/env.sh prefers gojq).
# jq 1.6's -e reports failure when the last input yields nothing (select on a later line), which
# fails sound assertions, so with no gojq and a jq older than 1.7 the suites get a gojq that is
# our binary's `jq` verb (gojq's engine).
if ! command -v gojq >/dev/null; then
	jqv="$(jq --version 2>/dev/null || true)"
	case "$jqv" in
	jq-1.[7-9]* | jq-1.[1-9][0-9]* | jq-[2-9]*) ;;
	*)
		mkdir -p "$work/jq"
		printf '#!/bin/sh\nexec %q jq "$@"\n' "$bin" >"$work/jq/gojq"
		chmod +x "$work/jq/gojq"
		PATH="$work/jq:$PATH"
		export PATH
		echo "original-suites: no gojq and ${jqv:-no jq} (older than 1.7): the suites use \`mcp-bash jq\` as gojq"
		;;
	esac
fi

# The copy: everything but .git (the suites never read it), then our shim in place of the
# original's launcher. test_stage_workspace copies bin/ into each workspace, so the shim (which
# names our binary by absolute path) follows it there.
copy="$work/original"
mkdir -p "$copy"
tar -C "$orig" --exclude=./.git -cf - . | tar -C "$copy" -xf - || { echo "original-suites: copying $orig failed" >&2; exit 2; }
mkdir -p "$copy/bin"
rm -f "$copy/bin/mcp-bash"
printf '#!/usr/bin/env bash\nexec %q "$@"\n' "$bin" >"$copy/bin/mcp-bash"
chmod +x "$copy/bin/mcp-bash"

logs="${LOGS:-}"
keep_logs=1
if [ -z "$logs" ]; then
	logs="$work/logs"
	keep_logs=0
fi
mkdir -p "$logs"
logs="$(cd "$logs" && pwd -P)"

# The known list: "suite-file reason..." per line; # starts a comment.
declare -A reason=()
if [ -f "$known" ]; then
	while IFS= read -r line || [ -n "$line" ]; do
		line="${line%%#*}"
		read -r name why <<<"$line"
		[ -n "${name:-}" ] || continue
		reason["$name"]="${why:-no reason given}"
	done <"$known"
fi

suites=()
if [ $# -gt 0 ]; then
	for s in "$@"; do
		s="$(basename "$s")"
		for dir in test/integration test/examples test; do
			if [ -f "$copy/$dir/$s" ]; then suites+=("$dir/$s"); continue 2; fi
		done
		echo "original-suites: no suite $s in $orig" >&2
		exit 2
	done
else
	for f in "$copy"/test/integration/test_*.sh "$copy"/test/examples/test_*.sh "$copy"/test/smoke.sh; do
		[ -f "$f" ] && suites+=("${f#"$copy"/}")
	done
fi
[ ${#suites[@]} -gt 0 ] || { echo "original-suites: no suites found in $orig" >&2; exit 2; }

pass=0 fail=0 knownfail=0 fixed=0
unexpected=() nowpass=()
for s in "${suites[@]}"; do
	name="$(basename "$s")"
	log="$logs/${s//\//_}.log"
	# Each suite in its own process group under timeout, from the copy's root, with a TMPDIR of
	# its own so that what it leaves behind goes with the copy.
	tmp="$work/tmp/${name%.sh}"
	mkdir -p "$tmp"
	# As the original's test/integration/run.sh does, the suite starts with what
	# test/common/env.sh exports (MCPBASH_HOME, bin/ first on PATH, MCPBASH_TOOL_ALLOWLIST=*,
	# ...): the suites that do not source it themselves rely on that.
	# shellcheck disable=SC2016 # $1 is the inner shell's
	(cd "$copy" && TMPDIR="$tmp" exec timeout -k 10 "$timeout_s" bash -c '
		if [ -f test/common/env.sh ]; then . test/common/env.sh || exit; fi
		exec bash "$1"' original-suite "$s") >"$log" 2>&1 </dev/null &
	child=$!
	wait "$child"
	rc=$?
	child=""
	why=""
	if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then why=" (timed out after ${timeout_s}s)"; fi
	if [ $rc -eq 0 ]; then
		pass=$((pass + 1))
		if [ -n "${reason[$name]+x}" ]; then
			fixed=$((fixed + 1))
			nowpass+=("$name")
			echo "PASS  $s (listed as known: remove it from $(basename "$known"))"
		else
			echo "PASS  $s"
		fi
	elif [ -n "${reason[$name]+x}" ]; then
		knownfail=$((knownfail + 1))
		echo "KNOWN $s$why: ${reason[$name]}"
	else
		fail=$((fail + 1))
		unexpected+=("$s")
		echo "FAIL  $s$why: $(grep -v '^\s*$' "$log" | tail -n 1 | cut -c1-200)"
	fi
done

total=${#suites[@]}
echo "total=$total passed=$pass failed=$fail known=$knownfail"
if [ ${#nowpass[@]} -gt 0 ]; then
	echo "known failures that now pass: ${nowpass[*]}"
fi
if [ $fail -gt 0 ] || [ $keep_logs -eq 1 ]; then
	if [ $keep_logs -eq 0 ]; then
		# Keep the logs of a failing run where the caller can read them.
		kept="$(mktemp -d "${TMPDIR:-/tmp}/original-suites-logs.XXXXXX")"
		cp -a "$logs"/. "$kept"/
		logs="$kept"
	fi
	echo "logs: $logs"
fi
[ $fail -eq 0 ]
