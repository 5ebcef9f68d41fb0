-- The messages leased now (being sent), per endpoint: the delivery worker counts them to keep an
-- endpoint to a few attempts at once. A lease is cleared when its attempt is recorded.
create index webhook_messages_leased on webhook_messages (endpoint_id) where lease_until is not null;
