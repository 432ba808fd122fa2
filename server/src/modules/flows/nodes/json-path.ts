/**
 * The JSON paths an HTTP node's response mapping reads (docs/flows.md "HTTP request"): `$` is the whole
 * answer; then `.name` or `["name"]` for a field and `[0]` (or `.0`) for an item of a list, e.g.
 * `$.customer.name`, `$.items[0].id`, `$["first name"]`. The leading `$` (and its dot) may be left out:
 * `customer.name` reads the same. No wildcards, filters or recursion: one path names one value.
 */
export type PathStep = string | number;

/** The steps of a path, or null when it cannot be read. */
export function parseJsonPath(path: string): PathStep[] | null {
  let rest = path.trim();
  if (rest.startsWith('$')) rest = rest.slice(1);
  const steps: PathStep[] = [];
  let first = true;
  while (rest.length) {
    if (rest.startsWith('[')) {
      const index = /^\[(\d+)\]/.exec(rest);
      if (index) {
        steps.push(Number(index[1]));
        rest = rest.slice(index[0].length);
      } else {
        const quoted = /^\[\s*(["'])((?:\\.|(?!\1).)*)\1\s*\]/.exec(rest);
        if (!quoted) return null;
        steps.push(quoted[2]!.replace(/\\(.)/g, '$1'));
        rest = rest.slice(quoted[0].length);
      }
    } else {
      if (rest.startsWith('.')) rest = rest.slice(1);
      else if (!first) return null;
      const name = /^[^.[\]]+/.exec(rest);
      if (!name) return null;
      const token = name[0].trim();
      steps.push(/^\d+$/.test(token) ? Number(token) : token);
      rest = rest.slice(name[0].length);
    }
    first = false;
  }
  return steps;
}

/** The value at `path` in `data`, or undefined when the path is invalid or names nothing. */
export function readJsonPath(data: unknown, path: string): unknown {
  const steps = parseJsonPath(path);
  if (!steps) return undefined;
  let at: unknown = data;
  for (const step of steps) {
    if (at === null || typeof at !== 'object') return undefined;
    if (Array.isArray(at)) {
      if (typeof step !== 'number') return undefined;
      at = at[step];
    } else {
      const key = String(step);
      if (!Object.prototype.hasOwnProperty.call(at, key)) return undefined;
      at = (at as Record<string, unknown>)[key];
    }
  }
  return at;
}

/** How a read value is kept in a flow variable (variables are text): objects and lists as JSON. */
export function variableText(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}
