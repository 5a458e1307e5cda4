"""The gateway family: programs a gateway (HotPlex) drives per message or session, sent the agent
configuration as one document, with an agent file per sub-agent the target lists (Claude Code,
OpenCode Server).

For each job a member writes its document, what it adds beside it (``Beside``: Claude Code's
sub-agent document), ``launch.json`` when there is anything to launch with, and the agent files
(``subagents.emit``). A member declares the document's file and bytes, its sub-agent format, the
environment switch that turns its program's own instruction files off, and its argv.
"""

from __future__ import annotations

from typing import ClassVar

from hotplex.document import configuration
from hotplex.manifest.jobs import Job
from hotplex.manifest.model import Model
from hotplex.records import Emitted, Output, Section, SectionSize, Truncation
from hotplex.targets import subagents
from hotplex.values import value
from hotplex.worker import LAUNCH_FILE, launch_json


@value
class Beside:
    """What a member emits beside its document, and what that did."""

    FIELDS = ("files", "argv", "truncations", "documents", "notes", "appended")
    files: dict[str, bytes]
    argv: tuple[str, ...]  # after the document's own arguments
    truncations: tuple[Truncation, ...]
    documents: tuple[tuple[str, tuple[SectionSize, ...]], ...]
    notes: tuple[str, ...]
    # The sections every sub-agent already gets from a document its program appends to each
    # (``subagents.emit``'s ``appended``); None: nothing is appended.
    appended: tuple[str, ...] | None

    def __init__(
        self,
        files: dict[str, bytes] | None = None,
        argv: tuple[str, ...] = (),
        truncations: tuple[Truncation, ...] = (),
        documents: tuple[tuple[str, tuple[SectionSize, ...]], ...] = (),
        notes: tuple[str, ...] = (),
        appended: tuple[str, ...] | None = None,
    ) -> None:
        self.__dict__.update(
            files={} if files is None else files,
            argv=argv,
            truncations=truncations,
            documents=documents,
            notes=notes,
            appended=appended,
        )


class Gateway(subagents.SubagentWorker):
    """A program sent the agent configuration as one document, with files for its sub-agents."""

    document_file: ClassVar[str]  # "prompt.xml", "payload.json"
    beside_outputs: ClassVar[tuple[Output, ...]] = ()  # declared after the document
    # The environment variable that, set to "1", turns the program's own files off.
    switch_env: ClassVar[str | None] = None
    scaffold_default = True
    document = "agent-configuration"

    def __init_subclass__(cls, **kwargs: object) -> None:
        super().__init_subclass__(**kwargs)
        if "document_file" in vars(cls) or "beside_outputs" in vars(cls):  # never by hand
            cls.outputs = (
                Output(cls.document_file, "document", primary=True),
                *cls.beside_outputs,
                Output(LAUNCH_FILE, "launch"),
                Output(subagents.AGENT_FILES, "agent"),
            )

    def document_bytes(self, data: bytes) -> bytes:
        """The document file's bytes, given the document's UTF-8 bytes."""
        return data

    def beside(self, job: Job, sections: list[Section], model: Model) -> Beside:
        return Beside()

    def argv(self, job: Job, model: Model, document: str, beside: Beside) -> list[str] | None:
        """How the program is started with ``document`` (a project-relative path); None: the
        gateway sends the document itself."""
        return None

    def emit(self, job: Job, sections: list[Section], model: Model) -> Emitted:
        document = configuration.build(sections, model)
        beside = self.beside(job, sections, model)
        agents = subagents.emit(job, sections, model, self.format, beside.appended)
        folder = job.out_dir(model)
        path = f"{folder}/{self.document_file}"
        data = self.document_bytes(configuration.utf8(document))
        files = {path: data, **beside.files}
        argv = self.argv(job, model, path, beside)
        env = {self.switch_env: "1"} if self.switch_env and self.switched_off(job.target) else None
        if argv or env or agents.placed or model.session_dir(job.target) != ".":
            launch = launch_json(job, model, argv, env, files=agents.placed)
            files[f"{folder}/{LAUNCH_FILE}"] = launch
        return Emitted(
            files={**files, **agents.files},
            primary=path,
            truncations=(*document.truncations, *beside.truncations, *agents.truncations),
            warnings=agents.warnings,
            sizes=document.sizes,
            documents=(*beside.documents, *agents.sizes),
            notes=(*beside.notes, *agents.notes),
        )
