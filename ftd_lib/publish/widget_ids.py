"""The saved ipywidgets models of a notebook renamed deterministically, so that re-executing an
unchanged notebook changes no byte of it.

A notebook saved with its widget state (``metadata.widgets``, ``application/vnd.jupyter.widget-
state+json``) names every model by a random 32-hex ``model_id``: the outputs' ``widget-view+json``
bundles name their root model, and the models name each other as ``"IPY_MODEL_<id>"`` (children,
layout, style). Every run draws new ids, so a one-word edit of a notebook with an explorer gave
hundreds of changed lines. :func:`normalise` renames each model after where it is reached from:
the cell (its nbformat ``id``) and output whose view shows it, then the path of traits that leads
to it (``children[2]`` / ``layout``), hashed to 32 hex digits; a model no view reaches (an orphan)
is named after its own content. The names depend on nothing a fresh run draws, so the same
notebook gives the same ids, and an edit renames only the models of the cells it touches.

``python scripts/refresh_notebooks.py`` calls it on every notebook it writes.
"""

from __future__ import annotations

import hashlib
import json
import re

STATE = "application/vnd.jupyter.widget-state+json"
VIEW = "application/vnd.jupyter.widget-view+json"
REF = "IPY_MODEL_"
_HEX = re.compile(r"[0-9a-f]{32}")


def _name(anchor: str) -> str:
    return hashlib.sha1(anchor.encode("utf-8")).hexdigest()[:32]


def _refs(value, path: str = ""):
    """``(path, model id)`` of every ``"IPY_MODEL_<id>"`` in a model's state, in key order."""
    if isinstance(value, str):
        if value.startswith(REF):
            yield path, value[len(REF):]
    elif isinstance(value, dict):
        for k in sorted(value):
            yield from _refs(value[k], f"{path}.{k}" if path else k)
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _refs(v, f"{path}[{i}]")


def _roots(nb) -> list:
    """``(anchor, model id)`` of every widget view in the outputs, in the notebook's order."""
    out = []
    for i, cell in enumerate(nb.get("cells", [])):
        for j, o in enumerate(cell.get("outputs", []) or []):
            view = (o.get("data") or {}).get(VIEW)
            if isinstance(view, dict) and "model_id" in view:
                out.append((f"{cell.get('id', i)}/{j}", view["model_id"]))
    return out


def mapping(nb) -> dict:
    """``{old model id: new model id}`` for every model the notebook names (its saved state and
    its views' ``model_id``)."""
    state = ((nb.get("metadata") or {}).get("widgets") or {}).get(STATE, {}).get("state", {})
    new: dict = {}
    taken: set = set()

    def visit(anchor: str, mid: str) -> None:
        stack = [(anchor, mid)]
        while stack:
            anchor, mid = stack.pop()
            if mid in new:
                continue
            name, k = _name(anchor), 0
            while name in taken:  # two anchors hashing alike: practically never
                k += 1
                name = _name(f"{anchor}#{k}")
            new[mid] = name
            taken.add(name)
            model = state.get(mid, {})
            children = list(_refs(model.get("state", {})))
            stack.extend((f"{anchor}/{p}", c) for p, c in reversed(children))

    def content(mid: str) -> str:  # the model, its references to unnamed models blanked
        return re.sub(REF + r"([0-9a-f]{32})", lambda r: REF + new.get(r.group(1), "?"),
                      json.dumps(state[mid], sort_keys=True))

    for anchor, mid in _roots(nb):
        visit(anchor, mid)
    while len(new) < len(set(state) | set(new)):
        left = sorted((content(m), m) for m in state if m not in new)
        seen: dict = {}
        for text, mid in left:
            if mid not in new:
                seen[text] = seen.get(text, -1) + 1
                visit(f"orphan/{hashlib.sha1(text.encode()).hexdigest()}/{seen[text]}", mid)
    return new


def _rename(value, names: dict):
    if isinstance(value, str):
        return _HEX.sub(lambda m: names.get(m.group(0), m.group(0)), value)
    if isinstance(value, list):
        return [_rename(v, names) for v in value]
    if isinstance(value, dict):
        return type(value)((_rename(k, names), _rename(v, names)) for k, v in value.items())
    return value


def normalise(nb) -> int:
    """Rename the widget models of ``nb`` (an nbformat notebook, changed in place) by
    :func:`mapping`: the saved state's keys, every ``IPY_MODEL_`` reference and every view's
    ``model_id``. Returns the number of ids that changed (0: already in this form)."""
    names = {old: n for old, n in mapping(nb).items() if old != n}
    if not names:
        return 0
    widgets = nb.get("metadata", {}).get("widgets")
    if widgets is not None:
        nb["metadata"]["widgets"] = _rename(widgets, names)
    for cell in nb.get("cells", []):
        if cell.get("outputs"):
            cell["outputs"] = _rename(cell["outputs"], names)
    return len(names)
