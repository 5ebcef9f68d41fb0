-- link.expired is sent once per expiry: expired_notified_at is set, in the transaction that
-- queues the message, when an active link is found expired (by time or by clicks). A save that
-- makes the link live again (a later expiresAt, a higher maxClicks) clears it. The sweep finds
-- active links whose expires_at passed and that are not marked through this index.
alter table links add column expired_notified_at timestamptz;
-- Links already past their expiresAt expired before link.expired existed: not sent.
update links set expired_notified_at = now() where expires_at <= now();
create index links_expiry_due on links (expires_at) where expires_at is not null and expired_notified_at is null and is_active;
