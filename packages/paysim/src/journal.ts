// The books on disk, as a bank keeps them: every committed change is one JSON line
// appended to <dir>/books.jsonl before its answer leaves, and replayed at start
// (the last line for an id wins). A kill -9 can only tear the last line, which
// replay drops: that change was never answered. The file is compacted (the live
// records written to a temporary file, fsynced, renamed over it) at every start and
// whenever it has grown to several lines per live record, so its size follows the books.
// Appends are not fsynced one by one: they survive the process being killed, not the
// machine losing power — enough for a simulator, and a payment path without a disk wait.
import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs';
import path from 'node:path';
import type { PaymentIntent, Refund, StripeEvent } from './objects.js';
import type { SavedAnswer } from './idempotency.js';

/** One committed change. `key` is an idempotency key's saved answer (`id` is the API key and the key). */
export type BookEntry =
  | { kind: 'payment_intent'; value: PaymentIntent }
  | { kind: 'refund'; value: Refund }
  | { kind: 'event'; value: StripeEvent }
  | { kind: 'charge'; value: { id: string; payment_intent: string } }
  | { kind: 'key'; value: { id: string; fingerprint: string; answer: SavedAnswer; createdAt: number } };

const KINDS = new Set<string>(['payment_intent', 'refund', 'event', 'charge', 'key']);
/** Compaction waits for at least this many lines, so a small book is not rewritten on every change. */
const MIN_LINES_BEFORE_COMPACTION = 10_000;

export class BooksFileError extends Error {}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * One simulator per folder: a second one's compaction would replace the file under
 * the first, whose later appends would go to the replaced one and be lost. A lock
 * file names the owner's pid; one left by a dead process is taken over. Returns the release.
 */
function lockFolder(dir: string): () => void {
  const file = path.join(dir, 'books.lock');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(file, 'wx');
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return () => rmSync(file, { force: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const owner = Number(readFileSync(file, 'utf8'));
      if (Number.isInteger(owner) && owner > 0 && owner !== process.pid && alive(owner)) {
        throw new BooksFileError(`the payment simulator's books in ${dir} are in use by process ${owner}; stop it first, or give this one another folder`);
      }
      rmSync(file, { force: true });
    }
  }
  throw new BooksFileError(`could not lock ${dir}`);
}

function parseLine(line: string): BookEntry | null {
  try {
    const entry = JSON.parse(line) as BookEntry;
    return KINDS.has(entry?.kind) && typeof entry.value === 'object' && entry.value !== null ? entry : null;
  } catch {
    return null;
  }
}

export class Journal {
  private fd: number | null = null;
  private lines = 0;
  private unlock: () => void = () => {};

  private constructor(readonly file: string, private readonly live: () => Iterable<BookEntry>) {}

  /**
   * Reads the books in `dir` (created when missing), hands every entry to `replay`
   * in the order written, then compacts the file to what `live` yields afterwards.
   */
  static open(dir: string, replay: (entry: BookEntry) => void, live: () => Iterable<BookEntry>): Journal {
    mkdirSync(dir, { recursive: true });
    const journal = new Journal(path.join(dir, 'books.jsonl'), live);
    const unlock = lockFolder(dir);
    try {
      journal.read(replay);
      journal.compact();
    } catch (err) {
      unlock();
      throw err;
    }
    journal.unlock = unlock;
    return journal;
  }

  private read(replay: (entry: BookEntry) => void): void {
    if (existsSync(this.file)) {
      const lines = readFileSync(this.file, 'utf8').split('\n');
      // A complete file ends with a newline: the last element is '' or the torn tail of a killed write.
      const tail = lines.pop() ?? '';
      lines.forEach((line, i) => {
        const entry = parseLine(line);
        if (entry === null) throw new BooksFileError(`${this.file} line ${i + 1} is not a record of the payment simulator's books; move the file away to start with empty books`);
        replay(entry);
      });
      const last = tail === '' ? null : parseLine(tail);
      if (last !== null) replay(last);
    }
  }

  /** Appends one change; returns once the operating system has it (it survives this process dying). */
  append(entry: BookEntry): void {
    if (this.fd === null) throw new Error('the payment simulator\'s books are closed');
    writeSync(this.fd, `${JSON.stringify(entry)}\n`);
    this.lines++;
  }

  /** Compacts when the file holds several lines per live record; `liveCount` is what the books hold now. */
  compactIfLarge(liveCount: number): void {
    if (this.lines > Math.max(MIN_LINES_BEFORE_COMPACTION, 3 * liveCount)) this.compact();
  }

  close(): void {
    this.closeFile();
    this.unlock();
    this.unlock = () => {};
  }

  private closeFile(): void {
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
  }

  /** Writes the live records beside the file, fsyncs, renames over it: a crash leaves the old file or the new, never a mix. */
  private compact(): void {
    const temporary = `${this.file}.tmp`;
    const fd = openSync(temporary, 'w');
    let count = 0;
    try {
      let chunk = '';
      for (const entry of this.live()) {
        chunk += `${JSON.stringify(entry)}\n`;
        count++;
        if (chunk.length > 1 << 20) {
          writeSync(fd, chunk);
          chunk = '';
        }
      }
      if (chunk !== '') writeSync(fd, chunk);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temporary, this.file);
    const dir = openSync(path.dirname(this.file), 'r');
    try {
      fsyncSync(dir); // the rename itself, on disk
    } finally {
      closeSync(dir);
    }
    this.closeFile();
    this.fd = openSync(this.file, 'a');
    this.lines = count;
  }
}
