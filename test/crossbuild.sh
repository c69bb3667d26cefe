#!/usr/bin/env bash
# Cross-builds every release target with CGO_ENABLED=0 (`go build ./...`), vets one architecture
# of each GOOS (`go vet ./...`, which type-checks the test code too: vet depends on the GOOS, hardly
# on the GOARCH, so the second architecture is built only), and links the test binaries (`go test
# -c`, every package at once) of darwin/arm64 and windows/amd64, so that OS-specific code and tests
# compile everywhere. The host's own target is skipped: `make lint` vets it and `make test` builds
# and runs it. The Wine run (test/wine.sh) builds its own Windows test binaries (tag wine).
# Usage: test/crossbuild.sh [GOOS/GOARCH...]   (default: every target below but the host's)
set -euo pipefail
cd "$(dirname "$0")/.."
GO="${GO:-go}"
out="${CROSS_OUT:-dist/cross}"

targets=("$@")
if ((${#targets[@]} == 0)); then
  host="$("$GO" env GOHOSTOS)/$("$GO" env GOHOSTARCH)"
  for t in linux/amd64 linux/arm64 darwin/arm64 darwin/amd64 windows/amd64 windows/arm64; do
    [[ $t == "$host" ]] || targets+=("$t")
  done
fi
# One architecture per GOOS is vetted, and links its tests (darwin and windows; Linux's run).
declare -A vetted testc=([darwin/arm64]=1 [windows/amd64]=1)

fail=0
for t in "${targets[@]}"; do
  os=${t%/*} arch=${t#*/}
  start=$SECONDS
  if ! GOOS=$os GOARCH=$arch CGO_ENABLED=0 "$GO" build ./...; then
    echo "crossbuild: $t: build failed" >&2
    fail=1
    continue
  fi
  what="build"
  if [[ -z ${vetted[$os]:-} ]]; then
    if ! GOOS=$os GOARCH=$arch CGO_ENABLED=0 "$GO" vet ./...; then
      echo "crossbuild: $t: vet failed" >&2
      fail=1
      continue
    fi
    vetted[$os]=1
    what+=", vet"
  fi
  if [[ -n ${testc[$t]:-} ]]; then
    rm -rf "${out:?}/$os-$arch" && mkdir -p "$out/$os-$arch"
    if ! GOOS=$os GOARCH=$arch CGO_ENABLED=0 "$GO" test -c -o "$out/$os-$arch/" ./... >/dev/null; then
      echo "crossbuild: $t: test binaries failed to build" >&2
      fail=1
      continue
    fi
    what+=", test -c"
  fi
  echo "crossbuild: $t: $what ok ($((SECONDS - start))s)"
done
exit $fail
