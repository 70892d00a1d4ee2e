import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
const t = new StdioClientTransport({ command: process.execPath, args: ['bin/levelcode-sessions.js', 'mcp', '--dir', process.argv[2]], stderr: 'inherit' });
const c = new Client({ name: 'try', version: '0' });
await c.connect(t);
const tools = await c.listTools();
console.log(JSON.stringify(tools.tools.map(t => [t.name, Object.keys(t.inputSchema.properties ?? {})])));
console.log(JSON.stringify(tools.tools[0].inputSchema).slice(0, 600));
for (const [name, args] of JSON.parse(process.argv[3])) {
  const t0 = performance.now();
  const r = await c.callTool({ name, arguments: args });
  console.log(`--- ${name} ${JSON.stringify(args)} ${(performance.now()-t0).toFixed(0)}ms isError=${r.isError}`);
  console.log(r.content.map(x => x.text).join('\n').slice(0, 3000));
}
await c.close();
