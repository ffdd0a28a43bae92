import { ErrorNote } from './common.tsx';
import { Link } from '../lib/router.tsx';

/**
 * A form's buttons: save (its label while saving), cancel back to `cancel`, and for an existing
 * object a delete that asks `confirmDelete` first; the delete's error below them.
 */
export function FormActions({
  save,
  saving,
  cancel,
  confirmDelete,
  onDelete,
  deleting = false,
  deleteError = null,
}: {
  save: string;
  saving: boolean;
  cancel: string;
  /** The question asked before deleting; no delete button without it. */
  confirmDelete?: string;
  onDelete?: () => void;
  deleting?: boolean;
  deleteError?: unknown;
}) {
  return (
    <>
      <div className="actions">
        <button className="primary" type="submit" disabled={saving}>
          {saving ? 'Saving…' : save}
        </button>
        <Link className="button" href={cancel}>
          Cancel
        </Link>
        {confirmDelete !== undefined && onDelete && (
          <button
            type="button"
            className="danger"
            disabled={deleting}
            onClick={() => {
              if (confirm(confirmDelete)) onDelete();
            }}
          >
            Delete
          </button>
        )}
      </div>
      <ErrorNote error={deleteError} />
    </>
  );
}
