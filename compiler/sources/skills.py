"""Agent Skills: the folders ``skills/<name>/`` of the sources folder, read, checked and scanned.

A skill is a folder holding ``SKILL.md`` (YAML frontmatter, then a body) and any resource files,
as the Agent Skills specification defines (``SPEC``, its rules as data). Each job reads the
skills as inputs of its own (``Inputs.entries`` for each folder, every file for its bytes), so an
edited skill rebuilds the outputs that carry it and nothing else.

What is refused (exit 2, each with its place): a name against the specification's rules or not
the folder's name (so no two skills are one name after case folding: the rules allow lower
case ASCII only); a missing, empty or too long
description, or one that is not one line or holds a tag (``listing_safe``: a description is
listed by the program inside its own wrapper, and must not forge another entry or close it); a
text file with a secret, hidden text or (with ``[injection] scope = "all"``) injection, as for
every source, SKILL.md's frontmatter (keys and values at any depth) included; a script that
``[skills] scripts`` does not allow. A binary file is copied as it is and listed with its digest;
a script is never run. ``SKILL.md`` keeps its frontmatter, written again by PyYAML (keys in the
specification's order, then the others as written), its body as is.
Variants and templates do not apply to skills: a skill's files ship as written.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterable
from typing import Any, NamedTuple

from hotplex.errors import BuildFailed, HotplexError, Problem, Span
from hotplex.fs import declared_match, folded
from hotplex.generated import attrs
from hotplex.records import Skill, SkillFile
from hotplex.scanning import secrets
from hotplex.scanning.origins import Origin
from hotplex.sources import frontmatter
from hotplex.sources.skill_listing import SKILL_FILE, listing_problems, listing_safe
from hotplex.sources.skill_names import literal_glob, misnamed, one_name_apart
from hotplex.text import secret_rules

# The end of an input that is a folder's entries (``Inputs.entries``): "<folder>/." names the
# folder itself to a stat, so the snapshot's stamp of the input is the folder's (an entry added
# or removed moves it) and a no-op build checks it like any file.
ENTRIES = "/."
SKILLS_FOLDER = "skills"  # in the sources folder
SCRIPTS_FOLDER = "scripts"  # the specification's folder of code a program may run


class Spec(NamedTuple):
    """The Agent Skills specification's frontmatter rules, as data."""

    version: str
    name: re.Pattern[str]
    name_rule: str
    name_max: int
    description_max: int
    keys: tuple[str, ...]  # every key it defines, in the order SKILL.md is written
    required: tuple[str, ...]
    text_max: dict[str, int]  # an optional key's most characters


SPEC = Spec(
    version="agentskills.io specification, 2025-12",
    name=re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*"),
    name_rule=(
        "lower-case letters, digits and single hyphens, neither first nor last (64 at most), "
        "the same as its folder's name"
    ),
    name_max=64,
    description_max=1024,
    keys=("name", "description", "license", "compatibility", "metadata", "allowed-tools"),
    required=("name", "description"),
    text_max={"compatibility": 500},
)
YAML_HINT = (
    "a SKILL.md starts with YAML frontmatter between '---' lines; quote a value that holds"
    " ': ' or starts with a quote, a '-' or a '#'"
)


def folder_of(sources_dir: str) -> str:
    return posixpath.normpath(posixpath.join(sources_dir, SKILLS_FOLDER))


def read(resolver: Any, ships: bool, place: Any = None, program: str = "") -> tuple[Skill, ...]:
    """Every skill of the sources folder, checked and scanned, by name; none when there is no
    ``skills/`` folder. ``resolver``: the job's ``resolve.Resolver``. A job whose program loads
    no skills (``ships`` false) only lists the folders, to name what it leaves out: an edited
    skill rebuilds none of its outputs. ``place``: the job's ``worker.SkillsPlace`` (None: its
    program loads none), whose listing each skill is checked against with the rest, so that one
    run names every problem of a skill (``program``: as users name it)."""
    model = resolver.model
    root = folder_of(model.sources_dir)
    listed = _entries(resolver, root)
    problems: list[Problem] = []
    skills: list[Skill] = []
    for entry, size in listed:
        if _ignored(model, f"{root}/{entry}".rstrip("/")):
            continue
        if not entry.endswith("/"):
            problems.append(_stray(f"{root}/{entry}", size))
            continue
        name = entry[:-1]
        folder = f"{root}/{name}"
        if not ships:
            skills.append(Skill(name, "", folder, ()))
            continue
        try:
            skill = _skill(resolver, folder, name, model.manifest.skills.scripts, (place, program))
        except HotplexError as error:
            problems += error.problems
            continue
        skills.append(skill)
    if problems:
        raise HotplexError(problems)
    return tuple(skills)


def _entries(resolver: Any, folder: str) -> tuple[tuple[str, int], ...]:
    display = folder + ENTRIES
    if display not in resolver.consulted:
        resolver.consulted.append(display)
    return resolver.inputs.entries(display, Span(folder))


def _skill(
    resolver: Any, folder: str, name: str, allowed: tuple[str, ...], listing: tuple[Any, str]
) -> Skill:
    """The skill in ``folder``, or every problem it has at once: its frontmatter's, its files',
    and its listing's where the program lists it (``listing``: the place and the program)."""
    skill_md = f"{folder}/{SKILL_FILE}"
    try:
        loaded = resolver.file(skill_md, Span(skill_md), meta=True)
    except HotplexError as error:  # its frontmatter is no YAML mapping: the skill's own hint
        raise HotplexError(
            [
                Problem(p.message, p.span, YAML_HINT if "frontmatter" in p.message else p.hint)
                for p in error.problems
            ]
        ) from None
    if loaded is None:
        raise HotplexError.single(
            f"skill folder '{name}' has no {SKILL_FILE}", Span(folder), hint="add one, or remove it"
        )
    raw_text = frontmatter.decode(resolver.inputs.raw(skill_md, Span(skill_md)).data, skill_md)
    meta = loaded.meta
    problems = list(check_meta(meta, name, skill_md, raw_text))
    aliased = aliases(raw_text, loaded.body_line, skill_md)
    problems += aliased or _read_two_ways(raw_text, loaded.body_line, skill_md)
    resolver.guard(loaded.body, lambda: [Origin(loaded.body, skill_md, loaded.body_line)], skill_md)
    files = []
    for path in _tree(resolver, folder, "", problems):
        display = f"{folder}/{path}"
        found = resolver.inputs.raw(display, Span(display))
        if display not in resolver.consulted:
            resolver.consulted.append(display)
        data = found.data
        if found.size > len(data):
            problems.append(
                Problem(
                    f"skill file of {found.size} bytes, more than the {len(data)} read: a skill "
                    "ships whole or not at all",
                    Span(display),
                    hint="shrink it, or raise [limits] so the read cap holds it",
                )
            )
            continue
        script = path.startswith(SCRIPTS_FOLDER + "/") or data.startswith(b"#!")
        if script and not any(declared_match(f"{name}/{path}", g) for g in allowed):
            problems.append(
                Problem(
                    f"script '{name}/{path}' is not allowed to ship: hotplex never runs it, the "
                    "program may",
                    Span(display),
                    hint="read it, then allow it: [skills] scripts = "
                    f'["{literal_glob(f"{name}/{path}")}"]',
                )
            )
            continue
        text = _text(data)
        if text is not None:
            resolver.guard(text, lambda t=text, d=display: [Origin(t, d)], display)
        else:
            _guard_binary(resolver, data, display)
        kind = "script" if script else ("text" if text is not None else "binary")
        files.append(SkillFile(path, data, kind))
    problems += one_name_apart(folder, [SKILL_FILE, *(f.path for f in files)])
    if not aliased:  # a walk of an alias's every use may never end
        _guard_meta(resolver, meta, (raw_text, frontmatter.value_places(raw_text)), skill_md)
    texts = tuple((k, v) for k, v in meta.items() if isinstance(v, str) and k != "name")
    places = tuple((k, _key_span(raw_text, k, skill_md, value=True)) for k, _ in texts)
    extra = tuple(
        (key, _key_span(raw_text, key, skill_md).location()) for key in meta if key not in SPEC.keys
    )
    skill = Skill(name, str(meta.get("description", "")), folder, (), extra, texts, places)
    place, program = listing
    if place is not None:
        problems += listing_problems(skill, place, program)
        problems += _unlisted(meta, place.listed, program, (raw_text, skill_md))
    if problems:
        raise HotplexError(problems)
    head = SkillFile(SKILL_FILE, _normalised(meta, loaded.body, Span(skill_md)), "text")
    return attrs.evolve(skill, files=(head, *files))


def _unlisted(meta: dict, listed: tuple[str, ...], program: str, where: tuple[str, str]) -> list:
    """A listed key whose value is no text, which the listing's checks cannot read and a program
    prints its own way (``String([…])``); the description is ``check_meta``'s to refuse."""
    raw_text, skill_md = where
    return [
        Problem(
            f"a listed text must be text, not {_kind(meta[key])} ({program} lists '{key}')",
            _key_span(raw_text, key, skill_md, value=True),
            hint=f"write {key} as one line of text",
        )
        for key in listed
        if key != "description" and meta.get(key) is not None and not isinstance(meta[key], str)
    ]


def _guard_meta(
    resolver: Any, value: Any, raw: tuple[str, dict[str, tuple[int, int]]], skill_md: str, key=""
) -> None:
    """Scan every text of the frontmatter, keys and values at any depth, as SKILL.md's body is:
    it ships, and the listed keys reach every prompt. A value is placed where it is written in
    the file (``raw``: its text), else (a YAML escape such as ``"\\u200b"``) at its key path
    and where that key's value starts (``raw``: ``value_places``)."""
    if isinstance(value, dict):
        for name, item in value.items():
            path = f"{key}.{name}" if key else str(name)
            _guard_meta(resolver, name, raw, skill_md, path)
            _guard_meta(resolver, item, raw, skill_md, path)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            _guard_meta(resolver, item, raw, skill_md, f"{key}[{index}]")
    elif isinstance(value, str):
        text, places = raw
        written = places.get(key)
        resolver.guard(
            value,
            lambda: [Origin(text, skill_md), Origin(value, skill_md, key=key, written=written)],
            skill_md,
        )


def _stray(display: str, size: int) -> Problem:
    """A file in ``skills/`` that is no skill folder, or an entry no skill can hold."""
    if size >= 0:
        return Problem(
            "skills/ holds only skill folders: this file would reach no program",
            Span(display),
            hint="move it into a skill's folder, or out of skills/",
        )
    return Problem(
        "a symlink or special file in skills/: a skill ships its own files, copied whole",
        Span(display),
        hint="replace it with the file itself",
    )


def _tree(resolver: Any, folder: str, under: str, problems: list[Problem]) -> Iterable[str]:
    """Every file of a skill's folder but SKILL.md, by path, each subfolder an input; an entry
    that cannot ship (a symlink, a name no gateway can place) is a problem, each of them."""
    for entry, size in _entries(resolver, f"{folder}/{under}".rstrip("/")):
        path = under + entry
        if _ignored(resolver.model, f"{folder}/{path}".rstrip("/")):
            continue
        refused = (
            _stray(f"{folder}/{path}", size)
            if size < 0
            else misnamed(entry.rstrip("/"), f"{folder}/{path}")
        )
        if refused is None and path != SKILL_FILE and folded(entry) == folded(SKILL_FILE):
            refused = Problem(
                f"a {SKILL_FILE} below a skill's own is a skill of its own to a program that"
                " looks for skills in every folder (Codex CLI 0.169.0 lists it), its"
                " frontmatter checked by nobody",
                Span(f"{folder}/{path}"),
                hint="rename it, or make it a skill of its own in skills/",
            )
        if refused is not None:
            problems.append(refused)
        elif entry.endswith("/"):
            yield from _tree(resolver, folder, path, problems)
        elif path != SKILL_FILE:
            yield path


def _ignored(model: Any, path: str) -> bool:
    """Whether ``[project] ignore`` keeps ``path`` out: no part of any skill, as of no artifact."""
    if not model.manifest.project.ignore:
        return False
    from hotplex.sources.unused import ignored  # the walk that reports unread files owns the globs

    return ignored(model, path)


def _text(data: bytes) -> str | None:
    """The file as text, or None for a binary file (a NUL). A byte that is not UTF-8 in a file
    without one is read as U+FFFD, as a program's file reader shows it: the rest is text the
    model reads, and is scanned as such."""
    if b"\0" in data:
        return None
    return data.decode("utf-8", "replace")


def _guard_binary(resolver: Any, data: bytes, display: str) -> None:
    """A binary file is searched for secrets only (a key is one in any file that ships; hidden
    text and injection are rules of text), each byte a character."""
    text = data.decode("latin-1")
    if secret_rules.scan(text):
        allow = resolver.model.manifest.secrets
        allowance = secrets.allowance(allow.allow, allow.allow_files)
        resolver.findings += secrets.find(text, [Origin(text, display)], allowance)


def check_meta(meta: dict[str, Any], folder_name: str, file: str, text: str) -> Iterable[Problem]:
    for key in SPEC.required:
        if key not in meta:
            yield Problem(
                f"SKILL.md has no '{key}' ({SPEC.version} requires it)",
                Span(file, 1, 1, source_line=text.partition("\n")[0]),
                hint=f"add {key}: … to its frontmatter",
            )
    name = meta.get("name")
    if "name" in meta:
        where = _key_span(text, "name", file, value=True)
        if not isinstance(name, str) or not SPEC.name.fullmatch(name) or len(name) > SPEC.name_max:
            yield Problem(f"skill name {name!r}: {SPEC.name_rule}", where)
        elif name != folder_name:
            either = f" or the name to {folder_name}" if SPEC.name.fullmatch(folder_name) else ""
            yield Problem(
                f"skill name '{name}' is not its folder's name '{folder_name}'",
                where,
                hint=f"rename the folder to skills/{name}/{either}",
            )
    if "description" in meta:
        description = meta["description"]
        where = _key_span(text, "description", file, value=True)
        if not isinstance(description, str) or not description.strip():
            yield Problem("a skill's description must be text, not empty", where)
        elif len(description) > SPEC.description_max:
            yield Problem(
                f"description of {len(description)} characters, more than the "
                f"{SPEC.description_max} {SPEC.version} allows",
                where,
                hint="say when to use the skill; the body holds the rest",
            )
        elif (why := listing_safe(description)) is not None:
            yield Problem(why, where)
    metadata = meta.get("metadata")
    if metadata is not None and not (
        isinstance(metadata, dict)
        and all(isinstance(k, str) and isinstance(v, str) for k, v in metadata.items())
    ):
        yield Problem(
            "'metadata' must map text keys to text values",
            _key_span(text, "metadata", file),
            hint='quote each value: version: "1.0"',
        )
    for key, most in SPEC.text_max.items():
        value = meta.get(key)
        if value is not None and (not isinstance(value, str) or len(value) > most):
            yield Problem(
                f"'{key}' must be text of {most} characters at most",
                _key_span(text, key, file, value=True),
            )


# Plain scalars YAML 1.1 (PyYAML, which reads SKILL.md and writes it again) takes for a boolean or
# a number where YAML 1.2 (the programs that load skills: Claude Code is Node) reads another
# value: `yes`/`no`/`on`/`off`/`y`/`n` are text there, `012` is twelve, `1_000` and `1:20` text.
_BOOL_12 = re.compile(r"true|false", re.IGNORECASE)
_KINDS = {"bool": "a boolean", "int": "a whole number", "float": "a number"}


def _kind(value: object) -> str:
    """What YAML read ``value`` as, in a message: a list, a mapping, a date, a number."""
    kinds = {**_KINDS, "list": "a list", "dict": "a mapping", "date": "a date"}
    return kinds.get(type(value).__name__, f"a {type(value).__name__}")


_NUMBER_11_ONLY = re.compile(r"[-+]?(?:0[0-7_]+|0b[01_]+|[0-9][0-9_]*:[0-5]?[0-9].*|.*_.*)")


def aliases(text: str, body_line: int, file: str) -> list[Problem]:
    """Each YAML alias (``*a``) of the frontmatter, at its first use: aliases of aliases grow a
    few lines into billions of values (each walk of them, the scans', never ends), and SKILL.md
    is written again with each one expanded."""
    import yaml

    block = "\n".join(text.split("\n")[1 : max(body_line - 2, 1)])
    problems = []
    try:
        tokens = list(yaml.scan(block, Loader=yaml.SafeLoader))
    except yaml.YAMLError:
        return []  # the reader has said what is wrong with it
    seen = set()
    for token in tokens:
        if isinstance(token, yaml.AliasToken) and token.value not in seen:
            seen.add(token.value)
            line = token.start_mark.line + 2  # after the fence
            problems.append(
                Problem(
                    f"a YAML alias (*{token.value}) in a skill's frontmatter: SKILL.md is"
                    " written again with every alias expanded, and a few can stand for billions"
                    " of values",
                    Span(file, line, token.start_mark.column + 1),
                    hint="write the value out where it is used",
                )
            )
    return problems


def _read_two_ways(text: str, body_line: int, file: str) -> list[Problem]:
    """A frontmatter value the shipped SKILL.md would say otherwise than its source means to a
    program: written again by PyYAML (``_normalised``), ``flag: yes`` ships as ``flag: true``."""
    import yaml

    block = "\n".join(text.split("\n")[1 : max(body_line - 2, 1)])
    problems = []
    pending = [yaml.compose(block, Loader=yaml.SafeLoader)]
    while pending:
        node = pending.pop()
        if isinstance(node, yaml.MappingNode):
            pending += [part for pair in node.value for part in pair]
        elif isinstance(node, yaml.SequenceNode):
            pending += node.value
        elif isinstance(node, yaml.ScalarNode) and node.style is None:
            kind = node.tag.rpartition(":")[2]
            if (kind == "bool" and not _BOOL_12.fullmatch(node.value)) or (
                kind in ("int", "float") and _NUMBER_11_ONLY.fullmatch(node.value)
            ):
                line = node.start_mark.line + 2  # after the fence
                problems.append(
                    Problem(
                        f"'{node.value}' is {_KINDS[kind]} to YAML 1.1, which hotplex reads and"
                        " writes SKILL.md again with, and another value to YAML 1.2, which the"
                        " program reads: it would ship changed",
                        Span(
                            file,
                            line,
                            node.start_mark.column + 1,
                            source_line=text.split("\n")[line - 1],
                        ),
                        hint=f'quote it ("{node.value}") to keep the text',
                    )
                )
    return sorted(problems, key=lambda p: (p.span.line, p.span.column))


def _key_span(text: str, key: str, file: str, value: bool = False) -> Span:
    """Where ``key:`` is written in the frontmatter of ``text`` (its value's column with
    ``value``)."""
    pattern = re.compile(rf"^({re.escape(key)}[ \t]*:[ \t]*)", re.MULTILINE)
    found = pattern.search(text)
    if found is None:
        return Span(file, 1, 1)
    line = text.count("\n", 0, found.start()) + 1
    column = 1 + (len(found.group(1)) if value else 0)
    source_line = text.split("\n")[line - 1]
    return Span(file, line, column, source_line=source_line)


def _normalised(meta: dict[str, Any], body: str, where: Span) -> bytes:
    """SKILL.md as shipped: its frontmatter written again by PyYAML, the specification's keys
    first in its order, then the others as written; the body as it is."""
    from hotplex.worker import yaml_text

    ordered = {k: meta[k] for k in SPEC.keys if k in meta}
    ordered.update((k, v) for k, v in meta.items() if k not in ordered)
    try:
        head = yaml_text(ordered)
    except ValueError as exc:
        raise BuildFailed(
            [Problem(f"its frontmatter cannot be written again: {exc}", where)]
        ) from None
    return f"---\n{head}---\n{body}".encode()


def unknown_keys(skills: tuple[Skill, ...], known: frozenset[str], program: str) -> list[str]:
    """A warning per frontmatter key neither the specification nor ``program`` documents."""
    return [
        f"{where}: skill '{skill.name}': '{key}' is no key of the {SPEC.version}, nor one "
        f"{program} documents: it ships as written, and may be ignored"
        for skill in skills
        for key, where in skill.extra_keys
        if key not in known
    ]


def unmatched_scripts(skills: tuple[Skill, ...], allowed: tuple[str, ...]) -> list[str]:
    """A warning per ``[skills] scripts`` glob that allows no script of any skill: misspelt (the
    script it meant is refused on its own) or left after its skill went, waiting to allow the
    next file that happens to match it."""
    scripts = [f"{s.name}/{f.path}" for s in skills for f in s.files if f.kind == "script"]
    return [
        f"[skills] scripts[{index}] '{glob}' allows no script of any skill: misspelt, or left"
        " after its skill went; remove it"
        for index, glob in enumerate(allowed)
        if not any(declared_match(script, glob) for script in scripts)
    ]
