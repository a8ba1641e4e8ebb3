/**
 * What `npm start` says while it works: a line when a step begins, one every 10 s while it goes
 * on, and one with its time when it is done, so that a slow first start is never silent.
 */
const seconds = (since: number) => ((performance.now() - since) / 1000).toFixed(1);

export async function step<T>(
  begin: string,
  work: () => Promise<T>,
  end: (value: T) => string,
  log: (line: string) => void = console.log,
): Promise<T> {
  const started = performance.now();
  log(`${begin}...`);
  const ticker = setInterval(
    () => log(`  ...${begin.toLowerCase()}: ${seconds(started)} s`),
    10_000,
  );
  try {
    const value = await work();
    log(`${end(value)} in ${seconds(started)} s`);
    return value;
  } finally {
    clearInterval(ticker);
  }
}
