import { userErrorOf } from '../lib/use-drive';

/** One sentence for a failure, announced to screen readers; nothing when there is no error. */
export function ErrorText({ error, id }: { error: unknown; id?: string }) {
  if (!error) return null;
  return (
    <p className="error" role="alert" id={id}>
      {userErrorOf(error).message}
    </p>
  );
}
