// Ids made inside workflows: deterministic (the workflow's seeded uuid4), so a replay makes the same ones.
import { uuid4 } from '@temporalio/workflow';

export function messageId(): string {
  return `msg_${uuid4().replace(/-/g, '')}`;
}
