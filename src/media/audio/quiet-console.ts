const MUTED = ['log', 'warn', 'error'] as const;
const silent = () => {};

/**
 * Runs a synchronous decoder call with the console muted. The wasm decoders (libFLAC, mpg123, libopus)
 * print each damaged frame on the console as well as returning it in their results, and those lines would
 * land outside the JSON logs; the results' error counts already decide whether a file is damaged. The
 * call's synchronous part is all that runs with the console muted: no other code can interleave.
 */
export function quietly<T>(call: () => T): T {
  const saved = MUTED.map((method) => console[method]);
  for (const method of MUTED) console[method] = silent;
  try {
    return call();
  } finally {
    MUTED.forEach((method, i) => {
      console[method] = saved[i]!;
    });
  }
}
