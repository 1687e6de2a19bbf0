import type { BenchConfig } from './config.js';
import { processCpu, selfCpu } from './cpuTime.js';
import { measureLoad, type LoadResult } from './load.js';
import { startHelloWorld } from './processes.js';

/** The HTTP ceiling of this machine right now: a Fastify hello-world under the same load shape. */
export async function helloWorldBaseline(config: BenchConfig): Promise<LoadResult & { peakRssBytes: number | null }> {
  const server = await startHelloWorld();
  try {
    const load = await measureLoad({
      url: server.url,
      connections: config.connections,
      durationSeconds: config.durationSeconds,
      warmupSeconds: config.warmupSeconds,
      requestsFor: () => [{ method: 'GET', path: '/' }],
      cpuMeters: [processCpu('gateway', server.pid), selfCpu('bench')],
    });
    return { ...load, peakRssBytes: server.peakRssBytes() };
  } finally {
    await server.stop();
  }
}
