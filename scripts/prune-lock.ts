/**
 * `npm run lock:prune`: drops, from package-lock.json, the optional dependencies that npm
 * could not resolve (platform builds such as `@tailwindcss/oxide-darwin-arm64` that a partial
 * registry mirror lacks). npm leaves them listed but unrecorded, and `npm ci` then refuses the
 * lockfile. Run it after `npm install` when `npm ci` reports "Missing: ... from lock file".
 */
import { readFileSync, writeFileSync } from 'node:fs';

interface LockEntry {
  version?: string;
  optionalDependencies?: Record<string, string>;
}

const path = process.argv[2] ?? 'package-lock.json';
const lock = JSON.parse(readFileSync(path, 'utf8')) as { packages: Record<string, LockEntry> };
const packages = lock.packages;

// Node's lookup: the package's own node_modules first, then each ancestor's, then the root's.
function resolve(key: string, dep: string): LockEntry | undefined {
  let at = key;
  for (;;) {
    const candidate = at ? `${at}/node_modules/${dep}` : `node_modules/${dep}`;
    if (candidate in packages) return packages[candidate];
    if (!at) return undefined;
    const cut = at.lastIndexOf('/node_modules/');
    at = cut >= 0 ? at.slice(0, cut) : '';
  }
}

const removed: string[] = [];
for (const [key, entry] of Object.entries(packages)) {
  const optional = entry.optionalDependencies;
  if (!optional) continue;
  for (const [dep, spec] of Object.entries(optional)) {
    const found = resolve(key, dep);
    const exact = /^\d+\.\d+\.\d+(-[\w.]+)?$/.test(spec);
    if (!found || (exact && found.version !== spec)) {
      delete optional[dep];
      removed.push(`${dep}@${spec}`);
    }
  }
  if (Object.keys(optional).length === 0) delete entry.optionalDependencies;
}

writeFileSync(path, `${JSON.stringify(lock, null, 2)}\n`);
console.log(
  removed.length
    ? `Dropped ${removed.length} unresolvable optional dependencies`
    : 'Nothing to drop',
);
