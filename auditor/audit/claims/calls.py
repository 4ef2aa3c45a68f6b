"""The tool calls a reply may speak of, as the claim reader sees them: their names, arguments,
result data and error, tokenised once."""

from __future__ import annotations

import re
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from functools import cached_property
from itertools import pairwise
from typing import Any

from auditor.audit.words import (
    GROUPED_NUMBER,
    SHORT_TEXT,
    argument_strings,
    data_text,
    first_tokens,
    has_digit,
    is_specific,
    name_words,
    names_a_thing,
    short_tokens,
    stem,
    token_list,
    tokens,
    word_tokens,
)

MAX_RESULT_TOKENS = 400  # result tokens that tie a sentence to its call


MAX_DATA_TOKENS = 1500


ERROR_CHARS = 300  # the part of an error message that states the problem


LONG_VALUE = 200


_LETTERS = re.compile(r"[a-z]+")


DATA_CHARS = 8_000  # how much of a result's data ties sentences to it


NAME_WEIGHT = 1.5


# A word of a command line that names one thing: an app, ref, file or package with a digit or
# a joining mark in it ("wxrp-staging", "v2.3.1", "fly.toml"), not an option or prose.
_COMMAND_OBJECT = re.compile(r"[\w@][\w@]*(?:[-./:][\w@]+)+|[a-z]+\d[\w]*", re.I)


@dataclass
class CallView:
    """What the claim reader needs to know about one tool call."""

    index: int
    name: str
    arguments: Any
    server: str | None
    identity_tool: bool
    ready_at: int  # position after which assistant text is a reply to this call
    position: int = 0  # position of the call itself
    reply_from: float = float("inf")  # the first text after its result starts its reply...
    reply_until: float = float("inf")  # ...the next tool call after that text ends it...
    final_from: float = float("inf")  # ...but the turn's final message speaks of it too
    spoke_between: bool = False  # the assistant wrote about it before its next tool call
    result_values: list[Any] = field(default_factory=list)  # JSON data the call returned
    result_texts: list[str] = field(default_factory=list)  # plain text the call returned
    error_text: str = ""  # error message text of a failed call
    succeeded: bool = False  # outcome ok: failure words about its data describe the data
    failed: bool = False  # the call failed (or returned no identity)
    reads: bool = False  # impact read or identity: it was to fetch information, not act
    probe: bool = False  # a failed read the agent moved past with further calls
    missing: tuple[str, ...] = ()  # fields a partial answer lacks: the sentence to quote
    missing_tokens: frozenset[str] = frozenset()  # the words of those fields' names
    # makes the person's request and the data the conversation showed before, when first needed
    context_of: Callable[[], str] | None = None
    keywords: dict[str, float] = field(default_factory=dict)
    error_tokens: frozenset[str] = frozenset()  # words of its error that name the problem
    error_pairs: tuple[tuple[frozenset[str], frozenset[str]], ...] = ()  # those, side by side
    name_tokens: frozenset[str] = frozenset()  # the words of the tool's own name
    action_tokens: frozenset[str] = frozenset()  # words of its name, server and arguments
    argument_tokens: frozenset[str] = frozenset()  # specific values it acted on (ids, names)
    specific_tokens: frozenset[str] = frozenset()  # those, and ids and numbers in any argument
    value_tokens: tuple[frozenset[str], ...] = ()  # the specific tokens of each argument value
    data_text: str = ""  # the data it returned, as text (the start of a long answer)
    argument_text: str = ""  # its argument values, as text
    data_tokens: frozenset[str] = frozenset()  # what it returned, less its own arguments
    returned_tokens: frozenset[str] = frozenset()  # everything it returned
    actions: frozenset[str] = frozenset()  # what it did (actions.toml): "send", "book", ...
    command_objects: tuple[str, ...] = ()  # what a command line acts on: its words and values
    command_verbs: tuple[str, ...] = ()  # the programs and subcommands a command line runs
    verb_stems: frozenset[str] = frozenset()  # stems of its name, command line and actions

    def restates_error(self, said: frozenset[str] | set[str]) -> bool:
        """Do the tokens ``said`` hold two words its error used side by side ("not enough
        seats", "maintenance window")? Single shared words ("payment", "within") recur in any
        text about the same subject."""
        return any(first & said and second & said for first, second in self.error_pairs)

    @cached_property
    def quoted_text(self) -> str:
        """Result data, argument values and the request, lower-cased: what a sentence may quote.
        Made only for a sentence that could be quoting (few are)."""
        context = "" if self.context_of is None else self.context_of()
        return GROUPED_NUMBER.sub(
            "", " ".join((self.data_text, self.argument_text, context)).lower()
        )


def prepare_call(
    view: CallView, stopwords: frozenset[str], asked: Collection[str] = frozenset()
) -> None:
    """Fill in the keywords and result data a call is recognised by. ``asked``: the tokens of
    the person's request, whose words in the error name the thing asked about, not the
    problem."""
    weights: dict[str, float] = {}

    def add(found: set[str] | frozenset[str], weight: float) -> None:
        for token in found:
            weights[token] = max(weights.get(token, 0.0), weight)

    name = name_words(view.name)
    server = name_words(view.server or "")
    add(tokens(name, stopwords), NAME_WEIGHT)
    add(tokens(server, stopwords), NAME_WEIGHT)
    view.name_tokens = frozenset(tokens(name, stopwords))
    view.missing_tokens = frozenset(
        tokens(" ".join(name_words(field) for field in view.missing), stopwords)
    )
    values = list(argument_strings(view.arguments, 200))
    # A long value (a file written, a message body) is tokenised once: the tokens of all the
    # values, and of the name and values together, are those lists joined.
    parts = Tokenised(stopwords)
    for text in values:
        # Long values (queries, message bodies) and links point at things; short ones name them.
        add(parts.tokens(text), 0.5 if len(text) > LONG_VALUE or "://" in text else 1.0)
    data = data_text(view.result_values, view.result_texts, DATA_CHARS)
    data_tokens = first_tokens(data, stopwords, MAX_DATA_TOKENS)
    for token in data_tokens[:MAX_RESULT_TOKENS]:
        weights.setdefault(token, 1.0)
    add(tokens(view.error_text, stopwords), 0.5)
    argument_text = " ".join(values)
    said = parts.joined(values)  # the words of its arguments, worked out once
    view.argument_tokens = frozenset(
        t
        for text in values
        if names_a_thing(text)
        for t in tokens(text, stopwords)
        if is_specific(t)
    ) | frozenset(
        # a command's objects as whole words ("wxrp-staging", "v2.3.1"), not their parts
        word.lower()
        for word in (w.removeprefix("./").rstrip("/") for w in view.command_objects)
        if _COMMAND_OBJECT.fullmatch(word) and word.lower() in tokens(word, stopwords)
    )
    # as of f"{name} {server} {argument_text}", which ends on a space when there are no values
    view.action_tokens = parts.joined([name, server, *(values or [""])])
    view.specific_tokens = view.argument_tokens | frozenset(
        # (a word of letters holds no digit: most are passed over without looking at each)
        t
        for t in said
        if len(t) >= 3 and not t.isalpha() and has_digit(t)
    )
    view.verb_stems = frozenset(
        stem(word)
        # its actions too: ``alembic upgrade head`` migrates
        for text in (name, *view.command_verbs, *view.command_objects, *view.actions)
        for word in _LETTERS.findall(text.lower())
        if len(word) >= 4
    )
    view.value_tokens = tuple(
        found
        for found in (view.specific_tokens.intersection(parts.found(text)) for text in values)
        if found
    )
    view.keywords = weights
    # The words an error uses for the problem itself ("not enough seats"), not for the thing it
    # happened to: a reply that says them again is telling the person what went wrong.
    # (the tokens of its words are those of the text: it is tokenised once)
    error_words = word_tokens(view.error_text[:ERROR_CHARS], stopwords)
    view.error_tokens = frozenset(
        token
        for token in set().union(*error_words).difference(said, view.name_tokens, asked)
        if not has_digit(token)
    )
    problem = [found & view.error_tokens for found in error_words if found & view.error_tokens]
    # two different words ("error: API error" says one word twice)
    view.error_pairs = tuple((a, b) for a, b in pairwise(problem) if not a & b)
    view.data_text, view.argument_text = data, argument_text
    view.returned_tokens = frozenset(data_tokens)
    view.data_tokens = view.returned_tokens - said


class Tokenised:
    """``tokens`` of texts and of texts joined by spaces, each long text tokenised once. A word
    never spans a space, so the tokens of texts joined are their token lists joined, and the
    set is built from them in the same order as from the joined text."""

    def __init__(self, stopwords: frozenset[str]) -> None:
        self.stopwords = stopwords
        self.lists: dict[str, list[str]] = {}

    def _list(self, text: str) -> list[str]:
        found = self.lists.get(text)
        if found is None:
            found = self.lists[text] = token_list(text, self.stopwords)
        return found

    def tokens(self, text: str) -> set[str]:
        """``tokens(text)``."""
        if len(text) <= SHORT_TEXT:
            return tokens(text, self.stopwords)
        return set(self._list(text))

    def found(self, text: str) -> Collection[str]:
        """The tokens of ``tokens(text)``, as kept (to look them up, not to change them)."""
        if len(text) <= SHORT_TEXT:
            return short_tokens(text, self.stopwords)
        return self._list(text)

    def joined(self, texts: list[str]) -> set[str]:
        """``tokens(" ".join(texts))``."""
        if sum(map(len, texts)) + len(texts) - 1 <= SHORT_TEXT:
            return tokens(" ".join(texts), self.stopwords)
        found: list[str] = []
        for text in texts:
            found.extend(self._list(text))
        return set(found)
