import type { BookedPerson } from '../../shared/desk-api';
import { LINK } from './ui';

/** Who booked, on one line: the name, then the address and the phone (when given) as links. */
export function Contact({ person }: { person: Pick<BookedPerson, 'name' | 'email' | 'phone'> }) {
  return (
    <p className="break-words">
      <strong className="font-semibold">{person.name}</strong>
      {' · '}
      <a href={`mailto:${person.email}`} className={LINK}>
        {person.email}
      </a>
      {person.phone && (
        <>
          {' · '}
          <a href={`tel:${person.phone}`} className={LINK}>
            {person.phone}
          </a>
        </>
      )}
    </p>
  );
}
