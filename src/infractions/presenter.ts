import type { InfractionReason, InfractionRow, InfractionSituation, InfractionStatus } from '../platform/schema.js';

/** The MED case as the merchant API and the dispute events show it (DESIGN.md §9, §19); times in Unix milliseconds. */
export type InfractionView = {
  infractionId: string;
  transactionId: string;
  status: InfractionStatus;
  reason: InfractionReason;
  amountCents: number;
  openedAt: number;
  defenseDeadline: number;
  defense: string | null;
  closedAt: number | null;
  recoveryId: string | null;
  hop: number;
  situation: InfractionSituation;
  recoveredCents: number | null;
};

export function presentInfraction(row: InfractionRow): InfractionView {
  return {
    infractionId: row.id,
    transactionId: row.transactionId,
    status: row.status,
    reason: row.reason,
    amountCents: row.amountCents,
    openedAt: row.openedAt.getTime(),
    defenseDeadline: row.defenseDeadline.getTime(),
    defense: row.defense,
    closedAt: row.closedAt ? row.closedAt.getTime() : null,
    recoveryId: row.recoveryId,
    hop: row.hop,
    situation: row.situation,
    recoveredCents: row.recoveredCents,
  };
}
