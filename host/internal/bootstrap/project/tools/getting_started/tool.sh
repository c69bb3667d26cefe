#!/usr/bin/env bash
# The one tool of the built-in project: tells the user how to make a real one.
source "${MCP_SDK}/tool-sdk.sh"

mcp_emit_text "No mcp-bash project was found for this server.

To create one:
  mcp-bash new my-server        # creates ./my-server with a hello tool
  cd my-server && mcp-bash run-tool hello --args '{\"name\":\"World\"}'

Then point your MCP client at it, either by starting mcp-bash inside the project
directory or by setting MCPBASH_PROJECT_ROOT=/path/to/my-server in the client's
server configuration (mcp-bash config --client claude-desktop prints a snippet).

A project is a directory with server.d/server.meta.json and tools/<name>/tool.sh
(+ tool.meta.json). Tools run in a sandbox by default: they see only the
configured roots.

Installing mcp-bash and a first project:
  https://github.com/mcp-bash/mcp-bash/blob/main/README.md#quick-start
The project layout:
  https://github.com/mcp-bash/mcp-bash/blob/main/docs/PROJECT-STRUCTURE.md"
