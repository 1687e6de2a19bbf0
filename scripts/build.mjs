// `npm run build`: compiles src/ to dist/ (tsc -p tsconfig.build.json) and copies the SQL
// migrations beside the compiled code. With --if-stale it does nothing when dist/ is newer than
// every source file (what `npm start` and the test setup use). Plain JavaScript: it must run
// where only the runtime dependencies are installed.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const stampPath = join(root, 'dist', '.built');
const sources = ['src', 'tsconfig.json', 'tsconfig.build.json', 'package-lock.json'];

function newestModification(path) {
  const stats = statSync(path);
  if (!stats.isDirectory()) return stats.mtimeMs;
  return Math.max(stats.mtimeMs, ...readdirSync(path).map((name) => newestModification(join(path, name))));
}

/** True when dist/ was built after the last change to any source. */
export function isBuildFresh() {
  if (!existsSync(stampPath)) return false;
  const built = statSync(stampPath).mtimeMs;
  return sources.every((source) => !existsSync(join(root, source)) || newestModification(join(root, source)) <= built);
}

export function build() {
  let tsc;
  try {
    tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  } catch {
    throw new Error('dist/ is missing or older than src/, and TypeScript is not installed to build it: run `npm install` (or `npm ci`) first.');
  }
  rmSync(join(root, 'dist'), { recursive: true, force: true });
  const result = spawnSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json')], { stdio: 'inherit' });
  if (result.status !== 0) throw new Error('build failed: the TypeScript compiler reported errors');
  cpSync(join(root, 'src', 'migrations'), join(root, 'dist', 'migrations'), { recursive: true });
  writeFileSync(stampPath, `${new Date().toISOString()}\n`);
}

export function buildIfStale() {
  if (!isBuildFresh()) build();
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  try {
    if (process.argv.includes('--if-stale')) buildIfStale();
    else build();
  } catch (error) {
    process.stderr.write(`${error.message}\n`);
    process.exit(1);
  }
}
