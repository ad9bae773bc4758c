import { readFileSync } from 'node:fs';

/**
 * The resident memory of a process under load (issue 20: the engine's RSS under sustained load under
 * 150 MB): VmRSS of /proc/<pid>/status sampled on a timer while the load runs, its peak kept, and
 * VmHWM (the kernel's own high-water mark of the process's RSS, over its whole life) at the end.
 * Linux only; elsewhere the sampler reports nothing.
 */
export interface RssPeak {
  /** Highest sampled VmRSS, bytes (0 when /proc could not be read). */
  peakBytes: number;
  samples: number;
  /** VmHWM when last read, bytes. */
  highWaterBytes: number;
}

/** VmRSS and VmHWM of a process in bytes, or undefined without /proc. */
export function readRss(pid: number): { rss: number; hwm: number } | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    return undefined;
  }
  const kib = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(text)?.[1] ?? 0) * 1024;
  return { rss: kib('VmRSS'), hwm: kib('VmHWM') };
}

/** Samples a process's RSS every `intervalMs` until `stop()`, which answers the peak. */
export function sampleRss(pid: number, intervalMs = 200): { stop(): RssPeak } {
  const peak: RssPeak = { peakBytes: 0, samples: 0, highWaterBytes: 0 };
  const take = () => {
    const r = readRss(pid);
    if (!r) return;
    peak.samples++;
    peak.peakBytes = Math.max(peak.peakBytes, r.rss);
    peak.highWaterBytes = r.hwm;
  };
  take();
  const timer = setInterval(take, intervalMs);
  timer.unref();
  return {
    stop() {
      clearInterval(timer);
      take();
      return { ...peak };
    },
  };
}
