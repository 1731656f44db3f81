import { mkdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pdfOf } from '../test/backend/search-fixtures';
import { expectAccessible } from './axe';
import { type Stack, signUpNewUser, startStack, watchErrors } from './stack';

const artifacts = fileURLToPath(new URL('../.artifacts/', import.meta.url));
const shots = `${artifacts}screenshots/`;
const inputs = `${artifacts}inputs/previews/`;

const MARKDOWN = [
  '# Trip notes',
  '',
  'Bring **boots** and a [map](https://example.com/map).',
  '',
  '![tracker](https://tracker.example/pixel.png)',
  '',
  '<script>window.__ran = "markdown script"</script>',
  '<img src="x" onerror="window.__ran = \'markdown onerror\'">',
  '',
].join('\n');
const PYTHON = 'def greet(name):\n    # Say hello\n    return f"Hello, {name}!"\n';
const CSV = [
  'name,city',
  ...Array.from({ length: 250 }, (_, i) => `person ${i + 1},city ${i + 1}`),
].join('\n');
const SVG = [
  '<svg xmlns="http://www.w3.org/2000/svg" width="40" height="30" viewBox="0 0 40 30">',
  '<script>window.__ran = "svg script"</script>',
  '<rect width="40" height="30" fill="#00aa00" onload="window.__ran = \'svg onload\'"/>',
  '</svg>',
].join('');
const NAMES = ['trip.md', 'hello.py', 'people.csv', 'drawing.svg', 'report.pdf', 'clip.webm'];

const row = (page: Page, name: string) => page.locator(`.rows li[data-name="${name}"]`);
const naturalWidth = (img: Locator) =>
  img.evaluate((el) => {
    const i = el as HTMLImageElement;
    return i.complete ? i.naturalWidth : 0;
  });

/** A short WebM (a red picture) recorded in the page, as its bytes. */
async function recordVideo(page: Page): Promise<Buffer> {
  const base64 = await page.evaluate(async () => {
    const canvas = document.createElement('canvas');
    canvas.width = 64;
    canvas.height = 48;
    const ctx = canvas.getContext('2d') as CanvasRenderingContext2D;
    const recorder = new MediaRecorder(canvas.captureStream(25), { mimeType: 'video/webm' });
    const chunks: Blob[] = [];
    recorder.ondataavailable = (e) => chunks.push(e.data);
    const stopped = new Promise((resolve) => {
      recorder.onstop = resolve;
    });
    recorder.start();
    for (let i = 0; i < 15; i++) {
      ctx.fillStyle = '#ff0000';
      ctx.fillRect(0, 0, 64, 48);
      await new Promise((resolve) => setTimeout(resolve, 40));
    }
    recorder.stop();
    await stopped;
    const bytes = new Uint8Array(await new Blob(chunks).arrayBuffer());
    let text = '';
    for (const b of bytes) text += String.fromCharCode(b);
    return btoa(text);
  });
  return Buffer.from(base64, 'base64');
}

/** The colour at the middle of an image shown in the page. */
const middleColour = (page: Page, src: string) =>
  page.evaluate(async (url) => {
    const img = new Image();
    img.src = url;
    await img.decode();
    const canvas = document.createElement('canvas');
    canvas.width = img.naturalWidth;
    canvas.height = img.naturalHeight;
    const ctx = canvas.getContext('2d') as CanvasRenderingContext2D;
    ctx.drawImage(img, 0, 0);
    return [...ctx.getImageData(img.naturalWidth >> 1, img.naturalHeight >> 1, 1, 1).data];
  }, src);

describe('previews and thumbnails of more types, as a new user', () => {
  let stack: Stack;
  let page: Page;
  let errors: string[];
  const requested: string[] = [];

  beforeAll(async () => {
    mkdirSync(shots, { recursive: true });
    mkdirSync(inputs, { recursive: true });
    stack = await startStack();
    page = await (await stack.newContext()).newPage();
    errors = watchErrors(page);
    page.on('request', (r) => requested.push(r.url()));
    await signUpNewUser(page, stack);
    writeFileSync(`${inputs}trip.md`, MARKDOWN);
    writeFileSync(`${inputs}hello.py`, PYTHON);
    writeFileSync(`${inputs}people.csv`, CSV);
    writeFileSync(`${inputs}drawing.svg`, SVG);
    writeFileSync(`${inputs}report.pdf`, pdfOf(['First page of the report', 'Second page']));
    writeFileSync(`${inputs}clip.webm`, await recordVideo(page));
    await page.getByTestId('file-picker').setInputFiles(NAMES.map((n) => `${inputs}${n}`));
    for (const name of NAMES) {
      await page
        .locator('.tray li.upload')
        .filter({ hasText: name })
        .locator('.upload-state[data-state="done"]')
        .waitFor({ timeout: 60_000 });
    }
  });
  afterAll(async () => {
    await stack?.stop();
  });

  /** Opens a file's preview from the list; returns its dialog. */
  async function open(name: string) {
    await row(page, name)
      .getByRole('button', { name: new RegExp(`^${name.replace('.', '\\.')}, `) })
      .click();
    return page.getByRole('dialog', { name });
  }

  it('renders Markdown, sanitised: no script runs, no remote image is fetched', async () => {
    const dialog = await open('trip.md');
    await dialog.getByRole('heading', { name: 'Trip notes', level: 1 }).waitFor();
    expect(await dialog.locator('.markdown-body strong').textContent()).toBe('boots');
    const link = dialog.getByRole('link', { name: 'map' });
    expect(await link.getAttribute('rel')).toContain('noopener');
    await dialog.getByText('[tracker — remote image not loaded]').waitFor();
    expect(await dialog.locator('.markdown-body img').count()).toBe(0);
    expect(await dialog.locator('.markdown-body script').count()).toBe(0);
    expect(requested.filter((u) => u.includes('tracker.example'))).toEqual([]);
    expect(await page.evaluate(() => (window as { __ran?: string }).__ran)).toBeUndefined();
    await page.screenshot({ path: `${shots}preview-markdown.png` });
    await expectAccessible(page, 'a Markdown preview');
    await dialog.getByRole('button', { name: 'Close' }).click();
  });

  it('highlights code by its language', async () => {
    const dialog = await open('hello.py');
    const code = dialog.locator('code.language-python');
    await code.waitFor();
    expect(await code.locator('.hljs-keyword').allTextContents()).toEqual(['def', 'return']);
    expect(await code.locator('.hljs-comment').textContent()).toBe('# Say hello');
    expect(await code.textContent()).toBe(PYTHON);
    await page.screenshot({ path: `${shots}preview-code.png` });
    await expectAccessible(page, 'a code preview');
    await dialog.getByRole('button', { name: 'Close' }).click();
  });

  it('shows a CSV file as a table, and says how many rows were left out', async () => {
    const dialog = await open('people.csv');
    const table = dialog.getByRole('table', { name: 'people.csv' });
    await table.waitFor();
    expect(await table.getByRole('columnheader').allTextContents()).toEqual(['name', 'city']);
    expect(await table.getByRole('row').count()).toBe(201);
    await table.getByRole('cell', { name: 'person 200', exact: true }).waitFor();
    expect(await table.getByRole('cell', { name: 'person 201', exact: true }).count()).toBe(0);
    await dialog.getByText('Showing 200 of 250 rows (50 not shown).').waitFor();
    await page.screenshot({ path: `${shots}preview-csv.png` });
    await expectAccessible(page, 'a CSV preview');
    await dialog.getByRole('button', { name: 'Close' }).click();
  });

  it('shows an SVG picture sanitised, its script never run', async () => {
    const dialog = await open('drawing.svg');
    const img = dialog.getByRole('img', { name: 'drawing.svg' });
    await expect.poll(() => naturalWidth(img), { timeout: 15_000 }).toBe(40);
    const src = (await img.getAttribute('src')) ?? '';
    expect(src).toMatch(/^blob:/);
    const shown = await page.evaluate(async (url) => (await fetch(url)).text(), src);
    expect(shown).not.toMatch(/script|onload/i);
    expect(shown).toContain('<rect');
    expect(await middleColour(page, src)).toEqual([0, 170, 0, 255]);
    expect(await page.evaluate(() => (window as { __ran?: string }).__ran)).toBeUndefined();
    await expectAccessible(page, 'an SVG preview');
    await dialog.getByRole('button', { name: 'Close' }).click();
  });

  it('draws the first page of a PDF, and the others on asking', async () => {
    const dialog = await open('report.pdf');
    const first = dialog.getByRole('img', { name: 'Page 1 of 2 of report.pdf' });
    await expect.poll(() => naturalWidth(first), { timeout: 30_000 }).toBe(1200);
    expect(await dialog.locator('iframe').count()).toBe(0);
    await page.screenshot({ path: `${shots}preview-pdf.png` });
    await expectAccessible(page, 'a PDF preview');
    await dialog.getByRole('button', { name: 'Show all 2 pages' }).click();
    const second = dialog.getByRole('img', { name: 'Page 2 of 2 of report.pdf' });
    await expect.poll(() => naturalWidth(second), { timeout: 30_000 }).toBe(1200);
    await dialog.getByRole('button', { name: 'Close' }).click();
  });

  it("shows a video's first frame as its poster", async () => {
    const dialog = await open('clip.webm');
    const video = dialog.locator('video');
    await expect.poll(() => video.getAttribute('poster'), { timeout: 30_000 }).toMatch(/^blob:/);
    const poster = (await video.getAttribute('poster')) ?? '';
    const [r, g, b] = await middleColour(page, poster);
    expect(r).toBeGreaterThan(200);
    expect(g).toBeLessThan(60);
    expect(b).toBeLessThan(60);
    await expectAccessible(page, 'a video preview');
    await dialog.getByRole('button', { name: 'Close' }).click();
  });

  it('shows thumbnails of the PDF, the video and the SVG in the list and the grid', async () => {
    for (const name of ['report.pdf', 'clip.webm', 'drawing.svg']) {
      await expect
        .poll(() => naturalWidth(row(page, name).locator('.thumb img')), { timeout: 30_000 })
        .toBeGreaterThan(0);
    }
    expect(await row(page, 'trip.md').locator('.thumb').count()).toBe(0);
    await page.getByRole('button', { name: 'Grid' }).click();
    for (const name of ['report.pdf', 'clip.webm', 'drawing.svg']) {
      const img = page.locator(`.tiles li[data-name="${name}"] .thumb img`);
      await expect.poll(() => naturalWidth(img), { timeout: 30_000 }).toBeGreaterThan(0);
    }
    await page.screenshot({ path: `${shots}grid-made-thumbnails.png` });
    await expectAccessible(page, 'the grid with made thumbnails');
    await page.getByRole('button', { name: 'List' }).click();
  });

  it('makes each thumbnail once: the next visit takes it from this browser', async () => {
    const signs: string[] = [];
    const onRequest = (r: { url(): string }) => {
      if (r.url().includes('/object/sign/')) signs.push(r.url());
    };
    page.on('request', onRequest);
    await page.reload();
    for (const name of ['report.pdf', 'clip.webm', 'drawing.svg']) {
      await expect
        .poll(() => naturalWidth(row(page, name).locator('.thumb img')), { timeout: 15_000 })
        .toBeGreaterThan(0);
      expect(await row(page, name).locator('.thumb img').getAttribute('src')).toMatch(/^blob:/);
    }
    expect(signs).toEqual([]);
    page.off('request', onRequest);
  });

  it('previews Markdown through a view-only link, with no download offered', async () => {
    await row(page, 'trip.md').getByRole('checkbox').check();
    await page
      .getByRole('toolbar', { name: 'Selection actions' })
      .getByRole('button', { name: 'Share' })
      .click();
    const dialog = page.getByRole('dialog', { name: 'Share “trip.md”' });
    await dialog.getByLabel('Anyone with the link can').selectOption('view');
    await dialog.getByRole('button', { name: 'Create link' }).click();
    const link = await dialog.getByLabel('Share link').inputValue();
    await dialog.getByRole('button', { name: 'Close' }).click();
    await row(page, 'trip.md').getByRole('checkbox').uncheck();

    const guest = await (await stack.newContext()).newPage();
    const guestErrors = watchErrors(guest);
    await guest.goto(link);
    await guest.getByRole('heading', { name: 'Trip notes', level: 1 }).waitFor();
    await guest.getByText('[tracker — remote image not loaded]').waitFor();
    expect(await guest.getByRole('button', { name: /download/i }).count()).toBe(0);
    expect(await guest.evaluate(() => (window as { __ran?: string }).__ran)).toBeUndefined();
    await guest.screenshot({ path: `${shots}link-markdown.png` });
    await expectAccessible(guest, 'a Markdown file through a view-only link');
    expect(guestErrors).toEqual([]);
    await guest.close();
  });

  it('threw no uncaught error in the page', () => {
    expect(errors).toEqual([]);
  });
});
