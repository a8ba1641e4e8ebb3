import type { RetentionPreview } from '../../shared/desk-api';
import { count, day, removedWords, when } from './format';
import { useLoad } from './useLoad';
import { desk } from './api';
import { CARD, Failed } from './ui';

/**
 * The first screen's retention panel: when the next retention run is and what it will remove,
 * counted by the server at that run's own instant; what the last run removed; and, folded away,
 * how long each kind of record is kept. Read-only: the keeping times are content/retention.yaml.
 */
export default function Retention() {
  const preview = useLoad('retention', (options) => desk.retention.$get({}, options));
  return (
    <section aria-labelledby="retention-title" className={`${CARD} space-y-3`}>
      <h3 id="retention-title" className="font-serif text-xl font-semibold">
        Records past their keeping time
      </h3>
      {preview.loading && <p className="text-muted">Counting…</p>}
      {preview.error && <Failed error={preview.error} retry={preview.reload} />}
      {preview.data && <Summary preview={preview.data} />}
    </section>
  );
}

function Summary({ preview }: { preview: RetentionPreview }) {
  const going = preview.items.filter((item) => item.count > 0);
  return (
    <>
      {going.length === 0 ? (
        <p>
          The next daily clean-up, on {when(preview.next)}, will remove nothing: no record is past
          its keeping time.
        </p>
      ) : (
        <>
          <p>The next daily clean-up, on {when(preview.next)}, will remove:</p>
          <ul className="list-disc space-y-1 pl-6">
            {going.map((item) => (
              <li key={item.name}>
                <strong>{count(item.count, item.what[0], item.what[1])}</strong>{' '}
                <span className="text-muted">
                  (kept {item.keep} {item.from})
                </span>
              </li>
            ))}
          </ul>
        </>
      )}
      {preview.last && (
        <p className="text-sm text-muted">
          The last run that removed anything, on {day(preview.last.at)}:{' '}
          {removedWords(preview.last.removed)}.
        </p>
      )}
      <details className="text-sm">
        <summary className="cursor-pointer font-semibold text-sage-800">
          How long each kind of record is kept
        </summary>
        <ul className="mt-2 space-y-1">
          {preview.items.map((item) => (
            <li key={item.name}>
              {item.what[1].charAt(0).toUpperCase() + item.what[1].slice(1)}: {item.keep}{' '}
              {item.from}
            </li>
          ))}
        </ul>
      </details>
    </>
  );
}
