/**
 * The text of a file, for search: plain text, Markdown, code and CSV as they are (UTF-8);
 * PDF with unpdf (a build of Mozilla's pdf.js for server runtimes); docx, xlsx and pptx from
 * the XML inside their zip (fflate), as the text of their paragraphs, cells and slides.
 * Both libraries are loaded on first use, so a text file never loads them.
 */

/** The kind of extraction a file needs, from its name and type (null: none). */
export function extractionOf(name: string, mime: string | null): Extraction | null {
  const ext = /\.([^.]+)$/.exec(name.toLowerCase())?.[1] ?? '';
  const type = (mime ?? '').toLowerCase();
  if (type === 'application/pdf' || ext === 'pdf') return 'pdf';
  if (ext === 'docx' || type.endsWith('wordprocessingml.document')) return 'docx';
  if (ext === 'xlsx' || type.endsWith('spreadsheetml.sheet')) return 'xlsx';
  if (ext === 'pptx' || type.endsWith('presentationml.presentation')) return 'pptx';
  if (type.startsWith('image/') || type.startsWith('video/') || type.startsWith('audio/')) {
    return null;
  }
  return 'text';
}

export type Extraction = 'text' | 'pdf' | 'docx' | 'xlsx' | 'pptx';

/** At most this much unzipped XML is read from one Office file (a zip bomb stops here). */
const MAX_XML = 64 * 1024 * 1024;

export async function extractText(bytes: Uint8Array, kind: Extraction): Promise<string> {
  switch (kind) {
    case 'pdf':
      return clean(await pdfText(bytes));
    case 'text':
      return clean(plainText(bytes));
    default:
      return clean(await officeText(bytes, kind));
  }
}

/** Text without NULs and other control characters (a file that is binary gives ''). */
function clean(text: string): string {
  return text.replace(/[^\P{Cc}\n\r\t]+/gu, ' ');
}

function plainText(bytes: Uint8Array): string {
  const head = bytes.subarray(0, 8192);
  if (head.includes(0)) return ''; // binary, whatever its name says
  return new TextDecoder('utf-8').decode(bytes);
}

async function pdfText(bytes: Uint8Array): Promise<string> {
  const { extractText: pdfExtract, getDocumentProxy } = await import('npm:unpdf@1');
  const { text } = await pdfExtract(await getDocumentProxy(bytes), { mergePages: true });
  return text;
}

/** The XML parts holding the text of each format, in reading order. */
function partsOf(kind: 'docx' | 'xlsx' | 'pptx', names: string[]): string[] {
  const numbered = (re: RegExp) =>
    names
      .filter((n) => re.test(n))
      .sort((a, b) => Number(/(\d+)\.xml$/.exec(a)?.[1]) - Number(/(\d+)\.xml$/.exec(b)?.[1]));
  if (kind === 'docx') {
    return names.filter((n) => /^word\/(document|header\d*|footer\d*|footnotes)\.xml$/.test(n));
  }
  if (kind === 'xlsx') {
    return [
      ...names.filter((n) => n === 'xl/sharedStrings.xml'),
      ...numbered(/^xl\/worksheets\/sheet\d+\.xml$/),
    ];
  }
  return numbered(/^ppt\/slides\/slide\d+\.xml$/);
}

async function officeText(bytes: Uint8Array, kind: 'docx' | 'xlsx' | 'pptx'): Promise<string> {
  const { unzipSync, strFromU8 } = await import('npm:fflate@0.8');
  let budget = MAX_XML;
  let names: string[] = [];
  unzipSync(bytes, {
    filter: (f) => {
      names.push(f.name);
      return false;
    },
  });
  names = partsOf(kind, names);
  const wanted = new Set(names);
  const files = unzipSync(bytes, {
    filter: (f) => {
      if (!wanted.has(f.name) || f.originalSize > budget) return false;
      budget -= f.originalSize;
      return true;
    },
  });
  return names
    .filter((n) => files[n])
    .map((n) => xmlText(strFromU8(files[n] as Uint8Array)))
    .join('\n');
}

/** The text of the `<t>` elements (w:t, a:t, t) of Office XML, a line per paragraph/cell. */
export function xmlText(xml: string): string {
  const out: string[] = [];
  const re = /<(?:w:|a:)?t(?:\s[^>]*)?>([^<]*)<\/(?:w:|a:)?t>|<\/(?:w:p|a:p|si|c)>|<w:tab\/>/g;
  for (let m = re.exec(xml); m; m = re.exec(xml)) {
    if (m[1] !== undefined) out.push(decodeEntities(m[1]));
    else out.push(m[0] === '<w:tab/>' ? '\t' : '\n');
  }
  return out.join('').replace(/\n{3,}/g, '\n\n');
}

function decodeEntities(s: string): string {
  return s.replace(/&(lt|gt|amp|quot|apos|#\d+|#x[0-9a-fA-F]+);/g, (_, e: string) => {
    if (e === 'lt') return '<';
    if (e === 'gt') return '>';
    if (e === 'amp') return '&';
    if (e === 'quot') return '"';
    if (e === 'apos') return "'";
    const code = e[1] === 'x' ? Number.parseInt(e.slice(2), 16) : Number(e.slice(1));
    return Number.isFinite(code) && code > 0 && code < 0x110000 ? String.fromCodePoint(code) : ' ';
  });
}
