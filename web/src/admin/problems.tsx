// What went wrong with a form, shown as a list (role=alert) and beside each field.
import { ApiError } from '../api/client';
import type { FieldError } from './layout';

export interface FormProblem { message: string; errors: FieldError[] }

/** An error thrown by the API client (or anything else) → a message and the field errors it names. */
export function problemOf(e: unknown, fallback: string): FormProblem {
  if (e instanceof ApiError) {
    const errors = (e.problem.errors ?? []).map((x) => ({ path: x.path.replace(/^body:/, ''), message: x.message }));
    return { message: e.problem.detail ?? e.problem.title ?? fallback, errors };
  }
  return { message: fallback, errors: [] };
}

/** The messages of the errors at a path or below it ("/layout/rows/2" holds "/layout/rows/2/tier"). */
export function messagesAt(errors: readonly FieldError[], path: string): string[] {
  return errors.filter((e) => e.path === path || e.path.startsWith(`${path}/`)).map((e) => e.message);
}

export function ProblemList({ problem, id }: { problem: FormProblem | null; id?: string }) {
  if (!problem) return null;
  return (
    <div class="admin-problem" role="alert" id={id}>
      <p>{problem.message}</p>
      {problem.errors.length > 0 && (
        <ul>{problem.errors.map((e) => <li key={`${e.path}:${e.message}`}>{e.path ? <code>{e.path}</code> : null} {e.message}</li>)}</ul>
      )}
    </div>
  );
}

/** The messages for one field, linked to it with aria-describedby={id}. */
export function FieldMessages({ id, messages }: { id: string; messages: string[] }) {
  if (messages.length === 0) return null;
  return <span class="field-error" id={id}>{messages.join(' ')}</span>;
}
