/**
 * `backend-server s3-keys list | create [--description TEXT] | delete ID`: the project's S3
 * access keys (see keys.ts) from the command line, on the database the data commands open.
 */
import type { Queryable } from '../../db/index';
import { createS3Key, deleteS3Key, descriptionProblem, listS3Keys } from './keys';

export const S3_KEYS_HELP = `  backend-server s3-keys list [DATABASE]
      The project's S3 access keys (id, creation time, description; never a secret).
  backend-server s3-keys create [--description TEXT] [DATABASE]
      A new key; prints its id and its secret, which is shown this once. Signs S3
      requests as the service role, beside the configured key pair.
  backend-server s3-keys delete ID [DATABASE]
      Deletes a key: requests signed with it are refused at once, on every replica.
`;

/** A problem of the command's input (exit 1 with the message). */
export class S3KeysInputError extends Error {}

/** Runs `s3-keys SUB [ARG]` on an open database; writes to `out`. */
export async function runS3Keys(
  db: Queryable,
  sub: string | undefined,
  arg: string | undefined,
  description: string | undefined,
  out: (line: string) => void,
): Promise<void> {
  if (sub === 'list') {
    const keys = await listS3Keys(db);
    if (keys.length === 0) out('No S3 access keys (the configured key pair is in `start`).');
    for (const k of keys) out(`${k.id}  ${k.created_at}  ${k.description}`);
    return;
  }
  if (sub === 'create') {
    const problem = descriptionProblem(description ?? '');
    if (problem) throw new S3KeysInputError(problem);
    const key = await createS3Key(db, description ?? '');
    out(`Access key id:     ${key.id}`);
    out(`Secret access key: ${key.secret}`);
    out('The secret is shown this once: keep it now.');
    return;
  }
  if (sub === 'delete' && arg) {
    if (!(await deleteS3Key(db, arg))) throw new S3KeysInputError(`no S3 access key ${arg}`);
    out(`Deleted S3 access key ${arg}.`);
    return;
  }
  throw new S3KeysInputError('say s3-keys list, s3-keys create or s3-keys delete ID');
}
