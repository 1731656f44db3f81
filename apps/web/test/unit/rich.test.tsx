import type { ReactNode } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { loadLocale, t } from '../../src/i18n';
import { rich } from '../../src/i18n/rich';

const html = (node: ReactNode) => renderToStaticMarkup(node);

describe('rich', () => {
  it('draws each marked part with its element, where the language puts it', async () => {
    const strong = (s: string) => <strong>{s}</strong>;
    await loadLocale('en');
    const values = { sender: 'Ana', kind: 'folder', name: 'Plans', role: 'Editor' };
    expect(html(rich(t('invite.shared', values), [strong]))).toBe(
      'Ana shared the folder <strong>“Plans”</strong> with you, as Editor.',
    );
    await loadLocale('ar');
    expect(html(rich(t('invite.shared', { ...values, role: 'مُحرِّر' }), [strong]))).toBe(
      'شارك Ana معك المجلد <strong>«Plans»</strong> بصفة مُحرِّر.',
    );
    await loadLocale('en');
  });

  it('keeps text without marks, several marks, and escapes what it draws', () => {
    expect(html(rich('plain', []))).toBe('plain');
    const parts = [(s: string) => <b>{s}</b>, (s: string) => <i>{s}</i>];
    expect(html(rich('<1>a</1> and <0><x></0>', parts))).toBe('<i>a</i> and <b>&lt;x&gt;</b>');
  });
});
