/**
 * The first bytes of a file as text, from its URL (a signed URL, or a link page's blob URL):
 * shared by the text, Markdown, code and CSV previews, so each reads at most `limit` bytes.
 */
import { useBackendQuery } from '@app/backend-react';

export interface TextStart {
  text: string;
  /** Whether `text` is the whole file (false: it was cut at `limit` bytes). */
  whole: boolean;
}

async function readStart(url: string, limit: number): Promise<TextStart> {
  const res = await fetch(url, { headers: { range: `bytes=0-${limit - 1}` } });
  if (!res.ok) throw Object.assign(new Error('Preview failed'), { status: res.status });
  const bytes = new Uint8Array(await res.arrayBuffer());
  // 206: the total follows the slash of Content-Range; 200: the body is the whole file.
  const total = Number(
    /\/(\d+)$/.exec(res.headers.get('content-range') ?? '')?.[1] ?? bytes.length,
  );
  const kept = bytes.subarray(0, limit);
  return { text: new TextDecoder().decode(kept), whole: total <= limit };
}

/** The file's first `limit` bytes as text (`data` undefined while loading). */
export function useTextStart(url: string, limit: number) {
  return useBackendQuery<TextStart>(['preview-text', url, limit], async () => {
    try {
      return { data: await readStart(url, limit), error: null };
    } catch (error) {
      return { data: null, error };
    }
  });
}
