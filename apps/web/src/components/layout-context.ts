import { useOutletContext } from 'react-router';

/** What the signed-in pages share through the layout. */
export interface LayoutContext {
  /** Tell the layout which folder dropped files go to. */
  setUploadTarget(folderId: string | null): void;
  /** Queue files for upload into a folder (checks size and quota first). */
  addFiles(files: File[], folderId: string | null): void;
}

/** The layout context, for screens under {@link Layout}. */
export function useLayout(): LayoutContext {
  return useOutletContext<LayoutContext>();
}
