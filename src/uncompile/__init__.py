"""uncompile: readable Python source from bytecode, and a window into ``torch.compile``.

The public API is this module; everything else is an implementation detail.

* :func:`decompile` turns a function, code object, ``.py``/``.pyc`` path or
  ``module:qualname`` into Python source (``verify=True`` also checks the result);
* :func:`recompile` compiles that source back into an equivalent code object;
* :func:`prepare_debug` dumps what ``torch.compile`` did into a directory;
* :func:`debug` lets pdb or an IDE stop in the dumped files.

``import uncompile as depyf`` works for code written for depyf. Importing this module
imports neither torch nor anything that changes torch's behaviour.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ContextManager, Union

from ._version import __version__
from .errors import DecompileError, InputError, PycError, RecompileError, UncompileError

if TYPE_CHECKING:
    from types import CodeType

    from .verification import Verification

__all__ = [
    "__version__",
    "decompile",
    "recompile",
    "verify",
    "prepare_debug",
    "debug",
    "DecompileError",
    "InputError",
    "PycError",
    "RecompileError",
    "UncompileError",
]


def decompile(obj: Any, *, verify: bool = False) -> "Union[str, Verification]":
    """Return Python source for *obj*.

    *obj* may be a function, method, code object (function, lambda, generator,
    coroutine, class body, module), or a path to a ``.py``/``.pyc`` file. A live function
    also brings its parameter defaults and annotations, which its code does not hold. With
    ``verify=True`` the result is a :class:`~uncompile.verification.Verification` that also
    says whether the source recompiles to identical bytecode.
    """
    from .loading import function_of, load_code

    code = load_code(obj)
    if verify:
        from .verification import verify_code

        return verify_code(code)
    from .decompiler import decompile_code, decompile_function

    function = function_of(obj)
    if function is not None and function.__code__ is code:
        return decompile_function(function)
    return decompile_code(code)


def verify(obj: Any) -> "Verification":
    """Decompile *obj*, recompile the source and compare the bytecode."""
    from .loading import load_code
    from .verification import verify_code

    return verify_code(load_code(obj))


def recompile(code: "CodeType") -> "CodeType":
    """Compile the decompiled source of *code* into a code object laid out like *code*.

    ``func.__code__ = uncompile.recompile(func.__code__)`` works, closures and
    ``super()`` included; constants with no source form are bound back to the real objects.
    """
    from .verification.recompile import recompile as _recompile

    return _recompile(code)


def prepare_debug(
    dump_src_dir: Any = None, clean_wild_fx_code: bool = True, log_bytecode: bool = False, **kwargs: Any
) -> ContextManager[Any]:
    """Context manager: dump everything ``torch.compile`` does inside it into *dump_src_dir*."""
    from .dynamo.dump import prepare_debug as _prepare_debug

    return _prepare_debug(
        dump_src_dir, clean_wild_fx_code=clean_wild_fx_code, log_bytecode=log_bytecode, **kwargs
    )


def debug(**kwargs: Any) -> ContextManager[Any]:
    """Context manager: breakpoints set in the files that :func:`prepare_debug` wrote are hit."""
    from .dynamo.debugger import debug as _debug

    return _debug(**kwargs)
