import { formatBrl } from '../messages.js';
import type { DailyMoney } from '../ledger/service.js';
import type { InfractionView } from '../infractions/presenter.js';
import { DataTable, formatDate, formatDay, Money } from '../pages/components.js';

/** What Início lists under "O que precisa de atenção" (DESIGN.md §24), each with the page where it is dealt with. */
export type Attention = {
  /** Running MED cases whose defense deadline is within 48 hours, the nearest first. */
  disputes: { rows: InfractionView[]; total: number };
  /** Charges the PSP holds (cautionary block), the first released first. */
  held: { rows: { transactionId: string; netCents: number; heldUntil: number }[]; total: number };
  /** Webhook URLs whose latest delivery attempt failed. */
  webhooks: { endpointId: string; url: string; failures: number; lastFailedAt: number }[];
};

/** The chart's drawing, in SVG user units: narrow enough that its text stays readable on a phone, scaled up on a desktop. */
const WIDTH = 360;
const HEIGHT = 210;
const LEFT = 66;
const RIGHT = 6;
const TOP = 10;
const BOTTOM = 30;
const PLOT_WIDTH = WIDTH - LEFT - RIGHT;
const PLOT_HEIGHT = HEIGHT - TOP - BOTTOM;
/** Colors with at least 3:1 contrast on white (WCAG 1.4.11), told apart by the legend and the table too. */
const RECEIVED_COLOR = '#116329';
const SENT_COLOR = '#bc4c00';

const axisMoney = new Intl.NumberFormat('pt-BR', {
  style: 'currency',
  currency: 'BRL',
  notation: 'compact',
  minimumFractionDigits: 0,
  maximumFractionDigits: 1,
});

/** The top of the axis: the smallest 1, 2 or 5 × 10ⁿ cents at or above the largest day (R$ 1,00 when nothing moved). */
function axisTop(largestCents: number): number {
  if (largestCents <= 0) return 100;
  const power = 10 ** Math.floor(Math.log10(largestCents));
  const step = [1, 2, 5, 10].find((factor) => factor * power >= largestCents) ?? 10;
  return step * power;
}

/** DD/MM of a day AAAA-MM-DD. */
const dayMonth = (day: string): string => formatDay(day).slice(0, 5);

/** The chart's summary for screen readers and the svg's title: the period and its totals. */
function chartSummary(days: readonly DailyMoney[]): string {
  const received = days.reduce((sum, day) => sum + day.receivedCents, 0);
  const sent = days.reduce((sum, day) => sum + day.sentCents, 0);
  const first = days[0];
  const last = days[days.length - 1];
  const period = first && last ? `de ${dayMonth(first.day)} a ${dayMonth(last.day)}` : '';
  return `Recebido e enviado por dia ${period}: ${formatBrl(received)} recebidos e ${formatBrl(sent)} enviados no total.`;
}

/**
 * Money received (net credited) and sent (debited, fees included) per day, a pair of bars a day,
 * drawn on the server: no script, no chart library. The svg is one image with its summary as its
 * name; the same figures are in a table under "Ver como tabela".
 */
export function MoneyChart(props: { days: readonly DailyMoney[] }) {
  const { days } = props;
  const top = axisTop(Math.max(0, ...days.map((day) => Math.max(day.receivedCents, day.sentCents))));
  const slot = PLOT_WIDTH / Math.max(1, days.length);
  const bar = Math.max(1, (slot - 2) / 2);
  const y = (cents: number) => TOP + PLOT_HEIGHT - (cents / top) * PLOT_HEIGHT;
  const summary = chartSummary(days);
  const moved = days.some((day) => day.receivedCents > 0 || day.sentCents > 0);
  return (
    <section aria-labelledby="grafico" class="chart">
      <h2 id="grafico">Últimos 30 dias</h2>
      <svg role="img" aria-label={summary} viewBox={`0 0 ${WIDTH} ${HEIGHT}`} width="100%" preserveAspectRatio="xMidYMid meet" font-size="12" fill="#57606a">
        <title safe>{summary}</title>
        {[0, 0.5, 1].map((share) => (
          <g class="tick">
            <line x1={LEFT} x2={WIDTH - RIGHT} y1={y(top * share)} y2={y(top * share)} stroke="#d0d7de" />
            <text x={LEFT - 4} y={y(top * share) + 4} text-anchor="end" safe>
              {axisMoney.format((top * share) / 100)}
            </text>
          </g>
        ))}
        {days.map((day, index) => {
          const x = LEFT + index * slot + 1;
          return (
            <g class="day" data-day={day.day}>
              <title safe>{`${dayMonth(day.day)}: ${formatBrl(day.receivedCents)} recebidos, ${formatBrl(day.sentCents)} enviados`}</title>
              <rect x={x} y={y(day.receivedCents)} width={bar} height={PLOT_HEIGHT + TOP - y(day.receivedCents)} fill={RECEIVED_COLOR} />
              <rect x={x + bar} y={y(day.sentCents)} width={bar} height={PLOT_HEIGHT + TOP - y(day.sentCents)} fill={SENT_COLOR} />
              {index % 7 === days.length % 7 || index === days.length - 1 ? (
                <text
                  x={index === days.length - 1 ? x + 2 * bar : x + bar}
                  y={HEIGHT - BOTTOM + 17}
                  text-anchor={index === days.length - 1 ? 'end' : 'middle'}
                  safe
                >
                  {dayMonth(day.day)}
                </text>
              ) : (
                ''
              )}
            </g>
          );
        })}
      </svg>
      <p class="legend">
        <svg aria-hidden="true" width="12" height="12" viewBox="0 0 12 12">
          <rect width="12" height="12" fill={RECEIVED_COLOR} />
        </svg>{' '}
        Recebido (líquido das tarifas){' '}
        <svg aria-hidden="true" width="12" height="12" viewBox="0 0 12 12">
          <rect width="12" height="12" fill={SENT_COLOR} />
        </svg>{' '}
        Enviado (com tarifas)
      </p>
      {moved ? '' : <p class="muted">Nenhum dinheiro recebido ou enviado nos últimos 30 dias.</p>}
      <details>
        <summary>Ver como tabela</summary>
        <DataTable label="Recebido e enviado por dia" columns={['Dia', 'Recebido', 'Enviado']}>
          {days.map((day) => (
            <tr>
              <td safe>{dayMonth(day.day)}</td>
              <td>
                <Money cents={day.receivedCents} />
              </td>
              <td>
                <Money cents={day.sentCents} />
              </td>
            </tr>
          ))}
        </DataTable>
      </details>
    </section>
  );
}

const plural = (count: number, one: string, many: string) => (count === 1 ? one : many);

/** "O que precisa de atenção": each item says what and until when, and links to where it is dealt with; an empty state when nothing does. */
export function AttentionList(props: { attention: Attention }) {
  const { disputes, held, webhooks } = props.attention;
  const empty = disputes.total === 0 && held.total === 0 && webhooks.length === 0;
  return (
    <section aria-labelledby="atencao">
      <h2 id="atencao">O que precisa de atenção</h2>
      {empty ? (
        <p class="muted">Nada precisa de atenção agora: nenhuma disputa perto do prazo de defesa, nenhum dinheiro retido e nenhum webhook falhando.</p>
      ) : (
        <ul class="attention">
          {disputes.rows.map((dispute) => (
            <li>
              <span>
                Disputa MED de <Money cents={dispute.amountCents} />
                <span
                  safe
                >{`${dispute.status === 'open' ? ' aguarda sua defesa' : ' já tem defesa enviada'}: o prazo termina em ${formatDate(dispute.defenseDeadline)}.`}</span>
              </span>{' '}
              <a href={`/dashboard/disputas#caso-${dispute.infractionId}`}>{dispute.status === 'open' ? 'Defender a disputa' : 'Ver a disputa'}</a>
            </li>
          ))}
          {disputes.total > disputes.rows.length ? (
            <li>
              <span
                safe
              >{`Mais ${disputes.total - disputes.rows.length} ${plural(disputes.total - disputes.rows.length, 'disputa', 'disputas')} com prazo nas próximas 48 horas.`}</span>{' '}
              <a href="/dashboard/disputas">Ver as disputas</a>
            </li>
          ) : (
            ''
          )}
          {held.rows.map((charge) => (
            <li>
              <span>
                <Money cents={charge.netCents} />
                <span safe>{` de uma cobrança retidos pelo PSP (bloqueio cautelar) até ${formatDate(charge.heldUntil)}.`}</span>
              </span>{' '}
              <a href={`/dashboard/cobrancas/${charge.transactionId}`}>Ver a cobrança retida</a>
            </li>
          ))}
          {held.total > held.rows.length ? (
            <li>
              <span
                safe
              >{`Mais ${held.total - held.rows.length} ${plural(held.total - held.rows.length, 'cobrança retida', 'cobranças retidas')} pelo PSP.`}</span>{' '}
              <a href="/dashboard/cobrancas">Ver as cobranças</a>
            </li>
          ) : (
            ''
          )}
          {webhooks.map((endpoint) => (
            <li>
              <span safe>
                {endpoint.failures === 1
                  ? `A última tentativa de entrega a ${endpoint.url} falhou (${formatDate(endpoint.lastFailedAt)}).`
                  : `As últimas ${endpoint.failures} tentativas de entrega a ${endpoint.url} falharam (a última em ${formatDate(endpoint.lastFailedAt)}).`}
              </span>{' '}
              <a href="/dashboard/webhooks">Ver as entregas do webhook</a>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
