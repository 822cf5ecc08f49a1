//! Tuning cases by family of what agents print: passwords in prose in twelve languages,
//! connection strings, cookies, framework secrets, base64-encoded credential files, tool
//! output, command lines, and the look-alikes that must stay. Written from the formats'
//! documentation and from how tools print secrets; they are this crate's own tuning set (the
//! held-out sets are scored elsewhere, never read here).
//!
//! A positive template marks every secret with `«…»`: each must be gone from the output with
//! no piece of it left (no partial leak), and the text around it must stay. A negative
//! template must come out unchanged. Templates use the classes of `super::expand`.

use super::*;

/// (family, templates with `«secret»` spans)
const LEAKS: &[(&str, &[&str])] = &[
    (
        "password in prose",
        &[
            "ok, the password is «{a6}!{a5}» for the staging box",
            "Password: «{a5}#{a4}-{a3}»",
            "the new password for the build user is «{a8}%{a4}», please rotate it",
            "数据库密码是 «{a6}!{a6}»",
            "密码：«{a5}@{a5}»",
            "パスワードは «{a6}#{a4}» です",
            "パスワード: «{a5}-{a6}»",
            "la contraseña es «{a6}.{a5}»",
            "Contraseña: «{a5}*{a5}»",
            "mot de passe : «{a6}!{a4}»",
            "le mot de passe est «{a5}&{a6}»",
            "das Passwort lautet «{a6}%{a5}»",
            "Kennwort: «{a5}!{a5}»",
            "a senha é «{a6}@{a4}»",
            "Senha: «{a5}#{a6}»",
            "пароль: «{a6}!{a5}»",
            "Пароль от сервера — «{a5}%{a5}»",
            "şifre: «{a6}*{a4}»",
            "Parola: «{a5}-{a5}x»",
            "รหัสผ่านคือ «{a6}!{a5}»",
            "รหัสผ่าน: «{a5}@{a5}»",
            "비밀번호는 «{a6}#{a5}»",
            "비밀번호: «{a5}!{a6}»",
            "mật khẩu là «{a6}%{a4}»",
            "Mật khẩu: «{a5}&{a5}»",
            "you can log in with admin / «{a8}!{a3}» on the staging box",
            "credentials: deploy / «{a10}#{a2}»",
            // A qualifier between the word and the copula, a typed password after it (all four
            // classes: words are how people choose them).
            "The password for the staging database is «{L1}{l4}#{L1}{l4}{d4}», rotate it.",
            "La contraseña del Wi-Fi de la oficina es «{L1}{l7}#{d2}» y ya.",
            "Das Passwort für den VPN-Zugang lautet «{L1}{l9}!{d2}» – bitte ändern.",
            "A senha do banco de produção é «{L1}{l3}#{L1}{l3}{d4}», não compartilhe.",
            "Le mot de passe du serveur de prod est «{L1}{l5}!{L1}{l4}{d2}».",
            "รหัสผ่านของเซิร์ฟเวอร์คือ «{L1}{l4}!{L1}{l5}{d2}» อย่าบอกใครนะ",
        ],
    ),
    (
        "connection string",
        &[
            "MONGO_URI=mongodb+srv://app:«{a20}»@cluster0.ab1cd.mongodb.net/prod?retryWrites=true",
            "amqp://svc:«{a16}»@rabbit.internal:5672/vhost",
            "amqps://user:«{a18}»@b-1.mq.us-east-1.amazonaws.com:5671",
            "redis://default:«{a24}»@redis-12345.c1.cloud.redislabs.com:12345",
            "REDIS_URL=rediss://:«{a20}»@cache.internal:6380/0",
            "Server=tcp:db.database.windows.net,1433;Initial Catalog=shop;User ID=admin;Password=«{a8}!{a4}»;Encrypt=True;",
            "\"Default\": \"Data Source=db;Initial Catalog=x;User Id=sa;Pwd=«{a8}#{a3}»;\"",
            "jdbc:mysql://db.internal:3306/shop?user=app&password=«{a14}»&useSSL=true",
            "spring.datasource.url=jdbc:postgresql://db:5432/app?user=app&password=«{a14}»",
            "postgresql://app:«{a16}»@db.internal:5432/app",
            "psql 'host=db.internal port=5432 dbname=app user=app password=«{a14}» sslmode=require'",
            "sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username=\"app\" password=\"«{a16}»\";",
            "nats://app:«{a16}»@nats.internal:4222",
            "pip install --index-url https://user:«{a16}»@pypi.corp.io/simple pkg",
        ],
    ),
    (
        "cookie",
        &[
            "Cookie: sessionid=«{l32}»; csrftoken=abc",
            "Set-Cookie: connect.sid=«s%3A{a32}.{a27}»; Path=/; HttpOnly",
            "Cookie: PHPSESSID=«{l26}»",
            "Set-Cookie: JSESSIONID=«{U32}»; Path=/; Secure",
            "curl -b 'session=«{a48}»' https://app.internal/api/me",
            "curl --cookie \"_myapp_session=«{a48}»\" https://app.internal/",
            "curl 'https://app.internal/' -H \"Cookie: _shop_session=«{a60}»\"",
            "Cookie: XSRF-TOKEN=abc; laravel_session=«{a40}»",
            "document.cookie = \"auth_token=«{a30}»; path=/\"",
            ".app.internal\tTRUE\t/\tTRUE\t1798761600\tsession_token\t«{a40}»",
        ],
    ),
    (
        "framework secret",
        &[
            "SECRET_KEY = '«django-insecure-{l40}!x)»'",
            "secret_key_base: «{h128}»",
            "APP_KEY=«base64:{b43}=»",
            "define( 'AUTH_KEY',         '«{a30}!{a30}»' );",
            "define('SECURE_AUTH_SALT', '«{a40}#{a20}»');",
            "define('NONCE_KEY', '«{a32}-{a31}»');",
            "app.config['SECRET_KEY'] = '«{h32}»'",
            "app.secret_key = '«{h32}»'",
            "NEXTAUTH_SECRET=«{b43}=»",
            "JWT_SECRET=«{a40}»",
            "jwt.sign(payload, '«{a40}»', { expiresIn: '1h' })",
            "app.use(session({ secret: '«{a40}»', resave: false }))",
            "$ cat config/master.key\n«{h32}»",
        ],
    ),
    (
        "tool output",
        &[
            "$ printenv | grep TOKEN\nGITHUB_TOKEN=«ghp_{a36}»",
            "DB_PASS=«{a20}»\nHOME=/root",
            "            \"Env\": [\n                \"POSTGRES_PASSWORD=«{a8}!{a4}»\",\n                \"PATH=/usr/bin\"",
            "{\n  \"db_password\": {\n    \"sensitive\": true,\n    \"type\": \"string\",\n    \"value\": \"«{a10}!{a2}»\"\n  }\n}",
            "$ gh auth token\n«gho_{a36}»",
            "[default]\naws_access_key_id = «AKIA{s16}»\naws_secret_access_key = «{a40}»",
            "$ vault kv get -field=token secret/ci\n«{h64}»",
            "=== myapp Config Vars\nDATABASE_URL: postgres://u:«{a22}»@ec2.compute.amazonaws.com:5432/d",
        ],
    ),
    (
        "command line",
        &[
            "sshpass -p «{a6}!{a5}» ssh root@10.0.0.5",
            "docker run -e MYSQL_ROOT_PASSWORD=«{a8}#{a4}» -d mysql:8",
            "git clone https://deploy:«{a20}»@git.corp.io/team/app.git",
            "smbclient //fs/share -U admin%«{a6}#{a5}»",
            "xfreerdp /v:10.0.0.9 /u:admin /p:«{a6}*{a5}»",
            "7z a -p«{a6}*{a5}» secret.7z files/",
            "x11vnc -passwd «{a6}#{a5}»",
            "az login -u me@corp.io -p «'{a6}%{a5}'»",
            "java -jar jenkins-cli.jar -s http://j:8080 -auth admin:«{a6}@{a5}» build job",
            "echo '«{a6}@{a5}»' | sudo -S apt-get update",
            "ALTER USER 'app'@'%' IDENTIFIED BY «'{a6}!{a5}'»;",
            "CREATE USER scott IDENTIFIED BY «{a10}»;",
            "  psk=\"«{a6}%{a6}»\"",
            "dotnet user-secrets set \"DbPassword\" \"«{a6}*{a5}»\"",
            "ansible_become_pass: «{a6}!{a5}»",
            "kubectl create secret generic db --from-literal=password='«{a6}!{a5}»'",
            "helm install db bitnami/postgresql --set auth.postgresPassword=«{a6}!{a5}»",
            "openssl pkcs12 -export -in c.pem -out c.p12 -passout pass:«{a6}!{a5}»",
        ],
    ),
    (
        "config file",
        &[
            "requirepass «{a8}#{a6}»",
            "masterauth «{a8}%{a6}»",
            "vrrp_instance VI_1 {\n    authentication {\n        auth_pass «{a6}!{a2}»\n    }",
            "[client]\nuser=root\npassword=«{a8}!{a4}»",
            "    environment:\n      - POSTGRES_PASSWORD=«{a8}*{a4}»\n      - POSTGRES_USER=app",
            "define( 'DB_PASSWORD', '«{a8}@{a4}»' );",
            "        'PASSWORD': '«{a8}.{a4}»',",
            "spring.datasource.password=«{a8}-{a4}»",
            "rpcpassword=«{a24}»",
            "| Password | `«{a8}&{a4}»` |",
            "| **DB_PASSWORD** | «{a8}#{a4}» |",
            "{\"content\": \"DB_HOST=db\\nDB_PASSWORD=«{a8}!{a4}»\\nDEBUG=1\"}",
            "enable secret «{a10}»",
            "snmp-server community «{a12}» RW",
            ": PSK «\"{a20}\"»",
            "[smtp.gmail.com]:587 me@gmail.com:«{a16}»",
        ],
    ),
    (
        "provider token in its documented shape, or named by its variable",
        &[
            "GITHUB_TOKEN=«ghp_{a36}»",
            "token: «gho_{a36}»",
            "\"«ghu_{a36}»\"",
            "export GH_TOKEN=«ghs_{a36}»",
            "refresh «ghr_{a36}»",
            "«github_pat_{a22}_{a59}»",
            "CI_TOKEN=\"«glpat-{u20}»\"",
            "runner token «glrt-{u20}»",
            "--registration-token «GR1348941{u20}»",
            "deploy «gldt-{u20}»",
            "«glptt-{h40}»",
            "SLACK_BOT_TOKEN=«xoxb-{d11}-{d12}-{a24}»",
            "«xoxp-{d11}-{d11}-{d12}-{h32}»",
            "«xapp-1-A{U10}-{d13}-{h64}»",
            "webhook: «https://hooks.slack.com/services/T{U8}/B{U10}/{a24}»",
            "DISCORD_TOKEN=«MT{a24}.{u6}.{u38}»",
            "«https://discord.com/api/webhooks/{d18}/{u68}»",
            "TELEGRAM_BOT_TOKEN=«{d10}:AA{u33}»",
            "stripe.api_key = \"«sk_live_{a99}»\"",
            "«rk_live_{a99}»",
            "STRIPE_WEBHOOK_SECRET=«whsec_{a32}»",
            "OPENAI_API_KEY=«sk-proj-{u74}T3BlbkFJ{u74}»",
            "«sk-svcacct-{u74}T3BlbkFJ{u74}»",
            "«sk-admin-{u74}T3BlbkFJ{u74}»",
            "ANTHROPIC_API_KEY=«sk-ant-api03-{u93}AA»",
            "«sk-ant-admin01-{u93}AA»",
            "CLAUDE_CODE_OAUTH_TOKEN=«sk-ant-oat01-{u93}AA»",
            "\"refreshToken\": \"«sk-ant-ort01-{u93}AA»\"",
            "client_secret: «GOCSPX-{u28}»",
            "\"refresh_token\": \"«1//0{u100}»\"",
            "Authorization: Bearer «ya29.{u150}»",
            "OPENROUTER_API_KEY=«sk-or-v1-{h64}»",
            "GROQ_API_KEY=«gsk_{a52}»",
            "XAI_API_KEY=«xai-{a80}»",
            "HF_TOKEN=«hf_{L34}»",
            "REPLICATE_API_TOKEN=«r8_{a37}»",
            "PERPLEXITY_API_KEY=«pplx-{a48}»",
            "LANGSMITH_API_KEY=«lsv2_pt_{h32}_{h10}»",
            "LANGFUSE_SECRET_KEY=«sk-lf-{uuid}»",
            "PINECONE_API_KEY=«pcsk_{a6}_{a64}»",
            "//registry.npmjs.org/:_authToken=«npm_{a36}»",
            "password = «pypi-AgEIcHlwaS5vcmc{u120}»",
            "GEM_HOST_API_KEY: «rubygems_{h48}»",
            "nuget push pkg.nupkg -k «oy2{l43}»",
            "CARGO_REGISTRY_TOKEN=«cio{a32}»",
            "docker login -u bot -p «dckr_pat_{u27}»",
            "X-JFrog-Art-Api: «AKCp{a69}»",
            "SENDGRID_API_KEY=«SG.{u22}.{u43}»",
            "MAILGUN_API_KEY=«key-{h32}»",
            "MAILGUN_API_KEY=«{h32}-{h8}-{h8}»",
            "RESEND_API_KEY=«re_{a8}_{a24}»",
            "X-Shopify-Access-Token: «shpat_{h32}»",
            "«shpss_{h32}»",
            "DIGITALOCEAN_TOKEN=«dop_v1_{h64}»",
            "VAULT_TOKEN=«hvs.{u90}»",
            "VAULT_TOKEN=«s.{a24}»",
            "DOPPLER_TOKEN=«dp.st.prd.{a40}»",
            "«dp.pt.{a43}»",
            "GRAFANA_TOKEN=«glsa_{a32}_{h8}»",
            "«glc_{b80}»",
            "POSTMAN_API_KEY=«PMAK-{h24}-{h34}»",
            "SENTRY_AUTH_TOKEN=«sntrys_eyJ{b100}»",
            "«sntryu_{h64}»",
            "NOTION_TOKEN=«secret_{a43}»",
            "«ntn_{d11}{a35}»",
            "LINEAR_API_KEY=«lin_api_{a40}»",
            "FLY_API_TOKEN=\"FlyV1 «fm2_{b200}»\"",
            "SQUARE_ACCESS_TOKEN=«EAAA{u60}»",
            "«sq0csp-{u43}»",
            "DATABRICKS_TOKEN=«dapi{h32}»",
            "«pscale_tkn_{u43}»",
            "«pscale_pw_{u43}»",
            "SUPABASE_ACCESS_TOKEN=«sbp_{h40}»",
            "SUPABASE_SECRET_KEY=«sb_secret_{u31}»",
            "PULUMI_ACCESS_TOKEN=«pul-{h40}»",
            "token = \"«{a14}.atlasv1.{u67}»\"",
            "BUILDKITE_TOKEN=«bkua_{h40}»",
            "CIRCLECI_TOKEN=«CCIPAT_{a22}_{h40}»",
            "NEW_RELIC_API_KEY=«NRAK-{U27}»",
            "NEW_RELIC_LICENSE_KEY=«{h36}NRAL»",
            "SONAR_TOKEN=«squ_{h40}»",
            "TS_AUTHKEY=«tskey-auth-{a12}CNTRL-{a33}»",
            "DROPBOX_TOKEN=«sl.{u140}»",
            "AIRTABLE_TOKEN=«pat{a14}.{h64}»",
            "FIGMA_TOKEN=«figd_{u40}»",
            "CONTENTFUL_MANAGEMENT_TOKEN=«CFPAT-{u43}»",
            "MAPBOX_SECRET=«sk.eyJ1{b60}.{u22}»",
            "PREFECT_API_KEY=«pnu_{a36}»",
            "OP_SERVICE_ACCOUNT_TOKEN=«ops_eyJ{b200}»",
            "«AGE-SECRET-KEY-1{g58}»",
            "PAYSTACK_SECRET_KEY=«sk_live_{h40}»",
            "BRAINTREE=«access_token$production${l16}${h32}»",
            "HEROKU_API_KEY=«HRKU-AA{u58}»",
            "NETLIFY_AUTH_TOKEN=«nfp_{a36}»",
            "OKTA_API_TOKEN=«00{u40}»",
            "AZURE_CLIENT_SECRET=«{a3}8Q~{u34}»",
            "INFISICAL_TOKEN=«st.{uuid}.{h32}.{h32}»",
            "CLERK_SECRET_KEY=«sk_live_{a40}»",
            "UPSTASH_REDIS_REST_TOKEN=«A{a60}=»",
            "MODAL_TOKEN_SECRET=«as-{a22}»",
            "DD_API_KEY=«{h32}»",
            "DD_APP_KEY=«{h40}»",
            "WANDB_API_KEY=«{h40}»",
            "VERCEL_TOKEN=«{a24}»",
            "CLOUDFLARE_API_TOKEN=«{u40}»",
            "AZURE_OPENAI_API_KEY=«{h32}»",
            "ALGOLIA_API_KEY=«{h32}»",
            "TWILIO_AUTH_TOKEN=«{h32}»",
            "MISTRAL_API_KEY=«{a32}»",
            "COHERE_API_KEY=«{a40}»",
            "RAZORPAY_KEY_SECRET=«{a24}»",
            "SNYK_TOKEN=«{uuid}»",
            "os.environ[\"DD_API_KEY\"] = \"«{h32}»\"",
            "  datadog_api_key: «{h32}»",
            "{\"wandb_api_key\": \"«{h40}»\"}",
            "wandb login «{h40}»",
            "vercel --token «{a24}» deploy",
            "export CF_API_TOKEN='«{u40}»'",
            "$env:AZURE_OPENAI_KEY = \"«{h32}»\"",
            "algolia: { appId: 'ABCD1234EF', apiKey: '«{h32}»' }",
            "client = Mistral(api_key=\"«{a32}»\")",
            "razorpay.Client(auth=(\"rzp_live_{a14}\", \"«{a24}»\"))",
            "snyk auth «{uuid}»",
            "twilio.Client(\"AC{h32}\", \"«{h32}»\")",
        ],
    ),
    (
        "password in prose, more shapes",
        &[
            "the root password is «{a6}#{a4}».",
            "I set the password to «{a6}!{a4}», let me know if it works",
            "Use password «{a8}» to log in",
            "login: admin  pass: «{a6}@{a3}»",
            "user=deploy pw=«{a6}%{a3}»",
            "The password for postgres is `«{a6}&{a4}»`",
            "password: \"«{a6}!{a4}»\"",
            "Your temporary password is: «{a5}-{a5}»",
            "new password → «{a6}$%{a4}»",
            "(password: «{a6}!{a4}»)",
            "密码是«{a6}{d4}»，请妥善保管",
            "服务器的root密码为 «{a6}!{d3}»",
            "数据库密码: «{a6}#{a4}»",
            "账号 admin 密码 «{a6}@{a4}»",
            "パスワードは「«{a6}!{a4}»」です",
            "初期パスワード：«{a6}{d4}»",
            "la contraseña del servidor es «{a6}#{a4}»",
            "usuario: admin, contraseña: «{a6}!{a4}»",
            "le mot de passe du serveur est «{a6}@{a4}»",
            "identifiant : admin / mot de passe : «{a6}!{a4}»",
            "Das Passwort für die Datenbank ist «{a6}%{a4}»",
            "Benutzer: admin Passwort: «{a6}#{a4}»",
            "A senha do banco é «{a6}!{a4}»",
            "usuário: admin senha: «{a6}#{a4}»",
            "Пароль от базы: «{a6}#{a4}»",
            "логин admin, пароль «{a6}!{a4}»",
            "Sunucu şifresi «{a6}#{a4}» olarak ayarlandı",
            "kullanıcı: admin şifre: «{a6}!{a4}»",
            "Parola: «{a6}!{a4}»",
            "Kullanıcı adı app, parola ise «'{a6}&{a4}'».",
            "Kullanıcı adı deploy, şifre ise «{a7}#{a3}»",
            "รหัสผ่านของเซิร์ฟเวอร์คือ «{a6}#{a4}»",
            "ชื่อผู้ใช้ admin รหัสผ่าน «{a6}!{a4}»",
            "서버 비밀번호는 «{a6}#{a4}»입니다",
            "아이디: admin 비밀번호: «{a6}!{a4}»",
            "mật khẩu của máy chủ là «{a6}#{a4}»",
            "tài khoản admin, mật khẩu «{a6}!{a4}»",
        ],
    ),
    (
        "command line, more tools",
        &[
            "mysql -u root -p«{a6}!{a4}» shop",
            "mysql -u root -p'«{a6}!{a4}»' -h db",
            "mysql --user=root --password=«{a6}!{a4}»",
            "mysqldump -uroot -p«{a8}» db > dump.sql",
            "PGPASSWORD=«{a6}!{a4}» psql -h db -U app",
            "PGPASSWORD='«{a6}!{a4}»' pg_dump app",
            "redis-cli -h cache -a «{a8}{d4}» ping",
            "redis-cli -a «'{a6}#{a4}'» --no-auth-warning",
            "AUTH «{a8}{d4}»",
            "AUTH default «{a8}{d4}»",
            "127.0.0.1:6379> AUTH «{a12}»",
            "sshpass -p «'{a6}!{a4}'» scp f root@h:/tmp",
            "curl -u «admin:{a6}!{a4}» https://api.internal/v1",
            "curl --user «'admin:{a6}!{a4}'» https://api.internal",
            "docker login -u admin -p «{a6}!{a4}» registry.corp.io",
            "docker login --password «{a12}» --username bot",
            "htpasswd -b .htpasswd admin «{a6}!{a4}»",
            "htpasswd -bc /etc/nginx/.htpasswd admin «{a8}»",
            "kubectl create secret generic db --from-literal=DB_PASSWORD=«{a6}!{a4}»",
            "keytool -genkey -alias app -keystore app.jks -storepass «{a10}» -keypass «{a10}»",
            "openssl enc -aes-256-cbc -in f -out f.enc -pass pass:«{a12}»",
            "$pw = ConvertTo-SecureString \"«{a6}!{a4}»\" -AsPlainText -Force",
            "ConvertTo-SecureString -String '«{a6}!{a4}»' -AsPlainText -Force",
            "CREATE USER app WITH PASSWORD '«{a6}!{a4}»';",
            "CREATE ROLE app LOGIN PASSWORD '«{a6}!{a4}»';",
            "ALTER ROLE postgres WITH PASSWORD '«{a6}#{a4}»';",
            "CREATE USER 'app'@'%' IDENTIFIED BY «'{a6}!{a4}'»;",
            "GRANT ALL ON *.* TO 'app'@'%' IDENTIFIED BY «'{a6}!{a4}'»;",
            "SET PASSWORD FOR 'app'@'localhost' = PASSWORD(«'{a6}!{a4}'»);",
            "SET PASSWORD FOR 'root'@'localhost' = «'{a6}!{a4}'»;",
            "ALTER LOGIN sa WITH PASSWORD = '«{a6}!{a4}»';",
            "CREATE LOGIN app WITH PASSWORD = '«{a6}!{a4}»';",
            "mongosh \"mongodb://admin:«{a12}»@db:27017\"",
            "mongo -u admin -p «{a6}!{a4}» --authenticationDatabase admin",
            "rabbitmqctl add_user app «{a6}!{a4}»",
            "rabbitmqctl change_password app «{a12}»",
            "echo '«app:{a6}!{a4}»' | chpasswd",
            "echo \"«{a6}!{a4}»\" | passwd --stdin app",
            "net user admin «{a6}!{a4}» /add",
            "wget --user=admin --password=«{a6}!{a4}» https://f.internal/x",
            "lftp -u admin,«{a6}!{a4}» ftp.internal",
            "ldapsearch -x -D \"cn=admin,dc=corp\" -w «{a6}!{a4}» -b dc=corp",
            "sqlcmd -S db -U sa -P «{a6}!{a4}» -Q \"select 1\"",
            "psql \"host=db user=app password=«{a6}!{a4}» dbname=app\"",
            "echo «{a6}!{a4}» | docker login -u admin --password-stdin",
            "vault login «hvs.{u90}»",
            "gh auth login --with-token <<< «ghp_{a36}»",
            "git config --global url.\"https://oauth2:«{a20}»@gitlab.com/\".insteadOf \"https://gitlab.com/\"",
            "mc alias set minio http://minio:9000 admin «{a12}»",
            "smbclient -U admin%«{a10}» //fs/share",
            "mount -t cifs //fs/share /mnt -o username=admin,password=«{a6}!{a4}»",
            "az login --service-principal -u {uuid} -p «{a3}8Q~{u34}» --tenant {uuid}",
            "export MYSQL_PWD=«{a6}!{a4}»",
            "jdbc:oracle:thin:app/«{a10}»@db:1521/ORCL",
            "sqlplus system/«{a10}»@ORCL",
        ],
    ),
    (
        "cookies, framework secrets and tool output, more",
        &[
            "Cookie: _ga=GA1.2.{d9}.{d10}; sessionid=«{l32}»; csrftoken={a32}",
            "set-cookie: __Secure-next-auth.session-token=«{u180}»; Path=/; HttpOnly; Secure",
            "Cookie: __Host-authjs.session-token=«{u120}»",
            "Set-Cookie: remember_user_token=«{u60}--{h40}»; path=/",
            "Cookie: ci_session=«{l40}»",
            "Cookie: wordpress_logged_in_{h32}=«admin%7C{d10}%7C{a43}%7C{h64}»",
            "Cookie: _gh_sess=«{b200}»; user_session=«{u48}»",
            "cookie: user_session=«{u48}»; logged_in=yes",
            "{\"name\": \"sessionid\", \"value\": \"«{l32}»\", \"domain\": \".example.org\"}",
            "{\"name\":\"session\",\"value\":\"«{u100}»\",\"domain\":\"app.internal\",\"path\":\"/\"}",
            "-H 'cookie: session=«{u64}»'",
            "Cookie: JSESSIONID=«{U32}.node1»",
            "Cookie: ASP.NET_SessionId=«{l24}»",
            "Cookie: .AspNetCore.Cookies=«CfDJ8{u300}»",
            "Cookie: sid=«s%3A{u32}.{u43}»",
            "Cookie: token=«{u40}»; theme=dark",
            "Cookie: access_token=«eyJ{u36}.eyJ{u80}.{u43}»",
            "define('AUTH_KEY',         '«{a10}>{a5}|{a4}<{a8}${a6}({a4}{{a5}}{a6}[{a5}]{a4}»');",
            "define( 'SECURE_AUTH_KEY',  '«{a8}+{a4}:{a6}%{a3}~{a6}^{a5}*{a3}<{a10}>{a6}»' );",
            "define('LOGGED_IN_SALT',   '«{a12}&{a4}@{a6}#{a8}-{a4}={a6}_{a8}!{a5}»');",
            "define('NONCE_SALT',       '«{a9}${a9}{{a9}}{a9}({a9}){a9}»');",
            "APP_KEY=«base64:{b43}=»",
            "'key' => env('APP_KEY', '«base64:{b43}=»'),",
            "APP_SECRET=«{h32}»",
            "SECRET_KEY_BASE=«{h128}»",
            "secret_key_base = \"«{h128}»\"",
            "config :my_app, MyAppWeb.Endpoint, secret_key_base: \"«{u64}»\"",
            "$settings['hash_salt'] = '«{u74}»';",
            "'secret' => '«{b48}»',",
            "'passwordsalt' => '«{b30}»',",
            "fernet_key = «{u43}=»",
            "AIRFLOW__CORE__FERNET_KEY=«{u43}=»",
            "SUPERSET_SECRET_KEY=«{b42}»",
            "<machineKey validationKey=\"«{H128}»\" decryptionKey=\"«{H48}»\" validation=\"HMACSHA256\" />",
            "ADMIN_JWT_SECRET=«{b22}==»",
            "jwt.secret=«{a64}»",
            "DJANGO_SECRET_KEY='«{l20}@{l10}(^{l10}&{l8}»'",
            "SECRET_KEY = \"«django-insecure-{l10}#{l10}=+{l10}%{l8}»\"",
            "config.secret_key = '«{h128}»'",
            "SESSION_SECRET=«{a40}»",
            "COOKIE_SECRET=«{a32}»",
            "cookieSecret: '«{a32}»'",
            "ENCRYPTION_KEY=«{b43}=»",
            "$ base64 -w0 ~/.aws/credentials\n«W2RlZmF1bHRdCmF3c19hY2Nlc3Nfa2V5X2lk{b80}»",
            "apiVersion: v1\nkind: Secret\nmetadata:\n  name: db\ntype: Opaque\ndata:\n  DB_PASSWORD: «{b20}»\n  API_KEY: «{b44}»",
            "$ printenv\nSHELL=/bin/bash\nAWS_SECRET_ACCESS_KEY=«{b40}»\nSTRIPE_KEY=«sk_live_{a24}»",
            "$ env | grep -i pass\nDB_PASS=«{a6}!{a4}»\nREDIS_PASSWORD=«{a12}»",
            "\"Env\": [\n    \"MYSQL_ROOT_PASSWORD=«{a6}!{a4}»\",\n    \"MYSQL_DATABASE=shop\"\n]",
            "$ terraform output -json\n{\n  \"db_password\": {\n    \"sensitive\": true,\n    \"type\": \"string\",\n    \"value\": \"«{a16}»\"\n  }\n}",
            "$ gcloud auth print-access-token\n«ya29.{u150}»",
            "{\n  \"accessToken\": \"«eyJ{u36}.eyJ{u200}.{u43}»\",\n  \"expiresOn\": \"2026-12-01 18:00:00\"\n}",
            "$ gh auth status -t\n  ✓ Token: «gho_{a36}»",
            "$ cat ~/.pgpass\ndb.internal:5432:app:app:«{a6}!{a4}»",
            "$ cat ~/.netrc\nmachine api.internal login bot password «{a16}»",
            "$ cat ~/.git-credentials\nhttps://bot:«{a20}»@github.com",
            "$ echo $DB_PASSWORD\n«{a6}!{a4}»",
            "$ kubectl get secret db -o jsonpath='{.data.password}' | base64 -d\n«{a6}!{a4}»",
            "Name                           Value\n----                           -----\nDB_PASSWORD                    «{a6}!{a4}»",
            "root  1234  0.0  java -jar app.jar --spring.datasource.password=«{a12}»",
            "$ heroku config\nDATABASE_URL: postgres://u:«{a22}»@host:5432/d\nSECRET_KEY_BASE: «{h128}»",
            "$ docker compose config\n    environment:\n      POSTGRES_PASSWORD: «{a6}!{a4}»",
            "$ aws sts get-session-token\n{\n    \"Credentials\": {\n        \"AccessKeyId\": \"«ASIA{s16}»\",\n        \"SecretAccessKey\": \"«{b40}»\",\n        \"SessionToken\": \"«{b300}»\"\n    }\n}",
        ],
    ),
    (
        "values at the edges of their syntax",
        &[
            "DB_PASSWORD=«{a4};{a4}({a3}]{a3}{z»",
            "DB_PASSWORD=«{a5}#{a6}»",
            "DB_PASSWORD=\"«{a5}\\\"{a6}»\"",
            "\"password\": \"«{a5}\\\\\\\"{a6}»\"",
            "PASSWORD='«{a5}\"{a4} {a6}»'",
            "export PASS=«{a5}\\$\\&{a6}»",
            "the password is \"«{a5} {a6}»\"",
            "the password is «{a8}.»",
            "Password: «{a6}!.» then press enter",
            "password=«{a6}&{a6}»",
            "https://app.internal/login?user=bob&password=«{a6}%26{a6}»&next=/",
            "\"client_secret\": \"«{a20}»\",\n\"password\": \"«{a8}{{a4}»\"",
            "token: >-\n  «{a40}»\n  «{a40}»",
            "password: |\n  «{a12}»",
            "<password>\n  «{a6}!{a6}»\n</password>",
            "<Password>«{a6}<{a6}»</Password>",
            "<entry key=\"password\">«{a12}»</entry>",
            "<property name=\"password\" value=\"«{a6}!{a4}»\"/>",
            "<add name=\"Db\" connectionString=\"Server=db;User Id=sa;Password=«{a6};{a4}»;\" />",
            "password: «{a6},{a6}»",
            "(token: «{a32}»)",
            "[token=«{a32}»]",
            "api_key: «{a32}»,",
            "`API_KEY=«{a32}»`",
            "**Password:** «{a6}!{a6}»",
            "- Password: `«{a6}!{a6}»`",
            "Password = «{a6}!{a6}» # prod",
            "DB_PASSWORD=«{a6}!{a6}» # rotate monthly",
            "mysql -p«{a6};{a6}» db",
            "curl -H \"Authorization: Bearer «{u40}»\" https://api",
            "curl -H 'X-Api-Key: «{a32}»' https://api",
            "-H \"x-api-key: «{a40}»\"",
            "Authorization: Token «{a40}»",
            "Authorization: Basic «{b24}»",
            "Authorization: «{a40}»",
            "X-Auth-Token: «{a32}»",
            "api-key: «{h32}»",
            "Ocp-Apim-Subscription-Key: «{h32}»",
            "PRIVATE-TOKEN: «glpat-{u20}»",
            "X-Vault-Token: «hvs.{u90}»",
        ],
    ),
    (
        "values spanning quotes, blanks, raw `@` and quote marks",
        &[
            "export DB_PASSWORD='«{a6}'\\''{a8}»'",
            "DB_PASSWORD=\"«{a6}\"'{a8}»'",
            "Authorization: Bearer «eyJ{u30}.eyJ{u120}.{u43}»",
            "Authorization: Bearer «{b40}/{b20}+{b10}==»",
            "token: «eyJ{u30}.eyJ{u120}.{u43}»",
            "access_token=«{u20}.{u30}.{u20}»",
            "DATABASE_URL=postgres://app:«{a6}@{a6}»@db:5432/app",
            "redis://:«{a8}:{a6}»@cache:6379",
            "DB_PASSWORD=«{a6}\\{a8}»",
            "password: «{a6} {a8}»",
            "password: «{a6}\t{a8}»",
            // The second word is random by a digit or an inner capital: a word of small letters
            // after a value is read as prose ("Password: X7hQ2p then press enter").
            "Password: «{a6}» «{a5}{d1}»",
            "STRIPE_KEY=«sk_live_{a24}»;NEXT=1",
            "key: «-----BEGIN EC PRIVATE KEY-----\n{b64}\n{b40}\n-----END EC PRIVATE KEY-----»",
            "«-----BEGIN PRIVATE KEY-----\n    {b64}\n    {b64}\n    {b20}\n    -----END PRIVATE KEY-----»",
            "> «-----BEGIN OPENSSH PRIVATE KEY-----\n> {b70}\n> {b70}\n> -----END OPENSSH PRIVATE KEY-----»",
            "# «-----BEGIN RSA PRIVATE KEY-----\n# {b64}\n# {b64}\n# -----END RSA PRIVATE KEY-----»",
            "\"«-----BEGIN RSA PRIVATE KEY-----\n{b64}\n{b64}\n-----END RSA PRIVATE KEY-----»\"",
            "    1\t«-----BEGIN RSA PRIVATE KEY-----\n     2\t{b64}\n     3\t{b64}\n     4\t-----END RSA PRIVATE KEY-----»",
            "password=«{a12}» user=admin",
            "--password «'{a6} {a6}'»",
        ],
    ),
    (
        "passwords of every printable symbol, in every format",
        &[
            "DB_PASSWORD=«{p16}»",
            "DB_PASSWORD=\"«{p16}»\"",
            "export DB_PASSWORD='«{p16}»'",
            "database:\n  user: app\n  password: «{p16}»\n  host: db",
            "  password: \"«{p16}»\"",
            "password = \"«{p16}»\"",
            "[db]\npassword=«{p16}»\nhost=db",
            "password = «{p16}»",
            "spring.datasource.password=«{p16}»",
            "<password>«{p16}»</password>",
            "<add key=\"DbPassword\" value=\"«{p16}»\" />",
            "{\"user\": \"app\", \"password\": \"«{p16}»\"}",
            "String password = \"«{p16}»\";",
            "DB_PASSWORD = \"«{p16}»\"",
            "conn = psycopg2.connect(host=\"db\", user=\"app\", password=\"«{p16}»\")",
            "const password = '«{p16}»';",
            "password := \"«{p16}»\"",
            "let password = \"«{p16}»\";",
            "$password = '«{p16}»';",
            "'password' => '«{p16}»',",
            "password: '«{p16}»',",
            "var password = \"«{p16}»\";",
            "$password = \"«{p16}»\"",
            "$pw = ConvertTo-SecureString \"«{p16}»\" -AsPlainText -Force",
            "  password = \"«{p16}»\"",
            "stringData:\n  password: \"«{p16}»\"",
            "mysql -u root -p'«{p16}»' -h db",
            "PGPASSWORD='«{p16}»' psql -h db -U app",
            "docker login -u bot -p «'{p16}'» registry.corp.io",
            "The database password is «{p16}» for now.",
            "The password is `«{p16}»`.",
            "数据库密码是 «{p16}»",
            "machine api.corp.io login bot password «{p16}»",
            "--password=«{p16}»",
            "--password '«{p16}»'",
            "sshpass -p «'{p16}'» ssh root@10.0.0.5",
            "curl -u «'admin:{p16}'» https://api.internal",
            // `$(` in a quoted password opens no command: no command's name follows.
            "curl -u «'admin:{a6}$(Kq{a5}'» https://api.internal",
            "DB_PASSWORD='«{a5}$(Zt{a4}»'",
            "docker run -e POSTGRES_PASSWORD='«{p16}»' postgres:16",
            "      POSTGRES_PASSWORD: \"«{p16}»\"",
            "ansible_password: \"«{p16}»\"",
            "CREATE USER app WITH PASSWORD '«{p16}»';",
            "jdbc.password=«{p16}»",
            "2026-12-01 10:00:00 INFO login user=admin password=«{p16}»",
        ],
    ),
    (
        "passwords in prose: verbs and particles of twelve languages",
        &[
            "我把密码改成了 «{a6}#{d4}»",
            "新密码：«{a6}!{d3}»",
            "密码设置为«{a6}{d4}»",
            "初始密码为 «{a6}@{d3}»，首次登录后请修改",
            "密码改为«{a6}%{d3}»了",
            "パスワードを«{a6}#{d4}»に変更しました",
            "新しいパスワード: «{a6}!{d3}»",
            "初期パスワードは「«{a6}{d4}»」です",
            "비밀번호를 «{a6}#{d4}»로 변경했습니다",
            "새 비밀번호: «{a6}!{d3}»",
            "초기 비밀번호 «{a6}{d4}»",
            "cambié la contraseña a «{a6}#{d4}»",
            "la nueva contraseña es «{a6}!{d3}»",
            "usa la contraseña «{a6}{d4}» para entrar",
            "contraseña temporal: «{a6}@{d3}»",
            "j'ai changé le mot de passe en «{a6}#{d4}»",
            "le nouveau mot de passe est «{a6}!{d3}»",
            "utilise le mot de passe «{a6}{d4}»",
            "mdp : «{a6}@{d3}»",
            "ich habe das Passwort auf «{a6}#{d4}» geändert",
            "neues Passwort: «{a6}!{d3}»",
            "das Kennwort lautet «{a6}{d4}»",
            "PW: «{a6}@{d3}»",
            "mudei a senha para «{a6}#{d4}»",
            "a nova senha é «{a6}!{d3}»",
            "use a senha «{a6}{d4}»",
            "я поменял пароль на «{a6}#{d4}»",
            "новый пароль: «{a6}!{d3}»",
            "пароль — «{a6}{d4}»",
            "используй пароль «{a6}@{d3}»",
            "şifreyi «{a6}#{d4}» olarak değiştirdim",
            "yeni şifre: «{a6}!{d3}»",
            "şifre «{a6}{d4}»",
            "เปลี่ยนรหัสผ่านเป็น «{a6}#{d4}»",
            "รหัสผ่านใหม่คือ «{a6}!{d3}»",
            "รหัสผ่าน: «{a6}{d4}»",
            "đổi mật khẩu thành «{a6}#{d4}»",
            "mật khẩu mới là «{a6}!{d3}»",
            "mật khẩu: «{a6}{d4}»",
            "I changed the password to «{a6}#{d4}»",
            "use password «{a6}!{d3}»",
            "pw is «{a6}@{d3}»",
            "the passphrase is «{l6}-{l6}-{l6}-{l6}»",
            "The admin password was reset to «{a6}!{d3}».",
            "Root password: «{a6}{d4}»",
            "DB password is «{a6}@{d3}» (don't share)",
            "Wi-Fi password: «{a6}{d4}»",
            "password for user deploy: «{a6}#{d4}»",
            "Here are the credentials:\n- Username: admin\n- Password: «{a6}!{d3}»",
            "Username: `admin`\nPassword: `«{a6}{d4}»`",
            "ssh root@10.0.0.5 (password: «{a6}@{d3}»)",
            "密码是«{a6}{d4}»，用户名是admin",
            "密码为：«{a6}!{d3}»。",
            "用户名：admin，密码：«{a6}@{d3}»",
            "登录密码“«{a6}{d4}»”",
            "パスワード：«{a6}{d4}»、ユーザー名：admin",
            "비밀번호: «{a6}{d4}» 입니다",
            "пароль «{a6}{d4}»",
            "пароль: «{a6}!{d3}», логин: admin",
            "Пароль — «{a6}{d4}».",
            "Passwort ist: «{a6}{d4}».",
            "das Passwort ist „«{a6}{d4}»“",
            "mot de passe: «{a6}{d4}».",
            "contraseña: «{a6}{d4}».",
            "Contraseña del wifi: «{a6}{d4}»",
            "senha: «{a6}{d4}»,",
            "a senha do wifi é «{a6}{d4}»",
            "şifre «{a6}{d4}»",
            "şifresi: «{a6}{d4}»",
            "Şifreniz: «{a6}{d4}»",
            "รหัสผ่าน «{a6}{d4}»",
            "mật khẩu: «{a6}{d4}».",
            "Mật khẩu mới là «{a6}{d4}»",
            "The password is '«{a6}{d4}»'.",
            "password:«{a6}{d4}»",
            "Password - «{a6}{d4}»",
            "pass: «{a6}{d4}»",
            "Pass: «{a6}{d4}»",
            "PW: «{a6}{d4}»",
            "pwd: «{a6}{d4}»",
            "WiFi password: «{a6}{d4}»",
            "SSID: office / password «{a6}{d4}»",
            "user: admin, password: «{a6}{d4}»",
            "I've changed the DB password to «{a6}{d4}» and restarted",
            "the API key is «{a32}»",
            "your token: «{a40}»",
            "here's my key: «sk-{a48}»",
            "use this token «{u40}» for the deploy",
        ],
    ),
    (
        "keys named only by their provider's variable, header or call",
        &[
            "DD_API_KEY=«{h32}» datadog-agent run",
            "docker run -d -e DD_API_KEY=«{h32}» gcr.io/datadoghq/agent:7",
            "api_key: «{h32}»",
            "DATADOG_APP_KEY: \"«{h40}»\"",
            "curl -H \"DD-API-KEY: «{h32}»\" -H \"DD-APPLICATION-KEY: «{h40}»\" https://api.datadoghq.com/api/v1/validate",
            "export WANDB_API_KEY=«{h40}»",
            "machine api.wandb.ai\n  login user\n  password «{h40}»",
            "VERCEL_TOKEN: «{a24}»",
            "vercel deploy --prod --token=«{a24}»",
            "CLOUDFLARE_API_TOKEN=\"«{u40}»\"",
            "CF_API_KEY=«{h37}»",
            "X-Auth-Key: «{h37}»",
            "curl -H \"Authorization: Bearer «{u40}»\" https://api.cloudflare.com/client/v4/user/tokens/verify",
            "AZURE_OPENAI_API_KEY=«{h32}»",
            "curl $AZURE_OPENAI_ENDPOINT/openai/deployments/gpt-4o/chat/completions -H \"api-key: «{h32}»\"",
            "client = AzureOpenAI(api_key=\"«{h32}»\", api_version=\"2024-02-01\", azure_endpoint=\"https://x.openai.azure.com\")",
            "ALGOLIA_ADMIN_API_KEY=«{h32}»",
            "TWILIO_AUTH_TOKEN=\"«{h32}»\"",
            "client = Client(\"AC{h32}\", \"«{h32}»\")",
            "curl -u AC{h32}:«{h32}» https://api.twilio.com/2010-04-01/Accounts.json",
            "MISTRAL_API_KEY=«{a32}»",
            "client = MistralClient(api_key=\"«{a32}»\")",
            "COHERE_API_KEY=«{a40}»",
            "CO_API_KEY=«{a40}»",
            "co = cohere.ClientV2(api_key=\"«{a40}»\")",
            "RAZORPAY_KEY_SECRET=«{a24}»",
            "client = razorpay.Client(auth=(\"rzp_live_{a14}\", \"«{a24}»\"))",
            "SNYK_TOKEN=«{uuid}»",
            "SNYK_TOKEN: ${{ secrets.SNYK_TOKEN }}\n  run: snyk test --auth «{uuid}»",
            "HEROKU_API_KEY=«{uuid}»",
            "\"heroku_api_key\": \"«{uuid}»\"",
            "NEW_RELIC_LICENSE_KEY: «{h40}»",
            "SENDGRID_API_KEY=«SG.{u22}.{u43}»",
            "MAILCHIMP_API_KEY=«{h32}-us21»",
            "PAGERDUTY_TOKEN=«{u20}»",
            "OPSGENIE_API_KEY=«{uuid}»",
            "ROLLBAR_ACCESS_TOKEN=«{h32}»",
            "BUGSNAG_API_KEY=«{h32}»",
            "LAUNCHDARKLY_SDK_KEY=«sdk-{uuid}»",
            "CONTENTFUL_ACCESS_TOKEN=«{u43}»",
            "ZENDESK_API_TOKEN=«{a40}»",
            "INTERCOM_ACCESS_TOKEN=«dG9rOj{b40}=»",
            "ASANA_TOKEN=«2/{d16}/{d16}:{h32}»",
            "CLICKUP_API_KEY=«pk_{d8}_{U32}»",
            "JIRA_API_TOKEN=«ATATT3xFfGF0{u180}»",
            "TRELLO_TOKEN=«ATTA{h64}»",
            "MONGODB_ATLAS_PRIVATE_KEY=«{uuid}»",
            "ELASTIC_PASSWORD=«{a20}»",
            "KIBANA_ENCRYPTION_KEY=«{a32}»",
            "TOGETHER_API_KEY=«{h64}»",
            "FIREWORKS_API_KEY=«fw_{a24}»",
            "DEEPSEEK_API_KEY=«sk-{h32}»",
            "GEMINI_API_KEY=«AIza{u35}»",
            "VOYAGE_API_KEY=«pa-{u43}»",
            "ELEVENLABS_API_KEY=«sk_{h48}»",
            "ASSEMBLYAI_API_KEY=«{h32}»",
            "DEEPGRAM_API_KEY=«{h40}»",
            "SERPAPI_API_KEY=«{h64}»",
            "BROWSERBASE_API_KEY=«bb_live_{u27}»",
            "E2B_API_KEY=«e2b_{h40}»",
        ],
    ),
    (
        "tool output: dumps, JSON of secret stores, tables, files printed",
        &[
            "declare -x DB_PASSWORD=\"«{a6}!{a6}»\"",
            "Environment=DB_PASSWORD=«{a6}!{a6}» API_KEY=«{a32}»",
            "{\n    \"ARN\": \"arn:aws:secretsmanager:us-east-1:123456789012:secret:prod/db-AbCdEf\",\n    \"Name\": \"prod/db\",\n    \"SecretString\": \"{\\\"username\\\":\\\"admin\\\",\\\"password\\\":\\\"«{a6}!{a8}»\\\"}\",\n    \"VersionId\": \"{uuid}\"\n}",
            "{\n  \"attributes\": {\n    \"enabled\": true\n  },\n  \"id\": \"https://kv-prod.vault.azure.net/secrets/db-password/{h32}\",\n  \"name\": \"db-password\",\n  \"tags\": {},\n  \"value\": \"«{a6}!{a8}»\"\n}",
            "{\n    \"Parameter\": {\n        \"Name\": \"/prod/db/password\",\n        \"Type\": \"SecureString\",\n        \"Value\": \"«{a6}!{a8}»\",\n        \"Version\": 3\n    }\n}",
            "$ helm get values db\npostgresql:\n  auth:\n    password: «{a6}!{a8}»",
            "$ op item get prod-db --fields password\n«{a6}!{a8}»",
            "$ security find-generic-password -s github -w\n«ghp_{a36}»",
            "$ heroku config:get DATABASE_URL\npostgres://u:«{a22}»@ec2.compute-1.amazonaws.com:5432/d",
            "$ cat .env\nDB_HOST=db\nDB_PASSWORD=«{a6}!{a6}»",
            "$ cat ~/.npmrc\n//registry.npmjs.org/:_authToken=«npm_{a36}»",
            "$ cat ~/.pypirc\n[pypi]\nusername = __token__\npassword = «pypi-AgEIcHlwaS5vcmc{u100}»",
            "$ cat ~/.config/gh/hosts.yml\ngithub.com:\n    oauth_token: «gho_{a36}»\n    user: me",
            "$ cat ~/.aws/credentials\n[default]\naws_access_key_id = «AKIA{s16}»\naws_secret_access_key = «{b40}»",
            "$ cat ~/.docker/config.json\n{\n  \"auths\": {\n    \"ghcr.io\": {\n      \"auth\": \"«{b40}»\"\n    }\n  }\n}",
            "$ cat ~/.kube/config\nusers:\n- name: admin\n  user:\n    token: «{a40}»",
            "$ cat /etc/mysql/debian.cnf\n[client]\nhost     = localhost\nuser     = debian-sys-maint\npassword = «{a16}»",
            "$ cat terraform.tfstate | jq '.resources[].instances[].attributes.password'\n«\"{a6}!{a8}\"»",
            "$ kubectl get secret db -o yaml\napiVersion: v1\ndata:\n  password: «{b24}»\nkind: Secret",
            "$ kubectl get secret db -o json\n{\n    \"apiVersion\": \"v1\",\n    \"data\": {\n        \"password\": \"«{b24}»\"\n    },\n    \"kind\": \"Secret\"\n}",
            "$ docker exec db env\nPATH=/usr/bin\nPOSTGRES_PASSWORD=«{a6}!{a6}»",
            "$ ps auxe | grep app\napp 1 0.0 node server.js DB_PASSWORD=«{a6}!{a6}» NODE_ENV=production",
            "$ git config --get remote.origin.url\nhttps://x-access-token:«ghs_{a36}»@github.com/org/repo.git",
            "$ vault kv get secret/db\n====== Data ======\nKey         Value\n---         -----\npassword    «{a6}!{a8}»\nusername    app",
            "$ doppler secrets\n│ DB_PASSWORD │ «{a6}!{a8}» │",
            "| DB_PASSWORD | «{a6}!{a8}» |",
            "$ gcloud auth application-default print-access-token\n«ya29.{u150}»",
            "$ aws ecr get-login-password --region us-east-1\n«eyJ{b200}»",
            "$ az account get-access-token --query accessToken -o tsv\n«eyJ{u36}.eyJ{u150}.{u43}»",
            "$ npm token create\n┌────────┬──────────────────────────────────────────┐\n│ token  │ «npm_{a36}» │",
        ],
    ),
    (
        "commands with passwords of typed symbols",
        &[
            "mysql -uroot -p«'{q16}'»",
            "mysql --password=«{q16}» -u root",
            "mysqldump -u backup --password=«'{q16}'» --all-databases",
            "mysqladmin -u root -p«'{q16}'» status",
            "export PGPASSWORD='«{q16}»'",
            "redis-cli -h cache -p 6379 -a «'{q16}'» ping",
            "AUTH «{q16}»",
            "127.0.0.1:6379> AUTH default «{q16}»",
            "sshpass -p «'{q16}'» ssh -o StrictHostKeyChecking=no deploy@10.0.0.7",
            "curl -u «'deploy:{q16}'» https://nexus.internal/service/rest",
            "curl --user «\"admin:{q16}\"» https://jenkins.internal/api/json",
            "docker login registry.corp.io -u ci -p «'{q16}'»",
            "docker login --username ci --password «\"{q16}\"» registry.corp.io",
            "htpasswd -b /etc/nginx/.htpasswd admin «'{q16}'»",
            "htpasswd -bc .htpasswd admin «\"{q16}\"»",
            "kubectl create secret generic db --from-literal=password='«{q16}»'",
            "keytool -importkeystore -srckeystore a.p12 -srcstorepass «'{q16}'» -deststorepass «'{q16}'»",
            "openssl pkcs12 -in cert.p12 -nodes -passin pass:«'{q16}'»",
            "$secure = ConvertTo-SecureString -String «\"{q16}\"» -AsPlainText -Force",
            "ConvertTo-SecureString «'{q16}'» -AsPlainText -Force",
            "CREATE USER app_rw WITH PASSWORD '«{q16}»';",
            "CREATE ROLE reporting LOGIN PASSWORD '«{q16}»';",
            "ALTER USER postgres WITH ENCRYPTED PASSWORD '«{q16}»';",
            "CREATE USER 'app'@'%' IDENTIFIED BY «'{q16}'»;",
            "ALTER USER 'root'@'localhost' IDENTIFIED WITH mysql_native_password BY «'{q16}'»;",
            "SET PASSWORD FOR 'app'@'%' = «'{q16}'»;",
            "CREATE LOGIN app WITH PASSWORD = '«{q16}»';",
            "sqlcmd -S db -U sa -P «'{q16}'» -Q 'SELECT 1'",
            "mongosh -u admin -p «'{q16}'» --authenticationDatabase admin",
            "psql \"postgresql://app:«{q16}»@db:5432/app\"",
            "psql 'host=db user=app password=«{q16}» dbname=app'",
            "rabbitmqctl add_user app «'{q16}'»",
            "ldapsearch -x -D cn=admin,dc=corp -w «'{q16}'» -b dc=corp",
            "wget --user=ci --password=«'{q16}'» https://files.internal/a.tgz",
            "git clone https://ci:«{q16}»@git.internal/org/repo.git",
            "helm upgrade db bitnami/postgresql --set auth.password='«{q16}»'",
            "docker run -e MYSQL_ROOT_PASSWORD='«{q16}»' mysql:8",
            "az login -u admin@corp.io -p «'{q16}'»",
            "vault kv put secret/db password='«{q16}»'",
            "gh secret set DB_PASSWORD --body «'{q16}'»",
            "zip -P «'{q16}'» backup.zip db.sql",
            "7z a -p«'{q16}'» backup.7z db.sql",
            "ansible-playbook site.yml -e ansible_become_pass='«{q16}»'",
            "mount -t cifs //fs/s /mnt -o username=svc,password='«{q16}»'",
        ],
    ),
    (
        "generated values that read as words by chance",
        &[
            // Small letters and digits: random text is pronounceable as often as not.
            "Cookie: ci_session=«{l40}»; path=/",
            "Set-Cookie: sessionid=«{l32}»; HttpOnly; Path=/",
            "PHPSESSID=«{l26}»",
            "SESSION_SECRET=«{l48}»",
            "api_token: «{l40}»",
            "export CLIENT_SECRET=«{l32}»",
            "\"session_token\": \"«{l64}»\"",
            // Mixed case broken into small fragments by its capitals.
            "SECRET_KEY=«{L40}»",
            "AUTH_TOKEN=«{L24}{d2}{L8}»",
            "x-api-key: «{L32}»",
            // Letters broken by digits after a qualified password word in prose.
            "the password of the guest wifi is «HK{d3}MZ{d4}»",
            "la contraseña del router es «{U4}{d3}{U2}{d2}»",
            "das Passwort für den Server lautet «{L5}{d2}{L3}{d2}»",
            // Random case around `.` or `::` is typed, not a member or a path.
            "the password is «{L6}.{L6}»",
            "mysql --password=«{L8}::{L6}» -u root",
            "DB_PASSWORD=«{L6}.{L5}.{d2}»",
            // A password holding `=` is no typed declaration (`password: str = …`).
            "password: «{a6}={a3}}{a3}»",
            "Password: «{L2}{d1}{L3}={a3}:{a3}»",
            "the password is «{a6}={a3}%{a3}»",
            // Unpadded base64 in a Secret's data map, with or without digits.
            "data:\n  DB_PASSWORD: «{L20}»\n  API_TOKEN: «{b32}»",
        ],
    ),
    (
        "passphrases, settings lines and labelled prose",
        &[
            // Words a generator joins with hyphens are a password, in any format.
            "DB_PASSWORD=«{w}-{w}-{w}-{w}»",
            "password: «{w}-{w}-{w}-{w}»",
            "\"password\": \"«{w}-{w}-{w}-{w}-{w}»\"",
            "<Password>«{w}-{w}-{w}-{w}»</Password>",
            "mongodb://admin:«{w}-{w}-{w}-{w}»@localhost:27017/app",
            "The root password is «{w}-{w}-{w}-{w}»",
            "WPA passphrase: «{w}-{w}-{w}-{w}»",
            // A Dockerfile's ENV and ARG and cmd.exe's set are lines of settings.
            "ENV DB_PASSWORD=«{w}{w}»",
            "ARG ADMIN_PASSWORD=«{w}{w}»",
            "set DB_PASSWORD=«{w}{w}»",
            // redis.conf's password directives take any password.
            "requirepass «{w}-{w}-{w}-{w}»",
            "requirepass «{a6}{d3}»",
            // A label ending with a colon gives its value as a form does.
            "Password for user deploy: «{L6}{d3}#{a2}»",
            "[sudo] password for bob: «{a5}{d2}{a3}»",
            "Kennwort für den Dienst: «{a6}!{d3}»",
        ],
    ),
    (
        "session cookies named `…_id`",
        &[
            "curl -b 'session_id=«{a40}»' https://app.internal/api",
            "Cookie: theme=dark; session_id=«{a32}»",
            "Set-Cookie: sessionId=«{u43}»; Path=/; HttpOnly",
            "document.cookie = \"auth_id=«{a40}»; path=/\"",
            "curl --cookie \"sess_id=«{l32}»\" https://app.internal",
        ],
    ),
    (
        // A crypt hash given as a user's password is cracked back into it offline, as the
        // `password-hash` rule says of htpasswd and shadow lines; under a key naming the hash
        // (`password_hash = "$argon2id$…"`) it stays, as a look-alike below.
        "crypt hashes given as the password",
        &[
            "password: «$2b$12${a53}»",
            "  \"password\": \"«$2y$10${a53}»\"",
        ],
    ),
    (
        "salts and keys with blanks among their symbols",
        &[
            "define( 'AUTH_KEY',         '«{p30} {p33}»' );",
            "define( 'SECURE_AUTH_KEY',  '«{p20} {p20} {p22}»' );",
            "define('LOGGED_IN_SALT', '«{p40} {p23}»');",
            "define( \"NONCE_SALT\", \"«{p12} {p25} {p25}»\" );",
            "WORDPRESS_AUTH_SALT='«{p31} {p32}»'",
            // Unquoted in a `.env`: a quote inside the salt closes nothing.
            "WORDPRESS_NONCE_SALT=«{a2}{p18}{a1}`{a1}{p20}{a1}\"{a1}{p22}»",
            "AUTH_KEY=«{a2}{p28}{a1}'{a1}{p33}»",
            "  auth_key: \"«{p50} {p13}»\"",
        ],
    ),
    (
        "URL passwords holding raw `/`, `#`, `?` and quotes",
        &[
            "DATABASE_URL=postgres://app:«{a4}/{a4}#{a3}»@db.internal/app",
            "postgres://admin:«{a3}'{a3}\"{a2}/{a2}#{a1}»@db.internal:5432/app",
            "mysql://root:«{a5}?{a3}/{a4}»@127.0.0.1:3306/shop",
            "url = \"https://deploy:«{a6}/{a6}»@git.internal/org/repo.git\"",
            "redis://:«{a4}@{a4}#{a3}»@cache.internal:6379/0",
            "https://ci:«{a12}»@registry.npmjs.org/@types/node",
        ],
    ),
    (
        "JSON Web Tokens wrapped over lines",
        &[
            "Authorization: Bearer «eyJ{u30}.»\n  «eyJ{u60}.»\n  «{u43}»\ndone",
            "token: «eyJ{u30}.eyJ{u20}»\n«{u40}.{u43}»\nnext",
            "«eyJ{u30}.»\n«eyJ{u50}.{u43}»\nDone.",
            "  \"id_token\": \"«eyJ{u30}.eyJ{u60}.»\n«{u43}»",
        ],
    ),
    (
        "passphrases of words",
        &[
            "password: «{w} {w} {w} {w}»",
            "WIFI_PASSWORD=\"«my {w} is {w} 42»\"",
            "passphrase is \"«{w} {w} {w} {w}»\"",
            // After an ASCII copula a sentence may go on with words: only quoted there.
            "the wifi password is \"«{w} {w} {w} {w}»\"",
            "wifi password: «{w} {w} {w} {w}»",
            "\"password\": \"«{w} {w} {w} {w} {w}»\"",
            "密码是 «{w} {w} {w} {w}»",
            "Passwort: «{w} {w} {w}»",
        ],
    ),
    (
        "bare provider tokens in their documented shapes",
        &[
            "modal token set --token-id «ak-{a22}» --token-secret «as-{a22}»",
            "export MODAL_TOKEN_SECRET=«as-{a22}»",
            "the workspace token is «ak-{a22}» / «as-{a22}»",
        ],
    ),
    (
        "session cookies named after the site, or in prose",
        &[
            "Cookie: wordpress_sec_{h32}=«admin%7C{d10}%7C{a43}%7C{h64}»; wp-settings-time-1={d10}",
            "Set-Cookie: wordpress_{h32}=«admin%7C{d10}%7C{a43}%7C{h64}»; path=/wp-admin; HttpOnly",
            "cookie: remember_web_{h40}=«eyJ{a60}%3D»",
            "the session cookie is «{a32}»",
            "session id: «{l32}»",
        ],
    ),
    (
        "user and password pairs and resets in prose",
        &[
            "credentials are admin:«{L3}{d2}#{a5}»",
            "login with root/«{a4}!{a4}»",
            "The password for the 'deploy' user has been reset to «{L2}{d1}!{l3}{d1}{L2}».",
            "the password of the staging box was changed to «{L2}{d2}%{l4}{d1}»",
        ],
    ),
    (
        "WordPress salts under a key that only says key",
        &[
            "define( 'LOGGED_IN_KEY',    '«{p30} {p33}»' );",
            "define('LOGGED_IN_KEY', '«{p20} {p20} {p22}»');",
            "  \"logged_in_key\": \"«{p40} {p23}»\",",
        ],
    ),
    (
        "values with quotes escaped inside them",
        &[
            "{\"input\": \"{\\\"password\\\": \\\"«{a6}\\\\\\\"{a6}»\\\"}\"}",
            "password = '«{a4}\\'{a6}»'",
            "$pass = '«{a5}\\'{a3}!{a2}»';",
            "the password is \"«{a5}\\\"{a5}»\" now",
            "\"password\": \"«{a5}\\\"{a5}»\"",
        ],
    ),
    (
        "passwords in prose: definite forms and copulas of more languages",
        &[
            "lösenordet är «{a6}!{a4}»",
            "passordet er «{a6}#{a4}»",
            "adgangskoden er «{a5}%{a5}»",
            "parola este «{a6}*{a4}»",
            "كلمة المرور هي «{a6}!{a5}»",
            "पासवर्ड है «{a6}@{a4}»",
            "הסיסמה היא «{a6}#{a4}»",
            "ο κωδικός είναι «{a6}!{a4}»",
            "kata sandinya adalah «{a6}%{a4}»",
            "the pass is «{a6}!{a4}»",
        ],
    ),
    (
        "passwords of a key store, in Java properties and Gradle",
        &[
            "keystorePassword=«{a6}!{a4}»",
            "KEYSTORE_PASSWORD: «{a12}»",
            // A directive's value is its whole word, quotes and all.
            "storePassword «\"{a12}\"»",
        ],
    ),
    (
        "session cookies under names of their framework",
        &[
            "Cookie: SESS{h32}=«{a43}»",
            "Cookie: frontend=«{l26}»; frontend_cid={a8}",
            "Cookie: li_at=«{a40}»; lang=v=2&lang=en-us",
            "Cookie: SID=«{a40}»; HSID=«{a17}»; SSID=«{a17}»",
            "Set-Cookie: PrestaShop-{h32}=«{a60}»; path=/; HttpOnly",
            "< set-cookie: _identity=«{a40}»; path=/; httponly",
        ],
    ),
    (
        "user:password on more command lines",
        &[
            "curl -u«admin:{a6}!{a4}» https://api.internal",
            "curl --proxy-user «u:{a12}» https://api.internal",
            "curl -U «u:{a12}» https://api.internal",
            "http --auth «admin:{a12}» GET api.internal/me",
        ],
    ),
    (
        "passwords ending with a symbol in prose",
        &[
            "Passwort: «{L6}{d4}!»",
            "密码：«{a8}{d2}!»",
            "the password is «{a6}{d3}!»",
        ],
    ),
    (
        "Dockerfile ENV and ARG, space and equals forms",
        &[
            "ENV DB_PASSWORD «{a8}!{a4}»",
            "ENV MYSQL_ROOT_PASSWORD «{q14}»",
            "ENV API_SECRET «{a32}»\nRUN make",
            "ENV APP_ENV=production API_SECRET=«{a32}»",
            "ARG NPM_TOKEN=«npm_{a36}»",
            "ARG DB_PASSWORD=«{a10}#{a3}»",
            "ARG DB_PASSWORD=\"«{a6}!{a6}»\"",
            "ENV POSTGRES_PASSWORD=«{a6}%{a6}» \\\n    POSTGRES_USER=app",
            "env API_TOKEN «{a40}»",
        ],
    ),
    (
        "installer and command-line flags with a blank before the value",
        &[
            "rootpw --plaintext «{a6}!{a5}»",
            "rootpw «{a8}#{a4}»",
            "user --name=deploy --password=«{a6}%{a5}» --plaintext",
            "user --name=deploy --plaintext --password «{a6}%{a5}»",
            "d-i passwd/root-password password «{a6}*{a5}»",
            "d-i passwd/user-password-again password «{a6}*{a5}»",
            "mysql -u root -p«{a6}!{a5}» shop",
            "mysqladmin -u root --password «{a6}!{a5}» status",
            "docker login registry.corp.io -u ci --password «{a24}»",
            "az login -u ops@corp.io -p «{a6}#{a6}»",
            "redis-cli -h cache.internal -a «{a24}» ping",
            "./install.sh --admin-password «{a6}@{a5}» --yes",
            "wp user create bob bob@x.io --user_pass=«{a6}!{a5}»",
            "htpasswd -b -c /etc/nginx/.htpasswd admin «{a6}&{a5}»",
            "openssl pkcs12 -export -in c.pem -out c.p12 -passout pass:«{a6}!{a5}»",
            "vault login -method=userpass username=ops password=«{a6}!{a5}»",
            "psql -U app --password «{a6}!{a5}» -h db.internal",
            "keytool -genkey -keystore k.jks -storepass «{a6}!{a5}» -keypass «{a6}#{a5}»",
        ],
    ),
    (
        "Terraform and HCL blocks",
        &[
            "variable \"db_password\" {\n  type    = string\n  default = \"«{a8}!{a6}»\"\n}",
            "variable \"api_key\" {\n  description = \"the key\"\n  sensitive   = true\n  default     = \"«{a32}»\"\n}",
            "variable \"admin_password\" {\n  default = \"«{a6}#{a6}»\"\n  type = string\n}",
            "resource \"aws_db_instance\" \"main\" {\n  username = \"app\"\n  password = \"«{a10}!{a4}»\"\n}",
            "  master_password = \"«{a12}%{a2}»\"",
            "db_password = \"«{a6}!{a6}»\"",
            "provider \"vault\" {\n  token = \"«hvs.{a24}»\"\n}",
            "variable \"token\" { default = \"«{a40}»\" }",
            "locals {\n  secret_key = \"«{a40}»\"\n}",
        ],
    ),
    (
        "passwords and keys in non-Latin scripts, values of non-ASCII letters",
        &[
            "пароль: «Щука{d4}!Лес»",
            "Пароль: «{a6}!{a5}»\nЛогин: admin",
            "пароль от базы: «Медведь{d3}#»",
            "API-ключ: «{a32}»",
            "токен: «{a40}»",
            "密码：«{a4}猫{d4}#»",
            "密码：«猫狗{a4}{d4}»",
            // After a value typed in ASCII, letters of a script without blanks are a particle.
            "パスワードは«{a6}#{d4}»です",
            "密码: «{a6}#{a5}»",
            "数据库密码：«{a8}!{a3}»",
            "密钥：«{a40}»",
            "パスワード: «さくら{d4}!»",
            "パスワード：«{a6}!{a4}»",
            "APIキー: «{a32}»",
            "κωδικός: «Ωμέγα{d3}#»",
            "비밀번호: «한글{d4}!»",
            "DB_PASSWORD=«Пароль{d4}!»",
            "\"password\": \"«Ωμέγα{d3}#{a3}»\"",
            "password: «contraseña{d4}!»",
        ],
    ),
    (
        "bare provider tokens in documented shapes, no key name",
        &[
            "the bot token is «M{a23}.G{a5}.{u38}»",
            "client.login('«N{a23}.G{a5}.{u38}»')",
            "bot.run(\"«O{a25}.G{a5}.{u38}»\")",
            "curl -H \"Authorization: Bot «M{a25}.G{a5}.{u27}»\" https://discord.com/api/v10/users/@me",
            "Authorization: SSWS «00{u40}»",
            "modal token set --token-id «ak-{a22}» --token-secret «as-{a22}»",
            // Discord bot tokens known by their structure alone, wherever they stand.
            "BOT={snowflake}.{u6}.{u38}\nexport SECRET=«{snowflake}.{u6}.{u38}»",
            "{\"guild\": \"{d18}\", \"credentials\": \"«{snowflake}.{u6}.{u27}»\"}",
            "here is the bot's: «{snowflake}.{u6}.{u38}», it has admin rights",
            "2026-11-30 12:00:01 INFO connecting with «{snowflake}.{u6}.{u38}»",
            "config = {'guild': {d18}, 'auth': '«{snowflake}.{u6}.{u38}»'}",
            "«{snowflake}.{u6}.{u32}»",
            "the Okta token for the dev org is «00{u40}», it expires Friday",
            "OKTA_ORG_URL=https://dev-{d6}.okta.com  # admin token «00{u40}»",
        ],
    ),
    (
        "connection strings in every form",
        &[
            "Server=db.internal;Database=shop;User Id=sa;Password=«{a8}!{a4}»;",
            "Server=db;Database=shop;Uid=app;Pwd=«{a10}#{a2}»",
            "\"ConnectionStrings\": { \"Db\": \"Host=db;Username=app;Password=«{a14}»;Database=x\" }",
            "Data Source=db;User ID=sa;Password=\"«{a6};{a6}»\";",
            "mongodb+srv://admin:«{a16}»@cluster0.x1y2z.mongodb.net/?retryWrites=true&w=majority",
            "mongodb://root:«{a14}»@mongo-0:27017,mongo-1:27017/?replicaSet=rs0",
            "redis://:«{a24}»@localhost:6379/0",
            "rediss://default:«{a32}»@eu1-x.upstash.io:6379",
            "jdbc:postgresql://db:5432/app?user=app&password=«{a14}»&ssl=true",
            "jdbc:sqlserver://db:1433;databaseName=shop;user=sa;password=«{a8}!{a4}»;",
            "jdbc:mysql://db:3306/shop?password=«{a14}»",
            "jdbc:oracle:thin:scott/«{a12}»@db.internal:1521:orcl",
            "DATABASE_URL=\"mysql://root:«{a14}»@127.0.0.1:3306/app\"",
            "smtp://mailer:«{a16}»@smtp.mailgun.org:587",
            "ftp://upload:«{a12}»@ftp.corp.io/incoming",
        ],
    ),
    (
        ".pgpass lines and htpasswd entries",
        &[
            "db.internal:5432:app:app:«{a16}»",
            "*:*:*:postgres:«{a8}!{a4}»",
            "localhost:5432:*:deploy:«{a12}»",
            "$ cat ~/.pgpass\n10.0.0.5:5432:shop:shop_rw:«{a6}#{a6}»",
            "admin:«$apr1${a8}${a22}»",
            "deploy:«$2y$05${a53}»",
            "bob:«{SHA}{b27}=»",
        ],
    ),
    (
        "private keys in JSON strings with escaped newlines",
        &[
            "\"private_key\": \"«-----BEGIN PRIVATE KEY-----\\n{b64}\\n{b64}\\n{b40}\\n-----END PRIVATE KEY-----\\n»\",",
            "DEPLOY_KEY=\"«-----BEGIN RSA PRIVATE KEY-----\\n{b64}\\n{b64}\\n-----END RSA PRIVATE KEY-----»\"",
            "{\"type\": \"service_account\", \"private_key\": \"«-----BEGIN PRIVATE KEY-----\\n{b64}\\n{b30}==\\n-----END PRIVATE KEY-----\\n»\", \"client_email\": \"x@y.iam.gserviceaccount.com\"}",
        ],
    ),
    (
        "YAML block scalars under a secret key",
        &[
            "password: |\n  «{a8}!{a6}»\nuser: app",
            "db:\n  password: >-\n    «{a12}#{a3}»\n  host: db.internal",
            "token: |-\n  «{a40}»\nnext: 1",
            "  client_secret: |\n    «{a24}»\n    «{a24}»\n  scope: read",
            "private_key: |\n  «-----BEGIN OPENSSH PRIVATE KEY-----»\n  «{b64}»\n  «{b40}»\n  «-----END OPENSSH PRIVATE KEY-----»\nhost: x",
        ],
    ),
    (
        "values continuing after an escaped quote",
        &[
            "\"password\": \"«{a5}\\\"{a6}!{a3}»\"",
            "PASSWORD='«{a5}'\\''{a6}»'",
            "export DB_PASS=\"«{a4}\\\"{a4}\\\"{a4}»\"",
            "password = \"«{a6}\\\\{a6}»\"",
            "$password = \"«{a5}\\\"{a5}»\";",
            "secret: \"«{a10}\\\"{a10}»\"",
            "'password' => '«{a5}\\'{a7}»',",
        ],
    ),
    (
        "passwords in database, system and client commands",
        &[
            "CREATE USER app WITH PASSWORD '«{q14}»';",
            "CREATE USER app WITH PASSWORD '«{a5}''{a6}»';",
            "ALTER ROLE app PASSWORD '«{a6}!{a5}»' VALID UNTIL 'infinity';",
            "ALTER USER 'root'@'localhost' IDENTIFIED BY «'{q14}'»;",
            "GRANT ALL ON shop.* TO 'app'@'%' IDENTIFIED BY «'{a10}!{a3}'»;",
            "PGPASSWORD=«{a10}#{a3}» pg_dump -h db.internal app > dump.sql",
            "export MYSQL_PWD='«{q14}»'",
            "echo '«{a10}!{a3}»' | sudo -S apt-get update",
            "net user svc_backup «{a6}!{a5}» /add",
            "$pw = ConvertTo-SecureString '«{a10}#{a3}»' -AsPlainText -Force",
            "ldapsearch -x -D cn=admin,dc=corp,dc=io -w «{a10}%{a3}» -b dc=corp,dc=io",
            "wget --user=bob --password=«{a10}!{a3}» https://files.corp.io/a.tgz",
            "mongosh --username admin --password «{a14}» --authenticationDatabase admin",
            "rabbitmqctl add_user app «{a16}»",
            "machine github.com login bob password «{a20}»",
            "[client]\nuser=root\npassword=«{a10}!{a3}»",
            "host1 ansible_user=root ansible_password=«{a10}#{a3}»",
            "ansible_become_pass: «{a10}!{a3}»",
            "conn = psycopg2.connect(host=\"db\", user=\"app\", password=\"«{a10}!{a3}»\")",
            "props.put(\"password\", \"«{a10}#{a3}»\");",
            "requests.get(url, auth=(\"admin\", \"«{a10}!{a3}»\"))",
            "I set the DB password to «{a6}!{a4}» for now",
            "use «{a8}#{a4}» as the password",
            "«{a6}!{a5}» is the new root password",
            "set it to `«{a10}%{a3}»` as your password and rotate it",
            "pwd = «{a10}!{a3}»",
        ],
    ),
    (
        "session cookies of more frameworks",
        &[
            "Cookie: session=«eyJ{u40}.{u6}.{u27}»",
            "Set-Cookie: __Secure-next-auth.session-token=«{u120}»; Path=/; HttpOnly; Secure",
            "Cookie: next-auth.session-token=«{u100}»",
            "Set-Cookie: __Host-session=«{a40}»; Path=/; Secure",
            "Cookie: rack.session=«{b80}%3D%3D»",
            "Cookie: ci_session=«{l40}»",
            "Cookie: _gh_sess=«{b60}»; user_session=«{u48}»",
            "Cookie: _ga=GA1.2.{d9}.{d10}; sessionid=«{l32}»",
        ],
    ),
    (
        "WordPress salts and Laravel keys in every file",
        &[
            "define('AUTH_SALT',        '«{p64}»');",
            "define( 'NONCE_SALT', '«{p64}»' );",
            "AUTH_SALT='«{p64}»'",
            "      WORDPRESS_AUTH_SALT: '«{p64}»'",
            "'key' => env('APP_KEY', '«base64:{b43}=»'),",
            "APP_KEY: \"«base64:{b43}=»\"",
            "$ php artisan key:generate --show\n«base64:{b43}=»",
            "Application key [«base64:{b43}=»] set successfully.",
        ],
    ),
    (
        "passwords printed by installers and servers, with or without a prompt",
        &[
            "usermod -p '«$6${a8}${a86}»' deploy",
            "[Note] A temporary password is generated for root@localhost: «{a6}!{a5}»",
            "$ cat /var/lib/jenkins/secrets/initialAdminPassword\n«{h32}»",
            "argocd admin initial-password -n argocd\n«{a16}»",
            // Any command that asks for a thing named as a secret with a verb of retrieval.
            "$ bw get password 'Prod Postgres'\n«{a6}#{a5}-{a4}!{d1}»",
            "$ infisical secrets get SMTP_PASSWORD --plain\n«{a6}!{a4}»",
            "$ kubectl config view --raw -o jsonpath='{.users[0].user.password}'\n«{a5}-{a4}&{a4}»",
            "$ git config --get user.password\n«{a8}!{d2}»",
            "$ cat ~/.vault_pass\n«{a10}{d3}»",
            "$ terraform output -raw db_password\n«{a6}!{a5}»",
            "kubectl get secret argocd-initial-admin-secret -o jsonpath=\"{.data.password}\" | base64 -d\n«{a16}»",
            "Generated root password: «{a6}!{a5}»",
            "The generated password for the elastic user is: «{a20}»",
        ],
    ),
    (
        "command lines: one-dash options, user then password options, keys set by a command",
        &[
            "bcp shop.dbo.t out t.dat -S db -U sa -P «{a10}!{a3}»",
            "psexec \\\\host -u admin -p «{a10}!{a3}» cmd",
            "az sql server create -n x -u admin -p «{a10}!{a3}»",
            "net use Z: \\\\fs\\share /user:corp\\bob «{a10}!{a3}»",
            "influx -username admin -password «{a14}»",
            "./gradlew publish -PsigningPassword=«{a12}» -PossrhPassword=«{a14}»",
            "mvn deploy -Dgpg.passphrase=«{a12}»",
            "java -Dspring.datasource.password=«{a6}!{a5}» -jar app.jar",
            "aws configure set aws_secret_access_key «{a40}»",
            // Setter commands: the key, a blank, the value, past the setter's options.
            "setenv DB_PASSWORD «{a6}{d3}{a3}»",
            "set -gx OPENAI_API_KEY «{a40}»",
            "set -x DB_PASS «{a8}{d4}»",
            "SetEnv APP_SECRET «{a24}»",
            "fastcgi_param DB_PASSWORD «{a10}{d2}»;",
            "#define API_SECRET «\"{h32}\"»",
            "#define WIFI_PASSWORD «\"{a6}#{d4}\"»",
            // ssh-keygen's passphrases: new (-N), and old then new when changing it (-p).
            "ssh-keygen -t ed25519 -N «'{w} {w} {w}'» -f ~/.ssh/deploy",
            "ssh-keygen -p -P «{a8}{d3}» -N «{a6}!{a5}» -f ~/.ssh/id_rsa",
            // A short password word glued to what it is for.
            "wp db create --dbpass=«'{a6}!{a4}'»",
            "SMTPPASS=«{a10}{d2}»",
            "keystorepass: «{a6}{d4}»",
            // A passphrase of small words as the rest of a config line.
            "app_password: «{w} {w} {w} {w}»",
            "smtp_password: «{w} {w} {w} {w}» # app password",
            "DB_PASSWORD=«{w} {w} {w} {w} {w}»",
            // Passwords read from stdin, PuTTY's -pw, sshpass inside a quoted -e argument.
            "echo '«{a6}+{a4}({d4})»' | gpg --batch --pinentry-mode loopback --passphrase-fd 0 --sign x.tgz",
            "rsync -avz -e \"sshpass -p «'{a6}!{a6}'» ssh -p 2222\" ./dist/ deploy@web01:/srv/",
            "plink -ssh -pw «\"{a5}!{a6}\"» admin@10.0.0.5 \"df -h\"",
            "pscp -pw «{a8}${a3}» report.csv ftpuser@10.0.0.20:/upload/",
            "SSHPASS='«{a6}${a4}-{a4}»' sshpass -e ssh ops@db-2",
            // Go's byte-slice conversion of a literal key, PagerDuty's keys, a retyped AWS key id.
            "var jwtKey = []byte(\"«{a4}!{a3}#{a4}${a3}»\")",
            "pagerduty_integration_key: «{h32}»",
            "SMTP_USER: «AKIA{U16}»",
            // An AWS secret key right after its id: a call's arguments, a CSV row, prose.
            "credentials.NewStaticCredentialsProvider(\"«AKIA{U16}»\", \"«{b40}»\", \"\")",
            "«AKIA{U16}»,«{b40}»",
            "«AKIA{U16}» arn:aws:iam::123456789012:user/ci-deployer-role-prod-2024x",
            "Ich habe den Schlüssel gefunden: «AKIA{U16}» / «{b40}». Soll ich ihn eintragen?",
            // poetry's stored credentials, a self-hosted Mattermost hook, a drawn table.
            "poetry config http-basic.private ci «'{a5}#{a3}!'»",
            "poetry config pypi-token.pypi «pypi-{u60}»",
            "MATTERMOST_HOOK=«https://chat.acme.io/hooks/{l26}»",
            "║ PGPASSWORD       │ «{a32}» ║",
            // The password after the user in a call that connects, logs in or builds credentials.
            "await signIn(\"ana@acme.io\", \"«{a5}!{a4}{d2}»\");",
            "    .credentials(Credentials::new(\"alerts@acme.io\".into(), \"«{l16}»\".into()))",
            "TwilioClient.Init(\"AC{h32}\", \"«{h32}»\");",
            // The default of a secret read by its name.
            "  password: <%= ENV.fetch(\"DB_PASSWORD\") { \"«{a4}#{a5}!»\" } %>",
            "let pw = env::var(\"DB_PASSWORD\").unwrap_or(\"«{a6}!{a4}»\".into());",
            "let token = std::env::var(\"API_TOKEN\").unwrap_or_else(|| \"«{a24}»\".to_string());",
            // A `data:` map that nests is no Kubernetes Secret's: what is under it is read as
            // any text (Spring's `spring.data.*`).
            "spring:\n  data:\n    mongodb:\n      uri: mongodb://inventory:«{a6}{d2}!»@mongo-0.mongo:27017,mongo-1.mongo:27017/inventory",
            "spring:\n  data:\n    redis:\n      password: «{a8}{d3}»",
            // A jq query decoded by base64, Azure's key listing, a Thai key word.
            "$ jq -r '.auths[\"registry.acme.io\"].auth' ~/.docker/config.json | base64 -d\n«ci-bot:{a3}!{a5}_{a4}{d2}»",
            "$ az storage account keys list -g rg-prod -n acmesa --query '[0].value' -o tsv\n«{b86}==»",
            "คีย์ API คือ «{h32}» ใช้สำหรับทดสอบเท่านั้น",
            // A table a CLI prints aligned with tabs or blanks, a secret column in its header.
            "$ influx auth list\nID\t\t\tDescription\tToken\t\t\t\tUser Name\n{h16}\tci-writer\t«{b86}==»\tadmin",
            "NAME         TOKEN                   STATUS\nrunner-a     «{a24}»   active\nrunner-b     «{a24}»   idle",
            // Command lines written as arrays of strings.
            "      test: [\"CMD\", \"redis-cli\", \"-a\", \"«{a4}#{a5}»\", \"ping\"]",
            "      test: [\"CMD\", \"mysqladmin\", \"ping\", \"-h\", \"localhost\", \"-uroot\", \"-p«{a4}&{a4}({d1})»\"]",
            "{\"type\":\"exec_command_end\",\"command\":[\"docker\",\"login\",\"-u\",\"bot\",\"-p\",\"«{a3}!{a6}_{d1}»\"]}",
            "subprocess.run(['sshpass', '-p', '«{a6}!{a4}»', 'ssh', 'ops@db-2'])",
            "redis-cli CONFIG SET requirepass «{a20}»",
            "git config --global user.password «{a6}!{a5}»",
            "npm config set _authToken «npm_{a36}»",
            "echo -n «{a16}» | wrangler secret put API_TOKEN",
            "printf '%s' '«{a16}»' | docker secret create db_password -",
            "echo «{a20}» | gh secret set DEPLOY_TOKEN",
        ],
    ),
    (
        "options in argument lists, JSON strings and connection strings quoted in braces",
        &[
            "\"args\": [\"--password\", \"«{a16}»\"]",
            "command: [\"redis-server\", \"--requirepass\", \"«{a20}»\"]",
            "[\"--db-password=«{a16}»\"]",
            "CMD [\"app\", \"--api-token\", \"«{a32}»\"]",
            "{\"command\": \"mysql -u root -p\\\"«{a12}»\\\" -e \\\"show databases\\\"\"}",
            "\"ConnectionString\": \"Server=tcp:x.database.windows.net,1433;Database=d;User ID=u@x;Password={«{a12}»};Trusted_Connection=False;\"",
            "Driver={ODBC Driver 18 for SQL Server};Server=db;UID=sa;PWD={«{a8}!{a4}»};",
        ],
    ),
    (
        "secrets passed to setters, builders and credential calls in code",
        &[
            "ds.setPassword(\"«{a6}!{a5}»\");",
            "config.setApiKey(\"«{a32}»\")",
            "builder.password(\"«{a10}#{a3}»\")",
            "let opts = Opts::new().with_password(\"«{a10}#{a3}»\");",
            "let client = Client::new().basic_auth(\"admin\", Some(\"«{a6}!{a6}»\"));",
            "req.SetBasicAuth(\"admin\", \"«{a6}!{a5}»\")",
            "new UsernamePasswordCredentials(\"admin\", \"«{a6}!{a5}»\")",
            "keyring.set_password(\"svc\", \"bob\", \"«{a6}!{a5}»\")",
            "char pass[] = \"«{a6}!{a5}»\";",
            "static const char token[41] = \"«{a40}»\";",
            "password <- \"«{a6}!{a5}»\"",
        ],
    ),
    (
        "defaults of references and fallbacks of environment reads",
        &[
            "DB_PASSWORD=${DB_PASSWORD:-«{a6}!{a5}»}",
            "password: ${DB_PASSWORD:«{a6}!{a5}»}",
            "@Value(\"${db.password:«{a6}!{a5}»}\")",
            "const key = process.env.API_KEY || \"«{a32}»\";",
            "const key = process.env.API_KEY ?? '«{a32}»';",
            "ldap_bind_pw = «{a6}!{a5}»",
            "CI_JOB_JWT=«eyJ{u30}.eyJ{u40}.{u43}»",
            "GH_PAT=«{a40}»",
            "export BEARER=«{a40}»",
            "bindpw «{a6}!{a5}»",
            "كلمة السر هي «{a6}!{a5}»",
        ],
    ),
    (
        "tables printed by database clients and in Markdown with a secret column",
        &[
            "mysql> SELECT id, user, password FROM users;\n+----+-------+--------------+\n| id | user  | password     |\n+----+-------+--------------+\n|  1 | admin | «{a6}!{a5}» |\n|  2 | bob   | «{a8}#{a3}» |\n+----+-------+--------------+",
            " id | username | password\n----+----------+----------\n  1 | admin    | «{a6}!{a5}»\n(1 row)",
            "| Name | Type | Password |\n|---|---|---|\n| db | postgres | «{a6}!{a5}» |",
            "│ name │ token │ expires │\n├──────┼───────┼─────────┤\n│ ci │ «{a40}» │ 2026-01-01 │",
            // The row's other cells are redacted too, and a secret cell holding an assignment.
            "| Repo | Secret | Status |\n|---|---|---|\n| «ghp_{a36}» | `n/a` | leaked |",
            "| File | Secret | Status |\n|------|--------|--------|\n| `seed.sh` | `PGPASSWORD=«{a4};{a4}!»` | committed |",
            "| Key | Value |\n|-----|-------|\n| `DB_PASSWORD` | `«{a2}\\|{a5};{a2}»` |",
        ],
    ),
    (
        "labels ending their line and Oracle logons",
        &[
            "Password:\n«{a6}!{a5}»",
            "  Token:\n  «{a40}»\n",
            "\"password\":\n  \"«{a10}#{a3}»\"",
            "sqlplus system/«{a6}!{a5}»",
            "expdp system/«{a6}!{a5}» directory=dp schemas=app",
            "imp userid=system/«{a6}!{a5}» file=x.dmp",
            "SQL> CONNECT app/«{a6}!{a5}»",
        ],
    ),
    (
        "keys and secrets named in more languages",
        &[
            "秘钥：«{a32}»",
            "シークレット: «{a32}»",
            "アクセスキー: «{a32}»",
            "시크릿 키: «{a32}»",
            "секретный ключ: «{a32}»",
            "ключ доступа: «{a32}»",
            "la clé secrète : «{a32}»",
            "chiave segreta: «{a32}»",
            "geheime sleutel: «{a32}»",
            "klucz API: «{a32}»",
            "API anahtarı: «{a32}»",
            "khóa API: «{a32}»",
            "kunci API: «{a32}»",
            "مفتاح API: «{a32}»",
        ],
    ),
    (
        "multi-line and directive forms in numbered files and diffs",
        &[
            "+ENV DB_PASSWORD «{a6}!{a5}»",
            "     3→ENV API_SECRET «{a32}»",
            "     12→variable \"db_password\" {\n     13→  default = \"«{a6}!{a5}»\"\n     14→}",
            "+password: |\n+  «{a6}!{a5}»",
            "     5→password: |\n     6→  «{a6}!{a5}»",
            "    10\trootpw --plaintext «{a6}!{a5}»",
        ],
    ),
    (
        "quoted option values holding blanks",
        &[
            "mysql -u root -p«'{a5}3 {a3}@{a2} {a3}'» shop",
            "mysqldump -h db.internal -u app -p«\"{a4}7{a3} {a3}!{a2}\"» shop > shop.sql",
            "mariadb -u admin -p«'{a6}2{a2} {a2}#'» -e 'SHOW DATABASES'",
            "curl -u «'admin:{a6} {a5}'» https://api.acme.io/v1/items",
            "curl --user «\"deploy:{a4} {a4} {a4}\"» https://ci.internal/job",
            "wget --user «'bot:{a7} {a3}!'» https://files.internal/a.tgz",
            "./manage --password \"«{a5} {a4}!{a3}»\" --user admin",
            "mycli --password '«{a6} {a4}#{a2}»' -h db",
        ],
    ),
    (
        "prompts written as several words, echoed with what was typed",
        &[
            "? Enter a secret value: «{a8}!{a6}»",
            "? Enter the API key: «{a24}»",
            "Enter your API key: «{a32}»",
            "Enter the database password: «{a6}!{a5}»",
            "Password for user admin: «{a6}#{a5}»",
            "Enter new UNIX password: «{a6}%{a5}»",
            "Secret value: «{a20}»",
            "Please enter the secret access key: «{a40}»",
        ],
    ),
    (
        "passwords fed to a program on stdin",
        &[
            "echo '«{a6}@{a5}»' | passwd --stdin deploy",
            "chpasswd <<< 'deploy:«{a6}!{a5}»'",
            "sudo chpasswd <<< \"root:«{a8}#{a3}»\"",
            "docker login -u bot --password-stdin <<< \"«{a20}»\" ghcr.io",
            "docker login registry.internal -u ci --password-stdin <<< '«{a10}!{a4}»'",
            "passwd --stdin app <<< «{a7}%{a5}»",
            "sudo -S systemctl restart nginx <<< '«{a6}&{a6}»'",
            "gh auth login --with-token <<< «{a40}»",
            "expect \"*assword:\" { send \"«{a6}!{a5}»\\r\" }",
            "expect \"Passphrase for key\"; send -- \"«{a8}#{a4}»\\r\"",
            "expect -re \"(P|p)assword\" { exp_send \"«{a10}»\\r\" }",
        ],
    ),
    (
        "values written into a secret or parameter store from the command line",
        &[
            "aws secretsmanager put-secret-value --secret-id prod/api --secret-string «{a24}»",
            "aws secretsmanager update-secret --secret-id db --secret-string=«'{a8}#{a6}'»",
            "aws ssm put-parameter --name /prod/db/password --value «'{a9}!{a3}'» --type SecureString --overwrite",
            "aws ssm put-parameter --type SecureString --name /app/stripe --value «{a32}»",
            "drone secret add --repository acme/api --name docker_password --data «'{a6}!{a6}'»",
            "drone orgsecret add acme registry_token «{a20}»",
            "az keyvault secret set --vault-name kv-prod --name db-password --value «\"{a12}%{a2}\"»",
            "vercel env add DB_PASSWORD production --value «'{a10}&{a3}'» --yes",
            "netlify env:set STRIPE_SECRET_KEY «{a40}»",
            "pulumi config set --secret dbPassword «{a11}»",
        ],
    ),
    (
        "the password of a connection a stack trace prints",
        &[
            "#0 /var/www/html/db.php(5): PDO->__construct('mysql:host=db;d...', 'shop', '«{a8}#{a4}»')",
            "#1 [internal function]: PDO::__construct('pgsql:host=pg', 'app', '«{a12}»')",
        ],
    ),
    (
        "a SQL Server JDBC URL with the port before its properties",
        &[
            "jdbc:sqlserver://sql01.corp.local:1433;databaseName=Hr;user=hr_app;password=«{a8}@{a4}»;encrypt=true",
            "jdbc:sqlserver://sql01.corp.local:1433;databaseName=Hr;user=hr_app;password={«{a3}@{a3};{a2}}}{a2}»};encrypt=true",
        ],
    ),
    (
        "an Erlang node's cluster cookie printed from its file",
        &[
            "$ cat ~/.erlang.cookie\n«{U20}»",
            "$ sudo cat /var/lib/rabbitmq/.erlang.cookie\n«{U20}»",
        ],
    ),
    (
        "an Erlang cookie given to a node, a release or a container",
        &[
            "erl -sname worker -setcookie «{a16}» -eval 'app:start()'",
            "iex --sname console --cookie «{a24}» --remsh app@prod-1",
            "elixir --name probe@10.0.0.5 --cookie=«{U20}» probe.exs",
            "RELEASE_COOKIE=«{a32}» bin/myapp start",
            "export RELEASE_COOKIE='«{a20}»'",
            "      RABBITMQ_ERLANG_COOKIE: «{U20}»",
            "docker run -e COUCHDB_ERLANG_COOKIE=«{a24}» couchdb:3",
            "  - ERLANG_COOKIE=«{a18}»",
            "true = erlang:set_cookie(node(), '«{a20}»').",
            "Node.set_cookie(:\"«{a22}»\")",
        ],
    ),
    (
        "an Ethereum private key a wallet is made from",
        &[
            "    hardhat: { chainId: 31337 },\n    goerli: { url: ALCHEMY_URL, accounts: [\"«0x{h64}»\"] },",
            "accounts: ['«{h64}', '0x{h64}»'],",
            "const wallet = new ethers.Wallet(\"«0x{h64}»\", provider);",
            "const account = privateKeyToAccount('«0x{h64}»')",
            "acct = Account.from_key(\"«0x{h64}»\")",
            "forge script script/Deploy.s.sol --rpc-url $RPC --private-key «0x{h64}» --broadcast",
            "cast send 0x{h40} \"transfer(address,uint256)\" 0x{h40} 1 --private-key=«{h64}»",
        ],
    ),
    (
        "a secret argument of a call whose arguments go on over the next lines",
        &[
            "$pdo = new PDO(\n    'mysql:host=db.internal;dbname=shop',\n    'shop_rw',\n    '«{a10}#{a3}»'\n);",
            "Connection conn = DriverManager.getConnection(\n        \"jdbc:postgresql://db:5432/app\",\n        \"app\",\n        \"«{a8}!{a5}»\");",
            "Connection conn = DriverManager.getConnection(url,\n        user, \"«{a9}%{a4}»\");",
            "$link = mysqli_connect(\n  'db.internal',\n  'wp',\n  '«{a9}%{a3}»',\n  'wordpress'\n);",
            "$db = new mysqli(\"localhost\",\n    \"root\", \"«{a12}»\", \"app\");",
            "var client = new CosmosClient(\n    endpoint,\n    \"«{b86}==»\");",
            "client = CosmosClient(url,\n    credential=\"«{b86}==»\")",
            "const client = algoliasearch(\n  '{U10}',\n  '«{h32}»'\n);",
            "smtp.login(\n    'alerts@corp.io',\n    '«{a10}!{a2}»',\n)",
            "var creds = new NetworkCredential(\n    \"svc_backup\",\n    \"«{a11}&{a2}»\");",
            "resp = requests.get(url, auth=HTTPBasicAuth(\n    'ci-bot',\n    '«{a14}»'))",
            "ds.setPassword(\n    \"«{a12}#{a2}»\");",
            "User.objects.create_superuser(\n    \"admin\",\n    \"admin@corp.io\",\n    \"«{a10}!{a3}»\",\n)",
            "co = cohere.Client(\n    \"«{a40}»\"\n)",
            "const wallet = new ethers.Wallet(\n  \"«0x{h64}»\",\n  provider\n);",
            "props.put(\"password\",\n    \"«{a12}»\");",
            "err = l.Bind(\n    \"cn=admin,dc=corp,dc=io\",\n    \"«{a10}%{a2}»\")",
        ],
    ),
    (
        "a secret column of an SQL INSERT, its value in the VALUES rows",
        &[
            "INSERT INTO users (name, password, api_key) VALUES ('bob', '«{a8}#{a3}»', '«{h32}»');",
            "INSERT INTO `smtp_settings` (`host`, `port`, `username`, `password`) VALUES ('smtp.corp.io', 587, 'mailer', '«{a9}%{a4}»');",
            "INSERT INTO users (email, password)\nVALUES ('a@corp.io', '«{a10}!{a2}»');",
            "INSERT INTO accounts (login, passwd) VALUES\n  ('alice', '«{a9}&{a3}»'),\n  ('bob', '«{a11}#{a1}»');",
            "INSERT INTO public.\"integrations\" (\"id\", \"provider\", \"access_token\") VALUES (7, 'github', '«{a40}»');",
            "INSERT INTO [dbo].[Users] ([UserName], [Password]) VALUES (N'admin', N'«{a8}!{a4}»');",
            "insert into api_clients (client_id, client_secret) values ('web', '«{a32}»');",
            "INSERT INTO users (name, password) VALUES (\n  'carol',\n  '«{a10}#{a2}»'\n);",
            "INSERT INTO `oauth_clients` (`id`, `secret`, `redirect`) VALUES (1, '«{a40}»', 'http://localhost/callback');",
            "cur.execute(\"INSERT INTO users (username, password) VALUES ('admin', '«{a8}@{a4}»')\")",
            "INSERT INTO service_accounts (name, token, created_at) VALUES ('ci', '«{a32}»', NOW());",
            "sqlite> INSERT INTO credentials(site, user, pass) VALUES('mail', 'me', '«{a9}!{a3}»');",
            "INSERT INTO users (name, password) VALUES ('O''Brien', '«{a8}#{a4}»');",
            "INSERT INTO users (name, password) VALUES ('it\\'s', '«{a9}!{a2}»');",
            "INSERT IGNORE INTO api_keys (owner, api_key) VALUES ('billing', '«{h40}»');",
            "INSERT INTO users (id, email, password_hash) VALUES (1, 'a@corp.io', '«$2b$12${a53}»');",
            "INSERT INTO users (name, pwd) VALUES ('root', '«{a12}»'), ('guest', '«{a10}!{a1}»');",
        ],
    ),
    (
        "the output of an echo of several variables, one named as a secret, at its place",
        &[
            "$ echo \"$RABBITMQ_DEFAULT_USER / $RABBITMQ_DEFAULT_PASS\"\nmqadmin / «{a9}+{a2}-»",
            "$ echo $DB_USER:$DB_PASSWORD\napp:«{a10}#{a2}»",
            "⏺ Bash(echo \"$API_TOKEN $API_URL\")\n  ⎿  «{a32}» https://api.example.com",
            "$ echo \"${SMTP_USER}, ${SMTP_PASS}\"\nmailer@corp.io, «{a11}!{a1}»",
            "PS C:\\app> echo $DB_HOST $DB_SECRET\ndb.internal «{a24}»",
            "dev@box:~/app$ echo \"$CLIENT_ID|$CLIENT_SECRET\"\nweb-app|«{a40}»",
            "Ran terminal command: echo $REDIS_HOST:$REDIS_PORT:$REDIS_PASSWORD\nredis.internal:6379:«{a12}%{a2}»",
            "$ set -a; source .env.prod; set +a; echo \"$MQ_USER / $MQ_PASS\"\nmq / «{a8}=({a3}»",
            "$ cd deploy && echo $VAULT_ADDR $VAULT_TOKEN\nhttps://vault.corp.io:8200 «hvs.{a24}»",
        ],
    ),
    (
        "a secret column of an SQL INSERT whose column list goes over lines",
        &[
            "INSERT INTO users (\n  email,\n  password\n) VALUES ('a@corp.io', '«{a10}#{a2}»');",
            "INSERT INTO users\n  (email, password)\n  VALUES ('a@corp.io', '«{a9}%{a3}»');",
            "INSERT INTO users\n(email, password) VALUES ('a@corp.io', '«{a11}!{a1}»');",
            "INSERT INTO service_accounts (\n    id,\n    name,\n    api_token,\n    created_at\n) VALUES (\n    7,\n    'ci',\n    '«{a32}»',\n    NOW()\n);",
            "insert into `oauth_clients` (\n  `id`,\n  `client_secret`\n)\nvalues (1, '«{a40}»');",
            "INSERT INTO [dbo].[Users] (\n    [UserName],\n    [Password])\nVALUES (N'admin', N'«{a8}!{a4}»');",
            "INSERT INTO accounts (login,\n                      passwd)\nVALUES ('alice', '«{a9}&{a3}»');",
            "    INSERT INTO smtp_settings (\n        host, port,\n        username, password\n    ) VALUES ('smtp.corp.io', 587, 'mailer', '«{a9}%{a4}»');",
        ],
    ),
    (
        "a passphrase of small words after a copula, a number among them and a symbol at its end",
        &[
            "The admin password for the staging Jenkins is «velvet dahlia parsnip 22!» — please rotate it.",
            "the wifi password is «otter maple 7 lantern!!»",
            "Das WLAN-Passwort für das Büro lautet «nougat caramel 99 sparrow!» – bitte nicht weitergeben.",
            "Das VPN-Kennwort lautet «{L1}{l6}#{d4}», bitte ändern.",
            "La contraseña del router es «tortuga 8 limon nube?», no la compartas.",
            "le mot de passe du NAS est «pomme 12 nuage vert!», merci",
            "A senha do servidor é «cacto 3 janela azul#» - não compartilhe",
            "the vault passphrase was «copper 41 meadow pickle!»; rotate it tomorrow",
            "Het wachtwoord is «tulp 5 molen kaas!», niet delen.",
            "Our shared password is «kiwi 19 harbor fog!» (for the demo laptop)",
            "the root password is now «lemon 2 falcon desk!»",
            "the new passcode is «tiger 88 violet brook!»",
            "Das Admin-Passwort ist «{L1}{l5}!{L1}{l4}{d3}»",
            "the deploy password is «quartz 6 pebble mango!» — ping me if it fails",
            "the ssh passphrase is «birch 31 onion kettle?»",
        ],
    ),
    (
        "the output of a command named for making a secret: after a sentence, after a label",
        &[
            "$ bin/elasticsearch-reset-password -u elastic -b\nPassword for the [elastic] user successfully reset.\nNew value: «{a8}+{a4}-{a6}»",
            "$ bin/elasticsearch-reset-password -u kibana_system -a -b\nNew value: «{a20}»",
            "$ bin/elasticsearch-create-enrollment-token -s kibana\n«eyJ{a60}»",
            "$ ./rotate_token.sh staging\nRotating token for staging.\nToken: «{h32}»",
            "⏺ Bash(./scripts/generate-password.sh 20)\n  ⎿  «{a12}#{a6}»",
            "$ sudo ./reset_password.py --user admin\nGenerated password: «{a10}!{a4}»",
            "PS C:\\> .\\reset-password.ps1 -User svc\nNew password: «{a9}%{a5}»",
            "bash -lc 'bin/elasticsearch-reset-password -u elastic -b' in /home/dev/app\n succeeded in 512ms:\nPassword for the [elastic] user successfully reset.\nNew value: «{a8}{d2}{a6}»",
            "$ docker exec -it es01 /usr/share/elasticsearch/bin/elasticsearch-reset-password -u elastic -b\nNew value: «{a8}*{a8}»",
            "$ ssh db1 ./rotate-secret.sh\nSecret: «{a32}»",
            "$ ./bin/create-api-token\n«{a40}»",
            "$ ./rails-reset-password admin\nPassword reset.\nNew password: «{a6}-{a6}»",
            "$ ./regenerate_secret.sh\nsecret regenerated.\n«{h64}»",
            "$ ./bin/reset-password --user ops\nNew value: «{d4}-{a8}-{d3}»",
            "$ /opt/app/bin/generate_token --scope ci\nAccess token: «{a36}»",
        ],
    ),
    (
        "a password labelled pass or pw after a labelled user and a slash",
        &[
            "use these to log in to the VPN: user `jenkins` / pass «`wombat 4 fennel radish.`»",
            "user `deploy` / pass «`{a8}#{a4}`»",
            "user jenkins / pass «{a9}!{a3}» (rotate after the demo)",
            "username: admin / pass: «{a10}%{a2}»",
            "login `svc-backup` / pw «`{a12}`»",
            "user \"ops\" / pass «\"{a7}&{a5}\"»",
            "user 'grafana' / pass «'{a11}@{a2}'»",
            "usr: root / pwd: «{a8}*{a6}»",
            "Staging DB → user app_rw / pass «{a14}»",
            "FTP: user upload@corp.io / pass «{a10}#{d3}»",
            "user `admin`/pass «`{a9}-{a4}`»",
            "User: kiosk / Pass: «{a6}+{a6}»",
            "user `pi` / pass «`tulip 8 harbor moss!`»",
            "the router: user admin / pw «{a7}!{a4}»",
            "Username `qa` / Password «`{a10}$${a3}`»",
        ],
    ),
];

/// (family, templates that must come out unchanged)
const LOOK_ALIKES: &[(&str, &[&str])] = &[
    (
        "options that look like quoted passwords, prompts and stdin that are none",
        &[
            "mysql -h db.internal -P 3306 -u root -p shop",
            "mysql -u root -p -e 'SELECT 1'",
            "docker run -p 8080:80 -p '9090:90' nginx",
            "curl -u \"$API_USER:$API_PASS\" https://api.acme.io",
            "curl -u 'user:pass' https://httpbin.org/basic-auth/user/pass",
            "Enter a value: 42",
            "Enter a value: {a8}!{a6}",
            "? Enter the project name: {a12}",
            "Primary key: {a12}{u8}",
            "The key: {a12}",
            "Enter the token count value: 4000000000",
            "Token value: abc",
            "chpasswd < users.txt",
            "chpasswd <<< \"$USER:$NEW_PASSWORD\"",
            "docker login -u bot --password-stdin <<< \"$CR_PAT\"",
            "cat <<< \"{a8}{u6}\" | wc -c",
            "passwd --stdin deploy < /run/secrets/pw",
            "expect \"(yes/no)?\" { send \"yes\\r\" }",
            "expect \"$ \" { send \"ls -la\\r\" }",
            "expect \"Continue?\"; send -- \"y\\r\"",
        ],
    ),
    (
        "a name holding the letters of a provider's word, no mention of it",
        &["const lookTarget = \"00{u40}\";"],
    ),
    (
        "three dotted parts that are no snowflake token",
        &[
            "the bundle main.{a24}.{u6}.{u38} was rebuilt",
            "NetworkManagerConfiguration.reload.configurationFromDefaultPath",
            "eyJhbGciOiJIUzI1NiJ9.{u6}.{u38} is the shape of a test token",
            "MTIzNDU2Nzg5MDEyMzQ1Njc4.abcdef.ghijklmnopqrstuvwxyzABCDEFGHIJKL",
            "{snowflake}.{u6}.{u12} is too short to be signed",
            "user-{snowflake}.{u6}.{u38} names a cache entry",
            "see https://{l24}.{l6}.{l30}.example.com/",
        ],
    ),
    (
        "Dockerfile, installer and flag lines without secrets",
        &[
            "ENV PASSWORD_FILE /run/secrets/db_password",
            "ENV NODE_ENV production",
            "ARG VERSION=1.2.3",
            "ARG GITHUB_TOKEN",
            "ENV DB_PASSWORD=${DB_PASSWORD}",
            "RUN --mount=type=secret,id=npm_token npm ci",
            "rootpw --lock",
            "$ terraform output -raw db_host\ndb.internal.corp.io",
            "\"args\": [\"--password-file\", \"/run/secrets/db\"]",
            "Driver={ODBC Driver 18 for SQL Server};Server=db;Trusted_Connection=yes;",
            "Password={password};Server=db;",
            "mysql -u root -p shop_{d4}",
            "docker run -u 1000 -p 8080:80 -v /data:/data app",
            "git config --global credential.helper store",
            "git config --global user.email dev@corp.io",
            "aws configure set region us-east-1",
            "#define PASSWORD_MAX_LEN 64",
            "ssh-keygen -t ed25519 -N '' -f ~/.ssh/ci",
            "ssh-keygen -t rsa -N \"$PASSPHRASE\" -f key",
            "bypass: {a10}{d2}",
            "password_hint: see the vault entry for prod",
            "routing_key: orders.created",
            "The password policy for new accounts is Min-8/Max-64.",
            "CMD [\"node\", \"server.js\", \"--port\", \"8080\"]",
            "see https://github.com/acme/repo/hooks/12345678 for the hook",
            "conn = connect(\"localhost\", \"5432\", \"mydb\")",
            "token = ENV.fetch(\"GITHUB_TOKEN\") { raise \"missing\" }",
            "NAME    TYPE    DATA   AGE\ndb      Opaque  2      3d",
            // A key word before a sentence of a script written without blanks gives it no value.
            "JWT とプライベートキーのルールは思ったより大きいので、別チケットに分けます。",
            "Token 的刷新逻辑比想象的复杂，我会在下一个会话继续",
            "NAME                  SECRETS   AGE\ndefault               1         12d",
            "NAME         TOKEN        STATUS\nrunner-b     <none>       idle",
            "let pw = env::var(\"DB_PASSWORD\").unwrap_or(String::new());",
            "let t = env::var(\"API_TOKEN\").unwrap_or(\"\".into());",
            "socket.bind(\"0.0.0.0\", \"8080\")",
            "db.connect(\"postgres\", \"app_user\", \"${DB_PASSWORD}\")",
            "Net::SMTP.start('smtp.acme.io', 587, 'acme.io', 'orders@acme.io', ENV['SMTP_PASSWORD'], :login)",
            "args: [\"--token\", \"$(TOKEN)\", \"--verbose\"]",
            "subprocess.run([\"mysql\", \"-u\", \"root\", \"-p\", \"shop\"])",
            "The password field in the form is UserPassword1.",
            "The password for the staging database is stored in Vault.",
            "$ git show HEAD:src/token.rs\nuse std::env;",
            "$ npm view jsonwebtoken version\n9.0.2",
            "$ kubectl get secrets\nNAME TYPE DATA AGE",
            "$ gh secret list\nDEPLOY_TOKEN  Updated 2024-05-01",
            "channel.basic_publish(exchange=\"x\", routing_key=\"invoice_paid_queue_v2\", body=b)",
            "ssh_pass: \"{{ vault_ssh_pass }}\"",
            "password: must be at least twelve chars",
            "surpass = {a10}{d2}",
            "#define TOKEN_SIZE 32",
            "#define AUTH_HEADER \"Authorization\"",
            "set -e DB_PASSWORD",
            "set -gx GITHUB_TOKEN (gh auth token)",
            "setenv API_KEY $API_KEY",
            "fastcgi_param SCRIPT_FILENAME $document_root$fastcgi_script_name;",
            "java -Dspring.profiles.active=prod -Dpassword.policy=strict -jar app.jar",
            "go run . -token-file /run/secrets/token",
            "rootpw --iscrypted --allow-ssh",
            "docker run -p 8080:80 -e MODE=dev nginx",
            "ssh -p 2222 deploy@host",
            "mysql -u root -p shop",
            "psql -U app --password -h db.internal",
            "docker login -u bob --password-stdin < token.txt",
            "redis-cli -a \"$REDIS_PASSWORD\" ping",
            "./install.sh --admin-password \"$ADMIN_PASS\"",
        ],
    ),
    (
        "Terraform without secret values",
        &[
            "variable \"db_password\" {\n  type      = string\n  sensitive = true\n}",
            "variable \"db_password\" {\n  description = \"The database password\"\n  type = string\n}",
            "  password = var.db_password",
            "  password = random_password.db.result",
            "  master_password = data.aws_secretsmanager_secret_version.db.secret_string",
            "variable \"token_ttl\" {\n  default = 3600\n}",
            "output \"db_password\" {\n  value     = aws_db_instance.main.password\n  sensitive = true\n}",
        ],
    ),
    (
        "prose after a password word in several scripts",
        &[
            "password: required",
            "Password: optional",
            "password: ********",
            "password: <hidden>",
            "password: (none)",
            "password: see 1Password",
            "пароль: обязательно",
            "пароль: не задан",
            "密码：必填",
            "密码: 请联系管理员",
            "パスワード: 必須",
            "パスワード：未設定",
            "비밀번호: 필수",
            "κωδικός: απαιτείται",
        ],
    ),
    (
        "look-alike colon lines and hashes in config",
        &[
            "localhost:5432:app",
            "12:34:56:78:90",
            "2024-01-02T03:04:05Z INFO started",
            "00000000-0000-0000-0000-000000000000",
            "version: 1.2.3-beta.4+build.5",
            "\"integrity\": \"sha384-{b64}\"",
            "commit {h40} (HEAD -> main)",
            "tokenizer = AutoTokenizer.from_pretrained(\"bert-base-uncased\")",
            "tokenizer: o200k_base",
            "use crate::redact::secret::SecretKind;",
            "aws_sdk_secretsmanager::operation::get_secret_value::GetSecretValueOutput",
            "password: |\n  Use the vault entry.\nuser: app",
        ],
    ),
    (
        "password words in prose",
        &[
            "the password must be at least 12 characters long",
            "use something memorable as the password",
            "pass $DB_PASSWORD as the password",
            "the value of getPassword() is the password",
            "whatever you typed is the password",
            "the hashed value is the password verifier",
            "a temporary password is generated for each new user: see the welcome mail",
            "kubectl get secret db -o jsonpath='{.data.password}' | base64 -d\nchmod 600 pw.txt",
            "请输入密码",
            "パスワードを忘れた場合",
            "mot de passe oublié ?",
            "Passwort vergessen?",
            "la contraseña es obligatoria",
            "пароль должен быть длиннее",
            "비밀번호를 입력하세요",
            "a senha é obrigatória",
            "şifre gerekli",
            "Kullanıcı adı değişti, parola ise aynı kaldı.",
            "mật khẩu là bắt buộc",
            "รหัสผ่านไม่ถูกต้อง",
            "each row is identified by its primary key",
            "Password combination.",
            "Token expired",
            "| Password | required |",
            "# requirepass foobared",
        ],
    ),
    (
        "tokenizers and token counts",
        &[
            "tokenizer: cl100k_base",
            "encoding = tiktoken.get_encoding(\"cl100k_base\")",
            "tokenizer_name: meta-llama/Llama-3.1-8B-Instruct",
            "\"tokenizer_class\": \"LlamaTokenizerFast\"",
            "token_count: 1234",
            "max_tokens=4096",
            "\"max_completion_tokens\": 8192",
            "input_tokens: 15321, output_tokens: 982",
            "tokens_per_minute: 90000",
            "let token_usage = response.usage.total_tokens;",
        ],
    ),
    (
        "types and paths in code",
        &[
            "let secret = secrecy::SecretString::new(&token);",
            "keyring.get_password(\"agentguard\", \"bob\")",
            "hash_password(\"{a10}\")",
            "parser.token(\"ident\")",
            "user.set_password(new_password)",
            "label.password(\"Password\")",
            "verify_token(\"{a12}\", &key)",
            "tokens <- tok",
            "token_type: bearer",
            "jwt_expiry: 3600",
            "\"bearer\": \"Bearer\"",
            "PAT_EXPIRY_DAYS=90",
            "     5→password: |\n     6→  Use the vault entry.",
            "- password reset flow",
            "+ENV NODE_ENV production",
            "la clave es usar índices compuestos",
            "ключ: name",
            "mot-clé : python",
            "chiave primaria: id",
            "kunci utama adalah kolom id",
            "password:\n  file: /run/secrets/db",
            "credentials:\n  - name: db",
            "api_key:\n  valueFrom:\n    secretKeyRef: x",
            "Token:\nrequired",
            "Password:\n\nUse the vault entry.",
            "sqlplus / as sysdba",
            "connect scott/tiger",
            "echo -n production | base64\ncHJvZHVjdGlvbg==",
            "echo SGVsbG8gV29ybGQ= | base64 -d",
            "echo -n \"config.json\" | base64",
            "echo \"$DB_PASSWORD\" | base64 -w0",
            "| Endpoint | Auth | Rate limit |\n|---|---|---|\n| /users | OAuth2 | 100/min |\n| /admin | Bearer | 10/min |",
            "| Field | Password | Notes |\n|---|---|---|\n| login | required | min 12 chars |",
            "| Model | Tokens | Cost |\n|---|---|---|\n| gpt | 128000 | 0.01 |",
            " id | username | password_hash\n----+----------+--------------\n  1 | admin    | {h64}",
            "DB_PASSWORD=${DB_PASSWORD:-}",
            "password: ${DB_PASSWORD:changeme}",
            "TOKEN=${GITHUB_TOKEN:-$(gh auth token)}",
            "x=${SECRET_KEY:?must be set}",
            "echo ${TOKEN:0:4}",
            "const k = process.env.API_KEY || \"\";",
            "const k = token || defaultToken;",
            "fn parse_token(token: &Token) -> Result<TokenKind>",
            "std::unique_ptr<PasswordManager> password_manager_;",
            "pub secret: SecretString,",
            "password: String,",
            "token: Token,",
            "TokenType::Identifier",
            "impl From<SecretKey> for PublicKey",
            "std::string token = lexer.next_token();",
            "keyring::Entry::new(\"agentguard\", &user)?.get_password()?",
            "if password == confirm_password:",
            "PasswordField(\"Password\", validators=[DataRequired()])",
            "password = request.form[\"password\"]",
            "user.set_password(new_password)",
            // Outside a cookie a session id names a session.
            "{\"session_id\": \"{uuid}\", \"transcript_path\": \"/tmp/t.jsonl\"}",
            "session_id = {a32}",
            "Cookie: user_id={a32}; theme=dark",
            // Hyphenated settings and sentences are no passphrase: few words, or small ones.
            "password: not-set-yet",
            "DB_PASSWORD=use-the-vault-entry",
            "password: read-only",
            "password_policy: strong-passwords-required",
            "the password for this account: see below",
            "Password for the admin account: not set",
            "password for postgres: (none)",
            // Type expressions after a secret word: a path of names with type arguments.
            "password: typing.Optional[str] = None",
            "token: collections.abc.Mapping[str, Any] = {}",
            "secret: java.util.Map<String, String> secrets;",
            "api_key: pydantic.SecretStr = Field(...)",
            "session: sqlalchemy.orm.Session",
            "password: Optional[str] = None",
            "password: Option<String> = None",
            "token: Map<String, String> = new HashMap<>();",
            "let secret: Vec<u8> = Vec::new();",
            "credentials: google.oauth2.credentials.Credentials",
            "token = HTTPClient.IOError",
        ],
    ),
    (
        "settings about secrets",
        &[
            "password_min_length = 12",
            "auth_token_ttl: 3600",
            "SECRET_KEY_LENGTH = 50",
            "reset_password_token_valid_for = 6.hours",
            "session_timeout: 30m",
            "\"passwordless\": true",
            "TOKEN_EXPIRY_SECONDS=86400",
            "password_hash_algorithm: argon2id",
            "secret_name: prod/db/credentials",
            "key_size=4096",
            "\"sessionId\": \"{uuid}\"",
        ],
    ),
    (
        "hashes, ids and lock files",
        &[
            "sha256: {h64}",
            "commit {h40}",
            "id: {uuid}",
            "request_id = \"{uuid}\"",
            "checksum = \"{h64}\"",
            "sha1sum: {h40}",
            "git-lfs oid sha256:{h64}",
            "\"integrity\": \"sha512-{b86}==\"",
            "jsonwebtoken = \"9.3.0\"",
        ],
    ),
    (
        "placeholders and references",
        &[
            "\"password\": \"\",",
            "password: ${DB_PASSWORD}",
            "API_KEY=<your-api-key>",
            "token = os.environ[\"GITHUB_TOKEN\"]",
            "GITHUB_TOKEN: ${{ secrets.GITHUB_TOKEN }}",
            "SECRET_KEY = os.environ[\"DJANGO_SECRET_KEY\"]",
            "define( 'AUTH_KEY', 'put your unique phrase here' );",
            "NEXTAUTH_SECRET=$(openssl rand -base64 32)",
            "sshpass -p \"$SSH_PASS\" ssh root@host",
            "docker login -u bob --password-stdin",
            "ALTER USER app IDENTIFIED BY :new_password;",
            "const token = jwt.sign(payload, process.env.JWT_SECRET);",
        ],
    ),
    (
        "cookies without credentials",
        &[
            "Cookie: theme=dark; lang=en-US",
            "the session cookie is set with SameSite=Lax",
            "\"session_id\": \"{uuid}\", \"transcript_path\": \"/home/u/.claude/projects/x.jsonl\"",
            ".app.internal\tTRUE\t/\tFALSE\t1798761600\ttheme\tdark",
        ],
    ),
    (
        "code, lock files, headers and ids",
        &[
            "tokenizer: cl100k_base",
            "let secret = secrecy::SecretString::new(&token);",
            "secrecy::SecretString::from(token.clone())",
            "use proc_macro2::TokenStream;",
            "model_max_tokens = 4096",
            "max_tokens=4096",
            "\"tokenizer\": \"o200k_base\"",
            "checksum = \"{h64}\"",
            "\"integrity\": \"sha512-{b86}==\"",
            "resolved \"https://registry.yarnpkg.com/lodash/-/lodash-4.17.21.tgz#{h40}\"",
            "github.com/pkg/errors v0.9.1 h1:{b43}=",
            "\"sha\": \"{h40}\"",
            "image: nginx@sha256:{h64}",
            "\"token_type\": \"Bearer\",",
            "\"expires_in\": 3599,",
            "\"public_key\": \"ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI{b43} user@host\"",
            "STRIPE_PUBLISHABLE_KEY=pk_live_{a99}",
            "\"kid\": \"{h40}\"",
            "KMS_KEY_ID=arn:aws:kms:us-east-1:123456789012:key/{uuid}",
            "secret_arn = \"arn:aws:secretsmanager:us-east-1:123456789012:secret:prod/db-{a6}\"",
            "Authorization: Bearer $TOKEN",
            "Authorization: Bearer ${{ secrets.API_TOKEN }}",
            "password_reset_token_expiry = 3600",
            "\"request_id\": \"{uuid}\"",
            "traceparent: 00-{h32}-{h16}-01",
            "ETag: \"{h32}\"",
            "Content-Security-Policy: script-src 'sha256-{b43}='",
            "<script src=\"x.js\" integrity=\"sha384-{b64}\" crossorigin=\"anonymous\"></script>",
            "commit {h40}",
            "Merge: {h7} {h7}",
            "token = getpass.getpass(\"Token: \")",
            "password = os.getenv(\"DB_PASSWORD\")",
            "const apiKey = process.env.OPENAI_API_KEY;",
            "api_key = settings.OPENAI_API_KEY",
            "let token = Token::new(TokenKind::Ident, span);",
            "AWS_PROFILE=prod",
            "\"session_id\": \"{uuid}\"",
            "\"cursor\": \"{b40}\"",
            "next_page_token: {u40}",
            "tokenizer = AutoTokenizer.from_pretrained(\"bert-base-uncased\")",
            "password_hash = \"$argon2id$v=19$m=65536,t=3,p=4${b22}${b43}\"",
            "\"auth_type\": \"api_key\",",
            "secret_key_ref:\n  name: db-credentials\n  key: password",
            "valueFrom:\n  secretKeyRef:\n    name: db\n    key: DB_PASSWORD",
            "PasswordAuthentication no",
            "passwords don't match",
            "ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQ{b300} me@laptop",
            "keyId: {uuid}",
            "![logo](data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAA{b200})",
            "\"version\": \"1.2.3-beta.4+sha.{h7}\"",
            "uses: actions/checkout@{h40}",
            "Secrets: 0 found",
            "SECRET_KEY_NAME=django-secret",
            "token_budget: 200000",
            "context_tokens: 128000",
            "sessionStorage.setItem(\"theme\", \"dark\")",
        ],
    ),
    (
        "prose about passwords, no value",
        &[
            "password: required",
            "The password has been reset.",
            "password123 is a bad password",
            "Enter your password:",
            "Password: ********",
            "password: <hidden>",
            "密码错误",
            "パスワードを入力してください",
            "비밀번호가 틀렸습니다",
            "пароль неверный",
            "Passwort falsch",
            "mot de passe incorrect",
            "contraseña incorrecta",
            "senha incorreta",
            "şifre yanlış",
            "รหัสผ่านผิด",
            "mật khẩu sai",
            "Token: expired",
            "token limit reached (4096 tokens)",
            "the key is in ~/.ssh/id_ed25519",
            "API key: see 1Password",
            "password is stored in Vault at secret/data/db",
        ],
    ),
    (
        "code, settings, hashes, headers and templates around secret words",
        &[
            "\"tokenizer_config\": {\"model_max_length\": 8192}",
            "from transformers import AutoTokenizer",
            "tokens = tokenizer.encode(text)",
            "let tokens: Vec<Token> = lexer.collect();",
            "secret_scanning: enabled",
            "\"secretScanning\": {\"status\": \"enabled\"}",
            "password_policy: {min_length: 12, require_symbols: true}",
            "$table->string('password');",
            "$table->rememberToken();",
            "'password' => 'required|string|min:8|confirmed',",
            "'password' => Hash::make($request->password),",
            "password: await bcrypt.hash(password, 10),",
            "const [password, setPassword] = useState('');",
            "<input type=\"password\" name=\"password\" id=\"password\" autocomplete=\"current-password\">",
            "<label for=\"password\">Password</label>",
            "passwordEncoder.encode(rawPassword)",
            "self.password = password",
            "password=password,",
            "token=token,",
            "api_key=api_key,",
            "secret_key=settings.SECRET_KEY,",
            "AUTH_USER_MODEL = 'accounts.User'",
            "AUTHENTICATION_BACKENDS = ['django.contrib.auth.backends.ModelBackend']",
            "SESSION_ENGINE = 'django.contrib.sessions.backends.db'",
            "SESSION_COOKIE_AGE = 1209600",
            "TOKEN_URL = \"https://oauth2.googleapis.com/token\"",
            "token_endpoint: https://login.microsoftonline.com/common/oauth2/v2.0/token",
            "auth: { type: 'bearer' }",
            "\"authorization_code\"",
            "grant_type=client_credentials&client_id=my-app",
            "export AWS_DEFAULT_REGION=us-east-1",
            "SECRET_KEY_FILE=/run/secrets/django_key",
            "KEY_VAULT_NAME=kv-prod-weu-001",
            "key_vault_uri: https://kv-prod-weu-001.vault.azure.net/",
            "api_version: \"2024-02-15-preview\"",
            "azure_openai_deployment: gpt-4o-mini",
            "OPENAI_MODEL=gpt-4o-2024-08-06",
            "ANTHROPIC_MODEL=claude-sonnet-4-20250514",
            "\"cache_creation_input_tokens\": 1523,",
            "\"usage\": {\"input_tokens\": 4, \"output_tokens\": 312}",
            "key: \"Enter\"",
            "keyCode: 13",
            "onKeyDown={(e) => e.key === 'Escape' && close()}",
            "primary_key: id",
            "sort_key: created_at",
            "partition_key: \"/tenantId\"",
            "idempotency_key: \"{uuid}\"",
            "\"etag\": \"W/\\\"{h32}\\\"\"",
            "ssh-keygen -t ed25519 -C \"me@example.org\"",
            "The key fingerprint is SHA256:{b43}.",
            "Fingerprint: SHA256:{b43}",
            "\"fingerprint\": \"{h40}\"",
            "gpg --recv-keys {H40}",
            "pub   rsa4096 2020-01-01 [SC]\n      {H40}",
            "sha256:{h64}  dist/app.tar.gz",
            "{h64}  agentguard-x86_64-unknown-linux-gnu.tar.gz",
            "\"contentHash\": \"{b43}=\"",
            "pnpm-lock.yaml: resolution: {integrity: sha512-{b86}==}",
            "checksum = \"{h64}\"",
            "go.sum: golang.org/x/crypto v0.17.0 h1:{b43}=",
            "\"_resolved\": \"https://registry.npmjs.org/x/-/x-1.0.0.tgz\"",
            "Commit: {h40}\nAuthor: Jane <jane@example.org>",
            "Change-Id: I{h40}",
            "docker pull ghcr.io/org/app@sha256:{h64}",
            "\"ImageID\": \"sha256:{h64}\"",
            "\"Id\": \"{h64}\"",
            "\"RepoDigests\": [\"nginx@sha256:{h64}\"]",
            "session_id: {uuid}",
            "\"conversation_id\": \"{uuid}\"",
            "trace_id={h32} span_id={h16}",
            "X-Request-Id: {uuid}",
            "x-amz-request-id: {U16}",
            "x-amz-id-2: {b76}",
            "Correlation-Id: {uuid}",
            "\"nonce\": \"{h32}\"",
            "state={u43}&code_challenge={u43}",
            "\"code_verifier\": \"{u43}\"",
            "csrf_token: {u43}",
            "<meta name=\"csrf-token\" content=\"{u40}\">",
            "\"__VIEWSTATE\": \"{b120}\"",
            "data:image/png;base64,{b200}",
            "<img src=\"data:image/svg+xml;base64,{b120}\">",
            "\"avatar\": \"https://avatars.githubusercontent.com/u/{d8}?v=4\"",
            "https://github.com/org/repo/commit/{h40}",
            "https://example.org/reset?token=<token>",
            "curl -H \"Authorization: Bearer $API_TOKEN\" https://api.example.org",
            "curl -u \"$USER:$PASS\" https://x",
            "mysql -u root -p",
            "psql -U postgres -W",
            "docker login -u bob",
            "PGPASSWORD=$DB_PASS psql -h db",
            "redis-cli -a \"$REDIS_PASSWORD\"",
            "ssh -i ~/.ssh/id_rsa user@host",
            "gh auth login --web",
            "vault kv put secret/db password=@password.txt",
            "kubectl create secret generic db --from-file=password=./pw.txt",
            "openssl rand -hex 32",
            "python -c \"import secrets; print(secrets.token_urlsafe(32))\"",
            "use secrecy::{ExposeSecret, SecretString};",
            "std::env::var(\"API_TOKEN\").expect(\"API_TOKEN not set\")",
            "let api_key = std::env::var(\"OPENAI_API_KEY\")?;",
            "fn verify_password(hash: &str, password: &str) -> bool",
            "tokenizer: o200k_base",
            "model: text-embedding-3-small (cl100k_base)",
            "encoding_for_model(\"gpt-4o\") -> o200k_base",
            "\"tokenizer_file\": \"tokenizer.json\"",
            "token = \"{{ .Values.token }}\"",
            "password: \"{{ .Values.db.password }}\"",
            "api_key: !vault |\n  $ANSIBLE_VAULT;1.1;AES256\n  {h64}",
            "password: !ENV ${DB_PASSWORD}",
            "password = %(DB_PASSWORD)s",
            "password: ${{ secrets.DB_PASSWORD }}",
            "token: {{ token }}",
            "secret: \"{{ lookup('env', 'SECRET') }}\"",
            "\"password\": \"********\"",
            "password: [REDACTED]",
            "Password: •••••••",
            "ANTHROPIC_API_KEY=sk-ant-...",
            "OPENAI_API_KEY=sk-...your-key...",
            "GITHUB_TOKEN=ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
            "AKIAIOSFODNN7EXAMPLE",
            "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
            "password123",
            "\"salt_rounds\": 12",
            "bcrypt.gensalt(rounds=12)",
            "KEYCLOAK_REALM=master",
            "OAUTH_CLIENT_ID=0oa1b2c3d4e5f6g7h8i9",
            "GOOGLE_CLIENT_ID={d12}-{l32}.apps.googleusercontent.com",
            "pk_test_{a24}",
            "STRIPE_PUBLISHABLE_KEY=pk_live_{a24}",
            "NEXT_PUBLIC_POSTHOG_KEY=phc_{a43}",
            "SENTRY_DSN=https://{h32}@o{d6}.ingest.sentry.io/{d7}",
            "validators=[DataRequired(), Length(min=8)]",
            "password: { required: true, minLength: 8 }",
            "netrc = $HOME/.netrc",
            "password=<password>",
            "curl -u admin:<password> https://api.internal",
            "token: \"{{ .Values.token }}\"",
            "'password' => 'required|string|min:8|confirmed',",
            "password = (known_password)",
            "PASSWORD_FILE=/run/secrets/db_password",
        ],
    ),
    (
        "sentences about passwords, URLs with `@` in their path, JWT-like text",
        &[
            "password: must be at least 12 characters long",
            "Password: see the vault entry for staging",
            "the password is stored in the vault",
            "the password is obligatorie pentru fiecare cont",
            "le mot de passe est requis pour chaque compte",
            "the password hashing uses bcrypt with cost twelve",
            "password: required for every user account",
            "\"password\": \"must be at least eight characters\"",
            "Password: Mot de passe oublié",
            "http://localhost:8080/api/users/me@example.com",
            "https://registry.npmjs.org:443/@types/node",
            "see https://github.com/org/repo/blob/main/README.md#install and mail a@b.io",
            "a='http://host:8080','ops@example.com'",
            "header = eyJ{u20}\nsome words follow here",
            "login with src/components/Login.tsx",
            "log in to db:5432/app as the owner",
            "the password for the service needs to be rotated next week",
            "credentials: see docs/setup.md#login",
            "ls -a src/ && tar -acf out.tar.gz dir",
            "curl --user-agent=Mozilla/5.0:compatible https://example.org",
            "psql -U postgres -h db.internal:5432",
            "Cookie: _ga=GA1.2.{d10}.{d10}; _gid=GA1.2.{d9}.{d10}; _fbp=fb.1.{d13}.{d10}",
            "Set-Cookie: ajs_anonymous_id={uuid}; Path=/; Expires=Tue, 01 Dec 2026 12:00:00 GMT",
            "Cookie: wp-settings-1=libraryContent%3Dbrowse; wp-settings-time-1={d10}",
            "keystore=/etc/ssl/app.jks",
            "KEYSTORE_TYPE=PKCS12",
            "if the check doesn't pass is it flaky or real?",
            "parola este obligatorie pentru fiecare cont",
            "PASSWORD_DIR='C:\\' ./setup.sh",
            "echo \"APP_KEY=base64:$(openssl rand -base64 32)\" >> .env",
            "export DB_PASSWORD=$(openssl rand -hex 16)",
        ],
    ),
    (
        "secret-store writes whose value is read from elsewhere or is no secret",
        &[
            "aws secretsmanager create-secret --name prod/db --secret-string file://secret.json",
            "aws secretsmanager put-secret-value --secret-id db --secret-string \"$DB_SECRET_JSON\"",
            "aws ssm put-parameter --name /prod/app/port --value 8080 --type String",
            "vercel env add DB_PASSWORD production --value $DB_PASSWORD",
            "drone secret add --repository acme/api --name ssh_key --data @/home/ci/.ssh/id_ed25519",
            "jdbc:sqlserver://sql01.corp.local:1433;databaseName=Hr;integratedSecurity=true",
        ],
    ),
    (
        "Erlang and Ethereum look-alikes",
        &[
            "erl -sname worker -setcookie $COOKIE -eval 'app:start()'",
            "RELEASE_COOKIE=${RELEASE_COOKIE:-}",
            "Set-Cookie: theme=dark; Path=/",
            "SESSION_COOKIE_SECURE=True",
            "accounts: [process.env.PRIVATE_KEY]",
            "accounts: { mnemonic: process.env.MNEMONIC }",
            "tx 0x{h64} mined in block 0x{h6}; accounts: 3",
            "const wallet = new ethers.Wallet(process.env.PK, provider);",
            "curl --cookie cookies.txt https://example.com/",
        ],
    ),
    (
        "an Erlang cookie file that is not there",
        &[
            "$ cat ~/.erlang.cookie\ncat: /home/dev/.erlang.cookie: No such file or directory",
            "$ ls -la ~/.erlang.cookie\n-r-------- 1 dev dev 20 Dec  7 10:02 /home/dev/.erlang.cookie",
        ],
    ),
    (
        "an echo of several variables none of which is a secret, or whose secret printed empty",
        &[
            "$ echo \"$USER $HOME\"\ndev /home/dev",
            "$ echo \"$DB_USER / $DB_PASS\"\napp /",
            "$ echo \"$DB_USER / $DB_PASS\"\napp / ${DB_PASS}",
            "echo \"$A, $SECRET_KEY, $C\" is what we print\nnothing here",
            "$ echo \"$PASSWORD_MIN_LENGTH $PASSWORD_MAX_LENGTH\"\n8 64",
            "$ echo $NODE_ENV:$PORT\nproduction:3000",
            "$ echo \"$DB_USER / $DB_PASS\"\n$ ls",
        ],
    ),
    (
        "an SQL INSERT whose column list goes over lines with no secret column, or whose values are placeholders",
        &[
            "INSERT INTO users (\n  email,\n  display_name\n) VALUES ('a@corp.io', 'Alice Example');",
            "INSERT INTO users (\n  email,\n  password\n) VALUES ($1, $2);",
            "INSERT INTO users (\n  email,\n  password\n) VALUES (?, ?);",
            "INSERT INTO users\n  (email, password_reset_at)\n  VALUES ('a@corp.io', NOW());",
            "INSERT INTO accounts (\n  login,\n  password\n) VALUES (:login, :password);",
            "def create_user(\n    email,\n    password,\n):\n    db.add(User(email, password))",
            "SELECT id,\n  password\nFROM users WHERE email = 'a@corp.io';",
        ],
    ),
    (
        "a call over several lines whose arguments are names, lookups or placeholders",
        &[
            "Connection conn = DriverManager.getConnection(\n        url,\n        user,\n        password);",
            "$pdo = new PDO(\n    $dsn,\n    $user,\n    $pass\n);",
            "$pdo = new PDO(\n    getenv('DB_DSN'),\n    getenv('DB_USER'),\n    getenv('DB_PASS')\n);",
            "var client = new CosmosClient(\n    endpoint,\n    configuration[\"Cosmos:Key\"]);",
            "const client = algoliasearch(\n  process.env.ALGOLIA_APP_ID,\n  process.env.ALGOLIA_ADMIN_KEY\n);",
            "smtp.login(\n    os.environ['SMTP_USER'],\n    os.environ['SMTP_PASS'],\n)",
            "ds.setPassword(\n    System.getenv(\"DB_PASSWORD\"));",
            "$link = mysqli_connect(\n  'db.internal',\n  'wp',\n  '${DB_PASSWORD}'\n);",
            "logger.info(\"password reset requested\",\n    \"user\", user_id,\n    \"ip\", request.remote_addr)",
            "String token = tokenService.issue(\n    userId,\n    Duration.ofHours(1));",
            "Connection conn = DriverManager.getConnection(\n    \"jdbc:h2:mem:test\",\n    \"sa\",\n    \"\");",
            "ds.setPassword(\n    passwordFrom(vault));\nds.setUrl(\n    \"jdbc:postgresql://db:5432/app\");",
            "var creds = new NetworkCredential(\n    userName,\n    securePassword);",
            "auth=HTTPBasicAuth(\n    settings.API_USER,\n    settings.API_PASSWORD))",
            "User.objects.create_user(\n    username=\"alice\",\n    email=\"alice@corp.io\",\n    password=None,\n)",
            "props.put(\"password\",\n    passwordField.getText());",
            "co = cohere.Client(\n    api_key=os.environ[\"CO_API_KEY\"]\n)",
        ],
    ),
    (
        "an SQL INSERT whose secret-named columns get no secret, or whose columns are no secret",
        &[
            "INSERT INTO users (name, email) VALUES ('bob', 'bob@corp.io');",
            "INSERT INTO users (name, email) VALUES ('bob', '{a8}#{a4}');",
            "INSERT INTO users (name, password) VALUES (?, ?);",
            "INSERT INTO users (name, password) VALUES ($1, $2)",
            "INSERT INTO users (name, password) VALUES (%s, %s)",
            "INSERT INTO users (name, password) VALUES (:name, :password);",
            "INSERT INTO users (name, password) VALUES ('bob', NULL);",
            "INSERT INTO users (name, password) VALUES ('bob', crypt(password_input, gen_salt('bf')));",
            "INSERT INTO audit_log (event, detail) VALUES ('password_reset', 'user 42 reset password');",
            "INSERT INTO users (name, token_expires_at) VALUES ('bob', '2025-01-01 00:00:00');",
            "INSERT INTO settings (name, value) VALUES ('password_min_length', '12');",
            "INSERT INTO users (username, password) SELECT username, password FROM legacy_users;",
            "INSERT INTO users (name, password) VALUES ('bob', 'password');",
            "INSERT INTO users (name, password)\nVALUES ('bob', '********');",
            "INSERT INTO users (name, password_hint) VALUES ('bob', 'name of first pet');",
            "INSERT INTO tokens (name, scope) VALUES ('deploy', 'repo:write');",
            "INSERT INTO users (name, password) VALUES ('{a8}#{a4}', NULL);",
        ],
    ),
    (
        "sentences after a copula about a password, with a number and an exclamation",
        &[
            "the password is changed every 90 days!",
            "the password is at least 12 chars long!",
            "Your password is valid for 90 days!",
            "The password is hunter 2!",
            "the password is reset after 3 failed attempts!",
            "the password is 16 characters minimum!",
            "Das Passwort ist 90 Tage gültig.",
            "the password is stored in vault 2 now!",
            "the password is required for step 3!",
            "The password is rotated every 30 days. See the runbook!",
            "Das Admin-Passwort wurde geändert.",
            "see the Reset-Password page, step 2!",
            "X-Password-Policy: min 12 chars",
            "the db-password is in the vault",
            "the password is expired since 2 days!",
        ],
    ),
    (
        "the output of a command named for making a secret that prints none",
        &[
            "$ bin/elasticsearch-reset-password -u elastic -i\nThis tool will reset the password of the [elastic] user.\nEnter password for [elastic]:",
            "$ bin/elasticsearch-reset-password -u elastic\nERROR: Failed to reset password for the [elastic] user",
            "$ ./rotate_token.sh prod\nStatus: Done",
            "$ ./rotate_token.sh prod\nDone.\n$ ls",
            "$ git log --oneline | grep reset-password\n3f2a1b9 fix reset-password flow",
            "$ npm run reset-password\n> app@1.0.0 reset-password",
            "$ ./reset_password.sh --help\nUsage: reset_password.sh [--user NAME]",
            "$ ./generate_token.sh\nWrote token to /etc/app/token.",
            "$ ./rotate_token.sh\nToken rotated.\nNext rotation: Monday",
            "$ ./create-user-token.sh --dry-run\nWould create token for user ci.",
            "$ ./reset-password.sh\nNew value: ${NEW_PASSWORD}",
            "$ ./rotate_token.sh\nToken: <redacted>",
            "$ ./rotate_token.sh\nToken: ********",
            "$ ./generate-password.sh\nPassword length: 24",
            "$ ./reset-password.sh admin\nUser: admin",
        ],
    ),
    (
        "a user and pass pair that gives no password",
        &[
            "user admin / pass admin",
            "user `bob` / pass `see the vault`",
            "user=$USER / pass=$PASS",
            "user `ci` / pass `$CI_PASSWORD`",
            "user `ci` / pass `${CI_PASSWORD}`",
            "user `ci` / pass `<your password>`",
            "the user / pass fields are empty",
            "user admin / password required",
            "user deploy / pass ********",
            "user deploy / pass changeme",
            "user `ops` / pass `ask in the team channel`",
            "user name / password form at /login",
            "user admin / pass {password}",
            "user: admin / pass: (same as staging)",
            "see user/pass in 1Password",
        ],
    ),
];

/// The secrets of a template: its expansion with the `«…»` spans kept apart.
fn expand_spans(template: &str, seed: u64) -> (String, Vec<String>) {
    // Sentinels in place of the marks consume the random source exactly as the marks do.
    let marked = template.replace('«', "\u{1}").replace('»', "\u{2}");
    let (with_sentinels, _) = expand(&marked, "none", seed);
    let text = with_sentinels.replace(['\u{1}', '\u{2}'], "");
    let secrets = with_sentinels
        .split('\u{1}')
        .skip(1)
        .filter_map(|part| part.split('\u{2}').next())
        .map(str::to_string)
        .collect();
    (text, secrets)
}

/// Each template is expanded this many times, with different random characters: a rule that
/// holds for one draw of a secret but not for another (a random value that happens to read
/// as words) is a rule about that draw.
const DRAWS: u64 = 8;

/// A piece of a secret this long left in the output is a partial leak.
const LEAK_PIECE: usize = 6;

fn leaked_piece<'a>(output: &str, secret: &'a str) -> Option<&'a str> {
    // The kinds in the markers are no part of the text (`github` in a `github_pat_` token).
    let output = &without_markers(output);
    let bytes = secret.as_bytes();
    if bytes.len() < LEAK_PIECE {
        return output.contains(secret).then_some(secret);
    }
    (0..=bytes.len() - LEAK_PIECE)
        .filter(|&at| secret.is_char_boundary(at) && secret.is_char_boundary(at + LEAK_PIECE))
        .map(|at| &secret[at..at + LEAK_PIECE])
        .find(|piece| output.contains(piece))
}

/// `output` with each `[REDACTED:kind]` marker cut to `[]`.
fn without_markers(output: &str) -> String {
    let mut kept = String::with_capacity(output.len());
    let mut rest = output;
    while let Some(at) = rest.find("[REDACTED:") {
        kept.push_str(&rest[..at]);
        kept.push_str("[]");
        rest = rest[at..].find(']').map_or("", |end| &rest[at + end + 1..]);
    }
    kept.push_str(rest);
    kept
}

#[test]
fn every_family_of_leaks_is_redacted_whole() {
    let mut failures = Vec::new();
    for (family, templates) in LEAKS {
        for (index, template) in templates.iter().enumerate() {
            for draw in 0..DRAWS {
                let (text, secrets) = expand_spans(template, 7000 + index as u64 + draw * 100_000);
                assert!(!secrets.is_empty(), "{family}: no «secret» in {template}");
                let output = redactor().redact(&text).text;
                for secret in &secrets {
                    if let Some(piece) = leaked_piece(&output, secret) {
                        failures.push(format!("  {family}: `{piece}` left in {output:?}"));
                    }
                }
                // The text around the secrets stays: the judge needs it.
                let (first, last) = (
                    template.split('«').next().unwrap_or_default(),
                    template.rsplit('»').next().unwrap_or_default(),
                );
                if !first.contains('{') && !output.starts_with(first) {
                    failures.push(format!("  {family}: lost the text before in {output:?}"));
                }
                if !last.contains('{') && !output.ends_with(last) {
                    failures.push(format!("  {family}: lost the text after in {output:?}"));
                }
            }
        }
    }
    assert!(failures.is_empty(), "leaks:\n{}", failures.join("\n"));
}

#[test]
fn every_family_of_look_alikes_stays() {
    let mut failures = Vec::new();
    for (family, templates) in LOOK_ALIKES {
        for (index, template) in templates.iter().enumerate() {
            for draw in 0..DRAWS {
                let (text, _) = expand(template, "none", 8000 + index as u64 + draw * 100_000);
                let output = redactor().redact(&text).text;
                if output != text {
                    failures.push(format!("  {family}: {text:?}\n    became {output:?}"));
                }
            }
        }
    }
    assert!(
        failures.is_empty(),
        "look-alikes touched:\n{}",
        failures.join("\n")
    );
}

/// Standard base64, padded: enough for the tests' dumps.
fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let group = chunk
            .iter()
            .enumerate()
            .fold(0u32, |acc, (i, &b)| acc | u32::from(b) << (16 - 8 * i));
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(char::from(ALPHABET[(group >> (18 - 6 * i) & 63) as usize]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

#[test]
fn base64_dumps_of_credential_files_are_redacted_and_plain_base64_stays() {
    let dumps = [
        (
            "$ base64 .env\n",
            "DATABASE_URL=postgres://app:{a16}@db/app\nSTRIPE_SECRET_KEY=sk_live_{a24}\n",
        ),
        ("NPMRC_B64=", "//registry.npmjs.org/:_authToken=npm_{a36}\n"),
        (
            "  .dockerconfigjson: ",
            "{\"auths\":{\"ghcr.io\":{\"username\":\"bot\",\"password\":\"{a20}\"}}}",
        ),
        ("ENV_FILE=", "DB_USER=app\nDB_PASS={a16}\n"),
        ("  .env: ", "APP_ENV=prod\nSMTP_PASS={a14}\n"),
        (
            "KUBECONFIG_B64=",
            "apiVersion: v1\nkind: Config\nusers:\n- name: admin\n  user:\n    client-key-data: {b60}\n",
        ),
        (
            "KUBECONFIG_DATA=",
            "apiVersion: v1\nclusters:\n- cluster:\n    server: https://k8s:6443\nusers:\n- name: admin\n  user:\n    token: {a40}\n",
        ),
        // An `.htpasswd` file, its hash at each of the three offsets of the encoding.
        ("HTPASSWD_B64=", "admin:$apr1${a8}${a22}\n"),
        ("HTPASSWD_B64=", "bob:$2y$10${a53}\n"),
        ("  auth: ", "alice:$2b$12${a53}\n"),
        ("  auth: ", "ops:$apr1${a8}${a22}\n"),
        ("  auth: ", "root:$apr1${a8}${a22}\n"),
    ];
    for (index, (prefix, file)) in dumps.iter().enumerate() {
        let (file, _) = expand(file, "none", 9000 + index as u64);
        let encoded = base64(file.as_bytes());
        let text = format!("{prefix}{encoded}");
        let output = redactor().redact(&text).text;
        assert!(
            output.starts_with(prefix) && leaked_piece(&output, &encoded[8..]).is_none(),
            "{prefix:?}: {output:?}"
        );
    }
    let plain = ["README.md base64: ", "logo.png: data:image/png;base64,"];
    for (index, prefix) in plain.iter().enumerate() {
        let (words, _) = expand(
            "# Project\n\nA tool that formats {L12} files and checks their links.\n",
            "none",
            9100 + index as u64,
        );
        let text = format!("{prefix}{}", base64(words.as_bytes()));
        assert_eq!(redactor().redact(&text).text, text);
    }
}

#[test]
fn connection_strings_encoded_as_base64_are_redacted_at_every_offset() {
    // One, two or three bytes before `://` put it at each of the three offsets of the encoding.
    let urls = [
        "postgres://app:{a20}@db.internal:5432/app",
        "xmysql://root:{q14}@db:3306/shop",
        "xymongodb+srv://admin:{a18}@cluster0.ab1cd.mongodb.net/prod",
        "redis://:{a24}@cache.internal:6379/0",
        "xamqp://svc:{a16}@rabbit:5672/vhost",
        "xyhttps://deploy:{a20}@git.internal/org/repo.git",
    ];
    for prefix in ["DATABASE_URL_B64=", "echo ", "  uri: \""] {
        for (index, url) in urls.iter().enumerate() {
            let (url, _) = expand(url, "none", 9200 + index as u64);
            let encoded = base64(url.as_bytes());
            let text = format!("{prefix}{encoded}");
            let output = redactor().redact(&text).text;
            assert!(
                output.starts_with(prefix) && leaked_piece(&output, &encoded[8..]).is_none(),
                "{url:?} as {text:?}: {output:?}"
            );
        }
    }
    // A URL without a password, encoded, is no secret.
    for url in [
        "https://github.com/org/repo.git",
        "postgres://db.internal:5432/app",
    ] {
        let text = format!("REPO_B64={}", base64(url.as_bytes()));
        assert_eq!(redactor().redact(&text).text, text);
    }
}

#[test]
fn restated_keys_are_templates_but_own_words_are_not() {
    let grammar = redactor().table().assignment.as_ref().expect("grammar");
    assert!(grammar.restates_key(b"data-name1", b"data-value1"));
    assert!(grammar.restates_key(b"DB_PASSWORD", b"db-password"));
    assert!(!grammar.restates_key(b"key", b"mypassword"));
    assert!(!grammar.restates_key(b"password", b"Password1!"));
    assert!(!grammar.restates_key(b"api_key", b"kq8ZtWm3"));
}

#[test]
fn a_key_block_around_a_template_body_stays_and_a_real_one_goes() {
    let template = "-----BEGIN PRIVATE KEY-----\nanything\n-----END PRIVATE KEY-----";
    assert_eq!(redactor().redact(template).text, template);
    let (body, _) = expand("{b64}", "none", 9200);
    let key = format!("-----BEGIN PRIVATE KEY-----\n{body}\n-----END PRIVATE KEY-----");
    assert_eq!(redactor().redact(&key).text, "[REDACTED:private-key]");
}

#[test]
fn an_alphabet_run_marks_a_documentation_value_for_every_rule() {
    let documented = "AIzaSyabcdefghijklmnopqrstuvwxyz1234567";
    assert_eq!(redactor().redact(documented).text, documented);
    let (key, _) = expand("AIza{u35}", "none", 9300);
    assert_eq!(redactor().redact(&key).text, "[REDACTED:gcp-api-key]");
}

#[test]
fn a_base64_dump_wrapped_over_lines_is_redacted_on_every_line() {
    let files = [
        (
            76,
            "{\n  \"auths\": {\n    \"registry.corp.io\": {\n      \"username\": \"bot\",\n      \"password\": \"{a20}\"\n    }\n  }\n}\n",
        ),
        (
            64,
            "[default]\naws_access_key_id = AKIA{s16}\naws_secret_access_key = {a40}\nregion = eu-west-1\n",
        ),
    ];
    for (index, (width, file)) in files.iter().enumerate() {
        let (file, _) = expand(file, "none", 9400 + index as u64);
        let encoded = base64(file.as_bytes());
        let lines: Vec<&str> = encoded
            .as_bytes()
            .chunks(*width)
            .map(|chunk| std::str::from_utf8(chunk).expect("base64 is ASCII"))
            .collect();
        assert!(lines.len() >= 2, "{file:?} fills more than one line");
        let text = format!("$ base64 creds\n{}\nDone", lines.join("\n"));
        let output = redactor().redact(&text).text;
        for line in &lines {
            assert!(
                leaked_piece(&output, line).is_none(),
                "width {width}: {line} left in {output:?}"
            );
        }
        assert!(output.starts_with("$ base64 creds\n") && output.ends_with("\nDone"));
    }
    // A digest filling a line is no wrapped dump: the line after it stays.
    let (text, _) = expand("api_token = {h64}\n{h64}", "none", 9410);
    let output = redactor().redact(&text).text;
    assert!(output.ends_with(&text[text.len() - 64..]), "{output:?}");
}

#[test]
fn a_putty_key_file_loses_its_private_lines_and_keeps_its_public_ones() {
    let (file, _) = expand(
        "PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\nComment: deploy\nPublic-Lines: 2\nAAAAC3NzaC1lZDI1NTE5AAAAI{b40}\n{b20}\nPrivate-Lines: 1\nAAAAI{b43}\nPrivate-MAC: {h64}\n",
        "none",
        9500,
    );
    let private = file.lines().nth(7).expect("the private line");
    let output = redactor().redact(&file).text;
    assert!(leaked_piece(&output, private).is_none(), "{output}");
    assert!(
        output.contains("Public-Lines: 2\nAAAAC3NzaC1lZDI1NTE5"),
        "{output}"
    );
    assert!(output.contains("[REDACTED:putty-private-key]"), "{output}");
}

#[test]
fn basic_credentials_are_judged_by_their_password() {
    for default in ["aladdin:opensesame", "admin:admin", "user:password"] {
        let text = format!("Authorization: Basic {}", base64(default.as_bytes()));
        assert_eq!(redactor().redact(&text).text, text, "{default}");
    }
    let (pair, _) = expand("deploy:{a6}*{a8}", "none", 9600);
    let text = format!(
        "curl -H \"Authorization: Basic {}\" https://nexus",
        base64(pair.as_bytes())
    );
    assert_eq!(
        redactor().redact(&text).text,
        "curl -H \"Authorization: Basic [REDACTED:basic-auth]\" https://nexus"
    );
}

#[test]
fn base64_of_a_credential_file_goes_on_every_wrapped_line_of_the_output() {
    let (file, _) = expand(
        "DB_HOST=db.internal\nDB_USER=app\nLOG_LEVEL=info\nFEATURE_FLAGS=a,b,c\nDB_PASSWORD={a16}\nSTRIPE_SECRET_KEY=sk_live_{a24}\n",
        "none",
        9700,
    );
    let encoded = base64(file.as_bytes());
    let lines: Vec<&str> = encoded
        .as_bytes()
        .chunks(76)
        .map(|chunk| std::str::from_utf8(chunk).expect("base64 is ASCII"))
        .collect();
    for command in ["$ base64 .env", "$ cat ~/.aws/credentials | base64"] {
        let text = format!("{command}\n{}\n$ ls", lines.join("\n"));
        let output = redactor().redact(&text).text;
        for line in &lines {
            assert!(
                leaked_piece(&output, line).is_none(),
                "{line} left in {output}"
            );
        }
        assert!(
            output.starts_with(command) && output.ends_with("\n$ ls"),
            "{output}"
        );
    }
}

#[test]
fn a_wrapped_base64_dump_whose_secret_straddles_a_wrap_is_redacted_on_every_line() {
    // The key names fall in the first line and their values in the next (a kubeconfig's
    // token), or the file ends in a short last line of whole groups and no padding.
    for (template, seed) in [
        (
            "apiVersion: v1\nusers:\n- name: admin\n  user:\n    token: {a40}\n",
            9800,
        ),
        (
            "[pypi]\nusername = __token__\npassword = pypi-{u120}xyz\n",
            9801,
        ),
        ("db.internal:5432:app:app:{a14}\n", 9802),
    ] {
        let (file, _) = expand(template, "none", seed);
        let encoded = base64(file.as_bytes());
        for width in [64, 76] {
            let lines: Vec<&str> = encoded
                .as_bytes()
                .chunks(width)
                .map(|chunk| std::str::from_utf8(chunk).expect("base64 is ASCII"))
                .collect();
            let text = format!("{}\nDone", lines.join("\n"));
            let output = redactor().redact(&text).text;
            for line in &lines {
                assert!(
                    leaked_piece(&output, line).is_none(),
                    "{line} left in {output}"
                );
            }
            assert!(output.ends_with("\nDone"), "{output}");
        }
    }
}

/// One layer of JSON an agent's traffic wraps a text in: a document and the pointer of the
/// string that holds the text.
type Layer = (&'static str, &'static str);

const TOOL_RESULT: Layer = (
    r#"{"type":"tool_result","tool_use_id":"toolu_01","content":"","is_error":false}"#,
    "/content",
);
const CHAT_TOOL_MESSAGE: Layer = (r#"{"role": "tool", "content": ""}"#, "/content");
const TRANSCRIPT_TEXT: Layer = (
    r#"{"type":"user","message":{"content":[{"type":"text","text":""}]}}"#,
    "/message/content/0/text",
);
const COMMAND_OUTPUT: Layer = (r#"{"stdout":"","stderr":"","exit_code":0}"#, "/stdout");

/// How a layer's JSON is written: compact, or with each `/` escaped as PHP's `json_encode`
/// writes it.
#[derive(Clone, Copy, PartialEq)]
enum Solidus {
    Plain,
    Escaped,
}

/// The ways a text travels in escaped strings, outermost layer first: a tool result, a chat
/// message after a prompt line, a transcript line holding a tool's JSON output (escaped
/// twice), and a PHP service's JSON.
const ESCAPED_LAYERS: &[(&str, &[Layer], Solidus)] = &[
    ("", &[TOOL_RESULT], Solidus::Plain),
    ("$ cat config\n", &[CHAT_TOOL_MESSAGE], Solidus::Plain),
    ("", &[TRANSCRIPT_TEXT, COMMAND_OUTPUT], Solidus::Plain),
    ("", &[COMMAND_OUTPUT], Solidus::Escaped),
];

/// `text` put into the string of each layer, innermost first: one JSON line.
fn wrap(text: &str, layers: &[Layer], solidus: Solidus) -> String {
    layers
        .iter()
        .rev()
        .fold(text.to_string(), |inner, (document, pointer)| {
            let mut value: serde_json::Value =
                serde_json::from_str(document).expect("a layer is JSON");
            *value.pointer_mut(pointer).expect("the layer's string") = inner.into();
            match solidus {
                Solidus::Plain => value.to_string(),
                // Outside its strings JSON holds no `/`.
                Solidus::Escaped => value.to_string().replace('/', "\\/"),
            }
        })
}

/// The text inside the layers of `line`; None when a layer is no longer JSON or lost its string.
fn unwrap(line: &str, layers: &[Layer]) -> Option<String> {
    layers
        .iter()
        .try_fold(line.to_string(), |outer, (_, pointer)| {
            let value: serde_json::Value = serde_json::from_str(&outer).ok()?;
            Some(value.pointer(pointer)?.as_str()?.to_string())
        })
}

/// The multi-line templates of the tuning cases: the forms whose recognizers follow lines.
fn multi_line(templates: impl IntoIterator<Item = &'static str>) -> Vec<&'static str> {
    templates
        .into_iter()
        .filter(|template| template.contains('\n'))
        .collect()
}

/// Every leak template of the tuning cases.
fn all_leaks() -> impl Iterator<Item = &'static str> {
    LEAKS
        .iter()
        .flat_map(|(_, templates)| templates.iter().copied())
        .chain(super::ASSIGNMENT_LEAKS.iter().copied())
        .chain(super::CASES.iter().map(|&(_, leak, _)| leak))
}

/// The ways each template's secrets, caught in the plain text, leak when its text travels in
/// `layers`: a piece of a secret left, the JSON broken, a byte outside the secrets changed.
/// (Whether the plain text leaks is the plain families' test.)
fn escaped_leaks(templates: &[&str], layers: &[(&str, &[Layer], Solidus)]) -> Vec<String> {
    let mut failures = Vec::new();
    for (index, template) in templates.iter().enumerate() {
        for draw in 0..DRAWS {
            let (text, secrets) = expand_spans(template, 9900 + index as u64 + draw * 100_000);
            for &(prompt, layers, solidus) in layers {
                let plain = redactor().redact(&format!("{prompt}{text}")).text;
                let line = wrap(&format!("{prompt}{text}"), layers, solidus);
                let output = redactor().redact(&line).text;
                let Some(inside) = unwrap(&output, layers) else {
                    failures.push(format!("  no longer JSON: {output}"));
                    continue;
                };
                let caught_plain = |secret: &str| leaked_piece(&plain, secret).is_none();
                for secret in secrets.iter().filter(|secret| caught_plain(secret)) {
                    if let Some(piece) = leaked_piece(&inside, secret) {
                        failures.push(format!("  `{piece}` left in {output}"));
                    }
                }
                // Nothing but the text changed, and the text only where it was redacted.
                if wrap(&inside, layers, solidus) != output {
                    failures.push(format!("  the layers changed in {output}"));
                }
                let kept = |part: &str| !part.contains('{') && !part.contains('«');
                let first = template.split('«').next().unwrap_or_default();
                let last = template.rsplit('»').next().unwrap_or_default();
                if (kept(first) && !inside.starts_with(&format!("{prompt}{first}")))
                    || (kept(last) && !inside.ends_with(last))
                {
                    failures.push(format!("  lost the text around in {output}"));
                }
            }
        }
    }
    failures
}

#[test]
fn every_multi_line_leak_is_redacted_whole_inside_escaped_strings_too() {
    let leaks = multi_line(all_leaks());
    assert!(leaks.len() >= 20, "{} multi-line leaks", leaks.len());
    let failures = escaped_leaks(&leaks, ESCAPED_LAYERS);
    assert!(failures.is_empty(), "leaks:\n{}", failures.join("\n"));
}

#[test]
fn every_leak_holding_a_slash_is_redacted_whole_where_json_escapes_slashes() {
    let leaks: Vec<&str> = all_leaks()
        .filter(|template| template.contains('/'))
        .collect();
    assert!(leaks.len() >= 50, "{} leaks hold a `/`", leaks.len());
    let escaped = [("", &[COMMAND_OUTPUT][..], Solidus::Escaped)];
    let failures = escaped_leaks(&leaks, &escaped);
    assert!(failures.is_empty(), "leaks:\n{}", failures.join("\n"));
}

#[test]
fn every_multi_line_look_alike_stays_inside_escaped_strings_too() {
    let look_alikes = multi_line(
        LOOK_ALIKES
            .iter()
            .flat_map(|(_, templates)| templates.iter().copied())
            .chain(super::ASSIGNMENT_LOOK_ALIKES.iter().copied())
            .chain(super::CASES.iter().map(|&(_, _, near_miss)| near_miss)),
    );
    assert!(
        look_alikes.len() >= 10,
        "{} multi-line look-alikes",
        look_alikes.len()
    );
    let mut failures = Vec::new();
    for (index, template) in look_alikes.iter().enumerate() {
        for draw in 0..DRAWS {
            let (text, _) = expand(template, "none", 9950 + index as u64 + draw * 100_000);
            for &(prompt, layers, solidus) in ESCAPED_LAYERS {
                let line = wrap(&format!("{prompt}{text}"), layers, solidus);
                let output = redactor().redact(&line).text;
                if output != line {
                    failures.push(format!("  {line}\n    became {output}"));
                }
            }
        }
    }
    assert!(
        failures.is_empty(),
        "look-alikes touched:\n{}",
        failures.join("\n")
    );
}
