#!/usr/bin/env bash
# Cross-builds and vets every release target with CGO_ENABLED=0: `go build ./...` and `go vet
# ./...` for each GOOS/GOARCH, and the test binaries (`go test -c`, every package at once) for
# one architecture of each other GOOS, so that OS-specific code and tests compile everywhere.
# Linux's own test binaries are built and run by `make test`; windows/amd64's are what the Wine
# run (test/wine.sh) executes, so they go to $CROSS_OUT (default dist/cross) for it.
# Usage: test/crossbuild.sh [GOOS/GOARCH...]   (default: every target below)
set -euo pipefail
cd "$(dirname "$0")/.."
GO="${GO:-go}"
out="${CROSS_OUT:-dist/cross}"

targets=("$@")
if ((${#targets[@]} == 0)); then
  targets=(linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64 windows/arm64)
fi
# One architecture per GOOS compiles the tests: test code differs by GOOS, hardly by GOARCH.
declare -A testc=([darwin/arm64]=1 [windows/amd64]=1)

fail=0
for t in "${targets[@]}"; do
  os=${t%/*} arch=${t#*/}
  start=$SECONDS
  if ! GOOS=$os GOARCH=$arch CGO_ENABLED=0 "$GO" build ./... ||
    ! GOOS=$os GOARCH=$arch CGO_ENABLED=0 "$GO" vet ./...; then
    echo "crossbuild: $t: build or vet failed" >&2
    fail=1
    continue
  fi
  what="build, vet"
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
