"""The pitfalls some rules report are real on MindSpore 2.10, and the --fix rewrites keep
the numbers: each case runs MindSpore (CPU)."""
import runpy
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from migrate.lint import fix_source, lint_source

ms = pytest.importorskip("mindspore")

NO_SELF = textwrap.dedent('''
    import numpy as np
    import mindspore as ms
    from mindspore import nn

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc = nn.Dense(3, 2)

        def construct(me, x):
            return me.fc(x)

    net = Net()
    x = ms.Tensor(np.ones((2, 3), np.float32))
    print("eager", net(x).shape)

    def forward(x):
        return net(x)

    try:
        ms.jit(forward)(x)
        print("jit ok")
    except Exception as exc:
        print("jit failed:", type(exc).__name__, str(exc).splitlines()[0])
''')


def test_construct_without_self_fails_under_jit_and_is_flagged(tmp_path):
    assert [f.rule for f in lint_source(NO_SELF)] == ["MS007"]
    script = tmp_path / "no_self.py"  # ms.jit reads the source from a file
    script.write_text(NO_SELF)
    # own process: a failed MindSpore compile can poison later, unrelated calls
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                         timeout=120).stdout
    assert "eager (2, 2)" in out
    assert "jit failed: TypeError The parameters number of the function is 2" in out


def test_ms_function_is_gone_and_the_fix_runs(tmp_path):
    assert not hasattr(ms, "ms_function")
    source = textwrap.dedent('''
        import numpy as np
        import mindspore as ms
        from mindspore import ms_function

        @ms_function
        def double(x):
            return x * 2

        result = double(ms.Tensor(np.arange(3, dtype=np.float32)))
    ''')
    with pytest.raises(ImportError):
        exec(compile(source, "old.py", "exec"), {})
    fixed = fix_source(source)
    assert "from mindspore import jit" in fixed and lint_source(fixed) == []
    (tmp_path / "fixed.py").write_text(fixed)  # ms.jit reads the source from a file
    scope = runpy.run_path(str(tmp_path / "fixed.py"))
    assert scope["result"].asnumpy().tolist() == [0.0, 2.0, 4.0]


LIST_NET = textwrap.dedent('''
    import mindspore as ms
    from mindspore import nn

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.conv = nn.Conv2d(3, 4, 3, pad_mode="pad", padding=1, has_bias=True)

        def construct(self, x):
            temp = []
            for i in range(4):
                temp.append(self.conv(x * (i + 1)))
            out = temp[0] + temp[1] + temp[2] + temp[3]
            return out
''')


def _loss_and_grads(source, x):
    scope = {}
    exec(compile(source, "net.py", "exec"), scope)
    ms.set_seed(0)
    net = scope["Net"]()
    for p in net.trainable_params():  # same weights for both versions
        p.set_data(ms.Tensor(np.linspace(-1, 1, p.size, dtype=np.float32).reshape(p.shape)))

    def loss(x):
        return net(x).sum()

    value, grads = ms.value_and_grad(loss, None, net.trainable_params())(x)
    return value.asnumpy(), [g.asnumpy() for g in grads]


def test_list_accumulation_fix_keeps_values_and_gradients():
    fixed = fix_source(LIST_NET)
    assert "out = ms.ops.stack(temp).sum(axis=0)" in fixed
    assert "MS001" in {f.rule for f in lint_source(LIST_NET)}
    assert "MS001" not in {f.rule for f in lint_source(fixed)}
    x = ms.Tensor(np.random.RandomState(0).randn(2, 3, 6, 6).astype(np.float32))
    loss_a, grads_a = _loss_and_grads(LIST_NET, x)
    loss_b, grads_b = _loss_and_grads(fixed, x)
    np.testing.assert_allclose(loss_b, loss_a, rtol=1e-5)
    for a, b in zip(grads_a, grads_b):
        np.testing.assert_allclose(b, a, rtol=1e-4, atol=1e-4)
