// Fairness as a rank correlation: Spearman's ρ between the order buyers queued in
// and whether they got a seat. ρ near -1: earlier places got the seats (fair, a
// first-come queue); near 0: seats went at random regardless of place.

/** Ranks 1..n of the values, ties sharing the mean of their ranks. */
export function ranks(values: readonly number[]): number[] {
  const order = values.map((v, i) => [v, i] as const).sort((a, b) => a[0] - b[0]);
  const out = new Array<number>(values.length);
  for (let i = 0; i < order.length;) {
    let j = i;
    while (j + 1 < order.length && order[j + 1]![0] === order[i]![0]) j++;
    const mean = (i + j) / 2 + 1;
    for (let k = i; k <= j; k++) out[order[k]![1]] = mean;
    i = j + 1;
  }
  return out;
}

/** Spearman's ρ (Pearson's r of the ranks); null when either side is constant or there are fewer than 2 pairs. */
export function spearman(x: readonly number[], y: readonly number[]): number | null {
  if (x.length !== y.length) throw new Error('spearman: x and y differ in length');
  const n = x.length;
  if (n < 2) return null;
  const rx = ranks(x);
  const ry = ranks(y);
  const mean = (n + 1) / 2;
  let sxy = 0;
  let sxx = 0;
  let syy = 0;
  for (let i = 0; i < n; i++) {
    const dx = rx[i]! - mean;
    const dy = ry[i]! - mean;
    sxy += dx * dy;
    sxx += dx * dx;
    syy += dy * dy;
  }
  return sxx === 0 || syy === 0 ? null : sxy / Math.sqrt(sxx * syy);
}
