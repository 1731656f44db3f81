import { useOutletContext } from 'react-router';
import type { Picked, PickedFile } from '../lib/dropped';

/** What the signed-in pages share through the layout. */
export interface LayoutContext {
  /** Tell the layout which folder dropped files go to. */
  setUploadTarget(folderId: string | null): void;
  /**
   * Queue files for upload into a folder (checks size and quota first); a folder's files and
   * folders (`Picked`) have its tree recreated there.
   */
  addFiles(files: Array<File | PickedFile> | Picked, folderId: string | null): void;
}

/** The layout context, for screens under {@link Layout}. */
export function useLayout(): LayoutContext {
  return useOutletContext<LayoutContext>();
}
