// The official A2A SDK, loaded on the first A2A request: a process that serves no A2A client never pays
// for its import (it builds protocol codecs as it loads).
import type * as CoreModule from '@a2a-js/sdk';
import type * as ErrorsModule from '@a2a-js/sdk/errors';
import type * as ExpressModule from '@a2a-js/sdk/server/express';

export interface A2aSdk {
  core: typeof CoreModule;
  errors: typeof ErrorsModule;
  express: typeof ExpressModule;
}

let loading: Promise<A2aSdk> | undefined;

export function a2aSdk(): Promise<A2aSdk> {
  loading ??= Promise.all([import('@a2a-js/sdk'), import('@a2a-js/sdk/errors'), import('@a2a-js/sdk/server/express')])
    .then(([core, errors, express]) => ({ core, errors, express }))
    .catch((error: unknown) => {
      loading = undefined;
      throw error;
    });
  return loading;
}
