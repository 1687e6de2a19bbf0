import { execFileSync } from 'node:child_process';

/** vitest global setup: compiles dist/ once before the test files run (when it is older than src/). */
export default function buildOnce(): void {
  execFileSync(process.execPath, ['scripts/build.mjs', '--if-stale'], { stdio: 'inherit' });
}
