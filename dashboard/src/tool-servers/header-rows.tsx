// The headers of a remote MCP server as name/value rows: one row per header, added and removed one at
// a time, so a value with commas or colons (a bearer token, a cookie) needs no quoting rules.
export interface HeaderRow {
  name: string;
  value: string;
}

export const EMPTY_ROW: HeaderRow = { name: '', value: '' };

/** The rows with a name, as the body's `headers`; a name given twice is refused before anything is sent. */
export function headersOf(rows: readonly HeaderRow[]): Record<string, string> {
  const headers: Record<string, string> = {};
  const seen = new Set<string>();
  for (const row of rows) {
    const name = row.name.trim();
    if (!name) continue;
    if (seen.has(name.toLowerCase())) throw new Error(`The header ${name} is given twice.`);
    seen.add(name.toLowerCase());
    headers[name] = row.value;
  }
  return headers;
}

export function HeaderRows({ rows, onChange }: { rows: readonly HeaderRow[]; onChange(rows: HeaderRow[]): void }) {
  const update = (index: number, change: Partial<HeaderRow>) =>
    onChange(rows.map((row, at) => (at === index ? { ...row, ...change } : row)));
  return (
    <fieldset>
      <legend>Headers (optional)</legend>
      <p id="mcp-headers-help" class="hint">
        Sent with every request. Values are stored as written and never shown again: put a credential in a secret whose hosts include this
        server's host, and write <code>{'{{secrets.KEY}}'}</code> here (<code>{'Bearer {{secrets.TICKETS_TOKEN}}'}</code>).
      </p>
      {rows.map((row, index) => (
        <div class="row" key={index}>
          <div>
            <label for={`mcp-header-name-${index}`}>Header {index + 1} name</label>
            <input
              id={`mcp-header-name-${index}`}
              placeholder="Authorization"
              autoComplete="off"
              spellcheck={false}
              value={row.name}
              onInput={(event) => update(index, { name: event.currentTarget.value })}
            />
          </div>
          <div>
            <label for={`mcp-header-value-${index}`}>Header {index + 1} value</label>
            <input
              id={`mcp-header-value-${index}`}
              placeholder="Bearer {{secrets.TICKETS_TOKEN}}"
              autoComplete="off"
              spellcheck={false}
              aria-describedby="mcp-headers-help"
              value={row.value}
              onInput={(event) => update(index, { value: event.currentTarget.value })}
            />
          </div>
          <button
            type="button"
            class="secondary small"
            aria-label={`Remove header ${index + 1}`}
            onClick={() => onChange(rows.filter((_, at) => at !== index))}
          >
            Remove
          </button>
        </div>
      ))}
      <button type="button" class="secondary small" onClick={() => onChange([...rows, EMPTY_ROW])}>
        Add header
      </button>
    </fieldset>
  );
}
