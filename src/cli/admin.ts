// `npm run admin -- create EMAIL`: makes an admin account (or makes an existing
// account admin with a new password) on the configured database. The password is
// asked for on the terminal without echo, or read as the first line of standard
// input when that is not a terminal (for scripts); it is never a command argument,
// so it stays out of shell history and process lists.
import { createInterface } from 'node:readline/promises';
import { Writable } from 'node:stream';
import { adminSummary, ensureDemoAdmin, setAdmin } from '../app/accounts.js';
import type { Context } from '../app/context.js';
import { moveShowTo } from '../app/showMoves.js';
import type { Service } from '../service.js';

const USAGE = 'usage: npm run admin -- create EMAIL | move-show SHOW_ID SHARD';

async function readStdinLine(): Promise<string> {
  let text = '';
  for await (const chunk of process.stdin) {
    text += String(chunk);
    if (text.includes('\n')) break;
  }
  return text.split(/\r?\n/)[0] ?? '';
}

async function askHidden(questions: string[]): Promise<string[]> {
  let muted = false;
  const output = new Writable({
    write(chunk, encoding, done) {
      if (!muted) process.stdout.write(chunk, encoding);
      done();
    },
  });
  const rl = createInterface({ input: process.stdin, output, terminal: true });
  const answers: string[] = [];
  try {
    for (const q of questions) {
      process.stdout.write(q);
      muted = true;
      answers.push(await rl.question(''));
      muted = false;
      process.stdout.write('\n');
    }
  } finally {
    rl.close();
  }
  return answers;
}

/** The password from the terminal (asked twice, not echoed) or from the first line of standard input. */
async function readPassword(email: string): Promise<string> {
  if (!process.stdin.isTTY) return readStdinLine();
  const [first, again] = await askHidden([`password for ${email}: `, 'the same password again: ']);
  if (first !== again) throw new Error('the two passwords differ; nothing changed');
  return first!;
}

export async function adminCommand(
  service: Pick<Service, 'ctx'>,
  args: string[],
  say: (m: string) => void,
  password: (email: string) => Promise<string> = readPassword,
): Promise<void> {
  const [action, email] = args;
  if (action === 'move-show') {
    // `npm run move-show -- SHOW_ID SHARD`: the same move as POST /v1/admin/shows/{id}/move.
    const [, showId, shard] = args;
    if (!showId || !shard) throw new Error(USAGE);
    say(`moving show ${showId} to shard ${shard}: its purchase routes pause until it is done`);
    const m = await moveShowTo(service.ctx, showId, shard);
    say(`show ${m.show_id} sells from shard ${m.shard} now (placement epoch ${m.epoch}); its purchase routes paused ${m.paused_ms} ms`);
    return;
  }
  if (action !== 'create' || !email) throw new Error(USAGE);
  await setAdmin(service.ctx, email, await password(email));
  say(`${email} is an admin now; sign in with POST /v1/sessions`);
}

/**
 * How to get in as an operator: the demo credential once, otherwise who the
 * admins are (never a password). The credential goes to `show` (the
 * terminal), never to `say` (the log): passwords never reach a log line.
 */
export async function announceAdmins(ctx: Context, say: (m: string) => void, show: (m: string) => void = say): Promise<void> {
  const demo = await ensureDemoAdmin(ctx);
  if (demo) {
    say(`demo admin ${demo.email} created; its password is printed once on the terminal, never logged`);
    show('');
    show('  DEMO CREDENTIAL (shown this once; for trying boxoffice on this machine only)');
    show(`    admin e-mail:    ${demo.email}`);
    show(`    admin password:  ${demo.password}`);
    show('    make real admins with: npm run admin -- create EMAIL');
    show('');
    return;
  }
  const { configured, admins } = await adminSummary(ctx);
  if (configured) say(`admin account ${configured} is ready (BOXOFFICE_ADMIN_EMAIL)`);
  else if (admins > 0) say(`${admins} admin account${admins === 1 ? '' : 's'} exist${admins === 1 ? 's' : ''} (npm run admin -- create EMAIL makes another)`);
  else say('no admin account yet: npm run admin -- create EMAIL');
}

