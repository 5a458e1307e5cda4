"""The dependency graph (networkx): what each artifact is built from.

Nodes are the manifest, every input file (sources, variant candidates that may not exist yet,
includes), each package (with the commit its lock pins; its files hang from it), the values that
shape an artifact (each template variable it reads, limits, the worker profile, the built-in
META-COGNITION) and every artifact file. An edge A -> B reads "B is built from A". The build
itself decides dirtiness per job from its log record; this graph is what ``hotplex graph`` shows
and what is checked for cycles.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import networkx as nx
from hotplex.errors import EXIT_OK, HotplexError
from hotplex.json_writer import json_text

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse


def run(args: argparse.Namespace, root: Path, manifest: Path | None) -> int:
    graph = build_graph(root, manifest)
    print(to_dot(graph) if args.format == "dot" else to_json(graph))
    return EXIT_OK


def build_graph(root: Path, manifest: Path | None) -> nx.DiGraph:
    from hotplex.api import Project
    from hotplex.document.compile import compile_job
    from hotplex.sources.inputs import Inputs

    project = Project.load(root, manifest)
    model = project.model
    graph = nx.DiGraph()
    manifest_node = f"manifest:{model.manifest_display}"
    graph.add_node(manifest_node, kind="manifest")
    for value in ("limits", "metacognition"):
        graph.add_edge(manifest_node, f"value:{value}")
        graph.nodes[f"value:{value}"]["kind"] = "value"
    inputs = Inputs.of(model)[0]
    pinned = inputs.packages
    for package in model.manifest.package if pinned is not None else ():
        node = f"package:{package.name}"
        graph.add_node(node, kind="package", commit=pinned.commits.get(package.name, ""))
        graph.add_edge(manifest_node, node)
    for job in project.jobs():
        compiled = compile_job(model, job, inputs)
        profile = f"worker:{job.target.worker}"
        graph.add_node(profile, kind="worker")
        roles = _roles(model, job)
        for path in compiled.emitted.files:
            node = f"artifact:{path}"
            graph.add_node(node, kind="artifact", target=job.target.name, platform=job.platform)
            graph.add_edge(profile, node)
            for value in ("limits", "metacognition"):
                graph.add_edge(f"value:{value}", node)
            # Only the variables the job's templates read: changing another rebuilds nothing.
            for name in compiled.variables:
                graph.add_node(f"var:{name}", kind="value")
                graph.add_edge(manifest_node, f"var:{name}")
                graph.add_edge(f"var:{name}", node)
            for source, digest in compiled.inputs.items():
                file_node = f"file:{source}"
                graph.add_node(
                    file_node,
                    kind="file",
                    exists=digest is not None,
                    role=roles.get(source, "include"),
                )
                graph.add_edge(file_node, node)
                package = pinned.package_of(source) if pinned is not None else None
                if package is not None:  # a file of a package: read from the lock's commit
                    graph.nodes[file_node]["package"] = package
                    graph.add_edge(f"package:{package}", file_node)
    if not nx.is_directed_acyclic_graph(graph):
        cycle = " → ".join(a for a, _ in nx.find_cycle(graph))
        raise HotplexError.single(f"dependency cycle: {cycle}")
    return graph


def _roles(model: Any, job: Any) -> dict[str, str]:
    from hotplex.sources.resolve import overlay_paths

    roles = {}
    for source in model.sources_of(job.target):
        roles[model.source_path(source.file)] = "source"
        for path in overlay_paths(model, source, job):
            roles[path] = "variant"
    if model.manifest.metacognition.file:
        roles[model.manifest.metacognition.file] = "metacognition"
    return roles


def to_dot(graph: nx.DiGraph) -> str:
    shapes = {
        "artifact": "box",
        "file": "note",
        "value": "ellipse",
        "worker": "component",
        "manifest": "folder",
        "package": "tab",
    }
    lines = ["digraph hotplex {", "  rankdir=LR;"]
    for node in sorted(graph.nodes):
        data = graph.nodes[node]
        style = ', style="dashed"' if data.get("kind") == "file" and not data.get("exists") else ""
        lines.append(f'  "{node}" [shape={shapes.get(data.get("kind"), "ellipse")}{style}];')
    lines.extend(f'  "{a}" -> "{b}";' for a, b in sorted(graph.edges))
    lines.append("}")
    return "\n".join(lines)


def to_json(graph: nx.DiGraph) -> str:
    nodes = [{"id": n, **graph.nodes[n]} for n in sorted(graph.nodes)]
    edges = [{"from": a, "to": b} for a, b in sorted(graph.edges)]
    return json_text({"nodes": nodes, "edges": edges}, indent=2)
