// The sign-in and sign-up form: labelled fields, the API's refusal in words above the
// form (focused, announced), and each VALIDATION_FAILED field error beside its field.
import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError } from '../api/client';
import { problemText } from '../problemText';
import '../styles/checkout.css';

export interface AccountField {
  name: string;
  label: string;
  type: 'email' | 'password' | 'text';
  autocomplete: string;
  hint?: string;
  optional?: boolean;
}

interface Props {
  fields: AccountField[];
  submitLabel: string;
  /** Texts for the error codes this form expects (INVALID_CREDENTIALS, EMAIL_TAKEN). */
  known: Record<string, string>;
  onSubmit(values: Record<string, string>): Promise<void>;
  children?: ComponentChildren;
}

interface Failure { message: string; fields: Record<string, string> }

/** The validator's words for people: 'must NOT have fewer than 8 characters' → 'Use at least 8 characters.' */
function fieldMessage(message: string): string {
  if (/format "email"/.test(message)) return 'Enter an email address, like name@example.com.';
  const fewer = /fewer than (\d+) characters/.exec(message);
  if (fewer) return `Use at least ${fewer[1]} characters.`;
  const more = /more than (\d+) characters/.exec(message);
  if (more) return `Use at most ${more[1]} characters.`;
  return `${message[0]?.toUpperCase() ?? ''}${message.slice(1)}`;
}

function failureOf(e: unknown, known: Record<string, string>, fieldNames: string[]): Failure {
  const fields: Record<string, string> = {};
  if (e instanceof ApiError && e.code === 'VALIDATION_FAILED') {
    for (const err of e.problem.errors ?? []) {
      const name = err.path.replace(/^\//, '');
      if (fieldNames.includes(name)) fields[name] = fieldMessage(err.message);
    }
    const n = Object.keys(fields).length;
    if (n > 0) return { message: n === 1 ? 'Please correct the field below.' : `Please correct the ${n} fields below.`, fields };
  }
  return { message: problemText(e, known), fields };
}

export function AccountForm({ fields, submitLabel, known, onSubmit, children }: Props) {
  const [values, setValues] = useState<Record<string, string>>({});
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<Failure | null>(null);
  const summary = useRef<HTMLDivElement>(null);

  useEffect(() => { if (failure) summary.current?.focus(); }, [failure]);

  async function submit(e: Event) {
    e.preventDefault();
    if (busy) return;
    setBusy(true);
    setFailure(null);
    try {
      await onSubmit(values);
    } catch (err) {
      setFailure(failureOf(err, known, fields.map((f) => f.name)));
    } finally {
      setBusy(false);
    }
  }

  return (
    <form class="account-form" noValidate onSubmit={submit}>
      {failure && (
        <div class="form-error" role="alert" tabIndex={-1} ref={summary}>
          <p>{failure.message}</p>
          {Object.keys(failure.fields).length > 0 && (
            <ul>
              {fields.filter((f) => failure.fields[f.name]).map((f) => (
                <li key={f.name}><a href={`#field-${f.name}`}>{f.label}: {failure.fields[f.name]}</a></li>
              ))}
            </ul>
          )}
        </div>
      )}
      {fields.map((f) => {
        const error = failure?.fields[f.name];
        const described = [f.hint ? `hint-${f.name}` : '', error ? `error-${f.name}` : ''].filter(Boolean).join(' ');
        return (
          <div class="field" key={f.name}>
            <label for={`field-${f.name}`}>{f.label}{f.optional && <span class="muted"> (optional)</span>}</label>
            {f.hint && <p class="hint" id={`hint-${f.name}`}>{f.hint}</p>}
            <input
              id={`field-${f.name}`}
              name={f.name}
              type={f.type as 'text' /* email and password too: preact's union wants one literal */}
              autocomplete={f.autocomplete}
              required={!f.optional}
              aria-invalid={error ? 'true' : undefined}
              aria-describedby={described || undefined}
              value={values[f.name] ?? ''}
              onInput={(e) => setValues({ ...values, [f.name]: e.currentTarget.value })}
            />
            {error && <p class="field-error" id={`error-${f.name}`}>{error}</p>}
          </div>
        );
      })}
      <button type="submit" class="primary" disabled={busy} aria-disabled={busy}>{busy ? 'Please wait…' : submitLabel}</button>
      {children}
    </form>
  );
}
