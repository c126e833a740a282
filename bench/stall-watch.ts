/** Watches the event loop with a 1 ms timer; `stop()` returns the longest it went without a turn, in ms. */
export function watchStalls(): { stop(): number } {
  let last = performance.now();
  let longestMs = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    longestMs = Math.max(longestMs, now - last);
    last = now;
  }, 1);
  return {
    stop: () => {
      clearInterval(timer);
      return Math.max(longestMs, performance.now() - last);
    },
  };
}
