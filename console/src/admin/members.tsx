/** Members and roles: list, add a member, change a role. Only an owner may give or take the owner role (the api enforces it too). */
import { useState } from 'preact/hooks';
import type { ScreenProps } from './admin-view.tsx';

const ROLES = ['owner', 'admin', 'member', 'guest'] as const;
type Role = (typeof ROLES)[number];

export function Members({ org, session }: ScreenProps) {
  const isOwner = session.identity.role === 'owner';
  const [email, setEmail] = useState('');
  const [name, setName] = useState('');
  const [role, setRole] = useState<Role>('member');
  const users = org.config.document.users;
  const roleOptions = (current?: Role) =>
    ROLES.map((r) => (
      <option key={r} value={r} disabled={r === 'owner' && !isOwner && current !== 'owner'}>
        {r}
      </option>
    ));
  return (
    <section aria-labelledby="members-heading">
      <h3 id="members-heading">Members</h3>
      {!isOwner && <p class="note">Only an owner may give the owner role or change an owner.</p>}
      <div class="table-wrap">
        <table class="events members">
          <thead>
            <tr>
              <th scope="col">Email</th>
              <th scope="col">Name</th>
              <th scope="col">Role</th>
            </tr>
          </thead>
          <tbody>
            {users.map((u) => (
              <tr key={u.email}>
                <td>{u.email}</td>
                <td>{u.name || '—'}</td>
                <td>
                  <select
                    aria-label={`Role of ${u.email}`}
                    value={u.role}
                    disabled={org.busy || (u.role === 'owner' && !isOwner)}
                    onChange={(e) =>
                      void org.apply({ users: [{ email: u.email, role: e.currentTarget.value as Role }] })
                    }
                  >
                    {roleOptions(u.role)}
                  </select>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <h4>Add a member</h4>
      <form
        class="form inline"
        onSubmit={(e) => {
          e.preventDefault();
          void org
            .apply({ users: [{ email: email.trim(), name: name.trim(), role }] })
            .then((ok) => ok && (setEmail(''), setName('')));
        }}
      >
        <label>
          Email
          <input type="email" required value={email} onInput={(e) => setEmail(e.currentTarget.value)} />
        </label>
        <label>
          Name
          <input value={name} onInput={(e) => setName(e.currentTarget.value)} />
        </label>
        <label>
          Role
          <select
            aria-label="Role of the new member"
            value={role}
            onChange={(e) => setRole(e.currentTarget.value as Role)}
          >
            {roleOptions()}
          </select>
        </label>
        <button type="submit" disabled={org.busy}>
          Add member
        </button>
      </form>
    </section>
  );
}
