// Undo what a benchmark or a rehearsal set up (child processes, its database) on
// every way out: normal end, a thrown error, Ctrl-C or SIGTERM. Steps run newest first, once.
type Step = { name: string; run: () => Promise<void> | void };
import { stderrLines } from './terminal.js';

const steps: Step[] = [];
let running: Promise<void> | null = null;
let installed = false;

/** Registers an undo step; returns a function that runs it now and unregisters it. */
export function onCleanup(name: string, run: () => Promise<void> | void): () => Promise<void> {
  const step = { name, run };
  steps.push(step);
  return async () => {
    const i = steps.indexOf(step);
    if (i < 0) return;
    steps.splice(i, 1);
    await step.run();
  };
}

/**
 * Runs every registered step, newest first; a failing step does not stop the others.
 * Calls while it runs share the run; a call after it has finished runs the steps
 * registered since (a process that rehearses twice, as the test workers do).
 */
export function cleanup(): Promise<void> {
  running ??= (async () => {
    while (steps.length) {
      const step = steps.pop()!;
      try {
        await step.run();
      } catch (err) {
        stderrLines.note(`cleanup "${step.name}" failed: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
  })().finally(() => {
    running = null;
  });
  return running;
}

/**
 * Runs a benchmark's main function with cleanup on every exit path. A second
 * Ctrl-C while cleaning up exits at once.
 */
export function runBenchmark(main: () => Promise<void>): void {
  if (!installed) {
    installed = true;
    let interrupted = 0;
    const onSignal = (signal: NodeJS.Signals) => {
      interrupted++;
      if (interrupted > 1) process.exit(130);
      stderrLines.note(`${signal}: stopping, cleaning up (press Ctrl-C again to quit at once)`);
      void cleanup().finally(() => process.exit(signal === 'SIGINT' ? 130 : 143));
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
    process.on('SIGHUP', onSignal);
  }
  main().then(
    () => cleanup().then(() => process.exit(process.exitCode ?? 0)),
    (err) => {
      stderrLines.note(`benchmark failed: ${err instanceof Error ? err.stack : String(err)}`);
      void cleanup().finally(() => process.exit(1));
    },
  );
}
