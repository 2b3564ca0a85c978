"""A SMART backend client on a second stack (Debian's python3-authlib): private_key_jwt with RS384.

Usage: authlib_backend_token.py TOKEN_URL CLIENT_ID PRIVATE_KEY_PEM_FILE KID SCOPE [REQUESTS]
authlib builds the form body and signs the client assertion (its ClientAuth and PrivateKeyJWT);
the standard library sends it, so nothing but python3-authlib needs installing. Prints each
token response as one JSON line; an error response ends it with exit code 1.
"""
import json
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid

from authlib.oauth2.auth import ClientAuth
from authlib.oauth2.rfc7523 import PrivateKeyJWT


class BackendAssertion(PrivateKeyJWT):
    """authlib's assertions live 3600 s and reuse their claims: SMART wants at most 300 s and a fresh jti."""

    def sign(self, auth, token_endpoint):
        self.claims = {"exp": int(time.time()) + 300, "jti": uuid.uuid4().hex}
        return super().sign(auth, token_endpoint)


def token_request(auth, token_url, scope):
    form = urllib.parse.urlencode({"grant_type": "client_credentials", "scope": scope})
    headers = {"Content-Type": "application/x-www-form-urlencoded", "Accept": "application/json"}
    uri, headers, body = auth.prepare("POST", token_url, headers, form)
    request = urllib.request.Request(uri, data=body.encode("utf-8"), headers=headers, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return json.loads(response.read())
    except urllib.error.HTTPError as error:
        sys.stderr.write(f"token request refused: HTTP {error.code} {error.read().decode('utf-8', 'replace')}\n")
        sys.exit(1)


def main():
    token_url, client_id, key_file, kid, scope = sys.argv[1:6]
    requests = int(sys.argv[6]) if len(sys.argv) > 6 else 1
    with open(key_file, encoding="utf-8") as handle:
        private_key = handle.read()
    auth = ClientAuth(client_id, private_key, BackendAssertion(token_url, alg="RS384", headers={"kid": kid}))
    for _ in range(requests):
        print(json.dumps(token_request(auth, token_url, scope)), flush=True)


if __name__ == "__main__":
    main()
