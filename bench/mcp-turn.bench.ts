// A turn through the agent's MCP server (send_message, called with the official MCP client) beside the
// same turn through the API (the waiting send POST /session/<id>), on the same agent, the same sessions'
// kind and the same zero-delay fake model, in alternating blocks so a slow spell hits both alike. The
// goal is the issue's: a turn through MCP costs within 10% of one through the API. The MCP client is
// connected once, as a client stays connected; each call is one POST answered by a server built for it.
// A third target makes the same call as a bare JSON-RPC POST, so the ratios compare the server's cost alone.
import http from 'node:http';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Benchmark } from './benchmark.ts';
import { startAgentStack } from './agent-stack.ts';
import { summarize } from './measure.ts';
import { timedRequest } from './http-json.ts';

const TURNS = 100;
const WARMUP = 10;
const SESSIONS = 10;
const BLOCK = 10;
const REPLY = 'Hello from the fake model.';

const ratio = (a: number, b: number) => Math.round((a / b) * 100) / 100;
const cpuMs = () => {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1000;
};

const mcpTurn: Benchmark = {
  name: 'mcp-turn',
  description: `a turn through the agent's MCP server (send_message) beside the same turn through the API, ${TURNS} sequential runs each`,
  needs: ['postgres', 'temporal'],
  async run({ infra, log }) {
    const stack = await startAgentStack(infra, log, { fake: { defaultScript: { text: REPLY } } });
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const agents = [agent];
    const client = new Client({ name: 'bench', version: '1.0.0' });
    try {
      const agentName = await stack.deployAgent();
      const headers = Object.fromEntries(Object.entries(stack.headers).map(([name, value]) => [name, String(value)]));
      await client.connect(new StreamableHTTPClientTransport(new URL(`${stack.url}/agent/${agentName}/mcp`), { requestInit: { headers } }));
      const apiSessions = await Promise.all(Array.from({ length: SESSIONS }, () => stack.newSession(agentName)));
      const mcpSessions = await Promise.all(Array.from({ length: SESSIONS }, () => stack.newSession(agentName)));
      const rawSessions = await Promise.all(Array.from({ length: SESSIONS }, () => stack.newSession(agentName)));
      let apiNext = 0;
      let mcpNext = 0;
      let sent = 0;

      const viaApi = async () => {
        const { ms, body } = await stack.send(agent, apiSessions[apiNext++ % SESSIONS]!, `message ${++sent}`);
        if (body.reply !== REPLY) throw new Error(`unexpected reply ${JSON.stringify(body.reply)}`);
        return ms;
      };
      const viaMcp = async () => {
        const at = process.hrtime.bigint();
        const result = (await client.callTool({
          name: 'send_message',
          arguments: { message: `message ${++sent}`, sessionId: mcpSessions[mcpNext++ % SESSIONS]! },
        })) as CallToolResult;
        const ms = Number(process.hrtime.bigint() - at) / 1e6;
        const text = result.content.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('');
        if (result.isError || text !== REPLY) throw new Error(`unexpected result ${JSON.stringify(result)}`);
        return ms;
      };
      // The same call as one JSON-RPC POST on a keep-alive socket, as the API send is made: the server's
      // cost alone, without the MCP client's (its schema checks of the answer run in this process too).
      const rawAgent = new http.Agent({ keepAlive: true, maxSockets: 1 });
      agents.push(rawAgent);
      let rawNext = 0;
      const viaRawMcp = async () => {
        const { ms, status, body } = await timedRequest<{ result?: CallToolResult }>(rawAgent, `${stack.url}/agent/${agentName}/mcp`, {
          method: 'POST',
          headers: { ...stack.headers, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
          body: JSON.stringify({
            jsonrpc: '2.0',
            id: ++sent,
            method: 'tools/call',
            params: { name: 'send_message', arguments: { message: `message ${sent}`, sessionId: rawSessions[rawNext++ % SESSIONS]! } },
          }),
          timeoutMs: 60_000,
        });
        const text = body.result?.content.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('');
        if (status !== 200 || text !== REPLY) throw new Error(`unexpected answer ${status} ${JSON.stringify(body)}`);
        return ms;
      };
      const targets = [viaApi, viaMcp, viaRawMcp];
      const alternate = async (count: number) => {
        const samples = targets.map((): number[] => []);
        const cpu = targets.map(() => 0);
        for (let done = 0; done < count; done += BLOCK) {
          for (const [index, target] of targets.entries()) {
            const before = cpuMs();
            for (let i = 0; i < Math.min(BLOCK, count - done); i++) samples[index]!.push(await target());
            cpu[index]! += cpuMs() - before;
          }
        }
        return { samples, cpuPerTurn: cpu.map((ms) => Math.round((ms / count) * 100) / 100) };
      };

      log(`warming up (${WARMUP} each; every session gets its first turn)`);
      await alternate(Math.max(WARMUP, SESSIONS));
      log(`measuring (${TURNS} each)`);
      const { samples, cpuPerTurn } = await alternate(TURNS);
      const api = summarize(samples[0]!);
      const mcp = summarize(samples[1]!);
      const raw = summarize(samples[2]!);
      return {
        turns: TURNS,
        method:
          `sequential, alternating blocks of ${BLOCK}; the API turn is the waiting send on one keep-alive socket, the MCP turn ` +
          `send_message through the official client (connected once); API, worker and both clients share this process, so ` +
          `CPU per turn is the process's (the MCP client's own work included)`,
        api: { ...api, cpuPerTurnMs: cpuPerTurn[0] },
        mcpClient: { ...mcp, cpuPerTurnMs: cpuPerTurn[1] },
        mcpPost: { note: 'one JSON-RPC POST per call, no MCP client', ...raw, cpuPerTurnMs: cpuPerTurn[2] },
        ratioP50: ratio(raw.p50Ms, api.p50Ms),
        ratioP99: ratio(raw.p99Ms, api.p99Ms),
        cpuRatio: ratio(cpuPerTurn[2]!, cpuPerTurn[0]!),
        clientRatioP50: ratio(mcp.p50Ms, api.p50Ms),
        clientCpuRatio: ratio(cpuPerTurn[1]!, cpuPerTurn[0]!),
        goal: 'a turn through MCP within 10% of one through the API: ratioP50 and cpuRatio (the server alike) at most 1.1',
      };
    } finally {
      for (const each of agents) each.destroy();
      await client.close().catch(() => undefined);
      await stack.close();
    }
  },
};

export default mcpTurn;
