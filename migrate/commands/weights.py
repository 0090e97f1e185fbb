"""`msmigrate weights`: convert a torch state_dict to a MindSpore checkpoint and back."""
from __future__ import annotations

import os
import sys

from .. import exitcodes

HELP = "convert a torch state_dict (.pt/.pth) to a MindSpore checkpoint (.ckpt) and back"
DESCRIPTION = """\
Convert trained weights between frameworks, with the parameter names the converter produces.

  msmigrate weights model.pth -o model.ckpt                 torch -> MindSpore
  msmigrate weights model.ckpt -o model.pth --reverse       MindSpore -> torch

Names follow the mapping table's weights.toml (BatchNorm weight/bias/running_mean/running_var ->
gamma/beta/moving_mean/moving_variance, num_batches_tracked dropped; LayerNorm/GroupNorm -> gamma/beta;
Embedding -> embedding_table; PReLU -> w; Conv1d weight (out,in,k) -> (out,in,1,k)). With --model (torch)
or --ms-model (MindSpore) the layers are read from the network and the mapping is exact; without, layers
are inferred from tensor names and the inferred rules printed.

torch checkpoints are read with torch.load(weights_only=True): a pickle that would run code is refused.
--model / --ms-model IMPORT AND RUN the named Python file. The output is written to a temporary file and
renamed: an existing DST is never left half-written. Details: docs/weights.md.

""" + exitcodes.help_line()


def add_arguments(parser) -> None:
    parser.add_argument("src", metavar="SRC", help="torch .pt/.pth state_dict (or .ckpt with --reverse)")
    parser.add_argument("-o", "--output", required=True, metavar="DST", help="file to write")
    parser.add_argument("--reverse", action="store_true", help="MindSpore .ckpt -> torch .pth")
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--model", metavar="TORCH_FILE:NAME", help="torch network to map exactly (runs that file)")
    group.add_argument("--ms-model", metavar="MS_FILE:NAME", help="MindSpore network to map exactly (runs that file)")
    parser.add_argument("--args", metavar="JSON", help="keyword arguments for NAME, as a JSON object")
    parser.add_argument("--no-strict", action="store_true",
                        help="with --ms-model: skip tensors that have no counterpart instead of failing")
    parser.add_argument("--quiet", "-q", action="store_true", help="no progress bar")


def run(args) -> int:
    from migrate.parity.loading import LoadError, load_object, parse_args_json
    from migrate.weights import (WeightsError, load_checkpoint_into, load_ms_checkpoint, load_torch_state_dict,
                                 mindspore_to_torch, ms_arrays_to_state_dict, save_ms_checkpoint,
                                 save_torch_state_dict, state_dict_to_ms_arrays, torch_to_mindspore)

    from migrate.progress import Progress

    bar = Progress("weights", "step", total=3, quiet=getattr(args, "quiet", False))
    try:
        if os.path.abspath(args.src) == os.path.abspath(args.output):
            raise WeightsError(f"{args.output}: output would overwrite the input")
        kwargs = parse_args_json(args.args)
        torch_model = load_object(args.model, kwargs) if args.model else None
        ms_net = load_object(args.ms_model, kwargs) if args.ms_model else None
        notes = []
        bar.describe(f"reading {os.path.basename(args.src)}")
        if not args.reverse:
            sd = load_torch_state_dict(args.src)
            bar.update()
            bar.describe(f"mapping {len(sd)} tensors")
            if ms_net is not None:
                mapping = torch_to_mindspore(sd, ms_net, strict=not args.no_strict)
                arrays = {p.name: p.asnumpy() for _, p in ms_net.parameters_and_names()}
                renamed = sum(1 for k, v in mapping.items() if k != v)
            else:
                arrays, nm = state_dict_to_ms_arrays(sd, torch_model)
                notes = nm.inferred_summary()
                renamed = sum(1 for e in nm.entries if e.torch_name != e.ms_name)
            bar.update()
            bar.describe(f"writing {os.path.basename(args.output)}")
            save_ms_checkpoint(arrays, args.output)
            bar.update()
            dropped = len(sd) - (len(mapping) if ms_net is not None else len(arrays))
        else:
            arrays = load_ms_checkpoint(args.src)
            bar.update()
            bar.describe(f"mapping {len(arrays)} tensors")
            if ms_net is not None:
                load_checkpoint_into(ms_net, arrays)
                sd = mindspore_to_torch(ms_net)
                renamed = sum(1 for k in sd if k not in arrays)
            else:
                sd, nm = ms_arrays_to_state_dict(arrays, torch_model)
                notes = nm.inferred_summary()
                renamed = sum(1 for e in nm.entries if e.torch_name != e.ms_name)
            bar.update()
            bar.describe(f"writing {os.path.basename(args.output)}")
            save_torch_state_dict(sd, args.output)
            bar.update()
            dropped = 0
    except (WeightsError, LoadError) as exc:
        bar.close()
        print(f"msmigrate weights: error: {exc}", file=sys.stderr)
        return exitcodes.USAGE
    finally:
        bar.close()
    for line in notes:
        print(line)
    n = len(arrays) if not args.reverse else len(sd)
    print(f"wrote {args.output}: {n} tensors, {renamed} renamed"
          + (f", {dropped} dropped (num_batches_tracked)" if dropped else ""))
    return exitcodes.OK
