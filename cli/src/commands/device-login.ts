// The device flow of `login` (RFC 8628 in shape): the CLI asks the service for a code, shows it with
// the page where a logged-in person approves it (the dashboard, or `agent-service login approve
// <code>` on a machine that is logged in), and polls until it receives a key of its own, named after
// this machine. `logout` deletes that key again.
import os from 'node:os';
import { Client, DeviceTokenError, type CreateKeyBody } from '@agent-service/sdk';
import type { Command } from 'commander';
import type { Profile } from '../config.ts';
import { contextOf } from '../context.ts';
import { CliError } from '../exit-codes.ts';
import { withExamples } from '../help.ts';
import { note, printJson } from '../output.ts';
import { spinner } from '../spinner.ts';
import { err } from '../style.ts';

export async function deviceLogin(url: string, options: { scopes?: string[]; json: boolean }): Promise<Profile> {
  // No key: these calls are public. An AGENT_SERVICE_API_KEY in the environment must not ride along.
  const client = new Client({ baseUrl: url, apiKey: '' });
  const clientName = `agent-service CLI on ${os.hostname()}`;
  const code = await client.device.requestCode({
    clientName,
    ...(options.scopes ? { scopes: options.scopes as NonNullable<CreateKeyBody['scopes']> } : {}),
  });
  const style = err();
  note(
    [
      `To log in, approve the code ${style.bold(code.userCode)} at`,
      `  ${style.cyan(code.verificationUriComplete)}`,
      `or on a machine that is logged in: ${style.bold(`agent-service login approve ${code.userCode}`)}`,
      style.dim(`The code expires in ${Math.round(code.expiresIn / 60)} minutes.`),
    ].join('\n'),
  );
  const stop = new AbortController();
  const onInterrupt = () => stop.abort();
  process.once('SIGINT', onInterrupt);
  const waiting = spinner('Waiting for approval…', { quiet: options.json });
  try {
    const created = await client.device.waitForKey(code, { signal: stop.signal });
    return { url, key: created.key, keyId: created.id, minted: true };
  } catch (error) {
    if (stop.signal.aborted) throw new CliError('Login cancelled');
    if (error instanceof DeviceTokenError) {
      if (error.error === 'access_denied') throw new CliError('The login was denied');
      if (error.error === 'expired_token') throw new CliError('The code expired before it was approved; run `agent-service login` again');
      throw new CliError(`The login failed: ${error.error}`);
    }
    throw error;
  } finally {
    waiting.stop();
    process.off('SIGINT', onInterrupt);
  }
}

/** `login approve <code>`: what the dashboard does, from a terminal that is logged in. */
export function registerLoginApprove(login: Command): void {
  const approve = login
    .command('approve')
    .description("Approve (or --deny) another device's login with this profile's key: it gets a key of its own")
    .argument('<code>', 'the code the other device shows (ABCD-EFGH)')
    .option('--deny', 'deny it instead')
    .action(async (userCode: string, options: { deny?: boolean }, command: Command) => {
      const context = contextOf(command);
      const client = context.client();
      const asked = await client.device.get(userCode);
      const decided = options.deny ? await client.device.deny(userCode) : await client.device.approve(userCode);
      if (context.json) return printJson(decided);
      note(
        options.deny
          ? `Denied the login of ${asked.clientName}.`
          : `${err().green('Approved')} the login of ${asked.clientName} (${decided.scopes.join(', ')}).`,
      );
    });
  withExamples(approve, ['agent-service login approve BCDF-GHJK', 'agent-service login approve BCDF-GHJK --deny']);
}
