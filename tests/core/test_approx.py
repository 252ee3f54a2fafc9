import numpy as np
import torch

from ftd_lib.approx import MLP, Linear


def torch_value(mlp, w, x):
    W1, b1, w2, b2 = (torch.tensor(a) for a in mlp.unpack(w))
    return torch.tanh(torch.as_tensor(x) @ W1.T + b1) @ w2 + b2


def test_mlp_gradient_matches_autograd(rng):
    for n_in, H in [(2, 50), (4, 7), (1, 1)]:
        mlp = MLP(n_in, H)
        w = mlp.init(rng)
        x = rng.uniform(-1, 1, size=(5, n_in))
        wt = torch.tensor(w, requires_grad=True)
        for i in range(5):
            # rebuild the forward pass from the flat torch vector
            H_, n = mlp.n_hidden, mlp.n_in
            W1 = wt[: H_ * n].reshape(H_, n)
            b1 = wt[H_ * n : H_ * n + H_]
            w2 = wt[H_ * n + H_ : H_ * n + 2 * H_]
            b2 = wt[-1]
            v = torch.tanh(torch.tensor(x[i]) @ W1.T + b1) @ w2 + b2
            (g,) = torch.autograd.grad(v, wt)
            assert np.allclose(mlp.grad(w, x[i]), g.numpy(), atol=1e-13, rtol=0)
            assert np.isclose(mlp.value(w, x[i]), v.item(), atol=1e-13)
        # batched forms equal the per-sample forms
        assert np.allclose(mlp.grad(w, x), np.stack([mlp.grad(w, xi) for xi in x]))
        assert np.allclose(mlp.value(w, x), torch_value(mlp, w, x).numpy())


def test_mlp_layout_and_init(rng):
    mlp = MLP(2, 50)
    assert mlp.n_params == 50 * 2 + 50 + 50 + 1
    w = mlp.init(rng)
    assert w.shape == (mlp.n_params,)
    W1, b1, w2, b2 = mlp.unpack(w)
    assert np.all(np.abs(W1) <= 1 / np.sqrt(2)) and np.all(np.abs(w2) <= 1 / np.sqrt(50))
    assert np.allclose(mlp.init(np.random.default_rng(3)), mlp.init(np.random.default_rng(3)))


def test_linear(rng):
    lin = Linear(4)
    w = rng.normal(size=4)
    x = rng.normal(size=(3, 4))
    assert np.allclose(lin.value(w, x), x @ w)
    assert np.allclose(lin.grad(w, x[0]), x[0])
    assert np.all(lin.init(rng) == 0)
