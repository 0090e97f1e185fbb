"""Optimizer, scheduler and training-script entries are proven by whole training runs in tests/training/
(per-step losses and final weights against torch), not by single-call cases."""
_T = "tests/training/test_training.py"
_I = "tests/training/test_idioms.py"
_L = "tests/training/test_data_loading.py"
_D = "tests/training/test_data_parallel.py"
PROVEN_ELSEWHERE = {
    "torch.optim.SGD": f"{_T}::test_optimizers", "torch.optim.Adam": f"{_T}::test_optimizers",
    "torch.optim.AdamW": f"{_T}::test_optimizers", "torch.optim.RMSprop": f"{_T}::test_optimizers",
    "torch.optim.Adagrad": f"{_T}::test_optimizers",
    "torch.optim.lr_scheduler.StepLR": f"{_T}::test_schedulers",
    "torch.optim.lr_scheduler.MultiStepLR": f"{_T}::test_schedulers",
    "torch.optim.lr_scheduler.ExponentialLR": f"{_T}::test_schedulers",
    "torch.optim.lr_scheduler.CosineAnnealingLR": f"{_T}::test_schedulers",
    "torch.optim.lr_scheduler.LambdaLR": f"{_T}::test_schedulers",
    "Module.parameters": f"{_T}::test_optimizers",
    "torch.manual_seed": f"{_T}::test_dataset_dataloader_and_checkpoint",
    "torch.utils.data.Dataset": f"{_T}::test_dataset_dataloader_and_checkpoint",
    "torch.utils.data.DataLoader": f"{_T}::test_dataset_dataloader_and_checkpoint",
    "torch.save": f"{_T}::test_dataset_dataloader_and_checkpoint",
    "torch.load": f"{_T}::test_dataset_dataloader_and_checkpoint",
    "Module.state_dict": f"{_T}::test_dataset_dataloader_and_checkpoint",
    "Module.load_state_dict": f"{_T}::test_dataset_dataloader_and_checkpoint",
    "torch.no_grad": f"{_T}::test_combined_script_in_functions",
    "torch.inference_mode": f"{_T}::test_batchnorm_mode_injected_and_freezing_and_no_grad",
    "Parameter.requires_grad_": f"{_T}::test_batchnorm_mode_injected_and_freezing_and_no_grad",
    "torch.nn.utils.clip_grad_norm_": f"{_T}::test_zero_grad_after_helper_loss_aux_clip_summed",
    "torch.optim.Adadelta": f"{_I}::test_adadelta",
    "torch.autocast": f"{_I}::test_amp_autocast_float16_grad_scaler_unscale_clip",
    "torch.amp.GradScaler": f"{_I}::test_amp_autocast_float16_grad_scaler_unscale_clip",
    # the CUDA spellings convert to exactly the text of the proven CPU script
    "torch.amp.autocast": f"{_I}::test_amp_cuda_spellings_convert_like_the_proven_script",
    "torch.cuda.amp.autocast": f"{_I}::test_amp_cuda_spellings_convert_like_the_proven_script",
    "torch.cuda.amp.GradScaler": f"{_I}::test_amp_cuda_spellings_convert_like_the_proven_script",
    "torch.channels_last": f"{_I}::test_channels_last_set_to_none_and_conditional_clip",
    "torch.contiguous_format": f"{_I}::test_channels_last_set_to_none_and_conditional_clip",
    "torch.optim.lr_scheduler.ReduceLROnPlateau": f"{_I}::test_reduce_lr_on_plateau",
    "torch.Generator": f"{_L}::test_random_split_seeded_then_shuffled_loader_sharing_the_generator",
    "torch.utils.data.random_split": f"{_L}::test_random_split_seeded_then_shuffled_loader_sharing_the_generator",
    "torch.utils.data.Subset": f"{_L}::test_random_split_seeded_then_shuffled_loader_sharing_the_generator",
    "torch.utils.data.distributed.DistributedSampler": f"{_L}::test_distributed_sampler_indices_per_rank_and_epoch",
    **{f"torch.utils.data.{n}": f"{_L}::test_samplers_with_seeded_generators_and_a_user_sampler"
       for n in ("Sampler", "SequentialSampler", "RandomSampler", "SubsetRandomSampler", "BatchSampler")},
    # data parallel: torchrun (gloo, 2 CPU processes) against the conversion under msrun (2 CPU workers)
    **{api: f"{_D}::test_torchrun_ddp_script_and_its_conversion_under_msrun" for api in (
        "torch.utils.data.TensorDataset", "torch.distributed.init_process_group", "torch.distributed.get_rank",
        "torch.distributed.get_world_size", "torch.distributed.barrier", "torch.distributed.is_initialized", "torch.distributed.all_reduce",
        "torch.distributed.ReduceOp.SUM", "torch.distributed.destroy_process_group",
        "torch.nn.parallel.DistributedDataParallel", "torch.nn.parallel.distributed.DistributedDataParallel",
        "torch.utils.data.DistributedSampler")},
    **{api: f"{_D}::test_torchrun_collectives_and_their_conversion_under_msrun" for api in (
        "torch.distributed.broadcast", "torch.distributed.all_gather", "torch.distributed.all_gather_object",
        "torch.distributed.broadcast_object_list", "torch.distributed.group.WORLD")},
}
