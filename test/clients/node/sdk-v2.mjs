// TypeScript SDK v2 (@modelcontextprotocol/client) drives the scripted sessions over stdio, with
// the version negotiation mode given as the first argument: legacy (initialize) or auto
// (probe with server/discover, fall back to initialize). Over Streamable HTTP
// (StreamableHTTPClientTransport) when the test serves the examples over HTTP.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { runSessions, serverParams, serverURL } from './lib.mjs';

const mode = process.argv[2] || 'legacy';
if (mode !== 'legacy' && mode !== 'auto') throw new Error(`unknown negotiation mode ${mode}`);

await runSessions({
  async connect(example, { elicit }) {
    const client = new Client({ name: `mcp-bash-sdk-v2-${mode}`, version: '1.0.0' }, {
      capabilities: elicit ? { elicitation: {} } : {},
      versionNegotiation: { mode, probe: { timeoutMs: 5000 } },
    });
    if (elicit) client.setRequestHandler('elicitation/create', elicit);
    const url = serverURL(example);
    await client.connect(url ? new StreamableHTTPClientTransport(url) : new StdioClientTransport({ ...serverParams(example), stderr: 'inherit' }));
    return client;
  },
  callTool: (client, params, opts) => client.callTool(params, opts),
  onLog: (client, fn) => client.setNotificationHandler('notifications/message', fn),
});
