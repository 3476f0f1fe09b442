// The rehearsal's stderr off a terminal (a pipe, a CI log): whole lines only, each child
// line prefixed with the child's name, the progress block one line at most every few
// seconds (its last state at the end), and nothing that moves a cursor.
import { describe, expect, it } from 'vitest';
import { LiveLines } from '../src/terminal.js';

/** A pipe: records each write; its text is checked line by line. */
function pipe() {
  const writes: string[] = [];
  return { out: { write: (s: string) => writes.push(s) }, writes, lines: () => writes.join('').split('\n').slice(0, -1) };
}

describe('the rehearsal stderr off a terminal', () => {
  it('writes whole lines only, each write ending its last line', () => {
    const p = pipe();
    let now = 0;
    const live = new LiveLines(p.out, { now: () => now, plainEveryMs: 5000 });
    for (let s = 0; s < 30; s++) {
      now = s * 1000;
      live.progress([`onsale ${s} s: sold ${s * 3}`, `  waiting ${100 - s}`]);
      live.note(`{"level":50,"msg":"payment ${s} failed"}\n{"level":30,"msg":"retry"}`, 'paysim');
      live.note(`{"level":40,"msg":"slow ${s}"}`, 'service');
    }
    live.done();
    for (const w of p.writes) expect(w.endsWith('\n'), JSON.stringify(w)).toBe(true);
    const lines = p.lines();
    for (const l of lines) expect(l, l).toMatch(/^(onsale \d+ s: sold \d+ \| waiting \d+|  \[paysim\] \{"level":(50|30),"msg":"[^"]+"\}|  \[service\] \{"level":40,"msg":"slow \d+"\})$/);
    // Every child line printed, each under its own name, none broken.
    expect(lines.filter((l) => l.startsWith('  [paysim] '))).toHaveLength(60);
    expect(lines.filter((l) => l.startsWith('  [service] '))).toHaveLength(30);
  });

  it('prints progress as one line at most every 5 s, then its last state when the run ends', () => {
    const p = pipe();
    let now = 0;
    const live = new LiveLines(p.out, { now: () => now, plainEveryMs: 5000 });
    for (let s = 0; s <= 12; s++) {
      now = s * 1000;
      live.progress([`onsale ${s} s`, `  waiting ${s}`]);
    }
    expect(p.lines()).toEqual(['onsale 0 s | waiting 0', 'onsale 5 s | waiting 5', 'onsale 10 s | waiting 10']);
    live.done();
    expect(p.lines().at(-1)).toBe('onsale 12 s | waiting 12');
    // Nothing held back: done() again prints nothing more.
    live.done();
    expect(p.lines()).toHaveLength(4);
  });

  it('keeps a cursor-moving character out: a child line with a carriage return or an escape stays one plain line', () => {
    const p = pipe();
    const live = new LiveLines(p.out);
    live.progress(['onsale 1 s']);
    live.note('progress 10%\rprogress 100% \x1b[2K done', 'paysim');
    live.note('first\r\nsecond', 'service');
    expect(p.writes.join('')).not.toMatch(/[\r\x1b]/);
    // A lone carriage return ends a line as a newline would: both halves are printed, each prefixed.
    expect(p.lines()).toEqual(['onsale 1 s', '  [paysim] progress 10%', '  [paysim] progress 100% [2K done', '  [service] first', '  [service] second']);
  });

  it('on a terminal, still redraws the block in place (not throttled)', () => {
    const writes: string[] = [];
    const live = new LiveLines({ isTTY: true, columns: 80, write: (s: string) => writes.push(s) }, { now: () => 0 });
    live.progress(['a', 'b']);
    live.progress(['c', 'd']);
    live.note('x', 'paysim');
    expect(writes).toEqual(['a\nb\n', '\x1b[2F\x1b[Jc\nd\n', '\x1b[2F\x1b[J  [paysim] x\nc\nd\n']);
  });
});
