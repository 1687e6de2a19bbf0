import type { InfractionView } from '../infractions/presenter.js';
import { formatDate, Money } from '../pages/components.js';

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;
/** Within the last reminder's window the banner is an alert (read out at once), before it a status. */
const URGENT_MS = 6 * HOUR_MS;

/** The time left as a person says it: whole hours down to one, then whole minutes. */
function timeLeftText(ms: number): string {
  const hours = Math.floor(ms / HOUR_MS);
  if (hours >= 1) return hours === 1 ? 'falta 1 hora' : `faltam ${hours} horas`;
  const minutes = Math.floor(ms / MINUTE_MS);
  if (minutes >= 1) return minutes === 1 ? 'falta 1 minuto' : `faltam ${minutes} minutos`;
  return 'falta menos de 1 minuto';
}

/**
 * The banner every dashboard page shows while one of the account's MED cases (open or with its
 * defense sent) has its defense deadline within 48 hours (DESIGN.md §19): the nearest one, its
 * deadline and the time left, a link to it on Disputas, and how many others are that close.
 */
export function DeadlineBanner(props: { nearest: InfractionView; total: number; now: number }) {
  const { nearest, total, now } = props;
  const left = nearest.defenseDeadline - now;
  const urgent = left <= URGENT_MS;
  const others = total - 1;
  return (
    <div class={urgent ? 'banner urgent' : 'banner'} role={urgent ? 'alert' : 'status'}>
      <p>
        <strong>Prazo de defesa de disputa MED.</strong> A disputa de <Money cents={nearest.amountCents} />
        <span safe>
          {`${nearest.status === 'open' ? ' aguarda sua defesa' : ' já tem defesa enviada'}; o prazo termina em ${formatDate(nearest.defenseDeadline)} (${timeLeftText(left)}). `}
        </span>
        <a href={`/dashboard/disputas#caso-${nearest.infractionId}`}>Ver a disputa</a>
        {others > 0 ? (
          <span safe>
            {others === 1 ? ' Outra disputa também tem prazo nas próximas 48 horas.' : ` Outras ${others} disputas também têm prazo nas próximas 48 horas.`}
          </span>
        ) : (
          ''
        )}
      </p>
    </div>
  );
}
