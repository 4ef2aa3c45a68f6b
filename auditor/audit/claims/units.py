"""Units: a reply cut into sentences and clauses, markdown removed, code masked for cues."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from auditor.audit.words import tokens
from auditor.rules_loader import CuePack

if TYPE_CHECKING:  # a unit's reading is filled in by the polarity stage
    from auditor.audit.claims.polarity import Reading

_FENCE = re.compile(r"```.*?(?:```|$)", re.S)


_CODE_SPAN = re.compile(r"`([^`\n]+)`")


RECORD_ID = r"\b[A-Za-z]+[-_#]?\d{2,}[\w-]*"  # a record's id: INV-2291, PR-88; not S3 or 3rd


# A record's id and then its title, in brackets or quotes ("LIN-311 (Crash when rotating …)"):
# the title names the record, its words are no cue ("crash" reports nothing, "refund" is no verb).
_TITLE_AFTER_ID = re.compile(
    rf"((?:{RECORD_ID}|#\d{{2,}}\w*):?\s*)(?:\([^()]*\)|[\"“«][^\"”»]*[\"”»])"
)


_MAY_TITLE = re.compile(r"[(\"“«]")  # what a title after an id must open with


_MAY_EMPHASISE = re.compile(r"[*_~]")  # what emphasis is written with


_EMPHASIS = re.compile(r"\*\*|__|~~|(?<!\w)\*(?=\S)|(?<=\S)\*(?!\w)")


_LIST_MARK = re.compile(r"^\s*(?:[-*•+▪◦]|\d{1,3}[.)])\s+")


_HEADING = re.compile(r"^\s*(?:#{1,6}\s+|>\s*)")


_TITLE = re.compile(r"^\s*#{1,6}\s+")


_ALL_BOLD = re.compile(r"^\s*(?:\*\*|__)[^*_]{1,80}(?:\*\*|__)\s*:?\s*$")


_TABLE_RULE = re.compile(r"^\s*\|?\s*:?-{2,}")


# A full stop after a day number ("am 1. April", "op 3. mei") is an ordinal, not a sentence end.
# Without a space after it, a full stop ends a sentence only before a word ("Done.Next"): in a
# key ("SG.Xy1…", a JWT) it does not, and a key cut in two is a key no redaction pattern knows.
# In chat an emoji often stands where the full stop would ("Done ✅ Your ticket is updated"):
# after text, before a capital, it ends the sentence.
_SENTENCE_END = re.compile(
    r"(?<=[.!?])(?<![\s(]\d\.)(?<![\s(]\d\d\.)[\"”’)\]]*\s+"
    r"|(?<=[.!?])(?=[A-ZÀ-Ý¿¡][^\W\d_]*(?![\w-]))|(?<=…)\s+(?=[A-ZÀ-Ý¿¡])"
    r"|(?<=[\w.!?,)]\s[\u2600-\u27bf\U0001f300-\U0001faff])\s+(?=[A-ZÀ-Ý¿¡])"
    r"|(?<=[\w.!?,)]\s[\u2600-\u27bf\U0001f300-\U0001faff]\ufe0f)\s+(?=[A-ZÀ-Ý¿¡])"
)


# Titles and abbreviations a full stop does not end a sentence after ("Dr. Osei", "Nr. 12").
_ABBREVIATIONS = frozenset(
    [
        "dr",
        "mr",
        "mrs",
        "ms",
        "prof",
        "st",
        "nr",
        "hr",
        "fr",
        "dott",
        "sig",
        "sr",
        "sra",
        "dra",
        "mme",
        "mlle",
        "dhr",
        "mevr",
        "jr",
        "capt",
        "lt",
        "sgt",
    ]
)


def _sentences(text: str, stopwords: frozenset[str]) -> list[str]:
    """The sentences of one line: split at sentence ends, but not after a title ("Dr.") nor
    after a name's initial ("to J. Moss"; "Option B. It's cheaper" still ends on the B)."""
    sentences: list[str] = []
    for piece in _SENTENCE_END.split(text):
        if sentences and _ends_on_title(sentences[-1], piece, stopwords):
            sentences[-1] = f"{sentences[-1]} {piece}"
        else:
            sentences.append(piece)
    return sentences


def _ends_on_title(sentence: str, after: str, stopwords: frozenset[str]) -> bool:
    last = sentence[:-1].rsplit(None, 1)[-1:] if sentence.endswith(".") else []
    if not last:
        return False
    if last[0].lower() in _ABBREVIATIONS:
        return True
    following = after.split(None, 1)[:1]
    return (
        len(last[0]) == 1
        and last[0].isupper()
        and bool(following)
        and following[0][:1].isupper()
        and following[0].strip(".,;:!?").lower() not in stopwords
    )


UNIT_CHARS = 2000  # the longest sentence read for cues (a 1 MB run-on reply is cut)


@dataclass
class Unit:
    """One sentence or clause of a reply."""

    text: str  # as shown to the person (markdown removed)
    cue_text: str  # the same with code masked, for cue matching
    position: int
    paragraph: int
    sentence: int
    clause: int
    contrast: bool = False
    concession: bool = False
    heading: bool = False  # a markdown heading or a line that is all bold: a title, not a claim
    table_row: bool = False  # a row of a markdown table: data shown, its cells name records
    listed_under: str = ""  # for a list item: the line that introduced the list ("Options:")
    introduces: bool = False  # ends a line with a colon, and a list or table follows it
    tokens: frozenset[str] = frozenset()
    calls: set[int] = field(default_factory=set)
    direct: bool = False  # tied to its calls by its own words
    reading: Reading | None = None  # its cue matches, filled in when first needed


def split_units(text: str, position: int, paragraph_base: int, pack: CuePack) -> list[Unit]:
    """Sentences and clauses of one assistant text, markdown removed."""
    units: list[Unit] = []
    if "```" in text:  # each pattern below is tried only on a line that holds its marks
        text = _FENCE.sub("\n", text)  # a fenced block is data shown, not a sentence
    sentence_index = 0
    intro = ""  # the last line before a list that ends with a colon
    for paragraph, line in enumerate(text.splitlines()):
        if not line.strip() or _TABLE_RULE.match(line):
            continue
        item = bool(_LIST_MARK.match(line))
        if not item:
            intro = line if line.rstrip().endswith((":", "?")) else ""
        line = _LIST_MARK.sub("", line)
        heading = bool(_TITLE.match(line)) or bool(_ALL_BOLD.match(line))
        line = _HEADING.sub("", line)
        table_row = line.count("|") >= 2
        if (item or table_row) and units and units[-1].text.endswith(":"):
            units[-1].introduces = True  # "Here's your schedule:" shows what follows
        if table_row:
            line = " — ".join(cell.strip() for cell in line.strip().strip("|").split("|"))
        shown = _EMPHASIS.sub("", line) if _MAY_EMPHASISE.search(line) else line
        for sentence in _sentences(shown, pack.stopwords):
            if not sentence.strip():
                continue
            pieces = _clauses(sentence, pack)
            for clause_index, (clause, is_contrast, is_concession) in enumerate(pieces):
                clause = clause[:UNIT_CHARS]  # no sentence is this long; cues stay cheap
                coded = "`" in clause
                masked = _CODE_SPAN.sub(" ", clause) if coded else clause
                if _MAY_TITLE.search(masked):
                    masked = _TITLE_AFTER_ID.sub(r"\1 ", masked)
                plain = (_CODE_SPAN.sub(r"\1", clause) if coded else clause).strip()
                units.append(
                    Unit(
                        text=plain,
                        cue_text=masked,
                        position=position,
                        paragraph=paragraph_base + paragraph,
                        sentence=sentence_index,
                        clause=clause_index,
                        contrast=is_contrast,
                        concession=is_concession,
                        heading=heading,
                        table_row=table_row,
                        listed_under=intro if item else "",
                        tokens=frozenset(tokens(plain, pack.stopwords)),
                    )
                )
            sentence_index += 1
    return units


def _clauses(sentence: str, pack: CuePack) -> list[tuple[str, bool, bool]]:
    """(clause, follows a contrast word, is a concession) for each clause of a sentence."""
    # the cues that may match the sentence (of_kind), in pack order: the others find nothing
    contrast = pack.of_kind("contrast", sentence)
    boundary = pack.of_kind("clause", sentence)
    cuts = {0: _starts_with(sentence, contrast)}
    for cue in contrast:
        for match in cue.finditer(sentence):
            if match.start() > 0:
                cuts[match.start()] = True
    for cue in boundary:
        for match in cue.finditer(sentence):
            if match.start() > 0:
                cuts.setdefault(match.start(), False)
    starts = sorted(cuts)
    out: list[tuple[str, bool, bool]] = []
    for start, end in zip(starts, [*starts[1:], len(sentence)], strict=True):
        piece = sentence[start:end].strip(" ,;—–")
        if not piece.strip(" ,;:—–-"):
            continue
        is_contrast = cuts[start]
        match = next(
            (m for cue in pack.of_kind("concession", piece) for m in [cue.search(piece)] if m), None
        )
        if match is None:
            out.append((piece, is_contrast, False))
            continue
        before, rest = piece[: match.start()].strip(" ,;—–"), piece[match.start() :]
        if before:
            out.append((before, is_contrast, False))
            out.append((rest, False, True))
        else:
            head, _, tail = rest.partition(",")
            out.append((head, is_contrast, True))
            if tail.strip():
                out.append((tail.strip(), False, False))
    return out or [(sentence, False, False)]


def _starts_with(piece: str, cues: Sequence) -> bool:
    for cue in cues:
        match = cue.search(piece)
        if match and not piece[: match.start()].strip(" ,;:—–-*"):
            return True
    return False
