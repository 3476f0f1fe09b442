// The rehearsal's pure parts: rank correlation, chart scaling and ticks, seat choice, options.
import { describe, expect, it } from 'vitest';
import { seededRandom } from '@boxoffice/paysim';
import { legendLayout, lineChart, niceTicks, scale } from '../src/chart.js';
import { LiveLines } from '../src/terminal.js';
import { QueueEdge } from '../src/edge.js';
import { dispatchArrivals } from '../src/buyer.js';
import { ownLoopLine } from '../src/report.js';
import { Recorder } from '../src/recorder.js';
import type { BuyerHttp } from '../src/http.js';
import { parseOptions } from '../src/options.js';
import { ranks, spearman } from '../src/rankCorrelation.js';
import { chooseSeats, chooseSection, rankSeats, type MapSeat } from '../src/seatChoice.js';
import { hallLayout, rowName } from '../src/setup.js';

describe('Spearman rank correlation', () => {
  it('ranks ties by their mean rank', () => {
    expect(ranks([10, 20, 20, 5])).toEqual([2, 3.5, 3.5, 1]);
  });
  it('is 1 for a monotone relation, -1 for a reversed one, and matches a worked example', () => {
    expect(spearman([1, 2, 3, 4], [10, 100, 1000, 10_000])).toBeCloseTo(1);
    expect(spearman([1, 2, 3, 4], [4, 3, 2, 1])).toBeCloseTo(-1);
    // d = (0, 1, -1, 0, 0): ρ = 1 - 6·2 / (5·24) = 0.9
    expect(spearman([1, 2, 3, 4, 5], [1, 3, 2, 4, 5])).toBeCloseTo(0.9);
  });
  it('is negative when the first in the queue got the seats, null when nothing varies', () => {
    const positions = Array.from({ length: 100 }, (_, i) => i + 1);
    expect(spearman(positions, positions.map((p) => (p <= 30 ? 1 : 0)))!).toBeLessThan(-0.6);
    expect(spearman(positions, positions.map(() => 1))).toBeNull();
  });
});

describe('the SVG chart', () => {
  it('scales linearly, and a zero-width domain to the range start', () => {
    const s = scale([0, 100], [50, 850]);
    expect(s(0)).toBe(50);
    expect(s(50)).toBe(450);
    expect(s(100)).toBe(850);
    expect(scale([3, 3], [10, 20])(3)).toBe(10);
  });
  it('puts ticks at round steps covering the data', () => {
    expect(niceTicks(0, 100, 5)).toEqual([0, 20, 40, 60, 80, 100]);
    expect(niceTicks(0, 57, 5)).toEqual([0, 20, 40, 60]);
    expect(niceTicks(0, 0.7, 4)).toEqual([0, 0.2, 0.4, 0.6, 0.8]);
    const t = niceTicks(3, 1234, 6);
    expect(t[0]).toBeLessThanOrEqual(3);
    expect(t.at(-1)).toBeGreaterThanOrEqual(1234);
  });
  it('draws one polyline per series inside the plot, with escaped labels', () => {
    const svg = lineChart({ title: 'a < b', xLabel: 's', yLabel: 'n', y2Label: 'ms', width: 400, height: 300, series: [
      { name: 'sold', points: [[0, 0], [10, 100]] }, { name: 'latency', axis: 'right', points: [[0, 5], [10, 50]] },
    ] });
    expect(svg).toContain('a &lt; b');
    expect(svg.match(/<polyline/g)).toHaveLength(2);
    // (0, 0) at the plot's bottom-left corner (margins 70 and 50), (10, 100) at its top-right.
    expect(svg).toContain('points="70.0,250.0 330.0,40.0"');
  });
});

describe('seat choice', () => {
  const map: MapSeat[] = ['A', 'B', 'C'].flatMap((row) => Array.from({ length: 10 }, (_, i) => ({ seat: `${row}${i + 1}`, row, number: i + 1, status: 'available' })));
  it('ranks the front rows and the middle first, and drops seats that are not available', () => {
    const ranked = rankSeats(map.map((s) => (s.seat === 'A5' ? { ...s, status: 'held' } : s)));
    expect(ranked[0]!.seat).toBe('A6');
    expect(ranked.some((s) => s.seat === 'A5')).toBe(false);
    expect(ranked.at(-1)!.row).toBe('C');
  });
  it('chooses adjacent seats in one row, biased to the best, repeatably for a seed', () => {
    const ranked = rankSeats(map);
    const a = chooseSeats(ranked, 3, seededRandom(7));
    expect(a).toEqual(chooseSeats(ranked, 3, seededRandom(7)));
    expect(new Set(a.map((s) => s[0])).size).toBe(1);
    const numbers = a.map((s) => Number(s.slice(1))).sort((x, y) => x - y);
    expect(numbers[2]! - numbers[0]!).toBe(2);
    const rows = Array.from({ length: 500 }, (_, i) => chooseSeats(ranked, 1, seededRandom(i))[0]![0]);
    expect(rows.filter((r) => r === 'A').length).toBeGreaterThan(rows.filter((r) => r === 'C').length);
  });
  it('fills from other rows when a row has too few seats; a section needs room for the group', () => {
    expect(chooseSeats(rankSeats(map.filter((s) => s.seat === 'A1' || s.row === 'B')), 2, seededRandom(1))).toHaveLength(2);
    expect(chooseSection([{ section: '101', available: 1 }, { section: '102', available: 4 }], 3, seededRandom(1))).toBe('102');
    expect(chooseSection([{ section: '101', available: 0 }], 1, seededRandom(1))).toBeNull();
  });
});

describe('rehearsal setup and options', () => {
  it('names rows past Z and lays out a stadium in sections of 1,000', () => {
    expect([rowName(0), rowName(25), rowName(26), rowName(27)]).toEqual(['A', 'Z', 'AA', 'AB']);
    const stadium = hallLayout(60_000, true);
    expect(stadium.reduce((n, r) => n + r.seats, 0)).toBe(60_000);
    expect(new Set(stadium.map((r) => r.section)).size).toBe(60);
    expect(hallLayout(210, false).reduce((n, r) => n + r.seats, 0)).toBe(210);
  });
  it('takes a preset and overrides it, and refuses bad values', () => {
    const o = parseOptions(['--preset', 'stadium', '--buyers', '500', '--seed', '3', '--chaos'], {});
    expect([o.buyers, o.seats, o.waitingRoom, o.seed, o.chaos]).toEqual([500, 60_000, true, 3, true]);
    expect(() => parseOptions(['--preset', 'opera'], {})).toThrow(/--preset/);
    expect(() => parseOptions(['--decline-rate', '2'], {})).toThrow(/decline-rate/);
    expect(() => parseOptions(['--url', 'http://127.0.0.1:3000'], {})).toThrow(/admin-email/);
  });
  it('sends a share of the buyers who find a show sold out to its waiting list: half in a stadium, none in a cinema', () => {
    expect(parseOptions(['--preset', 'stadium'], {}).waitlistRate).toBe(0.5);
    expect(parseOptions(['--preset', 'cinema'], {}).waitlistRate).toBe(0);
    expect(parseOptions(['--preset', 'cinema', '--waitlist', '0.25'], {}).waitlistRate).toBe(0.25);
    expect(() => parseOptions(['--waitlist', '1.5'], {})).toThrow(/--waitlist/);
  });
  it('keeps the latest lapse of a hold walked away from: the show cannot sell out before it', () => {
    const rec = new Recorder();
    expect(rec.lastLapseAt).toBeNull();
    rec.lapses(120_000);
    rec.lapses(30_000);
    expect(rec.lastLapseAt! - rec.startedAt).toBeGreaterThanOrEqual(120_000);
    expect(rec.lastLapseAt! - rec.startedAt).toBeLessThan(121_000);
  });
  it('leaves the chaos of a simulator it did not start alone unless --chaos says otherwise', () => {
    const running = ['--url', 'http://127.0.0.1:3000', '--admin-email', 'a@b.c', '--admin-password', 'password', '--paysim-url', 'http://127.0.0.1:12111'];
    expect(parseOptions(['--preset', 'small'], {}).chaos).toBe(true);
    expect(parseOptions(['--preset', 'small', ...running], {}).chaos).toBe(false);
    expect(parseOptions(['--preset', 'small', '--chaos', ...running], {}).chaos).toBe(true);
  });
});

describe('the queue edge', () => {
  it('wakes waiters in position order as serving grows, and all of them once sold out', async () => {
    const edge = new QueueEdge(null as unknown as BuyerHttp, 'shw_1');
    const woken: string[] = [];
    const waits = [5, 1, 3, 9].map((p) => edge.waitTurn(p).then((t) => woken.push(`${p}:${t}`)));
    edge.update({ serving: 3, waiting: 10, admit_rate_per_minute: 60, paused: false, sold_out: false });
    await new Promise((r) => setTimeout(r, 0));
    expect(woken).toEqual(['1:turn', '3:turn']);
    edge.update({ serving: 4, waiting: 8, admit_rate_per_minute: 60, paused: false, sold_out: true });
    await Promise.all(waits);
    expect(woken).toEqual(['1:turn', '3:turn', '5:sold_out', '9:sold_out']);
  });
  it('sends everyone still waiting home when the sale ends, and later callers at once', async () => {
    const edge = new QueueEdge(null as unknown as BuyerHttp, 'shw_1');
    const waiting = [edge.waitTurn(7), edge.waitTurn(2)];
    edge.stop();
    expect(await Promise.all(waiting)).toEqual(['ended', 'ended']);
    expect(await edge.waitTurn(1)).toBe('ended');
  });
});

describe('the legend of a chart with many series', () => {
  it('lays the latency chart\'s entries by their widths, wrapping rather than overlapping', () => {
    const names = ['queue join', 'admit', 'sections', 'map', 'hold', 'booking', 'booking status', 'release', 'browse'];
    const width = 860 - 140 - 20;
    const at = legendLayout(names, width);
    const right = (i: number) => at[i]!.x + 22 + names[i]!.length * 7.2;
    for (let i = 0; i < names.length; i++) {
      expect(right(i)).toBeLessThanOrEqual(width);
      const next = at[i + 1];
      if (next && next.line === at[i]!.line) expect(next.x).toBeGreaterThan(right(i));
    }
    expect(Math.max(...at.map((a) => a.line))).toBeGreaterThan(0);
    // The plot starts below the legend's last line.
    const svg = lineChart({ title: 'p99', xLabel: 's', yLabel: 'ms', series: names.map((name, i) => ({ name, points: [[0, i], [10, i + 1]] })) });
    const frame = /<rect x="70" y="(\d+)"/.exec(svg)!;
    const legendYs = [...svg.matchAll(/<text x="[\d.]+" y="(\d+)">(?:queue join|admit|sections|map|hold|booking|booking status|release|browse)</g)].map((m) => Number(m[1]));
    expect(legendYs).toHaveLength(9);
    expect(Math.max(...legendYs)).toBeLessThan(Number(frame[1]));
  });
});

describe('the live progress block and the lines printed above it', () => {
  /** A small terminal: applies text, newlines, "\x1b[nF" (n rows up, column 0) and "\x1b[J" (clear below). */
  function terminal(columns: number) {
    const screen: string[] = [''];
    let row = 0;
    const out = {
      isTTY: true, columns,
      write(s: string) {
        for (const part of s.split(/(\x1b\[\d*F|\x1b\[J|\n)/)) {
          if (part === '\n') { row++; if (screen.length <= row) screen.push(''); continue; }
          const up = /^\x1b\[(\d*)F$/.exec(part);
          if (up) { row = Math.max(0, row - Number(up[1] || 1)); continue; }
          if (part === '\x1b[J') { screen.length = row + 1; screen[row] = ''; continue; }
          // Text wraps at the terminal's width.
          for (let k = 0; k < part.length; k += columns) {
            if (k > 0) { row++; if (screen.length <= row) screen.push(''); }
            screen[row] = (screen[row] ?? '') + part.slice(k, k + columns);
          }
        }
      },
    };
    return { out, screen: () => screen.filter((l, i) => l !== '' || i < screen.length - 1) };
  }

  it('keeps child lines whole above the block, however long, and the block once at the bottom', () => {
    const term = terminal(40);
    const live = new LiveLines(term.out);
    live.progress(['onsale 1 s: sold 0', '  waiting 5']);
    live.note(`  [paysim] {"level":50,"msg":"${'x'.repeat(60)}"}`);
    live.progress(['onsale 2 s: sold 3', '  waiting 4']);
    live.note('  [service] a short line');
    live.progress(['onsale 3 s: sold 9', '  waiting 1']);
    const lines = term.screen();
    expect(lines.filter((l) => l.startsWith('onsale'))).toEqual(['onsale 3 s: sold 9']);
    expect(lines.slice(-2)).toEqual(['onsale 3 s: sold 9', '  waiting 1']);
    expect(lines.join('')).toContain(`  [paysim] {"level":50,"msg":"${'x'.repeat(60)}"}`);
    expect(lines.join('\n')).toContain('  [service] a short line');
  });

  it('prints plain lines when stderr is not a terminal (the block as one line; see terminal.test.ts)', () => {
    const written: string[] = [];
    const live = new LiveLines({ write: (s: string) => written.push(s) });
    live.progress(['a', 'b']);
    live.note('n');
    expect(written.join('')).toBe('a | b\nn\n');
  });
});

describe('the buyers\' arrivals and their own loop', () => {
  it('starts each buyer no sooner than its arrival, in arrival order, ranked by it, and waits for all', async () => {
    const arrivals = [60, 0, 30, 30, 90];
    const started: { index: number; rank: number; at: number }[] = [];
    let finished = 0;
    const t0 = performance.now();
    await dispatchArrivals(arrivals, async (index, rank) => {
      started.push({ index, rank, at: performance.now() - t0 });
      await new Promise((r) => setTimeout(r, 20));
      finished++;
    });
    expect(finished).toBe(5);
    expect(started.map((s) => s.index)).toEqual([1, 2, 3, 0, 4]);
    expect(started.map((s) => s.rank)).toEqual([1, 2, 3, 4, 5]);
    for (const s of started) expect(s.at).toBeGreaterThanOrEqual(arrivals[s.index]! - 1);
  });
  it('records a stall of the buyers\' loop in the second it happened', async () => {
    const rec = new Recorder();
    rec.watchOwnLoop();
    await new Promise((r) => setTimeout(r, 1100));
    const blockedAt = rec.second();
    const until = performance.now() + 300;
    while (performance.now() < until);
    await new Promise((r) => setTimeout(r, 1100));
    rec.stopWatchingOwnLoop();
    // Charged to the reading window the block fell in: that second, or the one before if the reading was late.
    const worst = rec.ownStallMs.indexOf(Math.max(...rec.ownStallMs));
    expect(rec.ownStallMs[worst]!).toBeGreaterThanOrEqual(250);
    expect([blockedAt - 1, blockedAt]).toContain(worst);
  });
  it('reports the longest stall of the buyers\' loop and the seconds over 100 ms and 1 s', () => {
    expect(ownLoopLine([0, 250, 1400, 20])).toContain('late by at most 1,400 ms (second 2); seconds with a stall over 100 ms: 2, over 1 s: 1');
    expect(ownLoopLine([])).toContain('not watched');
  });
});
