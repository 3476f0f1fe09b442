// Sign in, then back to where the buyer was going (`?next=`, a path on this site).
import { useLocation } from 'preact-iso';
import { api, ApiError, session } from '../api/client';
import { AccountForm } from '../components/AccountForm';
import { safeNext } from '../nextPath';

/**
 * The service checks sign-up's 8-character rule on sign-in too, but a password that
 * breaks it is just a wrong password here: it is answered as one, and only what is
 * wrong with the email is reported as a field to correct.
 */
function asWrongPassword(e: unknown): unknown {
  if (!(e instanceof ApiError) || e.code !== 'VALIDATION_FAILED') return e;
  const errors = (e.problem.errors ?? []).filter((err) => err.path !== '/password');
  if (errors.length === (e.problem.errors ?? []).length) return e;
  if (errors.length > 0) return new ApiError({ ...e.problem, errors }, e.retryAfterSeconds);
  return new ApiError({ status: 401, code: 'INVALID_CREDENTIALS', title: 'Invalid credentials' }, null);
}

export function SignIn() {
  const loc = useLocation();
  const next = safeNext(loc.query.next);
  const withNext = next === '/' ? '' : `?next=${encodeURIComponent(next)}`;
  return (
    <section class="narrow">
      <h1>Sign in</h1>
      <AccountForm
        submitLabel="Sign in"
        fields={[
          { name: 'email', label: 'Email', type: 'email', autocomplete: 'username' },
          { name: 'password', label: 'Password', type: 'password', autocomplete: 'current-password' },
        ]}
        known={{ INVALID_CREDENTIALS: 'The email or the password is wrong.' }}
        onSubmit={async (v) => {
          const s = await api.signIn(v.email ?? '', v.password ?? '').catch((e: unknown) => { throw asWrongPassword(e); });
          session.set(s);
          loc.route(next, true);
        }}
      >
        <p>New here? <a href={`/signup${withNext}`}>Create an account</a></p>
      </AccountForm>
    </section>
  );
}
