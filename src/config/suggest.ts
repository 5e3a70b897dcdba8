/** "Did you mean …?" for misspelt names: the closest candidate by edit distance, if close enough. */

/** Levenshtein distance; inputs are short key names, so the O(n·m) table is fine. */
export function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost);
    }
    prev = cur;
  }
  return prev[b.length];
}

const SUGGEST = {
  /** Typos of up to this share of the name's length are worth suggesting; more looks like a different word. */
  maxDistanceShare: 1 / 3,
  /** Always tolerate a couple of slips, even in short names. */
  minDistance: 2,
} as const;

/** The candidate closest to `name`, or null when none is plausibly what was meant. */
export function suggest(name: string, candidates: Iterable<string>): string | null {
  const limit = Math.max(SUGGEST.minDistance, Math.floor(name.length * SUGGEST.maxDistanceShare));
  let best: string | null = null;
  let bestDistance = Infinity;
  for (const candidate of candidates) {
    const d = editDistance(name.toLowerCase(), candidate.toLowerCase());
    if (d < bestDistance) {
      best = candidate;
      bestDistance = d;
    }
  }
  return best !== null && bestDistance <= limit ? best : null;
}
