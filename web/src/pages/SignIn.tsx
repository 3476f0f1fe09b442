// Sign in, then back to where the buyer was going (`?next=`, a path on this site).
import { useLocation } from 'preact-iso';
import { api, session } from '../api/client';
import { AccountForm } from '../components/AccountForm';
import { safeNext } from '../nextPath';

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
          const s = await api.signIn(v.email ?? '', v.password ?? '');
          session.set(s);
          loc.route(next, true);
        }}
      >
        <p>New here? <a href={`/signup${withNext}`}>Create an account</a></p>
      </AccountForm>
    </section>
  );
}
