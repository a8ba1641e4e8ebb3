/** Where the desk is: a screen (./screens.tsx lists them), the record it shows, its query. */
export interface Route {
  screen: string;
  /** The record a screen shows (`#/waivers/<id>`). */
  id?: string;
  query: URLSearchParams;
}

/** The address of a screen, with its query (empty values left out). */
export function href(screen: string, query: Record<string, string | undefined> = {}): string {
  const params = new URLSearchParams(
    Object.entries(query).filter((entry): entry is [string, string] => Boolean(entry[1])),
  );
  const search = params.toString();
  return `#/${screen}${search ? `?${search}` : ''}`;
}
