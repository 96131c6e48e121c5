// Device login (RFC 8628 in shape): how a program without a key (the CLI's `login`) gets one. It asks
// for codes, shows the user code and the page where a logged-in person approves it, then waits for
// the key with `waitForKey`; the approving side (the dashboard, `login approve`) uses get/approve/deny.
import type { CreatedKey, DeviceAuthorization, DeviceCode, DeviceTokenProblem, RequestDeviceCodeBody } from '../contract.ts';
import { BadRequestError } from '../errors.ts';
import { sleep } from '../retry.ts';
import { path, type RequestOptions } from '../transport.ts';
import { Resource } from './resource.ts';

export type DeviceTokenErrorCode = NonNullable<DeviceTokenProblem['error']>;

/** RFC 8628 §3.5: a slowed-down device adds this to its interval when the answer names none. */
const SLOW_DOWN_STEP_SECONDS = 5;

/**
 * A poll that gave no key: `error` says why. authorization_pending and slow_down mean "poll again
 * later" (`waitForKey` does); expired_token, access_denied and invalid_grant end the login.
 */
export class DeviceTokenError extends BadRequestError {
  override name = 'DeviceTokenError';
  readonly error: DeviceTokenErrorCode;
  /** With slow_down: the seconds to wait between polls from now on. */
  readonly interval: number | undefined;

  constructor(from: BadRequestError, problem: DeviceTokenProblem & { error: DeviceTokenErrorCode }) {
    super({ status: from.status, problem, headers: from.headers, body: from.body });
    this.error = problem.error;
    this.interval = problem.interval;
  }
}

function asTokenError(error: unknown): unknown {
  if (!(error instanceof BadRequestError)) return error;
  const problem = error.body as DeviceTokenProblem | undefined;
  return typeof problem?.error === 'string' ? new DeviceTokenError(error, { ...problem, error: problem.error }) : error;
}

export class Device extends Resource {
  /** Starts a login: no key needed. Show `userCode` and `verificationUri` to the user, then `waitForKey`. */
  requestCode(body: RequestDeviceCodeBody, options?: RequestOptions): Promise<DeviceCode> {
    return this.transport.json({ method: 'POST', path: '/device/code', json: body, idempotent: false }, options);
  }

  /**
   * One poll: the key once the login is approved (handed out once), else a DeviceTokenError. Wait
   * `interval` seconds between polls, or use `waitForKey`.
   */
  async pollToken(deviceCode: string, options?: RequestOptions): Promise<CreatedKey> {
    try {
      // Not idempotent: the poll that succeeds hands the key out, and a repeat of it would not.
      return await this.transport.json<CreatedKey>(
        { method: 'POST', path: '/device/token', json: { deviceCode }, idempotent: false },
        options,
      );
    } catch (error) {
      throw asTokenError(error);
    }
  }

  /**
   * Polls every `interval` seconds (longer once told to slow down) until the login is approved, and
   * returns the new key; throws a DeviceTokenError when it is denied (access_denied) or expires
   * (expired_token). `signal` stops the wait.
   */
  async waitForKey(code: Pick<DeviceCode, 'deviceCode' | 'interval'>, options: RequestOptions = {}): Promise<CreatedKey> {
    let interval = code.interval;
    for (;;) {
      await sleep(interval * 1000, options.signal);
      try {
        return await this.pollToken(code.deviceCode, options);
      } catch (error) {
        if (!(error instanceof DeviceTokenError)) throw error;
        if (error.error === 'slow_down') interval = error.interval ?? interval + SLOW_DOWN_STEP_SECONDS;
        else if (error.error !== 'authorization_pending') throw error;
      }
    }
  }

  /** What a login asks for (the approving user's view): its client's name, the scopes, its status. */
  get(userCode: string, options?: RequestOptions): Promise<DeviceAuthorization> {
    return this.transport.json({ method: 'GET', path: path`/device/${userCode}`, idempotent: true }, options);
  }

  /** Approves a login with the calling key: the device's next poll gets a key of the caller. Once only (409 after). */
  approve(userCode: string, options?: RequestOptions): Promise<DeviceAuthorization> {
    return this.transport.json({ method: 'POST', path: path`/device/${userCode}/approve`, idempotent: false }, options);
  }

  /** Denies a login: the device's polls answer access_denied. Once only (409 after). */
  deny(userCode: string, options?: RequestOptions): Promise<DeviceAuthorization> {
    return this.transport.json({ method: 'POST', path: path`/device/${userCode}/deny`, idempotent: false }, options);
  }
}
