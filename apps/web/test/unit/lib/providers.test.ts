import { describe, expect, it } from 'vitest';
import { providerName, readProviderError } from '../../../src/lib/providers';

describe('providerName', () => {
  it('names known providers as people know them, others from their id', () => {
    expect(providerName('github')).toBe('GitHub');
    expect(providerName('google')).toBe('Google');
    expect(providerName('custom:acme_id')).toBe('Acme id');
  });
});

describe('readProviderError', () => {
  it('reads the error of a failed sign-in from the fragment, else the query', () => {
    expect(
      readProviderError({
        search:
          '?error=access_denied&error_code=provider_email_needs_verification&error_description=x',
        hash: '#error=access_denied&error_code=provider_email_needs_verification&error_description=Unverified+email&sb=',
      }),
    ).toEqual({ code: 'provider_email_needs_verification', message: 'Unverified email' });
    expect(
      readProviderError({ search: '?error=access_denied&error_description=No', hash: '' }),
    ).toEqual({ code: 'access_denied', message: 'No' });
  });

  it('finds nothing on a page reached normally or signed in', () => {
    expect(readProviderError({ search: '', hash: '' })).toBeNull();
    expect(
      readProviderError({ search: '?from=x', hash: '#access_token=a&refresh_token=b' }),
    ).toBeNull();
  });
});
