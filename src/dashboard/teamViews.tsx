import type { Invitation, TeamMember } from '../users/service.js';
import { Alert, CsrfField, formatDate, Layout, Notice, NotOffered, ShownOnce, type PageContext, DataTable } from '../pages/components.js';

export type InviteForm = { email: string; role: string };

const ROLES: readonly { role: string; name: string; can: string }[] = [
  { role: 'owner', name: 'Owner', can: 'tudo, inclusive a equipe' },
  { role: 'developer', name: 'Developer', can: 'chaves de API e webhooks' },
  { role: 'finance', name: 'Finance', can: 'cobranças, saques, devoluções e disputas' },
  { role: 'viewer', name: 'Viewer', can: 'somente leitura' },
];

function RoleSelect(props: { selected: string; label: string }) {
  return (
    <label>
      <span safe>{props.label}</span>
      <select name="role">
        {ROLES.map((entry) => (
          <option value={entry.role} selected={props.selected === entry.role} safe>
            {`${entry.name}: ${entry.can}`}
          </option>
        ))}
      </select>
    </label>
  );
}

const INVITE_NOTES: Record<Invitation['emailed'], string> = {
  sent: 'Convite enviado por e-mail. O link abaixo é o mesmo do e-mail: vale uma vez, por 72 horas.',
  failed: 'O e-mail não pôde ser enviado. Entregue este link à pessoa: ele vale uma vez, por 72 horas.',
  not_configured: 'Entregue este link à pessoa convidada: ele vale uma vez, por 72 horas.',
};

export function TeamPage(props: {
  context: PageContext;
  members: TeamMember[];
  me: string;
  mayManage: boolean;
  totpEnrolled: boolean;
  form?: InviteForm | undefined;
  invited?: { email: string; invitation: Invitation } | undefined;
  error?: string | undefined;
  notice?: string | undefined;
}) {
  const manage = props.mayManage && props.totpEnrolled;
  const form = props.form ?? { email: '', role: 'developer' };
  return (
    <Layout title="Equipe" context={props.context}>
      <h1>Equipe</h1>
      <Notice message={props.notice} />
      <Alert message={props.error} />
      {props.invited ? (
        <ShownOnce note={`${props.invited.email}: ${INVITE_NOTES[props.invited.invitation.emailed]}`} value={props.invited.invitation.inviteUrl} />
      ) : (
        ''
      )}
      {manage ? (
        <form id="convidar" class="stack" method="post" action="/dashboard/equipe">
          <CsrfField token={props.context.csrfToken} />
          <label>
            E-mail
            <input type="email" name="email" required maxlength="254" autocomplete="off" value={form.email} />
          </label>
          <RoleSelect selected={form.role} label="Papel" />
          <button type="submit">Convidar</button>
        </form>
      ) : (
        <NotOffered mayAct={props.mayManage} needsTotp totpEnrolled={props.totpEnrolled} what="gerenciar a equipe" />
      )}
      <h2>Membros</h2>
      <DataTable label="Membros da equipe" columns={['E-mail', 'Papel', 'Situação', 'Desde', manage && 'Ações']}>
        {props.members.map((member) => (
          <tr>
            <td safe>{member.userId === props.me ? `${member.email} (você)` : member.email}</td>
            <td safe>{ROLES.find((entry) => entry.role === member.role)?.name ?? member.role}</td>
            <td>{member.invitationPending ? 'Convite pendente' : member.totpEnrolled ? 'Ativo, com verificação em duas etapas' : 'Ativo'}</td>
            <td safe>{formatDate(member.createdAt)}</td>
            {manage ? (
              <td>
                <form class="inline" method="post" action={`/dashboard/equipe/${member.userId}/papel`}>
                  <CsrfField token={props.context.csrfToken} />
                  <RoleSelect selected={member.role} label={`Papel de ${member.email}`} />
                  <button type="submit">Alterar</button>
                </form>
                <form class="inline" method="post" action={`/dashboard/equipe/${member.userId}/remover`}>
                  <CsrfField token={props.context.csrfToken} />
                  <button type="submit" class="link" aria-label={`Remover ${member.email}`}>
                    Remover
                  </button>
                </form>
              </td>
            ) : (
              ''
            )}
          </tr>
        ))}
      </DataTable>
      {manage && props.members.length === 1 ? (
        <p class="muted empty">
          Por enquanto, só você. Convide quem trabalha com você em <a href="#convidar">Convidar</a>: cada pessoa recebe um link que vale 72 horas.
        </p>
      ) : (
        ''
      )}
    </Layout>
  );
}
