// Typed access to the items a test expects to be there. An absent one fails the test in words
// here, rather than as "cannot read properties of undefined" lines later, and the type checker
// knows the item is there after the call (the tests are checked with noUncheckedIndexedAccess).

/**
 * `xs[i]`, failing when there is no such item (a negative `i` too, as a findIndex that found
 * nothing gives); `what` names the list in the failure.
 */
export function at<T>(xs: readonly T[], i: number, what = 'list'): T {
  if (!Number.isInteger(i) || i < 0 || i >= xs.length) throw new Error(`${what}: no item ${i} among ${xs.length}`);
  return xs[i] as T;
}

/** `xs` with at least one item, typed so (`const [first] = nonEmpty(xs)`); fails when empty. */
export function nonEmpty<T>(xs: readonly T[], what = 'list'): readonly [T, ...T[]] {
  if (xs.length === 0) throw new Error(`${what}: empty`);
  return xs as readonly [T, ...T[]];
}
