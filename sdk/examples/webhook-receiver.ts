// A webhook receiver that verifies each delivery before trusting it (Standard Webhooks signatures).
//   WEBHOOK_SECRET=whsec_... PORT=8080 node --import tsx sdk/examples/webhook-receiver.ts
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { verifyWebhook, WebhookVerificationError } from '@agent-service/sdk';

const secret = process.env.WEBHOOK_SECRET;
if (!secret) throw new Error('Set WEBHOOK_SECRET to the secret shown when the webhook was created');
const seen = new Set<string>();

const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', async () => {
    try {
      // The raw bytes, as signed: verify before parsing.
      const event = await verifyWebhook(Buffer.concat(chunks), req.headers, secret);
      // A retry repeats the id: handle each delivery once.
      if (!seen.has(event.id)) {
        seen.add(event.id);
        console.log(`verified ${event.type} ${event.id}${event.type === 'session.completed' ? ` session ${event.data.sessionId}` : ''}`);
      }
      res.writeHead(204).end();
    } catch (error) {
      if (!(error instanceof WebhookVerificationError)) throw error;
      console.log(`refused: ${error.name}`);
      res.writeHead(400).end(error.name);
    }
  });
});

server.listen(Number(process.env.PORT ?? 8080), '127.0.0.1', () => {
  console.log(`listening on http://127.0.0.1:${(server.address() as AddressInfo).port}`);
});
