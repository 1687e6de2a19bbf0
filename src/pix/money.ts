/** Brazilian currency text for messages: 123456 → `R$ 1.234,56` (plain space, not NBSP). */
export function formatBrl(cents: number): string {
  // Integer cents only: formatting must never hide a fractional-cent bug upstream.
  if (!Number.isSafeInteger(cents)) throw new RangeError('formatBrl expects integer cents.');
  const absolute = Math.abs(cents);
  const centsPart = absolute % 100;
  const reais = String((absolute - centsPart) / 100).replace(/\B(?=(\d{3})+$)/g, '.');
  return `${cents < 0 ? '-' : ''}R$ ${reais},${String(centsPart).padStart(2, '0')}`;
}
