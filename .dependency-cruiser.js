/**
 * `npm run lint` (its second half): no import cycle anywhere in the code, type-only and dynamic
 * imports counted, because a cycle of types is still two modules that cannot be understood (or
 * moved) one without the other. The layers themselves are ESLint rules (eslint.config.js).
 * @type {import('dependency-cruiser').IConfiguration}
 */
export default {
  forbidden: [
    {
      name: 'no-cycle',
      comment: 'A module must not import, through any chain, a module that imports it.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
  },
};
