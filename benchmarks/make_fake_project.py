"""Generate large, realistic hotplex projects for benchmarks: seeded, byte-for-byte deterministic.

Two kinds. ``fleet`` (``make_fleet``) is the project of issue 26, the one the budgets against the
floor are for: the five HotPlex sources with no templates, a SOUL variant for each of 9 platforms,
and as many claude-code as opencode-server targets, each built for the base and the 9 platforms
(1,000 sets from 50 targets of each worker: 2,000 files today, where issue 26 counted 1,500;
scaled by the target count for other sizes). Nearly every job shares its sections with a
hundred others.

``bots`` (``make``): per-bot variables in SOUL.md, so its sections differ per bot. Shape:
bots × platforms × workers. Every bot gets one target per worker (claude-code and
opencode-server) with its own ``vars``; every target builds one artifact set per platform (no base
set), so the project has exactly ``bots * platforms * 2`` artifact sets. The five HotPlex sources
are shared, use templates (the bot's vars, a platform branch) and include a shared fragment;
SOUL has a variant for every platform and AGENTS for every other one, so changing one variant file
touches exactly the artifact sets of its platform. Usage::

    python benchmarks/make_fake_project.py OUT_DIR --artifacts 1000 [--kind fleet|bots] [--seed 7]

``--artifacts`` is rounded to a multiple of ``2 * platforms`` (10 platforms from 20 artifacts up).
"""

from __future__ import annotations

import argparse
import random
from dataclasses import dataclass
from pathlib import Path

WORKERS = ("claude-code", "opencode-server")
MAX_PLATFORMS = 10
_WORDS = (
    "agent review deploy cluster latency budget incident rollback schema migration cache token",
    "prompt context channel thread reply summary escalate handoff policy audit secret rotate",
    "staging canary feature flag metric alert oncall runbook ticket backlog sprint release",
)
_VOCABULARY = " ".join(_WORDS).split()


@dataclass(frozen=True)
class Shape:
    bots: int
    platforms: tuple[str, ...]

    @property
    def artifacts(self) -> int:
        return self.bots * len(self.platforms) * len(WORKERS)

    @classmethod
    def for_artifacts(cls, artifacts: int) -> Shape:
        count = max(1, min(MAX_PLATFORMS, artifacts // len(WORKERS)))
        platforms = tuple(f"p{i:02d}" for i in range(count))
        return cls(max(1, artifacts // (count * len(WORKERS))), platforms)


def _paragraphs(rng: random.Random, count: int) -> str:
    out = []
    for _ in range(count):
        words = [rng.choice(_VOCABULARY) for _ in range(rng.randint(30, 60))]
        out.append("- " + " ".join(words).capitalize() + ".")
    return "\n".join(out)


def _head(name: str, platforms: tuple[str, ...]) -> list[str]:
    """A manifest's [project] and [variants] tables."""
    listed = ", ".join(f'"{p}"' for p in platforms)
    return [
        "[project]",
        f'name = "{name}"',
        'sources = "agent-configs"',
        'out = "dist"',
        "",
        "[variants]",
        f"platforms = [{listed}]",
        'mode = "append"',
    ]


def _manifest(shape: Shape) -> str:
    lines = [
        *_head("fake-fleet", shape.platforms),
        "",
        "[vars]",
        'company = "Acme"',
        'language = "English"',
    ]
    for bot in range(shape.bots):
        for worker in WORKERS:
            lines += [
                "",
                "[[target]]",
                f'name = "bot{bot:04d}-{worker}"',
                f'worker = "{worker}"',
                "base = false",
                f'vars = {{ bot_name = "Bot {bot}", team = "team-{bot % 17}" }}',
            ]
    return "\n".join(lines) + "\n"


def _sources(rng: random.Random, shape: Shape) -> dict[str, str]:
    files = {
        "shared/redlines.md": "## Red lines\n" + _paragraphs(rng, 4) + "\n",
        "SOUL.md": (
            "---\nsummary: persona\n---\n"
            "You are {{ bot_name }}, working for {{ company }} with {{ team }}.\n"
            'Answer in {{ language }}{% if platform == "p00" %}, tersely{% endif %}.\n\n'
            + _paragraphs(rng, 6)
            + "\n"
        ),
        "AGENTS.md": _paragraphs(rng, 8) + '\n\n{% include "shared/redlines.md" %}\n',
        "SKILLS.md": _paragraphs(rng, 6) + "\n",
        "USER.md": _paragraphs(rng, 4) + "\n",
        "MEMORY.md": _paragraphs(rng, 5) + "\n",
    }
    for index, platform in enumerate(shape.platforms):
        files[f"SOUL.{platform}.md"] = f"On {platform}:\n" + _paragraphs(rng, 2) + "\n"
        if index % 2 == 0:
            files[f"AGENTS.{platform}.md"] = _paragraphs(rng, 2) + "\n"
    return files


def make(root: Path, artifacts: int, seed: int = 7) -> Shape:
    """Write the project into ``root`` (created) and return its shape."""
    shape = Shape.for_artifacts(artifacts)
    rng = random.Random(seed)
    root.mkdir(parents=True, exist_ok=True)
    (root / "hotplex.toml").write_text(_manifest(shape), encoding="utf-8")
    for rel, text in _sources(rng, shape).items():
        path = root / "agent-configs" / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return shape


FLEET_PLATFORMS = tuple(f"p{i:02d}" for i in range(1, 10))  # 9 platforms, plus the base
FLEET_SOURCES = ("SOUL", "AGENTS", "SKILLS", "USER", "MEMORY")
FLEET_CHANGED_VARIANT = "agent-configs/SOUL.p01.md"


def fleet_targets(artifacts: int) -> int:
    """Targets of each worker for about ``artifacts`` sets (each target makes 10)."""
    return max(1, artifacts // (len(WORKERS) * (1 + len(FLEET_PLATFORMS))))


def make_fleet(root: Path, artifacts: int, seed: int = 7) -> int:
    """Write issue 26's project into ``root`` (created); return its number of artifact sets."""
    per_worker = fleet_targets(artifacts)
    rng = random.Random(seed)
    lines = _head("fleet", FLEET_PLATFORMS)
    for worker in WORKERS:
        for n in range(per_worker):
            lines += ["", "[[target]]", f'name = "{worker}-{n:04d}"', f'worker = "{worker}"']
    root.mkdir(parents=True, exist_ok=True)
    (root / "hotplex.toml").write_text("\n".join(lines) + "\n", encoding="utf-8")
    sources = root / "agent-configs"
    sources.mkdir(exist_ok=True)
    for name, paragraphs in zip(FLEET_SOURCES, (6, 8, 6, 4, 5), strict=True):
        text = f"# {name.title()}\n\n" + _paragraphs(rng, paragraphs) + "\n"
        (sources / f"{name}.md").write_text(text, encoding="utf-8")
    for platform in FLEET_PLATFORMS:
        text = f"On {platform}:\n" + _paragraphs(rng, 2) + "\n"
        (sources / f"SOUL.{platform}.md").write_text(text, encoding="utf-8")
    return per_worker * len(WORKERS) * (1 + len(FLEET_PLATFORMS))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--artifacts", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--kind", choices=("fleet", "bots"), default="bots")
    args = parser.parse_args()
    if args.kind == "fleet":
        sets = make_fleet(args.out, args.artifacts, args.seed)
        print(f"{args.out}: {sets} artifact sets (issue 26's project)")
        return
    shape = make(args.out, args.artifacts, args.seed)
    print(
        f"{args.out}: {shape.artifacts} artifact sets "
        f"({shape.bots} bots × {len(shape.platforms)} platforms × {len(WORKERS)} workers)"
    )


if __name__ == "__main__":
    main()
