-- Synthetic buyers (POST /v1/admin/synthetic-buyers, only with BOXOFFICE_SYNTHETIC_BUYERS=1):
-- accounts made for rehearsals and load tests, marked with the label they were made
-- under, so that they can be told from real buyers (and counted or removed) later.
-- They have no password: their password_hash is '!' , which no password verifies.
alter table users add column synthetic_label text;
create index users_synthetic on users (synthetic_label) where synthetic_label is not null;
