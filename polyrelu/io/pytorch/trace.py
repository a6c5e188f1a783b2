"""A live PyTorch model read as a chain of steps in forward order: its forward traced with ``torch.fx``.

``torch.fx`` records what ``forward`` does (``symbolic_trace``): calls of
``torch.nn`` modules (Linear, Conv2d, ... are leaves: recorded, not entered),
of functions (``torch.relu``, ``F.linear``, ...) and of tensor methods
(``x.view(...)``, ``x.flatten(1)``); custom modules and ``nn.Sequential``
(nested too) are entered. Starting from the output and following the tensor
each step is applied to back to the input gives the steps in forward order;
each step is one polyrelu reads (:mod:`~polyrelu.io.pytorch.ops`) or is
refused by name. A model whose forward ``torch.fx`` cannot follow (Python
control flow on tensor values, ...) is read the way polyrelu read models
before it traced them: its ``Linear`` modules in registration order with a
ReLU between consecutive ones, only if all its modules are Linear and ReLU.
Either way the caller checks the result against the model's forward pass.

Tracing runs ``forward`` on placeholders and may store the tensor constants
it meets on the module it traces: a copy is traced, never the caller's model.
"""

from __future__ import annotations

import copy
import functools
import inspect
import operator
from typing import Any, NamedTuple

from ...errors import NetworkFormatError
from ..limits import Limits
from .ops import (
    AdaptiveAvgPool2dOp,
    AvgPool2dOp,
    BatchNormOp,
    Conv2dOp,
    FlattenOp,
    IdentityOp,
    LinearOp,
    Op,
    ReLUOp,
    ReshapeOp,
    SizeOf,
)
from .tensors import Param, first_line, import_torch

__all__ = ["SUPPORTED", "Reading", "module_ops"]

SUPPORTED = (
    "polyrelu reads models whose forward is a chain of Linear, Conv2d (zero padding), AvgPool2d, "
    "AdaptiveAvgPool2d, BatchNorm1d/2d and Dropout (both in eval mode), Identity, ReLU, Flatten and reshapes "
    "that keep the batch dimension first, as modules or as functions (torch.relu, F.linear, x.view(x.size(0), -1), ...)"
)

_OPERATORS = {
    operator.add: "+",
    operator.iadd: "+=",
    operator.sub: "-",
    operator.isub: "-=",
    operator.mul: "*",
    operator.imul: "*=",
    operator.truediv: "/",
    operator.matmul: "@",
    operator.neg: "unary -",
    operator.getitem: "[] (indexing)",
}


class Reading(NamedTuple):
    """The steps of a model in forward order, how they were found (for messages), and whether by tracing."""

    ops: list[Op]
    description: str
    traced: bool


def module_ops(model: Any, source: str, limits: Limits) -> Reading:
    """The steps of a live model's forward pass.

    Parameters
    ----------
    model : torch.nn.Module
    source : str
        For messages.
    limits : Limits
        Every tensor a step holds is checked against it (nothing is converted yet).

    Returns
    -------
    Reading

    Raises
    ------
    NetworkFormatError
        A step polyrelu does not read (named, with what it reads), a Dropout
        or BatchNorm in training mode, a forward of several inputs or outputs.
    """
    torch = import_torch()
    tracer = torch.fx.Tracer()
    if tracer.is_leaf_module(model, ""):  # a bare torch.nn module: its forward is the module itself
        return Reading([module_op(model, "the model", source, limits)], "the model itself", True)
    try:
        traced = copy.deepcopy(model)
    except Exception as exc:
        raise NetworkFormatError(
            f"{source}: the model cannot be copied to trace its forward ({type(exc).__name__}: {first_line(exc)}); "
            "give its state_dict instead"
        ) from None
    try:
        graph = tracer.trace(traced)
    except Exception as exc:  # control flow on tensors, or anything else forward does on placeholders
        return _registration_order(model, source, limits, f"{type(exc).__name__}: {first_line(exc)}")
    return Reading(_graph_ops(graph, traced, source, limits), "its forward pass, traced with torch.fx", True)


def module_op(module: Any, name: str, source: str, limits: Limits) -> Op:
    """The step of one ``torch.nn`` module, or a NetworkFormatError naming it."""
    nn = import_torch().nn
    kind = type(module).__name__
    label = f"{name} ({kind})"

    def param(attribute):
        tensor = getattr(module, attribute)
        return None if tensor is None else Param(tensor, f"{name} {attribute}", source, limits)

    if isinstance(module, nn.Linear):
        return LinearOp(label, param("weight"), param("bias"))
    if isinstance(module, nn.ReLU):
        return ReLUOp(label)
    if isinstance(module, nn.Conv2d):
        if module.padding_mode != "zeros":
            raise NetworkFormatError(
                f"{source}: {label} pads with padding_mode={module.padding_mode!r}; polyrelu reads zero padding only"
            )
        return Conv2dOp(label, param("weight"), param("bias"), module.stride, module.padding, module.dilation, module.groups)
    if isinstance(module, (nn.BatchNorm1d, nn.BatchNorm2d)):
        if module.training:
            raise NetworkFormatError(
                f"{source}: {label} is in training mode, where it normalizes by each batch's own statistics; "
                "call model.eval() first: polyrelu reads the network of the model in eval mode"
            )
        if module.running_mean is None or module.running_var is None:
            raise NetworkFormatError(
                f"{source}: {label} keeps no running statistics (track_running_stats=False), so it normalizes by "
                "each batch's own statistics even in eval mode: not an affine map of a sample"
            )
        sample_dims = (1, 2) if isinstance(module, nn.BatchNorm1d) else (3,)
        return BatchNormOp(
            label, param("running_mean"), param("running_var"), module.eps, param("weight"), param("bias"), sample_dims
        )
    if isinstance(module, nn.AvgPool2d):
        return AvgPool2dOp(
            label,
            module.kernel_size,
            module.stride,
            module.padding,
            module.ceil_mode,
            module.count_include_pad,
            module.divisor_override,
        )
    if isinstance(module, nn.AdaptiveAvgPool2d):
        return AdaptiveAvgPool2dOp(label, module.output_size)
    if isinstance(module, nn.Flatten):
        return FlattenOp(label, module.start_dim, module.end_dim)
    if isinstance(module, nn.Identity):
        return IdentityOp(label)
    if isinstance(module, (nn.Dropout, nn.Dropout1d, nn.Dropout2d, nn.Dropout3d, nn.AlphaDropout, nn.FeatureAlphaDropout)):
        if module.training:
            raise NetworkFormatError(
                f"{source}: {label} is in training mode, where it zeroes random entries; call model.eval() first: "
                "polyrelu reads the network of the model in eval mode"
            )
        return IdentityOp(label)
    raise NetworkFormatError(f"{source}: {name} is {kind}, which polyrelu does not read; {SUPPORTED}")


def _registration_order(model, source, limits, reason):
    """The Linear modules of an untraceable model in registration order, a ReLU between consecutive ones."""
    nn = import_torch().nn
    untraced = f"torch.fx cannot trace its forward ({reason})"
    only = "without a trace, polyrelu reads models made of Linear and ReLU modules only"
    advice = "make forward traceable (no Python control flow on tensors), or give a state_dict in forward order"
    linears = []
    for name, module in model.named_modules(remove_duplicate=False):
        label = f"module {name}" if name else "the model"
        if next(module.children(), None) is not None:
            own = [n for n, _ in module.named_parameters(recurse=False)] + [n for n, _ in module.named_buffers(recurse=False)]
            if own:
                raise NetworkFormatError(
                    f"{source}: {untraced}; {only}, and {label} ({type(module).__name__}) holds tensors of its own "
                    f"{own}; {advice}"
                )
        elif isinstance(module, nn.Linear):
            linears.append(name)
        elif not isinstance(module, nn.ReLU):
            raise NetworkFormatError(f"{source}: {untraced}; {only}, and {label} is {type(module).__name__}; {advice}")
    if not linears:
        raise NetworkFormatError(f"{source}: {untraced}, and it has no Linear modules; {advice}")
    ops = []
    for name in linears:
        if ops:
            ops.append(ReLUOp(f"the ReLU before module {name}"))
        ops.append(module_op(model.get_submodule(name), f"module {name}", source, limits))
    reading = f"its Linear modules in registration order with a ReLU between consecutive ones ({untraced})"
    return Reading(ops, reading, False)


# -- torch.fx graphs ----------------------------------------------------------------------------
def _graph_ops(graph, root, source, limits):
    nodes = list(graph.nodes)
    inputs = [n.name for n in nodes if n.op == "placeholder"]
    if len(inputs) != 1:
        raise NetworkFormatError(f"{source}: forward takes {len(inputs)} inputs {inputs}; polyrelu reads models of one input")
    result = next(n for n in reversed(nodes) if n.op == "output").args[0]
    if not _is_node(result):
        raise NetworkFormatError(
            f"{source}: forward returns a {type(result).__name__}; polyrelu reads models that return one tensor"
        )
    # the steps of every node the output depends on, in forward order, so that the first step refused is the
    # first in forward; the sizes that reshapes use are read by the reshapes themselves
    needed = _ancestors(result)
    steps = {}
    for node in nodes:
        if node in needed and node.op not in ("placeholder", "get_attr") and not _is_size(node):
            steps[node] = _node_op(node, root, source, limits)
    ops = []
    while result.op != "placeholder":
        if result not in steps:
            what = result.target if result.op == "get_attr" else f"a size of a tensor (node {result.name})"
            raise NetworkFormatError(f"{source}: the output of forward does not depend on its input: it is {what}")
        op, result = steps[result]
        ops.append(op)
    return ops[::-1]


def _ancestors(node):
    """``node`` and every node it is computed from."""
    seen, stack = {node}, [node]
    while stack:
        for parent in stack.pop().all_input_nodes:
            if parent not in seen:
                seen.add(parent)
                stack.append(parent)
    return seen


def _is_size(node):
    """``x.size()``, ``x.size(i)``, ``x.shape``, or an entry of one of them: a size, not a tensor."""
    if node.op == "call_method" and node.target == "size":
        return True
    if node.op == "call_function" and node.target is getattr and node.args[1:] == ("shape",):
        return True
    return node.op == "call_function" and node.target is operator.getitem and _is_node(node.args[0]) and _is_size(node.args[0])


def _is_node(value):
    return isinstance(value, import_torch().fx.Node)


def _function_name(target):
    """``torch.nn.functional.linear``, ``torch.sigmoid``, ``the operator +``: how the user wrote it."""
    torch = import_torch()
    if target in _OPERATORS:
        return f"the operator {_OPERATORS[target]}"
    name = getattr(target, "__name__", repr(target))
    for prefix, namespace in (("torch.nn.functional", torch.nn.functional), ("torch", torch)):
        if getattr(namespace, name, None) is target:
            return f"{prefix}.{name}"
    return f"{getattr(target, '__module__', '?')}.{name}"


def _node_op(node, root, source, limits):
    """The step of one node of the graph and the node of the tensor it is applied to."""
    if node.op == "call_module":
        op = module_op(root.get_submodule(node.target), f"module {node.target}", source, limits)
        if len(node.args) != 1 or node.kwargs or not _is_node(node.args[0]):
            raise NetworkFormatError(
                f"{source}: {op.label} is called with {len(node.args) + len(node.kwargs)} arguments; polyrelu reads "
                "layers applied to one tensor"
            )
        return op, node.args[0]
    if node.op == "call_function":
        name = _function_name(node.target)
        spec = _function_table().get(node.target) if _hashable(node.target) else None
    else:  # call_method: placeholders and get_attr nodes are not steps
        name = f"Tensor.{node.target}"
        spec = _method_table().get(node.target)
    label = f"{name} (node {node.name})"
    if spec is None:
        skip = node.target in (operator.add, operator.iadd) and sum(_is_node(a) for a in node.args) == 2
        why = " (it adds two tensors computed from the input: a skip connection)" if skip else ""
        raise NetworkFormatError(
            f"{source}: forward calls {name} (node {node.name}), which polyrelu does not read{why}; {SUPPORTED}"
        )
    signature, build = spec
    try:
        bound = signature.bind(*node.args, **node.kwargs)
    except TypeError as exc:
        raise NetworkFormatError(f"{source}: {label} is called with arguments polyrelu does not read ({exc})") from None
    bound.apply_defaults()
    arguments = dict(bound.arguments)
    tensor = arguments.pop("input")
    if not _is_node(tensor):
        raise NetworkFormatError(f"{source}: {label} is applied to {tensor!r}, not to a tensor computed from the input")
    return build(_Arguments(label, arguments, tensor, root, source, limits)), tensor


def _hashable(target):
    try:
        hash(target)
    except TypeError:
        return False
    return True


class _Arguments:
    """The arguments of one call in the graph: constants, parameters of the model, sizes of the tensor."""

    def __init__(self, label, arguments, tensor, root, source, limits):
        self.label, self.arguments, self.tensor = label, arguments, tensor
        self.root, self.source, self.limits = root, source, limits

    def constant(self, name):
        value = self.arguments[name]
        if _contains_node(value):
            raise NetworkFormatError(
                f"{self.source}: {self.label}: {name} is computed in forward; polyrelu reads constant arguments only"
            )
        return value

    def param(self, name):
        value = self.arguments[name]
        if value is None:
            return None
        if not _is_node(value) or value.op != "get_attr":
            raise NetworkFormatError(
                f"{self.source}: {self.label}: {name} is not a parameter or buffer of the model (it is computed in "
                "forward); polyrelu reads layers whose weights are the model's own tensors"
            )
        tensor = self.root
        for part in value.target.split("."):
            tensor = getattr(tensor, part)
        return Param(tensor, f"{self.label} {name} ({value.target})", self.source, self.limits)

    def size(self, value):
        """An entry of a reshape: an int, or ``x.size(i)``/``x.shape[i]``/``x.size()[i]`` of the tensor reshaped."""
        if isinstance(value, int) and not isinstance(value, bool):
            return value
        if _is_node(value):
            if value.op == "call_method" and value.target == "size" and len(value.args) == 2 and value.args[0] is self.tensor:
                dim = value.args[1]
            elif value.op == "call_function" and value.target is operator.getitem and _is_shape_of(value.args[0], self.tensor):
                dim = value.args[1]
            else:
                dim = None
            if isinstance(dim, int) and not isinstance(dim, bool):
                return SizeOf(dim)
        raise NetworkFormatError(
            f"{self.source}: {self.label}: a size {getattr(value, 'name', value)!r} that polyrelu does not read; "
            "give ints, or x.size(i) or x.shape[i] of the tensor x being reshaped"
        )


def _is_shape_of(value, tensor):
    if not _is_node(value) or value.args[:1] != (tensor,):
        return False
    by_method = value.op == "call_method" and value.target == "size" and len(value.args) == 1
    by_attribute = value.op == "call_function" and value.target is getattr and value.args[1:] == ("shape",)
    return by_method or by_attribute


def _contains_node(value):
    if isinstance(value, (tuple, list)):
        return any(_contains_node(v) for v in value)
    return _is_node(value)


def _relu(arguments):
    return ReLUOp(arguments.label)


def _flatten(arguments):
    return FlattenOp(arguments.label, arguments.constant("start_dim"), arguments.constant("end_dim"))


def _dropout(arguments):
    if arguments.constant("training"):
        raise NetworkFormatError(
            f"{arguments.source}: {arguments.label} is called with training=True, where it zeroes random entries; "
            "pass training=self.training and call model.eval() first: polyrelu reads the network in eval mode"
        )
    return IdentityOp(arguments.label)


def _reshape(arguments):
    dims = arguments.arguments["shape"]
    if len(dims) == 1 and isinstance(dims[0], (tuple, list)):
        dims = dims[0]
    return ReshapeOp(arguments.label, [arguments.size(d) for d in dims])


def _signature(*required: str, variadic: str | None = None, **defaults: Any) -> inspect.Signature:
    """The signature of a builtin (``F.linear``, ``Tensor.view``, ...), which ``inspect`` cannot read from it."""
    P = inspect.Parameter
    parameters = [P(name, P.POSITIONAL_OR_KEYWORD) for name in required]
    if variadic is not None:
        parameters.append(P(variadic, P.VAR_POSITIONAL))
    kind = P.KEYWORD_ONLY if variadic is not None else P.POSITIONAL_OR_KEYWORD
    parameters += [P(name, kind, default=value) for name, value in defaults.items()]
    return inspect.Signature(parameters)


@functools.cache
def _function_table():
    """The functions polyrelu reads: ``{function: (signature, build)}``."""
    torch = import_torch()
    F = torch.nn.functional
    table = {
        torch.relu: (_signature("input"), _relu),
        torch.relu_: (_signature("input"), _relu),
        F.relu: (inspect.signature(F.relu), _relu),
        F.linear: (_signature("input", "weight", bias=None), lambda a: LinearOp(a.label, a.param("weight"), a.param("bias"))),
        F.conv2d: (
            _signature("input", "weight", bias=None, stride=1, padding=0, dilation=1, groups=1),
            lambda a: Conv2dOp(
                a.label,
                a.param("weight"),
                a.param("bias"),
                a.constant("stride"),
                a.constant("padding"),
                a.constant("dilation"),
                a.constant("groups"),
            ),
        ),
        F.avg_pool2d: (
            _signature(
                "input", "kernel_size", stride=None, padding=0, ceil_mode=False, count_include_pad=True, divisor_override=None
            ),
            lambda a: AvgPool2dOp(
                a.label,
                a.constant("kernel_size"),
                a.constant("stride"),
                a.constant("padding"),
                a.constant("ceil_mode"),
                a.constant("count_include_pad"),
                a.constant("divisor_override"),
            ),
        ),
        F.adaptive_avg_pool2d: (
            inspect.signature(F.adaptive_avg_pool2d),
            lambda a: AdaptiveAvgPool2dOp(a.label, a.constant("output_size")),
        ),
        torch.flatten: (_signature("input", start_dim=0, end_dim=-1), _flatten),
    }
    for dropout in (F.dropout, F.dropout1d, F.dropout2d, F.dropout3d, F.alpha_dropout, F.feature_alpha_dropout):
        table[dropout] = (inspect.signature(dropout), _dropout)
    return table


@functools.cache
def _method_table():
    """The tensor methods polyrelu reads: ``{name: (signature, build)}``."""
    return {
        "relu": (_signature("input"), _relu),
        "relu_": (_signature("input"), _relu),
        "view": (_signature("input", variadic="shape"), _reshape),
        "reshape": (_signature("input", variadic="shape"), _reshape),
        "flatten": (_signature("input", start_dim=0, end_dim=-1), _flatten),
        "contiguous": (_signature("input", memory_format=None), lambda a: IdentityOp(a.label)),
    }
