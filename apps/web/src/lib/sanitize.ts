/**
 * DOMPurify for what a preview shows of a user's file: rendered Markdown and SVG pictures.
 * Loaded only with the previews and thumbnails that need it.
 *
 * - Markdown's HTML keeps text, links and tables; no script, style, form, frame or media
 *   element survives, and no image that would load from elsewhere (a remote image would tell
 *   its server who opened the file and when): such an image shows as its alt text. Images
 *   inside the file (`data:` URLs) stay. Links open in a new tab without a referrer.
 * - SVG keeps DOMPurify's SVG profile (no script, no event handler, no foreign object); it is
 *   then shown as an `<img>`, where a browser neither runs scripts nor loads anything else.
 */
import DOMPurify from 'dompurify';

const MARKDOWN_FORBIDDEN = [
  'style',
  'form',
  'input',
  'button',
  'textarea',
  'select',
  'video',
  'audio',
  'source',
  'track',
  'picture',
];

/** Sanitised HTML of rendered Markdown, as nodes ready to insert. */
export function sanitizeMarkdownHtml(html: string): DocumentFragment {
  const fragment = DOMPurify.sanitize(html, {
    USE_PROFILES: { html: true },
    FORBID_TAGS: MARKDOWN_FORBIDDEN,
    FORBID_ATTR: ['style', 'srcset'],
    RETURN_DOM_FRAGMENT: true,
  });
  for (const img of fragment.querySelectorAll('img')) {
    if ((img.getAttribute('src') ?? '').startsWith('data:image/')) continue;
    const alt = img.getAttribute('alt') || 'image';
    const note = document.createElement('span');
    note.className = 'blocked-image';
    note.textContent = `[${alt} — remote image not loaded]`;
    img.replaceWith(note);
  }
  for (const a of fragment.querySelectorAll('a[href]')) {
    a.setAttribute('target', '_blank');
    a.setAttribute('rel', 'noopener noreferrer nofollow');
  }
  return fragment;
}

const SVG_NS = 'http://www.w3.org/2000/svg';

/** A sanitised SVG picture as an `image/svg+xml` blob, for an `<img>`. */
export function sanitizeSvg(source: string): Blob {
  const clean = DOMPurify.sanitize(source, {
    USE_PROFILES: { svg: true, svgFilters: true },
    RETURN_DOM_FRAGMENT: true,
  });
  const svg = clean.querySelector('svg');
  if (!svg) throw new Error('Not an SVG picture');
  // A standalone SVG file needs its namespace to draw as an image.
  const text = new XMLSerializer().serializeToString(svg);
  const withNs = text.includes(`xmlns="${SVG_NS}"`)
    ? text
    : text.replace('<svg', `<svg xmlns="${SVG_NS}"`);
  return new Blob([withNs], { type: 'image/svg+xml' });
}
