import { userErrorOf } from '../lib/use-drive';

/**
 * One sentence for a failure, announced to screen readers; nothing when there is no error.
 * `message` says something else than what the error means.
 */
export function ErrorText({
  error,
  id,
  message,
}: {
  error: unknown;
  id?: string;
  message?: string;
}) {
  if (!error) return null;
  return (
    <p className="error" role="alert" id={id}>
      {message ?? userErrorOf(error).message}
    </p>
  );
}
