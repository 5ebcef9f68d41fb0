// Deleting a link, after a confirmation that names what is lost: the short link stops working for
// everyone (printed QR codes included), its code is never given out again, webhooks hear
// link.deleted, and, when asked, its recorded clicks go too. Archiving is offered as the way back.
import { useQueryClient } from '@tanstack/react-query';
import { useNavigate } from '@tanstack/react-router';
import { useState } from 'react';
import { call } from '../../api.ts';
import { keys } from '../../data/queries.ts';
import { useWrite } from '../../data/use-write.ts';
import { Button } from '../../ui/Button.tsx';
import { CheckField } from '../../ui/Choice.tsx';
import { Dialog } from '../../ui/Dialog.tsx';
import { Feedback } from '../../ui/Feedback.tsx';
import type { LinkView } from './link-form.ts';

export function DeleteSection({ link }: { link: LinkView }) {
  const [open, setOpen] = useState(false);
  const [purge, setPurge] = useState(false);
  const navigate = useNavigate();
  const client = useQueryClient();
  const remove = useWrite({
    run: () => call('deleteLink', { params: { code: link.shortCode }, body: { purgeAnalytics: purge } }),
    invalidates: [keys.links()],
    onDone: async () => {
      client.removeQueries({ queryKey: keys.link(link.shortCode) });
      await navigate({ to: '/links' });
    },
  });
  return (
    <section aria-labelledby="delete-h">
      <h2 id="delete-h">Delete</h2>
      <p>Deleting cannot be undone. To stop the link for a while, archive it instead.</p>
      <Button variant="secondary" onClick={() => setOpen(true)}>
        Delete link…
      </Button>
      <Dialog open={open} title={`Delete ${link.shortCode}?`} onClose={() => setOpen(false)}>
        <ul>
          <li>
            <a href={link.smartLink}>{link.smartLink}</a> stops working at once for everyone, printed QR codes included: it answers “not found”.
          </li>
          <li>The code {link.shortCode} is never given out again.</li>
          <li>Webhooks receive link.deleted.</li>
          <li>Its recorded clicks stay in analytics, unless you tick the box below.</li>
        </ul>
        <CheckField label="Also delete every recorded click and preview of this link" checked={purge} onChange={setPurge} />
        <div className="actions">
          <Button onClick={() => remove.mutate()} disabled={remove.isPending}>
            Delete {link.shortCode}
          </Button>
          <Button variant="secondary" onClick={() => setOpen(false)}>
            Cancel
          </Button>
        </div>
        <Feedback outcome={remove.outcome} />
      </Dialog>
    </section>
  );
}
