import type { ReactNode } from 'react';
import { DESK_API } from '../../shared/desk-api';
import { timeZone } from './format';
import { BUTTON, CARD, DateRange, ScreenTitle } from './ui';

/** One export's form: a date range (in the browser's time zone), `children`, the download. */
function ExportForm({
  what,
  title,
  children,
}: {
  what: 'waivers' | 'messages';
  title: string;
  children?: ReactNode;
}) {
  return (
    <form
      method="get"
      action={`${DESK_API}/export/${what}`}
      className={`${CARD} space-y-4`}
      aria-labelledby={`export-${what}`}
    >
      <h3 id={`export-${what}`} className="font-serif text-xl font-semibold">
        {title}
      </h3>
      <div className="grid gap-4 sm:grid-cols-2">
        <DateRange />
      </div>
      <input type="hidden" name="tz" value={timeZone()} />
      {children}
      <button type="submit" className={BUTTON}>
        {`Download ${what} (CSV)`}
      </button>
    </form>
  );
}

/**
 * Plain GET forms: the browser downloads the CSV the function answers with (an attachment, so
 * the page stays), which works with any download manager and needs no script to save a file.
 */
export default function Export() {
  return (
    <div className="space-y-6">
      <ScreenTitle>Export</ScreenTitle>
      <p className="text-muted">
        Download a spreadsheet (CSV) of the waivers or the messages of a date range, or of
        everything when you leave the dates empty. Every export is recorded in the access log.
      </p>

      <ExportForm what="waivers" title="Waivers">
        <label className="flex items-start gap-3">
          <input
            type="checkbox"
            name="health"
            value="yes"
            className="mt-1 h-5 w-5 shrink-0 accent-sage-700"
          />
          <span>
            Include health information (medical conditions and medications)
            <span className="block text-sm text-muted">
              Only when you need it: the file then holds health information, so keep it safe.
            </span>
          </span>
        </label>
      </ExportForm>

      <ExportForm what="messages" title="Messages" />
    </div>
  );
}
