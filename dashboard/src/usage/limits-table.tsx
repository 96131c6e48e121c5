// What the service lets this user hold, all its keys together, and what it holds now (GET /limits):
// each limit in words, its use, and the server setting an operator changes it with.
import type { Limits } from '@agent-service/sdk';

/** The limits in the order a user meets them, each in words. */
const LABELS: ReadonlyArray<[keyof Limits, string]> = [
  ['requests', 'Requests this window'],
  ['openStreams', 'Open streams and waiting sends'],
  ['runningTurns', 'Turns running a model step (more wait their turn)'],
  ['openApprovals', 'Unanswered approvals'],
  ['schedules', 'Cron schedules'],
  ['keys', 'API keys'],
  ['storedBytes', 'Uploaded bytes'],
];

function amount(key: keyof Limits, value: number): string {
  if (key !== 'storedBytes') return value.toLocaleString();
  return value >= 1024 * 1024 ? `${(value / (1024 * 1024)).toFixed(1)} MiB` : `${value.toLocaleString()} B`;
}

export function LimitsTable({ limits }: { limits: Limits }) {
  return (
    <table>
      <caption class="hint">Limits per user: all your keys count together. Operators set them with the named settings.</caption>
      <thead>
        <tr>
          <th scope="col">Limit</th>
          <th scope="col">Used</th>
          <th scope="col">Of</th>
          <th scope="col">Setting</th>
        </tr>
      </thead>
      <tbody>
        {LABELS.map(([key, label]) => {
          const { used, limit, setting } = limits[key] as { used: number; limit: number; setting: string };
          return (
            <tr key={key}>
              <th scope="row">{label}</th>
              <td>{amount(key, used)}</td>
              <td>{amount(key, limit)}</td>
              <td>
                <code>{setting}</code>
              </td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}
