"""Names across the files of one run: which file a dotted import names, which function or class
a name resolves to, a class's methods through its bases, the overrides of its subclasses, and
what a call may run (:meth:`Project.callees`)."""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from pathlib import PurePath

from zlint.core.walks import follow, once_per_key, reach
from zlint.scope.file_summary import FileSummary, FunctionInfo, qualify

# nn.Module and its subclasses in torch (Sequential, ModuleList, ...): their forward is traced.
_MODULE_BASE_PREFIXES = ("torch.nn.", "nn.")
# bases that say a class is not a module, whatever its methods are called
_PLAIN_BASES = frozenset({"object", "ABC", "abc.ABC", "Protocol", "typing.Protocol", "NamedTuple", "Enum"})

Key = tuple[str, str]  # (path, function qualname)


class Project:
    """Name resolution across the files of one run."""

    def __init__(self, summaries: Iterable[FileSummary]) -> None:
        self.files = {s.path: s for s in summaries}
        # every dotted module name a file may be imported as: a/b/c.py -> c, b.c, a.b.c
        self.modules: dict[str, str | None] = {}
        for path in self.files:
            parts = list(PurePath(path).with_suffix("").parts)
            if parts and parts[-1] == "__init__":
                parts = parts[:-1]
            for i in range(len(parts)):
                name = ".".join(parts[i:])
                # an ambiguous suffix (two files end in models/utils.py) resolves to nothing
                self.modules[name] = path if name not in self.modules else None
        self._bases: dict[Key, list[tuple[str, Key | None]]] = {}
        self._relative: dict[tuple[str, str], str | None] = {}
        self._children: dict[Key, list[Key]] | None = None  # class -> its direct subclasses
        # method name -> the methods of that name in the run's classes: a call on an object whose
        # class is not known (`self.head.predict(...)` with the head registered by a framework,
        # `components.head.predict(...)`) resolves by name when exactly one class defines it
        self.methods_named: dict[str, list[Key]] = {}
        for path, summary in self.files.items():
            for info in summary.classes.values():
                for name, qual in info.methods.items():
                    self.methods_named.setdefault(name, []).append((path, qual))

    def module_file(self, importer: str, dotted: str) -> str | None:
        """The file of the run that ``dotted`` (``.utils``, ``timm.layers``) names, if any."""
        if not dotted.startswith("."):
            return self.modules.get(dotted)
        # relative imports resolve from the importer's directory: memoized, as every file of a
        # package imports the same few siblings many times
        key = (os.path.dirname(importer), dotted)
        if key not in self._relative:
            self._relative[key] = self._relative_file(importer, dotted)
        return self._relative[key]

    def _relative_file(self, importer: str, dotted: str) -> str | None:
        level = len(dotted) - len(dotted.lstrip("."))
        base = PurePath(importer).parent
        for _ in range(level - 1):
            base = base.parent
        rest = dotted.lstrip(".").split(".") if dotted.strip(".") else []
        for candidate in (base.joinpath(*rest).with_suffix(".py") if rest else None,
                          base.joinpath(*rest, "__init__.py")):
            if candidate is not None and str(candidate) in self.files:
                return str(candidate)
        return None

    @once_per_key(default=None)  # a re-export cycle resolves to nothing
    def resolve_symbol(self, path: str, name: str) -> tuple[str, str] | None:
        """(file, qualname) of a function or class that ``name`` names in ``path``."""
        summary = self.files[path]
        if name in summary.functions or name in summary.classes:
            return path, name
        head, _, rest = name.partition(".")
        if rest and head in summary.classes:  # Cls.method (a class of the file wins, as for `Cls`)
            return path, name
        return self._imported_symbol(path, name)

    def _imported_symbol(self, path: str, name: str) -> tuple[str, str] | None:
        """What ``name`` names through the imports of ``path`` alone (what a class statement of
        the same name replaces), following re-exports."""
        summary = self.files[path]
        head, _, rest = name.partition(".")
        target = summary.imports.get(head)
        if target is None:
            return None
        found = self._split(path, f"{target}.{rest}" if rest else target)
        if found is None:
            return None
        file, symbol = found
        other = self.files[file]
        if symbol in other.functions or symbol in other.classes:
            return file, symbol
        if "." not in symbol and symbol in other.imports and (file, symbol) != (path, name):
            return self.resolve_symbol(file, symbol)  # re-exported through __init__.py
        return None

    def _split(self, path: str, full: str) -> tuple[str, str] | None:
        """A dotted target as imported in ``path`` (``timm.layers.f``, ``..utils.f``) split into a
        file of the run and the name in it, longest module first."""
        pieces = full.split(".") if not full.startswith(".") else None
        if pieces is None:
            dots = len(full) - len(full.lstrip("."))
            pieces = [full[:dots] + (full[dots:].split(".")[0] if full[dots:] else ""), *full[dots:].split(".")[1:]]
        for cut in range(len(pieces) - 1, 0, -1):
            module = ".".join(pieces[:cut]) if not pieces[0].startswith(".") else _join_relative(pieces[:cut])
            file = self.module_file(path, module)
            if file is not None:
                return file, ".".join(pieces[cut:])
        return None

    def alias_target(self, path: str, dotted: str) -> str | None:
        """What a module-level alias of the run stands for (:attr:`FileSummary.aliases`), given
        a name as ``path`` qualifies it (``disable_compiler``, ``timm.layers.disable_compiler``,
        ``..layers.disable_compiler``), following re-exports; None when it names no alias."""
        for file, name in follow((path, dotted), self._reexported):
            summary = self.files[file]
            if name in summary.aliases:
                return summary.aliases[name]
            found = self._split(file, name) if "." in name else None
            if found is not None and found[1] in self.files[found[0]].aliases:
                return self.files[found[0]].aliases[found[1]]
        return None

    def _reexported(self, where: tuple[str, str]) -> tuple[str, str] | None:
        """The next link of an alias's re-export chain: the file a dotted name points into and
        the import there that it names."""
        path, dotted = where
        if dotted in self.files[path].aliases or "." not in dotted:
            return None
        found = self._split(path, dotted)
        if found is None:
            return None
        file, symbol = found
        other = self.files[file]
        if symbol in other.aliases or "." in symbol or symbol not in other.imports:
            return None
        return file, other.imports[symbol]

    def class_of(self, path: str, name: str) -> tuple[str, str] | None:
        found = self.resolve_symbol(path, name)
        if found and found[1] in self.files[found[0]].classes:
            return found
        return None

    def base_classes(self, path: str, cls: str) -> list[tuple[str, Key | None]]:
        """Each base of class ``cls`` as written, with the class of the run it names (None: a
        class from outside the run, or nothing known). A base is evaluated before the class
        statement binds its name, so ``class Cache(Cache):`` (transformers' generated files) names
        the ``Cache`` imported before it, never itself."""
        key = (path, cls)
        found = self._bases.get(key)
        if found is None:
            bases = self.files[path].classes[cls].bases
            found = self._bases[key] = [(base, self._base_class(path, cls, base)) for base in bases]
        return found

    def _base_class(self, path: str, cls: str, base: str) -> Key | None:
        found = self.class_of(path, base)
        if found != (path, cls):
            return found
        found = self._imported_symbol(path, base)  # the binding the class statement replaces
        if found is not None and found != (path, cls) and found[1] in self.files[found[0]].classes:
            return found
        return None

    def bases(self, key: Key) -> list[Key]:
        """The classes of the run that class ``key`` derives from directly, in order."""
        return [found for _, found in self.base_classes(*key) if found is not None]

    def lineage(self, path: str, cls: str) -> Iterator[Key]:
        """The class and its bases of the run, at any depth, each once, in a simple MRO's order
        (depth first, left to right); a hierarchy that loops ends where it comes back."""
        return reach([(path, cls)], self.bases)

    @once_per_key(default=False)
    def is_module_class(self, path: str, qual: str, forward: bool = False) -> bool:
        """True when the class derives from ``nn.Module``, directly or through classes of the
        run. A base from outside the run (a library's ``PreTrainedModel``) counts as a module when
        the class or a subclass on the way defines ``forward`` (``forward`` is the nn.Module
        convention)."""
        summary = self.files[path]
        forward = forward or "forward" in summary.classes[qual].methods
        for base, found in self.base_classes(path, qual):
            qualified = qualify(summary, base) or base
            if qualified.startswith(_MODULE_BASE_PREFIXES) and not qualified.startswith("torch.nn.functional"):
                return True
            if found is not None:
                if self.is_module_class(*found, forward):
                    return True
            elif forward and base not in _PLAIN_BASES:
                return True
        return False

    def method(self, path: str, cls: str, name: str) -> Key | None:
        """``name`` looked up on class ``cls`` and its bases of the run (a simple MRO)."""
        if cls not in self.files[path].classes:
            return None
        for file, qual in self.lineage(path, cls):
            methods = self.files[file].classes[qual].methods
            if name in methods:
                return file, methods[name]
        return None

    def attribute_class(self, path: str, cls: str, attr: str) -> Key | None:
        """The class of the run that attribute ``attr`` of class ``cls`` is built from
        (``self.head = Head(...)``), looked up on the class and its first bases in the same file."""
        if cls not in self.files[path].classes:
            return None
        for file, qual in follow((path, cls), self._first_base_here):
            callee = self.files[file].classes[qual].attributes.get(attr)
            if callee is not None:
                return self.class_of(path, callee)
        return None

    def _first_base_here(self, key: Key) -> Key | None:
        found = next(iter(self.bases(key)), None)
        return found if found is not None and found[0] == key[0] else None

    def callees(self, path: str, function: FunctionInfo, names: Iterable[str] | None = None) -> list[Key]:
        """The functions of the run that ``function`` calls (as far as names resolve); ``names``:
        only these of its calls."""
        summary = self.files[path]
        out: list[Key] = []
        if names is None:
            out.extend(self.referenced(path, function))
        for name in function.calls if names is None else names:
            name = name.removesuffix(".forward").removesuffix(".__call__")
            head, _, rest = name.partition(".")
            if head in ("self", "super()") and function.cls:
                if not rest:
                    continue
                attr = rest.split(".")[0]
                if "." not in rest:
                    if head == "self":
                        hit = self.method(path, function.cls, attr)
                        # `self.m()` runs whichever override the object's class has: those of
                        # the subclasses of the run too (a hook the base's loop calls)
                        out.extend(self.overrides(path, function.cls, attr))
                    else:
                        hit = self._super(path, function.cls, attr)
                    if hit is not None:
                        out.append(hit)
                        continue
                module = self.attribute_class(path, function.cls, attr)
                if module is not None and rest.count(".") == 1:  # `self.head.compute_loss(...)`
                    hit = self.method(*module, rest.split(".")[1])
                    if hit is not None:
                        out.append(hit)
                        continue
                if module is not None:  # a submodule, or a plain callable object (a processor)
                    hit = self.method(*module, "forward") or self.method(*module, "__call__")
                    if hit is not None:
                        out.append(hit)
                elif "." in rest:
                    out.extend(self._by_method_name(rest.rsplit(".", 1)[-1]))
                continue
            nested = f"{function.qualname}.{name}"
            if nested in summary.functions:
                out.append((path, nested))
                continue
            found = self.resolve_symbol(path, name)
            if found is None:
                if rest and head not in summary.imports:  # a method of an object: `obj.attr.m(...)`
                    out.extend(self._by_method_name(name.rsplit(".", 1)[-1]))
                continue
            file, symbol = found
            if symbol in self.files[file].functions:
                out.append(found)
        return out

    def table_functions(self, path: str, function: FunctionInfo) -> list[Key]:
        """The functions of the run held in the dispatch tables ``function`` reads
        (:attr:`FunctionInfo.table_reads`): ``self.<attr>`` of its class (and bases), a table
        bound to a module-level name here or imported, or an instance of a class that holds
        tables (``ALL_ATTENTION_FUNCTIONS = AttentionInterface()`` ... ``ALL_ATTENTION_FUNCTIONS
        .get_interface(...)``: its methods read the tables of its class body)."""
        out: list[Key] = []
        for name in sorted(function.table_reads):
            if name.startswith("self."):
                if function.cls is not None and function.cls in self.files[path].classes:
                    out.extend(self._class_tables(path, function.cls, name[5:]))
                continue
            where = self._module_binding(path, name)
            if where is None:
                continue
            file, symbol = where
            summary = self.files[file]
            if symbol in summary.tables:
                out.extend(self._entries(file, summary.tables[symbol]))
            elif symbol in summary.instances:
                cls = self.class_of(file, summary.instances[symbol])
                if cls is not None:
                    out.extend(self._class_tables(*cls, None))
        return out

    def _class_tables(self, path: str, cls: str, attr: str | None) -> list[Key]:
        """The functions in class ``cls``'s table ``attr`` (None: in all its tables), the first
        class of its lineage that has one answering."""
        for file, qual in self.lineage(path, cls):
            tables = self.files[file].tables
            found = [
                entry for key, entries in tables.items()
                if key.rpartition(".")[0] == qual and (attr is None or key.rpartition(".")[2] == attr)
                for entry in entries
            ]
            if found:
                return self._entries(file, found)
        return []

    def _entries(self, path: str, names: Iterable[str]) -> list[Key]:
        """The functions of the run that a table's entries (as written in ``path``) name."""
        out = []
        for name in names:
            found = self.resolve_symbol(path, name)
            if found is not None and found[1] in self.files[found[0]].functions:
                out.append(found)
        return out

    def _module_binding(self, path: str, dotted: str) -> tuple[str, str] | None:
        """(file, name) of the module-level table or instance ``dotted`` names in ``path``:
        bound there, or imported (through re-exports)."""
        for file, name in follow((path, dotted), self._imported_binding):
            summary = self.files[file]
            if name in summary.tables or name in summary.instances:
                return file, name
        return None

    def _imported_binding(self, where: tuple[str, str]) -> tuple[str, str] | None:
        """The next link of a chain of imports: the file and name an imported name stands for."""
        path, dotted = where
        summary = self.files[path]
        if dotted in summary.tables or dotted in summary.instances:
            return None
        head, _, rest = dotted.partition(".")
        target = summary.imports.get(head)
        if target is None:
            return None
        return self._split(path, f"{target}.{rest}" if rest else target)

    def referenced(self, path: str, function: FunctionInfo, names: Iterable[str] | None = None) -> list[Key]:
        """The methods ``function`` takes as values (``fn = self.loss_labels``; ``names``: only
        these), whichever override the object has."""
        out: list[Key] = []
        if function.cls is None:
            return out
        for attr in function.refs if names is None else names:
            hit = self.method(path, function.cls, attr)
            if hit is not None:
                out.append(hit)
            out.extend(self.overrides(path, function.cls, attr))
        return out

    def overrides(self, path: str, cls: str, name: str) -> list[Key]:
        """The methods ``name`` that subclasses of ``cls`` (in the run, at any depth) define."""
        if self._children is None:
            self._children = {}
            for file, summary in self.files.items():
                for qual in summary.classes:
                    for found in self.bases((file, qual)):
                        if found != (file, qual):
                            self._children.setdefault(found, []).append((file, qual))
        out: list[Key] = []
        children = self._children
        for key in reach(children.get((path, cls), ()), lambda k: children.get(k, ())):
            qual = self.files[key[0]].classes[key[1]].methods.get(name)
            if qual is not None and key != (path, cls):
                out.append((key[0], qual))
        return out

    def _by_method_name(self, name: str) -> list[Key]:
        """The one method of the run named ``name``, for a call whose receiver's class is unknown;
        nothing when no class or several classes define it (the call could be any of them, or a
        library's) or when the name is a dunder or ``forward`` (every module has one)."""
        owners = self.methods_named.get(name, ())
        if len(owners) != 1 or name == "forward" or name.startswith("__"):
            return []
        return list(owners)

    def _super(self, path: str, cls: str, name: str) -> Key | None:
        for found in self.bases((path, cls)):
            hit = self.method(*found, name)
            if hit is not None:
                return hit
        return None


def _join_relative(pieces: list[str]) -> str:
    return pieces[0] + ("." + ".".join(pieces[1:]) if len(pieces) > 1 else "")
