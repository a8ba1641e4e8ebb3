/**
 * The access log (who did what to which record, newest first) and the retention panel (when the
 * next run is, and what it will remove).
 */
import { Hono } from 'hono';
import { accessLog } from '../access-log';
import { filtersQuery } from '../filters';
import { retentionPreview } from '../retention';
import { answer, query, signedIn, type DeskEnv } from '../router';

export const log = new Hono<DeskEnv>()
  .get('/log', signedIn(), query(filtersQuery({})), async (c) =>
    answer(c, await accessLog(c.req.valid('query').filters.after)),
  )
  .get('/retention', signedIn(), async (c) => answer(c, await retentionPreview()));
