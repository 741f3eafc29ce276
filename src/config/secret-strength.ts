/** Shortest secret accepted for signing tokens. */
export const SECRET_MIN_LENGTH = 32;
/** Least estimated entropy, in bits, by {@link estimatedEntropyBits}. */
export const SECRET_MIN_ENTROPY_BITS = 64;

/**
 * A deliberately low estimate of a secret's entropy: the Shannon entropy of its character
 * frequencies times the number of distinct adjacent pairs (plus one), so that a repeated
 * character or a repeated short pattern counts about once however long it is. It catches
 * weak secrets; any random secret of 32 characters or more (hex included) scores well above
 * the minimum.
 */
export function estimatedEntropyBits(secret: string): number {
  const chars = [...secret];
  const counts = new Map<string, number>();
  for (const char of chars) counts.set(char, (counts.get(char) ?? 0) + 1);
  let bitsPerChar = 0;
  for (const count of counts.values()) {
    const p = count / chars.length;
    bitsPerChar -= p * Math.log2(p);
  }
  const pairs = new Set<string>();
  for (let i = 1; i < chars.length; i++) pairs.add(chars[i - 1] + chars[i]);
  return bitsPerChar * (pairs.size + 1);
}

/** Why a signing secret is too weak, or undefined when it is strong enough. */
export function secretWeakness(secret: string): string | undefined {
  if ([...secret].length < SECRET_MIN_LENGTH) {
    return `must be at least ${SECRET_MIN_LENGTH} characters long`;
  }
  if (estimatedEntropyBits(secret) < SECRET_MIN_ENTROPY_BITS) {
    return 'is too predictable (a repeated character or pattern): use a random value such as `openssl rand -base64 32`';
  }
  return undefined;
}
