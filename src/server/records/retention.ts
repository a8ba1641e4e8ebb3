import type { RetentionPreview } from '../../shared/desk-api';
import { lastRetention, nextRetentionRun, previewRetention } from '../retention/run';

/** What the next retention run will remove, counted at its own instant, and the last that did. */
export async function retentionPreview(): Promise<RetentionPreview> {
  const next = nextRetentionRun();
  return {
    next: next.toISOString(),
    items: await previewRetention(next),
    last: await lastRetention(),
  };
}
