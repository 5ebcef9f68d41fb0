// Members: who belongs to the organisation with which role, pending invitations, seats used;
// owners and admins invite (the link is shown to copy), change roles and remove people. The
// server decides: admins cannot touch owners, and the last owner stays.
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { createRoute } from '@tanstack/react-router';
import { type FormEvent, useState } from 'react';
import { ApiError, call } from '../api.ts';
import { appRoute } from '../routes/root.tsx';
import { may, useSession } from '../session.ts';
import { SelectField } from '../ui/Choice.tsx';
import { Field, FormError } from '../ui/Field.tsx';
import { useFormErrors } from '../ui/use-form-errors.ts';

export const membersRoute = createRoute({ getParentRoute: () => appRoute, path: '/members', component: MembersPage });

const ROLES = ['owner', 'admin', 'member', 'viewer'] as const;
type Role = (typeof ROLES)[number];
const roleOptions = ROLES.map((r) => ({ value: r, label: r }));

function MembersPage() {
  const view = useSession();
  const canManage = may(view, 'members:manage');
  const client = useQueryClient();
  const data = useQuery({ queryKey: ['members'], queryFn: () => call('members') });
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<Role>('member');
  const [link, setLink] = useState('');
  const [message, setMessage] = useState('');
  const form = useFormErrors();
  const refresh = () => client.invalidateQueries({ queryKey: ['members'] });
  const invite = async (e: FormEvent) => {
    e.preventDefault();
    form.clear();
    setLink('');
    try {
      const r = await call('invite', { body: { email, role } });
      setLink(r.inviteUrl);
      setEmail('');
      await refresh();
    } catch (err) {
      form.show(err, ['email', 'role']);
    }
  };
  const act = async (work: () => Promise<unknown>, done: string) => {
    setMessage('');
    try {
      await work();
      setMessage(done);
      await refresh();
    } catch (err) {
      setMessage(err instanceof ApiError ? err.message : 'The change could not be saved.');
    }
  };
  const seats = data.data?.seats;
  return (
    <>
      <h1>Members</h1>
      {seats ? (
        <p>
          Seats: {seats.used} of {seats.limit} used (members and pending invitations).
        </p>
      ) : null}
      {canManage ? (
        <form onSubmit={invite} noValidate aria-labelledby="invite-h">
          <h2 id="invite-h">Invite someone</h2>
          <FormError message={form.errors['']} />
          <Field label="E-mail of the person to invite" type="email" value={email} onChange={setEmail} error={form.errors.email} />
          <SelectField label="Role" value={role} onChange={(v) => setRole(v as Role)} options={roleOptions} error={form.errors.role} />
          <button type="submit">Create invitation</button>
          {link ? (
            <div role="status">
              <Field
                label="Invitation link"
                value={link}
                onChange={() => undefined}
                readOnly
                className="secret"
                hint="Send it to them; it works once, for 7 days."
              />
              <button type="button" className="secondary" onClick={() => void navigator.clipboard.writeText(link).catch(() => undefined)}>
                Copy link
              </button>
            </div>
          ) : null}
        </form>
      ) : null}
      <p role="status">{message}</p>
      <table>
        <caption>Members</caption>
        <thead>
          <tr>
            <th scope="col">E-mail</th>
            <th scope="col">Role</th>
            <th scope="col">2FA</th>
            {canManage ? (
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            ) : null}
          </tr>
        </thead>
        <tbody>
          {(data.data?.members ?? []).map((m) => (
            <tr key={m.userId}>
              <td>
                {m.email}
                {m.you ? ' (you)' : ''}
              </td>
              <td>
                {canManage ? (
                  <SelectField
                    label={`Role of ${m.email}`}
                    value={m.role}
                    options={roleOptions}
                    onChange={(v) => void act(() => call('changeRole', { params: { userId: m.userId }, body: { role: v as Role } }), `${m.email} is now ${v}.`)}
                  />
                ) : (
                  m.role
                )}
              </td>
              <td>{m.twoFactor ? 'on' : 'off'}</td>
              {canManage ? (
                <td>
                  <button
                    type="button"
                    className="secondary"
                    onClick={() => void act(() => call('removeMember', { params: { userId: m.userId } }), `${m.email} removed.`)}
                  >
                    Remove {m.email}
                  </button>
                </td>
              ) : null}
            </tr>
          ))}
        </tbody>
      </table>
      <table>
        <caption>Pending invitations</caption>
        <thead>
          <tr>
            <th scope="col">E-mail</th>
            <th scope="col">Role</th>
            <th scope="col">Invited by</th>
            <th scope="col">Expires</th>
            {canManage ? (
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            ) : null}
          </tr>
        </thead>
        <tbody>
          {(data.data?.invites ?? []).map((i) => (
            <tr key={i.id}>
              <td>{i.email ?? '(chosen by the invitee)'}</td>
              <td>{i.role}</td>
              <td>{i.invitedBy}</td>
              <td>{new Date(i.expiresAt).toLocaleString()}</td>
              {canManage ? (
                <td>
                  <button
                    type="button"
                    className="secondary"
                    onClick={() => void act(() => call('revokeInvite', { params: { id: i.id } }), 'Invitation withdrawn.')}
                  >
                    Withdraw invitation for {i.email ?? 'anyone'}
                  </button>
                </td>
              ) : null}
            </tr>
          ))}
        </tbody>
      </table>
    </>
  );
}
