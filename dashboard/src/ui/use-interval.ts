// Runs `tick` every `ms` while the page shows; for lists that change on the server (new questions)
// and clocks ("3 min left").
import { useEffect, useRef } from 'preact/hooks';

export function useInterval(tick: () => void, ms: number): void {
  const latest = useRef(tick);
  latest.current = tick;
  useEffect(() => {
    const timer = window.setInterval(() => latest.current(), ms);
    return () => window.clearInterval(timer);
  }, [ms]);
}
