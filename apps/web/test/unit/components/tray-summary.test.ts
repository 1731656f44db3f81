import { beforeAll, describe, expect, it } from 'vitest';
import { traySummary } from '../../../src/components/tray-summary';
import { loadLocale } from '../../../src/i18n';

beforeAll(() => loadLocale('en'));

const item = (state: Parameters<typeof traySummary>[0][number]['state'], size = 100, sent = 0) => ({
  state,
  size,
  bytesUploaded: sent,
});

describe('traySummary', () => {
  it('counts only moving uploads as uploading, with their overall percentage', () => {
    expect(
      traySummary([item('uploading', 100, 50), item('queued'), item('done', 100, 100)], 0),
    ).toBe('Uploading 2 files · 25%');
    expect(traySummary([item('retrying', 200, 100)], 0)).toBe('Uploading 1 file · 50%');
  });

  it('says when uploads are paused or failed instead of uploading', () => {
    expect(traySummary([item('failed')], 0)).toBe('1 upload failed');
    expect(traySummary([item('paused', 100, 40), item('failed'), item('failed')], 0)).toBe(
      '1 paused · 2 uploads failed',
    );
    expect(traySummary([item('uploading', 100, 10), item('failed')], 0)).toBe(
      'Uploading 1 file · 10% · 1 upload failed',
    );
  });

  it('says how many uploads a reload left incomplete', () => {
    expect(
      traySummary(
        [
          { ...item('paused', 100, 40), pausedBy: 'reload' },
          { ...item('paused'), pausedBy: 'user' },
        ],
        0,
      ),
    ).toBe('1 paused · 1 incomplete');
  });

  it('does not call refused files complete uploads', () => {
    expect(traySummary([], 1)).toBe('1 file not uploaded');
    expect(traySummary([], 2)).toBe('2 files not uploaded');
    expect(traySummary([item('done', 100, 100)], 1)).toBe('Uploads complete');
  });

  it('says it in Arabic, with the plural form of each count', async () => {
    await loadLocale('ar');
    try {
      const pct = new Intl.NumberFormat('ar').format(50);
      expect(traySummary([item('uploading', 100, 50), item('queued', 100, 50)], 0)).toBe(
        `جارٍ رفع ملفين · ${pct}٪`,
      );
      expect(traySummary([item('failed')], 0)).toBe('فشلت عملية رفع واحدة');
      expect(traySummary([], 1)).toBe('لم يُرفع ملف واحد');
    } finally {
      await loadLocale('en');
    }
  });
});
