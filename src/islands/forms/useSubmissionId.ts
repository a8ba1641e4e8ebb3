import { useRef } from 'react';
import { newSubmissionId } from '../../shared/submission';

/**
 * The id of the submission being sent: made when the visitor first sends, kept while the same
 * fields are sent again after a failure (so a retry whose first try was in fact stored makes no
 * second message), and renewed after a success or once the visitor changes what they send.
 */
export function useSubmissionId() {
  const current = useRef<{ id: string; fields: string } | null>(null);
  return {
    for(fields: object): string {
      const key = JSON.stringify(fields);
      if (current.current?.fields !== key) {
        current.current = { id: newSubmissionId(), fields: key };
      }
      return current.current.id;
    },
    done() {
      current.current = null;
    },
  };
}
