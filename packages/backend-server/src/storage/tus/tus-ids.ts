/** The tus endpoint's path, its upload ids and its error answers. */

/** The public path of the tus endpoint. */
export const TUS_PATH = '/storage/v1/upload/resumable';

/** A tus error answer: plain text with the logical status. */
export const tusError = (status: number, body: string) => ({
  status_code: status,
  body: `${body}\n`,
});

/** base64url(`bucket/name/version`): the id in upload URLs. */
export const urlId = (bucket: string, name: string, version: string) =>
  Buffer.from(`${bucket}/${name}/${version}`).toString('base64url');

/** A version id (a UUID), as the data files of uploads are named. */
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Parses a URL id back: its bucket, name and version, or null. */
export function parseUrlId(id: string): { bucket: string; name: string; version: string } | null {
  if (!/^[A-Za-z0-9_-]+$/.test(id)) return null;
  const text = Buffer.from(id, 'base64url').toString('utf8');
  const last = text.lastIndexOf('/');
  const first = text.indexOf('/');
  if (first < 0 || last <= first) return null;
  const version = text.slice(last + 1);
  if (!UUID.test(version)) return null;
  return { bucket: text.slice(0, first), name: text.slice(first + 1, last), version };
}
