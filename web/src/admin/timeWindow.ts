// A live chart's time axis. Pure.
const WINDOW_S = 60;

/**
 * From a minute before the last sample (or the first sample, when older) to the last,
 * in seconds. Taken from the samples, never from uPlot's own guess: for one sample it
 * spreads a day ahead, and before any its scale is null.
 */
export function timeWindow(times: readonly number[], nowS: number): [number, number] {
  const last = times.at(-1) ?? nowS;
  const first = times[0] ?? last;
  return [Math.min(first, last - WINDOW_S), last];
}
