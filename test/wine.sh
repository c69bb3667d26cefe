#!/usr/bin/env bash
# Runs the Windows build under Wine (Debian's wine64): the sandbox filesystem's, the confinement
# package's (the refusals of what Windows cannot confine), the sandbox engine's and
# the wasm engine's unit tests as windows/amd64 test binaries, then the stdio
# end-to-end tests of test/e2e/wine_test.go, which drive the Windows server binary (the first
# example served as Linux serves it; every Windows spelling of a path outside the roots refused).
#
# Two things make Go 1.26 programs run on Wine 8, both test setup only:
#   - bcryptprimitives.dll: Wine 8 lacks ProcessPrng, which the Go runtime calls at start; a
#     one-function DLL (test/wine/processprng.c, built with mingw-w64) goes into the private
#     prefix's system32.
#   - the build tag wine (with -ldflags=-checklinkname=0) links test/wine/deletefallback, which
#     makes file removal use Windows' classic delete: Wine 8 rejects the POSIX-semantics delete
#     Go uses, so nothing could be removed (t.TempDir's cleanup included). Release binaries are
#     built without the tag.
# Usage: test/wine.sh   (WINE=/path/to/wine64 to use another Wine; without Wine it skips,
# loudly, unless MCPBASH_REQUIRE_WINE is set, as CI sets it)
set -euo pipefail
cd "$(dirname "$0")/.."
GO="${GO:-go}"
repo=$PWD
out="$repo/dist/wine"

wine="${WINE:-}"
if [[ -z $wine ]]; then
  for w in wine64 /usr/lib/wine/wine64; do
    if command -v "$w" >/dev/null; then wine=$(command -v "$w"); break; fi
  done
fi
cc=x86_64-w64-mingw32-gcc
if [[ -z $wine ]] || ! command -v "$cc" >/dev/null; then
  msg="needs wine64 and $cc (apt-get install wine64 gcc-mingw-w64-x86-64; .ci/run installs them)"
  if [[ -n ${MCPBASH_REQUIRE_WINE:-} ]]; then
    echo "test/wine.sh: FAIL: $msg" >&2
    exit 1
  fi
  # Loud, not silent: the Windows build was not run, and the run's output says so.
  echo "test/wine.sh: SKIPPED, the Windows build was NOT tested: $msg" >&2
  exit 0
fi
wineserver="$(dirname "$wine")/wineserver"
[[ -x $wineserver ]] || wineserver=wineserver

mkdir -p "$out/bin" "$out/guests"
export WINEPREFIX="$out/prefix" WINEDEBUG=-all WINEDLLOVERRIDES="bcryptprimitives=n;mscoree,mshtml=" WINEARCH=win64
start=$SECONDS

# The prefix, made once (wineboot), and the DLL in its system32.
if [[ ! -d $WINEPREFIX/drive_c/windows/system32 ]]; then
  "$wine" wineboot --init >/dev/null 2>&1 || true
fi
dll="$WINEPREFIX/drive_c/windows/system32/bcryptprimitives.dll"
if [[ ! -f $dll || test/wine/processprng.c -nt $dll ]]; then
  "$cc" -O2 -shared -o "$dll" test/wine/processprng.c test/wine/processprng.def -ladvapi32
fi

# One wineserver for every run below (each program would otherwise start and stop its own, and
# a program that connects while the last one's server shuts down gets "recvmsg: Connection reset
# by peer"). A server still lingering after wineboot (3 s) would make -p fail: wait for it to end
# first; -p then starts a persistent server in the background and returns.
timeout 60 "$wineserver" -w >/dev/null 2>&1 || true # a persistent one left by a killed run: use it
"$wineserver" -p >/dev/null 2>&1 || true
trap '"$wineserver" -k >/dev/null 2>&1 || true' EXIT

# The binaries: the server and the test binaries of the engines, for windows/amd64, and the
# wasm guest the wasm tests run (they have no Go toolchain under Wine).
flags=(-tags wine -ldflags "-checklinkname=0 -X main.version=${VERSION:-wine}")
GOOS=windows GOARCH=amd64 CGO_ENABLED=0 "$GO" build -trimpath "${flags[@]}" -o "$out/bin/mcp-bash.exe" ./cmd/mcp-bash
pkgs=(sandbox sandbox/internal/confine interp wasm)
for p in "${pkgs[@]}"; do
  GOOS=windows GOARCH=amd64 CGO_ENABLED=0 "$GO" test -c "${flags[@]}" -o "$out/bin/${p//\//-}.test.exe" "./$p"
done
GOOS=wasip1 GOARCH=wasm CGO_ENABLED=0 "$GO" build -trimpath -o "$out/guests/probe.wasm" ./wasm/testdata/probe
echo "test/wine.sh: built in $((SECONDS - start))s"

fail=0
winpath() { printf 'Z:%s' "${1//\//\\}"; }
for p in "${pkgs[@]}"; do
  t=$SECONDS
  # Each test binary runs in its package's directory (testdata), as go test runs it.
  run() {
    (cd "$p" && WASMTEST_GUESTS="$(winpath "$out/guests")" "$wine" "$out/bin/${p//\//-}.test.exe" -test.v -test.count=1 -test.timeout=10m \
      >"$out/${p//\//-}.log" 2>&1)
  }
  # Wine's own client-server link failing is not a test result: such a run is run again, once.
  if run || { grep -q '^wine client error' "$out/${p//\//-}.log" && ! grep -q -- '^--- FAIL' "$out/${p//\//-}.log" &&
    echo "test/wine.sh: $p: wine's client lost its server ($(grep -m1 '^wine client error' "$out/${p//\//-}.log")); again" >&2 && run; }; then
    echo "test/wine.sh: ok   $p ($((SECONDS - t))s; $(grep -c -- '--- SKIP' "$out/${p//\//-}.log" || true) skipped)"
  else
    echo "test/wine.sh: FAIL $p ($((SECONDS - t))s):" >&2
    grep -E -B8 -A12 '^(--- FAIL|panic:)' "$out/${p//\//-}.log" | head -60 >&2 || tail -40 "$out/${p//\//-}.log" >&2
    fail=1
  fi
done

# The stdio end-to-end tests: a Linux test driving the Windows server through Wine.
if [[ -z ${MCPBASH_TEST_BINARY:-} ]]; then
  CGO_ENABLED=0 "$GO" build -o "$out/bin/mcp-bash" ./cmd/mcp-bash
  export MCPBASH_TEST_BINARY="$out/bin/mcp-bash"
fi
if ! MCPBASH_WINE="$wine" MCPBASH_WINE_BINARY="$out/bin/mcp-bash.exe" "$GO" test -count=1 -run '^TestWindows' ./test/e2e/; then
  fail=1
fi
echo "test/wine.sh: done in $((SECONDS - start))s"
exit $fail
