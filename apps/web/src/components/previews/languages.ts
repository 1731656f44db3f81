/**
 * Which preview a file's name and MIME type call for, beyond what the MIME type alone says:
 * Markdown, CSV and source code (with the highlighter's name of its language). No
 * dependencies: the viewers themselves load lazily.
 */

/** File extensions of source code, and the highlighter's name of their language. */
const BY_EXTENSION: Record<string, string> = {
  js: 'javascript',
  mjs: 'javascript',
  cjs: 'javascript',
  jsx: 'javascript',
  ts: 'typescript',
  tsx: 'typescript',
  mts: 'typescript',
  cts: 'typescript',
  py: 'python',
  rb: 'ruby',
  go: 'go',
  rs: 'rust',
  java: 'java',
  kt: 'kotlin',
  c: 'c',
  h: 'c',
  cc: 'cpp',
  cpp: 'cpp',
  hpp: 'cpp',
  cs: 'csharp',
  php: 'php',
  swift: 'swift',
  sh: 'bash',
  bash: 'bash',
  zsh: 'bash',
  sql: 'sql',
  css: 'css',
  scss: 'scss',
  html: 'xml',
  htm: 'xml',
  xml: 'xml',
  json: 'json',
  yaml: 'yaml',
  yml: 'yaml',
  toml: 'ini',
  ini: 'ini',
  diff: 'diff',
  patch: 'diff',
};

/** MIME types of source code (when the name says nothing). */
const BY_MIME: Record<string, string> = {
  'text/javascript': 'javascript',
  'application/javascript': 'javascript',
  'application/typescript': 'typescript',
  'text/x-python': 'python',
  'text/x-c': 'c',
  'text/css': 'css',
  'text/html': 'xml',
  'text/xml': 'xml',
  'application/xml': 'xml',
  'application/json': 'json',
  'application/x-sh': 'bash',
  'application/sql': 'sql',
  'text/yaml': 'yaml',
  'application/yaml': 'yaml',
  'text/x-diff': 'diff',
  'application/x-httpd-php': 'php',
};

const MARKDOWN_MIME = new Set(['text/markdown', 'text/x-markdown']);
const CSV_MIME = new Set(['text/csv', 'application/csv', 'text/tab-separated-values']);
/** MIME types a browser gives code files by their extension (`.ts` is MPEG transport stream). */
const MISNAMED = new Set(['', 'application/octet-stream', 'video/mp2t']);

const extensionOf = (name: string) => {
  const dot = name.lastIndexOf('.');
  return dot > 0 ? name.slice(dot + 1).toLowerCase() : '';
};

/** Whether a MIME type leaves room for the extension to say what the file is. */
const plain = (mime: string) =>
  MISNAMED.has(mime) || mime.startsWith('text/') || Object.hasOwn(BY_MIME, mime);

/** Whether the file is Markdown (by MIME type, or a `.md` name with a plain type). */
export function isMarkdown(name: string, mime: string): boolean {
  const ext = extensionOf(name);
  return MARKDOWN_MIME.has(mime) || ((ext === 'md' || ext === 'markdown') && plain(mime));
}

/** Whether the file is a CSV or TSV table. */
export function isCsv(name: string, mime: string): boolean {
  const ext = extensionOf(name);
  return CSV_MIME.has(mime) || ((ext === 'csv' || ext === 'tsv') && plain(mime));
}

/** The language of a source file (highlight.js's name), or null when it is not code. */
export function languageOf(name: string, mime: string): string | null {
  const ext = BY_EXTENSION[extensionOf(name)];
  if (ext && plain(mime)) return ext;
  return BY_MIME[mime] ?? null;
}
