"""Fast constructors of frozen dataclasses, for the hot paths that build many of them."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import fields
from typing import Any, TypeVar

__all__ = ["positional_builder"]

_T = TypeVar("_T")


def positional_builder(cls: type[_T]) -> Callable[..., _T]:
    """A constructor of the frozen, slotted, unvalidated dataclass ``cls`` from every field's
    value in order: the same object as ``cls(*values)``, built in about half the time.

    A frozen dataclass's ``__init__`` stores each field through ``object.__setattr__`` by name;
    this stores it through the slot's own descriptor. The function is generated, as dataclasses
    generates ``__init__``, so that it follows the class's fields.
    """
    names = [field.name for field in fields(cls)]  # type: ignore[arg-type]
    namespace: dict[str, Any] = {"_new": object.__new__, "_cls": cls}
    lines = [f"def build({', '.join(names)}):", "    self = _new(_cls)"]
    for index, name in enumerate(names):
        namespace[f"_set{index}"] = getattr(cls, name).__set__
        lines.append(f"    _set{index}(self, {name})")
    lines.append("    return self")
    exec("\n".join(lines), namespace)  # the class's own field names only
    build: Callable[..., _T] = namespace["build"]
    build.__name__ = build.__qualname__ = f"new_{cls.__name__.lower()}"
    build.__doc__ = f"``{cls.__name__}(*values)``, faster: the hot paths' constructor."
    return build
