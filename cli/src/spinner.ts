// Progress on waits longer than a moment: a spinner on stderr, only on a terminal and never under
// --json, so that pipes and scripts see nothing of it.
const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
/** A wait shorter than this shows nothing at all. */
const SHOW_AFTER_MS = 250;

export interface Spinner {
  stop(): void;
}

export function spinner(text: string, options: { quiet?: boolean } = {}): Spinner {
  if (options.quiet || !process.stderr.isTTY) return { stop() {} };
  let frame = 0;
  let shown = false;
  const draw = () => {
    shown = true;
    process.stderr.write(`\r${FRAMES[frame++ % FRAMES.length]} ${text}`);
  };
  let timer: NodeJS.Timeout | undefined;
  const start = setTimeout(() => {
    draw();
    timer = setInterval(draw, 80);
  }, SHOW_AFTER_MS);
  return {
    stop() {
      clearTimeout(start);
      if (timer) clearInterval(timer);
      // Once only: clearing the line again later would erase what was printed since.
      if (shown) process.stderr.write('\r\u001b[2K');
      shown = false;
    },
  };
}

/** Runs `work` under a spinner. */
export async function withSpinner<T>(text: string, work: () => Promise<T>, options: { quiet?: boolean } = {}): Promise<T> {
  const shown = spinner(text, options);
  try {
    return await work();
  } finally {
    shown.stop();
  }
}
