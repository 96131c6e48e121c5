// A file of the session, downloaded through the SDK (the media URL needs the key, so it cannot be a
// plain link) and handed to the browser as a blob URL.
import { useState } from 'preact/hooks';
import { useClient } from '../auth/client-context.ts';
import { ProblemView } from '../ui/problem-view.tsx';

export function DownloadButton({ sessionId, url, filename }: { sessionId: string; url: string; filename: string }) {
  const client = useClient();
  const [error, setError] = useState<unknown>(undefined);
  const download = async () => {
    setError(undefined);
    try {
      const response = await client.sessions.downloadMedia(sessionId, url);
      const blobUrl = URL.createObjectURL(await response.blob());
      const anchor = document.createElement('a');
      anchor.href = blobUrl;
      anchor.download = filename;
      anchor.click();
      setTimeout(() => URL.revokeObjectURL(blobUrl), 60_000);
    } catch (failure) {
      setError(failure);
    }
  };
  return (
    <>
      <button type="button" class="secondary small" onClick={() => void download()}>
        Download {filename}
      </button>
      {error !== undefined && <ProblemView error={error} />}
    </>
  );
}
