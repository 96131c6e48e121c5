// A custom tool run by this script: the agent's bundle declares it in `customTools` (here
// `lookup_order`), the model calls it, and runWithTools answers each call as it comes.
//   node --import tsx sdk/examples/client-tool.ts shop-agent "Where is order A-17?"
import { Client } from '@agent-service/sdk';

const [agent = 'shop-agent', message = 'Where is order A-17?'] = process.argv.slice(2);
const client = new Client();

const orders: Record<string, string> = { 'A-17': 'shipped on Monday', 'B-2': 'waiting for stock' };

const session = await client.sessions.create(agent);
const result = await client.sessions.runWithTools(session.id, message, {
  handlers: {
    lookup_order: async (input) => {
      const { orderId } = input as { orderId: string };
      console.log(`lookup_order(${orderId})`);
      return { orderId, status: orders[orderId] ?? 'unknown order' };
    },
  },
});
console.log(`final: ${result.text}`);

// After a crash of this script, a new run answers what the session still waits for:
//   await client.sessions.resumeTools(sessionId, { lookup_order: ... });
