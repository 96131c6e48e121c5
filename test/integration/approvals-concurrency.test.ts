// First answer wins, under contention: 200 approvals, each answered twice at the same moment with
// different choices. Exactly one answer of each pair gets 200 and the other 409, and the stored
// choice is the winner's, whichever order Temporal and PostgreSQL saw them in.
import { expect } from 'vitest';
import { agentTest } from '../helpers/harness/fixtures.ts';
import { call } from '../helpers/client/request.ts';

const test = agentTest({ RATE_LIMIT_POINTS: '100000' });

const APPROVALS = 200;
/** Pairs in flight at once: enough to contend on a two-core machine without starving the worker. */
const PARALLEL = 25;

async function inBatches<T, R>(items: readonly T[], size: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = [];
  for (let i = 0; i < items.length; i += size) results.push(...(await Promise.all(items.slice(i, i + size).map(work))));
  return results;
}

test(
  `${APPROVALS} approvals answered twice at once: one 200 and one 409 each, the winner's choice stored`,
  { timeout: 240_000 },
  async ({ env }) => {
    const ids = await inBatches(
      Array.from({ length: APPROVALS }, (_, index) => index),
      PARALLEL,
      async (index) => {
        const created = await call<{ id: string }>(`${env.api.url}/approval`, {
          headers: env.user.auth,
          json: { question: `Contended question ${index}?`, options: ['left', 'right'] },
        });
        expect(created.status).toBe(201);
        return created.body.id;
      },
    );

    const outcomes = await inBatches(ids, PARALLEL, async (id) => {
      const [left, right] = await Promise.all(
        ['left', 'right'].map((choice) =>
          call<{ choice: string }>(`${env.api.url}/approval/${id}/answer`, {
            headers: env.user.auth,
            json: { choice, note: `from ${choice}` },
          }),
        ),
      );
      return { id, left: left!, right: right! };
    });

    for (const { id, left, right } of outcomes) {
      expect([left.status, right.status].sort(), id).toEqual([200, 409]);
      const winner = left.status === 200 ? 'left' : 'right';
      const stored = await call<{ status: string; choice: string; note: string }>(`${env.api.url}/approval/${id}`, {
        headers: env.user.auth,
      });
      expect(stored.body, id).toMatchObject({ status: 'answered', choice: winner, note: `from ${winner}` });
    }
  },
);
