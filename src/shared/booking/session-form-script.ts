/**
 * The session form's script with scripts on (components/booking/SessionFormScript.astro writes it
 * inline): sent as JSON, so that every problem is said beside its field on the same page (never
 * the separate refusal page a post without script gets), and a ZIP code outside her areas is
 * said beside it as soon as it is typed. Success goes where the plain post would (the booking's
 * page, or Stripe's). Every word shown is the server's or the page's own, set as text.
 *
 * A string, so that the build can allow it by its hash (src/integrations/security-headers.ts):
 * it is written only into pages rendered on demand, which the build does not see.
 */
export const SESSION_FORM_SCRIPT = String.raw`(() => {
  const form = document.querySelector('form[data-session-form]');
  if (!form || !window.fetch) return;
  form.noValidate = true;
  const alertBox = form.querySelector('[data-form-error]');
  const button = form.querySelector('button[type="submit"]');
  const label = button.textContent;
  const zip = form.elements.namedItem('postalCode');
  const areas = (form.dataset.areas || '').split(' ').filter(Boolean);
  const controls = (name) => {
    const control = form.elements.namedItem(name);
    return control instanceof RadioNodeList ? [...control] : control ? [control] : [];
  };
  const say = (name, words) => {
    const box = form.querySelector('[data-error-for="' + name + '"]');
    if (!box) return false;
    box.textContent = words || '';
    box.hidden = !words;
    for (const control of controls(name)) {
      if (words) control.setAttribute('aria-invalid', 'true');
      else control.removeAttribute('aria-invalid');
      if (box.id && control.tagName === 'INPUT' && control.type !== 'radio') {
        const ids = (control.getAttribute('aria-describedby') || '').split(' ');
        const rest = ids.filter((id) => id && id !== box.id);
        const next = words ? [...rest, box.id] : rest;
        if (next.length) control.setAttribute('aria-describedby', next.join(' '));
        else control.removeAttribute('aria-describedby');
      }
    }
    return true;
  };
  const zipProblem = () => {
    const value = zip.value.trim();
    if (value.length < 5) return '';
    if (!/^\d{5}(-\d{4})?$/.test(value))
      return 'Please enter a ZIP code of 5 digits, like 97202.';
    return areas.includes(value.slice(0, 5)) ? '' : form.dataset.outside;
  };
  if (zip && areas.length) zip.addEventListener('input', () => say('postalCode', zipProblem()));
  form.addEventListener('input', (event) => {
    const name = event.target.name;
    if (name && name !== 'postalCode') say(name, '');
  });

  let submissionId;
  let sentFields;
  let busy = false;
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    if (busy) return;
    const fields = Object.fromEntries(new FormData(form));
    delete fields.fillTimeMs;
    // The same fields sent again (a retry) keep their id: stored once, however often sent.
    const key = JSON.stringify(fields);
    if (key !== sentFields && window.crypto?.randomUUID) submissionId = crypto.randomUUID();
    sentFields = key;
    for (const box of form.querySelectorAll('[data-error-for]')) say(box.dataset.errorFor, '');
    alertBox.hidden = true;
    if (zip && areas.length && zipProblem()) {
      say('postalCode', zipProblem());
      zip.focus();
      return;
    }
    busy = true;
    button.disabled = true;
    button.textContent = 'Booking...';
    try {
      const response = await fetch(form.action, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          ...fields,
          ...(submissionId && { submissionId }),
          fillTimeMs: Math.round(performance.now()),
        }),
      });
      const answer = await response.json().catch(() => null);
      if (response.ok && answer && answer.success) {
        window.location.assign(answer.checkout || answer.booking.manage + '&booked=1');
        return;
      }
      const errors = (answer && answer.fieldErrors) || {};
      const beside = Object.entries(errors).filter(([name, words]) => say(name, words));
      if (response.status === 409 && beside.length === 0 && answer && answer.error) {
        say('slot', answer.error);
        beside.push(['slot', answer.error]);
      }
      const rest = Object.entries(errors).filter(([name]) => !beside.some(([n]) => n === name));
      const words =
        rest.map(([, text]) => text).join(' ') ||
        (beside.length ? '' : (answer && answer.error) || '');
      alertBox.textContent =
        words ||
        (beside.length
          ? 'Please check what is said beside the fields above.'
          : 'The session could not be booked. Please try again in a moment.');
      alertBox.hidden = false;
      const first = beside[0] && controls(beside[0][0])[0];
      if (first) first.focus();
    } catch {
      alertBox.textContent =
        'The session could not be booked: the connection failed. Please try again in a moment.';
      alertBox.hidden = false;
    } finally {
      busy = false;
      button.disabled = false;
      button.textContent = label;
    }
  });
})();
`;

/** The inline scripts of pages rendered on demand only, which the policy allows by hash. */
export const ON_DEMAND_INLINE_SCRIPTS: readonly string[] = [SESSION_FORM_SCRIPT];
