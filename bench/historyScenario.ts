import { get } from 'node:http';
import type autocannon from 'autocannon';
import { merchantMovements } from '../src/ledger/repository.js';
import { firstPage, pageAfter, pageTransactions, type TransactionFilter } from '../src/transactions/repository.js';
import { expectJson } from './api.js';
import type { BenchConfig } from './config.js';
import { millisecondsPer, startCpuWindow } from './cpuTime.js';
import { describePlan, explainReads, type Plan, type PlannedRead } from './historyPlans.js';
import { seedHistory, type HistorySeed } from './historySeed.js';
import { measureLoad } from './load.js';
import { authorization, createMerchants, type Merchant } from './merchants.js';
import { queryDatabase } from './postgres.js';
import { readRss, startGateway, type HttpProcess } from './processes.js';
import type { Check, ScenarioResult } from './results.js';
import { fromLoad, loadSpec, onGateway, scenarioMeters, unavailableScenario, type Fleet, type Measured } from './scenarios.js';

const log = (message: string) => process.stderr.write(`${message}\n`);

/** The page size of every measured list request (the API's maximum). */
const PAGE = 100;
/** The deep page: startingAfter is the row at this many pages × PAGE from the newest. */
const DEEP_PAGES = 5_000;
/** Goal (DESIGN.md §15): a page at any depth answers in the time of the first; allowed: 1.5×. */
const DEPTH_FACTOR = 1.5;
/** Pages at this many depths spread over the history, one per load connection (H2c). */
const SPREAD_CURSORS = 50;
/** Goals of the export (DESIGN.md §15 and the issue): rows per second, and the gateway's memory. */
const EXPORT_MIN_ROWS_PER_SECOND = 50_000;
const EXPORT_MAX_RSS_BYTES = 200_000_000;
/** How often the serve process's RSS is read while an export downloads. */
const RSS_SAMPLE_MS = 20;
/** An export still running after this long is stopped there: its rate is then the rows read so far over this time. */
const EXPORT_TIME_LIMIT_MS = 120_000;
const DAY_MS = 86_400_000;
/** Rows per read of the exports (src/transactions/service.ts, src/history/service.ts). */
const EXPORT_CHUNK = 1_000;

type Row = { id: string; createdAt: Date };

const monotonicMicros = (): number => Number(process.hrtime.bigint() / 1000n);

/** What the measured requests point at, found by SQL on the seeded table. */
type Fixtures = {
  merchant: Merchant;
  seed: HistorySeed;
  /** The cursor of the deep page (the row at DEEP_PAGES × PAGE) and the row the page must start with. */
  cursor: Row;
  deepFirstId: string;
  depth: number;
  /** Cursors spread evenly over the whole history (one per load connection), for pages at every depth. */
  spreadCursors: string[];
  /** The cursor of page 2 (the first page's last row) and the row page 2 must start with. */
  secondCursor: Row;
  secondFirstId: string;
  externalRef: string;
  endToEndId: string;
  document: string;
  tableBytes: number;
  /** Rows each export of the whole period must hold: every transaction (CSV), every movement of the merchant book (OFX). */
  exportRows: Record<'csv' | 'ofx', number>;
  /** A merchant-book entry half-way through the period: the OFX chunk's cursor. */
  middleEntry: { entryId: number; at: Date };
};

const integer = (value: number) => Math.round(value).toLocaleString('en-US');
const mebibytes = (bytes: number | null) => (bytes === null ? '—' : `${Math.round(bytes / 2 ** 20)} MiB`);

/** One approved merchant (the 1,000,000 rows' account), created through the operator API of a short-lived gateway. */
async function createHistoryMerchant(databaseUrl: string): Promise<Merchant> {
  const gateway = await startGateway({ name: 'gateway (history setup)', databaseUrl });
  try {
    const [merchant] = await createMerchants(gateway.url, 1);
    if (!merchant) throw new Error('no merchant created');
    return merchant;
  } finally {
    await gateway.stop();
  }
}

async function findFixtures(databaseUrl: string, merchant: Merchant, seed: HistorySeed): Promise<Fixtures> {
  const depth = Math.min(DEEP_PAGES * PAGE, Math.floor(seed.rows / 2));
  const newestFirst = 'ORDER BY created_at DESC, id DESC';
  const at = async (row: number) => {
    const [cursor, next] = await queryDatabase<{ id: string; created_at: Date }>(
      databaseUrl,
      `SELECT id, created_at FROM transactions WHERE account_id = $1 ${newestFirst} OFFSET $2 LIMIT 2`,
      [merchant.accountId, row - 1],
    );
    if (!cursor || !next) throw new Error(`the seeded table has fewer than ${row + 1} rows`);
    return { cursor, next };
  };
  const { cursor, next } = await at(depth);
  const second = await at(PAGE);
  const spread = await queryDatabase<{ id: string }>(
    databaseUrl,
    `SELECT id FROM (SELECT id, row_number() OVER (${newestFirst}) AS position FROM transactions WHERE account_id = $1) ranked
      WHERE position % $2 = 0 AND position <= $3 ORDER BY position`,
    [merchant.accountId, Math.max(1, Math.floor(seed.rows / (SPREAD_CURSORS + 1))), seed.rows - PAGE],
  );
  // Rows from the middle of the history (at or past the cursor): the filters find old rows, not the newest.
  const past = (column: string) =>
    queryDatabase<{ value: string }>(
      databaseUrl,
      `SELECT ${column} AS value FROM transactions WHERE account_id = $1 AND ${column} IS NOT NULL AND (created_at, id) <= ($2, $3) ${newestFirst} LIMIT 1`,
      [merchant.accountId, cursor.created_at, cursor.id],
    ).then(([row]) => {
      if (!row) throw new Error(`no ${column} in the seeded table`);
      return row.value;
    });
  const counterpart = `coalesce(payer->>'document', beneficiary->>'document', expected_holder->>'document', regexp_replace(customer->'document'->>'number', '[^0-9]', '', 'g'))`;
  const [size] = await queryDatabase<{ bytes: string }>(databaseUrl, `SELECT pg_total_relation_size('transactions')::text AS bytes`);
  const [movements] = await queryDatabase<{ count: number; middle: string | null }>(
    databaseUrl,
    `SELECT count(*)::int AS count, percentile_disc(0.5) WITHIN GROUP (ORDER BY id)::text AS middle
       FROM ledger_entries WHERE account_id = $1 AND book = 'merchant' AND created_at >= $2 AND created_at < $3`,
    [merchant.accountId, new Date(seed.startMs), new Date(seed.endMs + 1)],
  );
  const [middle] = await queryDatabase<{ created_at: Date }>(databaseUrl, `SELECT created_at FROM ledger_entries WHERE id = $1`, [movements?.middle ?? '0']);
  return {
    merchant,
    seed,
    cursor: { id: cursor.id, createdAt: cursor.created_at },
    deepFirstId: next.id,
    depth,
    spreadCursors: spread.map((row) => row.id),
    secondCursor: { id: second.cursor.id, createdAt: second.cursor.created_at },
    secondFirstId: second.next.id,
    externalRef: await past('external_ref'),
    endToEndId: await past('end_to_end_id'),
    document: await past(counterpart),
    tableBytes: Number(size?.bytes ?? 0),
    exportRows: { csv: seed.rows, ofx: movements?.count ?? 0 },
    middleEntry: { entryId: Number(movements?.middle ?? 0), at: middle?.created_at ?? new Date(seed.startMs) },
  };
}

type Listed = { transactionId: string; status: string; type: string; createdAt: number };

/** A filter measured on its own (H3a–e): its query string, the repository's filter, and what every row of the answer must satisfy. */
type MeasuredFilter = { id: string; label: string; query: string; filter: TransactionFilter; matches: (row: Listed) => boolean };

function filters(fixtures: Fixtures): MeasuredFilter[] {
  const windowFrom = fixtures.seed.startMs + 14 * DAY_MS;
  const windowTo = windowFrom + DAY_MS;
  return [
    { id: 'H3a', label: 'status=refunded', query: 'status=refunded', filter: { status: 'refunded' }, matches: (row) => row.status === 'refunded' },
    {
      id: 'H3b',
      label: 'type=withdrawal&status=failed',
      query: 'type=withdrawal&status=failed',
      filter: { type: 'withdrawal', status: 'failed' },
      matches: (row) => row.type === 'withdrawal' && row.status === 'failed',
    },
    {
      id: 'H3c',
      label: 'createdFrom/createdTo (one day, day 15 of 30)',
      query: `createdFrom=${windowFrom}&createdTo=${windowTo}`,
      filter: { createdFrom: new Date(windowFrom), createdTo: new Date(windowTo) },
      matches: (row) => row.createdAt >= windowFrom && row.createdAt < windowTo,
    },
    {
      id: 'H3d',
      label: 'externalRef',
      query: `externalRef=${encodeURIComponent(fixtures.externalRef)}`,
      filter: { externalRef: fixtures.externalRef },
      matches: () => true,
    },
    { id: 'H3e', label: 'endToEndId', query: `endToEndId=${fixtures.endToEndId}`, filter: { endToEndId: fixtures.endToEndId }, matches: () => true },
  ];
}

/**
 * Every read whose plan docs/performance.md shows: the merchant's list, its deep page and filters,
 * the export's chunks, the back-office's reads across accounts; and, with transactions_recent
 * dropped for the plan, the account's list as a table of many accounts has it planned.
 */
function plannedReads(fixtures: Fixtures): PlannedRead[] {
  const accountId = fixtures.merchant.accountId;
  const after = fixtures.cursor;
  const page = (name: string, filter: TransactionFilter, without?: string): PlannedRead => ({
    name,
    run: (db) => pageTransactions(db, filter, PAGE),
    ...(without ? { without } : {}),
  });
  const period = { from: new Date(fixtures.seed.startMs), to: new Date(fixtures.seed.endMs + 1) };
  const deep = `page ${integer(fixtures.depth / PAGE)} deep`;
  return [
    { name: 'first page (the spec list, precompiled)', run: (db) => firstPage(db, accountId, undefined, PAGE) },
    { name: `${deep} (startingAfter: the cursor's place read in the same statement)`, run: (db) => pageAfter(db, accountId, undefined, after.id, PAGE) },
    page(`${deep}, the cursor as values (the filtered pages' form)`, { accountId, after }),
    ...filters(fixtures).map((entry) => page(`filter ${entry.label}`, { accountId, ...entry.filter })),
    page(`status=paid, ${deep}`, { accountId, status: 'paid', after }),
    page('type=withdrawal&status=expired (a status of the other type: matches nothing)', { accountId, type: 'withdrawal', status: 'expired' }),
    { name: 'first page, transactions_recent dropped', run: (db) => firstPage(db, accountId, undefined, PAGE), without: 'transactions_recent' },
    {
      name: `${deep} (startingAfter), transactions_recent dropped`,
      run: (db) => pageAfter(db, accountId, undefined, after.id, PAGE),
      without: 'transactions_recent',
    },
    page('filter createdFrom/createdTo, transactions_recent dropped', { accountId, ...filters(fixtures)[2]?.filter }, 'transactions_recent'),
    {
      name: `CSV export: a chunk of ${integer(EXPORT_CHUNK)} rows half-way (keyset after row ${integer(fixtures.depth)})`,
      run: (db) => pageTransactions(db, { accountId, createdFrom: period.from, createdTo: period.to, after }, EXPORT_CHUNK),
    },
    {
      name: `OFX export: a chunk of ${integer(EXPORT_CHUNK)} movements half-way (after entry ${fixtures.middleEntry.entryId})`,
      run: (db) => merchantMovements(db, accountId, period, { after: fixtures.middleEntry, limit: EXPORT_CHUNK }),
    },
    page('back-office: every account, newest first', {}),
    page(`back-office: every account, ${deep}`, { after }),
    page('back-office: counterpart document', { document: fixtures.document }),
    page('back-office: endToEndId, every account', { endToEndId: fixtures.endToEndId }),
    page('back-office: externalRef, every account', { externalRef: fixtures.externalRef }),
    page('back-office: status=failed_unknown, every account', { status: 'failed_unknown' }),
  ];
}

type ListAnswer = { transactions: Listed[]; count: number; hasMore: boolean };

/** One list row: a validating request, then the load (all connections on the one account). */
async function listRow(
  config: BenchConfig,
  fleet: Fleet,
  row: {
    id: string;
    title: string;
    /** The request validated first; every connection sends it, unless `pathFor` gives connection i its own. */
    path: string;
    pathFor?: (index: number) => string;
    brief: boolean;
    validate: (answer: ListAnswer) => Check[];
    notes?: string[];
  },
): Promise<ScenarioResult> {
  return onGateway(config, row.id, fleet, async (gateway, merchants) => {
    const merchant = merchants[0];
    if (!merchant) throw new Error('no merchant');
    const answer = await expectJson<ListAnswer>(200, gateway.url, 'GET', row.path, { token: merchant.apiKey });
    const requestsFor = (index: number): autocannon.Request[] => [{ method: 'GET', path: row.pathFor?.(index) ?? row.path, headers: authorization(merchant) }];
    const spec = loadSpec(config, gateway, fleet.backend, requestsFor);
    const load = await measureLoad(
      row.brief ? { ...spec, durationSeconds: Math.max(2, Math.round(config.durationSeconds / 3)), warmupSeconds: Math.min(1, config.warmupSeconds) } : spec,
    );
    return fromLoad({ id: row.id, title: row.title, fleet, target: null, baseline: 'hello' }, load, row.validate(answer), [
      `GET ${row.path}: ${answer.count} rows, hasMore ${answer.hasMore}${row.brief ? ` (brief: ${Math.max(2, Math.round(config.durationSeconds / 3))} s measured)` : ''}`,
      ...(row.notes ?? []),
    ]);
  });
}

/** Rounds of the alternated comparison (H2d): first page, page 2, the deep page, in turn, in one process. */
const ALTERNATED_ROUNDS = 3;

const median = (values: number[]): number | null => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length ? (sorted[Math.floor((sorted.length - 1) / 2)] ?? null) : null;
};

/**
 * H2d: the first page, page 2 and the deep page in turn on one serve process, ALTERNATED_ROUNDS
 * rounds: the comparison the depth goal asks for, with the process and the moment the same for the
 * three (rows of their own processes differ by more than the depth does on a shared machine). The
 * figures are the deep page's medians over the rounds; the check compares them with the first page's.
 */
function alternatedRow(config: BenchConfig, fleet: Fleet, paths: Record<'first' | 'page 2' | 'deep', string>, title: string): Promise<ScenarioResult> {
  return onGateway(config, 'H2d', fleet, async (gateway, merchants) => {
    const merchant = merchants[0];
    if (!merchant) throw new Error('no merchant');
    const kinds = ['first', 'page 2', 'deep'] as const;
    const spec = (path: string) =>
      loadSpec(config, gateway, fleet.backend, (): autocannon.Request[] => [{ method: 'GET', path, headers: authorization(merchant) }]);
    const seconds = Math.max(3, Math.round(config.durationSeconds / 2));
    for (const kind of kinds) await measureLoad({ ...spec(paths[kind]), durationSeconds: Math.max(1, config.warmupSeconds), warmupSeconds: 0 });
    const loads: Record<(typeof kinds)[number], Awaited<ReturnType<typeof measureLoad>>[]> = { first: [], 'page 2': [], deep: [] };
    for (let round = 0; round < ALTERNATED_ROUNDS; round++) {
      for (const kind of kinds) loads[kind].push(await measureLoad({ ...spec(paths[kind]), durationSeconds: seconds, warmupSeconds: 0 }));
    }
    const p50 = (kind: (typeof kinds)[number]) => median(loads[kind].map((load) => load.p50Ms));
    const p99 = (kind: (typeof kinds)[number]) => median(loads[kind].map((load) => load.p99Ms));
    const within = (a: number | null, b: number | null) => a !== null && b !== null && a <= DEPTH_FACTOR * Math.max(b, 1);
    const deep = loads.deep.at(-1);
    if (!deep) throw new Error('no round measured');
    const measured = fromLoad({ id: 'H2d', title, fleet, target: null, baseline: 'hello' }, deep, [
      {
        name: `≤ ${DEPTH_FACTOR}× the first page`,
        ok: within(p50('deep'), p50('first')) && within(p99('deep'), p99('first')),
        detail: `medians over ${ALTERNATED_ROUNDS} rounds: p50 ${p50('deep')} vs ${p50('first')} ms, p99 ${p99('deep')} vs ${p99('first')} ms`,
      },
    ]);
    const cpu = (load: Awaited<ReturnType<typeof measureLoad>>) =>
      ['gateway', 'postgres'].map((name) => load.cpuMsPerRequest[name]?.toFixed(2) ?? '—').join(' · ');
    return {
      ...measured,
      // The deep page's medians (the load fields are its last round's).
      requestsPerSecond: median(loads.deep.map((load) => load.requestsPerSecond)),
      p50Ms: p50('deep'),
      p99Ms: p99('deep'),
      notes: [
        `${ALTERNATED_ROUNDS} rounds of ${seconds} s each, in turn; the figures are the deep page's medians`,
        ...kinds.map(
          (kind) =>
            `${kind}: ${loads[kind].map((load) => `${Math.round(load.requestsPerSecond)} req/s p50 ${load.p50Ms} p99 ${load.p99Ms} ms (gw · pg ${cpu(load)})`).join('; ')}`,
        ),
      ],
    };
  });
}

class ExportUnavailable extends Error {}

type Downloaded = { status: number; contentType: string | null; stopped: boolean; errorBody: string };

/**
 * GET `url`, handing each chunk of a 200 answer to `onChunk` as it arrives (and keeping nothing);
 * `onChunk` returning false stops the download there. Another status's body is kept, for the error.
 */
function download(url: string, headers: Record<string, string>, onChunk: (chunk: Buffer) => boolean): Promise<Downloaded> {
  return new Promise((resolve, reject) => {
    const request = get(url, { headers }, (response) => {
      const status = response.statusCode ?? 0;
      const contentType = response.headers['content-type'] ?? null;
      let errorBody = '';
      response.on('data', (chunk: Buffer) => {
        if (status !== 200) {
          errorBody += chunk.toString('utf8');
        } else if (!onChunk(chunk)) {
          request.destroy();
          resolve({ status, contentType, stopped: true, errorBody });
        }
      });
      response.on('end', () => resolve({ status, contentType, stopped: false, errorBody }));
      response.on('error', reject);
    });
    request.on('error', reject);
  });
}

/** How a downloaded export's rows are counted as its bytes go by. */
type RowCounter = { add(chunk: Uint8Array): void; rows(): number };

/** CSV: one row per line after the header (the seeded values hold no line breaks). */
function csvRows(): RowCounter {
  let newlines = 0;
  let last = 0;
  return {
    add(chunk) {
      for (let at = chunk.indexOf(10); at !== -1; at = chunk.indexOf(10, at + 1)) newlines++;
      if (chunk.length) last = chunk[chunk.length - 1] ?? 0;
    },
    rows: () => Math.max(0, newlines + (last === 10 ? 0 : 1) - 1),
  };
}

/** OFX: one <STMTTRN> per transaction (a tag may straddle two chunks). */
function ofxRows(): RowCounter {
  const tag = '<STMTTRN>';
  let count = 0;
  let tail = '';
  return {
    add(chunk) {
      const text = tail + Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength).toString('latin1');
      for (let at = text.indexOf(tag); at !== -1; at = text.indexOf(tag, at + tag.length)) count++;
      tail = text.slice(-(tag.length - 1));
    },
    rows: () => count,
  };
}

const exportId = (format: 'csv' | 'ofx') => (format === 'csv' ? 'H4' : 'H5');
const exportTitle = (format: 'csv' | 'ofx', fixtures: Fixtures) =>
  `GET /v1/transactions/export?format=${format}, 30 days: ${integer(fixtures.exportRows[format])} ${format === 'csv' ? 'transactions' : 'movements'}, streamed`;

/**
 * One export (H4 CSV, H5 OFX) of the whole seeded period on a gateway of its own: downloaded and
 * discarded as it arrives, the serve process's RSS read every RSS_SAMPLE_MS meanwhile. The rate is
 * rows over the time from the request to the last byte.
 */
function exportRow(config: BenchConfig, fleet: Fleet, fixtures: Fixtures, format: 'csv' | 'ofx'): Promise<ScenarioResult> {
  const id = exportId(format);
  const title = exportTitle(format, fixtures);
  const path = `/v1/transactions/export?format=${format}&createdFrom=${fixtures.seed.startMs}&createdTo=${fixtures.seed.endMs + 1}`;
  return onGateway(config, id, fleet, async (gateway: HttpProcess, merchants) => {
    const merchant = merchants[0];
    if (!merchant) throw new Error('no merchant');
    // The first request of the process is not the measured one: the routes and the pool warm up.
    await expectJson(200, gateway.url, 'GET', `/v1/transactions?limit=${PAGE}`, { token: merchant.apiKey });
    const rssBefore = readRss(gateway.pid);
    let rssPeak = rssBefore ?? 0;
    const samples: number[] = [];
    const sampler = setInterval(() => {
      const rss = readRss(gateway.pid) ?? 0;
      samples.push(rss);
      rssPeak = Math.max(rssPeak, rss);
    }, RSS_SAMPLE_MS);
    const counter = format === 'csv' ? csvRows() : ofxRows();
    const endCpuWindow = startCpuWindow(scenarioMeters(gateway, fleet.backend));
    const started = performance.now();
    const startMicros = monotonicMicros();
    // Written in the download's callback (a holder: TypeScript does not follow assignments made there).
    const firstByte: { ms: number | null } = { ms: null };
    let bytes = 0;
    let answer: Downloaded;
    try {
      answer = await download(gateway.url + path, authorization(merchant), (chunk) => {
        firstByte.ms ??= performance.now() - started;
        bytes += chunk.byteLength;
        counter.add(chunk);
        return performance.now() - started <= EXPORT_TIME_LIMIT_MS;
      });
    } finally {
      clearInterval(sampler);
    }
    const { status, contentType, stopped } = answer;
    if (status !== 200) throw new ExportUnavailable(`GET ${path} answered ${status} ${answer.errorBody.slice(0, 200)}`);
    const seconds = (performance.now() - started) / 1000;
    const window = { startMicros, endMicros: monotonicMicros() };
    const cpu = endCpuWindow();
    rssPeak = Math.max(rssPeak, readRss(gateway.pid) ?? 0);
    const peak = gateway.peakRssBytes();
    const rows = counter.rows();
    const rowsPerSecond = rows / seconds;
    const perThousandRows = millisecondsPer(cpu, rows / 1000);
    const checks: Check[] = [
      {
        name: 'every row',
        ok: rows === fixtures.exportRows[format],
        detail: `${integer(rows)} of ${integer(fixtures.exportRows[format])} ${format === 'csv' ? 'transactions' : 'movements of the merchant book'}`,
      },
      ...(format === 'csv'
        ? [
            {
              name: 'peak RSS < 200 MB',
              ok: peak !== null && peak < EXPORT_MAX_RSS_BYTES,
              detail: `VmHWM ${mebibytes(peak)} (${peak === null ? '—' : (peak / 1e6).toFixed(0)} MB)`,
            },
          ]
        : []),
    ];
    const measured: Measured = {
      id,
      title,
      database: fleet.backend,
      requestsPerSecond: rowsPerSecond,
      unit: 'rows/s',
      p50Ms: null,
      p99Ms: null,
      non2xx: 0,
      errors: 0,
      statusCodes: { [String(status)]: 1 },
      // Per row (the unit of the figure); per 1,000 rows in the notes.
      cpuMsPerRequest: millisecondsPer(cpu, rows),
      othersPercentOfCore: cpu.othersPercentOfCore,
      target: format === 'csv' ? { minRequestsPerSecond: EXPORT_MIN_ROWS_PER_SECOND } : null,
      baseline: null,
      checks,
      window,
      notes: [
        ...(stopped ? [`STOPPED after ${EXPORT_TIME_LIMIT_MS / 1000} s (the time limit of a bench export): the figures are those of the part downloaded`] : []),
        `${integer(rows)} rows, ${(bytes / 2 ** 20).toFixed(1)} MiB (${contentType ?? 'no content-type'}) in ${seconds.toFixed(2)} s: ${integer(rowsPerSecond)} rows/s, ${(bytes / 2 ** 20 / seconds).toFixed(1)} MiB/s; first byte after ${firstByte.ms === null ? '—' : firstByte.ms.toFixed(0)} ms`,
        `serve RSS: ${mebibytes(rssBefore)} before the export, sampled peak ${mebibytes(rssPeak)} during it (every ${RSS_SAMPLE_MS} ms), VmHWM ${mebibytes(peak)} (process life: start-up, one list request, the export)`,
        `serve RSS at each tenth of the download (MiB): ${Array.from(
          { length: 10 },
          (_, tenth) => samples[Math.min(samples.length - 1, Math.floor(((tenth + 1) * samples.length) / 10) - 1)],
        )
          .map((bytes) => (bytes === undefined ? '—' : Math.round(bytes / 2 ** 20)))
          .join(', ')}`,
        `CPU ms per 1,000 rows: ${Object.entries(perThousandRows)
          .map(([name, value]) => `${name} ${value === null ? '—' : value.toFixed(1)}`)
          .join(' · ')}`,
      ],
    };
    return measured;
  });
}

/**
 * The history scenario (DESIGN.md §15): 1,000,000 transactions in one account (BENCH_HISTORY_ROWS),
 * then the first page, page 2, the page after row 500,000 and pages at 50 depths spread over the
 * history under load (H1, H2a, H2b, H2c), the first three again in turn on one process (H2d),
 * one page per filter briefly
 * (H3a–e), a CSV and an OFX export of the whole period (H4, H5); the plans of every history read
 * (EXPLAIN ANALYZE) are written to bench/results/history-plans.txt and summed up in H1's notes.
 * Every row gets its own serve process, so each peak RSS is that row's alone.
 */
export async function historyScenarios(config: BenchConfig, fleet: Fleet): Promise<ScenarioResult[]> {
  const merchant = await createHistoryMerchant(fleet.databaseUrl);
  fleet.merchants = [merchant];
  log(`  seeding ${integer(config.historyRows)} transactions in one account…`);
  const seed = await seedHistory(fleet.databaseUrl, merchant.accountId, config.historyRows);
  const fixtures = await findFixtures(fleet.databaseUrl, merchant, seed);
  const seeded = `seeded ${integer(seed.rows)} transactions over 30 days and their ${integer(seed.entries)} ledger entries in ${seed.seconds.toFixed(0)} s (${Object.entries(
    seed.steps,
  )
    .map(([name, seconds]) => `${name} ${seconds} s`)
    .join(', ')}); transactions with its indexes ${mebibytes(fixtures.tableBytes)}`;
  log(`  ${seeded}`);

  log('  EXPLAIN (ANALYZE, BUFFERS) of the history reads…');
  let plans: Plan[] = [];
  let planNotes: string[];
  try {
    const explained = await explainReads(fleet.databaseUrl, plannedReads(fixtures));
    plans = explained.plans;
    planNotes = [`plans (${explained.file}):`, ...plans.map((plan) => `  ${describePlan(plan)}`)];
  } catch (error) {
    planNotes = [`plans not available: ${error instanceof Error ? error.message : String(error)}`];
  }

  const results: ScenarioResult[] = [];
  const attempt = async (id: string, title: string, run: () => Promise<ScenarioResult>) => {
    log(`  ${id}: ${title}`);
    try {
      results.push(await run());
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      log(`  ${id} failed: ${message}`);
      const reason = error instanceof ExportUnavailable ? `n/a (${message})` : `error: ${message.split('\n')[0]}`;
      results.push(unavailableScenario(id, title, fleet.backend, reason));
    }
  };

  const list = `/v1/transactions?limit=${PAGE}`;
  const fullPage = (answer: ListAnswer): Check => ({
    name: 'a full page',
    ok: answer.count === PAGE && answer.transactions.length === PAGE && answer.hasMore,
    detail: `${answer.count} rows, hasMore ${answer.hasMore}`,
  });
  const firstTitle = `GET ${list}, first page of ${integer(seed.rows)}`;
  await attempt('H1', firstTitle, () =>
    listRow(config, fleet, { id: 'H1', title: firstTitle, path: list, brief: false, validate: (answer) => [fullPage(answer)], notes: [seeded, ...planNotes] }),
  );
  const startsAt = (answer: ListAnswer, row: number, id: string): Check => ({
    name: `starts at row ${integer(row)}`,
    ok: answer.transactions[0]?.transactionId === id,
    detail: `first transactionId ${answer.transactions[0]?.transactionId ?? 'none'}, expected ${id}`,
  });
  // Page 2 takes the cursor's path (the cursor's row looked up, the query built per request) at no depth: H2b against it is the depth alone.
  const secondTitle = `GET ${list}&startingAfter=…, page 2 (after row ${PAGE})`;
  await attempt('H2a', secondTitle, () =>
    listRow(config, fleet, {
      id: 'H2a',
      title: secondTitle,
      path: `${list}&startingAfter=${fixtures.secondCursor.id}`,
      brief: false,
      validate: (answer) => [fullPage(answer), startsAt(answer, PAGE + 1, fixtures.secondFirstId)],
    }),
  );
  const deepTitle = `GET ${list}&startingAfter=…, page ${integer(fixtures.depth / PAGE + 1)} (after row ${integer(fixtures.depth)})`;
  await attempt('H2b', deepTitle, () =>
    listRow(config, fleet, {
      id: 'H2b',
      title: deepTitle,
      path: `${list}&startingAfter=${fixtures.cursor.id}`,
      brief: false,
      validate: (answer) => [fullPage(answer), startsAt(answer, fixtures.depth + 1, fixtures.deepFirstId)],
    }),
  );
  const spreadTitle = `GET ${list}&startingAfter=…, ${fixtures.spreadCursors.length} depths spread over the history (one per connection)`;
  await attempt('H2c', spreadTitle, () =>
    listRow(config, fleet, {
      id: 'H2c',
      title: spreadTitle,
      path: `${list}&startingAfter=${fixtures.spreadCursors.at(-1) ?? ''}`,
      pathFor: (index) => `${list}&startingAfter=${fixtures.spreadCursors[index % fixtures.spreadCursors.length] ?? ''}`,
      brief: false,
      validate: (answer) => [fullPage(answer)],
      notes: ['each connection asks for its own page: the one after every ' + integer(Math.floor(fixtures.seed.rows / (SPREAD_CURSORS + 1))) + 'th row'],
    }),
  );
  const alternatedTitle = `GET ${list}: first page, page 2, page ${integer(fixtures.depth / PAGE + 1)} in turn on one process (${ALTERNATED_ROUNDS} rounds)`;
  await attempt('H2d', alternatedTitle, () =>
    alternatedRow(
      config,
      fleet,
      { first: list, 'page 2': `${list}&startingAfter=${fixtures.secondCursor.id}`, deep: `${list}&startingAfter=${fixtures.cursor.id}` },
      alternatedTitle,
    ),
  );
  const measuredRow = (id: string) => results.find((result) => result.id === id && !result.unavailable);
  const [first, second] = [measuredRow('H1'), measuredRow('H2a')];
  const within = (a: number | null, b: number | null) => a !== null && b !== null && a <= DEPTH_FACTOR * Math.max(b, 1);
  const cpu = (result: ScenarioResult) => ['gateway', 'postgres'].map((name) => result.cpuMsPerRequest[name]?.toFixed(2) ?? '—').join(' · ');
  for (const deep of [measuredRow('H2b'), measuredRow('H2c')]) {
    if (!first || !deep) continue;
    deep.checks.push({
      name: `≤ ${DEPTH_FACTOR}× the first page`,
      ok: within(deep.p50Ms, first.p50Ms) && within(deep.p99Ms, first.p99Ms),
      detail: `p50 ${deep.p50Ms} vs ${first.p50Ms} ms, p99 ${deep.p99Ms} vs ${first.p99Ms} ms`,
    });
    deep.notes.push(
      `CPU ms/request gw · pg: this row ${cpu(deep)}; page 2 ${second ? cpu(second) : '—'}; first page ${cpu(first)}` +
        (second ? `; p50/p99 of page 2: ${second.p50Ms}/${second.p99Ms} ms` : ''),
    );
  }

  for (const entry of filters(fixtures)) {
    const title = `GET ${list}&${entry.label}`;
    await attempt(entry.id, title, () =>
      listRow(config, fleet, {
        id: entry.id,
        title,
        path: `${list}&${entry.query}`,
        brief: true,
        validate: (answer) => {
          const matching = answer.transactions.every(entry.matches);
          return [
            { name: 'rows match', ok: answer.count > 0 && matching, detail: `${answer.count} rows${matching ? ', all matching' : ', some NOT matching'}` },
          ];
        },
      }),
    );
  }

  for (const format of ['csv', 'ofx'] as const)
    await attempt(exportId(format), exportTitle(format, fixtures), () => exportRow(config, fleet, fixtures, format));
  const unserved = plans.filter((plan) => plan.seqScan || plan.sort);
  if (unserved.length) log(`  plans with a sequential scan or a sort: ${unserved.map((plan) => plan.name).join('; ')}`);
  return results;
}
