"""``secret-assignment`` over the shapes a password takes in real notes (adversary17 D21): a key
glued to a name (``PGPASSWORD``), a typed assignment, an XML element, an environment read's
default, a real-looking value wrapped as a placeholder; and the ordinary text beside them that
must stay clean: prose labels, variables, templates, types, tags, paths."""

from __future__ import annotations

import re

import pytest
from hotplex.text import secret_rules
from hypothesis import assume, given
from hypothesis import strategies as st

VALUE = "Xk9mP2vL8qR4wz"


def assigned(text: str) -> list[str]:
    return [m.secret for m in secret_rules.scan(text) if m.rule.name == "secret-assignment"]


_MARKS = [("*", "*"), ("_", "_"), ("***", "***"), ("~~", "~~"), ("[", "](#pw)"), ("**", "**")]
FOUND = [
    (f"PGPASSWORD={VALUE}", VALUE),
    (f"export PGPASSWORD='{VALUE}'", VALUE),
    (f"DBPASSWORD={VALUE}", VALUE),
    (f"MYSQL_PWD={VALUE}", VALUE),
    (f"csrftoken={VALUE}", VALUE),
    ("mypassword=hunter22", "hunter22"),
    (f'const password: string = "{VALUE}";', VALUE),
    (f'password: string = "{VALUE}"', VALUE),
    (f'password: Optional[str] = "{VALUE}"', VALUE),
    (f'let password: &str = "{VALUE}";', VALUE),
    (f'val dbPassword: String = "{VALUE}"', VALUE),
    (f"<password>{VALUE}</password>", VALUE),
    (f"<server><id>repo</id><password>{VALUE}</password></server>", VALUE),
    ("<dbPassword>{COQLCE6DU6GtcS5P=}</dbPassword>", "{COQLCE6DU6GtcS5P=}"),
    (f'password = os.getenv("PW", "{VALUE}")', VALUE),
    (f"password = os.environ.get('PW', '{VALUE}')", VALUE),
    (f'password = os.getenv("PW", default="{VALUE}")', VALUE),
    (f"password=/{VALUE}", f"/{VALUE}"),
    (f"password: !{VALUE}", f"!{VALUE}"),
    (f'password = os.getenv("PW") or "{VALUE}"', VALUE),
    (f'password = ENV.fetch("PW", "{VALUE}")', VALUE),
    (f'password = process.env.PW || "{VALUE}"', VALUE),
    (f'password = process.env.PW ?? "{VALUE}"', VALUE),
    (f'password = "********{VALUE}"', f"********{VALUE}"),
    (f'password = "${{{VALUE}}}"', f"${{{VALUE}}}"),
    (f'password = "{{{{{VALUE}}}}}"', f"{{{{{VALUE}}}}}"),
    (f"password: <{VALUE}>", f"<{VALUE}>"),
    (f"PGPASSWORD=${{PGPASSWORD:-{VALUE}}}", f"${{PGPASSWORD:-{VALUE}}}"),
    # A quoted value is read whole: a blank in it hides nothing (adversary D12).
    ('password = "Xk9mP2vL 8qR4wzT7"', "Xk9mP2vL 8qR4wzT7"),
    ('api_key: "sk9Xk2 mP8vL4qR7wzT3"', "sk9Xk2 mP8vL4qR7wzT3"),
    ('password = "correct horse battery staple"', "correct horse battery staple"),
    (f'password = "Xk9m\\"{VALUE}"', f'Xk9m\\"{VALUE}'),
    ("'passphrase': 'correct horse battery staple',", "correct horse battery staple"),
    (f'token: "Bearer {VALUE}"', VALUE),  # the scheme read past, in quotes too
    (f'{{"password": "{{AWS}}.{VALUE}"}}', f"{{AWS}}.{VALUE}"),
    # A YAML block scalar's value is its first line (adversary D15).
    (f"password: |\n  {VALUE}\n", VALUE),
    (f"db:\n  password: >-\n    {VALUE}\n  user: app\n", VALUE),
    (f"password: |2\n  {VALUE}", VALUE),
    (f"> ```yaml\n> password: |\n>   {VALUE}\n> ```", VALUE),
    (f"password: |  # the staging one\r\n\r\n  {VALUE}  \r\n", VALUE),
    ("password: |\n  correct horse battery staple\n", "correct horse battery staple"),
    # A key in Markdown's other marks: Slack's bold, emphasis, strikethrough, a link (adversary20
    # D1).
    *((f"{mark}password{end}: {VALUE}", VALUE) for mark, end in _MARKS),
    # A field's description's first word or an authorization's scheme before the value
    # (adversary20 D6).
    *((f"password: {lead} {VALUE}", VALUE) for lead in ("Required:", "prod:", "Why?", "Bearer")),
    (f"Authorization token: Basic {VALUE}", VALUE),
    # A string prefix or a triple quote hides nothing (adversary19 D1).
    *(
        (f'password = {prefix}"{VALUE}"', VALUE)
        for prefix in ("r", "b", "f", "u", "rb", "@", "$", "rf", "Fr", "$@", "L", "u8")
    ),
    # Rust's raw strings and C#'s UTF-8 literals (adversary20 D5).
    (f'password = r#"{VALUE}"#', VALUE),
    (f'password = br##"{VALUE}"##', VALUE),
    (f'password = "{VALUE}"u8;', VALUE),
    ('password = u"correct horse battery staple"', "correct horse battery staple"),
    (f'PASSWORD = """{VALUE}"""', VALUE),
    ("password = '''correct horse battery staple'''", "correct horse battery staple"),
    (f'PASSWORD = """\n{VALUE}\n"""', VALUE),
    (f'os.getenv("PW", r"{VALUE}")', VALUE),
    # Sentence punctuation after a word with a digit is no prose (adversary19 D2).
    ("password: Summer2024!", "Summer2024!"),
    ("password: admin:s3cr3t", "admin:s3cr3t"),
    # A key as Markdown, a table or a CJK keyboard writes it; a YAML property before the value
    # (adversary19 D3).
    (f"**password**: {VALUE}", VALUE),
    (f"**Password:** {VALUE}", VALUE),
    (f"__password__: {VALUE}", VALUE),
    (f"`password`: `{VALUE}`", VALUE),
    (f"`password` = `{VALUE}`", VALUE),
    (f"| password | {VALUE} |", VALUE),
    (f"| Key | Value |\n|---|---|\n|token|{VALUE}|", VALUE),
    (f"| **password** | {VALUE} |", VALUE),
    (f"|`password`|`{VALUE}`|", VALUE),
    # A table's key cell holding an environment's name (adversary21 D3, adversary20 D2).
    (f"| PGPASSWORD | {VALUE} |", VALUE),
    (f"| Name | Value |\n|---|---|\n| DB_PASSWORD | {VALUE} |", VALUE),
    (f"| **DB_PASSWORD** | {VALUE} |", VALUE),
    (f"| `OPENAI_API_KEY` | `{VALUE}` |", VALUE),
    (f"| spring.datasource.password | {VALUE} |", VALUE),
    (f"| app | DB_PASSWORD      |   {VALUE} |", VALUE),
    (f"|  DB_PASSWORD|{VALUE}|", VALUE),
    (f"| *DB_PASSWORD* | {VALUE} |", VALUE),
    (f"| ***DB_PASSWORD*** | {VALUE} |", VALUE),
    (f"| ~~password~~ | {VALUE} |", VALUE),
    (f"| 密码 | {VALUE} |", VALUE),
    (f"password\uff1a{VALUE}", VALUE),
    (f"password\uff1d{VALUE}", VALUE),
    (f"password:\u00a0{VALUE}", VALUE),
    (f"password:\u3000{VALUE}", VALUE),
    (f"password: !!str {VALUE}", VALUE),
    (f"password: &pw {VALUE}", VALUE),
    (f"password: &pw |\n  {VALUE}", VALUE),
    (f"password: !!binary |\n  {VALUE}", VALUE),
    (f"password: !secret |\n  {VALUE}", VALUE),
    # A custom or verbatim tag, a plain value on the next line (adversary20 D13).
    (f"password: !foo {VALUE}", VALUE),
    (f"password: !Secret {VALUE}", VALUE),
    (f"password: !str {VALUE}", VALUE),
    (f"password: !<tag:yaml.org,2002:str> {VALUE}", VALUE),
    (f"password:\n  {VALUE}", VALUE),
    (f"password: # the database's\n\n  {VALUE}", VALUE),
    (f"db:\r\n  password:\r\n    {VALUE}\r\n  user: app\r\n", VALUE),
    # A pasted header or command line, keys of other names and languages (adversary21 D5).
    (f'curl -H "Authorization: Bearer {VALUE}" https://api.example.com', VALUE),
    (f"Authorization: Basic {VALUE}==", f"{VALUE}=="),
    (f'headers = {{"Authorization": "Bearer {VALUE}"}}', VALUE),
    (f"curl -u admin:{VALUE} https://example.com", VALUE),
    (f'curl -sS -X POST \\\n  --user "admin:{VALUE}" \\\n  https://example.com', VALUE),
    (f"mysql -h db -u root -p{VALUE} app", VALUE),
    (f"mysqldump -uroot -p'{VALUE}' app > dump.sql", VALUE),
    (f"sshpass -p {VALUE} ssh deploy@host", VALUE),
    (f"curl -fsSLu admin:{VALUE} https://example.com", VALUE),
    (f"-H 'Authorization: Token {VALUE}'", VALUE),
    (f'secret_key_base = "{VALUE}"', VALUE),
    (f"SIGNING_KEY={VALUE}", VALUE),
    (f"ENCRYPTION_KEY={VALUE}", VALUE),
    (f'credentials = "{VALUE}"', VALUE),
    (f"密码：{VALUE}", VALUE),
    (f"数据库密码: {VALUE}", VALUE),
    (f"密碼: {VALUE}", VALUE),
    (f"パスワード: {VALUE}", VALUE),
    (f"비밀번호: {VALUE}", VALUE),
    (f"Passwort: {VALUE}", VALUE),
    (f"пароль: {VALUE}", VALUE),
    (f"Mot de passe : {VALUE}", VALUE),
    (f"contraseña: {VALUE}", VALUE),
    # A value of letters only that reads as drawn at random (adversary21 D4).
    ('api_key = "KjhqWepoIzmxNcbvTrewQasdfGhjklZxc"', "KjhqWepoIzmxNcbvTrewQasdfGhjklZxc"),
    ("token: KjhqWepoIzmxNcbvTrewQasdfGhjklZxc", "KjhqWepoIzmxNcbvTrewQasdfGhjklZxc"),
    ("token: KjhqWepoIzmxNcbvTrewQasdfGhjklZxc.", "KjhqWepoIzmxNcbvTrewQasdfGhjklZxc."),
    ('password = "KjhqWepoIzmxNcbvTrewQ"', "KjhqWepoIzmxNcbvTrewQ"),
    ("SECRET_KEY=qWzRtYpLkJhGfDsMnBvCxZ", "qWzRtYpLkJhGfDsMnBvCxZ"),
    # Weak passwords stay secrets beside the names below (adversary D4).
    ("password: Summer-2024", "Summer-2024"),
    ("password: admin_2024", "admin_2024"),
    # A YAML value past comment lines; a table's value past a cell or two; a Rails token's
    # parameter (adversary22 D1, D2, D3).
    (f"password:\n  # the db one\n  {VALUE}\n", VALUE),
    (f"db:\n  password:\n    # rotate monthly\n\n    {VALUE}\n", VALUE),
    (f"| Name | Type | Value |\n|---|---|---|\n| DB_PASSWORD | string | {VALUE} |\n", VALUE),
    (f"| DB_PASSWORD | string | required | {VALUE} |", VALUE),
    (f"| password | {VALUE} | the prod one |", VALUE),
    ("| password | hunter2 | note |", "hunter2"),
    (f'Authorization: Token token="{VALUE}"', VALUE),
    (f"password: !custom '{VALUE}'", VALUE),  # adversary22 D14
    # A value past a cell in a code span or quoted (adversary23 D1).
    (f"| `DB_PASSWORD` | `string` | `{VALUE}` |", VALUE),
    (f'| DB_PASSWORD | string | "{VALUE}" |', VALUE),
    (f"password:\n  {VALUE} # rotate\n", VALUE),  # adversary23 D9
    (f'Authorization: Token access_token="{VALUE}"', VALUE),
    (f'password: !custom "{VALUE}"', VALUE),
]

CLEAN = [
    "Password: Must contain at least 8 characters, 1 digit",
    "Passwort: mindestens 8 Zeichen",
    "mot de passe : 8 caractères minimum",
    "パスワード：8文字以上",
    "password: ${DB_PASSWORD}",
    "api_key: ${API_KEY2}",
    "password: {{ pw }}",
    "password: {{ b64encode }}",
    "password: \"{{ lookup('env', 'PW') }}\"",
    'password: "${{ secrets.DB_PASSWORD }}"',
    "api_key: <your-key>",
    "password: <password>",
    "Replace <password> with yours: mysql -u root -p<password>",
    "<password>${env.MVN_PASSWORD}</password>",
    "password: '********'",
    'password: "****1234"',
    "password = process.env.DB_PASSWORD",
    'password = os.environ["DB_PASSWORD"]',
    'password = os.getenv("PW")',
    'password = os.getenv("PW", "")',
    'password = config.get("db", "pw_2x")',
    "password = getpass()",
    "PGPASSWORD=$(cat ~/.pgpass)",
    "PGPASSWORD=$PGPASS",
    "set PASSWORD=%DB_PASSWORD%",
    'password: <%= ENV["DB_PASSWORD"] %>',
    "token: string",
    "token: string = getToken()",
    "The password: string must not be empty",
    "password: !vault |",
    "password: !!binary |",
    "PWD=/home/dev/project",
    "OLDPWD=/home/dev/project",
    "password_file=~/.pgpass",
    "bypass=a1b2c3d4",
    "compass=a1b2c3d4e5",
    # Prose in a quoted value or a block (adversary D12, D15).
    'password: "Password is required"',
    '"password": "Mot de passe"',
    'password: "must be at least eight characters long"',
    'password: "does not match the confirmation"',
    'floor_token="under "',
    "password: correct horse battery staple",
    "password: |\n  Must be set per environment\n",
    "password: !vault |\n  $ANSIBLE_VAULT;1.1;AES256\n  6162636465666768697061626364656667\n",
    f"password: |\n{VALUE}\n",  # not indented: no block's line
    f"| password: | {VALUE} |",
    'password = f"{pw}"',
    'HELP = """\npassword = """\nEnter the password you chose\n"""',
    "password: ```python\nx = 1\n```",
    'password = ""\nXk9mP2vL8qR4wz',
    # A word of letters with sentence punctuation after it begins prose (adversary19 D2).
    "- password: Required: at least 12 characters",
    "- token: Optional: defaults to the env var",
    "password: Default: none",
    "token: Format: JWT",
    "password: Forgot? Click reset",
    "token: Expired! Please renew",
    "password: Required\u2014min 12",
    "API token: Scope: read-only",
    "token: token: token: token: token:",
    "| password | the user's password |",
    f"| the password policy | {VALUE} |",
    f"| my password | {VALUE} |",
    f"| *the* password | {VALUE} |",
    f"| bypass | {VALUE} |",
    f"| DB_PASSWORD_HASH | {VALUE} |",
    "| DB_PASSWORD | The database's password |",
    "| GITHUB_TOKEN | ${{ secrets.GITHUB_TOKEN }} |",
    "| token | string | required |",
    "| `password` | `str` | Required: at least 12 characters |",
    "| **token** | string | The session's token |",
    "| password | `str` | The user's password, 12+ characters |",
    "**Password**: must be 12 characters",
    "__password__x: Xk9mP2vL8qR4wz",
    "echo $password | base64",
    ".. _`Bearer Token`: https://tools.ietf.org/html/rfc6750",
    "password: !secret openai_key2",
    "password: !secret db_password",
    "password: !include secrets.yaml",
    "password:\n  hunter22",
    f"password:\n  {VALUE} is the one",
    "token:\n  description: The session's token",
    "if token:\n    token=next_token_2",
    "if not password:\n    continue",
    "密码：至少12个字符",
    "password\uff1aRequired\uff1a12 characters",
    "password\uff1apassword\uff1apassword\uff1apassword",
    "Authorization: Bearer $TOKEN",
    "Authorization: Bearer <token>",
    'b"Authorization: Bearer someone-else-entirely\\r\\n"',
    'curl -H "Authorization: Bearer ${API_TOKEN}" https://api.example.com',
    "curl -u admin: https://example.com",
    'curl -u "$USER:$PASSWORD" https://example.com',
    "docker run -u 1000:1000 curlimages/curl",
    "mysql -h db -P3306 -u root -p app",
    'sshpass -p "$SSHPASS" ssh deploy@host',
    "credentials = service_account.Credentials.from_service_account_file(path)",
    "credentials: ~/.aws/credentials",
    "Passwort: Ihr Passwort muss 12 Zeichen haben",
    "пароль: не менее 12 символов",
    "Le mot de passe : doit contenir 12 caractères",
    "秘密：这是第3个",
    # Letters that read as words or an identifier; digits only; a lone word (adversary21 D4).
    "password = getUserPasswordFromVault",
    'token = "XMLHttpRequestTokenProvider"',
    'api_key = "SQLGetConnectAttrStrValue"',
    "token: vcWindBarbTickLengthF",
    "password: TheQuickBrownFoxJumpsOverTheLazyDog",
    'api_key = "XXXXXXXXXXXXXXXXXXXXXXXXXXXX"',
    'token = "KjhqWepoIzmxNcbv"',
    'password = "kjhqwepoizmxncbvtrewqasdf"',
    'password = "83749261"',
    'password = "letmein"',
    "Passwort: Datenbankverbindungspasswort",
    # Counts in CJK prose, versions, model names, dates, sizes (adversary D4).
    "密码：请在第3步设置",
    "令牌：每天更新2次",
    "password: 请在第3步设置，然后重启",
    "token: 每天更新2次",
    "password: 8文字以上にしてください",
    "token: v2beta3",
    "token: v1beta1",
    "token: gpt-4o-2024-08-06",
    "model: gpt-4o-2024-08-06\napi_key: ${OPENAI_API_KEY}",
    "api_key: claude-3-5-sonnet-20241022",
    "token_model: claude-3-5-sonnet-20241022",
    "token: 1.2.3-rc1",
    "token: 128k-context",
    "api_key: 2024-08-06",
    "max_tokens: 4096",
    "token: 2024-08-06T10:00:00Z",
    'password: "#3b82f6"',
    # What is written instead of a secret, or is no value: a secret store's reference, a path
    # of another system, a YAML alias, a time (adversary20 D3, D4, D12, D14).
    'DB_PASSWORD="op://prod/postgres/password"',
    "password: vault:secret/data/db#password",
    "password: projects/my-proj/secrets/db-pass/versions/latest",
    'token = "C:/Users/dev/token.txt"',
    'token = "C:\\\\Users\\\\dev\\\\token.txt"',
    "PWD=C:\\Users\\dev",
    'secret = "../config/secret.json"',
    "DB_PASSWORD=./secrets/token",
    "defaults: &defaults\n  password: *db_password",
    "token: 12:30:00",
    # An interpolated string holding a "{" is a template: this repository's own tests hold one.
    'wrap = lambda token: f"```\\n{token}\\n```"',
    'headers = {"Authorization": token: f"Bearer {api_token_value}"}',
    'password = F"{user}-{suffix}-{year}"',
    'var secret = $"{prefix}{Environment.MachineName}";',
    "| DB_PASSWORD | string | The password of the database user |",
    "| password | string | yes | Min. 12 characters |",
    'Authorization: Token token="your-token-here"',
    'Authorization: Token token="abc"',
    "if password:\n    # retry\n    password = next_password_2\n",
    'password: !secret "db_password"',
    "DB_PASSWORD=arn:aws:secretsmanager:us-east-1:123456789012:secret:prod/db-x7K2pQ",
    # A key's algorithm with its sizes and modes, a member chain asserted non-null in
    # TypeScript (adversary23 D5, D6).
    "| secret | AES-256-GCM |",
    "secret: ChaCha20-Poly1305",
    "password_hash: PBKDF2-SHA256",
    "token: SHA3-512",
    "secret_key: ECDSA-P256",
    "secret: X25519",
    "const apiKey = process.env.OPENAI_API_KEY!;",
    "  secret: process.env.AUTH_SECRET!,",
    "| password | `string` | `required` |",
    # A table's later cells past one holding a value; a token's parameter (adversary23 D10, D11).
    "| Secret | Owner | Rotated | Commit |\n|---|---|---|---|\n| API_TOKEN | team-a | weekly | 3f9a2c1 |",
    "| DB_PASSWORD | platform | 2024-10-01 | 3f9a2c1b7e4d |",
    "| SIGNING_KEY | ed25519 | 4AEE18F83AFDEB23 |",
    'Authorization: Token api_key="your-api-key-here"',
    'Authorization: Token email="user@example.com"',
    'Authorization: Token realm="Application"',
]


# An environment read's default under any name: a secret when it looks random (adversary D3).
ENV_DEFAULTS = [
    f'os.environ.get("SERVICE", "{VALUE}")',
    f'os.environ.setdefault("SERVICE", "{VALUE}")',
    f'ENV.fetch("SERVICE", "{VALUE}")',
    f'ENV.fetch("SERVICE") {{ "{VALUE}" }}',
    f"ENV['SERVICE'] || '{VALUE}'",
    f"process.env['SERVICE'] ?? '{VALUE}'",
    f"getenv('SERVICE') ?: '{VALUE}'",
    f"import.meta.env.VITE_SERVICE ?? `{VALUE}`",
    f'client = Client(os.getenv(\n    "SERVICE",\n    "{VALUE}",\n))',
    f'OS.GETENV("SERVICE", "{VALUE.upper()}")',
    f"AUTH=${{SERVICE_AUTH:-{VALUE}}}",
    f'  - AUTH="${{SERVICE_AUTH:={VALUE}}}"',
    # Go, Java and Rust (adversary19 D11)
    f'auth := cmp.Or(os.Getenv("SERVICE"), "{VALUE}")',
    f'String auth = System.getenv().getOrDefault("SERVICE", "{VALUE}");',
    f'let auth = env::var("SERVICE").unwrap_or("{VALUE}".into());',
    f'let auth = env::var("SERVICE").unwrap_or_else(|| "{VALUE}".to_string());',
]

ORDINARY_DEFAULTS = [
    'home := cmp.Or(os.Getenv("HOME"), "/home/dev")',
    'path = os.path.join(os.getenv("HOME"), "config")',
    'let level = env::var("LOG").unwrap_or("info".into());',
    'String level = System.getenv().getOrDefault("LOG_LEVEL", "info");',
    'os.getenv("HOME", "/home/dev")',
    'os.getenv("LOG_LEVEL", "info")',
    'os.getenv("API_BASE", "https://api.openai.com/v1")',
    'os.getenv("BUCKET", "s3://assets/images/")',
    'os.getenv("DB", "localhost:5432")',
    'os.getenv("VERSION", "1.2.3-rc1")',
    'os.getenv("MODEL", "gpt-4o-2024-08-06")',
    'os.getenv("MODEL", "mixtral-8x7b-32768")',
    'os.getenv("TIMEOUT", "1m30s")',
    'os.getenv("ACCENT", "#3b82f6")',
    'os.getenv("CONFIG", "/etc/app/x9y8z7w6/conf.yaml")',
    'os.getenv("LANG", "en_US.UTF-8")',
    'os.getenv("KEY", "${API_KEY2}")',
    'os.getenv("KEY", "{{ key }}")',
    'os.getenv("KEY", "********")',
    'os.getenv("KEY", "your-key-1a2b3c4d")',
    'os.getenv("PASSWORD", "")',
    'process.env.PORT || "3000"',
    "PORT=${PORT:-3000}",
    "DATA=${DATA_DIR:-/var/lib/app/a1b2c3d4}",
    "Set the environment (env) to prod2a3b",
    'os.getenv("GREETING", "Step 1 of 3 done")',
]


@pytest.mark.parametrize("text", ENV_DEFAULTS)
def test_a_real_looking_default_of_an_environment_read_is_found(text):
    assert [m.secret.lower() for m in secret_rules.scan(text)] == [VALUE.lower()]


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ('os.getenv("STRIPE", "sk9Xk2mP8vL4qR7wzT3nB6")', "sk9Xk2mP8vL4qR7wzT3nB6"),
        ('auth = process.env.SERVICE_AUTH || "Xk9mP2vL8qR4wzT7nB3c"', "Xk9mP2vL8qR4wzT7nB3c"),
        ('os.getenv("LICENSE", "Xk9m P2vL 8qR4 wzT7")', "Xk9m P2vL 8qR4 wzT7"),
        (
            f'os.getenv("HOOK", "https://chat.acme.io/hooks/{VALUE}")',
            f"https://chat.acme.io/hooks/{VALUE}",
        ),
    ],
)
def test_the_reported_environment_defaults_are_found(text, secret):
    assert assigned(text) == [secret]


@pytest.mark.parametrize("text", ORDINARY_DEFAULTS)
def test_an_ordinary_default_of_an_environment_read_is_clean(text):
    assert secret_rules.scan(text) == ()


@pytest.mark.parametrize(("text", "secret"), FOUND)
def test_real_world_assignments_are_found(text, secret):
    assert assigned(text) == [secret]


@pytest.mark.parametrize("text", CLEAN)
def test_ordinary_text_beside_them_is_clean(text):
    assert secret_rules.scan(text) == ()


# A variable's name: words of letters, a digit run at most at a word's end (``API_KEY2``).
NAMES = st.from_regex(
    r"[A-Za-z]{1,8}[0-9]{0,2}(?:[_.-][A-Za-z]{1,8}[0-9]{0,2}){0,3}", fullmatch=True
)
WRAPPERS = ["${{{}}}", "{{{{ {} }}}}", "<{}>", "%{}%", "${{{{ secrets.{} }}}}"]


@given(NAMES, st.sampled_from(WRAPPERS), st.sampled_from(["password: ", "DB_PASSWORD="]))
def test_a_wrapped_name_is_a_placeholder(name, wrapper, key):
    assert assigned(key + wrapper.format(name)) == []


# A real-looking value: digits then letters, twice or more, in one word.
MIXED = st.lists(
    st.tuples(
        st.from_regex(r"[0-9]{1,3}", fullmatch=True),
        st.from_regex(r"[A-Za-z]{1,4}", fullmatch=True),
    ),
    min_size=2,
    max_size=5,
).map(lambda parts: "Q" + "".join(digits + letters for digits, letters in parts))


@given(MIXED, st.sampled_from(["${{{}}}", "{{{{{}}}}}", "<{}>", "********{}"]))
def test_a_wrapped_real_value_is_found(value, wrapper):
    wrapped = wrapper.format(value)
    assert assigned(f'password = "{wrapped}"') == [wrapped]


@given(MIXED, st.integers(min_value=1), st.sampled_from([" ", "  ", "\t"]))
def test_a_blank_between_parts_of_a_quoted_value_hides_nothing(value, at, blank):
    at %= len(value)
    assume(any(c.isdigit() for c in value[:at]) and any(c.isdigit() for c in value[at:]))
    spaced = value[:at] + blank + value[at:]
    assume(not re.search("your|xxxx", spaced, re.IGNORECASE))  # placeholder words, no value
    assert assigned(f'password = "{spaced}"') == [spaced]
    assert assigned(f'os.getenv("SERVICE", "{spaced}")') == [spaced]


@given(
    st.from_regex(r"[A-Za-z]{1,10}", fullmatch=True),
    st.sampled_from(["PASSWORD", "Passwd", "PWD", "SECRET", "Token"]),
)
def test_a_key_glued_to_any_name_is_found(name, key):
    assert assigned(f"{name}{key}={VALUE}") == [VALUE]


@pytest.mark.parametrize(
    ("between", "found"),
    [(1, True), (8 - 1, True), (8, False)],  # the key's own line end, then comment lines
)
def test_a_later_lines_value_is_read_within_eight_lines(between: int, found: bool) -> None:
    """A value on a later line is read past at most 8 line ends, each comment within 200
    characters: read on to the text's end from each key, ``# password:`` repeated cost its
    length squared (adversary23 D12: 250 KB took 116 s, and 1 MB 17 GB of memory)."""
    text = "password:\n" + "  # rotated\n" * between + f"  {VALUE}\n"
    assert bool(secret_rules.scan(text)) is found
    long_comment = f"password: | # {'x' * 201}\n  {VALUE}\n"
    assert secret_rules.scan(long_comment) == ()
