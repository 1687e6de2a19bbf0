// `npm start` (and `npm run worker | migrate | doctor`): runs the compiled gateway, building it
// first when dist/ is missing or older than src/ (so `npm install && npm start` works on a fresh
// machine). The command (serve, worker, migrate, doctor) is passed on to dist/cli.js.
import { buildIfStale } from './build.mjs';

try {
  await buildIfStale();
} catch (error) {
  process.stderr.write(`${error.message}\n`);
  process.exit(1);
}
await import('../dist/cli.js');
