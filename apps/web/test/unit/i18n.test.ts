import { type CompiledMessage, compileMessageOrThrow } from '@lingui/message-utils/compileMessage';
import { describe, expect, it } from 'vitest';
import { formatBytes } from '../../src/format';
import { loadLocale, t } from '../../src/i18n';
import ar from '../../src/i18n/messages/ar';
import en from '../../src/i18n/messages/en';

const CATALOGUES: Record<string, Record<string, string>> = { en, ar };

/** The placeholder names of a message (plural/select arguments included), sorted. */
function placeholders(message: CompiledMessage, into = new Set<string>()): string[] {
  for (const token of message) {
    if (typeof token === 'string') continue;
    const [name, , format] = token;
    if (name !== '#') into.add(name);
    if (format && typeof format === 'object') {
      for (const [k, branch] of Object.entries(format as Record<string, unknown>)) {
        if (k !== 'offset' && Array.isArray(branch)) placeholders(branch as CompiledMessage, into);
      }
    }
  }
  return [...into].sort();
}

describe('message catalogues', () => {
  for (const [locale, catalogue] of Object.entries(CATALOGUES)) {
    it(`${locale} has every key of the English one and no other, with the same placeholders`, () => {
      expect(Object.keys(catalogue).sort()).toEqual(Object.keys(en).sort());
      for (const [id, text] of Object.entries(en)) {
        const theirs = catalogue[id] ?? '';
        expect(placeholders(compileMessageOrThrow(theirs)), `${locale} ${id}`).toEqual(
          placeholders(compileMessageOrThrow(text)),
        );
      }
    });
  }

  it('Arabic counts take their six plural forms', async () => {
    await loadLocale('ar');
    const forms = [0, 1, 2, 3, 11, 100].map((count) => t('trash.emptyConfirm', { count }));
    expect(new Set(forms.map((f) => f.replace(/[0-9٠-٩]/g, ''))).size).toBe(6);
    expect(forms[1]).toContain('عنصر واحد');
    expect(forms[2]).toContain('عنصرين');
    // Arabic's digits and decimal sign, as this runtime's Intl writes them.
    expect(formatBytes(1536)).toBe(`${new Intl.NumberFormat('ar').format(1.5)} ك.ب`);
    await loadLocale('en');
    expect(t('trash.emptyConfirm', { count: 1 })).toBe(
      'Delete all 1 item in the Trash forever? This cannot be undone.',
    );
    expect(formatBytes(1536)).toBe('1.5 KB');
  });
});
