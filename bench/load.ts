import autocannon from 'autocannon';
import { millisecondsPer, startCpuWindow, type CpuMeter } from './cpuTime.js';

export type LoadSpec = {
  url: string;
  connections: number;
  durationSeconds: number;
  warmupSeconds: number;
  /**
   * The requests connection `index` sends, in a loop. Each connection gets its own (e.g. one
   * merchant's key), so the load spreads over accounts the way independent clients would.
   */
  requestsFor(index: number): autocannon.Request[];
  /** Every response of the warm-up and the measurement, with the index of its connection. */
  onResponse?: (index: number, statusCode: number) => void;
  /** Processes whose CPU time over the measured window is divided by its requests. */
  cpuMeters?: CpuMeter[];
};

export type LoadResult = {
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  averageMs: number;
  total: number;
  non2xx: number;
  /** Connection errors and timeouts. */
  errors: number;
  statusCodes: Record<string, number>;
  /** CPU milliseconds per request, by meter name (null where /proc is not readable). */
  cpuMsPerRequest: Record<string, number | null>;
  /** CPU used by processes other than the metered ones during the window, in % of one core. */
  othersPercentOfCore: number | null;
  /** The measured window on the monotonic clock (µs), to cut a CPU profile to it. */
  window: { startMicros: number; endMicros: number };
};

const monotonicMicros = (): number => Number(process.hrtime.bigint() / 1000n);

function fire(spec: LoadSpec, durationSeconds: number): Promise<autocannon.Result> {
  const indexOf = new WeakMap<object, number>();
  let nextIndex = 0;
  return new Promise((resolve, reject) => {
    const instance = autocannon(
      {
        url: spec.url,
        connections: spec.connections,
        duration: durationSeconds,
        // autocannon builds one client per connection, in order: number them as they come.
        setupClient(client) {
          const index = nextIndex++;
          indexOf.set(client, index);
          client.setRequests(spec.requestsFor(index));
        },
      },
      (error: Error | null, result) => (error ? reject(error) : resolve(result)),
    );
    if (spec.onResponse) {
      const { onResponse } = spec;
      instance.on('response', (client, statusCode) => onResponse(indexOf.get(client) ?? -1, statusCode));
    }
  });
}

/** A warm-up run (discarded), then the measured run with the same load. */
export async function measureLoad(spec: LoadSpec): Promise<LoadResult> {
  if (spec.warmupSeconds > 0) await fire(spec, spec.warmupSeconds);
  const endCpuWindow = startCpuWindow(spec.cpuMeters ?? []);
  const startMicros = monotonicMicros();
  const result = await fire(spec, spec.durationSeconds);
  const endMicros = monotonicMicros();
  const cpu = endCpuWindow();
  const statusCodes: Record<string, number> = {};
  for (const [code, stats] of Object.entries(result.statusCodeStats ?? {})) statusCodes[code] = stats.count ?? 0;
  return {
    requestsPerSecond: result.requests.average,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    averageMs: result.latency.average,
    total: result.requests.total,
    non2xx: result.non2xx,
    errors: result.errors,
    statusCodes,
    cpuMsPerRequest: millisecondsPer(cpu, result.requests.total),
    othersPercentOfCore: cpu.othersPercentOfCore,
    window: { startMicros, endMicros },
  };
}
