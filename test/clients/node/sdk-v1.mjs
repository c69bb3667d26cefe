// TypeScript SDK v1 (@modelcontextprotocol/sdk) drives the scripted sessions over stdio, or over
// Streamable HTTP (StreamableHTTPClientTransport) when the test serves the examples over HTTP.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema, LoggingMessageNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { runSessions, serverParams, serverURL } from './lib.mjs';

await runSessions({
  async connect(example, { elicit }) {
    const client = new Client({ name: 'mcp-bash-sdk-v1', version: '1.0.0' }, { capabilities: elicit ? { elicitation: {} } : {} });
    if (elicit) client.setRequestHandler(ElicitRequestSchema, elicit);
    const url = serverURL(example);
    await client.connect(url ? new StreamableHTTPClientTransport(url) : new StdioClientTransport({ ...serverParams(example), stderr: 'inherit' }));
    return client;
  },
  callTool: (client, params, opts) => client.callTool(params, undefined, opts),
  onLog: (client, fn) => client.setNotificationHandler(LoggingMessageNotificationSchema, fn),
});
