// Summary of a V8 CPU profile (`node --cpu-prof`): where a server's CPU went in a time window, by
// function (self time) and by package, in microseconds per request. Used by profile.ts; also
// runnable on a kept profile: `npx tsx http/profile-summary.ts <file.cpuprofile> [requests]`.
import { readFileSync } from 'node:fs';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}
/** The `.cpuprofile` format: times in microseconds of the monotonic clock (`process.hrtime`'s). */
export interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

export interface Summary {
  /** CPU time of the event loop in the window (idle excluded), microseconds. */
  busyUs: number;
  windowUs: number;
  byFunction: { name: string; us: number }[];
  byPackage: { name: string; us: number }[];
}

/** Which package a frame belongs to: a node_modules package, one of ours, Node itself, or V8's own entries. */
export function packageOf(frame: CallFrame): string {
  if (frame.url === '') return frame.functionName.startsWith('(') ? frame.functionName : '(native)';
  if (frame.url.startsWith('node:')) return 'node';
  const dependency = /node_modules\/(?:\.pnpm\/[^/]+\/node_modules\/)?((?:@[^/]+\/)?[^/]+)/.exec(frame.url);
  if (dependency) return dependency[1]!;
  const ours = /packages\/([^/]+)\//.exec(frame.url);
  if (ours) return `@svc-licensing/${ours[1]}`;
  return frame.url;
}

const label = (frame: CallFrame) => {
  const file = frame.url.replace(/^.*node_modules\/(?:\.pnpm\/[^/]+\/node_modules\/)?/, '').replace(/^.*packages\//, '').replace(/^file:\/\//, '');
  return `${frame.functionName || '(anonymous)'} ${file ? `${file}:${frame.lineNumber + 1}` : ''}`.trim();
};

/** Self time per function and per package of the samples taken between `from` and `to` (µs, the profile's clock). */
export function summarize(profile: CpuProfile, from = profile.startTime, to = profile.endTime): Summary {
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  const byFunction = new Map<string, number>();
  const byPackage = new Map<string, number>();
  let at = profile.startTime;
  let busy = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    at += profile.timeDeltas[i]!;
    // A sample stands for the time until the next one.
    const span = profile.timeDeltas[i + 1] ?? 0;
    if (at < from || at >= to) continue;
    const frame = nodes.get(profile.samples[i]!)!.callFrame;
    if (frame.functionName === '(idle)') continue;
    busy += span;
    const name = label(frame);
    byFunction.set(name, (byFunction.get(name) ?? 0) + span);
    const pkg = packageOf(frame);
    byPackage.set(pkg, (byPackage.get(pkg) ?? 0) + span);
  }
  const sorted = (m: Map<string, number>) => [...m].map(([name, us]) => ({ name, us })).sort((a, b) => b.us - a.us);
  return { busyUs: busy, windowUs: Math.min(to, profile.endTime) - Math.max(from, profile.startTime), byFunction: sorted(byFunction), byPackage: sorted(byPackage) };
}

/** Markdown tables of a summary: the top `top` functions and every package above 1%, per request when `requests` is given. */
export function report(summary: Summary, requests: number | null, top = 25): string {
  const per = (us: number) => (requests ? (us / requests).toFixed(1) : '-');
  const share = (us: number) => `${((100 * us) / summary.busyUs).toFixed(1)}%`;
  const lines = [
    `Event loop busy ${(summary.busyUs / 1e6).toFixed(2)} s of ${(summary.windowUs / 1e6).toFixed(2)} s` +
      (requests ? `; ${requests} requests: ${per(summary.busyUs)} µs per request` : ''),
    '',
    '| Package | Self time | µs per request |',
    '| --- | ---: | ---: |',
    ...summary.byPackage.filter((p) => p.us / summary.busyUs >= 0.01).map((p) => `| ${p.name} | ${share(p.us)} | ${per(p.us)} |`),
    '',
    '| Function (self time) | Share | µs per request |',
    '| --- | ---: | ---: |',
    ...summary.byFunction.slice(0, top).map((f) => `| \`${f.name}\` | ${share(f.us)} | ${per(f.us)} |`),
  ];
  return lines.join('\n');
}

if (process.argv[1]?.endsWith('profile-summary.ts')) {
  const [file, requests] = process.argv.slice(2);
  if (!file) throw new Error('usage: profile-summary.ts <file.cpuprofile> [requests]');
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  process.stdout.write(`${report(summarize(profile), requests ? Number(requests) : null)}\n`);
}
