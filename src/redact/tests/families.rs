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
];

/// (family, templates that must come out unchanged)
const LOOK_ALIKES: &[(&str, &[&str])] = &[
    (
        "password words in prose",
        &[
            "the password must be at least 12 characters long",
            "请输入密码",
            "パスワードを忘れた場合",
            "mot de passe oublié ?",
            "Passwort vergessen?",
            "la contraseña es obligatoria",
            "пароль должен быть длиннее",
            "비밀번호를 입력하세요",
            "a senha é obrigatória",
            "şifre gerekli",
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

/// A piece of a secret this long left in the output is a partial leak.
const LEAK_PIECE: usize = 6;

fn leaked_piece<'a>(output: &str, secret: &'a str) -> Option<&'a str> {
    let bytes = secret.as_bytes();
    if bytes.len() < LEAK_PIECE {
        return output.contains(secret).then_some(secret);
    }
    (0..=bytes.len() - LEAK_PIECE)
        .filter(|&at| secret.is_char_boundary(at) && secret.is_char_boundary(at + LEAK_PIECE))
        .map(|at| &secret[at..at + LEAK_PIECE])
        .find(|piece| output.contains(piece))
}

#[test]
fn every_family_of_leaks_is_redacted_whole() {
    let mut failures = Vec::new();
    for (family, templates) in LEAKS {
        for (index, template) in templates.iter().enumerate() {
            let (text, secrets) = expand_spans(template, 7000 + index as u64);
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
    assert!(failures.is_empty(), "leaks:\n{}", failures.join("\n"));
}

#[test]
fn every_family_of_look_alikes_stays() {
    let mut failures = Vec::new();
    for (family, templates) in LOOK_ALIKES {
        for (index, template) in templates.iter().enumerate() {
            let (text, _) = expand(template, "none", 8000 + index as u64);
            let output = redactor().redact(&text).text;
            if output != text {
                failures.push(format!("  {family}: {text:?}\n    became {output:?}"));
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
        (
            "KUBECONFIG_DATA=",
            "apiVersion: v1\nclusters:\n- cluster:\n    server: https://k8s:6443\nusers:\n- name: admin\n  user:\n    token: {a40}\n",
        ),
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
