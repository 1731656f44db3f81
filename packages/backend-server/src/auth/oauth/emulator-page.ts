/**
 * The emulated provider's sign-in page: earlier identities of the provider to pick, a form
 * for a new one (email, name, avatar), and Cancel (the provider's "access denied"). Plain
 * HTML with a form per choice, so it works without JavaScript and with any assistive
 * technology.
 */

/** An identity the page offers to sign in with again. */
export interface EarlierIdentity {
  sub: string;
  email: string;
  name: string;
  avatarUrl: string;
}

const esc = (s: string) =>
  s.replace(
    /[&<>"']/g,
    (ch) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[ch] as string,
  );

const STYLE = `
:root { color-scheme: light dark; --fg: #1a1a1a; --bg: #ffffff; --muted: #4a4a4a; --line: #c8c8c8;
  --accent: #0b57d0; --accent-fg: #ffffff; --note: #fff4ce; --note-fg: #3d2e00; }
@media (prefers-color-scheme: dark) { :root { --fg: #f2f2f2; --bg: #161616; --muted: #c4c4c4;
  --line: #5a5a5a; --accent: #8ab4f8; --accent-fg: #0a0a0a; --note: #3d3100; --note-fg: #ffefb0; } }
* { box-sizing: border-box; }
body { margin: 0; font: 16px/1.5 system-ui, sans-serif; color: var(--fg); background: var(--bg); }
main { max-width: 34rem; margin: 2rem auto; padding: 0 1rem; }
h1 { font-size: 1.5rem; margin: 0 0 .5rem; } h2 { font-size: 1.125rem; margin: 1.5rem 0 .5rem; }
.note { background: var(--note); color: var(--note-fg); padding: .5rem .75rem; border-radius: .375rem; }
ul { list-style: none; padding: 0; margin: 0; }
li + li { margin-top: .5rem; }
button { font: inherit; cursor: pointer; border-radius: .375rem; padding: .5rem .875rem; }
.account { display: flex; gap: .75rem; align-items: center; width: 100%; text-align: left;
  background: transparent; color: var(--fg); border: 1px solid var(--line); }
.account img { width: 2.5rem; height: 2.5rem; border-radius: 50%; object-fit: cover; }
.account span { display: block; } .account .email { color: var(--muted); font-size: .875rem; }
label { display: block; font-weight: 600; margin-top: .75rem; }
input[type=email], input[type=text], input[type=url] { display: block; width: 100%; font: inherit;
  padding: .5rem; margin-top: .25rem; color: var(--fg); background: var(--bg);
  border: 1px solid var(--line); border-radius: .375rem; }
.check { display: flex; gap: .5rem; align-items: center; font-weight: 400; }
.hint { color: var(--muted); font-size: .875rem; margin: .25rem 0 0; }
.primary { background: var(--accent); color: var(--accent-fg); border: 1px solid var(--accent); margin-top: 1rem; }
.secondary { background: transparent; color: var(--fg); border: 1px solid var(--line); }
.actions { margin-top: 2rem; }
:focus-visible { outline: 3px solid var(--accent); outline-offset: 2px; }
`;

/** The sign-in page for one flow. */
export function emulatorPage(params: {
  provider: string;
  displayName: string;
  state: string;
  earlier: EarlierIdentity[];
  error?: string;
}): string {
  const { provider, displayName, state } = params;
  const hidden = `<input type="hidden" name="state" value="${esc(state)}">
      <input type="hidden" name="provider" value="${esc(provider)}">`;
  const earlier = params.earlier.length
    ? `<section aria-labelledby="earlier-heading">
    <h2 id="earlier-heading">Continue as</h2>
    <ul>${params.earlier
      .map(
        (e) => `
      <li><form method="post" action="emulator">${hidden}
        <input type="hidden" name="identity" value="${esc(e.sub)}">
        <button type="submit" class="account">${
          e.avatarUrl ? `<img src="${esc(e.avatarUrl)}" alt="">` : ''
        }<span><span>${esc(e.name || e.email || e.sub)}</span>${
          e.email ? `<span class="email">${esc(e.email)}</span>` : ''
        }</span></button>
      </form></li>`,
      )
      .join('')}
    </ul>
  </section>`
    : '';
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Sign in with ${esc(displayName)} (emulated)</title>
<style>${STYLE}</style>
</head>
<body>
<main>
  <h1>Sign in with ${esc(displayName)}</h1>
  <p class="note">This is the local emulator of ${esc(displayName)}: no request leaves this
    computer. Pick an account or make one up.</p>
  ${params.error ? `<p role="alert" class="note">${esc(params.error)}</p>` : ''}
  ${earlier}
  <section aria-labelledby="new-heading">
    <h2 id="new-heading">${params.earlier.length ? 'Another account' : 'Account'}</h2>
    <form method="post" action="emulator">${hidden}
      <label for="email">Email</label>
      <input id="email" name="email" type="email" autocomplete="email" required>
      <label for="name">Name</label>
      <input id="name" name="name" type="text" autocomplete="name">
      <label for="avatar">Avatar URL</label>
      <input id="avatar" name="avatar" type="url" aria-describedby="avatar-hint">
      <p id="avatar-hint" class="hint">Optional: the address of a picture.</p>
      <label class="check"><input type="checkbox" name="email_verified" value="true" checked>
        ${esc(displayName)} has verified this email</label>
      <button type="submit" class="primary">Sign in</button>
    </form>
  </section>
  <form method="post" action="emulator" class="actions">${hidden}
    <input type="hidden" name="cancel" value="true">
    <button type="submit" class="secondary">Cancel</button>
  </form>
</main>
</body>
</html>`;
}

/** A page for a flow the emulator cannot continue (unknown, expired, used). */
export function emulatorErrorPage(message: string): string {
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Sign-in cannot continue</title><style>${STYLE}</style></head>
<body><main><h1>Sign-in cannot continue</h1><p role="alert">${esc(message)}</p>
<p>Go back to the app and start the sign-in again.</p></main></body>
</html>`;
}
