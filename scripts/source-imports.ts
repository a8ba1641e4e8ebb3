/**
 * Lets Node run the site's own TypeScript (src/server/) from a command: a relative import
 * without an extension means the `.ts` file, as Vite and the function bundler read it. Node's
 * type stripping runs the files themselves. Import this first, then the server code with
 * `await import(...)`: static imports are resolved before any module runs.
 */
import { registerHooks } from 'node:module';

registerHooks({
  resolve(specifier, context, nextResolve) {
    try {
      return nextResolve(specifier, context);
    } catch (error) {
      const relative = specifier.startsWith('./') || specifier.startsWith('../');
      if (!relative || (error as { code?: string }).code !== 'ERR_MODULE_NOT_FOUND') throw error;
      return nextResolve(`${specifier}.ts`, context);
    }
  },
});
