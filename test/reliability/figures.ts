// Counters the reliability suite prints when it ends, so CI logs show what was proven:
// trials, acknowledged events, lost events (must be 0), faults tried, inputs fuzzed.
export const figures = {
  trials: 0,
  acknowledged: 0,
  lost: 0,
  faults: 0,
  hostileFiles: 0,
  escapes: 0,
  fuzzed: 0,
  modesChecked: 0,
};

export function printFigures(suite: string): void {
  const f = figures;
  process.stdout.write(
    `\n[reliability] ${suite}: trials=${f.trials} acknowledged=${f.acknowledged} lost=${f.lost} ` +
      `faults=${f.faults} hostile-files=${f.hostileFiles} escapes=${f.escapes} fuzzed=${f.fuzzed} modes=${f.modesChecked}\n`,
  );
}
