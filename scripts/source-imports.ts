/**
 * Lets Node run the site's own TypeScript (src/server/) from a command: a relative import
 * without an extension means the `.ts` file, as Vite and the function bundler read it. Node's
 * type stripping runs the files themselves. Import this first, then the server code with
 * `await import(...)`: static imports are resolved before any module runs. A file beside a folder
 * of the same name (`settings.ts` and `settings/`) is the file, as Vite and TypeScript read it.
 */
import { registerHooks } from 'node:module';

registerHooks({
  resolve(specifier, context, nextResolve) {
    try {
      return nextResolve(specifier, context);
    } catch (error) {
      const relative = specifier.startsWith('./') || specifier.startsWith('../');
      const code = (error as { code?: string }).code;
      const missing = code === 'ERR_MODULE_NOT_FOUND' || code === 'ERR_UNSUPPORTED_DIR_IMPORT';
      if (!relative || !missing) throw error;
      return nextResolve(`${specifier}.ts`, context);
    }
  },
});
