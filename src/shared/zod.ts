import { z } from 'zod';

// Zod compiles fast object parsers with `new Function` when it may. The pages' Content-Security-
// Policy forbids eval, and even zod's probe for it is reported as a violation, so it never tries.
z.config({ jitless: true });

export { z };
