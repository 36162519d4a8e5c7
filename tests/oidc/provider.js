// A real OpenID Connect provider (panva/oidc-provider) for the login browser tests.
// One static client, one test account, and the library's built-in login and consent forms.
// Usage: node tests/oidc/provider.js --port N --app-url http://127.0.0.1:M [--app-url ...]
// The issuer is http://127.0.0.1:N; the client may return to each app's /oauth2callback only.
import { parseArgs } from 'node:util';

import Provider from 'oidc-provider';

const { values } = parseArgs({
  options: { port: { type: 'string' }, 'app-url': { type: 'string', multiple: true } },
});
const port = Number(values.port);
if (!Number.isInteger(port) || port <= 0 || !values['app-url']) {
  console.error('usage: node provider.js --port N --app-url http://127.0.0.1:M [--app-url ...]');
  process.exit(2);
}
const callbacks = values['app-url'].map((url) => `${url.replace(/\/$/, '')}/oauth2callback`);

// The client and the accounts the tests sign in with (Ada, the teacher of the roles tests, and
// Grace, a student); the built-in login form accepts any password, so the login name picks the account.
const CLIENT = { id: 'linecnn-test', secret: 'linecnn-test-secret' };
const ACCOUNTS = {
  ada: { sub: 'ada', name: 'Ada Lovelace', email: 'ada@example.org', email_verified: true },
  grace: { sub: 'grace', name: 'Grace Hopper', email: 'grace@example.org', email_verified: true },
};

const issuer = `http://127.0.0.1:${port}`;
const provider = new Provider(issuer, {
  clients: [{
    client_id: CLIENT.id,
    client_secret: CLIENT.secret,
    redirect_uris: callbacks,
    // Streamlit's logout sends the user back through its callback URL.
    post_logout_redirect_uris: callbacks,
  }],
  claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
  // Streamlit reads the user from the ID token alone, so the scopes' claims must be in it.
  conformIdTokenClaims: false,
  async findAccount(_ctx, id) {
    const account = ACCOUNTS[id];
    if (account === undefined) return undefined;
    return { accountId: id, claims: async () => account };
  },
  cookies: { keys: ['linecnn-test-cookie-key'] },
});

provider.listen(port, '127.0.0.1', () => {
  console.log(`oidc provider listening on ${issuer}, client ${CLIENT.id} returns to ${callbacks.join(', ')}`);
});
