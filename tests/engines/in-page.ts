/**
 * Code that runs inside the page, in every engine alike. Each function is sent as its source
 * text (`fn.toString()`), so it must be self-contained: no imports, no outer variables.
 */

/** A way to find an element as a person would: by its role and accessible name, label or text. */
export interface Query {
  role?: 'button' | 'link' | 'textbox' | 'combobox' | 'checkbox' | 'heading' | 'img' | 'navigation';
  /** The accessible name: exact (whitespace collapsed) or a regular expression's source. */
  name?: string | { regex: string; flags?: string };
  /** A form control by the text of its label. */
  label?: string;
  /** The innermost visible element whose text contains this. */
  text?: string;
  level?: number;
  /** Also match elements that are not rendered (display: none, hidden, closed popover). */
  includeHidden?: boolean;
}

/** Every element matching `query` inside `scope` (or the document), in document order. */
export function findElements(query: Query, scope?: Element | null): Element[] {
  const ROLES: Record<string, string> = {
    button: 'button, input[type=button], input[type=submit], input[type=reset], [role=button]',
    link: 'a[href], [role=link]',
    textbox:
      'input:not([type]), input[type=text], input[type=email], input[type=tel], input[type=url], input[type=search], textarea, [role=textbox]',
    combobox: 'select:not([multiple]), [role=combobox]',
    checkbox: 'input[type=checkbox], [role=checkbox]',
    heading: 'h1, h2, h3, h4, h5, h6, [role=heading]',
    img: 'img[alt]:not([alt=""]), [role=img]',
    navigation: 'nav, [role=navigation]',
  };
  const clean = (text: string | null | undefined) => (text ?? '').replace(/\s+/g, ' ').trim();

  const rendered = (el: Element): boolean => {
    if (typeof el.checkVisibility === 'function') {
      if (!el.checkVisibility({ visibilityProperty: true } as CheckVisibilityOptions)) return false;
    } else if (getComputedStyle(el).visibility === 'hidden') return false;
    const rect = el.getBoundingClientRect();
    return rect.width > 0 || rect.height > 0;
  };

  /** The text a person (or a screen reader) gets from an element's content. */
  const contentText = (node: Node, skip?: Element): string => {
    if (node.nodeType === Node.TEXT_NODE) return node.textContent ?? '';
    if (!(node instanceof Element) || node === skip) return '';
    if (node.getAttribute('aria-hidden') === 'true' || node.hasAttribute('hidden')) return '';
    if (node instanceof HTMLElement && getComputedStyle(node).display === 'none') return '';
    const label = node.getAttribute('aria-label');
    if (label && node !== skip) return ` ${label} `;
    if (node instanceof HTMLImageElement) return ` ${node.alt} `;
    const block = getComputedStyle(node).display.startsWith('inline') ? '' : ' ';
    return block + [...node.childNodes].map((child) => contentText(child, skip)).join('') + block;
  };

  const accessibleName = (el: Element): string => {
    const labelledBy = el.getAttribute('aria-labelledby');
    if (labelledBy) {
      return clean(
        labelledBy
          .split(/\s+/)
          .map((id) => document.getElementById(id))
          .map((ref) => (ref ? contentText(ref) : ''))
          .join(' '),
      );
    }
    const ariaLabel = el.getAttribute('aria-label');
    if (ariaLabel) return clean(ariaLabel);
    if (
      el instanceof HTMLInputElement ||
      el instanceof HTMLSelectElement ||
      el instanceof HTMLTextAreaElement
    ) {
      const fromLabels = [...(el.labels ?? [])].map((label) => contentText(label, el)).join(' ');
      if (clean(fromLabels)) return clean(fromLabels);
      if (el instanceof HTMLInputElement && ['submit', 'button', 'reset'].includes(el.type)) {
        return clean(el.value);
      }
      return clean(el.getAttribute('title') ?? el.getAttribute('placeholder'));
    }
    if (el instanceof HTMLImageElement) return clean(el.alt);
    return clean(contentText(el) || el.getAttribute('title'));
  };

  const nameMatches = (actual: string, expected: Query['name'] | undefined) => {
    if (expected === undefined) return true;
    if (typeof expected === 'string') return actual === clean(expected);
    return new RegExp(expected.regex, expected.flags).test(actual);
  };

  const root: ParentNode = scope ?? document;
  const visible = (el: Element) => query.includeHidden || rendered(el);

  if (query.text !== undefined) {
    const wanted = clean(query.text);
    const holders = [...root.querySelectorAll('body *')].filter(
      (el) =>
        el instanceof HTMLElement &&
        !['SCRIPT', 'STYLE', 'TEMPLATE', 'NOSCRIPT'].includes(el.tagName) &&
        clean(el.innerText).includes(wanted) &&
        visible(el),
    );
    return holders.filter((el) => !holders.some((other) => other !== el && el.contains(other)));
  }

  let candidates: Element[];
  if (query.label !== undefined) {
    candidates = [...root.querySelectorAll('input, select, textarea')];
  } else if (query.role) {
    candidates = [...root.querySelectorAll(ROLES[query.role])];
  } else {
    throw new Error(`A query needs a role, a label or a text: ${JSON.stringify(query)}`);
  }
  return candidates.filter((el) => {
    if (!visible(el)) return false;
    if (query.level !== undefined) {
      const level = Number(el.getAttribute('aria-level') ?? el.tagName.slice(1));
      if (level !== query.level) return false;
    }
    const name = accessibleName(el);
    if (query.label !== undefined) return name === clean(query.label);
    return nameMatches(name, query.name);
  });
}

/**
 * The console-error recorder, put at the very start of every HTML page by the test proxy (see
 * proxy.ts) so that it runs before any of the page's own scripts: WebKitGTK's WebDriver has no
 * BiDi, so no log events and no preload scripts; this is how its console errors are seen. It
 * records `console.error` calls, uncaught errors, unhandled rejections, resources that failed to
 * load and Content-Security-Policy violations into sessionStorage, so that they survive a
 * navigation within the site.
 */
export function recorder() {
  const KEY = 'engines:errors';
  const record = (text: string) => {
    try {
      const list = JSON.parse(sessionStorage.getItem(KEY) ?? '[]') as string[];
      list.push(`${location.pathname}: ${text}`);
      sessionStorage.setItem(KEY, JSON.stringify(list));
    } catch {
      // Storage unavailable: nothing more this page can do.
    }
  };
  const describe = (value: unknown) =>
    value instanceof Error ? `${value.name}: ${value.message}` : String(value);
  const original = console.error.bind(console);
  console.error = (...args: unknown[]) => {
    record(args.map(describe).join(' '));
    original(...args);
  };
  addEventListener(
    'error',
    (event: Event) => {
      if (event instanceof ErrorEvent) {
        record(`uncaught ${describe(event.error ?? event.message)}`);
      } else if (event.target instanceof Element) {
        const el = event.target as HTMLElement & { src?: string; href?: string };
        record(`failed to load ${el.tagName.toLowerCase()} ${el.src || el.href || ''}`);
      }
    },
    true,
  );
  addEventListener('unhandledrejection', (event) => {
    record(`unhandled rejection ${describe(event.reason)}`);
  });
  document.addEventListener('securitypolicyviolation', (event) => {
    record(
      `CSP ${event.effectiveDirective} blocked ${event.blockedURI || 'inline'} ${event.sample}`,
    );
  });
  (window as unknown as { __enginesRecorder: boolean }).__enginesRecorder = true;
}

/** What the recorder has seen since it was last read, and forgets it. */
export function takeRecordedErrors(): string[] | null {
  if (!(window as unknown as { __enginesRecorder?: boolean }).__enginesRecorder) return null;
  const list = JSON.parse(sessionStorage.getItem('engines:errors') ?? '[]') as string[];
  sessionStorage.removeItem('engines:errors');
  return list;
}
