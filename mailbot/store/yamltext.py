"""The one YAML reader of the files an operator writes: start lists and configurations.

It is PyYAML's safe loader with bounds, so that whatever a file holds it either
gives plain values (mappings, lists, text, numbers, booleans, dates) or one
:class:`YamlProblem` naming the line and column, never another exception:

- nesting deeper than :data:`MAX_DEPTH` and text longer than :data:`MAX_CHARS`
  are refused (the composer recurses: ``[[[[...`` ran out of stack);
- a whole number longer than 64 bits is refused (Python refuses to read or print
  one of more than 4,300 digits, and no key of either file wants one);
- a date or time that is not one (``2026-02-30``, ``+99:99``, ``!!timestamp x``)
  is left as its text, for the reader of that key to refuse by name;
- a NUL or an unpaired surrogate (``"\\0"``, ``"\\ud800"``) in any text is refused:
  no file name, address or database column takes it;
- a tag applied to a value it cannot read (``!!float abc``, ``!!bool maybe``) is
  refused where it stands.

>>> read_yaml("start: 2026-03-01\\nend: 2026-02-30\\n")
{'start': datetime.date(2026, 3, 1), 'end': '2026-02-30'}
>>> read_yaml("name: !!float abc")
Traceback (most recent call last):
...
mailbot.store.yamltext.YamlProblem: line 1, column 7: could not convert string to float: 'abc'
>>> print(read_yaml("a: " + "[" * 1000))
Traceback (most recent call last):
...
mailbot.store.yamltext.YamlProblem: line 1, column 53: nested more than 50 deep
"""

from __future__ import annotations

import re
from typing import Any

import yaml
from yaml.constructor import ConstructorError

from mailbot.rules.errors import StoreError

#: The deepest nesting of lists and mappings a file may have.
MAX_DEPTH = 50
#: The most characters a file may have.
MAX_CHARS = 4_000_000
#: The largest whole number (in absolute value) a file may hold: 64 bits.
MAX_WHOLE = 2**63 - 1

_NOT_TEXT = re.compile(r"[\x00\ud800-\udfff]")
_BOOLEANS = "true, false, yes, no, on or off"


class YamlProblem(StoreError, ValueError):
    """The text is not YAML the bot reads; ``line`` and ``column`` count from 1 (0:
    unknown), ``problem`` is one line.

    >>> str(YamlProblem("found a tab", 3, 5))
    'line 3, column 5: found a tab'
    """

    def __init__(self, problem: str, line: int = 0, column: int = 0) -> None:
        self.problem = " ".join(problem.split())
        self.line = line
        self.column = column
        super().__init__(f"{self.where}: {self.problem}" if line else self.problem)

    @property
    def where(self) -> str:
        """``line 3, column 5`` (empty when the place is not known)."""
        return f"line {self.line}, column {self.column}" if self.line else ""


class _Loader(yaml.SafeLoader):
    """The safe loader with a bound on nesting and checked scalars."""

    def __init__(self, text: str) -> None:
        super().__init__(text)
        self.depth = 0

    def compose_node(self, parent: yaml.Node | None, index: Any) -> yaml.Node | None:
        self.depth += 1
        try:
            if self.depth > MAX_DEPTH:
                mark = self.peek_event().start_mark  # type: ignore[no-untyped-call]
                raise yaml.composer.ComposerError(
                    None, None, f"nested more than {MAX_DEPTH} deep", mark
                )
            return super().compose_node(parent, index)
        finally:
            self.depth -= 1

    def construct_object(self, node: yaml.Node, deep: bool = False) -> Any:
        try:
            return super().construct_object(node, deep)
        except yaml.YAMLError:
            raise
        except (ValueError, TypeError, KeyError, AttributeError, OverflowError) as exc:
            raise ConstructorError(None, None, str(exc), node.start_mark) from None

    def construct_scalar(self, node: yaml.Node) -> Any:
        value = super().construct_scalar(node)  # type: ignore[arg-type]
        found = _NOT_TEXT.search(value) if isinstance(value, str) else None
        if found:
            what = "a NUL character" if found.group() == "\x00" else "an unpaired surrogate"
            raise ConstructorError(None, None, f"{what} is not allowed", node.start_mark)
        return value

    def construct_yaml_bool(self, node: yaml.Node) -> bool:
        text = self.construct_scalar(node)
        if text.lower() not in self.bool_values:
            raise ConstructorError(None, None, f"a boolean is one of {_BOOLEANS}", node.start_mark)
        return bool(self.bool_values[text.lower()])

    def construct_yaml_int(self, node: yaml.Node) -> int:
        text = self.construct_scalar(node)
        if len(text) > 80:
            raise ConstructorError(None, None, "a whole number too large", node.start_mark)
        number: int = super().construct_yaml_int(node)  # type: ignore[arg-type]
        if abs(number) > MAX_WHOLE:
            raise ConstructorError(None, None, "a whole number too large", node.start_mark)
        return number

    def construct_yaml_timestamp(self, node: yaml.Node) -> Any:
        try:
            return super().construct_yaml_timestamp(node)  # type: ignore[arg-type]
        except (ValueError, TypeError, AttributeError, OverflowError):
            return self.construct_scalar(node)


_Loader.add_constructor("tag:yaml.org,2002:bool", _Loader.construct_yaml_bool)
_Loader.add_constructor("tag:yaml.org,2002:int", _Loader.construct_yaml_int)
_Loader.add_constructor("tag:yaml.org,2002:timestamp", _Loader.construct_yaml_timestamp)


def compose_yaml(text: str) -> tuple[Any, yaml.Node | None]:
    """The values of the YAML ``text`` and its node tree (for the line of each key);
    :class:`YamlProblem` when it is not YAML the bot reads.

    >>> data, node = compose_yaml("a: [1, 2]")
    >>> data, node.value[0][1].start_mark.column
    ({'a': [1, 2]}, 3)
    """
    if len(text) > MAX_CHARS:
        raise YamlProblem(f"longer than {MAX_CHARS:,} characters")
    loader = None
    try:
        loader = _Loader(text)
        node = loader.get_single_node()
        data = loader.construct_document(node) if node is not None else None
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        problem = exc.problem or exc.context or "not YAML"
        if mark is None:
            raise YamlProblem(problem) from None
        raise YamlProblem(problem, mark.line + 1, mark.column + 1) from None
    except yaml.reader.ReaderError as exc:
        line = text.count("\n", 0, exc.position) + 1
        column = exc.position - (text.rfind("\n", 0, exc.position) + 1) + 1
        code = ord(exc.character) if isinstance(exc.character, str) else exc.character
        raise YamlProblem(f"character #x{code:04x} is not allowed", line, column) from None
    except (yaml.YAMLError, ValueError, TypeError, KeyError, AttributeError) as exc:
        raise YamlProblem(str(exc) or type(exc).__name__) from None
    except (OverflowError, RecursionError, MemoryError) as exc:
        raise YamlProblem(f"too large to read ({type(exc).__name__})") from None
    finally:
        if loader is not None:
            loader.dispose()
    return data, node


def read_yaml(text: str) -> Any:
    """The values of the YAML ``text`` (see :func:`compose_yaml`)."""
    return compose_yaml(text)[0]
