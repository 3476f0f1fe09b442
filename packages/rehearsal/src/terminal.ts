// The rehearsal's stderr during a run: a live progress block (redrawn in place on a
// terminal) and notes (a child's log lines, a cleanup's failure) printed above it. Every
// write goes through here, so a note never lands inside the block, nor is the block's
// redraw aimed at rows a note (or a line wrapped on a narrow terminal) moved.

export interface Out { write(s: string): unknown; isTTY?: boolean; columns?: number }

export class LiveLines {
  /** Terminal rows the block takes now (0: none drawn, or not a terminal). */
  private rows = 0;
  private block: string[] = [];

  constructor(private readonly out: Out) {}

  private get tty(): boolean { return this.out.isTTY === true; }

  private rowsOf(lines: readonly string[]): number {
    const cols = this.out.columns && this.out.columns > 0 ? this.out.columns : 80;
    return lines.reduce((n, l) => n + Math.max(1, Math.ceil(l.length / cols)), 0);
  }

  private erase(): string {
    return this.rows > 0 ? `\x1b[${this.rows}F\x1b[J` : '';
  }

  /** Replaces the progress block (on a terminal, in place; otherwise its lines are printed). */
  progress(lines: readonly string[]): void {
    const text = `${this.erase()}${lines.join('\n')}\n`;
    this.block = [...lines];
    this.rows = this.tty ? this.rowsOf(lines) : 0;
    this.out.write(text);
  }

  /** Prints a line above the block, then the block again under it. */
  note(line: string): void {
    if (!this.tty || this.rows === 0) {
      this.out.write(`${line}\n`);
      return;
    }
    this.out.write(`${this.erase()}${line}\n${this.block.join('\n')}\n`);
  }

  /** The block stays as last drawn; later notes go under it. */
  done(): void {
    this.rows = 0;
    this.block = [];
  }
}

/** The one block on the process's stderr. */
export const stderrLines = new LiveLines(process.stderr);
