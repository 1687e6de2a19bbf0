// `npm run build`: transpiles src/ to dist/ with esbuild (one output file per source file, source
// maps beside them) and copies the SQL migrations beside the compiled code. Types are checked by
// `npm test` and `npm run typecheck`, not here: the first `npm start` on a fresh clone answers in
// seconds instead of waiting a minute for the TypeScript compiler. With --if-stale it does nothing
// when dist/ is newer than every source file (what `npm start` and the test setup use). Plain
// JavaScript: it must run before anything is compiled.
import { cpSync, existsSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const stampPath = join(root, 'dist', '.built');
const sources = ['src', 'tsconfig.json', 'package-lock.json'];

function newestModification(path) {
  const stats = statSync(path);
  if (!stats.isDirectory()) return stats.mtimeMs;
  return Math.max(stats.mtimeMs, ...readdirSync(path).map((name) => newestModification(join(path, name))));
}

function sourceFiles(directory) {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

/** True when dist/ was built after the last change to any source. */
export function isBuildFresh() {
  if (!existsSync(stampPath)) return false;
  const built = statSync(stampPath).mtimeMs;
  return sources.every((source) => !existsSync(join(root, source)) || newestModification(join(root, source)) <= built);
}

export async function build() {
  let esbuild;
  try {
    esbuild = await import('esbuild');
  } catch {
    throw new Error('dist/ is missing or older than src/, and esbuild is not installed to build it: run `npm install` (or `npm ci`) first.');
  }
  const started = performance.now();
  const entryPoints = sourceFiles(join(root, 'src'));
  process.stderr.write(`Compiling ${entryPoints.length} files of src/ to dist/…\n`);
  rmSync(join(root, 'dist'), { recursive: true, force: true });
  // The settings tsconfig.json gives tsc: ES2022 modules as written (imports keep their `.js`), JSX
  // through @kitajs/html's automatic runtime. isolatedModules there guarantees file-by-file is exact.
  await esbuild.build({
    entryPoints,
    outbase: join(root, 'src'),
    outdir: join(root, 'dist'),
    bundle: false,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    sourcemap: true,
    jsx: 'automatic',
    jsxImportSource: '@kitajs/html',
    logLevel: 'warning',
  });
  cpSync(join(root, 'src', 'migrations'), join(root, 'dist', 'migrations'), { recursive: true });
  writeFileSync(stampPath, `${new Date().toISOString()}\n`);
  process.stderr.write(`Compiled in ${Math.round(performance.now() - started)} ms (${relative(process.cwd(), join(root, 'dist')) || 'dist'}/).\n`);
}

export async function buildIfStale() {
  if (!isBuildFresh()) await build();
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  try {
    if (process.argv.includes('--if-stale')) await buildIfStale();
    else await build();
  } catch (error) {
    process.stderr.write(`${error.message}\n`);
    process.exit(1);
  }
}
