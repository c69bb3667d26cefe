#!/usr/bin/env bash
# The README's 60-second quick start, as a script: on a fresh clone `make build` (done by the
# caller, which passes the binary it built), then `mcp-bash new demo`, `mcp-bash config --client
# claude-desktop` and `mcp-bash run-tool hello --sandbox` must all succeed, in a temporary
# directory, in under a minute. `make test` runs it through test/e2e/quickstart_test.go.
#
# usage: test/quickstart.sh PATH/TO/mcp-bash
set -euo pipefail

bin="${1:?usage: test/quickstart.sh PATH/TO/mcp-bash}"
[ -x "$bin" ] || { echo "quickstart: $bin is not an executable" >&2; exit 2; }
# The physical absolute path: what `config` must name.
bin="$(cd "$(dirname "$bin")" && pwd -P)/$(basename "$bin")"

start=$SECONDS
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cd "$work"

fail() { echo "quickstart: FAIL: $*" >&2; exit 1; }
step() { echo "quickstart: \$ mcp-bash $*" >&2; }

step new demo
"$bin" new demo
root="$(cd demo && pwd -P)"

step config --client claude-desktop --project-root demo
"$bin" config --client claude-desktop --project-root demo > "$work/config.json" || fail "config exited $?"
cat "$work/config.json"
# Valid JSON, in Claude Desktop's shape, naming this binary by its absolute path.
"$bin" jq -e --arg bin "$bin" --arg root "$root" '
  .mcpServers.demo
  | (.command == $bin) and (.args == ["--project-root", $root]) and (.env.MCPBASH_TOOL_ALLOWLIST == "*")
' "$work/config.json" > /dev/null || fail "config snippet is not valid JSON naming $bin and $root"

step run-tool hello --sandbox --project-root demo
out="$("$bin" run-tool hello --sandbox --project-root demo)" || fail "run-tool hello --sandbox exited $?"
printf '%s\n' "$out"
case "$out" in *'Hello, World!'*) ;; *) fail "run-tool: no greeting" ;; esac
case "$out" in *'access record:'*) ;; *) fail "run-tool: no access record" ;; esac

elapsed=$((SECONDS - start))
[ "$elapsed" -lt 60 ] || fail "took ${elapsed}s (the quick start promises under a minute)"
echo "quickstart: ok (${elapsed}s)" >&2
