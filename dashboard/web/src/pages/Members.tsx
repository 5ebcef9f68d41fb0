// Members: who belongs to the organisation with which role, pending invitations, seats used;
// owners and admins invite (the link is shown to copy), change roles and remove people. The
// server decides: admins cannot touch owners, and the last owner stays.
import { useQuery } from '@tanstack/react-query';
import { createRoute } from '@tanstack/react-router';
import { type FormEvent, useState } from 'react';
import type { ResponseOf } from '../../../contract/schemas.ts';
import { call } from '../api.ts';
import { keys, queries } from '../data/queries.ts';
import { useOutcome, useWrite } from '../data/use-write.ts';
import { appRoute } from '../routes/root.tsx';
import { may, useSession } from '../session.ts';
import { Button } from '../ui/Button.tsx';
import { SelectField } from '../ui/Choice.tsx';
import { Feedback } from '../ui/Feedback.tsx';
import { Field, FormError } from '../ui/Field.tsx';
import { Table } from '../ui/Table.tsx';
import { useFormErrors } from '../ui/use-form-errors.ts';

export const membersRoute = createRoute({
  getParentRoute: () => appRoute,
  path: '/members',
  staticData: { nav: { label: 'Members' } },
  component: MembersPage,
});

const ROLES = ['owner', 'admin', 'member', 'viewer'] as const;
type Role = (typeof ROLES)[number];
const roleOptions = ROLES.map((r) => ({ value: r, label: r }));
type MembersView = ResponseOf<'members'>;
type Member = MembersView['members'][number];
type Invite = MembersView['invites'][number];

function MembersPage() {
  const view = useSession();
  const canManage = may(view, 'members:manage');
  const data = useQuery(queries.members());
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<Role>('member');
  const [link, setLink] = useState('');
  const form = useFormErrors();
  const invite = useWrite({
    run: () => call('invite', { body: { email, role } }),
    invalidates: [keys.members()],
    onDone: (r) => {
      setLink(r.inviteUrl);
      setEmail('');
    },
    onFail: (err) => form.show(err, ['email', 'role']),
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    form.clear();
    setLink('');
    invite.mutate();
  };
  // The rows' actions report to the page's one status line.
  const rowsOutcome = useOutcome();
  const changeRole = useWrite({
    run: (m: { userId: string; email: string; role: Role }) => call('changeRole', { params: { userId: m.userId }, body: { role: m.role } }),
    invalidates: [keys.members()],
    said: (_, m) => `${m.email} is now ${m.role}.`,
    shared: rowsOutcome,
  });
  const removeMember = useWrite({
    run: (m: Member) => call('removeMember', { params: { userId: m.userId } }),
    invalidates: [keys.members()],
    said: (_, m) => `${m.email} removed.`,
    shared: rowsOutcome,
  });
  const withdraw = useWrite({
    run: (i: Invite) => call('revokeInvite', { params: { id: i.id } }),
    invalidates: [keys.members()],
    said: () => 'Invitation withdrawn.',
    shared: rowsOutcome,
  });
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
        <form onSubmit={submit} noValidate aria-labelledby="invite-h">
          <h2 id="invite-h">Invite someone</h2>
          <FormError message={form.errors['']} />
          <Field label="E-mail of the person to invite" type="email" value={email} onChange={setEmail} error={form.errors.email} />
          <SelectField label="Role" value={role} onChange={(v) => setRole(v as Role)} options={roleOptions} error={form.errors.role} />
          <Button type="submit">Create invitation</Button>
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
              <Button variant="secondary" onClick={() => void navigator.clipboard.writeText(link).catch(() => undefined)}>
                Copy link
              </Button>
            </div>
          ) : null}
        </form>
      ) : null}
      <Feedback outcome={rowsOutcome.outcome} />
      <Table<Member>
        caption="Members"
        rows={data.data?.members ?? []}
        rowKey={(m) => m.userId}
        columns={[
          { heading: 'E-mail', cell: (m) => `${m.email}${m.you ? ' (you)' : ''}` },
          {
            heading: 'Role',
            cell: (m) =>
              canManage ? (
                <SelectField
                  label={`Role of ${m.email}`}
                  value={m.role}
                  options={roleOptions}
                  onChange={(v) => changeRole.mutate({ userId: m.userId, email: m.email, role: v as Role })}
                />
              ) : (
                m.role
              ),
          },
          { heading: '2FA', cell: (m) => (m.twoFactor ? 'on' : 'off') },
          canManage && {
            heading: 'Actions',
            hideHeading: true,
            cell: (m) => (
              <Button variant="secondary" onClick={() => removeMember.mutate(m)}>
                Remove {m.email}
              </Button>
            ),
          },
        ]}
      />
      <Table<Invite>
        caption="Pending invitations"
        rows={data.data?.invites ?? []}
        rowKey={(i) => i.id}
        columns={[
          { heading: 'E-mail', cell: (i) => i.email ?? '(chosen by the invitee)' },
          { heading: 'Role', cell: (i) => i.role },
          { heading: 'Invited by', cell: (i) => i.invitedBy },
          { heading: 'Expires', cell: (i) => new Date(i.expiresAt).toLocaleString() },
          canManage && {
            heading: 'Actions',
            hideHeading: true,
            cell: (i) => (
              <Button variant="secondary" onClick={() => withdraw.mutate(i)}>
                Withdraw invitation for {i.email ?? 'anyone'}
              </Button>
            ),
          },
        ]}
      />
    </>
  );
}
