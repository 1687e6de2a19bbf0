import type { Children } from '@kitajs/html';
import type { EvidenceView } from '../infractions/evidenceSchemas.js';
import { MAX_EVIDENCE_FILES } from '../infractions/evidenceFiles.js';
import { formatDate } from './components.js';

const TYPE_NAMES: Record<EvidenceView['contentType'], string> = { 'application/pdf': 'PDF', 'image/png': 'PNG', 'image/jpeg': 'JPEG' };

/** A file's size as a person reads it: bytes, KB or MB (decimal comma). */
function fileSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  const [value, unit] = bytes < 1024 * 1024 ? [bytes / 1024, 'KB'] : [bytes / (1024 * 1024), 'MB'];
  return `${value.toLocaleString('pt-BR', { maximumFractionDigits: 1 })} ${unit}`;
}

/**
 * A MED case's evidence files (DESIGN.md §19), each a download link under `base` (the dashboard's
 * or the back-office's case address), with its type, size and time; the upload form goes after it.
 */
export function EvidenceList(props: { infractionId: string; files: EvidenceView[]; base: string; children?: Children }) {
  const heading = `evidencias-${props.infractionId}`;
  return (
    <section class="stack" aria-labelledby={heading}>
      <h3 id={heading} safe>{`Evidências (${props.files.length} de ${MAX_EVIDENCE_FILES})`}</h3>
      {props.files.length === 0 ? (
        <p class="muted">Nenhuma evidência enviada.</p>
      ) : (
        <ul>
          {props.files.map((file) => (
            <li>
              <a href={`${props.base}/${props.infractionId}/evidencias/${file.evidenceId}`} download={file.fileName} safe>
                {file.fileName}
              </a>
              <span class="muted" safe>{` · ${TYPE_NAMES[file.contentType]}, ${fileSize(file.sizeBytes)} · enviada em ${formatDate(file.createdAt)}`}</span>
            </li>
          ))}
        </ul>
      )}
      {props.children}
    </section>
  );
}
