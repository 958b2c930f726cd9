/** The words and figures of progress lines: how far a run is, simulated time, event rates, ETAs. */
import type { SimProgress } from '../sim/simulation.js';

/**
 * How far a run is, from 0 to 1: the share of its jobs that ended, or of its simulated time up to a
 * finite horizon when that is further along (a run stops at whichever comes first); 1 once done.
 */
export function runFraction(progress: SimProgress): number {
  if (progress.done) return 1;
  const jobs = progress.jobsTotal > 0 ? progress.jobsDone / progress.jobsTotal : 0;
  const spanS = progress.horizonS - progress.startS;
  const time = Number.isFinite(spanS) && spanS > 0 ? (progress.simS - progress.startS) / spanS : 0;
  return clamp01(Math.max(jobs, time));
}

/** Seconds left at the pace so far, or null while nothing is done yet. */
export function etaS(fraction: number, elapsedS: number): number | null {
  if (!(fraction > 0) || !(elapsedS >= 0)) return null;
  if (fraction >= 1) return 0;
  return (elapsedS * (1 - fraction)) / fraction;
}

/** Simulated seconds the way a person reads them: "42 s", "12.5 min", "5.2 h", "12.3 d". */
export function formatSimTime(seconds: number): string {
  const s = Math.max(0, seconds);
  if (s < 60) return `${Math.round(s)} s`;
  if (s < 3600) return `${(s / 60).toFixed(1)} min`;
  if (s < 86_400) return `${(s / 3600).toFixed(1)} h`;
  return `${(s / 86_400).toFixed(1)} d`;
}

/** Events a second: "812 ev/s", "12.3k ev/s", "1.20M ev/s". */
export function formatRate(eventsPerS: number): string {
  const r = Number.isFinite(eventsPerS) ? Math.max(0, eventsPerS) : 0;
  if (r < 1000) return `${Math.round(r)} ev/s`;
  if (r < 1_000_000) return `${(r / 1000).toFixed(1)}k ev/s`;
  return `${(r / 1_000_000).toFixed(2)}M ev/s`;
}

/** Wall seconds left: "--" when unknown, "12s", "3m05s", "2h07m". */
export function formatEta(seconds: number | null): string {
  if (seconds === null || !Number.isFinite(seconds)) return '--';
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
}

/** What a run's line says after its bar: simulated time (of the horizon), jobs ended of all. */
export function runDetail(progress: SimProgress): string {
  const spanS = progress.horizonS - progress.startS;
  const time = `sim ${formatSimTime(progress.simS - progress.startS)}${Number.isFinite(spanS) ? ` of ${formatSimTime(spanS)}` : ''}`;
  return `${time} | jobs ${progress.jobsDone}/${progress.jobsTotal}`;
}

/** `text` cut to `width` characters (a line longer than the terminal would wrap and break the redraw). */
export function fitWidth(text: string, width: number): string {
  return width > 0 && text.length > width ? text.slice(0, width) : text;
}

function clamp01(x: number): number {
  return x < 0 || Number.isNaN(x) ? 0 : x > 1 ? 1 : x;
}
