// `npm run sql:generate` writes, and `npm run sql:check` (part of `npm run lint`) compares, the SQL
// the payout engine sends (src/payouts/repository.ts): statements composed from several
// repositories' parts, written out whole in queries/ so a reviewer reads the SQL that runs. The
// texts do not depend on a withdrawal's values (each is a parameter) nor on a batch's size (each
// column is one array), so one sample withdrawal of each kind gives every text.
//   tsx scripts/sql/generate.ts           write queries/*.sql
//   tsx scripts/sql/generate.ts --check   exit 1 when a file differs from what the code composes
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openDatabase } from '../../src/platform/database.js';
import type { TransactionRow } from '../../src/platform/schema.js';
import { aloneStatement, batchStatements, type PayoutWrite } from '../../src/payouts/repository.js';
import { IDEMPOTENCY_SCOPE } from '../../src/transactions/idempotencyRepository.js';
import { WITHDRAWAL } from '../../src/transactions/states.js';
import { transactionCreation } from '../../src/transactions/transition.js';

const DIRECTORY = fileURLToPath(new URL('../../queries/', import.meta.url));
const at = new Date('2026-12-07T12:00:00.000Z');

/** A new automatic-mode withdrawal to a third party, with its externalRef when `claimed`. */
function sampleWrite(claimed: boolean): PayoutWrite {
  const row: TransactionRow = {
    id: '00000000-0000-4000-8000-000000000001',
    accountId: '00000000-0000-4000-8000-000000000002',
    type: 'withdrawal',
    status: WITHDRAWAL.submit.to,
    amountCents: 1_000,
    feeCents: 100,
    netCents: 1_000,
    externalRef: claimed ? 'sample-ref' : null,
    description: null,
    customer: null,
    pixPayload: null,
    location: null,
    expiresAt: null,
    paidAt: null,
    endToEndId: null,
    payer: null,
    beneficiary: null,
    expectedHolder: { name: 'Fornecedor', document: '39053344705', documentType: 'cpf' },
    refundEndToEndId: null,
    refundedCents: 0,
    pixKey: '39053344705',
    pixKeyType: 'cpf',
    recipientId: null,
    providerId: 'simulator',
    due: null,
    staticQrId: null,
    recurrenceId: null,
    recurrenceCycle: null,
    holdStatus: null,
    heldUntil: null,
    createdAt: at,
    updatedAt: at,
  };
  return {
    row,
    reservation: {
      accountId: row.accountId,
      at,
      amountCents: row.amountCents,
      rateLimits: { second: 1, minute: 2, hour: 10 },
      caps: { dailyCents: 100_000, monthlyCents: 1_000_000 },
      debit: {
        kind: 'withdrawal_debit',
        transactionId: row.id,
        entries: [
          { book: 'merchant', amountCents: -1_100 },
          { book: 'settlement', amountCents: 1_000 },
          { book: 'fees', amountCents: 100 },
        ],
      },
    },
    claim: claimed ? { scope: IDEMPOTENCY_SCOPE.withdrawal, externalRef: 'sample-ref', transactionId: row.id } : undefined,
    creation: transactionCreation(WITHDRAWAL.submit, row, at),
    send: { id: row.id, kind: 'withdrawal', accountId: row.accountId, at, leaseUntil: at, deadlineAt: at },
    alert: { accountId: row.accountId, kind: 'third_party_withdrawal', transactionId: row.id, details: {}, at },
  };
}

/** Each file's text: what it is, then the statement as sent ($n are its parameters). */
async function composed(): Promise<Map<string, string>> {
  const database = await openDatabase({ kind: 'memory' });
  try {
    const [withClaim, withoutClaim] = [sampleWrite(true), sampleWrite(false)];
    const [lockTimeout, reservationClaiming, reservation, records] = batchStatements(database.db, [withClaim, withoutClaim]);
    const statements: [string, string, string | undefined][] = [
      ['payout-batch-1-lock-timeout', 'A batch, statement 1: how long its reservations wait for a balance row.', lockTimeout?.sql],
      [
        'payout-batch-2-reservation',
        "A batch, one per withdrawal without externalRef: its reservation (rate windows, caps, debit on its balance row's lock).",
        reservation?.sql,
      ],
      [
        'payout-batch-2-reservation-claiming',
        "A batch, one per withdrawal with an externalRef: its reservation with the externalRef's claim.",
        reservationClaiming?.sql,
      ],
      ['payout-batch-3-records', "A batch, last: every withdrawal's transaction, events and deliveries, debit entries, send and alert.", records?.sql],
      [
        'payout-alone',
        'A withdrawal written alone, without externalRef: its reservation and records in one statement.',
        aloneStatement(database.db, withoutClaim, null).sql,
      ],
      ['payout-alone-claiming', 'A withdrawal written alone, with an externalRef.', aloneStatement(database.db, withClaim, null).sql],
    ];
    const files = new Map<string, string>();
    for (const [name, about, text] of statements) {
      if (text === undefined) throw new Error(`${name}: the engine composed no statement`);
      const header = `-- Generated by \`npm run sql:generate\` from src/payouts/repository.ts: do not edit.\n-- ${about}\n`;
      files.set(`${name}.sql`, `${header}${text.trim()}\n`);
    }
    return files;
  } finally {
    await database.close();
  }
}

const files = await composed();
if (process.argv.includes('--check')) {
  const present = existsSync(DIRECTORY) ? readdirSync(DIRECTORY).filter((name) => name.endsWith('.sql')) : [];
  const stale = [...files]
    .filter(([name, text]) => !existsSync(join(DIRECTORY, name)) || readFileSync(join(DIRECTORY, name), 'utf8') !== text)
    .map(([name]) => name);
  const extra = present.filter((name) => !files.has(name));
  if (stale.length + extra.length > 0) {
    process.stderr.write(`queries/ is not what the code composes (${[...stale, ...extra].join(', ')}): run npm run sql:generate and commit it.\n`);
    process.exit(1);
  }
  process.stdout.write(`queries/: ${files.size} statements current.\n`);
} else {
  mkdirSync(DIRECTORY, { recursive: true });
  for (const [name, text] of files) writeFileSync(join(DIRECTORY, name), text);
  process.stdout.write(`queries/: ${files.size} statements written.\n`);
}
