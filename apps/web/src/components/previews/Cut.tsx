/** The line under a preview that shows only the start of a file. */

/** Bytes of a text file (Markdown, code, plain text) a preview reads. */
export const TEXT_LIMIT = 256 * 1024;

export function Cut() {
  return <p className="hint">Only the first {TEXT_LIMIT / 1024} KiB are shown.</p>;
}
