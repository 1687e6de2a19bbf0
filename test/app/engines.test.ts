import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';

/** npm's own range rules (the semver package npm installs with the tools; it ships no types). */
const semver = createRequire(import.meta.url)('semver') as {
  satisfies(version: string, range: string): boolean;
  minVersion(range: string): { version: string } | null;
};

/**
 * Honest engines (DESIGN.md §2): every package the lockfile installs runs on the oldest Node the
 * project claims, so `npm install` there prints no EBADENGINE (cookie@2, which needs Node 22, came
 * in through a newer light-my-request; the override in package.json keeps the one that does not).
 */
const root = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { engines: { node: string } };
const lock = JSON.parse(readFileSync(new URL('../../package-lock.json', import.meta.url), 'utf8')) as {
  packages: Record<string, { version?: string; engines?: { node?: string } | string[]; optional?: boolean }>;
};

describe('engines', () => {
  it('every installed package accepts the oldest Node the project claims', () => {
    const oldest = semver.minVersion(root.engines.node)?.version ?? '';
    expect(oldest).toBe('20.19.0');
    const refused = Object.entries(lock.packages)
      // An optional package whose engines do not fit is left out by npm without a warning (rollup's @napi-rs/lzma on Node 20).
      .filter(([path, entry]) => path.includes('node_modules/') && entry.optional !== true)
      .flatMap(([path, entry]) => {
        const wanted = Array.isArray(entry.engines) ? undefined : entry.engines?.node;
        return wanted && !semver.satisfies(oldest, wanted) ? [`${path}@${entry.version ?? '?'} needs node ${wanted}`] : [];
      });
    expect(refused).toEqual([]);
  });
});
