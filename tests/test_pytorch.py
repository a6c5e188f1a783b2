"""PyTorch models as users write them: custom modules, nested containers, convolutions, pooling, BatchNorm.

The oracle is torch itself. Models are made exact in float64 where the
comparison is exact: weights that are small multiples of 1/8 and inputs
that are small multiples of 1/4 make every sum of the float64 forward pass
exact, so the converted network must agree with it to the last bit, as
fractions. Where a constant is not dyadic (1/9 in an average,
1/sqrt(var + eps) in a BatchNorm) the comparison is within 1e-12, and the
folded parameters are compared exactly with ones computed here from the
model's tensors.
"""

import math
import tracemalloc
from fractions import Fraction as F

import numpy as np
import pytest

from polyrelu import (
    InvalidArgumentError,
    InvalidNumberError,
    LimitExceededError,
    Limits,
    ModelMismatchError,
    NetworkFormatError,
    ShapeError,
    UnsafeFileError,
    network_from_torch,
)
from polyrelu.io.pytorch import read_torch

torch = pytest.importorskip("torch")
nn = torch.nn
Fn = torch.nn.functional


def dyadic(model, seed=0, scale=8, bound=8):
    """``model`` in float64 with every parameter a multiple of ``1/scale`` in ``[-bound/scale, bound/scale]``."""
    generator = torch.Generator().manual_seed(seed)
    model = model.double()
    with torch.no_grad():
        for p in model.parameters():
            p.copy_(torch.randint(-bound, bound + 1, p.shape, generator=generator, dtype=torch.float64) / scale)
    return model


def samples(shape, count=25, seed=1):
    """``count`` samples of ``shape`` with entries multiples of 1/4 in [-4, 4], one flattened sample per row."""
    rng = np.random.default_rng(seed)
    return rng.integers(-16, 17, size=(count, math.prod(shape))) / 4


def model_outputs(model, xs, shape):
    with torch.no_grad():
        out = model.double().eval()(torch.from_numpy(xs).reshape(len(xs), *shape))
    return out.reshape(len(xs), -1).numpy()


def assert_exactly_model(net, model, shape):
    xs = samples(shape)
    for x, y in zip(xs, model_outputs(model, xs, shape), strict=True):
        assert net(x) == tuple(F(v) for v in y)


def assert_close_to_model(net, model, shape):
    xs = samples(shape)
    for x, y in zip(xs, model_outputs(model, xs, shape), strict=True):
        assert [float(v) for v in net(x)] == pytest.approx(list(y), rel=1e-12, abs=1e-12)


def exact_rows(tensor):
    return tuple(tuple(F(v) for v in row) for row in tensor.detach().double().tolist())


# -- containers and custom modules ------------------------------------------------------------------------
def test_nested_sequential():
    model = dyadic(
        nn.Sequential(
            nn.Sequential(nn.Linear(3, 4), nn.ReLU()),
            nn.Sequential(nn.Sequential(nn.Linear(4, 4)), nn.ReLU(), nn.Identity()),
            nn.Linear(4, 2),
        )
    )
    net = network_from_torch(model)
    assert net.architecture.widths == (3, 4, 4, 2)
    assert net.weights[1] == exact_rows(model[1][0][0].weight)
    assert_exactly_model(net, model, (3,))


class Functional(nn.Module):
    """Functions, tensor methods, a parameter of its own, reshapes and a ModuleList loop in forward."""

    def __init__(self):
        super().__init__()
        self.blocks = nn.ModuleList([nn.Linear(6, 5), nn.Linear(5, 5)])
        self.head = nn.Parameter(torch.zeros(2, 5))
        self.drop = nn.Dropout(0.5)

    def forward(self, x):
        x = x.view(x.size(0), -1)
        x = torch.relu(self.blocks[0](x))
        x = self.drop(x.reshape(x.shape[0], 5, 1))
        x = torch.flatten(x, 1).contiguous()
        x = Fn.relu(self.blocks[1](x)).relu()
        x = Fn.dropout(x, 0.5, self.training)
        return Fn.linear(x, self.head, torch.ones(2, dtype=torch.float64))  # the bias: a constant made in forward


def test_custom_module_with_functions_and_methods():
    model = dyadic(Functional()).eval()
    net = network_from_torch(model, input_shape=(2, 3))
    assert net.architecture.widths == (6, 5, 5, 2)
    assert net.weights[2] == exact_rows(model.head) and net.biases[2] == (1, 1)
    assert_exactly_model(net, model, (2, 3))
    # tracing stores the constant torch.ones(2) on the module it traces: a copy, not the caller's model
    assert not any(name.startswith("_tensor_constant") for name in vars(model))


def test_module_in_training_mode():
    model = dyadic(Functional())
    assert model.training
    with pytest.raises(NetworkFormatError, match=r"module drop \(Dropout\) is in training mode.*model.eval\(\) first"):
        network_from_torch(model, input_shape=(6,))
    model.drop.eval()
    with pytest.raises(NetworkFormatError, match=r"torch.nn.functional.dropout .* training=True.*model.eval\(\) first"):
        network_from_torch(model, input_shape=(6,))
    # training mode changes nothing in a model without Dropout and BatchNorm
    plain = dyadic(nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1)))
    assert plain.training
    assert_exactly_model(network_from_torch(plain), plain, (2,))

    class AlwaysDropping(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(2, 1)

        def forward(self, x):
            return self.fc(Fn.dropout(x, 0.5))  # training=True by default, even in eval mode

    with pytest.raises(NetworkFormatError, match=r"torch.nn.functional.dropout .* training=True"):
        network_from_torch(AlwaysDropping().eval())


def test_dropout_in_eval_mode_is_the_identity():
    model = dyadic(nn.Sequential(nn.Linear(3, 4), nn.Dropout(0.9), nn.ReLU(), nn.AlphaDropout(), nn.Linear(4, 1))).eval()
    net = network_from_torch(model)
    assert net.architecture.widths == (3, 4, 1)
    assert net.weights[0] == exact_rows(model[0].weight)
    assert_exactly_model(net, model, (3,))


def test_consecutive_affine_layers_compose_and_missing_bias_is_zero():
    model = dyadic(nn.Sequential(nn.Linear(3, 4, bias=False), nn.Linear(4, 2), nn.ReLU(), nn.ReLU(), nn.Linear(2, 1)))
    net = network_from_torch(model)
    assert net.architecture.widths == (3, 2, 1)
    W1, W2 = exact_rows(model[0].weight), exact_rows(model[1].weight)
    product = tuple(tuple(sum(W2[i][k] * W1[k][j] for k in range(4)) for j in range(3)) for i in range(2))
    assert net.weights[0] == product
    assert net.biases[0] == tuple(F(v) for v in model[1].bias.tolist())
    assert_exactly_model(net, model, (3,))


# -- BatchNorm ----------------------------------------------------------------------------------------------
def batchnorm(channels, seed, kind=nn.BatchNorm1d, eps=1e-5):
    """A BatchNorm in eval mode with nontrivial running statistics and affine parameters (float32)."""
    generator = torch.Generator().manual_seed(seed)
    bn = kind(channels, eps=eps)
    with torch.no_grad():
        bn.running_mean.copy_(torch.randn(channels, generator=generator) * 3)
        bn.running_var.copy_(torch.rand(channels, generator=generator) * 5 + 0.1)
        bn.weight.copy_(torch.randn(channels, generator=generator))
        bn.bias.copy_(torch.randn(channels, generator=generator))
    return bn.eval()


def folded(bn):
    """``(scale, shift)`` of an eval-mode BatchNorm, exact for torch's float64 ``1 / sqrt(var + eps)``."""
    inverse = [F(v) for v in (1 / torch.sqrt(bn.running_var.double() + bn.eps)).tolist()]
    scale = [F(w) * s for w, s in zip(bn.weight.tolist(), inverse, strict=True)]
    shift = [F(b) - F(m) * s for b, m, s in zip(bn.bias.tolist(), bn.running_mean.tolist(), scale, strict=True)]
    return scale, shift


def test_batchnorm_is_folded_into_the_linear_layer_before_it():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(3, 4), batchnorm(4, seed=1), nn.ReLU(), nn.Linear(4, 2)).eval()
    net = network_from_torch(model)
    assert net.architecture.widths == (3, 4, 2)
    scale, shift = folded(model[1])
    W, b = exact_rows(model[0].weight), [F(v) for v in model[0].bias.tolist()]
    assert net.weights[0] == tuple(tuple(scale[i] * w for w in W[i]) for i in range(4))
    assert net.biases[0] == tuple(scale[i] * b[i] + shift[i] for i in range(4))
    assert net.layers[1] == (exact_rows(model[3].weight), tuple(F(v) for v in model[3].bias.tolist()))
    assert_close_to_model(net, model, (3,))


def test_batchnorm_first_is_folded_into_the_linear_layer_after_it():
    torch.manual_seed(2)
    model = nn.Sequential(batchnorm(3, seed=3), nn.Linear(3, 2), nn.ReLU(), nn.Linear(2, 1)).eval()
    net = network_from_torch(model)  # the input shape comes from the BatchNorm1d
    assert net.architecture.widths == (3, 2, 1)
    scale, shift = folded(model[0])
    W, b = exact_rows(model[1].weight), [F(v) for v in model[1].bias.tolist()]
    assert net.weights[0] == tuple(tuple(W[i][j] * scale[j] for j in range(3)) for i in range(2))
    assert net.biases[0] == tuple(b[i] + sum(W[i][j] * shift[j] for j in range(3)) for i in range(2))
    assert_close_to_model(net, model, (3,))


def test_batchnorm_with_dyadic_statistics_is_exact():
    bn = nn.BatchNorm1d(2, eps=0.0)
    with torch.no_grad():
        bn.running_mean.copy_(torch.tensor([0.5, -1.25]))
        bn.running_var.copy_(torch.tensor([4.0, 0.25]))  # 1 / sqrt(var) = 1/2 and 2, exactly
    model = dyadic(nn.Sequential(nn.Linear(2, 2), nn.ReLU(), bn, nn.ReLU(), nn.Linear(2, 1)))
    with torch.no_grad():
        bn.weight.copy_(torch.tensor([1.5, -0.75]))
    model.eval()
    net = network_from_torch(model)
    # a BatchNorm between two ReLUs is a layer of its own: diagonal
    assert net.architecture.widths == (2, 2, 2, 1)
    assert net.weights[1] == ((F(3, 4), 0), (0, F(-3, 2)))
    assert_exactly_model(net, model, (2,))


def test_linear_on_the_last_dimension_and_batchnorm_over_channels_of_sequences():
    bn = nn.BatchNorm1d(2, eps=0.0)
    with torch.no_grad():
        bn.running_mean.copy_(torch.tensor([0.25, -0.5]))
        bn.running_var.copy_(torch.tensor([0.25, 4.0]))
    model = dyadic(nn.Sequential(nn.Linear(4, 3), bn, nn.ReLU(), nn.Flatten(), nn.Linear(6, 1))).eval()
    net = network_from_torch(model, input_shape=(2, 4))  # two channels of 4 values: Linear acts on each channel
    assert net.architecture.widths == (8, 6, 1)
    W = exact_rows(model[0].weight)
    assert all(net.weights[0][i][4:] == (0, 0, 0, 0) for i in range(3))  # channel 0 does not see channel 1
    assert net.weights[0][0][:4] == tuple(2 * F(model[1].weight[0].item()) * w for w in W[0])
    assert_exactly_model(net, model, (2, 4))


def test_batchnorm_that_is_not_an_affine_map_is_refused():
    with pytest.raises(NetworkFormatError, match=r"module 1 \(BatchNorm1d\) is in training mode"):
        network_from_torch(nn.Sequential(nn.Linear(2, 3), nn.BatchNorm1d(3), nn.ReLU(), nn.Linear(3, 1)))
    untracked = nn.Sequential(nn.Linear(2, 3), nn.BatchNorm1d(3, track_running_stats=False), nn.Linear(3, 1)).eval()
    with pytest.raises(NetworkFormatError, match="track_running_stats=False"):
        network_from_torch(untracked)
    negative = nn.Sequential(nn.Linear(2, 3), nn.BatchNorm1d(3, eps=0.0), nn.Linear(3, 1)).eval()
    with torch.no_grad():
        negative[1].running_var[1] = -1.0
    with pytest.raises(Exception, match="running_var \\+ eps is -1.0 at channel 1"):
        network_from_torch(negative)


# -- convolutions and pooling ------------------------------------------------------------------------------
CONVOLUTIONS = {
    "stride, padding, groups": (lambda: nn.Conv2d(2, 4, 3, stride=2, padding=1, groups=2), (2, 5, 6)),
    "rectangular, dilated, no bias": (
        lambda: nn.Conv2d(1, 3, (2, 3), stride=(1, 2), padding=(1, 0), dilation=(2, 1), bias=False),
        (1, 5, 7),
    ),
    "same, odd kernel": (lambda: nn.Conv2d(2, 2, 3, padding="same"), (2, 4, 4)),
    "same, even kernel": (lambda: nn.Conv2d(2, 2, (2, 4), padding="same", dilation=(1, 1)), (2, 3, 5)),
    "valid, depthwise": (lambda: nn.Conv2d(3, 3, 1, padding="valid", groups=3), (3, 2, 3)),
}


@pytest.mark.parametrize("name", CONVOLUTIONS)
@pytest.mark.filterwarnings("ignore:Using padding='same' with even kernel")  # torch pads a copy: its concern, not ours
def test_conv2d_is_lowered_exactly(name):
    build, shape = CONVOLUTIONS[name]
    conv = build()
    out = conv(torch.zeros(1, *shape)).shape[1:]
    model = dyadic(nn.Sequential(conv, nn.ReLU(), nn.Flatten(), nn.Linear(math.prod(out), 2)), seed=4)
    net = network_from_torch(model, input_shape=shape)
    assert net.architecture.widths == (math.prod(shape), math.prod(out), 2)
    assert_exactly_model(net, model, shape)


def test_conv2d_alone_gives_its_own_matrix():
    # the first layer of a lone convolution, applied to each unit vector, is torch's convolution of it
    model = dyadic(nn.Conv2d(2, 3, 2, stride=1, padding=1), seed=5)
    shape = (2, 3, 3)
    net = network_from_torch(model, input_shape=shape)
    units = np.eye(math.prod(shape))
    columns = model_outputs(model, units, shape) - model_outputs(model, np.zeros((1, math.prod(shape))), shape)
    W = tuple(tuple(F(v) for v in row) for row in columns.T)
    assert net.weights[0] == W
    assert net.architecture.widths == (18, 48)


POOLINGS = {
    "2x2": (lambda: nn.AvgPool2d(2), True),
    "stride, padding, ceil, no pad count": (
        lambda: nn.AvgPool2d(3, stride=2, padding=1, ceil_mode=True, count_include_pad=False),
        False,
    ),
    "padding counted": (lambda: nn.AvgPool2d((2, 3), stride=(1, 2), padding=(1, 1)), False),
    "ceil, a last window in the padding dropped": (lambda: nn.AvgPool2d(2, stride=3, padding=1, ceil_mode=True), True),
    "divisor override": (lambda: nn.AvgPool2d(2, stride=1, divisor_override=2), True),
    "adaptive": (lambda: nn.AdaptiveAvgPool2d((2, 3)), False),
    "adaptive, one side kept": (lambda: nn.AdaptiveAvgPool2d((None, 2)), True),
}


@pytest.mark.parametrize("name", POOLINGS)
def test_average_pooling_is_lowered_exactly(name):
    build, dyadic_divisors = POOLINGS[name]
    shape = (2, 5, 4)
    pool = build()
    out = pool(torch.zeros(1, *shape)).shape[1:]
    model = dyadic(nn.Sequential(nn.Conv2d(2, 2, 1), pool, nn.Flatten(), nn.ReLU(), nn.Linear(math.prod(out), 1)), seed=6)
    net = network_from_torch(model, input_shape=shape)
    # the pooling and the flatten compose with the convolution before them into one layer
    assert net.architecture.widths == (40, math.prod(out), 1)
    if dyadic_divisors:
        assert_exactly_model(net, model, shape)
    else:
        assert_close_to_model(net, model, shape)
        assert any(v.denominator % 3 == 0 for row in net.weights[0] for v in row)  # a divisor of 3, 6 or 9: exact


def test_small_convolutional_network():
    class ConvNet(nn.Module):
        def __init__(self):
            super().__init__()
            self.features = nn.Sequential(nn.Conv2d(1, 2, 3, padding=1), batchnorm(2, seed=7, kind=nn.BatchNorm2d), nn.ReLU())
            self.pool = nn.AvgPool2d(2)
            self.fc1, self.fc2 = nn.Linear(2 * 3 * 3, 4), nn.Linear(4, 3)

        def forward(self, x):
            x = self.pool(self.features(x))
            x = x.view(-1, 2 * 3 * 3)  # the classic LeNet reshape: the batch dimension inferred
            return self.fc2(Fn.relu(self.fc1(x)))

    torch.manual_seed(8)
    model = ConvNet().eval()
    net = network_from_torch(model, input_shape=(1, 6, 6))
    assert net.architecture.widths == (36, 72, 4, 3)
    assert_close_to_model(net, model, (1, 6, 6))
    # the output of a model that ends with a convolution is flattened too
    head = dyadic(nn.Sequential(nn.Conv2d(1, 2, 2), nn.ReLU(), nn.Conv2d(2, 1, 2)), seed=9)
    net = network_from_torch(head, input_shape=(1, 4, 4))
    assert net.architecture.widths == (16, 18, 4)
    assert_exactly_model(net, head, (1, 4, 4))


def test_input_shape_is_needed_where_the_model_does_not_tell_it():
    model = nn.Sequential(nn.Conv2d(1, 1, 2), nn.ReLU(), nn.Flatten(), nn.Linear(4, 1))
    with pytest.raises(InvalidArgumentError, match=r"module 0 \(Conv2d\) comes first.*input_shape=\(C, H, W\)"):
        network_from_torch(model)
    with pytest.raises(ShapeError, match=r"module 3 \(Linear\) takes 4 input features, but gets a sample of shape \(9,\)"):
        network_from_torch(model, input_shape=(1, 4, 4))
    with pytest.raises(ShapeError, match=r"module 0 \(Conv2d\) takes samples of shape \(1, H, W\), but gets \(2, 3, 3\)"):
        network_from_torch(model, input_shape=(2, 3, 3))
    assert network_from_torch(model, input_shape=[1, 3, 3]).architecture.widths == (9, 4, 1)
    for wrong in ((), (1, 0, 3), (1.0, 3, 3), "1,3,3", (True, 3, 3), 9):
        with pytest.raises(InvalidArgumentError, match="input_shape must be a tuple of positive ints"):
            network_from_torch(model, input_shape=wrong)
    with pytest.raises(InvalidArgumentError, match="input_shape is for modules"):
        network_from_torch(nn.Linear(2, 1).state_dict(), input_shape=(2,))


# -- what is refused ---------------------------------------------------------------------------------------
class Residual(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 3)

    def forward(self, x):
        return x + self.fc(x)


class Attention(nn.Module):
    def __init__(self):
        super().__init__()
        self.attention = nn.MultiheadAttention(4, 2, batch_first=True)

    def forward(self, x):
        return self.attention(x, x, x)[0]


class Gate(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 3)

    def forward(self, x):
        return torch.sigmoid(self.fc(x))


class Mixing(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(2, 1)

    def forward(self, x):
        return self.fc(x.view(-1, 2))  # each sample has 4 values: this makes two rows of each


class FlattensTheBatch(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(2, 1)

    def forward(self, x):
        return self.fc(x.flatten())  # start_dim=0: one long row of the whole batch


class TwoInputs(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(2, 1)

    def forward(self, x, y):
        return self.fc(x)


@pytest.mark.parametrize(
    "build, shape, fragment",
    [
        (lambda: nn.Sequential(nn.Linear(2, 3), nn.LeakyReLU(), nn.Linear(3, 1)), None, "module 1 is LeakyReLU"),
        (lambda: nn.Sequential(nn.Conv2d(1, 1, 2), nn.MaxPool2d(2), nn.Flatten()), (1, 5, 5), "module 1 is MaxPool2d"),
        (lambda: nn.Sequential(nn.Conv1d(1, 1, 2), nn.Flatten()), (1, 4), "module 0 is Conv1d"),
        (lambda: nn.Sequential(nn.Linear(2, 2), nn.Sigmoid()), None, "module 1 is Sigmoid"),
        (Gate, None, "forward calls torch.sigmoid (node sigmoid)"),
        (Residual, None, "forward calls the operator + (node add), which polyrelu does not read (it adds two tensors"),
        (Attention, (3, 4), "module attention is MultiheadAttention"),
        (lambda: nn.Sequential(nn.Conv2d(1, 1, 3, padding=1, padding_mode="reflect")), (1, 3, 3), "padding_mode='reflect'"),
        (Mixing, (4,), "mixes the samples of a batch"),
        (FlattensTheBatch, (2,), "Tensor.flatten (node flatten) flattens the batch dimension (start_dim=0)"),
        (TwoInputs, None, "forward takes 2 inputs ['x', 'y']"),
    ],
)
def test_refused_layers_are_named(build, shape, fragment):
    model = build().eval()
    with pytest.raises(NetworkFormatError) as info:
        network_from_torch(model, input_shape=shape)
    message = str(info.value)
    assert fragment in message
    # a refusal by name says what polyrelu reads instead
    assert ("which polyrelu does not read" in message) == ("reads models whose forward is a chain of Linear, Conv2d" in message)


def test_entries_that_are_not_finite_are_named():
    model = nn.Sequential(nn.Conv2d(1, 2, 2), nn.ReLU(), nn.Flatten(), nn.Linear(8, 1))
    with torch.no_grad():
        model[0].weight[1, 0, 0, 1] = float("nan")
    with pytest.raises(InvalidNumberError, match=r"module 0 weight\[1, 0, 0, 1\]: nan is not a finite number"):
        network_from_torch(model, input_shape=(1, 3, 3))


# -- sizes -------------------------------------------------------------------------------------------------
def test_a_huge_convolution_is_refused_before_it_is_lowered():
    model = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.Flatten(), nn.Linear(8 * 64 * 64, 1))
    tracemalloc.start()
    try:
        with pytest.raises(LimitExceededError) as info:
            network_from_torch(model, input_shape=(3, 64, 64))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert "module 0 (Conv2d) on samples of shape (3, 64, 64)" in str(info.value)
    assert "dense map of 32,768 x 12,288 weights" in str(info.value)
    assert peak < 8 << 20  # a dense lowering would take gigabytes
    small = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.Flatten(), nn.Linear(8 * 4 * 4, 1))
    with pytest.raises(LimitExceededError, match=r"module 0 \(Conv2d\) gives samples of shape \(8, 4, 4\), a layer of width 128"):
        network_from_torch(small, input_shape=(3, 4, 4), limits=Limits(max_width=100))
    with pytest.raises(LimitExceededError, match="an input of shape \\(3, 64, 64\\), width 12,288"):
        network_from_torch(model, input_shape=(3, 64, 64), limits=Limits(max_width=10_000))
    with pytest.raises(LimitExceededError, match="the model's layers hold 32,993 weights and biases"):
        network_from_torch(model, input_shape=(3, 64, 64), limits=Limits(max_parameters=32_900))
    # a convolution after a pooling: their composition is what would be allocated
    pooled = nn.Sequential(nn.AvgPool2d(2), nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(), nn.Flatten(), nn.Linear(256, 1))
    with pytest.raises(LimitExceededError, match=r"module 1 \(Conv2d\) on samples of shape \(1, 4, 4\), composed with module 0"):
        network_from_torch(pooled, input_shape=(1, 8, 8), limits=Limits(max_parameters=10_000))
    assert network_from_torch(pooled, input_shape=(1, 8, 8)).architecture.widths == (64, 256, 1)


# -- files -------------------------------------------------------------------------------------------------
def test_a_pickled_convolutional_model_needs_trust_and_an_input_shape(tmp_path):
    model = dyadic(nn.Sequential(nn.Conv2d(1, 2, 2), nn.ReLU(), nn.Flatten(), nn.Linear(8, 1)), seed=10)
    path = tmp_path / "conv.pt"
    torch.save(model, path)
    with pytest.raises(UnsafeFileError):
        read_torch(path, input_shape=(1, 3, 3))
    with pytest.raises(InvalidArgumentError, match="input_shape"):
        read_torch(path, trust_pickle=True)
    net = read_torch(path, trust_pickle=True, input_shape=(1, 3, 3))
    assert net == network_from_torch(model, input_shape=(1, 3, 3))
    assert_exactly_model(net, model, (1, 3, 3))


def test_the_check_still_guards_traced_models():
    # a forward hook is invisible to torch.fx; the check against the model's forward pass catches it
    model = dyadic(nn.Sequential(nn.Conv2d(1, 1, 2), nn.ReLU(), nn.Flatten(), nn.Linear(4, 1)), seed=11)
    model[0].register_forward_hook(lambda module, inputs, output: output.flip(-1))
    with pytest.raises(ModelMismatchError, match="traced with torch.fx"):
        network_from_torch(model, input_shape=(1, 3, 3))
