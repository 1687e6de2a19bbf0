/**
 * An amount typed by a person in Brazilian format — `15`, `15,5`, `1.234,56`, `R$ 1.234,56`, or
 * `15.50` with a dot for the cents — as integer cents; NaN when it is not one.
 */
export function parseBrl(text: string): number {
  const value = text.replace(/^\s*R\$\s*/, '').trim();
  const match = /^(\d{1,3}(?:\.\d{3})+|\d+)(?:,(\d{1,2}))?$/.exec(value) ?? /^(\d+)\.(\d{1,2})$/.exec(value);
  if (!match?.[1]) return Number.NaN;
  const reais = Number(match[1].replaceAll('.', ''));
  const cents = Number((match[2] ?? '0').padEnd(2, '0'));
  const total = reais * 100 + cents;
  return Number.isSafeInteger(total) ? total : Number.NaN;
}

/** Cents as a decimal with a dot and two places, as PSPs and our exports write money: 123456 → "1234.56", -5 → "-0.05" (integer arithmetic: no binary fractions). */
export function decimalOf(cents: number): string {
  const absolute = Math.abs(cents);
  return `${cents < 0 ? '-' : ''}${Math.floor(absolute / 100)}.${String(absolute % 100).padStart(2, '0')}`;
}
