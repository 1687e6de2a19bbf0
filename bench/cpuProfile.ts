import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ROOT } from './processes.js';

/** The parts of V8's .cpuprofile (what `node --cpu-prof` writes) that the summary reads. */
type CpuProfile = {
  nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number } }[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
};

export type SelfTimeRow = {
  name: string;
  location: string;
  samples: number;
  /** Of all samples in the window. */
  percent: number;
  /** Of the samples that are neither idle nor a socket write (see socketWritePercent). */
  percentOfWork: number;
};

export type ProfileSummary = {
  file: string;
  /** Samples in the window (all samples when the window does not overlap the profile). `top` and `byArea` leave idle and socket writes out. */
  samples: number;
  /** Share of samples where the process waited (idle): a CPU-bound server is near 0. */
  idlePercent: number;
  /**
   * Share of samples in the native socket writes (writev, writeBuffer). On an oversubscribed
   * machine the thread is often preempted right after a write wakes its peer (PostgreSQL,
   * autocannon), and the profiler's wall-clock sample lands there; `perf` on the same load
   * shows these writes near 5% of on-CPU time. percentOfWork leaves them out.
   */
  socketWritePercent: number;
  windowApplied: boolean;
  top: SelfTimeRow[];
  /** Self time per package or source folder (socket writes left out): which layer the time goes to. */
  byArea: SelfTimeRow[];
};

/** file:///…/node_modules/fastify/lib/route.js → fastify/lib/route.js; src files relative to the repository. */
function shortLocation(url: string): string {
  if (!url) return '';
  const path = url.startsWith('file://') ? decodeURIComponent(new URL(url).pathname) : url;
  const modules = path.lastIndexOf('/node_modules/');
  if (modules >= 0) return path.slice(modules + '/node_modules/'.length);
  return path.startsWith(ROOT) ? path.slice(ROOT.length) : path;
}

function areaOf(name: string, location: string): string {
  if (!location) return name.startsWith('(') ? name : '(native/V8)';
  if (location.startsWith('node:')) return 'node: (core)';
  if (location.startsWith('src/')) return location.split('/').slice(0, 2).join('/');
  if (location.startsWith('@')) return location.split('/').slice(0, 2).join('/');
  return location.split('/')[0] ?? location;
}

const SOCKET_WRITES = new Set(['writev', 'writeBuffer']);
/** The native write calls themselves (no script), not JavaScript functions of the same name. */
const isSocketWrite = (name: string, location: string) => SOCKET_WRITES.has(name) && !location;

function rank(counts: Map<string, { name: string; location: string; samples: number }>, total: number, work: number, limit: number): SelfTimeRow[] {
  return [...counts.values()]
    .sort((a, b) => b.samples - a.samples)
    .slice(0, limit)
    .map((row) => ({
      ...row,
      percent: total ? (100 * row.samples) / total : 0,
      percentOfWork: work ? (100 * row.samples) / work : 0,
    }));
}

/**
 * Self time by function (name + script; anonymous functions also by line), counted over the
 * samples inside `window` (monotonic µs, the clock V8 stamps profiles with on Linux) so that
 * start-up and the warm-up do not dilute the figures.
 */
export function summarizeProfile(file: string, window?: { startMicros: number; endMicros: number }, limit = 15): ProfileSummary {
  // eslint-disable-next-line @typescript-eslint/consistent-type-assertions -- a .cpuprofile written by Node's --cpu-prof
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const nodes = new Map(profile.nodes.map((node) => [node.id, node.callFrame]));
  const overlaps = window !== undefined && window.startMicros < profile.endTime && window.endMicros > profile.startTime;
  const byFunction = new Map<string, { name: string; location: string; samples: number }>();
  const byArea = new Map<string, { name: string; location: string; samples: number }>();
  let time = profile.startTime;
  let total = 0;
  let idle = 0;
  let socketWrites = 0;
  profile.samples.forEach((nodeId, index) => {
    time += profile.timeDeltas[index] ?? 0;
    if (overlaps && (time < window.startMicros || time > window.endMicros)) return;
    const frame = nodes.get(nodeId);
    if (!frame) return;
    total++;
    const name = frame.functionName || '(anonymous)';
    if (name === '(idle)') {
      idle++;
      return;
    }
    const location = shortLocation(frame.url);
    const socketWrite = isSocketWrite(name, location);
    if (socketWrite) socketWrites++;
    const line = frame.lineNumber >= 0 && location ? `:${frame.lineNumber + 1}` : '';
    if (socketWrite) return;
    const key = `${name}\u0000${location}${frame.functionName ? '' : line}`;
    const row = byFunction.get(key) ?? { name, location: location + line, samples: 0 };
    row.samples++;
    byFunction.set(key, row);
    const area = areaOf(name, location);
    const areaRow = byArea.get(area) ?? { name: area, location: '', samples: 0 };
    areaRow.samples++;
    byArea.set(area, areaRow);
  });
  const work = total - idle - socketWrites;
  return {
    file,
    samples: total,
    idlePercent: total ? (100 * idle) / total : 0,
    socketWritePercent: total ? (100 * socketWrites) / total : 0,
    windowApplied: overlaps,
    top: rank(byFunction, total, work, limit),
    byArea: rank(byArea, total, work, 10),
  };
}

export function formatProfile(title: string, summary: ProfileSummary): string {
  const lines = [
    `${title} — ${summary.samples} samples${summary.windowApplied ? ' in the measured window' : ' (whole process)'}, idle ${summary.idlePercent.toFixed(1)}%, socket writes ${summary.socketWritePercent.toFixed(1)}%`,
    `  ${summary.file}`,
    '  % of work (excl. idle, socket writes) · % of all samples · function · location',
    ...summary.top.map(
      (row) => `  ${row.percentOfWork.toFixed(1).padStart(5)}  ${row.percent.toFixed(1).padStart(5)}  ${row.name.slice(0, 40).padEnd(40)}  ${row.location}`,
    ),
    `  by area (% of work): ${summary.byArea.map((row) => `${row.name} ${row.percentOfWork.toFixed(1)}%`).join(', ')}`,
  ];
  return lines.join('\n');
}

/**
 * `npx tsx bench/cpuProfile.ts [file.cpuprofile …]`: the summary of any profile (whole process);
 * without arguments, those of the last BENCH_PROFILE=1 run, cut to each scenario's window.
 */
if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const files = process.argv.slice(2);
  if (files.length) {
    for (const file of files) process.stdout.write(`${formatProfile(file, summarizeProfile(file))}\n\n`);
  } else {
    type Run = { results: { id: string; title: string; profile?: { file: string }; load?: { window: { startMicros: number; endMicros: number } } }[] };
    // eslint-disable-next-line @typescript-eslint/consistent-type-assertions -- a results file this bench wrote
    const run = JSON.parse(readFileSync(join(ROOT, 'bench/results/latest-profiled.json'), 'utf8')) as Run;
    for (const result of run.results) {
      if (!result.profile) continue;
      process.stdout.write(`${formatProfile(`scenario ${result.id} (${result.title})`, summarizeProfile(result.profile.file, result.load?.window))}\n\n`);
    }
  }
}
