import { describe, expect, it } from 'vitest';
import { chooseFormat } from '../../../src/storage/render/image';
import {
  clampTransform,
  describeTransform,
  hasTransform,
  signTransform,
  transformFromClaim,
  transformFromQuery,
} from '../../../src/storage/render/transform';

const q = (text: string) => transformFromQuery(new URLSearchParams(text));

describe('image transformation options', () => {
  it('reads query options with the hosted schema and ignores unknown names', () => {
    expect(q('width=200&height=100&resize=contain&format=webp&quality=60&cacheNonce=1')).toEqual({
      width: 200,
      height: 100,
      resize: 'contain',
      format: 'webp',
      quality: 60,
    });
    expect(q('')).toEqual({});
    for (const [text, message] of [
      ['width=1.5', 'querystring/width must be integer'],
      ['width=', 'querystring/width must be integer'],
      ['height=-3', 'querystring/height must be >= 0'],
      ['quality=19', 'querystring/quality must be >= 20'],
      ['resize=crop', 'querystring/resize must be equal to one of the allowed values'],
      ['gravity=up', 'querystring/gravity must be equal to one of the allowed values'],
      ['x_offset=left', 'querystring/x_offset must be number'],
    ]) {
      expect(() => q(text as string), text).toThrowError(
        expect.objectContaining({ code: 'InvalidRequest', message }),
      );
    }
  });

  it('clamps sizes and describes them as the hosted X-Transformations header', () => {
    const limits = { maxDimension: 2500 };
    expect(describeTransform(clampTransform(q('width=200&height=200&quality=60'), limits))).toBe(
      'height:200,width:200,resizing_type:fill,quality:60',
    );
    expect(describeTransform(clampTransform(q('width=9000&resize=contain'), limits))).toBe(
      'width:2500,resizing_type:fit',
    );
    expect(describeTransform(q('height=10&resize=fill&format=avif'))).toBe(
      'height:10,resizing_type:force,format:avif',
    );
    expect(describeTransform(clampTransform(q('width=0&format=origin'), limits))).toBe('');
  });

  it('round-trips the options a signed token carries', () => {
    const t = q('width=120&height=80&resize=contain&quality=70&format=webp');
    expect(signTransform(t)).toBe('height:80,width:120,resize:contain,quality:70,format:webp');
    expect(transformFromClaim(signTransform(t))).toEqual(t);
    // The hosted service signs `resize:undefined` when no mode was given: the default.
    expect(transformFromClaim('height:200,width:200,resize:undefined,quality:60')).toEqual({
      height: 200,
      width: 200,
      quality: 60,
    });
    expect(transformFromClaim(undefined)).toEqual({});
    expect(hasTransform({})).toBe(false);
    expect(hasTransform({ format: 'origin' })).toBe(false);
    expect(hasTransform({ resize: 'cover' })).toBe(false);
    expect(hasTransform({ quality: 50 })).toBe(true);
  });

  it('picks the output format as the hosted service does', () => {
    const chrome = 'image/avif,image/webp,image/apng,image/*,*/*;q=0.8';
    expect(chooseFormat({}, chrome)).toBe('webp');
    expect(chooseFormat({}, '*/*')).toBe('origin');
    expect(chooseFormat({}, null)).toBe('origin');
    expect(chooseFormat({ format: 'origin' }, chrome)).toBe('origin');
    expect(chooseFormat({ format: 'avif' }, '*/*')).toBe('avif');
    expect(chooseFormat({ format: 'webp' }, 'image/png')).toBe('webp');
  });
});
