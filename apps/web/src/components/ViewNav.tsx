import { NavLink } from 'react-router';
import { t } from '../i18n';

/**
 * The views of Drive: the folders, what others shared with me, what was used last, what is
 * starred, and the Trash.
 */
export function ViewNav() {
  return (
    <nav aria-label={t('views.label')} className="views">
      <NavLink to="/files" end={false}>
        {t('views.myFiles')}
      </NavLink>
      <NavLink to="/shared">{t('views.shared')}</NavLink>
      <NavLink to="/recent">{t('views.recent')}</NavLink>
      <NavLink to="/starred">{t('views.starred')}</NavLink>
      <NavLink to="/trash">{t('views.trash')}</NavLink>
    </nav>
  );
}
