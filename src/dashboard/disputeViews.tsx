import type { InfractionView } from '../infractions/presenter.js';
import type { EvidenceView } from '../infractions/evidenceSchemas.js';
import { EvidenceForm } from './evidenceViews.js';
import { EvidenceList } from '../pages/evidenceViews.js';
import { Alert, CsrfField, formatDate, Layout, Money, Notice, NotOffered, Status, type PageContext } from '../pages/components.js';

/** MED reasons (DESIGN.md §9) as the merchant reads them. */
const REASON_NAMES: Record<InfractionView['reason'], string> = { fraud: 'Fraude', operational_flaw: 'Falha operacional' };

/** How the victim was led to pay (MED 2.0, DESIGN.md §19). */
const SITUATION_NAMES: Record<InfractionView['situation'], string> = {
  scam: 'Golpe',
  account_takeover: 'Conta invadida',
  coercion: 'Coação',
  fraudulent_access: 'Acesso fraudulento',
  other: 'Outra',
  unknown: 'Não informada',
};

export function DisputesPage(props: {
  context: PageContext;
  cases: InfractionView[];
  /** Each case's evidence files, by infractionId. */
  evidence: Record<string, EvidenceView[]>;
  now: number;
  mayDefend: boolean;
  defense?: { infractionId: string; text: string } | undefined;
  error?: string | undefined;
  notice?: string | undefined;
}) {
  return (
    <Layout title="Disputas" context={props.context}>
      <h1>Disputas</h1>
      <p>
        Casos do MED (Mecanismo Especial de Devolução) abertos pelo banco do pagador, às vezes vários sobre um mesmo PIX, cada um por uma parte. O valor do caso
        fica bloqueado até a decisão (o que faltar, dos próximos créditos) e a cobrança não pode ser devolvida enquanto houver caso aberto; envie sua defesa
        antes do prazo.
      </p>
      <Notice message={props.notice} />
      <Alert message={props.error} />
      {props.mayDefend ? '' : <NotOffered mayAct={false} what="enviar defesas" />}
      {props.cases.length === 0 ? (
        <p class="muted empty">
          Nenhuma disputa. Quando um pagador contestar um PIX, o caso aparece aqui e um webhook transaction.infraction é enviado: cadastre uma URL em{' '}
          <a href="/dashboard/webhooks">Webhooks</a> para recebê-lo.
        </p>
      ) : (
        <ul class="cases">
          {props.cases.map((dispute) => {
            const defensible = props.mayDefend && dispute.status === 'open' && props.now < dispute.defenseDeadline;
            const typed = props.defense?.infractionId === dispute.infractionId ? props.defense.text : '';
            return (
              <li>
                <article aria-labelledby={`caso-${dispute.infractionId}`}>
                  <h2 id={`caso-${dispute.infractionId}`}>
                    <Money cents={dispute.amountCents} />
                    <span safe>{` · aberta em ${formatDate(dispute.openedAt)}`}</span>
                  </h2>
                  <dl>
                    <dt>Status</dt>
                    <dd>
                      <Status status={dispute.status} of="infraction" />
                    </dd>
                    <dt>Motivo</dt>
                    <dd safe>{REASON_NAMES[dispute.reason]}</dd>
                    <dt>Situação</dt>
                    <dd safe>{SITUATION_NAMES[dispute.situation]}</dd>
                    {dispute.recoveryId ? (
                      <>
                        <dt>Recuperação</dt>
                        <dd safe>{`${dispute.recoveryId} · ${dispute.hop === 1 ? 'pagamento direto da vítima' : `${dispute.hop}ª conta no rastreio`}`}</dd>
                      </>
                    ) : (
                      ''
                    )}
                    {dispute.recoveredCents === null ? (
                      ''
                    ) : (
                      <>
                        <dt>Devolvido à vítima</dt>
                        <dd>
                          <Money cents={dispute.recoveredCents} />
                        </dd>
                      </>
                    )}
                    <dt>Prazo da defesa</dt>
                    <dd safe>{formatDate(dispute.defenseDeadline)}</dd>
                    <dt>Cobrança</dt>
                    <dd>
                      <a href={`/dashboard/cobrancas/${dispute.transactionId}`}>Ver a cobrança</a>
                    </dd>
                    {dispute.defense ? (
                      <>
                        <dt>Defesa</dt>
                        <dd safe>{dispute.defense}</dd>
                      </>
                    ) : (
                      ''
                    )}
                  </dl>
                  {defensible ? (
                    <form class="stack" method="post" action={`/dashboard/disputas/${dispute.infractionId}/defesa`}>
                      <CsrfField token={props.context.csrfToken} />
                      <label>
                        Defesa (até 2000 caracteres)
                        <textarea name="text" rows="5" maxlength="2000" required safe>
                          {typed}
                        </textarea>
                      </label>
                      <button type="submit">Enviar defesa</button>
                    </form>
                  ) : (
                    ''
                  )}
                  <EvidenceList infractionId={dispute.infractionId} files={props.evidence[dispute.infractionId] ?? []} base="/dashboard/disputas">
                    <EvidenceForm
                      dispute={dispute}
                      files={props.evidence[dispute.infractionId]?.length ?? 0}
                      now={props.now}
                      mayUpload={props.mayDefend}
                      csrfToken={props.context.csrfToken}
                    />
                  </EvidenceList>
                </article>
              </li>
            );
          })}
        </ul>
      )}
    </Layout>
  );
}
