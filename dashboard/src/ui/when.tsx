// A relative time with its full date in a <time> element (for a title and for assistive technology).
import { ago, fullDate } from './time.ts';

export function When({ iso }: { iso: string }) {
  return (
    <time dateTime={iso} title={fullDate(iso)}>
      {ago(iso)}
    </time>
  );
}
