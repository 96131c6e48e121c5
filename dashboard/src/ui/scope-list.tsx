// A key's or a grant's scopes, inline, each as code: what the device login and the OAuth consent pages
// show a person before they approve.
export function ScopeList({ scopes }: { scopes: readonly string[] }) {
  return (
    <ul class="inline-list">
      {scopes.map((scope) => (
        <li key={scope}>
          <code>{scope}</code>
        </li>
      ))}
    </ul>
  );
}
