"""torch.device(...) as scripts use it (issue 28): an object with torch's .type and .index, equal only to a device
of the same name (torch.device('cpu') == 'cpu' is False in torch), printed as its name. Both frameworks run."""
from tests.harness import Case, run_case

HEADER = "import torch\n"


def test_device_type_index_str_and_equality():
    run_case(Case("torch.device", HEADER + """
# @run
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
gpu1 = torch.device("cuda", 1)
out = (device.type, str(device), f"{device}", device.index, gpu1.type, gpu1.index, str(gpu1),
       torch.device("cuda:2").index, device == "cpu", device == torch.device("cpu"), device != torch.device("cpu"),
       len({device, torch.device("cpu")}), device.type == "cuda")
"""))
