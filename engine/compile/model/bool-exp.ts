import type { BoolExp } from './model-types';

/** The expression every row satisfies: no filter. */
export const TRUE: BoolExp = { kind: 'true' };

/** The conjunction of `items`, leaving out TRUE ones (so that no filter adds no SQL). */
export function and(...items: BoolExp[]): BoolExp {
  const kept = items.filter((i) => i.kind !== 'true');
  if (kept.length === 0) return TRUE;
  return kept.length === 1 ? kept[0] : { kind: 'and', items: kept };
}
