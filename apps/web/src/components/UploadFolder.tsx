import { useRef } from 'react';
import { t } from '../i18n';
import { fromFolderInput } from '../lib/dropped';
import { pickWithHandles } from '../lib/pickers';
import { useLayout } from './layout-context';

/**
 * "Upload folder": picks a folder and uploads it with its tree, into `folderId` (with its
 * files' handles where the browser has the folder picker of the File System Access API).
 */
export function UploadFolderButton({ folderId }: { folderId: string | null }) {
  const { addFiles } = useLayout();
  const input = useRef<HTMLInputElement>(null);
  return (
    <>
      <button
        type="button"
        onClick={async () => {
          const picked = await pickWithHandles('folder');
          if (picked === null) input.current?.click();
          else if (picked.files.length || picked.folders.length) addFiles(picked, folderId);
        }}
      >
        {t('upload.folder')}
      </button>
      <input
        ref={input}
        type="file"
        multiple
        hidden
        aria-label={t('upload.chooseFolder')}
        data-testid="folder-picker"
        {...{ webkitdirectory: '' }}
        onChange={(e) => {
          const chosen = Array.from(e.target.files ?? []);
          if (chosen.length) addFiles(fromFolderInput(chosen), folderId);
          e.target.value = '';
        }}
      />
    </>
  );
}
