import type { ClientDirective } from 'astro';

const EVENTS = ['pointerdown', 'focusin', 'keydown', 'click'] as const;

const interaction: ClientDirective = (load, _options, el) => {
  const start = async () => {
    for (const type of EVENTS) el.removeEventListener(type, start);
    const hydrate = await load();
    await hydrate();
  };
  for (const type of EVENTS) el.addEventListener(type, start, { once: true, passive: true });
};

export default interaction;
