// A tool server's check: GET /mcp/<id>, which for a remote server connects and lists its tools now.
// Its tools, or why the server could not be reached; checked again on demand, since the point is to
// see whether a fixed URL or header works.
import { useClient } from '../auth/client-context.ts';
import { ProblemView } from '../ui/problem-view.tsx';
import { Loading } from '../ui/states.tsx';
import { useLoad } from '../ui/use-load.ts';

export function ServerCheck({ id }: { id: string }) {
  const client = useClient();
  const checked = useLoad((signal) => client.mcps.retrieve(id, { signal }), [client, id]);
  const tools = checked.data?.tools;
  return (
    <section aria-label={`Check of ${id}`}>
      {checked.loading ? (
        <Loading what={`the tools of ${id}`} />
      ) : // A success clears the error: one shown is the latest check's.
      checked.error !== undefined ? (
        <ProblemView error={checked.error} />
      ) : tools && tools.length > 0 ? (
        <table>
          <caption class="visually-hidden">Tools of {id}</caption>
          <thead>
            <tr>
              <th scope="col">Tool</th>
              <th scope="col">Description</th>
            </tr>
          </thead>
          <tbody>
            {tools.map((tool) => (
              <tr key={tool.name}>
                <td>
                  <code>{tool.name}</code>
                </td>
                <td>{tool.description}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : (
        <p>Reached; it offers no tools.</p>
      )}
      <button type="button" class="secondary small" disabled={checked.loading} onClick={checked.reload}>
        Check again
      </button>
    </section>
  );
}
