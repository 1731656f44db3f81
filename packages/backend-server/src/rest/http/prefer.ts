import { RestError } from '../errors';

/** The recognised `Prefer` values (RFC 7240, PostgREST's set). */
export interface Preferences {
  return: 'minimal' | 'headers-only' | 'representation' | null;
  count: 'exact' | 'planned' | 'estimated' | null;
  resolution: 'merge-duplicates' | 'ignore-duplicates' | null;
  missing: 'default' | 'null' | null;
  handling: 'strict' | 'lenient' | null;
  tx: 'commit' | 'rollback' | null;
  timezone: string | null;
  maxAffected: number | null;
}

const ENUMS: Record<string, readonly string[]> = {
  return: ['minimal', 'headers-only', 'representation'],
  count: ['exact', 'planned', 'estimated'],
  resolution: ['merge-duplicates', 'ignore-duplicates'],
  missing: ['default', 'null'],
  handling: ['strict', 'lenient'],
  tx: ['commit', 'rollback'],
};

/** Merges every `Prefer` header value; unknown ones fail under `handling=strict`. */
export function parsePrefer(header: string | null): Preferences {
  const prefs: Preferences = {
    return: null,
    count: null,
    resolution: null,
    missing: null,
    handling: null,
    tx: null,
    timezone: null,
    maxAffected: null,
  };
  if (!header) return prefs;
  const invalid: string[] = [];
  for (const raw of header.split(',')) {
    const item = raw.trim();
    if (!item) continue;
    const eq = item.indexOf('=');
    const key = (eq < 0 ? item : item.slice(0, eq)).trim();
    const value = eq < 0 ? '' : item.slice(eq + 1).trim();
    if (key in ENUMS && ENUMS[key]?.includes(value)) {
      (prefs as unknown as Record<string, string>)[key] = value;
    } else if (key === 'timezone' && value) {
      prefs.timezone = value;
    } else if (key === 'max-affected' && /^\d+$/.test(value)) {
      prefs.maxAffected = Number(value);
    } else {
      invalid.push(item);
    }
  }
  if (prefs.handling === 'strict' && invalid.length) {
    throw new RestError(
      400,
      'PGRST122',
      'Invalid preferences given with handling=strict',
      `Invalid preferences: ${invalid.join(', ')}`,
    );
  }
  return prefs;
}
