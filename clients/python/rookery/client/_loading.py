"""Loading a bot class from a ``module:Class`` or ``path/to/file.py:Class`` reference."""

from __future__ import annotations

import importlib
import importlib.util
import sys
from collections.abc import Callable
from pathlib import Path

from ._bot import Bot
from ._errors import BotLoadError

__all__ = ["load_bot"]


def load_bot(reference: str) -> Callable[[], Bot]:
    """The bot factory named by ``reference``: ``package.module:Class`` or ``path/file.py:Class``.

    The attribute may be a ``Bot`` subclass or any callable returning a ``Bot``. A file path is
    loaded as a module of its own (its folder is put on ``sys.path`` so that it may import its
    neighbours).
    """
    target, sep, attribute = reference.rpartition(":")
    if not sep or not target or not attribute:
        raise BotLoadError(
            f"bot reference {reference!r} is not of the form module:Class or path/to/file.py:Class"
        )
    if target.endswith(".py") or "/" in target or "\\" in target:
        module = _load_file(Path(target), reference)
    else:
        try:
            module = importlib.import_module(target)
        except ImportError as error:
            raise BotLoadError(
                f"cannot import module {target!r} of {reference!r}: {error}"
            ) from error
    factory = module
    for part in attribute.split("."):
        try:
            factory = getattr(factory, part)
        except AttributeError:
            raise BotLoadError(f"{target!r} has no attribute {attribute!r}") from None
    if isinstance(factory, type) and not issubclass(factory, Bot):
        raise BotLoadError(f"{reference!r} is a class but not a subclass of rookery.client.Bot")
    if not callable(factory):
        raise BotLoadError(f"{reference!r} is neither a Bot subclass nor a callable")
    return factory


def _load_file(path: Path, reference: str) -> object:
    if not path.is_file():
        raise BotLoadError(f"no such file {str(path)!r} (from {reference!r})")
    resolved = path.resolve()
    module_name = f"_rookery_bot_{resolved.stem}"
    spec = importlib.util.spec_from_file_location(module_name, resolved)
    if spec is None or spec.loader is None:
        raise BotLoadError(f"cannot load {str(path)!r} as a Python module")
    module = importlib.util.module_from_spec(spec)
    sys.path.insert(0, str(resolved.parent))
    sys.modules[module_name] = module
    try:
        spec.loader.exec_module(module)
    except Exception as error:
        del sys.modules[module_name]
        raise BotLoadError(
            f"importing {str(path)!r} raised {type(error).__name__}: {error}"
        ) from error
    return module
