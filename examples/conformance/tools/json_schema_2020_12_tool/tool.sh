#!/usr/bin/env bash
# Tool with JSON Schema 2020-12 features
set -euo pipefail
source "${MCP_SDK:?}/tool-sdk.sh"
echo "ok"
