"""Which inputs a problem allows, read from its statement: type hints, docstring phrases and the examples' shapes.

Why: an amplified input outside the problem's domain (an unbalanced string where the statement
says the groups are balanced, strings of unequal length for a bitwise XOR, a one-element list where
"at least two" are promised) turns the reference's arbitrary answer into "expected", so correct
programs fail. Each rule here is derived from the problem's own text or its original inputs, and is
conservative in one direction only: when a phrase might restrict the input, it does. A rule that an
rule that many original inputs break (more than `CONTRADICTED_SHARE`) misread the statement and is
dropped (`Preconditions.contradicted`); one a few originals break stays (a benchmark's own tests are
sometimes outside its statement, e.g. a repeated cell in a grid said to hold each number once). Nothing is run: rules are plain data checked in-process.
"""

from __future__ import annotations

import ast
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from execugraph.amplify.templates import Seed, problem_seeds
from execugraph.domain.problem import Problem
from execugraph.parsing import parse_python

# part of the generator version: other rules, other inputs, another digest. 2: inputs whose reference answer is of a
# kind or sign no original answer has are dropped too (`answer_domain`); 3: an independent-solutions panel
# (`panel`) and the examples' spacing and existence phrases (`text_domain`)
# 4: a range under an abbreviated name (`num` for `number`), a count bounded by a length (`1 <= k <= len(arr)`)
RULES_VERSION = "preconditions-4"
VOCABULARY_MAX = 12  # a list of strings (or a string's words) keeps to the words of the originals when few
VOCABULARY_REPEAT = 1.5  # ... and each distinct word was seen this many times on average
CONTRADICTED_SHARE = 0.2  # a statement rule broken by more than this share of the originals is a misreading
RELATION_MIN_SEEDS = 3  # length relations between arguments need this many originals agreeing
_WORDS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5}
_AMBIGUOUS = {"a", "i"}  # parameter names that are also English words
_SIZED = (str, list, tuple, dict)


@dataclass(frozen=True)
class Rule:
    """One precondition on argument `arg` (-1: a relation between arguments), its kind and parameters."""

    arg: int
    kind: str
    param: tuple = ()
    why: str = ""  # the phrase or fact it comes from, for the dropped-input reason


@dataclass
class Preconditions:
    """A problem's input rules; `violation(args)` says why an input is outside them."""

    names: list[str]
    rules: list[Rule] = field(default_factory=list)
    contradicted: list[Rule] = field(default_factory=list)  # derived, but an original input breaks it

    def violation(self, args: tuple[Any, ...]) -> str | None:
        """Why `args` is outside the problem's domain (naming the rule), or None when every rule holds."""
        for rule in self.rules:
            if not _holds(rule, args):
                return rule.why
        return None

    def describe(self) -> list[str]:
        """Each rule in words."""
        return [r.why for r in self.rules]


# ---------------------------------------------------------------- checking

def _numbers(value: Any) -> list[float]:
    if isinstance(value, bool):
        return []
    if isinstance(value, int | float):
        return [value]
    if isinstance(value, list | tuple):
        return [n for v in value for n in _numbers(v)]
    return []


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list | tuple):
        return [s for v in value for s in _strings(v)]
    if isinstance(value, dict):
        return [s for k, v in value.items() for s in (*_strings(k), *_strings(v))]
    return []


def _type_ok(spec: tuple, value: Any) -> bool:
    head = spec[0]
    if head == "any":
        return True
    if head == "union":
        return any(_type_ok(s, value) for s in spec[1:])
    if head == "none":
        return value is None
    if head == "bool":
        return isinstance(value, bool)
    if head == "int":
        return isinstance(value, int) and not isinstance(value, bool)
    if head == "float":
        return isinstance(value, int | float) and not isinstance(value, bool)
    if head == "str":
        return isinstance(value, str)
    if head == "list":
        return isinstance(value, list) and all(_type_ok(spec[1], v) for v in value)
    if head == "tuple":
        if not isinstance(value, tuple):
            return False
        if len(spec) == 2 and spec[1] == "...":
            return True
        items = spec[1:]
        if len(items) == 2 and items[1] == ("ellipsis",):
            return all(_type_ok(items[0], v) for v in value)
        return len(value) == len(items) and all(_type_ok(s, v) for s, v in zip(items, value, strict=True))
    if head == "dict":
        return isinstance(value, dict) and all(_type_ok(spec[1], k) and _type_ok(spec[2], v)
                                               for k, v in value.items())
    return True


def is_prime(n: int) -> bool:
    """Trial division: the amplifier's inputs are small."""
    if n < 2:
        return False
    k = 2
    while k * k <= n:
        if n % k == 0:
            return False
        k += 1
    return True


def _balanced(text: str) -> bool:
    pairs, stack = {")": "(", "]": "[", "}": "{", ">": "<"}, []
    for ch in text:
        if ch in "([{<":
            stack.append(ch)
        elif ch in pairs:
            if not stack or stack.pop() != pairs[ch]:
                return False
    return not stack


def _holds(rule: Rule, args: tuple[Any, ...]) -> bool:  # noqa: C901 - one branch per rule kind
    if rule.arg >= len(args):
        return True
    if rule.kind == "same_len":
        sizes = {len(args[i]) for i in rule.param if i < len(args) and isinstance(args[i], _SIZED)}
        return len(sizes) <= 1
    if rule.kind == "len_offset":
        i, j, offset = rule.param
        if not (isinstance(args[i], _SIZED) and isinstance(args[j], _SIZED)):
            return True
        return len(args[j]) - len(args[i]) == offset
    value = args[rule.arg]
    kind, param = rule.kind, rule.param
    if kind == "type":
        return _type_ok(param[0], value)
    if kind == "min":
        bound, strict = param
        return all(n > bound if strict else n >= bound for n in _numbers(value))
    if kind == "max":
        bound, strict = param
        return all(n < bound if strict else n <= bound for n in _numbers(value))
    if kind == "len_min":
        return not isinstance(value, _SIZED) or len(value) >= param[0]
    if kind == "len_cap":  # a number at most (below) another argument's length
        cap = length_cap(rule, args)
        return cap is None or all(n <= cap for n in _numbers(value))
    if kind == "len_max":
        return not isinstance(value, _SIZED) or len(value) <= param[0]
    if kind == "chars":
        return all(set(s) <= param[0] for s in _strings(value))
    if kind == "ascii":
        return all(s.isascii() for s in _strings(value))
    if kind == "balanced":
        return all(_balanced(s) for s in _strings(value))
    if kind == "not_prime":
        return not (isinstance(value, int) and is_prime(value))
    if kind == "distinct":
        if not isinstance(value, list | tuple):
            return True
        items = [x for row in value for x in row] if value and all(isinstance(r, list | tuple) for r in value) else value
        try:
            return len(set(items)) == len(items)
        except TypeError:
            return False
    if kind == "sorted":
        try:
            return not isinstance(value, list | tuple) or list(value) == sorted(value)
        except TypeError:
            return False
    if kind == "square":
        return not isinstance(value, list | tuple) or all(isinstance(r, list | tuple) and len(r) == len(value)
                                                          for r in value)
    if kind == "permutation":
        flat = _numbers(value)
        return sorted(flat) == list(range(1, len(flat) + 1))
    if kind == "pattern":
        return not isinstance(value, str) or re.fullmatch(param[0], value) is not None
    if kind == "vocabulary":
        words = param[0]
        if isinstance(value, str):  # an empty word (a leading, trailing or doubled space) only if the examples have one
            return not value or all(w in words or w.isdigit() for w in value.split(" "))
        return not isinstance(value, list | tuple) or all(isinstance(w, str) and (w in words or w.isdigit())
                                                          for w in value)
    if kind == "letter_tokens":
        return not isinstance(value, str) or all(len(w) == 1 for w in value.split(" ") if w)
    if kind == "single_spaced":
        return not isinstance(value, str) or (value == value.strip(" ,") and "  " not in value)
    return True


# ---------------------------------------------------------------- reading the statement

def _function(problem: Problem) -> tuple[ast.FunctionDef | None, str]:
    """The entry point's definition in the statement (or preamble, or signature) and the statement's prose."""
    for text in (problem.preamble or "", problem.statement or ""):
        try:
            tree = parse_python(text)
        except SyntaxError:
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef) and node.name == problem.entry_point:
                texts = [b.value.value for b in node.body if isinstance(b, ast.Expr)
                         and isinstance(b.value, ast.Constant) and isinstance(b.value.value, str)]
                return node, ast.get_docstring(node) or (texts[0] if texts else "")  # a string after an import
    node = None
    signature = (problem.signature or "").strip()
    if signature:
        try:
            parsed = parse_python(signature.rstrip(":") + ":\n    pass\n")
            node = next((n for n in parsed.body if isinstance(n, ast.FunctionDef)), None)
        except SyntaxError:
            node = None
    return node, problem.statement or ""


def _spec(node: ast.expr | None) -> tuple:
    """An annotation as a type spec (("any",) when it is not one we read)."""
    if node is None:
        return ("any",)
    if isinstance(node, ast.Constant) and node.value is None:
        return ("none",)
    if isinstance(node, ast.Constant) and node.value is Ellipsis:
        return ("ellipsis",)
    if isinstance(node, ast.Name | ast.Attribute):
        name = node.id if isinstance(node, ast.Name) else node.attr
        simple = {"int": "int", "float": "float", "str": "str", "bool": "bool", "list": "list", "List": "list",
                  "tuple": "tuple", "Tuple": "tuple", "dict": "dict", "Dict": "dict"}.get(name)
        if simple in ("list",):
            return ("list", ("any",))
        if simple == "tuple":
            return ("tuple", "...")
        if simple == "dict":
            return ("dict", ("any",), ("any",))
        return (simple,) if simple else ("any",)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return ("union", _spec(node.left), _spec(node.right))
    if isinstance(node, ast.Subscript):
        outer = _spec(node.value)[0] if not isinstance(node.value, ast.Name) or node.value.id not in (
            "Optional", "Union") else node.value.id
        inner = node.slice
        items = list(inner.elts) if isinstance(inner, ast.Tuple) else [inner]
        if outer == "Optional":
            return ("union", ("none",), _spec(items[0]))
        if outer == "Union":
            return ("union", *(_spec(i) for i in items))
        if outer == "list":
            return ("list", _spec(items[0]))
        if outer == "tuple":
            return ("tuple", *(_spec(i) for i in items))
        if outer == "dict" and len(items) == 2:
            return ("dict", _spec(items[0]), _spec(items[1]))
    return ("any",)


def _prose(doc: str, entry_point: str) -> str:
    """The docstring's description: its lines without the examples (a `>>>` line and the answer after it, a line
    calling the entry point or showing an arrow or `==`), whose quoted values would read as rules."""
    out, after_prompt = [], False
    for line in doc.splitlines():
        stripped = line.strip()
        if stripped.startswith(">>>"):
            after_prompt = True
            continue
        if after_prompt and stripped:
            after_prompt = False
            continue
        if (entry_point and f"{entry_point}(" in stripped) or re.search(r"➞|=>|==|->|\bexamples?:?$", stripped,
                                                                           re.IGNORECASE):
            continue
        out.append(line)
    return "\n".join(out)


def length_cap(rule: Rule, args: tuple[Any, ...]) -> int | None:
    """The greatest value a `len_cap` rule allows: the other argument's length (less one when strict); None when
    that argument has no length."""
    index, strict = rule.param
    other = args[index] if index < len(args) else None
    return len(other) - (1 if strict else 0) if isinstance(other, _SIZED) else None


def statement_prose(problem: Problem) -> str:
    """The entry point's docstring without its examples (what the statement says in words)."""
    return _prose(_function(problem)[1], problem.entry_point or "")


def _sentences(text: str) -> list[str]:
    flat = " ".join(text.split())
    return [s.strip() for s in re.split(r"(?<=[.!?;])\s+|\n", flat) if s.strip()]


def _mentioned(sentence: str, names: list[str]) -> list[int]:
    lowered = sentence.lower()
    out = []
    for index, name in enumerate(names):
        word = re.escape(name.lower())
        if name.lower() in _AMBIGUOUS:
            others = "|".join(re.escape(n.lower()) for n in names if n != name) or "$^"
            if re.search(rf"\b{word}\s*(,|and)\s*({others})\b|\b({others})\s*(,|and)\s*{word}\b", lowered):
                out.append(index)
        elif re.search(rf"(?<![\w']){word}(?![\w'])", lowered):
            out.append(index)
    return out


def _kinds(seeds: list[Seed], arity: int) -> list[set[str]]:
    """Per argument, the kinds of the original values and of the elements inside them."""
    out: list[set[str]] = [set() for _ in range(arity)]
    for seed in seeds:
        if len(seed.args) != arity:
            continue
        for i, value in enumerate(seed.args):
            out[i].add(type(value).__name__)
            if isinstance(value, list | tuple):
                out[i] |= {f"of-{type(v).__name__}" for v in value}
    return out


def _numeric(kinds: set[str]) -> bool:
    return bool(kinds & {"int", "float", "of-int", "of-float"})


def _textual(kinds: set[str]) -> bool:
    return bool(kinds & {"str", "of-str"})


def _sized(kinds: set[str]) -> bool:
    return bool(kinds & {"str", "list", "tuple", "dict"})


def _number(text: str) -> float | None:
    text = text.strip().replace(",", "")
    power = re.fullmatch(r"(-?\d+)\s*\^\s*(\d+)", text)
    if power:
        return float(int(power.group(1)) ** int(power.group(2)))
    try:
        value = float(text)
    except ValueError:
        return None
    return int(value) if value.is_integer() else value


_NUM = r"-?\d+(?:\.\d+)?(?:\s*\^\s*\d+)?"
_OPS = {"<": ("max", True), "<=": ("max", False), ">": ("min", True), ">=": ("min", False)}
_FLIP = {"<": ">", "<=": ">=", ">": "<", ">=": "<="}


def _parameter(name: str, lowered: dict[str, int]) -> int | None:
    """The parameter a statement's name stands for: itself, or the one parameter it abbreviates (`num`: `number`)."""
    if name in lowered:
        return lowered[name]
    longer = [i for n, i in lowered.items() if len(name) >= 3 and n.startswith(name)]
    return longer[0] if len(longer) == 1 else None


def _comparisons(sentence: str, names: list[str], kinds: list[set[str]]) -> list[Rule]:
    """`n >= 1`, `0 <= n <= 1000`, `1 <= len(arr) <= 100`, `x > 0` (also with ≤ and ≥) about a parameter."""
    text = sentence.replace("≤", "<=").replace("≥", ">=").replace("=<", "<=").replace("=>", ">=")
    lowered = {n.lower(): i for i, n in enumerate(names)}
    subject = r"(len\(\s*\w+\s*\)|\w+\.length|\w+)"
    out: list[Rule] = []

    def add(target: str, op: str, number: str) -> None:
        bound = _number(number)
        if bound is None:
            return
        of_len = target.startswith("len(") or target.endswith(".length")
        name = re.sub(r"^len\(\s*|\s*\)$|\.length$", "", target).lower()
        index = _parameter(name, lowered)
        if index is None:
            return
        kind, strict = _OPS[op]
        why = f"{names[index]}: {'len ' if of_len else ''}{op} {number} (statement)"
        if of_len:
            if not _sized(kinds[index]):
                return
            size = int(bound) + (1 if strict and kind == "min" else -1 if strict else 0)
            out.append(Rule(index, "len_min" if kind == "min" else "len_max", (size,), why))
        elif _numeric(kinds[index]):
            out.append(Rule(index, kind, (bound, strict), why))

    for m in re.finditer(rf"({_NUM})\s*(<=|<)\s*{subject}\s*(<=|<)\s*({_NUM})", text):
        add(m.group(3), _FLIP[m.group(2)], m.group(1))
        add(m.group(3), m.group(4), m.group(5))
    for m in re.finditer(rf"(?<![<>=\d.\w]){subject}\s*(<=|>=|<|>)\s*({_NUM})(?!\s*(<=|<))", text):
        add(m.group(1), m.group(2), m.group(3))
    for m in re.finditer(rf"(?:({_NUM})\s*(<=|<)\s*)?\b(\w+)\s*(<=|<)\s*len\(\s*(\w+)\s*\)", text):
        index, other = _parameter(m.group(3).lower(), lowered), _parameter(m.group(5).lower(), lowered)
        if index is not None and other is not None and _numeric(kinds[index]) and _sized(kinds[other]):
            if m.group(1):  # "1 <= k <= len(arr)": a count of the list's items
                add(m.group(3), _FLIP[m.group(2)], m.group(1))
            out.append(Rule(index, "len_cap", (other, m.group(4) == "<"), f"{names[index]}: {m.group(4)} "
                                                                           f"len({names[other]}) (statement)"))
    for m in re.finditer(rf"(?<![<>=\w]){subject}\s+is\s+(?:between|in the range)\s+\[?({_NUM})\s*(?:and|,)\s*({_NUM})",
                         text):
        add(m.group(1), ">=", m.group(2))
        add(m.group(1), "<=", m.group(3))
    return out


_QUOTED_CHAR = re.compile(r"""["'](\S)["']""")
_CLASSES = [  # phrase -> characters (with what the originals of the argument use besides)
    (re.compile(r"\b(1s and 0s|0s and 1s|ones and zeros|zeros and ones|binary string|string of 0s)"), set("01")),
    (re.compile(r"\blower[- ]?case (letters|characters|english letters|alphabets?)\b"),
     set("abcdefghijklmnopqrstuvwxyz")),
    (re.compile(r"\bupper[- ]?case (letters|characters)\b"), set("ABCDEFGHIJKLMNOPQRSTUVWXYZ")),
    (re.compile(r"\bonly (contains )?square brackets\b"), set("[]")),
    (re.compile(r"\bonly (contains )?(digits|numbers)\b|\bconsists? (only )?of digits\b"), set("0123456789")),
]
_ONLY = re.compile(r"\b(only|consist|consists|consisting|contains? only|string of|made of|made up of|composed of)\b")
_OUTPUT = re.compile(r"^(return|returns|output|print|the function (should )?return|your (task|job|goal) is to return)\b")


def _phrases(sentence: str, names: list[str], kinds: list[set[str]], originals: list[list[Any]],
             spaces: bool = False) -> list[Rule]:
    """The rules one sentence of the description states, on the parameters it is about."""
    low = sentence.lower()
    if _OUTPUT.search(low):
        return []
    named = _mentioned(sentence, names)
    targets = named or list(range(len(names)))
    out: list[Rule] = []
    short = sentence if len(sentence) <= 60 else sentence[:57] + "..."
    numeric = [i for i in targets if _numeric(kinds[i])]
    textual = [i for i in targets if _textual(kinds[i])]
    sized = [i for i in targets if _sized(kinds[i])]
    if re.search(r"\bnon[- ]?negative\b|\bnot negative\b", low):
        out += [Rule(i, "min", (0, False), f"{names[i]}: non-negative ({short!r})") for i in numeric]
    elif re.search(r"(?<!non-)(?<!non )\bpositive\b", low) and "negative" not in low:
        out += [Rule(i, "min", (0, True), f"{names[i]}: positive ({short!r})") for i in numeric]
    if re.search(r"\bnon[- ]?empty\b|\bnot (be )?empty\b", low):
        out += [Rule(i, "len_min", (1,), f"{names[i]}: non-empty ({short!r})") for i in sized]
    for m in re.finditer(r"\bat least (\d+|one|two|three|four|five)\b", low):
        n = _WORDS.get(m.group(1)) or int(m.group(1))
        out += [Rule(i, "len_min", (n,), f"{names[i]}: at least {n} ({short!r})") for i in sized
                if "str" not in kinds[i] or "character" in low or "letter" in low]
    if re.search(r"\b(equal|same) length\b|\bof equal lengths?\b", low) and len(sized) >= 2:
        out.append(Rule(-1, "same_len", tuple(sized), f"{', '.join(names[i] for i in sized)}: equal lengths "
                                                       f"({short!r})"))
    if re.search(r"\bbalanced\b|\bproperly (closed|nested)\b|\bgroups (of|for) nested parenthes[ie]s\b", low):
        out += [Rule(i, "balanced", (), f"{names[i]}: balanced brackets ({short!r})") for i in textual]
    if re.search(r"\bnot (a )?prime\b", low):
        out += [Rule(i, "not_prime", (), f"{names[i]}: not a prime ({short!r})") for i in numeric]
    if re.search(r"\b(no|not contain|without) duplicat|\b(unique|distinct) (elements|values|numbers|integers)\b"
                 r"|\belements are (unique|distinct)\b|\bappears exactly once\b", low) and not re.search(
            r"\bthere (are|is|exists?)\b", low):  # "True if there are two distinct elements": about the answer
        out += [Rule(i, "distinct", (), f"{names[i]}: no duplicates ({short!r})") for i in sized
                if "list" in kinds[i] or "tuple" in kinds[i]]
    if re.search(r"\b(given|input|is|are) (a |an )?sorted\b|\bsorted (in )?(ascending|increasing) order\b", low):
        out += [Rule(i, "sorted", (), f"{names[i]}: sorted ({short!r})") for i in sized
                if "list" in kinds[i] or "tuple" in kinds[i]]
    if re.search(r"\bseparated (lowercase |lower case )?letters\b", low):
        out += [Rule(i, "letter_tokens", (), f"{names[i]}: single letters separated by spaces ({short!r})")
                for i in textual if "str" in kinds[i]]
    if re.search(r"\b(a |the )?(string of words|sentence)\b", low) and not re.search(r"\bspaces?\b", low):
        out += [Rule(i, "single_spaced", (), f"{names[i]}: words separated by single spaces ({short!r})")
                for i in textual if "str" in kinds[i]]
    out += _char_rules(low, sentence, names, textual, originals, short, spaces)
    return out


def _char_rules(low: str, sentence: str, names: list[str], textual: list[int], originals: list[list[Any]],
                short: str, spaces: bool) -> list[Rule]:
    allowed: set[str] = set()
    if re.search(r"\bstring (containing|of|consisting of|made of|represented) .*\bparenthes[ie]s\b", low):
        allowed |= {"(", ")"} | ({" "} if spaces else set())  # spaces: when the statement speaks of them
    for pattern, chars in _CLASSES:
        if pattern.search(low):
            allowed |= chars
    if _ONLY.search(low):
        quoted = set(_QUOTED_CHAR.findall(sentence))
        if len(quoted) >= 2:
            allowed |= quoted
    if not allowed:
        return []
    if "space" in low:
        allowed.add(" ")
    out = []
    for i in textual:
        seen = {ch for value in originals[i] for s in _strings(value) for ch in s}
        chars = frozenset(allowed | seen)
        out.append(Rule(i, "chars", (chars,), f"{names[i]}: only {''.join(sorted(allowed))!r} ({short!r})"))
    return out


# ---------------------------------------------------------------- from the originals

def _template(text: str) -> str:
    return "".join(r"\d+" if part.isdigit() else re.escape(part) for part in re.split(r"(\d+)", text) if part)


def _example_rules(names: list[str], originals: list[list[Any]], seeds: list[Seed],
                   spaces: bool = False) -> list[Rule]:
    """Shapes every original input shares: ASCII strings, one text template with numbers in it, a small
    vocabulary of words, fixed length offsets between arguments."""
    out: list[Rule] = []
    for i, values in enumerate(originals):
        strings = [s for v in values for s in _strings(v)]
        if strings and all(s.isascii() for s in strings):
            out.append(Rule(i, "ascii", (), f"{names[i]}: ASCII text (every example is)"))
        plain = [v for v in values if isinstance(v, str)]
        if len(plain) >= 2 and len(plain) == len(values):
            templates = {_template(v) for v in plain}
            if len(templates) == 1 and r"\d+" in next(iter(templates)) and any(c.isalpha() or c in "/:"
                                                                               for c in plain[0]):
                out.append(Rule(i, "pattern", (next(iter(templates)),),
                                f"{names[i]}: the examples' format {plain[0]!r} with other numbers"))
        if not spaces and len(plain) == len(values) and sum(1 for v in plain if " " in v.strip()) >= 2 and all(
                v == v.strip(" ,") and "  " not in v for v in plain):
            out.append(Rule(i, "single_spaced", (), f"{names[i]}: words separated by single spaces (every example)"))
        words = Counter(w for v in values for w in (v.split(" ") if isinstance(v, str) and v else
                                                    v if isinstance(v, list | tuple) else []) if isinstance(w, str))
        lists_of_str = all(isinstance(v, list | tuple) and v and all(isinstance(w, str) for w in v) for v in values)
        spaced = all(isinstance(v, str) for v in values) and any(" " in v for v in values)
        repeat = VOCABULARY_REPEAT if lists_of_str else 2 * VOCABULARY_REPEAT  # a string's words: stricter
        if words and (lists_of_str or spaced) and len(words) <= VOCABULARY_MAX and (
                sum(words.values()) >= repeat * len(words)):
            out.append(Rule(i, "vocabulary", (frozenset(words),),
                            f"{names[i]}: only the words {sorted(words)} (the examples use no other)"))
        numbers = [_numbers(v) for v in values]
        if values and all(isinstance(v, list | tuple) for v in values) and all(
                len(ns) >= 2 and all(type(n) is int for n in ns) and sorted(ns) == list(range(1, len(ns) + 1))
                for ns in numbers):
            out.append(Rule(i, "permutation", (), f"{names[i]}: the numbers 1..n once each (every example is)"))
        grids = [v for v in values if isinstance(v, list) and len(v) >= 2 and all(isinstance(r, list) for r in v)]
        if len(grids) >= 2 and len(grids) == len(values) and all(len(r) == len(g) for g in grids for r in g):
            out.append(Rule(i, "square", (), f"{names[i]}: a square grid (every example is)"))
    sized = [i for i, values in enumerate(originals) if values and all(isinstance(v, _SIZED) for v in values)]
    if len(seeds) >= RELATION_MIN_SEEDS:
        for a in sized:
            for b in sized:
                if b <= a:
                    continue
                offsets = {len(s.args[b]) - len(s.args[a]) for s in seeds if len(s.args) == len(names)}
                if len(offsets) == 1:
                    offset = offsets.pop()
                    out.append(Rule(-1, "len_offset", (a, b, offset), f"len({names[b]}) = len({names[a]})"
                                                                      f"{offset:+d} (in every example)"))
    return out


def preconditions(problem: Problem, seeds: list[Seed] | None = None) -> Preconditions:
    """The rules of `problem`'s main call arity: its annotations, its statement's phrases, its examples' shapes;
    rules an original input breaks are set aside as contradicted."""
    seeds = problem_seeds(problem) if seeds is None else seeds
    node, doc = _function(problem)
    arity = Counter(len(s.args) for s in seeds).most_common(1)[0][0] if seeds else (
        len(node.args.args) if node else 0)
    names = [a.arg for a in node.args.args][:arity] if node and len(node.args.args) >= arity else [
        f"arg{i + 1}" for i in range(arity)]
    main = [s for s in seeds if len(s.args) == arity]
    originals: list[list[Any]] = [[s.args[i] for s in main] for i in range(arity)]
    kinds = _kinds(main, arity)
    rules: list[Rule] = []
    if node is not None:
        for i, arg in enumerate(node.args.args[:arity]):
            spec = _spec(arg.annotation)
            if spec != ("any",):
                rules.append(Rule(i, "type", (spec,), f"{names[i]}: {ast.unparse(arg.annotation)} (signature)"))
    for sentence in _sentences(_prose(doc, problem.entry_point or "")):
        rules += _comparisons(sentence, names, kinds)
        rules += _phrases(sentence, names, kinds, originals, bool(re.search(r"\bspaces?\b", doc.lower())))
    spaces = bool(re.search(r"\bspaces?\b", doc.lower()))  # the statement speaks of spaces: they are its business
    examples = _example_rules(names, originals, main, spaces)  # hold on every original by construction
    unique = list(dict.fromkeys(rules))
    allowed = int(CONTRADICTED_SHARE * len(main))  # an original test may itself be outside the statement
    kept = [r for r in unique if sum(1 for s in main if not _holds(r, s.args)) <= allowed]
    return Preconditions(names, kept + examples, [r for r in unique if r not in kept])


# ---------------------------------------------------------------- boundary inputs within the rules
