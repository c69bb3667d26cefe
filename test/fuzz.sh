#!/usr/bin/env bash
# Fuzzes every Fuzz target of the module for FUZZTIME each (default 5s: the short run of
# `make test`; `make fuzz` runs longer). New crashers land in the package's testdata/fuzz and
# fail the run. `go test ./...` already runs every seed corpus as ordinary tests.
#
# `go test -fuzz` fuzzes one target per invocation and links an instrumented test binary each
# time; building each package's instrumented binary once (`go test -c -fuzz`, all packages at
# once) and running it per target saves most of the time of a short run.
# Usage: test/fuzz.sh [FUZZTIME]   (or FUZZTIME=60s test/fuzz.sh)
set -euo pipefail
cd "$(dirname "$0")/.."
fuzztime="${1:-${FUZZTIME:-5s}}"
GO="${GO:-go}"

# Every `func FuzzX(f *testing.F)` in the module (test/clients/ are modules of their own), as
# dir:FuzzX. Found, not listed, so that a new target is fuzzed without anyone remembering to.
mapfile -t targets < <(grep -rE --include='*_test.go' -e '^func Fuzz[A-Za-z0-9_]*\(' . |
  grep -v -e '^\./test/clients/' -e '/node_modules/' |
  sed -E 's#^\./(.*)/[^/]*_test\.go:func (Fuzz[A-Za-z0-9_]*)\(.*#\1:\2#' | sort -u)
if ((${#targets[@]} == 0)); then
  echo "test/fuzz.sh: no fuzz targets found" >&2
  exit 1
fi
mapfile -t dirs < <(printf '%s\n' "${targets[@]}" | cut -d: -f1 | sort -u)

bin=$(mktemp -d "${TMPDIR:-/tmp}/mcpbash-fuzz-XXXXXX")
trap 'rm -rf "$bin"' EXIT
cache="$("$GO" env GOCACHE)/fuzz"
start=$SECONDS

# One instrumented test binary per package, built concurrently (the go command builds the
# shared instrumented dependencies once, through its cache).
pids=()
for d in "${dirs[@]}"; do
  "$GO" test -c -fuzz=. -o "$bin/${d//\//_}.test" "./$d" >"$bin/${d//\//_}.log" 2>&1 &
  pids+=($!)
done
for i in "${!pids[@]}"; do
  if ! wait "${pids[$i]}"; then
    d=${dirs[$i]}
    echo "test/fuzz.sh: building ./$d for fuzzing failed:" >&2
    cat "$bin/${d//\//_}.log" >&2
    exit 1
  fi
done
echo "fuzz: built ${#dirs[@]} instrumented test binaries in $((SECONDS - start))s"

module=$("$GO" list -m)
for t in "${targets[@]}"; do
  d=${t%%:*}
  name=${t#*:}
  echo "fuzz ./$d $name ($fuzztime)"
  corpus="$d/testdata/fuzz/$name"
  before=$(ls "$corpus" 2>/dev/null | sort || true)
  # As `go test -fuzz` runs it: in the package directory, with the same corpus cache.
  if ! out=$(cd "$d" && "$bin/${d//\//_}.test" -test.run='^$' -test.fuzz="^${name}\$" -test.fuzztime="$fuzztime" \
    -test.parallel=2 -test.fuzzcachedir="$cache/$module/$d" -test.paniconexit0 -test.timeout=10m 2>&1); then
    after=$(ls "$corpus" 2>/dev/null | sort || true)
    # Go <= 1.26 can fail a duration-bounded run with a bare "context deadline exceeded" at
    # the -fuzztime boundary (go.dev/issue/75804): no input failed, so no crasher was written.
    if [[ $before == "$after" ]] && grep -q '^    context deadline exceeded$' <<<"$out" && ! grep -q 'Failing input written' <<<"$out"; then
      echo "  (ignored the fuzz coordinator's deadline race, go.dev/issue/75804: no failing input)"
    else
      echo "$out" >&2
      exit 1
    fi
  fi
  # A target with a large seed corpus can spend a short run (on a loaded machine) gathering
  # baseline coverage and print no execs line: say so rather than let grep's status end the
  # script (set -e, pipefail) with no message.
  if execs=$(grep -Eo 'execs: [0-9]+' <<<"$out" | tail -n1); then
    echo "  $execs"
  else
    echo "  no new inputs: the run ended while gathering baseline coverage ($(grep -Eo '[0-9]+/[0-9]+ completed' <<<"$out" | tail -n1 || echo "no progress line"))"
  fi
done
echo "fuzz: ${#targets[@]} targets in $((SECONDS - start))s"
