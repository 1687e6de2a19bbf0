import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  // The SDK's examples import the package by name, as a merchant does; the tests run its sources.
  resolve: { alias: { '@pix-gateway/sdk': fileURLToPath(new URL('packages/sdk/src/index.ts', import.meta.url)) } },
  test: {
    include: ['test/**/*.test.ts'],
    // Tests that start real processes run the compiled gateway, as `npm start` does.
    globalSetup: ['test/helpers/buildOnce.ts'],
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
