/**
 * A value, or the problem that stopped it: the one shape every check returns (the guard of a
 * request, a form's own checks, the desk's reading of a body or a query). A caller tests `ok`
 * and has either the value or the problem, never both, never neither.
 */
export type Result<T, P> = { ok: true; value: T } | { ok: false; problem: P };

export const ok = <T>(value: T): { ok: true; value: T } => ({ ok: true, value });

export const failed = <P>(problem: P): { ok: false; problem: P } => ({ ok: false, problem });
