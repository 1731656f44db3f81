/**
 * Multipart uploads of the S3 protocol, in the hosted tables' shape: one row per upload
 * (the object's type, caching and user metadata wait here until it completes) and one per
 * part, whose bytes are a file of the store named by `version`. Only the server reads and
 * writes them (as the platform); who may upload is decided by RLS on `storage.objects` when
 * an upload starts and when it completes. Kept in PostgreSQL, so every replica sees them.
 */
export const S3_SQL = /* sql */ `
create table if not exists storage.s3_multipart_uploads (
  id text primary key,
  in_progress_size bigint not null default 0,
  upload_signature text not null default '',
  bucket_id text not null references storage.buckets (id),
  key text collate "C" not null,
  version text not null,
  owner_id text,
  created_at timestamptz not null default now(),
  user_metadata jsonb,
  metadata jsonb
);
-- Set while one CompleteMultipartUpload joins the parts (ours): a second complete, or a part
-- written meanwhile, is refused instead of racing it; a claim older than 15 minutes is stale.
alter table storage.s3_multipart_uploads add column if not exists completing_at timestamptz;
create index if not exists idx_multipart_uploads_list
  on storage.s3_multipart_uploads (bucket_id, key, created_at);

create table if not exists storage.s3_multipart_uploads_parts (
  id uuid primary key default gen_random_uuid(),
  upload_id text not null references storage.s3_multipart_uploads (id) on delete cascade,
  size bigint not null default 0,
  part_number int not null,
  bucket_id text not null references storage.buckets (id),
  key text collate "C" not null,
  etag text not null,
  owner_id text,
  version text not null,
  created_at timestamptz not null default now(),
  unique (upload_id, part_number)
);

alter table storage.s3_multipart_uploads enable row level security;
alter table storage.s3_multipart_uploads_parts enable row level security;
revoke all on storage.s3_multipart_uploads, storage.s3_multipart_uploads_parts from anon, authenticated;
grant all on storage.s3_multipart_uploads, storage.s3_multipart_uploads_parts to service_role;
`;
