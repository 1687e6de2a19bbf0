import { readdirSync, readFileSync } from 'node:fs';

/**
 * CPU seconds spent by processes, from /proc (Linux; null elsewhere). Throughput on a shared
 * 2-core machine moves with whatever else runs; CPU time per request does much less, and it says
 * which side (gateway, PostgreSQL, load generator) the cores go to.
 */
export type CpuMeter = { name: string; read(): number | null };

/** Clock ticks per second of /proc/<pid>/stat times: 100 on every Linux build in use. */
const TICKS_PER_SECOND = 100;

/** utime, stime, cutime, cstime of one process, in ticks; null when it is gone. */
function processTimes(pid: number | string): { own: number; children: number; comm: string } | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name is in parentheses and may hold spaces: fields are counted after it.
    const close = stat.lastIndexOf(')');
    const comm = stat.slice(stat.indexOf('(') + 1, close);
    const fields = stat.slice(close + 2).split(' ');
    const field = (n: number) => Number(fields[n - 3]);
    return { own: field(14) + field(15), children: field(16) + field(17), comm };
  } catch {
    return null;
  }
}

export function processCpu(name: string, pid: number): CpuMeter {
  return {
    name,
    read: () => {
      const times = processTimes(pid);
      return times ? times.own / TICKS_PER_SECOND : null;
    },
  };
}

/** This process (autocannon, the webhook receiver): the load generator's share. */
export function selfCpu(name: string): CpuMeter {
  return {
    name,
    read: () => {
      const usage = process.cpuUsage();
      return (usage.user + usage.system) / 1e6;
    },
  };
}

/**
 * Every `postgres` process: live backends plus what the postmaster collected from ended ones
 * (cutime/cstime), so backends that come and go in the window are counted too. On a shared
 * server this includes other databases' work.
 */
export function postgresCpu(name: string): CpuMeter {
  return {
    name,
    read: () => {
      let ticks = 0;
      let found = false;
      let entries: string[];
      try {
        entries = readdirSync('/proc');
      } catch {
        return null;
      }
      for (const entry of entries) {
        if (!/^\d+$/.test(entry)) continue;
        const times = processTimes(entry);
        if (times?.comm !== 'postgres') continue;
        found = true;
        ticks += times.own + times.children;
      }
      return found ? ticks / TICKS_PER_SECOND : null;
    },
  };
}

/** All CPUs' busy time (everything but idle and iowait), in seconds of one core. */
function machineBusySeconds(): number | null {
  try {
    const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
    const [user = 0, nice = 0, system = 0, , , irq = 0, softirq = 0, steal = 0] = fields;
    return (user + nice + system + irq + softirq + steal) / TICKS_PER_SECOND;
  } catch {
    return null;
  }
}

export type CpuWindow = {
  /** CPU seconds per meter name over the window (meters of one name are summed). */
  seconds: Record<string, number | null>;
  /** CPU the metered processes did not use, in percent of one core: other work on a shared machine. */
  othersPercentOfCore: number | null;
  wallSeconds: number;
};

/** Starts measuring; the returned function ends the window. */
export function startCpuWindow(meters: CpuMeter[]): () => CpuWindow {
  const before = meters.map((meter) => meter.read());
  const machineBefore = machineBusySeconds();
  const startedAt = performance.now();
  return () => {
    const wallSeconds = (performance.now() - startedAt) / 1000;
    const seconds: Record<string, number | null> = {};
    let metered = 0;
    meters.forEach((meter, index) => {
      const start = before[index];
      const end = meter.read();
      const spent = start == null || end === null ? null : end - start;
      if (spent !== null) metered += spent;
      seconds[meter.name] = spent === null || seconds[meter.name] === null ? null : (seconds[meter.name] ?? 0) + spent;
    });
    const machineAfter = machineBusySeconds();
    const othersPercentOfCore =
      machineBefore === null || machineAfter === null || wallSeconds === 0 ? null : Math.max(0, (100 * (machineAfter - machineBefore - metered)) / wallSeconds);
    return { seconds, othersPercentOfCore, wallSeconds };
  };
}

/** CPU milliseconds per unit of work (request, delivery) by meter name. */
export function millisecondsPer(window: CpuWindow, units: number): Record<string, number | null> {
  const result: Record<string, number | null> = {};
  for (const [name, seconds] of Object.entries(window.seconds)) result[name] = seconds === null || units === 0 ? null : (seconds * 1000) / units;
  return result;
}
