//! The real authorization server of the upstream-identity tests (tests/fixtures/idp: panva's
//! oidc-provider on node), and a browser that logs users in and consents through its forms.
//!
//! Needs node and the fixture's packages (`npm ci` in tests/fixtures/idp); without them the cases
//! say so and pass, unless `MCPGEN_REQUIRE_IDP` is set.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::Stdio;

use base64::Engine as _;
use serde_json::Value;
use tokio::io::AsyncBufReadExt;

pub(crate) const MCP_RESOURCE: &str = "http://mcp.test/mcp";
pub(crate) const API_RESOURCE: &str = "http://api.test/";
pub(crate) const REDIRECT: &str = "http://127.0.0.1:9/cb";
pub(crate) const CLIENT_ID: &str = "mcpgen";
pub(crate) const CLIENT_SECRET: &str = "exchange-secret-7c1d";
/// The API's OAuth app for mcpgen (`--upstream-auth user`).
pub(crate) const API_CLIENT_ID: &str = "mcpgen-api";
pub(crate) const API_CLIENT_SECRET: &str = "api-secret-51d2";

/// The authorization server, while it runs.
pub(crate) struct RealIdp {
    pub(crate) issuer: String,
    _child: tokio::process::Child,
}

/// Starts the authorization server, or says why it cannot (`None`).
pub(crate) async fn real_idp() -> Option<RealIdp> {
    real_idp_with(&[]).await
}

/// [`real_idp`] with more environment (`ACCESS_TOKEN_TTL`, ...).
pub(crate) async fn real_idp_with(env: &[(&str, &str)]) -> Option<RealIdp> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/idp");
    let node = std::env::var("MCPGEN_TEST_NODE").unwrap_or_else(|_| "node".into());
    if !dir.join("node_modules/oidc-provider").exists() {
        let why = "the test authorization server's packages are not installed (npm ci in tests/fixtures/idp)";
        assert!(std::env::var_os("MCPGEN_REQUIRE_IDP").is_none(), "{why}");
        eprintln!("{why}: skipped");
        return None;
    }
    let mut child = tokio::process::Command::new(node)
        .arg("server.mjs")
        .current_dir(&dir)
        .env("MCP_RESOURCE", MCP_RESOURCE)
        .env("MCP_SCOPES", "pets:read pets:write")
        .env("API_RESOURCE", API_RESOURCE)
        .env("EXCHANGE_CLIENT_ID", CLIENT_ID)
        .env("EXCHANGE_CLIENT_SECRET", CLIENT_SECRET)
        .env("REDIRECT_URIS", REDIRECT)
        .env("API_CLIENT_ID", API_CLIENT_ID)
        .env("API_CLIENT_SECRET", API_CLIENT_SECRET)
        .envs(env.iter().copied())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .expect("start node");
    let mut lines = tokio::io::BufReader::new(child.stdout.take().unwrap()).lines();
    let first = tokio::time::timeout(std::time::Duration::from_secs(30), lines.next_line()).await;
    let line = first.expect("the authorization server started").unwrap().expect("its first line");
    let started: Value = serde_json::from_str(&line).unwrap();
    // The rest of its output is read and dropped: a closed pipe would end it at its next notice.
    tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
    Some(RealIdp { issuer: started["issuer"].as_str().unwrap().to_string(), _child: child })
}

/// A browser of one user: cookies by name, no automatic redirects.
pub(crate) struct Browser {
    http: reqwest::Client,
    cookies: BTreeMap<String, String>,
}

impl Browser {
    pub(crate) fn new() -> Browser {
        let http = reqwest::Client::builder().redirect(reqwest::redirect::Policy::none()).build().unwrap();
        Browser { http, cookies: BTreeMap::new() }
    }

    pub(crate) async fn go(&mut self, url: &str, form: Option<&[(String, String)]>) -> (u16, Option<String>, String) {
        let cookie = self.cookies.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join("; ");
        let req = match form {
            Some(f) => self.http.post(url).header("content-type", "application/x-www-form-urlencoded").body(encode(f)),
            None => self.http.get(url),
        };
        let resp = req.header("cookie", cookie).send().await.unwrap();
        for c in resp.headers().get_all("set-cookie") {
            let pair = c.to_str().unwrap().split(';').next().unwrap();
            if let Some((k, v)) = pair.split_once('=') {
                self.cookies.insert(k.to_string(), v.to_string());
            }
        }
        let status = resp.status().as_u16();
        let location = resp.headers().get("location").map(|l| l.to_str().unwrap().to_string());
        (status, location, resp.text().await.unwrap())
    }
}

/// `user`'s access token for mcpgen: the authorization code flow with PKCE, the login and consent
/// forms filled in as a browser would.
pub(crate) async fn user_token(idp: &RealIdp, user: &str) -> String {
    let verifier: String = (0..64).map(|i| char::from(b'a' + ((i * 7 + user.len()) % 26) as u8)).collect();
    let digest = ring::digest::digest(&ring::digest::SHA256, verifier.as_bytes());
    let challenge = base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(digest.as_ref());
    let query = url::form_urlencoded::Serializer::new(String::new())
        .append_pair("client_id", "mcp-client")
        .append_pair("response_type", "code")
        .append_pair("redirect_uri", REDIRECT)
        .append_pair("scope", "openid pets:read pets:write")
        .append_pair("code_challenge", &challenge)
        .append_pair("code_challenge_method", "S256")
        .append_pair("resource", MCP_RESOURCE)
        .append_pair("state", "browser-state")
        .finish();
    let mut browser = Browser::new();
    let at = authorize(&mut browser, idp, &format!("{}/auth?{query}", idp.issuer), user, REDIRECT).await;
    let url = reqwest::Url::parse(&at).unwrap();
    let code = url.query_pairs().find(|(k, _)| k == "code").expect("a code").1.to_string();
    let form: Vec<(String, String)> = [
        ("grant_type", "authorization_code"),
        ("code", code.as_str()),
        ("redirect_uri", REDIRECT),
        ("code_verifier", verifier.as_str()),
        ("client_id", "mcp-client"),
    ]
    .iter()
    .map(|(k, v)| (k.to_string(), v.to_string()))
    .collect();
    let token = reqwest::Client::new()
        .post(format!("{}/token", idp.issuer))
        .header("content-type", "application/x-www-form-urlencoded")
        .body(encode(&form))
        .send()
        .await
        .unwrap();
    let body: Value = token.json().await.unwrap();
    body["access_token"].as_str().expect("an access token").to_string()
}

/// Follows an authorization request at `url` as `user`'s browser would: the login form (user
/// name, any password) and the consent form filled in, redirects followed, until one goes to a
/// URL starting with `back_to` (the client's redirect URI), which is returned unvisited.
pub(crate) async fn authorize(browser: &mut Browser, idp: &RealIdp, url: &str, user: &str, back_to: &str) -> String {
    let absolute = |l: String| if l.starts_with('/') { format!("{}{l}", idp.issuer) } else { l };
    let (_, mut location, _) = browser.go(url, None).await;
    for _ in 0..10 {
        let at = absolute(location.expect("a redirect"));
        if at.starts_with(back_to) {
            return at;
        }
        let (status, next, page) = browser.go(&at, None).await;
        location = if status == 200 {
            // A form: the login (user name, any password) or the consent.
            let action = page.split("action=\"").nth(1).and_then(|r| r.split('"').next()).expect("a form").to_string();
            let mut fields: Vec<(String, String)> = page
                .split("<input type=\"hidden\" name=\"")
                .skip(1)
                .filter_map(|f| {
                    let (name, rest) = f.split_once('"')?;
                    let value = rest.split("value=\"").nth(1)?.split('"').next()?;
                    Some((name.to_string(), value.to_string()))
                })
                .collect();
            if page.contains("name=\"login\"") {
                fields.push(("login".into(), user.into()));
                fields.push(("password".into(), "any".into()));
            }
            browser.go(&absolute(action), Some(&fields)).await.1
        } else {
            next
        };
    }
    panic!("the authorization flow did not end at {back_to}");
}

/// A form, URL-encoded.
pub(crate) fn encode(fields: &[(String, String)]) -> String {
    url::form_urlencoded::Serializer::new(String::new()).extend_pairs(fields).finish()
}

/// The claims of a JWT (not checked: the test reads what the authorization server issued).
pub(crate) fn claims(jwt: &str) -> Value {
    let payload = jwt.split('.').nth(1).unwrap();
    serde_json::from_slice(&base64::engine::general_purpose::URL_SAFE_NO_PAD.decode(payload).unwrap()).unwrap()
}
