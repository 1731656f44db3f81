import { errorMessage } from '@app/backend-react';

/** An error, read out by screen readers. */
export function ErrorText({ error }: { error: unknown }) {
  if (!error) return null;
  return (
    <p role="alert" className="error">
      {typeof error === 'string' ? error : errorMessage(error)}
    </p>
  );
}
