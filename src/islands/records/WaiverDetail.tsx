import type { ReactNode } from 'react';
import { SPAM_WORDS } from '../../shared/desk-api';
import { when } from './format';
import { href } from './route';
import { useLoad } from './useLoad';
import { address, desk } from './api';
import { BUTTON, CARD, Facts, Failed, LINK, Loading, MailBadge, Notice, ScreenTitle } from './ui';

function Section({ title, children }: { title: string; children: ReactNode }) {
  return (
    <section className={CARD} aria-label={title}>
      <h3 className="mb-2 font-serif text-xl font-semibold">{title}</h3>
      {children}
    </section>
  );
}

export default function WaiverDetail({ id }: { id: string }) {
  const { data, error, loading, reload } = useLoad(id, (options) =>
    desk.waivers[':id'].$get({ param: { id: encodeURIComponent(id) } }, options),
  );
  const back = (
    <a href={href('waivers')} className={LINK}>
      Back to the waivers
    </a>
  );
  if (loading) return <Loading what="the waiver" />;
  if (error || !data) {
    return (
      <div className="space-y-4">
        {back}
        <Failed error={error ?? new Error('The waiver could not be loaded.')} retry={reload} />
      </div>
    );
  }
  const { waiver } = data;
  const sections = [...new Set(waiver.fields.map((field) => field.section))];
  return (
    <div className="space-y-6">
      {back}
      <div className="space-y-1">
        <ScreenTitle>{waiver.fullName}</ScreenTitle>
        <p className="text-muted">Signed {when(waiver.createdAt)}</p>
        <p>
          <a href={href(`participants/${waiver.id}`)} className={LINK}>
            Their status and every waiver they signed
          </a>
        </p>
      </div>
      {waiver.spamReason && (
        <Notice tone="bad">
          <strong>Taken for spam:</strong> {SPAM_WORDS[waiver.spamReason]}. It was kept but not
          e-mailed.
        </Notice>
      )}
      <div className="flex flex-wrap items-center gap-3">
        <a
          href={address(desk.waivers[':id'].pdf.$path({ param: { id: waiver.id } }))}
          download
          className={BUTTON}
        >
          Download the signed PDF
        </a>
        <span className="text-sm text-muted">The studio&apos;s copy, as it was e-mailed.</span>
      </div>
      <p className="text-sm text-muted">
        This waiver holds health information: opening it is recorded in the access log.
      </p>

      {sections.map((section) => (
        <Section key={section} title={section}>
          <Facts
            items={waiver.fields
              .filter((field) => field.section === section)
              .map((field) => [field.label, field.value || (field.health ? 'None stated' : '—')])}
          />
        </Section>
      ))}

      <Section title="Consents">
        <Facts
          items={waiver.consents.map((consent) => [consent.label, consent.value ? 'Yes' : 'No'])}
        />
      </Section>

      <Section title="Signature">
        <img
          src={waiver.signature}
          alt={`Signature of ${waiver.fullName}`}
          className="h-auto w-full max-w-sm rounded border border-sand-200 bg-white"
        />
      </Section>

      <Section title="Audit trail">
        <Facts
          items={[
            [
              'Record ID',
              <code key="id" className="break-all">
                {waiver.id}
              </code>,
            ],
            ['Signed at', when(waiver.audit.signedAt)],
            ['IP address', waiver.audit.clientIp ?? 'Not recorded'],
            ['User agent', waiver.audit.userAgent ?? 'Not recorded'],
            ['Waiver text version', waiver.audit.textVersion],
            ['Signature', waiver.audit.signature],
            ...(waiver.audit.signatureName
              ? [['Name typed to sign', waiver.audit.signatureName] as [string, string]]
              : []),
            [
              'Form timing',
              waiver.audit.timed ? 'Checked' : 'Not checked (sent without JavaScript)',
            ],
            [
              'Fingerprint of the waiver text',
              <code key="text" className="break-all">
                {waiver.audit.textSha256}
              </code>,
            ],
            [
              'Fingerprint of the signed PDF',
              waiver.pdf ? (
                <code key="pdf" className="break-all">
                  {waiver.pdf.sha256}
                </code>
              ) : (
                'Made and recorded at the first download'
              ),
            ],
          ]}
        />
      </Section>

      <Section title="E-mails">
        {waiver.mails.length === 0 ? (
          <p className="text-muted">None: a waiver taken for spam is not e-mailed.</p>
        ) : (
          <ul className="space-y-2">
            {waiver.mails.map((mail) => (
              <li key={mail.kind} className="flex flex-wrap items-center gap-2">
                <span>{mail.label}</span> <MailBadge state={mail.state} />
              </li>
            ))}
          </ul>
        )}
      </Section>

      <p>
        <a href={href('erase', { email: waiver.email })} className={LINK}>
          Erase everything held about {waiver.email}
        </a>
      </p>
    </div>
  );
}
