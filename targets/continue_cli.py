"""Continue CLI: the document as a global rule, ``rules/hotplex.md`` of the folder
``CONTINUE_GLOBAL_DIR`` names.

What Continue CLI 1.5.47 does (checked with the real ``cn -p`` against a fake Chat Completions API,
see tests/integration/test_continue_cli.py): the system message is Continue's own base prompt
("You are an agent in the Continue CLI. …"), which stays, its ``<context name="gitStatus">`` and
``<context name="commitSignature">`` blocks and the headless note, then, at its very end,
``<context name="userRules">``, a line feed, the rules joined by blank lines, ``\\n</context>``.
The rules are, in this order: the first of AGENTS.md, AGENT.md, CLAUDE.md, CODEX.md in the working
folder; the gateway's ``rules:`` of its config.yaml; every ``.md`` (in subfolders too) of
``.continue/rules/`` in the working folder, then of ``$CONTINUE_GLOBAL_DIR/rules``: the document,
the last of them. ``--rule FILE`` is never used: Continue sends that file twice.

A rule file is read the way Continue reads frontmatter: CR LF becomes LF, the text is split at
every line that is ``---`` and blanks, the part between the first two is YAML, and the rest,
rejoined by ``---`` and trimmed, is the rule. So a document holding two ``---`` lines (two
Markdown rules) would lose everything before the second one. The home file therefore starts with
hotplex's own frontmatter (``alwaysApply: true``), and the artifact is built as Continue will
send it: CR LF as LF, the blanks after a ``---`` line up to the last line end before the next text
dropped, the whole trimmed; ``prompt.xml`` is exactly the text inside ``userRules``.
``<context>`` is Continue's wrapper, so it is reserved like the document's own tags.

Delivery: ``launch.json`` points ``CONTINUE_GLOBAL_DIR`` at ``continue-home``. Continue writes its
sessions, logs and ``permissions.yaml`` there and reads its ``config.yaml`` from there when no
``--config`` names one, so a gateway copies the folder per session and brings its provider.

What it loads by itself: that AGENTS.md (or the first of the others) and ``.continue/rules/``, of
its working folder only, raw, before the document. No setting turns them off (the code reads them
unconditionally): ``build`` warns where a compiled source sits there, and ``cwd`` is the way out.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass

from hotplex.generated import attrs
from hotplex.manifest.jobs import Job
from hotplex.manifest.model import Model
from hotplex.records import Emitted, Section, Skill
from hotplex.targets.home import JS_WHITESPACE, HomeDocument, Sent, Transform
from hotplex.worker import OwnFiles, SkillsPlace, Verified, skill_rivals

RULE = "hotplex"
# Continue takes the part between the first two '---' lines for YAML: this file's own.
FRONTMATTER = "---\nalwaysApply: true\n---\n"
AGENT_FILES = ("AGENTS.md", "AGENT.md", "CLAUDE.md", "CODEX.md")  # the first found, in its folder
RULES = ".continue/rules/**/*.md"
OWN_FILES = OwnFiles(
    program="Continue",
    names=(*AGENT_FILES, RULES),
    first_of=AGENT_FILES,
    home=(
        "$CONTINUE_GLOBAL_DIR/rules (the continue-home folder hotplex writes: the document) and the"
        " rules: of the gateway's config.yaml"
    ),
    above=False,
    rivals=skill_rivals("Continue", (".continue/skills", ".claude/skills")),
)
# Continue CLI 1.5.47 lists the skills of its working folder's .continue/skills and
# .claude/skills and of $CONTINUE_GLOBAL_DIR/skills in the description of its Skills tool, each
# as "\nname: <name>\ndescription: <description>\n", the entries joined by commas; the Skills tool
# sends a body as <skill_content>…</skill_content>, read as a rule file is (split at its '---'
# lines, trimmed) (tests/integration/test_skills_headless.py).
SKILLS = SkillsPlace("skills/{name}", in_home=True)
# JavaScript's /^---\s*$/m: a line end is LF, CR, U+2028 or U+2029; \s is what trim removes.
_LINE_ENDS = "\n\r\u2028\u2029"
# Continue turns CR LF into LF once: "\r\r\n" would become "\r\n", and that LF on the next read.
_CR_LF = re.compile("(\r+)\n")
_DASH_LINE = re.compile(
    rf"(?<![^{_LINE_ENDS}])---([{re.escape(JS_WHITESPACE)}]*)(?=[{_LINE_ENDS}]|\Z)"
)


@dataclass(frozen=True)
class _Cuts:
    """Spans deleted from a text, sorted: where an offset of the text lands in what is left."""

    starts: tuple[int, ...]
    ends: tuple[int, ...]
    before: tuple[int, ...]  # characters deleted before each span

    def __call__(self, at: int) -> int:
        i = bisect.bisect_right(self.starts, at) - 1
        if i < 0:
            return at
        return at - self.before[i] - (min(at, self.ends[i]) - self.starts[i])


def _cut(text: str, spans: list[tuple[int, int]]) -> tuple[str, _Cuts]:
    """``text`` without ``spans`` (sorted, apart), and where its offsets went."""
    spans = [(a, b) for a, b in spans if b > a]
    kept, before, last = [], [], 0
    for a, b in spans:
        kept.append(text[last:a])
        before.append(a - sum(map(len, kept)))
        last = b
    kept.append(text[last:])
    starts, ends = tuple(a for a, _ in spans), tuple(b for _, b in spans)
    return "".join(kept), _Cuts(starts, ends, tuple(before))


def as_sent(document: str) -> Sent:
    """``document`` as Continue sends a rule file holding it after hotplex's frontmatter."""
    lf, crlf = _cut(document, [m.span(1) for m in _CR_LF.finditer(document)])
    dashes = [m.span(1) for m in _DASH_LINE.finditer(lf)]
    rejoined, dash = _cut(lf, dashes)
    text = rejoined.strip(JS_WHITESPACE)
    lead = len(rejoined) - len(rejoined.lstrip(JS_WHITESPACE))
    return Sent(text, position=lambda at: min(max(dash(crlf(at)) - lead, 0), len(text)))


class ContinueCli(HomeDocument):
    name = "continue-cli"
    delivery = (
        "`CONTINUE_GLOBAL_DIR=dist/continue/slack/continue-home cn`: the global rule `hotplex`, "
        'the end of the **system** message in `<context name="userRules">`, after Continue\'s '
        "base prompt; each Agent Skill's folder in `continue-home/skills/`"
    )
    verified = Verified("Continue CLI", "1.5.47", "tests/integration/test_continue_cli.py")
    program = "cn"
    home_variable = "CONTINUE_GLOBAL_DIR"
    home_dir = "continue-home"
    home_file = f"rules/{RULE}.md"
    also_reserved = frozenset({"context"})
    transform = Transform(as_sent)
    gateway_adds = (
        "the provider and model: a config.yaml with its models (provider, model, apiBase,"
        " apiKey) in the copy of continue-home, or named by --config; no --rule, which Continue"
        " sends twice"
    )
    init_target = (
        "continue",
        "prompt.xml as continue-home/rules/hotplex.md, a global Continue rule",
    )
    own_files = OWN_FILES
    skills = SKILLS
    imports_read = frozenset({"agents", "continue"})
    import_formats = ("hotplex.importing.agents", "hotplex.importing.continue_rules")

    def emit_shipping(
        self, job: Job, sections: list[Section], skills: tuple[Skill, ...], model: Model
    ) -> Emitted:
        """The home, and a warning naming each skill whose body Continue sends otherwise than
        written: its Skills tool reads SKILL.md as a rule file (``as_sent``)."""
        emitted = super().emit_shipping(job, sections, skills, model)
        changed = [s.name for s in skills if _body_changed(s)]
        if not changed:
            return emitted
        warning = (
            f"Continue sends the body of the skills {', '.join(changed)} as it reads a rule file:"
            " CR LF as LF, the blanks after each '---' line dropped, trimmed (write '***' for a"
            " rule line)"
        )
        return attrs.evolve(emitted, warnings=(*emitted.warnings, warning))

    def home_bytes(self, job: Job, model: Model, sent: str) -> bytes:
        """The rule file: hotplex's frontmatter, then the document as sent (Continue makes the
        same of it again, and nothing more)."""
        return (FRONTMATTER + sent).encode("utf-8")


def _body_changed(skill: Skill) -> bool:
    """Whether Continue's Skills tool sends ``skill``'s body (after the frontmatter hotplex
    writes) otherwise than written, beyond trimming it."""
    body = skill.files[0].data.decode("utf-8").split("\n---\n", 1)[1]
    return as_sent(body).text != body.strip(JS_WHITESPACE)
