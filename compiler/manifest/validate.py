"""Cross-field rules of a manifest that the converter cannot express; all problems at once."""

from __future__ import annotations

import posixpath
import re
import typing

from hotplex import registry
from hotplex.errors import HotplexError, Problem, Span, suggest
from hotplex.fs import folded as folded_name
from hotplex.manifest.jobs import BASE_FOLDER
from hotplex.manifest.logs_glob import validate_glob
from hotplex.manifest.model import (
    BUILTIN_VARS,
    Manifest,
    Source,
    Target,
    Unicode,
)
from hotplex.manifest.paths import (
    check_path_key,
    check_source_file,
    claim,
    same_or_inside,
    validate_places,
)
from hotplex.manifest.source_rule import effective_sources, folded, target_sources, worker_defaults
from hotplex.manifest.vocabulary import BUILT_IN_TAGS
from hotplex.records import TargetSources

_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*")
_TAG = re.compile(r"[A-Za-z_][A-Za-z0-9_.-]*")


def validate(manifest: Manifest, display: str) -> None:
    """Cross-field rules cattrs cannot express; all problems at once."""
    sources = effective_sources(manifest)
    problems: list[Problem] = []

    def bad(key: str, message: str, hint: str | None = None) -> None:
        problems.append(Problem(message, Span(display, key=key), hint))

    for key, value in (
        ("project.sources", manifest.project.sources),
        ("project.out", manifest.project.out),
    ):
        check_path_key(value, key, bad)
    if same_or_inside(manifest.project.sources, manifest.project.out):
        bad(
            "project.out",
            f"the artifact folder '{manifest.project.out}' must not be or contain "
            f"the sources folder '{manifest.project.sources}'",
        )
    for name in manifest.channels:
        if name not in ("B", "C"):
            bad(
                f"channels.{name}",
                "unknown channel: channels are 'B' (directives) and 'C' (context)",
                suggest(name, ["B", "C"]),
            )
    groups: dict[str, str] = {}
    for name, channel in manifest.channels.items():
        if not _TAG.fullmatch(channel.tag):
            bad(f"channels.{name}.tag", f"'{channel.tag}' is not a valid tag name")
        elif channel.tag.lower() in BUILT_IN_TAGS:  # a group would open or close hotplex's own
            bad(f"channels.{name}.tag", f"tag '{channel.tag}' is the document's own")
        elif (first := claim(groups, channel.tag, name)) is not None:
            bad(
                f"channels.{name}.tag",
                f"tag '{channel.tag}' is already the tag of channel {first}'s group",
                "give each channel's group a tag of its own",
            )
    _validate_sources(manifest, sources, bad)
    for name in manifest.variants.platforms:
        _check_folder_name("variants.platforms", "platform", name, sources, bad)
    if len(set(manifest.variants.platforms)) != len(manifest.variants.platforms):
        bad("variants.platforms", "a platform is listed twice")
    platforms: dict[str, str] = {}
    for name in dict.fromkeys(manifest.variants.platforms):
        if (first := claim(platforms, name, name)) is not None:
            bad(
                "variants.platforms",
                _one_folder("platforms", first, name, "dist/<target>/"),
                "rename one of them",
            )
    for key, value in (
        ("limits.per_file", manifest.limits.per_file),
        ("limits.total", manifest.limits.total),
        ("memory.digest_chars", manifest.memory.digest_chars),
        ("memory.request_chars", manifest.memory.request_chars),
        ("learn.budget", manifest.learn.budget),
        ("learn.transcript", manifest.learn.transcript),
    ):
        if value <= 0:
            bad(key, f"must be a positive integer, got {value}")
    after = manifest.memory.compact_after_days
    if after is not None and after < 0:
        bad("memory.compact_after_days", f"must be 0 or more (days before the newest), got {after}")
    for name in manifest.vars:
        if name in BUILTIN_VARS:
            bad(f"vars.{name}", f"'{name}' is a built-in variable and cannot be set")
    if manifest.metacognition.file is not None:
        check_path_key(manifest.metacognition.file, "metacognition.file", bad)
    _validate_rule_allow("secrets", manifest.secrets.allow, bad)
    _validate_unicode(manifest.unicode, bad)
    _validate_rule_allow("injection", manifest.injection.allow, bad)
    _validate_allow_hosts(manifest.injection.allow_hosts, bad)
    if manifest.memory.logs is not None:
        validate_glob(manifest, sources, bad)
    _validate_targets(manifest, sources, bad)
    validate_places(manifest, sources, bad)
    _validate_packages(manifest, bad)
    for index, pattern in enumerate(manifest.project.ignore):
        if not pattern.strip():
            bad(f"project.ignore[{index}]", "an empty pattern matches nothing")
    if problems:
        raise HotplexError(problems)


def _check_folder_name(
    key: str, kind: str, name: str, sources: tuple[Source, ...], bad: typing.Callable[..., None]
) -> None:
    """A platform or bot name becomes a folder (dist/cc/<platform>/, <platform>/<bot>/), so it
    must be a plain ASCII name that takes no other folder's or file's place."""
    if not _NAME.fullmatch(name):
        bad(key, _not_a_name(kind, name))
    elif folded_name(name) == BASE_FOLDER:
        bad(
            key,
            f"'{name}' is reserved: the artifact without a platform is built in the folder"
            f" '{BASE_FOLDER}/' of each target",
            "pick another name; `base = true` on a target already builds the default artifact",
        )
    elif folded_name(name) in {folded_name(posixpath.basename(s.file)) for s in sources}:
        bad(key, f"'{name}' is reserved: it is the file name of a source")


def _not_a_name(kind: str, name: str) -> str:
    return (
        f"{kind} '{name}' must be ASCII letters, digits, '-', '_' or '.', starting with a letter"
        " or digit (it names a folder)"
    )


def _one_folder(kind: str, first: str, second: str, parent: str) -> str:
    return (
        f"{kind} '{first}' and '{second}' differ only in letter case: {parent}{first}/ and"
        f" {parent}{second}/ are one folder on a case-insensitive file system (macOS, Windows)"
    )


def _validate_rule_allow(
    table: str, allow: tuple[str, ...], bad: typing.Callable[..., None]
) -> None:
    """``[secrets] allow`` and ``[injection] allow``: rule names or a finding's text. An
    ``[injection]`` entry is a host (with the names under it), a role line or a token: a URL
    with its scheme is none of them, and a public suffix, as a host, lets in anyone's site."""
    from hotplex.scanning import injection, secrets, urls
    from hotplex.scanning.allowed_hosts import allow_entry_problem, public_suffix_problem
    from hotplex.scanning.hidden import visible

    unknown_rule_hint = {"secrets": secrets, "injection": injection}[table].unknown_rule_hint
    for index, entry in enumerate(allow):
        key = f"{table}.allow[{index}]"
        hint = unknown_rule_hint(entry)
        if hint is not None:
            bad(key, f"no rule named '{entry}'", hint)
        elif not entry.strip():
            bad(key, "an empty entry would allow every finding")
        elif table == "injection" and re.fullmatch(r"[A-Za-z][A-Za-z0-9+.-]*://\S*", entry):
            found = urls.resolve(urls.decoded(entry))
            host = found[1] if found is not None and found[1] else "img.shields.io"
            bad(
                key,
                f"'{entry}' is a URL, which no finding is: a URL is allowed by its host",
                f'allow its host: [injection] allow_hosts = ["{host}"]',
            )
        elif table == "injection" and (problem := allow_entry_problem(entry)) is not None:
            bad(key, *problem)
        elif table == "injection" and (suffix := public_suffix_problem(entry)) is not None:
            bad(key, *suffix)
        elif not any(c.isalnum() for c in entry):  # "--", "*", a lone U+200B: no secret is it
            bad(
                key,
                f"'{visible(entry)}' holds no letter or digit, which every secret does, so it"
                " allows nothing",
                'an entry names a rule ("github-token") or a secret, whole',
            )


def _validate_allow_hosts(hosts: tuple[str, ...], bad: typing.Callable[..., None]) -> None:
    """``[injection] allow_hosts``: each a host name as a URL holds it."""
    from hotplex.scanning.allowed_hosts import host_entry_problem

    for index, entry in enumerate(hosts):
        problem = host_entry_problem(entry)
        if problem is not None:
            bad(f"injection.allow_hosts[{index}]", *problem)


def _validate_unicode(unicode: Unicode, bad: typing.Callable[..., None]) -> None:
    from hotplex.scanning.hidden import allow_entry, describe, reported, unknown_entry_hint, visible

    for index, entry in enumerate(unicode.allow):
        name = allow_entry(entry)
        if name is None:
            bad(
                f"unicode.allow[{index}]",
                f"'{visible(entry)}' is not a code point, a character name or a rule",
                unknown_entry_hint(entry),
            )
        elif name == "U+0000":
            bad(
                f"unicode.allow[{index}]",
                f"'{entry}' (a NUL) is never allowed: a program that reads the artifact as a C"
                " string ends it there",
                "remove the entry",
            )
        elif name.startswith("U+") and not reported(name):
            bad(
                f"unicode.allow[{index}]",
                f"'{entry}' ({describe(chr(int(name[2:], 16)))}) is no character the hidden-text"
                " scan reports, so allowing it changes nothing",
                "the scan reports controls and invisible (default-ignorable) characters only;"
                " remove the entry",
            )


def _validate_sources(
    manifest: Manifest, sources: tuple[Source, ...], bad: typing.Callable[..., None]
) -> None:
    defaults = worker_defaults(manifest)
    default_files = {folded(s.file) for s in defaults.values()}
    seen_names: set[str] = set()
    for index, declared in enumerate(manifest.source):
        key = f"source[{index}]"
        if declared.name in seen_names:
            bad(f"{key}.name", f"source name '{declared.name}' is used twice")
        seen_names.add(declared.name)
        missing = [k for k in ("file", "channel", "tag") if getattr(declared, k) is None]
        replaces = declared.name in defaults or folded(declared.file or "") in default_files
        if not replaces and missing:
            hint = suggest(declared.name, sorted(defaults))
            known = ", ".join(sorted(defaults)) or "none ([project] default_sources = false)"
            for name in missing:
                bad(
                    f"{key}.{name}",
                    f"required key is missing: '{declared.name}' is no default source here, so"
                    " it needs file, channel and tag",
                    hint or f"the default sources: {known}",
                )
    by_name = {d.name: f"source[{i}]" for i, d in enumerate(manifest.source)}
    # A tag's owner: a source, a channel's group (its key) or hotplex's own wrapper (None).
    taken: dict[str, Source | str | None] = {
        c.tag.lower(): f"channels.{name}" for name, c in manifest.channels.items()
    }
    taken.update(dict.fromkeys(BUILT_IN_TAGS))
    for source in sources:
        key = by_name.get(source.name, "project.sources")
        owner = taken.get(source.tag.lower(), source)
        if not _TAG.fullmatch(source.tag):
            bad(f"{key}.tag", f"'{source.tag}' is not a valid tag name")
        elif isinstance(owner, str) and source.name not in by_name:
            # a default source no table declares: the group's tag, the key written, is the clash
            bad(
                f"{owner}.tag",
                f"tag '{source.tag}' is already used by the default source '{source.name}'"
                f" ({source.file})",
                "give the group another tag",
            )
        elif owner is None or isinstance(owner, str):
            bad(f"{key}.tag", f"tag '{source.tag}' is already used by another section")
        elif owner is not source and owner.name not in by_name:
            bad(
                f"{key}.tag",
                f"tag '{source.tag}' is already used by the default source '{owner.name}'"
                f" ({owner.file})",
                f"name this source '{owner.name}' to change that default instead, or set"
                " [project] default_sources = false to declare every source yourself",
            )
        elif owner is not source:
            bad(f"{key}.tag", f"tag '{source.tag}' is already used by source '{owner.name}'")
        taken.setdefault(source.tag.lower(), source)
        check_source_file(manifest.project.sources, source.file, f"{key}.file", bad)
        if source.channel not in manifest.channels:
            bad(f"{key}.channel", f"channel '{source.channel}' is not defined under [channels]")


# Folders of the sources folder a package cannot be: hotplex gives them a meaning of their own.
RESERVED_PACKAGE_NAMES = ("skills",)


def _validate_packages(manifest: Manifest, bad: typing.Callable[..., None]) -> None:
    """Each ``[[package]]`` is a git repository at a rev or a local folder, named as a folder
    of the sources folder that nothing else claims."""
    logs = manifest.memory.logs
    reserved = {name: "skills are read from it" for name in RESERVED_PACKAGE_NAMES}
    if logs is not None and "/" in logs.strip("/"):
        reserved[logs.strip("/").split("/")[0]] = "it holds the daily logs ([memory] logs)"
    for platform in manifest.variants.platforms:
        reserved.setdefault(platform, "it is a platform's folder ([variants] platforms)")
    seen: dict[str, int] = {}
    for index, package in enumerate(manifest.package):
        key = f"package[{index}]"
        folded_ = folded_name(package.name)
        if not _NAME.fullmatch(package.name):
            bad(f"{key}.name", _not_a_name("package", package.name))
        elif folded_ in seen:
            bad(
                f"{key}.name",
                f"package '{package.name}' is declared twice (package[{seen[folded_]}])",
            )
        elif folded_ in {folded_name(r) for r in reserved}:
            why = next(w for r, w in reserved.items() if folded_name(r) == folded_)
            bad(f"{key}.name", f"'{package.name}' cannot name a package: {why}")
        seen.setdefault(folded_, index)
        if (package.git is None) == (package.path is None):
            bad(key, "a package needs either 'git' (with 'rev') or 'path', not both")
        elif package.git is not None and not package.rev:
            bad(f"{key}.rev", "required key is missing: the tag, branch or commit to lock")
        elif package.path is not None and (package.rev or package.subdir):
            which = "rev" if package.rev else "subdir"
            bad(f"{key}.{which}", f"'{which}' is for a git package; 'path' names the folder itself")
        if package.subdir is not None:
            check_path_key(package.subdir, f"{key}.subdir", bad, "repository")
        for field, value in (("git", package.git), ("path", package.path), ("rev", package.rev)):
            if value is not None and (not value.strip() or "\0" in value):
                bad(f"{key}.{field}", f"'{field}' must be a non-empty string without NUL")
            elif field == "rev" and value is not None and value.startswith("-"):
                bad(f"{key}.rev", f"rev '{value}' starts with '-': git would read it as an option")
        _validate_package_allow(key, package.allow, bad)


# The fewest characters of an ``allow`` entry of a package that is a finding's text: the
# findings are in a stranger's files; an entry allows a secret or a token that is it, whole,
# but also a host and every name under it ("io" would take in every image on a .io host).
SHORTEST_ALLOWED_TEXT = 8


def _validate_package_allow(key: str, allow: tuple[str, ...], bad: typing.Callable[..., None]):
    """A package's ``allow`` holds entries of the three scans (rule names, code points, a
    finding's text): a blank entry, or a near miss of any scan's rule name, is an error, as in
    ``[secrets]``, ``[unicode]`` and ``[injection]``; so is a text so short that, as a host, it
    lets through far more than the finding meant (``SHORTEST_ALLOWED_TEXT``), or a public
    suffix, which as a host lets through every stranger's site under it."""
    from hotplex.scanning import hidden, injection, secrets
    from hotplex.scanning.allowed_hosts import public_suffix_problem

    for index, entry in enumerate(allow):
        if not entry.strip():
            bad(f"{key}.allow[{index}]", "an empty entry would allow every finding")
            continue
        unknown = hidden.unknown_entry_hint(entry) if hidden.allow_entry(entry) is None else None
        near = (
            secrets.unknown_rule_hint(entry)
            or injection.unknown_rule_hint(entry)
            or (unknown if unknown is not None and unknown.startswith("did you mean") else None)
        )
        if near is not None:
            bad(f"{key}.allow[{index}]", f"no rule named '{entry}'", near)
        elif (suffix := public_suffix_problem(entry)) is not None:  # adversary17 D6
            bad(f"{key}.allow[{index}]", *suffix)
        elif (
            entry not in secrets.RULE_NAMES
            and entry not in injection.RULES
            and hidden.allow_entry(entry) is None
            and len(entry) < SHORTEST_ALLOWED_TEXT
        ):
            bad(
                f"{key}.allow[{index}]",
                f"'{entry}' is too short a finding's text: as a host, it would let through the"
                f" package's images and links on every name under '{entry}'",
                f"name the rule meant, or the finding's whole text (a secret, a token, a host),"
                f" {SHORTEST_ALLOWED_TEXT} or more characters",
            )


def _validate_targets(
    manifest: Manifest, sources: tuple[Source, ...], bad: typing.Callable[..., None]
) -> None:
    if not manifest.target:
        bad(
            "target",
            "no [[target]] is declared",
            'add one, e.g. [[target]] name = "cc" worker = "claude-code"',
        )
    names: dict[str, str] = {}
    source_names = [s.name for s in sources]
    read_by = target_sources(manifest, sources)
    for index, target in enumerate(manifest.target):
        key = f"target[{index}]"
        if not _NAME.fullmatch(target.name):
            bad(f"{key}.name", _not_a_name("target name", target.name))
        first = claim(names, target.name, target.name)
        if first == target.name:
            bad(f"{key}.name", f"target name '{target.name}' is used twice")
        elif first is not None:
            bad(
                f"{key}.name",
                _one_folder("target names", first, target.name, "dist/"),
                "rename one of them",
            )
        for platform in target.platforms or ():
            if platform not in manifest.variants.platforms:
                hint = suggest(platform, manifest.variants.platforms)
                bad(f"{key}.platforms", f"platform '{platform}' is not in variants.platforms", hint)
        for index, keep in enumerate(target.keep or ()):
            if keep in (target.keep or ())[:index]:
                bad(f"{key}.keep[{index}]", f"'{keep}' is listed twice")
            elif keep not in source_names:
                bad(f"{key}.keep", f"no source is named '{keep}'", suggest(keep, source_names))
        if target.bot is not None:
            _check_folder_name(f"{key}.bot", "bot", target.bot, sources, bad)
            _validate_bot(manifest, target, key, bad)
        for name in target.vars:
            if name in BUILTIN_VARS:
                bad(f"{key}.vars.{name}", f"'{name}' is a built-in variable and cannot be set")
        worker = registry.get(target.worker)
        if worker is None:
            known = list(registry.workers())
            hint = suggest(target.worker, known) or "known workers: " + ", ".join(sorted(known))
            bad(f"{key}.worker", f"unknown worker '{target.worker}'", hint)
            continue
        for option in target.misplaced:
            bad(f"{key}.{option}", f"'{option}' does not apply to worker '{target.worker}'")
        _validate_session(target, key, bad)
        _validate_skills_listing(target, key, bad)
        known = TargetSources(read_by[target.name], sources)
        for problem in worker.validate(target, manifest, known):
            place = f"{key}.{problem.key}" if problem.at_target else problem.key
            bad(place, problem.message, problem.hint)


def _validate_skills_listing(target: Target, key: str, bad: typing.Callable[..., None]) -> None:
    """Names and descriptions in ``<skills>`` stand in for skills the program cannot load."""
    worker = registry.workers()[target.worker]
    skills = worker.skills
    if target.skills_listing and skills is not None:
        folder = skills.folder.format(name="<name>")
        where = f"{worker.home_dir}/{folder}" if skills.in_home else folder
        bad(
            f"{key}.skills_listing",
            f"worker '{target.worker}' ships each skill where its program loads skills ({where}),"
            " which lists them already",
            "remove skills_listing",
        )


def _validate_session(target: Target, key: str, bad: typing.Callable[..., None]) -> None:
    """``cwd`` and ``own_instructions`` are about a program that loads files by itself."""
    worker = registry.workers()[target.worker]
    own = worker.own_files
    if own is None:
        why = (
            "the editor runs where you open the repository and reads its rule files there; hotplex"
            " starts no program for it, so there is no session folder or switch to set"
            if worker.places is not None
            else "its program reads only the files hotplex writes"
        )
        for name in ("cwd", "own_instructions"):
            if getattr(target, name) is not None:  # given, however spelt
                bad(f"{key}.{name}", f"'{name}' does not apply to worker '{target.worker}': {why}")
        return
    cwd = "." if target.cwd is None else target.cwd.replace("\\", "/")
    if not cwd.strip():
        bad(f"{key}.cwd", "an empty cwd names no folder", 'the project itself is cwd = "."')
    elif "\0" in cwd:
        bad(f"{key}.cwd", f"path {target.cwd!r} contains a NUL character")
    elif cwd.startswith("/") or (len(cwd) > 1 and cwd[1] == ":"):
        bad(
            f"{key}.cwd",
            f"absolute path '{target.cwd}' is not allowed",
            "name the session folder relative to the project ('../session'), so launch.json is"
            " the same on every machine",
        )
    if target.own_instructions == "off" and own.switch is None:
        bad(
            f"{key}.own_instructions",
            f"{own.program} has no switch for the instruction files it loads by itself",
            'set cwd = "../session" (a folder outside the project) so it finds none',
        )


def _validate_bot(
    manifest: Manifest, target: Target, key: str, bad: typing.Callable[..., None]
) -> None:
    """A bot folder sits inside a platform folder, so it needs that layout and a platform."""
    if manifest.variants.layout != "directory":
        bad(
            f"{key}.bot",
            "bot overlays live in <platform>/<bot>/ folders",
            'set [variants] layout = "directory"',
        )
    platforms = target.platforms if target.platforms is not None else manifest.variants.platforms
    if not platforms:
        bad(f"{key}.bot", "a bot overlay needs a platform: give the target platforms = [...]")
