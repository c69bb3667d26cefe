#!/usr/bin/env bash
set -euo pipefail
source "${MCP_SDK:?}/tool-sdk.sh"
mcp_config_load --defaults '{"units":"imperial","timeout":10}' --example config/settings.example.json --file config/settings.json
echo "units=$(mcp_config_get .units) retries=$(mcp_config_get .retries) timeout=$(mcp_config_get .timeout)"
