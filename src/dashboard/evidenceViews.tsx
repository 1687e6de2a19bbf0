import type { InfractionView } from '../infractions/presenter.js';
import { takesEvidence } from '../infractions/evidenceFiles.js';
import { CsrfField } from '../pages/components.js';

/**
 * The upload of one evidence file beside a case's defense, while the case takes them and for the
 * roles that act on disputes. The form's token goes before the file: the server reads it first.
 */
export function EvidenceForm(props: { dispute: InfractionView; files: number; now: number; mayUpload: boolean; csrfToken: string }) {
  const { dispute } = props;
  if (!props.mayUpload || !takesEvidence(dispute, props.files, props.now)) return '';
  return (
    <form class="stack" method="post" enctype="multipart/form-data" action={`/dashboard/disputas/${dispute.infractionId}/evidencias`}>
      <CsrfField token={props.csrfToken} />
      <label>
        Evidência (PDF, PNG ou JPEG, até 10 MB)
        <input type="file" name="file" accept="application/pdf,image/png,image/jpeg,.pdf,.png,.jpg,.jpeg" required />
      </label>
      <button type="submit">Enviar evidência</button>
    </form>
  );
}
