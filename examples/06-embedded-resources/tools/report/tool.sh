#!/usr/bin/env bash
set -euo pipefail
source "${MCP_SDK:?}/tool-sdk.sh"
printf 'name,score\nada,42\n' > "$TMPDIR/report.csv"
mcp_result_text_with_resource '{"rows":1}' --path "$TMPDIR/report.csv" --mime text/csv --uri report://latest.csv
