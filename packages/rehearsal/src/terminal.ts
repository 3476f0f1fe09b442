// The rehearsal's stderr during a run: a live progress block and notes (a child's log
// lines, a cleanup's failure). Every write goes through here and is whole lines.
// On a terminal the block is redrawn in place and notes are printed above it, so a note
// never lands inside the block, nor is the block's redraw aimed at rows a note (or a line
// wrapped on a narrow terminal) moved. Off a terminal (a pipe, a CI log, a file) nothing
// is redrawn: the block becomes one line, printed at most every `plainEveryMs` (its last
// state when the run ends), and each note line is printed whole, a child's prefixed with
// its name, so a log reader can tell them apart and grep either.

export interface Out { write(s: string): unknown; isTTY?: boolean; columns?: number }

export interface LiveLinesOptions {
  /** Off a terminal, the least time between two progress lines (default 5 s). */
  plainEveryMs?: number;
  now?: () => number;
}

/** Control characters (a carriage return, an escape sequence's ESC) would move the cursor: dropped. Tabs stay. */
const CONTROL = /[\x00-\x08\x0b-\x1f\x7f]/g;
const clean = (s: string) => s.replace(CONTROL, '');

/** A text of one or more lines, split into lines without their ends. */
const linesOf = (text: string) => text.replace(/\r\n?/g, '\n').split('\n').map(clean);

export class LiveLines {
  /** Terminal rows the block takes now (0: none drawn, or not a terminal). */
  private rows = 0;
  private block: string[] = [];
  /** Off a terminal: when the last progress line was printed, and the one held back since. */
  private lastPlainAt = -Infinity;
  private pending: string | null = null;
  private readonly plainEveryMs: number;
  private readonly now: () => number;

  constructor(private readonly out: Out, o: LiveLinesOptions = {}) {
    this.plainEveryMs = o.plainEveryMs ?? 5000;
    this.now = o.now ?? Date.now;
  }

  private get tty(): boolean { return this.out.isTTY === true; }

  private rowsOf(lines: readonly string[]): number {
    const cols = this.out.columns && this.out.columns > 0 ? this.out.columns : 80;
    return lines.reduce((n, l) => n + Math.max(1, Math.ceil(l.length / cols)), 0);
  }

  private erase(): string {
    return this.rows > 0 ? `\x1b[${this.rows}F\x1b[J` : '';
  }

  /**
   * Replaces the progress block: on a terminal, in place; otherwise as one line
   * (its lines joined by " | "), at most every `plainEveryMs`, the latest kept for done().
   */
  progress(lines: readonly string[]): void {
    const cleaned = lines.flatMap(linesOf);
    if (!this.tty) {
      const line = cleaned.map((l) => l.trim()).filter((l) => l !== '').join(' | ');
      const now = this.now();
      if (now - this.lastPlainAt >= this.plainEveryMs) {
        this.lastPlainAt = now;
        this.pending = null;
        this.out.write(`${line}\n`);
      } else {
        this.pending = line;
      }
      return;
    }
    const text = `${this.erase()}${cleaned.join('\n')}\n`;
    this.block = cleaned;
    this.rows = this.rowsOf(cleaned);
    this.out.write(text);
  }

  /**
   * Prints a note (each of its lines, prefixed `  [from] ` when it came from a child)
   * above the block, then the block again under it; in one write, so whole.
   */
  note(text: string, from?: string): void {
    const lines = linesOf(text).map((l) => (from === undefined ? l : `  [${from}] ${l}`));
    if (!this.tty || this.rows === 0) {
      this.out.write(`${lines.join('\n')}\n`);
      return;
    }
    this.out.write(`${this.erase()}${lines.join('\n')}\n${this.block.join('\n')}\n`);
  }

  /** The block stays as last drawn (off a terminal, its last state is printed); later notes go under it. */
  done(): void {
    if (this.pending !== null) {
      this.out.write(`${this.pending}\n`);
      this.pending = null;
    }
    this.lastPlainAt = -Infinity;
    this.rows = 0;
    this.block = [];
  }
}

/** The one block on the process's stderr. */
export const stderrLines = new LiveLines(process.stderr);
