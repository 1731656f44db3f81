import { S3ERR } from './errors';

/** The namespace of every S3 answer document. */
export const S3_NS = 'http://s3.amazonaws.com/doc/2006-03-01/';

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&apos;',
};

/** Text escaped for an XML element or attribute. */
export const xmlEscape = (text: string): string => text.replace(/[&<>"']/g, (c) => ESCAPES[c] ?? c);

/** A child value of {@link el}: a string is escaped text, arrays are flattened, null skipped. */
export type XmlChild = string | number | boolean | null | undefined | XmlChild[] | { xml: string };

function render(child: XmlChild): string {
  if (child === null || child === undefined) return '';
  if (Array.isArray(child)) return child.map(render).join('');
  if (typeof child === 'object') return child.xml;
  return xmlEscape(String(child));
}

/** One element: `el('Key', 'a&b')` → `<Key>a&amp;b</Key>`. */
export const el = (name: string, ...children: XmlChild[]): { xml: string } => ({
  xml: `<${name}>${render(children)}</${name}>`,
});

/** An S3 answer: the declaration and the root element in the S3 namespace. */
export function xmlDocument(root: string, ...children: XmlChild[]): string {
  return `<?xml version="1.0" encoding="UTF-8"?>\n<${root} xmlns="${S3_NS}">${render(children)}</${root}>`;
}

/** An XML answer. */
export function xmlResponse(
  body: string,
  status = 200,
  headers: Record<string, string> = {},
): Response {
  return new Response(body, {
    status,
    headers: { 'content-type': 'application/xml', ...headers },
  });
}

/** A parsed element: its local name (no prefix), child elements and text. */
export interface XmlNode {
  name: string;
  children: XmlNode[];
  text: string;
}

const ENTITY = /&(amp|lt|gt|quot|apos|#\d+|#x[0-9a-fA-F]+);/g;
const NAMED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

function decodeEntities(text: string): string {
  if (/&(?!(amp|lt|gt|quot|apos|#\d+|#x[0-9a-fA-F]+);)/.test(text)) throw S3ERR.malformedXml();
  return text.replace(ENTITY, (_, e: string) => {
    if (e.startsWith('#x')) return String.fromCodePoint(Number.parseInt(e.slice(2), 16));
    if (e.startsWith('#')) return String.fromCodePoint(Number(e.slice(1)));
    return NAMED[e] ?? '';
  });
}

const TOKEN =
  /<\?[\s\S]*?\?>|<!--[\s\S]*?-->|<\/?([A-Za-z_][\w.:-]*)((?:\s+[\w.:-]+\s*=\s*(?:"[^"]*"|'[^']*'))*)\s*(\/?)>|[^<]+/y;

/**
 * Parses the small request documents of S3 (Delete, CompleteMultipartUpload,
 * CreateBucketConfiguration): elements, text and entities; attributes are ignored. Anything
 * not well formed is MalformedXML.
 */
export function parseXml(text: string): XmlNode {
  const stack: XmlNode[] = [];
  let root: XmlNode | null = null;
  TOKEN.lastIndex = 0;
  while (TOKEN.lastIndex < text.length) {
    const start = TOKEN.lastIndex;
    const m = TOKEN.exec(text);
    if (!m || m.index !== start) throw S3ERR.malformedXml();
    const token = m[0];
    if (token.startsWith('<?') || token.startsWith('<!--')) continue;
    const top = stack[stack.length - 1];
    if (!token.startsWith('<')) {
      if (top) top.text += decodeEntities(token);
      else if (token.trim() !== '') throw S3ERR.malformedXml();
      continue;
    }
    const name = (m[1] ?? '').replace(/^.*:/, '');
    if (token.startsWith('</')) {
      if (!top || top.name !== name) throw S3ERR.malformedXml();
      stack.pop();
      continue;
    }
    const node: XmlNode = { name, children: [], text: '' };
    if (top) top.children.push(node);
    else if (root) throw S3ERR.malformedXml();
    else root = node;
    if (m[3] !== '/') stack.push(node);
  }
  if (!root || stack.length > 0) throw S3ERR.malformedXml();
  return root;
}

/** The child elements named `name`. */
export const children = (node: XmlNode, name: string): XmlNode[] =>
  node.children.filter((c) => c.name === name);

/** The trimmed text of the first child named `name`, or undefined. */
export const childText = (node: XmlNode, name: string): string | undefined =>
  children(node, name)[0]?.text.trim();
