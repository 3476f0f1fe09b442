// The provider's webhook events as the service took them, by path (duplicate, settled,
// settled_after_pause, read_back), read from its /metrics (boxoffice_webhook_events_total):
// which of them cost one statement and which a read-back from the provider.
export type WebhookPaths = Map<string, number>;

const LINE = /^boxoffice_webhook_events_total\{path="([^"]+)"\} (\S+)$/;

/** The events by path in lines of /metrics already read. */
export function webhookPathsFrom(lines: readonly string[]): WebhookPaths {
  const paths: WebhookPaths = new Map();
  for (const line of lines) {
    const m = LINE.exec(line);
    if (m) paths.set(m[1]!, Number(m[2]));
  }
  return paths;
}

/** later − earlier, path by path (paths with none left out). */
export function webhookPathsBetween(earlier: WebhookPaths, later: WebhookPaths): WebhookPaths {
  const out: WebhookPaths = new Map();
  for (const [path, n] of later) if (n - (earlier.get(path) ?? 0) > 0) out.set(path, n - (earlier.get(path) ?? 0));
  return out;
}
