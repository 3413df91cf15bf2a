"""What a class's ``self.<attr>`` hold: torch.nn layers (and which dims they fix), parameters.

Read from the assignments anywhere in the class (``__init__`` in practice), once per class:
``self.proj = nn.Linear(...)`` makes ``self.proj(x)`` a tensor whose last dim is fixed, and
tells that ``x``'s last dim is fixed too; ``self.weight = nn.Parameter(...)`` and
``self.register_buffer("table", ...)`` name tensors whose shapes dynamo keeps static
(``force_parameter_static_shapes``), and so do the entries of ``self.table = nn.ParameterDict(...)``
or ``nn.ParameterList(...)``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import libcst as cst

from zlint.facts.values import BLOCKS, statement_children

#: torch.nn layers whose input and output dim 1 is the channel dim (fixed by the weights)
CHANNEL_LAYERS = frozenset(
    {
        "Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d",
        "LazyConv1d", "LazyConv2d", "LazyConv3d", "BatchNorm1d", "BatchNorm2d", "BatchNorm3d",
        "SyncBatchNorm", "GroupNorm", "InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d",
    }
)
#: torch.nn layers whose input and output last dim is the feature dim
FEATURE_LAYERS = frozenset({"Linear", "LazyLinear", "LayerNorm", "RMSNorm", "Bilinear"})
#: torch.nn layers whose output's last dim is the embedding width (their input holds indices)
EMBEDDING_LAYERS = frozenset({"Embedding", "EmbeddingBag"})
#: torch.nn layers that return a tuple, not a tensor
TUPLE_LAYERS = frozenset(
    {"LSTM", "GRU", "RNN", "MultiheadAttention", "Transformer", "TransformerEncoder", "TransformerDecoder",
     "AdaptiveLogSoftmaxWithLoss", "ModuleList", "ModuleDict", "ParameterList", "ParameterDict"}
)
PARAMETER_TYPES = frozenset({"torch.nn.Parameter", "torch.nn.parameter.Parameter"})
#: containers whose entries are parameters
PARAMETER_CONTAINERS = frozenset({"torch.nn.ParameterDict", "torch.nn.ParameterList"})


@dataclass(frozen=True)
class ClassFacts:
    """The ``self.<attr>`` names of one class: layer kind per attribute, and parameters/buffers."""

    #: attr -> "channels", "features", "embedding" (only its output's last dim is fixed), "tensor"
    #: (another torch.nn layer returning a tensor) or
    #: "module" (another class instantiated: a tensor when called with a tensor)
    layers: dict[str, str] = field(default_factory=dict)
    parameters: frozenset[str] = frozenset()
    #: attr -> the simple name of the class a "module" attribute instantiates (``Block``)
    classes: dict[str, str] = field(default_factory=dict)
    #: attrs holding an ``nn.ParameterDict``/``nn.ParameterList``
    parameter_containers: frozenset[str] = frozenset()
    #: the class is itself a channel or feature layer: it subclasses one (``channels``/``features``)
    layer: str | None = None
    #: ``self.<attr>`` its methods other than ``__init__`` assign: state that may change between
    #: calls (a cache), not a constant of the module
    state: frozenset[str] = frozenset()


def layer_kind(qualified: str | None) -> str | None:
    """``channels``/``features``/``embedding``/``tensor`` for a ``torch.nn.<Layer>`` class, else None."""
    if not qualified or not qualified.startswith("torch.nn."):
        return None
    last = qualified.rsplit(".", 1)[-1]
    if not last[:1].isupper() or last in TUPLE_LAYERS or last in {"Module", "Parameter", "Identity"}:
        return None
    if last in CHANNEL_LAYERS:
        return "channels"
    if last in FEATURE_LAYERS:
        return "features"
    if last in EMBEDDING_LAYERS:
        return "embedding"
    return "tensor"


#: Capitalized callables that build containers or configs, not modules
NOT_MODULES = frozenset({"OrderedDict", "ModuleList", "ModuleDict", "ParameterList", "ParameterDict", "Parameter"})


def _instantiates_module(func: cst.BaseExpression, qualified: str | None) -> bool:
    """``Block(...)``, ``layers.Mlp(...)``: a class instantiation that may be a module (not a
    container, a config, or a torch.nn layer known to return a tuple)."""
    name = func.attr.value if isinstance(func, cst.Attribute) else func.value if isinstance(func, cst.Name) else ""
    if not name[:1].isupper() or name.isupper() or name in NOT_MODULES or name.endswith(("Config", "Dict", "List")):
        return False
    return not (qualified or "").startswith("torch.nn.")  # torch.nn ones are classified exactly


def self_attribute(node: cst.BaseExpression) -> str | None:
    """``x`` for ``self.x``, else None."""
    if isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name) and node.value.value == "self":
        return node.attr.value
    return None


def class_facts(
    node: cst.ClassDef, qualify: Callable[[cst.BaseExpression], str | None],
    known: dict[str, ClassFacts] | None = None,
) -> ClassFacts:
    """Reads the assignments to ``self.<attr>`` and the buffer registrations of ``node``, on top
    of what its bases among ``known`` (the module's classes read so far) register: a subclass's
    ``self.boft_P`` is the buffer its base's ``update_layer`` registered."""
    known = known or {}
    layers: dict[str, str] = {}
    parameters: set[str] = set()
    classes: dict[str, str] = {}
    containers: set[str] = set()
    state: set[str] = set()
    for base in node.bases:
        inherited = known.get(base.value.value) if isinstance(base.value, cst.Name) else None
        if inherited is not None:
            layers.update(inherited.layers)
            parameters |= inherited.parameters
            classes.update(inherited.classes)
            containers |= inherited.parameter_containers
            state |= inherited.state
    local_layers = {name: facts.layer for name, facts in known.items() if facts.layer is not None}
    todo: list[tuple[cst.CSTNode, str | None]] = [(node.body, None)]
    while todo:
        current, method = todo.pop()
        if isinstance(current, (cst.SimpleStatementLine, cst.SimpleStatementSuite)):
            for statement in current.body:
                _read(statement, qualify, layers, parameters, classes, containers, local_layers)
                if method not in (None, "__init__"):
                    state.update(_self_targets(statement))
        elif isinstance(current, BLOCKS) and not isinstance(current, cst.ClassDef):
            # the method directly in the class counts (a def nested in __init__ is __init__'s)
            inner = current.name.value if isinstance(current, cst.FunctionDef) and method is None else method
            todo.extend((child, inner) for child in statement_children(current))
    return ClassFacts(
        layers, frozenset(parameters), classes, frozenset(containers), _own_kind(node, qualify, known),
        frozenset(state),
    )


def _self_targets(statement: cst.BaseSmallStatement) -> list[str]:
    """The ``self.<attr>`` a statement assigns (``=``, ``+=``, annotated)."""
    if isinstance(statement, cst.Assign):
        targets = [t.target for t in statement.targets]
    elif isinstance(statement, (cst.AugAssign, cst.AnnAssign)):
        targets = [statement.target]
    else:
        return []
    return [attr for attr in map(self_attribute, targets) if attr is not None]


def _own_kind(
    node: cst.ClassDef, qualify: Callable[[cst.BaseExpression], str | None], known: dict[str, ClassFacts]
) -> str | None:
    """``channels``/``features`` for a class that subclasses such a ``torch.nn`` layer (directly or
    through a class of the module): its weights fix the same dims, whatever its ``forward`` adds
    (``class SafeConv3d(nn.Conv3d)`` that splits the input in time)."""
    for base in node.bases:
        kind = layer_kind(qualify(base.value))
        if kind is None and isinstance(base.value, cst.Name) and base.value.value in known:
            kind = known[base.value.value].layer
        if kind in ("channels", "features"):
            return kind
    return None


def _read(
    statement: cst.BaseSmallStatement, qualify, layers: dict[str, str], parameters: set[str], classes: dict[str, str],
    containers: set[str], local_layers: dict[str, str],
) -> None:
    if isinstance(statement, cst.Assign):
        pairs = [(t.target, statement.value) for t in statement.targets]
    elif isinstance(statement, cst.AnnAssign) and statement.value is not None:
        pairs = [(statement.target, statement.value)]
    elif isinstance(statement, cst.Expr) and isinstance(statement.value, cst.Call):
        call = statement.value
        func = call.func
        # self.register_buffer("name", ...) / self.register_parameter("name", ...)
        if (
            isinstance(func, cst.Attribute) and func.attr.value in {"register_buffer", "register_parameter"}
            and call.args and isinstance(call.args[0].value, cst.SimpleString)
        ):
            name = call.args[0].value.evaluated_value
            if isinstance(name, str):
                parameters.add(name)
        return
    else:
        return
    for target, value in pairs:
        attr = self_attribute(target)
        if attr is None or not isinstance(value, cst.Call):
            continue
        qual = qualify(value.func)
        if isinstance(value.func, cst.Name) and value.func.value in local_layers:
            layers[attr] = local_layers[value.func.value]  # self.conv = SafeConv3d(...)
            continue
        if qual in PARAMETER_TYPES:
            parameters.add(attr)
            continue
        if qual in PARAMETER_CONTAINERS:
            containers.add(attr)
            continue
        kind = layer_kind(qual)
        if kind is None and _instantiates_module(value.func, qual):
            kind = "module"  # self.block = Block(...): a tensor when called on a tensor
            func = value.func
            classes[attr] = func.attr.value if isinstance(func, cst.Attribute) else func.value
        if kind is not None:
            layers[attr] = kind
