/**
 * A small deterministic generator for a test's seed data (a property's randomness is
 * fast-check's): `pick(n)` answers 0..n-1, the same sequence for the same seed.
 */
export function seededRandom(seed: number): (n: number) => number {
  let state = seed;
  return (n: number) => {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    return state % n;
  };
}
