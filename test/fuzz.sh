#!/usr/bin/env bash
# Runs every fuzz target for FUZZTIME each (default 5s: the short CI run of `make test`;
# `make fuzz` runs longer). New crashers land in the package's testdata/fuzz and fail the run.
# Usage: test/fuzz.sh [FUZZTIME]   (or FUZZTIME=60s test/fuzz.sh)
set -euo pipefail
cd "$(dirname "$0")/.."
fuzztime="${1:-${FUZZTIME:-5s}}"
GO="${GO:-go}"

# package:target, one per line. Keep in sync with the Fuzz* functions (test/fuzz.sh checks).
targets=(
  ./host/internal/jsonrpc:FuzzReader
  ./host/internal/jsonrpc:FuzzDecode
  ./host:FuzzServe
  ./host/internal/registry:FuzzCursor
  ./host/internal/registry:FuzzRegisterJSON
  ./host/internal/registry:FuzzToolMeta
  ./interp:FuzzRun
  ./wasm:FuzzInspectModule
)

# Every Fuzz function in the tree must be listed above.
listed=" ${targets[*]} "
while IFS= read -r line; do
  file=${line%%:*}
  name=$(sed -E 's/^func (Fuzz[A-Za-z0-9_]*)\(.*/\1/' <<<"${line#*:}")
  pkg="./$(dirname "$file")"
  [[ $pkg == "./." ]] && pkg="."
  if [[ $listed != *" $pkg:$name "* ]]; then
    echo "test/fuzz.sh: $pkg:$name is not listed in test/fuzz.sh" >&2
    exit 1
  fi
done < <(grep -rE --include='*_test.go' -e '^func Fuzz[A-Za-z0-9_]*\(' . | grep -v '^./test/clients/' | sed -E 's#^\./##')

start=$SECONDS
for t in "${targets[@]}"; do
  pkg=${t%%:*}
  name=${t#*:}
  echo "fuzz $pkg $name ($fuzztime)"
  corpus="$pkg/testdata/fuzz/$name"
  before=$(ls "$corpus" 2>/dev/null | sort || true)
  if ! out=$("$GO" test -run '^$' -fuzz "^${name}\$" -fuzztime "$fuzztime" -parallel 2 "$pkg" 2>&1); then
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
  grep -Eo 'execs: [0-9]+' <<<"$out" | tail -n1 | sed "s/^/  /"
done
echo "fuzz: ${#targets[@]} targets in $((SECONDS - start))s"
