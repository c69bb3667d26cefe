#!/bin/sh
# tee-server.sh CAPTURE_DIR BINARY PROJECT
#
# Runs `BINARY --project-root PROJECT` on stdio for an MCP client, copying every line the client
# writes to CAPTURE_DIR/<pid>.in and every line the server writes to CAPTURE_DIR/<pid>.out, so
# the Go test can validate each session against the MCP schema. <pid>.done marks a clean end.
set -u
dir=$1 bin=$2 project=$3
tee -a "$dir/$$.in" | "$bin" --project-root "$project" | tee -a "$dir/$$.out" >&1
status=$?
: > "$dir/$$.done"
exit $status
