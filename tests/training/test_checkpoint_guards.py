"""The checkpoint helpers' guards fire where MindSpore alone would be silently different (issue 24), both frameworks:

* ``torch.save(model.state_dict(), 'a.pth')`` -> ``ms.save_checkpoint`` writes ``a.pth.ckpt``; ``torch.load('a.pth')``
  -> ``load_checkpoint_dict`` finds it (``ms.load_checkpoint('a.pth')`` raises);
* ``load_state_dict`` of a dict missing a name raises in torch; ``ms.load_param_into_net`` only returns the name, so
  ``load_params`` raises, and with ``strict=False`` returns the missing names as torch does;
* a value of another shape raises in torch; ``Parameter.copy_`` broadcasts a (1,) bias silently, so ``load_params``
  raises.
"""
import os

from migrate import convert_source

SCRIPT = """
import torch
import torch.nn as nn

model = nn.Sequential(nn.Linear(3, 4), nn.Linear(4, 2))
events = []
torch.save(model.state_dict(), PATH)
sd = torch.load(PATH)
events.append(sorted(sd))
model.load_state_dict(sd)
partial = {k: v for k, v in sd.items() if k != '1.bias'}
try:
    model.load_state_dict(partial)
    events.append('loaded without 1.bias')
except RuntimeError as e:
    events.append('missing raises' if '1.bias' in str(e) else str(e))
events.append(list(model.load_state_dict(partial, strict=False)[0]))
bad = dict(sd)
bad['1.bias'] = sd['1.bias'][:1]
try:
    model.load_state_dict(bad)
    events.append('loaded a (1,) bias')
except RuntimeError as e:
    events.append('size raises' if 'size mismatch' in str(e) else str(e))
"""


def test_guards_fire_as_torch_raises(tmp_path):
    result = convert_source(SCRIPT, filename="train.py")
    assert not result.unsupported, [u.reason for u in result.unsupported]
    assert "def load_params(" in result.code and "def load_checkpoint_dict(" in result.code, result.code
    tns = {"PATH": str(tmp_path / "t.pth")}
    exec(compile(SCRIPT, "<torch>", "exec"), tns)
    mns = {"PATH": str(tmp_path / "m.pth")}
    exec(compile(result.code, "<ms>", "exec"), mns)
    want = [["0.bias", "0.weight", "1.bias", "1.weight"], "missing raises", ["1.bias"], "size raises"]
    assert tns["events"] == want
    assert mns["events"] == want, result.code
    # the suffix guard is needed: MindSpore wrote the file under another name
    assert os.path.exists(mns["PATH"] + ".ckpt") and not os.path.exists(mns["PATH"])
