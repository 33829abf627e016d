"""Human-readable views of a dump's index: ``index.md`` (:mod:`.markdown`) and ``index.html`` (:mod:`.html`).

Both render the plain-dict form of :class:`uncompile.dynamo.model.DumpIndex` (what
``index.json`` holds), with the wording they share in :mod:`.wording`, and import nothing
from torch.
"""
