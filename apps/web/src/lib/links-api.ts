/**
 * Links for anyone: the owner's side (`create_link`, the `shares` rows with their counts)
 * and the visitor's (the `share` function: open with a password, then the session it gives
 * in the `x-link-session` header — never in the URL). Every rule is the database's; this
 * only calls it.
 */
import { t } from '../i18n';
import type { MessageKey } from '../i18n/messages/en';
import { backendConfig } from './client';
import type { DriveClient } from './client-types';

/** A link as its owner sees it. */
export interface LinkRow {
  id: string;
  file_id: string | null;
  folder_id: string | null;
  token: string;
  mode: LinkMode;
  has_password: boolean;
  expires_at: string | null;
  revoked_at: string | null;
  created_at: string;
  max_downloads: number | null;
  max_upload_bytes: number | null;
  visit_count: number;
  download_count: number;
  upload_count: number;
}

/** download: preview and download · view: preview only · upload: a file request. */
export type LinkMode = 'download' | 'view' | 'upload';

export interface NewLink {
  mode: LinkMode;
  /** A Postgres interval ("1 hour", "7 days"), or null: never expires. */
  expiresIn: string | null;
  password: string | null;
  maxDownloads: number | null;
  maxUploadBytes: number | null;
}

export const linkKeys = {
  links: (itemId: string) => ['links', itemId] as const,
};

export function listLinks(client: DriveClient, kind: 'file' | 'folder', itemId: string) {
  return client
    .from('shares')
    .select('*')
    .eq(kind === 'file' ? 'file_id' : 'folder_id', itemId)
    .order('created_at', { ascending: false });
}

export function createLink(
  client: DriveClient,
  kind: 'file' | 'folder',
  itemId: string,
  link: NewLink,
) {
  return client
    .rpc('create_link', {
      p_file_id: kind === 'file' ? itemId : null,
      p_folder_id: kind === 'folder' ? itemId : null,
      p_mode: link.mode,
      p_expires_in: link.expiresIn,
      p_password: link.password,
      p_max_downloads: link.maxDownloads,
      p_max_upload_bytes: link.maxUploadBytes,
    })
    .single();
}

/** What a visitor gets on opening a link. */
export interface OpenedLink {
  kind: 'file' | 'folder';
  mode: LinkMode;
  session: string;
  expiresAt: string | null;
  id: string;
  name: string;
  size?: number;
  mimeType?: string;
  maxUploadBytes: number | null;
  downloadsLeft: number | null;
}

export interface LinkEntry {
  id: string;
  name: string;
  size: number;
  mime_type: string;
  updated_at: string;
}

export interface LinkFolder {
  folder: { id: string; name: string };
  path: { id: string; name: string }[];
  folders: { id: string; name: string }[];
  files: LinkEntry[];
}

/** The sentence of each refusal code of the `share` function, in the active language. */
const REFUSALS: Record<string, MessageKey> = {
  offline: 'link.error.offline',
  unavailable: 'link.error.unavailable',
  misconfigured: 'link.error.unavailable',
  method_not_allowed: 'link.error.unavailable',
  invalid_request: 'link.error.invalid_request',
  password_required: 'link.error.password_required',
  wrong_password: 'link.error.wrong_password',
  rate_limited: 'link.error.rate_limited',
  not_found: 'link.error.not_found',
  expired: 'link.error.expired',
  revoked: 'link.error.revoked',
  exhausted: 'link.error.exhausted',
  session: 'link.error.session',
  view_only: 'link.error.view_only',
  upload_only: 'link.error.upload_only',
  not_upload: 'link.error.not_upload',
  item_not_found: 'link.error.item_not_found',
  too_large: 'link.error.too_large',
  quota_exceeded: 'link.error.quota_exceeded',
  invalid_name: 'link.error.invalid_name',
  upload_incomplete: 'link.error.upload_incomplete',
};

/** A refusal's sentence: the catalogue's for a known code, else the function's own. */
function refusalText(code: string, said: string | undefined): string {
  const key = REFUSALS[code];
  return key ? t(key) : (said ?? t('link.error.unavailable'));
}

/** A refusal of the `share` function: its code (`wrong_password`, `expired`, …) and sentence. */
export class LinkError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly retryAfter: number | null = null,
  ) {
    super(message);
  }
}

/** A visitor's calls for the link of `token`; `open` starts the session the others send. */
export function linkVisitor(token: string) {
  const { url, anonKey } = backendConfig();
  let session: string | null = null;

  async function call(body: Record<string, unknown>): Promise<Response> {
    let res: Response;
    try {
      res = await fetch(`${url}/functions/v1/share`, {
        method: 'POST',
        headers: {
          apikey: anonKey,
          authorization: `Bearer ${anonKey}`,
          'content-type': 'application/json',
          ...(session ? { 'x-link-session': session } : {}),
        },
        body: JSON.stringify({ ...body, token }),
      });
    } catch {
      throw new LinkError(0, 'offline', refusalText('offline', undefined));
    }
    if (res.ok) return res;
    const b = (await res.json().catch(() => ({}))) as { error?: string; message?: string };
    const code = b.error ?? 'unavailable';
    throw new LinkError(
      res.status,
      code,
      refusalText(code, b.message),
      Number(res.headers.get('retry-after')) || null,
    );
  }
  const json = async <T>(body: Record<string, unknown>) => (await (await call(body)).json()) as T;

  return {
    async open(password?: string): Promise<OpenedLink> {
      const opened = await json<OpenedLink>({ action: 'open', password });
      session = opened.session;
      return opened;
    },
    list: (folder?: string) => json<LinkFolder>({ action: 'list', folder }),
    /** The file's bytes, through the link (view-only links give nothing else). */
    preview: async (file?: string) => (await call({ action: 'preview', file })).blob(),
    download: (file?: string) => json<{ url: string; name: string }>({ action: 'download', file }),
    zip: (folder?: string) =>
      json<{
        name: string;
        items: { name: string; lastModified: string; size: number; url?: string }[];
      }>({ action: 'zip', folder }),
    upload: (file: { name: string; size: number; type: string }, key: string | null) =>
      json<{ key: string; path: string; signature: string }>({
        action: 'upload',
        name: file.name,
        size: file.size,
        type: file.type,
        key,
      }),
    finish: (key: string) => json<{ size: number }>({ action: 'finish', key }),
  };
}

export type LinkVisitor = ReturnType<typeof linkVisitor>;
