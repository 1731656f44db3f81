import { BackendError } from '@app/backend-sdk';
import { render, screen } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { BackendProvider, errorMessage, useBackendClient } from '../src/index';

function ShowUrl() {
  const client = useBackendClient<{ url: string }>();
  return <p>url: {client.url}</p>;
}

describe('BackendProvider', () => {
  it('hands its client to hooks below it', () => {
    const client = { url: 'http://127.0.0.1:54321' };
    render(
      <BackendProvider client={client}>
        <ShowUrl />
      </BackendProvider>,
    );
    expect(screen.getByText('url: http://127.0.0.1:54321')).toBeTruthy();
  });

  it('makes a hook outside the provider fail with a clear message', () => {
    const quiet = vi.spyOn(console, 'error').mockImplementation(() => {});
    expect(() => render(<ShowUrl />)).toThrow(/inside <BackendProvider/);
    quiet.mockRestore();
  });
});

describe('errorMessage', () => {
  it('shows SDK messages and hides anything else', () => {
    expect(errorMessage(new BackendError('Invalid login credentials'))).toBe(
      'Invalid login credentials',
    );
    expect(errorMessage(new Error('SELECT * FROM secret'))).toBe('Something went wrong');
    expect(errorMessage('x', 'Try again')).toBe('Try again');
  });
});
