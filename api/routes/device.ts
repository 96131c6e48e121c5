// Device logins (the CLI's `login`), RFC 8628 in shape: a device asks for codes without a key, a
// person approves the user code with a key of theirs, and the device's next poll receives a key of
// that person, minted then (so no key is ever stored) and handed out once.
import { OPERATIONS } from '../../contract/operations/index.ts';
import { DEVICE_POLL_INTERVAL_SECONDS, type DeviceAuthorization as DeviceAuthorizationView } from '../../contract/operations/device.ts';
import { defineRoute } from '../route.ts';
import { countKeys } from '../../store/api-keys.ts';
import { refusePastKeyLimit } from '../user-limits.ts';
import type { ApiDeps } from '../context.ts';
import { publicBaseUrl } from '../public-url.ts';
import { scopesToGrant } from '../key-scopes.ts';
import { createRateLimiter } from '../middleware/rate-limit.ts';
import { displayUserCode, newDeviceCode, newUserCode, normaliseUserCode } from '../device/codes.ts';
import {
  answerDeviceAuthorization,
  findDeviceAuthorization,
  insertDeviceAuthorization,
  pollDeviceAuthorization,
  type DeviceAuthorization,
} from '../../store/device-authorizations.ts';
import type { Principal } from '../../store/api-keys.ts';
import { ConflictError, DependencyUnavailableError, DeviceGrantError, NotFoundError } from '../../lib/workflow-safe/errors.ts';
import { sha256Hex } from '../../lib/crypto.ts';

/** A device login gets `admin` only when it asks for it by name. */
const DEVICE_GRANT = { adminOnlyByName: true } as const;

/** Where a logged-in person approves a code: the dashboard's page. */
const VERIFICATION_PATH = '/app/device';

const NOT_FOUND = 'No device login waits with this code (it may have expired)';

/** Draws of a user code that is not taken; a clash is already rare, several in a row mean something else. */
const USER_CODE_DRAWS = 5;

function view(authorization: DeviceAuthorization, caller: Principal): DeviceAuthorizationView {
  return {
    userCode: displayUserCode(authorization.userCode),
    clientName: authorization.clientName,
    requestedFrom: authorization.requestedFrom,
    requestedAt: authorization.requestedAt.toISOString(),
    // What approving grants: those asked for, else the approver's own but `admin` (api/key-scopes.ts).
    scopes: authorization.grantedScopes ?? authorization.requestedScopes ?? caller.scopes.filter((scope) => scope !== 'admin'),
    status: authorization.status,
    expiresAt: authorization.expiresAt.toISOString(),
  };
}

async function unexpiredOrNotFound(deps: ApiDeps, typed: string): Promise<DeviceAuthorization> {
  const userCode = normaliseUserCode(typed);
  const authorization = userCode && (await findDeviceAuthorization(deps.db, userCode));
  if (!authorization) throw new NotFoundError(NOT_FOUND);
  return authorization;
}

export function deviceRoutes(deps: ApiDeps) {
  const { codeTtlMs, codeRateLimitPoints } = deps.config.device;
  // Each request stores a row without a key: its own budget per address, far below the general one.
  const perAddress = createRateLimiter({
    db: deps.db,
    points: codeRateLimitPoints,
    windowSeconds: deps.config.limits.rateLimitWindowSeconds,
    prefix: 'devicecode',
  });

  async function answer(typed: string, caller: Principal, status: 'approved' | 'denied') {
    const found = await unexpiredOrNotFound(deps, typed);
    // The key is made when the device polls; a user already at the limit is told now, by name.
    if (status === 'approved') refusePastKeyLimit(await countKeys(deps.db, caller.userId), deps.config.limits.keysPerUser);
    const answered = await answerDeviceAuthorization(
      deps.db,
      found.userCode,
      status === 'approved'
        ? { status, userId: caller.userId, scopes: scopesToGrant(caller, found.requestedScopes, DEVICE_GRANT) }
        : { status },
    );
    if (answered) return { status: 200, body: view(answered, caller) };
    // Not pending any more: answered by someone else meanwhile, or expired (then it is not found).
    const now = await unexpiredOrNotFound(deps, typed);
    throw new ConflictError(`This device login was already ${now.status}`);
  }

  return [
    defineRoute(OPERATIONS.requestDeviceCode, {
      async handle({ req, body }) {
        await perAddress.consume(`ip:${req.ip ?? 'unknown'}`);
        const deviceCode = newDeviceCode();
        let userCode: string | undefined;
        for (let draw = 0; draw < USER_CODE_DRAWS && !userCode; draw++) {
          const candidate = newUserCode();
          const inserted = await insertDeviceAuthorization(deps.db, {
            deviceCodeHash: sha256Hex(deviceCode),
            userCode: candidate,
            clientName: body.clientName,
            requestedFrom: req.ip ?? null,
            scopes: body.scopes ?? null,
            intervalSeconds: DEVICE_POLL_INTERVAL_SECONDS,
            ttlMs: codeTtlMs,
          });
          if (inserted) userCode = candidate;
        }
        if (!userCode) throw new DependencyUnavailableError('No free user code was found; try again');
        const verificationUri = `${publicBaseUrl(deps.config, req)}${VERIFICATION_PATH}`;
        const shown = displayUserCode(userCode);
        return {
          status: 200,
          body: {
            deviceCode,
            userCode: shown,
            verificationUri,
            verificationUriComplete: `${verificationUri}?code=${shown}`,
            expiresIn: Math.max(1, Math.floor(codeTtlMs / 1000)),
            interval: DEVICE_POLL_INTERVAL_SECONDS,
          },
        };
      },
    }),
    defineRoute(OPERATIONS.pollDeviceToken, {
      async handle({ body }) {
        const outcome = await pollDeviceAuthorization(deps.db, sha256Hex(body.deviceCode));
        switch (outcome.kind) {
          case 'key': {
            const { apiKey, key } = outcome;
            return {
              status: 200,
              body: { id: apiKey.id, key, name: apiKey.name, scopes: apiKey.scopes, createdAt: apiKey.createdAt.toISOString() },
            };
          }
          case 'pending':
            throw new DeviceGrantError('authorization_pending', 'The user has not answered yet; poll again after the interval');
          case 'slowDown':
            throw new DeviceGrantError(
              'slow_down',
              `Polled sooner than the interval; wait ${outcome.intervalSeconds} s between polls from now on`,
              outcome.intervalSeconds,
            );
          case 'expired':
            throw new DeviceGrantError('expired_token', 'The device code has expired; ask for a new one');
          case 'denied':
            throw new DeviceGrantError('access_denied', 'The user denied this device login');
          case 'handedOut':
            throw new DeviceGrantError('invalid_grant', 'The key of this device code was already handed out');
          case 'unknown':
            throw new DeviceGrantError('invalid_grant', 'Unknown device code');
        }
      },
    }),
    defineRoute(OPERATIONS.getDeviceAuthorization, {
      async handle({ params, principal }) {
        return { status: 200, body: view(await unexpiredOrNotFound(deps, params.userCode!), principal!) };
      },
    }),
    defineRoute(OPERATIONS.approveDeviceAuthorization, {
      handle: ({ params, principal }) => answer(params.userCode!, principal!, 'approved'),
    }),
    defineRoute(OPERATIONS.denyDeviceAuthorization, {
      handle: ({ params, principal }) => answer(params.userCode!, principal!, 'denied'),
    }),
  ];
}
