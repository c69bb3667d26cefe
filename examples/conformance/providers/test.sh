#!/usr/bin/env bash
# The test:// scheme of the conformance suite. Exit codes: 3 not found, 4 invalid.
set -euo pipefail
uri="${1:-${MCP_RESOURCE_URI:-}}"
case "$uri" in
  test://static-text) cat resources/static-text.txt ;;
  test://static-binary) cat resources/static-binary.png ;;
  test://watched-resource) echo "This resource is watched for updates." ;;
  test://template/*/data)
    id="${uri#test://template/}"
    id="${id%/data}"
    [[ -n $id && $id != */* ]] || exit 3
    jq -cn --arg id "$id" '{id: $id, templateTest: true, data: ("Data for ID: " + $id)}'
    ;;
  *) exit 3 ;;
esac
