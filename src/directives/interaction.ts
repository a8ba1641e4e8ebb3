import type { ClientDirective } from 'astro';

const EVENTS = ['pointerdown', 'focusin', 'keydown', 'click'] as const;

/**
 * `client:interaction={{ hash: '#re-sign=' }}`: an address whose fragment starts with `hash` (a
 * link that asks the island to do something at once) hydrates it on load instead.
 */
const interaction: ClientDirective = (load, options, el) => {
  const start = async () => {
    for (const type of EVENTS) el.removeEventListener(type, start);
    const hydrate = await load();
    await hydrate();
  };
  const { hash } = (options.value ?? {}) as { hash?: unknown };
  if (typeof hash === 'string' && hash && window.location.hash.startsWith(hash)) {
    void start();
    return;
  }
  for (const type of EVENTS) el.addEventListener(type, start, { once: true, passive: true });
};

export default interaction;
