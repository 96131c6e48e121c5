// The OAuth consent page (/app/oauth/consent?request=oar_...): an MCP client (Claude, Cursor, VS Code)
// sent its user here to sign in. The signed-in person sees which client asks, for which scopes, and where
// it is sent back, then allows or denies it; the browser then goes back to the client with a code.
import { useState } from 'preact/hooks';
import { useClient } from '../auth/client-context.ts';
import type { Location } from '../router.tsx';
import { ProblemView } from '../ui/problem-view.tsx';
import { ScopeList } from '../ui/scope-list.tsx';
import { LoadedView } from '../ui/states.tsx';
import { timeLeft } from '../ui/time.ts';
import { useLoad } from '../ui/use-load.ts';

export function OAuthConsentPage({ location }: { location: Location }) {
  const id = location.query.get('request')?.trim();
  return (
    <>
      <h1>Allow an MCP client</h1>
      {id ? <Consent id={id} /> : <p>This page is opened by an MCP client signing in; the address it sent you to names the request.</p>}
    </>
  );
}

function Consent({ id }: { id: string }) {
  const client = useClient();
  const loaded = useLoad((signal) => client.oauth.authorization(id, { signal }), [client, id]);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(undefined);
  const [leaving, setLeaving] = useState<string | undefined>(undefined);

  const decide = async (allow: boolean) => {
    setBusy(true);
    setError(undefined);
    try {
      const { redirectUrl } = await client.oauth.decide(id, allow);
      setLeaving(redirectUrl);
      window.location.assign(redirectUrl);
    } catch (failure) {
      setError(failure);
      setBusy(false);
    }
  };

  return (
    <LoadedView loaded={loaded} what="the sign-in request">
      {(request) => (
        <section class="card" aria-labelledby="consent-heading">
          <h2 id="consent-heading">{request.client.name}</h2>
          <dl class="facts">
            {publisherOf(request.client.clientId) && (
              <>
                <dt>Published by</dt>
                <dd>
                  {/* A client ID metadata document's client names itself; its URL's host is who vouches for that name. */}
                  <code>{publisherOf(request.client.clientId)}</code>
                  {sendsElsewhere(request.client.clientId, request.redirectHost) && (
                    <p role="note">It sends you back to another host than the one that publishes it: allow it only if you know both.</p>
                  )}
                </dd>
              </>
            )}
            <dt>Asks for</dt>
            <dd>
              <ScopeList scopes={request.scopes} />
            </dd>
            {request.resource && (
              <>
                <dt>Only for</dt>
                <dd>
                  <code>{request.resource}</code>
                </dd>
              </>
            )}
            <dt>Sends you back to</dt>
            <dd>
              <code>{request.redirectHost}</code>
            </dd>
            <dt>Expires</dt>
            <dd>{timeLeft(request.expiresAt)}</dd>
          </dl>
          <p>
            Allow only a client you are signing in to yourself, just now. It gets a credential of yours with these scopes (those your key
            holds), listed with your keys, where you can delete it.
          </p>
          {error !== undefined && <ProblemView error={error} />}
          {leaving ? (
            <p role="status">Sending you back to {request.redirectHost}…</p>
          ) : (
            <div class="toolbar">
              <button type="button" disabled={busy} onClick={() => void decide(true)}>
                Allow
              </button>
              <button type="button" class="danger" disabled={busy} onClick={() => void decide(false)}>
                Deny
              </button>
            </div>
          )}
        </section>
      )}
    </LoadedView>
  );
}

/** The host of a client ID that is its metadata document's URL; undefined for a registered client's ID. */
function publisherOf(clientId: string): string | undefined {
  return /^https?:\/\//.test(clientId) ? new URL(clientId).host : undefined;
}

/** A document's client whose redirect goes to another host than its own (a desktop client's loopback aside). */
function sendsElsewhere(clientId: string, redirectHost: string): boolean {
  const publisher = publisherOf(clientId);
  const loopback = /^(localhost|127\.0\.0\.1|\[::1\])(:\d+)?$/.test(redirectHost);
  return publisher !== undefined && !loopback && redirectHost !== publisher;
}
