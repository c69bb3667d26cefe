#!/usr/bin/env bash
# The release dry run (make release-snapshot): GoReleaser's snapshot release of HEAD, twice, from
# two clones at different paths, the second with an empty Go build cache, so that every package
# is compiled again; then every release file of the two runs is compared byte for byte. The
# first run's dist/ is left in the checkout (bundle reuses its binaries).
#
# Environment: GO (default go); GORELEASER, a goreleaser binary (default: built once from the Go
# module proxy into bin/goreleaser-$GORELEASER_VERSION); KEEP=1 keeps the work folder;
# RELEASE_GOOS, a space-separated list (e.g. "linux"), narrows the release's operating systems
# in the clones' .goreleaser.yaml (for a checkout where the others do not build yet);
# EMPTY_CACHE=0 lets the second run share the build cache (quicker: it then checks paths and
# packaging, not compilation).
set -euo pipefail

GO=${GO:-go}
GORELEASER_VERSION=v2.15.1
root=$(git rev-parse --show-toplevel)
cd "$root"

if [[ -z ${GORELEASER:-} ]]; then
  GORELEASER=$root/bin/goreleaser-$GORELEASER_VERSION
  if [[ ! -x $GORELEASER ]]; then
    echo "release dry run: building goreleaser $GORELEASER_VERSION (once; several minutes)" >&2
    gobin=$(mktemp -d)
    GOBIN=$gobin "$GO" install "github.com/goreleaser/goreleaser/v2@$GORELEASER_VERSION"
    mkdir -p "$root/bin"
    mv "$gobin/goreleaser" "$GORELEASER"
    rmdir "$gobin"
  fi
fi

if ! git diff --quiet HEAD 2>/dev/null; then
  echo "release dry run: the working tree has uncommitted changes; the dry run builds HEAD ($(git rev-parse --short HEAD)) as committed" >&2
fi

work=$(mktemp -d)
if [[ ${KEEP:-} != 1 ]]; then trap 'chmod -R u+w "$work" 2>/dev/null; rm -rf "$work"' EXIT; fi

# The version make build stamps for a clean checkout of HEAD (Makefile, VERSION), so that a
# binary built from the same commit and the dry run's agree (bundle reuses binaries by version).
version() {
  local v c
  if v=$(git describe --tags --match 'v[0-9]*' 2>/dev/null); then echo "${v#v}"; return; fi
  c=$(git rev-parse --short=12 HEAD) && echo "0.0.0-$c"
}

declare -A seconds
for run in 1 2; do
  src=$work/run$run/src-$run
  git clone -q --no-hardlinks "$root" "$src"
  (cd "$src" && git checkout -q --detach "$(git -C "$root" rev-parse HEAD)")
  if [[ -n ${RELEASE_GOOS:-} ]]; then
    goos=$(echo "$RELEASE_GOOS" | tr -s ' ' ',')
    grep -q '^    goos: \[linux, darwin, windows\]$' "$src/.goreleaser.yaml" || { echo "release dry run: RELEASE_GOOS: .goreleaser.yaml has no goos line to narrow" >&2; exit 1; }
    sed -i "s/^    goos: \[linux, darwin, windows\]\$/    goos: [$goos]/" "$src/.goreleaser.yaml"
  fi
  env=(MCPBASH_VERSION="$(cd "$src" && version)")
  if [[ $run == 2 && ${EMPTY_CACHE:-1} != 0 ]]; then env+=(GOCACHE="$work/gocache-2"); fi
  echo "release dry run $run of 2 in $src (${env[*]})" >&2
  start=$(date +%s)
  (cd "$src" && env "${env[@]}" "$GORELEASER" release --snapshot --clean) >"$work/run$run.log" 2>&1 || {
    tail -n 40 "$work/run$run.log" >&2
    echo "release dry run $run failed (log: $work/run$run.log)" >&2
    trap - EXIT
    exit 1
  }
  seconds[$run]=$(($(date +%s) - start))
done

# The release's files: what checksums.txt lists, checksums.txt, and the Homebrew formula.
d1=$work/run1/src-1/dist d2=$work/run2/src-2/dist
mapfile -t files < <(awk '{print $2}' "$d1/checksums.txt")
files+=(checksums.txt homebrew/Formula/mcp-bash.rb)
same=0 differ=0 bytes=0
for f in "${files[@]}"; do
  if [[ ! -f $d1/$f || ! -f $d2/$f ]]; then
    echo "  missing in a run: $f" >&2
    differ=$((differ + 1))
  elif cmp -s "$d1/$f" "$d2/$f"; then
    same=$((same + 1))
    bytes=$((bytes + $(stat -c %s "$d1/$f")))
  else
    echo "  differs: $f" >&2
    differ=$((differ + 1))
  fi
done
(cd "$d1" && sha256sum -c --quiet checksums.txt) || { echo "release dry run: checksums.txt does not match the files" >&2; exit 1; }

rm -rf "$root/dist"
cp -a "$d1" "$root/dist"
echo "release dry run: ${#files[@]} release files ($(awk '{print $2}' "$d1/checksums.txt" | grep -c '\.tar\.gz$\|\.zip$') archives), run 1 ${seconds[1]}s, run 2 ${seconds[2]}s ($([[ ${EMPTY_CACHE:-1} != 0 ]] && echo empty || echo shared) build cache)"
echo "release dry run: $same identical ($((bytes / 1024)) KiB), $differ different"
if ((differ > 0)); then
  echo "release dry run: the two runs differ: the release is not reproducible" >&2
  exit 1
fi
echo "release dry run: dist/ holds run 1's release ($(cat "$root/dist/metadata.json" | tr -d '\n' | sed 's/.*"version": *"\([^"]*\)".*/version \1/'))"
