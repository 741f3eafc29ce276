/**
 * Which words of a pet's text a search matched, worked out on the page from `q`: the list's
 * answer says which pets matched, not why (docs/console.md, "The pet list"). An
 * approximation of the service's rules (docs/api.md, "Search, filters and sorts"): words
 * compared by a simple English stem, common words ignored, and a word the pet lacks taken
 * for a typo of its name or breed words spelt alike.
 */

/** PostgreSQL's English stop words (`english.stop`): a search ignores them. */
const STOP_WORDS = new Set(
  (
    'i me my myself we our ours ourselves you your yours yourself yourselves he him his ' +
    'himself she her hers herself it its itself they them their theirs themselves what which ' +
    'who whom this that these those am is are was were be been being have has had having do ' +
    'does did doing a an the and but if or because as until while of at by for with about ' +
    'against between into through during before after above below to from up down in out on ' +
    'off over under again further then once here there when where why how all any both each ' +
    'few more most other some such no nor not only own same so than too very s t can will ' +
    'just don should now'
  ).split(' '),
);

/** The service's similarity threshold for a typo (pg_trgm's `similarity`, docs/api.md). */
const TYPO_SIMILARITY = 0.3;

const WORD = /[\p{L}\p{N}]+/gu;

/** Lower case without accents, as the service compares words (`creme` finds `Crème`). */
function normalized(word: string): string {
  return word.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();
}

/** A rough English stem: enough for `puppies` to meet `puppy` and `friendly` `friend`. */
function stemOf(word: string): string {
  const rules: [RegExp, string][] = [
    [/sses$/, 'ss'],
    [/ies$/, 'i'],
    [/(.{3})(ing|ed|ly)$/, '$1'],
    [/([^aeiou])y$/, '$1i'],
    [/([^su])s$/, '$1'],
  ];
  for (const [suffix, replacement] of rules) {
    if (suffix.test(word)) return word.replace(suffix, replacement);
  }
  return word;
}

/** pg_trgm's trigrams of one word: padded with two spaces before and one after. */
function trigramsOf(word: string): Set<string> {
  const padded = `  ${word} `;
  const trigrams = new Set<string>();
  for (let at = 0; at + 3 <= padded.length; at++) trigrams.add(padded.slice(at, at + 3));
  return trigrams;
}

function similarity(a: string, b: string): number {
  const first = trigramsOf(a);
  const second = trigramsOf(b);
  let shared = 0;
  for (const trigram of first) if (second.has(trigram)) shared++;
  return shared / (first.size + second.size - shared);
}

/** The words a search looks for: not its exclusions (`-word`, `-"a phrase"`) nor `or`. */
function searchedWords(q: string): string[] {
  const words: string[] = [];
  for (const [, excludedPhrase, phrase, token] of q.matchAll(/(-?)"([^"]*)"?|(\S+)/g)) {
    const text = phrase ?? token;
    if (excludedPhrase === '-' || token?.startsWith('-') || token?.toLowerCase() === 'or') {
      continue;
    }
    for (const [word] of text.matchAll(WORD)) {
      const plain = normalized(word);
      if (!STOP_WORDS.has(plain)) words.push(plain);
    }
  }
  return words;
}

/** The pet's text a search may have matched. */
export interface SearchedText {
  name: string;
  breed?: string;
  tags: string[];
  category: string;
  description?: string;
}

/** True for a word of the pet's text that the search matched. */
export type WordMatch = (word: string) => boolean;

/**
 * What a search of `q` matched in one pet's text. A searched word found nowhere by its stem
 * was taken for a typo by the service: the name and breed words spelt like it are marked.
 */
export function matchOf(q: string, pet: SearchedText): WordMatch {
  const stems = new Set(searchedWords(q).map(stemOf));
  if (stems.size === 0) return () => false;
  const texts = [pet.name, pet.breed ?? '', ...pet.tags, pet.category, pet.description ?? ''];
  const petStems = new Set(
    texts.flatMap((text) => [...text.matchAll(WORD)].map(([word]) => stemOf(normalized(word)))),
  );
  const typos = [...stems].filter((stem) => !petStems.has(stem));
  const spelledAlike = new Set(
    [pet.name, pet.breed ?? '']
      .flatMap((text) => [...text.matchAll(WORD)].map(([word]) => normalized(word)))
      .filter((word) => typos.some((typo) => similarity(typo, word) >= TYPO_SIMILARITY)),
  );
  return (word) => {
    const plain = normalized(word);
    return stems.has(stemOf(plain)) || spelledAlike.has(plain);
  };
}

/** Text cut into runs of words that matched and the text between them. */
export function splitByMatch(text: string, match: WordMatch): { text: string; marked: boolean }[] {
  const parts: { text: string; marked: boolean }[] = [];
  let from = 0;
  for (const found of text.matchAll(WORD)) {
    if (!match(found[0])) continue;
    if (found.index > from) parts.push({ text: text.slice(from, found.index), marked: false });
    parts.push({ text: found[0], marked: true });
    from = found.index + found[0].length;
  }
  if (from < text.length) parts.push({ text: text.slice(from), marked: false });
  return parts;
}

/**
 * The part of a description around its first matched word, about `length` characters cut at
 * spaces, with `…` where it was cut; undefined when no word of it matched.
 */
export function excerptOf(text: string, match: WordMatch, length = 140): string | undefined {
  const first = [...text.matchAll(WORD)].find(([word]) => match(word));
  if (!first) return undefined;
  if (text.length <= length) return text;
  const wordEnd = first.index + first[0].length;
  const start = Math.max(0, Math.min(first.index - Math.floor(length / 3), text.length - length));
  const end = start + length;
  // Cut at spaces, never into the matched word.
  const from = start === 0 ? 0 : Math.min(text.indexOf(' ', start) + 1 || start, first.index);
  const to = end >= text.length ? text.length : Math.max(text.lastIndexOf(' ', end), wordEnd);
  return `${from > 0 ? '…' : ''}${text.slice(from, to).trim()}${to < text.length ? '…' : ''}`;
}
