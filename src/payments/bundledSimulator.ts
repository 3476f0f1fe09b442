// `npm start` without STRIPE_SECRET_KEY runs the bundled payment simulator as its
// own process (own port), pointed at this instance's webhook route.
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

export function startBundledSimulator(opts: { port: number; webhookUrl: string; webhookSecret: string; say: (m: string) => void }): ChildProcess {
  const entry = path.join(path.dirname(fileURLToPath(import.meta.url)), 'simulator', 'main.js');
  const child = spawn(process.execPath, [entry], {
    env: { ...process.env, PAYSIM_PORT: String(opts.port), PAYSIM_WEBHOOK_URL: opts.webhookUrl, PAYSIM_WEBHOOK_SECRET: opts.webhookSecret },
    // The IPC channel closes when this process dies in any way, SIGKILL included,
    // and the simulator then stops (see simulator/main.ts).
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  child.unref();
  child.channel?.unref();
  child.on('exit', (code, signal) => opts.say(`payment simulator exited (${signal ?? code})`));
  // The simulator must not outlive the service that started it.
  process.on('exit', () => child.kill());
  return child;
}
