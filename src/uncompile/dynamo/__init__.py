"""What ``torch.compile`` did, as files: :func:`uncompile.prepare_debug` and :func:`uncompile.debug`.

Supported PyTorch: 2.13.x (CPU and CUDA builds; tested with 2.13.0 CPU on Python 3.11). Every
access to PyTorch internals goes through :mod:`._torch_private` (and its structured-trace part,
:mod:`._torch_private_trace`), which falls back and warns once when an internal is missing.
Importing this package imports neither torch nor anything that changes torch's behaviour.

Modules: :mod:`.dump` (the context manager), :mod:`.capture` and :mod:`.early` (the bytecode
hook), :mod:`.trace` (the structured-trace handler), :mod:`.writer`, :mod:`.graphs`,
:mod:`.full_code`, :mod:`.guards` with :mod:`.guard_runtime`, :mod:`.reasons`,
:mod:`.decompiled`, :mod:`.names`, :mod:`.files`, :mod:`.model` (what ``index.json`` holds) and
:mod:`.registry` (the directories the debugger reads, without keeping the program alive).
"""
