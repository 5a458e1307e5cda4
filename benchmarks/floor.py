"""The floor: the least work a correct build of a project can do, as a program of its own.

``benchmarks/run.py`` runs it beside hotplex, interleaved, and reports every hotplex figure as a
ratio to it (issue 26). It does the I/O a build cannot avoid and nothing else, in one process
(whatever ``-j`` hotplex is given), its interpreter start-up included, and writes the real
artifact bytes of a finished hotplex build, which ``run.py`` hands it in one marshal file::

    python benchmarks/floor.py full   ROOT PATHS ARTIFACTS   # read every source once; write
                                                             # every artifact (temp + rename,
                                                             # folders made)
    python benchmarks/floor.py no-op  ROOT PATHS             # stat every source and artifact
    python benchmarks/floor.py change ROOT PATHS ARTIFACTS SOURCE
        # stat every source and artifact, read SOURCE (the changed file), rewrite the artifacts
        # ARTIFACTS holds (those whose bytes the change moves)

PATHS is a marshal file of ``(sources, artifacts)``, two lists of paths relative to ROOT (the
sources include the manifest); ARTIFACTS one of ``[(path, bytes), ...]``. Only ``os`` and
``marshal`` are imported: both are loaded by the interpreter before any program runs.
"""

import marshal
import os
import sys

_CREATE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC


def _load(path):
    with open(path, "rb") as handle:
        return marshal.load(handle)


def _stat_all(root, paths):
    sources, artifacts = _load(paths)
    for rel in sources:
        os.stat(f"{root}/{rel}")
    for rel in artifacts:
        os.stat(f"{root}/{rel}")
    return sources


def _write(root, artifacts):
    """Each artifact by temp file + rename; each folder made once, parents first, before the
    first write into it (one ``mkdir`` per new folder, none for a folder that exists)."""
    known = {root}
    for rel, data in artifacts:
        path = f"{root}/{rel}"
        folder, _, name = path.rpartition("/")
        if folder not in known:
            _make(folder, known)
        temp = f"{folder}/.{name}.tmp"
        fd = os.open(temp, _CREATE, 0o666)
        os.write(fd, data)
        os.close(fd)
        os.rename(temp, path)


def _make(folder, known):
    parent = folder.rpartition("/")[0]
    if parent not in known:
        _make(parent, known)
    known.add(folder)
    try:
        os.mkdir(folder)
    except FileExistsError:  # contextlib is not loaded at start-up: the floor imports nothing
        return


def main(argv):
    mode, root, paths = argv[:3]
    if mode == "full":
        sources, _ = _load(paths)
        for rel in sources:
            with open(f"{root}/{rel}", "rb") as handle:
                handle.read()
        _write(root, _load(argv[3]))
    elif mode == "no-op":
        _stat_all(root, paths)
    elif mode == "change":
        _stat_all(root, paths)
        with open(f"{root}/{argv[4]}", "rb") as handle:
            handle.read()
        _write(root, _load(argv[3]))
    else:
        raise SystemExit(f"unknown mode {mode!r}: full, no-op or change")


if __name__ == "__main__":
    main(sys.argv[1:])
