"""What a reader module offers: the ``Reader`` protocol every format module satisfies, and the
scale its detection scores are on."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from auditor.readers.lines import Span
from auditor.readers.result import ReadResult
from auditor.readers.sampling import Sample

# Detection scores, on one scale for every reader: a format's own structure is sure evidence;
# its markers in the sample, when the structure lies beyond it, are likely evidence. Readers
# that score records one by one (``looks_like``) stay well below.
SURE = 100
LIKELY = 80


@runtime_checkable
class Reader(Protocol):
    """A reader of one transcript format (a module of ``auditor.readers``).

    It recognises its format by ``sniff(sample)``, how strongly the start of a file looks like
    it (0: not at all), or, when ``sniff`` is None, by ``looks_like(record)`` summed over the
    sample's records. A module without one of them declares it None.
    """

    NAME: str
    DESCRIPTION: str
    # True: one conversation per line, and ``read`` takes a span (see ``SpanReader``).
    READS_SPANS: bool

    # Read-only members, so that a module's function (or None) satisfies them.
    @property
    def sniff(self) -> Callable[[Sample], int] | None: ...

    @property
    def looks_like(self) -> Callable[[Any], int] | None: ...

    def read(self, path: Path, source: str, /) -> ReadResult:
        """Conversations and rejects of a whole file."""
        ...


class SpanReader(Reader, Protocol):
    """A reader of one-conversation-per-line files, which reads a large file in parts."""

    def read(self, path: Path, source: str, span: Span | None = None, /) -> ReadResult:
        """Conversations and rejects of a whole file, or of the lines of one ``span``."""
        ...
