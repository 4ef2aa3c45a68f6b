"""Shell command lines: the programs a command ran, and what each would have done.

``parse_command`` reads a command line the way a shell would split it, without running
anything: segments at ``&&``, ``||``, ``;``, ``|``, ``&`` and newlines, quotes kept together,
heredoc bodies and comments left out, ``$(...)`` kept inside its word, ``bash -c '...'``
unwrapped, and leading ``cd``-free prefixes (``sudo``, ``timeout 60``, ``FOO=1``) skipped.
``command_of`` finds the command of a shell tool call; ``segment_impact`` and
``command_impact`` judge them by the tables of ``rules/impact.toml``. Nothing here raises on
strange input: a command that cannot be read gives fewer segments, not an error.

>>> [(s.program, s.subcommand) for s in parse_command("cd app && cargo test | tail -5")]
[('cd', None), ('cargo', 'test'), ('tail', None)]
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from typing import Any

from auditor.audit.tools import bare_tool_name
from auditor.model import Impact, ToolCall
from auditor.rules_loader import CommandPattern, ImpactRules, ShellImpact, default_impact_rules


@dataclass
class Segment:
    """One simple command of a command line (``git push origin main`` in ``make && git push
    origin main``). An option that takes a value carries it after ``=`` (``-C /repo`` is
    ``-C=/repo``); ``redirects`` are the files the segment writes to (``> out.txt``)."""

    program: str  # basename: ``cargo`` for ``~/.cargo/bin/cargo``
    subcommand: str | None  # ``test`` for ``cargo test``; None for programs without one
    arguments: list[str]  # positional words after the subcommand, in order
    options: list[str]
    redirects: list[str]
    text: str  # the segment as written
    # Where ``--`` stood, as an index into [subcommand, *arguments] (what a runner passes on).
    separator: int | None = field(default=None, repr=False, compare=False)

    @property
    def command(self) -> str:
        """The segment from its program on, without assignments and wrappers before it
        (``cargo test -p x 2>&1`` of ``FOO=1 sudo cargo test -p x 2>&1``)."""
        found = re.search(rf"(?:^|[\s/]){re.escape(self.program)}(?=\s|$)", self.text)
        if found is None:
            return self.text
        start = found.start() + (1 if found.group(0)[:1] in (" ", "\t", "/") else 0)
        return self.text[start:]


@dataclass(frozen=True)
class _Token:
    text: str
    quoted: bool = False
    operator: bool = False


_HEREDOC = re.compile(r"(?<!<)<<(?!<)(?P<dash>-?)\s*(?P<q>['\"]?)\\?(?P<word>[A-Za-z_][\w.-]*)")
_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(?:\[[^\]]*\])?\+?=")
_IDENTIFIER = re.compile(r"^[A-Za-z][A-Za-z0-9_-]*(?::[A-Za-z0-9_-]+)*$")
_SCRIPT = re.compile(r"(?:^|/)(?P<stem>[^/]+?)(?:\.[A-Za-z0-9]{1,5})?$")
_NAME_WORDS = re.compile(r"[_\-.:\s]+|(?<=[a-z0-9])(?=[A-Z])")
_OUTPUT = re.compile(r"^(?:\d*|&)(?:>>?|>\||>&)$")
_WORDS_LOOKED_AT = 4  # positional words read for a verb (``cargo autopilot issue ready``)
_KIND_RANK = {"write": 3, "unknown": 2, "sql": 1, "graphql": 1, "words": 1, "read": 0}
_MAX_DEPTH = 3  # bash -c 'bash -c "..."' nesting read


# ----------------------------------------------------------------------------- the call
def command_of(call: ToolCall, rules: ImpactRules | None = None) -> str | None:
    """The shell command of a call to a shell tool (``Bash``, ``execute_bash``, Codex
    ``shell``...), or None for any other call. A command given as a list (``["bash", "-lc",
    "cargo test"]``) is the script it runs, else its words joined as a shell would quote them."""
    shell = (rules or default_impact_rules()).shell
    name = call.name.lower()
    if name not in shell.tools and bare_tool_name(name) not in shell.tools:
        return None
    arguments = call.arguments
    if not isinstance(arguments, dict):
        return None
    for key in shell.argument_keys:
        value = arguments.get(key)
        if isinstance(value, str) and value.strip():
            return value
        if isinstance(value, list) and value and all(isinstance(v, str) for v in value):
            return _joined(value, shell)
    return None


def _joined(words: list[str], shell: ShellImpact) -> str:
    """A command given as a list of words: the script of ``[bash, -lc, script]``, else the
    words quoted for a shell."""
    program = _basename(words[0]).lower() if words else ""
    if len(words) >= 3 and program in shell.shells:
        script = _shell_script(words[1:], shell.value_options.get(program, frozenset()))
        if script is not None:
            return script
    return shlex.join(words)


# ----------------------------------------------------------------------------- impact
def command_impact(text: str, rules: ImpactRules | None = None) -> Impact:
    """A whole command line: a write if any segment writes, a read if every segment reads,
    otherwise unknown (also when no segment could be read)."""
    rules = rules or default_impact_rules()
    impacts = [segment_impact(segment, rules) for segment in parse_command(text, rules)]
    if Impact.WRITE in impacts:
        return Impact.WRITE
    if impacts and all(impact == Impact.READ for impact in impacts):
        return Impact.READ
    return Impact.UNKNOWN


def segment_impact(segment: Segment, rules: ImpactRules | None = None) -> Impact:
    """One segment: a write when it redirects output to a file; a read when it only asks for
    help; else the most specific pattern of ``[shell.commands]`` that matches it, and for a
    program the table does not know, the words after it."""
    rules = rules or default_impact_rules()
    shell = rules.shell
    if segment.redirects:
        return Impact.WRITE
    positional = _positional(segment)
    if _asks_for_help(segment, positional, shell):
        return Impact.READ
    cmdlet = _CMDLET.fullmatch(segment.program)
    if cmdlet is not None and cmdlet.group(1).lower() in shell.cmdlet_verbs:
        return Impact(shell.cmdlet_verbs[cmdlet.group(1).lower()])
    best: tuple[tuple[float, int], CommandPattern] | None = None
    for pattern in shell.patterns.get(segment.program.lower(), ()):
        score = _match(pattern, positional, segment.options)
        if score is None:
            continue
        key = (score, _KIND_RANK[pattern.kind])
        if best is None or key > best[0]:
            best = (key, pattern)
    if best is None:
        known = segment.program.lower() in shell.patterns
        return _by_words(segment, positional, 0, rules, program_name=not known)
    pattern = best[1]
    if pattern.kind == "words":
        skip = sum(1 for word in pattern.words if word != "*")
        return _by_words(segment, positional, skip, rules, program_name=False)
    if pattern.kind == "sql":
        return _by_sql(segment, shell)
    if pattern.kind == "graphql":
        return _by_graphql(segment, rules)
    return Impact(pattern.kind)


def _positional(segment: Segment) -> list[str]:
    return ([segment.subcommand] if segment.subcommand else []) + segment.arguments


def _asks_for_help(segment: Segment, positional: list[str], shell: ShellImpact) -> bool:
    given_words = [option.split("=", 1)[0] for option in segment.options] + positional
    if any(word in shell.help_options for word in given_words):
        return True  # also after `--`: `cargo run -- issue --help`
    if segment.subcommand == "help":
        return True
    given = segment.options + positional
    return len(given) == 1 and given[0] in shell.help_only


def _match(pattern: CommandPattern, positional: list[str], options: list[str]) -> float | None:
    """How specifically ``pattern`` matches (None: it does not)."""
    if len(pattern.words) > len(positional):
        return None
    for token, word in zip(pattern.words, positional, strict=False):
        if token != "*" and not fnmatchcase(word.lower(), token.lower()):
            return None
    for name, wanted in pattern.options:
        values = _option_values(options, name)
        if not values:
            return None
        if wanted is not None and not any(
            value is not None and fnmatchcase(value.lower(), wanted.lower()) for value in values
        ):
            return None
    return pattern.specificity


def _option_values(options: list[str], name: str) -> list[str | None]:
    """Each occurrence of option ``name`` with its value (None when it has none): ``-X=POST``,
    ``-XPOST``, ``-sXPOST`` and ``--request=POST`` are found; ``-i`` is in ``-ni`` and
    ``-i.bak``; a long name may hold wildcards (``--data*``)."""
    found: list[str | None] = []
    short = len(name) == 2 and name[0] == "-" and name[1] != "-"
    for option in options:
        base, sep, value = option.partition("=")
        if not short:
            if fnmatchcase(base, name):
                found.append(value if sep else None)
            continue
        if option.startswith("--") or len(option) < 2:
            continue
        if base == name:
            found.append(value if sep else None)
            continue
        letters = re.match(r"[A-Za-z]*", option[1:])
        cluster = letters.group(0) if letters else ""
        if option[1] == name[1]:
            found.append(option[2:] or None)
        elif name[1] in cluster:
            rest = option[1 + cluster.index(name[1]) + 1 :]
            found.append(rest or None)
    return found


def _by_words(
    segment: Segment, positional: list[str], skip: int, rules: ImpactRules, program_name: bool
) -> Impact:
    """The verb among the words after the program (after ``--`` when there is one): ``issue
    claim 794`` is a write, ``issue list`` a read; then the words of the script's name
    (``deploy.js``) or, for a program the table does not know, of its own name."""
    words = positional[skip:]
    if segment.separator is not None and segment.separator >= skip:
        words = positional[segment.separator :]
    scripts: list[str] = []
    for word in words[:_WORDS_LOOKED_AT]:
        if _IDENTIFIER.match(word):
            decided = _verb(word, rules)
            if decided is not None:
                return decided
        elif "/" in word or "." in word:
            scripts.append(word)
    scripts.extend(
        option.split("=", 1)[1]
        for option in segment.options
        if option.split("=", 1)[0] in rules.shell.runner_name_options and "=" in option
    )
    if program_name:
        scripts.append(segment.program)
    for script in scripts:
        match = _SCRIPT.search(script)
        decided = _verb(match.group("stem"), rules) if match else None
        if decided is not None:
            return decided
    return Impact.UNKNOWN


def _verb(word: str, rules: ImpactRules) -> Impact | None:
    for piece in _NAME_WORDS.split(word):
        lowered = piece.lower()
        if lowered in rules.write_words:
            return Impact.WRITE
        if lowered in rules.read_words:
            return Impact.READ
    return None


def _values(segment: Segment) -> list[str]:
    """The option values and arguments of a segment: where an SQL statement or a GraphQL
    document would be."""
    values = [option.split("=", 1)[1] for option in segment.options if "=" in option]
    return values + _positional(segment)


def _by_sql(segment: Segment, shell: ShellImpact) -> Impact:
    statements = [part for value in _values(segment) for part in value.split(";")]
    if any(shell.sql_write.search(statement) for statement in statements):
        return Impact.WRITE
    if any(shell.sql_read.search(statement) for statement in statements):
        return Impact.READ
    return Impact.UNKNOWN


def _by_graphql(segment: Segment, rules: ImpactRules) -> Impact:
    documents = [re.sub(r"^\w+=", "", value) for value in _values(segment)]
    if any(rules.mutation.search(document) for document in documents):
        return Impact.WRITE
    if any(rules.query.search(document) for document in documents):
        return Impact.READ
    return Impact.UNKNOWN


# ----------------------------------------------------------------------------- parsing
def parse_command(text: str, rules: ImpactRules | None = None) -> list[Segment]:
    """The segments of a command line, in order. Never raises; reads at most the rules'
    ``max_chars`` characters and gives at most ``max_segments`` segments."""
    shell = (rules or default_impact_rules()).shell
    key = (id(shell), text)
    if key in _PARSED:
        return list(_PARSED[key][1])
    # One command is read for its impact, its outcome rules and its recovery: parse it once.
    if len(_PARSED) >= _PARSED_MOST:
        _PARSED.clear()
    try:
        found = tuple(_parse(text, shell, 0))
    except Exception:  # a parser bug must not stop an audit: read what can be read
        found = tuple(_fallback(text, shell))
    _PARSED[key] = (shell, found)  # the settings kept alive, so that their id means them
    return list(found)


_PARSED: dict[tuple[int, str], tuple[Any, tuple[Segment, ...]]] = {}
_PARSED_MOST = 4096


def _parse(text: str, shell: ShellImpact, depth: int) -> list[Segment]:
    if not isinstance(text, str):
        return []
    source = _without_heredocs(text[: shell.max_chars])
    segments: list[Segment] = []
    for raw, tokens in _split(source, shell.max_segments):
        for segment in _segments_of(raw, tokens, shell, depth):
            segments.append(segment)
            if len(segments) >= shell.max_segments:
                return segments
    return segments


def _fallback(text: str, shell: ShellImpact) -> list[Segment]:
    """A plain reading for text the parser could not take: split at operators and spaces."""
    segments = []
    pieces = re.split(r"&&|\|\||[;|\n]", str(text)[: shell.max_chars])
    for piece in pieces[: shell.max_segments]:
        words = piece.split()
        if words:
            program = _basename(words[0])
            arguments = [w for w in words[1:] if not w.startswith("-")]
            options = [w for w in words[1:] if w.startswith("-")]
            segments.append(Segment(program, None, arguments, options, [], piece.strip()))
    return segments


def _without_heredocs(text: str) -> str:
    """The command line without heredoc bodies (``cat <<'EOF' ... EOF``): they are data."""
    if "<<" not in text:
        return text
    kept: list[str] = []
    waiting: list[tuple[str, bool]] = []
    for line in text.split("\n"):
        if waiting:
            word, dash = waiting[0]
            if (line.lstrip("\t") if dash else line).strip() == word:
                waiting.pop(0)
            continue
        kept.append(line)
        waiting.extend((m["word"], bool(m["dash"])) for m in _HEREDOC.finditer(line))
    return "\n".join(kept)


def _closing(text: str, start: int, opening: str, closing: str) -> int:
    """The index just past the bracket that closes the one before ``start``, quotes
    respected; the end of the text when it never closes."""
    depth, i, n = 1, start, len(text)
    while i < n:
        c = text[i]
        if c == "\\":
            i += 2
            continue
        if c == "'":
            end = text.find("'", i + 1)
            i = n if end < 0 else end + 1
            continue
        if c == '"':
            i = _closing_quote(text, i + 1)
            continue
        if c == opening:
            depth += 1
        elif c == closing:
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return n


def _closing_quote(text: str, start: int) -> int:
    """The index just past the ``"`` that closes a double-quoted string begun before
    ``start`` (``$(...)`` inside it skipped whole)."""
    i, n = start, len(text)
    while i < n:
        c = text[i]
        if c == "\\":
            i += 2
            continue
        if c == '"':
            return i + 1
        if text.startswith("$(", i):
            i = _closing(text, i + 2, "(", ")")
            continue
        if c == "`":
            end = text.find("`", i + 1)
            i = n if end < 0 else end + 1
            continue
        i += 1
    return n


def _split(text: str, limit: int) -> list[tuple[str, list[_Token]]]:
    """Segments as (text as written, tokens): words with their quotes removed, and redirection
    operators (``>``, ``2>>``, ``<<``) as operator tokens."""
    segments: list[tuple[str, list[_Token]]] = []
    tokens: list[_Token] = []
    word: list[str] = []
    state = {"in_word": False, "quoted": False, "start": 0}

    def end_word() -> None:
        if state["in_word"]:
            tokens.append(_Token("".join(word), quoted=bool(state["quoted"])))
        word.clear()
        state["in_word"] = state["quoted"] = False

    def end_segment(at: int, resume: int) -> None:
        end_word()
        raw = text[int(state["start"]) : at].strip()
        if tokens:
            segments.append((raw, list(tokens)))
        tokens.clear()
        state["start"] = resume

    i, n = 0, len(text)
    while i < n and len(segments) < limit:
        c = text[i]
        nxt = text[i + 1] if i + 1 < n else ""
        if c == "\\":
            if nxt == "\n":
                i += 2
                continue
            word.append(nxt)
            state["in_word"] = True
            i += 2
            continue
        if c == "'":
            end = text.find("'", i + 1)
            end = n if end < 0 else end
            word.append(text[i + 1 : end])
            state["in_word"] = state["quoted"] = True
            i = end + 1
            continue
        if c == '"':
            end = _closing_quote(text, i + 1)
            inner = text[i + 1 : end - 1 if end <= n and text[end - 1 : end] == '"' else end]
            word.append(re.sub(r'\\([\\"$`])', r"\1", inner))
            state["in_word"] = state["quoted"] = True
            i = end
            continue
        if c == "$" and nxt in "({":
            end = _closing(text, i + 2, nxt, ")" if nxt == "(" else "}")
            word.append(text[i:end])
            state["in_word"] = True
            i = end
            continue
        if c == "`":
            end = text.find("`", i + 1)
            end = n - 1 if end < 0 else end
            word.append(text[i : end + 1])
            state["in_word"] = True
            i = end + 1
            continue
        if c in " \t\r":
            end_word()
            i += 1
            continue
        if c == "\n":
            end_segment(i, i + 1)
            i += 1
            continue
        if c == "#" and not state["in_word"]:
            end = text.find("\n", i)
            i = n if end < 0 else end
            continue
        if c == ";":
            step = 2 if nxt in ";&" else 1
            end_segment(i, i + step)
            i += step
            continue
        if c == "&":
            if nxt == ">":
                end_word()
                op = "&>>" if text.startswith("&>>", i) else "&>"
                tokens.append(_Token(op, operator=True))
                i += len(op)
                continue
            step = 2 if nxt == "&" else 1
            end_segment(i, i + step)
            i += step
            continue
        if c == "|":
            step = 2 if nxt in "|&" else 1
            end_segment(i, i + step)
            i += step
            continue
        if c in "<>":
            fd = "".join(word) if state["in_word"] and not state["quoted"] else ""
            if fd.isdigit():
                word.clear()
                state["in_word"] = False
            else:
                fd = ""
                end_word()
            op = _operator(text, i)
            tokens.append(_Token(fd + op, operator=True))
            i += len(op)
            continue
        if c in "()" and not state["in_word"]:
            end_word()
            i += 1
            continue
        word.append(c)
        state["in_word"] = True
        i += 1
    if len(segments) < limit:
        end_segment(n, n)
    return segments


def _operator(text: str, i: int) -> str:
    for op in ("<<<", "<<-", ">>", ">|", ">&", "<<", "<&", "<>", ">", "<"):
        if text.startswith(op, i):
            return op
    return text[i]


def _basename(word: str) -> str:
    return word.rstrip("/").rsplit("/", 1)[-1] or word


def _segments_of(raw: str, tokens: list[_Token], shell: ShellImpact, depth: int) -> list[Segment]:
    """The segment(s) of one simple command: redirects taken out, prefixes skipped, a shell's
    ``-c`` script read in its place."""
    words: list[_Token] = []
    redirects: list[str] = []
    i = 0
    while i < len(tokens):
        token = tokens[i]
        if not token.operator:
            words.append(token)
            i += 1
            continue
        target = tokens[i + 1] if i + 1 < len(tokens) and not tokens[i + 1].operator else None
        i += 2 if target is not None else 1
        if target is None or not _OUTPUT.match(token.text):
            continue  # input: < file, << EOF, <<< word
        if token.text.endswith("&") and (target.text.isdigit() or target.text == "-"):
            continue  # 2>&1: one stream into another
        if not shell.harmless_redirects.search(target.text):
            redirects.append(target.text)
    words = _skip_leading(words, shell)
    if not words:
        return []
    program = _basename(words[0].text)
    rest = [w.text for w in words[1:]]
    lowered = program.lower()
    if lowered in shell.shells and depth < _MAX_DEPTH:
        script = _shell_script(rest, shell.value_options.get(lowered, frozenset()))
        if script is not None:
            inner = _parse(script, shell, depth + 1)
            if redirects and inner:
                inner[-1].redirects.extend(redirects)
            return inner
    return [_segment(program, rest, redirects, raw, shell)]


def _skip_leading(words: list[_Token], shell: ShellImpact) -> list[_Token]:
    """Without shell keywords (``then``, ``do``), variable assignments (``FOO=1``) and
    prefixes (``sudo``, ``timeout 60``, ``npx``, ``uv run``) at the start."""
    while words:
        first = words[0]
        if not first.quoted and first.text in shell.keywords:
            if first.text in ("for", "case", "select", "function"):
                return []  # a loop or case header: no command of its own
            words = words[1:]
            continue
        if _ASSIGNMENT.match(first.text):
            words = words[1:]
            continue
        name = _basename(first.text).lower()
        if name in shell.prefixes and len(words) > 1:
            rest = _after_options(words[1:], shell.value_options.get(name, frozenset()))
            rest = rest[shell.prefixes[name] :] if len(rest) > shell.prefixes[name] else rest
            if not rest:
                return words
            words = rest
            continue
        if len(words) > 1:
            values = shell.value_options.get(name, frozenset())
            after = _after_options(words[1:], values)
            if after and (name, after[0].text.lower()) in shell.prefix_commands:
                following = _after_options(after[1:], values)
                if following:
                    words = following
                    continue
            module = shell.module_options.get(name)
            if module is not None:
                inner = _module(words[1:], module, values)
                if inner:
                    words = inner
                    continue
        break
    while words and not words[-1].quoted and words[-1].text in ("}", ")"):
        words = words[:-1]
    return words


def _after_options(words: list[_Token], values: frozenset[str]) -> list[_Token]:
    """The words after a run of options (and the values of those that take one)."""
    i = 0
    while i < len(words) and words[i].text.startswith("-") and len(words[i].text) > 1:
        i += 2 if words[i].text in values else 1
    return words[i:]


def _module(words: list[_Token], option: str, values: frozenset[str]) -> list[_Token]:
    """The command ``python -m pytest -x`` runs: ``pytest -x``."""
    i = 0
    while i < len(words) and words[i].text.startswith("-"):
        text = words[i].text
        if text == option:
            return words[i + 1 :]
        if text.startswith(option) and len(text) > len(option) and not text.startswith("--"):
            return [_Token(text[len(option) :]), *words[i + 1 :]]
        i += 2 if text in values else 1
    return []


_CMDLET = re.compile(r"([A-Z][a-z]+)-[A-Z][A-Za-z]+")  # a PowerShell cmdlet: Get-ADUser


def _shell_script(rest: list[str], value_options: frozenset[str] = frozenset()) -> str | None:
    """The script of ``bash -c '...'`` (also ``-lc``, ``-ec``) or ``pwsh -NoProfile -Command
    '...'``, else None. ``value_options``: the shell's options that take a value before it
    (``-ExecutionPolicy Bypass``)."""
    skip = False
    for i, word in enumerate(rest):
        if skip:
            skip = False
            continue
        if not word.startswith("-"):
            return None
        script = word.lower() == "-command" or (
            not word.startswith("--") and len(word) <= 5 and "c" in word[1:]
        )
        if script and i + 1 < len(rest):
            return rest[i + 1]
        skip = word.lower() in value_options
    return None


def _segment(program: str, rest: list[str], redirects: list[str], raw: str, shell: Any) -> Segment:
    alias = shell.aliases.get(program.lower())
    if alias:
        program, rest = alias[0], [*alias[1:], *rest]
    values = shell.value_options.get(program.lower(), frozenset())
    options: list[str] = []
    positional: list[str] = []
    separator: int | None = None
    i = 0
    while i < len(rest):
        word = rest[i]
        if separator is None and word == "--":
            separator = len(positional)
        elif separator is None and word.startswith("-") and len(word) > 1:
            if word in values and i + 1 < len(rest):
                options.append(f"{word}={rest[i + 1]}")
                i += 1
            else:
                options.append(word)
        else:
            positional.append(word)
        i += 1
    lowered = program.lower()
    takes_subcommand = lowered in shell.subcommand_programs or (
        lowered not in shell.patterns
        and bool(positional)
        and bool(_IDENTIFIER.match(positional[0]))
    )
    subcommand = positional[0] if takes_subcommand and positional else None
    arguments = positional[1:] if subcommand is not None else positional
    return Segment(program, subcommand, arguments, options, redirects, raw, separator)
