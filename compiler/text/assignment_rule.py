"""The ``secret-assignment`` rule's shape: a key name (``password``, ``DB_PASSWORD``, a table's
``| password |`` cell, ``<password>``) assigned a value, and an environment read's default.

A leaf beside ``secret_rules``, which makes its rules of these patterns.
"""

from __future__ import annotations

import re

from hotplex.text import secret_values

# A name ending in ``secret`` or ``token`` is one of them (``client_secret``, ``auth_token``,
# ``refresh-token``, ``csrftoken``: ``GLUED_KEY``); only the keys ending otherwise are named:
# each is an anchor, a search of the whole text. An HTTP ``Authorization`` header's value follows
# its scheme (``Bearer``, ``Basic``, ``Token``: ``_BEFORE_WORD``). "Password" in a few languages
# whose users write notes in their own: Chinese, Japanese, Korean, Russian, Spanish, and German and
# French from ``pass`` (``Passwort``, ``mot de passe``); each is one more search of every text,
# so the list stays short. A key in a script without case may be glued to the name before it
# (``数据库密码``).
_PASSWORD_CASELESS = r"密[码碼]|パスワード|비밀번호"
_PASSWORD_WORLDWIDE = rf"{_PASSWORD_CASELESS}|пароль|contraseña"
_KEY_NAME = (
    r"pass(?:word|wd|phrase|wort|e)?|pwd|secret(?:[_-]?key(?:[_-]?base)?)?|api[_-]?key|apikey"
    r"|access[_-]?key|private[_-]?key|(?:signing|encryption)[_-]?key|credentials?|token"
    rf"|authorization|{_PASSWORD_WORLDWIDE}"
)

# An assignment's key may end a longer name (``DB_PASSWORD``, ``GITHUB_TOKEN``), glued too where
# the key is no English word's end (``PGPASSWORD``, ``dbPassword``, ``csrftoken``; not ``bypass``).
# Nor is an AWS ARN's resource type a key (``arn:aws:secretsmanager:…:secret:prod/db-x7K2pQ``:
# the name of a secret, written instead of it).
_GLUEABLE = rf"pass(?:word|wd)|pwd|secret|token|{_PASSWORD_CASELESS}"
GLUED_KEY = re.compile(rf"[^\W_](?!{_GLUEABLE})|:(?=secret:)")
# The operator, past a type annotation (``password: string = "…"``), and past an environment
# read whose default is the value (``os.getenv("PW", "…")``, ``process.env.PW || "…"``).
_TYPE = r"&?[a-z_][\w.]{0,40}+(?:[\[<][^\]>\n]{0,80}+[\]>])?"
# An environment read up to its default, from ``env`` on (``os.getenv(``, ``os.environ.get(``,
# ``ENV.fetch(``, ``env(``, Java's ``getenv().getOrDefault(`` take a name and the default, over
# lines too as a formatter wraps them; ``process.env.PW``, ``ENV["PW"]`` and a read without one
# go on with ``||``, ``??``, ``?:``, ``or``, Ruby's block, Go's ``cmp.Or(os.Getenv("PW"), …``
# and Rust's ``env::var("PW").unwrap_or(…``).
_GAP = r"\s{0,80}+"
_ENV_NAME = rf"{_GAP}[\"'][\w.-]{{1,80}}+[\"']{_GAP}"
_ENV_READ = (
    r"env(?:iron)?(?:(?:\.get|\.fetch|\.setdefault|::var(?:_os)?|\(\)\.getordefault)?"  # lowered
    rf"\({_ENV_NAME}"
    rf"(?:,{_GAP}(?:default[ \t]*=)?"
    rf"|\)[ \t]*(?:\|\||\?\?|\?:|or\b|\{{|,|\.unwrap_or(?:_else)?\((?:\|\|[ \t]*)?))"
    rf"|(?:\.\w{{1,80}}+|\[{_ENV_NAME}\])[ \t]*(?:\|\||\?\?|or\b)){_GAP}"
)
# A shell's (and a compose file's) default: ``${SERVICE_AUTH:-…}``, ``${SERVICE_AUTH:=…}``.
_SHELL_DEFAULT = r"\$\{\w{1,80}+:?[-=]"
# A word ahead that looks random (``secret_values.MIXED_RUN``), where only such a value is read.
_RANDOM_WORD_AHEAD = rf"(?=[^\s\"'`]{{0,200}}?{secret_values.MIXED_RUN})"
# A YAML property before the value, what it is and not the value: an anchor (``&pw``), a
# standard or verbatim tag (``!!str``, ``!<tag:yaml.org,2002:str>``), any tag but Ansible's
# ``!vault`` before a block (``!secret |``). A custom tag before a word mostly names where the
# value is (Home Assistant's ``!secret db_password``): past it only a random-looking word is read
# (``!Secret Xk9mP2vL8qR4wz``), quoted or not.
_YAML_PROPERTY = (
    r"(?:&[\w-]{1,40}+[ \t]++|!(?:![a-z]{1,20}+|<[^<>\s]{1,80}+>)[ \t]++"
    rf"|!(?!vault\b)[\w!/:.-]{{1,40}}+[ \t]++(?=[|>]|[\"']?{_RANDOM_WORD_AHEAD}))"
)
# What closes a key written in Markdown: emphasis (``*password*``, ``_password_``, Slack's bold),
# strikethrough, a link's destination (``[password](#pw)``).
_KEY_CLOSED = r"\*{1,3}+|_{1,3}+|~~|\]\([^()\s]{0,200}+\)"
# A table's cell holding only the key, emphasised or a code span too (a margin of up to four
# blanks and marks), after any name as elsewhere (``| DB_PASSWORD |``, ``| `OPENAI_API_KEY` |``,
# ``| PGPASSWORD |``): the key is followed by the cell's end, then what is before it back to the
# cell's ``|`` is read (``cell``) by a lookbehind per length of the name (a lookbehind is
# fixed-width), tried only when that end is there. A key alone in a code span elsewhere is
# ``span``.
_CELL_END = rf"(?=(?:{_KEY_NAME})(?:`|{_KEY_CLOSED})?[ \t]*+\|)"
_CELL_START = "|".join(
    rf"(?<=\|[ \t`*~]{{{margin}}}[\w.-]{{{length}}})" for length in range(41) for margin in range(5)
)
# A table's cells between the key's and the value's (``| DB_PASSWORD | string | … |``), two at
# most, each a type's or a flag's one word (``string``, ``required``), read past only to a
# random-looking value (``secret_values.MIXED_RUN``): past a cell holding a value (an owner, a
# date, a key's algorithm) the row's next one is no more the key's (adversary23 D11: a commit's
# id, a key's fingerprint).
_RANDOM_IN_CELL = rf"[ \t]*+[\"'`]?[^\s|\"'`]{{0,80}}?{secret_values.MIXED_RUN}"
_MIDDLE_CELLS = rf"(?:(?:[ \t]*+`?[a-z]{{1,12}}+`?[ \t]*+\|){{1,2}}(?={_RANDOM_IN_CELL}))?"
# The operator, in the full-width forms a CJK keyboard types too (``：``, ``＝``), and a blank
# after it a no-break or ideographic space as well; in Markdown it may be bold (``**password:**``).
# A table's cell holding only the key name (``cell``) is assigned the next cell, or the first
# past one or two others: ``| password | … |``.
_ASSIGNED = (
    rf"(?(cell)[ \t]{{0,80}}+\|{_MIDDLE_CELLS}|"
    rf"(?:[ \t]{{0,8}}:[ \t]{{0,8}}{_TYPE}[ \t]{{0,8}}=(?![=>])"
    r"|[ \t]{0,8}(?:=>|:=|[:=\uff1a\uff1d]))(?:\*\*)?)"
    rf"[ \t\u00a0\u3000]{{0,8}}(?:{_YAML_PROPERTY}{{1,2}}+)?(?:[\w.]{{0,40}}?{_ENV_READ})?"
)
# The value. A quoted one is read whole, to its closing quote (``q``): a blank in it must not
# hide it (``"Xk9mP2vL 8qR4wzT7"``, a passphrase); past a string prefix (``r"…"``, ``b"…"``,
# ``f"…"``, ``rb"…"``, Rust's ``r#"…"#``, C's ``L"…"`` and ``u8"…"``, C#'s ``@"…"``, ``$"…"``
# and ``"…"u8``) and a third of a triple quote (``"""…"""``,
# TOML's ``'''…'''``; ``triple``), whose value may start on the next line and is read to its
# line's end at most. A YAML block scalar's (``password: |``, ``>-``, ``|2``; ``block``) is its
# first line, indented (in a Markdown quote too). Else one word as written, or wrapped as a
# variable or a template (judged by what it holds). A comment is read past within 200
# characters, and a value on a later line within 8 lines: read on to the end from each key,
# ``# password:`` repeated cost its length squared (adversary23 D12: 250 KB, 116 s).
_OPENING = (
    r"(?:(?P<block>[|>](?:[1-9][-+]?|[-+][1-9]?)?[ \t]*+(?:#[^\n]{0,200}+)?"
    r"\r?\n(?:[ \t>]*+\r?\n)*+[ \t>]*+(?<=[ \t]))"
    r"|(?<=[:\uff1a])(?:[ \t]++#[^\r\n]{0,200}+)?(?:[ \t]*+(?:#[^\r\n]{0,200}+)?\r?\n){1,8}+[ \t]++"
    rf"(?={_RANDOM_WORD_AHEAD}\S{{6,200}}+(?:[ \t]++#[^\r\n]*+)?[ \t]*+(?:\r?\n|\Z))"
    r"|(?:(?P<interpolated>[rb]?f[rb]?|\$@?|@\$)|[rbu]{1,2}+#{0,3}+|u8|l|@)?(?P<q>[\"'`])"
    r"(?P<triple>(?<=[\"'])(?P=q){2}+(?:[ \t]*+\r?\n[ \t]*+)?)?)?"
)
# A backslash escapes a quote; an interpolated string's value holds no "{": with one it is a
# template (``f"Bearer {token}"``, ``$"{pw}"``), not a secret.
_QUOTED_VALUE = (
    r"(?(interpolated)(?:\\.|(?!(?P=q))[^\r\n\\{]){6,200}+|(?:\\.|(?!(?P=q))[^\r\n\\]){6,200}+)"
)
_BLOCK_LINE = r"\S[^\r\n]{4,198}?\S(?=[ \t]*+(?:\r?\n|\Z))"
# A word of letters with sentence punctuation after it (``Required:``, ``Forgot?``,
# ``Expired!``, ``Required—min``, ``token:`` again, in full-width forms too) begins prose, a
# field's description.
_PROSE_START = r"[^\W\d_]++(?:[:?!]++(?!\S)|[\u2013\u2014\uff1a\uff1f\uff01])"
# A word ends before a line end or tab written as an escape inside a string
# (``b"Authorization: Bearer someone\r\n"``).
_WORD_VALUE = (
    r"(?:\$?\{[^\s{}]{1,200}+\}|\{\{[^{}\n]{1,200}+\}\}|<[^\s<>]{1,200}+>"
    rf"|(?!{_PROSE_START})(?:[^\s\"'`,;(){{}}\[\]<>|\\]|\\(?![rnt])){{6,200}}+)"
)
# A word's value may follow a field's description's first word or an authorization's scheme
# (``password: Required: <value>``, ``token: Bearer <value>``): read past them, once; a quoted
# value its scheme (``"Authorization": "Bearer <value>"``: the value is the secret, a vendor's
# key there is that key).
# Rails' ``Token token="…"``, its parameter read past whatever its name (``api_key=``).
_SCHEME = r"(?:bearer|basic|token)[ \t]{1,8}+(?:[a-z_]{1,20}+=[\"']?)?+"
_BEFORE_WORD = rf"(?(q)(?:{_SCHEME})?|(?(block)|(?:{_PROSE_START}[ \t]{{1,8}}+|{_SCHEME})?))"
_VALUE = rf"{_BEFORE_WORD}(?P<secret>(?(q){_QUOTED_VALUE}|(?(block){_BLOCK_LINE}|{_WORD_VALUE})))"
# Where the value ends: its closing quote (a triple quote's, or its line's end), and no call or
# longer word after it.
_VALUE_END = r"(?(q)(?(triple)(?:(?P=q)|(?=\r?\n|\Z))|(?P=q)(?:u8)?))(?![(\w])"

# key = value, or an XML element's text: <password>…</password>
KEY_ASSIGNED = re.compile(
    rf"(?:{_CELL_END}(?P<cell>{_CELL_START})|(?P<span>(?<=`)))?"
    rf"(?:{_KEY_NAME})(?:(?![a-z0-9_])|(?=_{{1,3}}+(?![a-z0-9_])))"
    rf"(?:(?P<element>>)|(?:[\"']|(?(span)`|(?(cell)`))|{_KEY_CLOSED})?{_ASSIGNED}{_OPENING})"
    rf"{_VALUE}(?(element)</|{_VALUE_END})"
)
# Where each of ``KEY_ASSIGNED``'s matches starts, in the lower-cased text.
KEY_ANCHORS = (
    *("pass", "pwd", "secret", "api", "access", "private", "token", "signing", "encryption"),
    *("credential", "authorization", "密", "パスワード", "비밀번호", "пароль", "contraseña"),
)
# An environment read's default under any name (``os.getenv("STRIPE", "…")``, ``${STRIPE:-…}``).
ENV_DEFAULT = re.compile(rf"(?:{_ENV_READ}|{_SHELL_DEFAULT}){_OPENING}{_VALUE}{_VALUE_END}")
ENV_ANCHORS = ("env", "${")
# A password given to a command as an option: ``curl -u user:…`` (``-su``, ``--user``),
# ``mysql -p…`` (glued: ``-p`` alone asks for it), ``sshpass -p …``, the option within 20
# arguments of the command, over a line continuation too.
_ARGUMENT_GAP = r"(?:[ \t]*+\\\r?\n)?[ \t]++"
_ARGUMENTS = rf"(?:{_ARGUMENT_GAP}[^\s|;&]++){{0,20}}?{_ARGUMENT_GAP}"
COMMAND_LINE = re.compile(
    rf"(?:curl{_ARGUMENTS}(?:-[a-z]{{0,8}}?u|--user)(?P<user>)(?:[ \t]++|=)?"
    rf"|mysql[\w-]*+{_ARGUMENTS}-p|sshpass{_ARGUMENTS}-p[ \t]*+)"
    r"(?P<q>[\"']?)(?(user)[^\s:\"']{1,80}+:)(?P<secret>[^\s\"']{6,200}+)(?P=q)(?![^\s;|&)])"
)
COMMAND_ANCHORS = ("curl", "mysql", "sshpass")
