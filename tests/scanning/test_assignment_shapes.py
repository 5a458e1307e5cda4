"""``secret-assignment`` over the shapes a password takes in real notes (adversary17 D21): a key
glued to a name (``PGPASSWORD``), a typed assignment, an XML element, an environment read's
default, a real-looking value wrapped as a placeholder; and the ordinary text beside them that
must stay clean: prose labels, variables, templates, types, tags, paths."""

from __future__ import annotations

import pytest
from hotplex.text import secret_rules
from hypothesis import given
from hypothesis import strategies as st

VALUE = "Xk9mP2vL8qR4wz"


def assigned(text: str) -> list[str]:
    return [m.secret for m in secret_rules.scan(text) if m.rule.name == "secret-assignment"]


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
]


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


@given(
    st.from_regex(r"[A-Za-z]{1,10}", fullmatch=True),
    st.sampled_from(["PASSWORD", "Passwd", "PWD", "SECRET", "Token"]),
)
def test_a_key_glued_to_any_name_is_found(name, key):
    assert assigned(f"{name}{key}={VALUE}") == [VALUE]
