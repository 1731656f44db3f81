/**
 * The "Perhaps you meant …" suggestions of PostgREST's errors. It picks them with a fuzzy
 * string set (the `fuzzyset` algorithm: gram sizes 3 then 2, cosine similarity of gram
 * counts, the best 50 rescored by normalised Levenshtein similarity, minimum score 0.33),
 * so the same misspelling gets the same suggestion here.
 */

/** fuzzyset's default minimum score (relationship and parameter hints). */
export const MIN_SCORE = 0.33;

/**
 * The minimum for table and function names: PostgREST's fix of hints leaking names that
 * are merely somewhat alike (in 14.6 and later, and 16).
 */
export const NAME_MIN_SCORE = 0.75;
const GRAM_SIZES = [3, 2];
const RESCORED = 50;

/** Lower case, letters, digits, whitespace and commas only, enclosed in hyphens. */
function padded(value: string): string {
  let out = '';
  for (const ch of value.toLowerCase()) if (/[\p{L}\p{N}\s,]/u.test(ch)) out += ch;
  return `-${out}-`;
}

function gramCounts(value: string, size: number): Map<string, number> {
  const s = [...padded(value)];
  const counts = new Map<string, number>();
  for (let i = 0; i + size <= s.length; i++) {
    const gram = s.slice(i, i + size).join('');
    counts.set(gram, (counts.get(gram) ?? 0) + 1);
  }
  return counts;
}

const magnitude = (v: Map<string, number>) =>
  Math.sqrt([...v.values()].reduce((sum, n) => sum + n * n, 0));

function levenshtein(a: string, b: string): number {
  const x = [...a];
  const y = [...b];
  const row = Array.from({ length: y.length + 1 }, (_, i) => i);
  for (let i = 1; i <= x.length; i++) {
    let diagonal = row[0] as number;
    row[0] = i;
    for (let j = 1; j <= y.length; j++) {
      const above = row[j] as number;
      row[j] = Math.min(
        above + 1,
        (row[j - 1] as number) + 1,
        diagonal + (x[i - 1] === y[j - 1] ? 0 : 1),
      );
      diagonal = above;
    }
  }
  return row[y.length] as number;
}

/** 1 for equal strings, 0 for nothing in common. */
function similarity(a: string, b: string): number {
  const longest = Math.max([...a].length, [...b].length);
  return longest === 0 ? 1 : 1 - levenshtein(a, b) / longest;
}

/** The candidates close enough to `value`, closest first, with their scores (1 = equal). */
export function fuzzyMatches(
  candidates: readonly string[],
  value: string,
  minScore = MIN_SCORE,
): { score: number; value: string }[] {
  const key = value.toLowerCase();
  const entries = [...new Map(candidates.map((c) => [c.toLowerCase(), c])).entries()];
  const exact = entries.find(([k]) => k === key);
  if (exact) return [{ score: 1, value: exact[1] }];
  for (const size of GRAM_SIZES) {
    const query = gramCounts(key, size);
    const queryMagnitude = magnitude(query);
    const scored: { score: number; key: string; value: string }[] = [];
    for (const [k, original] of entries) {
      const grams = gramCounts(k, size);
      let dot = 0;
      for (const [gram, n] of query) dot += n * (grams.get(gram) ?? 0);
      if (dot > 0) {
        scored.push({ score: dot / (queryMagnitude * magnitude(grams)), key: k, value: original });
      }
    }
    scored.sort((a, b) => b.score - a.score);
    const rescored = scored
      .slice(0, RESCORED)
      .map((s) => ({ score: similarity(key, s.key), value: s.value }))
      .sort((a, b) => b.score - a.score)
      .filter((s) => s.score >= minScore);
    if (rescored.length > 0) return rescored;
  }
  return [];
}

/** The closest of `candidates` to `value`, or null when none is close enough. */
export const closestMatch = (
  candidates: readonly string[],
  value: string,
  minScore = MIN_SCORE,
): string | null => fuzzyMatches(candidates, value, minScore)[0]?.value ?? null;
