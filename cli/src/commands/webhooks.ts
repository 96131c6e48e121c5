// webhooks ls|add|rm|deliveries
import type { Command } from 'commander';
import type { CreateWebhookBody } from '@agent-service/sdk';
import { WEBHOOK_EVENTS } from '../../../contract/webhook-events.ts';
import { contextOf } from '../context.ts';
import { withExamples } from '../help.ts';
import { age, note, printJson, printLine, printTable } from '../output.ts';
import { err } from '../style.ts';

export function registerWebhooks(program: Command): void {
  const webhooks = program.command('webhooks').description('Subscriptions that POST events to your URLs, signed');
  withExamples(webhooks, ['agent-service webhooks add https://example.com/hooks --event session.completed', 'agent-service webhooks ls']);

  withExamples(
    webhooks
      .command('ls')
      .alias('list')
      .description('Your webhooks (never a secret)')
      .action(async (_options: object, command: Command) => {
        const context = contextOf(command);
        const { webhooks: list } = await context.client().webhooks.list();
        if (context.json) return printJson(list);
        printTable(
          ['ID', 'STATUS', 'URL', 'EVENTS'],
          list.map((hook) => [hook.id, hook.status, hook.url, hook.events.join(',')]),
          'No webhooks.',
        );
      }),
    ['agent-service webhooks ls'],
  );

  withExamples(
    webhooks
      .command('add')
      .description('Subscribe a URL to events; prints the signing secret, shown this once')
      .argument('<url>')
      // The service's own list (the dashboard's too), so a new event type reaches --help with no edit here.
      .requiredOption('-e, --event <event...>', `one or more of: ${WEBHOOK_EVENTS.join(', ')}`)
      .action(async (url: string, options: { event: string[] }, command: Command) => {
        const context = contextOf(command);
        const created = await context.client().webhooks.create({ url, events: options.event as CreateWebhookBody['events'] });
        if (context.json) return printJson(created);
        printLine(created.secret);
        note(err().dim(`${created.id}: the secret above signs every delivery; shown this once`));
      }),
    ['agent-service webhooks add https://example.com/hooks -e session.completed session.failed'],
  );

  withExamples(
    webhooks
      .command('rm')
      .alias('delete')
      .description('Delete a webhook; its pending deliveries stop')
      .argument('<id>')
      .action(async (id: string, _options: object, command: Command) => {
        const context = contextOf(command);
        await context.client().webhooks.delete(id);
        if (context.json) return printJson({ deleted: id });
        note(`Deleted ${id}.`);
      }),
    ['agent-service webhooks rm whk_123'],
  );

  withExamples(
    webhooks
      .command('deliveries')
      .description("A webhook's deliveries, newest first, with their attempts")
      .argument('<id>')
      .option('-n, --limit <n>', 'at most this many', '20')
      .action(async (id: string, options: { limit: string }, command: Command) => {
        const context = contextOf(command);
        const limit = Number(options.limit);
        const list = [];
        for await (const delivery of context.client().webhooks.deliveries.list(id)) {
          list.push(delivery);
          if (list.length >= limit) break;
        }
        if (context.json) return printJson(list);
        printTable(
          ['ID', 'TYPE', 'STATUS', 'ATTEMPTS', 'LAST', 'CREATED'],
          list.map((delivery) => {
            const last = delivery.attempts.at(-1);
            return [
              delivery.id,
              delivery.type,
              delivery.status,
              delivery.attempts.length,
              last ? (last.statusCode ?? last.error) : '-',
              age(delivery.createdAt),
            ];
          }),
          'No deliveries yet.',
        );
      }),
    ['agent-service webhooks deliveries whk_123'],
  );
}
