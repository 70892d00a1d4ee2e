#!/usr/bin/env node
// A minimal ACP agent on the official SDK (`agent()` of @agentclientprotocol/sdk), with none of
// the optional session methods (no load, list or resume): for the proxy's latency figure in
// bench/acp.mjs and for test/acp/acp.test.ts (an agent that gains them through the proxy). It
// answers each prompt at once with three message chunks, a finished tool call and end_turn, so
// that a round trip measures the transport and whatever sits in it, not a model. With
// ACP_TEST_ECHO set, its first chunk repeats the prompt's text (what the agent was told). A
// prompt asking for a summary (the proxy's, server/acp/replay.ts) is answered with one naming the
// range of "question N" it read; with ACP_TEST_LOG set, each such prompt is appended there.
import { randomUUID } from 'node:crypto';
import { appendFileSync } from 'node:fs';
import { Readable, Writable } from 'node:stream';
import { agent, methods, ndJsonStream } from '@agentclientprotocol/sdk';

let n = 0;
const app = agent({ name: 'bench-agent' })
  .onRequest(methods.agent.initialize, () => ({ protocolVersion: 1, agentCapabilities: {}, authMethods: [] }))
  .onRequest(methods.agent.session.new, () => ({ sessionId: `bench-${++n}-${randomUUID()}` }))
  .onRequest(methods.agent.session.prompt, async ({ params, client }) => {
    const sessionId = params.sessionId;
    const update = (u) => client.notify(methods.client.session.update, { sessionId, update: u });
    const said = params.prompt.map((b) => b.text ?? '').join('\n');
    if (said.startsWith('[levelcode-sessions: a summary is needed')) {
      if (process.env.ACP_TEST_LOG) appendFileSync(process.env.ACP_TEST_LOG, `${JSON.stringify({ sessionId, text: said })}\n`);
      const ns = [...said.matchAll(/questions? (\d+)/g)].map((x) => Number(x[1]));
      const last = [...said.matchAll(/questions \d+ to (\d+)/g)].map((x) => Number(x[1]));
      const hi = Math.max(...ns, ...last);
      await update({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: `Summary: the user asked questions ${Math.min(...ns)} to ${hi}.` } });
      // A call the proxy must keep from the editor, as it does the whole of this session.
      await update({ sessionUpdate: 'tool_call', toolCallId: `s${n}`, title: 'summarising', kind: 'think', status: 'completed', rawInput: {} });
      return { stopReason: 'end_turn' };
    }
    if (process.env.ACP_TEST_ECHO)
      await update({
        sessionUpdate: 'agent_message_chunk',
        content: { type: 'text', text: `echo: ${params.prompt.map((b) => b.text ?? '').join('\n')}\n` },
      });
    for (const text of ['An ', 'answer ', 'streamed.'])
      await update({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text } });
    await update({ sessionUpdate: 'tool_call', toolCallId: `t${n}`, title: 'echo', kind: 'execute', status: 'pending', rawInput: { command: 'echo' } });
    await update({
      sessionUpdate: 'tool_call_update',
      toolCallId: `t${n}`,
      status: 'completed',
      content: [{ type: 'content', content: { type: 'text', text: 'ok' } }],
    });
    return { stopReason: 'end_turn' };
  });
app.connect(ndJsonStream(Writable.toWeb(process.stdout), Readable.toWeb(process.stdin)));
