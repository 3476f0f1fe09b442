// Create a buyer account (signed in at once), then back to where the buyer was going.
import { useLocation } from 'preact-iso';
import { api, session } from '../api/client';
import { AccountForm } from '../components/AccountForm';
import { safeNext } from '../nextPath';

export function SignUp() {
  const loc = useLocation();
  const next = safeNext(loc.query.next);
  const withNext = next === '/' ? '' : `?next=${encodeURIComponent(next)}`;
  return (
    <section class="narrow">
      <h1>Create an account</h1>
      <AccountForm
        submitLabel="Create account"
        fields={[
          { name: 'name', label: 'Name', type: 'text', autocomplete: 'name', optional: true },
          { name: 'email', label: 'Email', type: 'email', autocomplete: 'email' },
          { name: 'password', label: 'Password', type: 'password', autocomplete: 'new-password', hint: 'At least 8 characters.' },
        ]}
        known={{ EMAIL_TAKEN: 'An account with this email already exists: sign in instead.' }}
        onSubmit={async (v) => {
          const created = await api.signUp(v.email ?? '', v.password ?? '', v.name?.trim() || undefined);
          session.set({ user_id: created.user_id, token: created.token, role: 'user' });
          loc.route(next, true);
        }}
      >
        <p>Already have an account? <a href={`/signin${withNext}`}>Sign in</a></p>
      </AccountForm>
    </section>
  );
}
