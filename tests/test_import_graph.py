"""Importing a module of the bot runs no other module's code into shape: no import
cycles, and no module that fills another module's globals.

Both checks read the modules' syntax trees, not a running interpreter, so that
what an import does cannot depend on which modules a test run imported before.

**Cycles.** Every ``import`` and ``from … import`` of a ``mailbot`` module counts,
at the top of a module or inside a function (a function's import runs when it is
called, and a cycle through it is as real); the imports under
``if TYPE_CHECKING:`` do not (they never run). ``from mailbot.compose import
move_mail`` imports the module ``mailbot.compose.move_mail``; ``from
mailbot.rules.phrase import Phrase`` imports ``mailbot.rules.phrase``. No group of
modules may reach each other through their imports (every strongly connected
component of the graph is one module). A package's ``__init__`` is not counted as
imported by its modules: importing ``mailbot.compose.notifier`` runs
``mailbot/compose/__init__.py`` first, but that file imports nothing.

**Globals filled from outside.** A module may not change what another module's
global holds: no assignment (``=``, ``+=``, ``del``, ``setattr``) to an attribute
of an imported module or to an item of one (``phrase.ENGLISH = …``,
``phrase.ENGLISH[:] = …``, ``registry.TELLERS[kind] = …``), no call of a mutating
method on it (``phrase.ENGLISH.update(…)``, ``.append``, ``.extend``, ``.insert``,
``.add``, ``.setdefault``, ``.pop``, ``.clear``, ...), and the same on a name
imported from another module (``from mailbot.compose.registry import TELLERS``,
then ``TELLERS[kind] = …`` or ``TELLERS.update(…)``). A name a function binds
itself (a parameter, an assignment) is that function's, not the import's. The
rule is the direct write: a module that calls another's function which fills its
own global (a registering decorator) is caught by the cycle it needs, or by the
test of that module's table.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

import mailbot

PACKAGE = Path(mailbot.__file__).parent
#: The methods that change a list, a dict or a set in place.
MUTATORS = frozenset({
    "append", "extend", "insert", "remove", "pop", "popitem", "clear", "sort", "reverse",
    "update", "setdefault", "add", "discard", "difference_update", "intersection_update",
    "symmetric_difference_update", "__setitem__", "__delitem__", "__setattr__",
})  # fmt: skip


def module_name(path: Path) -> str:
    """``mailbot/compose/notifier.py`` → ``mailbot.compose.notifier`` (a package: its name)."""
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _nodes(tree: ast.AST) -> Iterator[ast.AST]:
    """Every node of ``tree``, without the bodies of ``if TYPE_CHECKING:``."""
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, ast.If) and _is_type_checking(node):
            for other in node.orelse:
                yield other
                yield from _nodes(other)
            continue
        yield node
        yield from _nodes(node)


def _tree(module: str) -> ast.Module:
    return ast.parse(MODULES[module].read_text(encoding="utf-8"))


def _bindings(tree: ast.AST) -> dict[str, str]:
    """The names the imports of ``tree`` bind, each to the dotted thing it names
    (``ev`` → ``mailbot.rules.events``, ``Phrase`` → ``mailbot.rules.phrase.Phrase``)."""
    bound: dict[str, str] = {}
    for node in _nodes(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    bound[alias.asname] = alias.name
                else:
                    top = alias.name.split(".")[0]
                    bound[top] = top
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for alias in node.names:
                bound[alias.asname or alias.name] = f"{node.module}.{alias.name}"
    return bound


def imported(tree: ast.AST) -> set[str]:
    """The ``mailbot`` modules ``tree`` imports (see the module's rule).

    >>> sorted(imported(ast.parse("from mailbot.compose import notifier, catalogue")))
    ['mailbot.compose.catalogue', 'mailbot.compose.notifier']
    >>> sorted(imported(ast.parse("from mailbot.rules.phrase import Phrase")))
    ['mailbot.rules.phrase']
    >>> imported(ast.parse("if TYPE_CHECKING:\\n    from mailbot.compose import notifier"))
    set()
    """
    found: set[str] = set()
    for node in _nodes(tree):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name in MODULES)
        elif isinstance(node, ast.ImportFrom) and node.module in MODULES and not node.level:
            for alias in node.names:
                whole = f"{node.module}.{alias.name}"
                found.add(whole if whole in MODULES else node.module)
    return found


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one node (Tarjan's algorithm).

    >>> cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}})
    [['a', 'b', 'c']]
    """
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for other in sorted(graph.get(node, ())):
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in on_stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            component = []
            while True:
                other = stack.pop()
                on_stack.discard(other)
                component.append(other)
                if other == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_no_module_of_the_bot_imports_itself_back() -> None:
    graph = {name: imported(_tree(name)) - {name} for name in MODULES}
    assert cycles(graph) == []


class _Writes(ast.NodeVisitor):
    """The writes of one module into what its imports bound (see the module's rule)."""

    def __init__(self, bound: dict[str, str]) -> None:
        self.bound = bound
        self.shadowed: list[set[str]] = [set()]
        self.found: list[str] = []

    def _owner(self, node: ast.expr) -> str | None:
        """The imported name ``node`` writes into (``phrase.ENGLISH[:]`` → ``phrase``),
        when it is one: an attribute or an item of it, or of a name imported from
        another module."""
        while isinstance(node, ast.Attribute | ast.Subscript):
            node = node.value
        if not isinstance(node, ast.Name) or node.id in self.shadowed[-1]:
            return None
        bound = self.bound.get(node.id, "")
        return node.id if bound == "mailbot" or bound.startswith("mailbot.") else None

    def _target(self, target: ast.expr, line: int) -> None:
        if isinstance(target, ast.Tuple | ast.List):
            for element in target.elts:
                self._target(element, line)
        elif isinstance(target, ast.Attribute | ast.Subscript):
            owner = self._owner(target)
            if owner is not None:
                self.found.append(f"line {line}: {ast.unparse(target)} ({self.bound[owner]})")

    def _scope(self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) -> None:
        own = {a.arg for a in (*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs)}
        own.update(a.arg for a in (node.args.vararg, node.args.kwarg) if a is not None)
        body = node.body if isinstance(node.body, list) else [node.body]
        for statement in body:
            for inner in ast.walk(statement):
                if isinstance(inner, ast.Name) and isinstance(inner.ctx, ast.Store):
                    own.add(inner.id)
        self.shadowed.append(self.shadowed[-1] | own)
        self.generic_visit(node)
        self.shadowed.pop()

    visit_FunctionDef = visit_AsyncFunctionDef = visit_Lambda = _scope

    def visit_If(self, node: ast.If) -> None:
        if _is_type_checking(node):
            for statement in node.orelse:
                self.visit(statement)
        else:
            self.generic_visit(node)

    def visit_Assign(self, node: ast.Assign) -> None:
        for target in node.targets:
            self._target(target, node.lineno)
        self.generic_visit(node)

    def visit_AugAssign(self, node: ast.AugAssign) -> None:
        self._target(node.target, node.lineno)
        if isinstance(node.target, ast.Name) and self._owner(node.target):
            # ``TELLERS += …`` on an imported list changes it in place
            self.found.append(f"line {node.lineno}: {node.target.id} += …")
        self.generic_visit(node)

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        self._target(node.target, node.lineno)
        self.generic_visit(node)

    def visit_Delete(self, node: ast.Delete) -> None:
        for target in node.targets:
            self._target(target, node.lineno)
        self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> None:
        function = node.func
        if isinstance(function, ast.Attribute) and function.attr in MUTATORS:
            owner = self._owner(function.value)
            if owner is not None and self._mutable(function.value, owner):
                self.found.append(f"line {node.lineno}: {ast.unparse(function)}(…)")
        if isinstance(function, ast.Name) and function.id in ("setattr", "delattr") and node.args:
            owner = self._owner(node.args[0])
            if owner is not None:
                written = ast.unparse(node.args[0])
                self.found.append(f"line {node.lineno}: {function.id}({written}, …)")
        self.generic_visit(node)

    def _mutable(self, value: ast.expr, owner: str) -> bool:
        """Whether ``value`` is another module's global (``phrase.ENGLISH``, or
        ``TELLERS`` imported by name), not a module itself (``os.environ.update`` is
        not the bot's, ``set.add`` a value's own)."""
        target = self.bound[owner]
        if isinstance(value, ast.Name):
            return target not in MODULES
        return True


def writes_into_imports(source: str) -> list[str]:
    """The lines of ``source`` that write into another module's globals.

    >>> writes_into_imports("from mailbot.rules import phrase as p\\np.ENGLISH[:] = [str]")
    ['line 2: p.ENGLISH[:] (mailbot.rules.phrase)']
    >>> writes_into_imports("from mailbot.rules import phrase\\nphrase.ENGLISH.update(x=1)")
    ['line 2: phrase.ENGLISH.update(…)']
    >>> writes_into_imports("from mailbot.compose.registry import T\\ndef f(k):\\n    T[k] = f")
    ['line 3: T[k] (mailbot.compose.registry.T)']
    >>> writes_into_imports("from mailbot.rules import phrase\\ndef f(phrase):\\n    phrase.x = 1")
    []
    >>> writes_into_imports("from mailbot.store.models import Game\\ng = Game()\\ng.x.append(1)")
    []
    """
    tree = ast.parse(source)
    visitor = _Writes(_bindings(tree))
    visitor.visit(tree)
    return visitor.found


@pytest.mark.parametrize("module", sorted(MODULES))
def test_no_module_fills_another_modules_globals(module: str) -> None:
    assert writes_into_imports(MODULES[module].read_text(encoding="utf-8")) == []


def test_the_checks_catch_what_they_are_for() -> None:
    # the cycle the notifier and its families made, and the catalogue's English
    graph = {
        "mailbot.compose.notifier": {"mailbot.compose.move_mail"},
        "mailbot.compose.move_mail": {"mailbot.compose.notifier"},
    }
    assert cycles(graph) == [["mailbot.compose.move_mail", "mailbot.compose.notifier"]]
    filled = "from mailbot.rules import phrase as _phrase\n_phrase.ENGLISH = [say]\n"
    assert writes_into_imports(filled) == ["line 2: _phrase.ENGLISH (mailbot.rules.phrase)"]
