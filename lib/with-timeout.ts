// A promise bounded in time: what does not settle within its deadline is a rejection naming it, so a
// caller waiting on something that may hang forever (a half-open connection) finds out.

/** `work`, or a rejection `<what> did not answer within <ms> ms` once `ms` have passed without it settling. */
export async function withTimeout<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      work,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`${what} did not answer within ${ms} ms`)), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}
