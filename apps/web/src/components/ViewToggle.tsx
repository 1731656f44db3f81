import { t } from '../i18n';
import type { ViewMode } from '../lib/view-mode';

/** Switches between the list and the grid of cards. */
export function ViewToggle({ mode, onChange }: { mode: ViewMode; onChange(mode: ViewMode): void }) {
  return (
    <fieldset className="view-toggle">
      <legend className="sr-only">{t('view.legend')}</legend>
      <button type="button" aria-pressed={mode === 'list'} onClick={() => onChange('list')}>
        {t('view.list')}
      </button>
      <button type="button" aria-pressed={mode === 'grid'} onClick={() => onChange('grid')}>
        {t('view.grid')}
      </button>
    </fieldset>
  );
}
