import { describe, expect, it } from 'vitest';
import { findChromium } from './chromium';

describe('findChromium', () => {
  it('fails with an install hint when CHROMIUM_PATH points nowhere', () => {
    expect(() => findChromium({ CHROMIUM_PATH: '/nonexistent/chromium' })).toThrow(
      /not found at \/nonexistent\/chromium \(CHROMIUM_PATH\).*apt-get install -y chromium/s,
    );
  });

  it('fails with an install hint when the default path is missing', () => {
    expect(() => findChromium({}, '/nonexistent/usr/bin/chromium')).toThrow(/apt-get/);
  });

  it('prefers CHROMIUM_PATH when it exists', () => {
    expect(findChromium({ CHROMIUM_PATH: process.execPath })).toBe(process.execPath);
  });
});
