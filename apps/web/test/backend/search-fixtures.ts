/**
 * Small files of each format search extracts, made here: a PDF written by hand (one Type1
 * font, one text line per row) and Office Open XML zips with the least each format needs.
 */
import { strToU8, zipSync } from 'fflate';

/** A PDF with one page per entry, each line of it a line of text. */
export function pdfOf(pages: string[]): Uint8Array {
  const objects: string[] = ['<< /Type /Catalog /Pages 2 0 R >>'];
  const kids = pages.map((_, i) => `${3 + i * 2} 0 R`).join(' ');
  objects.push(`<< /Type /Pages /Kids [${kids}] /Count ${pages.length} >>`);
  const font = 3 + pages.length * 2;
  pages.forEach((text, i) => {
    objects.push(
      `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 ${font} 0 R >> >> /Contents ${4 + i * 2} 0 R >>`,
    );
    const stream = text
      .split('\n')
      .map(
        (line, j) =>
          `BT /F1 10 Tf 40 ${760 - j * 12} Td (${line.replace(/[\\()]/g, (c) => `\\${c}`)}) Tj ET`,
      )
      .join('\n');
    objects.push(`<< /Length ${stream.length} >>\nstream\n${stream}\nendstream`);
  });
  objects.push('<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>');
  let out = '%PDF-1.4\n';
  const offsets: number[] = [];
  objects.forEach((o, i) => {
    offsets.push(out.length);
    out += `${i + 1} 0 obj\n${o}\nendobj\n`;
  });
  const xref = out.length;
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  out += offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('');
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return new TextEncoder().encode(out);
}

const xml = (s: string) => strToU8(`<?xml version="1.0" encoding="UTF-8" standalone="yes"?>${s}`);
const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** A docx whose paragraphs are `paragraphs`. */
export function docxOf(paragraphs: string[]): Uint8Array {
  const W = 'http://schemas.openxmlformats.org/wordprocessingml/2006/main';
  const body = paragraphs.map(
    (p) => `<w:p><w:r><w:t xml:space="preserve">${esc(p)}</w:t></w:r></w:p>`,
  );
  return zipSync({
    '[Content_Types].xml': xml(
      '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>',
    ),
    'word/document.xml': xml(
      `<w:document xmlns:w="${W}"><w:body>${body.join('')}</w:body></w:document>`,
    ),
  });
}

/** An xlsx with one sheet whose cells (shared strings) are `cells`. */
export function xlsxOf(cells: string[]): Uint8Array {
  const strings = cells.map((c) => `<si><t>${esc(c)}</t></si>`).join('');
  const row = cells.map((_, i) => `<c r="${String.fromCharCode(65 + i)}1" t="s"><v>${i}</v></c>`);
  const S = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main';
  return zipSync({
    'xl/sharedStrings.xml': xml(`<sst xmlns="${S}" count="${cells.length}">${strings}</sst>`),
    'xl/worksheets/sheet1.xml': xml(
      `<worksheet xmlns="${S}"><sheetData><row r="1">${row.join('')}</row></sheetData></worksheet>`,
    ),
  });
}

/** A pptx with one slide per entry. */
export function pptxOf(slides: string[]): Uint8Array {
  const A = 'http://schemas.openxmlformats.org/drawingml/2006/main';
  const files: Record<string, Uint8Array> = {};
  slides.forEach((text, i) => {
    files[`ppt/slides/slide${i + 1}.xml`] = xml(
      `<p:sld xmlns:a="${A}" xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main"><p:cSld><p:spTree><p:sp><p:txBody><a:p><a:r><a:t>${esc(text)}</a:t></a:r></a:p></p:txBody></p:sp></p:spTree></p:cSld></p:sld>`,
    );
  });
  return zipSync(files);
}
