"""The default configuration of a run: what each configuration value is when no user opts in,
and so which candidate paths (:mod:`zlint.scope.option_paths`) it never takes (:meth:`Defaults.decide`).

One abstract evaluation, over the trees the file summaries hold. A value is a literal
(``("l", v)``), a tuple of literals, an object that is not None (``("o", class)``, the class when
the run knows it; ``("o", class, 1)``: of it or a subclass), a value of known truth
(``("b", truth)``), keyword arguments known one by one (``("k", items)``, a key that may be
absent as ``("a", value)``), or unknown (:data:`UNKNOWN`). The transfer functions are
:func:`truth`, :func:`join`, :func:`compare` and :meth:`Defaults.value`.

* **Parameters** are what every call of the run passes: a literal, nothing (the parameter's own
  default), or a value itself known, evaluated where the call is (a parameter of the caller, an
  attribute of its ``self``). One call passing something unknown, a call this reading cannot bind
  (``obj.m(...)`` on an object of unknown class makes every method of that name unknown, a
  function handed on as a value) or a caller outside the run keeps it unknown, and so do the
  parameters of entry points (``forward``, dunders) and of functions no code of the run calls:
  their callers pass them per call. A ``**kwargs`` parameter that no call fills is empty:
  forwarding it passes nothing. A parameter annotated with a configuration class that stays
  unknown is an instance of it in its default configuration (a user's configuration is a
  non-default one).
* **Constructor parameters** are what the run's constructions of the class pass, or their
  defaults where it builds the class nowhere (a user builds it, in the default configuration
  unless they opt in); a required parameter annotated with a class of the run (``config:
  OPTConfig``) is that class in its default configuration. Only where the run holds the class's
  whole package (every construction in sight); a decorated ``__init__`` may be handed a saved
  configuration (diffusers' ``@register_to_config``), so its parameters are unknown. A class
  handed on as a value (to a factory) may be built with any literal the run puts in a dict or
  passes by keyword along with a class handed on (``model_args = dict(use_rel_pos=True)``).
* **Attributes** of an instance of class ``K`` are what ``K``'s ``__init__`` chain leaves
  (``super().__init__(config)`` binds the base's parameters to what ``K`` passes), its
  ``__post_init__`` chain, or class-level fields (a dataclass-style configuration's
  ``layerdrop: float = 0.0`` is a keyword of its constructor). ``self.x`` in a method of ``B`` is
  the same for ``B`` and each subclass of the run, or unknown. A write anywhere else spoils it,
  except a public method that sets a literal and that the class never calls (a user's toggle,
  ``enable_tiling()``); so does a write of that name on another object (``heads.keypoint_head =
  head``) made by code other than a user's call on a built object, unless the value is an object;
  a write by a computed name in code that building or running the class runs spoils every
  attribute (``f"pos_embed_{i}"``: those with its prefix), except in a configuration class
  (named ``*Config``/``*Configuration``), where it is how a saved configuration loads.
* **Helpers** whose body is one ``return`` (``def exists(v): return v is not None``) are
  evaluated on their arguments.
"""

from __future__ import annotations

import functools
import operator
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import PurePath

from zlint.core.walks import follow, reach
from zlint.scope.file_summary import ClassInfo, FileSummary, FunctionInfo
from zlint.scope.host_roles import file_role
from zlint.scope.names import Key, Project
from zlint.scope.option_paths import BINARY_OPS

UNKNOWN = ("?",)
_MISSING = ("-",)  # an attribute no code of the run sets: getattr's default answers
_NOT_NONE = ("o", None)
_ORDER = {"<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge}
# bases from outside the run whose __init__ sets no attribute a subclass reads as configuration
_INERT_BASES = frozenset({
    "torch.nn.Module", "nn.Module", "Module", "object", "ABC", "abc.ABC", "torch.nn.ModuleList", "nn.ModuleList",
    "torch.nn.ModuleDict", "nn.ModuleDict", "torch.nn.Sequential", "nn.Sequential",
})
_CONSTRUCTION = ("__init__", "__post_init__")
_ENTRY = ("forward", "__call__")  # run inside the compiled call
_MAX_DEPTH = 60  # nested evaluations before a value is given up as unknown


def truth(value: tuple) -> bool | None:
    """``bool(value)``, when known."""
    kind = value[0]
    if kind in ("l", "t", "k", "b"):
        return bool(value[1])
    return None  # an object may define __bool__ or __len__ (an empty ModuleList)


def join(a: tuple, b: tuple) -> tuple:
    """What a value is when it may be either: the same, or at least not None. Keyword
    arguments join key by key; a key one side lacks may be absent (``("a", value)``)."""
    if a == b:
        return a
    if a[0] == "k" and b[0] == "k":
        one, other = dict(a[1]), dict(b[1])
        keys = {}
        for key in one.keys() | other.keys():
            if key in one and key in other:
                keys[key] = join(one[key], other[key])
            else:
                value = one.get(key, other.get(key))
                keys[key] = value if value[0] == "a" else ("a", value)  # type: ignore[index]
        return ("k", tuple(sorted(keys.items())))
    if a[0] == "a" or b[0] == "a":
        return ("a", join(a[1] if a[0] == "a" else a, b[1] if b[0] == "a" else b))
    if _is_none(a) is False and _is_none(b) is False:
        return _NOT_NONE
    return UNKNOWN


def _keyword(passed: dict, name: str, default: Callable[[], tuple]) -> tuple | None:
    """What keyword arguments ``passed`` (a ``("k", ...)`` value's items) give ``name``: its
    value, joined with the default where it may be absent; None where it is absent."""
    if name not in passed:
        return None
    value = passed[name]
    return join(value[1], default()) if value[0] == "a" else value


def _is_none(value: tuple) -> bool | None:
    kind = value[0]
    if kind == "l":
        return value[1] is None
    if kind in ("t", "k", "o") or value == ("b", True):
        return False
    return None


def compare(op: str, left: tuple, right: tuple) -> tuple:
    """``left op right`` under the default configuration."""
    if op in ("is", "is not"):
        if left[0] == "l" and right[0] == "l" and (left[1] is None or right[1] is None or
                                                   type(left[1]) is bool and type(right[1]) is bool):
            same = left[1] is right[1]
        elif left == ("l", None) or right == ("l", None):
            none = _is_none(right if left == ("l", None) else left)
            if none is None:
                return UNKNOWN
            same = none
        else:
            return UNKNOWN
        return ("l", same is (op == "is"))
    if op in ("in", "not in"):
        if left[0] == "l" and right[0] in ("t", "k"):
            inside = left[1] in (right[1] if right[0] == "t" else dict(right[1]))
            return ("l", inside is (op == "in"))
        return UNKNOWN
    if left[0] != "l" or right[0] != "l":
        if op in ("==", "!=") and (left == ("l", None) or right == ("l", None)):
            none = _is_none(right if left == ("l", None) else left)
            return UNKNOWN if none is None else ("l", none is (op == "=="))
        return UNKNOWN
    a, b = left[1], right[1]
    if op in ("==", "!="):
        return ("l", (a == b) is (op == "=="))
    numbers = all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in (a, b))
    return ("l", _ORDER[op](a, b)) if numbers and op in _ORDER else UNKNOWN


def _arithmetic(op: str, left: tuple, right: tuple) -> tuple:
    if left[0] != "l" or right[0] != "l":
        return UNKNOWN
    a, b = left[1], right[1]
    if not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in (a, b)):
        return ("l", a + b) if op == "+" and isinstance(a, str) and isinstance(b, str) else UNKNOWN
    try:
        return ("l", BINARY_OPS[op](a, b))
    except (ArithmeticError, ValueError):
        return UNKNOWN


def _unknown(name: str) -> tuple:
    return UNKNOWN


class _Params:
    """Parameters computed one by one, once each (a cycle through one is unknown)."""

    def __init__(self, compute: Callable[[str], tuple]) -> None:
        self.compute = compute
        self.known: dict[str, tuple] = {}

    def __call__(self, name: str) -> tuple:
        found = self.known.get(name)
        if found is None:
            self.known[name] = UNKNOWN  # while it is computed
            found = self.known[name] = self.compute(name)
        return found


@dataclass
class _Context:
    """Where a tree is evaluated: its file, the class of ``self``, its parameters, and (while a
    constructor chain runs) the attributes it has set."""

    path: str
    cls: Key | None
    param: Callable[[str], tuple]
    attrs: dict[str, tuple] | None = None  # the instance's attributes: (tree, context)
    depth: int = 0


class Defaults:
    """The run-wide reading of the summaries' default-configuration tables."""

    def __init__(
        self, project: Project, functions: dict[Key, FunctionInfo], whole: frozenset[str],
        callers: dict[Key, set[Key]], escaped: set[Key],
    ) -> None:
        self.project = project
        self.functions = functions
        self.whole = whole
        # module- and class-level calls: callee's last name -> (caller, callee as written, arguments)
        self.by_name: dict[str, list[tuple[Key, str, list]]] = {}
        self._calls: dict[Key, list | None] = {}
        self._constructions: dict[Key, list] | None = None
        self.unbound: set[Key] = set(escaped)  # functions some call passes arguments to unseen
        self.children: dict[Key, list[Key]] = {}
        self._toggles: dict[Key, bool] = {}
        # classes handed on as values (`build_model_with_cfg(Sam, **kwargs)`): built by code that
        # passes what the run's literal keywords say (`model_args = dict(use_rel_pos=True)`)
        self.handed: set[Key] = set()
        self.keywords: dict[str, list] = {}
        self.foreign: set[str] | None = None  # see _foreign_writes
        self._mros: dict[Key, list[Key]] = {}
        self._base_sets: dict[Key, frozenset[Key]] = {}
        self._method_maps: dict[Key, dict[str, Key]] = {}
        self._reaches: dict[Key, frozenset[str]] = {}
        self._flags: dict[tuple[str, Key], bool] = {}
        self._memo: dict[tuple, tuple] = {}
        self._busy: set[tuple] = set()
        self._chains: dict[Key, list] = {}
        self._contexts: dict[Key, _Context] = {}
        self._index(callers)

    # tables ----------------------------------------------------------------------------------

    def _index(self, callers: dict[Key, set[Key]]) -> None:
        """Cheap tables; which calls reach which function is resolved when a value needs it."""
        project = self.project
        self.callers = callers
        for path, summary in project.files.items():
            for callee, calls in summary.call_args.items():  # module and class level
                self.by_name.setdefault(callee.rsplit(".", 1)[-1], []).append(((path, ""), callee, calls))
            for qual in summary.classes:
                for found in project.bases((path, qual)):
                    if found != (path, qual):
                        self.children.setdefault(found, []).append((path, qual))
            for name in summary.handed:
                found = project.class_of(path, name)
                if found is not None:
                    self.handed.add(found)
            for name, values in summary.keywords.items():
                self.keywords.setdefault(name, []).extend(values)
            for name in summary.value_names:  # `act=gelu`: called where we cannot see
                found = project.resolve_symbol(path, name)
                if found is not None:
                    self.unbound.add(found)
            # `target.merge(safe_merge=True)` on an object of unknown class may call any method
            # of that name, with arguments this reading does not bind
            names = summary.attribute_names.union(*(f.attribute_names for f in summary.functions.values()))
            for name in names:
                self.unbound.update(project.methods_named.get(name, ()))

    def _foreign_writes(self) -> set[str]:
        """The attributes the run's code sets on other objects (`heads.keypoint_head = head`):
        a class's attribute of that name may not be what its own code sets. Not where only a
        user's call makes the write (``enable_gradient_checkpointing()``), nor in host-side
        files (conversion scripts and tests build saved configurations)."""
        out: set[str] = set()
        for path, summary in self.project.files.items():
            if file_role(path) is not None or PurePath(path).name.startswith("convert_"):
                continue
            out.update(summary.foreign_writes)  # module level: at import
            for qual, function in summary.functions.items():
                if function.foreign_writes and not self._user_called((path, qual)):
                    out.update(function.foreign_writes)
        return out

    def _user_called(self, key: Key) -> bool:
        """Code only a user's call on a built object runs: a public method (no entry point) that
        no code of the run calls (a toggle: ``enable_gradient_checkpointing()``), or a function
        only such code calls. A public function no code calls may be a builder
        (``retinanet_resnet50_fpn_v2()`` sets ``head._loss_type = "giou"``): what it sets is that
        model's default."""
        if key in self._toggles:
            return self._toggles[key]
        self._toggles[key] = False  # a cycle: run by default, for all we know
        function = self.functions[key]
        callers = self.callers.get(key, ())
        if callers:
            found = all(self._user_called(caller) for caller in callers)
        else:
            found = function.cls is not None and not function.name.startswith("_") and function.name not in _ENTRY and (
                key not in self.unbound and not any(c.rsplit(".", 1)[-1] == function.name
                                                    for _, c, _ in self.by_name.get(function.name, ())))
        self._toggles[key] = found
        return found

    def _caller_function(self, caller: Key) -> FunctionInfo:
        return self.functions.get(caller) or FunctionInfo("", "", 0, 0, None)

    def calls_of(self, key: Key) -> list[tuple[Key, list, bool]] | None:
        """The recorded calls of function ``key``: (caller, arguments, passes self explicitly);
        None when a call reaches it that passes arguments this reading does not see (a call on
        an object of unknown class, the function taken as a value). Calls in branches dynamo
        never takes pass nothing to the compiled code."""
        if key in self._calls:
            return self._calls[key]
        name = self.functions[key].name
        out: list[tuple[Key, list, bool]] | None = [] if key not in self.unbound else None
        for caller in self.callers.get(key, ()) if out is not None else ():
            found = self.functions[caller]
            if name in found.refs:
                out = None
                break
            matched = False
            for callee in (*found.calls, *found.branch_calls):
                if callee.rsplit(".", 1)[-1] != name:
                    continue
                if callee not in found.call_args:
                    matched = False  # `obj.m(...)`: no arguments recorded
                    break
                if self._names(caller, callee, key):
                    out.extend(self._bound_calls(caller, callee, found.call_args[callee]))
                    matched = True
            if not matched:
                out = None
                break
        for caller, callee, calls in self.by_name.get(name, ()) if out is not None else ():
            if self._names(caller, callee, key):  # module-level calls
                out.extend(self._bound_calls(caller, callee, calls))  # type: ignore[union-attr]
        self._calls[key] = out
        return out

    def _bound_calls(self, caller: Key, callee: str, calls: list) -> list[tuple[Key, list, bool]]:
        head, _, rest = callee.partition(".")
        explicit = bool(rest) and self.project.class_of(caller[0], head) is not None  # `Cls.m(self, ...)`
        return [(caller, call, explicit) for call in calls]

    def _names(self, caller: Key, callee: str, key: Key) -> bool:
        """Whether ``callee``, called in ``caller``, may be function ``key`` (named as it is)."""
        function = self.functions[key]
        head, _, rest = callee.partition(".")
        if head in ("self", "super()") and rest and "." not in rest:
            owner = self.functions.get(caller)
            if owner is None or not owner.cls or not function.cls:
                return False
            mine, theirs = (caller[0], owner.cls), (key[0], function.cls)
            return mine == theirs or theirs in self._bases(mine) or mine in self._bases(theirs)
        if not rest:
            return (caller[0], f"{caller[1]}.{callee}") == key or self.project.resolve_symbol(caller[0], callee) == key
        return key in self.project.callees(caller[0], self._caller_function(caller), [callee])

    def constructions_of(self, cls: Key) -> list[tuple[Key, list]]:
        """The recorded constructions of class ``cls``: (caller, arguments)."""
        if self._constructions is None:  # the first time: every call of a class, by its name
            self._constructions = {}
            for path, summary in self.project.files.items():
                tables = [((path, ""), summary.call_args),
                          *(((path, q), f.call_args) for q, f in summary.functions.items())]
                for caller, table in tables:
                    for callee, calls in table.items():
                        if callee.rsplit(".", 1)[-1][:1].isupper():
                            found = self.project.class_of(path, callee)
                            if found is not None:
                                self._constructions.setdefault(found, []).extend((caller, call) for call in calls)
        return self._constructions.get(cls, [])

    def summary(self, path: str) -> FileSummary:
        return self.project.files[path]

    def klass(self, key: Key) -> ClassInfo:
        return self.project.files[key[0]].classes[key[1]]

    def mro(self, key: Key) -> list[Key]:
        """``key`` and its bases of the run, nearest first."""
        found = self._mros.get(key)
        if found is None:
            found = self._mros[key] = self._mro(key)
        return found

    def _bases(self, key: Key) -> frozenset[Key]:
        found = self._base_sets.get(key)
        if found is None:
            found = self._base_sets[key] = frozenset(self.mro(key))
        return found

    def _methods(self, key: Key) -> dict[str, Key]:
        """Method name -> the method ``key``'s instances run (its own, else its bases')."""
        found = self._method_maps.get(key)
        if found is None:
            self._method_maps[key] = {}  # a cycle of bases
            found = {}
            for parent in reversed(self.project.bases(key)):
                if parent != key:
                    found.update(self._methods(parent))
            found.update((name, (key[0], qual)) for name, qual in self.klass(key).methods.items())
            self._method_maps[key] = found
        return found

    def _mro(self, key: Key) -> list[Key]:
        return list(reach([key], self.project.bases, breadth_first=True))

    def _flag(self, kind: str, key: Key, compute: Callable[[Key], bool]) -> bool:
        found = self._flags.get((kind, key))
        if found is None:
            found = self._flags[kind, key] = compute(key)
        return found

    def _closed(self, key: Key) -> bool:
        return self._flag("closed", key, self._closed_class)

    def _configuration(self, key: Key) -> bool:
        return self._flag("configuration", key, self._configuration_class)

    def _closed_class(self, key: Key) -> bool:
        """Every attribute an instance has is one the run's code sets: no base from outside
        the run (other than ``nn.Module`` and plain objects), no ``__getattr__``."""
        for current in self.mro(key):
            info = self.klass(current)
            if info.hooks:
                return False
            summary = self.summary(current[0])
            for base, found in self.project.base_classes(*current):
                if found is None:
                    qualified = summary.imports.get(base.split(".")[0])
                    full = base if qualified is None else qualified + base[len(base.split(".")[0]):]
                    if base not in _INERT_BASES and full not in _INERT_BASES:
                        return False
        return True

    def _configuration_class(self, key: Key) -> bool:
        """A configuration class: it or a base (of the run or not) is named ``*Config``/``*Configuration``."""
        for current in self.mro(key):
            names = [current[1].rsplit(".", 1)[-1], *(b.rsplit(".", 1)[-1] for b in self.klass(current).bases)]
            if any(n.endswith(("Config", "Configuration")) for n in names):
                return True
        return False

    # evaluation ------------------------------------------------------------------------------

    def context(self, key: Key) -> _Context:
        """Where the code of function ``key`` (``(path, "")``: module level) is evaluated."""
        found = self._contexts.get(key)
        if found is not None:
            return found
        function = self.functions.get(key)
        cls = (key[0], function.cls) if function is not None and function.cls else None
        if function is None:
            param: Callable[[str], tuple] = _unknown
        elif cls is not None and function.name in _CONSTRUCTION:
            param = functools.partial(self.constructor_param, cls, function.name)
        else:
            param = functools.partial(self.param, key)
        found = self._contexts[key] = _Context(key[0], cls, param)
        return found

    def value(self, tree: object, ctx: _Context) -> tuple:
        """The value of ``tree`` in ``ctx`` (module docstring)."""
        if type(tree) is not list:
            return UNKNOWN
        if ctx.depth > _MAX_DEPTH:
            return UNKNOWN
        kind = tree[0]
        if kind == "l":
            return ("l", tree[1])
        if kind == "p":
            return ctx.param(tree[1])
        if kind == "a":
            value = self.self_attribute(ctx, tree[1])
            return UNKNOWN if value is _MISSING else value
        if kind == "g":
            return self.attribute_of(tree, ctx)
        if kind == "not":
            inner = truth(self.value(tree[1], ctx))
            return UNKNOWN if inner is None else ("l", not inner)
        if kind in ("and", "or"):
            return self._boolean(kind, tree[1], ctx)
        if kind == "cmp":
            return compare(tree[1], self.value(tree[2], ctx), self.value(tree[3], ctx))
        if kind == "if":
            test = truth(self.value(tree[1], ctx))
            if test is not None:
                return self.value(tree[2] if test else tree[3], ctx)
            return join(self.value(tree[2], ctx), self.value(tree[3], ctx))
        if kind == "t":
            return ("t", tuple(tree[1]))
        if kind == "k":
            return ("k", tuple(sorted((k, self.value(v, ctx)) for k, v in tree[1].items())))
        if kind == "o":
            return ("o", self.project.class_of(ctx.path, tree[1]))
        if kind in ("n", "s"):
            return _NOT_NONE
        if kind == "c":
            return self.helper(tree, ctx)
        if kind == "neg":
            inner = self.value(tree[1], ctx)
            return _arithmetic("-", ("l", 0), inner)
        if kind == "bin":
            return _arithmetic(tree[1], self.value(tree[2], ctx), self.value(tree[3], ctx))
        return UNKNOWN

    def _boolean(self, kind: str, operands: list, ctx: _Context) -> tuple:
        """``and``/``or`` give the operand that ends them (``cfg or Config()``). An operand of
        unknown truth may end them too, with the truth that ends them: ``self.training and
        self.layerdrop > 0`` is false whatever ``self.training`` is."""
        stop = kind == "or"  # the truth that ends the chain
        possible: list[tuple] = []
        for position, operand in enumerate(operands):
            value = self.value(operand, ctx)
            known = truth(value)
            if known is stop or position == len(operands) - 1:
                possible.append(value)
                break
            if known is None:
                possible.append(value)
        if len(possible) == 1:
            return possible[0]
        return ("b", stop) if truth(possible[-1]) is stop else UNKNOWN

    def self_attribute(self, ctx: _Context, name: str) -> tuple:
        """``self.name`` where ``ctx`` is: in a constructor chain, of the instance it builds."""
        if ctx.cls is None:
            return UNKNOWN
        if ctx.attrs is not None:
            return self.instance_attribute(ctx.cls, name)
        return self.read(ctx.cls, name)

    def attribute_of(self, tree: list, ctx: _Context) -> tuple:
        """``obj.y`` / ``getattr(obj, "y", default)``."""
        base, name = tree[1], tree[2]
        if type(base) is list and base[0] == "s":
            value, cls = self.self_attribute(ctx, name), ctx.cls
        else:
            obj = self.value(base, ctx)
            cls = obj[1] if obj[0] == "o" else None
            if cls is None:
                value = UNKNOWN
            elif len(obj) > 2:  # an instance of the class or of a subclass
                value = self.read(cls, name, missing=True)
            else:
                value = self.instance_attribute(cls, name)
        if value is _MISSING:
            if len(tree) > 3 and cls is not None and self._closed(cls):
                return self.value(tree[3], ctx)
            return UNKNOWN
        return value

    def helper(self, tree: list, ctx: _Context) -> tuple:
        """A one-``return`` helper of the run, on its arguments."""
        found = self.project.resolve_symbol(ctx.path, tree[1])
        function = self.functions.get(found) if found is not None else None
        if function is None or function.returns is None or not function.signature or function.signature[5]:
            return UNKNOWN
        positional, kwonly, vararg, kwarg, defaults = _signature(function)[:5]
        args, named = tree[2], tree[3]
        if len(args) > len(positional) or any(k not in positional and k not in kwonly for k in named):
            return UNKNOWN
        bound: dict[str, object] = dict(zip(positional, args))
        bound.update(named)
        cache: dict[str, tuple] = {}

        def param(name: str) -> tuple:
            if name not in cache:
                if name in bound:
                    cache[name] = self.value(bound[name], ctx)
                elif name in defaults:
                    cache[name] = self.value(defaults[name], ctx)
                else:
                    cache[name] = UNKNOWN
            return cache[name]

        return self.value(function.returns, _Context(found[0], None, param, None, ctx.depth + 1))  # type: ignore[index]

    def _memoized(self, key: tuple, compute: Callable[[], tuple]) -> tuple:
        found = self._memo.get(key)
        if found is not None:
            return found
        if key in self._busy or len(self._busy) > _MAX_DEPTH:
            return UNKNOWN  # a cycle (or a chain too long to follow): cut
        self._busy.add(key)
        try:
            found = compute()
        finally:
            self._busy.discard(key)
        self._memo[key] = found
        return found

    # parameters ------------------------------------------------------------------------------

    def param(self, key: Key, name: str) -> tuple:
        """Parameter ``name`` of function ``key``: what every call of the run passes."""
        return self._memoized(("p", key, name), lambda: self._param(key, name))

    def _param(self, key: Key, name: str) -> tuple:
        function = self.functions[key]
        if not function.signature or key[0] not in self.whole:
            return UNKNOWN
        value = self._passed(key, function, name)
        # a configuration object passed where we cannot see (`target.update_layer(name, config)`)
        # is one in its default configuration, as a user builds it unless they opt in
        return self._annotated(function, name, key[0], configuration=True) if value is UNKNOWN else value

    def _passed(self, key: Key, function: FunctionInfo, name: str) -> tuple:
        calls = self.calls_of(key)
        if not calls:
            return UNKNOWN
        out: tuple | None = None
        for caller, call, explicit in calls:
            value = self.bind(call, function, name, explicit, self._caller(caller))
            out = value if out is None else join(out, value)
            if out is UNKNOWN:
                break
        return out if out is not None else UNKNOWN

    def _caller(self, caller: _Context | Key) -> _Context:
        return caller if isinstance(caller, _Context) else self.context(caller)

    def bind(self, call: list, function: FunctionInfo, name: str, explicit: bool, ctx: _Context) -> tuple:
        """The value a call of ``function`` passes to parameter ``name`` (its default when it
        passes none)."""
        positional, kwonly, vararg, kwarg, defaults, annotations, takes_self, posonly = _signature(function)
        args, keywords, starred, unpacked = call if len(call) == 4 else (*call, 0, ())
        if name == vararg:
            return UNKNOWN
        if name == kwarg:
            named = set(positional[posonly:]) | set(kwonly)
            extra = {k: self.value(v, ctx) for k, v in keywords.items() if k not in named}
            for tree in unpacked:
                mapping = self.value(tree, ctx)
                if mapping[0] != "k":
                    return UNKNOWN
                extra.update((k, v) for k, v in mapping[1] if k not in named)
            return ("k", tuple(sorted(extra.items())))
        if name in positional:
            index = positional.index(name) - (0 if explicit else takes_self)
            if index < 0:
                return _NOT_NONE  # self
            if index < len(args):
                return self.value(args[index], ctx)
            if starred:
                return UNKNOWN
        if name in keywords and name not in positional[:posonly]:
            return self.value(keywords[name], ctx)
        def default() -> tuple:
            return self.value(defaults[name], ctx) if name in defaults else UNKNOWN

        for tree in unpacked:
            mapping = self.value(tree, ctx)
            if mapping[0] != "k":
                return UNKNOWN
            found = _keyword(dict(mapping[1]), name, default)
            if found is not None:
                return found
        return default()

    def constructor_param(self, cls: Key, method: str, name: str) -> tuple:
        """Parameter ``name`` of ``cls``'s own ``__init__`` (``__post_init__``: unknown), over
        every instance it builds: the class's and its subclasses' that run it."""
        if method != "__init__":
            return UNKNOWN
        return self._memoized(("i", cls, name), lambda: self._constructor_param(cls, name))

    def _constructor_param(self, cls: Key, name: str) -> tuple:
        return self._over_family(cls, lambda current: (
            env(name) for owner, env, _ in self.chain(current) if owner == cls
        ))

    def _over_family(self, cls: Key, values: Callable[[Key], Iterable[tuple]]) -> tuple:
        """The join of ``values(c)`` over ``cls`` and its subclasses of the run, transitively:
        unknown as soon as one is, or when there is none."""
        out: tuple | None = None
        for current in reach([cls], lambda c: self.children.get(c, ())):
            for value in values(current):
                out = value if out is None else join(out, value)
                if out is UNKNOWN:
                    return UNKNOWN
        return out if out is not None else UNKNOWN

    def chain(self, cls: Key) -> list[tuple[Key, Callable[[str], tuple], list | None]]:
        """The ``__init__``s that building ``cls`` runs, first the one it calls: (the class
        defining it, its parameters, its record), each base's bound to what the one before passes."""
        found = self._chains.get(cls)
        if found is not None:
            return found
        self._chains[cls] = []  # a cycle of bases: nothing
        out: list = []
        first = self.project.method(cls[0], cls[1], "__init__")
        function = self.functions.get(first) if first is not None else None
        if function is not None and function.cls:
            owner = (first[0], function.cls)  # type: ignore[index]
            env: Callable[[str], tuple] = functools.partial(self.constructor_arg, cls, first)
            while True:
                record = self.klass(owner).init
                out.append((owner, env, record))
                if record is None or record[1] is None or len(out) > 20:
                    break
                base = self._base_constructor(owner, "__init__", record)
                if base is None:
                    break
                call, explicit = record[1], not record[3].startswith("super()")
                ctx = _Context(owner[0], cls, env)
                env = _Params(functools.partial(self._bind_name, call, self.functions[base], explicit, ctx))
                owner = (base[0], self.functions[base].cls)  # type: ignore[assignment]
        self._chains[cls] = out
        return out

    def _base_constructor(self, owner: Key, method: str, record: list) -> Key | None:
        """The base constructor ``record``'s call runs (``super().__init__`` / ``Base.__init__``)."""
        callee = record[3]
        function = self.functions.get((owner[0], f"{owner[1]}.{method}"))
        if function is None:
            return None
        found = self.project.callees(owner[0], function, [callee])
        base = next((k for k in found if k[1].endswith("." + method) and self.functions[k].cls), None)
        return base if base is not None and self.functions[base].signature else None

    def _bind_name(self, call: list, function: FunctionInfo, explicit: bool, ctx: _Context, name: str) -> tuple:
        return self.bind(call, function, name, explicit, ctx)

    def constructor_arg(self, cls: Key, init: Key, name: str) -> tuple:
        """What the run's constructions of ``cls`` pass to parameter ``name`` of ``init`` (the
        ``__init__`` they run); its default, or its annotated class, where none is in sight."""
        return self._memoized(("c", cls, name), lambda: self._constructor_arg(cls, init, name))

    def _constructor_arg(self, cls: Key, init: Key, name: str) -> tuple:
        function = self.functions[init]
        if cls[0] not in self.whole or not function.signature or function.decorators:
            return UNKNOWN
        calls = self.constructions_of(cls)
        out: tuple | None = None if calls else self._default(function, name, init[0])
        for caller, call in calls:
            value = self.bind(call, function, name, False, self._caller(caller))
            out = value if out is None else join(out, value)
            if out is UNKNOWN:
                return UNKNOWN
        return self._handed(cls, name, out if out is not None else UNKNOWN)

    def _handed(self, cls: Key, name: str, value: tuple) -> tuple:
        """A parameter of a class handed on as a value: the factory that builds it may pass any
        literal the run passes by that keyword anywhere (``dict(use_rel_pos=True)``)."""
        if cls in self.handed:
            for literal in self.keywords.get(name, ()):
                value = join(value, ("l", literal))
                if value is UNKNOWN:
                    break
        return value

    def _default(self, function: FunctionInfo, name: str, path: str) -> tuple:
        """A parameter no call passes: its default; a required one annotated with a class of
        the run is an instance of it in its default configuration; ``**kwargs`` is empty."""
        positional, kwonly, vararg, kwarg, defaults, annotations = _signature(function)[:6]
        if name == kwarg:
            return ("k", ())
        if name in defaults:
            return self.value(defaults[name], _Context(path, None, _unknown))
        return self._annotated(function, name, path)

    def _annotated(self, function: FunctionInfo, name: str, path: str, configuration: bool = False) -> tuple:
        """A parameter annotated with a class of the run (``config: OPTConfig``): an instance of
        it or of a subclass, in its default configuration; ``configuration``: only for a
        configuration class."""
        annotation = _signature(function)[5].get(name)
        found = self.project.class_of(path, annotation) if annotation else None
        if found is None or (configuration and not self._configuration(found)):
            return UNKNOWN
        return ("o", found, 1)

    # attributes ------------------------------------------------------------------------------

    def read(self, cls: Key, name: str, missing: bool = False) -> tuple:
        """``self.name`` in a method of ``cls``: the same for the class and each subclass, or
        unknown; ``missing``: :data:`_MISSING` where none of them sets it."""
        value = self._memoized(("r", cls, name), lambda: self._read(cls, name))
        return UNKNOWN if value is _MISSING and not missing else value

    def _read(self, cls: Key, name: str) -> tuple:
        return self._over_family(cls, lambda current: (self.instance_attribute(current, name),))

    def instance_attribute(self, cls: Key, name: str) -> tuple:
        """Attribute ``name`` of an instance of exactly ``cls``: unknown when a write spoils it,
        :data:`_MISSING` when no code of the run sets it."""
        if self._spoiled(cls, name):
            return UNKNOWN
        value = _MISSING
        attrs = self._memo_attrs(cls)
        if attrs is None:
            return UNKNOWN
        if name in attrs:
            tree, ctx = attrs[name]
            value = self._memoized(("v", cls, name), lambda: self.value(tree, ctx))
        else:
            for current in self.mro(cls):
                found = self.klass(current).fields.get(name)
                if found is not None:
                    value = self.value(found[0], _Context(current[0], cls, _unknown))
                    break
        # a flag some code sets on another object (`roi_heads.keypoint_roi_pool = pool`,
        # `block.fused_attn = False`) may be this one; an object it holds (`encoder.config =
        # config`, a submodule) is still an object
        if self.foreign is None:
            self.foreign = self._foreign_writes()
        if name in self.foreign and value[0] != "o":
            return UNKNOWN
        return value

    def _spoiled(self, cls: Key, name: str) -> bool:
        """Whether code other than the constructor chain may set ``name`` on an instance of
        ``cls``: any write except a user's toggle (a public method that sets a literal and that
        the class never calls itself, ``enable_tiling()``); a write by a computed name in a
        method the construction, ``forward`` or ``__call__`` runs (outside a configuration
        class, where it loads a saved configuration)."""
        mro = self.mro(cls)
        called: set[str] | None = None
        for current in mro:
            info = self.klass(current)
            if name in info.methods:
                return True  # a method or property of that name: no plain value
            for method, literal in info.writes.get(name, ()):
                if not literal or method.startswith("_") or method in _ENTRY:
                    return True
                called = called if called is not None else {c for k in mro for c in self.klass(k).self_calls}
                if method in called:
                    return True
            if any(len(key) > 1 and key[-1] == "*" and name.startswith(key[:-1]) for key in info.writes):
                return True  # `setattr(self, f"pos_embed_{i}", ...)`
        return self._computed(cls)

    def _reach(self, cls: Key) -> frozenset[str]:
        """The methods of ``cls`` its construction, ``forward`` and ``__call__`` run, through
        calls on ``self`` (by name)."""
        found = self._reaches.get(cls)
        if found is not None:
            return found
        methods = self._methods(cls)

        def called(name: str) -> Iterator[str]:
            function = self.functions.get(methods[name]) if name in methods else None
            for callee in () if function is None else (
                *function.calls, *function.branch_calls, *(f"self.{r}" for r in function.refs)
            ):
                head, _, rest = callee.partition(".")
                if head in ("self", "super()") and rest and "." not in rest:
                    yield rest

        found = self._reaches[cls] = frozenset(reach([*_CONSTRUCTION, *_ENTRY], called))
        return found

    def _computed(self, cls: Key) -> bool:
        """A write by a computed name that building or running ``cls`` may make: it may set
        any attribute (outside a configuration class, where it loads a saved configuration)."""
        def compute(key: Key) -> bool:
            reach = None
            for current in self.mro(key):
                for method, _ in self.klass(current).writes.get("*", ()):
                    reach = reach if reach is not None else self._reach(key)
                    if method in reach:
                        return not self._configuration(key)
            return False

        return self._flag("computed", cls, compute)

    def _memo_attrs(self, cls: Key) -> dict[str, tuple] | None:
        key = ("attrs", cls)
        if key in self._memo:
            return self._memo[key]  # type: ignore[return-value]
        if key in self._busy:
            return None
        self._busy.add(key)
        try:
            attrs = self._attributes(cls)
        finally:
            self._busy.discard(key)
        self._memo[key] = attrs  # type: ignore[assignment]
        return attrs

    def _attributes(self, cls: Key) -> dict[str, tuple]:
        """What building ``cls`` leaves in each attribute: (tree, where to evaluate it)."""
        attrs: dict[str, tuple] = {}
        chain = self.chain(cls)
        if not chain:  # a dataclass-style class: its annotated fields are its keywords
            for current in reversed(self.mro(cls)):
                for name, (tree, annotated) in self.klass(current).fields.items():
                    if annotated:
                        field = functools.partial(self._field_of, cls, tree, current[0])
                        attrs[name] = (["p", name], _Context(current[0], cls, field, attrs))
        else:
            self._run(chain, 0, cls, attrs)
        post = self.project.method(cls[0], cls[1], "__post_init__")
        if post is not None and self.functions[post].cls:
            def base_post_init(owner: Key) -> Key | None:
                record = self.klass(owner).post_init
                base = self._base_constructor(owner, "__post_init__", record) if record[1] is not None else None
                return (base[0], self.functions[base].cls) if base is not None else None  # type: ignore[return-value]

            for owner in follow((post[0], self.functions[post].cls), base_post_init):  # type: ignore[arg-type]
                record = self.klass(owner).post_init
                if record is None:
                    break
                ctx = _Context(owner[0], cls, _unknown, attrs)
                for name, tree in record[0].items():
                    attrs[name] = (tree, ctx)
        return attrs

    def _run(self, chain: list, index: int, cls: Key, attrs: dict[str, tuple]) -> None:
        """Run ``chain[index]``'s record: what it sets before its base's constructor, the base,
        then what it sets after (a base outside the run may set anything before that)."""
        owner, env, record = chain[index]
        if record is None:
            return
        sets, call, after = record[0], record[1], set(record[2])
        ctx = _Context(owner[0], cls, env, attrs)
        for name, tree in sets.items():
            if name not in after:
                attrs[name] = (tree, ctx)
        if call is not None and index + 1 < len(chain):
            self._run(chain, index + 1, cls, attrs)
        elif call is not None and not self._inert_base(owner):
            for name in sets:
                if name not in after:
                    attrs[name] = (0, ctx)
        for name in after:
            attrs[name] = (sets.get(name, 0), ctx)

    def _inert_base(self, owner: Key) -> bool:
        summary = self.summary(owner[0])
        for base, found in self.project.base_classes(*owner):
            if found is not None:
                continue
            head = base.split(".")[0]
            full = (summary.imports.get(head, head)) + base[len(head):]
            if base not in _INERT_BASES and full not in _INERT_BASES:
                return False
        return True

    def _field_of(self, cls: Key, default: object, path: str, name: str) -> tuple:
        return self.field_arg(cls, name, default, path)

    def field_arg(self, cls: Key, name: str, default: object, path: str) -> tuple:
        """A dataclass-style field: what the run's constructions pass by keyword, else its default."""
        return self._memoized(("f", cls, name), lambda: self._field_arg(cls, name, default, path))

    def _field_arg(self, cls: Key, name: str, default: object, path: str) -> tuple:
        if cls[0] not in self.whole:
            return UNKNOWN
        table = self._fields_passed(cls)
        if table is None:
            return UNKNOWN
        passed, unpacked, count = table
        values = [(caller, tree) for caller, tree in passed.get(name, ())]
        out: tuple | None = None
        def own_default() -> tuple:
            return self.value(default, _Context(path, None, _unknown))

        for caller, tree in unpacked:  # `Config(**options)`: known keywords only
            mapping = self.value(tree, self._caller(caller))
            if mapping[0] != "k":
                return UNKNOWN
            found = _keyword(dict(mapping[1]), name, own_default)
            if found is not None:
                out = found if out is None else join(out, found)
        for caller, tree in values:
            value = self.value(tree, self._caller(caller))
            out = value if out is None else join(out, value)
            if out is UNKNOWN:
                return UNKNOWN
        if len(values) < count or out is None:  # some construction leaves it to its default
            value = self.value(default, _Context(path, None, _unknown))
            out = value if out is None else join(out, value)
        return self._handed(cls, name, out)

    def _fields_passed(self, cls: Key) -> tuple[dict[str, list], list, int] | None:
        """The keywords the run's constructions of a dataclass-style ``cls`` pass: {field:
        [(caller, tree)]}, the ``**`` arguments, how many constructions; None when one passes
        arguments by position (this reading does not order the fields)."""
        key = ("fields", cls)
        if key not in self._memo:
            passed: dict[str, list] = {}
            unpacked: list = []
            calls = self.constructions_of(cls)
            table: tuple | None = (passed, unpacked, len(calls))
            for caller, call in calls:
                args, keywords, starred, stars = call if len(call) == 4 else (*call, 0, ())
                if args or starred:
                    table = None
                    break
                for name, tree in keywords.items():
                    passed.setdefault(name, []).append((caller, tree))
                unpacked.extend((caller, tree) for tree in stars)
            self._memo[key] = table  # type: ignore[assignment]
        return self._memo[key]  # type: ignore[return-value]

    # decisions -------------------------------------------------------------------------------

    def decide(self, path: str) -> list[str | None]:
        """Per candidate of the file: the reason its path is never taken under the default
        configuration, or None."""
        out: list[str | None] = []
        for candidate in self.summary(path).option_paths:
            qual, tree, untaken = candidate[5], candidate[6], candidate[7]
            ctx = self.context((path, qual))
            value = truth(self.value(tree, ctx))
            out.append(self.reason(tree, untaken, ctx) if value is untaken and value is not None else None)
        return out

    def reason(self, tree: object, value: bool, ctx: _Context) -> str:
        """``only when self.use_tiling is not its default (False)``: what decides ``tree``."""
        found: dict[str, tuple] = {}
        self._deciding(tree, value, ctx, found)
        if not found:
            return "only under a non-default configuration"
        values = ", ".join(_show(v) for v in found.values())
        if len(found) == 1:
            return f"only when {next(iter(found))} is not its default ({values})"
        return f"only when {', '.join(found)} are not their defaults ({values})"

    def _deciding(self, tree: object, value: bool | None, ctx: _Context, found: dict[str, tuple]) -> None:
        """The configuration values (by label) that make ``tree`` certainly ``value``."""
        if type(tree) is not list:
            return
        kind = tree[0]
        if kind == "not":
            self._deciding(tree[1], None if value is None else not value, ctx, found)
        elif kind in ("and", "or"):
            # `and` is False by its False operands, True by all; `or` the other way round
            short = value is (kind == "or")
            for operand in tree[1]:
                if value is None or not short or truth(self.value(operand, ctx)) is value:
                    self._deciding(operand, value, ctx, found)
        elif kind in ("p", "a", "g"):
            label = _label(tree)
            known = self.value(tree, ctx)
            if label is not None and known is not UNKNOWN:
                found.setdefault(label, known)
            elif kind == "g":
                self._deciding(tree[1], None, ctx, found)
        elif kind == "c":
            for part in (*tree[2], *tree[3].values()):
                self._deciding(part, None, ctx, found)
        elif kind == "if":
            test = truth(self.value(tree[1], ctx))
            self._deciding(tree[1], None, ctx, found)
            for arm, taken in ((tree[2], True), (tree[3], False)):
                if test is None or test is taken:
                    self._deciding(arm, None, ctx, found)
        elif kind in ("cmp", "bin"):
            self._deciding(tree[2], None, ctx, found)
            self._deciding(tree[3], None, ctx, found)
        elif kind == "neg":
            self._deciding(tree[1], None, ctx, found)


def _signature(function: FunctionInfo) -> tuple:
    """(positional parameters, keyword-only ones, ``*args``, ``**kwargs``, {parameter: default
    tree}, {parameter: annotated class}, takes self, positional-only count)."""
    count, vararg, kwarg, defaults, annotations, takes_self, posonly = function.signature
    return (function.params[:count], function.params[count:], vararg, kwarg, defaults, annotations, takes_self,
            posonly)


def _label(tree: list) -> str | None:
    kind = tree[0]
    if kind == "p":
        return tree[1]
    if kind == "a":
        return f"self.{tree[1]}"
    if kind == "s":
        return "self"
    if kind == "g" and type(tree[1]) is list:
        base = _label(tree[1])
        return f"{base}.{tree[2]}" if base is not None else None
    return None


def _show(value: tuple) -> str:
    if value[0] == "l":
        return repr(value[1])
    if value[0] == "t":
        return repr(value[1])
    if value[0] == "k":
        return repr(dict(value[1]))
    return "an object"

