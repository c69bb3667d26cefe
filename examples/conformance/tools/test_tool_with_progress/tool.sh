#!/usr/bin/env bash
# Reports progress 0, 50 and 100 of 100
set -euo pipefail
source "${MCP_SDK:?}/tool-sdk.sh"
# ~50 ms between steps, as the suite asks; also after the last one, so that the final
# notification does not reach the client in the same read as the result (clients built on the
# TypeScript SDK drop such progress: typescript-sdk#2580).
for p in 0 50 100; do
  mcp_is_cancelled && exit 0
  mcp_progress "$p" "step $p" 100
  sleep 0.05
done
echo "Tool with progress executed successfully"
