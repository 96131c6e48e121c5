// Why a model could not even be built: the agent names a provider this service does not know, or
// the provider lacks a key or base URL. Retrying cannot help, so the turn fails at once with the
// message, which is written for the agent's owner (what to set, and where).

export abstract class ModelConfigError extends Error {
  readonly retryable = false;
}

export class UnknownProviderError extends ModelConfigError {
  override name = 'UnknownProviderError';
  constructor(
    readonly providerId: string,
    known: readonly string[],
  ) {
    super(`Unknown model provider "${providerId}"; known providers: ${known.join(', ')}.`);
  }
}

export class MissingApiKeyError extends ModelConfigError {
  override name = 'MissingApiKeyError';
  constructor(
    readonly providerId: string,
    readonly variable: string,
    /** Set when the base URL came from the user's secret of this name. */
    baseUrlSecret?: string,
  ) {
    super(
      baseUrlSecret
        ? `The ${providerId} provider has no API key for the base URL in your secret ${baseUrlSecret}. A key from the ` +
            `service's environment is never sent to a base URL of your choosing: store a secret named ${variable} and grant ` +
            `it to the agent (secretGrants).`
        : `The ${providerId} provider has no API key: set ${variable} in the service's environment, ` +
            `or store a secret named ${variable} and grant it to the agent (secretGrants).`,
    );
  }
}

export class MissingBaseUrlError extends ModelConfigError {
  override name = 'MissingBaseUrlError';
  constructor(
    readonly providerId: string,
    readonly variable: string,
  ) {
    super(
      `The ${providerId} provider needs the base URL of a Chat Completions server (e.g. http://localhost:11434/v1): ` +
        `set ${variable} in the service's environment, or store a secret named ${variable} and grant it to the agent (secretGrants).`,
    );
  }
}

export class InvalidBaseUrlError extends ModelConfigError {
  override name = 'InvalidBaseUrlError';
  constructor(
    readonly providerId: string,
    readonly variable: string,
  ) {
    // The value itself stays out of the message: a mistyped secret may hold something private.
    super(`The ${providerId} provider's base URL (${variable}) is not an http(s) URL.`);
  }
}

/**
 * A base URL from the user's secret that the outbound guard refuses (lib/outbound.ts): it is, or
 * resolves to, a private, loopback, link-local or metadata address, or it carries credentials.
 */
export class RefusedBaseUrlError extends ModelConfigError {
  override name = 'RefusedBaseUrlError';
  constructor(
    readonly providerId: string,
    readonly variable: string,
    /** The refused range ("loopback", "private", ...), or why the URL itself was refused. */
    readonly reason: { range: string } | { problem: string },
  ) {
    // Neither the URL nor the resolved address is echoed: the range says enough to fix it.
    super(
      'range' in reason
        ? `The ${providerId} provider's base URL in your secret ${variable} points at a refused address (${reason.range}). ` +
            `The service does not send requests to private, loopback, link-local or metadata addresses on a user's behalf ` +
            `unless its operator allows them (OUTBOUND_ALLOW_CIDRS).`
        : `The ${providerId} provider's base URL in your secret ${variable} was refused: it ${reason.problem}.`,
    );
  }
}
