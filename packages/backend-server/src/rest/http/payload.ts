import { RestError } from '../errors';

const invalidJson = (details: string | null = null) =>
  new RestError(400, 'PGRST102', 'Empty or invalid json', details, null);

function parseCsv(text: string): Record<string, unknown>[] {
  const records: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  let wasQuoted = false;
  const push = () => {
    row.push(!wasQuoted && cell === 'NULL' ? '\0NULL' : cell);
    cell = '';
    wasQuoted = false;
  };
  for (let i = 0; i < text.length; i++) {
    const ch = text[i] as string;
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else cell += ch;
    } else if (ch === '"') {
      quoted = true;
      wasQuoted = true;
    } else if (ch === ',') push();
    else if (ch === '\n' || ch === '\r') {
      if (ch === '\r' && text[i + 1] === '\n') i++;
      push();
      records.push(row);
      row = [];
    } else cell += ch;
  }
  if (cell !== '' || row.length) {
    push();
    records.push(row);
  }
  const [header, ...rest] = records;
  if (!header) throw new RestError(400, 'PGRST102', 'Empty or invalid csv', null, null);
  return rest.map((r) => {
    if (r.length !== header.length)
      throw new RestError(400, 'PGRST102', 'All lines must have same number of fields', null, null);
    return Object.fromEntries(header.map((h, i) => [h, r[i] === '\0NULL' ? null : r[i]]));
  });
}

/** Parses a request body by Content-Type: JSON (default), form-urlencoded or CSV. */
export function parsePayload(contentType: string | null, text: string): unknown {
  const type = (contentType ?? 'application/json').split(';')[0]?.trim().toLowerCase();
  if (type === 'application/x-www-form-urlencoded') {
    return Object.fromEntries(new URLSearchParams(text));
  }
  if (type === 'text/csv') return parseCsv(text);
  if (!text.trim()) throw invalidJson();
  try {
    return JSON.parse(text);
  } catch (e) {
    throw invalidJson(e instanceof Error ? e.message : null);
  }
}

/** Rows of an insert body and their columns (uniform keys unless `columns` is given). */
export function payloadRows(
  body: unknown,
  columns: string[] | null,
): { rows: Record<string, unknown>[]; columns: string[]; isArray: boolean } {
  const isArray = Array.isArray(body);
  const rows = (isArray ? body : [body]) as unknown[];
  for (const r of rows) {
    if (typeof r !== 'object' || r === null || Array.isArray(r)) throw invalidJson();
  }
  const objects = rows as Record<string, unknown>[];
  if (columns) return { rows: objects, columns, isArray };
  const first = objects[0] ? Object.keys(objects[0]) : [];
  for (const o of objects) {
    const keys = Object.keys(o);
    if (keys.length !== first.length || !keys.every((k) => first.includes(k))) {
      throw new RestError(400, 'PGRST102', 'All object keys must match', null, null);
    }
  }
  return { rows: objects, columns: first, isArray };
}
