/**
 * What the hosted runtime's import specifiers become here, where nothing can be fetched:
 * `npm:` (and `jsr:`, and npm CDN URLs such as esm.sh) map to packages installed in
 * node_modules, type-only `*.d.ts` imports to nothing, and the old
 * `https://deno.land/std/http/server.ts` to a `serve()` shim over `Deno.serve`.
 */

export type SpecifierPlan =
  /** Resolve this bare specifier from node_modules (`from` names the original for errors). */
  | { kind: 'package'; specifier: string; from: string }
  /** A module with no exports (type-only imports). */
  | { kind: 'empty' }
  /** The deno.land/std `serve` shim. */
  | { kind: 'std-http' }
  | { kind: 'error'; message: string }
  /** Not ours: let the bundler resolve it (relative files, bare packages, node: builtins). */
  | { kind: 'default' };

/** `name[@version][/sub]` → `name[/sub]` (scoped names kept whole), or null. */
export function packagePath(path: string): string | null {
  const match = /^\/?(@[^/@]+\/[^/@]+|[^/@]+)(?:@[^/]*)?(\/.*)?$/.exec(path);
  if (!match?.[1]) return null;
  const sub = (match[2] ?? '').replace(/\/\+esm$/, '');
  return match[1] + (sub === '/' ? '' : sub);
}

const CDN = [
  /^https?:\/\/esm\.sh\/(?:stable\/|v\d+\/)?(.+)$/,
  /^https?:\/\/cdn\.jsdelivr\.net\/npm\/(.+)$/,
  /^https?:\/\/unpkg\.com\/(.+)$/,
  /^https?:\/\/cdn\.skypack\.dev\/(.+)$/,
];

/** Decides how one import specifier is handled. */
export function planSpecifier(specifier: string): SpecifierPlan {
  if (specifier.endsWith('.d.ts')) return { kind: 'empty' };
  if (specifier.startsWith('npm:') || specifier.startsWith('jsr:')) {
    const target = packagePath(specifier.slice(4));
    if (!target) return { kind: 'error', message: `invalid import specifier "${specifier}"` };
    return { kind: 'package', specifier: target, from: specifier };
  }
  if (/^https?:\/\//.test(specifier)) {
    const url = specifier.split(/[?#]/)[0] ?? specifier;
    if (/^https?:\/\/deno\.land\/std(@[^/]+)?\/http\/server\.ts$/.test(url)) {
      return { kind: 'std-http' };
    }
    for (const pattern of CDN) {
      const path = pattern.exec(url)?.[1];
      const target = path ? packagePath(path) : null;
      if (target) return { kind: 'package', specifier: target, from: specifier };
    }
    return {
      kind: 'error',
      message: `URL imports cannot be fetched by this server: "${specifier}" (install the package from npm and import it as "npm:<name>")`,
    };
  }
  return { kind: 'default' };
}

/** Source of the `https://deno.land/std/http/server.ts` shim. */
export const STD_HTTP_SHIM = `
export function serve(handler, options = {}) {
  return globalThis.Deno.serve(options, handler);
}
`;
