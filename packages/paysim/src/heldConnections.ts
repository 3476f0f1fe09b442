// Answers that are lost on the way back: the outcome is committed, and the
// connection that asked is kept open without a byte of answer until the client
// gives up (its timeout closes the socket). Held sockets are released when the
// client leaves, after a ceiling, or when the simulator closes.
import type { FastifyReply } from 'fastify';
import type { ServerResponse } from 'node:http';

export class HeldConnections {
  private readonly held = new Set<ServerResponse>();

  constructor(private readonly maxHoldMs: number) {}

  hold(reply: FastifyReply): void {
    // Fastify must not answer either: from here on the raw response is ours.
    reply.hijack();
    const res = reply.raw;
    this.held.add(res);
    // A client that never gives up would pin the socket forever; drop it, still without an answer.
    const ceiling = setTimeout(() => res.destroy(), this.maxHoldMs);
    ceiling.unref();
    res.once('close', () => {
      clearTimeout(ceiling);
      this.held.delete(res);
    });
  }

  get size(): number {
    return this.held.size;
  }

  /** Closes every held socket (without answering), so a server close does not wait for them. */
  releaseAll(): void {
    for (const res of this.held) res.destroy();
    this.held.clear();
  }
}
