/**
 * The browser's file and folder pickers. Where Chromium offers the File System Access pickers
 * (`showOpenFilePicker`, `showDirectoryPicker`), picked files come with their handles, which
 * Drive keeps with an unfinished upload: after a reload, Resume reads the file from its handle
 * (asking for permission again on the click) instead of asking for a new pick. Elsewhere the
 * file input opens as before.
 */
import { fromHandles, type Picked } from './dropped';

type Handles = Parameters<typeof fromHandles>[0];

interface AccessPickers {
  showOpenFilePicker?(options: { multiple: boolean }): Promise<Handles>;
  showDirectoryPicker?(options: { mode: 'read' }): Promise<Handles[number]>;
}

/**
 * Files (or a folder, with its tree) picked with their handles. `null` when the browser has
 * no such picker, or refuses it here (open the file input instead); nothing picked when the
 * user closed the picker. Call from a click.
 *
 * @example
 * const picked = await pickWithHandles('files');
 * if (picked === null) input.click();
 * else if (picked.files.length || picked.folders.length) addFiles(picked, folderId);
 */
export async function pickWithHandles(kind: 'files' | 'folder'): Promise<Picked | null> {
  const pickers = (typeof window === 'undefined' ? {} : window) as AccessPickers;
  try {
    if (kind === 'files' && pickers.showOpenFilePicker) {
      return await fromHandles(await pickers.showOpenFilePicker({ multiple: true }));
    }
    if (kind === 'folder' && pickers.showDirectoryPicker) {
      return await fromHandles([await pickers.showDirectoryPicker({ mode: 'read' })]);
    }
  } catch (error) {
    // Closed without a pick; any other refusal (no user gesture, a sandboxed frame, a
    // folder the browser protects) falls back to the file input.
    if ((error as { name?: string } | null)?.name === 'AbortError')
      return { files: [], folders: [] };
  }
  return null;
}
