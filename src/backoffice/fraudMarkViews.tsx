import { DataTable, formatDate, type PageContext } from '../pages/components.js';
import { maskedMarkValue, type presentFraudMark } from '../fraudmarks/service.js';
import { ActionForm, Page, ReadOnly } from './views.js';

export type FraudMarksData = {
  marks: ReturnType<typeof presentFraudMark>[];
  /** The next page's address, when more marks follow. */
  next: string | undefined;
  mayChange: boolean;
  /** What the add form had, to show it again after a refusal. */
  form?: { kind: string; value: string; reason: string } | undefined;
};

const KIND_NAMES: Record<string, string> = { key: 'Chave PIX', document: 'Documento (CPF/CNPJ)' };

/** Marcações de fraude (DESIGN.md §19): the active marks, newest first; add and remove (compliance, admin). */
export function FraudMarksPage(props: { context: PageContext; data: FraudMarksData; error?: string | undefined; notice?: string | undefined }) {
  const { context, data } = props;
  return (
    <Page context={context} title="Marcações de fraude" error={props.error} notice={props.notice}>
      <p>
        Chaves PIX e documentos marcados por suspeita de fraude: saques e cadastros de destinatário para eles são recusados antes de qualquer débito, e um PIX
        recebido de um pagador marcado fica bloqueado até a liberação por um operador. Vale em todos os processos em até 1 segundo.
      </p>
      {data.marks.length === 0 ? (
        <p class="muted empty">Nenhuma marcação ativa.</p>
      ) : (
        <DataTable label="Marcações ativas" columns={['Tipo', 'Valor', 'Motivo', 'Por', 'Desde', data.mayChange && 'Ação']}>
          {data.marks.map((mark) => (
            <tr>
              <td safe>{mark.kind === 'key' && mark.keyType ? `${KIND_NAMES.key} (${mark.keyType})` : KIND_NAMES[mark.kind]}</td>
              <td>
                <code safe>{maskedMarkValue(mark)}</code>
              </td>
              <td safe>{mark.reason}</td>
              <td safe>{mark.createdBy}</td>
              <td safe>{formatDate(mark.createdAt)}</td>
              {data.mayChange ? (
                <td>
                  <ActionForm action={`/backoffice/marcacoes/${mark.id}/remover`} csrfToken={context.csrfToken} submit="Remover" danger />
                </td>
              ) : (
                ''
              )}
            </tr>
          ))}
        </DataTable>
      )}
      {data.next ? (
        <p>
          <a href={data.next}>Próxima página</a>
        </p>
      ) : (
        ''
      )}
      <h2>Nova marcação</h2>
      {data.mayChange ? (
        <form class="stack" method="post" action="/backoffice/marcacoes">
          <input type="hidden" name="_csrf" value={context.csrfToken} />
          <label>
            Tipo
            <select name="kind">
              <option value="key" selected={data.form?.kind !== 'document'}>
                Chave PIX
              </option>
              <option value="document" selected={data.form?.kind === 'document'}>
                Documento (CPF/CNPJ)
              </option>
            </select>
          </label>
          <label>
            Chave ou documento
            <input name="value" required maxlength="200" autocomplete="off" value={data.form?.value ?? ''} />
          </label>
          <label>
            Motivo
            <input name="reason" required maxlength="500" autocomplete="off" value={data.form?.reason ?? ''} />
          </label>
          <button type="submit">Marcar</button>
        </form>
      ) : (
        <ReadOnly role={context.user?.role ?? ''} />
      )}
    </Page>
  );
}
