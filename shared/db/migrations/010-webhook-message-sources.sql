-- analytics.events messages made from a stored batch carry the batch's dedup token and the chunk's
-- place in it (source_key), unique per endpoint: a batch handed over again (a backfill retried
-- after a kill between writing its messages and acknowledging it) makes no second message.
alter table webhook_messages add column source_key text;
create unique index webhook_messages_source on webhook_messages (endpoint_id, source_key) where source_key is not null;

-- A never-sent analytics.events message merged into an older one is kept as MERGED (merged_into
-- names the message that carries its events) until pruned, so its source_key still counts.
alter table webhook_messages add column merged_into text;
alter table webhook_messages drop constraint webhook_messages_status_check;
alter table webhook_messages add constraint webhook_messages_status_check check (status in ('PENDING', 'DELIVERED', 'FAILED', 'DROPPED', 'MERGED'));
