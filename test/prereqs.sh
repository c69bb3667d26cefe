#!/usr/bin/env bash
# Checks what `make test` needs before it starts, so that a missing tool is one line saying what
# to install rather than a wall of failed tests. README.md ("Prerequisites") lists the same.
# Network access is needed once: for `npm ci` (test/clients/node) and the Go modules
# (including staticcheck and benchstat, run with `go run`); the Makefile says so if they fail.
set -uo pipefail
cd "$(dirname "$0")/.."
GO="${GO:-go}"

missing=0
need() { echo "make test: $*" >&2; missing=1; }

# Go: the version go.mod names, or newer.
want=$(sed -n 's/^go \([0-9][0-9.]*\).*/\1/p' go.mod)
if ! have=$("$GO" env GOVERSION 2>/dev/null); then
  need "Go $want or newer is required (not found as '$GO'): install it from the Go downloads page"
else
  have=${have#go}
  # Compare major.minor numerically: the toolchain must not be older than go.mod's.
  IFS=. read -r wmaj wmin _ <<<"$want"
  IFS=. read -r hmaj hmin _ <<<"${have%%[!0-9.]*}"
  if ((hmaj < wmaj || (hmaj == wmaj && ${hmin:-0} < ${wmin:-0}))); then
    need "Go $want or newer is required (found go$have): install a newer Go"
  fi
fi

# bash 5: the bash-diff suite and native mode compare against real bash.
if ! v=$(bash -c 'echo "${BASH_VERSINFO[0]}"' 2>/dev/null) || ((v < 5)); then
  need "bash 5 or newer is required (found ${v:-none}): apt-get install bash"
fi

# Debian packages: shellcheck lints the Bash SDK; jq is the reference for the jq builtin; git
# serves the git resource provider's tests.
for tool in shellcheck jq git; do
  command -v "$tool" >/dev/null || need "$tool is required: apt-get install $tool"
done

# Wine and mingw-w64: the Windows build's tests run under Wine (make wine, test/wine.sh).
command -v wine64 >/dev/null || [[ -x /usr/lib/wine/wine64 ]] || need "wine64 is required for the Windows tests: apt-get install wine64"
command -v x86_64-w64-mingw32-gcc >/dev/null || need "x86_64-w64-mingw32-gcc is required for the Windows tests: apt-get install gcc-mingw-w64-x86-64"

# A C compiler: the race detector (make test-race) needs cgo.
command -v gcc >/dev/null || need "gcc is required for the race detector (cgo): apt-get install gcc"

# Node.js and npm install the TypeScript clients and the conformance suite (which bring their own
# Node 22); only npm is run from the host.
if ! command -v npm >/dev/null || ! command -v node >/dev/null; then
  need "Node.js and npm are required for the TypeScript clients and the conformance suite: apt-get install nodejs npm"
fi

exit "$missing"
