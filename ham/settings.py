"""How a component declares its settings: once, in its ``__init__`` signature.

    class Retriever:
        def __init__(self, corpus, indexes, encoder,
                     k_t: Annotated[int, Range(0), Doc("text units retrieved")] = 15,
                     pool: Annotated[int, Range(1), Doc("fused candidates ranked")] = 100) -> None:

A parameter with an annotation is a setting (its type, default, ``Range`` / ``OneOf`` constraints,
identity class and ``Doc``); a parameter without one, or marked ``Runtime()``, is an object the
builder passes (the corpus, an index, the encoder). Everything else is derived from the signature:
the structured config that types each option at compose time (``ham.conf.schema``), the range
checks (``ham.conf.check``), which keys enter the run id (``ham.run.identity``: hashed unless the
setting is ``Content``, ``Model``, ``PromptRef`` or ``NotResult``, or its name matches an exclusion pattern there),
and the settings reference (docs/options.md, ``python -m ham.conf.reference``). An option file
says only what differs from these defaults.

Plain settings groups that are not instantiated (the dataset, the paths) are dataclasses whose
fields carry the same markers in their metadata (``setting(default, Range(1), Doc(...))``).
This module imports nothing of ham's, so every stage may use it.
"""
from __future__ import annotations

import dataclasses
import inspect
import sys
import typing
from dataclasses import dataclass, field
from typing import Any

from typing_extensions import Doc

REQUIRED = "???"   # OmegaConf's MISSING: a required setting of a settings dataclass

__all__ = ["REQUIRED", "Checked", "Content", "Doc", "Model", "NotResult", "OneOf", "PromptRef", "Range", "Runtime", "Setting", "as_settings", "setting",
           "settings_of"]


@dataclass(frozen=True)
class Range:
    """A number's bounds (inclusive); None: unbounded on that side."""

    min: float | None = None
    max: float | None = None


@dataclass(frozen=True)
class OneOf:
    """The values a setting may take."""

    choices: tuple

    def __init__(self, *choices) -> None:
        object.__setattr__(self, "choices", tuple(choices))


@dataclass(frozen=True)
class Content:
    """A file or folder of inputs: it enters the run id by its content hash, never its location."""


@dataclass(frozen=True)
class Model:
    """A model: a local folder or file enters the run id by its content hash, a hub id or API
    name as written."""


@dataclass(frozen=True)
class PromptRef:
    """A prompt: one shipped with ham by its name as written (its file's stem is its version), a
    ``.txt`` path by its file's content hash, so editing the file changes the run id."""


@dataclass(frozen=True)
class NotResult:
    """A setting that cannot change a run's results (a progress bar, a batch size): left out of
    the run id, and ``why`` says so (the identity tests run it to check)."""

    why: str


@dataclass(frozen=True)
class Runtime:
    """A parameter the builder passes as an object (an index, the encoder), not a setting."""


@dataclass
class Setting:
    name: str
    type: Any                       # the annotation without its markers
    default: Any = dataclasses.MISSING
    range: Range | None = None
    choices: tuple | None = None
    identity: str = "hash"          # hash | content | model | prompt | exclude
    why: str = ""                   # for identity "exclude"
    doc: str = ""

    @property
    def required(self) -> bool:
        return self.default is dataclasses.MISSING or self.default == REQUIRED

    def violation(self, value) -> str | None:
        """Why ``value`` breaks this setting's constraints, or None."""
        if value is None:
            return None
        if self.choices is not None and value not in self.choices:
            return f"must be one of {', '.join(map(str, self.choices))}"
        if self.range is not None and isinstance(value, (int, float)) and not isinstance(value, bool):
            if self.range.min is not None and value < self.range.min:
                return f"must be >= {self.range.min}"
            if self.range.max is not None and value > self.range.max:
                return f"must be <= {self.range.max}"
        return None


def _from_markers(name: str, hint, default) -> Setting | None:
    """A Setting from an annotation (``Annotated[T, markers...]`` or a bare type); None for a
    ``Runtime`` parameter."""
    markers: tuple = ()
    if typing.get_origin(hint) is typing.Annotated:
        hint, *rest = typing.get_args(hint)
        markers = tuple(rest)
    if any(isinstance(m, Runtime) for m in markers):
        return None
    out = Setting(name, hint, default)
    for m in markers:
        if isinstance(m, Range):
            out.range = m
        elif isinstance(m, OneOf):
            out.choices = m.choices
        elif isinstance(m, Content):
            out.identity = "content"
        elif isinstance(m, PromptRef):
            out.identity = "prompt"
        elif isinstance(m, Model):
            out.identity = "model"
        elif isinstance(m, NotResult):
            out.identity, out.why = "exclude", m.why
        elif isinstance(m, Doc):
            out.doc = m.documentation
    return out


def _hint(fn, name: str, annotation):
    """A parameter's annotation evaluated in its module, or None when it names a type the module
    cannot see at run time (imported for type checkers only): such a parameter is an object."""
    if not isinstance(annotation, str):
        return annotation
    module = sys.modules.get(fn.__module__)
    try:
        return eval(annotation, vars(typing) | (vars(module) if module else {}))   # noqa: S307 (annotations)
    except (NameError, AttributeError, TypeError):
        return None


def settings_of(cls) -> dict[str, Setting]:
    """The settings ``cls`` takes, in signature order: its ``__init__``'s annotated parameters, and
    through a ``**kwargs`` those of the first base class that has them (a subclass that adds two
    settings and passes the rest on). A dataclass's fields count as its signature."""
    if dataclasses.is_dataclass(cls):
        hints = typing.get_type_hints(cls)
        return {f.name: _field_setting(f, hints.get(f.name, Any)) for f in dataclasses.fields(cls)
                if f.name != "_target_"}
    out: dict[str, Setting] = {}
    for klass in cls.__mro__:
        init = vars(klass).get("__init__")
        if init is None:
            continue
        params = inspect.signature(init).parameters
        for name, p in params.items():
            if name == "self" or p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) or name in out:
                continue
            hint = None if p.annotation is p.empty else _hint(init, name, p.annotation)
            if hint is None:
                continue   # unannotated (or a type-checking-only type): an object the builder passes
            found = _from_markers(name, hint, p.default if p.default is not p.empty else dataclasses.MISSING)
            if found is not None:
                out[name] = found
        if not any(p.kind is p.VAR_KEYWORD for p in params.values()):
            break
    return out


def setting(default=dataclasses.MISSING, *markers, default_factory=dataclasses.MISSING, doc: Doc | None = None,
            marks: tuple = ()):
    """A dataclass field declared like a signature parameter: ``sample: Optional[int] =
    setting(None, Range(1), Doc("a fixed random subset of this many questions"))``. (Settings
    dataclasses are structured configs too: annotate them ``Optional[X]``, ``List[X]``, which
    OmegaConf reads, and never freeze them: OmegaConf makes a frozen one read-only.)"""
    markers = markers + tuple(marks) + ((doc,) if doc is not None else ())
    kwargs = {"metadata": {"markers": markers}}
    if default_factory is not dataclasses.MISSING:
        kwargs["default_factory"] = default_factory
    elif isinstance(default, type) and dataclasses.is_dataclass(default):
        kwargs["default_factory"] = default
    else:
        kwargs["default"] = default
    return field(**kwargs)


class Checked:
    """A settings dataclass that checks its values against its declarations when built (so the
    Python API refuses what compose refuses)."""

    def __post_init__(self) -> None:
        for name, spec in settings_of(type(self)).items():
            problem = spec.violation(getattr(self, name))
            if problem:
                raise ValueError(f"{type(self).__name__}.{name}={getattr(self, name)!r}: {problem}")


def as_settings(cls, value):
    """A settings dataclass from what a config holds (a mapping, nested ones included), or the
    instance as it is: components take their settings blocks as dataclasses."""
    if value is None or isinstance(value, cls):
        return value
    hints = typing.get_type_hints(cls)
    kwargs = {}
    for f in dataclasses.fields(cls):
        if f.name not in value:
            continue
        inner = value[f.name]
        kind = hints.get(f.name)
        kwargs[f.name] = as_settings(kind, inner) if dataclasses.is_dataclass(kind) else (
            list(inner) if isinstance(inner, (list, tuple)) or type(inner).__name__ == "ListConfig" else inner)
    unknown = set(value) - {f.name for f in dataclasses.fields(cls)}
    if unknown:
        raise ValueError(f"{cls.__name__}: unknown setting(s) {sorted(unknown)}")
    return cls(**kwargs)


def _field_setting(f: dataclasses.Field, hint) -> Setting:
    default = f.default if f.default is not dataclasses.MISSING else (
        f.default_factory() if f.default_factory is not dataclasses.MISSING else dataclasses.MISSING)
    markers = f.metadata.get("markers", ())
    found = _from_markers(f.name, typing.Annotated[(hint, *markers)] if markers else hint, default)
    found.type = hint
    return found
