import { readdirSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

/** The test files that drive Chromium (they import test/helpers/browser.ts). */
function browserTestFiles(directory = 'test'): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) return browserTestFiles(path);
    return entry.name.endsWith('.test.ts') && readFileSync(path, 'utf8').includes('helpers/browser.js') ? [path] : [];
  });
}

// The pages read the database through the same services whatever the backend: CI runs the
// browser tests once, on the PostgreSQL server, and sets BROWSER_TESTS=skip for the PGlite run.
const skipBrowser = process.env.BROWSER_TESTS === 'skip';

export default defineConfig({
  // The SDK's examples import the package by name, as a merchant does; the tests run its sources.
  resolve: { alias: { '@pix-gateway/sdk': fileURLToPath(new URL('packages/sdk/src/index.ts', import.meta.url)) } },
  test: {
    include: ['test/**/*.test.ts'],
    exclude: ['**/node_modules/**', ...(skipBrowser ? browserTestFiles() : [])],
    // Tests that start real processes run the compiled gateway, as `npm start` does; on PGlite the
    // setup also migrates the database every test gateway starts from.
    globalSetup: ['test/helpers/buildOnce.ts'],
    pool: 'forks',
    // One test file per core: most of a file's time is spent waiting (a browser, the server, a
    // child process), so vitest's default (cores − 1: one file at a time here) left a core idle.
    maxWorkers: availableParallelism(),
    minWorkers: 1,
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
