"""MkDocs hooks: the pages made from the code at build time, and the names every page uses
checked against the code.

The front page (``index.md``: the README), a page per registered worker
(``reference/workers/<name>.md``), the manifest reference (``reference/manifest.md``), the command
reference (``reference/cli.md``) and the worker tables are written here from the README, the
registry, each worker's declaration, the manifest model and the CLI's parser: a worker added to
``BUILT_IN`` gets its page and its nav line with no hand edit, and a removed one loses both.
Every page is then read for names that must exist (``hotplex`` commands, manifest keys, workers,
repository files); one that does not is a warning, which ``strict`` makes a failed build. The
tests import this file too (tests/docs/docsite.py).
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import inspect
import io
import itertools
import logging
import re
import shlex
import sys
import tomllib
import types
import typing
from pathlib import Path
from typing import Any, NamedTuple

import attrs

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
PAGES = HERE / "pages"
KEYS_FILE = HERE / "reference/manifest-keys.toml"
WORKERS_DIR = "reference/workers"
WORKERS_NAV = "Workers"  # the nav section the generated worker pages are listed under
WORKER_TABLE = "<!-- hotplex: worker table -->"  # where index.md gets the generated table
NAME = "<name>"  # a table of tables' key in a path: channels.<name>.tag

log = logging.getLogger("mkdocs.hooks.hotplex")


# -- the manifest's keys -------------------------------------------------------------------------


class Key(NamedTuple):
    """One manifest key: its path, its type and default as written in TOML, and the workers whose
    own options it is (empty: a key of every manifest)."""

    path: str
    type: str
    default: str
    workers: tuple[str, ...] = ()


# Fields of the model that no manifest spells: set by the loader.
HIDDEN_FIELDS = {"Target": ("options", "misplaced")}


def manifest_keys() -> list[Key]:
    """Every key a manifest may hold, the workers' own target keys after the core ones."""
    from hotplex import registry
    from hotplex.manifest.model import Manifest

    keys = _walk(Manifest, "")
    merged: dict[str, Key] = {}
    for name, worker in registry.workers().items():
        if not attrs.has(worker.Options):
            continue
        for key in _walk(worker.Options, "target[]."):
            seen = merged.get(key.path)
            if seen is None:
                merged[key.path] = key._replace(workers=(name,))
                continue
            same = key.type in seen.type.split(" or ")
            kinds = seen.type if same else f"{seen.type} or {key.type}"
            merged[key.path] = seen._replace(type=kinds, workers=(*seen.workers, name))
    return keys + list(merged.values())


def _walk(cls: type, prefix: str) -> list[Key]:
    found: list[Key] = []
    hints = typing.get_type_hints(cls)
    for field in attrs.fields(cls):
        if field.name in HIDDEN_FIELDS.get(cls.__name__, ()):
            continue
        kind = hints[field.name]
        path = f"{prefix}{field.name}"
        record, spelling = _record(kind)
        if record is not None:
            found += _walk(record, path + spelling)
        else:
            found.append(Key(path, type_name(kind), default(field)))
    return found


def _record(kind: Any) -> tuple[type | None, str]:
    """The attrs class a type holds, and how a path goes on into it (``.``, ``[].``,
    ``.<name>.``), or None."""
    if attrs.has(kind):
        return kind, "."
    args = typing.get_args(kind)
    origin = typing.get_origin(kind)
    if origin is tuple and args and attrs.has(args[0]):
        return args[0], "[]."
    if origin is dict and len(args) == 2 and attrs.has(args[1]):
        return args[1], f".{NAME}."
    return None, ""


def type_name(kind: Any) -> str:
    """A type as a manifest author reads it: ``"keep" or "strip"``, ``list of strings``."""
    origin = typing.get_origin(kind)
    args = typing.get_args(kind)
    if origin is typing.Literal:
        return " or ".join(f'"{a}"' for a in args)
    if origin in (typing.Union, types.UnionType):
        return " or ".join(type_name(a) for a in args if a is not type(None))
    if origin is tuple:
        return f"list of {type_name(args[0])}s"
    if origin is dict:
        return f"table of {type_name(args[1])}s"
    return {str: "string", bool: "boolean", int: "integer"}[kind]


def default(field: attrs.Attribute) -> str:
    """A field's default as TOML spells it; "required", or "none" where unset means the worker's
    or the project's choice."""
    value = field.default
    if value is attrs.NOTHING:
        return "required"
    if isinstance(value, attrs.Factory):  # type: ignore[arg-type]
        value = value.factory()
    if value is None:
        return "none"
    return toml_value(value)


def toml_value(value: Any) -> str:
    """A value in TOML's inline spelling."""
    import tomli_w

    return tomli_w.dumps({"v": value}).strip().removeprefix("v = ")


@functools.cache
def key_docs() -> dict[str, dict[str, str]]:
    """What each key means and an example value, by path (docs/reference/manifest-keys.toml)."""
    return tomllib.loads(KEYS_FILE.read_text(encoding="utf-8"))


def example(key: Key) -> str:
    """A manifest fragment setting ``key`` to its example value: valid on its own."""
    entry = key_docs()[key.path]
    if "snippet" in entry:
        return entry["snippet"].strip()
    value = entry["example"]
    head, _, last = key.path.rpartition(".")
    setting = f"{last} = {value}"
    if not head:
        return setting
    if head == "target[]":
        worker = key.workers[0] if key.workers else "claude-code"
        return f'[[target]]\nname = "cc"\nworker = "{worker}"\n' + (
            "" if last in ("name", "worker") else setting
        )
    if head == "source[]":
        return '[[source]]\nname = "memory"\n' + ("" if last == "name" else setting)
    if head == f"target[].agents.{NAME}":
        worker = key.workers[0]
        target = f'[[target]]\nname = "cc"\nworker = "{worker}"\n'
        return f"{target}\n[target.agents.reviewer]\n{setting}"
    if head == f"channels.{NAME}":
        return f"[channels.B]\n{setting}"
    return f"[{head}]\n{setting}"


def manifest_page() -> str:
    """Every key with its type, default, meaning and example, table by table."""
    lines = [
        "# Manifest reference",
        "",
        "Every key of `hotplex.toml`, generated from the manifest model and each worker's own",
        "options. `[]` in a path is an array of tables (`[[target]]`); `<name>` a name you choose",
        "(`[channels.B]`, `[target.agents.reviewer]`). A default of *none* means the project's or",
        "the worker's choice applies. The guide to the manifest is [The manifest]",
        "(../concepts/manifest.md).",
        "",
    ]
    table = None
    for key in manifest_keys():
        top = "Worker keys of `[[target]]`" if key.workers else _table_title(key.path)
        if top != table:
            table = top
            lines += [f"## {top}", ""]
        doc = key_docs()[key.path]
        lines += [f"### `{key.path}`", ""]
        facts = f"**Type:** {key.type}. **Default:** `{key.default}`."
        if key.default in ("required", "none"):
            facts = f"**Type:** {key.type}. **Default:** {key.default}."
        if key.workers:
            names = ", ".join(f"[`{w}`](workers/{w}.md)" for w in key.workers)
            facts += f" **Workers:** {names}."
        lines += [facts, "", doc["doc"], "", "```toml", example(key), "```", ""]
    return "\n".join(lines)


def _table_title(path: str) -> str:
    top = path.split(".")[0].split("[")[0]
    if "[]" in path.split(".")[0]:
        return f"`[[{top}]]`"
    return f"`[{top}]`" if "." in path else f"`{top}`"


# -- the workers ---------------------------------------------------------------------------------


def worker_table(link: str | None = None) -> str:
    """The worker table of the front page (``link``: each name links to ``link.format(name)``)."""
    from hotplex import registry

    rows = [
        "| worker | artifact | how the worker gets it | checked against | Agent Skills |",
        "|---|---|---|---|---|",
    ]
    for name, worker in registry.workers().items():
        named = f"[`{name}`]({link.format(name)})" if link else f"`{name}`"
        checked = worker.verified.text() if worker.verified else "nothing yet"
        rows.append(
            f"| {named} | {artifacts(worker)} | {worker.delivery} | {checked}"
            f" | {skills_place(worker)} |"
        )
    return "\n".join(rows)


def skills_place(worker: Any) -> str:
    """Where a worker's program loads the project's Agent Skills, as its live test shows."""
    place = worker.skills
    if place is None and worker.no_skills and worker.verified:
        version, why = worker.verified.version, worker.no_skills
        return f"no skills at {version} ({why}): left out, with a warning naming them"
    if place is None:
        return "not verified: left out, with a warning naming them"
    folder = place.folder.format(name="<name>")
    if place.in_home:
        launched = any(o.kind == "launch" for o in worker.outputs)
        home = "the home `launch.json` sets" if launched else "the folder you deploy"
        return f"`{worker.home_dir}/{folder}/`, {home}"
    if not worker.headless:  # an editor: checked against its documentation, placed by build
        return f"`{folder}/`, placed in the repository as its documentation says"
    return f"`{folder}/` in the session folder (`cwd`)"


def artifacts(worker: Any) -> str:
    """The files a worker emits, primary first, and where it places one."""
    names = " + ".join(f"`{o.name}`" for o in worker.outputs)
    placed = placed_path(worker)
    return f"{names}, placed at `{placed}`" if placed else names


def placed_path(worker: Any) -> str | None:
    """Where a target named ``<target>`` of this worker places its file by default, if it does."""
    from hotplex.manifest.structure import structure

    if worker.places is None:
        return None
    raw = {"target": [{"name": "TARGET", "worker": worker.name}]}
    target = structure(raw, "hotplex.toml").target[0]
    return worker.placed(target).replace("TARGET", "<target>")


def worker_pages() -> dict[str, str]:
    """Each registered worker's page, by its path under the pages folder, in registry order."""
    from hotplex import registry

    return {
        f"{WORKERS_DIR}/{name}.md": worker_page(worker)
        for name, worker in registry.workers().items()
    }


def worker_page(worker: Any) -> str:
    """One worker's reference: what it emits, how its program gets it, the version it was
    checked against, its keys and own files, its budgets and where it places its file."""
    target, comment = worker.init_target
    lines = [f"# `{worker.name}`", "", f"A `{worker.name}` target writes {comment}.", ""]
    lines += ["## How its program gets it", "", worker.delivery + ".", ""]
    lines += ["## Checked against", ""]
    if worker.verified is None:
        lines += ["Nothing yet.", ""]
    else:
        how = "a live test" if worker.verified.version else "a test against its excerpt"
        lines += [f"{worker.verified.text()}, by {how}: `{worker.verified.evidence}`.", ""]
    lines += ["## Outputs", "", "| file | kind |", "|---|---|"]
    for output in worker.outputs:
        primary = ", primary" if output.primary else ""
        lines.append(f"| `{output.name}` | {output.kind}{primary} |")
    lines.append("")
    placed = placed_path(worker)
    if placed:
        lines += ["## Placed in the repository", ""]
        lines += [
            f"The base artifact is also written at `{placed}` (the target's `place` moves it);"
            f" its tool reads such files at `{worker.places}`.",
            "",
        ]
    lines += ["## Target keys", "", *options_list(worker), ""]
    lines += ["## Files its program loads by itself", "", *own_files(worker), ""]
    lines += ["## Budgets", ""]
    lines += [
        worker.own_limits
        or "The manifest's [`[limits]`](../manifest.md#limits): `per_file` for each section,"
        " `total` for the artifact, in its `unit`.",
        "",
    ]
    lines += ["## A target of it", "", "```toml", "[[target]]", f'name = "{target}"']
    lines += [f'worker = "{worker.name}"', "```", ""]
    lines += [f"`hotplex init --worker {worker.name}` scaffolds one.", ""]
    guides = guide_sections(worker)
    if guides:
        lines += ["More in the guide: " + ", ".join(guides) + ".", ""]
    lines += [
        "## How it works",
        "",
        docstring_markdown(worker),
        "",
    ]
    return "\n".join(lines)


def guide_sections(worker: Any) -> list[str]:
    """Links to the sections of workers.md whose heading names the worker's program (or, for a
    worker that places its file, the section on placed files)."""
    program = worker.verified.program if worker.verified else worker.name
    text = (PAGES / "workers.md").read_text(encoding="utf-8")
    return [
        f"[{title}](../../workers.md#{anchor(title)})"
        for title in re.findall(r"^## (.+)$", FENCE.sub("", text), re.M)
        if re.search(rf"\b{re.escape(program)}\b", title) or (worker.places and "placed" in title)
    ]


def options_list(worker: Any) -> list[str]:
    """The target keys a worker adds, each linked to the manifest reference."""
    keys = [k for k in manifest_keys() if worker.name in k.workers]
    if not keys:
        return ["None beyond the keys every [`[[target]]`](../manifest.md#target) has."]
    return [
        f"- [`{k.path.removeprefix('target[].')}`](../manifest.md#{anchor(k.path)})"
        f" ({k.type}): {key_docs()[k.path]['doc']}"
        for k in keys
    ]


def anchor(heading: str) -> str:
    """The id Python-Markdown's toc gives a heading made of one code span."""
    return re.sub(r"[^\w\s-]", "", heading).strip().lower().replace(" ", "-")


def own_files(worker: Any) -> list[str]:
    own = worker.own_files
    if own is None:
        return ["None: the program reads only what hotplex places."]
    where = "the folders from its session folder up" if own.above else "its session folder"
    names = ", ".join(f"`{n}`" for n in own.names)
    lines = [f"{own.program} reads {names} in {where}, and {own.home}."]
    if own.switch is None:
        lines += ["", "It has no switch to turn them off."]
    elif own.also_drops is None:
        lines += ["", f"hotplex switches them off by default: `{own.switch}`."]
    else:
        lines += [
            "",
            f"The switch, `{own.switch}`, also drops {own.also_drops}: it is on only where the"
            ' target says `own_instructions = "off"`.',
        ]
    lines += ["", "See [One copy of the rules](../../concepts/own-files.md)."]
    return lines


def docstring_markdown(worker: Any) -> str:
    """The worker module's docstring, reStructuredText literals as Markdown code, its ``::``
    blocks fenced."""
    text = inspect.getdoc(sys.modules[type(worker).__module__]) or ""
    text = re.sub(r"``([^`]+)``", r"`\1`", text)
    out: list[str] = []
    fenced = False
    for line in text.splitlines():
        if fenced and line and not line.startswith(" "):
            out += ["```", ""]
            fenced = False
        if line.endswith("::"):
            out += [line[:-1], "", "```text"]
            fenced = True
            continue
        if fenced and not line and out[-1] == "```text":
            continue
        out.append(line[4:] if fenced else line)
    if fenced:
        out.append("```")
    return re.sub(r"\n+```\n", "\n```\n", "\n".join(out))


# -- the commands --------------------------------------------------------------------------------


def cli_page() -> str:
    """The command reference: the hand-written overview, then each command's ``--help``."""
    lines = [(HERE / "reference/cli.md").read_text(encoding="utf-8").rstrip(), ""]
    top = _parser()
    lines += ["## `hotplex --help`", "", "```text", _help(top), "```", ""]
    for name, command in _commands(top).items():
        lines += [f"## `hotplex {name}`", "", "```text", _help(command), "```", ""]
    return "\n".join(lines)


def _parser() -> argparse.ArgumentParser:
    from hotplex import arguments

    return arguments.parsers([])[0]


def _commands(top: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in top._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def _help(parser: argparse.ArgumentParser) -> str:
    """``--help`` at 100 columns whatever the terminal: the page is the same on every machine."""
    parser.formatter_class = functools.partial(argparse.HelpFormatter, width=100)
    for command in _commands(parser).values():
        command.formatter_class = parser.formatter_class
    return parser.format_help().rstrip()


# -- the names a page uses -----------------------------------------------------------------------

FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.S | re.M)
SPAN = re.compile(r"(?<!`)`([^`\n]+)`(?!`)")
WORKER_SETTING = re.compile(r'\bworker\s*=\s*"([^"]*)"')
TABLE = re.compile(r"^\[\[?([a-z_]+)(?:\.[\w<>-]+)*\]\]?$")
DOTTED = re.compile(r"^([a-z_]+)((?:\[\d*\])?(?:\.[a-z_]+)+)$")
# A file of this repository named in a page (a user's project has its own docs/ folder: not one).
REPO_PATH = re.compile(r"^(?:examples|tests|benchmarks|compiler|targets|grammar|\.ci)/[\w./*-]*$")
# Placeholders in a documented command line: <target>, DIR, …, [optional parts].
FILE_NAME = re.compile(r"^[a-z_]+\.(?:json|toml|ya?ml|md|lock)$")
PLACEHOLDER = re.compile(r"[<>…\[\]]|^[A-Z]+$")


def unknown_names(markdown: str) -> list[str]:
    """What a page names that does not exist: a ``hotplex`` command line the CLI's parser
    refuses, a manifest table or key the model lacks, a worker the registry lacks, a file of the
    repository that is not there."""
    found: list[str] = []
    blocks = [(lang, body) for lang, body in FENCE.findall(markdown)]
    prose = FENCE.sub("", markdown)
    spans = SPAN.findall(prose)
    for lang, body in blocks:
        if lang in ("sh", "bash", "shell", "console", ""):
            for line in body.replace("\\\n", " ").splitlines():
                found += _command_problems(line)
        if lang == "toml":
            found += _worker_problems(body)
    for span in spans:
        if span.startswith("hotplex "):
            found += _command_problems(span, whole=False)
        found += _worker_problems(span) + _key_problems(span)
        if REPO_PATH.match(span) and not any(REPO.glob(span.rstrip("/"))):
            found.append(f"`{span}`: no such file in the repository")
    return found


def _command_problems(line: str, whole: bool = True) -> list[str]:
    """Each ``hotplex`` command on a shell line, parsed by the CLI's own parser (``whole``
    False: a command named in prose, of which only the command and its options are checked)."""
    problems = []
    for part in re.split(r"&&?|\|\|?|;|\$\(", line.split(" # ")[0]):
        try:
            words = shlex.split(part.strip(), comments=True)
        except ValueError:
            words = part.split()
        while words and "=" in words[0]:  # VAR=value hotplex ...
            words = words[1:]
        if len(words) < 2 or words[0] != "hotplex" or words[1].endswith(":"):
            continue  # not a command, or the server's own output ("hotplex serve: listening")
        argv = words[1:]
        if whole and not any(PLACEHOLDER.search(w) for w in argv):
            error = _parse_error(argv)
        else:
            error = _name_error(argv)
        if error:
            problems.append(f"`{' '.join(words)}`: {error}")
        for flag, value in itertools.pairwise(words):
            if flag in ("--worker", "--for"):
                for name in value.split(","):
                    problems += _worker_problems(f'worker = "{name}"')
    return problems


def _name_error(argv: list[str]) -> str | None:
    """Of a command line with placeholders, or named in prose: whether its command and each of
    its options exist (their values are not checked)."""
    top = _parser()
    words = iter(argv)
    for word in words:
        if word in ("-C", "-f"):
            next(words, None)
        elif not word.startswith("-") and not PLACEHOLDER.search(word):
            command = _commands(top).get(word)
            if command is None:
                return f"no command {word!r}"
            known = {o for action in command._actions for o in action.option_strings}
            unknown = [w for w in words if w.startswith("-") and w.split("=")[0] not in known]
            return f"hotplex {word} has no option {unknown[0]}" if unknown else None
    return None


def _parse_error(argv: list[str]) -> str | None:
    """argparse's complaint about a whole command line, if any."""
    if argv in (["--help"], ["--version"]):
        return None
    from hotplex import arguments

    stderr = io.StringIO()
    try:
        with contextlib.redirect_stderr(stderr), contextlib.redirect_stdout(io.StringIO()):
            arguments.parse(argv)
    except SystemExit as exit:
        if exit.code:
            return stderr.getvalue().strip().splitlines()[-1]
    return None


def _worker_problems(text: str) -> list[str]:
    from hotplex import registry

    return [
        f'worker "{name}" is not registered'
        for name in WORKER_SETTING.findall(text)
        if name not in registry.names() and not PLACEHOLDER.search(name) and name
    ]


@functools.cache
def _known_paths() -> frozenset[str]:
    """Every key path and table, with list indexes and chosen names generalised."""
    paths: set[str] = set()
    for key in manifest_keys():
        parts = key.path.replace("[]", "").split(".")
        for end in range(1, len(parts) + 1):
            paths.add(".".join(parts[:end]))
    return frozenset(paths)


def _key_problems(span: str) -> list[str]:
    """A code span that reads as a manifest table (``[limits]``) or key (``limits.total``,
    ``target[1].worker``) must name one the model has."""
    table = TABLE.match(span)
    dotted = DOTTED.match(span)
    if table:
        path = span.strip("[]")
    elif dotted:
        path = span
    else:
        return []
    top = re.split(r"[.\[]", path)[0]
    if top not in {k.split(".")[0] for k in _known_paths()}:
        return []  # another program's table or key (Codex's config.toml, a JSON field)
    if FILE_NAME.match(span):
        return []  # a file named like a key (`package.json` beside [[package]])
    general = re.sub(r"\[\d*\]", "", path)
    general = re.sub(r"^(channels)\.\w+", rf"\1.{NAME}", general)
    general = re.sub(r"\.agents\.[\w-]+", f".agents.{NAME}", general)
    if general in _known_paths() or re.match(r"^(target\.)?vars\.\w+$", general):
        return []
    return [f"manifest key `{span}` does not exist"]


# -- the MkDocs events ---------------------------------------------------------------------------


def front_page() -> str:
    """The site's front page: the README, its links into docs/pages/ made links of the site, its
    worker table the one whose names link each worker's page."""
    text = (REPO / "README.md").read_text(encoding="utf-8")
    text = text.replace(worker_table(), WORKER_TABLE)
    return text.replace("](docs/pages/", "](")


def generated() -> dict[str, str]:
    """Every generated page, by its path under the pages folder."""
    return {
        "index.md": front_page(),
        "reference/manifest.md": manifest_page(),
        "reference/cli.md": cli_page(),
        **worker_pages(),
    }


def on_config(config: Any) -> Any:
    """List the generated worker pages in the nav, after the hand-written ones of the section."""
    from hotplex import registry

    pages = [f"{WORKERS_DIR}/{name}.md" for name in registry.names()]
    for entry in config["nav"]:
        if isinstance(entry, dict) and WORKERS_NAV in entry:
            kept = [p for p in entry[WORKERS_NAV] if not str(p).startswith(f"{WORKERS_DIR}/")]
            entry[WORKERS_NAV] = kept + pages
    return config


def on_files(files: Any, config: Any) -> Any:
    """Add the generated pages to the site's files."""
    from mkdocs.structure.files import File

    for path, text in generated().items():
        files.append(File.generated(config, path, content=text))
    return files


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    """Fill in the worker table, then warn of each name the page uses that does not exist."""
    markdown = markdown.replace(WORKER_TABLE, worker_table(link=f"{WORKERS_DIR}/{{}}.md"))
    for problem in unknown_names(markdown):
        log.warning("%s: %s", page.file.src_uri, problem)
    return markdown
