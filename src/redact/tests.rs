//! Every rule has a realistic secret that must be redacted and a near miss that must not.
//!
//! The cases are templates expanded at test time, so no secret-looking literal lives in the
//! source: `{a36}` is 36 random characters of class `a` (see `class_chars`), `{uuid}` a random
//! UUID, and `«…»` marks the span expected to become `[REDACTED:<kind>]`.

use std::collections::BTreeSet;
use std::io::{BufReader, Read};

use super::*;

mod families;

/// (kind, positive template, near-miss template)
const CASES: &[(&str, &str, &str)] = &[
    (
        "here-string-password",
        "docker login -u bot --password-stdin <<< '«{a12}!x»' ghcr.io",
        "docker login -u bot --password-stdin <<< \"$CR_PAT\" ghcr.io",
    ),
    (
        "expect-send-password",
        "expect \"*assword:\" { send \"«{a10}#q»\\r\" }",
        "expect \"*assword:\" { send \"$env(DB_PASS)\\r\" }",
    ),
    (
        "cli-password-option",
        "redis-cli -h cache.internal -a «'{a12}:,{a6}'» --no-auth-warning INFO",
        "redis-cli -h cache.internal -a $REDIS_PASSWORD INFO",
    ),
    (
        "sidekiq-enterprise-url",
        "source \"https://{h8}:«{h8}»@gems.contribsys.com/\" do",
        "source \"https://gems.contribsys.com/\" do",
    ),
    (
        "sql-set-password",
        "SET PASSWORD FOR 'app'@'%' = «'{a12}'»;",
        "SET PASSWORD FOR 'app'@'%' = :new_password;",
    ),
    (
        "redis-auth-password",
        "127.0.0.1:6379> AUTH default «{a16}»",
        "127.0.0.1:6379> AUTH $REDIS_PASSWORD",
    ),
    (
        "oracle-connect-password",
        "sqlplus -s app/«{a12}»@db.internal:1521/ORCL",
        "sqlplus / as sysdba",
    ),
    (
        "cli-login-token",
        "wandb login «{h40}»",
        "wandb login --relogin",
    ),
    (
        "cli-password-argument",
        "htpasswd -b -c .htpasswd admin «{a12}#»",
        "htpasswd -c .htpasswd admin",
    ),
    (
        "stdin-password",
        "echo '«{a20}»' | docker login ghcr.io -u bot --password-stdin",
        "echo \"$CR_PAT\" | docker login ghcr.io -u bot --password-stdin",
    ),
    (
        "powershell-plaintext-secret",
        "$s = ConvertTo-SecureString \"«{a16}»\" -AsPlainText -Force",
        "$s = ConvertTo-SecureString $env:SVC_PASSWORD -AsPlainText -Force",
    ),
    (
        "credential-call-password",
        "$pdo = new PDO('mysql:host=localhost;dbname=shop', 'shop', '«{a10}_q,m%6W»');",
        "$pdo = new PDO($dsn, $user, $pass);",
    ),
    (
        "credential-pair-argument",
        r#"server.login(user, "«{a12}!»")"#,
        "smtp.login(user, password)",
    ),
    (
        "sql-password",
        "mysql> CREATE USER 'app'@'%' IDENTIFIED BY «'{a12}!x'»;",
        "each row is identified by its primary key; ALTER USER app IDENTIFIED BY :new_password;",
    ),
    (
        "jwt-signing-secret",
        "const token = jwt.sign({ sub: user.id }, '«{a32}»', { expiresIn: '1h' });",
        "const token = jwt.sign(payload, process.env.JWT_SECRET, { expiresIn: '1h' });",
    ),
    (
        "cookie-jar-value",
        ".app.internal\tTRUE\t/\tTRUE\t1798761600\tsession_token\t«{a40}»",
        ".app.internal\tTRUE\t/\tFALSE\t1798761600\ttheme\tdark",
    ),
    (
        "docker-login-password",
        "$ docker login -u bob -p «{a20}» registry.example.io",
        "docker login -u bob --password-stdin < token.txt",
    ),
    (
        "password-hash",
        "admin:«$apr1${a8}${a22}»\nalice:$2y$05$",
        "see https://example.io/$1$/docs and the $6$ prefix of SHA-512 crypt",
    ),
    (
        "pgpass-password",
        "db.internal:5432:app:alice:«{a16}»",
        "connect to db.internal:5432:app later",
    ),
    (
        "prose-token",
        "The API key for the staging project is «{a32}», rotate it monthly.",
        "the token is expired; see the token refresh docs",
    ),
    (
        "prose-credential-pair",
        "I logged in to the admin panel with `admin` / `«{a12}^x!»` as you told me",
        "compare `src/main.rs` / `src/lib.rs` and `v1.2.3` / `v1.3.0` and `GET` / `POST`",
    ),
    (
        "prose-password",
        "ok, the new password is «{a16}» for the staging box",
        "the password is stored in the vault; see hash_password_argon",
    ),
    (
        "private-key",
        r#"{"key": "«-----BEGIN RSA PRIVATE KEY-----\nMIIE{b64}\n{b64}\n-----END RSA PRIVATE KEY-----»\n"}"#,
        "rotate the private key; -----BEGIN PUBLIC KEY-----\\nMIIB{b40}\\n-----END PUBLIC KEY-----",
    ),
    (
        "age-secret-key",
        "identity: «AGE-SECRET-KEY-1{g58}»",
        "identity: AGE-SECRET-KEY-1{g20}",
    ),
    (
        "putty-private-key",
        "Private-MAC: «{h40}»",
        "Private-MAC: {h20}",
    ),
    (
        "aws-access-key",
        "key id «AKIA{s16}» in use",
        "key id AKIAIOSFODNN7EXAMPLE in the docs",
    ),
    (
        "aws-secret-key",
        "aws_secret_access_key = «{b40}»",
        "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    ),
    (
        "aws-bedrock-api-key",
        "AWS_BEARER_TOKEN_BEDROCK «ABSK{b120}»",
        "prefix ABSK{b40} only",
    ),
    (
        "gcp-api-key",
        r#"apiKey: "«AIza{u35}»","#,
        "AIza{u20} is too short",
    ),
    (
        "google-oauth-client-secret",
        "secret «GOCSPX-{u28}» here",
        "GOCSPX-{u10} short",
    ),
    (
        "google-oauth-access-token",
        "token «ya29.{u60}» there",
        "ya29.{u10} short",
    ),
    (
        "google-oauth-refresh-token",
        "refresh «1//0{u60}» there",
        "1//0{u10} short",
    ),
    (
        "gcp-service-account-key-id",
        r#""private_key_id": "«{h40}»","#,
        r#""private_key_id": "{h20}","#,
    ),
    (
        "azure-storage-key",
        "DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=«{b86}==»;EndpointSuffix=core.windows.net",
        "AccountName=acct;AccountKey=$STORAGE_ACCOUNT_KEY;",
    ),
    (
        "azure-ad-client-secret",
        "client «{a3}8Q~{a34}» ok",
        "client {a3}8Q~{a10} ok",
    ),
    (
        "azure-sas-token",
        "https://acct.blob.core.windows.net/c/f.txt?sv=2022-11-02&sr=b&sig=«{a43}%3D»",
        "https://acct.blob.core.windows.net/c/f.txt?sv=2022-11-02&sig={a10}",
    ),
    (
        "azure-devops-pat",
        "pat «{a76}AZDO{a4}» ok",
        "pat {a20}AZDO{a4} ok",
    ),
    ("alibaba-access-key", "«LTAI{a20}»", "LTAI{a10}"),
    ("tencent-secret-id", "«AKID{a32}»", "AKID{a10}"),
    ("digitalocean-pat", "«dop_v1_{h64}»", "dop_v1_{h32}"),
    ("digitalocean-oauth-token", "«doo_v1_{h64}»", "doo_v1_{h32}"),
    (
        "digitalocean-refresh-token",
        "«dor_v1_{h64}»",
        "dor_v1_{h32}",
    ),
    ("heroku-api-key", "«HRKU-{u60}» ", "HRKU-{u20} "),
    ("scaleway-secret-key", "«SCW{U17}»", "SCW{U5}"),
    ("yandex-api-key", "«AQVN{u38}» ", "AQVN{u10} "),
    ("yandex-iam-token", "«t1.{u40}.{u86}»", "t1.{u10}.{u20}"),
    ("yandex-access-key", "«YCAJ{u36}» ", "YCAJ{u10} "),
    ("vault-service-token", "«hvs.{u100}»", "hvs.{u20}"),
    ("vault-batch-token", "«hvb.{u140}»", "hvb.{u20}"),
    (
        "terraform-cloud-token",
        "«{a14}.atlasv1.{u64}»",
        "{a14}.atlasv1.{a10}",
    ),
    ("doppler-token", "«dp.pt.{a43}»", "dp.pt.{a10}"),
    ("pulumi-access-token", "«pul-{h40}»", "pul-{h20}"),
    ("flyio-token", "«fo1_{u43}»", "fo1_{u10}"),
    ("render-api-key", "«rnd_{a32}»", "rnd_{a10}"),
    ("supabase-access-token", "«sbp_{h40}»", "sbp_{h10}"),
    (
        "supabase-secret-key",
        "«sb_secret_{u40}»",
        "sb_secret_{u10}",
    ),
    (
        "planetscale-token",
        "«pscale_tkn_{u43}»",
        "pscale_tkn_{a10}",
    ),
    ("databricks-token", "«dapi{h32}»", "dapi{h16}"),
    ("clickhouse-cloud-secret", "«4b1d{a38}»", "4b1d{a10}"),
    (
        "tailscale-key",
        "«tskey-auth-{a12}-{a30}»",
        "tskey-auth-{a5}",
    ),
    ("openshift-token", "«sha256~{u43}» ", "sha256~{u10} "),
    (
        "cloudflare-origin-ca-key",
        "«v1.0-{h24}-{h146}»",
        "v1.0-{h24}-{h20}",
    ),
    (
        "kubernetes-client-key",
        "    client-key-data: «{b60}=»",
        "    client-key-data: /etc/kube/client.key",
    ),
    (
        "docker-config-auth",
        r#"{"auths": {"registry.io": {"auth": "«{b40}=»"}}}"#,
        r#"{"auths": {"registry.io": {"auth": "basic"}}}"#,
    ),
    ("scalingo-api-token", "«tk-us-{u48}» ", "tk-us-{u10} "),
    (
        "github-pat",
        "GITHUB_TOKEN=«ghp_{a36}»",
        "ghp_{a20} is cut short",
    ),
    (
        "github-fine-grained-pat",
        "«github_pat_{a22}_{a59}»",
        "github_pat_{a20}",
    ),
    ("github-oauth-token", "«gho_{a36}»", "gho_{a10}"),
    ("github-app-token", "«ghs_{a36}»", "ghs_{a10}"),
    ("github-refresh-token", "«ghr_{a76}»", "ghr_{a10}"),
    ("gitlab-pat", "«glpat-{u20}»", "glpat-{a5}"),
    (
        "gitlab-pipeline-trigger-token",
        "«glptt-{h40}»",
        "glptt-{h10}",
    ),
    ("gitlab-runner-token", "«glrt-{u20}»", "glrt-{a5}"),
    (
        "gitlab-runner-registration-token",
        "«GR1348941{u20}»",
        "GR1348941{a5}",
    ),
    ("gitlab-deploy-token", "«gldt-{u20}»", "gldt-{a5}"),
    ("gitlab-feed-token", "«glft-{u20}»", "glft-{a5}"),
    ("gitlab-oauth-app-secret", "«gloas-{u64}» ", "gloas-{a10} "),
    (
        "gitlab-incoming-mail-token",
        "«glimt-{u25}» ",
        "glimt-{a10} ",
    ),
    ("gitlab-job-token", "«glcbt-{a3}_{u20}»", "glcbt-{a3}"),
    ("gitlab-agent-token", "«glagent-{u50}»", "glagent-{a10}"),
    ("gitlab-scim-token", "«glsoat-{u20}»", "glsoat-{a5}"),
    ("gitlab-feature-flag-token", "«glffct-{u20}»", "glffct-{a5}"),
    ("bitbucket-app-password", "«ATBB{a32}»", "ATBB{a10}"),
    ("atlassian-api-token", "«ATATT3{u190}»", "ATATT3{a20}"),
    ("huggingface-token", "«hf_{L34}»", "hf_{L10}"),
    ("huggingface-org-token", "«api_org_{L34}»", "api_org_{L10}"),
    ("circleci-token", "«CCIPAT_{a22}_{h40}»", "CCIPAT_{a10}"),
    ("buildkite-token", "«bkua_{h40}»", "bkua_{h10}"),
    ("octopus-deploy-api-key", "«API-{U26}»", "API-{U10}"),
    ("harness-pat", "«pat.{u22}.{h24}.{a20}»", "pat.{a5}.x"),
    ("sonarqube-token", "«sqp_{h40}»", "sqp_{h10}"),
    ("sourcegraph-token", "«sgp_{h16}_{h40}»", "sgp_{h10}"),
    ("prefect-api-key", "«pnu_{a36}»", "pnu_{a10}"),
    ("readme-api-key", "«rdme_{l70}»", "rdme_{l10}"),
    ("infracost-api-key", "«ico-{a32}»", "ico-{a10}"),
    ("postman-api-key", "«PMAK-{h24}-{h34}»", "PMAK-{h10}"),
    ("snyk-token", "SNYK_TOKEN=«{uuid}»", "SNYK_ORG={uuid}"),
    (
        "npm-access-token",
        "//registry.npmjs.org/:_authToken=«npm_{a36}»",
        "npm_{a10}",
    ),
    (
        "pypi-upload-token",
        "«pypi-AgEIcHlwaS5vcmc{u60}»",
        "pypi-AgEIcHlwaS5vcmc{a10}",
    ),
    ("nuget-api-key", "«oy2{l43}»", "oy2{l10}"),
    ("rubygems-api-key", "«rubygems_{h48}»", "rubygems_{h10}"),
    ("crates-io-token", "«cio{a32}»", "cio{a10}"),
    ("docker-hub-token", "«dckr_pat_{u27}»", "dckr_pat_{a5}"),
    ("artifactory-api-key", "«AKCp{a69}»", "AKCp{a10}"),
    (
        "artifactory-reference-token",
        "«cmVmdGtu{a56}»",
        "cmVmdGtu{a10}",
    ),
    ("clojars-token", "«CLOJARS_{l60}»", "CLOJARS_{l10}"),
    ("slack-bot-token", "«xoxb-{d12}-{d13}-{a24}»", "xoxb-{d5}"),
    (
        "slack-user-token",
        "«xoxp-{d12}-{d12}-{d12}-{h32}»",
        "xoxp-{d5}",
    ),
    (
        "slack-app-token",
        "«xapp-1-{U11}-{d13}-{h64}»",
        "xapp-1-{U5}",
    ),
    (
        "slack-config-token",
        "«xoxe.xoxp-1-{U166}»",
        "xoxe.xoxp-1-{U10}",
    ),
    (
        "slack-legacy-token",
        "«xoxs-{d10}-{d10}-{a20}»",
        "xoxs-{a10}",
    ),
    (
        "slack-webhook-url",
        "«https://hooks.slack.com/services/T{U9}/B{U9}/{a24}»",
        "https://hooks.slack.com/services/T{U9}/B{U9}/XXXXXXXXXXXXXXXXXXXXXXXX",
    ),
    (
        "discord-webhook-url",
        "«https://discord.com/api/webhooks/{d18}/{u68}»",
        "https://discord.com/api/webhooks/{d18}/{u10}",
    ),
    (
        "discord-bot-token",
        "DISCORD_BOT_TOKEN=«M{a25}.{u6}.{u38}»",
        "DISCORD_BOT_TOKEN=${DISCORD_TOKEN}",
    ),
    ("telegram-bot-token", "«{d10}:AA{u33}» ", "{d10}:AA{u10} "),
    (
        "telegram-bot-token-near-name",
        "telegram bot: «{d8}:An{l33}»",
        "telegram bot: {d4}:An{l33}",
    ),
    (
        "teams-webhook-url",
        "«https://contoso.webhook.office.com/webhookb2/{uuid}@{uuid}/IncomingWebhook/{h32}/{uuid}»",
        "https://contoso.webhook.office.com/webhookb2/{uuid}@{uuid}/IncomingWebhook/",
    ),
    (
        "google-chat-webhook-url",
        "«https://chat.googleapis.com/v1/spaces/AB{a9}/messages?key={a10}&token={u43}%3D»",
        "https://chat.googleapis.com/v1/spaces/AB{a9}/messages?key=k&token=short",
    ),
    (
        "zapier-webhook-url",
        "«https://hooks.zapier.com/hooks/catch/{d7}/{l7}/»",
        "https://hooks.zapier.com/hooks/catch/{d7}/",
    ),
    (
        "mattermost-webhook-url",
        "«https://mattermost.acme.io/hooks/{l26}»",
        "https://mattermost.acme.io/hooks/{l10}",
    ),
    (
        "dingtalk-webhook-url",
        "«https://oapi.dingtalk.com/robot/send?access_token={h64}»",
        "https://oapi.dingtalk.com/robot/send?access_token=${DINGTALK_TOKEN}",
    ),
    (
        "feishu-webhook-url",
        "«https://open.feishu.cn/open-apis/bot/v2/hook/{uuid}»",
        "https://open.feishu.cn/open-apis/bot/v2/hook/<hook-id>",
    ),
    ("sendgrid-api-key", "«SG.{u22}.{u43}» ", "SG.{u10}.{u10} "),
    ("mailgun-api-key", "«key-{h32}»", "key-{h10}"),
    ("mailchimp-api-key", "«{h32}-us12»", "{h32}-usa"),
    ("brevo-api-key", "«xkeysib-{h64}-{a16}»", "xkeysib-{h10}"),
    (
        "twilio-api-key",
        "TWILIO_API_KEY=«SK{h32}»",
        "TWILIO_ACCOUNT_SID=AC{h32}",
    ),
    (
        "twilio-auth-token",
        "TWILIO_AUTH_TOKEN=«{h32}»",
        "TWILIO_AUTH_TOKEN=your_auth_token",
    ),
    (
        "postmark-server-token",
        "POSTMARK_SERVER_TOKEN=«{uuid}»",
        "POSTMARK_SERVER_ID=12345",
    ),
    (
        "resend-api-key",
        "«re_{a8}_{a24}»",
        "re_compiled_regularExpressionsCaches",
    ),
    (
        "twilio-auth-token-argument",
        "const client = twilio(\"AC{h32}\", \"«{h32}»\");",
        "const client = twilio(accountSid, authToken);",
    ),
    (
        "algolia-api-key-argument",
        "const client = algoliasearch(\"{U10}\", \"«{h32}»\");",
        "const client = algoliasearch(appId, apiKey);",
    ),
    (
        "cohere-api-key-argument",
        "co = cohere.Client(\"«{a40}»\")",
        "co = cohere.Client(os.environ[\"CO_API_KEY\"])",
    ),
    ("stripe-secret-key", "«sk_live_{a99}»", "sk_live_{a10}"),
    ("stripe-restricted-key", "«rk_live_{a99}»", "rk_live_{a10}"),
    ("stripe-webhook-secret", "«whsec_{a32}»", "whsec_{a10}"),
    ("square-access-token", "«sq0atp-{u22}» ", "sq0atp-{u10} "),
    ("square-oauth-secret", "«sq0csp-{u43}» ", "sq0csp-{u10} "),
    (
        "braintree-access-token",
        "«access_token$production${l16}${h32}»",
        "access_token$production${l5}",
    ),
    ("shopify-access-token", "«shpat_{h32}»", "shpat_{h10}"),
    ("shopify-custom-app-token", "«shpca_{h32}»", "shpca_{h10}"),
    ("shopify-private-app-token", "«shppa_{h32}»", "shppa_{h10}"),
    ("shopify-shared-secret", "«shpss_{h32}»", "shpss_{h10}"),
    (
        "flutterwave-secret-key",
        "«FLWSECK_TEST-{h32}-X»",
        "FLWSECK_TEST-{h10}-X",
    ),
    (
        "gocardless-access-token",
        "GOCARDLESS_ACCESS_TOKEN=«live_{u40}»",
        "GOCARDLESS_ENVIRONMENT=live",
    ),
    (
        "plaid-access-token",
        "«access-production-{uuid}»",
        "access-production-{h8}",
    ),
    ("easypost-api-key", "«EZAK{a54}»", "EZAK{a10}"),
    (
        "shippo-api-token",
        "«shippo_live_{h40}»",
        "shippo_live_{h10}",
    ),
    (
        "duffel-api-token",
        "«duffel_test_{u43}»",
        "duffel_test_{u10}",
    ),
    (
        "razorpay-key-secret",
        "RAZORPAY_KEY_SECRET=«{a24}»",
        "RAZORPAY_KEY_ID=rzp_test_{a14}",
    ),
    (
        "anthropic-api-key",
        "«sk-ant-api03-{u93}AA»",
        "sk-ant-api03-{u10}",
    ),
    (
        "anthropic-admin-key",
        "«sk-ant-admin01-{u93}AA»",
        "sk-ant-admin01-{u10}",
    ),
    (
        "openai-api-key",
        "OPENAI_API_KEY=«sk-proj-{u156}»",
        "sk-proj-{u10}",
    ),
    ("openrouter-api-key", "«sk-or-v1-{h64}»", "sk-or-v1-{h10}"),
    ("groq-api-key", "«gsk_{a52}»", "gsk_{a10}"),
    ("xai-api-key", "«xai-{a80}»", "xai-{a10}"),
    ("perplexity-api-key", "«pplx-{a48}»", "pplx-{a10}"),
    ("replicate-api-token", "«r8_{a37}»", "r8_{a10}"),
    (
        "langsmith-api-key",
        "«lsv2_pt_{h32}_{h10}»",
        "lsv2_pt_{h10}",
    ),
    ("langfuse-secret-key", "«sk-lf-{uuid}»", "pk-lf-{uuid}"),
    ("pinecone-api-key", "«pcsk_{a70}»", "pcsk_{a10}"),
    ("cerebras-api-key", "«csk-{l48}»", "csk-{l10}"),
    ("tavily-api-key", "«tvly-dev-{a32}»", "tvly-{a10}"),
    ("fireworks-api-key", "«fw_{a24}»", "fw_{a10}"),
    (
        "deepseek-api-key",
        "DEEPSEEK_API_KEY=«sk-{h32}»",
        "DEEPSEEK_MODEL=deepseek-chat",
    ),
    (
        "mistral-api-key",
        "MISTRAL_API_KEY=«{a32}»",
        "MISTRAL_MODEL=mistral-large-latest",
    ),
    (
        "cohere-api-key",
        "COHERE_API_KEY=«{a40}»",
        "COHERE_MODEL=command-r-plus",
    ),
    (
        "elevenlabs-api-key",
        "ELEVENLABS_API_KEY=«sk_{h48}»",
        "ELEVENLABS_VOICE_ID=21m00Tcm4TlvDq8ikWAM",
    ),
    ("newrelic-user-key", "«NRAK-{U27}»", "NRAK-{U10}"),
    ("newrelic-insert-key", "«NRII-{u32}» ", "NRII-{a10} "),
    ("newrelic-browser-key", "«NRJS-{h19}»", "NRJS-{h5}"),
    ("newrelic-license-key", "«{h36}NRAL»", "{h20}NRAL"),
    (
        "sentry-org-token",
        "«sntrys_eyJ{b80}_{b43}»",
        "sntrys_eyJ{b80}_{b20}",
    ),
    ("sentry-user-token", "«sntryu_{h64}»", "sntryu_{h10}"),
    ("grafana-cloud-token", "«glc_{b40}»", "glc_{a10}"),
    (
        "grafana-service-account-token",
        "«glsa_{a32}_{h8}»",
        "glsa_{a10}",
    ),
    ("grafana-api-key", "«eyJrIjoi{a80}»", "eyJrIjoi{a10}"),
    (
        "dynatrace-api-token",
        "«dt0c01.{U24}.{U64}»",
        "dt0c01.{U10}",
    ),
    ("honeycomb-api-key", "«hcaik_{l58}»", "hcaik_{l5}"),
    ("posthog-personal-api-key", "«phx_{a43}»", "phc_{a43}"),
    ("axiom-token", "«xaat-{uuid}»", "xaat-{h8}"),
    (
        "datadog-api-key",
        "DD_API_KEY=«{h32}»",
        "DD_SITE=datadoghq.eu",
    ),
    (
        "rollbar-access-token",
        "ROLLBAR_ACCESS_TOKEN=«{h32}»",
        "ROLLBAR_ENV=production",
    ),
    ("segment-write-key", "«sgp_{a64}»", "sgp_{a10}"),
    ("notion-token", "«ntn_{d11}{a35}»", "ntn_{d5}"),
    ("linear-api-key", "«lin_api_{a40}»", "lin_api_{a10}"),
    ("linear-oauth-token", "«lin_oauth_{h64}»", "lin_oauth_{h10}"),
    ("airtable-pat", "«pat{a14}.{h64}»", "pat{a14}.{h10}"),
    ("asana-pat", "«2/1{d15}/1{d15}:{h32}»", "2/1{d15}:{h10}"),
    ("dropbox-access-token", "«sl.u.{u140}»", "sl.{u10}"),
    ("figma-pat", "«figd_{u40}» ", "figd_{u10} "),
    ("typeform-token", "«tfp_{u59}»", "tfp_{u10}"),
    (
        "hubspot-private-app-token",
        "«pat-na1-{uuid}»",
        "pat-na1-{h8}",
    ),
    ("contentful-pat", "«CFPAT-{u43}» ", "CFPAT-{u10} "),
    ("adobe-client-secret", "«p8e-{a32}»", "p8e-{a10}"),
    ("frameio-token", "«fio-u-{u64}» ", "fio-u-{u10} "),
    (
        "mapbox-secret-token",
        "«sk.eyJ{u60}.{u22}»",
        "pk.eyJ{u60}.{u22}",
    ),
    (
        "intra42-client-secret",
        "«s-s4t2ud-{h64}»",
        "s-s4t2ud-{h10}",
    ),
    ("settlemint-token", "«sm_pat_{h16}»", "sm_pat_{h5}"),
    (
        "sidekiq-enterprise-secret",
        "BUNDLE_ENTERPRISE__CONTRIBSYS__COM=«{h8}:{h8}»",
        "BUNDLE_GEMS__CONTRIBSYS__COM=${SIDEKIQ_CREDS}",
    ),
    (
        "twitter-bearer-token",
        "«AAAAAAAAAAAAAAAAAAAAA{a60}»",
        "AAAAAAAAAAAAAAAAAAAAA{a10}",
    ),
    ("facebook-access-token", "«EAA{a120}»", "EAA{a20}"),
    (
        "onepassword-service-token",
        "«ops_eyJ{b260}»",
        "ops_eyJ{a10}",
    ),
    (
        "onepassword-secret-key",
        "«A3-{U6}-{U11}-{U5}-{U5}-{U5}»",
        "A3-{U6}-{U5}",
    ),
    (
        "okta-api-token",
        "OKTA_API_TOKEN=«00{u40}» ",
        "OKTA_DOMAIN=dev-123456.okta.com",
    ),
    (
        "okta-api-token-near-name",
        "okta login --org https://dev-123456.okta.com --api-token «00{u40}»",
        "the Okta group id is 00g{l17} and its app 00{d40}",
    ),
    (
        "ngrok-authtoken",
        "NGROK_AUTHTOKEN=«2{a26}_{a21}»",
        "NGROK_REGION=eu",
    ),
    ("netlify-token", "«nfp_{a36}»", "nfp_{a10}"),
    (
        "cookie-session-value",
        "Cookie: has_js=1; SESS{h32}=«{a43}»",
        "Cookie: _ga=GA1.2.{d10}.{d10}; user_id={a32}; XSRF-TOKEN={a40}",
    ),
    (
        "laravel-remember-cookie",
        "Cookie: XSRF-TOKEN=abc; remember_web_{h40}=«eyJ{a60}%3D»",
        "Cookie: remember_me=true; remember_web_{h40}=",
    ),
    (
        "modal-token",
        "modal token set --token-id «ak-{a22}»",
        "pip install modal && echo as-is-the-default-setting-here",
    ),
    (
        "vercel-token",
        "VERCEL_TOKEN=«{a24}»",
        "VERCEL_ORG_ID=team_{a24}",
    ),
    (
        "cloudflare-api-token",
        "CLOUDFLARE_API_TOKEN=«{u40}» ",
        "CLOUDFLARE_ACCOUNT_ID={h32}",
    ),
    (
        "algolia-admin-key",
        "ALGOLIA_ADMIN_API_KEY=«{h32}»",
        "ALGOLIA_APP_ID={U10}",
    ),
    (
        "jwt",
        "«eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJ{u40}.{u43}»",
        "the header eyJhbGciOiJIUzI1NiJ9 alone",
    ),
    (
        "url-credentials",
        "postgres://app:«{a16}»@db.internal:5432/app",
        "postgres://app:${DB_PASSWORD}@db.internal/app",
    ),
    (
        "bearer-token",
        "Authorization: Bearer «{u40}»",
        "Authorization: Bearer $TOKEN",
    ),
    (
        "laravel-app-key",
        "$ php artisan key:generate --show\n«base64:{b43}=»",
        "data:image/png;base64,{b43}=",
    ),
    (
        "mysql-dsn-password",
        "[exporter]\ndsn = exporter:«{a8}@{a8}#x»@(localhost:3306)/",
        "dsn = exporter:${MYSQL_PASSWORD}@tcp(localhost:3306)/",
    ),
    (
        "basic-auth",
        "Authorization: Basic «{b24}»",
        r#"WWW-Authenticate: Basic realm="api""#,
    ),
    (
        "netrc-password",
        "machine api.github.com login octocat password «{a20}»",
        "machine api.github.com login octocat",
    ),
    (
        "curl-user-password",
        "curl -u «admin:hunter22» https://api.acme.io",
        "curl -u \"$API_USER:$API_PASS\" https://api.acme.io",
    ),
    (
        "mysql-password-flag",
        "mysql -u root -p«{a12}» shop",
        "mysql -u root -p shop",
    ),
    (
        "facebook-app-access-token",
        "FACEBOOK_APP_TOKEN «{d15}|{u27}»",
        "facebook page {d15} has {d3} likes",
    ),
    (
        "base64-credential-file",
        "key.json: «ewogICJ0eXBlIjogInNlcnZpY2VfYWNjb3Vu{b80}»",
        "tls.crt: LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0t{b80}",
    ),
    (
        "secret-command-output",
        "$ kubectl get secret api-db -o jsonpath='{.data.password}' | base64 -d\n«{a10}.{a6}-»\n$ kubectl get pods",
        "$ kubectl get secret api-db -o jsonpath='{.data.password}' | base64 -d\nError from server (NotFound): secrets \"api-db\" not found",
    ),
    (
        "base64-dump",
        // a made-up `.env` (DB_HOST and DB_PASSWORD) encoded; the near miss holds `${DB_PASSWORD}`
        "env_file_b64: \"«REJfSE9TVD1kYi5pbnRlcm5hbApEQl9QQVNTV09SRD1acTgsTG0yI1d4OWtUQHYK»\"",
        "env_file_b64: \"REJfSE9TVD1kYi5pbnRlcm5hbApEQl9QQVNTV09SRD0ke0RCX1BBU1NXT1JEfQo=\"",
    ),
    (
        "jwt-base64",
        "auth: «ZXlK{b120}»",
        "ZXlK is the base64 of eyJ",
    ),
    (
        "generic-secret",
        r#"DB_PASSWORD="«{a20}»""#,
        r#"password = os.environ["DB_PASSWORD"]"#,
    ),
    (
        "ipsec-secret",
        "10.0.0.1 10.0.0.2 : PSK «\"{a20}\"»",
        "# : PSK \"$VPN_PSK\" is read from the environment",
    ),
    (
        "network-device-password",
        "username admin privilege 15 secret 0 «{a10}!»",
        "username admin privilege 15 secret $ADMIN_SECRET",
    ),
    (
        "mail-relay-password",
        "[smtp.mailgun.org]:587 postmaster@mg.corp.io:«{a24}»",
        "relayhost = [smtp.mailgun.org]:587",
    ),
    (
        "wordpress-auth-cookie",
        "Cookie: wordpress_logged_in_{h32}=«admin%7C1700000000%7C{a43}%7C{h64}»; wp-settings-1=x",
        "Cookie: wordpress_test_cookie=WP%20Cookie%20check",
    ),
    (
        "mnemonic-phrase",
        "MNEMONIC=\"«abandon ability able about above absent absorb abstract absurd abuse access accident»\"",
        "the mnemonic is shown once; write it down",
    ),
    (
        "prose-login-pair",
        "you can log in with admin / «{a8}!{a3}» on the staging box",
        "log in with GitHub / Google, or see docs/login / src/auth.rs",
    ),
    (
        "discord-bot-token-in-call",
        "client.login('«N{a23}.{u6}.{u38}»')",
        "client.login(process.env.DISCORD_TOKEN)",
    ),
    (
        "discord-bot-token-bare",
        "bot ready, token «{snowflake}.{u6}.{u38}» (rotate it after the demo)",
        "the bundle is {a24}.{u6}.{u38} and its map NetworkManagerConfiguration.reload.fromDefaultPathAndEnvironment",
    ),
    (
        "cli-user-password-flags",
        "psexec \\\\host -u admin -p «{a10}!{a3}» cmd",
        "docker run -u 1000 -p 8080:80 nginx; mysql -u root -p shop",
    ),
    (
        "oracle-user-password",
        "expdp system/«{a6}!{a5}» directory=dp schemas=app",
        "sqlplus / as sysdba; connect scott/tiger; imp help=y",
    ),
    (
        "nvidia-api-key",
        "NGC_KEY=«nvapi-{u64}»\n",
        "nvapi-docs and nvapi-{u20} ",
    ),
    (
        "sql-role-password",
        "CREATE ROLE app LOGIN PASSWORD '«{a5}''{a6}»';",
        "ALTER ROLE app WITH PASSWORD NULL; CREATE ROLE ro PASSWORD 'changeme';",
    ),
    (
        "prose-password-named-after",
        "for now use «{a8}#{a4}» as the password",
        "use something long as the password, then rotate getPassword() as the password",
    ),
    (
        "ssh-keygen-new-passphrase",
        "ssh-keygen -p -f ~/.ssh/id_ed25519 -N «{a10}#{d3}»",
        "ssh-keygen -p -f ~/.ssh/id_ed25519 -N \"$NEW_PASSPHRASE\"",
    ),
    (
        "aws-secret-key-after-id",
        "new BasicAWSCredentials(\"AKIAIOSFODNN7EXAMPLE\", \"«{b40}»\")",
        "AKIAIOSFODNN7EXAMPLE,wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    ),
    (
        "ifttt-webhook-key",
        "curl -X POST https://maker.ifttt.com/trigger/door_open/with/key/«{u22}»",
        "https://maker.ifttt.com/trigger/door_open/with/key/{IFTTT_KEY}",
    ),
    (
        "credential-call-argument",
        "if err := l.Bind(\"cn=svc-ci,ou=services,dc=corp,dc=local\", \"«{a4}@{a3};{a4}({d4})»\"); err != nil {",
        "if err := l.Bind(\"cn=svc-ci,ou=services,dc=corp,dc=local\", os.Getenv(\"LDAP_PASSWORD\")); err != nil {",
    ),
    (
        "secret-store-write",
        "aws secretsmanager create-secret --name prod/db --secret-string «'{a10}!{a4}'»",
        "aws secretsmanager create-secret --name prod/db --secret-string file://db-secret.json",
    ),
    (
        "signed-url-signature",
        "https://b.s3.amazonaws.com/r.csv?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Expires=900&X-Amz-SignedHeaders=host&X-Amz-Signature=«{h64}»",
        "the request carried X-Amz-SignedHeaders=host; see the Signature= parameter in the docs",
    ),
    (
        "bip32-extended-private-key",
        "xprv: «xprv9s21{B103}»",
        "xpub: xpub661MyMwAqRbc{a95}",
    ),
    (
        "hmac-key-argument",
        "const mac = crypto.createHmac('sha256', '«{a32}»').update(body).digest('hex');",
        "const mac = crypto.createHmac('sha256', process.env.WEBHOOK_SECRET);",
    ),
    (
        "ui-password-fill",
        "await page.fill('#password', '«{a10}!»');",
        "await page.fill('#password', process.env.E2E_PASSWORD!); cy.get('#password').type(password)",
    ),
    (
        "user-creation-password",
        "User.objects.create_superuser(\"admin\", \"admin@corp.io\", \"«{a12}#»\")",
        "User.objects.create_superuser(\"admin\", \"admin@corp.io\", os.environ[\"ADMIN_PW\"])",
    ),
    (
        "erlang-cookie",
        "$ erl -name app@node1 -setcookie «{U20}» -detached",
        "$ erl -name app@node1 -setcookie \"$ERLANG_COOKIE\" -detached",
    ),
    (
        "ethereum-private-key",
        "networks: { sepolia: { url: RPC_URL, accounts: [\"«0x{h64}»\"] } }",
        "tx sent: 0x{h64} (block 19,212,004); accounts: [process.env.DEPLOYER_KEY]",
    ),
    (
        "azure-cosmos-key-argument",
        "var client = new CosmosClient(\"https://acct.documents.azure.com:443/\", \"«{b86}==»\");",
        "var client = new CosmosClient(endpoint, configuration[\"Cosmos:Key\"]);",
    ),
    (
        "prose-user-pass-pair",
        "log in to the VPN as user `jenkins` / pass «`{a6}#{a5}`» until Friday",
        "log in to the VPN as user `jenkins` / pass `$VPN_PASSWORD` until Friday",
    ),
];

/// Texts that look like secrets to a careless eye and must pass unchanged.
const NOT_SECRETS: &[&str] = &[
    "commit 3f786850e387550fdab836ed7e6dc881de23001b fixed it",
    "git checkout {h40}",
    "request id {uuid} failed",
    "session_id: {uuid}",
    "max_tokens: 4096",
    // Paths of a language with `::`: the first colon is not an assignment.
    "I added a test that reproduces it (`tokenizer::quoted_at_eof`)",
    "see secrets::rotation_schedule_v2 and PasswordHasher::hash_password_argon",
    "token_count = 123456789",
    "let token = self.next_token();",
    "password_file = /etc/app/password.txt",
    "secret: ${{ secrets.DEPLOY_KEY }}",
    "api_key = <your-api-key>",
    "API_KEY=your-key-here",
    "password: changeme",
    "token: xxxxxxxxxxxxxxxxxxxx",
    "tokenizer = bert-base-uncased",
    "SECRET_KEY_NAME = SIGNING_KEY",
    "const apiKey = process.env.OPENAI_API_KEY;",
    "auth_token = getAuthTokenFromEnvironment",
    "The bearer of this letter is a friend.",
    "see https://docs.example.com/api?version=2 for tokens",
    "ssh git@github.com:org/repo.git",
    "http://localhost:8080@proxy",
    "password = None",
    "AWS_SECRET_ACCESS_KEY=${AWS_SECRET_ACCESS_KEY}",
    "Wrote 12 lines to src/token.rs",
];

/// Deterministic pseudo-random source (xorshift64*), so failures are reproducible.
struct Random(u64);

impl Random {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn pick(&mut self, alphabet: &[u8]) -> char {
        char::from(alphabet[(self.next() % alphabet.len() as u64) as usize])
    }
}

fn class_chars(class: char) -> &'static [u8] {
    match class {
        'a' => b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789",
        'L' => b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz",
        'h' => b"0123456789abcdef",
        'H' => b"0123456789ABCDEF",
        // A password's printable symbols (no quotes, backslash or blank): `DB_PASSWORD=<>?EzW)|4N`.
        // The symbols people type into passwords, which no shell quoting needs to hold.
        'q' => b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789!#%&*+,-.:;=?@^_~",
        'p' => b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789!#$%&*+,-./:;<=>?@[]^_{|}~()",
        'd' => b"0123456789",
        'U' => b"ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789",
        'l' => b"abcdefghijklmnopqrstuvwxyz0123456789",
        'b' => b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/",
        'u' => b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-",
        's' => b"ABCDEFGHIJKLMNOPQRSTUVWXYZ234567",
        'g' => b"QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L",
        // Bitcoin's base58: no 0, O, I or l
        'B' => b"123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz",
        other => panic!("unknown template class `{other}`"),
    }
}

/// Words of a diceware-style list (`{w}` in a template): four to eight small letters.
const PASSPHRASE_WORDS: &[&str] = &[
    "velvet", "orbit", "tundra", "maple", "copper", "falcon", "river", "stone", "ember", "quartz",
    "harbor", "lantern", "meadow", "pickle", "saddle", "thimble", "walnut", "zephyr", "banjo",
    "cobalt", "dagger", "frosty", "gravel", "hazel", "island", "jigsaw", "kettle", "lobster",
    "mango", "nectar", "oyster", "pepper", "quiver", "rocket", "sierra", "tulip", "umpire",
    "violet", "willow", "yonder",
];

/// Expands a template into (text, expected redaction of it as `kind`).
fn expand(template: &str, kind: &str, seed: u64) -> (String, String) {
    let mut random = Random(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    let mut text = String::new();
    let mut expected = String::new();
    let mut in_secret = false;
    let mut rest = template;
    while let Some(c) = rest.chars().next() {
        rest = &rest[c.len_utf8()..];
        let piece = match c {
            '«' => {
                in_secret = true;
                expected.push_str(&format!("[REDACTED:{kind}]"));
                continue;
            }
            '»' => {
                in_secret = false;
                continue;
            }
            '{' if rest.starts_with("uuid}") => {
                rest = &rest["uuid}".len()..];
                let hex = class_chars('h');
                let group = |random: &mut Random, n: usize| {
                    (0..n).map(|_| random.pick(hex)).collect::<String>()
                };
                let parts: Vec<String> = [8, 4, 4, 4, 12]
                    .iter()
                    .map(|&n| group(&mut random, n))
                    .collect();
                parts.join("-")
            }
            // A Discord bot token's first part: the base64 of an 18-digit snowflake id.
            '{' if rest.starts_with("snowflake}") => {
                rest = &rest["snowflake}".len()..];
                let digits = class_chars('d');
                let id: Vec<u8> = (0..18)
                    .map(|at| match at {
                        0 => b'1' + (random.next() % 9) as u8,
                        _ => random.pick(digits) as u8,
                    })
                    .collect();
                base64_of_digits(&id)
            }
            // A dictionary word, as a passphrase generator draws them.
            '{' if rest.starts_with("w}") => {
                rest = &rest["w}".len()..];
                let index = (random.next() % PASSPHRASE_WORDS.len() as u64) as usize;
                PASSPHRASE_WORDS[index].to_string()
            }
            '{' if rest.len() > 1 && rest[1..].starts_with(|d: char| d.is_ascii_digit()) => {
                let class = rest.chars().next().unwrap_or('a');
                let close = rest.find('}').expect("unclosed {class count} in template");
                let count: usize = rest[1..close].parse().expect("count in template");
                rest = &rest[close + 1..];
                let alphabet = class_chars(class);
                (0..count).map(|_| random.pick(alphabet)).collect()
            }
            other => other.to_string(),
        };
        text.push_str(&piece);
        if !in_secret {
            expected.push_str(&piece);
        }
    }
    (text, expected)
}

/// Standard base64 of a whole number of 3-byte groups (no padding needed).
fn base64_of_digits(bytes: &[u8]) -> String {
    const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    assert!(bytes.len().is_multiple_of(3), "whole groups only");
    bytes
        .chunks(3)
        .flat_map(|group| {
            let bits = u32::from(group[0]) << 16 | u32::from(group[1]) << 8 | u32::from(group[2]);
            (0..4).map(move |at| char::from(ALPHABET[(bits >> (18 - 6 * at) & 63) as usize]))
        })
        .collect()
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    memchr::memmem::find(haystack, needle).is_some()
}

fn redactor() -> &'static Redactor {
    Redactor::builtin()
}

#[test]
fn every_rule_redacts_its_secret() {
    let mut failures = Vec::new();
    for (index, (kind, positive, _)) in CASES.iter().enumerate() {
        let (text, expected) = expand(positive, kind, index as u64);
        let redacted = redactor().redact(&text);
        let counts_ok =
            redacted.counts.get(*kind).copied() == Some(1) && redacted.counts.len() == 1;
        if redacted.text != expected || !counts_ok {
            failures.push(format!(
                "{kind}:\n  input    {text}\n  expected {expected}\n  got      {}\n  counts   {:?}",
                redacted.text, redacted.counts
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} rules missed their secret:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn every_rule_leaves_its_near_miss_alone() {
    let mut failures = Vec::new();
    for (index, (kind, _, negative)) in CASES.iter().enumerate() {
        let (text, _) = expand(negative, kind, index as u64);
        let redacted = redactor().redact(&text);
        if redacted.text != text || !redacted.counts.is_empty() {
            failures.push(format!(
                "{kind}:\n  input {text}\n  got   {}",
                redacted.text
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} near misses were redacted:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn every_rule_has_exactly_one_case() {
    let rule_kinds: BTreeSet<&str> = redactor().kinds().collect();
    let mut case_kinds = BTreeSet::new();
    for (kind, _, _) in CASES {
        assert!(case_kinds.insert(*kind), "two cases for `{kind}`");
    }
    let untested: Vec<_> = rule_kinds.difference(&case_kinds).collect();
    let unknown: Vec<_> = case_kinds.difference(&rule_kinds).collect();
    assert!(
        untested.is_empty() && unknown.is_empty(),
        "untested rules {untested:?}, cases without a rule {unknown:?}"
    );
    assert!(rule_kinds.len() >= 100, "only {} kinds", rule_kinds.len());
}

#[test]
fn ordinary_identifiers_hashes_and_placeholders_are_not_secrets() {
    let mut failures = Vec::new();
    for (index, template) in NOT_SECRETS.iter().enumerate() {
        let (text, _) = expand(template, "none", 1000 + index as u64);
        let redacted = redactor().redact(&text);
        if redacted.text != text {
            failures.push(format!("  input {text}\n  got   {}", redacted.text));
        }
    }
    assert!(
        failures.is_empty(),
        "redacted non-secrets:\n{}",
        failures.join("\n")
    );
}

#[test]
fn hex_and_uuids_are_secrets_only_when_assigned_to_a_secret_like_key() {
    let (text, expected) = expand(
        "commit {h40} ran {uuid}\napi_token = «{h40}»\nHEROKU_API_KEY=«{uuid}»\n",
        "generic-secret",
        21,
    );
    let redacted = redactor().redact(&text);
    assert_eq!(redacted.text, expected);
    assert_eq!(redacted.counts.get("generic-secret"), Some(&2));
}

#[test]
fn a_specific_format_wins_over_the_generic_rule() {
    let (text, _) = expand("api_key: {a8}", "x", 7);
    let token = expand("ghp_{a36}", "x", 8).0;
    let redacted = redactor().redact(&format!("{text}\npassword = \"{token}\"\n"));
    assert!(
        redacted
            .text
            .ends_with("password = \"[REDACTED:github-pat]\"\n"),
        "{}",
        redacted.text
    );
    assert_eq!(redacted.counts.get("github-pat"), Some(&1));
}

#[test]
fn url_passwords_are_redacted_unless_masked_templated_or_defaults() {
    let redacted =
        redactor().redact("https://user:Pa55w0rd@host.io/x and redis://:hunter2@cache:6379\n");
    assert_eq!(
        redacted.text,
        "https://user:[REDACTED:url-credentials]@host.io/x and redis://:[REDACTED:url-credentials]@cache:6379\n"
    );
    for kept in [
        "https://user:pass@host.io/x",
        "postgres://user:password@localhost:5432/mydb",
        "amqp://guest:guest@localhost:5672",
        "postgres://postgres:postgres@db:5432/app",
        "https://user:***@host.io",
        "mysql://root:%s@db",
        "amqp://guest:$AMQP_PASS@mq",
    ] {
        assert_eq!(redactor().redact(kept).text, kept);
    }
}

#[test]
fn a_complete_key_block_on_one_line_that_is_a_placeholder_opens_no_block() {
    let text = "-----BEGIN PRIVATE KEY-----EXAMPLE-----END PRIVATE KEY-----\ndone\n";
    assert_eq!(redactor().redact(text).text, text);
}

#[test]
fn counts_every_secret_per_kind() {
    let (text, _) = expand("a ghp_{a36} b ghp_{a36}\nc npm_{a36} ghp_{a36}\n", "x", 3);
    let redacted = redactor().redact(&text);
    let expected: RedactionCounts = [
        ("github-pat".to_string(), 3),
        ("npm-access-token".to_string(), 1),
    ]
    .into_iter()
    .collect();
    assert_eq!(redacted.counts, expected);
    assert_eq!(
        redacted.text,
        "a [REDACTED:github-pat] b [REDACTED:github-pat]\nc [REDACTED:npm-access-token] [REDACTED:github-pat]\n"
    );
}

#[test]
fn utf8_around_secrets_stays_intact() {
    let token = expand("ghp_{a36}", "x", 11).0;
    let text = format!("Schlüssel «{token}» für 🔑 日本語 — ok\r\nzweite Zeile é\n");
    let redacted = redactor().redact(&text);
    assert_eq!(
        redacted.text,
        "Schlüssel «[REDACTED:github-pat]» für 🔑 日本語 — ok\r\nzweite Zeile é\n"
    );
}

fn multi_line_key(body_lines: usize, seed: u64) -> String {
    let mut random = Random(seed | 1);
    let mut key = String::from("-----BEGIN OPENSSH PRIVATE KEY-----\n");
    for _ in 0..body_lines {
        let line: String = (0..64).map(|_| random.pick(class_chars('b'))).collect();
        key.push_str(&line);
        key.push('\n');
    }
    key.push_str("-----END OPENSSH PRIVATE KEY-----\n");
    key
}

/// A reader that hands out at most `step` bytes per read, to cut the input at every place.
struct Trickle<'a> {
    data: &'a [u8],
    step: usize,
}

impl Read for Trickle<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.step.min(buf.len()).min(self.data.len());
        buf[..n].copy_from_slice(&self.data[..n]);
        self.data = &self.data[n..];
        Ok(n)
    }
}

fn stream(text: &str, step: usize) -> (String, RedactionCounts) {
    let mut output = Vec::new();
    let input = BufReader::with_capacity(
        step,
        Trickle {
            data: text.as_bytes(),
            step,
        },
    );
    let counts = redactor()
        .redact_stream(input, &mut output)
        .expect("streaming into a Vec");
    (String::from_utf8(output).expect("utf-8 output"), counts)
}

#[test]
fn multi_line_private_key_is_redacted_whole_in_both_modes() {
    let text = format!("before\nkey:\n{}after\n", multi_line_key(20, 5));
    let expected = "before\nkey:\n[REDACTED:private-key]\nafter\n";
    assert_eq!(redactor().redact(&text).text, expected);
    for step in [1, 7, 64, 4096] {
        let (output, counts) = stream(&text, step);
        assert_eq!(output, expected, "step {step}");
        assert_eq!(counts.get("private-key"), Some(&1));
    }
}

#[test]
fn private_key_straddling_stream_chunks_is_redacted() {
    // Filler pushes the key across the 64 KiB chunk boundary of the streaming scanner.
    let filler = "lorem ipsum dolor sit amet, consectetur adipiscing elit\n".repeat(1160);
    let key = multi_line_key(60, 9);
    let text = format!("{filler}{key}tail line\n");
    let (output, counts) = stream(&text, 8192);
    assert_eq!(
        output,
        format!("{filler}[REDACTED:private-key]\ntail line\n")
    );
    assert_eq!(counts.get("private-key"), Some(&1));
}

#[test]
fn statements_spread_over_lines_are_read_whole_across_stream_chunks() {
    // Statements whose secret sits lines below their opening line, one every few lines through
    // several chunks: wherever a chunk is cut, some statement straddles the cut.
    let mut random = Random(11);
    let mut text = String::new();
    let mut secrets = Vec::new();
    while text.len() < 5 * 64 * 1024 {
        let password: String = (0..14).map(|_| random.pick(class_chars('a'))).collect();
        let statement = match secrets.len() % 3 {
            0 => format!(
                "$pdo = new PDO(\n    'mysql:host=db.internal;dbname=shop',\n    'shop_rw',\n    '{password}!'\n);\n"
            ),
            1 => format!(
                "INSERT INTO users (email, password)\nVALUES ('a@corp.io', '{password}#');\n"
            ),
            _ => format!(
                "conn = DriverManager.getConnection(\n    url,\n    \"app\",\n    \"{password}%\");\n"
            ),
        };
        text.push_str(&statement);
        text.push_str("// unrelated line of code, nothing secret in it at all\n");
        secrets.push(password);
    }
    let whole = redactor().redact(&text);
    for secret in &secrets {
        assert!(!whole.text.contains(secret.as_str()), "{secret} left whole");
    }
    for step in [1000, 8192, 1 << 16] {
        let (output, counts) = stream(&text, step);
        for secret in &secrets {
            assert!(
                !output.contains(secret.as_str()),
                "{secret} left, step {step}"
            );
        }
        assert_eq!(output, whole.text, "step {step}");
        assert_eq!(counts, whole.counts, "step {step}");
    }
}

#[test]
fn private_key_with_text_around_markers_and_agent_line_numbers() {
    let mut random = Random(3);
    let body: String = (0..64).map(|_| random.pick(class_chars('b'))).collect();
    let text = format!(
        "     1→-----BEGIN RSA PRIVATE KEY-----\n     2→Proc-Type: 4,ENCRYPTED\n     3→{body}\n     4→-----END RSA PRIVATE KEY----- trailing\nnext\n"
    );
    assert_eq!(
        redactor().redact(&text).text,
        "     1→[REDACTED:private-key] trailing\nnext\n"
    );
}

#[test]
fn unterminated_private_key_ends_at_the_first_line_that_is_not_key_material() {
    let text =
        "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n... (truncated)\nmore\n";
    assert_eq!(
        redactor().redact(text).text,
        "[REDACTED:private-key]\n... (truncated)\nmore\n"
    );
    let at_end = "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC";
    assert_eq!(redactor().redact(at_end).text, "[REDACTED:private-key]");
}

#[test]
fn streaming_matches_whole_string_redaction() {
    let mut text = String::new();
    for (index, (kind, positive, negative)) in CASES.iter().enumerate() {
        text.push_str(&expand(positive, kind, index as u64).0);
        text.push_str(" | ");
        text.push_str(&expand(negative, kind, index as u64).0);
        text.push('\n');
    }
    let whole = redactor().redact(&text);
    for step in [3, 1000, 1 << 16] {
        let (output, counts) = stream(&text, step);
        assert_eq!(output, whole.text, "step {step}");
        assert_eq!(counts, whole.counts, "step {step}");
    }
    assert_eq!(whole.counts.values().sum::<u64>(), CASES.len() as u64);
}

#[test]
fn bytes_that_are_not_utf8_pass_through_streaming() {
    let token = expand("ghp_{a36}", "x", 4).0;
    let mut input = b"\xff\xfe bad bytes ".to_vec();
    input.extend_from_slice(token.as_bytes());
    input.extend_from_slice(b" \xc3\n");
    let mut output = Vec::new();
    let counts = redactor()
        .redact_stream(&input[..], &mut output)
        .expect("vec");
    assert_eq!(output, b"\xff\xfe bad bytes [REDACTED:github-pat] \xc3\n");
    assert_eq!(counts.get("github-pat"), Some(&1));
}

#[test]
fn an_over_long_line_is_cut_without_losing_bytes() {
    let token = expand("ghp_{a36}", "x", 6).0;
    let long = format!("{} {token} {}", "é".repeat(700_000), "x".repeat(10));
    let mut output = Vec::new();
    let counts = redactor()
        .redact_stream(long.as_bytes(), &mut output)
        .expect("vec");
    let output = String::from_utf8(output).expect("cuts fall on character boundaries");
    assert_eq!(output, long.replace(&token, "[REDACTED:github-pat]"));
    assert_eq!(counts.get("github-pat"), Some(&1));
}

#[test]
fn forced_cut_never_splits_a_character() {
    assert_eq!(forced_cut("abc,def".as_bytes()), 4);
    let text = "ééé".as_bytes();
    assert_eq!(forced_cut(text), 4);
    assert_eq!(forced_cut(b"abcd"), 3);
}

#[test]
fn invalid_rule_tables_are_config_errors() {
    let base = "default_entropy = 2.5\n[allow]\nplaceholders = []\n";
    let rule = |body: &str| format!("{base}[[rule]]\nid = \"x-y\"\ndescription = \"d\"\n{body}\n");
    let cases = [
        (
            rule("keywords = [\"abc\"]\nregex = '''(unclosed'''"),
            "invalid regex",
        ),
        (
            rule("keywords = [\"ab\"]\nregex = '''abc'''"),
            "shorter than",
        ),
        (rule("keywords = []\nregex = '''abc'''"), "no keywords"),
        (
            rule("keywords = []\nprefilter = 'shapeless'\nregex = '''abc'''"),
            "unknown prefilter",
        ),
        (
            rule("keywords = [\"abc\"]\nregex = '''abc'''\nblock_begin = '''a'''"),
            "only some",
        ),
        (
            rule("keywords = [\"abc\"]\nregex = '''abc'''\nunknown = 1"),
            "invalid redaction rules",
        ),
        (
            format!(
                "{}{}",
                rule("keywords = [\"abc\"]\nregex = '''abc'''"),
                &rule("keywords = [\"abc\"]\nregex = '''abc'''")[base.len()..]
            ),
            "defined twice",
        ),
        (
            rule("keywords = [\"abc\"]\nregex = '''abc'''").replace("x-y", "X_y"),
            "kebab-case",
        ),
        (
            rule("keywords = [\"abc\\ndef\"]\nregex = '''abc'''"),
            "spanning lines",
        ),
        (
            rule("keywords = [\"abc\"]\nregex = '''abc'''\nmarker = '''^a'''"),
            "only one of marker, shape",
        ),
    ];
    for (text, expected) in cases {
        match Redactor::from_toml("test.toml", &text) {
            Ok(_) => panic!("accepted:\n{text}"),
            Err(err) => {
                assert_eq!(err.kind, crate::error::ErrorKind::Config);
                assert!(
                    err.message.contains(expected),
                    "`{}` lacks `{expected}`",
                    err.message
                );
                assert!(err.message.starts_with("test.toml: "), "{}", err.message);
            }
        }
    }
}

#[test]
fn every_match_contains_one_of_its_rules_keywords() {
    // A match without its keyword would only be found when another keyword happens to be on
    // the same line: check the positives against each rule's own keywords.
    for (index, (kind, positive, _)) in CASES.iter().enumerate() {
        let (text, _) = expand(positive, kind, index as u64);
        let rule = redactor()
            .table()
            .rules
            .iter()
            .find(|rule| rule.id == *kind)
            .expect("rule exists");
        if rule.recognizer.is_some() || rule.prefilter.is_some() {
            // A recognizer starts at its keywords, a prefiltered rule at its shape, by
            // construction.
            continue;
        }
        let lowered = text.to_ascii_lowercase();
        for found in rule.regex.find_iter(text.as_bytes()) {
            let matched = &lowered.as_bytes()[found.range()];
            assert!(
                rule.keywords
                    .iter()
                    .any(|k| contains(matched, k.as_bytes())),
                "{kind}: match `{}` contains none of {:?}",
                String::from_utf8_lossy(matched),
                rule.keywords
            );
        }
    }
}

#[test]
fn matches_are_widened_to_character_boundaries() {
    // Rules match bytes: a counted repetition can end inside a multi-byte character.
    let table = "default_entropy = 0.0\n[allow]\nplaceholders = []\n[[rule]]\nid = \"cut\"\n\
                 description = \"d\"\nkeywords = [\"key=\"]\nregex = \'\'\'key=(?P<secret>[^ ]{2})\'\'\'\n";
    let redactor = Redactor::from_toml("test.toml", table).expect("valid table");
    assert_eq!(redactor.redact("key=aéz").text, "key=[REDACTED:cut]z");
    assert_eq!(widen_to_characters("aéb".as_bytes(), 2, 2), (1, 3));
}

#[test]
fn entropy_of_known_strings() {
    assert_eq!(shannon_entropy(b"aaaa"), 0.0);
    assert!((shannon_entropy(b"abcd") - 2.0).abs() < 1e-9);
}

#[test]
fn every_builtin_pattern_compiles() {
    // `builtin()` compiles patterns lazily and trusts this test to have compiled them all.
    let toml = include_str!("../../assets/redact/rules.toml");
    let redactor = Redactor::from_toml("assets/redact/rules.toml", toml);
    let redactor = redactor.unwrap_or_else(|err| panic!("{}", err.message));
    // The table and the keyword prefilter build.rs generated are the same as parsed here.
    let builtin = Redactor::builtin();
    assert_eq!(
        builtin.kinds().collect::<Vec<_>>(),
        redactor.kinds().collect::<Vec<_>>()
    );
    assert_eq!(builtin.keywords.literals(), redactor.keywords.literals());
    assert_eq!(builtin.keyword_rules, redactor.keyword_rules);
    assert_eq!(builtin.rule_count, redactor.rule_count);
}

#[test]
fn text_without_keywords_builds_no_rule_table() {
    let redactor = clone_prefilter(Redactor::builtin());
    let redacted = redactor.redact("I renamed `cfg` to `config` in src/parser.rs.");
    assert!(redacted.counts.is_empty());
    assert!(redactor.table.get().is_none(), "the rule table was built");
    let redacted = redactor.redact("token ghp_R8xWq2LmZ0vKc7YtB3nH9sJd4FgP1aEu6oTi here");
    assert!(redacted.counts.contains_key("github-pat"), "{redacted:?}");
}

fn clone_prefilter(redactor: &Redactor) -> Redactor {
    Redactor {
        table: OnceLock::new(),
        rule_count: redactor.rule_count,
        keywords: crate::literals::LiteralIndex::new(redactor.keywords.literals().to_vec()),
        keyword_rules: redactor.keyword_rules.clone(),
        shape_rules: redactor.shape_rules.clone(),
    }
}

#[test]
fn a_table_of_ones_own_can_run_a_rule_at_the_snowflake_prefilter() {
    let table = "default_entropy = 2.5\n[allow]\nplaceholders = []\n[[rule]]\nid = \"bot\"\n\
                 description = \"d\"\nkeywords = []\nprefilter = \"snowflake-token\"\n\
                 regex = '''[A-Za-z0-9_-]{23,27}\\.[A-Za-z0-9_-]{6}\\.[A-Za-z0-9_-]{27,38}'''\n";
    let redactor = Redactor::from_toml("test", table).expect("a valid table");
    let (token, _) = expand("{snowflake}.{u6}.{u38}", "bot", 31);
    let (made_up, _) = expand("M{a23}.{u6}.{u38}", "bot", 32);
    let text = format!("token {token} and {made_up}");
    assert_eq!(
        redactor.redact(&text).text,
        format!("token [REDACTED:bot] and {made_up}")
    );
}

#[test]
fn second_pass_adds_only_generic_secrets() {
    // Found by `scripts/fuzz.sh redact`. The AWS key wins its overlap with the longer generic
    // candidate around it; the generic leftover is only seen by a second pass. Every secret of
    // a specific format is gone after the first pass.
    let input = b"expor@t AWS_ACCESS_KEY_IuD=AKIAIOSFOD7PNXANEMLE\ntoken ghp_0123456789abcdefghijABCDEFGbbbbbbb\xc6bmnopqrACCESS_KEY_IuD=AKIAIIuD=AKI65\xdfACCEY_ID=AKIAIOSFODNN7EXAMPN7";
    let text = String::from_utf8_lossy(input);
    let first = Redactor::builtin().redact(&text);
    assert!(
        !first.text.contains("AKIAIOSFOD7PNXANEMLE"),
        "{}",
        first.text
    );
    let second = Redactor::builtin().redact(&first.text);
    assert!(
        second.counts.keys().all(|kind| kind == "generic-secret"),
        "{:?}",
        second.counts
    );
}

fn scan_with(text: &str, anchoring: bool) -> (Vec<u8>, RedactionCounts) {
    let mut scanner = Scanner::with_anchoring(redactor(), anchoring);
    let mut output = Vec::new();
    scanner.process(text.as_bytes(), &mut output).unwrap();
    scanner.finish(&mut output).unwrap();
    (output, scanner.counts)
}

#[test]
fn searches_anchored_at_keywords_find_what_line_scans_find() {
    let mut texts: Vec<String> = CASES
        .iter()
        .enumerate()
        .map(|(index, (kind, positive, _))| expand(positive, kind, index as u64).0)
        .collect();
    texts.extend(
        NOT_SECRETS
            .iter()
            .enumerate()
            .map(|(index, template)| expand(template, "none", 1000 + index as u64).0),
    );
    // Several secrets and near-misses on one line, in both orders.
    texts.push(texts.join(" "));
    texts.push(texts.iter().rev().cloned().collect::<Vec<_>>().join(" ; "));
    texts.push(texts.join("\n"));
    let mut redacted = 0;
    for text in &texts {
        let scanned = scan_with(text, false);
        redacted += scanned.1.values().sum::<u64>();
        assert_eq!(scan_with(text, true), scanned, "{text}");
    }
    assert!(redacted > 300, "only {redacted} redactions compared");
    let table = redactor().table();
    let anchored = table
        .rules
        .iter()
        .filter(|r| r.anchored().is_some())
        .count();
    let generic = table
        .rules
        .iter()
        .find(|r| r.id == "generic-secret")
        .unwrap();
    assert!(generic.anchored().is_none() && generic.recognizer.is_some());
    assert!(
        anchored * 2 > table.rules.len(),
        "only {anchored} anchored rules"
    );
}

/// Leaks found by trying what agents print: each value must be gone whole, no tail left.
const ASSIGNMENT_LEAKS: &[&str] = &[
    "DB_PASSWORD=«k9;Xq2(vL7]mP4{z»",
    r#"POSTGRES_PASSWORD="«Zx8:pQ3,mN6;rT5»""#,
    "DB_PASSWORD=«a1b2[c3]d4e5f6g7»",
    "ADMIN_PASSWORD=«Gr8<Pass>w0rd77»",
    "SMTP_PASSWORD=«k9example#Q2v»",
    "API_TOKEN=«dummy7Qx2Lp9Wz4Rk»",
    r#"password: "«insert-9Xq2#Lp»""#,
    r#"{"password": "«h7#K2p!x;Lq9»"}"#,
    "PGPASSWORD='«Zx8:pQ3,mN6»' psql -h db.internal -U app",
    "mysqldump --password='«Zx8:pQ3,mN6»' shop",
    "export DB_PASSWORD='«Zx8:pQ3,mN6»'",
    "deploy --password «{a16}» --host prod",
    "deploy --api-key=«{a24}»",
    // One grammar for every format's operators and quoting.
    r#"var adafruitToken string = "«{l32}»""#,
    r#"adafruit_TOKEN ?= "«{l32}»""#,
    r#"adafruit_TOKEN ::= "«{l32}»""#,
    r#"adafruit_TOKEN :::= "«{l32}»""#,
    r#"adafruit_TOKEN += «{l32}»"#,
    r#"$adafruitToken .= "«{l32}»""#,
    r#"System.setProperty("ADAFRUIT_TOKEN", "«{l32}»")"#,
    r#"os.environ["OPENAI_API_KEY"] = "«{a40}»""#,
    r#"putenv("API_SECRET=«{a32}»");"#,
    r#"  "adafruitToken" => "«{l32}»""#,
    r#"let token: &str = "«{a32}»";"#,
    r#"static API_TOKEN: &'static str = "«{a32}»";"#,
    "fastly_token: '«{l12}={l16}»'",
    r#"private static final String CLIENT_SECRET = "«{a32}»";"#,
    r#"<add key="ClearTextPassword" value="«Zx8:pQ3,mN6»" />"#,
    r#"{"config.ini": "ADAFRUIT_TOKEN=«{l32}»\nBACKUP_ENABLED=true"}"#,
    r#"{\"api_key\": \"«{a32}»\"}"#,
    "https://api.acme.io/v1/items?api_key=«{a32}»&page=2",
    "<apiToken>«{a32}»</apiToken>",
    "APP_KEY=«base64:{b43}=»",
    "define( 'SECURE_AUTH_SALT', '«x#1Rk]Jm;Wq@v|8>Zp+3!tN-{a20}»' );",
    "Cookie: sessionid=«{l32}»; theme=dark",
    "Set-Cookie: connect.sid=«s%3A{a24}.{a20}»; Path=/; HttpOnly",
    "aws_secret_access_key = «{b40}»",
    // A value may start with a sigil when what follows is no name.
    "[client]\npassword=«@Vb8,~qLr?Zt3e»",
    // Connection strings: the value ends at the next `;Key=` pair, inside the string too.
    r#"new SqlConnection("Server=tcp:db,1433;User ID=app;Password=«Qz*8k.2t6*@qJ!C4J»;Encrypt=True;")"#,
    r#"<add name="D" connectionString="Server=s;User Id=a;Password=«:,:d*m.tT#~D4*96B»;Trust=True" />"#,
    "jdbc:sqlserver://h:1433;databaseName=x;user=sa;password=«Pq7!zR2#kL9m»;encrypt=true",
    r#""Host=db;Username=app;Password=«Wx4$kP9qLm2Z»""#,
    // A key that only says "key" holds a secret when the value is unmistakably generated;
    // template-like pairs of bytes inside it (`%(`, `${%`) are no template.
    "define( 'LOGGED_IN_KEY', '«{a20}&z;RT|Vz$x[8X:f||B8%[LH4»' );",
    "define( 'NONCE_SALT', '«$*q:@WD6+1zB^EdJ5s)lgb%(e{%/i{Ea:m;;8K!O/P.F#a,4_+»' );",
    // The `value` field of an object or entry named by a secret-like key.
    r#"  "db_admin_password": { "sensitive": true, "value": "«{a12}@=,w&m~N»" }"#,
    "{\n  \"db_password\": {\n    \"sensitive\": true,\n    \"type\": \"string\",\n    \"value\": \"«{a20}»\"\n  },\n  \"region\": {\n    \"value\": \"eu-west-1\"\n  }\n}",
    "env:\n- name: LOG_LEVEL\n  value: debug\n- name: DB_PASSWORD\n  value: \"«{a16}»\"\n- name: NEXT\n  value: plainvalue",
    r#"[{"name": "DB_PASSWORD", "value": "«{a16}»"}, {"name": "PORT", "value": "8080"}]"#,
    "aws cloudformation deploy --parameter-overrides ParameterKey=DbPassword,ParameterValue=«{a16}»",
    // The other fields of such an object are scanned as any line.
    "{\n  \"AccessKey\": {\n    \"UserName\": \"ci\",\n    \"SecretAccessKey\": \"«{b40}»\",\n    \"Status\": \"Active\"\n  }\n}",
];

#[test]
fn assignments_in_every_format_are_redacted_whole() {
    // The value must be replaced exactly (no tail left); a specific rule may claim it before
    // the assignment recognizer does (`aws-secret-key`), so the kind is not compared.
    let any_kind = regex::Regex::new(r"\[REDACTED:[a-z0-9-]+\]").unwrap();
    let mut failures = Vec::new();
    for (index, template) in ASSIGNMENT_LEAKS.iter().enumerate() {
        let (text, expected) = expand(template, "generic-secret", 3000 + index as u64);
        let redacted = redactor().redact(&text);
        if any_kind.replace_all(&redacted.text, "[REDACTED]")
            != any_kind.replace_all(&expected, "[REDACTED]")
        {
            failures.push(format!(
                "  input    {text}\n  expected {expected}\n  got      {}",
                redacted.text
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "assignments leaked:\n{}",
        failures.join("\n")
    );
}

#[test]
fn the_data_maps_of_a_kubernetes_secret_are_redacted_and_a_config_map_stays() {
    let (text, expected) = expand(
        "apiVersion: v1\nkind: Secret\ndata:\n  extra: «{b31}=»\n  tls.key: \"«{b40}»\"\n  \
         .dockercfg: |\n    «{b60}»\n    «{b60}»\n  enabled: true\nstringData:\n  \
         password: «k9;Xq2(vL7]mP4»\nmetadata:\n  name: app\n",
        "generic-secret",
        43,
    );
    let redacted = redactor().redact(&text);
    assert_eq!(redacted.text, expected);
    assert_eq!(redacted.counts.get("generic-secret"), Some(&4));
    for step in [1, 5, 100] {
        assert_eq!(stream(&text, step).0, expected, "step {step}");
    }
    let config_map =
        "kind: ConfigMap\ndata:\n  log_level: debug\n  replicas: \"3\"\n  mode: fast\n";
    assert_eq!(redactor().redact(config_map).text, config_map);
}

#[test]
fn a_multi_line_xml_element_and_a_yaml_block_are_redacted_in_both_modes() {
    let (text, expected) = expand(
        "<config>\n  <apiToken>\n    «{a32}»\n  </apiToken>\n</config>\n",
        "generic-secret",
        41,
    );
    assert_eq!(redactor().redact(&text).text, expected);
    for step in [1, 7, 64] {
        assert_eq!(stream(&text, step).0, expected, "step {step}");
    }
    let (text, _) = expand(
        "db:\n  password: |\n    {a20}\n    {a20}\n  host: db\n",
        "x",
        42,
    );
    let redacted = redactor().redact(&text);
    assert_eq!(
        redacted.text,
        "db:\n  password: |\n    [REDACTED:generic-secret]\n    [REDACTED:generic-secret]\n  host: db\n"
    );
    assert_eq!(redacted.counts.get("generic-secret"), Some(&1));
}

/// Look-alikes: code, names, placeholders and numbers next to secret-like keys.
const ASSIGNMENT_LOOK_ALIKES: &[&str] = &[
    "tokenizer: cl100k_base",
    "let key = secrecy::SecretString::new(&token);",
    "use crate::auth::token::TokenStore;",
    r#"notes = "Maven - io.jsonwebtoken:jjwt-jackson-0.11.2""#,
    "password = getPassword()",
    "token = os.getenv(\"GITHUB_TOKEN\")",
    "const secret = config.auth.secret;",
    "DB_PASSWORD=${DB_PASSWORD}",
    "password: <password>",
    "API_KEY=your-api-key-here",
    r#"api_key = "replace-with-your-api-key""#,
    "password: changeme",
    "password_hash = {h64}",
    "csrf-token={b40}",
    "max_tokens: 4096",
    "session_timeout = 3600",
    "SESSION_DRIVER=file",
    r#"define('AUTH_KEY', 'put your unique phrase here');"#,
    r#"token = "[REDACTED:github-pat]""#,
    "secret: ${{ secrets.DEPLOY_KEY }}",
    r#"telegram_api_token = "token:clm00427:AgencyIdentificationCodeContentType""#,
    "aws_access_key_id = AKIAIOSFODNN7EXAMPLE",
    r#"SUMO_ACCESS_KEY=`etcdctl get /sumologic_secret`"#,
    "if token == null {",
    "auth: required",
    "git push -u origin main && docker run -u 1000:1000 img",
    "curl -u username:password https://localhost:9200",
    "stringData:\n  password: ENC[AES256_GCM,data:{b16}=,iv:{b43}=,tag:{b22}==,type:str]",
    // Sigils before names are code; keys that only say "key" hold names, digests and ids.
    "token = @current_user.token",
    "password = !isEmpty",
    "cache_key = \"{h32}\"",
    "idempotency_key: {uuid}",
    "primary_key = \"users_pkey\"",
    "sort_key: createdAtTimestampIndexKey",
    "foreignKey={a30}",
    "idempotency_key = \"{a32}\"",
    "key: tls.crt",
    "DB_PASSWORD=${DB_PASSWORD};Server=db",
    "- name: password\n  description: the user's password\n  required: true",
    "- name: DB_PASSWORD\n  valueFrom:\n    secretKeyRef:\n      name: db\n      key: password",
    "password_policy = { min_length = 12 }",
    r#""api_token": { "sensitive": true, "value": "${var.api_token}" }"#,
    // A value in a format's look without its documented shape is made up.
    r#"telegram_api_token = "{d4}:Ap{l36}""#,
    r#"telegram_api_token = "{d17}:Ao{l33}""#,
    // Prose and code spans around the new recognizers.
    "- **Database password masked**: `postgresql://testuser:***@localhost:5432/db`",
    r#"{"text": "signup(email: email, password: password,\n      );"}"#,
    "- `getReleasePriceValue()` / `setReleasePriceValue()` are the accessors",
    "the token is `cl100k_base`, the access token is valid for 3600 seconds",
    "The API key is stored in .env as OPENAI_API_KEY; El token es inválido",
    "rename `SomeLongTypeName` / `OtherLongTypeName2` and `feature/login` / `main`",
    "$ vault read -field=policies auth/token/lookup-self\ndefault\n$ ls",
    "$ kubectl get secret db -o jsonpath='{.data.password}'\nError from server (NotFound): secrets \"db\" not found",
    "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==",
];

#[test]
fn look_alikes_next_to_secret_like_keys_stay() {
    let mut failures = Vec::new();
    for (index, template) in ASSIGNMENT_LOOK_ALIKES.iter().enumerate() {
        let (text, _) = expand(template, "none", 4000 + index as u64);
        let redacted = redactor().redact(&text);
        if redacted.text != text {
            failures.push(format!("  input {text}\n  got   {}", redacted.text));
        }
    }
    assert!(
        failures.is_empty(),
        "look-alikes redacted:\n{}",
        failures.join("\n")
    );
}

#[test]
fn key_words_decide_the_key_class() {
    let grammar = redactor().table().assignment.as_ref().unwrap();
    use assign::KeyClass::{Password, Secret};
    for (key, class) in [
        ("DB_PASSWORD", Some(Password)),
        ("PGPASSWORD", Some(Password)),
        ("adafruitToken", Some(Secret)),
        ("secret_key_base", Some(Secret)),
        ("APIKey", Some(Secret)),
        ("APP_KEY", Some(Secret)),
        ("NONCE_SALT", Some(Secret)),
        ("tokenizer", None),
        ("password_file", None),
        ("max_tokens", None),
        ("csrf_token", None),
        ("bypass", None),
        ("monkey", None),
        ("keyVaultToStoreSecrets", None),
    ] {
        assert_eq!(grammar.classify_key(key.as_bytes()), class, "{key}");
    }
}

#[test]
fn words_split_at_case_digits_and_separators() {
    assert_eq!(assign::split_words(b"APIKey"), ["api", "key"]);
    assert_eq!(assign::split_words(b"bot_token4"), ["bot", "token", "4"]);
    assert_eq!(
        assign::split_words(b"new-relicToken"),
        ["new", "relic", "token"]
    );
}

#[test]
fn mapped_redaction_maps_offsets_and_cuts_outside_markers() {
    let (text, _) = expand("before token ghp_{a36} middle «{a3}» after", "x", 51);
    let token_at = text.find("ghp_").unwrap();
    let mapped = redactor().redact_mapped(&text);
    assert_eq!(mapped.text, redactor().redact(&text).text);
    let marker = "[REDACTED:github-pat]";
    let marker_at = mapped.text.find(marker).unwrap();
    assert_eq!(mapped.map(3, Side::Start), 3);
    assert_eq!(mapped.map(token_at + 10, Side::Start), marker_at);
    assert_eq!(
        mapped.map(token_at + 10, Side::End),
        marker_at + marker.len()
    );
    let after = text.find(" middle").unwrap();
    assert_eq!(
        &mapped.text[mapped.map(after, Side::Start)..][..7],
        " middle"
    );
    // A cut inside the marker moves to its start.
    let cut = mapped.widen(marker_at + 5..mapped.text.len());
    assert_eq!(cut.start, marker_at);
    let tail = mapped.tail(mapped.text.len() - marker_at - 5);
    assert!(tail.text.starts_with(marker), "{}", tail.text);
    assert_eq!(tail.counts.get("github-pat"), Some(&1));
    assert!(mapped.tail(10).counts.is_empty());
    assert_eq!(
        tail_of_redacted(&mapped.text, tail.text.len() - 5),
        tail.text
    );
}

#[test]
fn a_multi_line_block_maps_as_one_replacement() {
    let key = multi_line_key(12, 5);
    let text = format!("a\n{key}z");
    let mapped = redactor().redact_mapped(&text);
    assert_eq!(mapped.text, "a\n[REDACTED:private-key]\nz");
    let inside = text.find("-----END").unwrap();
    assert_eq!(mapped.map(inside, Side::Start), 2);
    assert_eq!(
        mapped.map(text.len() - 1, Side::Start),
        mapped.text.len() - 1
    );
}

#[test]
fn the_assignment_rule_is_gated_on_every_qualified_key() {
    let table = redactor().table();
    let rule = table
        .rules
        .iter()
        .find(|r| r.recognizer == Some(rules::Recognizer::Assignment))
        .unwrap();
    let grammar = table.assignment.as_ref().unwrap();
    for qualifier in grammar.key_qualifiers() {
        for separator in ["", "_", "-", "."] {
            let key = format!("{qualifier}{separator}key");
            let gated = rule.keywords.iter().any(|k| key.contains(k.as_str()));
            assert!(gated, "`{key}` reaches the recognizer through no keyword");
        }
    }
}

#[test]
fn a_tail_cut_never_starts_inside_a_secret() {
    let key = multi_line_key(20, 9);
    let (assigned, _) = expand("db_password = «{a24}»\n", "x", 61);
    let (token, _) = expand("«ghp_{a36}»", "x", 62);
    let text = format!("intro\n{key}{assigned}see {token} done\n");
    let pem_at = text.find("-----BEGIN").unwrap();
    let assigned_at = text.find("db_password").unwrap();
    let token_at = text.find("ghp_").unwrap();
    // Cuts inside the PEM body, inside the key of an assignment, inside its value and inside
    // a token: what is left holds no part of that secret, and the redactor finds no tail.
    for (cut, gone) in [
        (pem_at + 200, &key[200..]),
        (assigned_at + 4, &assigned[..assigned.len() - 1]),
        (assigned_at + 20, &assigned[20..assigned.len() - 1]),
        (token_at + 8, &token[8..]),
    ] {
        let tail = tail_outside_secrets(&text, text.len() - cut);
        assert!(text.ends_with(tail));
        let body = gone.lines().find(|line| line.len() > 8).unwrap();
        assert!(
            !tail.contains(&body[body.len() - 8..]),
            "cut {cut}: {tail:?}"
        );
        assert!(tail.ends_with("done\n"), "{tail:?}");
    }
    // A cut outside every secret is the plain cut.
    let plain = text.len() - text.find(" done").unwrap();
    assert_eq!(tail_outside_secrets(&text, plain), " done\n");
    assert_eq!(tail_outside_secrets(&text, text.len() + 5), text);
}

#[test]
fn passwords_in_prose_are_redacted_in_many_languages() {
    let sentences = [
        "the password is «{a14}»",
        "Use the password «{a14}» to log in.",
        "password was changed to «{a14}».",
        "Das Passwort lautet «{a14}»",
        "le mot de passe est «{a14}»",
        "la contraseña es «{a14}»",
        "a senha é «{a14}»",
        "la password è «{a14}»",
        "het wachtwoord is «{a14}»",
        "hasło to «{a14}»",
        "Пароль: «{a14}»",
        "пароль — «{a14}»",
        "密码是 «{a14}»",
        "密码：«{a14}»。",
        "パスワードは«{a14}»です",
        "şifre «{a14}»",
        "비밀번호는 «{a14}»",
        "mật khẩu là «{a14}»",
        "the password is \"«{a14}»\"",
        // A phrase qualifying the word, then a copula or a colon.
        "The password for the reporting replica is «{a14}», user `ro`.",
        "A senha do servidor de testes é «{a14}» e o usuário é `qa`.",
        "Le mot de passe du compte de service est “«{a14}»” pour l'instant.",
        "La contraseña de la base de datos de pruebas es: «{a14}»",
        "Das Passwort für den Build-Server lautet «{a14}», Benutzer ist `ci`.",
        "Пароль от почтового ящика: «{a14}» (логин `bot`).",
        "รหัสผ่านของเซิร์ฟเวอร์ทดสอบ คือ «{a14}» ครับ",
        "Mật khẩu của máy chủ thử nghiệm là «{a14}».",
        "The staging database password is `«{a14}»` — found in the wiki.",
    ];
    for (seed, template) in sentences.iter().enumerate() {
        let (text, expected) = expand(template, "prose-password", 700 + seed as u64);
        assert_eq!(redactor().redact(&text).text, expected, "{text}");
    }
    // French guillemets (the templates' own markers, so spelled out here).
    let (value, _) = expand("{a14}", "prose-password", 799);
    assert_eq!(
        redactor()
            .redact(&format!(
                "le mot de passe de recette est « {value} » (compte `qa`)"
            ))
            .text,
        "le mot de passe de recette est « [REDACTED:prose-password] » (compte `qa`)"
    );
}

#[test]
fn prose_about_passwords_without_one_stays() {
    for text in [
        "The password is required for login.",
        "the password is hashed with bcrypt before storage.",
        "The password is `${DB_PASSWORD}` from the environment.",
        "the password is 12 characters long",
        "Password is Incorrect!",
        "the password is in .env",
        "the password is v2.3.1",
        "password reset to default",
        "Passwort ist falsch, bitte erneut versuchen.",
        "le mot de passe est incorrect",
        "密码是必填项",
        "パスワードは8文字以上",
        "비밀번호는 필수입니다",
        "the password is user-defined",
        "set the password to $PGPASSWORD",
        "passwordless login is enabled",
        "The password for the admin account is stored in 1Password.",
        "The password field is required when the user is Admin123.",
        "the password policy for new accounts is documented in SECURITY.md",
        "Your password must be 12 characters long; the token is rotated daily.",
    ] {
        assert_eq!(redactor().redact(text).text, text);
    }
}

/// The keyword index build.rs embeds is the one `LiteralIndex::new` builds from the same
/// keywords: same literals, same matches.
#[test]
fn the_embedded_keyword_index_is_the_one_built_now() {
    let built = crate::literals::LiteralIndex::new(
        rules::BUILTIN_KEYWORDS
            .iter()
            .map(|(keyword, _)| Literal {
                bytes: Cow::Borrowed(keyword.as_bytes()),
                word_start: false,
                word_end: false,
            })
            .collect(),
    );
    let embedded = &rules::BUILTIN_KEYWORD_INDEX;
    assert_eq!(embedded.literals(), built.literals());
    let text = "export GITHUB_TOKEN=ghp_x; password: hunter2; AKIA…; -----BEGIN PRIVATE KEY-----";
    let found: Vec<(usize, usize)> = embedded.find_iter(text.as_bytes()).collect();
    assert!(found.len() >= 3, "{found:?}");
    assert_eq!(found, built.find_iter(text.as_bytes()).collect::<Vec<_>>());
}

/// A capitalised word under a password key may be the password itself: only a label that
/// names the password (or is several words, or another script) is left as it is.
#[test]
fn a_one_word_password_is_redacted_but_a_label_naming_it_is_not() {
    let redactor = Redactor::builtin();
    for leak in [
        "password: Sunshine99",
        "DB_PASSWORD=Sunshine",
        "\"password\": \"Kennwortx\"",
    ] {
        let out = redactor.redact(leak).text;
        assert!(out.contains("[REDACTED"), "{leak} -> {out}");
    }
    for label in [
        "\"password\": \"Password\"",
        "\"password\": \"Passwort\"",
        "\"password\": \"Mot de passe\"",
        "\"password\": \"Пароль\"",
        "\"forgot_password\": \"Forgot password?\"",
    ] {
        assert_eq!(redactor.redact(label).text, label);
    }
}

#[test]
fn masks_and_markers_anywhere_in_a_value_make_it_no_secret_but_their_look_alikes_do_not() {
    for masked in [
        "sk-****abcd",
        "abc...xyz",
        "ghp_…",
        "••••••",
        "pa###word",
        "xxxx-xxxx",
        "AKIAXXXXXXXX",
        "[REDACTED:github-pat]",
        "<Redacted>",
        "pre[redacted]post",
    ] {
        assert!(
            assign::is_masked_or_templated(masked.as_bytes()),
            "{masked}"
        );
    }
    let (random, _) = expand("{a8}@***26{a4}Xxxx{a4}.{a4}[red{a4}", "none", 77);
    assert!(
        !assign::is_masked_or_templated(random.as_bytes()),
        "{random}"
    );
}

#[test]
fn snowflake_tokens_come_in_order_with_the_keywords_and_each_is_found_once() {
    let (first, _) = expand("{snowflake}.{u6}.{u38}", "none", 78);
    let (second, _) = expand("{snowflake}.{u6}.{u30}", "none", 79);
    let text = format!("password one.two {first}, and then\ntoken x.y.z {second} done. password");
    let redactor = redactor();
    let hits: Vec<(usize, usize)> = redactor.hits(text.as_bytes()).collect();
    let positions: Vec<usize> = hits.iter().map(|&(_, at)| at).collect();
    assert!(positions.is_sorted(), "{hits:?}");
    let tokens: Vec<usize> = hits
        .iter()
        .filter(|&&(hit, _)| hit == redactor.keyword_rules.len())
        .map(|&(_, at)| at)
        .collect();
    assert_eq!(
        tokens,
        [
            text.find(first.as_str()).unwrap(),
            text.find(second.as_str()).unwrap()
        ]
    );
    assert!(
        hits.len() > tokens.len(),
        "the keywords are there too: {hits:?}"
    );
}

#[test]
fn a_match_that_stops_inside_a_run_of_letters_and_digits_takes_the_rest_of_the_run() {
    // A Bitbucket app password is `ATBB` and 32 characters, then a checksum: the format's
    // length is met inside the token, whose rest must not be left behind.
    let (token, _) = expand("ATBB{a32}{h8}", "x", 71);
    for text in [
        format!("https://ana:{token}@bitbucket.org/team/repo.git"),
        format!("BITBUCKET_APP_PASSWORD={token}"),
        format!("{token} was pasted here"),
    ] {
        let redacted = redactor().redact(&text).text;
        assert!(
            !redacted.contains(&token[token.len() - 8..]),
            "a piece of the token is left in {redacted}"
        );
    }
    // `-pSECRET`: a value glued after an option letter keeps the option.
    let text = "mysql -uroot -pQx7vLm2Pz9 shop";
    assert_eq!(
        redactor().redact(text).text,
        "mysql -uroot -p[REDACTED:mysql-password-flag] shop"
    );
}
